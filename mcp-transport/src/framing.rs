//! Newline-delimited JSON over any byte stream: the framing of stdio, and of any socket or pipe a
//! plugin author has at hand.
//!
//! MCP's stdio framing is one JSON text per line, UTF-8, no embedded newlines. Nothing in it is
//! specific to a child process, so it lives here, over any [`AsyncRead`] / [`AsyncWrite`] pair:
//!
//! - [`LineReader`] splits the incoming bytes into messages. A line longer than its limit is
//!   discarded as it arrives (the buffer never grows past the limit) and reported as
//!   [`TransportError::MessageSkipped`] with the JSON-RPC `id` found at its start or end, so the
//!   [`Peer`](crate::Peer) fails only the request it answered and the connection lives on; a
//!   trailing `\r` is dropped; blank lines are skipped. Lines that are not JSON are handed on
//!   and skipped (and logged) by the peer, which knows what a message is.
//! - [`LineWriter`] writes messages, each followed by `\n`, in one write per batch.
//! - [`LineTransport`] puts the two together as a [`Transport`]: a Unix socket, a TCP stream or
//!   the two ends of a pipe become an MCP connection in a few lines.
//!
//! ```no_run
//! use mcp_transport::{ClientOptions, LineTransport, McpClient};
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let stream = tokio::net::UnixStream::connect("/run/my-mcp-server.sock").await?;
//! let (read, write) = stream.into_split();
//! let transport = LineTransport::new(read, write);
//! let client = McpClient::connect("my-server", Box::new(transport), ClientOptions::default()).await?;
//! println!("{} tools", client.list_tools().await?.len());
//! # Ok(()) }
//! ```
//!
//! The stdio transport uses the same reader and writer, adding what only a child process needs
//! (its exit status, its stderr, its process group).

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use async_trait::async_trait;
use bytes::{Bytes, BytesMut};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::Mutex;

use crate::transport::{Transport, TransportError};

/// The longest message accepted by default: 32 MiB.
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 32 * 1024 * 1024;

/// Bytes asked of the stream per read.
const READ_CHUNK: usize = 64 * 1024;

/// A write buffer larger than this is not kept after use (one huge message should not pin its
/// memory for the life of the connection).
const KEPT_WRITE_BUFFER: usize = 4 * READ_CHUNK;

/// How much of the start and of the end of a skipped line is kept to find its `id`.
const KEPT_EDGE: usize = 4096;

/// Splits a byte stream into newline-delimited messages.
#[derive(Debug)]
pub struct LineReader<R> {
    reader: R,
    buffer: BytesMut,
    /// Bytes at the start of `buffer` already searched for a newline.
    scanned: usize,
    max_message_bytes: usize,
    /// The line over the limit being discarded, if one is.
    skipping: Option<Skipped>,
}

/// What is kept of a line over the limit while the rest is discarded: its start and its end
/// (a response's `id` is at one or the other) and its length.
#[derive(Debug, Default)]
struct Skipped {
    head: Vec<u8>,
    tail: Vec<u8>,
    size: usize,
}

impl Skipped {
    fn push(&mut self, bytes: &[u8]) {
        let room = KEPT_EDGE.saturating_sub(self.head.len());
        self.head.extend_from_slice(&bytes[..room.min(bytes.len())]);
        if bytes.len() >= KEPT_EDGE {
            self.tail.clear();
            self.tail
                .extend_from_slice(&bytes[bytes.len() - KEPT_EDGE..]);
        } else {
            self.tail.extend_from_slice(bytes);
            let excess = self.tail.len().saturating_sub(KEPT_EDGE);
            self.tail.drain(..excess);
        }
        self.size += bytes.len();
    }

    fn into_error(self, limit: usize) -> TransportError {
        let id = crate::jsonrpc::skipped_response_id(&self.head, &self.tail);
        TransportError::MessageSkipped {
            limit,
            size: self.size,
            id,
        }
    }
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    /// A reader accepting messages of up to `max_message_bytes` bytes.
    pub fn new(reader: R, max_message_bytes: usize) -> Self {
        Self {
            reader,
            buffer: BytesMut::with_capacity(READ_CHUNK),
            scanned: 0,
            max_message_bytes,
            skipping: None,
        }
    }

    /// The next message, or `None` at the end of the stream (a last line without a newline
    /// counts as a message). Cancel safe: a call dropped before it completes loses nothing.
    pub async fn next_message(&mut self) -> Result<Option<Bytes>, TransportError> {
        loop {
            if let Some(message) = self.next_buffered()? {
                return Ok(Some(message));
            }
            let read = self.fill().await.map_err(|source| TransportError::Io {
                action: "reading from the server",
                source,
            })?;
            if read == 0 {
                return self.take_rest();
            }
        }
    }

