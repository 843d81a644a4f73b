//! Streamable HTTP for the reference server: a hand-written HTTP/1.1 server, one blocking
//! thread per connection.
//!
//! Why not hyper: the server is the one every client shares, so it should add as little as
//! possible to each round trip. A blocking thread per kept-alive connection answers a lone
//! request with one `read` and one `write`, with no event loop, no waker and no task in
//! between; the clients open at most a few dozen connections at once, so a thread each is
//! cheap, and a thread whose connection ends waits for the next one (a client that opens a
//! connection per request does not pay for a thread start each time). The HTTP it has to
//! understand is small: the request line, `Content-Length`, `Mcp-Session-Id` and
//! `Connection: close`.
//!
//! What it serves, at `/mcp` only:
//!
//! - `POST` with one JSON-RPC message. `initialize` opens a session and its answer carries a
//!   new `Mcp-Session-Id`; every other message must carry a session id this server issued
//!   (missing: 400, unknown or ended: 404). A request is answered with `200` and an
//!   `application/json` body, or with `--sse` a chunked `text/event-stream` body holding one
//!   `message` event and then ending; a notification or a response gets `202` and no body. A
//!   chunked request body gets `411` (no client measured here sends one).
//! - `GET` gets `405`: this server never starts messages of its own, so it has no stream.
//! - `DELETE` ends the session: `204`.
//!
//! With `--stateless` (a dual-era server) a `POST` whose `MCP-Protocol-Version` header is not a
//! handshake-era version is a request of the stateless revision: no session is asked for,
//! minted or echoed (an `Mcp-Session-Id` header is ignored), and the headers are checked
//! against the body as the revision says (400 with `HeaderMismatch`, -32020, when
//! `MCP-Protocol-Version` differs from the body's `_meta` version, when `Mcp-Method` is missing
//! or differs from the method, or when `Mcp-Name` is missing or differs from `params.name` of a
//! `tools/call`; `Mcp-Name` is compared as sent, a Base64-encoded one is not decoded). A version
//! other than 2026-07-28 gets 400 with `UnsupportedProtocolVersion` (-32022), an unknown method
//! 404 with -32601. A request without that header is served as in the default mode, except
//! that one whose body carries a stateless `_meta` gets 400 with `HeaderMismatch` (its
//! `MCP-Protocol-Version` is missing).
//!
//! Connections are kept alive (HTTP/1.1) unless the client says `Connection: close`. Answers
//! are written when no further request is already waiting in the connection's input buffer,
//! as on stdio. Session ids are a process-wide counter mixed with the start time, not secret
//! tokens: the server listens on 127.0.0.1 only and lives as long as one benchmark run.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError, mpsc};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::{Answered, Eras, Request, codes};

/// Largest request head or body accepted.
const MAX_REQUEST: usize = 1024 * 1024;

/// Serves Streamable HTTP until stdin closes.
pub(crate) fn serve(sse: bool, eras: Eras) -> io::Result<()> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?;
    {
        let mut stdout = io::stdout().lock();
        writeln!(stdout, "listening {}", listener.local_addr()?)?;
        stdout.flush()?;
    }
    let sessions = Arc::new(Sessions::new());
    std::thread::Builder::new()
        .name("accept".to_owned())
        .spawn(move || accept(&listener, &sessions, sse, eras))?;
    // The client that spawned us ends us by closing our stdin; anything written to it is
    // ignored.
    io::copy(&mut io::stdin().lock(), &mut io::sink())?;
    Ok(())
}

