//! The JSON-RPC peer: one per connection, above any [`Transport`].
//!
//! Three owned tasks run per peer, aborted when it is closed or dropped. The writer drains every
//! message queued since its last write and hands them to the transport in one call, so many
//! requests in flight cost few writes. The reader receives messages, hands each response to the
//! request waiting for it (as raw bytes, decoded by the waiting request as the type it expects),
//! answers the server's own requests, routes progress to the request it belongs to and passes
//! other notifications to subscribers; when the transport dies it records why and fails every
//! pending request at once with that reason. The sweeper enforces the requests' timeouts against
//! the deadline stored with each: no timer per request. A server request that a handler answers
//! (elicitation, sampling) gets a task of its own, which ends with the connection.
//!
//! The built-in transports let a request skip those tasks (their shortcuts, `crate::fast_path`):
//! a lone request or a notification with nothing queued before it is handed over from the
//! caller's task (stdio writes it when the pipe takes it at once; Streamable HTTP starts its
//! POST), a Streamable HTTP request's POST is made and its answer read by the task awaiting it,
//! and a request alone in flight on a stdio connection does the reader's work itself until its
//! answer comes, so the answer wakes it directly (see `reading`). A plugin's transport is driven
//! through the tasks alone.
//!
//! This file holds the peer and a request's life in it; `request` holds a request's options,
//! errors and deadlines, `tasks` the writer, the dispatch of each incoming message and the
//! timeout sweeper, `reading` the reader task and when a request reads its own answer instead.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::task::Waker;
use std::time::Duration;

use bytes::Bytes;
use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio::sync::{Notify, broadcast, mpsc, oneshot, watch};
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tracing::Instrument;

use crate::fast_path::{Link, RoundTrip};
use crate::handlers::{ElicitationHandler, SamplingHandler};
use crate::jsonrpc::{OutgoingNotification, ServerNotification};
use crate::protocol::{JsonObject, Root, methods};
use crate::secrets::Secrets;
use crate::transport::{CloseReason, Transport, TransportError};

mod reading;
mod request;
mod tasks;

use reading::{READER_TASK, read_loop};
use request::{Deadlines, RequestMeta, decode_response, finish_round_trip, serialize_request};
pub use request::{ProgressCallback, RequestOptions, RpcError, TaskCallback};
pub(crate) use request::{cancelled, hand_progress};
use tasks::{sweep_timeouts, write_loop};

/// How many server notifications a slow subscriber may lag behind before it misses some. The
/// buffer (about 30 KiB) is only allocated once someone subscribes.
const NOTIFICATION_BUFFER: usize = 256;
/// The most messages handed to the transport in one write.
const MAX_WRITE_BATCH: usize = 512;
/// How long a failed write waits for the reader to report a better reason (the exit status).
const WRITE_FAILURE_GRACE: Duration = Duration::from_millis(500);

/// Settings of a peer.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct PeerOptions {
    /// Roots answered to `roots/list`; `None` answers it with -32601 (method not found).
    pub roots: Option<Vec<Root>>,
    /// The timeout of requests whose options set none. `None`: such requests wait forever.
    pub default_timeout: Option<Duration>,
    /// Answers `elicitation/create`; `None` answers it with -32601.
    pub elicitation: Option<Arc<dyn ElicitationHandler>>,
    /// Answers `sampling/createMessage`; `None` answers it with -32601.
    pub sampling: Option<Arc<dyn SamplingHandler>>,
    /// The credentials the client sends this server (the transport's own set, see
    /// [`Secrets`]): hidden from the JSON-RPC error messages and the log messages the server
    /// sends, which the peer passes on to callers and to `tracing`.
    pub secrets: Secrets,
}

