//! Our client: `mcp_transport::McpClient::call_tool_with("echo")` (the arguments lent, as an
//! agent that keeps its tool call does) over its stdio transport
//! (`connect_stdio`) or its Streamable HTTP transport (`connect_http` with
//! `RemoteTransport::StreamableHttp`), driven by the shared loop in `async_driver.rs`, in one
//! of two protocol eras ([`Era`]):
//!
//! - the handshake era: `ClientOptions::protocol_version(V2025_11_25)`, so the client sends
//!   `initialize` with no `server/discover` probe first, against the server's default mode
//!   (the one every other client meets). Pinned rather than left to the probe's fallback, so
//!   the row's era is the driver's choice, not a consequence of how the server refuses
//!   `server/discover`, and its connection is exactly a handshake-era one;
//! - 2026-07-28: default options against the server in its dual-era mode (`--stateless`): the
//!   client's probe finds `server/discover` answered and every request carries the revision's
//!   `_meta` (over HTTP, its headers and no session).
//!
//! Either way the negotiated version is checked before anything is timed.

use std::path::Path;
use std::sync::Arc;

use mcp_bench_peers::sys::only_child;
use mcp_bench_peers::{Figures, Sizes};
use mcp_transport::http::{HttpServerParams, RemoteTransport};
use mcp_transport::{
    ClientOptions, JsonObject, McpClient, ProtocolVersion, RequestOptions, StdioServerParams,
};

use crate::BoxError;
use crate::async_driver::{EchoClient, Shape, measure, run_in_shape};
use crate::http_server::{Answers, run_against};

/// The protocol era a row of ours speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Era {
    /// 2025-11-25, pinned, against the server's default (handshake-era only) mode.
    Handshake,
    /// 2026-07-28, found by the client's probe, against the server's dual-era mode.
    Stateless,
}

impl Era {
    /// The options the client connects with.
    fn options(self) -> ClientOptions {
        match self {
            Self::Handshake => {
                ClientOptions::default().protocol_version(ProtocolVersion::V2025_11_25)
            }
            Self::Stateless => ClientOptions::default(),
        }
    }

    /// The version the client must end up speaking.
    fn version(self) -> ProtocolVersion {
        match self {
            Self::Handshake => ProtocolVersion::V2025_11_25,
            Self::Stateless => ProtocolVersion::V2026_07_28,
        }
    }

    /// The reference server's arguments for this era (after `--http [--sse]`).
    pub(crate) fn server_args(self) -> &'static [&'static str] {
        match self {
            Self::Handshake => &[],
            Self::Stateless => &["--stateless"],
        }
    }

    /// What the row's figures call the client, before the answer kind for HTTP.
    fn name(self, http: bool) -> &'static str {
        match (self, http) {
            (Self::Handshake, false) => "ours",
            (Self::Stateless, false) => "ours-2026",
            (Self::Handshake, true) => "ours-http",
            (Self::Stateless, true) => "ours-http-2026",
        }
    }
}

struct Ours {
    client: McpClient,
    arguments: JsonObject,
}

impl EchoClient for Ours {
    async fn echo(&self) -> Result<(), BoxError> {
        let result = self
            .client
            .call_tool_with("echo", Some(&self.arguments), &RequestOptions::default())
            .await?;
        if result.is_error {
            return Err(format!("the echo tool failed: {:?}", result.content).into());
        }
        Ok(())
    }
}

/// Over stdio: the client spawns the server itself.
pub(crate) fn run(
    server: &Path,
    sizes: Sizes,
    shape: Shape,
    era: Era,
) -> Result<Figures, BoxError> {
    let program = server.to_string_lossy().into_owned();
    run_in_shape(shape, async move {
        let params = StdioServerParams::new(program, era.server_args().to_vec());
        let client = McpClient::connect_stdio("reference", params, era.options()).await?;
        let server_pid = only_child()?;
        check_and_measure(client, server_pid, sizes, era, era.name(false), shape).await
    })
}

/// Over Streamable HTTP, against the server started in HTTP mode.
pub(crate) fn run_http(
    server: &Path,
    answers: Answers,
    sizes: Sizes,
    shape: Shape,
    era: Era,
) -> Result<Figures, BoxError> {
    run_against(
        server,
        answers,
        era.server_args(),
        shape,
        |url, pid| async move {
            let params = HttpServerParams::new(&url)?.transport(RemoteTransport::StreamableHttp);
            let client = McpClient::connect_http("reference", params, era.options()).await?;
            let name = format!("{}-{}", era.name(true), answers.name());
            check_and_measure(client, pid, sizes, era, &name, shape).await
        },
    )
}

/// Checks the era, lists the tools and checks one echo answer before anything is timed,
/// measures, then closes the client.
async fn check_and_measure(
    client: McpClient,
    server_pid: u32,
    sizes: Sizes,
    era: Era,
    name: &str,
    shape: Shape,
) -> Result<Figures, BoxError> {
    if client.protocol_version() != era.version() {
        return Err(format!(
            "the client speaks {}, not {} as the row says",
            client.protocol_version(),
            era.version()
        )
        .into());
    }
    let tools = client.list_tools().await?;
    if !tools.iter().any(|tool| tool.name == "echo") {
        return Err("the reference server lists no echo tool".into());
    }
    let mut arguments = JsonObject::new();
    arguments.insert("message".to_owned(), "ping".into());
    let first = client.call_tool("echo", Some(arguments.clone())).await?;
    if first.content.first().and_then(|block| block.as_text()) != Some("ping") {
        return Err(format!("unexpected echo answer: {first:?}").into());
    }
    let ours = Arc::new(Ours { client, arguments });
    let figures = measure(Arc::clone(&ours), server_pid, sizes, name, shape).await?;
    ours.client.close().await?;
    Ok(figures)
}