    /// The next complete message already read, without reading more.
    pub fn next_buffered(&mut self) -> Result<Option<Bytes>, TransportError> {
        let limit = self.max_message_bytes;
        if let Some(skipped) = &mut self.skipping {
            let Some(end) = memchr::memchr(b'\n', &self.buffer) else {
                skipped.push(&self.buffer);
                self.buffer.clear();
                return Ok(None);
            };
            skipped.push(&self.buffer[..end]);
            drop(self.buffer.split_to(end + 1));
            self.scanned = 0;
            return Err(self.finish_skipping(limit));
        }
        while let Some(offset) = memchr::memchr(b'\n', &self.buffer[self.scanned..]) {
            let end = self.scanned + offset;
            let mut line = self.buffer.split_to(end + 1);
            self.scanned = 0;
            line.truncate(if end > 0 && line[end - 1] == b'\r' {
                end - 1
            } else {
                end
            });
            if line.len() > limit {
                let mut skipped = Skipped::default();
                skipped.push(&line);
                return Err(skipped.into_error(limit));
            }
            if !line.iter().all(u8::is_ascii_whitespace) {
                return Ok(Some(line.freeze()));
            }
        }
        self.scanned = self.buffer.len();
        // The line so far, less a `\r` at its end that the coming `\n` may drop: a message of
        // exactly the limit followed by `\r\n` fits however the reads split it.
        let pending = self.buffer.len() - usize::from(self.buffer.last() == Some(&b'\r'));
        if pending > limit {
            // Discard it as it comes: the buffer never holds more than the limit (and a `\r`).
            let mut skipped = Skipped::default();
            skipped.push(&self.buffer);
            self.buffer.clear();
            self.scanned = 0;
            self.skipping = Some(skipped);
        }
        Ok(None)
    }

    /// The error for the line being discarded, which just ended (at a newline or at the end of
    /// the stream). Its last `\r` is not counted, as it is not for a line read whole.
    fn finish_skipping(&mut self, limit: usize) -> TransportError {
        let mut skipped = self.skipping.take().unwrap_or_default();
        if skipped.tail.last() == Some(&b'\r') {
            skipped.tail.pop();
            skipped.size -= 1;
        }
        skipped.into_error(limit)
    }

    /// Reads once from the stream into the buffer; `Ok(0)` at the end of the stream. Cancel
    /// safe. [`next_buffered`](Self::next_buffered) then gives the messages it completed.
    pub async fn fill(&mut self) -> io::Result<usize> {
        std::future::poll_fn(|cx| self.poll_fill(cx)).await
    }

    /// [`fill`](Self::fill) as a poll: reads once if the stream has bytes, or registers `cx`'s
    /// waker (only the latest caller's) and holds nothing until the next call.
    pub fn poll_fill(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        if self.buffer.capacity() - self.buffer.len() < READ_CHUNK / 4 {
            self.buffer.reserve(READ_CHUNK);
        }
        // `read_buf`'s future keeps nothing between polls: one made per poll loses nothing.
        let read = self.reader.read_buf(&mut self.buffer);
        std::pin::pin!(read).poll(cx)
    }

    /// At the end of the stream: what is left without a newline, if it is a message (a `\r`
    /// at its end dropped, as at the end of any line).
    fn take_rest(&mut self) -> Result<Option<Bytes>, TransportError> {
        if self.skipping.is_some() {
            return Err(self.finish_skipping(self.max_message_bytes));
        }
        self.scanned = 0;
        let mut rest = self.buffer.split();
        if rest.last() == Some(&b'\r') {
            rest.truncate(rest.len() - 1);
        }
        if rest.iter().all(u8::is_ascii_whitespace) {
            Ok(None)
        } else {
            Ok(Some(rest.freeze()))
        }
    }
}

/// Writes newline-delimited messages.
#[derive(Debug)]
pub struct LineWriter<W> {
    writer: W,
    buffer: Vec<u8>,
    /// Writes up to this size go whole or not at all (a pipe's `PIPE_BUF`); `None` when the
    /// stream makes no such promise.
    atomic_write_limit: Option<usize>,
}

impl<W: AsyncWrite + Unpin> LineWriter<W> {
    /// A writer over any stream.
    pub fn new(writer: W) -> Self {
        Self {
            writer,
            buffer: Vec::new(),
            atomic_write_limit: None,
        }
    }

    /// A writer over a stream whose writes of fewer than `limit` bytes are atomic (a pipe),
    /// which lets [`try_write_message`](Self::try_write_message) write without waiting.
    pub fn with_atomic_writes(writer: W, limit: usize) -> Self {
        Self {
            atomic_write_limit: Some(limit),
            ..Self::new(writer)
        }
    }

