//! One request's side of the peer: what can go wrong ([`RpcError`]), the caller's options
//! ([`RequestOptions`]: timeout, progress, cancellation), its deadlines, and how a request is
//! written and its answer read.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::fast_path::{RoundTrip, RoundTripFuture};
use crate::jsonrpc::{ErrorObject, OutgoingRequest, TypedResponse};
use crate::protocol::{JsonObject, ProgressNotificationParams};
use crate::transport::CloseReason;

/// A request failed at the JSON-RPC level.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RpcError {
    /// The server answered with a JSON-RPC error (or, marked so, the request failed at the HTTP
    /// level: [`ErrorObject::is_http_failure`]).
    #[error("{}", server_error_text(.0))]
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
    /// The task the server made of the request ended `cancelled` without a result: the server
    /// (or another client) cancelled it.
    #[error("the task {task_id} was cancelled{}", status_text(.message.as_deref()))]
    TaskCancelled {
        /// The task's id.
        task_id: String,
        /// The server's status message, if it gave one.
        message: Option<String>,
    },
    /// The task the server made of the request showed no sign of life (no change of status or
    /// message, no input asked for) for the request's timeout, so it was cancelled
    /// (`tasks/cancel`).
    #[error(
        "the task {task_id} showed no sign of life for {}ms, so it was cancelled",
        .after.as_millis()
    )]
    TaskSilent {
        /// The task's id.
        task_id: String,
        /// The timeout it outlived.
        after: Duration,
    },
    /// The request is not part of the protocol the server speaks (e.g. `tasks/update` of the
    /// Tasks extension to a server of the 2025-11-25 task form).
    #[error("{0}")]
    NotSupported(String),
    /// The request could not be serialized (arguments that are not valid JSON values).
    #[error("the request could not be serialized: {0}")]
    Encode(#[source] serde_json::Error),
}

/// `: message` after a task's outcome, when the server said something.
fn status_text(message: Option<&str>) -> String {
    message
        .map(|message| format!(": {message}"))
        .unwrap_or_default()
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
    /// Called once, with the task as the server created it, when a tool call is answered with
    /// a task (the Tasks extension), or as it was first fetched when one is followed by id,
    /// as the client starts following it (from then on cancelling, dropping the call or closing
    /// the client cancels the task): for a caller that keeps the task's id (to resume it after
    /// a restart, to show it).
    pub on_task: Option<TaskCallback>,
}

/// Called with the task a tool call became ([`RequestOptions::on_task`]).
pub type TaskCallback = Arc<dyn Fn(&crate::protocol::Task) + Send + Sync>;

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

    /// Hands the task a tool call became (or the one followed by id) to `callback`, once, as
    /// the client starts following it.
    #[must_use]
    pub fn on_task(
        mut self,
        callback: impl Fn(&crate::protocol::Task) + Send + Sync + 'static,
    ) -> Self {
        self.on_task = Some(Arc::new(callback));
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
            .field("on_task", &self.on_task.is_some())
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

/// Resolves when `token` is cancelled, or never without one.
pub(crate) async fn cancelled(token: Option<&CancellationToken>) {
    match token {
        Some(token) => token.cancelled().await,
        None => std::future::pending().await,
    }
}

/// Hands `progress` to the caller's `callback`: the caller's code, whose panic is logged and
/// the report dropped, never passed on to the reader or follower that reports it.
pub(crate) fn hand_progress(
    server: &str,
    callback: &ProgressCallback,
    progress: ProgressNotificationParams,
) {
    if std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| callback(progress))).is_err() {
        tracing::warn!(
            server,
            "a progress callback panicked; the report was dropped"
        );
    }
}

/// The outcome of the request's own exchange, once (`FastPath::round_trip`); never, without
/// one or after it.
pub(super) async fn finish_round_trip(round_trip: &mut Option<RoundTripFuture>) -> RoundTrip {
    let Some(exchange) = round_trip else {
        return std::future::pending().await;
    };
    let outcome = exchange.await;
    *round_trip = None;
    outcome
}

/// A request's JSON text, with `meta` (an object's JSON text) as the `_meta` of its params.
///
/// The `_meta` is spliced into the serialized params rather than serialized with them: it is
/// text already (the stateless revision's fields are serialized once per connection), and
/// merging through serde (`#[serde(flatten)]`) re-serialized its keys. A request with `_meta`
/// is written into a buffer sized for it up front: growing one costs more than checking the
/// finished bytes are UTF-8, which turning them into a `String` without `unsafe` needs.
pub(super) fn serialize_request<P: Serialize>(
    id: u64,
    method: &str,
    params: Option<P>,
    meta: Option<&str>,
) -> Result<String, RpcError> {
    fn envelope<P>(id: u64, method: &str, params: Option<P>) -> OutgoingRequest<'_, P> {
        OutgoingRequest {
            jsonrpc: "2.0",
            id,
            method,
            params,
        }
    }
    let Some(meta) = meta else {
        return serde_json::to_string(&envelope(id, method, params)).map_err(RpcError::Encode);
    };
    let mut bytes = Vec::with_capacity(REQUEST_CAPACITY + meta.len());
    match params {
        Some(params) => serde_json::to_writer(&mut bytes, &envelope(id, method, Some(params))),
        None => serde_json::to_writer(&mut bytes, &envelope(id, method, Some(JsonObject::new()))),
    }
    .map_err(RpcError::Encode)?;
    // `params` is the envelope's last member, so compact JSON ends with the params object's
    // closing brace and the envelope's: `…}}`, or `{}}` when the params are empty.
    if !bytes.ends_with(b"}}") {
        return Err(encode_error(
            "the request's params are not a JSON object, so they cannot carry _meta",
        ));
    }
    let empty = bytes.ends_with(b"{}}");
    bytes.truncate(bytes.len() - 2);
    if !empty {
        bytes.push(b',');
    }
    bytes.extend_from_slice(b"\"_meta\":");
    bytes.extend_from_slice(meta.as_bytes());
    bytes.extend_from_slice(b"}}");
    String::from_utf8(bytes)
        .map_err(|_| encode_error("serde_json wrote a request that is not UTF-8"))
}

