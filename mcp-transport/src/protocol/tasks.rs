//! The Tasks extension's messages (`io.modelcontextprotocol/tasks`, SEP-2663, an extension of
//! 2026-07-28), and the experimental form of 2025-11-25 they replace.
//!
//! A server may answer a `tools/call` with a task instead of a result: a handle with a status
//! (`working`, `input_required`, `completed`, `failed`, `cancelled`) the client follows with
//! `tasks/get` until it ends. The two forms differ in how a task is asked for and answered:
//!
//! | | 2026-07-28 (the extension) | 2025-11-25 (experimental) |
//! |---|---|---|
//! | asked for | the client declares the extension in each request's `_meta` capabilities; the server decides per call | the client adds `task: {ttl}` to a call of a tool whose `execution.taskSupport` allows it, when the server's `tasks.requests.tools.call` capability does |
//! | the answer | `resultType: "task"` and the task's fields, flat | `{"task": {…}}` |
//! | lifetimes | `ttlMs`, `pollIntervalMs` | `ttl`, `pollInterval` |
//! | the result | inlined in `tasks/get` (`result` or `error`) once the task ends | `tasks/result` |
//! | input | `inputRequests` in `tasks/get`, answered with `tasks/update` | ordinary server requests, sent while `tasks/result` waits |
//! | listing | none: the client keeps the ids it started | `tasks/list` |
//!
//! [`Task`] reads both (the 2025 names are aliases of the 2026 ones).

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use super::JsonObject;
use crate::jsonrpc::ErrorObject;

/// The extension's identifier, under `capabilities.extensions`.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// Where a task is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum TaskStatus {
    /// The request is being processed.
    Working,
    /// The server waits for input from the client (`inputRequests`).
    InputRequired,
    /// Done; the result is ready (a tool's `isError: true` result included).
    Completed,
    /// Ended with a JSON-RPC error.
    Failed,
    /// Cancelled before it finished.
    Cancelled,
    /// A status this client does not know, taken as still working.
    #[serde(other)]
    Unknown,
}

impl TaskStatus {
    /// True for the statuses a task never leaves: completed, failed, cancelled.
    pub fn is_terminal(self) -> bool {
        matches!(self, Self::Completed | Self::Failed | Self::Cancelled)
    }

    /// The status as the protocol writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Working => "working",
            Self::InputRequired => "input_required",
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
            Self::Unknown => "unknown",
        }
    }
}

impl std::fmt::Display for TaskStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A task as `tasks/get`, `notifications/tasks` and a task-creating answer give it, in either
/// form. Fields a server leaves out or writes wrongly are `None` rather than a failed answer,
/// except the id and the status, without which there is no task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Task {
    /// The server's id of the task: what every later request about it names.
    pub task_id: String,
    /// Where the task is.
    pub status: TaskStatus,
    /// What the server says about the status, for the user or the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// When the task was created (ISO 8601, as the server wrote it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
    /// When the task last changed (ISO 8601, as the server wrote it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_updated_at: Option<String>,
    /// How long from its creation the server keeps the task, in milliseconds; `None` for
    /// unlimited or unreadable (2025-11-25: `ttl`).
    #[serde(
        default,
        alias = "ttl",
        deserialize_with = "lenient_ms",
        skip_serializing_if = "Option::is_none"
    )]
    pub ttl_ms: Option<u64>,
    /// How often the server would like to be asked, in milliseconds (2025-11-25:
    /// `pollInterval`).
    #[serde(
        default,
        alias = "pollInterval",
        deserialize_with = "lenient_ms",
        skip_serializing_if = "Option::is_none"
    )]
    pub poll_interval_ms: Option<u64>,
    /// `input_required` (2026-07-28): the server's requests waiting for the client's answers,
    /// by key (`{"method": …, "params": …}` each).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<JsonObject>,
    /// `completed` (2026-07-28): the result the request would have given at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<JsonObject>,
    /// `failed` (2026-07-28): the JSON-RPC error the request ended with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorObject>,
}

impl Task {
    /// Whether `other` says something this one does not: another status, status message or
    /// update time, or input requests. A follower counts these as signs of life.
    pub fn differs_from(&self, other: &Task) -> bool {
        self.status != other.status
            || self.status_message != other.status_message
            || self.last_updated_at != other.last_updated_at
            || self.input_requests != other.input_requests
    }
}

