//! Tasks (`io.modelcontextprotocol/tasks`; the two forms are described in
//! [`protocol::Task`](crate::protocol::Task)'s module): a tool call the server answers with a
//! task is followed to its end inside the same call, and an agent that keeps work across
//! restarts can start a call as a task and get, update, cancel and read it later by id.
//!
//! Following a task ([`McpClient::follow_task`], and every [`McpClient::call_tool_with`] whose
//! answer is a task):
//!
//! - **Polling** `tasks/get` every `pollIntervalMs`, kept between 100 ms and 30 s; a server
//!   that suggests none is asked after 250 ms, then half as long again each time up to 5 s,
//!   and quickly again after each change.
//! - **Pushed states** (2026-07-28): a server offering the extension is asked, with
//!   `subscriptions/listen` and the task's id, to send `notifications/tasks`; once it
//!   acknowledges the id, its notifications replace the polls (one every 30 s stays as a
//!   safety net), and a server that does not is polled as usual.
//! - **Input**: an `input_required` task's `inputRequests` are answered with the same handlers
//!   (elicitation, sampling, roots) as a request sent on its own, each key once however many
//!   polls repeat it (at most 16 for a task), and sent with `tasks/update`. In the 2025-11-25
//!   form the server asks its questions as ordinary requests while `tasks/result` waits, which
//!   the handlers answer too; the polls go on beside it, and its answer ends the call.
//! - **Time**: the request's timeout runs from the task's last sign of life (a status, message
//!   or update time that changed, input answered), so a task that keeps moving is never cut
//!   short and one that stalls is cancelled ([`RpcError::TaskSilent`]), in both forms;
//!   `max_total_timeout` bounds the whole call.
//! - **Cancelling**: the request's cancellation token, a dropped call future and
//!   [`McpClient::close`] each send `tasks/cancel` for the tasks being followed (never
//!   `notifications/cancelled`, which the extension forbids for tasks).
//! - **Progress**: each change of status or message reaches the caller's progress callback,
//!   with the task's id as the token, the number of changes seen as the progress and
//!   `task <status>: <message>` as the message.
//! - **The end**: `completed` gives the result (2026: inlined, and one whose own `resultType`
//!   is not `complete` is refused; 2025: from `tasks/result`), `failed` the JSON-RPC error it
//!   carries, `cancelled` [`RpcError::TaskCancelled`].

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;
use tokio::sync::broadcast;
use tokio::time::Instant;

use super::McpClient;
use crate::error::Error;
use crate::jsonrpc::{ErrorObject, ServerNotification, error_codes};
use crate::peer::{Peer, RequestOptions, RpcError};
use crate::protocol::{
    CallToolResult, CreateTaskResult2025, JsonObject, ListTasksResult, ProgressNotificationParams,
    ProgressToken, Task, TaskIdParams, TaskMetadata, TaskStatus, TaskSupport, Tool,
    UpdateTaskParams, methods,
};
use crate::stateless::{self, Answer};

/// The shortest wait between two polls, whatever interval the server suggests.
pub(crate) const POLL_FLOOR: Duration = Duration::from_millis(100);
/// The longest wait between two polls, whatever interval the server suggests (and the safety
/// net's interval while the server pushes the task's states).
pub(crate) const POLL_CAP: Duration = Duration::from_secs(30);
/// The first wait when the server suggests no interval; each unchanged poll waits half as long
/// again, up to [`BACKOFF_MAX`].
pub(crate) const BACKOFF_START: Duration = Duration::from_millis(250);
/// The longest wait when the server suggests no interval.
pub(crate) const BACKOFF_MAX: Duration = Duration::from_secs(5);
/// How long `tasks/cancel` may take when the caller gave up or the client closes: the caller is
/// not kept waiting on a server that does not answer.
const CANCEL_TIMEOUT: Duration = Duration::from_secs(5);
/// The `subscriptions/listen` request for a task's states lives while the task is followed.
const LISTEN_TIMEOUT: Duration = Duration::from_secs(100 * 365 * 24 * 60 * 60);

