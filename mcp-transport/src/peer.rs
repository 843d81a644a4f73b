//! The JSON-RPC peer: one per connection, above any [`Transport`].
//!
//! Two owned tasks run per peer. The writer drains every message queued since its last write and
//! hands them to the transport in one call, so many requests in flight cost few writes. The reader
//! receives messages, hands each response to the request waiting for it (as raw bytes, decoded by
//! the waiting request as the type it expects), answers the server's own requests, routes
//! progress to the request it belongs to and passes other notifications to subscribers. When the
//! transport dies the reader records why and fails every pending request at once with that reason.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use bytes::Bytes;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use tokio::sync::{Notify, broadcast, mpsc, oneshot, watch};
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use crate::jsonrpc::{
    ErrorObject, IncomingEnvelope, OutgoingNotification, OutgoingRequest, OutgoingResponse,
    ServerNotification, TypedResponse, error_codes,
};
use crate::protocol::{
    CancelledNotificationParams, EmptyResult, ListRootsResult, ProgressNotificationParams,
    ProgressToken, Root, methods,
};
use crate::transport::{CloseReason, Transport, TransportError};

/// How many server notifications a slow subscriber may lag behind before it misses some.
const NOTIFICATION_BUFFER: usize = 256;
/// The most messages handed to the transport in one write.
const MAX_WRITE_BATCH: usize = 512;
/// How long a failed write waits for the reader to report a better reason (the exit status).
const WRITE_FAILURE_GRACE: Duration = Duration::from_millis(500);

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
    /// The server's answer did not have the expected shape.
    #[error("the server's answer could not be read: {0}")]
    InvalidResponse(String),
    /// The request could not be serialized (arguments that are not valid JSON values).
    #[error("the request could not be serialized: {0}")]
    Encode(#[source] serde_json::Error),
}

/// Called with each `notifications/progress` of a request, in the order they arrive.
pub type ProgressCallback = Arc<dyn Fn(ProgressNotificationParams) + Send + Sync>;

/// Per-request options.
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct RequestOptions {
    /// Give up (and tell the server) after this long without an answer. `None` uses the
    /// peer's default ([`PeerOptions::default_timeout`]).
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

/// Settings of a peer.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct PeerOptions {
    /// Roots answered to `roots/list`; `None` answers it with -32601 (method not found).
    pub roots: Option<Vec<Root>>,
    /// The timeout of requests whose options set none. `None`: such requests wait forever.
    pub default_timeout: Option<Duration>,
}

/// The JSON-RPC side of one connection. Dropping it stops its tasks and drops the transport
/// (which, for stdio, kills the server's process group).
pub struct Peer {
    shared: Arc<Shared>,
    transport: Arc<dyn Transport>,
    writer: JoinHandle<()>,
    reader: JoinHandle<()>,
    sweeper: JoinHandle<()>,
}

struct Shared {
    server: Arc<str>,
    next_id: AtomicU64,
    state: Mutex<State>,
    outbound: mpsc::UnboundedSender<String>,
    /// Messages handed to the writer task and not yet written. A caller may write directly
    /// only while this is zero, so no message overtakes one queued before it.
    queued: AtomicUsize,
    closed: watch::Sender<Option<CloseReason>>,
    notifications: broadcast::Sender<ServerNotification>,
    roots: Option<Vec<Root>>,
    default_timeout: Option<Duration>,
    /// Wakes the timeout sweeper when a request's deadline is earlier than the one it sleeps to.
    sweeper_wake: Notify,
}

#[derive(Default)]
struct State {
    pending: HashMap<u64, Pending>,
    closed: Option<CloseReason>,
    /// The deadline the timeout sweeper sleeps until; read and written under this lock so a new
    /// request never slips between the sweeper's scan and its sleep.
    sweeper_target: Option<Instant>,
}

struct Pending {
    response: oneshot::Sender<Result<Bytes, Unanswered>>,
    progress: Option<mpsc::UnboundedSender<ProgressNotificationParams>>,
    deadline: Option<Instant>,
    /// False for `initialize`, which is never cancelled.
    cancellable: bool,
}

