//! # mcp-transport
//!
//! The bottom of the MCP runtime: protocol types, one JSON-RPC [`Peer`] over an object-safe
//! [`Transport`] trait, the [`McpClient`] that finds the server's protocol era and performs the
//! tool operations,
//! newline-delimited framing over any byte stream, the stdio transport, and the remote ones
//! (Streamable HTTP and legacy HTTP+SSE, feature `http`).
//!
//! ```no_run
//! # #[cfg(feature = "stdio")]
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
//! - [`Transport`] moves whole messages and nothing else. [`LineTransport`] frames messages as
//!   lines over any `AsyncRead`/`AsyncWrite` pair (a Unix socket, a TCP stream, a pipe);
//!   `StdioTransport` (feature `stdio`) runs the server in its own process group, drains its
//!   stderr, uses the same framing and kills the whole group on close or drop. The `http`
//!   module (feature `http`) holds the Streamable HTTP and legacy SSE transports and
//!   `McpClient::connect_http`, which chooses between them. Write your own transport by
//!   implementing the trait.
//! - [`Peer`] allocates ids, correlates responses with many requests in flight, applies
//!   per-request timeouts, sends `notifications/cancelled` on timeout or cancellation (never for
//!   `initialize`), routes progress to its request, answers the server's `ping` and
//!   `roots/list`, hands `elicitation/create` and `sampling/createMessage` to the
//!   [`handlers`] the agent gave (anything else gets -32601), hands other notifications to
//!   subscribers, and fails every pending request at once when the transport dies.
//! - [`McpClient`] speaks both eras of the protocol: it asks the server for the stateless
//!   revision 2026-07-28 with `server/discover` and falls back to the `initialize` handshake
//!   (offering 2025-11-25, accepting any supported older version) for a server that does not
//!   know it, or speaks the one [`ClientOptions::protocol_version`] pins (see [`stateless`]). It
//!   lists tools, resources, resource templates and prompts across all pages (a repeated
//!   cursor is an error, not a loop), calls tools, reads resources, gets prompts and closes the
//!   connection. The servers' notifications (`list_changed` and the rest) come through
//!   [`McpClient::subscribe`]; [`ServerNotification::kind`] tells them apart as a
//!   [`NotificationKind`] to `match` on.
//!
//! Every [`Error`] names the server, what was being done and why; a dead stdio server's error
//! carries its exit status and its last stderr lines. What a server sends back into an error or
//! a log line (an HTTP error body, a JSON-RPC error in one, stderr) is cut short and scrubbed of
//! every secret the client sent that server: see [`Secrets`].
//!
//! ## Cargo features
//!
//! | Feature | Default | What it adds |
//! |---|---|---|
//! | `stdio` | yes | spawning servers as child processes: `StdioTransport`, `McpClient::connect_stdio` |
//! | `http` | yes | the remote transports on reqwest/rustls: the `http` module (Streamable HTTP, legacy SSE), `McpClient::connect_http`, the `sse` decoder |
//! | `oauth` | yes | OAuth 2.1 for the remote transports: the `oauth` module (discovery, client registration, PKCE, refresh and step-up, the loopback browser step, credential stores); implies `http` |
//!
//! With neither, the crate is the protocol, the peer, the client, [`McpClient::connect`] over
//! any [`Transport`] and the line framing: a transport plugin compiles no process or HTTP code.
//!
//! ## Performance: where to await
//!
//! Calls cost least when they are awaited in a task the runtime runs (`tokio::spawn`) or on a
//! current-thread runtime (`#[tokio::main(flavor = "current_thread")]`): the thread that reads
//! the answer is the one that resumes the caller. Awaited straight in a multi-thread runtime's
//! `block_on` — the body of a plain `#[tokio::main]` — every answer is read on a worker thread
//! and handed across to the blocked main thread: about 1.5× the time and 1.8× the CPU of a
//! spawned task, measured on stdio (reqwest and rmcp pay the same). Many calls in flight on
//! one connection leave in shared writes. Use [`McpClient::call_tool_borrowed`] when you keep
//! the arguments. `cargo xtask bench --peers` measures all of this beside the other SDKs and a
//! raw floor (see `bench/README.md`).
//!
//! Run `cargo run -p mcp-transport --example probe -- -- COMMAND ARGS…` to try any stdio server,
//! and `cargo run -p mcp-transport --example unix_socket -- COMMAND ARGS…` to see a transport
//! built from a socket.

mod client;
mod error;
mod fast_path;
pub mod framing;
pub mod handlers;
#[cfg(feature = "http")]
pub mod http;
pub mod jsonrpc;
#[cfg(feature = "oauth")]
pub mod oauth;
mod peer;
#[cfg(feature = "stdio")]
mod process;
pub mod protocol;
pub mod secrets;
#[cfg(feature = "http")]
pub mod sse;
pub mod stateless;
#[cfg(feature = "stdio")]
pub mod stdio;
pub mod transport;

pub use client::{ClientOptions, McpClient, ToolList};
pub use error::Error;
pub use framing::LineTransport;
pub use jsonrpc::{ErrorObject, NotificationKind, RequestId, ServerNotification};
pub use peer::{Peer, PeerOptions, ProgressCallback, RequestOptions, RpcError};
pub use protocol::{
    CallToolParams, CallToolResult, ContentBlock, GetPromptResult, Implementation,
    InitializeResult, JsonObject, JsonSchema, ProgressNotificationParams, Prompt, PromptArgument,
    PromptMessage, ProtocolVersion, ReadResourceResult, Resource, ResourceContents,
    ResourceTemplate, Root, ServerCapabilities, Tool,
};
pub use secrets::Secrets;
#[cfg(feature = "stdio")]
pub use stdio::{Launcher, StdioServerParams, StdioTransport};
pub use tokio_util::sync::CancellationToken;
pub use transport::{CloseReason, ProtocolViolation, Transport, TransportError};
