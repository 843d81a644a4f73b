//! The Streamable HTTP transport (MCP 2025-03-26 and later).
//!
//! Every outgoing message is a POST to the one MCP endpoint, with
//! `Accept: application/json, text/event-stream`:
//!
//! - a **request** gets its answer as one JSON body or as an SSE stream that may carry the
//!   server's progress notifications and requests first. Each request runs in a task of its
//!   own, so a long tool call never holds up the next message; `notifications/cancelled` for it
//!   stops reading its stream;
//! - a **notification** or a **response** gets 202 (200 with no body is tolerated). These are
//!   posted in order before anything that follows them is sent, so `notifications/initialized`
//!   reaches the server before the first request of the session.
//!
//! The `Mcp-Session-Id` of the initialize answer goes with every later request, and so does
//! `MCP-Protocol-Version` once the server has chosen one. After `notifications/initialized` the
//! transport opens the optional GET stream for messages the server starts (list changes, pings,
//! its own requests); a 405 (or another 4xx) means the server has none and nothing is retried.
//!
//! What keeps a session alive:
//!
//! - a response stream that ends before its answer is **resumed** with `GET` and
//!   `Last-Event-ID`, after the server's `retry:` delay, at most [`MAX_STREAM_RESUMPTIONS`]
//!   times; priming events (an id and empty data) are skipped but their id is kept;
//! - a 404 to a request that carried a session id (or a 400 whose body speaks of the session)
//!   means the session **expired**: the transport replays the initialize request and
//!   `notifications/initialized` once, then retries the request; a second failure is an error.
//!
//! A request that fails at the HTTP level after the handshake gets a JSON-RPC error answer of
//! code [`HTTP_ERROR_CODE`](super::HTTP_ERROR_CODE) naming the method, the status and the start of the body, so the
//! caller sees why and the connection lives on. A failure of `initialize` itself, and a 401 or
//! 403 at any time that the [`Authorizer`] (if the parameters name one) cannot answer with new
//! credentials, or a server that cannot be reached any more (connection refused), ends the
//! connection with a typed [`TransportError`]
//! ([`TransportError::HttpStatus`], [`TransportError::Unauthorized`] with the server's
//! `WWW-Authenticate`, or the authorizer's error when the user has to log in). Every request
//! carries the authorizer's `Authorization`, and one it refused is sent again once the
//! authorizer has new credentials. [`close`](Transport::close) ends the session with a DELETE
//! (a 405 is fine).
//!
//! The GET stream is read in `listen`; replacing an expired session and ending one with the
//! DELETE are in `session`.

mod listen;
mod session;

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderName, HeaderValue};
use reqwest::{Method, StatusCode};
use serde::Deserialize;
use serde_json::value::RawValue;
use tokio_util::sync::CancellationToken;

use super::authorization::send_authorized;
use super::failure::{display_url, error_response, excerpt, unauthorized};
use super::headers::{self, PROTOCOL_VERSION, ToolHeaders};
use super::mailbox::{Inbox, Postbox, mailbox};
use super::message::{Outgoing, answers};
use super::response::{BodyKind, read_body, read_messages};
use super::{Authorizer, DEFAULT_RETRY, HttpServerParams, MAX_STREAM_RESUMPTIONS, Url};
use crate::fast_path::{FastPath, RoundTrip, RoundTripFuture};
use crate::secrets::Secrets;
use crate::sse::SseDecoder;
use crate::transport::{ProtocolViolation, Transport, TransportError};

static SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");
const LAST_EVENT_ID: &str = "last-event-id";
const ACCEPT_BOTH: &str = "application/json, text/event-stream";
const INITIALIZE: &str = "initialize";
const INITIALIZED: &str = "notifications/initialized";
const CANCELLED: &str = "notifications/cancelled";

/// How much of an error body is read to tell an expired session from other failures.
const ERROR_BODY_LIMIT: usize = 64 * 1024;
/// How long the rest of an answer's event stream is read for after the answer, waiting for
/// the server to end it (see `finish_stream`).
const STREAM_END_GRACE: Duration = Duration::from_secs(2);

