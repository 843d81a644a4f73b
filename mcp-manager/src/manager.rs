//! [`McpManager`]: the registries of connections, pending connections, pending tool loads, tools,
//! sources and failures; the tools it offers; status; disconnects; following each connection
//! (list changes, death). The connect pipeline and the startup gate are in [`crate::gate`].
//!
//! A stateless server (2026-07-28) whose cached tool list is still fresh (within the `ttlMs`
//! it came with) is served **on demand**: at startup no request goes to it (for stdio, no
//! process is started), its tools are offered as live ones and it counts as connected. Its
//! connection is made at the first need — a tool call, its resources or prompts, a
//! [`McpManager::wait_for_connection`] — pinned to the protocol version the cache remembers;
//! the list is not fetched again unless it went stale meanwhile (or the server's era changed).
//! Chosen over connecting in the background right after startup because that sends a request
//! (`server/discover`) the fresh list makes needless, and starts processes nobody may use.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::{Duration, SystemTime};

use async_trait::async_trait;
use mcp_bridge::naming::{Precedence, assign_names_with_precedence};
use mcp_bridge::{
    AgentTool, ConnectionError, ConnectionProvider, DeferredMcpTool, McpTool, McpToolDefinition,
    OutputBudget, ToolProvider,
};
use mcp_cache::{Fingerprint, Listing, ToolCache};
use mcp_config::{AuthStorage, DiscoveredServer, ServerConfig, SourceMeta};
use mcp_transport::framing::DEFAULT_MAX_MESSAGE_BYTES;
use mcp_transport::oauth::{CredentialStore, MemoryCredentialStore};
use mcp_transport::protocol::methods;
use mcp_transport::{
    ClientOptions, Launcher, McpClient, ProtocolVersion, Root, ServerNotification, Tool,
};
use tokio::sync::{broadcast, watch};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::error::{ManagerError, ServerError};
use crate::gate::Outcome;
use crate::reconnect::{HealthCheck, ReconnectPolicy, Reconnecting};
use crate::status::{ConnectionStatus, ManagerEvent};

/// How the manager connects.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ManagerOptions {
    /// How long `connect_servers` waits before answering with what is ready (and cached tools
    /// for the rest). Default 250 ms.
    pub startup_timeout: Duration,
    /// How every server is connected: the client name and version sent, the agent's roots
    /// (none by default; a server's own `roots` setting wins, see [`McpManager::set_roots`]),
    /// the timeout of `tools/list` and of tool calls without their own (60 s by default). The
    /// connect timeout is each server's own (its `timeout`, 30 s by default).
    pub client: ClientOptions,
    /// Where OAuth logins to remote servers are kept, by server URL (the session's is a file
    /// in the user's config directory). Default: in memory, so a remote server that wants a
    /// login shows as needing one.
    pub credentials: Arc<dyn CredentialStore>,
    /// The longest message accepted from a server whose entry sets no `maxMessageBytes`
    /// (32 MiB by default). A longer answer fails its own call; the connection lives on.
    pub max_message_bytes: usize,
    /// How a connection that died is made again (on by default: 5 attempts, 0.5 s doubling to
    /// at most 30 s, 20% jitter).
    pub reconnect: ReconnectPolicy,
    /// The health ping, off by default.
    pub health_check: Option<HealthCheck>,
    /// How many servers are started (spawned or dialled, handshake and tool listing) at once;
    /// the others wait their turn, and a server's timeout starts with its turn. Default: eight
    /// per CPU core, at least eight.
    pub max_parallel_starts: usize,
    /// What one tool result may cost the model's context (a server's `outputBudget` overrides
    /// the size); `None` lets results through whole. Default: 100 KiB, cut results not kept
    /// (a session keeps them in its own directory).
    pub output_budget: Option<OutputBudget>,
    /// The program stdio servers are started through (see [`Launcher`]); `None`, the default,
    /// starts them directly. The `agent-session` CLI uses itself, so that its servers get a
    /// parent-death signal and die with it even when it is killed with SIGKILL.
    pub launcher: Option<Launcher>,
    /// The longest any server may take to connect and list its tools, whatever its own
    /// `timeout` says (a shorter one still applies); `None`, the default, leaves each server's
    /// own. A one-shot command that must answer in time (`list --timeout-ms`) sets it.
    pub connect_timeout_cap: Option<Duration>,
}

