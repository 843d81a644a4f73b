//! The [`Transport`] trait: how JSON-RPC messages move between this client and one server.
//!
//! | Transport | Module | Framing |
//! |---|---|---|
//! | stdio (feature `stdio`) | [`crate::stdio`] | one JSON text per line on the child's stdin/stdout |
//! | Streamable HTTP (feature `http`) | `http::streamable` | a POST per message; answers as JSON or SSE; an optional GET stream |
//! | legacy HTTP+SSE (feature `http`) | `http::legacy_sse` | one GET event stream; messages POSTed to the endpoint it names |
//! | any byte stream | [`LineTransport`](crate::LineTransport) | one JSON text per line on a socket, a pipe, … |
//! | your own | implement [`Transport`] | anything that moves whole messages |
//!
//! A transport only moves messages. Ids, correlation, timeouts, cancellation and the handshake
//! live in the [`Peer`](crate::Peer) above it, so a plugin gets all of that for free. The
//! stdio and Streamable HTTP transports also take shortcuts the peer knows them by (a request
//! written, or its answer read, by the task that waits for it); those live inside this crate,
//! not on the trait, so a plugin neither sees nor implements them.

use std::fmt;

use async_trait::async_trait;
use bytes::Bytes;

#[cfg(feature = "oauth")]
use crate::oauth::error::OAuthError;

/// Moves whole JSON-RPC messages to and from one server: the trait a transport plugin
/// implements. Three methods, and the [`Peer`](crate::Peer) above does the rest (ids,
/// correlation, timeouts, cancellation, the handshake, the server's own requests).
///
/// The peer calls [`send`](Transport::send) from one task and [`receive`](Transport::receive)
/// from another, concurrently, so an implementation must not make one wait for the other (a
/// server blocked writing its output must never stop the client from reading it).
///
/// A failure of the plugin's own kind goes in [`TransportError::Other`], whole: callers reach
/// it through [`std::error::Error::source`].
///
/// # A complete plugin
///
/// A transport over a pair of in-memory channels, with a scripted server on the other end,
/// connected with [`McpClient::connect`](crate::McpClient::connect):
///
/// ```
/// use async_trait::async_trait;
/// use bytes::Bytes;
/// use mcp_transport::{ClientOptions, McpClient, ProtocolVersion, Transport, TransportError};
/// use serde_json::{Value, json};
/// use tokio::sync::{Mutex, mpsc};
///
/// /// The client's end of two channels; the server holds the other ends.
/// struct ChannelTransport {
///     to_server: mpsc::UnboundedSender<String>,
///     from_server: Mutex<mpsc::UnboundedReceiver<Bytes>>,
/// }
///
/// #[async_trait]
/// impl Transport for ChannelTransport {
///     async fn send(&self, messages: &[String]) -> Result<(), TransportError> {
///         for message in messages {
///             // The channel's own error, kept as the source of `TransportError::Other`.
///             self.to_server.send(message.clone()).map_err(TransportError::other)?;
///         }
///         Ok(())
///     }
///
///     async fn receive(&self) -> Result<Bytes, TransportError> {
///         // Cancel safe: a dropped `recv` loses no message.
///         let message = self.from_server.lock().await.recv().await;
///         message.ok_or(TransportError::ClosedByServer)
///     }
///
///     async fn close(&self) -> Result<(), TransportError> {
///         // Nothing to release: dropping the transport ends both channels.
///         Ok(())
///     }
/// }
///
/// /// Answers `initialize` and `tools/list`; notifications need no answer.
/// async fn scripted_server(
///     mut requests: mpsc::UnboundedReceiver<String>,
///     replies: mpsc::UnboundedSender<Bytes>,
/// ) {
///     while let Some(message) = requests.recv().await {
///         let Ok(request) = serde_json::from_str::<Value>(&message) else { continue };
///         let result = match request["method"].as_str() {
///             Some("initialize") => json!({
///                 "protocolVersion": "2025-11-25",
///                 "capabilities": {"tools": {}},
///                 "serverInfo": {"name": "scripted", "version": "1.0.0"},
///             }),
///             Some("tools/list") => json!({
///                 "tools": [{"name": "echo", "inputSchema": {"type": "object"}}],
///             }),
///             _ => continue,
///         };
///         let answer = json!({"jsonrpc": "2.0", "id": request["id"], "result": result});
///         if replies.send(Bytes::from(answer.to_string())).is_err() {
///             return;
///         }
///     }
/// }
///
/// #[tokio::main(flavor = "current_thread")]
/// async fn main() -> Result<(), mcp_transport::Error> {
///     let (to_server, requests) = mpsc::unbounded_channel();
///     let (replies, from_server) = mpsc::unbounded_channel();
///     tokio::spawn(scripted_server(requests, replies));
///     let transport = ChannelTransport {
///         to_server,
///         from_server: Mutex::new(from_server),
///     };
///     // Pinned to the handshake era, so the script need not answer the era probe.
///     let options = ClientOptions::default().protocol_version(ProtocolVersion::V2025_11_25);
///     let client = McpClient::connect("scripted", Box::new(transport), options).await?;
///     assert_eq!(client.server_info().name, "scripted");
///     let tools = client.list_tools().await?;
///     assert_eq!(tools[0].name, "echo");
///     client.close().await?;
///     Ok(())
/// }
/// ```
#[async_trait]
pub trait Transport: Send + Sync + 'static {
    /// Sends messages in order. Each is one complete JSON-RPC message, serialized, without a
    /// trailing newline. The peer hands over everything queued at once, so a transport can
    /// write them together.
    async fn send(&self, messages: &[String]) -> Result<(), TransportError>;

    /// Receives the next message: the bytes of one JSON text (or a JSON array, for a batch).
    ///
    /// An error is final: the transport is dead and the error says why (for stdio, the exit
    /// status and the tail of stderr). It must be cancel safe: a call dropped before it
    /// completes must not lose a message.
    async fn receive(&self) -> Result<Bytes, TransportError>;

    /// Shuts the connection down and releases everything it holds (for stdio: stdin closed, a
    /// grace period, then SIGTERM and SIGKILL to the process group). Calling it twice is fine.
    async fn close(&self) -> Result<(), TransportError>;
}

