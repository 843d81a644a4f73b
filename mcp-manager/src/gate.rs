//! The connect pipeline and the startup gate: [`McpManager::connect_servers`].
//!
//! Each server gets its own task: record the source, skip a server already connected or
//! connecting, then validate, resolve credentials, connect, list tools and write the cache
//! ([`crate::connect`] does the first steps). The gate waits at most the startup timeout, then
//! answers with live tools, one error per failed server, and cached (deferred) tools for the
//! servers still connecting; a pending server with no cache entry, or one whose entry says
//! `required: true`, is awaited, bounded by its own timeout. A pipeline that finishes after the gate replaces only its own server's tools and is
//! reported as an event.

use std::collections::{BTreeMap, HashMap, HashSet, btree_map};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_bridge::naming::tool_name;
use mcp_cache::Fingerprint;
use mcp_config::{DiscoveredServer, ServerConfig};
use mcp_transport::{McpClient, ServerNotification, Tool};
use tokio::sync::{broadcast, watch};
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use crate::connect::{ConnectContext, connect_client};
use crate::error::ServerError;
use crate::manager::{ConnectOutcome, Connection, Inner, ManagedTool, McpManager, Prebuilt, lock};
use crate::status::{ConnectionStatus, ManagerEvent};

/// What a pipeline ended with: `None` while it runs.
pub(crate) type Outcome = Option<Result<Arc<McpClient>, ServerError>>;

/// A server connected and its tools listed; `notifications` was subscribed before listing.
pub(crate) struct Loaded {
    client: Arc<McpClient>,
    tools: Vec<Tool>,
    notifications: broadcast::Receiver<ServerNotification>,
}

/// What `finish` recorded.
enum Published {
    Connected,
    Failed {
        error: ServerError,
        had_tools: bool,
    },
    /// Disconnected meanwhile: the connection, if one was made, is to be closed.
    Unwanted(Option<Arc<McpClient>>),
}

/// A pipeline `connect_servers` started, and the cache lookup for its gate.
struct Started {
    name: String,
    id: u64,
    outcome: watch::Receiver<Outcome>,
    lookup: JoinHandle<Option<Cached>>,
}

/// A server's cached tools, and the deferred tools the gate's answer offers for them.
type Cached = (Vec<Tool>, Vec<ManagedTool>);

/// What a batch's pipelines need to know about its gate.
#[derive(Default)]
pub(crate) struct Gate {
    passed: bool,
    /// Servers the gate waits for past its deadline (pending, no cache): not "late".
    awaited: HashSet<String>,
}

