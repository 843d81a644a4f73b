//! Remote servers (feature `http`): Streamable HTTP, legacy HTTP+SSE, and the choice between
//! them.
//!
//! | Transport | Type | What it does |
//! |---|---|---|
//! | Streamable HTTP (2025-03-26 on) | [`StreamableHttpTransport`] | every message is a POST; answers come as JSON or as an SSE stream; an optional GET stream carries what the server starts |
//! | legacy HTTP+SSE (2024-11-05) | [`LegacySseTransport`] | one GET stream carries every answer; messages are POSTed to the endpoint it names |
//!
//! [`McpClient::connect_http`](crate::McpClient::connect_http) connects with the transport
//! [`HttpServerParams::transport`] names; [`RemoteTransport::Auto`] tries Streamable HTTP and
//! falls back to legacy SSE when the server refuses the initialize POST with 400, 404 or 405,
//! as the specification's backwards-compatibility section asks.
//!
//! Both run on reqwest with rustls. The HTTP client gets a connect timeout and no total
//! timeout: a tool call may stream for as long as it needs, and the [`Peer`](crate::Peer)'s
//! per-request timeouts decide when to give up. Configured headers go with every request and
//! never into a log line or an error, nor to another origin (redirects are followed on the
//! server's own origin only); URLs in errors are shown without their query, where API keys tend
//! to live. What a server sends back into an error (an error body, a `WWW-Authenticate`
//! challenge) is cut short and scrubbed of every secret the client sent it (header values, URL
//! query values and userinfo, each request's `Authorization` from the [`Authorizer`]): see
//! [`HttpServerParams::secrets`].
//!
//! Where things are: [`params`](HttpServerParams) (the URL, headers and their secrets),
//! `authorization` (the [`Authorizer`] hook and the retry on a refusal), `response` (bodies
//! within a limit, event streams), `message` (telling requests, notifications and answers
//! apart), `mailbox` (stream readers to the peer), `failure` (what errors show), and one file
//! per transport, [`streamable`] and [`legacy_sse`]; [`headers`] and [`reach`] are the
//! request headers a tool call carries and the checks of where a connection may go.
//!
//! ```no_run
//! use mcp_transport::http::HttpServerParams;
//! use mcp_transport::{ClientOptions, McpClient};
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let params = HttpServerParams::new("https://example.com/mcp")?
//!     .header("Authorization", "Bearer my-token")?;
//! let client = McpClient::connect_http("example", params, ClientOptions::default()).await?;
//! println!("{} tools", client.list_tools().await?.len());
//! # Ok(()) }
//! ```

mod authorization;
mod failure;
pub mod headers;
pub mod legacy_sse;
mod mailbox;
mod message;
mod params;
pub mod reach;
pub(crate) mod response;
mod scan;
pub mod streamable;

use std::time::Duration;

pub use reqwest::Method;
pub use reqwest::Url;

pub use authorization::{
    Authorizer, MAX_AUTHORIZATION_RETRIES, Refusal, RequestCredentials, RequestTarget,
};
pub(crate) use failure::display_url;
pub use headers::{Designation, InvalidDesignation, ToolHeaders};
pub use legacy_sse::LegacySseTransport;
pub use params::{HttpServerParams, ParamsError, RemoteTransport};
pub use reach::{ReachCheck, Refused, RefusedTarget};
pub use streamable::StreamableHttpTransport;

/// How long a connection attempt may take before the HTTP client gives up. The connect timeout
/// of [`ClientOptions`](crate::ClientOptions) still bounds the whole handshake.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// How many times a response stream that ended before its answer is resumed (`GET` with
/// `Last-Event-ID`) before the request fails.
pub const MAX_STREAM_RESUMPTIONS: u32 = 5;

/// How long a legacy SSE server may take to name its message endpoint.
pub const DEFAULT_ENDPOINT_TIMEOUT: Duration = Duration::from_secs(10);

/// The reconnection delay when a server sent no `retry:`.
const DEFAULT_RETRY: Duration = Duration::from_millis(500);

/// The JSON-RPC error code of a request that failed at the HTTP level after the session was
/// established (the server answered with an error status and no JSON-RPC error of its own).
pub const HTTP_ERROR_CODE: i64 = -32000;