/// Why a transport failed or stopped. Every error is final for the connection.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TransportError {
    /// The server process could not be started. Check the command and the PATH.
    #[error("could not start {command}: {}", spawn_reason(.source))]
    Spawn {
        /// The program that failed, quoted, and how many arguments it had (never their values:
        /// they may be secrets), e.g. `` `npx` (with 2 arguments) ``.
        command: String,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The server process exited (or closed its output); the status and the last lines it
    /// wrote on stderr tell why.
    #[error("{}", describe_exit(.status, .stderr_tail))]
    ServerExited {
        /// E.g. `status 1`, `signal 9`, or `unknown status` when it could not be read.
        status: String,
        /// The last lines the server wrote on stderr, oldest first.
        stderr_tail: Vec<String>,
    },
    /// The server sent a message longer than the limit; the connection was dropped rather
    /// than buffering without bound.
    #[error(
        "server sent a message longer than {limit} bytes, the limit for one message; \
         raise the limit if this server really sends messages that large"
    )]
    MessageTooLarge {
        /// The limit in bytes.
        limit: usize,
    },
    /// The server sent a message longer than the limit; it was discarded as it arrived and
    /// the connection lives on. Not an end of the connection: the peer fails the request the
    /// message answered (when its `id` could be found) and reads on.
    #[error(
        "the server sent a message of {size} bytes, over the limit of {limit} bytes for one \
         message; it was dropped (raise maxMessageBytes for this server if its answers are that \
         large)"
    )]
    MessageSkipped {
        /// The limit in bytes.
        limit: usize,
        /// The message's length in bytes.
        size: usize,
        /// The JSON-RPC id of the response it was (as JSON text), when it could be found.
        id: Option<String>,
    },
    /// Reading from or writing to the server failed.
    #[error("{action} failed: {source}")]
    Io {
        /// What was being done, e.g. `writing to the server's stdin`.
        action: &'static str,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The client closed the connection.
    #[error("connection closed by the client")]
    ClosedByClient,
    /// The server ended the connection (the end of its output stream).
    #[error("the server closed the connection")]
    ClosedByServer,
    /// An HTTP request could not be made or its body not read: the server is unreachable,
    /// refused the connection, or the connection broke. The URL is shown without its query.
    #[error("{action} failed: {}", brief_reason(.source.as_ref()))]
    Http {
        /// What was being done, e.g. `POST initialize to https://example.com/mcp`.
        action: String,
        /// The HTTP client's error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The legacy HTTP+SSE transport's first request (the GET of the event stream) was
    /// refused: the URL serves something else, most often the Streamable HTTP transport.
    #[error(
        "{action}: HTTP {status}: this URL does not serve the legacy HTTP+SSE transport; if it is \
         a Streamable HTTP server, connect it with type \"http\" (drop `-t sse`)"
    )]
    NotLegacySse {
        /// What was being done, e.g. `GET the event stream at https://example.com/mcp`.
        action: String,
        /// The status code.
        status: u16,
    },
    /// The server answered an HTTP request with an error status.
    #[error("{action}: HTTP {status}{}", describe_body(.body))]
    HttpStatus {
        /// What was being done, e.g. `POST initialize to https://example.com/mcp`.
        action: String,
        /// The status code.
        status: u16,
        /// The start of the response body, for the reader; may be empty.
        body: String,
    },
    /// The server wants credentials (HTTP 401) or refused the ones it got (HTTP 403). Log in to
    /// the server, or set its `Authorization` header in the configuration.
    #[error(
        "{action}: HTTP {status}, the server {}{}",
        if *.status == 403 { "refused the credentials" } else { "requires authorization" },
        .www_authenticate.as_deref().map(|c| format!(" (WWW-Authenticate: {c})")).unwrap_or_default()
    )]
    Unauthorized {
        /// What was being done.
        action: String,
        /// 401 or 403.
        status: u16,
        /// The server's `WWW-Authenticate` challenge: the scheme, and for OAuth where its
        /// resource metadata is and which scopes it wants.
        www_authenticate: Option<String>,
    },
    /// Authorizing with the server failed (feature `oauth`): discovery, client registration,
    /// the user's login, or a token request. [`OAuthError::needs_login`](crate::oauth::OAuthError::needs_login)
    /// tells when logging in again is the fix.
    #[cfg(feature = "oauth")]
    #[error(transparent)]
    Authorization(Box<OAuthError>),
    /// The server broke the HTTP transport's rules.
    #[error("{action}: {violation}")]
    Protocol {
        /// What was being done, e.g. `POST tools/call to https://example.com/mcp`.
        action: String,
        /// What the server did wrong.
        violation: ProtocolViolation,
    },
    /// A check of where the connection goes ([`ReachCheck`](crate::http::ReachCheck), e.g.
    /// the enterprise policy) refused an address it was about to connect to, or a redirect it
    /// was about to follow; nothing was sent there. Retrying does not help.
    #[cfg(feature = "http")]
    #[error("{action}: refused: {refused}")]
    Refused {
        /// What was being done, e.g. `POST initialize to https://example.com/mcp`.
        action: String,
        /// What was refused, and the check's reason.
        refused: crate::http::Refused,
    },
    /// A legacy SSE server named a message endpoint on another origin; posting there could leak
    /// the configured headers to a third party, so the connection was refused.
    #[error(
        "the server named a message endpoint on another origin ({endpoint}); refused to post \
         messages there"
    )]
    CrossOriginEndpoint {
        /// The endpoint's origin.
        endpoint: String,
    },
    /// A failure of a transport plugin, in the plugin's own error type (see
    /// [`TransportError::other`]). It is this error's [`source`](std::error::Error::source),
    /// so a caller can downcast it; the message shows it and its causes.
    #[error("{}", error_chain(.0.as_ref()))]
    Other(#[source] Box<dyn std::error::Error + Send + Sync>),
}

