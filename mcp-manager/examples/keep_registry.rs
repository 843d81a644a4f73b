//! An agent that keeps its own tool registry: it takes the manager's tools once, then keeps
//! them current as servers connect late, change their lists, fail or come back.
//!
//! ```text
//! cargo run -p mcp-manager --example keep_registry   # in a folder with servers configured
//! ```
//!
//! Three rules make a registry that never misses a change:
//!
//! 1. Subscribe before connecting: a server that finishes right after the gate announces its
//!    tools once, and a receiver made after that never hears it.
//! 2. On `ToolsChanged { server }`, re-read that server's tools from the manager (the event
//!    says which server changed, never what its tools are now).
//! 3. When the receiver lagged (events came faster than the agent read them), some changes were
//!    dropped: re-read every tool.

use std::collections::BTreeMap;

use mcp_manager::{LoadOptions, ManagedTool, ManagerEvent, McpManager, discover_mcp_servers};
use tokio::sync::broadcast::error::RecvError;

/// The agent's registry: each model-facing tool name and the server it comes from.
#[derive(Default)]
struct Registry {
    tools: BTreeMap<String, ManagedTool>,
}

impl Registry {
    /// Replaces the tools of `server` (all servers when `None`) with what the manager offers now.
    fn refresh(&mut self, manager: &McpManager, server: Option<&str>) {
        let mine = |tool: &ManagedTool| server.is_none_or(|name| tool.server == name);
        self.tools.retain(|_, tool| !mine(tool));
        for tool in manager.tools().into_iter().filter(|tool| mine(tool)) {
            self.tools.insert(tool.tool.name().to_owned(), tool);
        }
    }

    fn show(&self, why: &str) {
        let live = self.tools.values().filter(|tool| !tool.deferred).count();
        println!("{why}: {} tools ({live} live)", self.tools.len());
    }
}

#[tokio::main]
async fn main() {
    let cwd = std::env::current_dir().unwrap_or_default();
    // Discovery alone: the servers are known, none is started yet.
    let mut loaded = discover_mcp_servers(&cwd, &LoadOptions::new("keep-registry-example"));
    for problem in &loaded.problems {
        eprintln!("problem: {problem}");
    }

    // 1. Subscribe first, then connect behind the startup gate.
    let mut events = loaded.manager.subscribe();
    loaded.connect().await;
    let manager = loaded.manager;
    let mut registry = Registry::default();
    registry.refresh(&manager, None);
    registry.show("at the gate");

    loop {
        let event = tokio::select! {
            event = events.recv() => event,
            _ = tokio::signal::ctrl_c() => break,
        };
        match event {
            // 2. One server's tools changed: re-read them.
            Ok(ManagerEvent::ToolsChanged { server }) => {
                registry.refresh(&manager, Some(&server));
                registry.show(&format!("{server} changed"));
            }
            Ok(ManagerEvent::LateError { server, error }) => eprintln!("{server}: {error}"),
            Ok(_) => {}
            // 3. Some events were dropped: re-read everything.
            Err(RecvError::Lagged(missed)) => {
                registry.refresh(&manager, None);
                registry.show(&format!("{missed} events missed"));
            }
            Err(RecvError::Closed) => break,
        }
    }
    manager.disconnect_all().await;
}
