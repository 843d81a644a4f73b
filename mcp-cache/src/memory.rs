//! The in-memory and no-op stores.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use async_trait::async_trait;
use mcp_transport::Tool;

use crate::entry::{CacheEntry, Listing, MissReason, decode, encode};
use crate::fingerprint::Fingerprint;
use crate::{CacheOptions, ToolCache};

/// A cache that lives as long as the process: for tests, and for agents that want no disk.
/// Entries are kept encoded, so they behave exactly like the on-disk store's; a lookup decodes
/// outside the lock, so lookups of several servers at once decode in parallel.
#[derive(Debug, Default)]
pub struct MemoryToolCache {
    entries: Mutex<HashMap<String, Arc<[u8]>>>,
    options: CacheOptions,
}

impl MemoryToolCache {
    /// An empty cache.
    pub fn new(options: CacheOptions) -> Self {
        Self {
            entries: Mutex::default(),
            options,
        }
    }

    /// Stores raw bytes for a server, as a damaged store would hold them. Feature `internals`:
    /// for the tests, not a stable API.
    #[cfg(feature = "internals")]
    pub fn insert_raw(&self, server: &str, bytes: Vec<u8>) {
        self.insert(server, bytes);
    }

    /// Stores an encoded entry for a server.
    fn insert(&self, server: &str, bytes: Vec<u8>) {
        self.entries
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(server.to_owned(), bytes.into());
    }
}

#[async_trait]
impl ToolCache for MemoryToolCache {
    async fn lookup_entry(
        &self,
        server: &str,
        fingerprint: &Fingerprint,
    ) -> Result<CacheEntry, MissReason> {
        let entry = self
            .entries
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(server)
            .cloned();
        match entry {
            None => Err(MissReason::Absent),
            Some(bytes) => decode(
                &bytes,
                fingerprint,
                self.options.ttl,
                (self.options.clock)(),
            ),
        }
    }

    async fn set_entry(
        &self,
        server: &str,
        fingerprint: &Fingerprint,
        tools: &[Tool],
        listing: &Listing,
    ) {
        let bytes = encode(fingerprint, tools, listing, (self.options.clock)());
        self.insert(server, bytes);
    }

    async fn remove(&self, server: &str) {
        self.entries
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(server);
    }
}

/// A cache that never holds anything: every lookup misses, every write is dropped.
#[derive(Debug, Default, Clone, Copy)]
#[non_exhaustive]
pub struct NoopToolCache;

impl NoopToolCache {
    /// The no-op cache.
    pub fn new() -> Self {
        Self
    }
}

#[async_trait]
impl ToolCache for NoopToolCache {
    async fn lookup_entry(
        &self,
        _server: &str,
        _fingerprint: &Fingerprint,
    ) -> Result<CacheEntry, MissReason> {
        Err(MissReason::Absent)
    }

    async fn set_entry(
        &self,
        _server: &str,
        _fingerprint: &Fingerprint,
        _tools: &[Tool],
        _listing: &Listing,
    ) {
    }

    async fn remove(&self, _server: &str) {}
}
