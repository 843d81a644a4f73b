//! The reference MCP server every client is measured against, answering `initialize`, `ping`,
//! `tools/list` and `tools/call` of one `echo` tool, over stdio or Streamable HTTP:
//!
//! ```text
//! reference-server                 # newline-delimited JSON-RPC on stdin/stdout
//! reference-server --http [--sse]  # Streamable HTTP at http://127.0.0.1:PORT/mcp
//! ```
//!
//! It does the least a correct server can: no JSON parser, no framework. Each request is
//! scanned for its `"method"`, its `"id"` (copied verbatim) and, for `echo`, the `"message"`
//! string (copied verbatim, escapes included); the answer is a pre-built template with those
//! pieces spliced in. Notifications are ignored. Its CPU is measured from outside
//! (`/proc/<pid>/task/*/schedstat`) by the client drivers.
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

const TOOLS_LIST: &[u8] = br#"{"tools":[{"name":"echo","description":"Echoes its message.","inputSchema":{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}}]}"#;
/// The protocol versions this server speaks; a client asking for another (newer) one is
/// answered with the first, as the specification's version negotiation says, so every client
/// is measured on the same protocol.
const PROTOCOLS: [&[u8]; 4] = [
    b"\"2025-11-25\"",
    b"\"2025-06-18\"",
    b"\"2025-03-26\"",
    b"\"2024-11-05\"",
];

fn main() {
    let mut transport = Transport::Stdio;
    for arg in std::env::args().skip(1) {
        transport = match (arg.as_str(), transport) {
            ("--http", Transport::Stdio) => Transport::Http { sse: false },
            ("--sse", Transport::Http { .. }) => Transport::Http { sse: true },
            _ => {
                eprintln!("reference-server: usage: reference-server [--http [--sse]]");
                std::process::exit(2);
            }
        };
    }
    let served = match transport {
        Transport::Stdio => serve_stdio(),
        Transport::Http { sse } => http::serve(sse),
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

fn serve_stdio() -> io::Result<()> {
    let mut input = BufReader::with_capacity(64 * 1024, io::stdin().lock());
    let mut output = BufWriter::with_capacity(64 * 1024, io::stdout().lock());
    let mut line = Vec::with_capacity(1024);
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            output.flush()?;
            return Ok(());
        }
        if answer(&line, &mut output)? {
            output.write_all(b"\n")?;
        }
        if input.buffer().is_empty() {
            output.flush()?;
        }
    }
}

/// The id of a request (its raw JSON text), `None` for a notification or a response.
fn request_id(message: &[u8]) -> Option<&[u8]> {
    raw_value_after(message, b"\"method\":")?;
    raw_value_after(message, b"\"id\":")
}

/// Writes the answer to one request (no newline after it); false, and nothing written, for a
/// notification, a response or a blank line.
fn answer(message: &[u8], out: &mut impl Write) -> io::Result<bool> {
    let Some(id) = request_id(message) else {
        return Ok(false);
    };
    let method = string_after(message, b"\"method\":").unwrap_or_default();
    out.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":")?;
    out.write_all(id)?;
    match method {
        b"tools/call" => {
            // Not "the first `name`": a request's `_meta` may hold other names before it.
            if contains(message, b"\"name\":\"echo\"") {
                let text = string_after(message, b"\"message\":").unwrap_or_default();
                out.write_all(b",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"")?;
                out.write_all(text)?;
                out.write_all(b"\"}],\"isError\":false}}")?;
            } else {
                out.write_all(b",\"error\":{\"code\":-32602,\"message\":\"unknown tool\"}}")?;
            }
        }
        b"tools/list" => {
            out.write_all(b",\"result\":")?;
            out.write_all(TOOLS_LIST)?;
            out.write_all(b"}")?;
        }
        b"initialize" => {
            let asked = raw_value_after(message, b"\"protocolVersion\":").unwrap_or_default();
            let version = PROTOCOLS
                .into_iter()
                .find(|known| *known == asked)
                .unwrap_or(PROTOCOLS[0]);
            out.write_all(b",\"result\":{\"protocolVersion\":")?;
            out.write_all(version)?;
            out.write_all(b",\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"bench-reference\",\"version\":\"0.1.0\"}}}")?;
        }
        b"ping" => out.write_all(b",\"result\":{}}")?,
        _ => out.write_all(b",\"error\":{\"code\":-32601,\"message\":\"method not found\"}}")?,
    }
    Ok(true)
}

fn contains(line: &[u8], needle: &[u8]) -> bool {
    line.windows(needle.len()).any(|window| window == needle)
}

/// Where `key` ends in `line`, with any whitespace after it skipped.
fn value_start(line: &[u8], key: &[u8]) -> Option<usize> {
    let at = line.windows(key.len()).position(|window| window == key)? + key.len();
    let skip = line[at..]
        .iter()
        .take_while(|b| b.is_ascii_whitespace())
        .count();
    Some(at + skip)
}

/// The raw JSON text of a scalar value after `key`: a number, or a string with its quotes.
fn raw_value_after<'a>(line: &'a [u8], key: &[u8]) -> Option<&'a [u8]> {
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
fn string_after<'a>(line: &'a [u8], key: &[u8]) -> Option<&'a [u8]> {
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