/// A connection to a Streamable HTTP server. See the [module docs](self).
///
/// [`McpClient::connect_http`](crate::McpClient::connect_http) drives it with its shortcut:
/// each request's POST is made, and its answer read, by the task that waits for it. Handed to
/// [`McpClient::connect`](crate::McpClient::connect) or [`Peer::start`](crate::Peer::start) as
/// a `Box<dyn Transport>`, it works through the [`Transport`] trait alone, like any plugin.
pub struct StreamableHttpTransport {
    shared: Arc<Shared>,
    inbox: Inbox,
}

struct Shared {
    client: reqwest::Client,
    url: Url,
    max_message_bytes: usize,
    session: Mutex<Session>,
    /// Held while the session is being replaced, so expired requests re-initialize once.
    reinitializing: tokio::sync::Mutex<()>,
    postbox: Postbox,
    /// Cancelled by `close` or drop: every task of the transport stops.
    closed: CancellationToken,
    /// Requests being answered, by id (JSON text): cancelling one stops reading its answer.
    in_flight: Mutex<HashMap<String, CancellationToken>>,
    /// The GET stream's task, when one runs.
    listener: Mutex<Option<CancellationToken>>,
    /// Supplies each request's `Authorization`, if the parameters name one.
    authorizer: Option<Arc<dyn Authorizer>>,
    /// What errors and logs never show of the server's text.
    secrets: Secrets,
    /// The headers each tool designates (2026-07-28), learnt by the client from the tool list.
    tool_headers: Arc<ToolHeaders>,
    /// The `_meta` this connection's stateless requests carry, read once.
    known_meta: headers::KnownMeta,
    /// Set when a message of the stateless revision goes out, cleared when `initialize` does
    /// (after an era probe the server did not answer): while set, an answer stream is not
    /// resumed and cancellation is closing the request's stream, not a notification.
    stateless: AtomicBool,
}

#[derive(Default)]
struct Session {
    id: Option<HeaderValue>,
    protocol_version: Option<HeaderValue>,
    /// The initialize request and its id, replayed when the session expires.
    initialize: Option<(String, String)>,
    /// Bumped each time the session is replaced.
    generation: u64,
    /// True while the session is being replaced: requests wait for the new one rather than go
    /// out with no session id.
    replacing: bool,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The body's next chunk if it is there without waiting; `Ready(None)` once the body ended
/// (or broke).
fn chunk_now(response: &mut reqwest::Response) -> Poll<Option<Bytes>> {
    let next = std::pin::pin!(response.chunk())
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()));
    next.map(Result::unwrap_or_default)
}

impl StreamableHttpTransport {
    /// A transport for the server `params` describe. Nothing is sent until the first message.
    pub fn new(params: &HttpServerParams) -> Result<Self, TransportError> {
        let (postbox, inbox) = mailbox();
        let shared = Shared {
            client: params.http_client()?,
            url: params.url.clone(),
            max_message_bytes: params.max_message_bytes,
            session: Mutex::new(Session::default()),
            reinitializing: tokio::sync::Mutex::new(()),
            closed: postbox.closed.clone(),
            postbox,
            in_flight: Mutex::new(HashMap::new()),
            listener: Mutex::new(None),
            authorizer: params.authorizer.clone(),
            secrets: params.transport_secrets(),
            tool_headers: Arc::default(),
            known_meta: headers::KnownMeta::default(),
            stateless: AtomicBool::new(false),
        };
        Ok(Self {
            shared: Arc::new(shared),
            inbox,
        })
    }

    /// Where the client puts the headers its tools designate (2026-07-28), so that `tools/call`
    /// mirrors them ([`super::headers`]).
    pub fn tool_headers(&self) -> Arc<ToolHeaders> {
        Arc::clone(&self.shared.tool_headers)
    }

    /// The session id the server gave, once it gave one.
    pub fn session_id(&self) -> Option<String> {
        lock(&self.shared.session)
            .id
            .as_ref()
            .and_then(|id| id.to_str().ok())
            .map(str::to_owned)
    }

    /// The id and method of `message` when it is a request other than `initialize` (which
    /// `send` records for a re-initialization) and the transport is open: a request the caller
    /// may start itself.
    fn request_of(&self, message: &str) -> Option<(String, String)> {
        if self.shared.closed.is_cancelled() {
            return None;
        }
        match Outgoing::of(message) {
            Outgoing::Request { id, method } if method != INITIALIZE => Some((id, method)),
            _ => None,
        }
    }
}