/// How a tool call started ([`McpClient::start_tool_call`]): its result at once, or the task
/// the server made of it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
#[expect(
    clippy::large_enum_variant,
    reason = "returned once per started call and matched at once, never kept in bulk"
)]
pub enum ToolCallStart {
    /// The server answered the call at once.
    Complete(CallToolResult),
    /// The server runs the call as a task: follow it with [`McpClient::follow_task`], or keep
    /// its id and ask later ([`McpClient::get_task`], [`McpClient::task_result`]).
    Task(Task),
}

/// The tasks a client is following, by id: what [`McpClient::close`] cancels.
#[derive(Debug, Default)]
pub(super) struct Followed(Mutex<HashSet<String>>);

impl Followed {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Every task being followed, taken out: their followers will not cancel them again.
    pub(super) fn take_all(&self) -> Vec<String> {
        self.lock().drain().collect()
    }
}

/// What a 2025-11-25 server said of running each of its tools as a task, from its last tool
/// list (only tools that allow it; empty for a server that offers no tool tasks).
#[derive(Debug, Default)]
pub(super) struct TaskTools(RwLock<HashMap<String, TaskSupport>>);

impl TaskTools {
    pub(super) fn remember(&self, tools: &[Tool]) {
        let supported = tools
            .iter()
            .filter_map(|tool| match tool.task_support() {
                TaskSupport::Forbidden => None,
                support => Some((tool.name.clone(), support)),
            })
            .collect();
        *self.0.write().unwrap_or_else(PoisonError::into_inner) = supported;
    }

    fn of(&self, tool: &str) -> Option<TaskSupport> {
        self.0
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(tool)
            .copied()
    }
}

/// Whether a call asks for a task in the 2025-11-25 form (the 2026 form never asks: the server
/// decides).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum AskForTask {
    /// Only when the tool requires it (a plain call).
    WhenRequired,
    /// Whenever the tool allows it, or is not known ([`McpClient::start_tool_call`]).
    WhenAllowed,
}

/// A task being followed: while it lives (the follower's future), the task is in the client's
/// [`Followed`]; dropped before the task ended, it sends `tasks/cancel` from a task of its own.
struct Following {
    peer: Arc<Peer>,
    followed: Arc<Followed>,
    task_id: String,
    /// Cleared once the task ended or was cancelled by the follower itself.
    cancel_on_drop: bool,
}

impl Following {
    fn new(client: &McpClient, task_id: &str) -> Self {
        client.followed.lock().insert(task_id.to_owned());
        Self {
            peer: Arc::clone(&client.peer),
            followed: Arc::clone(&client.followed),
            task_id: task_id.to_owned(),
            cancel_on_drop: true,
        }
    }

    /// The task ended: nothing to cancel.
    fn ended(&mut self) {
        self.cancel_on_drop = false;
    }

    /// Sends `tasks/cancel` now and waits (at most [`CANCEL_TIMEOUT`]) for the server to take it.
    async fn cancel(&mut self) {
        self.cancel_on_drop = false;
        if self.followed.lock().remove(&self.task_id) {
            send_cancel(&self.peer, &self.task_id).await;
        }
    }
}

impl Drop for Following {
    fn drop(&mut self) {
        let still_followed = self.followed.lock().remove(&self.task_id);
        if !(self.cancel_on_drop && still_followed) {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            tracing::debug!(task = %self.task_id, "no runtime left to cancel the task on");
            return;
        };
        let peer = Arc::clone(&self.peer);
        let task_id = std::mem::take(&mut self.task_id);
        runtime.spawn(async move { send_cancel(&peer, &task_id).await });
    }
}

/// `tasks/cancel`, its failure only logged: the caller has already given up on the task.
pub(super) async fn send_cancel(peer: &Peer, task_id: &str) {
    let cancelled = peer
        .request::<_, serde::de::IgnoredAny>(
            methods::TASKS_CANCEL,
            Some(TaskIdParams { task_id }),
            &RequestOptions::with_timeout(CANCEL_TIMEOUT),
        )
        .await;
    match cancelled {
        Ok(_) => tracing::debug!(
            server = peer.server_name(),
            task = task_id,
            "task cancelled"
        ),
        Err(error) => {
            tracing::debug!(server = peer.server_name(), task = task_id, %error,
                "the server did not take the task's cancellation");
        }
    }
}

