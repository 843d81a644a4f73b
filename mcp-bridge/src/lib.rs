//! # mcp-bridge
//!
//! MCP tools as agent tools. The [`AgentTool`] trait is what an agent's registry holds; this
//! crate implements it for MCP tools on a live connection ([`McpTool`]) and for tools known from
//! the cache while their server is still connecting ([`DeferredMcpTool`], which waits through a
//! [`ConnectionProvider`] — the manager — before calling).
//!
//! ```
//! use mcp_bridge::naming::assign_names;
//!
//! let names = assign_names(&[("GitHub", "create_issue"), ("my-db.v2", "query")]);
//! assert_eq!(names, ["mcp_github_create_issue", "mcp_my_db_v2_query"]);
//! ```
//!
//! - [`naming`]: `mcp_<server>_<tool>`, within 64 characters, collisions told apart
//!   deterministically; the original names stay on the tool's [`McpToolDefinition`].
//! - [`convert`]: MCP results to [`ToolOutput`]: every content type, structured content,
//!   `isError`; failures as `MCP error: <message>`; a cancellation stays [`ToolCancelled`].
//! - Parameters ([`McpToolDefinition::parameters`]): the tool's input schema without its
//!   top-level `$schema`, and with OpenAPI's `nullable: true` (unknown to JSON Schema model
//!   APIs) written as a `"null"` type wherever a schema has it; everything else verbatim.
//! - [`check_arguments`]: are a call's arguments what the tool's input schema asks for; an MCP
//!   tool answers [`AgentTool::check_arguments`] from an [`ArgumentCheck`] prepared at its first
//!   check, so a check per call reads no schema.

mod arguments;
mod budget;
pub mod convert;
mod mcp_tool;
pub mod naming;
mod schema;
mod tool;

pub use arguments::{ArgumentCheck, ArgumentMismatch, check_arguments};
pub use budget::{DEFAULT_OUTPUT_BUDGET, OutputBudget};
pub use mcp_tool::{
    ConnectionError, ConnectionProvider, DeferredMcpTool, MAX_CALL_DURATION, McpTool,
    McpToolDefinition, ToolProvider,
};
pub use tool::{AgentTool, OutputBlock, ToolCancelled, ToolOutput};