impl std::fmt::Debug for StreamableHttpTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamableHttpTransport")
            .field("url", &display_url(&self.shared.url))
            .field("has_session", &lock(&self.shared.session).id.is_some())
            .finish_non_exhaustive()
    }
}

#[async_trait]
impl Transport for StreamableHttpTransport {
    async fn send(&self, messages: &[String]) -> Result<(), TransportError> {
        for message in messages {
            if self.shared.closed.is_cancelled() {
                return Err(TransportError::ClosedByClient);
            }
            match Outgoing::of(message) {
                Outgoing::Request { id, method } => {
                    if method == INITIALIZE {
                        // The server is of the handshake era (the era probe that went first
                        // was stateless).
                        self.shared.stateless.store(false, Ordering::Relaxed);
                        lock(&self.shared.session).initialize = Some((message.clone(), id.clone()));
                    }
                    Arc::clone(&self.shared).spawn_request(message.clone(), id, method);
                }
                outgoing => {
                    let method = outgoing.method().to_owned();
                    if method == CANCELLED {
                        self.shared.stop_cancelled_request(message);
                        if self.shared.stateless.load(Ordering::Relaxed) {
                            // Closing the request's stream was the cancellation.
                            continue;
                        }
                    }
                    self.shared.post_one_way(message, &method).await?;
                    if method == INITIALIZED {
                        self.shared.listen().await;
                    }
                }
            }
        }
        Ok(())
    }

    async fn receive(&self) -> Result<Bytes, TransportError> {
        self.inbox.receive().await
    }

    async fn close(&self) -> Result<(), TransportError> {
        if self.shared.closed.is_cancelled() {
            return Ok(());
        }
        self.shared.closed.cancel();
        self.shared.end_session().await;
        Ok(())
    }
}

impl FastPath for StreamableHttpTransport {
    /// A request other than `initialize` is posted from a task of its own anyway: start that
    /// task from the caller, saving the hand-over to the peer's writer task (when the caller
    /// does not drive it itself, [`round_trip`](FastPath::round_trip)).
    fn try_send_now(&self, message: &str) -> Result<bool, TransportError> {
        Ok(match self.request_of(message) {
            Some((id, method)) => {
                Arc::clone(&self.shared).spawn_request(message.to_owned(), id, method);
                true
            }
            None => false,
        })
    }

    /// A request other than `initialize` is answered on its own POST: the caller's task drives
    /// it and gets the answer straight from it.
    fn round_trip(&self, message: &str) -> Option<RoundTripFuture> {
        let (id, method) = self.request_of(message)?;
        Some(Box::pin(Arc::clone(&self.shared).round_trip(
            message.to_owned(),
            id,
            method,
        )))
    }
}

impl Drop for StreamableHttpTransport {
    fn drop(&mut self) {
        if self.shared.closed.is_cancelled() {
            return;
        }
        self.shared.closed.cancel();
        // Best effort: tell the server the session is over, if a runtime is there to do it.
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let shared = Arc::clone(&self.shared);
            runtime.spawn(async move { shared.end_session().await });
        }
    }
}

/// Where a round trip keeps its answer.
#[derive(Default)]
struct Returned {
    answer: OnceLock<Bytes>,
    /// Whether a message of the exchange went to the inbox (progress, a server request): the
    /// answer then follows it there, so that the caller never has its answer before them.
    passed_on: AtomicBool,
}

/// What to do with the answer to a request.
#[derive(Clone, Copy)]
enum Answer<'a> {
    /// Hand it to the peer through `receive`.
    Deliver,
    /// Keep it for the caller driving the exchange ([`FastPath::round_trip`]).
    Return(&'a Returned),
    /// Keep it from the peer: the replayed initialize of a re-initialization.
    Swallow,
}

impl Shared {
    fn action(&self, verb: &Method, method: &str) -> String {
        format!("{verb} {method} to {}", display_url(&self.url))
    }

    /// The server broke the rules while answering the POST of `method`.
    fn violation(&self, method: &str, violation: ProtocolViolation) -> TransportError {
        TransportError::Protocol {
            action: self.action(&Method::POST, method),
            violation,
        }
    }