/// The `subscriptions/listen` request asking for one task's `notifications/tasks`, and the
/// notifications it brings.
struct Pushed {
    task_id: String,
    notifications: broadcast::Receiver<ServerNotification>,
    stream: tokio::task::JoinHandle<()>,
    /// The server acknowledged the task's id: its notifications can replace the polls.
    acknowledged: bool,
}

impl Drop for Pushed {
    fn drop(&mut self) {
        self.stream.abort();
    }
}

/// What a pushed notification says about the followed task.
enum PushedNews {
    Acknowledged,
    Refused,
    State(Box<Task>),
    Nothing,
}

impl Pushed {
    fn open(peer: &Arc<Peer>, task_id: &str) -> Self {
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Filter<'a> {
            task_ids: [&'a str; 1],
        }
        #[derive(Serialize)]
        struct Params<'a> {
            notifications: Filter<'a>,
        }
        // Subscribed before the request is sent, so the acknowledgement cannot be missed.
        let notifications = peer.subscribe();
        let stream = {
            let peer = Arc::clone(peer);
            let task_id = task_id.to_owned();
            tokio::spawn(async move {
                let params = Params {
                    notifications: Filter {
                        task_ids: [&task_id],
                    },
                };
                let ended = peer
                    .request::<_, serde::de::IgnoredAny>(
                        methods::SUBSCRIPTIONS_LISTEN,
                        Some(params),
                        &RequestOptions::with_timeout(LISTEN_TIMEOUT),
                    )
                    .await;
                if let Err(error) = ended {
                    tracing::debug!(server = peer.server_name(), task = task_id, %error,
                        "no pushed states for the task; polling");
                }
            })
        };
        Self {
            task_id: task_id.to_owned(),
            notifications,
            stream,
            acknowledged: false,
        }
    }

    /// Waits for the next notification about the task; `None` once no more can come.
    async fn next(&mut self) -> Option<PushedNews> {
        loop {
            let notification = match self.notifications.recv().await {
                Ok(notification) => notification,
                Err(broadcast::error::RecvError::Lagged(_)) => continue,
                Err(broadcast::error::RecvError::Closed) => return None,
            };
            let params = notification.params.as_ref();
            let news = match notification.method.as_str() {
                methods::SUBSCRIPTIONS_ACKNOWLEDGED => {
                    let ids = params
                        .and_then(|params| params.get("notifications"))
                        .and_then(|notifications| notifications.get("taskIds"));
                    match ids {
                        Some(Value::Array(ids)) if ids.iter().any(|id| id == &*self.task_id) => {
                            PushedNews::Acknowledged
                        }
                        // Another stream's acknowledgement (the list changes').
                        None => PushedNews::Nothing,
                        Some(_) => PushedNews::Refused,
                    }
                }
                methods::TASKS_NOTIFICATION
                    if params
                        .and_then(|params| params.get("taskId"))
                        .is_some_and(|id| id == &*self.task_id) =>
                {
                    match params.cloned().map(serde_json::from_value::<Task>) {
                        Some(Ok(task)) => PushedNews::State(Box::new(task)),
                        _ => PushedNews::Nothing,
                    }
                }
                _ => PushedNews::Nothing,
            };
            if !matches!(news, PushedNews::Nothing) {
                return Some(news);
            }
        }
    }
}

/// Resolves when `token` is cancelled, or never without one.
async fn cancelled(token: Option<&tokio_util::sync::CancellationToken>) {
    match token {
        Some(token) => token.cancelled().await,
        None => std::future::pending().await,
    }
}

/// A 2025-11-25 `tasks/result` on its way ([`McpClient::wait_for_result`]).
type WaitingResult<'a> = std::pin::Pin<
    Box<dyn std::future::Future<Output = Result<CallToolResult, RpcError>> + Send + 'a>,
>;

