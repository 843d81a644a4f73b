//! [`McpClient`]: the MCP handshake, the tool, resource and prompt operations over one
//! [`Peer`], and the paging of every list.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::broadcast;
use tokio::time::Instant;

use crate::error::Error;
use crate::fast_path::Link;
use crate::handlers::{ElicitationHandler, SamplingHandler};
#[cfg(feature = "http")]
use crate::http::{
    HttpServerParams, LegacySseTransport, RemoteTransport, StreamableHttpTransport, ToolHeaders,
};
use crate::jsonrpc::ServerNotification;
use crate::peer::{Peer, PeerOptions, RequestOptions, RpcError};
use crate::protocol::{
    CallToolParams, CallToolResult, ClientCapabilities, GetPromptParams, GetPromptResult,
    Implementation, InitializeParams, InitializeResult, JsonObject, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, MAX_TTL, PaginatedParams,
    Prompt, ProtocolVersion, ReadResourceParams, ReadResourceResult, Resource, ResourceTemplate,
    Root, RootsCapability, ServerCapabilities, Tool, methods,
};
use crate::secrets::Secrets;
use crate::stateless::{
    self, Era, InputRequired, ProbeFailure, Reply, SubscriptionFilter, WithInput,
};
#[cfg(feature = "stdio")]
use crate::stdio::{StdioServerParams, StdioTransport};
use crate::transport::{CloseReason, Transport};

/// The most pages of one list (`tools/list`, `resources/list`, …) followed before giving up
/// on a server.
const MAX_PAGES: usize = 10_000;

/// One page of a paginated list: its items and the cursor of the next page.
trait Page: serde::de::DeserializeOwned {
    type Item;
    fn into_parts(self) -> (Vec<Self::Item>, Option<String>);
    /// The page's `ttlMs`, for the lists that carry one here.
    fn ttl_ms(&self) -> Option<u64> {
        None
    }
}

impl Page for ListToolsResult {
    type Item = Tool;
    fn into_parts(self) -> (Vec<Tool>, Option<String>) {
        (self.tools, self.next_cursor)
    }
    fn ttl_ms(&self) -> Option<u64> {
        self.ttl_ms
    }
}

impl Page for ListResourcesResult {
    type Item = Resource;
    fn into_parts(self) -> (Vec<Resource>, Option<String>) {
        (self.resources, self.next_cursor)
    }
}

impl Page for ListResourceTemplatesResult {
    type Item = ResourceTemplate;
    fn into_parts(self) -> (Vec<ResourceTemplate>, Option<String>) {
        (self.resource_templates, self.next_cursor)
    }
}

impl Page for ListPromptsResult {
    type Item = Prompt;
    fn into_parts(self) -> (Vec<Prompt>, Option<String>) {
        (self.prompts, self.next_cursor)
    }
}

/// A server's whole tool list ([`McpClient::list_tools_with_ttl`]) and how long it may be
/// considered fresh.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ToolList {
    /// Every tool, in the server's order.
    pub tools: Vec<Tool>,
    /// How long from now the list may be considered fresh (2026-07-28 `ttlMs`): the smallest
    /// `ttlMs` of its pages, each at most a day ([`MAX_TTL`](crate::protocol::MAX_TTL)), less
    /// the time since each page came. `None` when a page carried none or one that cannot be
    /// read (every server of the handshake era carries none), which the specification says to
    /// take as stale at once; a list that changes says so whatever its ttl (`list_changed`).
    pub ttl: Option<Duration>,
}

/// How a client connects and behaves.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ClientOptions {
    /// The name and version sent as `clientInfo`.
    pub client_info: Implementation,
    /// A pinned protocol version: a handshake-era one is offered in `initialize` without
    /// probing; 2026-07-28 is spoken without falling back. `None` (the default) probes with
    /// `server/discover` and speaks 2026-07-28 to a server that answers it, the handshake
    /// (offering 2025-11-25) to any other.
    pub protocol_version: Option<ProtocolVersion>,
    /// Roots answered to the server's `roots/list`. `None` does not declare the capability.
    pub roots: Option<Vec<Root>>,
    /// Bound on starting the transport plus the handshake. Default 30 s.
    pub connect_timeout: Duration,
    /// Timeout of requests that do not set their own. Default 60 s; `None` waits forever.
    pub request_timeout: Option<Duration>,
    /// Answers the server's `elicitation/create`; set, the `elicitation` capability is declared.
    pub elicitation: Option<Arc<dyn ElicitationHandler>>,
    /// Answers the server's `sampling/createMessage`; set, the `sampling` capability is
    /// declared.
    pub sampling: Option<Arc<dyn SamplingHandler>>,
}