impl Default for ManagerOptions {
    fn default() -> Self {
        Self {
            startup_timeout: DEFAULT_STARTUP_TIMEOUT,
            client: ClientOptions::default(),
            credentials: Arc::new(MemoryCredentialStore::new()),
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            reconnect: ReconnectPolicy::default(),
            health_check: None,
            max_parallel_starts: std::thread::available_parallelism()
                .map_or(8, |cores| cores.get() * 8)
                .max(8),
            output_budget: Some(OutputBudget::default()),
            launcher: None,
            connect_timeout_cap: None,
        }
    }
}

/// How long the startup gate waits by default.
const DEFAULT_STARTUP_TIMEOUT: Duration = Duration::from_millis(250);

impl ManagerOptions {
    /// Sets the startup gate.
    #[must_use]
    pub fn startup_timeout(mut self, timeout: Duration) -> Self {
        self.startup_timeout = timeout;
        self
    }

    /// Sets how servers are connected.
    #[must_use]
    pub fn client(mut self, options: ClientOptions) -> Self {
        self.client = options;
        self
    }

    /// Starts stdio servers through `launcher`.
    #[must_use]
    pub fn launcher(mut self, launcher: Option<Launcher>) -> Self {
        self.launcher = launcher;
        self
    }

    /// Starts at most `count` servers at once.
    #[must_use]
    pub fn max_parallel_starts(mut self, count: usize) -> Self {
        self.max_parallel_starts = count;
        self
    }

    /// How dead connections are made again.
    #[must_use]
    pub fn reconnect(mut self, policy: ReconnectPolicy) -> Self {
        self.reconnect = policy;
        self
    }

    /// Pings every connected server as `check` says; one that does not answer is restarted.
    #[must_use]
    pub fn health_check(mut self, check: HealthCheck) -> Self {
        self.health_check = Some(check);
        self
    }

    /// The longest message accepted from servers that do not set their own limit.
    #[must_use]
    pub fn max_message_bytes(mut self, bytes: usize) -> Self {
        self.max_message_bytes = bytes;
        self
    }

    /// Keeps OAuth logins in `store`.
    #[must_use]
    pub fn credentials(mut self, store: Arc<dyn CredentialStore>) -> Self {
        self.credentials = store;
        self
    }
}

/// A tool the manager offers, with where it comes from.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ManagedTool {
    /// The server's configured name.
    pub server: String,
    /// The tool's name on the server.
    pub original_name: String,
    /// True while the tool comes from the cache and its server is not connected yet (a
    /// stateless server's tools served on demand from a fresh cached list are live: false).
    pub deferred: bool,
    /// The tool itself.
    pub tool: Arc<dyn AgentTool>,
    /// Where the server is defined (provider, file, level); `None` when the manager was not
    /// told. [`path`](Self::path) shows it as `mcp:<server> via <provider>`.
    pub source: Option<SourceMeta>,
}

/// Deferred tools built ahead, by server: the attempt they were built for, and the tools in
/// the order of the server's cached tools, each under the name it has when no other server's
/// tool takes it.
pub(crate) type Prebuilt = HashMap<String, (u64, Vec<ManagedTool>)>;

/// What `connect_servers` answers at the startup gate.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct ConnectOutcome {
    /// Every tool the manager offers now: live tools, and deferred ones from the cache.
    pub tools: Vec<ManagedTool>,
    /// The servers of this call that failed before the answer.
    pub errors: Vec<ServerError>,
}