/// Hands each accepted connection to an idle connection thread, or to a new one when none is
/// idle. A thread whose connection ends waits for the next, so a client that opens a
/// connection per request (rmcp's default reqwest client keeps none alive) costs the server a
/// channel hand-off, not a thread start.
fn accept(listener: &TcpListener, sessions: &Arc<Sessions>, sse: bool, eras: Eras) {
    let (handoff, waiting) = mpsc::channel::<TcpStream>();
    let waiting = Arc::new(Mutex::new(waiting));
    // Threads that have finished a connection and wait (or are about to wait) on `waiting`.
    // Taken here, before a hand-off, so every stream sent has a thread to receive it.
    let idle = Arc::new(AtomicUsize::new(0));
    for stream in listener.incoming() {
        let stream = match stream {
            Ok(stream) => stream,
            Err(error) => {
                eprintln!("reference-server: accept: {error}");
                continue;
            }
        };
        let reserved = idle
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| n.checked_sub(1))
            .is_ok();
        if reserved {
            if handoff.send(stream).is_err() {
                eprintln!("reference-server: no connection thread is left");
            }
            continue;
        }
        let (sessions, waiting, idle) = (
            Arc::clone(sessions),
            Arc::clone(&waiting),
            Arc::clone(&idle),
        );
        let spawned = std::thread::Builder::new()
            .name("connection".to_owned())
            .spawn(move || {
                let mut stream = stream;
                loop {
                    serve_connection(stream, &sessions, sse, eras);
                    idle.fetch_add(1, Ordering::AcqRel);
                    let next = waiting
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .recv();
                    match next {
                        Ok(next) => stream = next,
                        Err(_) => return,
                    }
                }
            });
        if let Err(error) = spawned {
            eprintln!("reference-server: no thread for a connection: {error}");
        }
    }
}

fn serve_connection(stream: TcpStream, sessions: &Arc<Sessions>, sse: bool, eras: Eras) {
    let served = Connection::new(stream, Arc::clone(sessions), sse, eras).and_then(Connection::run);
    if let Err(error) = served
        && !matches!(
            error.kind(),
            io::ErrorKind::BrokenPipe | io::ErrorKind::ConnectionReset
        )
    {
        eprintln!("reference-server: connection: {error}");
    }
}

/// The sessions issued and not yet ended.
struct Sessions {
    live: Mutex<Vec<u64>>,
    /// The next id to issue.
    next: AtomicU64,
}

impl Sessions {
    fn new() -> Self {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |since| since.as_nanos());
        Self {
            live: Mutex::new(Vec::new()),
            // Enough to tell the sessions of two runs apart.
            next: AtomicU64::new((nanos as u64).rotate_left(32) ^ u64::from(std::process::id())),
        }
    }

    fn open(&self) -> u64 {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let mut live = self.live.lock().unwrap_or_else(PoisonError::into_inner);
        live.push(id);
        id
    }

    fn is_live(&self, id: u64) -> bool {
        let live = self.live.lock().unwrap_or_else(PoisonError::into_inner);
        live.contains(&id)
    }

    fn end(&self, id: u64) -> bool {
        let mut live = self.live.lock().unwrap_or_else(PoisonError::into_inner);
        let before = live.len();
        live.retain(|known| *known != id);
        live.len() != before
    }
}

/// What the head of a request says.
#[derive(Default)]
struct Head {
    method: Method,
    mcp_path: bool,
    content_length: Option<usize>,
    chunked: bool,
    /// `Some(None)`: a session header that is not one of ours.
    session: Option<Option<u64>>,
    close: bool,
    /// Read by a dual-era server only: which of the revision's headers came (their values
    /// are in the connection's buffers).
    version: bool,
    mcp_method: bool,
    mcp_name: bool,
}

#[derive(Default, PartialEq, Eq)]
enum Method {
    Post,
    Get,
    Delete,
    #[default]
    Other,
}

struct Connection {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
    sessions: Arc<Sessions>,
    sse: bool,
    eras: Eras,
    line: Vec<u8>,
    /// The values of `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` (dual-era only).
    version: Vec<u8>,
    mcp_method: Vec<u8>,
    mcp_name: Vec<u8>,
    body: Vec<u8>,
    /// The JSON-RPC answer being built.
    answer: Vec<u8>,
    /// Answers not yet written.
    out: Vec<u8>,
}

