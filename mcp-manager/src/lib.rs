//! # mcp-manager
//!
//! Connects every configured MCP server in parallel, answers within a startup gate (250 ms by
//! default) with the tools that are ready, an error per failed server and cached (deferred)
//! tools for servers still connecting, finishes the rest in the background, follows tool-list
//! changes, and shuts everything down. It also lists the servers' resources, resource
//! templates and prompts ([`McpManager::all_resources`], [`McpManager::list_prompts`], …;
//! servers without the capability are skipped), reads resources, gets prompts, and turns the
//! servers' resource and prompt `list_changed` notifications into
//! [`ManagerEvent::ResourcesChanged`] and [`ManagerEvent::PromptsChanged`].
//!
//! ```no_run
//! use mcp_manager::{LoadOptions, discover_and_load_mcp_tools};
//!
//! # async fn run() {
//! let cwd = std::env::current_dir().unwrap_or_default();
//! let loaded = discover_and_load_mcp_tools(&cwd, &LoadOptions::new("my-agent")).await;
//! for tool in &loaded.tools {
//!     let state = if tool.deferred { "deferred" } else { "live" };
//!     // e.g. `mcp_github_create_issue from mcp:github via Claude Code (live)`
//!     println!("{} from {} ({state})", tool.tool.name(), tool.path());
//! }
//! for problem in &loaded.problems {
//!     eprintln!("{problem}"); // names its file or server
//! }
//! loaded.manager.disconnect_all().await;
//! # }
//! ```
//!
//! The per-server pipeline: record the source, skip a server already connected or connecting,
//! validate, resolve `!command` values and OAuth tokens, connect, list tools, write the cache.
//! A server that finishes after the gate replaces only its own tools and emits
//! [`ManagerEvent::ToolsChanged`]; one that fails after the gate emits
//! [`ManagerEvent::LateError`] (and is logged), and its deferred tools then answer
//! `MCP error: …`.
//!
//! The tool cache also remembers each server's protocol era: [`McpManager::protocol_version`]
//! tells it (from the connection, or from the cache while the tools come from there), the next
//! start pins it so the era is not probed again (and probes once more if the server refuses
//! it), and a stateless server (2026-07-28) whose cached list is still within its `ttlMs` is
//! served on demand: its tools are live and it counts as connected without a request at
//! startup; its connection is made at first use. Past the ttl (or without one) the list is
//! fetched again as for any server. `required: true` servers are always connected at startup.
//!
//! Remote servers are connected with an OAuth authorizer that never asks the user: it sends the
//! tokens kept for the server's URL in [`ManagerOptions::credentials`] and refreshes them, and
//! a server that wants a login it does not have is [`ConnectionStatus::NeedsLogin`], not
//! failed. [`McpManager::login`] runs the one login that asks the user (through the agent's
//! `AuthorizationHandler`); [`McpManager::logout`] forgets it.

mod catalog;
mod connect;
mod error;
mod gate;
mod loader;
mod login;
mod manager;
mod reconnect;
mod roots;
mod status;

pub use catalog::ServerListing;
pub use error::{DISCOVERY_PROBLEM_PATH, ManagerError, Problem, ProviderPanic, ServerError};
pub use loader::{
    LoadOptions, LoadResult, discover_and_load_mcp_tools, discover_mcp_servers,
    discover_mcp_servers_with, discovery_problems,
};
pub use manager::{ConnectOutcome, ManagedTool, ManagerOptions, McpManager};
pub use reconnect::{HealthCheck, ReconnectPolicy};
pub use status::{ConnectionStatus, ManagerEvent};
