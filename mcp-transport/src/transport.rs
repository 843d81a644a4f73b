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
//! live in the [`Peer`](crate::Peer) above it, so a plugin gets all of that for free.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use async_trait::async_trait;
use bytes::Bytes;

/// Moves whole JSON-RPC messages to and from one server.
///
/// The peer calls [`send`](Transport::send) from one task and [`receive`](Transport::receive)
/// from another, concurrently, so an implementation must not make one wait for the other (a
/// server blocked writing its output must never stop the client from reading it).
#[async_trait]
pub trait Transport: Send + Sync + 'static {
    /// Sends messages in order. Each is one complete JSON-RPC message, serialized, without a
    /// trailing newline. The peer hands over everything queued at once, so a transport can
    /// write them together.
    async fn send(&self, messages: &[String]) -> Result<(), TransportError>;

    /// Sends one message right now from the caller's task if that needs no waiting at all, and
    /// says whether it did. The peer tries this for a request when nothing else is queued, which
    /// saves a hand-over to its writer task; on `Ok(false)` (the default) or an error the message
    /// goes through [`send`](Transport::send) as usual, so an error here is not final.
    ///
    /// It must never block, and never send part of a message and then return `Ok(false)`.
    fn try_send_now(&self, message: &str) -> Result<bool, TransportError> {
        let _ = message;
        Ok(false)
    }

    /// Sends request `message` on an exchange of its own and gives the future that ends with
    /// its answer, for a transport that answers each request separately (Streamable HTTP: a
    /// POST whose response carries the answer). The peer awaits it in the task that waits for
    /// the answer, so the answer does not travel through [`receive`](Transport::receive) and
    /// the peer's reader task: one hand-over less per request. `None` (the default): the
    /// message goes through [`try_send_now`](Transport::try_send_now) or
    /// [`send`](Transport::send) as usual.
    ///
    /// The peer asks only when no message is queued before this one. Dropping the future
    /// abandons the exchange (the peer sends `notifications/cancelled` itself when it should).
    /// Everything else that comes on the exchange (progress, server requests, an error that ends
    /// the connection) still goes to `receive`.
    fn round_trip(&self, message: &str) -> Option<RoundTripFuture> {
        let _ = message;
        None
    }

    /// Receives the next message: the bytes of one JSON text (or a JSON array, for a batch).
    ///
    /// An error is final: the transport is dead and the error says why (for stdio, the exit
    /// status and the tail of stderr). It must be cancel safe: a call dropped before it
    /// completes must not lose a message.
    async fn receive(&self) -> Result<Bytes, TransportError>;

    /// Polls for the next message from whichever task calls, for a transport that reads one
    /// stream and keeps everything between polls in itself. The peer lets a request waiting
    /// alone for its answer read it this way, so the answer wakes that request directly instead
    /// of the peer's reader task, which would then wake it: one hand-over less per request.
    ///
    /// Contract, when implemented: cancel safe, holding nothing between calls, mixing freely
    /// with [`receive`](Transport::receive); the waker of the latest call is the one woken
    /// (whoever polls last reads next). `Ready(Some(_))` is what `receive` would have given;
    /// `Ready(None)` (the default, always) means "not this way": the next message, or the error
    /// that ends the connection, comes from `receive`.
    fn poll_receive(&self, cx: &mut Context<'_>) -> Poll<Option<Result<Bytes, TransportError>>> {
        let _ = cx;
        Poll::Ready(None)
    }

    /// Shuts the connection down and releases everything it holds (for stdio: stdin closed, a
    /// grace period, then SIGTERM and SIGKILL to the process group). Calling it twice is fine.
    async fn close(&self) -> Result<(), TransportError>;
}

/// What a request sent with [`Transport::round_trip`] came to.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RoundTrip {
    /// The request's response: one JSON-RPC response object, which
    /// [`receive`](Transport::receive) will not give.
    Answer(Bytes),
    /// The exchange is over and what came of it went to [`receive`](Transport::receive): the
    /// answer inside a batch, an error that ends the connection, or nothing (the transport
    /// closed).
    Received,
}

/// The exchange of one request ([`Transport::round_trip`]), driven by the task that waits for
/// its answer.
pub type RoundTripFuture = Pin<Box<dyn Future<Output = RoundTrip> + Send + 'static>>;

/// Why a transport failed or stopped. Every error is final for the connection.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TransportError {
    /// The server process could not be started. Check the command and the PATH.
    #[error("could not start {command}: {source}")]
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
    #[error("{action} failed: {}", error_chain(.source.as_ref()))]
    Http {
        /// What was being done, e.g. `POST initialize to https://example.com/mcp`.
        action: String,
        /// The HTTP client's error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
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
    Authorization(Box<crate::oauth::OAuthError>),
    /// The server broke the HTTP transport's rules.
    #[error("{action}: {violation}")]
    Protocol {
        /// What was being done, e.g. `POST tools/call to https://example.com/mcp`.
        action: String,
        /// What the server did wrong.
        violation: ProtocolViolation,
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
    /// A failure reported by a transport plugin.
    #[error("{0}")]
    Other(String),
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
fn error_chain(error: &(dyn std::error::Error + 'static)) -> String {
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
impl From<crate::oauth::OAuthError> for TransportError {
    fn from(error: crate::oauth::OAuthError) -> Self {
        Self::Authorization(Box::new(error))
    }
}

impl TransportError {
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
}

#[cfg(test)]
mod tests {
    use super::*;

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
