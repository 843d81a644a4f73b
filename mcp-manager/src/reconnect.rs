//! Servers come back by themselves: a connection that dies after it was made (a crash, a kill,
//! a remote server gone, a server that stopped answering the health ping) is made again with
//! bounded exponential backoff and jitter ([`ReconnectPolicy`]). Meanwhile the server's tools
//! stay as deferred tools, so a call waits for the server instead of failing; a call that was
//! in flight when it died has failed with the cause and is never sent again. When the attempts
//! are spent the server is `failed` with the last cause.

use std::hash::{BuildHasher, Hasher};
use std::sync::Arc;
use std::time::Duration;

use mcp_config::ServerConfig;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use crate::error::ServerError;
use crate::gate::Gate;
use crate::manager::Inner;
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

/// A server being reconnected, for its status.
#[derive(Debug, Clone)]
pub(crate) struct Reconnecting {
    pub(crate) attempt: u32,
    pub(crate) cause: ServerError,
}

impl Inner {
    /// The connection of `name` died because of `cause`: reconnect it if the policy and its
    /// configuration allow, keeping its tools as deferred ones; true when that started.
    pub(crate) fn start_reconnecting(
        self: &Arc<Self>,
        name: &str,
        config: &ServerConfig,
        cause: &ServerError,
    ) -> bool {
        let policy = self.options.reconnect;
        let wanted = policy.enabled
            && policy.max_attempts > 0
            && config.reconnect() != Some(false)
            // Only a login helps a server that wants one.
            && !cause.needs_login();
        if !wanted {
            return false;
        }
        let (outcome_tx, outcome_rx) = watch::channel(None);
        let cancel = CancellationToken::new();
        let id = {
            let mut state = self.lock();
            let id = state.add_pending(name, &cancel, &outcome_rx);
            state.reconnecting.insert(
                name.to_owned(),
                Reconnecting {
                    attempt: 1,
                    cause: cause.clone(),
                },
            );
            id
        };
        self.emit(ManagerEvent::StatusChanged {
            server: name.to_owned(),
            status: ConnectionStatus::Reconnecting {
                attempt: 1,
                cause: cause.clone(),
            },
        });
        let inner = Arc::clone(self);
        let (server, config, cause) = (name.to_owned(), config.clone(), cause.clone());
        let span = tracing::info_span!("mcp_server", server = %name);
        let task = tokio::spawn(
            async move {
                tokio::select! {
                    () = inner.reconnect(&server, &config, id, cause, &outcome_tx) => {}
                    () = cancel.cancelled() => {}
                }
            }
            .instrument(span),
        );
        if let Some(pending) = self.lock().pending.get_mut(name).filter(|p| p.id == id) {
            pending.task = Some(task);
        }
        true
    }

    async fn reconnect(
        self: &Arc<Self>,
        name: &str,
        config: &ServerConfig,
        id: u64,
        mut cause: ServerError,
        outcome: &watch::Sender<crate::gate::Outcome>,
    ) {
        let policy = self.options.reconnect;
        let mut attempt = 1;
        let result = loop {
            let delay = policy.delay(attempt);
            tracing::info!(attempt, delay_ms = delay.as_millis() as u64, %cause, "reconnecting");
            tokio::time::sleep(delay).await;
            match self
                .connect_and_load(name, config, crate::gate::Plan::default())
                .await
            {
                Ok(loaded) => break Ok(loaded),
                Err(error) => {
                    tracing::warn!(attempt, %error, "reconnecting failed");
                    cause = error;
                }
            }
            if attempt >= policy.max_attempts || cause.needs_login() {
                break Err(cause);
            }
            attempt += 1;
            let still_ours = {
                let mut state = self.lock();
                let ours = state.pending.get(name).is_some_and(|p| p.id == id);
                if ours && let Some(reconnecting) = state.reconnecting.get_mut(name) {
                    reconnecting.attempt = attempt;
                    reconnecting.cause = cause.clone();
                }
                ours
            };
            if !still_ours {
                return;
            }
            self.emit(ManagerEvent::StatusChanged {
                server: name.to_owned(),
                status: ConnectionStatus::Reconnecting {
                    attempt,
                    cause: cause.clone(),
                },
            });
        };
        self.lock().reconnecting.remove(name);
        // Recorded as a pipeline that finished after the gate: the tools are replaced (or
        // dropped with the final failure) and the change is an event.
        let gate = std::sync::Mutex::new(Gate::passed());
        self.finish(name, config, id, result, &gate, outcome).await;
    }
}