/// Why a request ended without an answer.
enum Unanswered {
    Closed(CloseReason),
    TimedOut,
}

impl Peer {
    /// Starts a peer over a transport. `server` names the server in logs.
    ///
    /// Must be called inside a tokio runtime: it spawns the reader and writer tasks.
    pub fn start(server: &str, transport: Box<dyn Transport>, options: PeerOptions) -> Self {
        let transport: Arc<dyn Transport> = Arc::from(transport);
        let (outbound, outbound_rx) = mpsc::unbounded_channel();
        let shared = Arc::new(Shared {
            server: Arc::from(server),
            next_id: AtomicU64::new(1),
            state: Mutex::new(State::default()),
            outbound,
            queued: AtomicUsize::new(0),
            closed: watch::Sender::new(None),
            notifications: broadcast::Sender::new(NOTIFICATION_BUFFER),
            roots: options.roots,
            default_timeout: options.default_timeout,
            sweeper_wake: Notify::new(),
        });
        let span = tracing::info_span!("mcp_server", server = %server);
        let writer = tokio::spawn(
            write_loop(Arc::clone(&shared), Arc::clone(&transport), outbound_rx)
                .instrument(span.clone()),
        );
        let reader = tokio::spawn(
            read_loop(Arc::clone(&shared), Arc::clone(&transport)).instrument(span.clone()),
        );
        let sweeper = tokio::spawn(sweep_timeouts(Arc::clone(&shared)).instrument(span));
        Self {
            shared,
            transport,
            writer,
            reader,
            sweeper,
        }
    }

    /// The server's name, as given to [`Peer::start`].
    pub fn server_name(&self) -> &str {
        &self.shared.server
    }

    /// Sends a request and waits for its answer, decoded as `R`.
    ///
    /// On timeout or cancellation (including dropping this future) the server is sent
    /// `notifications/cancelled`, except for `initialize`, which must never be cancelled.
    pub async fn request<P, R>(
        &self,
        method: &str,
        params: Option<P>,
        options: &RequestOptions,
    ) -> Result<R, RpcError>
    where
        P: Serialize,
        R: DeserializeOwned,
    {
        let shared = &*self.shared;
        let id = shared.next_id.fetch_add(1, Ordering::Relaxed);
        let (response_tx, mut response_rx) = oneshot::channel();
        let (progress_tx, mut progress_rx) = match options.on_progress {
            Some(_) => {
                let (tx, rx) = mpsc::unbounded_channel();
                (Some(tx), Some(rx))
            }
            None => (None, None),
        };

        let message = if progress_tx.is_some() {
            serialize_request(
                id,
                method,
                params.map(|params| WithProgressToken::new(params, id)),
            )
        } else {
            serialize_request(id, method, params)
        }?;

        // Timeouts are enforced by the peer's sweeper task against the deadline stored with the
        // request: no timer per request.
        let timeout = options.timeout.or(shared.default_timeout);
        let deadlines = (timeout.is_some() || options.max_total_timeout.is_some()).then(|| {
            let started = Instant::now();
            Deadlines {
                timeout,
                hard: options.max_total_timeout.map(|max| started + max),
                started,
            }
        });
        let mut deadline = deadlines.as_ref().and_then(|d| d.next(d.started));
        let cancellable = method != methods::INITIALIZE;
        let wake_sweeper = {
            let mut state = shared.lock_state();
            if let Some(reason) = &state.closed {
                return Err(RpcError::ConnectionClosed(reason.clone()));
            }
            state.pending.insert(
                id,
                Pending {
                    response: response_tx,
                    progress: progress_tx,
                    deadline,
                    cancellable,
                },
            );
            deadline
                .is_some_and(|deadline| state.sweeper_target.is_none_or(|target| deadline < target))
        };
        if wake_sweeper {
            shared.sweeper_wake.notify_one();
        }
        let mut in_flight = InFlight {
            shared,
            id,
            cancellable,
            finished: false,
        };
        self.send(message);

        let cancelled = cancelled(options.cancel.as_ref());
        tokio::pin!(cancelled);
        let outcome = loop {
            tokio::select! {
                biased;
                response = &mut response_rx => {
                    in_flight.finished = true;
                    break response;
                }
                Some(progress) = recv_progress(&mut progress_rx) => {
                    if let Some(callback) = &options.on_progress {
                        callback(progress);
                    }
                    let reset = deadlines.as_ref().filter(|_| options.reset_timeout_on_progress);
                    if let Some(deadlines) = reset {
                        deadline = deadlines.next(Instant::now());
                        if let Some(pending) = shared.lock_state().pending.get_mut(&id) {
                            pending.deadline = deadline;
                        }
                    }
                }
                () = &mut cancelled => {
                    return Err(RpcError::Cancelled);
                }
            }
        };

        // Progress sent before the response may still be queued: deliver it first, in order.
        if let (Some(rx), Some(callback)) = (&mut progress_rx, &options.on_progress) {
            while let Ok(progress) = rx.try_recv() {
                callback(progress);
            }
        }

        let bytes = match outcome {
            Ok(Ok(bytes)) => bytes,
            Ok(Err(Unanswered::Closed(reason))) => return Err(RpcError::ConnectionClosed(reason)),
            Ok(Err(Unanswered::TimedOut)) => {
                let hit_hard_limit = deadlines
                    .as_ref()
                    .is_some_and(|d| d.hard.is_some() && deadline == d.hard);
                let limit = if hit_hard_limit {
                    options.max_total_timeout
                } else {
                    timeout
                };
                return Err(RpcError::Timeout(limit.unwrap_or_default()));
            }
            // The reader dropped the sender without answering: the connection went away.
            Err(_) => return Err(self.closed_error()),
        };
        decode_response(&bytes)
    }

