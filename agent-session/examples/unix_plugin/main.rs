//! A transport plugin used through a config file: MCP over a Unix socket, for entries of
//! `"type": "unix"`, registered with the session as a [`Connector`](mcp_manager::Connector).
//!
//! ```text
//! cargo run -p agent-session --example unix_plugin -- COMMAND [ARGS...]
//! ```
//!
//! It offers `COMMAND` (any stdio MCP server, e.g. `target/debug/mcp-fixture-server`) on a Unix
//! socket in a temporary folder, writes that folder's `.mcp.json` with one entry,
//! `{"type": "unix", "path": "server.sock"}`, opens an agent session there with the plugin
//! registered, prints the tools the registry got and the answer of `echo` when there is one,
//! and shuts the session down. Exit status 0 on success, 1 on failure, 2 for bad usage.
//!
//! The plugin itself is `plugin.rs`: the connector, a dozen lines. `socket_server.rs` is the
//! server's side, for this example only.

mod plugin;
mod socket_server;

use std::process::ExitCode;
use std::sync::Arc;

use agent_session::{SessionOptions, create_agent_session};
use mcp_cache::MemoryToolCache;
use mcp_config::TrustPolicy;
use mcp_manager::ManagerOptions;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::plugin::UnixSocketConnector;
use crate::socket_server::SocketServer;

type Failure = Box<dyn std::error::Error>;

async fn run(command: String, args: Vec<String>) -> Result<(), Failure> {
    let folder = std::env::temp_dir().join(format!("unix-plugin-{}", std::process::id()));
    std::fs::create_dir_all(&folder)?;
    let server = SocketServer::serve(&folder.join("server.sock"), command, args)?;
    let config = json!({"mcpServers": {"local": {"type": "unix", "path": "server.sock"}}});
    std::fs::write(
        folder.join(".mcp.json"),
        serde_json::to_string_pretty(&config)?,
    )?;

    let mut options = SessionOptions::new("unix-plugin-example", &folder);
    options.load = options
        .load
        .manager(ManagerOptions::default().connector("unix", Arc::new(UnixSocketConnector)))
        // This example wrote the project file itself: its server needs no approval.
        .trust(TrustPolicy::TrustAll)
        .cache(Arc::new(MemoryToolCache::default()));
    let started = create_agent_session(options).await;
    let session = started.session;
    let outcome = async {
        if let Some(problem) = started.problems.first() {
            return Err(problem.to_string().into());
        }
        // The user's own servers load too; this one's tools are named `mcp_local_…`.
        let tools: Vec<String> = session
            .tools()
            .iter()
            .map(|tool| tool.name().to_owned())
            .filter(|name| name.starts_with("mcp_local_"))
            .collect();
        println!("tools: {}", tools.join(", "));
        if let Some(echo) = session.tool("mcp_local_echo") {
            let output = echo
                .execute(
                    json!({"message": "over a unix socket"}),
                    CancellationToken::new(),
                )
                .await?;
            println!("echo: {}", output.to_text());
        }
        Ok::<(), Failure>(())
    }
    .await;
    session.shutdown().await;
    server.stop().await;
    let _ = std::fs::remove_dir_all(&folder);
    outcome
}

#[tokio::main]
async fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(command) = args.next() else {
        eprintln!("usage: unix_plugin COMMAND [ARGS...]");
        return ExitCode::from(2);
    };
    match run(command, args.collect()).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("unix_plugin: {error}");
            ExitCode::FAILURE
        }
    }
}
