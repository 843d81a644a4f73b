//! Remote servers (feature `http`): Streamable HTTP, legacy HTTP+SSE, and the choice between
//! them.
//!
//! | Transport | Type | What it does |
//! |---|---|---|
//! | Streamable HTTP (2025-03-26 on) | [`StreamableHttpTransport`] | every message is a POST; answers come as JSON or as an SSE stream; an optional GET stream carries what the server starts |
//! | legacy HTTP+SSE (2024-11-05) | [`LegacySseTransport`] | one GET stream carries every answer; messages are POSTed to the endpoint it names |
//!
//! [`McpClient::connect_http`](crate::McpClient::connect_http) connects with the transport
//! [`HttpServerParams::transport`] names; [`RemoteTransport::Auto`] tries Streamable HTTP and
//! falls back to legacy SSE when the server refuses the initialize POST with 400, 404 or 405,
//! as the specification's backwards-compatibility section asks.
//!
//! Both run on reqwest with rustls. The HTTP client gets a connect timeout and no total
//! timeout: a tool call may stream for as long as it needs, and the [`Peer`](crate::Peer)'s
//! per-request timeouts decide when to give up. Configured headers go with every request and
//! never into a log line or an error, nor to another origin (redirects are followed on the
//! server's own origin only); URLs in errors are shown without their query, where API keys tend
//! to live. What a server sends back into an error (an error body, a `WWW-Authenticate`
//! challenge) is cut short and scrubbed of every secret the client sent it (header values, URL
//! query values and userinfo, each request's `Authorization` from the [`Authorizer`]): see
//! [`HttpServerParams::secrets`].
//!
//! ```no_run
//! use mcp_transport::http::HttpServerParams;
//! use mcp_transport::{ClientOptions, McpClient};
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let params = HttpServerParams::new("https://example.com/mcp")?
//!     .header("Authorization", "Bearer my-token")?;
//! let client = McpClient::connect_http("example", params, ClientOptions::default()).await?;
//! println!("{} tools", client.list_tools().await?.len());
//! # Ok(()) }
//! ```

pub mod headers;
pub mod legacy_sse;
pub mod reach;
mod scan;
pub mod streamable;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;
use bytes::Bytes;
pub use reqwest::Method;
pub use reqwest::Url;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde::Deserialize;
use serde_json::value::RawValue;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

pub use headers::{Designation, InvalidDesignation, ToolHeaders};
pub use legacy_sse::LegacySseTransport;
pub use reach::{ReachCheck, Refused, RefusedTarget};
pub use streamable::StreamableHttpTransport;

use crate::framing::DEFAULT_MAX_MESSAGE_BYTES;
use crate::jsonrpc::IncomingEnvelope;
use crate::secrets::{Secrets, percent_decoded};
use crate::sse::SseDecoder;
use crate::transport::TransportError;

/// How long a connection attempt may take before the HTTP client gives up. The connect timeout
/// of [`ClientOptions`](crate::ClientOptions) still bounds the whole handshake.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// How many times a response stream that ended before its answer is resumed (`GET` with
/// `Last-Event-ID`) before the request fails.
pub const MAX_STREAM_RESUMPTIONS: u32 = 5;

/// How long a legacy SSE server may take to name its message endpoint.
pub const DEFAULT_ENDPOINT_TIMEOUT: Duration = Duration::from_secs(10);

/// The reconnection delay when a server sent no `retry:`.
const DEFAULT_RETRY: Duration = Duration::from_millis(500);

/// The longest body excerpt an error shows.
const BODY_EXCERPT_CHARS: usize = 200;

/// The JSON-RPC error code of a request that failed at the HTTP level after the session was
/// established (the server answered with an error status and no JSON-RPC error of its own).
pub const HTTP_ERROR_CODE: i64 = -32000;

/// Which remote transport to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum RemoteTransport {
    /// Streamable HTTP, falling back to legacy SSE when the server refuses the initialize POST
    /// with 400, 404 or 405.
    #[default]
    Auto,
    /// Streamable HTTP only.
    StreamableHttp,
    /// Legacy HTTP+SSE only.
    Sse,
}

impl RemoteTransport {
    /// The name used on the command line and in configs: `auto`, `http` or `sse`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::StreamableHttp => "http",
            Self::Sse => "sse",
        }
    }
}

