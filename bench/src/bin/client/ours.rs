//! Our client: `mcp_transport::McpClient::call_tool_borrowed("echo")` (the arguments lent, as an
//! agent that keeps its tool call does) over its stdio transport
//! (`connect_stdio`) or its Streamable HTTP transport (`connect_http` with
//! `RemoteTransport::StreamableHttp`), default options, driven by the shared loop in
//! `async_driver.rs`.

use std::path::Path;
use std::sync::Arc;

use mcp_bench_peers::sys::only_child;
use mcp_bench_peers::{Figures, Sizes};
use mcp_transport::http::{HttpServerParams, RemoteTransport};
use mcp_transport::{ClientOptions, JsonObject, McpClient, RequestOptions, StdioServerParams};

use crate::BoxError;
use crate::async_driver::{EchoClient, Shape, measure, run_in_shape};
use crate::http_server::{Answers, run_against};

struct Ours {
    client: McpClient,
    arguments: JsonObject,
}

impl EchoClient for Ours {
    async fn echo(&self) -> Result<(), BoxError> {
        let result = self
            .client
            .call_tool_borrowed("echo", Some(&self.arguments), &RequestOptions::default())
            .await?;
        if result.is_error {
            return Err(format!("the echo tool failed: {:?}", result.content).into());
        }
        Ok(())
    }
}

/// Over stdio: the client spawns the server itself.
pub(crate) fn run(server: &Path, sizes: Sizes, shape: Shape) -> Result<Figures, BoxError> {
    let program = server.to_string_lossy().into_owned();
    run_in_shape(shape, async move {
        let params = StdioServerParams::new(program, Vec::<String>::new());
        let client =
            McpClient::connect_stdio("reference", params, ClientOptions::default()).await?;
        let server_pid = only_child()?;
        check_and_measure(client, server_pid, sizes, "ours", shape).await
    })
}

/// Over Streamable HTTP, against the server started in HTTP mode.
pub(crate) fn run_http(
    server: &Path,
    answers: Answers,
    sizes: Sizes,
    shape: Shape,
) -> Result<Figures, BoxError> {
    run_against(server, answers, shape, |url, pid| async move {
        let params = HttpServerParams::new(&url)?.transport(RemoteTransport::StreamableHttp);
        let client = McpClient::connect_http("reference", params, ClientOptions::default()).await?;
        let name = format!("ours-http-{}", answers.name());
        check_and_measure(client, pid, sizes, &name, shape).await
    })
}

/// Lists the tools and checks one echo answer before anything is timed, measures, then closes
/// the client.
async fn check_and_measure(
    client: McpClient,
    server_pid: u32,
    sizes: Sizes,
    name: &str,
    shape: Shape,
) -> Result<Figures, BoxError> {
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
