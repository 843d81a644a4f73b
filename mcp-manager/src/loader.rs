//! The loader facade a session calls at startup: discovery, then the manager, then tools
//! decorated with where they come from.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use mcp_bridge::AgentTool;
use mcp_cache::{CacheOptions, SledToolCache, ToolCache};
use mcp_config::{
    AuthStorage, DiscoveryContext, DiscoveryOptions, DiscoveryResult, load_all_configs,
};

use crate::manager::{ManagerOptions, McpManager};

/// What the loader does.
#[derive(Clone)]
#[non_exhaustive]
pub struct LoadOptions {
    /// The embedding agent's name: its native config files and its cache directory.
    pub app_name: String,
    /// Whether project-level config files count. Default: on.
    pub enable_project_config: bool,
    /// Remove Exa servers and return their keys. Default: on.
    pub filter_exa: bool,
    /// The discovery roots; `None` builds them from this process (HOME, XDG, environment).
    pub context: Option<DiscoveryContext>,
    /// Discovery settings (providers); project config and Exa filter are taken from above.
    pub discovery: DiscoveryOptions,
    /// How the manager connects.
    pub manager: ManagerOptions,
    /// The tool cache; `None` uses the sled store in the user's cache directory.
    pub cache: Option<Arc<dyn ToolCache>>,
    /// The agent's credential store for OAuth servers.
    pub auth: Option<Arc<dyn AuthStorage>>,
}

impl LoadOptions {
    /// Defaults for an agent named `app_name`.
    pub fn new(app_name: impl Into<String>) -> Self {
        Self {
            app_name: app_name.into(),
            enable_project_config: true,
            filter_exa: true,
            context: None,
            discovery: DiscoveryOptions::default(),
            manager: ManagerOptions::default(),
            cache: None,
            auth: None,
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
        self.enable_project_config = enabled;
        self
    }
}

impl std::fmt::Debug for LoadOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoadOptions")
            .field("app_name", &self.app_name)
            .field("enable_project_config", &self.enable_project_config)
            .field("filter_exa", &self.filter_exa)
            .field("context", &self.context)
            .finish_non_exhaustive()
    }
}

/// A tool with where it comes from.
#[derive(Clone)]
#[non_exhaustive]
pub struct LoadedTool {
    /// The tool.
    pub tool: Arc<dyn AgentTool>,
    /// The server's name.
    pub server: String,
    /// `mcp:<server> via <provider name>`.
    pub path: String,
    /// True while the tool comes from the cache.
    pub deferred: bool,
}

impl std::fmt::Debug for LoadedTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoadedTool")
            .field("name", &self.tool.name())
            .field("path", &self.path)
            .field("deferred", &self.deferred)
            .finish()
    }
}

/// A problem for the user: a config file or a server.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct LoadError {
    /// A config file's path, or `mcp:<server>`.
    pub path: String,
    /// What went wrong.
    pub error: String,
}

impl LoadError {
    /// A problem at `path` (a file, or `mcp:<server>`).
    pub fn new(path: impl Into<String>, error: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            error: error.into(),
        }
    }
}

/// What the loader found.
#[derive(Debug)]
#[non_exhaustive]
pub struct LoadResult {
    /// The tools, live or deferred.
    pub tools: Vec<LoadedTool>,
    /// Problems, each with its file or server.
    pub errors: Vec<LoadError>,
    /// The manager holding the connections (keep it for reloads and shutdown).
    pub manager: Arc<McpManager>,
    /// API keys of Exa servers removed by the filter.
    pub exa_api_keys: Vec<String>,
    /// Discovery's full result (sources, shadowed definitions, disabled servers).
    pub discovery: DiscoveryResult,
}

fn discover(cwd: &Path, options: &LoadOptions) -> Result<DiscoveryResult, String> {
    let context = match &options.context {
        Some(context) => context.clone(),
        None => DiscoveryContext::from_process(options.app_name.clone(), cwd)
            .map_err(|error| error.to_string())?,
    };
    let discovery = options
        .discovery
        .clone()
        .project_config(options.enable_project_config)
        .filter_exa(options.filter_exa);
    // A provider is code of any origin: a panic in one must not take the session down.
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        load_all_configs(&context, &discovery)
    }))
    .map_err(|panic| {
        let what = panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|text| (*text).to_owned()))
            .unwrap_or_else(|| "a config provider panicked".to_owned());
        format!("MCP discovery failed: {what}")
    })
}

fn new_manager(options: &LoadOptions) -> Arc<McpManager> {
    let cache = options.cache.clone().unwrap_or_else(|| {
        Arc::new(SledToolCache::in_user_cache_dir(
            &options.app_name,
            CacheOptions::default(),
        ))
    });
    Arc::new(McpManager::new(
        options.manager.clone(),
        cache,
        options.auth.clone(),
    ))
}

fn discovery_errors(discovery: &DiscoveryResult) -> Vec<LoadError> {
    discovery
        .errors
        .iter()
        .map(|error| LoadError {
            path: match &error.server {
                Some(server) => format!("mcp:{server}"),
                None => error.path.clone(),
            },
            error: error.error.clone(),
        })
        .collect()
}

fn fatal(error: String, options: &LoadOptions) -> LoadResult {
    tracing::warn!(%error, "MCP discovery failed; starting without MCP tools");
    LoadResult {
        tools: Vec::new(),
        errors: vec![LoadError {
            path: ".mcp.json".to_owned(),
            error,
        }],
        manager: new_manager(options),
        exa_api_keys: Vec::new(),
        discovery: DiscoveryResult::default(),
    }
}

/// Discovery only: the servers and problems, no connection made (`tools` is empty).
pub fn discover_mcp_servers(cwd: &Path, options: &LoadOptions) -> LoadResult {
    match discover(cwd, options) {
        Err(error) => fatal(error, options),
        Ok(discovery) => LoadResult {
            tools: Vec::new(),
            errors: discovery_errors(&discovery),
            manager: new_manager(options),
            exa_api_keys: discovery.exa_api_keys.clone(),
            discovery,
        },
    }
}

/// Discovers the user's MCP servers, connects them behind the startup gate and returns their
/// tools, each decorated with `mcp:<server> via <provider name>`. Never fails as a whole: a
/// fatal discovery failure gives no tools and one error at `.mcp.json`.
pub async fn discover_and_load_mcp_tools(cwd: &Path, options: &LoadOptions) -> LoadResult {
    let discovery = match discover(cwd, options) {
        Ok(discovery) => discovery,
        Err(error) => return fatal(error, options),
    };
    let manager = new_manager(options);
    let sources: BTreeMap<_, _> = discovery
        .sources
        .iter()
        .map(|(name, source)| (name.clone(), source.meta.clone()))
        .collect();
    let outcome = manager.connect_servers(&discovery.configs, &sources).await;
    let mut errors = discovery_errors(&discovery);
    errors.extend(outcome.errors.into_iter().map(|error| LoadError {
        path: format!("mcp:{}", error.server),
        error: error.error,
    }));
    let tools = outcome
        .tools
        .into_iter()
        .map(|managed| {
            let provider = sources
                .get(&managed.server)
                .map_or("unknown source", |meta| meta.provider_name.as_str());
            LoadedTool {
                path: format!("mcp:{} via {provider}", managed.server),
                server: managed.server,
                deferred: managed.deferred,
                tool: managed.tool,
            }
        })
        .collect();
    LoadResult {
        tools,
        errors,
        manager,
        exa_api_keys: discovery.exa_api_keys.clone(),
        discovery,
    }
}