/// Where a remote server is and how to reach it.
#[derive(Clone)]
#[non_exhaustive]
pub struct HttpServerParams {
    /// The MCP endpoint (Streamable HTTP) or the SSE stream (legacy).
    pub url: Url,
    /// Headers sent with every request (e.g. `Authorization`).
    pub headers: HeaderMap,
    /// Which transport; default [`RemoteTransport::Auto`].
    pub transport: RemoteTransport,
    /// Bound on establishing a TCP/TLS connection. Default [`DEFAULT_CONNECT_TIMEOUT`].
    pub connect_timeout: Duration,
    /// The longest message (a JSON body or one SSE event) accepted. Default 32 MiB.
    pub max_message_bytes: usize,
    /// How long a legacy SSE server may take to name its endpoint. Default
    /// [`DEFAULT_ENDPOINT_TIMEOUT`].
    pub endpoint_timeout: Duration,
    /// Supplies each request's credentials (OAuth, say); none by default.
    pub authorizer: Option<Arc<dyn Authorizer>>,
    /// What errors and logs never show of this server's text. The transports add the URL's
    /// query values and userinfo, every header value and each `Authorization` the authorizer
    /// gives; add anything else the server may echo back.
    pub secrets: Secrets,
    /// Checks of the addresses connected to and the redirects followed ([`reach`]); none by
    /// default.
    pub reach: Option<ReachCheck>,
}

/// A URL or header that cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ParamsError {
    /// The URL does not parse.
    #[error("invalid server URL: {0}")]
    Url(#[from] url::ParseError),
    /// The URL is not `http` or `https`.
    #[error("invalid server URL: the scheme is \"{scheme}\"; use http or https")]
    Scheme {
        /// The scheme given.
        scheme: String,
    },
    /// A header name is not an HTTP token.
    #[error("invalid header name \"{name}\"")]
    HeaderName {
        /// The name given.
        name: String,
    },
    /// A header value is not visible ASCII (the value is not shown: it may be a secret).
    #[error("invalid value for header \"{name}\": use visible ASCII only")]
    HeaderValue {
        /// The header's name.
        name: String,
    },
}

impl HttpServerParams {
    /// Parameters for the server at `url` (`http` or `https`).
    pub fn new(url: &str) -> Result<Self, ParamsError> {
        let url = Url::parse(url)?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(ParamsError::Scheme {
                scheme: url.scheme().to_owned(),
            });
        }
        let secrets = Secrets::new();
        add_url_secrets(&secrets, &url);
        Ok(Self {
            url,
            headers: HeaderMap::new(),
            transport: RemoteTransport::Auto,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            endpoint_timeout: DEFAULT_ENDPOINT_TIMEOUT,
            authorizer: None,
            secrets,
            reach: None,
        })
    }

    /// Puts every address the connection is made to, and every redirect, to `check` ([`reach`]).
    #[must_use]
    pub fn reach(mut self, check: ReachCheck) -> Self {
        self.reach = Some(check);
        self
    }

    /// Lets `authorizer` supply each request's credentials and renew them when the server
    /// refuses them.
    #[must_use]
    pub fn authorizer(mut self, authorizer: Arc<dyn Authorizer>) -> Self {
        self.authorizer = Some(authorizer);
        self
    }

    /// Adds a header sent with every request.
    pub fn header(mut self, name: &str, value: &str) -> Result<Self, ParamsError> {
        let header_name =
            HeaderName::from_bytes(name.as_bytes()).map_err(|_| ParamsError::HeaderName {
                name: name.to_owned(),
            })?;
        let mut header_value =
            HeaderValue::from_str(value).map_err(|_| ParamsError::HeaderValue {
                name: name.to_owned(),
            })?;
        header_value.set_sensitive(true);
        self.headers.append(header_name, header_value);
        self.secrets.add(value);
        Ok(self)
    }

    /// Chooses the transport.
    #[must_use]
    pub fn transport(mut self, transport: RemoteTransport) -> Self {
        self.transport = transport;
        self
    }

    /// The URL as errors and logs show it: without its query and fragment.
    pub fn display_url(&self) -> String {
        display_url(&self.url)
    }

    /// [`secrets`](Self::secrets), with the URL and headers as they are now (the fields are
    /// public: they may have been set after [`new`](Self::new) and [`header`](Self::header)).
    fn transport_secrets(&self) -> Secrets {
        add_url_secrets(&self.secrets, &self.url);
        for value in &self.headers {
            if let Ok(value) = value.1.to_str() {
                self.secrets.add(value);
            }
        }
        self.secrets.clone()
    }

    /// The HTTP client of a transport; with a [`ReachCheck`], the URL's literal address is
    /// checked first and the client resolves names through it.
    fn http_client(&self) -> Result<reqwest::Client, TransportError> {
        let mut builder = reqwest::Client::builder()
            .connect_timeout(self.connect_timeout)
            .tcp_keepalive(Duration::from_secs(30))
            .redirect(reach::same_origin_redirects(self.reach.clone()))
            .default_headers(self.headers.clone());
        if let Some(check) = &self.reach {
            reach::check_literal(check, &self.url)?;
            builder = builder.dns_resolver(reach::CheckedResolver::new(check.clone(), &self.url));
        }
        builder.build().map_err(|source| TransportError::Http {
            action: "building the HTTP client".to_owned(),
            source: Box::new(source.without_url()),
        })
    }
}

