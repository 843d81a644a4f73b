//! The loader facade a session calls: discovery, then the manager, then the tools and every
//! problem met on the way, each about a file, a server or discovery as a whole.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Arc;

#[cfg(not(feature = "sled"))]
use mcp_cache::NoopToolCache;
use mcp_cache::ToolCache;
#[cfg(feature = "sled")]
use mcp_cache::{CacheOptions, SledToolCache};
#[cfg(feature = "sled")]
use mcp_config::app_cache_dir;
use mcp_config::{
    DiscoveredServer, DiscoveryContext, DiscoveryOptions, DiscoveryResult, SkipReason, SourceMeta,
    load_all_configs,
};

use crate::error::{ManagerError, Problem, ProviderPanic, ServerError};
use crate::manager::McpManager;
use crate::offer::ManagedTool;
use crate::options::ManagerOptions;

/// What the loader does.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct LoadOptions {
    /// The embedding agent's name: its native config files and its cache directory.
    pub app_name: String,
    /// The discovery roots; `None` builds them from this process (HOME, XDG, environment).
    pub context: Option<DiscoveryContext>,
    /// What discovery reads and filters (providers, project config, the Exa filter, which is
    /// on by default here).
    pub discovery: DiscoveryOptions,
    /// How the manager connects.
    pub manager: ManagerOptions,
    /// The tool cache; `None` uses the sled store in the user's cache directory (feature
    /// `sled`, on by default), or without that feature keeps no cache.
    pub cache: Option<Arc<dyn ToolCache>>,
}

impl LoadOptions {
    /// Defaults for an agent named `app_name`: every built-in provider, project config on, the
    /// Exa filter on.
    pub fn new(app_name: impl Into<String>) -> Self {
        Self {
            app_name: app_name.into(),
            context: None,
            discovery: DiscoveryOptions::default().filter_exa(true),
            manager: ManagerOptions::default(),
            cache: None,
        }
    }

    /// Uses these discovery roots instead of the process's.
    #[must_use]
    pub fn context(mut self, context: DiscoveryContext) -> Self {
        self.context = Some(context);
        self
    }

    /// Uses this tool cache.
    #[must_use]
    pub fn cache(mut self, cache: Arc<dyn ToolCache>) -> Self {
        self.cache = Some(cache);
        self
    }

    /// Sets the manager options.
    #[must_use]
    pub fn manager(mut self, options: ManagerOptions) -> Self {
        self.manager = options;
        self
    }

    /// Turns project-level config on or off.
    #[must_use]
    pub fn project_config(mut self, enabled: bool) -> Self {
        self.discovery = self.discovery.project_config(enabled);
        self
    }

    /// Decides which servers of the project folder's files may run (default: those the user
    /// approved).
    #[must_use]
    pub fn trust(mut self, policy: mcp_config::TrustPolicy) -> Self {
        self.discovery = self.discovery.trust(policy);
        self
    }

    /// Whether project-level config files count.
    pub fn enable_project_config(&self) -> bool {
        self.discovery.enable_project_config
    }

    /// The discovery roots: the configured ones, or this process's (for `cwd`).
    pub fn discovery_context(&self, cwd: &Path) -> Result<DiscoveryContext, ServerError> {
        match &self.context {
            Some(context) => Ok(context.clone()),
            None => DiscoveryContext::from_process(self.app_name.clone(), cwd)
                .map_err(|error| ServerError::new(ManagerError::Discovery(Arc::new(error)))),
        }
    }
}

/// What the loader found.
#[derive(Debug)]
#[non_exhaustive]
pub struct LoadResult {
    /// The tools, live or deferred, each with its server.
    pub tools: Vec<ManagedTool>,
    /// Problems: broken files, invalid or failed servers, or a failed discovery.
    pub problems: Vec<Problem>,
    /// The manager holding the connections (keep it for reloads and shutdown).
    pub manager: Arc<McpManager>,
    /// Discovery's full result: the servers with their sources and shadowed definitions, the
    /// skipped definitions and why, the Exa keys. Shared, so a session keeps it as it is.
    pub discovery: Arc<DiscoveryResult>,
}

impl ManagedTool {
    /// Where the tool comes from, as a tool list shows it: `mcp:<server> via <provider>` (the
    /// display name of the config provider that defines the server, e.g.
    /// `mcp:github via Claude Code`; its id when it has no name), or `mcp:<server>` when the
    /// provider is unknown. The file is in [`source`](Self::source).
    pub fn path(&self) -> String {
        tool_path(&self.server, self.source.as_deref())
    }
}

/// [`ManagedTool::path`] of a tool of `server` defined at `source`.
fn tool_path(server: &str, source: Option<&SourceMeta>) -> String {
    let provider = source.and_then(|source| {
        [&source.provider_name, &source.provider]
            .into_iter()
            .map(|name| name.trim())
            .find(|name| !name.is_empty())
    });
    match provider {
        Some(provider) => format!("mcp:{server} via {provider}"),
        None => format!("mcp:{server}"),
    }
}

/// Runs discovery; a provider is code of any origin, so a panic in one is a problem, not a
/// crash.
fn discover(cwd: &Path, options: &LoadOptions) -> Result<DiscoveryResult, ServerError> {
    let context = options.discovery_context(cwd)?;
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        load_all_configs(&context, &options.discovery)
    }))
    .map_err(|payload| {
        let panic = ProviderPanic::from_payload(payload.as_ref());
        ServerError::new(ManagerError::ProviderPanicked(panic))
    })
}