/// How a server broke the rules of an HTTP transport.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ProtocolViolation {
    /// A request was accepted (202, or an empty body) but never answered.
    #[error("the server accepted the request (HTTP {status}) but sent no answer")]
    NoAnswer {
        /// The status it answered with.
        status: u16,
    },
    /// The answer was neither JSON nor an event stream.
    #[error("the answer is neither JSON nor an event stream: {body}")]
    UnexpectedBody {
        /// The start of the body.
        body: String,
    },
    /// An event stream was expected and something else came.
    #[error("the answer is not an event stream")]
    NotAnEventStream,
    /// An answer's event stream ended before the answer, with no event id to resume from.
    #[error(
        "the server ended the answer's event stream before answering, and gave no event id to \
         resume from"
    )]
    StreamEndedUnresumable,
    /// An answer's event stream kept ending before the answer.
    #[error("the answer's event stream ended {ends} times before answering")]
    StreamEndedTooOften {
        /// How many times it ended.
        ends: u32,
    },
    /// The session expired before it was ever initialized, so there is nothing to replay.
    #[error("the server ended the session before it was initialized")]
    SessionEndedBeforeInitialize,
    /// A legacy SSE server did not name its message endpoint in time.
    #[error("the server named no message endpoint within {}ms", .waited.as_millis())]
    NoEndpoint {
        /// How long the client waited.
        waited: std::time::Duration,
    },
    /// A legacy SSE stream ended before naming the message endpoint.
    #[error("the stream ended before the server named its message endpoint")]
    StreamEndedBeforeEndpoint,
    /// The message endpoint a legacy SSE server named is not a URL.
    #[error("the message endpoint {endpoint:?} is not a URL")]
    InvalidEndpoint {
        /// What the server sent.
        endpoint: String,
    },
}

