//! [`AgentSession`]: a tool registry kept in step with the MCP manager.
//!
//! A session starts in two steps, so that a caller can show what is coming before it waits:
//! [`prepare_agent_session`] runs discovery (nothing is started), and
//! [`PreparedSession::start`] connects behind the startup gate. [`create_agent_session`] does
//! both. The session keeps the discovery result it started (or last reloaded) with, and the
//! problems of that load, as they are.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
#[cfg(feature = "oauth")]
use std::time::Duration;

use mcp_bridge::AgentTool;
use mcp_cache::ToolCache;
use mcp_config::{DiscoveredServer, DiscoveryContext, DiscoveryResult};
use mcp_manager::{
    LoadOptions, LoadResult, ManagedTool, ManagerEvent, ManagerOptions, McpManager, Problem,
    default_tool_cache, discover_mcp_servers, discover_mcp_servers_with,
};
use mcp_tool_search::{SearchError, search_with};
use mcp_transport::Root;
#[cfg(feature = "oauth")]
use mcp_transport::oauth::{AuthorizationHandler, DEFAULT_LOGIN_TIMEOUT};
use tokio::sync::{broadcast, watch};
use tokio::task::JoinHandle;

use crate::error::SessionError;
use crate::registry::{ToolOrigin, ToolRegistry};
use crate::spill::SpillDir;
use crate::tool_search::{
    Changed, FoundTool, OnCallLoader, SearchState, SearchTool, ToolContext, ToolSearchOptions,
};

/// How a session starts: the project, whether MCP is on, the agent's own tools, and the
/// loader's options (app name, project config, cache, credentials, discovery roots, manager),
/// which reloads use again.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct SessionOptions {
    /// The project directory: absolute and canonical when set by [`new`](Self::new) (discovery
    /// and approvals make it so in any case, so `"."` is the folder the agent runs in).
    pub cwd: PathBuf,
    /// `false` skips MCP entirely: no discovery, no servers.
    pub enable_mcp: bool,
    /// The agent's own tools, registered and active next to the MCP tools.
    pub own_tools: Vec<Arc<dyn AgentTool>>,
    /// How MCP servers are discovered and connected. The Exa filter is always on in a session.
    pub load: LoadOptions,
    /// The browser step of [`AgentSession::login`]; none means a session cannot log in (a
    /// server that wants a login shows as `needs-login`).
    #[cfg(feature = "oauth")]
    pub authorization: Option<Arc<dyn AuthorizationHandler>>,
    /// How long a login waits for the user. Default [`DEFAULT_LOGIN_TIMEOUT`].
    #[cfg(feature = "oauth")]
    pub login_timeout: Duration,
    /// Whether the MCP tools' definitions are deferred behind a search tool (default `auto`:
    /// past 10% of a 200,000-token context window); see [`crate::tool_search`].
    pub tool_search: ToolSearchOptions,
}

impl SessionOptions {
    /// Defaults for an agent named `app_name` working in `cwd` (made absolute and canonical:
    /// [`mcp_config::project_folder`]).
    pub fn new(app_name: impl Into<String>, cwd: impl Into<PathBuf>) -> Self {
        Self {
            cwd: mcp_config::project_folder(&cwd.into()),
            enable_mcp: true,
            own_tools: Vec::new(),
            load: LoadOptions::new(app_name),
            #[cfg(feature = "oauth")]
            authorization: None,
            #[cfg(feature = "oauth")]
            login_timeout: DEFAULT_LOGIN_TIMEOUT,
            tool_search: ToolSearchOptions::default(),
        }
    }

    /// Uses these tool search options (the mode, the context window `auto` measures against,
    /// the loaded-set budget, an agent's own ranker).
    #[must_use]
    pub fn tool_search(mut self, options: ToolSearchOptions) -> Self {
        self.tool_search = options;
        self
    }