impl Connection {
    fn new(stream: TcpStream, sessions: Arc<Sessions>, sse: bool, eras: Eras) -> io::Result<Self> {
        stream.set_nodelay(true)?;
        Ok(Self {
            reader: BufReader::with_capacity(64 * 1024, stream.try_clone()?),
            writer: stream,
            sessions,
            sse,
            eras,
            line: Vec::with_capacity(256),
            version: Vec::with_capacity(16),
            mcp_method: Vec::with_capacity(32),
            mcp_name: Vec::with_capacity(64),
            body: Vec::with_capacity(1024),
            answer: Vec::with_capacity(1024),
            out: Vec::with_capacity(4096),
        })
    }

    fn run(mut self) -> io::Result<()> {
        loop {
            let Some(head) = self.read_head()? else {
                return Ok(());
            };
            let keep_alive = self.respond(&head)?;
            if !keep_alive || self.reader.buffer().is_empty() {
                self.writer.write_all(&self.out)?;
                self.out.clear();
            }
            if !keep_alive {
                return Ok(());
            }
        }
    }

    /// Reads a request head; `None` when the connection ends before one starts.
    fn read_head(&mut self) -> io::Result<Option<Head>> {
        let mut head = Head::default();
        let mut size = 0;
        let mut first = true;
        loop {
            self.line.clear();
            let read = self.reader.read_until(b'\n', &mut self.line)?;
            if read == 0 {
                return if first && size == 0 {
                    Ok(None)
                } else {
                    Err(io::ErrorKind::UnexpectedEof.into())
                };
            }
            size += read;
            if size > MAX_REQUEST {
                return Err(io::Error::other("request head too large"));
            }
            let line = self.line.trim_ascii_end();
            if first {
                // Blank lines before a request line are tolerated (RFC 9112 §2.2).
                if line.is_empty() {
                    continue;
                }
                first = false;
                let mut parts = line.split(|b| *b == b' ');
                head.method = match parts.next() {
                    Some(b"POST") => Method::Post,
                    Some(b"GET") => Method::Get,
                    Some(b"DELETE") => Method::Delete,
                    _ => Method::Other,
                };
                let target = parts.next().unwrap_or_default();
                head.mcp_path = target == b"/mcp" || target.starts_with(b"/mcp?");
                head.close = parts.next() == Some(b"HTTP/1.0");
                continue;
            }
            if line.is_empty() {
                return Ok(Some(head));
            }
            let Some(colon) = line.iter().position(|b| *b == b':') else {
                continue;
            };
            let (name, value) = (&line[..colon], line[colon + 1..].trim_ascii());
            if name.eq_ignore_ascii_case(b"content-length") {
                head.content_length = std::str::from_utf8(value)
                    .ok()
                    .and_then(|text| text.parse().ok());
            } else if name.eq_ignore_ascii_case(b"mcp-session-id") {
                head.session = Some(
                    std::str::from_utf8(value)
                        .ok()
                        .and_then(|text| u64::from_str_radix(text, 16).ok()),
                );
            } else if name.eq_ignore_ascii_case(b"transfer-encoding") {
                head.chunked = !value.eq_ignore_ascii_case(b"identity");
            } else if name.eq_ignore_ascii_case(b"connection") {
                head.close = value.eq_ignore_ascii_case(b"close");
            } else if self.eras == Eras::Dual {
                let kept = if name.eq_ignore_ascii_case(b"mcp-protocol-version") {
                    head.version = true;
                    &mut self.version
                } else if name.eq_ignore_ascii_case(b"mcp-method") {
                    head.mcp_method = true;
                    &mut self.mcp_method
                } else if name.eq_ignore_ascii_case(b"mcp-name") {
                    head.mcp_name = true;
                    &mut self.mcp_name
                } else {
                    continue;
                };
                kept.clear();
                kept.extend_from_slice(value);
            }
        }
    }