    /// A request with the session's headers (the configured ones are the client's defaults).
    fn request(&self, verb: Method) -> (reqwest::RequestBuilder, Option<u64>) {
        let mut builder = self.client.request(verb, self.url.clone());
        let session = lock(&self.session);
        if let Some(version) = &session.protocol_version {
            builder = builder.header(&PROTOCOL_VERSION, version.clone());
        }
        let generation = match &session.id {
            Some(id) => {
                builder = builder.header(&SESSION_ID, id.clone());
                Some(session.generation)
            }
            None => None,
        };
        (builder, generation)
    }

    /// POSTs a message; the generation of the session it was sent in, if it carried one.
    async fn post(
        &self,
        message: &str,
        method: &str,
    ) -> Result<(reqwest::Response, Option<u64>), TransportError> {
        let handshake = method == INITIALIZE || method == INITIALIZED;
        let (replacing, initialized) = {
            let session = lock(&self.session);
            (session.replacing, session.initialize.is_some())
        };
        if !handshake && replacing {
            // The replacement holds this lock until the new session is ready.
            drop(self.reinitializing.lock().await);
        }
        // After `initialize` every message is of the handshake era: none carries the stateless
        // revision's `_meta`, so none is read for it.
        let stateless = if handshake || initialized {
            None
        } else {
            headers::of_request(message, &self.tool_headers, &self.known_meta)
        };
        if stateless.is_some() {
            self.stateless.store(true, Ordering::Relaxed);
        }
        send_authorized(
            self.authorizer.as_deref(),
            &self.secrets,
            || {
                let (mut builder, generation) = match &stateless {
                    // No session: the request carries everything, mirrored in its headers.
                    Some(headers) => {
                        let mut builder = self.client.request(Method::POST, self.url.clone());
                        for (name, value) in headers {
                            builder = builder.header(name, value);
                        }
                        (builder, None)
                    }
                    None => self.request(Method::POST),
                };
                builder = builder
                    .header(ACCEPT, ACCEPT_BOTH)
                    .header(CONTENT_TYPE, "application/json")
                    .body(message.to_owned());
                (builder, generation)
            },
            || self.action(&Method::POST, method),
        )
        .await
    }

    /// GETs the event stream, resuming after `last_event_id` when given.
    async fn get(&self, last_event_id: Option<&str>) -> Result<reqwest::Response, TransportError> {
        let (response, ()) = send_authorized(
            self.authorizer.as_deref(),
            &self.secrets,
            || {
                let (mut builder, _) = self.request(Method::GET);
                builder = builder.header(ACCEPT, "text/event-stream");
                if let Some(id) = last_event_id {
                    builder = builder.header(LAST_EVENT_ID, id);
                }
                (builder, ())
            },
            || self.action(&Method::GET, "the event stream"),
        )
        .await?;
        Ok(response)
    }

    fn spawn_request(self: Arc<Self>, message: String, id: String, method: String) {
        let stop = self.closed.child_token();
        lock(&self.in_flight).insert(id.clone(), stop.clone());
        tokio::spawn(async move {
            let failed = tokio::select! {
                () = stop.cancelled() => None,
                failed = self.settle(&message, &id, &method, Answer::Deliver) => failed,
            };
            lock(&self.in_flight).remove(&id);
            if let Some(message) = failed {
                self.deliver(message).await;
            }
        });
    }

    /// [`FastPath::round_trip`]: the exchange of a request in the caller's task, keeping the
    /// answer for it.
    async fn round_trip(self: Arc<Self>, message: String, id: String, method: String) -> RoundTrip {
        let returned = Returned::default();
        let failed = tokio::select! {
            () = self.closed.cancelled() => return RoundTrip::Received,
            failed = self.settle(&message, &id, &method, Answer::Return(&returned)) => failed,
        };
        match failed {
            Some(Ok(error_answer)) if !returned.passed_on.load(Ordering::Relaxed) => {
                RoundTrip::Answer(error_answer)
            }
            // After what the exchange passed on already, or an error that ends the connection.
            Some(message) => {
                self.deliver(message).await;
                RoundTrip::Received
            }
            None => returned
                .answer
                .into_inner()
                .map_or(RoundTrip::Received, RoundTrip::Answer),
        }
    }

