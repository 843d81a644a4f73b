//! From a server's configuration to a connected client: the [`Connector`] boundary transport
//! plugins plug in at, and the built-in connector of stdio, Streamable HTTP and legacy SSE.
//!
//! Every connection goes down one path ([`crate::pipeline`]): the configuration is validated,
//! its `auth` checked against where it was defined, its `!command` values and stored token
//! resolved (bounded by their own command timeout), and only then is the connector for its
//! `type` asked to connect, within the server's own timeout. A config entry whose `type` no
//! built-in transport knows (`"type": "unix"`) is kept by mcp-config with its raw fields
//! ([`TransportConfig::Custom`]) and connected by the connector registered for that type with
//! [`ManagerOptions::connector`](crate::ManagerOptions::connector); an entry no connector
//! claims fails with [`ManagerError::UnclaimedTransport`], naming the type.
//!
//! Stored credentials come from one store, the [`CredentialStore`] of
//! [`ManagerOptions::credentials`](crate::ManagerOptions::credentials), and only for a server
//! that takes them ([`ServerConfig::takes_stored_credentials`]: no `Authorization` header or
//! `OAUTH_ACCESS_TOKEN` of its own, no other kind of `auth`):
//!
//! - a stdio server gets the access token kept under the command it runs
//!   ([`command_key`]) in its `OAUTH_ACCESS_TOKEN`, read when it is prepared;
//! - a remote server gets an OAuth authorizer over the same store (never asking the user: a
//!   connection made in the background cannot), which sends the tokens kept under the server's
//!   URL (`mcp_transport::oauth::credential_key`), refreshes them, and turns a 401 it cannot
//!   answer into an error that shows the server as needing a login.
//!
//! The grant is the one the server's `auth` block names ([`mcp_config::OAuthSettings`]):
//! the authorization code (the default, with a pre-registered client if it names one), client
//! credentials (a secret, or `private_key_jwt` with a key file), workload identity (a JWT bearer
//! assertion read from its file for every token request) or enterprise-managed (an ID token
//! file exchanged at the identity provider); `dpop` picks [`Dpop`]. The settings that read the
//! user's files or send a credential to a URL the definition names are refused, before
//! anything is read or sent, unless the definition is the user's own or an approved project
//! server's ([`check_auth_source`]); relative file names are taken from the folder of the file
//! that defines the server.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use async_trait::async_trait;
#[cfg(feature = "stdio")]
use mcp_config::StdioConfig;
use mcp_config::{
    AuthConfig, ConfigProblem, InvalidServer, ServerConfig, ServerProblem, SourceMeta,
    TransportConfig,
    auth::{AuthOptions, ResolvedServerConfig, check_auth_source, resolve_auth_config_with},
    validate_server_config,
};
#[cfg(feature = "oauth")]
use mcp_config::{
    AuthSettingKind, ClientCredentialSetting, CredentialSetting, OAuthGrant, OAuthProblem,
};
#[cfg(feature = "http")]
use mcp_config::{ReachPolicy, RemoteConfig};
use mcp_transport::credentials::{CredentialStore, Secret, command_key};
#[cfg(feature = "oauth")]
use mcp_transport::http::Url;
#[cfg(feature = "http")]
use mcp_transport::http::{HttpServerParams, ParamsError, ReachCheck, Refused, RemoteTransport};
#[cfg(feature = "oauth")]
use mcp_transport::oauth::{
    AuthorizationHandler, ClientCredential, Dpop, Grant, IdentityAssertion, OAuthAuthorizer,
    OAuthOptions, PreRegisteredClient, SecretSource, WorkloadIdentity,
};
use mcp_transport::{ClientOptions, McpClient, ProtocolVersion};
#[cfg(feature = "stdio")]
use mcp_transport::{Launcher, StdioServerParams};

use crate::error::ManagerError;

