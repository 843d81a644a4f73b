//! From a server's configuration to a connected client: validation, credentials, the transport
//! for the configuration, the handshake.
//!
//! A remote server gets an OAuth authorizer (never asking the user: a connection made in the
//! background cannot) unless its configuration sets an `Authorization` header or another kind
//! of `auth` ([`ServerConfig::takes_stored_credentials`]), or the agent's [`AuthStorage`] has
//! a token for it. The authorizer sends the tokens kept for the server's URL, refreshes them, and
//! turns a 401 it cannot answer into an error that shows the server as needing a login. Both
//! stores know the server by one key, `mcp_transport::oauth::credential_key` of its URL.
//!
//! The grant is the one the server's `auth` block names ([`mcp_config::oauth_grant`]):
//! the authorization code (the default, with a pre-registered client if it names one), client
//! credentials (a secret, or `private_key_jwt` with a key file), workload identity (a JWT bearer
//! assertion read from its file for every token request) or enterprise-managed (an ID token
//! file exchanged at the identity provider); `dpop` picks [`Dpop`]. The settings that read the
//! user's files or send a credential to a URL the definition names are refused, before
//! anything is read or sent, unless the definition is the user's own or an approved project
//! server's ([`check_auth_source`]); relative file names are taken from the folder of the file
//! that defines the server.
//!
//! The configuration is matched exhaustively on its transport, so a new kind of transport is a
//! compile error here until it is handled.

use std::sync::Arc;

use mcp_config::{
    AuthSettingKind, AuthStorage, ClientCredentialSetting, ConfigProblem, CredentialSetting,
    InvalidServer, OAuthGrant, OAuthProblem, RemoteConfig, ServerConfig, ServerProblem, SourceMeta,
    StdioConfig, TransportConfig, check_auth_source, resolve_auth_config, validate_server_config,
};
use mcp_transport::http::{HttpServerParams, ParamsError, RemoteTransport, Url};
use mcp_transport::oauth::{
    AuthorizationHandler, ClientCredential, CredentialStore, Dpop, Grant, IdentityAssertion,
    OAuthAuthorizer, OAuthOptions, PreRegisteredClient, Secret, SecretSource, WorkloadIdentity,
    credential_key,
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
    /// Where the server's definition came from (none: unknown), which decides whether its
    /// `auth` may read the user's files.
    pub(crate) source: Option<&'a SourceMeta>,
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
    check_auth_source(name, config, context.source)?;
    let mut options = options;
    if let Some(pinned) = config.protocol_version() {
        let Some(version) = ProtocolVersion::parse(pinned) else {
            let problem = ConfigProblem::UnsupportedProtocolVersion {
                pinned: pinned.to_owned(),
                supported: ProtocolVersion::supported_list(),
            };
            return Err(InvalidServer::new(name, vec![ServerProblem::new(name, problem)]).into());
        };
        options = options.protocol_version(version);
    }
    let remote_key = credential_key_of(config);
    let resolved =
        resolve_auth_config(name, config, context.storage, remote_key.as_deref()).await?;
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
    let authorizer =
        authorizer_for(name, config, &params, context, &options).map_err(|error| *error)?;
    if let Some(authorizer) = authorizer {
        params = params.authorizer(authorizer);
    }
    Ok(McpClient::connect_http(name, params, options).await?)
}

/// A remote server's credential key: the one key the agent's [`AuthStorage`] (asked at
/// resolution) and the OAuth credential store (the authorizer's) know it by, computed by the
/// transport alone. None for a stdio server, or a URL that does not parse (refused when the
/// transport is built).
fn credential_key_of(config: &ServerConfig) -> Option<String> {
    match &config.transport {
        TransportConfig::Http(remote) | TransportConfig::Sse(remote) => {
            Url::parse(&remote.url).ok().map(|url| credential_key(&url))
        }
        TransportConfig::Stdio(_) => None,
    }
}

