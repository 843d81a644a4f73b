//! The reference MCP server every client is measured against, answering `initialize`, `ping`,
//! `tools/list` and `tools/call` of one `echo` tool, over stdio or Streamable HTTP:
//!
//! ```text
//! reference-server [--stateless]                 # newline-delimited JSON-RPC on stdin/stdout
//! reference-server --http [--sse] [--stateless]  # Streamable HTTP at http://127.0.0.1:PORT/mcp
//! ```
//!
//! It does the least a correct server can: no JSON parser, no framework. Each request is
//! scanned (`memchr::memmem`) for its `"method"`, its `"id"` (copied verbatim) and, for `echo`, the `"message"`
//! string (copied verbatim, escapes included); the answer is a pre-built template with those
//! pieces spliced in. Notifications are ignored. Its CPU is measured from outside
//! (`/proc/<pid>/task/*/schedstat`) by the client drivers.
//!
//! **Eras.** By default it speaks the handshake era only (2025-11-25 and older, negotiated by
//! `initialize`) and never looks at a request's `_meta`: `server/discover` is an unknown method
//! (-32601), so every client is measured on the same protocol. With `--stateless` it is a
//! dual-era server (2026-07-28 beside the handshake era): a request whose `_meta` carries
//! `io.modelcontextprotocol/protocolVersion` is served statelessly: `server/discover` answers
//! the versions, capabilities and identity, results carry `"resultType":"complete"` (and
//! `tools/list` its `ttlMs` and `cacheScope`), `initialize` and `ping` are unknown methods, and
//! a version other than 2026-07-28 gets `UnsupportedProtocolVersion` (-32022) listing the ones
//! it speaks. A request without that `_meta` is served as in the default mode.
//!
//! **stdio**: answers are buffered and flushed when no further request is already waiting in
//! the input buffer, so pipelined requests share writes and a lone request is answered at once.
//! It exits at end of input.
//!
//! **HTTP** (`--http`, see `reference-server/http.rs`): it listens on 127.0.0.1 only, on a port
//! the system picks, and prints `listening 127.0.0.1:PORT` as its one line of stdout. Answers
//! are `application/json` bodies, or with `--sse` a `text/event-stream` body holding one event.
//! It exits when its stdin closes, so the client that spawned it ends it by dropping the pipe.

#[path = "reference-server/http.rs"]
mod http;

use std::io::{self, BufRead, BufReader, BufWriter, Write};

use std::sync::LazyLock;

use memchr::memmem::Finder;

/// The one tool, as `tools/list` lists it.
const TOOLS: &[u8] = br#"[{"name":"echo","description":"Echoes its message.","inputSchema":{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}}]"#;
/// The handshake-era protocol versions this server speaks; a client asking for another (newer)
/// one is answered with the first, as the specification's version negotiation says, so every
/// client is measured on the same protocol.
const PROTOCOLS: [&[u8]; 4] = [
    b"\"2025-11-25\"",
    b"\"2025-06-18\"",
    b"\"2025-03-26\"",
    b"\"2024-11-05\"",
];
/// The stateless revision `--stateless` speaks, as JSON text.
const STATELESS: &[u8] = b"\"2026-07-28\"";

/// The keys a request is scanned for, each searcher built once (building one costs more than
/// a search through a request).
static METHOD: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"\"method\":"));
static ID: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"\"id\":"));
static ECHO_TOOL: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"\"name\":\"echo\""));
static MESSAGE: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"\"message\":"));
static ASKED_VERSION: LazyLock<Finder<'static>> =
    LazyLock::new(|| Finder::new(b"\"protocolVersion\":"));
/// The `_meta` key of a stateless request's protocol version.
static META_VERSION: LazyLock<Finder<'static>> =
    LazyLock::new(|| Finder::new(b"\"io.modelcontextprotocol/protocolVersion\":"));
/// Every version a dual-era server speaks, newest first.
pub(crate) const SUPPORTED: &[u8] =
    br#"["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"]"#;
/// The answer to `server/discover` after `"result":`.
const DISCOVER: &[u8] = br#"{"resultType":"complete","supportedVersions":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"capabilities":{"tools":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"bench-reference","version":"0.1.0"}},"ttlMs":0,"cacheScope":"private"}"#;