    /// Sends request `message` and reads its answer ([`exchange`](Self::exchange)); on a
    /// failure, what the peer is to get instead: a JSON-RPC error answering the request, or an
    /// error that ends the connection (the handshake failed, credentials are needed, the server
    /// is unreachable).
    async fn settle(
        self: &Arc<Self>,
        message: &str,
        id: &str,
        method: &str,
        answer: Answer<'_>,
    ) -> Option<Result<Bytes, TransportError>> {
        let failure = self.exchange(message, id, method, answer).await.err()?;
        // The era probe failing to authorize ends the connection too: falling back to
        // `initialize` would only authorize again, and ask the user to log in a second time.
        let opening = method == INITIALIZE
            || (method == crate::protocol::methods::SERVER_DISCOVER && failure.is_authorization());
        Some(
            if opening || failure.needs_credentials() || failure.is_unreachable() {
                Err(failure)
            } else {
                tracing::debug!(method, error = %failure, "request failed at the HTTP level");
                Ok(error_response(id, &failure))
            },
        )
    }

    async fn deliver(&self, message: Result<Bytes, TransportError>) {
        self.postbox.deliver(message).await;
    }

    /// Sends a request and reads its answer, re-initializing once if the session expired.
    async fn exchange(
        self: &Arc<Self>,
        message: &str,
        id: &str,
        method: &str,
        answer: Answer<'_>,
    ) -> Result<(), TransportError> {
        let mut reinitialized = false;
        loop {
            let (response, generation) = self.post(message, method).await?;
            let status = response.status();
            if status.is_success() {
                if method == INITIALIZE {
                    self.keep_session_id(&response);
                }
                return if self.read_answer(response, id, method, answer).await? {
                    Ok(())
                } else {
                    Err(self.violation(
                        method,
                        ProtocolViolation::NoAnswer {
                            status: status.as_u16(),
                        },
                    ))
                };
            }
            let failure = self.failure(response, method).await?;
            if self
                .renew_expired(&failure, generation, &mut reinitialized, method)
                .await?
            {
                continue;
            }
            if answers(&failure.body, id) {
                // The server put a JSON-RPC error of its own in the error response; it may
                // quote the request as much as an error body does.
                let error = scrub_json(failure.body, &self.secrets);
                self.take_message(error, id, method, answer).await;
                return Ok(());
            }
            return Err(failure.into_error(self.action(&Method::POST, method), &self.secrets));
        }
    }

    /// Reads an error response: 401 and 403 are final at once, anything else is read for a
    /// JSON-RPC error or a word on the session.
    async fn failure(
        &self,
        mut response: reqwest::Response,
        method: &str,
    ) -> Result<Failure, TransportError> {
        if let Some(refused) = unauthorized(
            &self.action(&Method::POST, method),
            &response,
            &self.secrets,
        ) {
            return Err(refused);
        }
        let status = response.status();
        let body = read_body(&mut response, ERROR_BODY_LIMIT, method)
            .await
            .unwrap_or_default();
        Ok(Failure { status, body })
    }

    fn keep_session_id(&self, response: &reqwest::Response) {
        let id = response.headers().get(&SESSION_ID).cloned();
        let mut session = lock(&self.session);
        if let Some(mut id) = id {
            id.set_sensitive(true);
            session.id = Some(id);
        }
    }

    /// Reads a successful answer; true once the response to request `id` arrived.
    async fn read_answer(
        self: &Arc<Self>,
        mut response: reqwest::Response,
        id: &str,
        method: &str,
        answer: Answer<'_>,
    ) -> Result<bool, TransportError> {
        if response.status() == StatusCode::ACCEPTED {
            return Ok(false);
        }
        match BodyKind::of(&response) {
            BodyKind::EventStream => self.read_stream(response, id, method, answer).await,
            kind => {
                let body = read_body(&mut response, self.max_message_bytes, method).await?;
                if body.trim_ascii().is_empty() {
                    return Ok(false);
                }
                if kind != BodyKind::Json {
                    return Err(self.violation(
                        method,
                        ProtocolViolation::UnexpectedBody {
                            body: excerpt(&String::from_utf8_lossy(&body), &self.secrets),
                        },
                    ));
                }
                // A JSON body is the whole answer (one response, or a batch holding it).
                self.take_message(body, id, method, answer).await;
                Ok(true)
            }
        }
    }