/// A millisecond count that never fails the message it is on: a non-negative whole number
/// (or one written with a fraction, rounded down), else `None`.
fn lenient_ms<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<u64>, D::Error> {
    let value = Value::deserialize(deserializer)?;
    Ok(match value {
        Value::Number(number) => number.as_u64().or_else(|| {
            number
                .as_f64()
                .filter(|ms| ms.is_finite() && *ms >= 0.0)
                .map(|ms| {
                    #[expect(
                        clippy::cast_possible_truncation,
                        clippy::cast_sign_loss,
                        reason = "finite and non-negative, checked just above; `as` saturates"
                    )]
                    let whole = ms as u64;
                    whole
                })
        }),
        _ => None,
    })
}

/// The 2025-11-25 answer to a task-augmented request: `{"task": {…}}`.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct CreateTaskResult2025 {
    pub(crate) task: Task,
}

/// The params of `tasks/get`, `tasks/cancel` and `tasks/result`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TaskIdParams<'a> {
    pub(crate) task_id: &'a str,
}

/// The params of `tasks/update` (2026-07-28): answers to the task's input requests, by key.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct UpdateTaskParams<'a> {
    pub(crate) task_id: &'a str,
    pub(crate) input_responses: &'a JsonObject,
}

/// The `task` member a 2025-11-25 call adds to ask for a task: how long the server should keep
/// it, in milliseconds (`None` leaves it to the server).
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub(crate) struct TaskMetadata {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) ttl: Option<u64>,
}

/// The 2025-11-25 answer to `tasks/list`: one page.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ListTasksResult {
    #[serde(default)]
    pub(crate) tasks: Vec<Task>,
    #[serde(default)]
    pub(crate) next_cursor: Option<String>,
}

/// Whether a tool may be run as a task (2025-11-25 `execution.taskSupport`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum TaskSupport {
    /// Never as a task (also when the tool says nothing).
    #[default]
    Forbidden,
    /// As a task or not, as the client likes.
    Optional,
    /// Only as a task: a call without one fails.
    Required,
}

impl super::Tool {
    /// What the tool says of running as a task (2025-11-25 `execution.taskSupport`; the
    /// 2026-07-28 extension lets the server decide per call, and tools say nothing).
    pub fn task_support(&self) -> TaskSupport {
        match self
            .extra
            .get("execution")
            .and_then(|execution| execution.get("taskSupport"))
            .and_then(Value::as_str)
        {
            Some("required") => TaskSupport::Required,
            Some("optional") => TaskSupport::Optional,
            _ => TaskSupport::Forbidden,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_task_of_either_form_reads_the_same() {
        let modern: Task = serde_json::from_value(json!({
            "resultType": "task", "taskId": "t1", "status": "working",
            "createdAt": "2026-01-01T00:00:00Z", "lastUpdatedAt": "2026-01-01T00:00:00Z",
            "ttlMs": 60000, "pollIntervalMs": 500
        }))
        .unwrap();
        let old: Task = serde_json::from_value(json!({
            "taskId": "t1", "status": "working",
            "createdAt": "2026-01-01T00:00:00Z", "lastUpdatedAt": "2026-01-01T00:00:00Z",
            "ttl": 60000, "pollInterval": 500
        }))
        .unwrap();
        assert_eq!(modern, old);
        assert_eq!(modern.poll_interval_ms, Some(500));
        assert_eq!(modern.ttl_ms, Some(60_000));
    }

    #[test]
    fn unreadable_intervals_are_absent_and_unknown_statuses_are_not_terminal() {
        let task: Task = serde_json::from_value(json!({
            "taskId": "t", "status": "paused", "ttlMs": null, "pollIntervalMs": -5
        }))
        .unwrap();
        assert_eq!(task.status, TaskStatus::Unknown);
        assert!(!task.status.is_terminal());
        assert_eq!((task.ttl_ms, task.poll_interval_ms), (None, None));
        let fraction: Task = serde_json::from_value(
            json!({"taskId": "t", "status": "working", "pollIntervalMs": 250.7}),
        )
        .unwrap();
        assert_eq!(fraction.poll_interval_ms, Some(250));
    }

    #[test]
    fn a_task_without_an_id_or_status_is_refused() {
        assert!(serde_json::from_value::<Task>(json!({"status": "working"})).is_err());
        assert!(serde_json::from_value::<Task>(json!({"taskId": "t"})).is_err());
    }

    #[test]
    fn task_support_is_read_from_the_tools_execution() {
        let tool = |execution: Value| -> super::super::Tool {
            serde_json::from_value(
                json!({"name": "t", "inputSchema": {"type": "object"}, "execution": execution}),
            )
            .unwrap()
        };
        assert_eq!(
            tool(json!({"taskSupport": "required"})).task_support(),
            TaskSupport::Required
        );
        assert_eq!(
            tool(json!({"taskSupport": "optional"})).task_support(),
            TaskSupport::Optional
        );
        assert_eq!(tool(json!({})).task_support(), TaskSupport::Forbidden);
    }
}
