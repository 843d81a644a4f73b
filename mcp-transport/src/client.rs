//! [`McpClient`]: the MCP handshake, the tool, resource and prompt operations over one
//! [`Peer`], and the paging of every list.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::broadcast;
use tokio::time::Instant;

use crate::error::Error;
use crate::handlers::{ElicitationHandler, SamplingHandler};
#[cfg(feature = "http")]
use crate::http::{HttpServerParams, LegacySseTransport, RemoteTransport, StreamableHttpTransport};
use crate::jsonrpc::ServerNotification;
use crate::peer::{Peer, PeerOptions, RequestOptions, RpcError};
use crate::protocol::{
    CallToolParams, CallToolResult, ClientCapabilities, EmptyResult, GetPromptParams,
    GetPromptResult, Implementation, InitializeParams, InitializeResult, JsonObject,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult,
    PaginatedParams, Prompt, ProtocolVersion, ReadResourceParams, ReadResourceResult, Resource,
    ResourceTemplate, Root, RootsCapability, ServerCapabilities, Tool, methods,
};
use crate::secrets::Secrets;
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
}

impl Page for ListToolsResult {
    type Item = Tool;
    fn into_parts(self) -> (Vec<Tool>, Option<String>) {
        (self.tools, self.next_cursor)
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

/// How a client connects and behaves.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ClientOptions {
    /// The name and version sent as `clientInfo`.
    pub client_info: Implementation,
    /// The version offered in `initialize`. Default: the latest, 2025-11-25.
    pub protocol_version: ProtocolVersion,
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
            protocol_version: ProtocolVersion::LATEST,
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

    /// Sets the client name and version.
    #[must_use]
    pub fn client_info(mut self, info: Implementation) -> Self {
        self.client_info = info;
        self
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
    peer: Peer,
    initialize: InitializeResult,
    protocol_version: ProtocolVersion,
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
        Self::handshake(server, Box::new(transport), options, secrets, deadline).await
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
                        Self::connect_legacy_sse(server, &params, options, deadline).await
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
        let secrets = params.secrets.clone();
        Self::handshake(server, Box::new(transport), options, secrets, deadline).await
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
        Self::handshake(server, Box::new(transport), options, secrets, deadline).await
    }

    /// Performs the handshake over a transport that is already set up, within the connect
    /// timeout. On failure the transport is closed.
    pub async fn connect(
        server: &str,
        transport: Box<dyn Transport>,
        options: ClientOptions,
    ) -> Result<Self, Error> {
        let deadline = Instant::now() + options.connect_timeout;
        Self::handshake(server, transport, options, Secrets::new(), deadline).await
    }

    /// `secrets` are the credentials the transport sends: the peer hides them in the server's
    /// error and log messages.
    async fn handshake(
        server: &str,
        transport: Box<dyn Transport>,
        options: ClientOptions,
        secrets: Secrets,
        deadline: Instant,
    ) -> Result<Self, Error> {
        let peer = Peer::start(
            server,
            transport,
            PeerOptions {
                roots: options.roots.clone(),
                default_timeout: options.request_timeout,
                elicitation: options.elicitation.clone(),
                sampling: options.sampling.clone(),
                secrets,
            },
        );
        let params = InitializeParams {
            protocol_version: options.protocol_version.as_str().to_owned(),
            capabilities: ClientCapabilities {
                roots: options
                    .roots
                    .as_ref()
                    .map(|_| RootsCapability { list_changed: true }),
                // `{}` declares form elicitation, which every protocol version understands.
                elicitation: options.elicitation.as_ref().map(|_| JsonObject::new()),
                sampling: options.sampling.as_ref().map(|_| JsonObject::new()),
                ..ClientCapabilities::default()
            },
            client_info: options.client_info.clone(),
        };
        let initialize = tokio::time::timeout_at(
            deadline,
            peer.request::<_, InitializeResult>(
                methods::INITIALIZE,
                Some(&params),
                &RequestOptions::with_timeout(options.connect_timeout),
            ),
        )
        .await;
        let failure = match initialize {
            Err(_) | Ok(Err(RpcError::Timeout(_))) => Error::ConnectTimeout {
                server: server.to_owned(),
                after: options.connect_timeout,
            },
            Ok(Err(source)) => Error::Request {
                server: server.to_owned(),
                operation: methods::INITIALIZE.to_owned(),
                source,
            },
            Ok(Ok(initialize)) => match ProtocolVersion::parse(&initialize.protocol_version) {
                Some(protocol_version) => {
                    let notified = peer.notify(methods::INITIALIZED, None::<()>);
                    if let Err(source) = notified {
                        Error::Request {
                            server: server.to_owned(),
                            operation: methods::INITIALIZED.to_owned(),
                            source,
                        }
                    } else {
                        tracing::debug!(
                            server,
                            version = %protocol_version,
                            server_name = %initialize.server_info.name,
                            "MCP server initialized"
                        );
                        return Ok(Self {
                            server: Arc::from(server),
                            peer,
                            initialize,
                            protocol_version,
                        });
                    }
                }
                None => Error::UnsupportedProtocolVersion {
                    server: server.to_owned(),
                    version: initialize.protocol_version,
                    supported: ProtocolVersion::supported_list(),
                },
            },
        };
        if let Err(error) = peer.close().await {
            tracing::warn!(server, %error, "could not stop the server after a failed handshake");
        }
        Err(failure)
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
    pub async fn list_tools(&self) -> Result<Vec<Tool>, Error> {
        self.list_all::<ListToolsResult>(methods::TOOLS_LIST).await
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
        self.peer
            .request(
                methods::RESOURCES_READ,
                Some(ReadResourceParams::new(uri)),
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
        self.peer
            .request(
                methods::PROMPTS_GET,
                Some(GetPromptParams::new(name, arguments)),
                &RequestOptions::default(),
            )
            .await
            .map_err(|source| self.request_error(format!("prompts/get {name:?}"), source))
    }

    /// Every item of a paginated list, following `nextCursor` to the last page; a cursor seen
    /// before, or more than [`MAX_PAGES`] pages, is an error rather than an endless loop.
    async fn list_all<P: Page>(&self, method: &'static str) -> Result<Vec<P::Item>, Error> {
        let options = RequestOptions::default();
        let mut items = Vec::new();
        let mut seen_cursors = HashSet::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let params = PaginatedParams {
                cursor: cursor.clone(),
            };
            let page: P = self
                .peer
                .request(method, Some(&params), &options)
                .await
                .map_err(|source| self.request_error(method.to_owned(), source))?;
            let (page_items, next_cursor) = page.into_parts();
            items.extend(page_items);
            match next_cursor {
                None => return Ok(items),
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
        self.peer
            .request(
                methods::TOOLS_CALL,
                Some(Params { name, arguments }),
                options,
            )
            .await
            .map_err(|source| self.request_error(format!("tools/call {name:?}"), source))
    }

    /// Calls a tool from ready-made parameters.
    pub async fn call(&self, params: CallToolParams) -> Result<CallToolResult, Error> {
        self.call_tool(&params.name, params.arguments).await
    }

    /// Changes the roots answered to the server's `roots/list` and tells the server with
    /// `notifications/roots/list_changed`; true when the server was told. Nothing happens for a
    /// client connected without roots (it did not declare the capability), and a closed
    /// connection has no one left to tell: false then.
    pub fn set_roots(&self, roots: Vec<Root>) -> bool {
        self.peer.set_roots(roots)
            && self
                .peer
                .notify(methods::ROOTS_LIST_CHANGED, None::<()>)
                .is_ok()
    }

    /// Checks that the server answers.
    pub async fn ping(&self) -> Result<(), Error> {
        self.peer
            .request::<_, EmptyResult>(methods::PING, None::<()>, &RequestOptions::default())
            .await
            .map(|_| ())
            .map_err(|source| self.request_error(methods::PING.to_owned(), source))
    }

    /// Receives the server's notifications (`notifications/tools/list_changed`,
    /// `notifications/resources/list_changed`, `notifications/prompts/list_changed`, …) from
    /// now on.
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
