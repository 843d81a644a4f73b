//! The manager's state and every change of it: one map from server name to its [`Server`]
//! record, and the transitions of a record's [`ServerState`] — start, serve on demand, record a
//! result, lose a connection, reconnect — each made under one lock and told as events.
//!
//! The way from a config entry to a connected server calls down: [`Inner::start`] records the
//! server as starting and spawns a task that runs [`crate::pipeline`] (which knows nothing of
//! the records) and then [`Inner::finish`], which records the result; the startup gate
//! ([`crate::gate`]) only says whether that result is late. Reconnecting replaces the state
//! with `Reconnecting` and records its final result the same way, with no gate (the watcher
//! of a live connection and the reconnect loop are in [`crate::reconnect`]).
//!
//! A stateless server (2026-07-28) whose cached tool list is still fresh (within the `ttlMs`
//! it came with) is served **on demand**: at startup no request goes to it (for stdio, no
//! process is started), its tools are offered as live ones and it counts as connected. Its
//! connection is made at the first need — a tool call, its resources or prompts, a
//! [`crate::McpManager::wait_for_connection`] — pinned to the protocol version the cache
//! remembers; the list is not fetched again unless it went stale meanwhile (or the server's era
//! changed). Chosen over connecting in the background right after startup because that sends a
//! request (`server/discover`) the fresh list makes needless, and starts processes nobody may
//! use.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::SystemTime;

use async_trait::async_trait;
use mcp_bridge::{
    AgentTool, ConnectionError, ConnectionProvider, DeferredMcpTool, McpTool, McpToolDefinition,
    OutputBudget,
};
use mcp_cache::{CacheEntry, Listing, ToolCache};
use mcp_config::{ServerConfig, SourceMeta};
use mcp_transport::{ClientOptions, McpClient, Root, Tool};
use tokio::sync::{Semaphore, broadcast, watch};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use crate::cache_key::CacheKey;
use crate::error::{ManagerError, ServerError};
use crate::gate::{Gate, is_late};
use crate::offer::{ManagedTool, Reach, ToolSource, always_loaded};
use crate::options::ManagerOptions;
use crate::pipeline::{Loaded, Pipeline, Plan, listing_of, offered};
use crate::roots::roots_for;
use crate::server::{Attempt, Connection, Progress, Server, ServerState};
use crate::status::{ConnectionStatus, ManagerEvent};

/// What an attempt's task does to make its connection.
pub(crate) enum Work {
    /// A start: look in the cache first (within the gate's `deadline`), offering its tools
    /// while the connection is made, or serving the server on demand from them; `gate` is the
    /// startup gate waiting for the result.
    Start {
        cache_key: CacheKey,
        gate: Arc<Mutex<Gate>>,
        deadline: Instant,
    },
    /// The first use of a server served on demand: connect as its cached listing says.
    FirstUse(Plan),
    /// A connection that died: made again with the policy's backoff (see
    /// [`crate::reconnect`]); `cause` is why it died.
    Reconnect { cause: ServerError },
}

/// A server to start: its name, definition and what its cache key is made of.
pub(crate) struct Start<'a> {
    pub(crate) name: &'a str,
    pub(crate) config: &'a ServerConfig,
    pub(crate) source: Option<&'a SourceMeta>,
    pub(crate) cache_key: CacheKey,
}

pub(crate) struct Inner {
    /// Itself, for the connection a call to a server served on demand starts.
    me: Weak<Inner>,
    pub(crate) options: ManagerOptions,
    pub(crate) cache: Arc<dyn ToolCache>,
    /// One permit per server being started ([`ManagerOptions::max_parallel_starts`]).
    connect_permits: Semaphore,
    state: Mutex<State>,
    events: broadcast::Sender<ManagerEvent>,
}

/// The manager's state.
#[derive(Default)]
pub(crate) struct State {
    /// Numbers attempts, so a result of an attempt that was replaced is told apart.
    next_id: u64,
    /// One record per server, by name.
    pub(crate) servers: BTreeMap<String, Server>,
    /// The roots set since the manager started, replacing those of the client options.
    pub(crate) roots: Option<Vec<Root>>,
}