impl std::fmt::Debug for HttpServerParams {
    /// Header values and the URL's query stay hidden: they tend to hold credentials.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpServerParams")
            .field("url", &self.display_url())
            .field("headers", &self.headers.keys().collect::<Vec<_>>())
            .field("transport", &self.transport)
            .field("connect_timeout", &self.connect_timeout)
            .field("max_message_bytes", &self.max_message_bytes)
            .field("endpoint_timeout", &self.endpoint_timeout)
            .field("authorizer", &self.authorizer.is_some())
            .field("reach", &self.reach.is_some())
            .finish_non_exhaustive()
    }
}

/// The secrets a URL carries: its query values (as written and decoded) and its userinfo.
fn add_url_secrets(secrets: &Secrets, url: &Url) {
    if let Some(query) = url.query() {
        for pair in query.split('&') {
            if let Some((_, value)) = pair.split_once('=') {
                secrets.add(value);
            }
        }
        for (_, value) in url.query_pairs() {
            secrets.add(&value);
        }
    }
    if url.username().is_empty() && url.password().is_none() {
        return;
    }
    secrets.add(url.username());
    secrets.add(url.password().unwrap_or_default());
    // reqwest sends the userinfo as `Authorization: Basic base64(user:password)`, decoded.
    let decoded = |part: &str| percent_decoded(part).unwrap_or_else(|| part.to_owned());
    let userinfo = format!(
        "{}:{}",
        decoded(url.username()),
        decoded(url.password().unwrap_or_default())
    );
    secrets.add(&base64::engine::general_purpose::STANDARD.encode(userinfo));
}

/// How many times one request is sent again after the server refused its credentials (a 401,
/// or a 403 asking for more scopes) and the [`Authorizer`] found better ones: one login and two
/// step-ups. Past that the refusal is the request's error, so a server that never accepts what
/// it asked for cannot keep the client authorizing forever.
pub const MAX_AUTHORIZATION_RETRIES: u32 = 3;

/// The request an [`Authorizer`] is asked to authorize: its method and URL, which a proof of
/// possession names (DPoP, RFC 9449, signs both; other schemes may ignore them).
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct RequestTarget<'a> {
    /// The HTTP method (`POST`, `GET`, `DELETE`).
    pub method: &'a Method,
    /// The URL the request goes to, query included.
    pub url: &'a Url,
}

impl<'a> RequestTarget<'a> {
    /// The request `method url`.
    pub fn new(method: &'a Method, url: &'a Url) -> Self {
        Self { method, url }
    }
}

/// What an [`Authorizer`] adds to one request.
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RequestCredentials {
    /// The `Authorization` value (`Bearer …`, `DPoP …`).
    pub authorization: HeaderValue,
    /// A proof of possession of the token for this request alone, sent as the `DPoP` header
    /// (RFC 9449): made fresh for every request, retries included, and never reused. Unlike
    /// the `Authorization` value it is not added to the secrets errors never show: it names
    /// one request and proves nothing for any other.
    pub dpop: Option<HeaderValue>,
}

impl RequestCredentials {
    /// An `Authorization` value and nothing else (a bearer token).
    pub fn new(authorization: HeaderValue) -> Self {
        Self {
            authorization,
            dpop: None,
        }
    }

    /// These credentials with a DPoP proof.
    #[must_use]
    pub fn dpop(mut self, proof: HeaderValue) -> Self {
        self.dpop = Some(proof);
        self
    }
}

impl std::fmt::Debug for RequestCredentials {
    /// Values stay hidden: they are credentials.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RequestCredentials")
            .field("dpop", &self.dpop.is_some())
            .finish_non_exhaustive()
    }
}

