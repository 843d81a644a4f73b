//! [`AgentSession`]: a tool registry kept in step with the MCP manager.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};

use mcp_bridge::AgentTool;
use mcp_cache::{CacheOptions, SledToolCache, ToolCache};
use mcp_config::{DiscoveryContext, ServerConfig, SourceMeta};
use mcp_manager::{
    LoadError, LoadOptions, ManagerEvent, ManagerOptions, McpManager, discover_and_load_mcp_tools,
    discover_mcp_servers,
};
use tokio::sync::{broadcast, watch};
use tokio::task::JoinHandle;

use crate::registry::ToolRegistry;

/// How a session starts: the project, whether MCP is on, the agent's own tools, and the
/// loader's options (app name, project config, cache, credentials, discovery roots, manager),
/// which reloads use again.
#[derive(Clone)]
#[non_exhaustive]
pub struct SessionOptions {
    /// The project directory.
    pub cwd: PathBuf,
    /// `false` skips MCP entirely: no discovery, no servers.
    pub enable_mcp: bool,
    /// The agent's own tools, registered and active next to the MCP tools.
    pub own_tools: Vec<Arc<dyn AgentTool>>,
    /// How MCP servers are discovered and connected. The Exa filter is always on in a session.
    pub load: LoadOptions,
}

impl SessionOptions {
    /// Defaults for an agent named `app_name` working in `cwd`.
    pub fn new(app_name: impl Into<String>, cwd: impl Into<PathBuf>) -> Self {
        Self {
            cwd: cwd.into(),
            enable_mcp: true,
            own_tools: Vec::new(),
            load: LoadOptions::new(app_name),
        }
    }

    /// Uses these discovery roots.
    #[must_use]
    pub fn context(mut self, context: DiscoveryContext) -> Self {
        self.load = self.load.context(context);
        self
    }

    /// Uses this cache.
    #[must_use]
    pub fn cache(mut self, cache: Arc<dyn ToolCache>) -> Self {
        self.load = self.load.cache(cache);
        self
    }

    /// Turns project-level config on or off.
    #[must_use]
    pub fn project_config(mut self, enabled: bool) -> Self {
        self.load = self.load.project_config(enabled);
        self
    }

    /// Turns MCP on or off.
    #[must_use]
    pub fn mcp(mut self, enabled: bool) -> Self {
        self.enable_mcp = enabled;
        self
    }

    /// Sets the manager options.
    #[must_use]
    pub fn manager(mut self, options: ManagerOptions) -> Self {
        self.load = self.load.manager(options);
        self
    }

    /// Adds one of the agent's own tools.
    #[must_use]
    pub fn own_tool(mut self, tool: Arc<dyn AgentTool>) -> Self {
        self.own_tools.push(tool);
        self
    }

    /// The agent's name.
    pub fn app_name(&self) -> &str {
        &self.load.app_name
    }

    /// Whether project-level config files count.
    pub fn enable_project_config(&self) -> bool {
        self.load.enable_project_config
    }
}

impl std::fmt::Debug for SessionOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionOptions")
            .field("cwd", &self.cwd)
            .field("enable_mcp", &self.enable_mcp)
            .field("load", &self.load)
            .finish_non_exhaustive()
    }
}

/// What the last discovery found, for `/mcp list`.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct DiscoverySnapshot {
    /// The usable servers' configurations.
    pub configs: BTreeMap<String, ServerConfig>,
    /// Where each came from.
    pub sources: BTreeMap<String, SourceMeta>,
    /// Servers switched off, and where.
    pub disabled: BTreeMap<String, SourceMeta>,
    /// Problems of the last load or reload.
    pub errors: Vec<LoadError>,
}

/// A started session.
#[derive(Debug)]
#[non_exhaustive]
pub struct SessionStart {
    /// The session.
    pub session: Arc<AgentSession>,
    /// Problems found while loading MCP servers (already logged).
    pub errors: Vec<LoadError>,
    /// API keys of Exa servers the discovery removed.
    pub exa_api_keys: Vec<String>,
}