    /// Sends a notification.
    pub fn notify<P: Serialize>(&self, method: &str, params: Option<P>) -> Result<(), RpcError> {
        let message = serde_json::to_string(&OutgoingNotification {
            jsonrpc: "2.0",
            method,
            params,
        })
        .map_err(RpcError::Encode)?;
        if let Some(reason) = self.close_reason() {
            return Err(RpcError::ConnectionClosed(reason));
        }
        self.send(message);
        Ok(())
    }

    /// Receives the server's notifications from now on (`notifications/tools/list_changed`,
    /// `notifications/message`, …). Progress goes to the request it belongs to instead.
    pub fn subscribe(&self) -> broadcast::Receiver<ServerNotification> {
        self.shared.notifications.subscribe()
    }

    /// Why the connection is closed, or `None` while it is open.
    pub fn close_reason(&self) -> Option<CloseReason> {
        self.shared.lock_state().closed.clone()
    }

    /// Resolves as soon as the connection is closed, with the reason.
    pub async fn closed(&self) -> CloseReason {
        let mut watcher = self.shared.closed.subscribe();
        loop {
            if let Some(reason) = watcher.borrow_and_update().clone() {
                return reason;
            }
            if watcher.changed().await.is_err() {
                return CloseReason::new(TransportError::ClosedByClient);
            }
        }
    }

    /// Closes the connection: pending requests fail with "closed by the client", then the
    /// transport shuts down (for stdio: stdin closed, grace period, SIGTERM, SIGKILL).
    pub async fn close(&self) -> Result<(), TransportError> {
        self.shared
            .mark_closed(CloseReason::new(TransportError::ClosedByClient));
        self.writer.abort();
        self.sweeper.abort();
        let result = self.transport.close().await;
        self.reader.abort();
        result
    }

    /// Writes a message straight from the caller's task when the transport can take it at once
    /// and nothing is queued ahead of it; otherwise queues it for the writer task.
    fn send(&self, message: String) {
        if self.shared.queued.load(Ordering::Acquire) == 0 {
            match self.transport.try_send_now(&message) {
                Ok(true) => return,
                Ok(false) => {}
                // The writer task meets the same failure and reports it properly.
                Err(error) => tracing::debug!(%error, "direct write failed; queueing"),
            }
        }
        self.shared.enqueue(message);
    }

