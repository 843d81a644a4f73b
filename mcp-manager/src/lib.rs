#![doc = include_str!("../README.md")]

// From the top down: `loader`, `catalog`, `login` and `startup` are what agents call on a
// manager; `manager` is the manager itself; `lifecycle` keeps its records and changes them;
// below it, `pipeline` connects one server through a `connector`, and `gate`, `server`,
// `offer`, `options`, `reconnect`, `roots`, `status` and `error` are the pieces. No module
// calls one above it.
mod cache_key;
mod catalog;
mod connector;
mod error;
mod gate;
mod lifecycle;
mod loader;
#[cfg(feature = "oauth")]
mod login;
mod manager;
mod offer;
mod options;
mod pipeline;
mod reconnect;
mod roots;
mod server;
mod startup;
mod status;

pub use cache_key::cache_fingerprint;
pub use catalog::ServerListing;
pub use connector::{ConnectRequest, Connector, Connectors};
pub use error::{DISCOVERY_PROBLEM_PATH, ManagerError, Problem, ProviderPanic, ServerError};
pub use loader::{
    LoadOptions, LoadResult, discover_and_load_mcp_tools, discover_mcp_servers,
    discover_mcp_servers_with, discovery_problems,
};
pub use manager::McpManager;
pub use offer::{ConnectOutcome, ManagedTool};
pub use options::ManagerOptions;
pub use reconnect::{HealthCheck, ReconnectPolicy};
pub use status::{ConnectionStatus, ManagerEvent};