/// An agent session: the tool registry, the MCP manager, and the task that keeps the registry
/// in step with the manager (late connections, list changes, reloads).
pub struct AgentSession {
    options: SessionOptions,
    cache: Arc<dyn ToolCache>,
    registry: Mutex<ToolRegistry>,
    manager: Arc<McpManager>,
    snapshot: Mutex<DiscoverySnapshot>,
    refreshes: watch::Sender<u64>,
    follower: Mutex<Option<JoinHandle<()>>>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Starts a session: MCP discovery and connection (unless `enable_mcp` is off), with the Exa
/// filter on; per-server problems are logged and returned; the manager stays on the session.
pub async fn create_agent_session(options: SessionOptions) -> SessionStart {
    let mut options = options;
    // One cache for the session's whole life, reloads included.
    let cache: Arc<dyn ToolCache> = options.load.cache.clone().unwrap_or_else(|| {
        Arc::new(SledToolCache::in_user_cache_dir(
            &options.load.app_name,
            CacheOptions::default(),
        ))
    });
    options.load.cache = Some(Arc::clone(&cache));
    options.load.filter_exa = true;
    let mut registry = ToolRegistry::new();
    for tool in &options.own_tools {
        registry.register(Arc::clone(tool));
        registry.activate(tool.name());
    }
    let mut snapshot = DiscoverySnapshot::default();
    let mut exa_api_keys = Vec::new();
    let manager = if options.enable_mcp {
        let loaded = discover_and_load_mcp_tools(&options.cwd, &options.load).await;
        for error in &loaded.errors {
            tracing::warn!(path = %error.path, error = %error.error, "MCP problem");
        }
        registry.replace_mcp_tools(loaded.tools.iter().map(|t| Arc::clone(&t.tool)).collect());
        snapshot = snapshot_of(&loaded.discovery, loaded.errors.clone());
        exa_api_keys = loaded.exa_api_keys.clone();
        loaded.manager
    } else {
        Arc::new(McpManager::new(
            options.load.manager.clone(),
            Arc::clone(&cache),
            options.load.auth.clone(),
        ))
    };
    let errors = snapshot.errors.clone();
    let session = Arc::new(AgentSession {
        options,
        cache,
        registry: Mutex::new(registry),
        manager,
        snapshot: Mutex::new(snapshot),
        refreshes: watch::Sender::new(0),
        follower: Mutex::new(None),
    });
    session.follow_manager();
    SessionStart {
        session,
        errors,
        exa_api_keys,
    }
}

fn snapshot_of(
    discovery: &mcp_config::DiscoveryResult,
    errors: Vec<LoadError>,
) -> DiscoverySnapshot {
    DiscoverySnapshot {
        configs: discovery.configs.clone(),
        sources: discovery
            .sources
            .iter()
            .map(|(name, source)| (name.clone(), source.meta.clone()))
            .collect(),
        disabled: discovery.disabled.clone(),
        errors,
    }
}

impl AgentSession {
    /// The MCP manager.
    pub fn manager(&self) -> &Arc<McpManager> {
        &self.manager
    }

    /// The options the session started with (reloads use the same).
    pub fn options(&self) -> &SessionOptions {
        &self.options
    }

    /// The tool cache.
    pub fn cache(&self) -> &Arc<dyn ToolCache> {
        &self.cache
    }

    /// The discovery roots config writes go to: the configured ones, or this process's.
    pub fn context(&self) -> Result<DiscoveryContext, String> {
        match &self.options.load.context {
            Some(context) => Ok(context.clone()),
            None => DiscoveryContext::from_process(self.options.app_name(), &self.options.cwd)
                .map_err(|error| error.to_string()),
        }
    }

    /// The active tools the model is offered.
    pub fn tools(&self) -> Vec<Arc<dyn AgentTool>> {
        lock(&self.registry).active_tools()
    }

    /// A registered tool by name.
    pub fn tool(&self, name: &str) -> Option<Arc<dyn AgentTool>> {
        lock(&self.registry).get(name)
    }

    /// A copy of the registry.
    pub fn registry(&self) -> ToolRegistry {
        lock(&self.registry).clone()
    }

    /// What the last discovery found.
    pub fn discovery(&self) -> DiscoverySnapshot {
        lock(&self.snapshot).clone()
    }