/// The JSON-RPC side of one connection. Dropping it stops its tasks and drops the transport
/// (which, for stdio, kills the server's process group).
pub struct Peer {
    shared: Arc<Shared>,
    /// The transport, and its shortcuts when it is one of this crate's own.
    link: Link,
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
    /// Created by the first [`Peer::subscribe`]: a client nobody listens to pays nothing.
    notifications: OnceLock<broadcast::Sender<ServerNotification>>,
    /// Replaced by [`Peer::set_roots`] when the client's roots change.
    roots: std::sync::RwLock<Option<Vec<Root>>>,
    elicitation: Option<Arc<dyn ElicitationHandler>>,
    sampling: Option<Arc<dyn SamplingHandler>>,
    /// Scrubbed from the server's error and log messages.
    secrets: Secrets,
    /// Lines of output that were not JSON-RPC messages (reported once, then counted).
    skipped_lines: AtomicU64,
    /// The stateless revision's `_meta` fields, added to every request once set; each value
    /// serialized once, so a request copies it.
    request_meta: OnceLock<RequestMeta>,
    default_timeout: Option<Duration>,
    /// Wakes the timeout sweeper when a request's deadline is earlier than the one it sleeps to.
    sweeper_wake: Notify,
    /// Who reads the transport: [`READER_TASK`], or the id of the request reading its own
    /// answer (see `reading`). Changed only under `reading`'s lock.
    reader: AtomicU64,
    /// Held while the transport is polled or `reader` changes; keeps the reader task's waker.
    reading: Mutex<Option<Waker>>,
    /// False once the transport said its messages must come from `receive` (from the start for
    /// a transport without shortcuts): no request reads for itself from then on.
    pollable: AtomicBool,
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
    /// Where the request's progress goes, when it asked for it.
    progress: Option<ProgressRoute>,
    deadline: Option<Instant>,
    /// False for `initialize`, which is never cancelled.
    cancellable: bool,
}

/// A request's progress reports: handed to its caller's callback by whoever reads the
/// connection, as each arrives (so in order, and all of them before the answer); each restarts
/// the request's timeout when it asked for that. No channel to the caller: most tool calls ask
/// for progress and few get any.
struct ProgressRoute {
    callback: ProgressCallback,
    restart: Option<Deadlines>,
}

/// Why a request ended without an answer.
enum Unanswered {
    Closed(CloseReason),
    /// No answer by the deadline carried, which tells the caller whether it was the timeout
    /// or the hard limit.
    TimedOut(Option<Instant>),
    /// The answer was over the size limit and dropped.
    TooLarge {
        limit: usize,
        size: usize,
    },
}

impl Peer {
    /// Starts a peer over a transport. `server` names the server in logs.
    ///
    /// Must be called inside a tokio runtime: it spawns the reader and writer tasks.
    pub fn start(server: &str, transport: Box<dyn Transport>, options: PeerOptions) -> Self {
        Self::start_on(server, Link::plain(transport), options)
    }

    /// [`Peer::start`] over a link that may carry the transport's shortcuts.
    pub(crate) fn start_on(server: &str, link: Link, options: PeerOptions) -> Self {
        let (outbound, outbound_rx) = mpsc::unbounded_channel();
        let shared = Arc::new(Shared {
            server: Arc::from(server),
            next_id: AtomicU64::new(1),
            state: Mutex::new(State::default()),
            outbound,
            queued: AtomicUsize::new(0),
            closed: watch::Sender::new(None),
            notifications: OnceLock::new(),
            roots: std::sync::RwLock::new(options.roots),
            elicitation: options.elicitation,
            sampling: options.sampling,
            secrets: options.secrets,
            skipped_lines: AtomicU64::new(0),
            request_meta: OnceLock::new(),
            default_timeout: options.default_timeout,
            sweeper_wake: Notify::new(),
            reader: AtomicU64::new(READER_TASK),
            reading: Mutex::new(None),
            pollable: AtomicBool::new(link.fast.is_some()),
        });
        // A span of its own, not a child of the caller's: a manager that connects inside its
        // own `mcp_server` span would have every line of these tasks name the server twice.
        let span = tracing::info_span!(parent: None, "mcp_server", server = %server);
        let writer = tokio::spawn(
            write_loop(
                Arc::clone(&shared),
                Arc::clone(&link.transport),
                outbound_rx,
            )
            .instrument(span.clone()),
        );
        let reader =
            tokio::spawn(read_loop(Arc::clone(&shared), link.clone()).instrument(span.clone()));
        let sweeper = tokio::spawn(sweep_timeouts(Arc::clone(&shared)).instrument(span));
        Self {
            shared,
            link,
            writer,
            reader,
            sweeper,
        }
    }

    /// The timeout of requests that do not set their own.
    pub(crate) fn default_timeout(&self) -> Option<Duration> {
        self.shared.default_timeout
    }

    /// A server's error with the client's secrets scrubbed, as every answer's error is.
    pub(crate) fn scrub(&self, error: crate::jsonrpc::ErrorObject) -> crate::jsonrpc::ErrorObject {
        self.shared.scrub_error(error)
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
        let bytes = self.request_bytes(method, params, options).await?;
        self.decode(&bytes)
    }