/// Turns a server's configuration into a connected [`McpClient`]: how a transport plugin is
/// used by the manager and by every config file.
///
/// Register one for the `type` its config entries name with
/// [`ManagerOptions::connector`](crate::ManagerOptions::connector). The manager calls it with
/// the entry already validated and its `!command` values resolved
/// ([`ConnectRequest::resolved`]); the connector builds its transport and hands it to
/// [`McpClient::connect`] with [`ConnectRequest::client_options`], whose connect timeout bounds
/// the handshake. On failure it leaves nothing running.
///
/// ```no_run
/// use std::sync::Arc;
///
/// use async_trait::async_trait;
/// use mcp_config::TransportConfig;
/// use mcp_manager::{ConnectRequest, Connector, ManagerError, ManagerOptions};
/// use mcp_transport::{LineTransport, McpClient};
///
/// #[derive(Debug)]
/// struct Unix;
///
/// #[async_trait]
/// impl Connector for Unix {
///     async fn connect(&self, request: ConnectRequest<'_>) -> Result<McpClient, ManagerError> {
///         let TransportConfig::Custom(custom) = request.resolved().transport() else {
///             return Err(request.unclaimed());
///         };
///         let Some(path) = custom.fields.get("path").and_then(|path| path.as_str()) else {
///             return Err(request.plugin_error("\"path\" names no socket"));
///         };
///         let stream = tokio::net::UnixStream::connect(path)
///             .await
///             .map_err(|error| request.plugin_error(error))?;
///         let (read, write) = stream.into_split();
///         let transport =
///             LineTransport::new(read, write).max_message_bytes(request.max_message_bytes());
///         let client =
///             McpClient::connect(request.name(), Box::new(transport), request.client_options())
///                 .await?;
///         Ok(client)
///     }
/// }
///
/// let options = ManagerOptions::default().connector("unix", Arc::new(Unix));
/// ```
#[async_trait]
pub trait Connector: Send + Sync + 'static {
    /// Connects the server `request` describes.
    async fn connect(&self, request: ConnectRequest<'_>) -> Result<McpClient, ManagerError>;
}

/// The connectors of transport plugins, by the `type` their entries name.
#[derive(Clone, Default)]
pub struct Connectors {
    by_kind: BTreeMap<String, Arc<dyn Connector>>,
}

impl Connectors {
    /// Connects entries of type `kind` through `connector` (replacing an earlier one).
    pub fn register(&mut self, kind: impl Into<String>, connector: Arc<dyn Connector>) {
        self.by_kind.insert(kind.into(), connector);
    }

    /// The connector registered for `kind`.
    pub fn get(&self, kind: &str) -> Option<&Arc<dyn Connector>> {
        self.by_kind.get(kind)
    }

    /// The types a connector is registered for, sorted.
    pub fn kinds(&self) -> impl Iterator<Item = &str> {
        self.by_kind.keys().map(String::as_str)
    }

    /// The connector of a (resolved) transport: the built-in one for stdio, `http` and `sse`,
    /// the registered one for a plugin's type.
    fn for_transport(&self, transport: &TransportConfig) -> Option<&dyn Connector> {
        match transport {
            TransportConfig::Stdio(_) | TransportConfig::Http(_) | TransportConfig::Sse(_) => {
                Some(&BuiltIn)
            }
            TransportConfig::Custom(custom) => self.get(&custom.kind).map(|found| &**found),
        }
    }
}

impl fmt::Debug for Connectors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.kinds()).finish()
    }
}

/// What a [`Connector`] is asked to connect.
pub struct ConnectRequest<'a> {
    name: &'a str,
    config: &'a ServerConfig,
    resolved: &'a ResolvedServerConfig,
    options: ClientOptions,
    context: ConnectContext<'a>,
}