    /// Lets [`AgentSession::login`] ask the user through `handler` (the default one is
    /// [`LoopbackBrowser`](mcp_transport::oauth::LoopbackBrowser)).
    #[must_use]
    #[cfg(feature = "oauth")]
    pub fn authorization(mut self, handler: Arc<dyn AuthorizationHandler>) -> Self {
        self.authorization = Some(handler);
        self
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

    /// Decides which servers of the project folder's files may run (default: those the user
    /// approved; see `mcp_config::TrustPolicy`).
    #[must_use]
    pub fn trust(mut self, policy: mcp_config::TrustPolicy) -> Self {
        self.load = self.load.trust(policy);
        self
    }

    /// Offers the servers these folders as roots (their `roots/list` answer; the CLI's
    /// `--root DIR`). Without it, the default, a session declares no roots, and a server hears
    /// of folders only through its own `roots` setting, which also wins over these: a server
    /// such as `server-filesystem` replaces the folders of its command line with the client's
    /// roots, so offering the session's folder unasked would shut it out of the folders the
    /// user gave it (the evidence from Claude Code, VS Code and Codex is in `mcp-manager`'s
    /// `roots` module and the README's "Roots").
    #[must_use]
    pub fn roots(mut self, folders: impl IntoIterator<Item: AsRef<std::path::Path>>) -> Self {
        self.load.manager.client.roots = Some(
            folders
                .into_iter()
                .map(|folder| Root::from_path(folder.as_ref()))
                .collect(),
        );
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
        self.load.enable_project_config()
    }
}

/// A started session.
#[derive(Debug)]
#[non_exhaustive]
pub struct SessionStart {
    /// The session.
    pub session: Arc<AgentSession>,
    /// Problems found while loading MCP servers (each logged once, as a warning).
    pub problems: Vec<Problem>,
}

/// What a load (or reload) left: the discovery it used and the problems it met.
#[derive(Debug, Default)]
struct Loaded {
    discovery: Arc<DiscoveryResult>,
    problems: Vec<Problem>,
}

/// An agent session: the tool registry, the MCP manager, and the task that keeps the registry
/// in step with the manager (late connections, list changes, reloads).
pub struct AgentSession {
    /// The session itself, for the tools it registers (the search tool, the loaders of
    /// deferred tools), which must not keep it alive.
    me: Weak<AgentSession>,
    options: SessionOptions,
    /// Where results cut by the output budget are kept whole; removed with the session.
    spill: Option<SpillDir>,
    cache: Arc<dyn ToolCache>,
    registry: Mutex<ToolRegistry>,
    /// The tool search; locked before the registry when both are.
    search: Mutex<SearchState>,
    manager: Arc<McpManager>,
    loaded: Mutex<Loaded>,
    refreshes: watch::Sender<u64>,
    follower: Mutex<Option<JoinHandle<()>>>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A session whose servers are discovered but not started: see what is coming, then
/// [`start`](Self::start) it.
pub struct PreparedSession {
    options: SessionOptions,
    spill: Option<SpillDir>,
    cache: Arc<dyn ToolCache>,
    /// `None` when MCP is off.
    loaded: Option<LoadResult>,
    /// Only these servers are started; all when `None`.
    only: Option<BTreeSet<String>>,
}

/// Runs MCP discovery for a session (unless `enable_mcp` is off), with the Exa filter on;
/// nothing is connected yet.
pub fn prepare_agent_session(options: SessionOptions) -> PreparedSession {
    let mut options = options;
    // One cache for the session's whole life, reloads included.
    let cache: Arc<dyn ToolCache> = options
        .load
        .cache
        .clone()
        .unwrap_or_else(|| default_tool_cache(&options.load.app_name));
    options.load.cache = Some(Arc::clone(&cache));
    options.load.discovery = options.load.discovery.clone().filter_exa(true);
    // No roots are offered unless the agent names them (`SessionOptions::roots`): the session's
    // folder is not offered on its own, since a server may take roots as the only folders it
    // may use (see `SessionOptions::roots`).
    // Results cut by the output budget are kept whole in the session's own directory.
    let mut spill = None;
    if let Some(budget) = &mut options.load.manager.output_budget
        && budget.spill_dir.is_none()
    {
        match SpillDir::create(&options.load.app_name) {
            Ok(dir) => {
                budget.spill_dir = Some(dir.path().to_path_buf());
                spill = Some(dir);
            }
            Err(error) => {
                tracing::warn!(%error, "no directory for cut tool results; they are not kept");
            }
        }
    }
    let loaded = options
        .enable_mcp
        .then(|| discover_mcp_servers(&options.cwd, &options.load));
    PreparedSession {
        options,
        spill,
        cache,
        loaded,
        only: None,
    }
}

impl PreparedSession {
    /// The servers discovery found (and skipped); `None` when MCP is off.
    pub fn discovery(&self) -> Option<&DiscoveryResult> {
        self.loaded.as_ref().map(|loaded| &*loaded.discovery)
    }

