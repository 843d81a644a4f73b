//! [`load_all_configs`]: every provider's files, filtered, merged by precedence, expanded and
//! validated, with the source of each server and the definitions it shadows.
//!
//! The order of work, which decides what a user sees:
//!
//! 1. Providers in priority order (highest first), each giving its project files before its
//!    user files. A file that cannot be read or parsed is an error naming it; the rest go on.
//! 2. Filters, before any merging: project-level entries are dropped when project config is
//!    off (so they never hide a user entry); `enabled: false` entries and names in
//!    `disabledServers` are skipped; with `filter_exa`, Exa servers are removed and their API
//!    keys collected.
//! 3. Merge by name: the first definition wins whole (no field merge); the others are listed as
//!    shadowed in its [`ServerSource`].
//! 4. Expansion of `${VAR}` and validation of each winner; a server that fails either is skipped
//!    with messages naming it.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde::Serialize;

use crate::context::DiscoveryContext;
use crate::expand::expand_server_config;
use crate::providers::default_sources;
use crate::server_config::{Level, ServerConfig, SourceMeta, validate_server_config};
use crate::source::ConfigSource;

/// What discovery reads and how it filters.
#[derive(Clone)]
#[non_exhaustive]
pub struct DiscoveryOptions {
    /// Whether project-level files count. Agents that ask the user to trust a project before
    /// running its servers turn this off until then. Default: on.
    pub enable_project_config: bool,
    /// Remove Exa servers and hand their API keys to the caller. Default: off.
    pub filter_exa: bool,
    /// The providers, highest priority first. Default: [`default_sources`].
    pub sources: Vec<Arc<dyn ConfigSource>>,
    /// Provider ids to skip.
    pub disabled_providers: BTreeSet<String>,
}

impl Default for DiscoveryOptions {
    fn default() -> Self {
        Self {
            enable_project_config: true,
            filter_exa: false,
            sources: default_sources().into_iter().map(Arc::from).collect(),
            disabled_providers: BTreeSet::new(),
        }
    }
}

impl DiscoveryOptions {
    /// Turns project-level files on or off.
    #[must_use]
    pub fn project_config(mut self, enabled: bool) -> Self {
        self.enable_project_config = enabled;
        self
    }

    /// Turns the Exa filter on or off.
    #[must_use]
    pub fn filter_exa(mut self, enabled: bool) -> Self {
        self.filter_exa = enabled;
        self
    }

    /// Adds a provider with the highest priority.
    #[must_use]
    pub fn with_source_first(mut self, source: Arc<dyn ConfigSource>) -> Self {
        self.sources.insert(0, source);
        self
    }

    /// Adds a provider with the lowest priority.
    #[must_use]
    pub fn with_source_last(mut self, source: Arc<dyn ConfigSource>) -> Self {
        self.sources.push(source);
        self
    }

    /// Skips the provider with this id.
    #[must_use]
    pub fn disable_provider(mut self, id: impl Into<String>) -> Self {
        self.disabled_providers.insert(id.into());
        self
    }
}

impl std::fmt::Debug for DiscoveryOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DiscoveryOptions")
            .field("enable_project_config", &self.enable_project_config)
            .field("filter_exa", &self.filter_exa)
            .field(
                "sources",
                &self
                    .sources
                    .iter()
                    .map(|s| s.id().to_owned())
                    .collect::<Vec<_>>(),
            )
            .field("disabled_providers", &self.disabled_providers)
            .finish()
    }
}

/// Where a server's winning definition came from, and the definitions it shadows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ServerSource {
    /// The definition in use.
    pub meta: SourceMeta,
    /// Lower-priority definitions of the same name, highest first.
    pub shadowed: Vec<SourceMeta>,
}

/// A problem discovery met: a file that could not be read or parsed, or a server skipped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct DiscoveryError {
    /// The file concerned.
    pub path: String,
    /// The server concerned, when the problem is one server's.
    pub server: Option<String>,
    /// What is wrong, naming the file or the server.
    pub error: String,
}

/// Everything discovery found.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct DiscoveryResult {
    /// The usable servers by name, `${VAR}` expanded (`!command` values and OAuth tokens are
    /// resolved later, at connect time).
    pub configs: BTreeMap<String, ServerConfig>,
    /// Where each usable server came from.
    pub sources: BTreeMap<String, ServerSource>,
    /// Servers switched off (`enabled: false` or `disabledServers`) with no other definition
    /// in use, and where they are defined.
    pub disabled: BTreeMap<String, SourceMeta>,
    /// Files and servers that could not be used.
    pub errors: Vec<DiscoveryError>,
    /// API keys of the Exa servers removed by `filter_exa`.
    pub exa_api_keys: Vec<String>,
}

struct Candidate {
    name: String,
    config: ServerConfig,
    meta: SourceMeta,
}