    /// The result of a response, or the server's error with the client's secrets scrubbed.
    pub(crate) fn decode<R: DeserializeOwned>(&self, bytes: &[u8]) -> Result<R, RpcError> {
        decode_response(bytes).map_err(|error| match error {
            RpcError::Server(error) => RpcError::Server(self.shared.scrub_error(error)),
            other => other,
        })
    }

    /// Sends a request and waits for its answer: the whole response message.
    pub(crate) async fn request_bytes<P: Serialize>(
        &self,
        method: &str,
        params: Option<P>,
        options: &RequestOptions,
    ) -> Result<Bytes, RpcError> {
        let shared = &*self.shared;
        let id = shared.next_id.fetch_add(1, Ordering::Relaxed);
        let (response_tx, mut response_rx) = oneshot::channel();

        let progress_token = options.on_progress.is_some().then_some(id);
        let meta = RequestMeta::for_request(shared.request_meta.get(), progress_token);
        let message = serialize_request(id, method, params, meta.as_deref())?;

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
        let deadline = deadlines.as_ref().and_then(|d| d.next(d.started));
        let progress = options.on_progress.as_ref().map(|callback| ProgressRoute {
            callback: Arc::clone(callback),
            restart: deadlines.filter(|_| options.reset_timeout_on_progress),
        });
        // Neither handshake nor era probe is cancelled: a server of the handshake era gets no
        // notification before `initialize`.
        let cancellable = method != methods::INITIALIZE && method != methods::SERVER_DISCOVER;
        let (wake_sweeper, alone) = {
            let mut state = shared.lock_state();
            if let Some(reason) = &state.closed {
                return Err(RpcError::ConnectionClosed(reason.clone()));
            }
            // With other requests in flight, callers are likely to queue several messages in a
            // row: the writer task then hands them to the transport in one write.
            let alone = state.pending.is_empty();
            state.pending.insert(
                id,
                Pending {
                    response: response_tx,
                    progress,
                    deadline,
                    cancellable,
                },
            );
            let wake = deadline.is_some_and(|deadline| {
                state.sweeper_target.is_none_or(|target| deadline < target)
            });
            (wake, alone)
        };
        if wake_sweeper {
            shared.sweeper_wake.notify_one();
        }
        if !alone && shared.a_request_reads() {
            // Requests in flight together are all served by the reader task.
            shared.stop_reading(None);
        }
        let mut in_flight = InFlight {
            shared,
            id,
            cancellable,
            finished: false,
            reads: false,
        };
        // A transport that answers each request on an exchange of its own is driven from this
        // task, which then gets the answer without a hop through the reader task; only when
        // nothing is queued, so that no message overtakes one sent before it, and only on a
        // thread that runs the runtime's tasks. Such a thread may also read the answer itself
        // from a transport that can be polled, when this request is alone (see `reading`).
        let runtime_thread = on_runtime_thread();
        let fast = self.link.fast.as_deref();
        let mut round_trip = match fast {
            Some(fast) if shared.queued.load(Ordering::Acquire) == 0 && runtime_thread => {
                fast.round_trip(&message)
            }
            _ => None,
        };
        let mut may_read =
            alone && runtime_thread && round_trip.is_none() && shared.callers_may_read();
        if round_trip.is_none() {
            if alone {
                self.send(message);
            } else {
                shared.enqueue(message);
            }
        }

        let cancelled = cancelled(options.cancel.as_ref());
        tokio::pin!(cancelled);
        let outcome = loop {
            tokio::select! {
                biased;
                response = &mut response_rx => {
                    in_flight.finished = true;
                    break response;
                }
                own = std::future::poll_fn(|cx| match fast {
                    Some(fast) => self.shared.poll_own_answer(cx, fast, id, &mut in_flight.reads),
                    None => std::task::Poll::Ready(None),
                }), if may_read => match own {
                    Some((bytes, pending)) => {
                        // Closed first, so dropping the entry's sender wakes nobody.
                        response_rx.close();
                        drop(pending);
                        in_flight.finished = true;
                        break Ok(Ok(bytes));
                    }
                    None => may_read = false,
                },
                answer = finish_round_trip(&mut round_trip) => {
                    if let RoundTrip::Answer(bytes) = answer
                        && shared.lock_state().pending.remove(&id).is_some()
                    {
                        in_flight.finished = true;
                        break Ok(Ok(bytes));
                    }
                    // Otherwise the outcome comes through `response_rx`: the answer from the
                    // reader, or the timeout or close that ended the request meanwhile.
                }
                () = &mut cancelled => {
                    return Err(RpcError::Cancelled);
                }
            }
        };

        let bytes = match outcome {
            Ok(Ok(bytes)) => bytes,
            Ok(Err(Unanswered::Closed(reason))) => return Err(RpcError::ConnectionClosed(reason)),
            Ok(Err(Unanswered::TooLarge { limit, size })) => {
                return Err(RpcError::AnswerTooLarge { limit, size });
            }
            Ok(Err(Unanswered::TimedOut(passed))) => {
                let hit_hard_limit = deadlines
                    .as_ref()
                    .is_some_and(|d| d.hard.is_some() && passed == d.hard);
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
        Ok(bytes)
    }

    /// Adds `meta` to the `_meta` of every request from now on: the stateless revision's
    /// protocol version, client info and client capabilities. Set once, when the client has
    /// found the server speaks that revision; false if it was set already (or, which a map of
    /// JSON values never does, it did not serialize).
    pub fn set_request_meta(&self, meta: &JsonObject) -> bool {
        match RequestMeta::serialized(meta) {
            Ok(meta) => self.shared.request_meta.set(meta).is_ok(),
            Err(error) => {
                tracing::warn!(%error, "the requests' _meta does not serialize");
                false
            }
        }
    }

    /// Answers one input request of a multi round-trip request (2026-07-28) with the handler
    /// that answers the same request sent on its own in the handshake era: `roots/list`,
    /// `elicitation/create`, `sampling/createMessage`. Anything else, or a handler the client
    /// does not have, is -32601.
    pub(crate) async fn fulfil(
        &self,
        method: &str,
        params: Option<&serde_json::value::RawValue>,
    ) -> Result<serde_json::Value, crate::jsonrpc::ErrorObject> {
        self.shared.fulfil(method, params).await
    }

    /// Replaces the roots answered to `roots/list` (it stays unanswered when the peer started
    /// without roots); true when they were replaced.
    pub fn set_roots(&self, roots: Vec<Root>) -> bool {
        let mut current = self
            .shared
            .roots
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match current.as_mut() {
            Some(current) => {
                *current = roots;
                true
            }
            None => false,
        }
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
    /// `notifications/message`, …; [`ServerNotification::kind`] tells which). Progress goes to
    /// the request it belongs to instead, and the server's `notifications/cancelled` is only
    /// logged.
    pub fn subscribe(&self) -> broadcast::Receiver<ServerNotification> {
        self.shared
            .notifications
            .get_or_init(|| broadcast::Sender::new(NOTIFICATION_BUFFER))
            .subscribe()
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
        let result = self.link.transport.close().await;
        self.reader.abort();
        result
    }

    /// Writes a message straight from the caller's task when the transport can take it at once
    /// and nothing is queued ahead of it; otherwise queues it for the writer task.
    ///
    /// Worth it for a lone message (one hand-over and one wake-up fewer); a request sent while
    /// others are in flight is queued instead, so a burst of them leaves in one write.
    fn send(&self, message: String) {
        if let Some(fast) = &self.link.fast
            && self.shared.queued.load(Ordering::Acquire) == 0
        {
            match fast.try_send_now(&message) {
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
        self.shared.report_skipped_output();
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

/// Whether this code runs on a thread that also runs the runtime's tasks: in a task, or in a
/// current-thread runtime's `block_on`. Not in a multi-thread runtime's `block_on`, whose thread
/// only waits: an exchange driven from there would cross from the workers to it at every step
/// (the answer's head, each chunk of its body), where a task of its own crosses once. (A
/// `Handle::block_on` inside `spawn_blocking` counts as a task: slower there, not wrong.)
fn on_runtime_thread() -> bool {
    tokio::task::try_id().is_some()
        || tokio::runtime::Handle::try_current().is_ok_and(|runtime| {
            runtime.runtime_flavor() == tokio::runtime::RuntimeFlavor::CurrentThread
        })
}

/// Removes a request from the pending table when its future ends without an answer (timeout,
/// cancellation, or the future being dropped) and tells the server.
struct InFlight<'a> {
    shared: &'a Shared,
    id: u64,
    cancellable: bool,
    finished: bool,
    /// The request took over reading from the reader task (see `reading`): it hands it back.
    reads: bool,
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        if self.reads {
            self.shared.stop_reading(Some(self.id));
        }
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