impl Gate {
    /// A gate that has answered already: whatever finishes now is late.
    pub(crate) fn passed() -> Self {
        Self {
            passed: true,
            awaited: HashSet::new(),
        }
    }
}

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
            inner
                .lock()
                .sources
                .insert(name.clone(), server.source.meta.clone());
            // The cache entry is keyed by the definition as written: no secret in it, and a
            // rotated variable keeps it.
            let fingerprint = Fingerprint::of(&server.definition);
            if let Some((id, outcome)) = inner.start(name, config, &fingerprint, &gate) {
                let (inner, key, config) = (Arc::clone(inner), name.clone(), config.clone());
                let lookup = tokio::spawn(async move {
                    let tools = inner.cache.get(&key, &fingerprint).await?;
                    // Built now, while the gate waits, rather than at its answer.
                    let budget = inner.budget_of(Some(&config));
                    let offered = tools
                        .iter()
                        .map(|tool| {
                            let name = tool_name(&key, &tool.name);
                            let budget = budget.clone();
                            inner.managed_tool(&key, name, tool, Some(&config), budget, None)
                        })
                        .collect();
                    Some((tools, offered))
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
                let still_pending = state
                    .pending
                    .get(&server.name)
                    .is_some_and(|pending| pending.id == server.id);
                if !still_pending {
                    continue;
                }
                let required = servers
                    .get(&server.name)
                    .is_some_and(|server| server.config.required());
                match cached.remove(&server.name).filter(|_| !required) {
                    Some((tools, offered)) => {
                        // Deferred tools: the server finishes in the background.
                        if let btree_map::Entry::Vacant(entry) =
                            state.tools.entry(server.name.clone())
                        {
                            entry.insert(tools);
                            prebuilt.insert(server.name.clone(), (server.id, offered));
                        }
                    }
                    None => {
                        gate.awaited.insert(server.name.clone());
                    }
                }
            }
            gate.passed = true;
        }

        let mut errors = Vec::new();
        for Started {
            name, mut outcome, ..
        } in started
        {
            let awaited = lock(&gate).awaited.contains(&name);
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

impl Inner {
    /// Registers a pending connection and starts its pipeline; `None` when the server is
    /// already connected or connecting.
    fn start(
        self: &Arc<Self>,
        name: &str,
        config: &ServerConfig,
        fingerprint: &Fingerprint,
        gate: &Arc<Mutex<Gate>>,
    ) -> Option<(u64, watch::Receiver<Outcome>)> {
        let (outcome_tx, outcome_rx) = watch::channel(None);
        let cancel = CancellationToken::new();
        let id = {
            let mut state = self.lock();
            if state.connections.contains_key(name) || state.pending.contains_key(name) {
                return None;
            }
            state.failures.remove(name);
            state.configs.insert(name.to_owned(), config.clone());
            state
                .fingerprints
                .insert(name.to_owned(), fingerprint.clone());
            state.add_pending(name, &cancel, &outcome_rx)
        };
        self.emit(ManagerEvent::StatusChanged {
            server: name.to_owned(),
            status: ConnectionStatus::Connecting,
        });
        let inner = Arc::clone(self);
        let (server, config, gate) = (name.to_owned(), config.clone(), Arc::clone(gate));
        let span = tracing::info_span!("mcp_server", server = %name);
        let task = tokio::spawn(
            async move {
                let result = tokio::select! {
                    result = inner.connect_and_load(&server, &config) => result,
                    () = cancel.cancelled() => return,
                };
                inner
                    .finish(&server, &config, id, result, &gate, &outcome_tx)
                    .await;
            }
            .instrument(span),
        );
        if let Some(pending) = self.lock().pending.get_mut(name).filter(|p| p.id == id) {
            pending.task = Some(task);
        }
        Some((id, outcome_rx))
    }

    /// Validate, resolve, connect, list tools: all within the server's own timeout.
    pub(crate) async fn connect_and_load(
        self: &Arc<Self>,
        name: &str,
        config: &ServerConfig,
    ) -> Result<Loaded, ServerError> {
        // At most so many servers start at once: on a small machine a hundred processes
        // spawned together would not finish their handshakes within their timeouts. The
        // permit is held until the tools are listed.
        let _starting = self.connect_permits.acquire().await.ok();
        // The server's timeout bounds the whole connection, tool listing included, from its
        // start (not from when it was queued): a server the gate awaits (no cache entry) holds
        // the session up no longer than that once it starts.
        let own = Duration::from_millis(config.timeout_ms());
        let connect_timeout = self
            .options
            .connect_timeout_cap
            .map_or(own, |cap| own.min(cap));
        let deadline = Instant::now() + connect_timeout;
        let options = self
            .client_options(name, config)
            .connect_timeout(connect_timeout);
        let source = self.lock().sources.get(name).cloned();
        let context = ConnectContext {
            storage: self.auth.as_deref(),
            oauth: &self.options.credentials,
            login: None,
            max_message_bytes: self.options.max_message_bytes,
            launcher: self.options.launcher.as_ref(),
            source: source.as_ref(),
        };
        let client = connect_client(name, config, context, options).await?;
        let client = Arc::new(client);
        // Subscribed before listing: a list change from now on is not missed, even one that
        // comes while the list is being cached and the connection registered.
        let notifications = client.subscribe();
        {
            let mut state = self.lock();
            // Not for a server disconnected meanwhile: its status would stay "connecting".
            if state.pending.contains_key(name) {
                state.tool_loads.insert(name.to_owned());
            }
        }
        // A server without the tools capability (prompts or resources only) has no tools to
        // list: it is connected with none.
        let offers_tools = client.capabilities().tools.is_some();
        let listing = async {
            if offers_tools {
                client.list_tools().await
            } else {
                Ok(Vec::new())
            }
        };
        let listed = match tokio::time::timeout_at(deadline, listing).await {
            Ok(listed) => listed,
            Err(_) => Err(mcp_transport::Error::ConnectTimeout {
                server: name.to_owned(),
                after: connect_timeout,
            }),
        };
        match listed {
            Ok(tools) => Ok(Loaded {
                client,
                tools: crate::manager::offered(config, tools),
                notifications,
            }),
            Err(error) => {
                let _ = client.close().await;
                Err(error.into())
            }
        }
    }

    /// Records a pipeline's result: the connection and its tools (written to the cache), or
    /// the failure; late ones (after the gate answered) are also events.
    pub(crate) async fn finish(
        self: &Arc<Self>,
        name: &str,
        config: &ServerConfig,
        id: u64,
        result: Result<Loaded, ServerError>,
        gate: &Mutex<Gate>,
        outcome: &watch::Sender<Outcome>,
    ) {
        if let Ok(loaded) = &result {
            self.cache_tools(name, config, &loaded.tools).await;
        }
        // The gate's lock is held until the result is recorded and published, so the gate
        // sees either a pending server or its outcome: a result the gate did not see is late.
        let (late, published) = {
            let gate = lock(gate);
            let late = gate.passed && !gate.awaited.contains(name);
            let mut state = self.lock();
            let published = if state
                .pending
                .get(name)
                .is_none_or(|pending| pending.id != id)
            {
                // Disconnected meanwhile: the result is not wanted.
                Published::Unwanted(result.ok().map(|loaded| loaded.client))
            } else {
                state.pending.remove(name);
                state.tool_loads.remove(name);
                match result {
                    Ok(loaded) => {
                        state.failures.remove(name);
                        state.tools.insert(name.to_owned(), loaded.tools);
                        let watcher = tokio::spawn(crate::manager::watch_connection(
                            Arc::downgrade(self),
                            name.to_owned(),
                            config.clone(),
                            Arc::clone(&loaded.client),
                            loaded.notifications,
                        ));
                        state.connections.insert(
                            name.to_owned(),
                            Connection {
                                client: Arc::clone(&loaded.client),
                                watcher,
                            },
                        );
                        // The status event comes before the outcome: a caller of the gate has
                        // it by the time `connect_servers` returns.
                        self.emit(ManagerEvent::StatusChanged {
                            server: name.to_owned(),
                            status: ConnectionStatus::Connected,
                        });
                        outcome.send_replace(Some(Ok(loaded.client)));
                        Published::Connected
                    }
                    Err(error) => {
                        state.failures.insert(name.to_owned(), error.clone());
                        let had_tools = state.tools.remove(name).is_some();
                        self.emit(ManagerEvent::StatusChanged {
                            server: name.to_owned(),
                            status: ConnectionStatus::not_connected(error.clone()),
                        });
                        outcome.send_replace(Some(Err(error.clone())));
                        Published::Failed { error, had_tools }
                    }
                }
            };
            (late, published)
        };
        match published {
            Published::Unwanted(unwanted) => {
                if let Some(client) = unwanted {
                    let _ = client.close().await;
                }
            }
            Published::Connected => {
                if late {
                    self.emit(ManagerEvent::ToolsChanged {
                        server: name.to_owned(),
                    });
                }
            }
            Published::Failed { error, had_tools } => {
                if late {
                    // Told through `ManagerEvent::LateError` and the status: a log line is for
                    // tracing, not for the user.
                    tracing::info!(server = name, %error, "MCP server failed after startup");
                    if had_tools {
                        self.emit(ManagerEvent::ToolsChanged {
                            server: name.to_owned(),
                        });
                    }
                    self.emit(ManagerEvent::LateError {
                        server: name.to_owned(),
                        error,
                    });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::expect_used, clippy::unwrap_used)]

    use mcp_cache::{MemoryToolCache, ToolCache};
    use mcp_config::{Level, SourceMeta};
    use serde_json::json;
    use testkit::FixtureServer;

    use super::*;
    use crate::manager::ManagerOptions;

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
        cache
            .set("slow.server", &Fingerprint::of(&server.definition), &tools)
            .await;
        let manager = McpManager::new(ManagerOptions::default(), cache, None);
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