    /// The manager the servers will connect into, to watch them while [`start`](Self::start)
    /// waits; `None` when MCP is off.
    pub fn manager(&self) -> Option<&Arc<McpManager>> {
        self.loaded.as_ref().map(|loaded| &loaded.manager)
    }

    /// Starts only the named servers (of those discovery found): a command that needs one
    /// server neither starts the others nor reports their problems. A reload starts them all.
    #[must_use]
    pub fn only_servers(mut self, names: BTreeSet<String>) -> Self {
        self.only = Some(names);
        self
    }

    /// Connects the servers behind the startup gate and starts the session; per-server
    /// problems are logged once and returned; the manager stays on the session.
    pub async fn start(self) -> SessionStart {
        let Self {
            options,
            spill,
            cache,
            loaded,
            only,
        } = self;
        let mut registry = ToolRegistry::new();
        for tool in &options.own_tools {
            registry.register(Arc::clone(tool), ToolOrigin::Agent);
            registry.activate(tool.name());
        }
        let (manager, state) = match loaded {
            Some(mut loaded) => {
                match &only {
                    Some(names) => loaded.connect_only(names).await,
                    None => loaded.connect().await,
                }
                report(&loaded.problems);
                // The MCP tools are registered by the session's first refresh, with the tool
                // search's listing (`follow_manager`).
                drop(loaded.tools);
                let state = Loaded {
                    discovery: loaded.discovery,
                    problems: loaded.problems,
                };
                (loaded.manager, state)
            }
            None => {
                let manager = McpManager::new(options.load.manager.clone(), Arc::clone(&cache));
                (Arc::new(manager), Loaded::default())
            }
        };
        let problems = state.problems.clone();
        let search = SearchState::new(options.tool_search.clone());
        let session = Arc::new_cyclic(|me| AgentSession {
            me: Weak::clone(me),
            options,
            spill,
            cache,
            registry: Mutex::new(registry),
            search: Mutex::new(search),
            manager,
            loaded: Mutex::new(state),
            refreshes: watch::Sender::new(0),
            follower: Mutex::new(None),
        });
        session.follow_manager();
        SessionStart { session, problems }
    }
}

impl std::fmt::Debug for PreparedSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PreparedSession")
            .field("options", &self.options)
            .field("discovery", &self.discovery())
            .finish_non_exhaustive()
    }
}

/// Starts a session: MCP discovery and connection (unless `enable_mcp` is off), with the Exa
/// filter on; per-server problems are logged once and returned; the manager stays on the
/// session.
pub async fn create_agent_session(options: SessionOptions) -> SessionStart {
    prepare_agent_session(options).start().await
}

