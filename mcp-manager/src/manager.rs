//! [`McpManager`]: the registries of connections, pending connections, pending tool loads, tools
//! and sources; the connect pipeline and the startup gate; disconnects; events.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::Duration;

use async_trait::async_trait;
use mcp_bridge::naming::assign_names;
use mcp_bridge::{AgentTool, ConnectionProvider, DeferredMcpTool, McpTool, McpToolDefinition};
use mcp_cache::{Fingerprint, NoopToolCache, ToolCache};
use mcp_config::{
    AuthStorage, ServerConfig, SourceMeta, TransportKind, resolve_auth_config,
    validate_server_config,
};
use mcp_transport::protocol::methods;
use mcp_transport::{
    ClientOptions, Implementation, McpClient, Root, ServerNotification, StdioServerParams, Tool,
};
use tokio::sync::{broadcast, watch};
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

/// How the manager connects.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ManagerOptions {
    /// How long `connect_servers` waits before answering with what is ready (and cached tools
    /// for the rest). Default 250 ms.
    pub startup_timeout: Duration,
    /// Timeout of `tools/list` and of tool calls without their own. Default 60 s.
    pub request_timeout: Option<Duration>,
    /// The name and version sent to servers.
    pub client_info: Implementation,
    /// Roots answered to servers' `roots/list` (usually the project directory).
    pub roots: Option<Vec<Root>>,
}

impl Default for ManagerOptions {
    fn default() -> Self {
        Self {
            startup_timeout: Duration::from_millis(250),
            request_timeout: Some(Duration::from_secs(60)),
            client_info: Implementation::new("mcp-runtime", env!("CARGO_PKG_VERSION")),
            roots: None,
        }
    }
}

impl ManagerOptions {
    /// Sets the startup gate.
    #[must_use]
    pub fn startup_timeout(mut self, timeout: Duration) -> Self {
        self.startup_timeout = timeout;
        self
    }

    /// Sets the request timeout.
    #[must_use]
    pub fn request_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// Sets the roots.
    #[must_use]
    pub fn roots(mut self, roots: Vec<Root>) -> Self {
        self.roots = Some(roots);
        self
    }
}

/// Where a server stands.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConnectionStatus {
    /// Connected, tools listed.
    Connected,
    /// Handshake or tool listing in progress.
    Connecting,
    /// Not connected (never was, or disconnected).
    Disconnected,
    /// The last attempt failed, or the connection died; the reason says why.
    Failed(String),
}

impl ConnectionStatus {
    /// `connected`, `connecting`, `disconnected` or `failed`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Self::Connected => "connected",
            Self::Connecting => "connecting",
            Self::Disconnected => "disconnected",
            Self::Failed(_) => "failed",
        }
    }
}

/// Something that happened to a server, for sessions that follow without polling.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ManagerEvent {
    /// A server's status changed.
    StatusChanged {
        /// The server.
        server: String,
        /// Its new status.
        status: ConnectionStatus,
    },
    /// A server's tools changed (late connection, list change, disconnect, failure).
    ToolsChanged {
        /// The server.
        server: String,
    },
    /// A server failed after the startup gate had already answered.
    LateError {
        /// The server.
        server: String,
        /// Why.
        error: String,
    },
}

/// A server that could not be connected, and why.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct ServerError {
    /// The server.
    pub server: String,
    /// The message, naming the server.
    pub error: String,
}

/// A tool the manager offers, with where it comes from.
#[derive(Clone)]
#[non_exhaustive]
pub struct ManagedTool {
    /// The server's configured name.
    pub server: String,
    /// The tool's name on the server.
    pub original_name: String,
    /// True while the tool comes from the cache and its server is not connected yet.
    pub deferred: bool,
    /// The tool itself.
    pub tool: Arc<dyn AgentTool>,
}

impl std::fmt::Debug for ManagedTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ManagedTool")
            .field("name", &self.tool.name())
            .field("server", &self.server)
            .field("original_name", &self.original_name)
            .field("deferred", &self.deferred)
            .finish()
    }
}

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
    inner: Arc<Inner>,
}

struct Inner {
    options: ManagerOptions,
    cache: Arc<dyn ToolCache>,
    auth: Option<Arc<dyn AuthStorage>>,
    state: Mutex<State>,
    events: broadcast::Sender<ManagerEvent>,
}

type Outcome = Option<Result<Arc<McpClient>, String>>;

#[derive(Default)]
struct State {
    next_id: u64,
    connections: HashMap<String, Connection>,
    pending: HashMap<String, Pending>,
    tool_loads: HashSet<String>,
    tools: BTreeMap<String, Vec<Tool>>,
    sources: HashMap<String, SourceMeta>,
    failures: HashMap<String, String>,
}

