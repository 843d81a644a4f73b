//! One request's side of the peer: what can go wrong ([`RpcError`]), the caller's options
//! ([`RequestOptions`]: timeout, progress, cancellation), its deadlines, and how a request is
//! written and its answer read.

use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::jsonrpc::{ErrorObject, OutgoingRequest, TypedResponse};
use crate::protocol::{JsonObject, ProgressNotificationParams};
use crate::transport::{CloseReason, RoundTrip, RoundTripFuture};

/// A request failed at the JSON-RPC level.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RpcError {
    /// The server answered with a JSON-RPC error.
    #[error("the server answered with an error: {0}")]
    Server(ErrorObject),
    /// No answer came in time; the server was sent `notifications/cancelled`.
    #[error("no answer within {}ms, so the request was cancelled", .0.as_millis())]
    Timeout(Duration),
    /// The caller cancelled the request; the server was sent `notifications/cancelled`.
    #[error("cancelled by the caller")]
    Cancelled,
    /// The connection is closed; the reason says why (exit status and stderr tail for stdio).
    #[error("{0}")]
    ConnectionClosed(CloseReason),
    /// The server's answer was longer than the limit for one message and was dropped; the
    /// connection lives on. Raise the server's `maxMessageBytes` if its answers are that large.
    #[error(
        "the server's answer was {size} bytes, over the limit of {limit} bytes for one message \
         (maxMessageBytes); it was dropped and the connection stays open"
    )]
    AnswerTooLarge {
        /// The limit in bytes.
        limit: usize,
        /// The answer's length in bytes.
        size: usize,
    },
    /// The server's answer did not have the expected shape.
    #[error("the server's answer could not be read: {0}")]
    InvalidResponse(String),
    /// A stateless server asked for input (multi round-trip request) that the client could
    /// not give: no handler for it, or the handler failed.
    #[error("the server asked for input this client could not give: {}", .0.message)]
    InputNotGiven(ErrorObject),
    /// The request could not be serialized (arguments that are not valid JSON values).
    #[error("the request could not be serialized: {0}")]
    Encode(#[source] serde_json::Error),
}

/// Called with each `notifications/progress` of a request, in the order they arrive, all before
/// the request returns its answer. It runs in the task that reads the connection (the request's
/// own while it is alone in flight, else the connection's reader), so it should be quick: hand
/// anything slow to a channel. A panic in it is caught and logged.
pub type ProgressCallback = Arc<dyn Fn(ProgressNotificationParams) + Send + Sync>;

/// Per-request options.
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct RequestOptions {
    /// Give up (and tell the server) after this long without an answer. `None` uses the
    /// peer's default ([`PeerOptions::default_timeout`](crate::PeerOptions::default_timeout)).
    pub timeout: Option<Duration>,
    /// With progress, each notification restarts the timeout, but never beyond this total.
    pub max_total_timeout: Option<Duration>,
    /// Whether progress restarts the timeout (see `max_total_timeout`).
    pub reset_timeout_on_progress: bool,
    /// Asks the server for progress (a `progressToken` is added) and receives it here.
    pub on_progress: Option<ProgressCallback>,
    /// Cancels the request when triggered; dropping the request future cancels it too.
    pub cancel: Option<CancellationToken>,
}

impl RequestOptions {
    /// Options with a timeout.
    pub fn with_timeout(timeout: Duration) -> Self {
        Self::default().timeout(timeout)
    }

    /// Sets the timeout.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Cancels the request when `token` is triggered.
    #[must_use]
    pub fn cancel_with(mut self, token: CancellationToken) -> Self {
        self.cancel = Some(token);
        self
    }

    /// Asks for progress and hands each notification to `callback`, in order.
    #[must_use]
    pub fn on_progress(
        mut self,
        callback: impl Fn(ProgressNotificationParams) + Send + Sync + 'static,
    ) -> Self {
        self.on_progress = Some(Arc::new(callback));
        self
    }

    /// Lets each progress notification restart the timeout, never beyond `max_total`.
    #[must_use]
    pub fn reset_timeout_on_progress(mut self, max_total: Duration) -> Self {
        self.reset_timeout_on_progress = true;
        self.max_total_timeout = Some(max_total);
        self
    }
}

impl std::fmt::Debug for RequestOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RequestOptions")
            .field("timeout", &self.timeout)
            .field("max_total_timeout", &self.max_total_timeout)
            .field("reset_timeout_on_progress", &self.reset_timeout_on_progress)
            .field("on_progress", &self.on_progress.is_some())
            .field("cancel", &self.cancel)
            .finish()
    }
}

/// The limits of one request: a timeout (restarted by progress when asked) under a hard limit.
#[derive(Clone, Copy)]
pub(super) struct Deadlines {
    pub(super) timeout: Option<Duration>,
    pub(super) hard: Option<Instant>,
    pub(super) started: Instant,
}

