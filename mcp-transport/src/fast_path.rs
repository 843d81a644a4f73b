//! The built-in transports' shortcuts past the peer's reader and writer tasks, kept out of the
//! [`Transport`] trait so that a plugin author writes `send`, `receive` and `close` and never
//! meets them.
//!
//! Each shortcut saves a hand-over between tasks per request (a wake-up, and on a
//! current-thread runtime a write to its event fd), which is most of what a round trip costs on
//! a local server. The peer gets them through a [`Link`]: the transport it drives, and beside
//! it the same object seen as a [`FastPath`] when it is one of this crate's own (stdio,
//! Streamable HTTP). A plugin's link has none, and the peer does everything through the trait.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;

use crate::transport::{Transport, TransportError};

/// The shortcuts a built-in transport offers the peer. Each has a default meaning "not this
/// way", so a transport implements only the ones it can honour.
pub(crate) trait FastPath: Send + Sync + 'static {
    /// Sends one message right now from the caller's task if that needs no waiting at all, and
    /// says whether it did. The peer tries this for a message when nothing else is queued,
    /// which saves a hand-over to its writer task; on `Ok(false)` (the default) or an error the
    /// message goes through [`Transport::send`] as usual, so an error here is not final.
    ///
    /// It must never block, and never send part of a message and then return `Ok(false)`.
    fn try_send_now(&self, message: &str) -> Result<bool, TransportError> {
        let _ = message;
        Ok(false)
    }

    /// Sends request `message` on an exchange of its own and gives the future that ends with
    /// its answer, for a transport that answers each request separately (Streamable HTTP: a
    /// POST whose response carries the answer). The peer awaits it in the task that waits for
    /// the answer, so the answer does not travel through [`Transport::receive`] and the peer's
    /// reader task: one hand-over less per request. `None` (the default): the message goes
    /// through [`try_send_now`](FastPath::try_send_now) or [`Transport::send`] as usual.
    ///
    /// The peer asks only when no message is queued before this one. Dropping the future
    /// abandons the exchange (the peer sends `notifications/cancelled` itself when it should).
    /// Everything else that comes on the exchange (progress, server requests, an error that
    /// ends the connection) still goes to `receive`.
    fn round_trip(&self, message: &str) -> Option<RoundTripFuture> {
        let _ = message;
        None
    }

    /// Polls for the next message from whichever task calls, for a transport that reads one
    /// stream and keeps everything between polls in itself. The peer lets a request waiting
    /// alone for its answer read it this way, so the answer wakes that request directly instead
    /// of the peer's reader task, which would then wake it: one hand-over less per request.
    ///
    /// Contract, when implemented: cancel safe, holding nothing between calls, mixing freely
    /// with [`Transport::receive`]; the waker of the latest call is the one woken (whoever
    /// polls last reads next). `Ready(Some(_))` is what `receive` would have given;
    /// `Ready(None)` (the default, always) means "not this way": the next message, or the error
    /// that ends the connection, comes from `receive`.
    fn poll_receive(&self, cx: &mut Context<'_>) -> Poll<Option<Result<Bytes, TransportError>>> {
        let _ = cx;
        Poll::Ready(None)
    }
}

/// What a request sent with [`FastPath::round_trip`] came to.
#[derive(Debug)]
#[cfg_attr(
    not(feature = "http"),
    expect(
        dead_code,
        reason = "only the Streamable HTTP transport makes round trips"
    )
)]
pub(crate) enum RoundTrip {
    /// The request's response: one JSON-RPC response object, which [`Transport::receive`] will
    /// not give.
    Answer(Bytes),
    /// The exchange is over and what came of it went to [`Transport::receive`]: the answer
    /// inside a batch, an error that ends the connection, or nothing (the transport closed).
    Received,
}

/// The exchange of one request ([`FastPath::round_trip`]), driven by the task that waits for
/// its answer.
pub(crate) type RoundTripFuture = Pin<Box<dyn Future<Output = RoundTrip> + Send + 'static>>;

/// What the peer drives: a transport, and its shortcuts when it has them. Both point at the
/// same object, so the transport lives (and, for stdio, its process group with it) until the
/// last of them is dropped, exactly as one pointer would.
#[derive(Clone)]
pub(crate) struct Link {
    pub(crate) transport: Arc<dyn Transport>,
    pub(crate) fast: Option<Arc<dyn FastPath>>,
}

impl Link {
    /// A transport the peer drives through [`Transport`] alone: a plugin's, or a built-in one
    /// without shortcuts.
    pub(crate) fn plain(transport: Box<dyn Transport>) -> Self {
        Self {
            transport: Arc::from(transport),
            fast: None,
        }
    }

    /// One of this crate's transports, with its shortcuts.
    #[cfg(any(feature = "stdio", feature = "http"))]
    pub(crate) fn with_fast_path<T: Transport + FastPath>(transport: T) -> Self {
        let transport = Arc::new(transport);
        Self {
            fast: Some(Arc::clone(&transport) as Arc<dyn FastPath>),
            transport,
        }
    }
}