/// What a server said when it refused a request's credentials.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Refusal {
    /// 401 (no or invalid credentials) or 403 (not enough of them).
    pub status: u16,
    /// The server's `WWW-Authenticate` challenge, if it sent one.
    pub www_authenticate: Option<String>,
    /// The server's `DPoP-Nonce` header, if it sent one (RFC 9449 §9: the nonce the next proof
    /// must carry).
    pub dpop_nonce: Option<String>,
    /// The credentials the refused request carried (none: it carried none). They tell an
    /// authorizer whether the refused token is still its current one, so many requests refused
    /// at once renew it once, and which nonce the refused proof carried.
    pub sent: Option<RequestCredentials>,
}

/// Supplies each request's credentials and finds better ones when a server refuses them: the
/// hook through which OAuth (the [`oauth`](crate::oauth) module, feature `oauth`) or an
/// embedder's own scheme reaches both HTTP transports.
///
/// Every request the transports send (the Streamable HTTP POSTs, GET stream and closing DELETE;
/// the legacy transport's GET stream and POSTs) asks [`credentials`](Self::credentials) first,
/// with its method and URL, so an authorizer that binds its tokens to a key can sign a fresh
/// proof for each one. A configured `Authorization` header and an authorizer do not mix: a
/// request the authorizer gives credentials to carries them instead of the configured header.
#[async_trait::async_trait]
pub trait Authorizer: Send + Sync {
    /// The credentials for `request`, if there are some (a token that is about to expire may
    /// be renewed first).
    async fn credentials(
        &self,
        request: RequestTarget<'_>,
    ) -> Result<Option<RequestCredentials>, TransportError>;

    /// The server refused a request's credentials. True when there are new ones (or a new
    /// nonce for the proof) and the request should be sent again; false when the refusal
    /// stands (the request then fails with [`TransportError::Unauthorized`]); an error when
    /// finding credentials failed.
    async fn refused(&self, refusal: &Refusal) -> Result<bool, TransportError>;
}

/// The header that carries a DPoP proof (RFC 9449 §4.1).
const DPOP: &str = "dpop";

/// The header that carries a server's DPoP nonce (RFC 9449 §8, §9).
const DPOP_NONCE: &str = "dpop-nonce";

/// Sends the request `build` makes with the authorizer's credentials (if any); when the
/// server answers 401 or 403 and the authorizer finds new credentials, builds and sends it
/// again (with credentials asked for anew: a proof is never sent twice), at most
/// [`MAX_AUTHORIZATION_RETRIES`] times. The last response is returned whatever its status,
/// with what `build` said of the request that got it.
async fn send_authorized<T>(
    authorizer: Option<&dyn Authorizer>,
    secrets: &Secrets,
    build: impl Fn() -> (reqwest::RequestBuilder, T),
    action: impl Fn() -> String,
) -> Result<(reqwest::Response, T), TransportError> {
    let mut retries = 0;
    loop {
        let (builder, built) = build();
        let (client, request) = builder.build_split();
        let mut request = request.map_err(|error| request_failed(action(), error))?;
        let credentials = match authorizer {
            Some(authorizer) => {
                authorizer
                    .credentials(RequestTarget::new(request.method(), request.url()))
                    .await?
            }
            None => None,
        };
        if let Some(credentials) = &credentials {
            add_header_secret(secrets, &credentials.authorization);
            let headers = request.headers_mut();
            headers.insert(
                reqwest::header::AUTHORIZATION,
                credentials.authorization.clone(),
            );
            if let Some(proof) = &credentials.dpop {
                headers.insert(DPOP, proof.clone());
            }
        }
        let response = client
            .execute(request)
            .await
            .map_err(|error| request_failed(action(), error))?;
        let status = response.status().as_u16();
        let Some(authorizer) = authorizer.filter(|_| status == 401 || status == 403) else {
            return Ok((response, built));
        };
        if retries == MAX_AUTHORIZATION_RETRIES {
            return Ok((response, built));
        }
        let refusal = Refusal {
            status,
            www_authenticate: www_authenticate(&response),
            dpop_nonce: response
                .headers()
                .get(DPOP_NONCE)
                .and_then(|value| value.to_str().ok())
                .map(str::to_owned),
            sent: credentials,
        };
        // Read the refusal's body so the connection can carry the retry.
        drop(read_excerpt(response, secrets).await);
        if !authorizer.refused(&refusal).await? {
            return Err(TransportError::Unauthorized {
                action: action(),
                status,
                www_authenticate: refusal
                    .www_authenticate
                    .map(|challenge| secrets.scrub(&challenge).into_owned()),
            });
        }
        retries += 1;
    }
}