    /// Reads the request's body and queues its answer; false when the connection is to close.
    fn respond(&mut self, head: &Head) -> io::Result<bool> {
        if head.chunked {
            self.status(b"411 Length Required", true);
            return Ok(false);
        }
        let length = head.content_length.unwrap_or(0);
        if length > MAX_REQUEST {
            self.status(b"413 Content Too Large", true);
            return Ok(false);
        }
        self.body.resize(length, 0);
        self.reader.read_exact(&mut self.body)?;
        let close = head.close;
        if !head.mcp_path {
            self.status(b"404 Not Found", close);
            return Ok(!close);
        }
        match head.method {
            Method::Post => self.post(head)?,
            Method::Get => self.status(b"405 Method Not Allowed\r\nAllow: POST, DELETE", close),
            Method::Delete => match head.session {
                Some(Some(id)) if self.sessions.end(id) => self.status(b"204 No Content", close),
                Some(_) => self.status(b"404 Not Found", close),
                None => self.status(b"400 Bad Request", close),
            },
            Method::Other => self.status(b"405 Method Not Allowed\r\nAllow: POST, DELETE", close),
        }
        Ok(!close)
    }

    fn post(&mut self, head: &Head) -> io::Result<()> {
        if head.version && !crate::is_handshake_version(&self.version) {
            return self.post_stateless(head);
        }
        let close = head.close;
        let request = Request::scan(&self.body, self.eras);
        if let Some(request) = &request
            && request.version.is_some()
        {
            // A dual-era server: a stateless body with no stateless header.
            self.answer.clear();
            crate::error_answer(
                request.id,
                codes::HEADER_MISMATCH,
                b"the MCP-Protocol-Version header is missing",
                None,
                &mut self.answer,
            )?;
            self.queue(b"400 Bad Request", None, close, false)?;
            return Ok(());
        }
        let initialize = request
            .as_ref()
            .is_some_and(|request| request.method == b"initialize");
        let session = if initialize {
            Some(self.sessions.open())
        } else {
            match head.session {
                Some(Some(id)) if self.sessions.is_live(id) => None,
                Some(_) => {
                    self.status(b"404 Not Found", close);
                    return Ok(());
                }
                None => {
                    self.status(b"400 Bad Request", close);
                    return Ok(());
                }
            }
        };
        let Some(request) = request else {
            self.status(b"202 Accepted", close);
            return Ok(());
        };
        self.answer.clear();
        crate::answer(&request, &self.body, &mut self.answer)?;
        self.queue(b"200 OK", session, close, self.sse)
    }

    /// A request of the stateless revision (a dual-era server): no session; the headers are
    /// checked against the body.
    fn post_stateless(&mut self, head: &Head) -> io::Result<()> {
        let close = head.close;
        let Some(request) = Request::scan(&self.body, Eras::Dual) else {
            // A notification or a response.
            self.status(b"202 Accepted", close);
            return Ok(());
        };
        self.answer.clear();
        let refused = if !crate::is_stateless_version(&self.version) {
            Some((
                codes::UNSUPPORTED_PROTOCOL_VERSION,
                &b"unsupported protocol version"[..],
            ))
        } else if request
            .version
            .is_none_or(|body| body.get(1..body.len() - 1) != Some(&self.version[..]))
        {
            Some((
                codes::HEADER_MISMATCH,
                &b"MCP-Protocol-Version does not match the body's protocol version"[..],
            ))
        } else if !head.mcp_method || self.mcp_method != request.method {
            Some((
                codes::HEADER_MISMATCH,
                &b"Mcp-Method is missing or does not match the method"[..],
            ))
        } else if request.method == b"tools/call" && !self.names_the_tool(head) {
            Some((
                codes::HEADER_MISMATCH,
                &b"Mcp-Name is missing or does not match params.name"[..],
            ))
        } else {
            None
        };
        let answered = match refused {
            Some((code, message)) => {
                let supported =
                    (code == codes::UNSUPPORTED_PROTOCOL_VERSION).then_some(crate::SUPPORTED);
                crate::error_answer(request.id, code, message, supported, &mut self.answer)?
            }
            None => crate::answer(&request, &self.body, &mut self.answer)?,
        };
        match answered {
            Answered::Result => self.queue(b"200 OK", None, close, self.sse),
            Answered::Error(codes::METHOD_NOT_FOUND) => {
                self.queue(b"404 Not Found", None, close, false)
            }
            Answered::Error(codes::HEADER_MISMATCH | codes::UNSUPPORTED_PROTOCOL_VERSION) => {
                self.queue(b"400 Bad Request", None, close, false)
            }
            // A tool error is an answer like any other.
            Answered::Error(_) => self.queue(b"200 OK", None, close, self.sse),
        }
    }