    /// Writes the messages in order, each followed by `\n`, and flushes.
    pub async fn write_messages(&mut self, messages: &[String]) -> io::Result<()> {
        self.buffer.clear();
        for message in messages {
            self.buffer.extend_from_slice(message.as_bytes());
            self.buffer.push(b'\n');
        }
        let written = self.writer.write_all(&self.buffer).await;
        if self.buffer.capacity() > KEPT_WRITE_BUFFER {
            self.buffer = Vec::new();
        }
        written?;
        self.writer.flush().await
    }

    /// Writes one message now if that needs no waiting, and says whether it did. Only a stream
    /// with atomic writes ([`with_atomic_writes`](Self::with_atomic_writes)) ever does: on any
    /// other a short write could leave half a message behind.
    pub fn try_write_message(&mut self, message: &str) -> io::Result<bool> {
        let Some(limit) = self.atomic_write_limit else {
            return Ok(false);
        };
        if message.len() >= limit {
            return Ok(false);
        }
        self.buffer.clear();
        self.buffer.extend_from_slice(message.as_bytes());
        self.buffer.push(b'\n');
        // One write attempt; a stream that is not ready registers this no-op waker and says
        // `Pending`, and the message goes the usual way instead.
        let mut context = Context::from_waker(Waker::noop());
        match Pin::new(&mut self.writer).poll_write(&mut context, &self.buffer) {
            Poll::Ready(Ok(written)) if written == self.buffer.len() => Ok(true),
            Poll::Ready(Ok(written)) => Err(io::Error::other(format!(
                "the stream took {written} of {} bytes of an atomic write",
                self.buffer.len()
            ))),
            Poll::Ready(Err(error)) if error.kind() == io::ErrorKind::WouldBlock => Ok(false),
            Poll::Ready(Err(error)) => Err(error),
            Poll::Pending => Ok(false),
        }
    }

    /// Shuts the writing half down (for a socket, the peer sees the end of its input).
    pub async fn shutdown(&mut self) -> io::Result<()> {
        self.writer.shutdown().await
    }
}

/// Writes `messages` through the writer of a transport (`None` once the transport is closed);
/// a failure is an I/O error saying what was being written to.
pub(crate) async fn send_through<W: AsyncWrite + Unpin>(
    writer: &Mutex<Option<LineWriter<W>>>,
    messages: &[String],
    action: &'static str,
) -> Result<(), TransportError> {
    let mut writer = writer.lock().await;
    let Some(writer) = writer.as_mut() else {
        return Err(TransportError::ClosedByClient);
    };
    writer
        .write_messages(messages)
        .await
        .map_err(|source| TransportError::Io { action, source })
}

/// A [`Transport`] over any byte stream pair speaking newline-delimited JSON: see the [module
/// documentation](self).
#[derive(Debug)]
pub struct LineTransport<R, W> {
    reader: Mutex<LineReader<R>>,
    writer: Mutex<Option<LineWriter<W>>>,
}

impl<R, W> LineTransport<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    /// A transport reading messages from `reader` and writing them to `writer`, accepting
    /// messages of up to [`DEFAULT_MAX_MESSAGE_BYTES`].
    pub fn new(reader: R, writer: W) -> Self {
        Self {
            reader: Mutex::new(LineReader::new(reader, DEFAULT_MAX_MESSAGE_BYTES)),
            writer: Mutex::new(Some(LineWriter::new(writer))),
        }
    }

    /// Sets the longest message accepted from the server.
    #[must_use]
    pub fn max_message_bytes(mut self, limit: usize) -> Self {
        self.reader.get_mut().max_message_bytes = limit;
        self
    }
}