/// Adds the value an [`Authorizer`] gave a request to the secrets errors never show.
fn add_header_secret(secrets: &Secrets, value: &HeaderValue) {
    if let Ok(value) = value.to_str() {
        secrets.add(value);
    }
}

fn www_authenticate(response: &reqwest::Response) -> Option<String> {
    response
        .headers()
        .get(reqwest::header::WWW_AUTHENTICATE)
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned)
}

/// How many messages may wait for the peer before stream readers hold back.
const INCOMING_CAPACITY: usize = 64;

type Incoming = Result<Bytes, TransportError>;

/// The sending side of a transport's incoming messages: stream readers hand messages (or the
/// connection's end) to the peer through it, and stop handing once the transport is closed.
#[derive(Clone)]
struct Postbox {
    sender: mpsc::Sender<Incoming>,
    closed: CancellationToken,
}

/// The receiving side, read by [`Transport::receive`](crate::Transport::receive).
struct Inbox {
    receiver: tokio::sync::Mutex<mpsc::Receiver<Incoming>>,
    closed: CancellationToken,
}

fn mailbox() -> (Postbox, Inbox) {
    let (sender, receiver) = mpsc::channel(INCOMING_CAPACITY);
    let closed = CancellationToken::new();
    (
        Postbox {
            sender,
            closed: closed.clone(),
        },
        Inbox {
            receiver: tokio::sync::Mutex::new(receiver),
            closed,
        },
    )
}

impl Postbox {
    async fn deliver(&self, message: Incoming) {
        tokio::select! {
            () = self.closed.cancelled() => {}
            _ = self.sender.send(message) => {}
        }
    }
}

impl Inbox {
    /// The next message; cancel safe, as the trait asks.
    async fn receive(&self) -> Incoming {
        let mut receiver = self.receiver.lock().await;
        tokio::select! {
            biased;
            () = self.closed.cancelled() => Err(TransportError::ClosedByClient),
            message = receiver.recv() => message.unwrap_or(Err(TransportError::ClosedByServer)),
        }
    }
}

/// Reads `message` events from an SSE body and hands each one's data to `on_message` until it
/// answers true (then true) or the stream ends or breaks (then false). Priming events (empty
/// data) and events of other types are skipped; ids and `retry:` stay in the decoder.
async fn read_messages<F, Fut>(
    response: &mut reqwest::Response,
    decoder: &mut SseDecoder,
    mut on_message: F,
) -> Result<bool, TransportError>
where
    F: FnMut(Bytes) -> Fut,
    Fut: Future<Output = bool>,
{
    loop {
        // Events already buffered first (the legacy stream's endpoint event may have come with
        // more behind it), then the next chunk.
        while let Some(event) = decoder.next_event()? {
            if event.data.is_empty() || event.event != "message" {
                continue;
            }
            if on_message(Bytes::from(event.data)).await {
                return Ok(true);
            }
        }
        match response.chunk().await {
            Ok(Some(chunk)) => decoder.push(&chunk),
            Ok(None) => return Ok(false),
            Err(error) => {
                tracing::debug!(error = %error.without_url(), "an event stream broke");
                return Ok(false);
            }
        }
    }
}

/// `scheme://host:port/path`, without query or fragment.
pub(crate) fn display_url(url: &Url) -> String {
    let mut shown = url.clone();
    shown.set_query(None);
    shown.set_fragment(None);
    let _ = shown.set_password(None);
    let _ = shown.set_username("");
    shown.to_string()
}

/// A transport error for a failed HTTP exchange, without the URL reqwest would put in it; a
/// [`ReachCheck`]'s refusal is its own error.
fn request_failed(action: String, error: reqwest::Error) -> TransportError {
    if let Some(refused) = reach::refusal_in(&error) {
        return TransportError::Refused { action, refused };
    }
    let error = error.without_url();
    // The error's own line is brief (what the OS said); the HTTP client's whole chain is for
    // `RUST_LOG=debug`.
    tracing::debug!(%action, error = %crate::transport::error_chain(&error), "an HTTP request failed");
    TransportError::Http {
        action,
        source: Box::new(error),
    }
}