    /// True when `Mcp-Name` came and the body's `params.name` is that name.
    fn names_the_tool(&self, head: &Head) -> bool {
        if !head.mcp_name {
            return false;
        }
        const KEY: &[u8] = b"\"name\":\"";
        // `"name":"VALUE"` somewhere in the body: `_meta` holds other names, but not one
        // quoted the same way with another tool's name on a correct request.
        memchr::memmem::find_iter(&self.body, KEY).any(|at| {
            self.body[at + KEY.len()..]
                .strip_prefix(self.mcp_name.as_slice())
                .is_some_and(|rest| rest.first() == Some(&b'"'))
        })
    }

    /// Queues `self.answer` with `status`: a JSON body, or with `sse` an event stream holding
    /// it; `session`: the session id to give.
    fn queue(
        &mut self,
        status: &[u8],
        session: Option<u64>,
        close: bool,
        sse: bool,
    ) -> io::Result<()> {
        let out = &mut self.out;
        out.extend_from_slice(b"HTTP/1.1 ");
        out.extend_from_slice(status);
        out.extend_from_slice(b"\r\n");
        if let Some(id) = session {
            write!(out, "Mcp-Session-Id: {id:016x}\r\n")?;
        }
        if close {
            out.extend_from_slice(b"Connection: close\r\n");
        }
        if sse {
            const EVENT: &[u8] = b"event: message\ndata: ";
            let chunk = EVENT.len() + self.answer.len() + 2;
            write!(
                out,
                "Content-Type: text/event-stream\r\nCache-Control: no-cache\r\n\
                 Transfer-Encoding: chunked\r\n\r\n{chunk:x}\r\n"
            )?;
            out.extend_from_slice(EVENT);
            out.extend_from_slice(&self.answer);
            out.extend_from_slice(b"\n\n\r\n0\r\n\r\n");
        } else {
            write!(
                out,
                "Content-Type: application/json\r\nContent-Length: {}\r\n\r\n",
                self.answer.len()
            )?;
            out.extend_from_slice(&self.answer);
        }
        Ok(())
    }

    /// Queues an answer with no body.
    fn status(&mut self, status: &[u8], close: bool) {
        self.out.extend_from_slice(b"HTTP/1.1 ");
        self.out.extend_from_slice(status);
        if close {
            self.out.extend_from_slice(b"\r\nConnection: close");
        }
        self.out.extend_from_slice(b"\r\nContent-Length: 0\r\n\r\n");
    }
}

#[cfg(test)]
mod tests {
    use std::io::{BufRead, BufReader, Read, Write};
    use std::net::{Ipv4Addr, TcpListener, TcpStream};
    use std::sync::Arc;

    use super::{Sessions, accept};
    use crate::Eras;

    /// A server on a port of its own (its accept thread ends with the test process).
    fn start(sse: bool) -> String {
        start_speaking(sse, Eras::Handshake)
    }

    fn start_speaking(sse: bool, eras: Eras) -> String {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
        let address = listener.local_addr().unwrap().to_string();
        let sessions = Arc::new(Sessions::new());
        std::thread::spawn(move || accept(&listener, &sessions, sse, eras));
        address
    }

    struct Answer {
        status: u16,
        headers: Vec<(String, String)>,
        body: String,
    }

    impl Answer {
        fn header(&self, name: &str) -> Option<&str> {
            self.headers
                .iter()
                .find(|(key, _)| key.eq_ignore_ascii_case(name))
                .map(|(_, value)| value.as_str())
        }
    }

