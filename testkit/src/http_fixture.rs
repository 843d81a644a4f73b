//! A scriptable MCP server over HTTP, in the test's own process, for the faults real peers do
//! not produce on demand.
//!
//! [`HttpFixture::start`] listens on 127.0.0.1 at a port the system picks and serves, one
//! thread per connection, either Streamable HTTP (endpoint `/mcp`) or, with
//! [`HttpFixtureOptions::legacy_sse`], the legacy HTTP+SSE transport (stream `/sse`, messages
//! to the endpoint it names). Answers with a length keep the connection alive for the next
//! request; an event stream has no length and closes its connection when it ends — which is
//! how a dropped stream is made.
//!
//! What can be scripted ([`HttpFixtureOptions`]): JSON instead of SSE answers; the first session
//! expiring after some requests (404, or 400 naming the session); an answer stream that drops
//! after some events, to be resumed with `Last-Event-ID`; the `retry:` it announces; a GET
//! stream (405 without one); a bearer token it insists on (401 with `WWW-Authenticate`);
//! a slow answer to one method; delays between events; answer streams sent chunked on a kept
//! connection and ended a while after their answer; and, for legacy SSE, the endpoint it names
//! (another origin, say).
//!
//! Tools: `echo {message}` answers the message; `progress {steps}` sends that many progress
//! notifications (to a request with a progress token) before answering `done`; `huge {bytes}`
//! answers a text of that many `x`; `announce` sends `notifications/tools/list_changed` on the
//! GET stream (or the legacy stream) and answers `announced`.
//!
//! With [`HttpFixtureOptions::oauth`] the fixture is also its own OAuth authorization server
//! (metadata, registration, an authorization endpoint that redirects at once, a token endpoint
//! that checks PKCE) and the MCP endpoint takes only the access tokens it issued; a test
//! expires them ([`HttpFixture::expire_access_tokens`]), revokes refresh tokens
//! ([`HttpFixture::revoke_refresh_tokens`]) or issues a pair to store beforehand
//! ([`HttpFixture::issue_tokens`]); with [`HttpFixtureOptions::client_secrets`] registered
//! clients get a secret too. Refresh tokens rotate: each is good for one refresh, which
//! issues a new pair ([`HttpFixture::live_refresh_tokens`]), and with
//! [`HttpFixtureOptions::revoke_family_on_reuse`] presenting a used one again revokes the
//! whole login. A login can be made to go wrong ([`HttpFixtureOptions::login_fault`]), and
//! the metadata can name another authorization endpoint
//! ([`HttpFixtureOptions::authorization_endpoint`]). Everything secret it hands out ends in random hex
//! ([`HttpFixture::handed_out_secrets`]).
//!
//! With [`HttpFixtureOptions::stateless`] it speaks only the stateless revision 2026-07-28: it
//! answers `server/discover`, takes every request without a session as long as its `_meta`
//! names that revision, refuses `initialize` (and a request naming another version) with HTTP
//! 400 and an `UnsupportedProtocolVersion` error listing `2026-07-28`, gives its `tools/list`
//! `cacheScope: "public"` and the `ttlMs` asked for (its `server/discover` 0, or any JSON value
//! asked for, readable or not), and has no GET stream (405).
//!
//! Every request is recorded ([`HttpFixture::requests`]) with the headers a test checks, and
//! the connections clients opened are counted ([`HttpFixture::connections`]).

mod oauth;

pub use oauth::{LoginFault, browser_get};

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::Duration;

use serde_json::{Value, json};

/// What the fixture does; build with the setters, start with [`HttpFixture::start`].
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct HttpFixtureOptions {
    json_answers: bool,
    expire_first_session_after: Option<usize>,
    expire_with_bad_request: bool,
    drop_answer_after_events: Option<usize>,
    retry_ms: Option<u64>,
    get_stream: bool,
    bearer_token: Option<String>,
    event_delay: Duration,
    stream_end_delay: Option<Duration>,
    legacy_sse: bool,
    legacy_endpoint: Option<String>,
    answer_delay: Option<(String, Duration)>,
    held: Option<String>,
    oauth: bool,
    token_lifetime_secs: u64,
    client_secrets: bool,
    authorization_endpoint: Option<String>,
    login_fault: Option<oauth::LoginFault>,
    revoke_family_on_reuse: bool,
    stateless: bool,
    list_ttl: Option<Value>,
    discover_ttl: Option<Value>,
}

impl HttpFixtureOptions {
    /// Answers requests with JSON bodies instead of SSE streams.
    #[must_use]
    pub fn json_answers(mut self) -> Self {
        self.json_answers = true;
        self
    }

    /// The first session ends after `requests` POSTs in it: later ones get 404.
    #[must_use]
    pub fn expire_first_session_after(mut self, requests: usize) -> Self {
        self.expire_first_session_after = Some(requests);
        self
    }