/// Connects MCP servers and keeps their tools. Share it as `Arc<McpManager>`.
pub struct McpManager {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    /// Itself, for the connection a call to a server served on demand starts.
    me: Weak<Inner>,
    pub(crate) options: ManagerOptions,
    pub(crate) cache: Arc<dyn ToolCache>,
    pub(crate) auth: Option<Arc<dyn AuthStorage>>,
    /// One permit per server being started ([`ManagerOptions::max_parallel_starts`]).
    pub(crate) connect_permits: tokio::sync::Semaphore,
    state: Mutex<State>,
    events: broadcast::Sender<ManagerEvent>,
}

/// The registries, each keyed by server name.
#[derive(Default)]
pub(crate) struct State {
    pub(crate) next_id: u64,
    /// Live connections.
    pub(crate) connections: HashMap<String, Connection>,
    /// Connections being made (handshake or tool listing in flight).
    pub(crate) pending: HashMap<String, Pending>,
    /// Connected servers whose tools are being listed.
    pub(crate) tool_loads: HashSet<String>,
    /// Each server's tools, live or from the cache.
    pub(crate) tools: BTreeMap<String, Vec<Tool>>,
    /// Where each server is defined, known before a connection exists.
    pub(crate) sources: HashMap<String, SourceMeta>,
    /// Each server's configuration, as it was last connected with.
    pub(crate) configs: HashMap<String, ServerConfig>,
    /// Each server's cache key: the fingerprint of its definition as written.
    pub(crate) fingerprints: HashMap<String, Fingerprint>,
    /// Why a server is not connected, after a failure.
    pub(crate) failures: HashMap<String, ServerError>,
    /// Servers whose connection died and is being made again (they are also pending).
    pub(crate) reconnecting: HashMap<String, Reconnecting>,
    /// The roots set since the manager started, replacing those of the client options.
    pub(crate) roots: Option<Vec<Root>>,
    /// The protocol version each server spoke last: its connection's, or the one the cache
    /// remembers for a server whose tools come from the cache.
    pub(crate) protocols: HashMap<String, ProtocolVersion>,
    /// Stateless servers served on demand from a fresh cached list (see the module
    /// documentation); they stay here while the connection of their first use is made.
    pub(crate) on_demand: HashMap<String, OnDemand>,
}

/// A stateless server served on demand.
#[derive(Debug, Clone, Copy)]
pub(crate) struct OnDemand {
    /// The attempt whose cache lookup found the list fresh (its tools may be built already).
    pub(crate) id: u64,
    /// How the list was listed: the protocol version to connect with, and until when the list
    /// is fresh.
    pub(crate) listing: Listing,
}

impl State {
    /// Every server some registry holds, sorted.
    fn known_servers(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .connections
            .keys()
            .chain(self.pending.keys())
            .chain(self.failures.keys())
            .chain(self.tools.keys())
            .chain(self.on_demand.keys())
            .chain(self.sources.keys())
            .cloned()
            .collect();
        names.sort();
        names.dedup();
        names
    }
}

pub(crate) struct Connection {
    pub(crate) client: Arc<McpClient>,
    pub(crate) watcher: JoinHandle<()>,
}

pub(crate) struct Pending {
    pub(crate) id: u64,
    pub(crate) cancel: CancellationToken,
    pub(crate) outcome: watch::Receiver<Outcome>,
    pub(crate) task: Option<JoinHandle<()>>,
}

impl State {
    /// Registers a connection being made for `name` (its task comes later); its id.
    pub(crate) fn add_pending(
        &mut self,
        name: &str,
        cancel: &CancellationToken,
        outcome: &watch::Receiver<Outcome>,
    ) -> u64 {
        self.next_id += 1;
        let id = self.next_id;
        self.pending.insert(
            name.to_owned(),
            Pending {
                id,
                cancel: cancel.clone(),
                outcome: outcome.clone(),
                task: None,
            },
        );
        id
    }
}

impl McpManager {
    /// A manager with a tool cache and, optionally, the agent's credential store.
    pub fn new(
        options: ManagerOptions,
        cache: Arc<dyn ToolCache>,
        auth: Option<Arc<dyn AuthStorage>>,
    ) -> Self {
        Self {
            inner: Arc::new_cyclic(|me| Inner {
                me: me.clone(),
                connect_permits: tokio::sync::Semaphore::new(options.max_parallel_starts.max(1)),
                options,
                cache,
                auth,
                state: Mutex::new(State::default()),
                events: broadcast::Sender::new(1024),
            }),
        }
    }

