//! Pushed task states (2026-07-28): a `subscriptions/listen` request naming one task, and
//! the `notifications/tasks` it brings once the server acknowledges the task's id.

use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;
use tokio::sync::broadcast;

use crate::jsonrpc::ServerNotification;
use crate::peer::{Peer, RequestOptions};
use crate::protocol::{Task, methods};

/// How long a request that waits as long as the task is followed may take: the
/// `subscriptions/listen` for a task's states, a 2025-11-25 `tasks/result` (the follower ends
/// either when it stops following).
pub(super) const LISTEN_TIMEOUT: Duration = Duration::from_secs(100 * 365 * 24 * 60 * 60);

/// The `subscriptions/listen` request asking for one task's `notifications/tasks`, and the
/// notifications it brings.
pub(super) struct Pushed {
    task_id: String,
    notifications: broadcast::Receiver<ServerNotification>,
    pub(super) stream: tokio::task::JoinHandle<()>,
    /// The server acknowledged the task's id: its notifications can replace the polls.
    pub(super) acknowledged: bool,
}

impl Drop for Pushed {
    fn drop(&mut self) {
        self.stream.abort();
    }
}

/// What a pushed notification says about the followed task.
pub(super) enum PushedNews {
    Acknowledged,
    Refused,
    State(Box<Task>),
    Nothing,
}

impl Pushed {
    pub(super) fn open(peer: &Arc<Peer>, task_id: &str) -> Self {
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
    pub(super) async fn next(&mut self) -> Option<PushedNews> {
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
