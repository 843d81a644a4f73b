//! [`McpManager::connect_servers`]: every server started in parallel, answered at the startup
//! gate.
//!
//! Each server is looked up in the cache while it starts: the entry's protocol version is what
//! the connection is pinned to (the connection waits for the lookup, within the gate), an entry
//! whose list is a stateless server's and still fresh is served on demand instead of connecting
//! (see [`crate::lifecycle`]), and the entry's tools are built, while the gate waits, into the
//! deferred tools the answer offers for a server still connecting. The gate waits at most the
//! startup timeout, then answers with live tools, one error per failed server, and cached
//! (deferred) tools for the servers still connecting; a server still connecting with no cache
//! entry, or whose entry says `required: true`, is awaited, bounded by its own timeout. A
//! server that finishes after the answer replaces only its own tools and is told as an event.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use mcp_bridge::naming::tool_name;
use mcp_config::DiscoveredServer;
use mcp_transport::Tool;
use tokio::sync::{oneshot, watch};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use crate::cache_key::CacheKey;
use crate::gate::Gate;
use crate::lifecycle::{Remembered, Start, lock};
use crate::manager::McpManager;
use crate::offer::{ConnectOutcome, ManagedTool, Prebuilt, Reach, ToolSource};
use crate::server::{Outcome, ServerState};

/// A server `connect_servers` started, and the cache lookup for its gate.
struct Started {
    name: String,
    id: u64,
    outcome: watch::Receiver<Outcome>,
    lookup: JoinHandle<Option<Cached>>,
}

/// A server's cached tools, and the deferred tools the gate's answer offers for them.
type Cached = (Vec<Tool>, Vec<ManagedTool>);

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
            let config = &server.config;
            // What the list belongs to: the definition (as written and resolved), its file and
            // its login (see `crate::cache_key`).
            let cache_key = CacheKey::of(server);
            let (remembered_tx, remembered_rx) = oneshot::channel();
            let remembered = Some((remembered_rx, deadline));
            let start = Start {
                name,
                config,
                source: Some(&server.source.meta),
                cache_key: cache_key.clone(),
            };
            if let Some((id, outcome)) = inner.start(start, Some(Arc::clone(&gate)), remembered) {
                let (inner, key, config) = (Arc::clone(inner), name.clone(), config.clone());
                let source = ToolSource::of(&server.source.meta);
                let lookup = tokio::spawn(async move {
                    // A miss drops the sender: the pipeline connects as if nothing was known.
                    let fingerprint = cache_key.fingerprint(&*inner.options.credentials).await;
                    let entry = inner.cache.lookup_entry(&key, &fingerprint).await.ok()?;
                    let listing = entry.listing;
                    let on_demand = inner.serves_on_demand(&config, &listing, SystemTime::now());
                    let remembered_tx = if on_demand {
                        Some(remembered_tx)
                    } else {
                        // Told before the tools are built: the connection waits for it.
                        let _ = remembered_tx.send(Remembered::Connect(listing.protocol_version));
                        None
                    };
                    inner.remember_listing(&key, &listing);
                    // Built now, while the gate waits, rather than at its answer.
                    let budget = inner.budget_of(Some(&config));
                    let reach = if on_demand {
                        Reach::OnDemand
                    } else {
                        Reach::Deferred
                    };
                    let offered = entry
                        .tools
                        .iter()
                        .map(|tool| {
                            let name = tool_name(&key, &tool.name);
                            let budget = budget.clone();
                            inner.managed_tool(
                                &key,
                                name,
                                tool,
                                Some(&config),
                                Some(&source),
                                budget,
                                reach,
                            )
                        })
                        .collect();
                    if let Some(remembered_tx) = remembered_tx {
                        let tools = entry.tools.clone();
                        let _ = remembered_tx.send(Remembered::OnDemand { tools, listing });
                    }
                    Some((entry.tools, offered))
                });
                started.push(Started {
                    name: name.clone(),
                    id,
                    outcome,
                    lookup,
                });
            }
        }

        for server in &mut started {
            let _ =
                tokio::time::timeout_at(deadline, server.outcome.wait_for(Option::is_some)).await;
        }
        // The cache had the whole gate to answer; a store that is still busy counts as a miss.
        // Servers that already finished need no cached tools: their lookup is not waited for.
        let mut cached = HashMap::new();
        let mut prebuilt = Prebuilt::new();
        for server in &mut started {
            if server.outcome.borrow().is_some() {
                server.lookup.abort();
                continue;
            }
            let grace = deadline.max(Instant::now()) + Duration::from_millis(50);
            match tokio::time::timeout_at(grace, &mut server.lookup).await {
                Ok(Ok(Some(found))) => {
                    cached.insert(server.name.clone(), found);
                }
                Ok(_) => {}
                // Not left running past the gate.
                Err(_) => server.lookup.abort(),
            }
        }
        {
            let mut gate = lock(&gate);
            let mut state = inner.lock();
            for server in &started {
                if server.outcome.borrow().is_some() {
                    continue;
                }
                // Disconnected meanwhile (or replaced by a newer attempt): nothing to offer.
                let Some(record) = state.servers.get_mut(&server.name) else {
                    continue;
                };
                match &record.state {
                    // Served on demand: its live tools were built with the lookup.
                    ServerState::OnDemand { since, .. } if *since == server.id => {
                        if let Some((_, offered)) = cached.remove(&server.name) {
                            prebuilt.insert(server.name.clone(), (server.id, offered));
                        }
                        continue;
                    }
                    still if still.is_attempt(server.id) => {}
                    _ => continue,
                }
                match cached
                    .remove(&server.name)
                    .filter(|_| !record.config.required())
                {
                    Some((tools, offered)) => {
                        // Deferred tools: the server finishes in the background.
                        if record.tools.is_none() {
                            record.tools = Some(tools);
                            prebuilt.insert(server.name.clone(), (server.id, offered));
                        }
                    }
                    None => gate.await_past_deadline(&server.name),
                }
            }
            gate.pass();
        }

        let mut errors = Vec::new();
        for Started {
            name, mut outcome, ..
        } in started
        {
            let awaited = lock(&gate).awaits(&name);
            if awaited {
                let _ = outcome.wait_for(Option::is_some).await;
            }
            if let Some(Err(error)) = outcome.borrow().clone() {
                errors.push(error);
            }
        }
        ConnectOutcome {
            tools: self.tools_with(prebuilt),
            errors,
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::expect_used, clippy::unwrap_used)]

    use mcp_cache::{MemoryToolCache, ToolCache};
    use mcp_config::{Level, ServerConfig, SourceMeta};
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
        // The answer took the tools built while the gate waited; the server is still listing,
        // so this call builds every one afresh.
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
