//! # mcp-transport
//!
//! The bottom of the MCP runtime: protocol types, one JSON-RPC [`Peer`] over an object-safe
//! [`Transport`] trait, the [`McpClient`] that performs the handshake and the tool operations,
//! and the stdio transport.
//!
//! ```no_run
//! use mcp_transport::{ClientOptions, McpClient, StdioServerParams};
//!
//! # async fn run() -> Result<(), mcp_transport::Error> {
//! let params = StdioServerParams::new("npx", ["-y", "@modelcontextprotocol/server-everything"]);
//! let client = McpClient::connect_stdio("everything", params, ClientOptions::default()).await?;
//! println!("connected to {}", client.server_info().name);
//! for tool in client.list_tools().await? {
//!     println!("{}: {}", tool.name, tool.description.unwrap_or_default());
//! }
//! let mut args = serde_json::Map::new();
//! args.insert("message".into(), "hello".into());
//! let result = client.call_tool("echo", Some(args)).await?;
//! println!("{:?}", result.content);
//! client.close().await?;
//! # Ok(())
//! # }
//! ```
//!
//! What each layer does:
//!
//! - [`Transport`] moves whole messages and nothing else; [`StdioTransport`] runs the server
//!   in its own process group, drains its stderr, bounds line length and kills the whole group
//!   on close or drop. Write your own transport by implementing the trait.
//! - [`Peer`] allocates ids, correlates responses with many requests in flight, applies
//!   per-request timeouts, sends `notifications/cancelled` on timeout or cancellation (never for
//!   `initialize`), routes progress to its request, answers the server's `ping` and
//!   `roots/list` (anything else gets -32601), hands other notifications to subscribers, and
//!   fails every pending request at once when the transport dies.
//! - [`McpClient`] offers protocol version 2025-11-25 and accepts any supported older one,
//!   lists tools across all pages, calls tools and closes the connection.
//!
//! Every [`Error`] names the server, what was being done and why; a dead stdio server's error
//! carries its exit status and its last stderr lines.
//!
//! Run `cargo run -p mcp-transport --example probe -- -- COMMAND ARGS…` to try any stdio server.

mod client;
mod error;
pub mod jsonrpc;
mod peer;
pub mod protocol;
pub mod stdio;
pub mod transport;

pub use client::{ClientOptions, McpClient};
pub use error::Error;
pub use jsonrpc::{ErrorObject, RequestId, ServerNotification};
pub use peer::{Peer, PeerOptions, ProgressCallback, RequestOptions, RpcError};
pub use protocol::{
    CallToolParams, CallToolResult, ContentBlock, Implementation, InitializeResult, JsonObject,
    ProgressNotificationParams, ProtocolVersion, Root, ServerCapabilities, Tool,
};
pub use stdio::{StdioServerParams, StdioTransport};
pub use tokio_util::sync::CancellationToken;
pub use transport::{CloseReason, Transport, TransportError};

// The workspace README's examples compile as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;