/// The error for a response with a failing status, reading a short excerpt of its body.
async fn status_error(
    action: String,
    response: reqwest::Response,
    secrets: &Secrets,
) -> TransportError {
    if let Some(refused) = unauthorized(&action, &response, secrets) {
        return refused;
    }
    let status = response.status().as_u16();
    let body = read_excerpt(response, secrets).await;
    TransportError::HttpStatus {
        action,
        status,
        body,
    }
}

/// For a 401 or 403: the authorization error, with the server's `WWW-Authenticate` challenge
/// (scrubbed: it is the server's text).
fn unauthorized(
    action: &str,
    response: &reqwest::Response,
    secrets: &Secrets,
) -> Option<TransportError> {
    let status = response.status().as_u16();
    if status != 401 && status != 403 {
        return None;
    }
    Some(TransportError::Unauthorized {
        action: action.to_owned(),
        status,
        www_authenticate: www_authenticate(response)
            .map(|challenge| secrets.scrub(&challenge).into_owned()),
    })
}

/// The first characters of a body, on one line, without the secrets.
async fn read_excerpt(mut response: reqwest::Response, secrets: &Secrets) -> String {
    let mut bytes = Vec::new();
    let mut ended = false;
    while bytes.len() < BODY_EXCERPT_CHARS * 4 {
        match response.chunk().await {
            Ok(Some(chunk)) => bytes.extend_from_slice(&chunk),
            _ => {
                ended = true;
                break;
            }
        }
    }
    let text = String::from_utf8_lossy(&bytes);
    // A body read only in part may end inside a secret.
    excerpt(&secrets.scrub_piece(&text, false, !ended), secrets)
}

/// The first characters of a server's text, on one line, without the secrets (scrubbed before
/// it is cut, so a cut cannot leave part of a secret for the search to miss).
fn excerpt(text: &str, secrets: &Secrets) -> String {
    let text = secrets.scrub(text);
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match one_line.char_indices().nth(BODY_EXCERPT_CHARS) {
        Some((cut, _)) => format!("{}…", &one_line[..cut]),
        None => one_line,
    }
}

/// Reads a whole body, failing past `limit` bytes.
async fn read_body(
    response: &mut reqwest::Response,
    limit: usize,
    action: &str,
) -> Result<Bytes, TransportError> {
    read_limited(response, limit)
        .await
        .map_err(|error| match error {
            BodyError::Read(error) => {
                request_failed(format!("reading the answer to {action}"), error)
            }
            BodyError::TooLarge => TransportError::MessageTooLarge { limit },
        })
}

/// Why [`read_limited`] gave no body.
#[derive(Debug)]
pub(crate) enum BodyError {
    /// The connection failed while the body was read.
    Read(reqwest::Error),
    /// The body is longer than the limit; the rest was not read.
    TooLarge,
}

/// Reads a whole body chunk by chunk and stops as soon as it passes `limit` bytes, so a huge
/// or endless answer never fills memory. Each caller maps the failure to its own error.
pub(crate) async fn read_limited(
    response: &mut reqwest::Response,
    limit: usize,
) -> Result<Bytes, BodyError> {
    // Most answers arrive as one chunk: it is kept as it came, without a copy.
    let Some(first) = response.chunk().await.map_err(BodyError::Read)? else {
        return Ok(Bytes::new());
    };
    if first.len() > limit {
        return Err(BodyError::TooLarge);
    }
    let Some(second) = response.chunk().await.map_err(BodyError::Read)? else {
        return Ok(first);
    };
    let mut body = Vec::with_capacity(first.len() + second.len());
    body.extend_from_slice(&first);
    let mut next = Some(second);
    while let Some(chunk) = next {
        if body.len() + chunk.len() > limit {
            return Err(BodyError::TooLarge);
        }
        body.extend_from_slice(&chunk);
        next = response.chunk().await.map_err(BodyError::Read)?;
    }
    Ok(Bytes::from(body))
}

/// What a transport needs to know of a JSON-RPC message: its id and method.
#[derive(Deserialize)]
struct MessageHead<'a> {
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(default)]
    method: Option<String>,
}

/// An outgoing message, classified.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Outgoing {
    /// A request: its id (as JSON text) and method.
    Request { id: String, method: String },
    /// A notification.
    Notification { method: String },
    /// A response to the server, or anything else.
    Other,
}