#[async_trait]
impl<R, W> Transport for LineTransport<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    async fn send(&self, messages: &[String]) -> Result<(), TransportError> {
        send_through(&self.writer, messages, "writing to the server").await
    }

    async fn receive(&self) -> Result<Bytes, TransportError> {
        match self.reader.lock().await.next_message().await? {
            Some(message) => Ok(message),
            None => Err(TransportError::ClosedByServer),
        }
    }

    async fn close(&self) -> Result<(), TransportError> {
        let writer = self.writer.lock().await.take();
        if let Some(mut writer) = writer {
            // The server may be gone already; there is nothing left to tell it then.
            let _ = writer.shutdown().await;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn messages(input: &[u8], limit: usize) -> Vec<Result<Option<Bytes>, String>> {
        let mut reader = LineReader::new(input, limit);
        let mut out = Vec::new();
        loop {
            match reader.next_message().await {
                Ok(None) => {
                    out.push(Ok(None));
                    return out;
                }
                Ok(Some(message)) => out.push(Ok(Some(message))),
                Err(error) => {
                    out.push(Err(error.to_string()));
                    return out;
                }
            }
        }
    }

    #[tokio::test]
    async fn lines_become_messages_and_blank_lines_are_skipped() {
        let got = messages(b"{\"a\":1}\r\n\n  \n{\"b\":2}\n{\"c\":3}", 64).await;
        let expected: Vec<Result<Option<Bytes>, String>> = vec![
            Ok(Some(Bytes::from_static(b"{\"a\":1}"))),
            Ok(Some(Bytes::from_static(b"{\"b\":2}"))),
            Ok(Some(Bytes::from_static(b"{\"c\":3}"))),
            Ok(None),
        ];
        assert_eq!(got, expected);
    }

    #[tokio::test]
    async fn a_line_over_the_limit_is_skipped_with_or_without_its_newline() {
        let long = [b'x'; 20];
        for input in [[&long[..], b"\n"].concat(), long.to_vec()] {
            let got = messages(&input, 10).await;
            let last = got.last().cloned().unwrap_or(Ok(None));
            let error = last.unwrap_err();
            assert!(error.contains("20 bytes"), "{error}");
            assert!(error.contains("limit of 10 bytes"), "{error}");
        }
    }

    #[tokio::test]
    async fn a_message_of_exactly_the_limit_with_crlf_fits_however_the_reads_split_it() {
        // Found by `cargo xtask fuzz` (target `line_reader`): read a byte at a time, the `\r`
        // of a line at the limit used to push it over before its `\n` arrived.
        struct OneByteAtATime<'a>(&'a [u8]);
        impl AsyncRead for OneByteAtATime<'_> {
            fn poll_read(
                mut self: Pin<&mut Self>,
                _: &mut Context<'_>,
                buf: &mut tokio::io::ReadBuf<'_>,
            ) -> Poll<io::Result<()>> {
                if let Some((first, rest)) = self.0.split_first() {
                    buf.put_slice(&[*first]);
                    self.0 = rest;
                }
                Poll::Ready(Ok(()))
            }
        }
        let input = b"{\"a\":1}\r\n{\"b\":22}\r\n{\"c\":3}\r";
        let mut reader = LineReader::new(OneByteAtATime(input), 7);
        assert_eq!(
            reader.next_message().await.unwrap(),
            Some(Bytes::from_static(b"{\"a\":1}"))
        );
        match reader.next_message().await {
            Err(TransportError::MessageSkipped { size, .. }) => assert_eq!(size, 8, "no \\r"),
            other => panic!("expected a skipped message: {other:?}"),
        }
        assert_eq!(
            reader.next_message().await.unwrap(),
            Some(Bytes::from_static(b"{\"c\":3}")),
            "the last line's \\r goes too"
        );
        assert_eq!(reader.next_message().await.unwrap(), None);
    }

    #[tokio::test]
    async fn reading_goes_on_after_a_skipped_line_and_its_id_is_found() {
        let huge = format!(
            r#"{{"result":{{"text":"{}"}},"jsonrpc":"2.0","id":7}}"#,
            "x".repeat(100_000)
        );
        let input = format!("{{\"a\":1}}\n{huge}\n{{\"b\":2}}\n");
        let mut reader = LineReader::new(input.as_bytes(), 1000);
        assert_eq!(
            reader.next_message().await.unwrap(),
            Some(Bytes::from_static(b"{\"a\":1}"))
        );
        match reader.next_message().await {
            Err(TransportError::MessageSkipped { limit, size, id }) => {
                assert_eq!((limit, size, id.as_deref()), (1000, huge.len(), Some("7")));
            }
            other => panic!("expected a skipped message: {other:?}"),
        }
        assert_eq!(
            reader.next_message().await.unwrap(),
            Some(Bytes::from_static(b"{\"b\":2}"))
        );
        assert_eq!(reader.next_message().await.unwrap(), None);
        assert!(
            reader.buffer.capacity() < 1000 + 2 * READ_CHUNK,
            "the buffer stayed bounded"
        );
    }

    #[tokio::test]
    async fn the_writer_ends_each_message_with_a_newline() {
        let mut out = Vec::new();
        let mut writer = LineWriter::new(&mut out);
        writer
            .write_messages(&["{\"a\":1}".to_owned(), "{\"b\":2}".to_owned()])
            .await
            .unwrap();
        assert!(!writer.try_write_message("{}").unwrap(), "no atomic writes");
        drop(writer);
        assert_eq!(out, b"{\"a\":1}\n{\"b\":2}\n");
    }

    #[tokio::test]
    async fn an_atomic_writer_writes_at_once_below_its_limit_only() {
        let mut out = Vec::new();
        let mut writer = LineWriter::with_atomic_writes(&mut out, 8);
        assert!(writer.try_write_message("{\"a\":1}").unwrap());
        assert!(!writer.try_write_message("{\"ab\":1}").unwrap());
        drop(writer);
        assert_eq!(out, b"{\"a\":1}\n");
    }
}