    /// An expired session gets 400 with a body naming the session instead of 404.
    #[must_use]
    pub fn expire_with_bad_request(mut self) -> Self {
        self.expire_with_bad_request = true;
        self
    }

    /// A `tools/call` answer stream closes after this many events (the priming event counts),
    /// before the answer; `GET` with `Last-Event-ID` sends the rest.
    #[must_use]
    pub fn drop_answer_after_events(mut self, events: usize) -> Self {
        self.drop_answer_after_events = Some(events);
        self
    }

    /// Announces `retry: ms` on every answer stream.
    #[must_use]
    pub fn retry_ms(mut self, ms: u64) -> Self {
        self.retry_ms = Some(ms);
        self
    }

    /// Offers the GET stream for server-initiated messages (without it, GET gets 405).
    #[must_use]
    pub fn get_stream(mut self) -> Self {
        self.get_stream = true;
        self
    }

    /// Requires `Authorization: Bearer <token>`; anything else gets 401 with a
    /// `WWW-Authenticate` challenge.
    #[must_use]
    pub fn bearer_token(mut self, token: impl Into<String>) -> Self {
        self.bearer_token = Some(token.into());
        self
    }

    /// Waits this long before each event of an answer stream.
    #[must_use]
    pub fn event_delay(mut self, delay: Duration) -> Self {
        self.event_delay = delay;
        self
    }

    /// Sends answer streams chunked on a connection kept alive, ending each one `delay` after
    /// its last event, as a server behind a proxy or across a network may: the client has the
    /// answer before the stream's end.
    #[must_use]
    pub fn stream_end_delay(mut self, delay: Duration) -> Self {
        self.stream_end_delay = Some(delay);
        self
    }

    /// Waits this long before answering the JSON-RPC `method` (e.g. `initialize`).
    #[must_use]
    pub fn delay(mut self, method: impl Into<String>, delay: Duration) -> Self {
        self.answer_delay = Some((method.into(), delay));
        self
    }

    /// Holds every answer to the JSON-RPC `method` until [`HttpFixture::release`] (or the
    /// fixture stops): a test that needs a server still connecting waits for nothing but that.
    #[must_use]
    pub fn hold(mut self, method: impl Into<String>) -> Self {
        self.held = Some(method.into());
        self
    }

    /// Acts as its own OAuth authorization server and takes only the access tokens it issued
    /// (401 with a `WWW-Authenticate` naming its resource metadata otherwise). Tokens live an
    /// hour unless [`token_lifetime`](Self::token_lifetime) says otherwise.
    #[must_use]
    pub fn oauth(mut self) -> Self {
        self.oauth = true;
        if self.token_lifetime_secs == 0 {
            self.token_lifetime_secs = 3600;
        }
        self
    }

    /// OAuth mode: dynamic registration gives each client a secret (`client_secret_post`),
    /// which the token endpoint then requires.
    #[must_use]
    pub fn client_secrets(mut self) -> Self {
        self.client_secrets = true;
        self
    }

    /// OAuth mode: the authorization server's metadata names `url` as its authorization
    /// endpoint (a `file:` URL, say) instead of its own `/authorize`.
    #[must_use]
    pub fn authorization_endpoint(mut self, url: impl Into<String>) -> Self {
        self.authorization_endpoint = Some(url.into());
        self
    }

    /// OAuth mode: the login goes wrong as `fault` says (see [`LoginFault`]).
    #[must_use]
    pub fn login_fault(mut self, fault: LoginFault) -> Self {
        self.login_fault = Some(fault);
        self
    }

    /// OAuth mode: a refresh token presented a second time revokes every token descended from
    /// the same login (its access and refresh tokens), as OAuth 2.1 servers do when they see
    /// a rotated refresh token reused. Without it a reused one is only refused.
    #[must_use]
    pub fn revoke_family_on_reuse(mut self) -> Self {
        self.revoke_family_on_reuse = true;
        self
    }

    /// The `expires_in` of the access tokens issued.
    #[must_use]
    pub fn token_lifetime(mut self, seconds: u64) -> Self {
        self.token_lifetime_secs = seconds;
        self
    }

    /// Speaks only the stateless revision 2026-07-28 (see the module documentation); its
    /// `tools/list` carries `ttlMs: list_ttl_ms` (none without one).
    #[must_use]
    pub fn stateless(mut self, list_ttl_ms: Option<u64>) -> Self {
        self.stateless = true;
        self.list_ttl = list_ttl_ms.map(Value::from);
        self
    }

    /// Stateless mode: the `ttlMs` of `tools/list` is `ttl`, any JSON value (a negative or
    /// huge number, a string), as a careless or hostile server may send.
    #[must_use]
    pub fn list_ttl(mut self, ttl: Value) -> Self {
        self.list_ttl = Some(ttl);
        self
    }