/// Reads every provider's files and returns the merged, filtered, validated servers.
/// Never fails as a whole: each problem is an entry in [`DiscoveryResult::errors`].
pub fn load_all_configs(ctx: &DiscoveryContext, options: &DiscoveryOptions) -> DiscoveryResult {
    let mut result = DiscoveryResult::default();
    let mut candidates = Vec::new();
    let mut disabled_names = BTreeSet::new();

    for source in &options.sources {
        if options.disabled_providers.contains(source.id()) {
            continue;
        }
        for file in source.load(ctx) {
            let path = file.path.display().to_string();
            if file.level == Level::Project && !options.enable_project_config {
                tracing::debug!(path, "project config is off; skipping");
                continue;
            }
            let contents = match file.contents {
                Ok(contents) => contents,
                Err(error) => {
                    tracing::warn!(path, %error, "skipping an MCP config file");
                    result.errors.push(DiscoveryError {
                        path,
                        server: None,
                        error: error.to_string(),
                    });
                    continue;
                }
            };
            for (name, error) in contents.invalid {
                result.errors.push(DiscoveryError {
                    path: path.clone(),
                    server: Some(name),
                    error,
                });
            }
            disabled_names.extend(contents.disabled_servers);
            for (name, config) in contents.servers {
                let meta = SourceMeta::new(source.id(), source.name(), &file.path, file.level);
                candidates.push(Candidate { name, config, meta });
            }
        }
    }

    let mut winners: BTreeMap<String, (Candidate, Vec<SourceMeta>)> = BTreeMap::new();
    let mut disabled = BTreeMap::new();
    for candidate in candidates {
        if !candidate.config.is_enabled() || disabled_names.contains(&candidate.name) {
            disabled
                .entry(candidate.name.clone())
                .or_insert_with(|| candidate.meta.clone());
            continue;
        }
        if options.filter_exa && is_exa(&candidate.name, &candidate.config) {
            let expanded = expand_server_config(&candidate.name, &candidate.config, &ctx.env);
            let config = expanded.as_ref().unwrap_or(&candidate.config);
            for key in exa_api_keys(config) {
                if !result.exa_api_keys.contains(&key) {
                    result.exa_api_keys.push(key);
                }
            }
            continue;
        }
        match winners.get_mut(&candidate.name) {
            Some((_, shadowed)) => shadowed.push(candidate.meta),
            None => {
                winners.insert(candidate.name.clone(), (candidate, Vec::new()));
            }
        }
    }

    for (name, (winner, shadowed)) in winners {
        let path = winner.meta.path.display().to_string();
        let problems = match expand_server_config(&name, &winner.config, &ctx.env) {
            Ok(expanded) => {
                let problems = validate_server_config(&name, &expanded);
                if problems.is_empty() {
                    result.sources.insert(
                        name.clone(),
                        ServerSource {
                            meta: winner.meta,
                            shadowed,
                        },
                    );
                    result.configs.insert(name, expanded);
                    continue;
                }
                problems
            }
            Err(problems) => problems,
        };
        for error in problems {
            tracing::warn!(server = name, %error, "skipping an MCP server");
            result.errors.push(DiscoveryError {
                path: path.clone(),
                server: Some(name.clone()),
                error,
            });
        }
    }
    disabled.retain(|name, _| !result.configs.contains_key(name));
    result.disabled = disabled;
    result
}

const EXA_HOST: &str = "mcp.exa.ai";

/// An Exa server: named `exa`, or pointing at (or launched with) `mcp.exa.ai`.
fn is_exa(name: &str, config: &ServerConfig) -> bool {
    name.eq_ignore_ascii_case("exa")
        || config
            .url
            .as_deref()
            .is_some_and(|url| url.contains(EXA_HOST))
        || config.args.iter().any(|arg| arg.contains(EXA_HOST))
}

/// The Exa API keys of a server: `exaApiKey=` in its URL or arguments, `EXA_API_KEY` in its
/// environment.
fn exa_api_keys(config: &ServerConfig) -> Vec<String> {
    let mut keys = Vec::new();
    let texts = config.url.iter().chain(config.args.iter());
    for text in texts {
        let mut rest = text.as_str();
        while let Some(start) = rest.find("exaApiKey=") {
            let value = &rest[start + "exaApiKey=".len()..];
            let end = value
                .find(['&', '#', ' ', '"', '\''])
                .unwrap_or(value.len());
            if end > 0 {
                keys.push(value[..end].to_owned());
            }
            rest = &value[end..];
        }
    }
    if let Some(key) = config.env.get("EXA_API_KEY").filter(|key| !key.is_empty()) {
        keys.push(key.clone());
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server_config::TransportKind;

    #[test]
    fn exa_keys_come_from_url_args_and_env() {
        let remote = ServerConfig::remote(
            TransportKind::Http,
            "https://mcp.exa.ai/mcp?exaApiKey=url-key&tools=web_search",
        );
        assert!(is_exa("search", &remote));
        assert_eq!(exa_api_keys(&remote), ["url-key"]);

        let mut local = ServerConfig::stdio(
            "npx",
            [
                "-y",
                "mcp-remote",
                "https://mcp.exa.ai/mcp?exaApiKey=arg-key",
            ],
        );
        local.env.insert("EXA_API_KEY".into(), "env-key".into());
        assert!(is_exa("web", &local));
        assert_eq!(exa_api_keys(&local), ["arg-key", "env-key"]);

        assert!(is_exa(
            "Exa",
            &ServerConfig::stdio("exa-mcp-server", Vec::<String>::new())
        ));
        assert!(!is_exa(
            "github",
            &ServerConfig::stdio("gh-mcp", Vec::<String>::new())
        ));
    }
}