    /// Sends one request on the kept-alive connection and reads its answer (a body to its
    /// `Content-Length`, or a chunked body decoded).
    fn exchange(
        connection: &mut BufReader<TcpStream>,
        method: &str,
        session: Option<&str>,
        body: &str,
    ) -> Answer {
        let session = session.map_or(String::new(), |id| format!("Mcp-Session-Id: {id}\r\n"));
        exchange_with(connection, method, &session, body)
    }

    /// [`exchange`] with `headers` (each line ending in CRLF) in the request's head.
    fn exchange_with(
        connection: &mut BufReader<TcpStream>,
        method: &str,
        headers: &str,
        body: &str,
    ) -> Answer {
        let request = format!(
            "{method} /mcp HTTP/1.1\r\nHost: x\r\n{headers}Content-Length: {}\r\n\r\n{body}",
            body.len()
        );
        connection.get_mut().write_all(request.as_bytes()).unwrap();
        let mut line = String::new();
        connection.read_line(&mut line).unwrap();
        let status = line[9..12].parse().unwrap();
        let mut headers = Vec::new();
        loop {
            line.clear();
            connection.read_line(&mut line).unwrap();
            let Some((name, value)) = line.trim_end().split_once(':') else {
                break;
            };
            headers.push((name.to_owned(), value.trim().to_owned()));
        }
        let mut answer = Answer {
            status,
            headers,
            body: String::new(),
        };
        if answer.header("transfer-encoding") == Some("chunked") {
            loop {
                line.clear();
                connection.read_line(&mut line).unwrap();
                let size = usize::from_str_radix(line.trim_end(), 16).unwrap();
                let mut chunk = vec![0; size + 2];
                connection.read_exact(&mut chunk).unwrap();
                if size == 0 {
                    break;
                }
                answer
                    .body
                    .push_str(std::str::from_utf8(&chunk[..size]).unwrap());
            }
        } else {
            let length = answer.header("content-length").unwrap().parse().unwrap();
            let mut body = vec![0; length];
            connection.read_exact(&mut body).unwrap();
            answer.body = String::from_utf8(body).unwrap();
        }
        answer
    }