    /// Hands one incoming message on; true when it is the response to request `id`.
    async fn take_message(
        &self,
        message: Bytes,
        id: &str,
        method: &str,
        answer: Answer<'_>,
    ) -> bool {
        let is_answer = answers(&message, id);
        if is_answer && method == INITIALIZE {
            self.keep_protocol_version(&message);
        }
        match answer {
            Answer::Swallow if is_answer => {}
            Answer::Return(kept) if is_answer && !kept.passed_on.load(Ordering::Relaxed) => {
                let _ = kept.answer.set(message);
            }
            Answer::Return(kept) => {
                kept.passed_on.store(true, Ordering::Relaxed);
                self.deliver(Ok(message)).await;
            }
            _ => self.deliver(Ok(message)).await,
        }
        is_answer
    }

    fn keep_protocol_version(&self, answer: &[u8]) {
        #[derive(Deserialize)]
        struct Initialized {
            result: InitializedResult,
        }
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct InitializedResult {
            protocol_version: String,
        }
        if let Ok(initialized) = serde_json::from_slice::<Initialized>(answer)
            && let Ok(version) = HeaderValue::from_str(&initialized.result.protocol_version)
        {
            lock(&self.session).protocol_version = Some(version);
        }
    }

    /// Reads an SSE answer until the response to `id`, resuming a stream that ends early.
    async fn read_stream(
        self: &Arc<Self>,
        mut response: reqwest::Response,
        id: &str,
        method: &str,
        answer: Answer<'_>,
    ) -> Result<bool, TransportError> {
        let mut decoder = SseDecoder::new(self.max_message_bytes);
        let mut retry = DEFAULT_RETRY;
        let mut resumptions = 0;
        loop {
            let answered = read_messages(&mut response, &mut decoder, |message| {
                self.take_message(message, id, method, answer)
            })
            .await?;
            if answered {
                self.finish_stream(response, decoder).await;
                return Ok(true);
            }
            retry = decoder.retry().unwrap_or(retry);
            // The stateless revision has no resumption: the request is lost with its stream.
            let resumable = !self.stateless.load(Ordering::Relaxed);
            let Some(last_event_id) = decoder
                .last_event_id()
                .filter(|_| resumable)
                .map(str::to_owned)
            else {
                return Err(self.violation(method, ProtocolViolation::StreamEndedUnresumable));
            };
            if resumptions == MAX_STREAM_RESUMPTIONS {
                return Err(self.violation(
                    method,
                    ProtocolViolation::StreamEndedTooOften {
                        ends: resumptions + 1,
                    },
                ));
            }
            resumptions += 1;
            tracing::debug!(
                method,
                last_event_id = %excerpt(&last_event_id, &self.secrets),
                ?retry,
                "resuming the answer's event stream"
            );
            tokio::time::sleep(retry).await;
            response = self.get(Some(&last_event_id)).await?;
            if !response.status().is_success() || BodyKind::of(&response) != BodyKind::EventStream {
                let failure = self.failure(response, method).await?;
                return Err(failure.into_error(
                    format!(
                        "{} (resuming the answer to {method})",
                        self.action(&Method::GET, "the event stream")
                    ),
                    &self.secrets,
                ));
            }
            decoder = SseDecoder::resuming(self.max_message_bytes, Some(last_event_id));
        }
    }

    /// Reads what follows the answer on its event stream, to the stream's end, so that the
    /// connection goes back to the pool: a response dropped before its end closes its
    /// connection, and the next request would open (over TLS, handshake) a new one. Most
    /// servers end the stream right behind the answer, often in the same read, and hyper hands
    /// that end on once its connection task has had a turn: so the end is looked for now and
    /// after one yield, without waiting, and no task is spawned for such a stream (a task per
    /// answer cost ~5% of a pinned SSE round trip). When the end is still on its way, a task
    /// waits for it, handing on any message that comes first, for at most [`STREAM_END_GRACE`]
    /// and never past the transport's close.
    async fn finish_stream(
        self: &Arc<Self>,
        mut response: reqwest::Response,
        mut decoder: SseDecoder,
    ) {
        if !decoder.has_unread_bytes() {
            // A look now, and one after the connection's task had its turn: that task reads an
            // end that came with the answer (the usual case) once the body is polled.
            let mut next = chunk_now(&mut response);
            if next.is_pending() {
                tokio::task::yield_now().await;
                next = chunk_now(&mut response);
            }
            match next {
                Poll::Ready(None) => return,
                Poll::Ready(Some(chunk)) => decoder.push(&chunk),
                Poll::Pending => {}
            }
        }
        let shared = Arc::clone(self);
        tokio::spawn(async move {
            let rest = shared.read_server_stream(response, &mut decoder);
            tokio::select! {
                () = shared.closed.cancelled() => {}
                _ = tokio::time::timeout(STREAM_END_GRACE, rest) => {}
            }
        });
    }

