//! reqwest alone, no MCP client: what the HTTP stack under our transport (and rmcp's) costs by
//! itself. A default `reqwest::Client` (kept-alive connections) posts one pre-serialized echo
//! body with the session's headers and reads the answer's body to its end (`bytes()`, JSON or
//! SSE alike) without parsing it; only the first answer, before timing, is checked for its
//! text. Every call carries the same request id: nothing here matches answers to requests.
//! Driven by the shared loop in `async_driver.rs`, so its three shapes compare with ours and
//! rmcp's directly.

use std::path::Path;
use std::sync::Arc;

use mcp_bench_peers::server_child::expect_marker;
use mcp_bench_peers::{Figures, Sizes};
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderValue};

use crate::BoxError;
use crate::async_driver::{EchoClient, Shape, measure};
use crate::http_server::{Answers, run_against};

const ACCEPT_BOTH: &str = "application/json, text/event-stream";
const INITIALIZE: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"reqwest\",\"version\":\"0\"}}}";
const INITIALIZED: &[u8] = b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";
const ECHO: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"message\":\"ping\"}}}";

struct Bare {
    http: reqwest::Client,
    url: reqwest::Url,
    session: Option<HeaderValue>,
}

impl Bare {
    async fn post(&self, body: &'static [u8]) -> Result<reqwest::Response, BoxError> {
        let mut request = self
            .http
            .post(self.url.clone())
            .header(ACCEPT, ACCEPT_BOTH)
            .header(CONTENT_TYPE, "application/json")
            .body(body);
        if let Some(session) = &self.session {
            request = request
                .header("mcp-session-id", session.clone())
                .header("mcp-protocol-version", "2025-11-25");
        }
        let response = request.send().await?;
        if !response.status().is_success() {
            return Err(format!("HTTP {} to a POST", response.status()).into());
        }
        Ok(response)
    }
}

impl EchoClient for Bare {
    async fn echo(&self) -> Result<(), BoxError> {
        self.post(ECHO).await?.bytes().await?;
        Ok(())
    }
}

pub(crate) fn run(
    server: &Path,
    answers: Answers,
    sizes: Sizes,
    shape: Shape,
) -> Result<Figures, BoxError> {
    run_against(server, answers, &[], shape, |url, pid| async move {
        let mut bare = Bare {
            http: reqwest::Client::new(),
            url: reqwest::Url::parse(&url)?,
            session: None,
        };
        let initialized = bare.post(INITIALIZE).await?;
        bare.session = Some(
            initialized
                .headers()
                .get("mcp-session-id")
                .cloned()
                .ok_or("initialize answered with no Mcp-Session-Id")?,
        );
        initialized.bytes().await?;
        bare.post(INITIALIZED).await?.bytes().await?;
        let first = bare.post(ECHO).await?.bytes().await?;
        expect_marker(&first, b"\"text\":\"ping\"", "echo")?;
        let name = format!("reqwest-http-{}", answers.name());
        measure(Arc::new(bare), pid, sizes, &name, shape).await
    })
}