impl Outgoing {
    fn of(message: &str) -> Self {
        if let Some(request) = Self::plain_request(message) {
            return request;
        }
        match serde_json::from_str::<MessageHead<'_>>(message) {
            Ok(MessageHead {
                id: Some(id),
                method: Some(method),
            }) => Self::Request {
                id: id.get().to_owned(),
                method,
            },
            Ok(MessageHead {
                id: None,
                method: Some(method),
            }) => Self::Notification { method },
            _ => Self::Other,
        }
    }

    /// A request that starts `{"jsonrpc":"2.0","id":<digits>,"method":"<name>"`, as the peer
    /// writes every request: its id and method read from those bytes, without a pass over its
    /// params (the stateless revision's `_meta` alone is a few hundred bytes). A method name with
    /// an escape or a control character, or any other start, is left to the parser.
    fn plain_request(message: &str) -> Option<Self> {
        let (_, id, rest) = crate::jsonrpc::plain_head(message.as_bytes())?;
        let rest = rest.strip_prefix(br#""method":""#)?;
        let end = rest
            .iter()
            .position(|&byte| byte == b'"' || byte == b'\\' || byte < 0x20)?;
        let after = &rest[end..];
        if !(after.starts_with(b"\",") || after.starts_with(b"\"}")) {
            return None;
        }
        let method = std::str::from_utf8(&rest[..end]).ok()?;
        Some(Self::Request {
            id: id.to_owned(),
            method: method.to_owned(),
        })
    }

    fn method(&self) -> &str {
        match self {
            Self::Request { method, .. } | Self::Notification { method } => method,
            Self::Other => "response",
        }
    }
}

/// True when `message` is the response to request `id`: an id and no method, as the peer's
/// reader takes responses (`"jsonrpc": "2.0"`, a result or an error); anything less is passed
/// on and the answer still awaited.
fn answers(message: &[u8], id: &str) -> bool {
    matches!(
        serde_json::from_slice::<IncomingEnvelope<'_>>(message),
        Ok(envelope) if envelope.method.is_none()
            && envelope.id.is_some_and(|got| got.get() == id)
            && envelope.not_a_response().is_none()
    )
}

/// A JSON-RPC error response for request `id` (JSON text) that failed at the HTTP level.
fn error_response(id: &str, error: &TransportError) -> Bytes {
    let message = serde_json::Value::String(error.to_string());
    Bytes::from(format!(
        r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":{HTTP_ERROR_CODE},"message":{message}}}}}"#
    ))
}

/// Whether a content type is JSON or an event stream (parameters such as `charset` ignored).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BodyKind {
    Json,
    EventStream,
    Other,
}