/// A manager for `options`, its stdio servers started in `cwd` unless the options name
/// another working folder.
fn new_manager(options: &LoadOptions, cwd: &Path) -> Arc<McpManager> {
    let cache = options
        .cache
        .clone()
        .unwrap_or_else(|| default_tool_cache(&options.app_name));
    let mut manager = options.manager.clone();
    if manager.working_dir.is_none() {
        manager.working_dir = Some(cwd.to_path_buf());
    }
    Arc::new(McpManager::new(manager, cache))
}

/// The tool cache of a loader or a session given none: the sled store in the user's cache
/// directory for `app_name` (`~/.cache/<app_name>/tool-cache`).
#[cfg(feature = "sled")]
pub fn default_tool_cache(app_name: &str) -> Arc<dyn ToolCache> {
    let folder = app_cache_dir(app_name, |var| std::env::var_os(var));
    Arc::new(SledToolCache::in_app_cache_dir(
        folder,
        CacheOptions::default(),
    ))
}

/// The tool cache of a loader or a session given none, built without the sled store: none.
#[cfg(not(feature = "sled"))]
pub fn default_tool_cache(_app_name: &str) -> Arc<dyn ToolCache> {
    Arc::new(NoopToolCache::new())
}

/// The problems discovery met: broken files, servers whose definitions cannot be used, and
/// project servers the trust policy left waiting for approval. A left-out definition is a
/// problem only when no other definition of its name is used.
pub fn discovery_problems(discovery: &DiscoveryResult) -> Vec<Problem> {
    let files = discovery.file_errors.iter().cloned().map(Problem::File);
    let left_out = discovery
        .skipped
        .iter()
        .filter(|skipped| !discovery.servers.contains_key(&skipped.name))
        .filter_map(|skipped| match &skipped.reason {
            SkipReason::Invalid(invalid) => Some(Problem::Server {
                name: skipped.name.clone(),
                source: Some(skipped.source.clone()),
                error: ServerError::new(invalid.clone()),
            }),
            SkipReason::NeedsApproval => Some(Problem::Unapproved {
                name: skipped.name.clone(),
                source: skipped.source.clone(),
            }),
            _ => None,
        });
    files.chain(left_out).collect()
}

impl LoadResult {
    /// Connects the servers discovery found into [`manager`](Self::manager), behind the startup
    /// gate: fills [`tools`](Self::tools) and adds a problem per server that failed before the
    /// gate answered.
    pub async fn connect(&mut self) {
        let discovery = Arc::clone(&self.discovery);
        self.connect_these(&discovery.servers).await;
    }

    /// Connects only the named servers, as [`connect`](Self::connect) does; the others are
    /// neither started nor reported (a command that needs one server has no business with the
    /// problems of the rest), problems about files stay.
    pub async fn connect_only(&mut self, names: &BTreeSet<String>) {
        let discovery = Arc::clone(&self.discovery);
        let servers: BTreeMap<String, DiscoveredServer> = discovery
            .servers
            .iter()
            .filter(|(name, _)| names.contains(*name))
            .map(|(name, server)| (name.clone(), server.clone()))
            .collect();
        self.problems
            .retain(|problem| problem.server().is_none_or(|server| names.contains(server)));
        self.connect_these(&servers).await;
    }

    async fn connect_these(&mut self, servers: &BTreeMap<String, DiscoveredServer>) {
        let outcome = self.manager.connect_servers(servers).await;
        for error in outcome.errors {
            let name = error.server().unwrap_or_default().to_owned();
            let source = self
                .discovery
                .servers
                .get(&name)
                .map(|server| server.source.meta.clone());
            self.problems.push(Problem::Server {
                name,
                source,
                error,
            });
        }
        self.tools = outcome.tools;
    }
}

/// Discovery only, for an existing manager (a reload): the servers and problems, nothing
/// connected yet ([`LoadResult::connect`] does that).
pub fn discover_mcp_servers_with(
    manager: Arc<McpManager>,
    cwd: &Path,
    options: &LoadOptions,
) -> LoadResult {
    let (discovery, problems) = match discover(cwd, options) {
        Ok(discovery) => {
            let problems = discovery_problems(&discovery);
            (discovery, problems)
        }
        Err(error) => {
            tracing::debug!(%error, "MCP discovery failed; no MCP servers");
            (DiscoveryResult::default(), vec![Problem::Discovery(error)])
        }
    };
    LoadResult {
        tools: Vec::new(),
        problems,
        manager,
        discovery: Arc::new(discovery),
    }
}

/// Discovery only: the servers and problems, no connection made (`tools` is empty), with a new
/// manager built from `options`.
pub fn discover_mcp_servers(cwd: &Path, options: &LoadOptions) -> LoadResult {
    discover_mcp_servers_with(new_manager(options, cwd), cwd, options)
}

/// Discovers the user's MCP servers, connects them behind the startup gate and returns their
/// tools. Never fails as a whole: a fatal discovery failure gives no tools and one
/// [`Problem::Discovery`].
pub async fn discover_and_load_mcp_tools(cwd: &Path, options: &LoadOptions) -> LoadResult {
    let mut loaded = discover_mcp_servers(cwd, options);
    loaded.connect().await;
    loaded
}

#[cfg(test)]
mod tests {
    use mcp_config::Level;

    use super::*;

    #[test]
    fn a_tool_path_names_the_provider_when_it_is_known() {
        let source = |id: &str, name: &str| SourceMeta::new(id, name, "/p/.mcp.json", Level::User);
        let cases = [
            (
                Some(source("claude-code", "Claude Code")),
                "mcp:github via Claude Code",
            ),
            (Some(source("cursor", "  ")), "mcp:github via cursor"),
            (Some(source("", "")), "mcp:github"),
            (None, "mcp:github"),
        ];
        for (source, expected) in cases {
            assert_eq!(tool_path("github", source.as_ref()), expected, "{source:?}");
        }
    }
}