    /// Stateless mode: the `ttlMs` of `server/discover` is `ttl`, any JSON value (default 0).
    #[must_use]
    pub fn discover_ttl(mut self, ttl: Value) -> Self {
        self.discover_ttl = Some(ttl);
        self
    }

    /// Serves the legacy HTTP+SSE transport instead of Streamable HTTP.
    #[must_use]
    pub fn legacy_sse(mut self) -> Self {
        self.legacy_sse = true;
        self
    }

    /// The endpoint the legacy stream names (default `/messages?session=1`).
    #[must_use]
    pub fn legacy_endpoint(mut self, endpoint: impl Into<String>) -> Self {
        self.legacy_endpoint = Some(endpoint.into());
        self
    }
}

/// One HTTP request the fixture received.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RecordedRequest {
    /// `GET`, `POST` or `DELETE`.
    pub http_method: String,
    /// The path and query.
    pub target: String,
    /// The JSON-RPC method of a POSTed request or notification.
    pub rpc_method: Option<String>,
    /// `Mcp-Session-Id`.
    pub session_id: Option<String>,
    /// `MCP-Protocol-Version`.
    pub protocol_version: Option<String>,
    /// `Last-Event-ID`.
    pub last_event_id: Option<String>,
    /// `Authorization`.
    pub authorization: Option<String>,
    /// The `grant_type` of a token request (OAuth mode).
    pub grant_type: Option<String>,
    /// The status the fixture answered (0 while a stream is still open).
    pub status: u16,
}

/// The running fixture; dropping it stops it.
pub struct HttpFixture {
    address: SocketAddr,
    state: Arc<State>,
    acceptor: Option<JoinHandle<()>>,
}

struct State {
    options: HttpFixtureOptions,
    stopping: AtomicBool,
    requests: Mutex<Vec<RecordedRequest>>,
    sessions: AtomicUsize,
    /// POSTs answered per session id.
    session_requests: Mutex<HashMap<String, usize>>,
    expired: Mutex<Vec<String>>,
    /// Answer streams cut short: stream id → the events not sent yet.
    unfinished: Mutex<HashMap<String, Vec<(String, Value)>>>,
    streams: AtomicUsize,
    /// The open GET stream (Streamable HTTP) or legacy stream, for server-initiated messages.
    server_stream: Mutex<Option<TcpStream>>,
    /// The OAuth mode's tokens.
    tokens: Mutex<oauth::Tokens>,
    /// Every connection accepted, shut down when the fixture stops (as a dying server's are).
    open: Mutex<Vec<TcpStream>>,
    /// Connections accepted so far.
    connections: AtomicUsize,
    /// Whether the held method's answers may go ([`HttpFixture::release`]).
    released: Mutex<bool>,
    release: Condvar,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl HttpFixture {
    /// Starts serving on 127.0.0.1 at a free port.
    ///
    /// # Panics
    ///
    /// If no loopback port can be bound.
    pub fn start(options: HttpFixtureOptions) -> Self {
        Self::start_on(options, 0)
    }

    /// Starts serving on 127.0.0.1 at `port` (0: one the system picks): a server restarted
    /// where a stopped one was.
    ///
    /// # Panics
    ///
    /// If the port cannot be bound.
    pub fn start_on(options: HttpFixtureOptions, port: u16) -> Self {
        let listener = TcpListener::bind(("127.0.0.1", port))
            .unwrap_or_else(|error| panic!("cannot listen on 127.0.0.1:{port}: {error}"));
        let address = listener
            .local_addr()
            .unwrap_or_else(|error| panic!("no local address: {error}"));
        let state = Arc::new(State {
            options,
            stopping: AtomicBool::new(false),
            requests: Mutex::new(Vec::new()),
            sessions: AtomicUsize::new(0),
            session_requests: Mutex::new(HashMap::new()),
            expired: Mutex::new(Vec::new()),
            unfinished: Mutex::new(HashMap::new()),
            streams: AtomicUsize::new(0),
            server_stream: Mutex::new(None),
            tokens: Mutex::new(oauth::Tokens::default()),
            open: Mutex::new(Vec::new()),
            connections: AtomicUsize::new(0),
            released: Mutex::new(false),
            release: Condvar::new(),
        });
        let accepting = Arc::clone(&state);
        let acceptor = thread::spawn(move || {
            for connection in listener.incoming() {
                if accepting.stopping.load(Ordering::SeqCst) {
                    return;
                }
                let Ok(connection) = connection else { continue };
                accepting.connections.fetch_add(1, Ordering::SeqCst);
                let _ = connection.set_nodelay(true);
                if let Ok(clone) = connection.try_clone() {
                    lock(&accepting.open).push(clone);
                }
                let state = Arc::clone(&accepting);
                thread::spawn(move || {
                    let _ = state.serve(&connection);
                });
            }
        });
        Self {
            address,
            state,
            acceptor: Some(acceptor),
        }
    }

    /// Lets the answers [`HttpFixtureOptions::hold`] held go, and every later one.
    pub fn release(&self) {
        *lock(&self.state.released) = true;
        self.state.release.notify_all();
    }

    /// Holds the later answers to [`HttpFixtureOptions::hold`]'s method again, until the next
    /// [`release`](Self::release): a server that answered one start is still connecting in the
    /// next one.
    pub fn hold_again(&self) {
        *lock(&self.state.released) = false;
    }

    /// The MCP endpoint (`/mcp`), or the legacy stream (`/sse`).
    pub fn url(&self) -> String {
        let path = if self.state.options.legacy_sse {
            "/sse"
        } else {
            "/mcp"
        };
        format!("http://{}{path}", self.address)
    }

    /// How many connections clients have opened to it.
    pub fn connections(&self) -> usize {
        self.state.connections.load(Ordering::SeqCst)
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.address.port()
    }

    /// `http://127.0.0.1:<port>`.
    pub fn origin(&self) -> String {
        format!("http://{}", self.address)
    }

    /// Every request so far, in the order they arrived.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        lock(&self.state.requests).clone()
    }