    /// Events from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<ManagerEvent> {
        self.inner.events.subscribe()
    }

    /// Every tool the manager offers now, named across all servers.
    pub fn tools(&self) -> Vec<ManagedTool> {
        self.tools_with(HashMap::new())
    }

    /// [`tools`](Self::tools), taking the deferred tools of a server from `prebuilt` (built
    /// while the startup gate waited: at its answer, building 10,000 took tens of milliseconds)
    /// when they are still what it would build: the server is still pending under the attempt
    /// they were built for (so its tools are still the cached ones), and each keeps its name.
    pub(crate) fn tools_with(&self, mut prebuilt: Prebuilt) -> Vec<ManagedTool> {
        let state = self.inner.lock();
        let pairs: Vec<(&str, &str)> = state
            .tools
            .iter()
            .flat_map(|(server, tools)| {
                tools
                    .iter()
                    .map(move |tool| (server.as_str(), tool.name.as_str()))
            })
            .collect();
        // The user's own servers keep their names before a project folder's servers.
        let precedence: Vec<Precedence> = state
            .tools
            .iter()
            .flat_map(|(server, tools)| {
                let from_project = state
                    .sources
                    .get(server)
                    .is_some_and(|meta| meta.in_project_folder);
                let precedence = if from_project {
                    Precedence::Project
                } else {
                    Precedence::User
                };
                std::iter::repeat_n(precedence, tools.len())
            })
            .collect();
        // In the order of `pairs`: server by server, each server's tools in order.
        let mut names = assign_names_with_precedence(&pairs, &precedence).into_iter();
        let mut offered = Vec::with_capacity(pairs.len());
        for (server, tools) in &state.tools {
            let live = state.connections.get(server);
            let on_demand = state.on_demand.get(server);
            let reach = match (live, on_demand) {
                (Some(connection), _) => Reach::Connected(&connection.client),
                (None, Some(_)) => Reach::OnDemand,
                (None, None) => Reach::Deferred,
            };
            let still_pending = |id: &u64| {
                state
                    .pending
                    .get(server)
                    .is_some_and(|pending| pending.id == *id)
            };
            let served_since = |id: &u64| on_demand.is_some_and(|served| served.id == *id);
            // In the order of the server's tools, like `tools`.
            let mut built = prebuilt
                .remove(server)
                .filter(|(id, _)| live.is_none() && (still_pending(id) || served_since(id)))
                .map(|(_, built)| built.into_iter());
            let config = state.configs.get(server);
            let source = state.sources.get(server);
            let mut budget = None;
            for (tool, name) in tools.iter().zip(names.by_ref()) {
                match built.as_mut().and_then(Iterator::next) {
                    Some(built)
                        if built.original_name == tool.name
                            && built.tool.name() == name
                            && built.deferred == reach.is_deferred() =>
                    {
                        offered.push(built);
                    }
                    _ => {
                        let budget = budget
                            .get_or_insert_with(|| self.inner.budget_of(config))
                            .clone();
                        offered.push(
                            self.inner
                                .managed_tool(server, name, tool, config, source, budget, reach),
                        );
                    }
                }
            }
        }
        offered
    }

    /// Where a server stands. A stateless server served on demand (see the crate documentation)
    /// is connected: its tools are live and a call needs no session.
    pub fn get_connection_status(&self, server: &str) -> ConnectionStatus {
        let state = self.inner.lock();
        if state.connections.contains_key(server) || state.on_demand.contains_key(server) {
            ConnectionStatus::Connected
        } else if let Some(reconnecting) = state.reconnecting.get(server) {
            ConnectionStatus::Reconnecting {
                attempt: reconnecting.attempt,
                cause: reconnecting.cause.clone(),
            }
        } else if state.pending.contains_key(server) || state.tool_loads.contains(server) {
            ConnectionStatus::Connecting
        } else if let Some(failure) = state.failures.get(server) {
            ConnectionStatus::not_connected(failure.clone())
        } else {
            ConnectionStatus::Disconnected
        }
    }

    /// The protocol version `server` speaks: its connection's; for a server whose tools come from
    /// the cache without a connection (still connecting, reconnecting, or served on demand), the
    /// one the cache remembers (or its last connection's); `None` when neither is known.
    pub fn protocol_version(&self, server: &str) -> Option<ProtocolVersion> {
        let state = self.inner.lock();
        if let Some(connection) = state.connections.get(server) {
            return Some(connection.client.protocol_version());
        }
        if !state.tools.contains_key(server) {
            return None;
        }
        state.protocols.get(server).copied()
    }

    /// The servers the manager knows of (connected, connecting, failed or with tools), sorted.
    pub fn server_names(&self) -> Vec<String> {
        self.inner.lock().known_servers()
    }

    /// Where a server's configuration came from.
    pub fn server_source(&self, server: &str) -> Option<SourceMeta> {
        self.inner.lock().sources.get(server).cloned()
    }

    /// The live connection, the pending one once it is made, or
    /// `MCP server not connected: <name>`.
    pub async fn wait_for_connection(&self, server: &str) -> Result<Arc<McpClient>, ServerError> {
        self.inner.wait(server).await
    }

    /// Disconnects one server: its pending connection is cancelled, its connection closed, its
    /// tools and source forgotten. Other servers are untouched.
    pub async fn disconnect_server(&self, server: &str) {
        let (pending, connection, had_tools, had_failed) = {
            let mut state = self.inner.lock();
            state.tool_loads.remove(server);
            state.sources.remove(server);
            state.configs.remove(server);
            state.fingerprints.remove(server);
            state.reconnecting.remove(server);
            state.protocols.remove(server);
            state.on_demand.remove(server);
            (
                state.pending.remove(server),
                state.connections.remove(server),
                state.tools.remove(server).is_some(),
                // A failed server's last status event said "failed": it is told "disconnected".
                state.failures.remove(server).is_some(),
            )
        };
        let known = pending.is_some() || connection.is_some() || had_tools || had_failed;
        stop_pending(pending).await;
        close_connection(connection).await;
        if known {
            self.inner.emit(ManagerEvent::StatusChanged {
                server: server.to_owned(),
                status: ConnectionStatus::Disconnected,
            });
            self.inner.emit(ManagerEvent::ToolsChanged {
                server: server.to_owned(),
            });
        }
    }

    /// Prepares a reload to `servers`: disconnects every server that is gone from them, whose
    /// configuration changed, or that is not connected (failed, needing a login, disconnected),
    /// and keeps the others — their connection, process and calls in flight — untouched. The
    /// servers disconnected, sorted; `connect_servers` with the same map then starts them (and
    /// leaves the kept ones alone).
    pub async fn disconnect_changed(
        &self,
        servers: &BTreeMap<String, DiscoveredServer>,
    ) -> Vec<String> {
        let changed: Vec<String> = {
            let state = self.inner.lock();
            state
                .known_servers()
                .into_iter()
                .filter(|name| {
                    let running = state.connections.contains_key(name)
                        || state.pending.contains_key(name)
                        || state.on_demand.contains_key(name);
                    let same =
                        servers.get(name).map(|server| &server.config) == state.configs.get(name);
                    !(running && same)
                })
                .collect()
        };
        for name in &changed {
            self.disconnect_server(name).await;
        }
        changed
    }

    /// Disconnects everything: in-flight connections are cancelled (their processes killed),
    /// every connection is closed concurrently, every registry cleared. When this returns no
    /// server process and no task of the manager is left.
    pub async fn disconnect_all(&self) {
        let (pending, connections, servers) = {
            let mut state = self.inner.lock();
            let servers = state.known_servers();
            state.tool_loads.clear();
            state.tools.clear();
            state.sources.clear();
            state.configs.clear();
            state.fingerprints.clear();
            state.failures.clear();
            state.reconnecting.clear();
            state.protocols.clear();
            state.on_demand.clear();
            (
                std::mem::take(&mut state.pending),
                std::mem::take(&mut state.connections),
                servers,
            )
        };
        for pending in pending.values() {
            pending.cancel.cancel();
        }
        let mut closing = tokio::task::JoinSet::new();
        for (_, pending) in pending {
            closing.spawn(stop_pending(Some(pending)));
        }
        for (_, connection) in connections {
            closing.spawn(close_connection(Some(connection)));
        }
        while closing.join_next().await.is_some() {}
        for server in servers {
            self.inner.emit(ManagerEvent::StatusChanged {
                server: server.clone(),
                status: ConnectionStatus::Disconnected,
            });
            self.inner.emit(ManagerEvent::ToolsChanged { server });
        }
    }
}

