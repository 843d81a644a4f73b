//! Approving the project folder's servers: what `agent-session trust` and `/mcp trust` do
//! (see `mcp_config::trust` for what counts as approved).

use mcp_config::writer::{trust_project_servers, untrust_project_servers};
use mcp_config::{ConfigError, TrustPolicy, load_all_configs};

use crate::session::SessionOptions;

/// Why the approvals could not be changed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TrustError {
    /// The discovery roots are unknown (e.g. `HOME` is not set).
    #[error("{0}")]
    Discovery(String),
    /// A name given is not a server of the project folder's files.
    #[error(
        "\"{name}\" is not a server of this folder's project files (the project's servers: {})",
        if .known.is_empty() { "none".to_owned() } else { .known.join(", ") }
    )]
    NotAProjectServer {
        /// The name given.
        name: String,
        /// The project servers there are.
        known: Vec<String>,
    },
    /// The user's config file could not be changed.
    #[error(transparent)]
    Config(#[from] ConfigError),
}

/// Approves the project folder's servers as they are defined now: those named, or all of them.
/// The names newly approved (approving an unchanged approved definition again does nothing).
pub fn approve_project_servers(
    options: &SessionOptions,
    names: Option<&[String]>,
) -> Result<Vec<String>, TrustError> {
    let ctx = context(options)?;
    let everything = options.load.discovery.clone().trust(TrustPolicy::TrustAll);
    let found = load_all_configs(&ctx, &everything);
    let project: Vec<(&str, &mcp_config::ServerConfig)> = found
        .servers
        .iter()
        .filter(|(_, server)| server.source.meta.in_project_folder)
        .map(|(name, server)| (name.as_str(), &server.definition))
        .collect();
    if let Some(names) = names {
        let known: Vec<String> = project.iter().map(|(name, _)| (*name).to_owned()).collect();
        if let Some(unknown) = names.iter().find(|name| !known.contains(name)) {
            return Err(TrustError::NotAProjectServer {
                name: unknown.clone(),
                known,
            });
        }
    }
    let chosen: Vec<(&str, &mcp_config::ServerConfig)> = project
        .into_iter()
        .filter(|(name, _)| names.is_none_or(|names| names.iter().any(|n| n == name)))
        .collect();
    Ok(trust_project_servers(&ctx, &chosen)?)
}

/// Withdraws approvals of the project folder's servers: those named, or all. The names whose
/// approval was withdrawn.
pub fn withdraw_project_servers(
    options: &SessionOptions,
    names: Option<&[String]>,
) -> Result<Vec<String>, TrustError> {
    Ok(untrust_project_servers(&context(options)?, names)?)
}

fn context(options: &SessionOptions) -> Result<mcp_config::DiscoveryContext, TrustError> {
    options
        .load
        .discovery_context(&options.cwd)
        .map_err(|error| TrustError::Discovery(error.to_string()))
}
