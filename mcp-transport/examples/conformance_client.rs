//! The client the official MCP conformance suite drives (`cargo xtask conformance`).
//!
//! ```text
//! cargo run -p mcp-transport --example conformance-client -- URL
//! ```
//!
//! The suite starts a mock server for a scenario, runs this program with the server's URL as
//! its last argument and the scenario's name in `MCP_CONFORMANCE_SCENARIO`, and then judges what
//! the server saw. For every scenario the client connects over Streamable HTTP, lists the tools
//! and calls the one the scenario is about (if any), answering elicitations with the defaults of
//! their schema, and closes. Exit status 0 when all of that worked; otherwise one line on
//! stderr and status 1.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use mcp_transport::handlers::{ElicitRequest, ElicitResult, ElicitationHandler};
use mcp_transport::http::{HttpServerParams, RemoteTransport};
use mcp_transport::{ClientOptions, ErrorObject, JsonObject, McpClient};
use serde_json::json;

/// Accepts every form with the defaults its schema declares (SEP-1034).
struct AcceptDefaults;

#[async_trait]
impl ElicitationHandler for AcceptDefaults {
    async fn elicit(
        &self,
        _server: &str,
        request: ElicitRequest,
    ) -> Result<ElicitResult, ErrorObject> {
        Ok(ElicitResult::accept(request.defaults()))
    }
}

/// The tool a scenario expects to be called, with its arguments.
fn tool_of(scenario: &str) -> Option<(&'static str, JsonObject)> {
    let arguments = |value: serde_json::Value| match value {
        serde_json::Value::Object(object) => object,
        _ => JsonObject::new(),
    };
    match scenario {
        "tools_call" => Some(("add_numbers", arguments(json!({"a": 5, "b": 3})))),
        "elicitation-sep1034-client-defaults" => {
            Some(("test_client_elicitation_defaults", JsonObject::new()))
        }
        "sse-retry" => Some(("test_reconnection", JsonObject::new())),
        _ => None,
    }
}

async fn run(url: &str, scenario: &str) -> Result<(), Box<dyn std::error::Error>> {
    let params = HttpServerParams::new(url)?.transport(RemoteTransport::StreamableHttp);
    let options = ClientOptions::default()
        .connect_timeout(Duration::from_secs(20))
        .request_timeout(Some(Duration::from_secs(20)))
        .elicitation(Arc::new(AcceptDefaults));
    let client = McpClient::connect_http("conformance", params, options).await?;
    let outcome = async {
        let tools = client.list_tools().await?;
        if let Some((tool, arguments)) = tool_of(scenario) {
            if !tools.iter().any(|listed| listed.name == tool) {
                return Err(format!("the server does not list the tool {tool}").into());
            }
            let result = client.call_tool(tool, Some(arguments)).await?;
            if result.is_error {
                return Err(format!("{tool} answered with an error: {:?}", result.content).into());
            }
        }
        Ok::<(), Box<dyn std::error::Error>>(())
    }
    .await;
    client.close().await?;
    outcome
}

fn main() -> ExitCode {
    let Some(url) = std::env::args().nth(1) else {
        eprintln!("usage: conformance-client URL (MCP_CONFORMANCE_SCENARIO names the scenario)");
        return ExitCode::from(2);
    };
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("conformance-client: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(&url, &scenario)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("conformance-client ({scenario}): {error}");
            ExitCode::FAILURE
        }
    }
}
