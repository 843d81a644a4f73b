//! rmcp, the official Rust SDK (crates.io, features `client` and `transport-child-process`):
//! `().serve(TokioChildProcess)` to initialize, then `Peer::call_tool` with an `echo`
//! `CallToolRequestParams`, driven by the shared loop in `async_driver.rs`.

use std::path::Path;
use std::sync::Arc;

use mcp_bench_peers::sys::only_child;
use mcp_bench_peers::{Figures, Sizes};
use rmcp::model::{CallToolRequestParams, JsonObject};
use rmcp::service::RoleClient;
use rmcp::transport::TokioChildProcess;
use rmcp::{Peer, ServiceExt};

use crate::BoxError;
use crate::async_driver::{EchoClient, Shape, measure, run_in_shape};

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

pub(crate) fn run(server: &Path, sizes: Sizes, shape: Shape) -> Result<Figures, BoxError> {
    let program = server.to_owned();
    run_in_shape(shape, async move {
        let transport = TokioChildProcess::new(tokio::process::Command::new(&program))?;
        let service = ().serve(transport).await?;
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
        let server_pid = only_child()?;
        let rmcp = Arc::new(Rmcp { peer, arguments });
        let figures = measure(rmcp, server_pid, sizes, "rmcp", shape).await?;
        service.cancel().await?;
        Ok(figures)
    })
}
