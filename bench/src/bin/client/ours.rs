//! Our client: `mcp_transport::McpClient::call_tool("echo")` over its stdio transport
//! (`connect_stdio`, default options), driven by the shared loop in `async_driver.rs`.

use std::path::Path;
use std::sync::Arc;

use mcp_bench_peers::sys::only_child;
use mcp_bench_peers::{Figures, Sizes};
use mcp_transport::{ClientOptions, JsonObject, McpClient, StdioServerParams};

use crate::BoxError;
use crate::async_driver::{EchoClient, Shape, measure, run_in_shape};

struct Ours {
    client: McpClient,
    arguments: JsonObject,
}

impl EchoClient for Ours {
    async fn echo(&self) -> Result<(), BoxError> {
        let result = self
            .client
            .call_tool("echo", Some(self.arguments.clone()))
            .await?;
        if result.is_error {
            return Err(format!("the echo tool failed: {:?}", result.content).into());
        }
        Ok(())
    }
}

pub(crate) fn run(server: &Path, sizes: Sizes, shape: Shape) -> Result<Figures, BoxError> {
    let program = server.to_string_lossy().into_owned();
    run_in_shape(shape, async move {
        let params = StdioServerParams::new(program, Vec::<String>::new());
        let client =
            McpClient::connect_stdio("reference", params, ClientOptions::default()).await?;
        let tools = client.list_tools().await?;
        if !tools.iter().any(|tool| tool.name == "echo") {
            return Err("the reference server lists no echo tool".into());
        }
        let mut arguments = JsonObject::new();
        arguments.insert("message".to_owned(), "ping".into());
        // The first answer proves the round trip before anything is timed.
        let first = client.call_tool("echo", Some(arguments.clone())).await?;
        if first.content.first().and_then(|block| block.as_text()) != Some("ping") {
            return Err(format!("unexpected echo answer: {first:?}").into());
        }
        let server_pid = only_child()?;
        let ours = Arc::new(Ours { client, arguments });
        let figures = measure(Arc::clone(&ours), server_pid, sizes, "ours", shape).await?;
        ours.client.close().await?;
        Ok(figures)
    })
}
