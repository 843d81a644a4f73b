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

pub use entry::{
    CacheEntry, FORMAT_VERSION, Listing, Lookup, MissReason, decode_entry, encode_entry,
};
pub use fingerprint::{Fingerprint, FingerprintParts};
pub use memory::{MemoryToolCache, NoopToolCache};
#[cfg(feature = "sled")]
pub use sled_store::SledToolCache;

/// A store of tool lists by server name. Every method is best effort and never fails.
#[async_trait]
pub trait ToolCache: Send + Sync {
    /// The tools cached for `server` under this configuration, or why there are none.
    async fn lookup(&self, server: &str, fingerprint: &Fingerprint) -> Lookup;

    /// The tools cached for `server` under this configuration.
    async fn get(&self, server: &str, fingerprint: &Fingerprint) -> Option<Vec<Tool>> {
        self.lookup(server, fingerprint).await.into_tools()
    }

    /// Stores (or replaces) the tools of `server`, with no [`Listing`].
    async fn set(&self, server: &str, fingerprint: &Fingerprint, tools: &[Tool]);

    /// Forgets `server`.
    async fn remove(&self, server: &str);

    /// The entry cached for `server` under this configuration, with how its tools were listed,
    /// or why there is none. The default (for a store that keeps no listing) is the hit of
    /// [`lookup`](Self::lookup) with an empty listing.
    async fn lookup_entry(
        &self,
        server: &str,
        fingerprint: &Fingerprint,
    ) -> Result<CacheEntry, MissReason> {
        match self.lookup(server, fingerprint).await {
            Lookup::Hit(tools) => Ok(CacheEntry {
                tools,
                listing: Listing::default(),
            }),
            Lookup::Miss(reason) => Err(reason),
        }
    }

    /// Stores (or replaces) the tools of `server` with how they were listed. The default (for
    /// a store that keeps no listing) is [`set`](Self::set).
    async fn set_entry(
        &self,
        server: &str,
        fingerprint: &Fingerprint,
        tools: &[Tool],
        listing: &Listing,
    ) {
        let _ = listing;
        self.set(server, fingerprint, tools).await;
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