/// The OAuth authorizer of a remote server, unless it takes no stored credentials (its
/// configuration brings its own, or another kind of `auth`) or the agent's [`AuthStorage`]
/// gave it a token (an `Authorization` header now); its grant and DPoP setting from the `auth`
/// block.
fn authorizer_for(
    name: &str,
    config: &ServerConfig,
    params: &HttpServerParams,
    context: ConnectContext<'_>,
    options: &ClientOptions,
) -> Result<Option<Arc<OAuthAuthorizer>>, Box<ManagerError>> {
    if !config.takes_stored_credentials() || params.headers.contains_key("authorization") {
        return Ok(None);
    }
    // Validated before: a problem here is one a later version of mcp-config found.
    let invalid = |problems: Vec<OAuthProblem>| {
        let problems = problems
            .into_iter()
            .map(|problem| ServerProblem::new(name, problem.into()))
            .collect();
        Box::new(ManagerError::from(InvalidServer::new(name, problems)))
    };
    let mut oauth =
        OAuthOptions::new(Arc::clone(context.oauth)).client_name(options.client_info.name.clone());
    if let Some(auth) = &config.auth {
        let mut settings = auth.oauth_settings().map_err(invalid)?;
        if let Some(folder) = context.source.and_then(|source| source.path.parent()) {
            settings = settings.resolve_files(folder);
        }
        let grant = grant(settings.grant).map_err(|why| invalid(vec![why]))?;
        oauth = oauth.grant(grant);
        oauth = oauth.dpop(match settings.dpop {
            None => Dpop::Auto,
            Some(true) => Dpop::Required,
            Some(false) => Dpop::Off,
        });
    }
    if let Some(login) = context.login {
        oauth = oauth.interactive(Arc::clone(login));
    }
    let authorizer = OAuthAuthorizer::new(&params.url, oauth).map_err(|error| {
        Box::new(ManagerError::Client(mcp_transport::Error::Start {
            server: name.to_owned(),
            source: error.into(),
        }))
    })?;
    Ok(Some(Arc::new(authorizer)))
}

/// The transport's grant for the configured one; why not, for a kind of setting this version
/// does not know.
fn grant(configured: OAuthGrant) -> Result<Grant, OAuthProblem> {
    let unsupported = OAuthProblem::Unsupported;
    let source = |setting: CredentialSetting| match setting {
        CredentialSetting::Value(value) => Ok(SecretSource::Value(Secret::new(value))),
        CredentialSetting::File(path) => Ok(SecretSource::File(path)),
        _ => Err(unsupported(AuthSettingKind::CredentialSetting)),
    };
    Ok(match configured {
        OAuthGrant::ClientCredentials {
            client_id,
            credential,
        } => Grant::ClientCredentials {
            client_id,
            credential: match credential {
                ClientCredentialSetting::PrivateKeyFile(path) => ClientCredential::PrivateKeyJwt {
                    private_key_pem: SecretSource::File(path),
                },
                ClientCredentialSetting::Secret(secret) => {
                    ClientCredential::Secret(Secret::new(secret))
                }
                _ => return Err(unsupported(AuthSettingKind::ClientCredential)),
            },
        },
        OAuthGrant::WorkloadIdentity {
            client_id,
            assertion,
        } => {
            let mut identity = WorkloadIdentity::new(source(assertion)?);
            if let Some(client_id) = client_id {
                identity = identity.client_id(client_id);
            }
            Grant::WorkloadIdentity(identity)
        }
        OAuthGrant::EnterpriseManaged(managed) => Grant::IdentityAssertion(IdentityAssertion::new(
            managed.client_id,
            Secret::new(managed.client_secret),
            Url::parse(&managed.idp_token_endpoint).map_err(|_| {
                OAuthProblem::IdpTokenEndpoint {
                    endpoint: managed.idp_token_endpoint.clone(),
                }
            })?,
            managed.idp_client_id,
            source(managed.id_token)?,
        )),
        OAuthGrant::AuthorizationCode { client } => Grant::AuthorizationCode {
            client: client.map(|client| {
                PreRegisteredClient::new(client.client_id, client.client_secret.map(Secret::new))
            }),
        },
        _ => return Err(unsupported(AuthSettingKind::Grant)),
    })
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