/// The answer of the waiting `tasks/result`, or never without one.
async fn result_of(waiting: Option<&mut WaitingResult<'_>>) -> Result<CallToolResult, RpcError> {
    match waiting {
        Some(waiting) => waiting.await,
        None => std::future::pending().await,
    }
}

/// Waits for a notification of `pushed`, or forever without one.
async fn next_pushed(pushed: Option<&mut Pushed>) -> Option<PushedNews> {
    match pushed {
        Some(pushed) => pushed.next().await,
        None => std::future::pending().await,
    }
}

impl McpClient {
    /// Starts a tool call and returns at once with its result, or with the task the server made
    /// of it, unfollowed: for an agent that keeps the task's id (across restarts) and asks
    /// about it later. In the 2025-11-25 form a task is asked for whenever the server offers
    /// tool tasks and the tool does not forbid them; in the 2026-07-28 form the server decides.
    pub async fn start_tool_call(
        &self,
        name: &str,
        arguments: Option<&JsonObject>,
        options: &RequestOptions,
    ) -> Result<ToolCallStart, Error> {
        match self
            .start_call(name, arguments, options, AskForTask::WhenAllowed)
            .await
        {
            Ok(Answer::Complete(result)) => Ok(ToolCallStart::Complete(result)),
            Ok(Answer::Task(task)) => Ok(ToolCallStart::Task(*task)),
            Err(source) => Err(self.request_error(format!("tools/call {name:?}"), source)),
        }
    }

    /// The task's current state (`tasks/get`). In the 2026-07-28 form an ended task carries its
    /// result or error; in the 2025-11-25 form [`task_result`](Self::task_result) fetches it.
    pub async fn get_task(&self, task_id: &str) -> Result<Task, Error> {
        self.fetch_task(task_id, &RequestOptions::default())
            .await
            .map_err(|source| self.request_error(format!("tasks/get {task_id:?}"), source))
    }

    /// Answers a task's input requests (`tasks/update`, 2026-07-28), by the keys of its
    /// `inputRequests`. The 2025-11-25 form has no such request: its server asks its questions
    /// while [`task_result`](Self::task_result) waits.
    pub async fn update_task(&self, task_id: &str, responses: &JsonObject) -> Result<(), Error> {
        self.send_update(task_id, responses)
            .await
            .map_err(|source| self.request_error(format!("tasks/update {task_id:?}"), source))
    }

    /// Asks the server to stop a task (`tasks/cancel`). The server acknowledges; whether and
    /// when the task ends `cancelled` is its decision.
    pub async fn cancel_task(&self, task_id: &str) -> Result<(), Error> {
        self.followed.lock().remove(task_id);
        self.peer
            .request::<_, serde::de::IgnoredAny>(
                methods::TASKS_CANCEL,
                Some(TaskIdParams { task_id }),
                &RequestOptions::default(),
            )
            .await
            .map(|_| ())
            .map_err(|source| self.request_error(format!("tasks/cancel {task_id:?}"), source))
    }

    /// The result of an ended task: `Ok(None)` while it has not ended. A failed task is the
    /// error it carries, a cancelled one [`RpcError::TaskCancelled`].
    pub async fn task_result(&self, task_id: &str) -> Result<Option<CallToolResult>, Error> {
        let ended = async {
            let task = self.fetch_task(task_id, &RequestOptions::default()).await?;
            if !task.status.is_terminal() {
                return Ok(None);
            }
            self.ended(task, &RequestOptions::default()).await.map(Some)
        };
        ended
            .await
            .map_err(|source| self.request_error(format!("the result of task {task_id:?}"), source))
    }

    /// Follows a task to its end, as a call that became the task would have (see the module
    /// documentation): polls or pushed states, input answered, the timeout from its last sign
    /// of life, `tasks/cancel` when the caller gives up.
    pub async fn follow_task(
        &self,
        task_id: &str,
        options: &RequestOptions,
    ) -> Result<CallToolResult, Error> {
        let followed = async {
            let task = self.fetch_task(task_id, options).await?;
            self.follow(task, options).await
        };
        followed
            .await
            .map_err(|source| self.request_error(format!("task {task_id:?}"), source))
    }