    /// How many sessions were initialized.
    pub fn sessions(&self) -> usize {
        self.state.sessions.load(Ordering::SeqCst)
    }

    /// OAuth mode: a valid access and refresh token pair, as a login would have given.
    pub fn issue_tokens(&self) -> (String, String) {
        lock(&self.state.tokens).issue()
    }

    /// OAuth mode: every access token, refresh token, authorization code and client secret
    /// handed out so far, in order; each ends in random hex, so a test can search output for
    /// them.
    pub fn handed_out_secrets(&self) -> Vec<String> {
        lock(&self.state.tokens).handed_out()
    }

    /// OAuth mode: the refresh tokens it would still accept, oldest first.
    pub fn live_refresh_tokens(&self) -> Vec<String> {
        lock(&self.state.tokens).live_refresh()
    }

    /// OAuth mode: every access token issued so far stops being accepted.
    pub fn expire_access_tokens(&self) {
        lock(&self.state.tokens).expire_access();
    }

    /// OAuth mode: every refresh token issued so far stops being accepted.
    pub fn revoke_refresh_tokens(&self) {
        lock(&self.state.tokens).revoke_refresh();
    }

    /// How many token requests of `grant_type` (`authorization_code`, `refresh_token`) came.
    pub fn token_requests(&self, grant_type: &str) -> usize {
        self.requests()
            .iter()
            .filter(|request| request.grant_type.as_deref() == Some(grant_type))
            .count()
    }
}

impl Drop for HttpFixture {
    fn drop(&mut self) {
        self.state.stopping.store(true, Ordering::SeqCst);
        self.release();
        if let Some(stream) = lock(&self.state.server_stream).take() {
            let _ = stream.shutdown(Shutdown::Both);
        }
        for connection in lock(&self.state.open).drain(..) {
            let _ = connection.shutdown(Shutdown::Both);
        }
        // Wakes the acceptor, which then sees `stopping`.
        let _ = TcpStream::connect(self.address);
        if let Some(acceptor) = self.acceptor.take() {
            let _ = acceptor.join();
        }
    }
}

/// A parsed request.
struct Request {
    method: String,
    target: String,
    headers: HashMap<String, String>,
    body: Vec<u8>,
}

impl Request {
    fn read(reader: &mut BufReader<TcpStream>) -> std::io::Result<Option<Self>> {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 {
            return Ok(None);
        }
        let mut parts = line.split_whitespace();
        let method = parts.next().unwrap_or_default().to_owned();
        let target = parts.next().unwrap_or_default().to_owned();
        let mut headers = HashMap::new();
        loop {
            line.clear();
            if reader.read_line(&mut line)? == 0 {
                break;
            }
            let trimmed = line.trim_end();
            if trimmed.is_empty() {
                break;
            }
            if let Some((name, value)) = trimmed.split_once(':') {
                headers.insert(name.trim().to_ascii_lowercase(), value.trim().to_owned());
            }
        }
        let length = headers
            .get("content-length")
            .and_then(|value| value.parse::<usize>().ok())
            .unwrap_or(0);
        let mut body = vec![0; length];
        reader.read_exact(&mut body)?;
        Ok(Some(Self {
            method,
            target,
            headers,
            body,
        }))
    }

    fn header(&self, name: &str) -> Option<String> {
        self.headers.get(name).cloned()
    }
}

/// One client connection. Answers with a length keep it open for the next request (as HTTP/1.1
/// clients expect); an event stream has no length, ends when the connection closes, and so
/// closes it.
struct Conn {
    stream: TcpStream,
    keep_alive: std::cell::Cell<bool>,
    /// An answer stream is being sent chunked ([`HttpFixtureOptions::stream_end_delay`]).
    chunked: std::cell::Cell<bool>,
}

