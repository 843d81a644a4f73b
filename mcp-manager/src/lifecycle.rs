//! The transitions of a server's record ([`Server`], its [`ServerState`]) that start it, wait
//! for it and record how its attempt ended — each made under the state's lock and told as
//! events.
//!
//! The way from a config entry to a connected server calls down: [`Inner::start`] records the
//! server as starting and begins its attempt ([`crate::attempt`]), whose task looks in the
//! cache, runs [`crate::pipeline`] (which knows nothing of the records) and then
//! [`Inner::finish`], which records the result; the startup gate ([`crate::gate`]) only says
//! whether that result is late. A first use of a server served on demand and a reconnect
//! ([`crate::reconnect`]) are attempts begun the same way and recorded the same way, with no
//! gate; a live connection is followed by [`crate::watcher`], which re-lists its tools here
//! ([`Inner::relist`]).

use std::sync::{Arc, Mutex};

use mcp_cache::Listing;
use mcp_config::{ServerConfig, SourceMeta};
use mcp_transport::{McpClient, SkillEntry, Tool};
use tokio::sync::watch;
use tokio::time::Instant;

use crate::attempt::Work;
use crate::cache_key::CacheKey;
use crate::error::{ManagerError, ServerError};
use crate::gate::{Gate, is_late};
use crate::inner::{Inner, lock};
use crate::offer::ToolSource;
use crate::pipeline::{Loaded, listing_of, offered};
use crate::server::{Connection, Progress, Server, ServerState};
use crate::status::{ConnectionStatus, ManagerEvent};
use crate::watcher::watch_connection;

/// A server to start: its name, definition and what its cache key is made of.
pub(crate) struct Start<'a> {
    pub(crate) name: &'a str,
    pub(crate) config: &'a ServerConfig,
    pub(crate) source: Option<&'a SourceMeta>,
    pub(crate) cache_key: CacheKey,
}

impl Inner {
    /// The connection of `server`: the live one, the one under way once made, or (for a server
    /// served on demand) one made now.
    pub(crate) async fn wait(&self, server: &str) -> Result<Arc<McpClient>, ServerError> {
        let not_connected = || {
            ServerError::new(ManagerError::NotConnected {
                server: server.to_owned(),
            })
        };
        // An attempt may end without a connection and without a failure: cancelled, or it found
        // the cached list fresh and left the server on demand. Then it is looked at again.
        for _ in 0..3 {
            let mut progress = {
                let state = self.lock();
                let Some(record) = state.servers.get(server) else {
                    return Err(not_connected());
                };
                match &record.state {
                    ServerState::Connected { connection, .. } => {
                        return Ok(Arc::clone(&connection.client));
                    }
                    ServerState::Failed(error) => return Err(error.clone()),
                    ServerState::Starting { attempt, .. }
                    | ServerState::Reconnecting { attempt, .. }
                    | ServerState::OnDemand {
                        connecting: Some(attempt),
                        ..
                    } => attempt.progress.clone(),
                    ServerState::OnDemand {
                        connecting: None, ..
                    } => {
                        drop(state);
                        let Some(this) = self.shared() else {
                            return Err(not_connected());
                        };
                        match this.connect_on_demand(server) {
                            Some(progress) => progress,
                            None => continue,
                        }
                    }
                }
            };
            if let Ok(ended) = progress.wait_for(Progress::has_ended).await
                && let Progress::Done(result) = &*ended
            {
                return result.clone();
            }
        }
        Err(not_connected())
    }

    /// Starts `server` unless it is already connected, connecting or served on demand: records
    /// it as starting, its attempt looking in the cache first (until `deadline`); `gate` is the
    /// startup gate waiting for it. The attempt's id and the progress it publishes, when it
    /// started.
    pub(crate) fn start(
        self: &Arc<Self>,
        server: Start<'_>,
        gate: &Arc<Mutex<Gate>>,
        deadline: Instant,
    ) -> Option<(u64, watch::Receiver<Progress>)> {
        let Start {
            name,
            config,
            source,
            cache_key,
        } = server;
        let mut state = self.lock();
        if let Some(record) = state.servers.get_mut(name) {
            if record.source.as_ref().map(|kept| &*kept.meta) != source {
                record.source = source.map(ToolSource::of);
            }
            if record.state.is_running() {
                return None;
            }
        }
        let id = state.next_attempt_id();
        let work = Work::Start {
            cache_key: cache_key.clone(),
            gate: Arc::clone(gate),
            deadline,
        };
        let attempt = self.begin_attempt(id, name, config, work);
        let progress = attempt.progress.clone();
        match state.servers.get_mut(name) {
            // Failed before: started again.
            Some(record) => {
                record.config = config.clone();
                record.cache_key = cache_key;
                record.state = ServerState::Starting {
                    attempt,
                    cached: None,
                };
            }
            None => {
                state.servers.insert(
                    name.to_owned(),
                    Server {
                        source: source.map(ToolSource::of),
                        config: config.clone(),
                        cache_key,
                        state: ServerState::Starting {
                            attempt,
                            cached: None,
                        },
                    },
                );
            }
        }
        // Told under the state lock: no step of the attempt is told before it.
        self.emit(ManagerEvent::StatusChanged {
            server: name.to_owned(),
            status: ConnectionStatus::Connecting,
        });
        Some((id, progress))
    }