impl Default for ClientOptions {
    fn default() -> Self {
        Self {
            client_info: Implementation::new("mcp-runtime", env!("CARGO_PKG_VERSION")),
            protocol_version: None,
            roots: None,
            connect_timeout: Duration::from_secs(30),
            request_timeout: Some(Duration::from_secs(60)),
            elicitation: None,
            sampling: None,
        }
    }
}

impl ClientOptions {
    /// Sets the connect timeout.
    #[must_use]
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// Sets the default request timeout.
    #[must_use]
    pub fn request_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// Declares roots and answers `roots/list` with them.
    #[must_use]
    pub fn roots(mut self, roots: Vec<Root>) -> Self {
        self.roots = Some(roots);
        self
    }

    /// Answers elicitations with `handler` (and declares the capability).
    #[must_use]
    pub fn elicitation(mut self, handler: Arc<dyn ElicitationHandler>) -> Self {
        self.elicitation = Some(handler);
        self
    }

    /// Answers sampling requests with `handler` (and declares the capability).
    #[must_use]
    pub fn sampling(mut self, handler: Arc<dyn SamplingHandler>) -> Self {
        self.sampling = Some(handler);
        self
    }

    /// Pins the protocol version (see [`ClientOptions::protocol_version`]).
    #[must_use]
    pub fn protocol_version(mut self, version: ProtocolVersion) -> Self {
        self.protocol_version = Some(version);
        self
    }

    /// The capabilities this client declares: roots, elicitation and sampling when it has them.
    fn capabilities(&self) -> ClientCapabilities {
        ClientCapabilities {
            roots: self
                .roots
                .as_ref()
                .map(|_| RootsCapability { list_changed: true }),
            // `{}` declares form elicitation, which every protocol version understands.
            elicitation: self.elicitation.as_ref().map(|_| JsonObject::new()),
            sampling: self.sampling.as_ref().map(|_| JsonObject::new()),
            ..ClientCapabilities::default()
        }
    }

    /// Sets the client name and version.
    #[must_use]
    pub fn client_info(mut self, info: Implementation) -> Self {
        self.client_info = info;
        self
    }
}

/// How long the era probe waits for an answer before taking the server for one of the
/// handshake era.
#[derive(Debug, Clone, Copy)]
enum Probe {
    /// [`stateless::PROBE_TIMEOUT`]: a stream transport (stdio, a socket), where a server of
    /// the handshake era may ignore a request sent before `initialize`.
    Quick,
    /// The whole connect timeout: HTTP, where every server answers a POST (and the answer may
    /// wait for an authorization).
    #[cfg(feature = "http")]
    Patient,
    /// None: the legacy HTTP+SSE transport, which no stateless server speaks.
    #[cfg(feature = "http")]
    Skip,
}

impl Probe {
    /// Whether `initialize` goes first, with no probe.
    fn skipped(self) -> bool {
        #[cfg(feature = "http")]
        return matches!(self, Self::Skip);
        #[cfg(not(feature = "http"))]
        return false;
    }
}

/// A connected, initialized MCP server.
///
/// Share it with `Arc<McpClient>`: every method takes `&self`, and any number of requests may be
/// in flight at once. Dropping the last handle stops the connection (for stdio, the server's
/// whole process group is killed); [`McpClient::close`] stops it gracefully.
#[derive(Debug)]
pub struct McpClient {
    server: Arc<str>,
    peer: Arc<Peer>,
    initialize: InitializeResult,
    protocol_version: ProtocolVersion,
    /// Streamable HTTP: where the headers the tools designate go (2026-07-28).
    #[cfg(feature = "http")]
    tool_headers: Option<Arc<ToolHeaders>>,
    /// The task keeping the `subscriptions/listen` stream of a stateless server open; aborted
    /// with the client.
    listener: Option<tokio::task::AbortHandle>,
}

impl Drop for McpClient {
    fn drop(&mut self) {
        if let Some(listener) = &self.listener {
            listener.abort();
        }
    }
}

impl McpClient {
    /// Starts a stdio server and performs the handshake, all within the connect timeout.
    /// On any failure the server process is stopped before this returns.
    #[cfg(feature = "stdio")]
    pub async fn connect_stdio(
        server: &str,
        params: StdioServerParams,
        options: ClientOptions,
    ) -> Result<Self, Error> {
        let deadline = Instant::now() + options.connect_timeout;
        let secrets = params.secrets.clone();
        let transport = StdioTransport::spawn(server, params).map_err(|source| Error::Start {
            server: server.to_owned(),
            source,
        })?;
        Self::handshake(
            server,
            Link::with_fast_path(transport),
            options,
            secrets,
            deadline,
            Probe::Quick,
        )
        .await
    }

