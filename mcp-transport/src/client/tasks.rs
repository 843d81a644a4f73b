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

use std::collections::HashMap;
use std::sync::{PoisonError, RwLock};

use serde::Serialize;
use serde_json::Value;

use super::McpClient;
use crate::error::Error;
use crate::peer::{RequestOptions, RpcError};
use crate::protocol::{
    CallToolResult, CreateTaskResult2025, JsonObject, ListTasksResult, Task, TaskIdParams,
    TaskMetadata, TaskSupport, Tool, UpdateTaskParams, methods,
};
use crate::stateless::Answer;

mod follow;
mod pushed;

pub(super) use follow::{Followed, send_cancel};

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
        self.followed.forget(task_id);
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
                if error.code == crate::jsonrpc::error_codes::HEADER_MISMATCH
                    && self.tool_headers.is_some() =>
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