struct Connection {
    client: Arc<McpClient>,
    watcher: JoinHandle<()>,
}

struct Pending {
    id: u64,
    cancel: CancellationToken,
    outcome: watch::Receiver<Outcome>,
    task: Option<JoinHandle<()>>,
}

/// A server connected and its tools listed; `notifications` was subscribed before listing.
struct Loaded {
    client: Arc<McpClient>,
    tools: Vec<Tool>,
    notifications: broadcast::Receiver<ServerNotification>,
}

/// What `finish` recorded.
enum Published {
    Connected,
    Failed {
        error: String,
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
    lookup: JoinHandle<Option<Vec<Tool>>>,
}

/// What a batch's pipelines need to know about its gate.
#[derive(Default)]
struct Gate {
    passed: bool,
    /// Servers the gate waits for past its deadline (pending, no cache): not "late".
    awaited: HashSet<String>,
}

impl McpManager {
    /// A manager with a tool cache and, optionally, the agent's credential store.
    pub fn new(
        options: ManagerOptions,
        cache: Arc<dyn ToolCache>,
        auth: Option<Arc<dyn AuthStorage>>,
    ) -> Self {
        Self {
            inner: Arc::new(Inner {
                options,
                cache,
                auth,
                state: Mutex::new(State::default()),
                events: broadcast::Sender::new(1024),
            }),
        }
    }

    /// A manager without cache or credentials (tests, one-off tools).
    pub fn without_cache(options: ManagerOptions) -> Self {
        Self::new(options, Arc::new(NoopToolCache::new()), None)
    }

    /// Events from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<ManagerEvent> {
        self.inner.events.subscribe()
    }