impl std::ops::Deref for Conn {
    type Target = TcpStream;

    fn deref(&self) -> &TcpStream {
        &self.stream
    }
}

/// Writes a whole response with a body.
fn respond(conn: &Conn, status: u16, headers: &[(&str, String)], body: &str) {
    let mut stream = &conn.stream;
    let mut head = format!("HTTP/1.1 {status} {}\r\n", reason(status));
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    let connection = if conn.keep_alive.get() {
        "keep-alive"
    } else {
        "close"
    };
    head.push_str(&format!(
        "Content-Length: {}\r\nConnection: {connection}\r\n\r\n",
        body.len()
    ));
    // One write: a head and a body written apart wait on the peer's delayed ACK (Nagle).
    head.push_str(body);
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.flush();
}

/// Answers 401 with a `WWW-Authenticate` challenge.
fn refuse(conn: &Conn, challenge: String) -> u16 {
    respond(
        conn,
        401,
        &[("WWW-Authenticate", challenge)],
        "unauthorized",
    );
    401
}

/// Starts an event stream (no length: it ends when the connection closes).
fn start_stream(conn: &Conn, headers: &[(&str, String)]) -> std::io::Result<()> {
    conn.keep_alive.set(false);
    write_stream_head(conn, "Connection: close", headers)
}

/// Starts an answer stream: chunked and kept alive with
/// [`HttpFixtureOptions::stream_end_delay`], else as [`start_stream`] does.
fn start_answer_stream(
    conn: &Conn,
    headers: &[(&str, String)],
    options: &HttpFixtureOptions,
) -> std::io::Result<()> {
    if options.stream_end_delay.is_none() {
        return start_stream(conn, headers);
    }
    conn.chunked.set(true);
    write_stream_head(conn, "Transfer-Encoding: chunked", headers)
}

/// The head of a `200` event stream, its body framed by `framing` (a header line).
fn write_stream_head(
    conn: &Conn,
    framing: &str,
    headers: &[(&str, String)],
) -> std::io::Result<()> {
    let mut head = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n{framing}\r\n"
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    let mut stream = &conn.stream;
    stream.write_all(head.as_bytes())?;
    stream.flush()
}

/// Writes `bytes` of an answer stream, as a chunk when it is chunked.
fn write_answer(conn: &Conn, bytes: &[u8]) -> std::io::Result<()> {
    let mut stream = &conn.stream;
    if conn.chunked.get() {
        let mut chunk = format!("{:x}\r\n", bytes.len()).into_bytes();
        chunk.extend_from_slice(bytes);
        chunk.extend_from_slice(b"\r\n");
        stream.write_all(&chunk)
    } else {
        stream.write_all(bytes)
    }
}

/// Writes one event of an answer stream.
fn write_answer_event(conn: &Conn, id: Option<&str>, data: &str) -> std::io::Result<()> {
    write_answer(conn, event_text(id, data).as_bytes())
}

fn event_text(id: Option<&str>, data: &str) -> String {
    let mut event = String::new();
    if let Some(id) = id {
        event.push_str(&format!("id: {id}\n"));
    }
    event.push_str(&format!("data: {data}\n\n"));
    event
}

fn write_event(mut stream: &TcpStream, id: Option<&str>, data: &str) -> std::io::Result<()> {
    stream.write_all(event_text(id, data).as_bytes())?;
    stream.flush()
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        201 => "Created",
        202 => "Accepted",
        302 => "Found",
        400 => "Bad Request",
        401 => "Unauthorized",
        404 => "Not Found",
        405 => "Method Not Allowed",
        _ => "Status",
    }
}

const SESSION_ID: &str = "Mcp-Session-Id";
/// The revision [`HttpFixtureOptions::stateless`] speaks.
const STATELESS_VERSION: &str = "2026-07-28";
/// The `_meta` key naming a stateless request's protocol version.
const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";

impl State {
    fn serve(self: &Arc<Self>, stream: &TcpStream) -> std::io::Result<()> {
        let conn = Conn {
            stream: stream.try_clone()?,
            keep_alive: std::cell::Cell::new(true),
            chunked: std::cell::Cell::new(false),
        };
        let mut reader = BufReader::new(stream.try_clone()?);
        while let Some(request) = Request::read(&mut reader)? {
            if self.stopping.load(Ordering::SeqCst) {
                break;
            }
            self.answer_request(&conn, &request);
            if conn.chunked.replace(false) {
                thread::sleep(self.options.stream_end_delay.unwrap_or_default());
                (&conn.stream).write_all(b"0\r\n\r\n")?;
            }
            if !conn.keep_alive.get() || self.stopping.load(Ordering::SeqCst) {
                break;
            }
        }
        let _ = stream.shutdown(Shutdown::Write);
        Ok(())
    }

