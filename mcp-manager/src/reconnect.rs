//! Servers come back by themselves: a connection that dies after it was made (a crash, a kill,
//! a remote server gone, a server that stopped answering the health ping) is made again with
//! bounded exponential backoff and jitter ([`ReconnectPolicy`]). Meanwhile the server's tools
//! stay as deferred tools, so a call waits for the server instead of failing; a call that was
//! in flight when it died has failed with the cause and is never sent again. When the attempts
//! are spent the server is `failed` with the last cause.
//!
//! Here live the pieces that follow a connection once it is made: [`watch_connection`] (list
//! changes, the health ping, the connection's end), and the manager's transitions when it dies
//! on its own, [`Inner::connection_lost`] and the reconnect loop, which record their final
//! result through [`Inner::finish`] like any start.

use std::hash::{BuildHasher, Hasher};
use std::sync::{Arc, Weak};
use std::time::Duration;

use mcp_config::ServerConfig;
use mcp_transport::{McpClient, NotificationKind, ServerNotification};
use tokio::sync::{broadcast, watch};

use crate::error::{ManagerError, ServerError};
use crate::lifecycle::{Inner, Work};
use crate::pipeline::Plan;
use crate::server::{Progress, ServerState};
use crate::status::{ConnectionStatus, ManagerEvent};

/// How dead connections are made again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ReconnectPolicy {
    /// Whether servers are reconnected at all (a server's `"reconnect": false` turns it off
    /// for that server). Off: a dead server stays `failed` until it is reconnected by hand.
    pub enabled: bool,
    /// Attempts before the server is `failed`. Default 5.
    pub max_attempts: u32,
    /// The wait before the first attempt; it doubles with each attempt. Default 500 ms.
    pub initial_delay: Duration,
    /// The longest wait between attempts. Default 30 s.
    pub max_delay: Duration,
    /// How much each wait varies at random, in percent either way. Default 20.
    pub jitter_percent: u32,
}

impl Default for ReconnectPolicy {
    fn default() -> Self {
        Self {
            enabled: true,
            max_attempts: 5,
            initial_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(30),
            jitter_percent: 20,
        }
    }
}

impl ReconnectPolicy {
    /// No reconnection: a dead server stays failed.
    pub fn off() -> Self {
        Self {
            enabled: false,
            ..Self::default()
        }
    }

    /// This policy with `attempts` attempts.
    #[must_use]
    pub fn max_attempts(mut self, attempts: u32) -> Self {
        self.max_attempts = attempts;
        self
    }

    /// This policy waiting `initial` before the first attempt, at most `max` between any two.
    #[must_use]
    pub fn delays(mut self, initial: Duration, max: Duration) -> Self {
        self.initial_delay = initial;
        self.max_delay = max.max(initial);
        self
    }

    /// The wait before attempt `attempt` (1 for the first): doubled each time, capped, with
    /// jitter.
    pub fn delay(&self, attempt: u32) -> Duration {
        let doubled = self
            .initial_delay
            .saturating_mul(1u32 << attempt.saturating_sub(1).min(20));
        let base = doubled.min(self.max_delay);
        let jitter = u64::from(self.jitter_percent.min(100));
        if jitter == 0 {
            return base;
        }
        // A random factor in [100 - jitter, 100 + jitter] percent.
        let random = std::collections::hash_map::RandomState::new()
            .build_hasher()
            .finish();
        let percent = 100 - jitter + random % (2 * jitter + 1);
        base.saturating_mul(u32::try_from(percent).unwrap_or(100)) / 100
    }
}

/// The optional health ping: each connected server is pinged every `interval`; one that does
/// not answer within `timeout` is stopped and reconnected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct HealthCheck {
    /// How often each server is pinged.
    pub interval: Duration,
    /// How long a ping may take.
    pub timeout: Duration,
}

impl HealthCheck {
    /// A ping every `interval`, answered within `timeout`.
    pub fn new(interval: Duration, timeout: Duration) -> Self {
        Self { interval, timeout }
    }
}

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

impl Inner {
    /// The connection `client` of `name` died on its own: the server's tools stay (deferred)
    /// and it is reconnected if the policy allows; otherwise it is failed with `reason`.
    pub(crate) fn connection_lost(
        self: &Arc<Self>,
        name: &str,
        config: &ServerConfig,
        client: &Arc<McpClient>,
        reason: ServerError,
    ) {
        let policy = self.options.reconnect;
        let reconnect = policy.enabled
            && policy.max_attempts > 0
            && config.reconnect() != Some(false)
            // Only a login helps a server that wants one.
            && !reason.needs_login();
        {
            let mut state = self.lock();
            let id = reconnect.then(|| state.next_attempt_id());
            let Some(record) = state.servers.get_mut(name).filter(|record| {
                record
                    .state
                    .client()
                    .is_some_and(|c| Arc::ptr_eq(c, client))
            }) else {
                return;
            };
            // Told through the status (and the failed calls): a log line is for tracing.
            tracing::info!(server = name, %reason, "MCP server connection lost");
            let status = match id {
                Some(id) => {
                    let work = Work::Reconnect {
                        cause: reason.clone(),
                    };
                    record.state = ServerState::Reconnecting {
                        attempt: self.begin_attempt(id, name, config, work),
                        number: 1,
                        cause: reason.clone(),
                    };
                    ConnectionStatus::Reconnecting {
                        attempt: 1,
                        cause: reason,
                    }
                }
                None => {
                    record.state = ServerState::Failed(reason.clone());
                    ConnectionStatus::not_connected(reason)
                }
            };
            // Told under the state lock: no step of the attempt is told before it.
            self.emit(ManagerEvent::StatusChanged {
                server: name.to_owned(),
                status,
            });
        }
        self.emit(ManagerEvent::ToolsChanged {
            server: name.to_owned(),
        });
    }

    /// Makes a dead connection again with the policy's backoff, updating the `Reconnecting`
    /// state after each failed attempt; the final result is recorded like a late one.
    pub(crate) async fn reconnect(
        self: &Arc<Self>,
        name: &str,
        config: &ServerConfig,
        id: u64,
        mut cause: ServerError,
        progress: &watch::Sender<Progress>,
    ) {
        let policy = self.options.reconnect;
        let mut number = 1;
        let result = loop {
            let delay = policy.delay(number);
            tracing::info!(attempt = number, delay_ms = delay.as_millis() as u64, %cause, "reconnecting");
            tokio::time::sleep(delay).await;
            match self.connect_and_load(name, config, Plan::default()).await {
                Ok(loaded) => break Ok(loaded),
                Err(error) => {
                    tracing::warn!(attempt = number, %error, "reconnecting failed");
                    cause = error;
                }
            }
            if number >= policy.max_attempts || cause.needs_login() {
                break Err(cause);
            }
            number += 1;
            let still_ours = {
                let mut state = self.lock();
                let record = state
                    .servers
                    .get_mut(name)
                    .filter(|record| record.state.serves(id));
                match record.map(|record| &mut record.state) {
                    Some(ServerState::Reconnecting {
                        number: shown,
                        cause: shown_cause,
                        ..
                    }) => {
                        *shown = number;
                        shown_cause.clone_from(&cause);
                        true
                    }
                    _ => false,
                }
            };
            if !still_ours {
                return;
            }
            self.emit(ManagerEvent::StatusChanged {
                server: name.to_owned(),
                status: ConnectionStatus::Reconnecting {
                    attempt: number,
                    cause: cause.clone(),
                },
            });
        };
        self.finish(name, config, id, result, None, progress).await;
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