/// An error and its causes, `outer: inner: innermost`, each said once (HTTP client errors
/// wrap "connection refused" under "error sending request").
pub(crate) fn error_chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(inner) = cause {
        let said = inner.to_string();
        if !text.contains(&said) {
            text.push_str(": ");
            text.push_str(&said);
        }
        cause = inner.source();
    }
    text
}

/// Why a command could not be started, in the words a person acts on.
fn spawn_reason(error: &std::io::Error) -> String {
    // A message of our own (`the working directory … does not exist`) says it already.
    if error.get_ref().is_some() {
        return error.to_string();
    }
    match error.kind() {
        std::io::ErrorKind::NotFound => {
            "no such command (check its name, and that it is on PATH)".to_owned()
        }
        std::io::ErrorKind::PermissionDenied => {
            "permission denied (is it an executable file?)".to_owned()
        }
        _ => error.to_string(),
    }
}

/// Why an HTTP request failed, briefly: what the OS or the resolver said (`could not connect:
/// connection refused`), not the HTTP client's layers (`error sending request: client error
/// (Connect): tcp connect error: …`). The whole chain stays the error's `source()`.
fn brief_reason(error: &(dyn std::error::Error + 'static)) -> String {
    use std::io::ErrorKind;
    let chain = error_chain(error);
    let mut io_kind = None;
    let mut innermost = error;
    let mut cause = Some(error);
    while let Some(current) = cause {
        if let Some(io) = current.downcast_ref::<std::io::Error>() {
            io_kind = Some(io.kind());
        }
        innermost = current;
        cause = current.source();
    }
    match io_kind {
        Some(ErrorKind::ConnectionRefused) => "could not connect: connection refused".to_owned(),
        Some(ErrorKind::TimedOut) => "could not connect: timed out".to_owned(),
        Some(ErrorKind::HostUnreachable | ErrorKind::NetworkUnreachable) => {
            "could not connect: the host is unreachable".to_owned()
        }
        Some(
            ErrorKind::ConnectionReset
            | ErrorKind::ConnectionAborted
            | ErrorKind::BrokenPipe
            | ErrorKind::UnexpectedEof,
        ) => "the connection was closed by the server".to_owned(),
        _ if chain.contains("dns error") || chain.contains("failed to lookup address") => {
            "could not connect: the host name was not found".to_owned()
        }
        _ if chain.contains("timed out") => "timed out".to_owned(),
        _ => innermost.to_string(),
    }
}

fn describe_body(body: &str) -> String {
    if body.is_empty() {
        String::new()
    } else {
        format!(": {body}")
    }
}

fn describe_exit(status: &str, stderr_tail: &[String]) -> String {
    let mut message = format!("server exited with {status}");
    match stderr_tail {
        [] => message.push_str(" (no stderr output)"),
        lines => {
            message.push_str(": ");
            message.push_str(&lines.join(" | "));
        }
    }
    message
}

/// A cheaply cloneable, shareable reason why a connection is closed.
#[derive(Clone)]
pub struct CloseReason(std::sync::Arc<TransportError>);

impl CloseReason {
    /// Wraps a transport error.
    pub fn new(error: TransportError) -> Self {
        Self(std::sync::Arc::new(error))
    }

    /// The underlying transport error.
    pub fn error(&self) -> &TransportError {
        &self.0
    }

    /// True when the client itself closed the connection.
    pub fn is_closed_by_client(&self) -> bool {
        matches!(*self.0, TransportError::ClosedByClient)
    }
}

impl fmt::Debug for CloseReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl fmt::Display for CloseReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&*self.0, f)
    }
}