    fn closed_error(&self) -> RpcError {
        RpcError::ConnectionClosed(
            self.close_reason()
                .unwrap_or_else(|| CloseReason::new(TransportError::ClosedByClient)),
        )
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        self.writer.abort();
        self.reader.abort();
        self.sweeper.abort();
    }
}

impl std::fmt::Debug for Peer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Peer")
            .field("server", &self.shared.server)
            .field("closed", &self.close_reason())
            .finish_non_exhaustive()
    }
}

/// The limits of one request: a timeout (restarted by progress when asked) under a hard limit.
struct Deadlines {
    timeout: Option<Duration>,
    hard: Option<Instant>,
    started: Instant,
}

impl Deadlines {
    /// The deadline when the timeout (re)starts at `now`.
    fn next(&self, now: Instant) -> Option<Instant> {
        match (self.timeout.map(|timeout| now + timeout), self.hard) {
            (Some(soft), Some(hard)) => Some(soft.min(hard)),
            (soft, hard) => soft.or(hard),
        }
    }
}

async fn cancelled(token: Option<&CancellationToken>) {
    match token {
        Some(token) => token.cancelled().await,
        None => std::future::pending().await,
    }
}

async fn recv_progress(
    rx: &mut Option<mpsc::UnboundedReceiver<ProgressNotificationParams>>,
) -> Option<ProgressNotificationParams> {
    match rx {
        Some(rx) => rx.recv().await,
        None => std::future::pending().await,
    }
}

fn serialize_request<P: Serialize>(
    id: u64,
    method: &str,
    params: Option<P>,
) -> Result<String, RpcError> {
    serde_json::to_string(&OutgoingRequest {
        jsonrpc: "2.0",
        id,
        method,
        params,
    })
    .map_err(RpcError::Encode)
}

fn decode_response<R: DeserializeOwned>(bytes: &[u8]) -> Result<R, RpcError> {
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

/// Request params with `_meta.progressToken` added.
#[derive(Serialize)]
struct WithProgressToken<P> {
    #[serde(flatten)]
    params: P,
    #[serde(rename = "_meta")]
    meta: ProgressMeta,
}

#[derive(Serialize)]
struct ProgressMeta {
    #[serde(rename = "progressToken")]
    progress_token: u64,
}

impl<P> WithProgressToken<P> {
    fn new(params: P, id: u64) -> Self {
        Self {
            params,
            meta: ProgressMeta { progress_token: id },
        }
    }
}

/// Removes a request from the pending table when its future ends without an answer (timeout,
/// cancellation, or the future being dropped) and tells the server.
struct InFlight<'a> {
    shared: &'a Shared,
    id: u64,
    cancellable: bool,
    finished: bool,
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        if self.finished {
            return;
        }
        let was_pending = {
            let mut state = self.shared.lock_state();
            state.pending.remove(&self.id).is_some() && state.closed.is_none()
        };
        if was_pending && self.cancellable {
            self.shared
                .send_cancelled(self.id, "cancelled by the client");
        }
    }
}