    /// POSTs a notification or a response and waits for the server to take it.
    async fn post_one_way(
        self: &Arc<Self>,
        message: &str,
        method: &str,
    ) -> Result<(), TransportError> {
        let mut reinitialized = false;
        loop {
            let (mut response, generation) = match self.post(message, method).await {
                Ok(sent) => sent,
                Err(error) => {
                    tracing::warn!(method, %error, "could not deliver a message to the server");
                    return Ok(());
                }
            };
            if response.status().is_success() {
                // Drain a body a server may send anyway, so the connection can be reused.
                let _ = read_body(&mut response, ERROR_BODY_LIMIT, method).await;
                return Ok(());
            }
            let failure = self.failure(response, method).await?;
            if self
                .renew_expired(&failure, generation, &mut reinitialized, method)
                .await?
            {
                continue;
            }
            let error = failure.into_error(self.action(&Method::POST, method), &self.secrets);
            tracing::warn!(method, %error, "the server refused a message");
            return Ok(());
        }
    }

    fn stop_cancelled_request(&self, message: &str) {
        #[derive(Deserialize)]
        struct Cancelled<'a> {
            #[serde(borrow)]
            params: CancelledParams<'a>,
        }
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct CancelledParams<'a> {
            #[serde(borrow)]
            request_id: &'a RawValue,
        }
        if let Ok(cancelled) = serde_json::from_str::<Cancelled<'_>>(message)
            && let Some(stop) = lock(&self.in_flight).remove(cancelled.params.request_id.get())
        {
            stop.cancel();
        }
    }
}

/// An error status and the start of its body.
struct Failure {
    status: StatusCode,
    body: Bytes,
}

impl Failure {
    /// 404 to a request with a session id, or a 400 that speaks of the session.
    fn session_expired(&self) -> bool {
        self.status == StatusCode::NOT_FOUND
            || (self.status == StatusCode::BAD_REQUEST
                && String::from_utf8_lossy(&self.body)
                    .to_ascii_lowercase()
                    .contains("session"))
    }

    fn into_error(self, action: String, secrets: &Secrets) -> TransportError {
        TransportError::HttpStatus {
            action,
            status: self.status.as_u16(),
            body: excerpt(&String::from_utf8_lossy(&self.body), secrets),
        }
    }
}

/// A JSON-RPC error a server sent in an error response, with every string in it scrubbed of
/// the secrets (its message and data are the server's text, like an error body). Parsed and
/// written again rather than searched as bytes: a secret with a `"` in it is escaped there.
fn scrub_json(body: Bytes, secrets: &Secrets) -> Bytes {
    fn scrub_strings(value: &mut serde_json::Value, secrets: &Secrets) {
        match value {
            serde_json::Value::String(text) => {
                if let std::borrow::Cow::Owned(scrubbed) = secrets.scrub(text) {
                    *text = scrubbed;
                }
            }
            serde_json::Value::Array(items) => {
                items
                    .iter_mut()
                    .for_each(|item| scrub_strings(item, secrets));
            }
            serde_json::Value::Object(fields) => {
                fields
                    .values_mut()
                    .for_each(|field| scrub_strings(field, secrets));
            }
            _ => {}
        }
    }
    if secrets.is_empty() {
        return body;
    }
    let Ok(mut error) = serde_json::from_slice::<serde_json::Value>(&body) else {
        return body;
    };
    scrub_strings(&mut error, secrets);
    serde_json::to_vec(&error).map_or(body, Bytes::from)
}