impl std::error::Error for CloseReason {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        std::error::Error::source(&*self.0)
    }
}

#[cfg(feature = "oauth")]
impl From<OAuthError> for TransportError {
    fn from(error: OAuthError) -> Self {
        Self::Authorization(Box::new(error))
    }
}

impl TransportError {
    /// A plugin's failure ([`TransportError::Other`]): any error (an `std::io::Error`, a
    /// channel's send error, the plugin's own type), or a message (`&str` or `String`).
    pub fn other(error: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        Self::Other(error.into())
    }

    /// True when the server could not be reached at all (feature `http`): the connection was
    /// refused or never made. A remote server that is gone looks like this; the connection is
    /// ended so it can be made again.
    pub fn is_unreachable(&self) -> bool {
        #[cfg(feature = "http")]
        if let Self::Http { source, .. } = self {
            return source
                .downcast_ref::<reqwest::Error>()
                .is_some_and(reqwest::Error::is_connect);
        }
        false
    }

    /// True when the server refused the client's credentials for good: a 401 or 403 no
    /// authorizer could answer, or (feature `oauth`) an authorization that needs the user to log
    /// in. The user has to act; retrying the same request cannot help.
    pub fn needs_credentials(&self) -> bool {
        match self {
            Self::Unauthorized { .. } => true,
            #[cfg(feature = "oauth")]
            Self::Authorization(error) => error.needs_login(),
            _ => false,
        }
    }

    /// True when finding credentials failed (feature `oauth`): whatever the reason, another
    /// request would run the same authorization again.
    pub fn is_authorization(&self) -> bool {
        #[cfg(feature = "oauth")]
        if let Self::Authorization(_) = self {
            return true;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plugins_error_is_the_source_and_its_causes_are_shown_once() {
        #[derive(Debug, thiserror::Error)]
        #[error("the tunnel is down")]
        struct Tunnel(#[source] std::io::Error);

        let error = TransportError::other(Tunnel(std::io::Error::other("reset by peer")));
        assert_eq!(error.to_string(), "the tunnel is down: reset by peer");
        let source = std::error::Error::source(&error).expect("the plugin's error");
        assert!(source.is::<Tunnel>(), "{source:?}");
        assert_eq!(
            TransportError::other("plain words").to_string(),
            "plain words"
        );
    }

    #[test]
    fn exit_error_carries_status_and_stderr_tail() {
        let error = TransportError::ServerExited {
            status: "status 3".into(),
            stderr_tail: vec!["loading".into(), "fatal: no config".into()],
        };
        assert_eq!(
            error.to_string(),
            "server exited with status 3: loading | fatal: no config"
        );
        let silent = TransportError::ServerExited {
            status: "signal 9".into(),
            stderr_tail: vec![],
        };
        assert_eq!(
            silent.to_string(),
            "server exited with signal 9 (no stderr output)"
        );
    }
}