/// Each problem in the debug log: the session returns them to its caller, who shows them.
fn report(problems: &[Problem]) {
    // The caller gets them (`SessionStart::problems`, `reload`, `/mcp list`) and shows them
    // once; a warning in the log as well would say each twice, and again at every reload.
    for problem in problems {
        tracing::debug!("{problem}");
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
    pub fn context(&self) -> Result<DiscoveryContext, SessionError> {
        Ok(self.options.load.discovery_context(&self.options.cwd)?)
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

    /// What the last discovery (at start or at the last reload) found.
    pub fn discovery(&self) -> Arc<DiscoveryResult> {
        Arc::clone(&lock(&self.loaded).discovery)
    }

    /// The problems of the last load or reload.
    pub fn problems(&self) -> Vec<Problem> {
        lock(&self.loaded).problems.clone()
    }

    /// Replaces every MCP tool with `tools` without restarting the session; the agent's own
    /// tools stay, whatever their names. All are listed unless the session defers them
    /// ([`SessionOptions::tool_search`]): then the search tool, the always-loaded tools and the
    /// tools searches loaded are listed, and the others stay callable by name. The tool
    /// search's index is rebuilt from `tools`.
    pub fn refresh_mcp_tools(&self, tools: Vec<ManagedTool>) {
        self.refresh(tools, Changed::Any);
    }

    /// [`refresh_mcp_tools`](Self::refresh_mcp_tools) after a change of one server's tools:
    /// the index is updated for that server alone.
    fn refresh_server(&self, server: &str) {
        self.refresh(self.manager.tools(), Changed::Server(server));
    }

    fn refresh(&self, tools: Vec<ManagedTool>, changed: Changed<'_>) {
        {
            let mut search = lock(&self.search);
            search.update(&tools, changed, |server| {
                self.manager.server_instructions(server)
            });
            let deferring = search.deferring();
            let entries = tools.into_iter().map(|managed| {
                let tool: Arc<dyn AgentTool> = if deferring && !managed.always_load {
                    Arc::new(OnCallLoader::new(
                        managed.tool,
                        managed.server.clone(),
                        managed.original_name.clone(),
                        Weak::clone(&self.me),
                    ))
                } else {
                    managed.tool
                };
                (tool, managed.server, managed.original_name)
            });
            let search_tool = deferring.then(|| {
                Arc::new(SearchTool::new(
                    search.description().to_owned(),
                    search.options().loaded_budget,
                    Weak::clone(&self.me),
                )) as Arc<dyn AgentTool>
            });
            let mut registry = lock(&self.registry);
            registry
                .replace_mcp_tools_listing(entries, |server, tool| search.is_listed(server, tool));
            registry.set_search_tool(search_tool);
            search.set_names(registry.mcp_names());
        }
        self.refreshes.send_modify(|count| *count += 1);
    }

    /// Tools of the session were used (found by a search, or called): the deferred ones among
    /// them are listed from now on, the least recently used past the budget unlisted; a refresh
    /// is announced when the listed set changed.
    pub(crate) fn use_tools(&self, keys: &[(String, String)]) {
        {
            let mut search = lock(&self.search);
            if !search.touch(keys) {
                return;
            }
            lock(&self.registry).relist_mcp_tools(|server, tool| search.is_listed(server, tool));
        }
        self.refreshes.send_modify(|count| *count += 1);
    }

    /// The best `limit` MCP tools for `query` (of `server` only, when given), best first,
    /// with their full definitions: words ranked by the session's index (and the agent's
    /// [ranker](ToolSearchOptions::ranker)), or a `/…/` regular expression over names and
    /// descriptions. Nothing is loaded: see [`search_and_load_tools`](Self::search_and_load_tools).
    pub async fn search_tools(
        &self,
        query: &str,
        limit: usize,
        server: Option<&str>,
    ) -> Result<Vec<FoundTool>, SearchError> {
        let (index, ranker, combine) = lock(&self.search).searcher();
        let hits = match ranker {
            Some(ranker) => {
                search_with(&index, ranker.as_ref(), combine, query, limit, server).await?
            }
            None => index.search(query, limit, server)?,
        };
        let search = lock(&self.search);
        let registry = lock(&self.registry);
        Ok(hits
            .into_iter()
            .filter_map(|hit| {
                let name = search.name_of(&hit.server, &hit.tool)?;
                let tool = registry.get(name)?;
                Some(FoundTool {
                    name: name.to_owned(),
                    score: hit.score,
                    description: tool.description().to_owned(),
                    input_schema: tool.parameters().clone(),
                    server: hit.server,
                    tool: hit.tool,
                })
            })
            .collect())
    }

    /// What the search tool does: [`search_tools`](Self::search_tools) over every server, and
    /// the tools found loaded — listed to the model for the rest of the session, within the
    /// loaded-set budget — when the session defers.
    pub async fn search_and_load_tools(
        &self,
        query: &str,
        limit: usize,
    ) -> Result<Vec<FoundTool>, SearchError> {
        let found = self.search_tools(query, limit, None).await?;
        let keys: Vec<(String, String)> = found
            .iter()
            .map(|tool| (tool.server.clone(), tool.tool.clone()))
            .collect();
        self.use_tools(&keys);
        Ok(found)
    }

    /// What the MCP tools' definitions cost the model's context, server by server, and what
    /// the tool search sends instead.
    pub fn tool_context(&self) -> ToolContext {
        lock(&self.search).context()
    }

    /// The tools searches (and calls of deferred tools) have loaded, by server and name,
    /// least recently used first.
    pub fn loaded_tools(&self) -> Vec<(String, String)> {
        lock(&self.search).loaded().to_vec()
    }

    /// The agent moved to `dir`: when the session offers roots ([`SessionOptions::roots`]),
    /// every server that follows them is told its root is now `dir`
    /// (`notifications/roots/list_changed`, then `roots/list` answers it); a server with its
    /// own `roots` setting keeps them, and a session without roots tells no one. The servers
    /// and the config files they came from stay those of the session's folder.
    pub fn change_directory(&self, dir: &std::path::Path) {
        self.manager.set_roots(vec![Root::from_path(dir)]);
    }

    /// The session's own directory, where tool results cut by the output budget are kept
    /// whole (removed when the session is dropped); none when results are not cut, when the
    /// agent chose the budget's `spill_dir` itself (the CLI does), or when the directory could
    /// not be made.
    pub fn output_dir(&self) -> Option<&std::path::Path> {
        self.spill.as_ref().map(SpillDir::path)
    }

    /// Counts refreshes; a test or UI can wait for the next one.
    pub fn refreshes(&self) -> watch::Receiver<u64> {
        self.refreshes.subscribe()
    }

    /// `/mcp reload`: re-reads the config files with the startup options, restarts only the
    /// servers whose definition changed (and connects new ones, retries failed ones, stops
    /// removed or disabled ones), and refreshes the tools; unchanged servers keep their
    /// connection, process and calls in flight. Returns the problems found (each logged once).
    ///
    /// With MCP off ([`SessionOptions::mcp`]) nothing is read and nothing starts: a reload only
    /// makes sure no server runs.
    pub async fn reload(&self) -> Vec<Problem> {
        if !self.options.enable_mcp {
            self.manager.disconnect_all().await;
            *lock(&self.loaded) = Loaded::default();
            self.refresh(self.manager.tools(), Changed::Reload);
            return Vec::new();
        }
        let mut loaded = discover_mcp_servers_with(
            Arc::clone(&self.manager),
            &self.options.cwd,
            &self.options.load,
        );
        // Only servers whose definition changed (or that are gone, or not connected) are
        // stopped; the others keep their connection and the calls in flight on it.
        let restarted = self
            .manager
            .disconnect_changed(&loaded.discovery.servers)
            .await;
        tracing::debug!(?restarted, "reload");
        loaded.connect().await;
        report(&loaded.problems);
        let problems = loaded.problems.clone();
        *lock(&self.loaded) = Loaded {
            discovery: loaded.discovery,
            problems: loaded.problems,
        };
        // Every server it restarted was disconnected first, and says so with an event of its
        // own: the tool search compares those closely then, the others by name here.
        self.refresh(self.manager.tools(), Changed::Reload);
        problems
    }

    /// After approvals were withdrawn: reads the config files again, stops the servers of
    /// `names` that are no longer usable (their tools go with them) and starts nothing; every
    /// other server is left as it is, a failed one included (a [`reload`](Self::reload) would
    /// try it again).
    pub async fn stop_withdrawn(&self, names: &[String]) {
        let discovery = self.reread_files();
        let stopped: Vec<&String> = names
            .iter()
            .filter(|name| !discovery.servers.contains_key(*name))
            .collect();
        for name in &stopped {
            self.manager.disconnect_server(name).await;
        }
        self.refresh(self.manager.tools(), Changed::Reload);
    }

    /// Reads the config files again for what the session says of its servers (`list`, `get`,
    /// the hints), starting and stopping nothing: after approvals were given, a server
    /// approved shows as such, waiting for a [`reload`](Self::reload) to start it. What the
    /// last start said of the servers still defined stands; the file problems are this
    /// reading's. The discovery read.
    pub fn reread_files(&self) -> Arc<DiscoveryResult> {
        let loaded = discover_mcp_servers_with(
            Arc::clone(&self.manager),
            &self.options.cwd,
            &self.options.load,
        );
        let mut state = lock(&self.loaded);
        let kept = state.problems.iter().filter(|problem| {
            problem
                .server()
                .is_some_and(|server| loaded.discovery.servers.contains_key(server))
        });
        let mut problems: Vec<Problem> = kept.cloned().collect();
        problems.extend(loaded.problems);
        *state = Loaded {
            discovery: Arc::clone(&loaded.discovery),
            problems,
        };
        loaded.discovery
    }

    /// The discovered server `server`, for a command that would start it: an error when MCP is
    /// off (nothing starts then) or no server has that name.
    fn startable(&self, server: &str) -> Result<DiscoveredServer, SessionError> {
        if !self.options.enable_mcp {
            return Err(SessionError::McpOff {
                name: server.to_owned(),
            });
        }
        self.discovery()
            .servers
            .get(server)
            .cloned()
            .ok_or_else(|| SessionError::UnknownServer {
                name: server.to_owned(),
            })
    }

    /// Disconnects one server and connects it again with its current configuration.
    pub async fn reconnect(&self, server: &str) -> Result<(), SessionError> {
        let found = self.startable(server)?;
        self.manager.disconnect_server(server).await;
        let servers: BTreeMap<String, DiscoveredServer> =
            BTreeMap::from([(server.to_owned(), found)]);
        let outcome = self.manager.connect_servers(&servers).await;
        self.refresh_server(server);
        match outcome.errors.into_iter().next() {
            Some(error) => Err(error.into()),
            None => Ok(()),
        }
    }

    /// Logs in to the remote server `server` through the session's
    /// [`authorization`](SessionOptions::authorization) handler (a fresh login: tokens kept from
    /// before are dropped first), then reconnects it with the new tokens; the number of tools it
    /// lists.
    #[cfg(feature = "oauth")]
    pub async fn login(&self, server: &str) -> Result<usize, SessionError> {
        let found = self.startable(server)?;
        let Some(handler) = self.options.authorization.clone() else {
            return Err(SessionError::NoBrowserStep {
                name: server.to_owned(),
            });
        };
        self.manager
            .login(server, &found.config, handler, self.options.login_timeout)
            .await?;
        self.reconnect(server).await?;
        Ok(self
            .manager
            .tools()
            .iter()
            .filter(|tool| tool.server == server)
            .count())
    }

    /// Forgets the tokens and client registration kept for the remote server `server` and
    /// reconnects it (a server that wants a login then shows `needs-login`); true when there
    /// was something to forget.
    #[cfg(feature = "oauth")]
    pub async fn logout(&self, server: &str) -> Result<bool, SessionError> {
        let found = self.startable(server)?;
        let forgotten = self.manager.logout(server, &found.config).await?;
        // The connection keeps the tokens it holds: a new one starts without them.
        if let Err(error) = self.reconnect(server).await {
            tracing::debug!(server, %error, "after logging out, the server does not connect");
        }
        Ok(forgotten)
    }

    /// Disconnects every server and stops following the manager. Nothing is left running.
    pub async fn shutdown(&self) {
        if let Some(follower) = lock(&self.follower).take() {
            follower.abort();
        }
        self.manager.disconnect_all().await;
        let mut search = lock(&self.search);
        search.update(&[], Changed::Any, |_| None);
        let mut registry = lock(&self.registry);
        registry.replace_mcp_tools(Vec::new());
        registry.set_search_tool(None);
    }

    /// Keeps the registry in step with the manager: every change of a server's tools (a late
    /// connection, a list change, a failure, a disconnect) refreshes the MCP tools.
    fn follow_manager(self: &Arc<Self>) {
        let mut events = self.manager.subscribe();
        // A server may have finished between the load and this subscription; caught up here,
        // not in the task: a refresh the agent makes before the task first runs must not be
        // overwritten by this one.
        self.refresh_mcp_tools(self.manager.tools());
        let session: Weak<Self> = Arc::downgrade(self);
        let follower = tokio::spawn(async move {
            loop {
                // The server whose tools changed; `None` when events were missed.
                let changed = match events.recv().await {
                    Ok(ManagerEvent::ToolsChanged { server }) => Some(Some(server)),
                    Ok(_) => None,
                    Err(broadcast::error::RecvError::Lagged(_)) => Some(None),
                    Err(broadcast::error::RecvError::Closed) => return,
                };
                if let Some(changed) = changed {
                    let Some(session) = session.upgrade() else {
                        return;
                    };
                    match changed {
                        Some(server) => session.refresh_server(&server),
                        None => session.refresh_mcp_tools(session.manager.tools()),
                    }
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