    /// Connects to a remote server and performs the handshake, all within the connect timeout.
    ///
    /// [`RemoteTransport::Auto`] tries Streamable HTTP first and falls back to legacy HTTP+SSE
    /// when the server refuses the initialize POST with 400, 404 or 405.
    #[cfg(feature = "http")]
    pub async fn connect_http(
        server: &str,
        params: HttpServerParams,
        options: ClientOptions,
    ) -> Result<Self, Error> {
        let deadline = Instant::now() + options.connect_timeout;
        match params.transport {
            RemoteTransport::Sse => {
                Self::connect_legacy_sse(server, &params, options, deadline).await
            }
            RemoteTransport::StreamableHttp => {
                Self::connect_streamable_http(server, &params, options, deadline).await
            }
            RemoteTransport::Auto => {
                match Self::connect_streamable_http(server, &params, options.clone(), deadline)
                    .await
                {
                    Err(error) if error.suggests_legacy_sse() => {
                        tracing::debug!(
                            server,
                            %error,
                            "Streamable HTTP refused; trying the legacy HTTP+SSE transport"
                        );
                        match Self::connect_legacy_sse(server, &params, options, deadline).await {
                            // Neither transport: the Streamable HTTP refusal is what to show
                            // (the fallback's "drop -t sse" advice is for a server given as sse).
                            Err(legacy) if legacy.is_not_legacy_sse() => {
                                tracing::debug!(server, %legacy, "legacy HTTP+SSE refused too");
                                Err(error)
                            }
                            legacy => legacy,
                        }
                    }
                    connected => connected,
                }
            }
        }
    }

    #[cfg(feature = "http")]
    async fn connect_streamable_http(
        server: &str,
        params: &HttpServerParams,
        options: ClientOptions,
        deadline: Instant,
    ) -> Result<Self, Error> {
        let transport = StreamableHttpTransport::new(params).map_err(|source| Error::Start {
            server: server.to_owned(),
            source,
        })?;
        let tool_headers = transport.tool_headers();
        let secrets = params.secrets.clone();
        let mut client = Self::handshake(
            server,
            Link::with_fast_path(transport),
            options,
            secrets,
            deadline,
            Probe::Patient,
        )
        .await?;
        client.tool_headers = Some(tool_headers);
        Ok(client)
    }

    #[cfg(feature = "http")]
    async fn connect_legacy_sse(
        server: &str,
        params: &HttpServerParams,
        options: ClientOptions,
        deadline: Instant,
    ) -> Result<Self, Error> {
        let transport =
            match tokio::time::timeout_at(deadline, LegacySseTransport::connect(params)).await {
                Err(_) => {
                    return Err(Error::ConnectTimeout {
                        server: server.to_owned(),
                        after: options.connect_timeout,
                    });
                }
                Ok(transport) => transport.map_err(|source| Error::Start {
                    server: server.to_owned(),
                    source,
                })?,
            };
        let secrets = params.secrets.clone();
        Self::handshake(
            server,
            Link::plain(Box::new(transport)),
            options,
            secrets,
            deadline,
            Probe::Skip,
        )
        .await
    }

    /// Performs the handshake over a transport that is already set up, within the connect
    /// timeout. On failure the transport is closed.
    ///
    /// This is how a plugin's transport connects: the client needs nothing from it but the
    /// [`Transport`] trait (see its documentation for a complete example).
    pub async fn connect(
        server: &str,
        transport: Box<dyn Transport>,
        options: ClientOptions,
    ) -> Result<Self, Error> {
        let deadline = Instant::now() + options.connect_timeout;
        Self::handshake(
            server,
            Link::plain(transport),
            options,
            Secrets::new(),
            deadline,
            Probe::Quick,
        )
        .await
    }

