//! # mcp-cache
//!
//! The tool cache: the last tool list each MCP server returned, so that a session can offer a
//! slow server's tools at once (as deferred tools) while the server is still connecting.
//!
//! ```no_run
//! use mcp_cache::{CacheOptions, Fingerprint, SledToolCache, ToolCache};
//!
//! # async fn run(tools: Vec<mcp_transport::Tool>, app_cache_dir: std::path::PathBuf) {
//! // The agent's cache folder, e.g. `~/.cache/my-agent`: this crate looks no directory up.
//! let cache = SledToolCache::in_app_cache_dir(&app_cache_dir, CacheOptions::default());
//! let fingerprint = Fingerprint::of(&serde_json::json!({"command": "npx", "args": ["-y", "srv"]}));
//! cache.set("github", &fingerprint, &tools).await;
//! if let Some(tools) = cache.get("github", &fingerprint).await {
//!     println!("{} cached tools", tools.len());
//! }
//! # }
//! ```
//!
//! - An entry is keyed by server name and holds a format version, the [`Fingerprint`] of the
//!   server's unresolved configuration, the tools and the write time. A lookup misses when the
//!   entry is absent, older than the time to live (30 days by default), of another format or of
//!   another configuration.
//! - Written with [`ToolCache::set_entry`], an entry also keeps how the tools were listed
//!   ([`Listing`]): the protocol version the server spoke, so that the next start need not probe
//!   its era again, and for a stateless server (2026-07-28) its list's `ttlMs` and when the list
//!   was fetched, so that the next start knows whether the list is still fresh
//!   ([`ToolCache::lookup_entry`]). The cache only keeps these; what they mean for a start is the
//!   manager's business.
//! - The cache is best effort: a store that cannot be opened, is locked by another process, is
//!   corrupt, or a full disk is a miss (or a skipped write), logged once, never an error or a
//!   panic. A corrupt store is moved aside and rebuilt.
//! - Three stores: `SledToolCache` (the default, on disk, shared by the agent processes of a
//!   machine; behind the default feature `sled`), [`MemoryToolCache`] and [`NoopToolCache`].
//!   With `default-features = false` the crate compiles no database: the memory and no-op
//!   stores, the entry format and the fingerprints only. The sled store keeps each entry as a
//!   file too, so that any number of agents starting together read their entries at once
//!   instead of taking turns on sled's lock; writes hold the database only for their batch.
//! - The sled store's folder comes from the caller ([`SledToolCache::open_at`], or
//!   `SledToolCache::in_app_cache_dir` with the agent's cache folder): this crate reads no
//!   environment and looks no directory up (the runtime's one XDG lookup is `mcp_config::UserDir`).

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
pub use fingerprint::Fingerprint;
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
