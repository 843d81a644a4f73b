//! How the manager keeps servers alive, as an agent sets it in [`crate::ManagerOptions`]: the
//! [`ReconnectPolicy`] for connections that die, and the optional [`HealthCheck`] ping. The
//! reconnect loop is in [`crate::reconnect`], the ping in [`crate::watcher`].

use std::hash::{BuildHasher, Hasher};
use std::time::Duration;

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