/// JSON-RPC error codes the server answers with.
pub(crate) mod codes {
    pub(crate) const METHOD_NOT_FOUND: i64 = -32601;
    pub(crate) const INVALID_PARAMS: i64 = -32602;
    pub(crate) const HEADER_MISMATCH: i64 = -32020;
    pub(crate) const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
}

/// The protocol eras the server speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Eras {
    /// The handshake era only (the default): a request's `_meta` is never looked at.
    Handshake,
    /// 2026-07-28 beside the handshake era (`--stateless`).
    Dual,
}

fn main() {
    let mut transport = Transport::Stdio;
    let mut eras = Eras::Handshake;
    for arg in std::env::args().skip(1) {
        transport = match (arg.as_str(), transport) {
            ("--http", Transport::Stdio) => Transport::Http { sse: false },
            ("--sse", Transport::Http { .. }) => Transport::Http { sse: true },
            ("--stateless", transport) if eras == Eras::Handshake => {
                eras = Eras::Dual;
                transport
            }
            _ => {
                eprintln!(
                    "reference-server: usage: reference-server [--http [--sse]] [--stateless]"
                );
                std::process::exit(2);
            }
        };
    }
    let served = match transport {
        Transport::Stdio => serve_stdio(eras),
        Transport::Http { sse } => http::serve(sse, eras),
    };
    if let Err(error) = served {
        // A closed pipe at shutdown is the client going away, not a failure worth a message.
        if error.kind() != io::ErrorKind::BrokenPipe {
            eprintln!("reference-server: {error}");
            std::process::exit(1);
        }
    }
}

#[derive(Clone, Copy)]
enum Transport {
    Stdio,
    Http { sse: bool },
}

fn serve_stdio(eras: Eras) -> io::Result<()> {
    let mut input = BufReader::with_capacity(64 * 1024, io::stdin().lock());
    let mut output = BufWriter::with_capacity(64 * 1024, io::stdout().lock());
    let mut line = Vec::with_capacity(1024);
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            output.flush()?;
            return Ok(());
        }
        if let Some(request) = Request::scan(&line, eras) {
            answer(&request, &line, &mut output)?;
            output.write_all(b"\n")?;
        }
        if input.buffer().is_empty() {
            output.flush()?;
        }
    }
}

/// One request, as scanned from its message.
#[derive(Debug)]
pub(crate) struct Request<'a> {
    /// The id's raw JSON text.
    pub(crate) id: &'a [u8],
    /// The method (the string's contents).
    pub(crate) method: &'a [u8],
    /// The raw JSON text of the `io.modelcontextprotocol/protocolVersion` in its `_meta`: a
    /// stateless request. Only looked for by a dual-era server.
    pub(crate) version: Option<&'a [u8]>,
}

impl<'a> Request<'a> {
    /// The request in `message`; `None` for a notification, a response or a blank line.
    pub(crate) fn scan(message: &'a [u8], eras: Eras) -> Option<Self> {
        let method = raw_value_after(message, &METHOD)?;
        let id = raw_value_after(message, &ID)?;
        // The string's contents; a method that is not a string is no method this server knows.
        let method = method
            .strip_prefix(b"\"")
            .and_then(|method| method.strip_suffix(b"\""))
            .unwrap_or_default();
        let version = match eras {
            Eras::Handshake => None,
            Eras::Dual => raw_value_after(message, &META_VERSION),
        };
        Some(Self {
            id,
            method,
            version,
        })
    }
}

/// How a request was answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Answered {
    Result,
    /// A JSON-RPC error of this code.
    Error(i64),
}

/// Writes the answer to `request`, found in `message` (no newline after it).
pub(crate) fn answer(
    request: &Request<'_>,
    message: &[u8],
    out: &mut impl Write,
) -> io::Result<Answered> {
    out.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":")?;
    out.write_all(request.id)?;
    match request.version {
        None => answer_handshake(request.method, message, out),
        Some(STATELESS) => answer_stateless(request.method, message, out),
        Some(_) => error_tail(
            out,
            codes::UNSUPPORTED_PROTOCOL_VERSION,
            b"unsupported protocol version",
            Some(SUPPORTED),
        ),
    }
}