impl ConnectRequest<'_> {
    /// The server's configured name.
    pub fn name(&self) -> &str {
        self.name
    }

    /// The server's configuration as written (after `${VAR}` expansion): its settings beyond
    /// the transport (`auth`, `timeout`, tool filters).
    pub fn config(&self) -> &ServerConfig {
        self.config
    }

    /// **Secret values.** The configuration to connect with: every `!command` value replaced
    /// by its output. A plugin's entry is [`TransportConfig::Custom`], with its raw fields.
    pub fn resolved(&self) -> &ResolvedServerConfig {
        self.resolved
    }

    /// The client options to connect with: the client's name, roots and handlers, and the
    /// connect timeout (the server's own, started when resolution ended).
    pub fn client_options(&self) -> ClientOptions {
        self.options.clone()
    }

    /// The longest message to accept from this server (its `maxMessageBytes`, or the
    /// manager's limit).
    pub fn max_message_bytes(&self) -> usize {
        self.config
            .max_message_bytes()
            .unwrap_or(self.context.max_message_bytes)
    }

    /// Where the server's definition came from (the folder of that file is where a relative
    /// path in it is taken from); `None` for a server built in code.
    pub fn source(&self) -> Option<&SourceMeta> {
        self.context.source
    }

    /// The error of a plugin that could not connect this server, naming it and its type.
    pub fn plugin_error(
        &self,
        source: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> ManagerError {
        ManagerError::Plugin {
            server: self.name.to_owned(),
            kind: self.resolved.transport().type_name().to_owned(),
            source: source.into(),
        }
    }

    /// The error for an entry of a type this connector does not handle.
    pub fn unclaimed(&self) -> ManagerError {
        ManagerError::UnclaimedTransport {
            server: self.name.to_owned(),
            kind: self.resolved.transport().type_name().to_owned(),
        }
    }
}

/// What a connection is made with besides the server's configuration and the client options.
#[derive(Clone, Copy)]
pub(crate) struct ConnectContext<'a> {
    /// The credential store: stdio servers' tokens by command, OAuth logins by server URL.
    pub(crate) credentials: &'a Arc<dyn CredentialStore>,
    /// The browser step, for a login the user asked for; none for background connections.
    #[cfg(feature = "oauth")]
    pub(crate) login: Option<&'a Arc<dyn AuthorizationHandler>>,
    /// The message size limit of servers whose entry sets none.
    pub(crate) max_message_bytes: usize,
    /// What stdio servers are started through.
    #[cfg(feature = "stdio")]
    pub(crate) launcher: Option<&'a Launcher>,
    /// Where the server's definition came from (none: unknown), which decides whether its
    /// `auth` may read the user's files.
    pub(crate) source: Option<&'a SourceMeta>,
    /// The connectors of transport plugins.
    pub(crate) connectors: &'a Connectors,
    /// The agent's working folder (see [`ManagerOptions::working_dir`](crate::ManagerOptions::working_dir)).
    pub(crate) working_dir: Option<&'a std::path::Path>,
}

impl<'a> ConnectContext<'a> {
    /// The connection of a login the user asked for: `handler` runs the browser step.
    #[cfg(feature = "oauth")]
    pub(crate) fn with_login(mut self, handler: &'a Arc<dyn AuthorizationHandler>) -> Self {
        self.login = Some(handler);
        self
    }
}

/// A configuration ready to connect: validated, its `auth` allowed by where it was defined,
/// its `!command` values and stored token resolved.
pub(crate) struct Prepared {
    resolved: ResolvedServerConfig,
    /// The revision the entry pins (`"protocolVersion"`), if any.
    pinned: Option<ProtocolVersion>,
}

impl Prepared {
    /// Validates `config`, checks its `auth` against its source and resolves it. Resolution is
    /// bounded by the `!command` timeout of its own, not by the server's connect timeout.
    pub(crate) async fn new(
        name: &str,
        config: &ServerConfig,
        context: ConnectContext<'_>,
    ) -> Result<Self, ManagerError> {
        let problems = validate_server_config(name, config);
        if !problems.is_empty() {
            return Err(InvalidServer::new(name, problems).into());
        }
        check_auth_source(name, config, context.source)?;
        let pinned = match config.protocol_version() {
            None => None,
            Some(pinned) => Some(ProtocolVersion::parse(pinned).ok_or_else(|| {
                let problem = ConfigProblem::UnsupportedProtocolVersion {
                    pinned: pinned.to_owned(),
                    supported: ProtocolVersion::supported_list(),
                };
                InvalidServer::new(name, vec![ServerProblem::new(name, problem)])
            })?),
        };
        let stored = stored_token(name, config, context.credentials).await?;
        // `!command` values and `headersHelper` run where the server starts.
        let mut options = AuthOptions::default();
        if let Some(folder) = base_folder(context.source, context.working_dir) {
            options = options.in_folder(folder);
        }
        let resolved =
            resolve_auth_config_with(name, config, stored.as_ref().map(Secret::expose), &options)
                .await?;
        Ok(Self { resolved, pinned })
    }

