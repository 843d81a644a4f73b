#![doc = include_str!("../README.md")]

pub mod commands;
mod error;
mod proxy;
mod registry;
pub mod render;
mod session;
#[cfg(feature = "skills")]
mod skills;
mod spill;
pub mod suggest;
pub mod terminal_text;
pub mod tool_search;
mod trust;

pub use commands::{CommandOutput, ServerStatus, run_config_command, run_mcp_command};
pub use error::SessionError;
pub use proxy::{DEFAULT_CALL_TIMEOUT, SubagentProxyTool, subagent_tools};
pub use registry::{ToolOrigin, ToolRegistry};
pub use session::{
    AgentSession, PreparedSession, SessionOptions, SessionStart, create_agent_session,
    prepare_agent_session,
};
pub use spill::user_results_dir;
pub use tool_search::{
    FoundTool, SEARCH_TOOL_NAME, ServerContext, ToolContext, ToolSearchMode, ToolSearchOptions,
};
pub use trust::{
    PendingServer, TrustError, approve_pending, approve_project_servers, definition_lines,
    describe_pending, not_approved_text, pending_json, pending_project_servers,
    withdraw_project_servers,
};

// The workspace README's Rust examples compile as doctests here, in the one crate that sees
// every crate they use.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;