    /// Connects every server in parallel and answers at the startup gate: live tools of the
    /// servers that finished, an error per server that failed, deferred tools (from the cache)
    /// for servers still connecting; a pending server without a cache entry is awaited (bounded
    /// by its own timeouts). Servers already connected or connecting are left alone. The rest
    /// finishes in the background, replacing only that server's tools.
    pub async fn connect_servers(
        &self,
        configs: &BTreeMap<String, ServerConfig>,
        sources: &BTreeMap<String, SourceMeta>,
    ) -> ConnectOutcome {
        let inner = &self.inner;
        let gate = Arc::new(Mutex::new(Gate::default()));
        let deadline = Instant::now() + inner.options.startup_timeout;
        let mut started = Vec::new();
        for (name, config) in configs {
            if let Some(source) = sources.get(name) {
                inner.lock().sources.insert(name.clone(), source.clone());
            }
            if let Some((id, outcome)) = inner.start(name, config, &gate) {
                let cache = Arc::clone(&inner.cache);
                let fingerprint = Fingerprint::of(config);
                let key = name.clone();
                let lookup = tokio::spawn(async move { cache.get(&key, &fingerprint).await });
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
        for server in &mut started {
            if server.outcome.borrow().is_some() {
                server.lookup.abort();
                continue;
            }
            let grace = deadline.max(Instant::now()) + Duration::from_millis(50);
            match tokio::time::timeout_at(grace, &mut server.lookup).await {
                Ok(Ok(Some(tools))) => {
                    cached.insert(server.name.clone(), tools);
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
                match cached.remove(&server.name) {
                    Some(tools) => {
                        // Deferred tools: the server finishes in the background.
                        state.tools.entry(server.name.clone()).or_insert(tools);
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
                errors.push(ServerError {
                    server: name,
                    error,
                });
            }
        }
        ConnectOutcome {
            tools: self.tools(),
            errors,
        }
    }

    /// Every tool the manager offers now, named across all servers.
    pub fn tools(&self) -> Vec<ManagedTool> {
        let state = self.inner.lock();
        let entries: Vec<(&str, &Tool)> = state
            .tools
            .iter()
            .flat_map(|(server, tools)| tools.iter().map(move |tool| (server.as_str(), tool)))
            .collect();
        let pairs: Vec<(&str, &str)> = entries
            .iter()
            .map(|(server, tool)| (*server, tool.name.as_str()))
            .collect();
        let names = assign_names(&pairs);
        entries
            .into_iter()
            .zip(names)
            .map(|((server, tool), name)| {
                let definition = McpToolDefinition::new(name, server, tool.clone());
                let live = state.connections.get(server);
                let agent_tool: Arc<dyn AgentTool> = match live {
                    Some(connection) => {
                        Arc::new(McpTool::new(definition, Arc::clone(&connection.client)))
                    }
                    None => Arc::new(DeferredMcpTool::new(
                        definition,
                        Arc::clone(&self.inner) as Arc<dyn ConnectionProvider>,
                    )),
                };
                ManagedTool {
                    server: server.to_owned(),
                    original_name: tool.name.clone(),
                    deferred: live.is_none(),
                    tool: agent_tool,
                }
            })
            .collect()
    }

    /// Every tool as the agent's registry holds them.
    pub fn get_tools(&self) -> Vec<Arc<dyn AgentTool>> {
        self.tools()
            .into_iter()
            .map(|managed| managed.tool)
            .collect()
    }

    /// Where a server stands.
    pub fn get_connection_status(&self, server: &str) -> ConnectionStatus {
        let state = self.inner.lock();
        if state.connections.contains_key(server) {
            ConnectionStatus::Connected
        } else if state.pending.contains_key(server) || state.tool_loads.contains(server) {
            ConnectionStatus::Connecting
        } else if let Some(failure) = state.failures.get(server) {
            ConnectionStatus::Failed(failure.clone())
        } else {
            ConnectionStatus::Disconnected
        }
    }

    /// The servers the manager knows of (connected, connecting, failed or with tools), sorted.
    pub fn server_names(&self) -> Vec<String> {
        let state = self.inner.lock();
        let mut names: Vec<String> = state
            .connections
            .keys()
            .chain(state.pending.keys())
            .chain(state.failures.keys())
            .chain(state.tools.keys())
            .chain(state.sources.keys())
            .cloned()
            .collect();
        names.sort();
        names.dedup();
        names
    }

    /// Where a server's configuration came from.
    pub fn server_source(&self, server: &str) -> Option<SourceMeta> {
        self.inner.lock().sources.get(server).cloned()
    }

    /// The live connection, the pending one once it is made, or
    /// `MCP server not connected: <name>`.
    pub async fn wait_for_connection(&self, server: &str) -> Result<Arc<McpClient>, String> {
        self.inner.wait(server).await
    }

    /// Disconnects one server: its pending connection is cancelled, its connection closed, its
    /// tools and source forgotten. Other servers are untouched.
    pub async fn disconnect_server(&self, server: &str) {
        let (pending, connection, had_tools, had_failed) = {
            let mut state = self.inner.lock();
            state.tool_loads.remove(server);
            state.sources.remove(server);
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

    /// Disconnects everything: in-flight connections are cancelled (their processes killed),
    /// every connection is closed concurrently, every registry cleared. When this returns no
    /// server process and no task of the manager is left.
    pub async fn disconnect_all(&self) {
        let (pending, connections, servers) = {
            let mut state = self.inner.lock();
            let mut servers: Vec<String> = state
                .connections
                .keys()
                .chain(state.pending.keys())
                .chain(state.tools.keys())
                .chain(state.failures.keys())
                .cloned()
                .collect();
            servers.sort();
            servers.dedup();
            state.tool_loads.clear();
            state.tools.clear();
            state.sources.clear();
            state.failures.clear();
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

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Inner {
    fn lock(&self) -> MutexGuard<'_, State> {
        lock(&self.state)
    }

    fn emit(&self, event: ManagerEvent) {
        let _ = self.events.send(event);
    }

    /// Registers a pending connection and starts its pipeline; `None` when the server is
    /// already connected or connecting.
    fn start(
        self: &Arc<Self>,
        name: &str,
        config: &ServerConfig,
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
            state.next_id += 1;
            let id = state.next_id;
            state.pending.insert(
                name.to_owned(),
                Pending {
                    id,
                    cancel: cancel.clone(),
                    outcome: outcome_rx.clone(),
                    task: None,
                },
            );
            id
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

    /// Validate, resolve, connect, list tools.
    async fn connect_and_load(
        self: &Arc<Self>,
        name: &str,
        config: &ServerConfig,
    ) -> Result<Loaded, String> {
        let problems = validate_server_config(name, config);
        if !problems.is_empty() {
            return Err(problems.join("; "));
        }
        let resolved = resolve_auth_config(name, config, self.auth.as_deref())
            .await
            .map_err(|error| error.to_string())?;
        // The server's timeout bounds the whole connection, tool listing included: a server
        // the gate awaits (no cache entry) holds the session up no longer than that.
        let connect_timeout = resolved.timeout();
        let deadline = Instant::now() + connect_timeout;
        let client = match resolved.transport() {
            TransportKind::Stdio => {
                let mut params = StdioServerParams::new(
                    resolved.command().unwrap_or_default(),
                    resolved.args().to_vec(),
                );
                params.env = resolved
                    .env()
                    .iter()
                    .map(|(key, value)| (key.clone(), value.clone()))
                    .collect();
                if let Some(cwd) = resolved.cwd() {
                    params = params.cwd(cwd);
                }
                let mut options = ClientOptions::default()
                    .connect_timeout(connect_timeout)
                    .request_timeout(self.options.request_timeout)
                    .client_info(self.options.client_info.clone());
                if let Some(roots) = &self.options.roots {
                    options = options.roots(roots.clone());
                }
                McpClient::connect_stdio(name, params, options)
                    .await
                    .map_err(|error| error.to_string())?
            }
            other => {
                return Err(format!(
                    "MCP server \"{name}\": the {other} transport is not supported by this \
                     runtime yet; configure the server as a stdio command"
                ));
            }
        };
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
        let listed = match tokio::time::timeout_at(deadline, client.list_tools()).await {
            Ok(listed) => listed.map_err(|error| error.to_string()),
            Err(_) => Err(mcp_transport::Error::ConnectTimeout {
                server: name.to_owned(),
                after: connect_timeout,
            }
            .to_string()),
        };
        match listed {
            Ok(tools) => Ok(Loaded {
                client,
                tools,
                notifications,
            }),
            Err(error) => {
                let _ = client.close().await;
                Err(error)
            }
        }
    }

    /// Records a pipeline's result: the connection and its tools (written to the cache), or
    /// the failure; late ones (after the gate answered) are also events.
    async fn finish(
        self: &Arc<Self>,
        name: &str,
        config: &ServerConfig,
        id: u64,
        result: Result<Loaded, String>,
        gate: &Mutex<Gate>,
        outcome: &watch::Sender<Outcome>,
    ) {
        if let Ok(loaded) = &result {
            self.cache
                .set(name, &Fingerprint::of(config), &loaded.tools)
                .await;
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
                        let watcher = tokio::spawn(watch_connection(
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
                            status: ConnectionStatus::Failed(error.clone()),
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
                    tracing::warn!(server = name, %error, "MCP server failed after startup");
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

    async fn wait(&self, server: &str) -> Result<Arc<McpClient>, String> {
        let mut outcome = {
            let state = self.lock();
            if let Some(connection) = state.connections.get(server) {
                return Ok(Arc::clone(&connection.client));
            }
            match state.pending.get(server) {
                Some(pending) => pending.outcome.clone(),
                None => {
                    return Err(state
                        .failures
                        .get(server)
                        .cloned()
                        .unwrap_or_else(|| format!("MCP server not connected: {server}")));
                }
            }
        };
        match outcome.wait_for(Option::is_some).await {
            Ok(result) => result
                .clone()
                .unwrap_or_else(|| Err(format!("MCP server not connected: {server}"))),
            Err(_) => Err(format!("MCP server not connected: {server}")),
        }
    }

    /// A server's list changed: list again, replace its tools, update the cache.
    async fn relist(&self, name: &str, config: &ServerConfig, client: &McpClient) {
        match client.list_tools().await {
            Ok(tools) => {
                self.cache.set(name, &Fingerprint::of(config), &tools).await;
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

    /// The connection died on its own: the server's tools stay (deferred), its status says why.
    fn connection_lost(&self, name: &str, reason: String) {
        let removed = {
            let mut state = self.lock();
            let removed = state.connections.remove(name).is_some();
            if removed {
                state.failures.insert(name.to_owned(), reason.clone());
            }
            removed
        };
        if removed {
            tracing::warn!(server = name, %reason, "MCP server connection lost");
            self.emit(ManagerEvent::StatusChanged {
                server: name.to_owned(),
                status: ConnectionStatus::Failed(reason),
            });
            self.emit(ManagerEvent::ToolsChanged {
                server: name.to_owned(),
            });
        }
    }
}

/// Follows one connection: re-lists tools on `notifications/tools/list_changed`, and notices
/// at once when the connection dies.
async fn watch_connection(
    inner: Weak<Inner>,
    name: String,
    config: ServerConfig,
    client: Arc<McpClient>,
    mut notifications: broadcast::Receiver<ServerNotification>,
) {
    loop {
        tokio::select! {
            notification = notifications.recv() => {
                let changed = match notification {
                    Ok(notification) => notification.method == methods::TOOLS_LIST_CHANGED,
                    // Missed some: one of them may have been a list change.
                    Err(broadcast::error::RecvError::Lagged(_)) => true,
                    Err(broadcast::error::RecvError::Closed) => return,
                };
                if changed {
                    let Some(inner) = inner.upgrade() else { return };
                    inner.relist(&name, &config, &client).await;
                }
            }
            reason = client.closed() => {
                if !reason.is_closed_by_client()
                    && let Some(inner) = inner.upgrade()
                {
                    inner.connection_lost(&name, format!("MCP server \"{name}\": {reason}"));
                }
                return;
            }
        }
    }
}

#[async_trait]
impl ConnectionProvider for Inner {
    async fn wait_for_connection(&self, server: &str) -> Result<Arc<McpClient>, String> {
        self.wait(server).await
    }
}