    const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}"#;
    const ECHO: &str = r#"{"jsonrpc":"2.0","id":"e1","method":"tools/call","params":{"name":"echo","arguments":{"message":"hi \"there\""}}}"#;

    #[test]
    fn a_session_from_initialize_to_delete_on_one_connection() {
        let address = start(false);
        let mut connection = BufReader::new(TcpStream::connect(address).unwrap());

        let initialized = exchange(&mut connection, "POST", None, INITIALIZE);
        assert_eq!(initialized.status, 200);
        assert_eq!(initialized.header("content-type"), Some("application/json"));
        assert!(
            initialized
                .body
                .starts_with(r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18""#),
            "{}",
            initialized.body
        );
        let session = initialized.header("mcp-session-id").unwrap().to_owned();

        let notified = exchange(
            &mut connection,
            "POST",
            Some(&session),
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        );
        assert_eq!((notified.status, notified.body.as_str()), (202, ""));

        let echoed = exchange(&mut connection, "POST", Some(&session), ECHO);
        assert_eq!(echoed.status, 200);
        assert_eq!(
            echoed.body,
            r#"{"jsonrpc":"2.0","id":"e1","result":{"content":[{"type":"text","text":"hi \"there\""}],"isError":false}}"#
        );

        assert_eq!(
            exchange(&mut connection, "GET", Some(&session), "").status,
            405
        );
        assert_eq!(exchange(&mut connection, "POST", None, ECHO).status, 400);
        assert_eq!(
            exchange(&mut connection, "POST", Some("12ab"), ECHO).status,
            404
        );
        assert_eq!(
            exchange(&mut connection, "DELETE", Some(&session), "").status,
            204
        );
        assert_eq!(
            exchange(&mut connection, "POST", Some(&session), ECHO).status,
            404
        );
    }

    #[test]
    fn sse_answers_hold_one_message_event() {
        let address = start(true);
        let mut connection = BufReader::new(TcpStream::connect(address).unwrap());
        let initialized = exchange(&mut connection, "POST", None, INITIALIZE);
        let session = initialized.header("mcp-session-id").unwrap().to_owned();
        assert_eq!(
            initialized.header("content-type"),
            Some("text/event-stream")
        );

        let echoed = exchange(&mut connection, "POST", Some(&session), ECHO);
        assert_eq!(echoed.status, 200);
        assert_eq!(
            echoed.body,
            "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"e1\",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"hi \\\"there\\\"\"}],\"isError\":false}}\n\n"
        );
        // The connection is still usable after the stream ended.
        let notified = exchange(
            &mut connection,
            "POST",
            Some(&session),
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        );
        assert_eq!(notified.status, 202);
    }

    const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"bench","version":"0"},"io.modelcontextprotocol/clientCapabilities":{}}"#;

    /// The headers of a 2026-07-28 request.
    fn stateless(method: &str, name: Option<&str>) -> String {
        let name = name.map_or(String::new(), |name| format!("Mcp-Name: {name}\r\n"));
        format!("MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: {method}\r\n{name}")
    }

    fn stateless_echo() -> String {
        format!(
            r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"echo","arguments":{{"message":"hi"}},{META}}}}}"#
        )
    }

    #[test]
    fn a_dual_era_server_serves_stateless_requests_without_a_session() {
        let address = start_speaking(false, Eras::Dual);
        let mut connection = BufReader::new(TcpStream::connect(address).unwrap());

        let discover =
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{{{META}}}}}"#);
        let discovered = exchange_with(
            &mut connection,
            "POST",
            &stateless("server/discover", None),
            &discover,
        );
        assert_eq!(discovered.status, 200, "{}", discovered.body);
        assert_eq!(discovered.header("mcp-session-id"), None);
        assert!(
            discovered.body.starts_with(
                r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":["2026-07-28","#
            ),
            "{}",
            discovered.body
        );

        let list =
            format!(r#"{{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{{{META}}}}}"#);
        let listed = exchange_with(
            &mut connection,
            "POST",
            &stateless("tools/list", None),
            &list,
        );
        assert_eq!(listed.status, 200);
        assert!(
            listed
                .body
                .ends_with(r#"],"ttlMs":0,"cacheScope":"private"}}"#),
            "{}",
            listed.body
        );

        // A session id on a stateless request is ignored, not checked.
        let headers = format!(
            "{}Mcp-Session-Id: 12ab\r\n",
            stateless("tools/call", Some("echo"))
        );
        let echoed = exchange_with(&mut connection, "POST", &headers, &stateless_echo());
        assert_eq!(echoed.status, 200);
        assert_eq!(echoed.header("mcp-session-id"), None);
        assert_eq!(
            echoed.body,
            r#"{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","content":[{"type":"text","text":"hi"}],"isError":false}}"#
        );

        let pinged = exchange_with(
            &mut connection,
            "POST",
            &stateless("ping", None),
            &format!(r#"{{"jsonrpc":"2.0","id":3,"method":"ping","params":{{{META}}}}}"#),
        );
        assert_eq!(pinged.status, 404);
        assert!(pinged.body.contains(r#""code":-32601"#), "{}", pinged.body);
    }

    #[test]
    fn a_dual_era_server_checks_the_headers_against_the_body() {
        let address = start_speaking(true, Eras::Dual);
        let mut connection = BufReader::new(TcpStream::connect(address).unwrap());
        let mismatch = |answer: Answer| {
            assert_eq!(answer.status, 400, "{}", answer.body);
            assert_eq!(answer.header("content-type"), Some("application/json"));
            assert!(answer.body.contains(r#""code":-32020"#), "{}", answer.body);
        };
        let echo = stateless_echo();
        // No Mcp-Name, another name, another method, no Mcp-Method.
        mismatch(exchange_with(
            &mut connection,
            "POST",
            &stateless("tools/call", None),
            &echo,
        ));
        mismatch(exchange_with(
            &mut connection,
            "POST",
            &stateless("tools/call", Some("other")),
            &echo,
        ));
        mismatch(exchange_with(
            &mut connection,
            "POST",
            &stateless("tools/list", Some("echo")),
            &echo,
        ));
        mismatch(exchange_with(
            &mut connection,
            "POST",
            "MCP-Protocol-Version: 2026-07-28\r\nMcp-Name: echo\r\n",
            &echo,
        ));
        // A stateless body without the version header.
        mismatch(exchange_with(&mut connection, "POST", "", &echo));
        // The body's version is not the header's.
        let older = echo.replace(
            r#"protocolVersion":"2026-07-28""#,
            r#"protocolVersion":"2027-01-01""#,
        );
        mismatch(exchange_with(
            &mut connection,
            "POST",
            &stateless("tools/call", Some("echo")),
            &older,
        ));

        // A version this server does not speak: its list in the answer.
        let unsupported = exchange_with(
            &mut connection,
            "POST",
            "MCP-Protocol-Version: 2027-01-01\r\nMcp-Method: tools/call\r\nMcp-Name: echo\r\n",
            &older,
        );
        assert_eq!(unsupported.status, 400);
        assert!(
            unsupported.body.contains(
                r#""code":-32022,"message":"unsupported protocol version","data":{"supported":["2026-07-28","#
            ),
            "{}",
            unsupported.body
        );

        // And the right headers: an SSE answer, as for the handshake era.
        let echoed = exchange_with(
            &mut connection,
            "POST",
            &stateless("tools/call", Some("echo")),
            &echo,
        );
        assert_eq!(echoed.status, 200);
        assert_eq!(echoed.header("content-type"), Some("text/event-stream"));
        assert!(echoed.body.contains(r#""resultType":"complete""#));
    }

    #[test]
    fn a_dual_era_server_keeps_serving_the_handshake_era() {
        let address = start_speaking(false, Eras::Dual);
        let mut connection = BufReader::new(TcpStream::connect(address).unwrap());
        let initialized = exchange(&mut connection, "POST", None, INITIALIZE);
        assert_eq!(initialized.status, 200);
        let session = initialized.header("mcp-session-id").unwrap().to_owned();
        // The header a handshake-era client sends after initialize selects the handshake era.
        let headers = format!("Mcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-06-18\r\n");
        let echoed = exchange_with(&mut connection, "POST", &headers, ECHO);
        assert_eq!(echoed.status, 200);
        assert_eq!(
            echoed.body,
            r#"{"jsonrpc":"2.0","id":"e1","result":{"content":[{"type":"text","text":"hi \"there\""}],"isError":false}}"#
        );
        assert_eq!(exchange(&mut connection, "POST", None, ECHO).status, 400);
    }

    #[test]
    fn the_default_server_knows_no_stateless_request() {
        let address = start(false);
        let mut connection = BufReader::new(TcpStream::connect(address).unwrap());
        // A handshake-era server: no session, 400, as for any request before initialize.
        let refused = exchange_with(
            &mut connection,
            "POST",
            &stateless("tools/call", Some("echo")),
            &stateless_echo(),
        );
        assert_eq!((refused.status, refused.body.as_str()), (400, ""));
        let initialized = exchange(&mut connection, "POST", None, INITIALIZE);
        let session = initialized.header("mcp-session-id").unwrap().to_owned();
        // In a session, `_meta` is not looked at and no answer carries `resultType`.
        let echoed = exchange(&mut connection, "POST", Some(&session), &stateless_echo());
        assert_eq!(
            echoed.body,
            r#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hi"}],"isError":false}}"#
        );
        let discover =
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{{{META}}}}}"#);
        let unknown = exchange(&mut connection, "POST", Some(&session), &discover);
        assert_eq!(unknown.status, 200);
        assert!(
            unknown.body.contains(r#""code":-32601"#),
            "{}",
            unknown.body
        );
    }
}