/// The answer after its id, in the handshake era.
fn answer_handshake(method: &[u8], message: &[u8], out: &mut impl Write) -> io::Result<Answered> {
    match method {
        b"tools/call" => return echo(message, b"", out),
        b"tools/list" => {
            out.write_all(b",\"result\":{\"tools\":")?;
            out.write_all(TOOLS)?;
            out.write_all(b"}}")?;
        }
        b"initialize" => {
            let asked = raw_value_after(message, &ASKED_VERSION).unwrap_or_default();
            let version = PROTOCOLS
                .into_iter()
                .find(|known| *known == asked)
                .unwrap_or(PROTOCOLS[0]);
            out.write_all(b",\"result\":{\"protocolVersion\":")?;
            out.write_all(version)?;
            out.write_all(b",\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"bench-reference\",\"version\":\"0.1.0\"}}}")?;
        }
        b"ping" => out.write_all(b",\"result\":{}}")?,
        _ => {
            return error_tail(out, codes::METHOD_NOT_FOUND, b"method not found", None);
        }
    }
    Ok(Answered::Result)
}

/// The answer after its id, in 2026-07-28: every result says it is complete.
fn answer_stateless(method: &[u8], message: &[u8], out: &mut impl Write) -> io::Result<Answered> {
    match method {
        b"tools/call" => return echo(message, b"\"resultType\":\"complete\",", out),
        b"tools/list" => {
            out.write_all(b",\"result\":{\"resultType\":\"complete\",\"tools\":")?;
            out.write_all(TOOLS)?;
            out.write_all(b",\"ttlMs\":0,\"cacheScope\":\"private\"}}")?;
        }
        b"server/discover" => {
            out.write_all(b",\"result\":")?;
            out.write_all(DISCOVER)?;
            out.write_all(b"}")?;
        }
        // `initialize` and `ping` are not methods of the revision.
        _ => {
            return error_tail(out, codes::METHOD_NOT_FOUND, b"method not found", None);
        }
    }
    Ok(Answered::Result)
}

/// The answer to `tools/call` after its id: the message echoed, `fields` first in the result.
fn echo(message: &[u8], fields: &[u8], out: &mut impl Write) -> io::Result<Answered> {
    // Not "the first `name`": a request's `_meta` may hold other names before it.
    if ECHO_TOOL.find(message).is_none() {
        return error_tail(out, codes::INVALID_PARAMS, b"unknown tool", None);
    }
    let text = string_after(message, &MESSAGE).unwrap_or_default();
    out.write_all(b",\"result\":{")?;
    out.write_all(fields)?;
    out.write_all(b"\"content\":[{\"type\":\"text\",\"text\":\"")?;
    out.write_all(text)?;
    out.write_all(b"\"}],\"isError\":false}}")?;
    Ok(Answered::Result)
}

/// Writes a whole error answer, `{"jsonrpc":"2.0","id":ID,"error":{…}}`; `supported`: the
/// versions for `data.supported`.
pub(crate) fn error_answer(
    id: &[u8],
    code: i64,
    message: &[u8],
    supported: Option<&[u8]>,
    out: &mut impl Write,
) -> io::Result<Answered> {
    out.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":")?;
    out.write_all(id)?;
    error_tail(out, code, message, supported)
}

/// An error after the answer's id; `supported`: the versions for `data.supported`.
fn error_tail(
    out: &mut impl Write,
    code: i64,
    message: &[u8],
    supported: Option<&[u8]>,
) -> io::Result<Answered> {
    write!(out, ",\"error\":{{\"code\":{code},\"message\":\"")?;
    out.write_all(message)?;
    out.write_all(b"\"")?;
    if let Some(supported) = supported {
        out.write_all(b",\"data\":{\"supported\":")?;
        out.write_all(supported)?;
        out.write_all(b"}")?;
    }
    out.write_all(b"}}")?;
    Ok(Answered::Error(code))
}