    /// Replaces every `mcp_` tool with `tools` (all active) without restarting the session.
    pub fn refresh_mcp_tools(&self, tools: Vec<Arc<dyn AgentTool>>) {
        lock(&self.registry).replace_mcp_tools(tools);
        self.refreshes.send_modify(|count| *count += 1);
    }

    /// Counts refreshes; a test or UI can wait for the next one.
    pub fn refreshes(&self) -> watch::Receiver<u64> {
        self.refreshes.subscribe()
    }

    /// `/mcp reload`: disconnects every server, re-reads the config files with the startup
    /// options, connects again and refreshes the tools. Returns the problems found.
    pub async fn reload(&self) -> Vec<LoadError> {
        self.manager.disconnect_all().await;
        let discovered = discover_mcp_servers(&self.options.cwd, &self.options.load);
        let mut errors = discovered.errors.clone();
        let sources: BTreeMap<String, SourceMeta> = discovered
            .discovery
            .sources
            .iter()
            .map(|(name, source)| (name.clone(), source.meta.clone()))
            .collect();
        if self.options.enable_mcp {
            let outcome = self
                .manager
                .connect_servers(&discovered.discovery.configs, &sources)
                .await;
            errors.extend(
                outcome
                    .errors
                    .into_iter()
                    .map(|error| LoadError::new(format!("mcp:{}", error.server), error.error)),
            );
        }
        for error in &errors {
            tracing::warn!(path = %error.path, error = %error.error, "MCP problem");
        }
        *lock(&self.snapshot) = snapshot_of(&discovered.discovery, errors.clone());
        self.refresh_mcp_tools(self.manager.get_tools());
        errors
    }

    /// Disconnects one server and connects it again with its current configuration.
    pub async fn reconnect(&self, server: &str) -> Result<(), String> {
        let snapshot = self.discovery();
        let Some(config) = snapshot.configs.get(server).cloned() else {
            return Err(format!("no MCP server named \"{server}\" is configured"));
        };
        self.manager.disconnect_server(server).await;
        let configs = BTreeMap::from([(server.to_owned(), config)]);
        let sources: BTreeMap<String, SourceMeta> = snapshot
            .sources
            .get(server)
            .map(|meta| (server.to_owned(), meta.clone()))
            .into_iter()
            .collect();
        let outcome = self.manager.connect_servers(&configs, &sources).await;
        self.refresh_mcp_tools(self.manager.get_tools());
        match outcome.errors.into_iter().next() {
            Some(error) => Err(error.error),
            None => Ok(()),
        }
    }

    /// Disconnects every server and stops following the manager. Nothing is left running.
    pub async fn shutdown(&self) {
        if let Some(follower) = lock(&self.follower).take() {
            follower.abort();
        }
        self.manager.disconnect_all().await;
        lock(&self.registry).replace_mcp_tools(Vec::new());
    }

    /// Keeps the registry in step with the manager: every change of a server's tools (a late
    /// connection, a list change, a failure, a disconnect) refreshes the MCP tools.
    fn follow_manager(self: &Arc<Self>) {
        let mut events = self.manager.subscribe();
        let session: Weak<Self> = Arc::downgrade(self);
        let follower = tokio::spawn(async move {
            // A server may have finished between the load and this subscription.
            if let Some(session) = session.upgrade() {
                session.refresh_mcp_tools(session.manager.get_tools());
            }
            loop {
                let refresh = match events.recv().await {
                    Ok(ManagerEvent::ToolsChanged { .. }) => true,
                    Ok(_) => false,
                    Err(broadcast::error::RecvError::Lagged(_)) => true,
                    Err(broadcast::error::RecvError::Closed) => return,
                };
                if refresh {
                    let Some(session) = session.upgrade() else {
                        return;
                    };
                    session.refresh_mcp_tools(session.manager.get_tools());
                }
            }
        });
        *lock(&self.follower) = Some(follower);
    }
}

impl Drop for AgentSession {
    fn drop(&mut self) {
        if let Some(follower) = lock(&self.follower).take() {
            follower.abort();
        }
    }
}

impl std::fmt::Debug for AgentSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentSession")
            .field("options", &self.options)
            .field("registry", &*lock(&self.registry))
            .finish_non_exhaustive()
    }
}