    /// `secrets` are the credentials the transport sends: the peer hides them in the server's
    /// error and log messages.
    async fn handshake(
        server: &str,
        link: Link,
        options: ClientOptions,
        secrets: Secrets,
        deadline: Instant,
        probe: Probe,
    ) -> Result<Self, Error> {
        let peer = Peer::start_on(
            server,
            link,
            PeerOptions {
                roots: options.roots.clone(),
                default_timeout: options.request_timeout,
                elicitation: options.elicitation.clone(),
                sampling: options.sampling.clone(),
                secrets,
            },
        );
        let capabilities = options.capabilities();
        let opened = tokio::time::timeout_at(
            deadline,
            Self::open(server, &peer, &options, &capabilities, probe),
        )
        .await;
        let failure = match opened {
            Err(_) => Error::ConnectTimeout {
                server: server.to_owned(),
                after: options.connect_timeout,
            },
            Ok(Ok((initialize, protocol_version))) => {
                if protocol_version.is_stateless() {
                    peer.set_request_meta(&stateless::request_meta(
                        protocol_version,
                        &options.client_info,
                        &capabilities,
                    ));
                }
                tracing::debug!(
                    server,
                    version = %protocol_version,
                    server_name = %initialize.server_info.name,
                    "MCP server connected"
                );
                let peer = Arc::new(peer);
                // A stateless server's change notifications come on a stream of their own.
                let listener = protocol_version
                    .is_stateless()
                    .then(|| SubscriptionFilter::announced_by(&initialize.capabilities))
                    .flatten()
                    .map(|filter| {
                        tokio::spawn(stateless::listen(Arc::downgrade(&peer), filter))
                            .abort_handle()
                    });
                return Ok(Self {
                    server: Arc::from(server),
                    peer,
                    initialize,
                    protocol_version,
                    #[cfg(feature = "http")]
                    tool_headers: None,
                    listener,
                });
            }
            Ok(Err(error)) => error,
        };
        if let Err(error) = peer.close().await {
            tracing::warn!(server, %error, "could not stop the server after a failed handshake");
        }
        Err(failure)
    }

    /// Finds the server's era and opens the conversation: `server/discover` for a stateless
    /// server, `initialize` and `notifications/initialized` for one of the handshake era (see
    /// [`stateless`]). A pinned version ([`ClientOptions::protocol_version`]) skips the probe
    /// for the handshake era and allows no fallback for the stateless one.
    async fn open(
        server: &str,
        peer: &Peer,
        options: &ClientOptions,
        capabilities: &ClientCapabilities,
        probe_kind: Probe,
    ) -> Result<(InitializeResult, ProtocolVersion), Error> {
        let pinned = options.protocol_version;
        let handshake_pin = pinned.filter(|version| !version.is_stateless());
        if handshake_pin.is_some() || (probe_kind.skipped() && pinned.is_none()) {
            let version = handshake_pin.unwrap_or(ProtocolVersion::LATEST_HANDSHAKE);
            return Self::initialize(server, peer, options, capabilities, version).await;
        }
        let stateless = pinned.unwrap_or(ProtocolVersion::LATEST);
        let probe_timeout = match probe_kind {
            // Half the connect timeout at most, leaving the other half to `initialize`.
            Probe::Quick if pinned.is_none() => {
                stateless::PROBE_TIMEOUT.min(options.connect_timeout / 2)
            }
            _ => options.connect_timeout,
        };
        let probe = |timeout| {
            stateless::probe(peer, stateless, &options.client_info, capabilities, timeout)
        };
        let era = match probe(probe_timeout).await {
            Ok(era) => era,
            Err(failure) => return Err(Self::probe_error(server, options, failure)),
        };
        match era {
            Era::Stateless {
                version,
                discovered,
            } => Ok((discovered.into_initialize_result(version), version)),
            // Pinned to the stateless revision, a request that failed at the HTTP level is
            // that failure (a refused login, say), not a statement of the server's era.
            #[cfg(feature = "http")]
            Era::Handshake {
                refusal: Some(error),
                ..
            } if pinned.is_some() && error.code == crate::http::HTTP_ERROR_CODE => {
                Err(Error::Request {
                    server: server.to_owned(),
                    operation: methods::SERVER_DISCOVER.to_owned(),
                    source: RpcError::Server(error),
                })
            }
            // Pinned, with no fallback: no answer in time is the connect timing out.
            Era::Handshake {
                silent: true,
                refusal: None,
                ..
            } if pinned.is_some() => Err(Error::ConnectTimeout {
                server: server.to_owned(),
                after: options.connect_timeout,
            }),
            Era::Handshake { refusal, .. } if pinned.is_some() => {
                Err(Error::UnsupportedProtocolVersion {
                    server: server.to_owned(),
                    version: match refusal {
                        Some(error) => format!(
                            "only the handshake era (it answered server/discover with \"{}\", \
                             JSON-RPC error {})",
                            error.message, error.code
                        ),
                        None => "only the handshake era (the versions it lists)".to_owned(),
                    },
                    supported: format!("{stateless}, as pinned"),
                })
            }
            Era::Handshake {
                version, silent, ..
            } => {
                match Self::initialize(server, peer, options, capabilities, version).await {
                    // A stateless server too slow to answer the probe (a package manager
                    // fetching it, say) refuses `initialize` once it is up: ask it again.
                    Err(Error::Request {
                        source: RpcError::Server(_),
                        ..
                    }) if silent => match probe(options.connect_timeout).await {
                        Ok(Era::Stateless {
                            version,
                            discovered,
                        }) => Ok((discovered.into_initialize_result(version), version)),
                        Ok(Era::Handshake { .. }) => Err(Error::UnsupportedProtocolVersion {
                            server: server.to_owned(),
                            version: "none: it refused initialize and server/discover".to_owned(),
                            supported: ProtocolVersion::supported_list(),
                        }),
                        Err(failure) => Err(Self::probe_error(server, options, failure)),
                    },
                    opened => opened,
                }
            }
        }
    }

