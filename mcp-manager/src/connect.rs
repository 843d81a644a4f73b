//! From a server's configuration to a connected client: validation, credentials, the transport
//! for the configuration, the handshake.
//!
//! A remote server gets an OAuth authorizer (never asking the user: a connection made in the
//! background cannot) unless its configuration sets an `Authorization` header or another kind
//! of `auth`. The authorizer sends the tokens kept for the server's URL, refreshes them, and
//! turns a 401 it cannot answer into an error that shows the server as needing a login.
//!
//! The configuration is matched exhaustively on its transport, so a new kind of transport is a
//! compile error here until it is handled.

use std::sync::Arc;

use mcp_config::{
    AuthStorage, InvalidServer, RemoteConfig, ServerConfig, StdioConfig, TransportConfig,
    resolve_auth_config, validate_server_config,
};
use mcp_transport::http::{HttpServerParams, ParamsError, RemoteTransport};
use mcp_transport::oauth::{
    AuthorizationHandler, CredentialStore, Grant, OAuthAuthorizer, OAuthError, OAuthOptions,
    PreRegisteredClient, Secret,
};
use mcp_transport::{ClientOptions, Launcher, McpClient, ProtocolVersion, StdioServerParams};

use crate::error::ManagerError;

/// What a connection is made with besides the server's configuration and the client options.
#[derive(Clone, Copy)]
pub(crate) struct ConnectContext<'a> {
    /// The agent's store of static tokens, asked by server identity.
    pub(crate) storage: Option<&'a dyn AuthStorage>,
    /// Where OAuth logins are kept, by server URL.
    pub(crate) oauth: &'a Arc<dyn CredentialStore>,
    /// The browser step, for a login the user asked for; none for background connections.
    pub(crate) login: Option<&'a Arc<dyn AuthorizationHandler>>,
    /// The message size limit of servers whose entry sets none.
    pub(crate) max_message_bytes: usize,
    /// What stdio servers are started through.
    pub(crate) launcher: Option<&'a Launcher>,
}

/// Validates the configuration, resolves its `!command` values and OAuth token, and connects
/// with `options` (whose connect timeout bounds the start and the handshake). On failure
/// nothing is left running.
pub(crate) async fn connect_client(
    name: &str,
    config: &ServerConfig,
    context: ConnectContext<'_>,
    options: ClientOptions,
) -> Result<McpClient, ManagerError> {
    let problems = validate_server_config(name, config);
    if !problems.is_empty() {
        return Err(InvalidServer::new(name, problems).into());
    }
    let mut options = options;
    if let Some(pinned) = config.protocol_version() {
        let Some(version) = ProtocolVersion::parse(pinned) else {
            return Err(InvalidServer::new(
                name,
                vec![format!(
                    "Server \"{name}\": \"protocolVersion\" is \"{pinned}\", a revision this \
                     client does not speak (it speaks {}); change the pin or leave it out",
                    ProtocolVersion::supported_list()
                )],
            )
            .into());
        };
        options = options.protocol_version(version);
    }
    let resolved = resolve_auth_config(name, config, context.storage).await?;
    let max_message_bytes = config
        .max_message_bytes()
        .unwrap_or(context.max_message_bytes);
    let transport = match resolved.transport() {
        TransportConfig::Stdio(stdio) => {
            let params = stdio_params(stdio)
                .max_message_bytes(max_message_bytes)
                .launcher(context.launcher.cloned());
            return Ok(McpClient::connect_stdio(name, params, options).await?);
        }
        TransportConfig::Http(remote) => (remote, RemoteTransport::Auto),
        TransportConfig::Sse(remote) => (remote, RemoteTransport::Sse),
    };
    let (remote, kind) = transport;
    let invalid = |source| ManagerError::InvalidRemote {
        server: name.to_owned(),
        source,
    };
    let mut params = remote_params(remote, kind).map_err(invalid)?;
    params.max_message_bytes = max_message_bytes;
    let authorizer = authorizer_for(config, &params, context, &options).map_err(|error| {
        ManagerError::Client(mcp_transport::Error::Start {
            server: name.to_owned(),
            source: error.into(),
        })
    })?;
    if let Some(authorizer) = authorizer {
        params = params.authorizer(authorizer);
    }
    Ok(McpClient::connect_http(name, params, options).await?)
}

/// The OAuth authorizer of a remote server, unless its configuration brings its own
/// credentials (an `Authorization` header, resolved or stored) or another kind of `auth`.
fn authorizer_for(
    config: &ServerConfig,
    params: &HttpServerParams,
    context: ConnectContext<'_>,
    options: &ClientOptions,
) -> Result<Option<Arc<OAuthAuthorizer>>, OAuthError> {
    if params.headers.contains_key("authorization")
        || config.auth.as_ref().is_some_and(|auth| !auth.is_oauth())
    {
        return Ok(None);
    }
    let client = config
        .auth
        .as_ref()
        .and_then(|auth| auth.oauth_client())
        .map(|client| {
            PreRegisteredClient::new(client.client_id, client.client_secret.map(Secret::new))
        });
    let mut oauth = OAuthOptions::new(Arc::clone(context.oauth))
        .grant(Grant::AuthorizationCode { client })
        .client_name(options.client_info.name.clone());
    if let Some(login) = context.login {
        oauth = oauth.interactive(Arc::clone(login));
    }
    Ok(Some(Arc::new(OAuthAuthorizer::new(&params.url, oauth)?)))
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