    /// Every task the server keeps for this client (`tasks/list`, 2025-11-25, every page). The
    /// 2026-07-28 form has no listing: a client keeps the ids of the tasks it started.
    pub async fn list_tasks(&self) -> Result<Vec<Task>, Error> {
        let operation = || methods::TASKS_LIST.to_owned();
        if self.protocol_version.is_stateless() || !self.capabilities().offers_task_list() {
            return Err(self.request_error(
                operation(),
                RpcError::NotSupported(format!(
                    "the server keeps no list of tasks (protocol {}{}): keep the ids of the \
                     tasks you start",
                    self.protocol_version,
                    if self.protocol_version.is_stateless() {
                        ", Tasks extension"
                    } else {
                        ", no tasks.list capability"
                    }
                )),
            ));
        }
        self.list_all::<ListTasksResult>(methods::TASKS_LIST).await
    }

    /// Sends `tools/call`, asking for a task in the 2025-11-25 form when `ask` and the tool say
    /// so; a 2026 server decides itself. A stateless HTTP server that finds a designated header
    /// wrong gets the call again after the tools are listed anew.
    pub(super) async fn start_call(
        &self,
        name: &str,
        arguments: Option<&JsonObject>,
        options: &RequestOptions,
        ask: AskForTask,
    ) -> Result<Answer<CallToolResult>, RpcError> {
        #[derive(Serialize)]
        struct Params<'a> {
            name: &'a str,
            #[serde(skip_serializing_if = "Option::is_none")]
            arguments: Option<&'a JsonObject>,
            #[serde(skip_serializing_if = "Option::is_none")]
            task: Option<TaskMetadata>,
        }
        let params = Params {
            name,
            arguments,
            task: self.task_to_ask_for(name, ask),
        };
        if params.task.is_some() {
            let answer: Value = self
                .peer
                .request(methods::TOOLS_CALL, Some(&params), options)
                .await?;
            return read_2025_answer(answer);
        }
        let called = self
            .request_rounds(methods::TOOLS_CALL, &params, options)
            .await;
        // A stateless HTTP server that finds a designated header missing or different: the
        // tool's schema changed since it was listed (or was never listed). List and try again.
        #[cfg(feature = "http")]
        let called = match called {
            Err(RpcError::Server(error))
                if error.code == error_codes::HEADER_MISMATCH && self.tool_headers.is_some() =>
            {
                tracing::debug!(server = %self.server, tool = name, message = %error.message,
                    "the server found the call's headers wrong; listing the tools again");
                self.list_tools().await.map_err(|error| match error {
                    Error::Request { source, .. } => source,
                    other => RpcError::InvalidResponse(other.to_string()),
                })?;
                self.request_rounds(methods::TOOLS_CALL, &params, options)
                    .await
            }
            called => called,
        };
        called
    }

    /// The `task` member of a 2025-11-25 call, when it asks for one.
    fn task_to_ask_for(&self, tool: &str, ask: AskForTask) -> Option<TaskMetadata> {
        if self.protocol_version.is_stateless() || !self.capabilities().offers_2025_tool_tasks() {
            return None;
        }
        let support = self.task_tools.of(tool);
        let asks = match ask {
            AskForTask::WhenRequired => support == Some(TaskSupport::Required),
            AskForTask::WhenAllowed => support.is_none_or(|s| s != TaskSupport::Forbidden),
        };
        asks.then(TaskMetadata::default)
    }

    async fn fetch_task(&self, task_id: &str, options: &RequestOptions) -> Result<Task, RpcError> {
        let task: Task = self
            .peer
            .request(methods::TASKS_GET, Some(TaskIdParams { task_id }), options)
            .await?;
        if task.task_id != task_id {
            return Err(RpcError::InvalidResponse(format!(
                "tasks/get for task {task_id:?} answered with task {:?}",
                task.task_id
            )));
        }
        Ok(task)
    }

    async fn send_update(&self, task_id: &str, responses: &JsonObject) -> Result<(), RpcError> {
        if !self.protocol_version.is_stateless() {
            return Err(RpcError::NotSupported(format!(
                "tasks/update is not part of the task form of protocol {}: the server asks for \
                 input while tasks/result waits",
                self.protocol_version
            )));
        }
        self.peer
            .request::<_, serde::de::IgnoredAny>(
                methods::TASKS_UPDATE,
                Some(UpdateTaskParams {
                    task_id,
                    input_responses: responses,
                }),
                &RequestOptions::default(),
            )
            .await
            .map(|_| ())
    }

    /// Follows `task` to its end (see the module documentation).
    pub(super) async fn follow(
        &self,
        task: Task,
        options: &RequestOptions,
    ) -> Result<CallToolResult, RpcError> {
        let mut following = Following::new(self, &task.task_id);
        // Told once the task is followed: from now on a cancel, a drop or a close cancels it.
        if let Some(on_task) = &options.on_task {
            on_task(&task);
        }
        let silence_limit = options.timeout.or(self.peer.default_timeout());
        let hard_deadline = options.max_total_timeout.map(|max| Instant::now() + max);
        let modern = self.protocol_version.is_stateless();
        let mut pushed =
            (modern && self.capabilities().offers_tasks() && !task.status.is_terminal())
                .then(|| Pushed::open(&self.peer, &task.task_id));
        let mut progress = Progress::new(options, &task.task_id);
        progress.report(&task);
        let mut answered: HashSet<String> = HashSet::new();
        // 2025-11-25: the `tasks/result` sent once the task asked for input; it waits while the
        // server asks its questions and the task goes on, and the polls go on beside it, so
        // that the task's changes keep the call alive as they do in the 2026-07-28 form.
        let mut waiting: Option<WaitingResult<'_>> = None;
        let mut last_sign = Instant::now();
        let mut backoff = BACKOFF_START;
        let mut task = task;
        loop {
            if task.status.is_terminal() {
                following.ended();
                drop(pushed);
                return match waiting.take() {
                    Some(waiting) if task.status != TaskStatus::Cancelled => {
                        self.result_of_ended(waiting, options).await
                    }
                    _ => self.ended(task, options).await,
                };
            }
            if task.status == TaskStatus::InputRequired {
                if !modern {
                    if waiting.is_none() {
                        let task_id = task.task_id.clone();
                        waiting = Some(Box::pin(self.wait_for_result(task_id)));
                    }
                } else if self
                    .answer_input(&task, &mut answered, options, &mut following)
                    .await?
                {
                    last_sign = Instant::now();
                }
            }
            if let Some(open) = &pushed
                && open.stream.is_finished()
            {
                pushed = None;
            }
            let interval = match (
                pushed.as_ref().map(|p| p.acknowledged),
                task.poll_interval_ms,
            ) {
                (Some(true), _) => POLL_CAP,
                (_, Some(ms)) => Duration::from_millis(ms).clamp(POLL_FLOOR, POLL_CAP),
                (_, None) => {
                    let wait = backoff;
                    backoff = (backoff * 3 / 2).min(BACKOFF_MAX);
                    wait
                }
            };
            let silence_deadline = silence_limit.map(|limit| last_sign + limit);
            let wake = [
                Some(Instant::now() + interval),
                silence_deadline,
                hard_deadline,
            ]
            .into_iter()
            .flatten()
            .min()
            .unwrap_or_else(|| Instant::now() + interval);
            let mut next = None;
            tokio::select! {
                () = cancelled(options.cancel.as_ref()) => {
                    following.cancel().await;
                    return Err(RpcError::Cancelled);
                }
                () = tokio::time::sleep_until(wake) => {}
                reason = self.peer.closed() => {
                    following.ended();
                    return Err(RpcError::ConnectionClosed(reason));
                }
                result = result_of(waiting.as_mut()) => {
                    following.ended();
                    return result;
                }
                news = next_pushed(pushed.as_mut()) => match news {
                    Some(PushedNews::Acknowledged) => {
                        if let Some(open) = pushed.as_mut() {
                            open.acknowledged = true;
                        }
                        continue;
                    }
                    Some(PushedNews::State(state)) => next = Some(*state),
                    Some(PushedNews::Refused) | None | Some(PushedNews::Nothing) => {
                        pushed = None;
                        continue;
                    }
                },
            }
            let now = Instant::now();
            if next.is_none() {
                if let Some(limit) = silence_limit
                    && now >= last_sign + limit
                {
                    following.cancel().await;
                    return Err(RpcError::TaskSilent {
                        task_id: task.task_id,
                        after: limit,
                    });
                }
                if let Some(deadline) = hard_deadline
                    && now >= deadline
                {
                    following.cancel().await;
                    return Err(RpcError::Timeout(
                        options.max_total_timeout.unwrap_or_default(),
                    ));
                }
                if now < wake {
                    continue;
                }
            }
            let next = match next {
                Some(state) => state,
                None => {
                    let poll = RequestOptions {
                        timeout: silence_limit,
                        cancel: options.cancel.clone(),
                        ..RequestOptions::default()
                    };
                    match self.fetch_task(&task.task_id, &poll).await {
                        Ok(state) => state,
                        Err(RpcError::Cancelled) => {
                            following.cancel().await;
                            return Err(RpcError::Cancelled);
                        }
                        Err(error) => return Err(error),
                    }
                }
            };
            if next.differs_from(&task) {
                last_sign = Instant::now();
                backoff = BACKOFF_START;
                progress.report(&next);
            }
            task = next;
        }
    }

    /// Answers the input requests of an `input_required` task not answered yet, and sends the
    /// answers with `tasks/update`; true when any were sent.
    async fn answer_input(
        &self,
        task: &Task,
        answered: &mut HashSet<String>,
        options: &RequestOptions,
        following: &mut Following,
    ) -> Result<bool, RpcError> {
        let Some(requests) = &task.input_requests else {
            return Ok(false);
        };
        let fresh: serde_json::Map<String, Value> = requests
            .iter()
            .filter(|(key, _)| !answered.contains(*key))
            .map(|(key, request)| (key.clone(), request.clone()))
            .collect();
        if fresh.is_empty() {
            return Ok(false);
        }
        // As for a request's rounds: a server asking question after question is not followed
        // into endless prompts (the task is cancelled when the call fails).
        if answered.len() + fresh.len() > stateless::MAX_INPUT_ROUNDS {
            return Err(RpcError::InvalidResponse(format!(
                "the task {} asked for more than {} inputs",
                task.task_id,
                stateless::MAX_INPUT_ROUNDS
            )));
        }
        let required = stateless::InputRequired {
            input_requests: Some(fresh),
            request_state: None,
        };
        let gathered = stateless::answer_inputs(&self.peer, &required);
        let responses = tokio::select! {
            gathered = gathered => gathered,
            () = cancelled(options.cancel.as_ref()) => {
                following.cancel().await;
                return Err(RpcError::Cancelled);
            }
        }
        .map_err(RpcError::InputNotGiven)?
        .unwrap_or_default();
        self.send_update(&task.task_id, &responses).await?;
        answered.extend(responses.keys().cloned());
        Ok(true)
    }

    /// 2025-11-25: `tasks/result` of a task that asked for input, waiting through the
    /// questions to the end; the polls beside it bound the wait, and the caller's cancelling
    /// is theirs to handle (with `tasks/cancel`), never this request's (see
    /// [`follow`](Self::follow)).
    async fn wait_for_result(&self, task_id: String) -> Result<CallToolResult, RpcError> {
        self.peer
            .request(
                methods::TASKS_RESULT,
                Some(TaskIdParams { task_id: &task_id }),
                &RequestOptions::with_timeout(LISTEN_TIMEOUT),
            )
            .await
    }

    /// 2025-11-25: the answer of the `tasks/result` already waiting, once the task ended: the
    /// server owes it at once, so it is waited for no longer than a request.
    async fn result_of_ended(
        &self,
        waiting: WaitingResult<'_>,
        options: &RequestOptions,
    ) -> Result<CallToolResult, RpcError> {
        let limit = options
            .timeout
            .or(self.peer.default_timeout())
            .unwrap_or(CANCEL_TIMEOUT);
        tokio::time::timeout(limit, waiting)
            .await
            .unwrap_or(Err(RpcError::Timeout(limit)))
    }

    /// The outcome of a task that ended.
    async fn ended(
        &self,
        task: Task,
        options: &RequestOptions,
    ) -> Result<CallToolResult, RpcError> {
        if task.status == TaskStatus::Cancelled {
            return Err(RpcError::TaskCancelled {
                task_id: task.task_id,
                message: task.status_message,
            });
        }
        if !self.protocol_version.is_stateless() {
            let waiting = RequestOptions {
                cancel: options.cancel.clone(),
                max_total_timeout: options.max_total_timeout,
                ..RequestOptions::default()
            }
            .timeout(
                options
                    .timeout
                    .or(self.peer.default_timeout())
                    .unwrap_or(LISTEN_TIMEOUT),
            );
            return self
                .peer
                .request(
                    methods::TASKS_RESULT,
                    Some(TaskIdParams {
                        task_id: &task.task_id,
                    }),
                    &waiting,
                )
                .await;
        }
        match task.status {
            TaskStatus::Completed => {
                let Some(result) = task.result else {
                    return Err(RpcError::InvalidResponse(format!(
                        "the task {} completed without a result",
                        task.task_id
                    )));
                };
                match result.get("resultType").and_then(Value::as_str) {
                    None | Some("complete") => {}
                    Some(other) => {
                        return Err(RpcError::InvalidResponse(format!(
                            "the task {} completed with a result of type {other:?}, not \
                             \"complete\"",
                            task.task_id
                        )));
                    }
                }
                serde_json::from_value(Value::Object(result)).map_err(|error| {
                    RpcError::InvalidResponse(format!(
                        "the task {}'s result is not a tool result: {error}",
                        task.task_id
                    ))
                })
            }
            _ => Err(RpcError::Server(self.peer.scrub(
                task.error.unwrap_or_else(|| {
                    ErrorObject::new(
                        error_codes::INTERNAL_ERROR,
                        format!(
                            "the task {} failed{}",
                            task.task_id,
                            task.status_message
                                .map(|message| format!(": {message}"))
                                .unwrap_or_default()
                        ),
                    )
                }),
            ))),
        }
    }
}