    fn answer_request(self: &Arc<Self>, conn: &Conn, request: &Request) {
        let message: Option<Value> = serde_json::from_slice(&request.body).ok();
        let rpc_method = message
            .as_ref()
            .and_then(|message| message.get("method"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        // Recorded on arrival (a GET stream stays open), its status filled in when answered.
        let index = {
            let mut requests = lock(&self.requests);
            requests.push(RecordedRequest {
                http_method: request.method.clone(),
                target: request.target.clone(),
                rpc_method,
                session_id: request.header("mcp-session-id"),
                protocol_version: request.header("mcp-protocol-version"),
                last_event_id: request.header("last-event-id"),
                authorization: request.header("authorization"),
                grant_type: url::form_urlencoded::parse(&request.body)
                    .find(|(name, _)| name == "grant_type")
                    .map(|(_, value)| value.into_owned())
                    .filter(|_| request.target == "/token"),
                status: 0,
            });
            requests.len() - 1
        };
        let status = self.route(conn, request, message.as_ref());
        lock(&self.requests)[index].status = status;
    }

    /// Answers one request; its status.
    fn route(self: &Arc<Self>, stream: &Conn, request: &Request, message: Option<&Value>) -> u16 {
        let origin = format!(
            "http://{}",
            stream
                .local_addr()
                .map(|a| a.to_string())
                .unwrap_or_default()
        );
        let authorization = request.header("authorization");
        if self.options.oauth {
            if let Some(status) = self.route_oauth(stream, request, &origin) {
                return status;
            }
            if !lock(&self.tokens).accepts(authorization.as_deref()) {
                return refuse(stream, self.oauth_challenge(&origin));
            }
        }
        if let Some(token) = &self.options.bearer_token
            && authorization.as_deref() != Some(&format!("Bearer {token}"))
        {
            return refuse(
                stream,
                format!(
                    "Bearer realm=\"fixture\", resource_metadata=\"{origin}/.well-known/oauth-protected-resource\""
                ),
            );
        }
        if self.options.legacy_sse {
            return self.route_legacy(stream, request, message);
        }
        match request.method.as_str() {
            "POST" => self.post(stream, request, message),
            "GET" => self.get(stream, request),
            "DELETE" => {
                respond(stream, 200, &[], "");
                200
            }
            _ => {
                respond(stream, 405, &[], "");
                405
            }
        }
    }

    fn post(self: &Arc<Self>, stream: &Conn, request: &Request, message: Option<&Value>) -> u16 {
        let Some(message) = message else {
            respond(stream, 400, &[], "Bad Request: not JSON");
            return 400;
        };
        let method = message.get("method").and_then(Value::as_str);
        if let Some((delayed, delay)) = &self.options.answer_delay
            && method == Some(delayed.as_str())
        {
            thread::sleep(*delay);
        }
        if self
            .options
            .held
            .as_deref()
            .is_some_and(|held| method == Some(held))
        {
            let mut released = lock(&self.released);
            while !*released {
                released = self
                    .release
                    .wait(released)
                    .unwrap_or_else(PoisonError::into_inner);
            }
        }
        if self.options.stateless {
            let version = &message["params"]["_meta"][META_PROTOCOL_VERSION];
            if method == Some("initialize") || version != STATELESS_VERSION {
                // A modern server names what it speaks in any error to a request it cannot take.
                let refusal = json!({"jsonrpc": "2.0", "id": message.get("id"), "error": {
                    "code": -32022, "message": "Unsupported protocol version",
                    "data": {"supported": [STATELESS_VERSION], "requested": version}}});
                let json = [("Content-Type", "application/json".to_owned())];
                respond(stream, 400, &json, &refusal.to_string());
                return 400;
            }
            return self.answer_post(stream, message, method);
        }
        let session = request.header("mcp-session-id");
        if method == Some("initialize") {
            let number = self.sessions.fetch_add(1, Ordering::SeqCst) + 1;
            let session = format!("session-{number}");
            let answer = self.answer(message);
            let headers = [(SESSION_ID, session.clone())];
            lock(&self.session_requests).insert(session, 0);
            if self.options.json_answers {
                let headers = [
                    (SESSION_ID, headers[0].1.clone()),
                    ("Content-Type", "application/json".to_owned()),
                ];
                respond(stream, 200, &headers, &answer.to_string());
            } else {
                let _ = start_answer_stream(stream, &headers, &self.options);
                let _ = write_answer_event(stream, None, &answer.to_string());
            }
            return 200;
        }
        let Some(session) = session.filter(|id| lock(&self.session_requests).contains_key(id))
        else {
            respond(stream, 400, &[], "Bad Request: no valid session id");
            return 400;
        };
        if self.expire(&session) {
            if self.options.expire_with_bad_request {
                respond(
                    stream,
                    400,
                    &[],
                    "Bad Request: No valid session ID provided",
                );
                return 400;
            }
            respond(stream, 404, &[], "session not found");
            return 404;
        }
        self.answer_post(stream, message, method)
    }

    /// Answers a POST taken (in its session, or without one when stateless): 202 for a
    /// notification, else the answer as JSON or as an event stream.
    fn answer_post(self: &Arc<Self>, stream: &Conn, message: &Value, method: Option<&str>) -> u16 {
        if message.get("id").is_none() || method.is_none() {
            respond(stream, 202, &[], "");
            return 202;
        }
        let events = self.events_for(message);
        if self.options.json_answers {
            let answer = events.last().map(Value::to_string).unwrap_or_default();
            respond(
                stream,
                200,
                &[("Content-Type", "application/json".to_owned())],
                &answer,
            );
            return 200;
        }
        let _ = self.stream_events(stream, events, method == Some("tools/call"));
        200
    }

    /// Counts a POST in `session`; true once the session has expired.
    fn expire(&self, session: &str) -> bool {
        if lock(&self.expired).iter().any(|expired| expired == session) {
            return true;
        }
        let Some(limit) = self.options.expire_first_session_after else {
            return false;
        };
        let mut counts = lock(&self.session_requests);
        let count = counts.entry(session.to_owned()).or_insert(0);
        *count += 1;
        if session == "session-1" && *count > limit {
            lock(&self.expired).push(session.to_owned());
            return true;
        }
        false
    }

    /// The messages that answer `message`: notifications first, the response last.
    fn events_for(self: &Arc<Self>, message: &Value) -> Vec<Value> {
        let mut events = Vec::new();
        let params = message.get("params").cloned().unwrap_or(Value::Null);
        if message.get("method").and_then(Value::as_str) == Some("tools/call")
            && params["name"] == json!("progress")
        {
            let steps = params["arguments"]["steps"].as_u64().unwrap_or(1);
            if let Some(token) = params
                .get("_meta")
                .and_then(|meta| meta.get("progressToken"))
            {
                for step in 1..=steps {
                    events.push(json!({
                        "jsonrpc": "2.0",
                        "method": "notifications/progress",
                        "params": {"progressToken": token, "progress": step, "total": steps}
                    }));
                }
            }
        }
        events.push(self.answer(message));
        events
    }

    /// Sends `messages` as an answer stream: a priming event, then each message with an id;
    /// cut short when scripted, keeping the rest for a resumption.
    fn stream_events(
        &self,
        stream: &Conn,
        messages: Vec<Value>,
        may_drop: bool,
    ) -> std::io::Result<()> {
        let number = self.streams.fetch_add(1, Ordering::SeqCst) + 1;
        let stream_id = format!("stream{number}");
        start_answer_stream(stream, &[], &self.options)?;
        let mut prelude = String::new();
        if let Some(retry) = self.options.retry_ms {
            prelude.push_str(&format!("retry: {retry}\n"));
        }
        prelude.push_str(&format!("id: {stream_id}-0\ndata:\n\n"));
        write_answer(stream, prelude.as_bytes())?;
        let numbered: Vec<(String, Value)> = messages
            .into_iter()
            .enumerate()
            .map(|(index, message)| (format!("{stream_id}-{}", index + 1), message))
            .collect();
        // The priming event was the first.
        for (sent, (position, (id, message))) in (1..).zip(numbered.iter().enumerate()) {
            if may_drop
                && self
                    .options
                    .drop_answer_after_events
                    .is_some_and(|limit| sent >= limit)
            {
                lock(&self.unfinished).insert(stream_id, numbered[position..].to_vec());
                // Cut: the connection closes without the stream's end.
                stream.chunked.set(false);
                stream.keep_alive.set(false);
                return Ok(());
            }
            thread::sleep(self.options.event_delay);
            write_answer_event(stream, Some(id), &message.to_string())?;
        }
        Ok(())
    }

    fn get(self: &Arc<Self>, stream: &Conn, request: &Request) -> u16 {
        if let Some(last) = request.header("last-event-id") {
            let stream_id = last.split('-').next().unwrap_or_default().to_owned();
            let Some(rest) = lock(&self.unfinished).remove(&stream_id) else {
                respond(stream, 404, &[], "no such stream");
                return 404;
            };
            let _ = start_stream(stream, &[]);
            for (id, message) in rest {
                thread::sleep(self.options.event_delay);
                let _ = write_event(stream, Some(&id), &message.to_string());
            }
            return 200;
        }
        if !self.options.get_stream {
            respond(stream, 405, &[("Allow", "POST, DELETE".to_owned())], "");
            return 405;
        }
        if start_stream(stream, &[]).is_err() {
            return 200;
        }
        if let Ok(copy) = stream.try_clone() {
            *lock(&self.server_stream) = Some(copy);
        }
        // Held open until the fixture stops or the client goes away.
        let mut probe = [0u8; 1];
        let _ = (&stream.stream).read(&mut probe);
        200
    }

    /// Answers a JSON-RPC request (or `announce`'s notification on the server stream).
    fn answer(&self, message: &Value) -> Value {
        let id = message.get("id").cloned().unwrap_or(Value::Null);
        let params = message.get("params").cloned().unwrap_or(Value::Null);
        let result = match message.get("method").and_then(Value::as_str) {
            Some("initialize") => json!({
                "protocolVersion": params["protocolVersion"].as_str().unwrap_or("2025-11-25"),
                "capabilities": {"tools": {"listChanged": true}},
                "serverInfo": {"name": "http-fixture", "version": "1.0.0"}
            }),
            Some("server/discover") if self.options.stateless => json!({
                "resultType": "complete",
                "supportedVersions": [STATELESS_VERSION],
                "capabilities": {"tools": {}},
                "_meta": {"io.modelcontextprotocol/serverInfo":
                    {"name": "http-fixture", "version": "1.0.0"}},
                "ttlMs": self.options.discover_ttl.clone().unwrap_or_else(|| json!(0)),
                "cacheScope": "public",
            }),
            Some("tools/list") => {
                let mut list = json!({"tools": [
                    tool("echo", &json!({"message": {"type": "string"}})),
                    tool("progress", &json!({"steps": {"type": "integer"}})),
                    tool("huge", &json!({"bytes": {"type": "integer"}})),
                    tool("announce", &json!({})),
                ]});
                if self.options.stateless {
                    list["resultType"] = json!("complete");
                    list["cacheScope"] = json!("public");
                    if let Some(ttl) = &self.options.list_ttl {
                        list["ttlMs"] = ttl.clone();
                    }
                }
                list
            }
            Some("tools/call") => {
                let arguments = &params["arguments"];
                let text = match params["name"].as_str() {
                    Some("echo") => arguments["message"].as_str().unwrap_or_default().to_owned(),
                    Some("progress") => "done".to_owned(),
                    Some("huge") => "x".repeat(
                        usize::try_from(arguments["bytes"].as_u64().unwrap_or(0)).unwrap_or(0),
                    ),
                    Some("announce") => {
                        self.send_on_server_stream(&json!({
                            "jsonrpc": "2.0",
                            "method": "notifications/tools/list_changed"
                        }));
                        "announced".to_owned()
                    }
                    other => {
                        return json!({"jsonrpc": "2.0", "id": id, "error": {
                            "code": -32602, "message": format!("unknown tool {other:?}")}});
                    }
                };
                json!({"content": [{"type": "text", "text": text}]})
            }
            Some("ping") => json!({}),
            other => {
                return json!({"jsonrpc": "2.0", "id": id, "error": {
                    "code": -32601, "message": format!("method not found: {other:?}")}});
            }
        };
        json!({"jsonrpc": "2.0", "id": id, "result": result})
    }

    fn send_on_server_stream(&self, message: &Value) {
        if let Some(stream) = lock(&self.server_stream).as_ref() {
            let _ = write_event(stream, None, &message.to_string());
        }
    }

    fn route_legacy(
        self: &Arc<Self>,
        stream: &Conn,
        request: &Request,
        message: Option<&Value>,
    ) -> u16 {
        match (request.method.as_str(), request.target.split('?').next()) {
            ("GET", Some("/sse")) => {
                if start_stream(stream, &[]).is_err() {
                    return 200;
                }
                let endpoint = self
                    .options
                    .legacy_endpoint
                    .clone()
                    .unwrap_or_else(|| "/messages?session=1".to_owned());
                // The stream is where answers go: keep it before naming the endpoint, or a
                // client quick to post could have its answer dropped.
                if let Ok(copy) = stream.try_clone() {
                    *lock(&self.server_stream) = Some(copy);
                }
                let mut writer = &stream.stream;
                let _ =
                    writer.write_all(format!("event: endpoint\ndata: {endpoint}\n\n").as_bytes());
                let _ = writer.flush();
                let mut probe = [0u8; 1];
                let _ = (&stream.stream).read(&mut probe);
                200
            }
            ("POST", Some("/messages")) => {
                let Some(message) = message else {
                    respond(stream, 400, &[], "not JSON");
                    return 400;
                };
                respond(stream, 202, &[], "Accepted");
                if message.get("id").is_some() && message.get("method").is_some() {
                    for event in self.events_for(message) {
                        thread::sleep(self.options.event_delay);
                        if let Some(server_stream) = lock(&self.server_stream).as_ref() {
                            let mut writer = server_stream;
                            let _ = writer
                                .write_all(format!("event: message\ndata: {event}\n\n").as_bytes());
                            let _ = writer.flush();
                        }
                    }
                }
                202
            }
            _ => {
                respond(stream, 404, &[], "not found");
                404
            }
        }
    }
}

fn tool(name: &str, properties: &Value) -> Value {
    json!({"name": name, "inputSchema": {"type": "object", "properties": properties}})
}