impl State {
    /// The number of the next attempt.
    pub(crate) fn next_attempt_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }
}

pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Inner {
    pub(crate) fn new(options: ManagerOptions, cache: Arc<dyn ToolCache>) -> Arc<Self> {
        Arc::new_cyclic(|me| Self {
            me: me.clone(),
            connect_permits: Semaphore::new(options.max_parallel_starts.max(1)),
            options,
            cache,
            state: Mutex::new(State::default()),
            events: broadcast::Sender::new(1024),
        })
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
        lock(&self.state)
    }

    pub(crate) fn emit(&self, event: ManagerEvent) {
        let _ = self.events.send(event);
    }

    pub(crate) fn subscribe(&self) -> broadcast::Receiver<ManagerEvent> {
        self.events.subscribe()
    }

    fn pipeline(&self) -> Pipeline<'_> {
        Pipeline {
            options: &self.options,
            cache: &*self.cache,
            permits: &self.connect_permits,
        }
    }

    /// The client options the server `name`, defined by `config`, is connected with: the
    /// manager's, with the roots chosen for this server (see [`crate::roots`]).
    pub(crate) fn client_options(&self, name: &str, config: &ServerConfig) -> ClientOptions {
        let mut options = self.options.client.clone();
        let (agent, base) = {
            let state = self.lock();
            let agent = state.roots.clone().or_else(|| options.roots.clone());
            let base = state
                .servers
                .get(name)
                .and_then(|server| server.source.as_ref())
                .and_then(|source| source.meta.path.parent())
                .map(Path::to_path_buf);
            (agent, base)
        };
        // Every server comes with the file it is defined in; one built in code without it has
        // its relative folders taken from this process's folder.
        let base = base.unwrap_or_else(|| std::env::current_dir().unwrap_or_default());
        options.roots = roots_for(config.roots(), agent, &base);
        options
    }

    /// The output budget of a server's tools: the manager's, with the size its entry sets.
    pub(crate) fn budget_of(&self, config: Option<&ServerConfig>) -> Option<Arc<OutputBudget>> {
        let mut budget = self.options.output_budget.clone()?;
        if let Some(bytes) = config.and_then(ServerConfig::output_budget) {
            budget.max_bytes = bytes;
        }
        Some(Arc::new(budget))
    }

    /// `tool` of `server` as the manager offers it under `name`, reaching its server as `reach`
    /// says; `source` is where the server is defined (kept on the tool, and its results name
    /// the provider).
    #[expect(
        clippy::too_many_arguments,
        reason = "each is what one caller knows of the server; a struct would be built per tool"
    )]
    pub(crate) fn managed_tool(
        self: &Arc<Self>,
        server: &str,
        name: String,
        tool: &Tool,
        config: Option<&ServerConfig>,
        source: Option<&ToolSource>,
        budget: Option<Arc<OutputBudget>>,
        reach: Reach<'_>,
    ) -> ManagedTool {
        let definition = McpToolDefinition::new(name, server, tool.clone())
            .with_provider(source.map(|source| Arc::clone(&source.provider)))
            .with_timeout(config.and_then(ServerConfig::tool_timeout))
            .with_budget(budget);
        let agent_tool: Arc<dyn AgentTool> = match reach {
            Reach::Connected(client) => Arc::new(McpTool::new(definition, Arc::clone(client))),
            // Through the manager: it gives the connection once made (and makes it, for a
            // server served on demand).
            Reach::OnDemand | Reach::Deferred => Arc::new(DeferredMcpTool::new(
                definition,
                Arc::clone(self) as Arc<dyn ConnectionProvider>,
            )),
        };
        ManagedTool {
            server: server.to_owned(),
            original_name: tool.name.clone(),
            deferred: reach.is_deferred(),
            tool: agent_tool,
            title: tool.title.clone(),
            always_load: config.is_some_and(ServerConfig::always_load) || always_loaded(tool),
            source: source.map(|source| Arc::clone(&source.meta)),
        }
    }

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
                    ServerState::Connected(connection) => {
                        return Ok(Arc::clone(&connection.client));
                    }
                    ServerState::Failed(error) => return Err(error.clone()),
                    ServerState::Starting(attempt)
                    | ServerState::Reconnecting { attempt, .. }
                    | ServerState::OnDemand {
                        connecting: Some(attempt),
                        ..
                    } => attempt.progress.clone(),
                    ServerState::OnDemand {
                        connecting: None, ..
                    } => {
                        drop(state);
                        let Some(this) = self.me.upgrade() else {
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
            // Failed before: started again, keeping the tools it had (deferred meanwhile).
            Some(record) => {
                record.config = config.clone();
                record.cache_key = cache_key;
                record.state = ServerState::Starting(attempt);
            }
            None => {
                state.servers.insert(
                    name.to_owned(),
                    Server {
                        source: source.map(ToolSource::of),
                        config: config.clone(),
                        cache_key,
                        tools: None,
                        protocol: None,
                        instructions: None,
                        state: ServerState::Starting(attempt),
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

    /// The one way an attempt to connect `name` begins, for a start, a first use and a
    /// reconnect alike: its task is spawned (the caller holds the state and records the
    /// attempt before the task can look at it) and does `work`, publishing its [`Progress`]
    /// on the attempt's watch, and records its result through [`Inner::finish`].
    pub(crate) fn begin_attempt(
        self: &Arc<Self>,
        id: u64,
        name: &str,
        config: &ServerConfig,
        work: Work,
    ) -> Attempt {
        let first = match work {
            Work::Start { .. } => Progress::LookingUp,
            Work::FirstUse(_) | Work::Reconnect { .. } => Progress::Connecting { cached: false },
        };
        let (progress_tx, progress) = watch::channel(first);
        let cancel = CancellationToken::new();
        let inner = Arc::clone(self);
        let (server, config, cancelled) = (name.to_owned(), config.clone(), cancel.clone());
        let span = tracing::info_span!("mcp_server", server = %name);
        let task = tokio::spawn(
            async move {
                inner
                    .run_attempt(&server, &config, id, work, &cancelled, &progress_tx)
                    .await;
            }
            .instrument(span),
        );
        Attempt {
            id,
            cancel,
            progress,
            task,
        }
    }

    /// What an attempt's task does: `work`, then the result recorded. Cancelled, it stops
    /// before a connection is made; a connection made is recorded (or closed, if the attempt
    /// is no longer the server's).
    async fn run_attempt(
        self: &Arc<Self>,
        name: &str,
        config: &ServerConfig,
        id: u64,
        work: Work,
        cancel: &CancellationToken,
        progress: &watch::Sender<Progress>,
    ) {
        match work {
            Work::Start {
                cache_key,
                gate,
                deadline,
            } => {
                let looked_up = tokio::select! {
                    found = self.look_up(name, &cache_key, deadline) => found,
                    () = cancel.cancelled() => return,
                };
                let plan = match looked_up {
                    None => {
                        progress.send_replace(Progress::Connecting { cached: false });
                        Plan::default()
                    }
                    Some(entry)
                        if self.serves_on_demand(config, &entry.listing, SystemTime::now()) =>
                    {
                        self.serve_on_demand(name, id, entry, &gate, progress);
                        return;
                    }
                    Some(entry) => self.offer_cached(name, config, id, entry, &gate, progress),
                };
                let result = tokio::select! {
                    result = self.connect_and_load(name, config, plan) => result,
                    () = cancel.cancelled() => return,
                };
                self.finish(name, config, id, result, Some(&gate), progress)
                    .await;
            }
            Work::FirstUse(plan) => {
                let result = tokio::select! {
                    result = self.connect_and_load(name, config, plan) => result,
                    () = cancel.cancelled() => return,
                };
                self.finish(name, config, id, result, None, progress).await;
            }
            Work::Reconnect { cause } => {
                tokio::select! {
                    () = self.reconnect(name, config, id, cause, progress) => {}
                    () = cancel.cancelled() => {}
                }
            }
        }
    }

    /// The cache's entry for `name` under its key, if the store answers by `deadline` (a
    /// store still busy then counts as a miss).
    async fn look_up(&self, name: &str, key: &CacheKey, deadline: Instant) -> Option<CacheEntry> {
        let lookup = async {
            let fingerprint = key.fingerprint(&*self.options.credentials).await;
            self.cache.lookup_entry(name, &fingerprint).await.ok()
        };
        tokio::time::timeout_at(deadline, lookup)
            .await
            .ok()
            .flatten()
    }

    /// Runs the pipeline for `name` with its source and client options.
    pub(crate) async fn connect_and_load(
        &self,
        name: &str,
        config: &ServerConfig,
        plan: Plan,
    ) -> Result<Loaded, ServerError> {
        let source = self.lock().servers.get(name).and_then(|record| {
            record
                .source
                .as_ref()
                .map(|source| Arc::clone(&source.meta))
        });
        let options = self.client_options(name, config);
        self.pipeline()
            .connect_and_load(name, config, source.as_deref(), options, plan)
            .await
    }

    /// Whether a server whose cache entry was listed as `listing` is served on demand: a
    /// stateless server whose list is fresh at `now`, that is not `required` and that the agent
    /// does not pin to another version.
    fn serves_on_demand(&self, config: &ServerConfig, listing: &Listing, now: SystemTime) -> bool {
        let Some(version) = listing.protocol_version else {
            return false;
        };
        version.is_stateless()
            && listing.is_fresh_at(now)
            && !config.required()
            && self
                .options
                .client
                .protocol_version
                .is_none_or(|pinned| pinned == version)
    }

    /// The cache has tools for a server being started: they are offered (deferred) while it
    /// connects, unless it is `required` (the gate waits for it) or still has the tools it kept;
    /// what the cache remembers of it (its version, its instructions) is kept. The plan of the
    /// connection: pinned to the version the cache remembers.
    fn offer_cached(
        &self,
        name: &str,
        config: &ServerConfig,
        id: u64,
        entry: CacheEntry,
        gate: &Mutex<Gate>,
        progress: &watch::Sender<Progress>,
    ) -> Plan {
        let CacheEntry { tools, listing, .. } = entry;
        let plan = Plan {
            remembered: listing.protocol_version,
            fresh_until: None,
        };
        let cached = !config.required();
        let offered = {
            // As a result is, under the gate's lock: the gate sees the lookup over or not.
            let gate = lock(gate);
            let mut state = self.lock();
            let Some(record) = state
                .servers
                .get_mut(name)
                .filter(|record| record.state.serves(id))
            else {
                return plan;
            };
            if let Some(version) = listing.protocol_version {
                record.protocol = Some(version);
            }
            record.instructions = listing.instructions;
            let offered = cached && record.tools.is_none();
            if offered {
                record.tools = Some(tools);
            }
            progress.send_replace(Progress::Connecting { cached });
            offered && gate.is_late(name)
        };
        if offered {
            self.emit(ManagerEvent::ToolsChanged {
                server: name.to_owned(),
            });
        }
        plan
    }

    /// The cache found a stateless server's list fresh: its tools are served on demand (live,
    /// and no request sent) instead of connecting now. Late (after the gate answered), it is
    /// told as a change of tools.
    fn serve_on_demand(
        &self,
        name: &str,
        id: u64,
        entry: CacheEntry,
        gate: &Mutex<Gate>,
        progress: &watch::Sender<Progress>,
    ) {
        let CacheEntry { tools, listing, .. } = entry;
        let fresh_until = listing.fresh_until();
        let late = {
            let gate = lock(gate);
            let mut state = self.lock();
            let Some(record) = state
                .servers
                .get_mut(name)
                .filter(|record| record.state.serves(id))
            else {
                // Disconnected meanwhile.
                return;
            };
            record.tools = Some(tools);
            if let Some(version) = listing.protocol_version {
                record.protocol = Some(version);
            }
            record.instructions.clone_from(&listing.instructions);
            record.state = ServerState::OnDemand {
                listing,
                connecting: None,
            };
            self.emit(ManagerEvent::StatusChanged {
                server: name.to_owned(),
                status: ConnectionStatus::Connected,
            });
            progress.send_replace(Progress::OnDemand);
            gate.is_late(name)
        };
        tracing::debug!(
            server = name,
            fresh_for_ms = fresh_until
                .and_then(|until| until.duration_since(SystemTime::now()).ok())
                .map_or(0, |left| left.as_millis()),
            "the cached tool list is fresh: served on demand, connected at first use"
        );
        if late {
            self.emit(ManagerEvent::ToolsChanged {
                server: name.to_owned(),
            });
        }
    }

    /// Connects a server served on demand, at its first use: pinned to the version the cache
    /// remembers, without listing its tools again while they are fresh. The progress of the
    /// attempt under way (this one, or one already started); `None` when the server is neither
    /// served on demand nor connecting any more.
    fn connect_on_demand(self: &Arc<Self>, name: &str) -> Option<watch::Receiver<Progress>> {
        let mut state = self.lock();
        let record = state.servers.get(name)?;
        if let Some(attempt) = record.state.attempt() {
            return Some(attempt.progress.clone());
        }
        let ServerState::OnDemand { listing, .. } = &record.state else {
            return None;
        };
        let plan = Plan {
            remembered: listing.protocol_version,
            fresh_until: listing.fresh_until(),
        };
        let config = record.config.clone();
        let id = state.next_attempt_id();
        tracing::debug!(
            server = name,
            "connecting a server served on demand, at its first use"
        );
        let attempt = self.begin_attempt(id, name, &config, Work::FirstUse(plan));
        let progress = attempt.progress.clone();
        if let Some(ServerState::OnDemand { connecting, .. }) =
            state.servers.get_mut(name).map(|record| &mut record.state)
        {
            *connecting = Some(attempt);
        }
        Some(progress)
    }

    /// Records the result of attempt `id`: the connection and its tools (written to the
    /// cache), or the failure; late ones (see [`crate::gate`]) are also events. The result of
    /// an attempt that is no longer the server's (disconnected meanwhile) is dropped, its
    /// connection closed.
    pub(crate) async fn finish(
        self: &Arc<Self>,
        name: &str,
        config: &ServerConfig,
        id: u64,
        result: Result<Loaded, ServerError>,
        gate: Option<&Mutex<Gate>>,
        progress: &watch::Sender<Progress>,
    ) {
        if let Ok(Loaded {
            tools: Some(tools),
            listing,
            ..
        }) = &result
        {
            self.cache_tools(name, tools, listing).await;
        }
        // The gate's lock is held until the result is recorded and published, so the gate
        // sees either a server still connecting or its result.
        let (late, recorded) = {
            let gate = gate.map(lock);
            let late = is_late(gate.as_deref(), name);
            let mut state = self.lock();
            let recorded = match state
                .servers
                .get_mut(name)
                .filter(|record| record.state.serves(id))
            {
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
                record.protocol = Some(loaded.client.protocol_version());
                record.instructions = loaded.client.instructions().map(str::to_owned);
                // Not listed: the tools held (served on demand) are still fresh.
                if let Some(tools) = loaded.tools {
                    record.tools = Some(tools);
                }
                let watcher = tokio::spawn(crate::reconnect::watch_connection(
                    Arc::downgrade(self),
                    name.to_owned(),
                    config.clone(),
                    Arc::clone(&loaded.client),
                    loaded.notifications,
                ));
                record.state = ServerState::Connected(Connection {
                    client: Arc::clone(&loaded.client),
                    watcher,
                });
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
                record.state = ServerState::Failed(error.clone());
                let had_tools = record.tools.take().is_some();
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

    /// A server's list changed: list again, replace its tools, update the cache.
    pub(crate) async fn relist(&self, name: &str, config: &ServerConfig, client: &McpClient) {
        match client.list_tools_with_ttl().await {
            Ok(list) => {
                let listing = listing_of(client, list.ttl);
                let tools = offered(config, list.tools);
                self.cache_tools(name, &tools, &listing).await;
                let replaced = {
                    let mut state = self.lock();
                    match state.servers.get_mut(name) {
                        Some(record) if record.state.client().is_some() => {
                            record.tools = Some(tools);
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

#[async_trait]
impl ConnectionProvider for Inner {
    async fn wait_for_connection(&self, server: &str) -> Result<Arc<McpClient>, ConnectionError> {
        self.wait(server)
            .await
            .map_err(|error| Arc::new(error) as ConnectionError)
    }
}