/// True for a handshake-era version this server speaks, as a header gives it (no quotes).
pub(crate) fn is_handshake_version(version: &[u8]) -> bool {
    PROTOCOLS
        .iter()
        .any(|known| &known[1..known.len() - 1] == version)
}

/// True when `version` (a header's, no quotes) is the stateless one this server speaks.
pub(crate) fn is_stateless_version(version: &[u8]) -> bool {
    &STATELESS[1..STATELESS.len() - 1] == version
}

/// Where `key` ends in `line`, with any whitespace after it skipped.
fn value_start(line: &[u8], key: &Finder<'_>) -> Option<usize> {
    let at = key.find(line)? + key.needle().len();
    let skip = line[at..]
        .iter()
        .take_while(|b| b.is_ascii_whitespace())
        .count();
    Some(at + skip)
}

/// The raw JSON text of a scalar value after `key`: a number, or a string with its quotes.
fn raw_value_after<'a>(line: &'a [u8], key: &Finder<'_>) -> Option<&'a [u8]> {
    let start = value_start(line, key)?;
    let rest = &line[start..];
    let len = if rest.first() == Some(&b'"') {
        string_len(&rest[1..])? + 2
    } else {
        rest.iter()
            .position(|b| matches!(b, b',' | b'}' | b']' | b' ' | b'\r' | b'\n'))
            .unwrap_or(rest.len())
    };
    let value = &rest[..len];
    (!value.is_empty() && value != b"null").then_some(value)
}

/// The contents (escapes kept) of the string value after `key`.
fn string_after<'a>(line: &'a [u8], key: &Finder<'_>) -> Option<&'a [u8]> {
    let start = value_start(line, key)?;
    let rest = line[start..].strip_prefix(b"\"")?;
    Some(&rest[..string_len(rest)?])
}

/// Length of a JSON string's contents up to its closing quote (escaped quotes skipped).
fn string_len(text: &[u8]) -> Option<usize> {
    let mut index = 0;
    while index < text.len() {
        match text[index] {
            b'\\' => index += 2,
            b'"' => return Some(index),
            _ => index += 1,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::{Eras, Request, answer};

    /// The line `message` gets from a server speaking `eras`, or `None` for no answer.
    fn answered(message: &str, eras: Eras) -> Option<String> {
        let request = Request::scan(message.as_bytes(), eras)?;
        let mut out = Vec::new();
        answer(&request, message.as_bytes(), &mut out).unwrap();
        Some(String::from_utf8(out).unwrap())
    }

    const DISCOVER: &str = r#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}}}}"#;
    const ECHO: &str = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}}}}"#;

    #[test]
    fn by_default_the_meta_is_not_looked_at() {
        assert_eq!(
            answered(DISCOVER, Eras::Handshake).unwrap(),
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"method not found"}}"#
        );
        assert_eq!(
            answered(ECHO, Eras::Handshake).unwrap(),
            r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"hi"}],"isError":false}}"#
        );
    }

    #[test]
    fn a_dual_era_server_answers_stateless_requests_as_the_revision_says() {
        let discovered = answered(DISCOVER, Eras::Dual).unwrap();
        assert!(
            discovered.starts_with(r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":["2026-07-28","2025-11-25","#),
            "{discovered}"
        );
        assert!(discovered.ends_with(r#""ttlMs":0,"cacheScope":"private"}}"#));
        assert_eq!(
            answered(ECHO, Eras::Dual).unwrap(),
            r#"{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","content":[{"type":"text","text":"hi"}],"isError":false}}"#
        );
        let newer = ECHO.replace("2026-07-28", "2027-01-01");
        assert_eq!(
            answered(&newer, Eras::Dual).unwrap(),
            r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32022,"message":"unsupported protocol version","data":{"supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"]}}}"#
        );
        // The handshake era, on the same server: no `resultType`.
        let initialize = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2099-01-01"}}"#;
        assert!(
            answered(initialize, Eras::Dual)
                .unwrap()
                .starts_with(r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25""#)
        );
        let echo = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}"#;
        assert_eq!(
            answered(echo, Eras::Dual).unwrap(),
            r#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"hi"}],"isError":false}}"#
        );
        let notification = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        assert_eq!(answered(notification, Eras::Dual), None);
    }
}