    /// Connects through the connector of the entry's type, with `options` (the entry's
    /// `protocolVersion` pin applied). On failure nothing is left running.
    pub(crate) async fn connect(
        &self,
        name: &str,
        config: &ServerConfig,
        context: ConnectContext<'_>,
        options: ClientOptions,
    ) -> Result<McpClient, ManagerError> {
        let options = match self.pinned {
            Some(version) => options.protocol_version(version),
            None => options,
        };
        let request = ConnectRequest {
            name,
            config,
            resolved: &self.resolved,
            options,
            context,
        };
        match context.connectors.for_transport(self.resolved.transport()) {
            Some(connector) => connector.connect(request).await,
            None => Err(request.unclaimed()),
        }
    }
}

/// The access token kept for a stdio server that takes stored credentials, under the command
/// it runs; none for any other server (a remote server's is its authorizer's business).
///
/// A store that cannot be read fails a server whose `auth` is OAuth (it cannot start without
/// its token), naming the cause; a server that only might have a token starts without one.
async fn stored_token(
    name: &str,
    config: &ServerConfig,
    store: &Arc<dyn CredentialStore>,
) -> Result<Option<Secret>, ManagerError> {
    let TransportConfig::Stdio(stdio) = &config.transport else {
        return Ok(None);
    };
    if !config.takes_stored_credentials() {
        return Ok(None);
    }
    match store.load(&command_key(&stdio.command, &stdio.args)).await {
        Ok(kept) => Ok(kept.and_then(|kept| kept.current_access_token().cloned())),
        Err(source) if config.auth.as_ref().is_some_and(AuthConfig::is_oauth) => {
            Err(ManagerError::Credentials {
                server: name.to_owned(),
                source,
            })
        }
        Err(error) => {
            tracing::warn!(server = name, %error, "the credential store cannot be read; starting the server without a stored token");
            Ok(None)
        }
    }
}

/// Validates, resolves and connects (see [`Prepared`]): a login's connection.
#[cfg(feature = "oauth")]
pub(crate) async fn connect_client(
    name: &str,
    config: &ServerConfig,
    context: ConnectContext<'_>,
    options: ClientOptions,
) -> Result<McpClient, ManagerError> {
    let prepared = Prepared::new(name, config, context).await?;
    prepared.connect(name, config, context, options).await
}

/// The built-in connector: stdio, Streamable HTTP (falling back to legacy SSE) and legacy SSE.
#[derive(Debug, Clone, Copy)]
struct BuiltIn;

#[async_trait]
impl Connector for BuiltIn {
    async fn connect(&self, request: ConnectRequest<'_>) -> Result<McpClient, ManagerError> {
        match request.resolved.transport() {
            #[cfg(feature = "stdio")]
            TransportConfig::Stdio(stdio) => {
                let folder =
                    start_folder(stdio, request.context.source, request.context.working_dir);
                let params = stdio_params(stdio, folder)
                    .max_message_bytes(request.max_message_bytes())
                    .launcher(request.context.launcher.cloned());
                Ok(McpClient::connect_stdio(request.name, params, request.options).await?)
            }
            #[cfg(feature = "http")]
            TransportConfig::Http(remote) => {
                connect_remote(&request, remote, RemoteTransport::Auto).await
            }
            #[cfg(feature = "http")]
            TransportConfig::Sse(remote) => {
                connect_remote(&request, remote, RemoteTransport::Sse).await
            }
            #[cfg(not(feature = "stdio"))]
            TransportConfig::Stdio(_) => Err(request.not_built("stdio")),
            #[cfg(not(feature = "http"))]
            TransportConfig::Http(_) | TransportConfig::Sse(_) => Err(request.not_built("http")),
            TransportConfig::Custom(_) => Err(request.unclaimed()),
        }
    }
}

impl ConnectRequest<'_> {
    /// The error for a transport this build leaves out.
    #[cfg(not(all(feature = "stdio", feature = "http")))]
    fn not_built(&self, feature: &'static str) -> ManagerError {
        ManagerError::NotBuilt {
            server: self.name.to_owned(),
            kind: self.resolved.transport().type_name().to_owned(),
            feature,
        }
    }
}