impl BodyKind {
    fn of(response: &reqwest::Response) -> Self {
        let content_type = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .unwrap_or("");
        let essence = content_type
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        match essence.as_str() {
            "application/json" => Self::Json,
            "text/event-stream" => Self::EventStream,
            _ => Self::Other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outgoing_messages_are_told_apart_by_id_and_method() {
        assert_eq!(
            Outgoing::of(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{}}"#),
            Outgoing::Request {
                id: "7".to_owned(),
                method: "tools/call".to_owned()
            }
        );
        assert_eq!(
            Outgoing::of(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            Outgoing::Notification {
                method: "notifications/initialized".to_owned()
            }
        );
        assert_eq!(
            Outgoing::of(r#"{"jsonrpc":"2.0","id":"s-1","result":{}}"#),
            Outgoing::Other
        );
    }

    #[test]
    fn a_request_read_from_its_start_is_the_request_the_parser_reads() {
        let request = |id: &str, method: &str| Outgoing::Request {
            id: id.to_owned(),
            method: method.to_owned(),
        };
        // Read from the start: the params are never looked at (these do not even parse).
        let cut = r#"{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"na"#;
        assert_eq!(Outgoing::of(cut), request("12", "tools/call"));
        let bare = r#"{"jsonrpc":"2.0","id":0,"method":"ping"}"#;
        assert_eq!(Outgoing::of(bare), request("0", "ping"));
        // Left to the parser, with the same answer where the message is whole.
        let escaped = r#"{"jsonrpc":"2.0","id":3,"method":"tools\/call","params":{}}"#;
        assert_eq!(Outgoing::of(escaped), request("3", "tools/call"));
        let spaced = r#"{"jsonrpc":"2.0","id":3, "method":"ping"}"#;
        assert_eq!(Outgoing::of(spaced), request("3", "ping"));
        let string_id = r#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#;
        assert_eq!(Outgoing::of(string_id), request(r#""a""#, "ping"));
        let leading_zero = r#"{"jsonrpc":"2.0","id":03,"method":"ping"}"#;
        assert_eq!(Outgoing::of(leading_zero), Outgoing::Other);
        let response = r#"{"jsonrpc":"2.0","id":3,"result":{"method":"x"}}"#;
        assert_eq!(Outgoing::of(response), Outgoing::Other);
    }

    #[test]
    fn a_response_answers_only_its_own_request() {
        assert!(answers(br#"{"jsonrpc":"2.0","id":3,"result":{}}"#, "3"));
        assert!(!answers(br#"{"jsonrpc":"2.0","id":4,"result":{}}"#, "3"));
        assert!(!answers(
            br#"{"jsonrpc":"2.0","id":3,"method":"sampling/createMessage"}"#,
            "3"
        ));
        assert!(!answers(
            br#"{"jsonrpc":"2.0","method":"notifications/progress"}"#,
            "3"
        ));
        // What the peer's reader would skip is not the answer either.
        assert!(!answers(br#"{"id":3,"result":{}}"#, "3"));
        assert!(!answers(br#"{"jsonrpc":"2.0","id":3}"#, "3"));
        assert!(answers(
            br#"{"jsonrpc":"2.0","id":3,"error":{"code":1,"message":"m"}}"#,
            "3"
        ));
    }

    #[test]
    fn an_http_failure_becomes_an_error_response_for_its_request() {
        let error = TransportError::HttpStatus {
            action: "POST tools/call to http://127.0.0.1:1/mcp".to_owned(),
            status: 500,
            body: "boom \"quoted\"".to_owned(),
        };
        let response: serde_json::Value =
            serde_json::from_slice(&error_response("12", &error)).unwrap();
        assert_eq!(response["id"], 12);
        assert_eq!(response["error"]["code"], -32000);
        assert_eq!(
            response["error"]["message"],
            "POST tools/call to http://127.0.0.1:1/mcp: HTTP 500: boom \"quoted\""
        );
    }

    #[test]
    fn urls_are_shown_without_query_or_credentials() {
        let url = Url::parse("https://user:pw@example.com:8443/mcp?exaApiKey=secret#x").unwrap();
        assert_eq!(display_url(&url), "https://example.com:8443/mcp");
    }

    #[test]
    fn excerpts_are_one_short_line() {
        let none = Secrets::new();
        assert_eq!(excerpt("a\n  b\tc ", &none), "a b c");
        let long = "x".repeat(500);
        assert_eq!(
            excerpt(&long, &none).chars().count(),
            BODY_EXCERPT_CHARS + 1
        );
    }

    #[test]
    fn a_secret_the_excerpt_would_cut_is_redacted_whole() {
        let secrets = Secrets::new();
        secrets.add("0123456789abcdefghij");
        let body = format!(
            "{}0123456789abcdefghij tail",
            "x".repeat(BODY_EXCERPT_CHARS - 5)
        );
        let shown = excerpt(&body, &secrets);
        assert!(!shown.contains("01234"), "{shown}");
    }

    #[test]
    fn params_collect_header_values_query_values_and_userinfo_as_secrets() {
        let params = HttpServerParams::new(
            "https://user1234:pass1234@example.com/mcp?key=a%2Fquery-secret&x=1",
        )
        .unwrap()
        .header("Authorization", "Bearer header-token-1")
        .unwrap();
        let secrets = params.transport_secrets();
        assert_eq!(
            secrets.scrub("user1234 pass1234 a%2Fquery-secret a/query-secret header-token-1 x=1"),
            "<redacted> <redacted> <redacted> <redacted> <redacted> x=1"
        );
        // What reqwest sends for the userinfo.
        assert_eq!(
            secrets.scrub("Authorization: Basic dXNlcjEyMzQ6cGFzczEyMzQ="),
            "Authorization: Basic <redacted>"
        );
    }

    #[test]
    fn params_refuse_other_schemes_and_bad_headers_without_showing_values() {
        assert!(matches!(
            HttpServerParams::new("ftp://example.com"),
            Err(ParamsError::Scheme { .. })
        ));
        let error = HttpServerParams::new("http://127.0.0.1/mcp")
            .unwrap()
            .header("X-Key", "line\nbreak-secret")
            .unwrap_err();
        assert!(!error.to_string().contains("secret"), "{error}");
        let params = HttpServerParams::new("http://127.0.0.1/mcp?key=secret")
            .unwrap()
            .header("Authorization", "Bearer secret")
            .unwrap();
        let shown = format!("{params:?}");
        assert!(!shown.contains("secret"), "{shown}");
        assert!(shown.contains("authorization"), "{shown}");
    }
}