    /// Records the result of attempt `id`: the connection, its tools and its skills (written
    /// to the cache), or the failure; late ones (see [`crate::gate`]) are also events. The
    /// result of an attempt that is no longer the server's (disconnected meanwhile) is
    /// dropped, its connection closed.
    pub(crate) async fn finish(
        self: &Arc<Self>,
        name: &str,
        config: &ServerConfig,
        id: u64,
        mut result: Result<Loaded, ServerError>,
        gate: Option<&Mutex<Gate>>,
        progress: &watch::Sender<Progress>,
    ) {
        if let Ok(Loaded {
            tools: Some(tools),
            skills,
            listing,
            ..
        }) = &mut result
        {
            // Skills that could not be listed now are those held, in the cache as in the
            // record.
            if skills.is_none() {
                listing.skills = self.held_skills(name);
            }
            self.cache_tools(name, tools, listing).await;
        }
        // The gate's lock is held until the result is recorded and published, so the gate
        // sees either a server still connecting or its result.
        let (late, recorded) = {
            let gate = gate.map(lock);
            let late = is_late(gate.as_deref(), name);
            let mut state = self.lock();
            let recorded = match state.serving_mut(name, id) {
                None => Recorded::Unwanted(result.ok().map(|loaded| loaded.client)),
                Some(record) => self.record(name, config, record, result, progress),
            };
            (late, recorded)
        };
        match recorded {
            Recorded::Unwanted(unwanted) => {
                if let Some(client) = unwanted {
                    let _ = client.close().await;
                }
            }
            Recorded::Connected => {
                if late {
                    self.emit(ManagerEvent::ToolsChanged {
                        server: name.to_owned(),
                    });
                }
            }
            Recorded::Failed { error, had_tools } => {
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

    /// Records `result` on the server's record (under the state lock) and publishes it.
    fn record(
        self: &Arc<Self>,
        name: &str,
        config: &ServerConfig,
        record: &mut Server,
        result: Result<Loaded, ServerError>,
        progress: &watch::Sender<Progress>,
    ) -> Recorded {
        match result {
            Ok(loaded) => {
                // Not listed: the tools held (served on demand) are still fresh.
                let tools = loaded.tools.unwrap_or_else(|| {
                    record
                        .state
                        .tools()
                        .map(<[Tool]>::to_vec)
                        .unwrap_or_default()
                });
                let skills = loaded.skills.unwrap_or_else(|| {
                    record
                        .state
                        .skills()
                        .map(|(skills, _)| skills.to_vec())
                        .unwrap_or_default()
                });
                let watcher = tokio::spawn(watch_connection(
                    Arc::downgrade(self),
                    name.to_owned(),
                    config.clone(),
                    Arc::clone(&loaded.client),
                    loaded.notifications,
                ));
                record.state = ServerState::Connected {
                    connection: Connection {
                        client: Arc::clone(&loaded.client),
                        watcher,
                    },
                    tools,
                    skills,
                };
                // The status event comes before the result: a caller of the gate has it by
                // the time `connect_servers` returns.
                self.emit(ManagerEvent::StatusChanged {
                    server: name.to_owned(),
                    status: ConnectionStatus::Connected,
                });
                progress.send_replace(Progress::Done(Ok(loaded.client)));
                Recorded::Connected
            }
            Err(error) => {
                let had_tools = record.state.tools().is_some();
                record.state = ServerState::Failed(error.clone());
                self.emit(ManagerEvent::StatusChanged {
                    server: name.to_owned(),
                    status: ConnectionStatus::not_connected(error.clone()),
                });
                progress.send_replace(Progress::Done(Err(error.clone())));
                Recorded::Failed { error, had_tools }
            }
        }
    }

    /// Writes a server's tools to the cache with how they were listed, under its cache key
    /// with the login kept for it now (a connection may have logged in). A server no longer
    /// recorded (disconnected meanwhile) has no key: nothing is written.
    async fn cache_tools(&self, name: &str, tools: &[Tool], listing: &Listing) {
        let Some(key) = self
            .lock()
            .servers
            .get(name)
            .map(|record| record.cache_key.clone())
        else {
            return;
        };
        let fingerprint = key.fingerprint(&*self.options.credentials).await;
        self.cache
            .set_entry(name, &fingerprint, tools, listing)
            .await;
    }

    /// The skills the server offers now (none when it offers none or is not recorded).
    fn held_skills(&self, name: &str) -> Vec<SkillEntry> {
        self.lock()
            .servers
            .get(name)
            .and_then(|record| record.state.skills())
            .map(|(skills, _)| skills.to_vec())
            .unwrap_or_default()
    }

    /// A server's list changed: list again, replace its tools, update the cache (its skills
    /// kept as they are).
    pub(crate) async fn relist(&self, name: &str, config: &ServerConfig, client: &McpClient) {
        tracing::debug!(server = name, "re-listing tools after a change");
        match client.list_tools_with_ttl().await {
            Ok(list) => {
                let listing = listing_of(client, list.ttl).with_skills(self.held_skills(name));
                let tools = offered(config, list.tools);
                self.cache_tools(name, &tools, &listing).await;
                let replaced = {
                    let mut state = self.lock();
                    match state.servers.get_mut(name).map(|record| &mut record.state) {
                        Some(ServerState::Connected { tools: held, .. }) => {
                            *held = tools;
                            true
                        }
                        _ => false,
                    }
                };
                if replaced {
                    self.emit(ManagerEvent::ToolsChanged {
                        server: name.to_owned(),
                    });
                }
            }
            // A connection closing meanwhile (the session shutting down, or the server gone,
            // which its watcher reports) is no failure of the re-listing worth a warning.
            Err(error) if error.is_connection_closed() => {
                tracing::debug!(server = name, %error, "re-listing tools after a change stopped");
            }
            Err(error) => {
                tracing::warn!(server = name, %error, "re-listing tools after a change failed");
            }
        }
    }
}

/// What [`Inner::finish`] recorded.
enum Recorded {
    Connected,
    Failed {
        error: ServerError,
        had_tools: bool,
    },
    /// Not the server's attempt any more: the connection, if one was made, is to be closed.
    Unwanted(Option<Arc<McpClient>>),
}