impl Deadlines {
    /// The deadline when the timeout (re)starts at `now`.
    pub(super) fn next(&self, now: Instant) -> Option<Instant> {
        match (self.timeout.map(|timeout| now + timeout), self.hard) {
            (Some(soft), Some(hard)) => Some(soft.min(hard)),
            (soft, hard) => soft.or(hard),
        }
    }
}

pub(super) async fn cancelled(token: Option<&CancellationToken>) {
    match token {
        Some(token) => token.cancelled().await,
        None => std::future::pending().await,
    }
}

/// The outcome of the request's own exchange, once ([`Transport::round_trip`]); never, without
/// one or after it.
///
/// [`Transport::round_trip`]: crate::Transport::round_trip
pub(super) async fn finish_round_trip(round_trip: &mut Option<RoundTripFuture>) -> RoundTrip {
    let Some(exchange) = round_trip else {
        return std::future::pending().await;
    };
    let outcome = exchange.await;
    *round_trip = None;
    outcome
}

pub(super) fn serialize_request<P: Serialize>(
    id: u64,
    method: &str,
    params: Option<P>,
    capacity: usize,
) -> Result<String, RpcError> {
    // Sized for the whole message up front: a stateless request (its `_meta` alone is a few
    // hundred bytes) would otherwise grow the buffer two or three times.
    let mut bytes = Vec::with_capacity(capacity);
    let request = OutgoingRequest {
        jsonrpc: "2.0",
        id,
        method,
        params,
    };
    serde_json::to_writer(&mut bytes, &request).map_err(RpcError::Encode)?;
    String::from_utf8(bytes).map_err(|_| {
        RpcError::Encode(serde::ser::Error::custom(
            "serde_json wrote a request that is not UTF-8",
        ))
    })
}

pub(super) fn decode_response<R: DeserializeOwned>(bytes: &[u8]) -> Result<R, RpcError> {
    let response: TypedResponse<R> = serde_json::from_slice(bytes)
        .map_err(|error| RpcError::InvalidResponse(error.to_string()))?;
    match (response.result, response.error) {
        (_, Some(error)) => Err(RpcError::Server(error)),
        (Some(result), None) => Ok(result),
        (None, None) => Err(RpcError::InvalidResponse(
            "the response has neither a result nor an error".to_owned(),
        )),
    }
}

/// Request params with `_meta` added: the progress token when the caller asked for progress,
/// and the stateless revision's per-request fields (protocol version, client info and
/// capabilities) once the peer has them ([`Peer::set_request_meta`](super::Peer::set_request_meta)).
#[derive(Serialize)]
pub(super) struct WithMeta<'a, P> {
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    params: Option<P>,
    #[serde(rename = "_meta")]
    meta: MetaOut<'a>,
}

struct MetaOut<'a> {
    progress_token: Option<u64>,
    common: Option<&'a RequestMeta>,
}

impl Serialize for MetaOut<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        match (self.progress_token, self.common) {
            (None, Some(common)) => common.object.serialize(serializer),
            (Some(token), Some(common)) => common.with_progress_token(token).serialize(serializer),
            (token, None) => {
                let mut map = serializer.serialize_map(Some(usize::from(token.is_some())))?;
                if let Some(token) = token {
                    map.serialize_entry("progressToken", &token)?;
                }
                map.end()
            }
        }
    }
}

impl<'a, P> WithMeta<'a, P> {
    pub(super) fn new(
        params: Option<P>,
        progress_token: Option<u64>,
        common: Option<&'a RequestMeta>,
    ) -> Self {
        Self {
            params,
            meta: MetaOut {
                progress_token,
                common,
            },
        }
    }
}

/// The `_meta` every request carries, kept as the JSON text it serializes to: a request
/// copies it instead of serializing the client's identity and capabilities (and their long
/// `io.modelcontextprotocol/…` keys) again.
#[derive(Debug)]
pub(super) struct RequestMeta {
    /// The object, `{…}`.
    object: Box<RawValue>,
}

impl RequestMeta {
    /// The fields, serialized once (a map of JSON values always serializes).
    pub(super) fn serialized(meta: &JsonObject) -> Result<Self, serde_json::Error> {
        serde_json::value::to_raw_value(meta).map(|object| Self { object })
    }

    /// The object with `progressToken` added first.
    fn with_progress_token(&self, token: u64) -> Box<RawValue> {
        let fields = self.object.get().trim_start_matches('{');
        let separator = if fields.starts_with('}') { "" } else { "," };
        let text = format!("{{\"progressToken\":{token}{separator}{fields}");
        RawValue::from_string(text).unwrap_or_else(|_| self.object.clone())
    }

    /// How many bytes the object takes in a request.
    pub(super) fn len(&self) -> usize {
        self.object.get().len()
    }
}
