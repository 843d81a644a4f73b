#![doc = include_str!("../README.md")]

mod arguments;
mod budget;
pub mod convert;
mod mcp_tool;
pub mod naming;
mod schema;
#[cfg(feature = "skills")]
pub mod skills;
mod tool;

pub use arguments::{ArgumentCheck, ArgumentMismatch, check_arguments};
pub use budget::{DEFAULT_OUTPUT_BUDGET, OutputBudget};
pub use convert::ToolProvider;
pub use mcp_tool::{
    ConnectionError, ConnectionProvider, DeferredMcpTool, MAX_CALL_DURATION, McpTool,
    McpToolDefinition,
};
/// What [`AgentTool::execute`] is cancelled with (tokio-util's), so a caller needs no other
/// crate to make one.
pub use tokio_util::sync::CancellationToken;
pub use tool::{AgentTool, OutputBlock, ProgressSink, ToolCancelled, ToolOutput, ToolProgress};
