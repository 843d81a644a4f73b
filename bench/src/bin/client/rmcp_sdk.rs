//! rmcp, the official Rust SDK (crates.io, features `client`, `transport-child-process` and
//! `transport-streamable-http-client-reqwest`): `().serve(transport)` to initialize, then
//! `Peer::call_tool` with an `echo` `CallToolRequestParams`, driven by the shared loop in
//! `async_driver.rs`.
//!
//! Over stdio the transport is `TokioChildProcess`; over HTTP it is
//! `StreamableHttpClientTransport` with its configuration's defaults except
//! `max_concurrent_requests`, raised from 16 to [`IN_FLIGHT`] so the pipelined phase really has
//! 32 calls in flight. Its default reqwest client keeps no connection alive
//! (`pool_max_idle_per_host(0)`): every POST opens a new TCP connection. That is what rmcp's
//! users get, so it is the measured default; [`Pool::KeepAlive`] (`rmcp-http-pooled-task`)
//! hands rmcp a plain `reqwest::Client` instead, to show what is left once connections are
//! reused.

use std::path::Path;
use std::sync::Arc;

use mcp_bench_peers::sys::only_child;
use mcp_bench_peers::{Figures, IN_FLIGHT, Sizes};
use rmcp::model::{CallToolRequestParams, JsonObject};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{Peer, ServiceExt};

use crate::BoxError;
use crate::async_driver::{EchoClient, Shape, measure, run_in_shape};
use crate::http_server::{Answers, run_against};

struct Rmcp {
    peer: Peer<RoleClient>,
    arguments: JsonObject,
}

impl EchoClient for Rmcp {
    async fn echo(&self) -> Result<(), BoxError> {
        let params = CallToolRequestParams::new("echo").with_arguments(self.arguments.clone());
        let result = self.peer.call_tool(params).await?;
        if result.is_error == Some(true) {
            return Err(format!("the echo tool failed: {:?}", result.content).into());
        }
        Ok(())
    }
}

/// Over stdio: the client spawns the server itself.
pub(crate) fn run(server: &Path, sizes: Sizes, shape: Shape) -> Result<Figures, BoxError> {
    let program = server.to_owned();
    run_in_shape(shape, async move {
        let transport = TokioChildProcess::new(tokio::process::Command::new(&program))?;
        let service = ().serve(transport).await?;
        let server_pid = only_child()?;
        check_and_measure(service, server_pid, sizes, "rmcp", shape).await
    })
}

/// Which reqwest client rmcp's Streamable HTTP transport uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pool {
    /// rmcp's own default client, which opens a connection per POST.
    RmcpDefault,
    /// `reqwest::Client::new()`, which keeps connections alive.
    KeepAlive,
}

/// Over Streamable HTTP, against the server started in HTTP mode.
pub(crate) fn run_http(
    server: &Path,
    answers: Answers,
    pool: Pool,
    sizes: Sizes,
    shape: Shape,
) -> Result<Figures, BoxError> {
    run_against(server, answers, &[], shape, |url, pid| async move {
        let config =
            StreamableHttpClientTransportConfig::with_uri(url).max_concurrent_requests(IN_FLIGHT);
        let (transport, name) = match pool {
            Pool::RmcpDefault => (
                StreamableHttpClientTransport::from_config(config),
                format!("rmcp-http-{}", answers.name()),
            ),
            Pool::KeepAlive => (
                StreamableHttpClientTransport::with_client(reqwest::Client::new(), config),
                format!("rmcp-http-pooled-{}", answers.name()),
            ),
        };
        let service = ().serve(transport).await?;
        check_and_measure(service, pid, sizes, &name, shape).await
    })
}

/// Lists the tools and checks one echo answer before anything is timed, measures, then ends
/// the service.
async fn check_and_measure(
    service: RunningService<RoleClient, ()>,
    server_pid: u32,
    sizes: Sizes,
    name: &str,
    shape: Shape,
) -> Result<Figures, BoxError> {
    let peer = service.peer().clone();
    let tools = peer.list_tools(None).await?;
    if !tools.tools.iter().any(|tool| tool.name == "echo") {
        return Err("the reference server lists no echo tool".into());
    }
    let mut arguments = JsonObject::new();
    arguments.insert("message".to_owned(), "ping".into());
    let first = peer
        .call_tool(CallToolRequestParams::new("echo").with_arguments(arguments.clone()))
        .await?;
    let text = first
        .content
        .first()
        .and_then(|content| content.as_text())
        .map(|text| text.text.as_str());
    if text != Some("ping") {
        return Err(format!("unexpected echo answer: {first:?}").into());
    }
    let rmcp = Arc::new(Rmcp { peer, arguments });
    let figures = measure(rmcp, server_pid, sizes, name, shape).await?;
    service.cancel().await?;
    Ok(figures)
}