    fn probe_error(server: &str, options: &ClientOptions, failure: ProbeFailure) -> Error {
        match failure {
            ProbeFailure::Request(RpcError::Timeout(_)) => Error::ConnectTimeout {
                server: server.to_owned(),
                after: options.connect_timeout,
            },
            ProbeFailure::Request(source) => Error::Request {
                server: server.to_owned(),
                operation: methods::SERVER_DISCOVER.to_owned(),
                source,
            },
            ProbeFailure::Refused(error) => Error::Request {
                server: server.to_owned(),
                operation: methods::SERVER_DISCOVER.to_owned(),
                source: RpcError::Server(error),
            },
            ProbeFailure::NoCommonVersion(offered) => Error::UnsupportedProtocolVersion {
                server: server.to_owned(),
                version: if offered.is_empty() {
                    "none named".to_owned()
                } else {
                    offered.join(", ")
                },
                supported: ProtocolVersion::supported_list(),
            },
        }
    }

    /// The handshake of the 2024-11-05 … 2025-11-25 era, offering `version`.
    async fn initialize(
        server: &str,
        peer: &Peer,
        options: &ClientOptions,
        capabilities: &ClientCapabilities,
        version: ProtocolVersion,
    ) -> Result<(InitializeResult, ProtocolVersion), Error> {
        let params = InitializeParams {
            protocol_version: version.as_str().to_owned(),
            capabilities: capabilities.clone(),
            client_info: options.client_info.clone(),
        };
        let initialize = peer
            .request::<_, InitializeResult>(
                methods::INITIALIZE,
                Some(&params),
                &RequestOptions::with_timeout(options.connect_timeout),
            )
            .await;
        let initialize = match initialize {
            Err(RpcError::Timeout(_)) => {
                return Err(Error::ConnectTimeout {
                    server: server.to_owned(),
                    after: options.connect_timeout,
                });
            }
            Err(source) => {
                return Err(Error::Request {
                    server: server.to_owned(),
                    operation: methods::INITIALIZE.to_owned(),
                    source,
                });
            }
            Ok(initialize) => initialize,
        };
        let Some(protocol_version) = ProtocolVersion::parse(&initialize.protocol_version)
            .filter(|chosen| !chosen.is_stateless())
        else {
            return Err(Error::UnsupportedProtocolVersion {
                server: server.to_owned(),
                version: initialize.protocol_version,
                supported: ProtocolVersion::supported_list(),
            });
        };
        peer.notify(methods::INITIALIZED, None::<()>)
            .map_err(|source| Error::Request {
                server: server.to_owned(),
                operation: methods::INITIALIZED.to_owned(),
                source,
            })?;
        Ok((initialize, protocol_version))
    }

    /// The server's name, as given when connecting.
    pub fn server_name(&self) -> &str {
        &self.server
    }