impl Shared {
    fn lock_state(&self) -> MutexGuard<'_, State> {
        // A panic while holding this lock cannot leave the table inconsistent (every update is
        // a single insert or remove), so a poisoned lock is still usable.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn enqueue(&self, message: String) {
        self.queued.fetch_add(1, Ordering::AcqRel);
        // Fails only once the writer is gone, which happens after the connection closed; the
        // request then fails with the close reason.
        if self.outbound.send(message).is_err() {
            self.queued.fetch_sub(1, Ordering::AcqRel);
        }
    }

    /// Tells the server to stop working on one of our requests.
    fn send_cancelled(&self, id: u64, reason: &str) {
        tracing::debug!(id, reason, "cancelling request");
        let params = CancelledNotificationParams {
            request_id: crate::jsonrpc::RequestId::Number(i64::try_from(id).unwrap_or(i64::MAX)),
            reason: Some(reason.to_owned()),
        };
        match serde_json::to_string(&OutgoingNotification {
            jsonrpc: "2.0",
            method: methods::CANCELLED,
            params: Some(params),
        }) {
            Ok(message) => self.enqueue(message),
            Err(error) => tracing::warn!(%error, "could not serialize a cancellation"),
        }
    }

    /// Fails every request past its deadline (telling the server) and returns the earliest
    /// deadline still ahead, which becomes the sweeper's target.
    fn expire_overdue(&self, now: Instant) -> Option<Instant> {
        let (expired, next) = {
            let mut state = self.lock_state();
            let mut next: Option<Instant> = None;
            let mut overdue = Vec::new();
            for (id, pending) in &state.pending {
                match pending.deadline {
                    Some(deadline) if deadline <= now => overdue.push(*id),
                    Some(deadline) => {
                        next = Some(next.map_or(deadline, |next| next.min(deadline)));
                    }
                    None => {}
                }
            }
            let expired: Vec<(u64, Pending)> = overdue
                .into_iter()
                .filter_map(|id| state.pending.remove(&id).map(|pending| (id, pending)))
                .collect();
            state.sweeper_target = next;
            (expired, next)
        };
        for (id, pending) in expired {
            if pending.cancellable {
                self.send_cancelled(id, "timed out");
            }
            let _ = pending.response.send(Err(Unanswered::TimedOut));
        }
        next
    }

    /// Records why the connection closed (first reason wins) and fails every pending request.
    fn mark_closed(&self, reason: CloseReason) {
        let pending = {
            let mut state = self.lock_state();
            if state.closed.is_some() {
                return;
            }
            state.closed = Some(reason.clone());
            std::mem::take(&mut state.pending)
        };
        if !reason.is_closed_by_client() {
            // Every caller hears why (pending requests fail with it, `closed()` resolves with
            // it); whoever owns the connection reports it.
            tracing::debug!(reason = %reason, "connection to MCP server closed");
        }
        for (_, request) in pending {
            let _ = request
                .response
                .send(Err(Unanswered::Closed(reason.clone())));
        }
        self.closed.send_replace(Some(reason));
    }

    fn dispatch(&self, message: &Bytes) {
        let first = message.iter().find(|byte| !byte.is_ascii_whitespace());
        if first == Some(&b'[') {
            // A JSON-RPC batch (allowed by 2025-03-26): dispatch each member on its own.
            match serde_json::from_slice::<Vec<&RawValue>>(message) {
                Ok(members) => {
                    for member in members {
                        self.dispatch_one(&Bytes::copy_from_slice(member.get().as_bytes()));
                    }
                }
                Err(error) => skip_garbage(message, &error),
            }
        } else {
            self.dispatch_one(message);
        }
    }

    fn dispatch_one(&self, message: &Bytes) {
        let envelope: IncomingEnvelope<'_> = match serde_json::from_slice(message) {
            Ok(envelope) => envelope,
            Err(error) => return skip_garbage(message, &error),
        };
        match (envelope.method.as_deref(), envelope.id) {
            (None, Some(id)) => self.deliver_response(id, message.clone()),
            (Some(method), Some(id)) => self.answer_server_request(method, id),
            (Some(method), None) => self.route_notification(method, envelope.params),
            (None, None) => skip_garbage(message, &"neither a method nor an id"),
        }
    }

    fn deliver_response(&self, id: &RawValue, message: Bytes) {
        let Ok(id) = id.get().parse::<u64>() else {
            tracing::warn!(
                id = id.get(),
                "ignoring a response to an id this client never used"
            );
            return;
        };
        let pending = self.lock_state().pending.remove(&id);
        match pending {
            Some(pending) => {
                let _ = pending.response.send(Ok(message));
            }
            None => tracing::debug!(id, "ignoring a late response to a finished request"),
        }
    }

    fn answer_server_request(&self, method: &str, id: &RawValue) {
        tracing::debug!(method, id = id.get(), "server request");
        let message = match method {
            methods::PING => respond(id, Ok(EmptyResult {})),
            methods::ROOTS_LIST => match &self.roots {
                Some(roots) => respond(
                    id,
                    Ok(ListRootsResult {
                        roots: roots.clone(),
                    }),
                ),
                None => method_not_found(id, method),
            },
            _ => method_not_found(id, method),
        };
        match message {
            Ok(message) => self.enqueue(message),
            Err(error) => tracing::warn!(%error, method, "could not answer a server request"),
        }
    }

    fn route_notification(&self, method: &str, params: Option<&RawValue>) {
        match method {
            methods::PROGRESS => {
                let Some(progress) = params.and_then(|params| {
                    serde_json::from_str::<ProgressNotificationParams>(params.get()).ok()
                }) else {
                    tracing::warn!("ignoring a malformed progress notification");
                    return;
                };
                let ProgressToken::Number(token) = progress.progress_token else {
                    return;
                };
                let Ok(id) = u64::try_from(token) else { return };
                let state = self.lock_state();
                if let Some(sender) = state.pending.get(&id).and_then(|p| p.progress.as_ref()) {
                    let _ = sender.send(progress);
                }
            }
            methods::CANCELLED => {
                tracing::debug!("the server cancelled one of its own requests");
            }
            _ => {
                tracing::debug!(method, "server notification");
                if self.notifications.receiver_count() == 0 {
                    return;
                }
                let params = params.and_then(|params| serde_json::from_str(params.get()).ok());
                let _ = self.notifications.send(ServerNotification {
                    method: method.to_owned(),
                    params,
                });
            }
        }
    }
}