impl Drop for McpManager {
    fn drop(&mut self) {
        let mut state = self.inner.lock();
        for (_, pending) in state.pending.drain() {
            pending.cancel.cancel();
            if let Some(task) = pending.task {
                task.abort();
            }
        }
        // Tools handed out (`McpTool`) hold their client: without a close, their servers would
        // live as long as those tools. Closing needs the runtime; without one, the last
        // handle's drop still kills the server.
        let runtime = tokio::runtime::Handle::try_current().ok();
        for (_, connection) in state.connections.drain() {
            if let Some(runtime) = &runtime {
                runtime.spawn(close_connection(Some(connection)));
            } else {
                connection.watcher.abort();
            }
        }
    }
}

impl std::fmt::Debug for McpManager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpManager")
            .field("servers", &self.server_names())
            .finish_non_exhaustive()
    }
}

async fn stop_pending(pending: Option<Pending>) {
    if let Some(pending) = pending {
        pending.cancel.cancel();
        if let Some(task) = pending.task {
            let _ = task.await;
        }
    }
}

async fn close_connection(connection: Option<Connection>) {
    if let Some(connection) = connection {
        connection.watcher.abort();
        if let Err(error) = connection.client.close().await {
            tracing::warn!(%error, "closing an MCP server failed");
        }
    }
}

pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Inner {
    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
        lock(&self.state)
    }

    pub(crate) fn emit(&self, event: ManagerEvent) {
        let _ = self.events.send(event);
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
        source: Option<&SourceMeta>,
        budget: Option<Arc<OutputBudget>>,
        reach: Reach<'_>,
    ) -> ManagedTool {
        let provider =
            source.map(|source| ToolProvider::new(&source.provider, &source.provider_name));
        let definition = McpToolDefinition::new(name, server, tool.clone())
            .with_provider(provider)
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
            source: source.cloned(),
        }
    }

    /// The connection of `server`: the live one, the pending one once made, or (for a server
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
            let mut outcome = {
                let state = self.lock();
                if let Some(connection) = state.connections.get(server) {
                    return Ok(Arc::clone(&connection.client));
                }
                match state.pending.get(server) {
                    Some(pending) => pending.outcome.clone(),
                    None if state.on_demand.contains_key(server) => {
                        drop(state);
                        match self.me.upgrade() {
                            Some(this) => match this.connect_on_demand(server) {
                                Some(outcome) => outcome,
                                None => continue,
                            },
                            None => return Err(not_connected()),
                        }
                    }
                    None => {
                        return Err(state
                            .failures
                            .get(server)
                            .cloned()
                            .unwrap_or_else(not_connected));
                    }
                }
            };
            if let Ok(result) = outcome.wait_for(Option::is_some).await {
                return result.clone().unwrap_or_else(|| Err(not_connected()));
            }
        }
        Err(not_connected())
    }

    /// Writes a server's tools to the cache with how they were listed, under the fingerprint of
    /// its definition (of its configuration, for a server the manager was handed without one).
    pub(crate) async fn cache_tools(
        &self,
        name: &str,
        config: &ServerConfig,
        tools: &[Tool],
        listing: &Listing,
    ) {
        let fingerprint = self
            .lock()
            .fingerprints
            .get(name)
            .cloned()
            .unwrap_or_else(|| Fingerprint::of(config));
        self.cache
            .set_entry(name, &fingerprint, tools, listing)
            .await;
    }

    /// A server's list changed: list again, replace its tools, update the cache.
    async fn relist(&self, name: &str, config: &ServerConfig, client: &McpClient) {
        match client.list_tools_with_ttl().await {
            Ok(list) => {
                let listing = listing_of(client, list.ttl);
                let tools = offered(config, list.tools);
                self.cache_tools(name, config, &tools, &listing).await;
                let replaced = {
                    let mut state = self.lock();
                    if state.connections.contains_key(name) {
                        state.tools.insert(name.to_owned(), tools);
                        true
                    } else {
                        false
                    }
                };
                if replaced {
                    self.emit(ManagerEvent::ToolsChanged {
                        server: name.to_owned(),
                    });
                }
            }
            Err(error) => {
                tracing::warn!(server = name, %error, "re-listing tools after a change failed");
            }
        }
    }

    /// The connection died on its own: the server's tools stay (deferred) and it is
    /// reconnected if the policy allows; otherwise its status says why it is gone.
    fn connection_lost(self: &Arc<Self>, name: &str, config: &ServerConfig, reason: ServerError) {
        let removed = self.lock().connections.remove(name).is_some();
        if !removed {
            return;
        }
        // Told through the status (and the failed calls): a log line is for tracing.
        tracing::info!(server = name, %reason, "MCP server connection lost");
        if !self.start_reconnecting(name, config, &reason) {
            self.lock().failures.insert(name.to_owned(), reason.clone());
            self.emit(ManagerEvent::StatusChanged {
                server: name.to_owned(),
                status: ConnectionStatus::not_connected(reason),
            });
        }
        self.emit(ManagerEvent::ToolsChanged {
            server: name.to_owned(),
        });
    }
}

