//! From a server's configuration to a connected client: validation, credentials, the transport
//! for the configuration, the handshake.
//!
//! The configuration is matched exhaustively on its transport, so a new kind of transport is a
//! compile error here until it is handled.

use mcp_config::{
    AuthStorage, InvalidServer, RemoteConfig, ServerConfig, StdioConfig, TransportConfig,
    resolve_auth_config, validate_server_config,
};
use mcp_transport::http::{HttpServerParams, ParamsError, RemoteTransport};
use mcp_transport::{ClientOptions, McpClient, StdioServerParams};

use crate::error::ManagerError;

/// Validates the configuration, resolves its `!command` values and OAuth token, and connects
/// with `options` (whose connect timeout bounds the start and the handshake). On failure
/// nothing is left running.
pub(crate) async fn connect_client(
    name: &str,
    config: &ServerConfig,
    auth: Option<&dyn AuthStorage>,
    options: ClientOptions,
) -> Result<McpClient, ManagerError> {
    let problems = validate_server_config(name, config);
    if !problems.is_empty() {
        return Err(InvalidServer::new(name, problems).into());
    }
    let resolved = resolve_auth_config(name, config, auth).await?;
    match resolved.transport() {
        TransportConfig::Stdio(stdio) => {
            Ok(McpClient::connect_stdio(name, stdio_params(stdio), options).await?)
        }
        TransportConfig::Http(remote) => {
            connect_remote(name, remote, RemoteTransport::Auto, options).await
        }
        TransportConfig::Sse(remote) => {
            connect_remote(name, remote, RemoteTransport::Sse, options).await
        }
    }
}

async fn connect_remote(
    name: &str,
    remote: &RemoteConfig,
    transport: RemoteTransport,
    options: ClientOptions,
) -> Result<McpClient, ManagerError> {
    let params =
        remote_params(remote, transport).map_err(|source| ManagerError::InvalidRemote {
            server: name.to_owned(),
            source,
        })?;
    Ok(McpClient::connect_http(name, params, options).await?)
}

/// The HTTP transports' parameters for a (resolved) remote configuration: `http` tries
/// Streamable HTTP and falls back to legacy SSE, `sse` is legacy SSE only.
fn remote_params(
    remote: &RemoteConfig,
    transport: RemoteTransport,
) -> Result<HttpServerParams, ParamsError> {
    let mut params = HttpServerParams::new(&remote.url)?.transport(transport);
    for (header, value) in &remote.headers {
        params = params.header(header, value)?;
    }
    Ok(params)
}

/// The stdio transport's parameters for a (resolved) stdio configuration.
fn stdio_params(stdio: &StdioConfig) -> StdioServerParams {
    let mut params = StdioServerParams::new(stdio.command.clone(), stdio.args.clone());
    params.env = stdio
        .env
        .iter()
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    if let Some(cwd) = &stdio.cwd {
        params = params.cwd(cwd);
    }
    params
}
