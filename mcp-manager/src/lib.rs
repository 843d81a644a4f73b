#![doc = include_str!("../README.md")]

// From the top down: `loader`, `skills`, `catalog`, `login` and `startup` are what agents call
// on a manager (`skills` finds a skill with `catalog`'s capability check); `manager` is the
// manager itself; `lifecycle` starts servers, waits for them and
// records results, `attempt` is an attempt's task (a start, a first use, a reconnect's
// `reconnect` loop), `watcher` follows a live connection; all of them change the records kept
// in `inner`. Below, `pipeline` connects one server through a `connector`, and `gate`,
// `server`, `offer`, `options`, `policies`, `roots`, `status` and `error` are the pieces. No
// module imports one above it.
mod attempt;
mod cache_key;
mod catalog;
mod connector;
mod error;
mod gate;
mod inner;
mod lifecycle;
mod loader;
#[cfg(feature = "oauth")]
mod login;
mod manager;
mod offer;
mod options;
mod pipeline;
mod policies;
mod reconnect;
mod roots;
mod server;
#[cfg(feature = "skills")]
mod skills;
mod startup;
mod status;
mod tasks;
mod watcher;

pub use cache_key::cache_fingerprint;
pub use catalog::ServerListing;
pub use connector::{ConnectRequest, Connector, Connectors};
pub use error::{ManagerError, Problem, ProviderPanic, ServerError};
pub use loader::{
    LoadOptions, LoadResult, default_tool_cache, discover_and_load_mcp_tools, discover_mcp_servers,
    discover_mcp_servers_with, discovery_problems,
};
pub use manager::McpManager;
pub use offer::{ConnectOutcome, ManagedTool};
pub use options::ManagerOptions;
pub use policies::{HealthCheck, ReconnectPolicy};
pub use status::{ConnectionStatus, ManagerEvent};