/// A 2025-11-25 answer to a call that asked for a task: `{"task": …}`, or (from a server that
/// ran it at once after all) the result.
fn read_2025_answer(answer: Value) -> Result<Answer<CallToolResult>, RpcError> {
    if answer.get("task").is_some_and(Value::is_object) {
        return serde_json::from_value::<CreateTaskResult2025>(answer)
            .map(|created| Answer::Task(Box::new(created.task)))
            .map_err(|error| {
                RpcError::InvalidResponse(format!("the task is unreadable: {error}"))
            });
    }
    serde_json::from_value(answer)
        .map(Answer::Complete)
        .map_err(|error| RpcError::InvalidResponse(error.to_string()))
}

/// A task's changes, as the caller's progress events.
struct Progress<'a> {
    callback: Option<&'a crate::peer::ProgressCallback>,
    token: ProgressToken,
    changes: u32,
}

impl<'a> Progress<'a> {
    fn new(options: &'a RequestOptions, task_id: &str) -> Self {
        Self {
            callback: options.on_progress.as_ref(),
            token: ProgressToken::String(task_id.to_owned()),
            changes: 0,
        }
    }

    fn report(&mut self, task: &Task) {
        let Some(callback) = self.callback else {
            return;
        };
        self.changes += 1;
        let message = match &task.status_message {
            Some(message) => format!("task {}: {message}", task.status),
            None => format!("task {}", task.status),
        };
        let params = ProgressNotificationParams {
            progress_token: self.token.clone(),
            progress: f64::from(self.changes),
            total: None,
            message: Some(message),
        };
        if std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| callback(params))).is_err() {
            tracing::warn!("a progress callback panicked");
        }
    }
}