/// How a tool the manager offers reaches its server.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Reach<'a> {
    /// Through its server's live connection.
    Connected(&'a Arc<McpClient>),
    /// Through the connection its first call makes: a stateless server served on demand from a
    /// fresh cached list. A live tool.
    OnDemand,
    /// Once its server is connected: a deferred tool from the cache.
    Deferred,
}

impl Reach<'_> {
    pub(crate) fn is_deferred(self) -> bool {
        matches!(self, Self::Deferred)
    }
}

/// How `client` listed tools just now: its protocol version and, with a ttl, that the list is
/// fresh for so long from now.
pub(crate) fn listing_of(client: &McpClient, ttl: Option<Duration>) -> Listing {
    let listing = Listing::new(client.protocol_version());
    match ttl {
        Some(ttl) => listing.with_ttl(ttl, SystemTime::now()),
        None => listing,
    }
}

/// The tools of `tools` the server's configuration lets the agent have (`enabledTools`,
/// `disabledTools`): the others are never offered, called or cached.
pub(crate) fn offered(config: &ServerConfig, mut tools: Vec<Tool>) -> Vec<Tool> {
    let filter = config.tool_filter();
    if !filter.allows_all() {
        tools.retain(|tool| filter.allows(&tool.name));
    }
    tools
}

