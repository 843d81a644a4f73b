//! Following a task to its end ([`McpClient::follow`]): the loop that polls `tasks/get` (or
//! takes the states the server pushes, [`super::pushed`]), answers the task's input, keeps the
//! time from its last sign of life and reports its changes as progress; and the guard that
//! sends `tasks/cancel` for a task given up before it ended. The rules are the parent
//! module's.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde_json::Value;
use tokio::time::Instant;

use super::pushed::{LISTEN_TIMEOUT, Pushed, PushedNews};
use crate::client::McpClient;
use crate::jsonrpc::{ErrorObject, error_codes};
use crate::peer::{Peer, RequestOptions, RpcError, cancelled, hand_progress};
use crate::protocol::{
    CallToolResult, ProgressNotificationParams, ProgressToken, Task, TaskIdParams, TaskStatus,
    methods,
};
use crate::stateless;

/// The shortest wait between two polls, whatever interval the server suggests.
const POLL_FLOOR: Duration = Duration::from_millis(100);
/// The longest wait between two polls, whatever interval the server suggests (and the safety
/// net's interval while the server pushes the task's states).
const POLL_CAP: Duration = Duration::from_secs(30);
/// The first wait when the server suggests no interval; each unchanged poll waits half as long
/// again, up to [`BACKOFF_MAX`].
const BACKOFF_START: Duration = Duration::from_millis(250);
/// The longest wait when the server suggests no interval.
const BACKOFF_MAX: Duration = Duration::from_secs(5);
/// How long `tasks/cancel` may take when the caller gave up or the client closes: the caller is
/// not kept waiting on a server that does not answer.
const CANCEL_TIMEOUT: Duration = Duration::from_secs(5);

/// The tasks a client is following, by id: what [`McpClient::close`] cancels.
#[derive(Debug, Default)]
pub(in crate::client) struct Followed(Mutex<HashSet<String>>);

impl Followed {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Takes `task_id` out of the followed tasks (its follower will not cancel it again); true
    /// when it was followed.
    pub(super) fn forget(&self, task_id: &str) -> bool {
        self.lock().remove(task_id)
    }

    /// Every task being followed, taken out: their followers will not cancel them again.
    pub(in crate::client) fn take_all(&self) -> Vec<String> {
        self.lock().drain().collect()
    }
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
        if self.followed.forget(&self.task_id) {
            send_cancel(&self.peer, &self.task_id).await;
        }
    }
}

impl Drop for Following {
    fn drop(&mut self) {
        let still_followed = self.followed.forget(&self.task_id);
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
pub(in crate::client) async fn send_cancel(peer: &Peer, task_id: &str) {
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

/// A 2025-11-25 `tasks/result` on its way ([`McpClient::wait_for_result`]).
type WaitingResult<'a> = std::pin::Pin<
    Box<dyn std::future::Future<Output = Result<CallToolResult, RpcError>> + Send + 'a>,
>;

/// What `future` gives, or never without one: a branch of the follower's `select!` that
/// waits only while there is something to wait for.
async fn or_never<F: std::future::Future>(future: Option<F>) -> F::Output {
    match future {
        Some(future) => future.await,
        None => std::future::pending().await,
    }
}

impl McpClient {
    /// Follows `task` to its end (see the module documentation).
    pub(in crate::client) async fn follow(
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
        let mut progress = Progress::new(&self.server, options, &task.task_id);
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
                result = or_never(waiting.as_mut()) => {
                    following.ended();
                    return result;
                }
                news = or_never(pushed.as_mut().map(Pushed::next)) => match news {
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
    pub(super) async fn ended(
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

/// A task's changes, as the caller's progress events.
struct Progress<'a> {
    server: &'a str,
    callback: Option<&'a crate::peer::ProgressCallback>,
    token: ProgressToken,
    changes: u32,
}

impl<'a> Progress<'a> {
    fn new(server: &'a str, options: &'a RequestOptions, task_id: &str) -> Self {
        Self {
            server,
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
        hand_progress(self.server, callback, params);
    }
}
