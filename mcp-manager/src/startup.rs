//! [`McpManager::connect_servers`]: every server started in parallel, answered at the startup
//! gate.
//!
//! Each server's attempt (see [`crate::lifecycle`]) looks in the cache first, within the
//! gate: the entry's protocol version is what the connection is pinned to, an entry whose list
//! is a stateless server's and still fresh serves the server on demand instead of connecting,
//! and any other entry's tools are offered (deferred) while the server connects. The gate
//! reads each attempt's progress: it waits at most the startup timeout, then answers with live
//! tools, one error per failed server, and cached (deferred) tools for the servers still
//! connecting; a server still connecting with no cache entry, or whose entry says
//! `required: true`, is awaited, bounded by its own timeout (one without a cache entry is not,
//! when [`ManagerOptions::wait_for_uncached`](crate::ManagerOptions) is off). A server that
//! finishes after the answer replaces only its own tools and is told as an event.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_config::DiscoveredServer;
use tokio::time::Instant;

use crate::cache_key::CacheKey;
use crate::gate::Gate;
use crate::inner::lock;
use crate::lifecycle::Start;
use crate::manager::McpManager;
use crate::offer::ConnectOutcome;
use crate::server::Progress;

/// How long past its deadline the gate waits for a cache lookup that answered by the deadline
/// to be published (the attempt's task may not have run since).
const LOOKUP_GRACE: Duration = Duration::from_millis(50);

impl McpManager {
    /// Connects every server in parallel and answers at the startup gate: live tools of the
    /// servers that finished, an error per server that failed, deferred tools (from the cache)
    /// for servers still connecting; a pending server without a cache entry is awaited (bounded
    /// by its own timeouts). Servers already connected or connecting are left alone. The rest
    /// finishes in the background, replacing only that server's tools.
    pub async fn connect_servers(
        &self,
        servers: &BTreeMap<String, DiscoveredServer>,
    ) -> ConnectOutcome {
        let inner = &self.inner;
        let gate = Arc::new(Mutex::new(Gate::default()));
        let deadline = Instant::now() + inner.options.startup_timeout;
        let mut started = Vec::new();
        for (name, server) in servers {
            let start = Start {
                name,
                config: &server.config,
                source: Some(&server.source.meta),
                // What the list belongs to: the definition (as written and resolved), its
                // file and its login (see `crate::cache_key`).
                cache_key: CacheKey::of(server),
            };
            if let Some((id, progress)) = inner.start(start, &gate, deadline) {
                started.push((name.clone(), id, progress));
            }
        }

        for (_, _, progress) in &mut started {
            let _ = tokio::time::timeout_at(deadline, progress.wait_for(Progress::has_ended)).await;
        }
        // The cache had the whole gate to answer (each attempt looks there first).
        let grace = deadline.max(Instant::now()) + LOOKUP_GRACE;
        for (_, _, progress) in &mut started {
            let _ =
                tokio::time::timeout_at(grace, progress.wait_for(Progress::has_looked_up)).await;
        }
        {
            // Under the gate's lock an attempt neither records a result nor offers cached tools.
            let mut gate = lock(&gate);
            let state = inner.lock();
            for (name, id, progress) in &started {
                let offered_meanwhile = match &*progress.borrow() {
                    Progress::Connecting { cached } => *cached,
                    Progress::LookingUp => false,
                    Progress::OnDemand | Progress::Done(_) => continue,
                };
                // Disconnected meanwhile (or replaced by a newer attempt): nothing to wait for.
                let Some(record) = state.serving(name, *id) else {
                    continue;
                };
                // Deferred tools: the server finishes in the background. Without them (or
                // `required`), it is awaited, unless the agent takes its tools by event.
                let awaited = inner.options.wait_for_uncached || record.config.required();
                if !offered_meanwhile && awaited {
                    gate.await_past_deadline(name);
                }
            }
            gate.pass();
        }

        let mut errors = Vec::new();
        for (name, _, mut progress) in started {
            let awaited = lock(&gate).awaits(&name);
            if awaited {
                let _ = progress.wait_for(Progress::has_ended).await;
            }
            if let Some(error) = progress.borrow().error() {
                errors.push(error.clone());
            }
        }
        ConnectOutcome {
            tools: self.tools(),
            errors,
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::expect_used, clippy::unwrap_used)]

    use mcp_cache::{MemoryToolCache, ToolCache};
    use mcp_config::{Level, ServerConfig, SourceMeta};
    use mcp_transport::Tool;
    use serde_json::json;
    use testkit::FixtureServer;

    use super::*;
    use crate::options::ManagerOptions;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn cached_tools_at_the_gate_are_defined_as_a_later_listing_defines_them() {
        let (program, args) = FixtureServer::new().delay("tools/list", 3000).command();
        let config = ServerConfig::stdio(program.to_string_lossy(), args);
        let source = SourceMeta::new("test", "Test", "test.json", Level::User);
        let server = DiscoveredServer::new(config, source);
        let tools: Vec<Tool> = serde_json::from_value(json!([
            {"name": "echo", "description": "Echoes.",
             "inputSchema": {"$schema": "x", "type": "object", "zeta": 1, "alpha": 2}},
            {"name": "titled", "title": "Only a title", "description": " ",
             "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}}}},
            {"name": "echo_", "x-vendor": true},
            // The same name once sanitized: one of them is named with a hash at the answer.
            {"name": "a.b"},
            {"name": "a-b"},
        ]))
        .unwrap();
        let cache = Arc::new(MemoryToolCache::default());
        let options = ManagerOptions::default();
        let key = crate::cache_fingerprint(&server, &*options.credentials).await;
        cache.set("slow.server", &key, &tools).await;
        let manager = McpManager::new(options, cache);
        let servers = BTreeMap::from([("slow.server".to_owned(), server)]);

        let at_gate =
            tokio::time::timeout(Duration::from_secs(30), manager.connect_servers(&servers))
                .await
                .expect("the gate answers")
                .tools;
        // The server is still listing: this call offers the cached tools again.
        let later = manager.tools();

        assert_eq!(at_gate.len(), tools.len());
        assert_eq!(later.len(), tools.len());
        for (gate, fresh) in at_gate.iter().zip(&later) {
            assert!(gate.deferred && fresh.deferred);
            assert_eq!(gate.server, fresh.server);
            assert_eq!(gate.original_name, fresh.original_name);
            assert_eq!(gate.tool.name(), fresh.tool.name());
            assert_eq!(gate.tool.label(), fresh.tool.label());
            assert_eq!(gate.tool.description(), fresh.tool.description());
            assert_eq!(gate.tool.parameters(), fresh.tool.parameters());
        }
        let mut names: Vec<&str> = at_gate.iter().map(|tool| tool.tool.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), tools.len(), "{names:?}");
        manager.disconnect_all().await;
    }
}