/// Follows one connection: re-lists tools on `notifications/tools/list_changed`, tells of
/// resource and prompt list changes, and notices at once when the connection dies.
pub(crate) async fn watch_connection(
    inner: Weak<Inner>,
    name: String,
    config: ServerConfig,
    client: Arc<McpClient>,
    mut notifications: broadcast::Receiver<ServerNotification>,
) {
    let check = inner.upgrade().and_then(|inner| inner.options.health_check);
    let mut health = Health::new(check);
    loop {
        tokio::select! {
            notification = notifications.recv() => {
                let change = match notification {
                    Ok(notification) => ListChange::of(&notification.method),
                    // Missed some: any of them may have been a list change.
                    Err(broadcast::error::RecvError::Lagged(_)) => ListChange::Any,
                    Err(broadcast::error::RecvError::Closed) => return,
                };
                if change == ListChange::None {
                    continue;
                }
                let Some(inner) = inner.upgrade() else { return };
                if matches!(change, ListChange::Tools | ListChange::Any) {
                    inner.relist(&name, &config, &client).await;
                }
                let capabilities = client.capabilities();
                let resources = change == ListChange::Resources
                    || (change == ListChange::Any && capabilities.offers_resources());
                if resources {
                    inner.emit(ManagerEvent::ResourcesChanged { server: name.clone() });
                }
                let prompts = change == ListChange::Prompts
                    || (change == ListChange::Any && capabilities.offers_prompts());
                if prompts {
                    inner.emit(ManagerEvent::PromptsChanged { server: name.clone() });
                }
            }
            reason = client.closed() => {
                if !reason.is_closed_by_client()
                    && let Some(inner) = inner.upgrade()
                {
                    let lost = ManagerError::ConnectionLost {
                        server: name.clone(),
                        reason,
                    };
                    inner.connection_lost(&name, &config, ServerError::new(lost));
                }
                return;
            }
            () = health.tick() => {
                if let Err(unresponsive) = health.ping(&name, &client).await {
                    // Stopped first (a stopped process is killed), then reconnected.
                    let _ = client.close().await;
                    if let Some(inner) = inner.upgrade() {
                        inner.connection_lost(&name, &config, ServerError::new(unresponsive));
                    }
                    return;
                }
            }
        }
    }
}

/// Which list a server notification says changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ListChange {
    /// Not a list change.
    None,
    Tools,
    Resources,
    Prompts,
    /// Notifications were missed: any list may have changed.
    Any,
}

impl ListChange {
    fn of(method: &str) -> Self {
        match method {
            methods::TOOLS_LIST_CHANGED => Self::Tools,
            methods::RESOURCES_LIST_CHANGED => Self::Resources,
            methods::PROMPTS_LIST_CHANGED => Self::Prompts,
            _ => Self::None,
        }
    }
}

/// The health ping of one connection; ticks never when it is off.
struct Health {
    check: Option<HealthCheck>,
    ticker: Option<tokio::time::Interval>,
}

impl Health {
    fn new(check: Option<HealthCheck>) -> Self {
        let ticker = check.map(|check| {
            let mut ticker = tokio::time::interval_at(
                tokio::time::Instant::now() + check.interval,
                check.interval,
            );
            ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            ticker
        });
        Self { check, ticker }
    }

    async fn tick(&mut self) {
        match &mut self.ticker {
            Some(ticker) => {
                ticker.tick().await;
            }
            None => std::future::pending().await,
        }
    }

    /// Pings; the error when no answer came in time.
    async fn ping(&self, name: &str, client: &McpClient) -> Result<(), ManagerError> {
        let Some(check) = self.check else {
            return Ok(());
        };
        match tokio::time::timeout(check.timeout, client.ping()).await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(error)) if !error.is_timeout() => {
                // The server answered with an error, or the connection is closing: not a
                // sign of a hang (a closed connection is noticed on its own).
                tracing::debug!(server = name, %error, "the health ping failed");
                Ok(())
            }
            _ => Err(ManagerError::Unresponsive {
                server: name.to_owned(),
                waited: check.timeout,
            }),
        }
    }
}

#[async_trait]
impl ConnectionProvider for Inner {
    async fn wait_for_connection(&self, server: &str) -> Result<Arc<McpClient>, ConnectionError> {
        self.wait(server)
            .await
            .map_err(|error| Arc::new(error) as ConnectionError)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_are_a_250_ms_gate_and_the_clients_own() {
        let options = ManagerOptions::default();
        assert_eq!(options.startup_timeout, Duration::from_millis(250));
        assert_eq!(options.client.connect_timeout, Duration::from_secs(30));
        assert_eq!(
            options.client.request_timeout,
            Some(Duration::from_secs(60))
        );
    }
}