    /// The negotiated protocol version.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.protocol_version
    }

    /// The server's name and version from `initialize`.
    pub fn server_info(&self) -> &Implementation {
        &self.initialize.server_info
    }

    /// The server's capabilities from `initialize`.
    pub fn capabilities(&self) -> &ServerCapabilities {
        &self.initialize.capabilities
    }

    /// The server's instructions for the model, if it gave any.
    pub fn instructions(&self) -> Option<&str> {
        self.initialize.instructions.as_deref()
    }

    /// The whole `initialize` result.
    pub fn initialize_result(&self) -> &InitializeResult {
        &self.initialize
    }

    /// The JSON-RPC peer, for requests this client has no method for.
    pub fn peer(&self) -> &Peer {
        &self.peer
    }

    /// Lists every tool, following `nextCursor` to the last page.
    ///
    /// Over Streamable HTTP with a stateless server, a tool whose input schema designates
    /// headers against the revision's rules (`x-mcp-header`) is left out with a warning naming
    /// it and why, and the others' designations are kept for their calls.
    pub async fn list_tools(&self) -> Result<Vec<Tool>, Error> {
        Ok(self.list_tools_with_ttl().await?.tools)
    }

    /// [`list_tools`](Self::list_tools), with how long the list may be considered fresh (a
    /// stateless server's `ttlMs`), for a caller that keeps the list.
    pub async fn list_tools_with_ttl(&self) -> Result<ToolList, Error> {
        let (tools, ttl) = self
            .list_pages::<ListToolsResult>(methods::TOOLS_LIST)
            .await?;
        #[cfg(feature = "http")]
        if let Some(registry) = &self.tool_headers
            && self.protocol_version.is_stateless()
        {
            let tools = self.keep_tool_headers(registry, tools);
            return Ok(ToolList { tools, ttl });
        }
        Ok(ToolList { tools, ttl })
    }

    /// Records the headers `tools` designate and leaves out the tools whose designations are
    /// invalid.
    #[cfg(feature = "http")]
    fn keep_tool_headers(&self, registry: &ToolHeaders, mut tools: Vec<Tool>) -> Vec<Tool> {
        const DESIGNATION: &str = "x-mcp-header";
        let mut designated = Vec::new();
        tools.retain(|tool| {
            let schema = &tool.input_schema;
            if schema
                .json_text()
                .is_some_and(|text| !text.contains(DESIGNATION))
            {
                return true;
            }
            match crate::http::headers::designations(schema.as_object()) {
                Ok(designations) => {
                    designated.push((tool.name.clone(), designations));
                    true
                }
                Err(why) => {
                    tracing::warn!(
                        server = %self.server,
                        tool = %tool.name,
                        "the tool is left out of the list: its input schema designates headers \
                         against the protocol's rules: {why}"
                    );
                    false
                }
            }
        });
        registry.replace(designated);
        tools
    }

    /// Lists every resource, following `nextCursor` to the last page. Ask only a server whose
    /// capabilities [offer resources](ServerCapabilities::offers_resources); others answer
    /// with an error (usually "method not found").
    pub async fn list_resources(&self) -> Result<Vec<Resource>, Error> {
        self.list_all::<ListResourcesResult>(methods::RESOURCES_LIST)
            .await
    }

    /// Lists every resource template, following `nextCursor` to the last page.
    pub async fn list_resource_templates(&self) -> Result<Vec<ResourceTemplate>, Error> {
        self.list_all::<ListResourceTemplatesResult>(methods::RESOURCES_TEMPLATES_LIST)
            .await
    }

    /// Reads one resource: a listed resource's URI, or one a template expands to.
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, Error> {
        self.request_rounds(
            methods::RESOURCES_READ,
            &ReadResourceParams::new(uri),
            &RequestOptions::default(),
        )
        .await
        .map_err(|source| self.request_error(format!("resources/read {uri:?}"), source))
    }

    /// Lists every prompt, following `nextCursor` to the last page. Ask only a server whose
    /// capabilities [offer prompts](ServerCapabilities::offers_prompts).
    pub async fn list_prompts(&self) -> Result<Vec<Prompt>, Error> {
        self.list_all::<ListPromptsResult>(methods::PROMPTS_LIST)
            .await
    }

    /// Gets a prompt's messages, with its (string) arguments.
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: BTreeMap<String, String>,
    ) -> Result<GetPromptResult, Error> {
        self.request_rounds(
            methods::PROMPTS_GET,
            &GetPromptParams::new(name, arguments),
            &RequestOptions::default(),
        )
        .await
        .map_err(|source| self.request_error(format!("prompts/get {name:?}"), source))
    }

    /// Every item of a paginated list, following `nextCursor` to the last page; a cursor seen
    /// before, or more than [`MAX_PAGES`] pages, is an error rather than an endless loop.
    async fn list_all<P: Page>(&self, method: &'static str) -> Result<Vec<P::Item>, Error> {
        Ok(self.list_pages::<P>(method).await?.0)
    }

    /// [`list_all`](Self::list_all), with how long from now the whole list is fresh: until its
    /// first page goes stale (each page's `ttlMs` counts from when that page came). `None`
    /// when a page had no `ttlMs`.
    async fn list_pages<P: Page>(
        &self,
        method: &'static str,
    ) -> Result<(Vec<P::Item>, Option<Duration>), Error> {
        let options = RequestOptions::default();
        let mut items = Vec::new();
        let mut seen_cursors = HashSet::new();
        let mut cursor: Option<String> = None;
        // `Some(None)`: every page so far had a ttl too long to be an instant.
        let mut fresh_until: Option<Option<Instant>> = Some(None);
        for _ in 0..MAX_PAGES {
            let params = PaginatedParams {
                cursor: cursor.clone(),
            };
            let page: P = self
                .peer
                .request(method, Some(&params), &options)
                .await
                .map_err(|source| self.request_error(method.to_owned(), source))?;
            fresh_until = match (fresh_until, page.ttl_ms()) {
                (Some(earliest), Some(ms)) => {
                    let until = Instant::now().checked_add(Duration::from_millis(ms));
                    Some(match (earliest, until) {
                        (Some(earliest), Some(until)) => Some(earliest.min(until)),
                        (earliest, until) => earliest.or(until),
                    })
                }
                _ => None,
            };
            let (page_items, next_cursor) = page.into_parts();
            items.extend(page_items);
            match next_cursor {
                None => {
                    let ttl = fresh_until.map(|until| {
                        until.map_or(MAX_TTL, |until| {
                            until.saturating_duration_since(Instant::now())
                        })
                    });
                    return Ok((items, ttl));
                }
                Some(next) => {
                    if !seen_cursors.insert(next.clone()) {
                        return Err(Error::RepeatedCursor {
                            server: self.server.to_string(),
                            method,
                            cursor: next,
                        });
                    }
                    cursor = Some(next);
                }
            }
        }
        Err(Error::TooManyPages {
            server: self.server.to_string(),
            method,
            pages: MAX_PAGES,
        })
    }

    /// Calls a tool with the default request timeout.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Option<JsonObject>,
    ) -> Result<CallToolResult, Error> {
        self.call_tool_with(name, arguments, &RequestOptions::default())
            .await
    }

    /// Calls a tool with per-call options: timeout, progress, cancellation. A call without a
    /// timeout of its own uses the client's default ([`ClientOptions::request_timeout`]).
    pub async fn call_tool_with(
        &self,
        name: &str,
        arguments: Option<JsonObject>,
        options: &RequestOptions,
    ) -> Result<CallToolResult, Error> {
        self.call_tool_borrowed(name, arguments.as_ref(), options)
            .await
    }

    /// [`call_tool_with`](Self::call_tool_with) with borrowed arguments: a caller that keeps
    /// them (an agent's tool call, a retry, a log) makes no copy. They are only serialized.
    pub async fn call_tool_borrowed(
        &self,
        name: &str,
        arguments: Option<&JsonObject>,
        options: &RequestOptions,
    ) -> Result<CallToolResult, Error> {
        #[derive(serde::Serialize)]
        struct Params<'a> {
            name: &'a str,
            #[serde(skip_serializing_if = "Option::is_none")]
            arguments: Option<&'a JsonObject>,
        }
        let params = Params { name, arguments };
        let called = self
            .request_rounds(methods::TOOLS_CALL, &params, options)
            .await;
        // A stateless HTTP server that finds a designated header missing or different: the
        // tool's schema changed since it was listed (or was never listed). List and try again.
        #[cfg(feature = "http")]
        let called = match called {
            Err(RpcError::Server(error))
                if error.code == crate::jsonrpc::error_codes::HEADER_MISMATCH
                    && self.tool_headers.is_some() =>
            {
                tracing::debug!(server = %self.server, tool = name, message = %error.message,
                    "the server found the call's headers wrong; listing the tools again");
                self.list_tools().await?;
                self.request_rounds(methods::TOOLS_CALL, &params, options)
                    .await
            }
            called => called,
        };
        called.map_err(|source| self.request_error(format!("tools/call {name:?}"), source))
    }

    /// Calls a tool from ready-made parameters.
    pub async fn call(&self, params: CallToolParams) -> Result<CallToolResult, Error> {
        self.call_tool(&params.name, params.arguments).await
    }

    /// Changes the roots answered to the server's `roots/list` and, in the handshake era, tells
    /// the server with `notifications/roots/list_changed` (a stateless server asks for them in
    /// each request that needs them); true when the roots were taken. Nothing happens for a
    /// client connected without roots (it did not declare the capability), and a closed
    /// connection has no one left to tell: false then.
    pub fn set_roots(&self, roots: Vec<Root>) -> bool {
        self.peer.set_roots(roots)
            && (self.protocol_version.is_stateless()
                || self
                    .peer
                    .notify(methods::ROOTS_LIST_CHANGED, None::<()>)
                    .is_ok())
    }

    /// Checks that the server answers: `ping` in the handshake era, `server/discover` for a
    /// stateless server (the revision has no `ping`).
    pub async fn ping(&self) -> Result<(), Error> {
        let method = if self.protocol_version.is_stateless() {
            methods::SERVER_DISCOVER
        } else {
            methods::PING
        };
        self.peer
            .request::<_, serde::de::IgnoredAny>(method, None::<()>, &RequestOptions::default())
            .await
            .map(|_| ())
            .map_err(|source| self.request_error(method.to_owned(), source))
    }

    /// Sends a request a stateless server may answer with `input_required` (`tools/call`,
    /// `prompts/get`, `resources/read`): the input it asks for is gathered with the client's
    /// handlers and the request sent again under a new id, with the answers and the server's
    /// `requestState` as it was sent, until the result is complete. Each round has the request's
    /// timeout; `max_total_timeout` and cancellation cover all of them. In the handshake era
    /// this is a plain request.
    async fn request_rounds<P, R>(
        &self,
        method: &'static str,
        params: &P,
        options: &RequestOptions,
    ) -> Result<R, RpcError>
    where
        P: serde::Serialize + Sync,
        R: serde::de::DeserializeOwned,
    {
        if !self.protocol_version.is_stateless() {
            return self.peer.request(method, Some(params), options).await;
        }
        let hard_deadline = options.max_total_timeout.map(|max| Instant::now() + max);
        // The first round is the request as it is; the rounds after it, rare, are a future of
        // their own, boxed, so a call that completes at once neither builds nor carries them.
        match stateless::request_reply(&self.peer, method, Some(params), options).await? {
            Reply::Complete(result) => Ok(result),
            Reply::InputRequired(first) => {
                Box::pin(self.input_rounds(method, params, options, hard_deadline, first)).await
            }
        }
    }

    /// The rounds of [`request_rounds`](Self::request_rounds) after a first answer asked for
    /// input: the input gathered, the request sent again with it, until the result is complete.
    async fn input_rounds<P, R>(
        &self,
        method: &'static str,
        params: &P,
        options: &RequestOptions,
        hard_deadline: Option<Instant>,
        first: InputRequired,
    ) -> Result<R, RpcError>
    where
        P: serde::Serialize + Sync,
        R: serde::de::DeserializeOwned,
    {
        let mut options = options.clone();
        let mut next = first;
        for _ in 0..stateless::MAX_INPUT_ROUNDS {
            let answered = stateless::answer_inputs(&self.peer, &next);
            let responses = match &options.cancel {
                Some(cancel) => tokio::select! {
                    answered = answered => answered,
                    () = cancel.cancelled() => return Err(RpcError::Cancelled),
                },
                None => answered.await,
            }
            .map_err(RpcError::InputNotGiven)?;
            if let Some(deadline) = hard_deadline {
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return Err(RpcError::Timeout(
                        options.max_total_timeout.unwrap_or_default(),
                    ));
                }
                options.max_total_timeout = Some(left);
            }
            let round = WithInput {
                params,
                input_responses: responses.as_ref(),
                request_state: next.request_state.as_deref(),
            };
            next =
                match stateless::request_reply(&self.peer, method, Some(&round), &options).await? {
                    Reply::Complete(result) => return Ok(result),
                    Reply::InputRequired(next) => next,
                };
        }
        Err(RpcError::InvalidResponse(format!(
            "the server asked for input {} times without finishing",
            stateless::MAX_INPUT_ROUNDS + 1
        )))
    }

    /// Receives the server's notifications (`notifications/tools/list_changed`,
    /// `notifications/resources/list_changed`, `notifications/prompts/list_changed`, …) from
    /// now on; [`ServerNotification::kind`] tells which, to `match` on.
    pub fn subscribe(&self) -> broadcast::Receiver<ServerNotification> {
        self.peer.subscribe()
    }

    /// Why the connection is closed, or `None` while it is open.
    pub fn close_reason(&self) -> Option<CloseReason> {
        self.peer.close_reason()
    }

    /// Resolves as soon as the connection is closed (the server died, or `close` was called).
    pub async fn closed(&self) -> CloseReason {
        self.peer.closed().await
    }

    /// Closes the connection and stops the server (stdio: stdin closed, grace period, SIGTERM,
    /// SIGKILL to the whole process group). Pending requests fail at once.
    pub async fn close(&self) -> Result<(), Error> {
        if let Some(listener) = &self.listener {
            listener.abort();
        }
        self.peer.close().await.map_err(|source| Error::Stop {
            server: self.server.to_string(),
            source,
        })
    }

    fn request_error(&self, operation: String, source: RpcError) -> Error {
        Error::Request {
            server: self.server.to_string(),
            operation,
            source,
        }
    }
}
