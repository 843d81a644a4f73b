#![doc = include_str!("../README.md")]

mod entry;
mod fingerprint;
mod memory;
#[cfg(feature = "sled")]
mod read_view;
#[cfg(feature = "sled")]
mod sled_store;

use std::time::{Duration, SystemTime};

use async_trait::async_trait;
use mcp_transport::Tool;

pub use entry::{CacheEntry, Listing, MissReason};
// The entry format itself, for the fuzz targets, the bench and the tests (feature
// `internals`): not a stable API.
#[cfg(feature = "internals")]
pub use entry::{decode_entry, encode_entry, encode_listed_entry};

/// The entry format this build writes and reads; entries of any other format are misses
/// (feature `internals`: for the fuzz targets, the bench and the tests; not a stable API).
#[cfg(feature = "internals")]
pub const FORMAT_VERSION: u32 = entry::FORMAT_VERSION;
pub use fingerprint::{Fingerprint, FingerprintParts};
pub use memory::{MemoryToolCache, NoopToolCache};
#[cfg(feature = "sled")]
pub use sled_store::SledToolCache;

/// A store of tool lists by server name. Every method is best effort and never fails.
///
/// A store implements three methods: [`lookup_entry`](Self::lookup_entry) and
/// [`set_entry`](Self::set_entry), which read and write a server's tools with how they were
/// listed ([`Listing`]), and [`remove`](Self::remove). [`get`](Self::get) and
/// [`set`](Self::set) are the same for a caller that has only the tools.
#[async_trait]
pub trait ToolCache: Send + Sync {
    /// The entry cached for `server` under this configuration, with how its tools were listed,
    /// or why there is none.
    async fn lookup_entry(
        &self,
        server: &str,
        fingerprint: &Fingerprint,
    ) -> Result<CacheEntry, MissReason>;

    /// Stores (or replaces) the tools of `server` with how they were listed.
    async fn set_entry(
        &self,
        server: &str,
        fingerprint: &Fingerprint,
        tools: &[Tool],
        listing: &Listing,
    );

    /// Forgets `server`.
    async fn remove(&self, server: &str);

    /// The tools cached for `server` under this configuration: those of
    /// [`lookup_entry`](Self::lookup_entry)'s hit.
    async fn get(&self, server: &str, fingerprint: &Fingerprint) -> Option<Vec<Tool>> {
        self.lookup_entry(server, fingerprint)
            .await
            .ok()
            .map(|entry| entry.tools)
    }

    /// Stores (or replaces) the tools of `server` with an empty [`Listing`]: a
    /// [`set_entry`](Self::set_entry) that knows nothing of how they were listed.
    async fn set(&self, server: &str, fingerprint: &Fingerprint, tools: &[Tool]) {
        self.set_entry(server, fingerprint, tools, &Listing::default())
            .await;
    }
}

impl std::fmt::Debug for dyn ToolCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("dyn ToolCache")
    }
}

/// Settings shared by the stores.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct CacheOptions {
    /// Entries older than this miss. Default: 30 days.
    pub ttl: Duration,
    /// The clock used for write times and ages (tests move it).
    pub clock: fn() -> SystemTime,
}

impl Default for CacheOptions {
    fn default() -> Self {
        Self {
            ttl: Duration::from_secs(30 * 24 * 60 * 60),
            clock: SystemTime::now,
        }
    }
}

impl CacheOptions {
    /// Sets the time to live.
    #[must_use]
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    /// Sets the clock.
    #[must_use]
    pub fn clock(mut self, clock: fn() -> SystemTime) -> Self {
        self.clock = clock;
        self
    }
}
