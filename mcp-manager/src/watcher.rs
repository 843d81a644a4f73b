//! Follows one live connection ([`watch_connection`]): re-lists the server's tools on
//! `notifications/tools/list_changed`, tells of resource and prompt list changes, pings the
//! server when a [`HealthCheck`] is set, and notices at once when the connection dies — then
//! [`Inner::connection_lost`] decides what follows.

use std::sync::{Arc, Weak};

use mcp_config::ServerConfig;
use mcp_transport::{McpClient, NotificationKind, ServerNotification};
use tokio::sync::broadcast;

use crate::error::{ManagerError, ServerError};
use crate::inner::Inner;
use crate::policies::HealthCheck;
use crate::status::ManagerEvent;

/// The health ping of one connection; ticks never when it is off.
pub(crate) struct Health {
    check: Option<HealthCheck>,
    ticker: Option<tokio::time::Interval>,
}

impl Health {
    pub(crate) fn new(check: Option<HealthCheck>) -> Self {
        let ticker = check.map(|check| {
            let mut ticker = tokio::time::interval_at(
                tokio::time::Instant::now() + check.interval,
                check.interval,
            );
            ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            ticker
        });
        Self { check, ticker }
    }

    pub(crate) async fn tick(&mut self) {
        match &mut self.ticker {
            Some(ticker) => {
                ticker.tick().await;
            }
            None => std::future::pending().await,
        }
    }

    /// Pings; the error when no answer came in time.
    pub(crate) async fn ping(&self, name: &str, client: &McpClient) -> Result<(), ManagerError> {
        let Some(check) = self.check else {
            return Ok(());
        };
        match tokio::time::timeout(check.timeout, client.ping()).await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(error)) if !error.is_timeout() => {
                // The server answered with an error, or the connection is closing: not a
                // sign of a hang (a closed connection is noticed on its own).
                tracing::debug!(server = name, %error, "the health ping failed");
                Ok(())
            }
            _ => Err(ManagerError::Unresponsive {
                server: name.to_owned(),
                waited: check.timeout,
            }),
        }
    }
}

/// Follows one connection: re-lists tools on `notifications/tools/list_changed`, tells of
/// resource and prompt list changes, and notices at once when the connection dies.
pub(crate) async fn watch_connection(
    inner: Weak<Inner>,
    name: String,
    config: ServerConfig,
    client: Arc<McpClient>,
    mut notifications: broadcast::Receiver<ServerNotification>,
) {
    let check = inner.upgrade().and_then(|inner| inner.options.health_check);
    let mut health = Health::new(check);
    loop {
        tokio::select! {
            notification = notifications.recv() => {
                let change = match notification {
                    Ok(notification) => ListChange::of(&notification),
                    // Missed some: any of them may have been a list change.
                    Err(broadcast::error::RecvError::Lagged(_)) => ListChange::Any,
                    Err(broadcast::error::RecvError::Closed) => return,
                };
                if change == ListChange::None {
                    continue;
                }
                let Some(inner) = inner.upgrade() else { return };
                if matches!(change, ListChange::Tools | ListChange::Any) {
                    inner.relist(&name, &config, &client).await;
                }
                let capabilities = client.capabilities();
                let resources = change == ListChange::Resources
                    || (change == ListChange::Any && capabilities.offers_resources());
                if resources {
                    inner.emit(ManagerEvent::ResourcesChanged { server: name.clone() });
                }
                let prompts = change == ListChange::Prompts
                    || (change == ListChange::Any && capabilities.offers_prompts());
                if prompts {
                    inner.emit(ManagerEvent::PromptsChanged { server: name.clone() });
                }
            }
            reason = client.closed() => {
                if !reason.is_closed_by_client()
                    && let Some(inner) = inner.upgrade()
                {
                    let lost = ManagerError::ConnectionLost {
                        server: name.clone(),
                        reason,
                    };
                    inner.connection_lost(&name, &config, &client, ServerError::new(lost));
                }
                return;
            }
            () = health.tick() => {
                if let Err(unresponsive) = health.ping(&name, &client).await {
                    // Stopped first (a stopped process is killed), then reconnected.
                    let _ = client.close().await;
                    if let Some(inner) = inner.upgrade() {
                        inner.connection_lost(&name, &config, &client, ServerError::new(unresponsive));
                    }
                    return;
                }
            }
        }
    }
}

/// Which list a server notification says changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ListChange {
    /// Not a list change.
    None,
    Tools,
    Resources,
    Prompts,
    /// Notifications were missed: any list may have changed.
    Any,
}

impl ListChange {
    fn of(notification: &ServerNotification) -> Self {
        match notification.kind() {
            NotificationKind::ToolsListChanged => Self::Tools,
            NotificationKind::ResourcesListChanged => Self::Resources,
            NotificationKind::PromptsListChanged => Self::Prompts,
            _ => Self::None,
        }
    }
}