/// The bytes reserved for a request besides its `_meta`: a typical call's envelope, name and
/// arguments fit, so writing it rarely grows the buffer.
const REQUEST_CAPACITY: usize = 256;

fn encode_error(message: &'static str) -> RpcError {
    RpcError::Encode(serde::ser::Error::custom(message))
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

/// The `_meta` every request carries, kept as the JSON text it serializes to: a request
/// copies it instead of serializing the client's identity and capabilities (and their long
/// `io.modelcontextprotocol/…` keys) again.
#[derive(Debug)]
pub(super) struct RequestMeta {
    /// The object, `{…}`.
    object: String,
}

impl RequestMeta {
    /// The fields, serialized once (a map of JSON values always serializes).
    pub(super) fn serialized(meta: &JsonObject) -> Result<Self, serde_json::Error> {
        serde_json::to_string(meta).map(|object| Self { object })
    }

    /// The `_meta` of one request: these fields, with `progressToken` first when the caller
    /// asked for progress; `None` when there is nothing to add.
    pub(super) fn for_request(
        common: Option<&Self>,
        progress_token: Option<u64>,
    ) -> Option<Cow<'_, str>> {
        match (common, progress_token) {
            (None, None) => None,
            (Some(common), None) => Some(Cow::Borrowed(&common.object)),
            (None, Some(token)) => Some(Cow::Owned(format!("{{\"progressToken\":{token}}}"))),
            (Some(common), Some(token)) => {
                let fields = common.object.strip_prefix('{').unwrap_or(&common.object);
                let separator = if fields.starts_with('}') { "" } else { "," };
                Some(Cow::Owned(format!(
                    "{{\"progressToken\":{token}{separator}{fields}"
                )))
            }
        }
    }
}

/// An error answer as said: the server's, or the request's own HTTP failure, which the server
/// did not answer with (its message says what failed: `POST tools/call to …: HTTP 500: …`).
fn server_error_text(error: &ErrorObject) -> String {
    if error.is_http_failure() {
        error.message.clone()
    } else {
        format!("the server answered with an error: {error}")
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::{RequestMeta, serialize_request};

    fn parsed(params: Option<Value>, progress: Option<u64>, common: Option<&Value>) -> Value {
        let common = common.map(|common| {
            let Value::Object(fields) = common else {
                panic!("an object")
            };
            RequestMeta::serialized(fields).expect("serializes")
        });
        let meta = RequestMeta::for_request(common.as_ref(), progress);
        let text = serialize_request(7, "m", params, meta.as_deref()).expect("serialized");
        serde_json::from_str(&text).unwrap_or_else(|error| panic!("{error}: {text}"))
    }

    #[test]
    fn the_meta_lands_in_the_params_whatever_they_hold() {
        let common = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"});
        let full = json!({"name": "t", "arguments": {"a": {}, "b": "{}}"}});
        let with = parsed(Some(full.clone()), None, Some(&common));
        assert_eq!(with["params"]["name"], "t");
        assert_eq!(with["params"]["arguments"], full["arguments"]);
        assert_eq!(with["params"]["_meta"], common);
        let empty = parsed(Some(json!({})), None, Some(&common));
        assert_eq!(empty["params"], json!({"_meta": common}));
        let none = parsed(None, None, Some(&common));
        assert_eq!(none["params"], json!({"_meta": common}));
        assert_eq!(none["id"], 7);
        assert_eq!(none["method"], "m");
    }

    #[test]
    fn a_progress_token_comes_first_beside_the_common_fields_or_alone() {
        let common = json!({"k": 1});
        let both = parsed(None, Some(7), Some(&common));
        assert_eq!(both["params"]["_meta"], json!({"progressToken": 7, "k": 1}));
        let alone = parsed(Some(json!({"x": 1})), Some(7), None);
        assert_eq!(
            alone["params"],
            json!({"x": 1, "_meta": {"progressToken": 7}})
        );
        let empty_common = parsed(None, Some(7), Some(&json!({})));
        assert_eq!(empty_common["params"]["_meta"], json!({"progressToken": 7}));
        let nothing = parsed(None, None, None);
        assert!(nothing.get("params").is_none(), "{nothing}");
    }

    #[test]
    fn params_that_are_not_an_object_cannot_carry_meta() {
        let meta = Some(r#"{"k":1}"#);
        for params in [json!([1, {}]), json!("x}}"), json!(5)] {
            let error = serialize_request(1, "m", Some(params.clone()), meta);
            assert!(error.is_err(), "{params}");
        }
    }
}