/// Connects a remote server over Streamable HTTP (falling back to legacy SSE) or legacy SSE,
/// with its OAuth authorizer when it logs in with OAuth.
#[cfg(feature = "http")]
async fn connect_remote(
    request: &ConnectRequest<'_>,
    remote: &RemoteConfig,
    kind: RemoteTransport,
) -> Result<McpClient, ManagerError> {
    let name = request.name;
    let invalid = |source| ManagerError::InvalidRemote {
        server: name.to_owned(),
        source,
    };
    let mut params = remote_params(remote, kind).map_err(invalid)?;
    params.max_message_bytes = request.max_message_bytes();
    if let Some(reach) = request.config.reach_policy() {
        params = params.reach(reach_check(reach));
    }
    #[cfg(feature = "oauth")]
    {
        let authorizer = authorizer_for(
            name,
            request.config,
            &params,
            request.context,
            &request.options,
        )
        .map_err(|error| *error)?;
        if let Some(authorizer) = authorizer {
            params = params.authorizer(authorizer);
        }
    }
    Ok(McpClient::connect_http(name, params, request.options.clone()).await?)
}

/// The enterprise policy's checks of where a remote server's connection goes, at connect time:
/// every address its host resolves to (or its literal address), and every redirect. A refusal
/// carries the [`PolicyDenial`](mcp_config::PolicyDenial), which names the rule and its file.
#[cfg(feature = "http")]
fn reach_check(reach: &ReachPolicy) -> ReachCheck {
    let addresses = reach.clone();
    let redirects = reach.clone();
    ReachCheck::addresses(move |address| {
        addresses
            .denies_address(address.ip())
            .map_or(Ok(()), |denial| Err(Refused::address(address, denial)))
    })
    .redirects(move |url| {
        redirects
            .denies_redirect(url.as_str())
            .map_or(Ok(()), |denial| Err(Refused::redirect(url, denial)))
    })
}

/// The OAuth authorizer of a remote server, unless its configuration brings its own
/// credentials (an `Authorization` header, resolved or stored) or another kind of `auth`; its
/// grant and DPoP setting from the `auth` block.
#[cfg(feature = "oauth")]
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
    let mut oauth = OAuthOptions::new(Arc::clone(context.credentials))
        .client_name(options.client_info.name.clone());
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
#[cfg(feature = "oauth")]
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
#[cfg(feature = "http")]
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

/// The folder a stdio server starts in, which a relative command is also found from: its
/// entry's `cwd`, taken from the server's base folder when relative. The base of a project
/// server is its project folder (where its approval is recorded, whatever subfolder the agent
/// runs in: an approval of `./scripts/server.sh` runs that file, not one of the same name
/// elsewhere); of any other, the agent's working folder. `None`: this process's folder.
#[cfg(feature = "stdio")]
fn start_folder(
    stdio: &StdioConfig,
    source: Option<&SourceMeta>,
    working_dir: Option<&std::path::Path>,
) -> Option<std::path::PathBuf> {
    match (base_folder(source, working_dir), &stdio.cwd) {
        // An absolute `cwd` is itself (`join` keeps it).
        (Some(base), Some(cwd)) => Some(base.join(cwd)),
        (Some(base), None) => Some(base.to_path_buf()),
        (None, cwd) => cwd.as_ref().map(std::path::PathBuf::from),
    }
}

/// Where a server's programs run from (a stdio server, its `!command` values, its
/// `headersHelper`): a project server's project folder, where its approval is recorded; any
/// other server's agent working folder; `None`, this process's folder.
fn base_folder<'a>(
    source: Option<&'a SourceMeta>,
    working_dir: Option<&'a std::path::Path>,
) -> Option<&'a std::path::Path> {
    let project = source
        .filter(|source| source.in_project_folder)
        .and_then(|source| source.project_folder.as_deref());
    project.or(working_dir)
}

/// The stdio transport's parameters for a (resolved) stdio configuration, started in `folder`.
#[cfg(feature = "stdio")]
fn stdio_params(stdio: &StdioConfig, folder: Option<std::path::PathBuf>) -> StdioServerParams {
    let mut params = StdioServerParams::new(stdio.command.clone(), stdio.args.clone());
    params.env = stdio
        .env
        .iter()
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    if let Some(folder) = folder {
        params = params.cwd(folder);
    }
    params
}