fn respond<R: Serialize>(
    id: &RawValue,
    result: Result<R, ErrorObject>,
) -> serde_json::Result<String> {
    let (result, error) = match result {
        Ok(result) => (Some(result), None),
        Err(error) => (None, Some(error)),
    };
    serde_json::to_string(&OutgoingResponse {
        jsonrpc: "2.0",
        id,
        result,
        error,
    })
}

fn method_not_found(id: &RawValue, method: &str) -> serde_json::Result<String> {
    respond::<EmptyResult>(
        id,
        Err(ErrorObject::new(
            error_codes::METHOD_NOT_FOUND,
            format!("Method not found: {method}"),
        )),
    )
}

fn skip_garbage(message: &[u8], why: &dyn std::fmt::Display) {
    const PREVIEW: usize = 120;
    let preview = String::from_utf8_lossy(&message[..message.len().min(PREVIEW)]);
    tracing::warn!(
        line = %preview,
        bytes = message.len(),
        "skipping output that is not a JSON-RPC message: {why}"
    );
}

async fn write_loop(
    shared: Arc<Shared>,
    transport: Arc<dyn Transport>,
    mut outbound: mpsc::UnboundedReceiver<String>,
) {
    let mut batch = Vec::with_capacity(16);
    loop {
        if outbound.recv_many(&mut batch, MAX_WRITE_BATCH).await == 0 {
            return;
        }
        if let Err(error) = transport.send(&batch).await {
            // A dead server usually shows up here first as a broken pipe; the reader will see
            // the exit soon after and report the status and stderr, which say much more.
            let mut closed = shared.closed.subscribe();
            let reader_reported =
                tokio::time::timeout(WRITE_FAILURE_GRACE, closed.wait_for(Option::is_some)).await;
            if !matches!(reader_reported, Ok(Ok(_))) {
                shared.mark_closed(CloseReason::new(error));
            }
            return;
        }
        shared.queued.fetch_sub(batch.len(), Ordering::AcqRel);
        batch.clear();
    }
}

/// Enforces request deadlines: sleeps until the earliest one, or until a request with an
/// earlier deadline arrives.
async fn sweep_timeouts(shared: Arc<Shared>) {
    loop {
        match shared.expire_overdue(Instant::now()) {
            Some(deadline) => {
                tokio::select! {
                    () = tokio::time::sleep_until(deadline) => {}
                    () = shared.sweeper_wake.notified() => {}
                }
            }
            None => shared.sweeper_wake.notified().await,
        }
    }
}

async fn read_loop(shared: Arc<Shared>, transport: Arc<dyn Transport>) {
    loop {
        match transport.receive().await {
            Ok(message) => shared.dispatch(&message),
            Err(error) => {
                shared.mark_closed(CloseReason::new(error));
                return;
            }
        }
    }
}
