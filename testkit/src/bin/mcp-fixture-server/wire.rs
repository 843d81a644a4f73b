//! Framing of outgoing messages: JSON-RPC lines built in one buffer and written to stdout in
//! one `write` while a lock is held, so lines from different threads never interleave.

use std::fs::File;
use std::io::{self, Write};
use std::os::fd::AsFd;
use std::sync::{Mutex, PoisonError};

use serde_json::Value;

/// JSON-RPC error code for a malformed line.
pub(crate) const PARSE_ERROR: i64 = -32700;
/// JSON-RPC error code for a message that is not a request, notification or response.
pub(crate) const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC error code for an unknown method.
pub(crate) const METHOD_NOT_FOUND: i64 = -32601;
/// JSON-RPC error code for bad parameters (also an unknown tool).
pub(crate) const INVALID_PARAMS: i64 = -32602;

/// Lines `--garbage` writes before each message: not JSON, blank, and not UTF-8.
const GARBAGE: &[u8] = b"this is not json\n{\"broken\":\n\n\xff\xfe\n";

/// The shared stdout.
pub(crate) struct Output {
    // A duplicate of fd 1 written without a userspace buffer: a whole line goes out in one
    // `write` call and there is nothing left to flush.
    file: Mutex<File>,
    garbage: bool,
}

impl Output {
    /// Takes a handle on this process's stdout.
    pub(crate) fn stdout(garbage: bool) -> io::Result<Self> {
        let fd = io::stdout().as_fd().try_clone_to_owned()?;
        Ok(Self {
            file: Mutex::new(File::from(fd)),
            garbage,
        })
    }

    /// Writes `line`, which must end in '\n', then flushes, under the lock.
    pub(crate) fn send(&self, line: &[u8]) {
        let mut file = self.file.lock().unwrap_or_else(PoisonError::into_inner);
        let mut write = || -> io::Result<()> {
            if self.garbage {
                file.write_all(GARBAGE)?;
            }
            file.write_all(line)?;
            file.flush()
        };
        if let Err(err) = write() {
            eprintln!("fixture: cannot write to stdout: {err}");
        }
    }

    /// Writes the garbage lines alone (at startup).
    pub(crate) fn send_garbage(&self) {
        let mut file = self.file.lock().unwrap_or_else(PoisonError::into_inner);
        if let Err(err) = file.write_all(GARBAGE).and_then(|()| file.flush()) {
            eprintln!("fixture: cannot write to stdout: {err}");
        }
    }

    /// Writes one line of `bytes` 'x' characters and a final '\n', in chunks.
    pub(crate) fn send_huge_line(&self, bytes: usize) {
        const CHUNK: usize = 64 * 1024;
        let chunk = vec![b'x'; CHUNK.min(bytes)];
        let mut file = self.file.lock().unwrap_or_else(PoisonError::into_inner);
        let mut write = || -> io::Result<()> {
            let mut left = bytes;
            while left > 0 {
                let n = left.min(CHUNK);
                file.write_all(&chunk[..n])?;
                left -= n;
            }
            file.write_all(b"\n")?;
            file.flush()
        };
        if let Err(err) = write() {
            eprintln!("fixture: cannot write to stdout: {err}");
        }
    }
}

fn push_value(buf: &mut Vec<u8>, value: &Value) {
    // Serializing a `Value` into a `Vec` cannot fail; `null` keeps the line valid if it did.
    if serde_json::to_writer(&mut *buf, value).is_err() {
        buf.extend_from_slice(b"null");
    }
}

fn push_str(buf: &mut Vec<u8>, text: &str) {
    if serde_json::to_writer(&mut *buf, text).is_err() {
        buf.extend_from_slice(b"\"\"");
    }
}

/// `{"jsonrpc":"2.0","id":<id>,"result":<result>}\n`
pub(crate) fn result_line(id: &Value, result: &Value) -> Vec<u8> {
    let mut buf = Vec::with_capacity(128);
    buf.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    push_value(&mut buf, id);
    buf.extend_from_slice(b",\"result\":");
    push_value(&mut buf, result);
    buf.extend_from_slice(b"}\n");
    buf
}

/// A tool result holding one text content block, written without building a `Value`: this
/// is the hot path of the round-trip benchmark.
pub(crate) fn text_result_line(id: &Value, text: &str) -> Vec<u8> {
    let mut buf = Vec::with_capacity(96 + text.len());
    buf.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    push_value(&mut buf, id);
    buf.extend_from_slice(b",\"result\":{\"content\":[{\"type\":\"text\",\"text\":");
    push_str(&mut buf, text);
    buf.extend_from_slice(b"}]}}\n");
    buf
}

/// `{"jsonrpc":"2.0","id":<id>,"error":{"code":<code>,"message":<message>}}\n`
pub(crate) fn error_line(id: &Value, code: i64, message: &str) -> Vec<u8> {
    let mut buf = Vec::with_capacity(96 + message.len());
    buf.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    push_value(&mut buf, id);
    buf.extend_from_slice(b",\"error\":{\"code\":");
    buf.extend_from_slice(code.to_string().as_bytes());
    buf.extend_from_slice(b",\"message\":");
    push_str(&mut buf, message);
    buf.extend_from_slice(b"}}\n");
    buf
}

/// Any complete message (a notification or a server-to-client request) as a line.
pub(crate) fn message_line(message: &Value) -> Vec<u8> {
    let mut buf = Vec::with_capacity(128);
    push_value(&mut buf, message);
    buf.push(b'\n');
    buf
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(line: &[u8]) -> Value {
        assert_eq!(line.last(), Some(&b'\n'));
        serde_json::from_slice(line).unwrap()
    }

    #[test]
    fn lines_are_single_json_objects() {
        let id = json!(7);
        assert_eq!(
            parse(&text_result_line(&id, "a \"quoted\"\nline")),
            json!({"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"a \"quoted\"\nline"}]}})
        );
        assert_eq!(
            parse(&error_line(
                &json!("x"),
                METHOD_NOT_FOUND,
                "Method not found: m"
            )),
            json!({"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"Method not found: m"}})
        );
        assert_eq!(
            parse(&result_line(&id, &json!({}))),
            json!({"jsonrpc":"2.0","id":7,"result":{}})
        );
    }
}
