//! Server-sent events, decoded for MCP: bounded, and keeping every `id:` and `retry:`.
//!
//! Both HTTP transports read `text/event-stream` bodies: Streamable HTTP answers a POST with one
//! and offers another on GET; legacy HTTP+SSE reads everything from one. What MCP needs from the
//! decoder is more than the events:
//!
//! - the **last event id** after every block, including blocks that carry no `data:` line, since
//!   a server may announce an id on its own and a resumed stream (`GET` with `Last-Event-ID`)
//!   starts from it;
//! - the **`retry:`** the server asked for, for the delay before that resumption;
//! - a **size limit**: a server that never ends an event is an error
//!   ([`TransportError::MessageTooLarge`]), not a buffer that grows until memory runs out.
//!
//! `eventsource-stream` drops a block without `data:` whole, with its `id:` and `retry:`, and has
//! no size limit, so the decoder is ours. It follows the WHATWG event-stream parsing rules: lines
//! end in CRLF, LF or CR (also across chunk boundaries); a leading byte-order mark is skipped;
//! `:` starts a comment; one space after the colon is dropped; `data:` lines join with `\n`; an
//! `id:` containing NUL is ignored; `retry:` takes ASCII digits only; a block whose data buffer
//! is empty dispatches nothing; an unfinished block at the end of the stream is dropped.
//!
//! An event with empty data (MCP's *priming* event, which only carries an id) is handed on: the
//! caller decides that empty data is not a JSON-RPC message.
//!
//! ```
//! use mcp_transport::sse::SseDecoder;
//!
//! let mut decoder = SseDecoder::new(1024);
//! decoder.push(b"id: 7\ndata:\n\nretry: 250\nevent: message\ndata: {\"jsonrpc\"");
//! decoder.push(b":\"2.0\"}\n\n");
//! let priming = decoder.next_event().unwrap().unwrap();
//! assert_eq!((priming.data.as_str(), priming.id.as_deref()), ("", Some("7")));
//! let message = decoder.next_event().unwrap().unwrap();
//! assert_eq!(message.data, r#"{"jsonrpc":"2.0"}"#);
//! assert_eq!(decoder.last_event_id(), Some("7"));
//! assert_eq!(decoder.retry(), Some(std::time::Duration::from_millis(250)));
//! assert!(decoder.next_event().unwrap().is_none());
//! ```

use std::time::Duration;

use crate::transport::TransportError;

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SseEvent {
    /// The event type; `message` when the block named none.
    pub event: String,
    /// The data lines joined with `\n`; empty for a priming event.
    pub data: String,
    /// The last event id at dispatch (this block's `id:`, or an earlier one), if any.
    pub id: Option<String>,
}

/// A push decoder for a `text/event-stream` body: feed chunks with [`push`](Self::push), take
/// events with [`next_event`](Self::next_event).
#[derive(Debug)]
pub struct SseDecoder {
    /// Bytes received; those before `start` are read, and dropped at the next push.
    buffer: Vec<u8>,
    /// Where the line being read starts in `buffer`.
    start: usize,
    /// How far the line being read is known to hold no line end: the next search starts here.
    scanned: usize,
    /// The previous chunk ended in `\r`: a `\n` starting the next one belongs to it.
    skip_line_feed: bool,
    /// Whether the start of the stream was seen (and a byte-order mark dropped).
    started: bool,
    /// The block being read: its data, its type, and the bytes of its `data:` lines.
    data: String,
    event: String,
    block_bytes: usize,
    last_event_id: Option<String>,
    retry: Option<Duration>,
    max_event_bytes: usize,
    /// Bytes looked at while searching for line ends, over the decoder's life: the work a
    /// body costs, which tests compare with the bytes pushed.
    #[cfg(test)]
    bytes_scanned: usize,
}

const BYTE_ORDER_MARK: &[u8] = b"\xEF\xBB\xBF";

impl SseDecoder {
    /// A decoder that fails on an event whose `data:` lines (field names and line ends
    /// included) come to more than `max_event_bytes`, or on any longer line.
    pub fn new(max_event_bytes: usize) -> Self {
        Self {
            buffer: Vec::new(),
            start: 0,
            scanned: 0,
            skip_line_feed: false,
            started: false,
            data: String::new(),
            event: String::new(),
            block_bytes: 0,
            last_event_id: None,
            retry: None,
            max_event_bytes,
            #[cfg(test)]
            bytes_scanned: 0,
        }
    }

    /// A decoder that resumes a stream: events without an `id:` report `last_event_id` until
    /// the server names another.
    pub fn resuming(max_event_bytes: usize, last_event_id: Option<String>) -> Self {
        Self {
            last_event_id,
            ..Self::new(max_event_bytes)
        }
    }

    /// Appends a chunk of the body.
    pub fn push(&mut self, chunk: &[u8]) {
        if self.start > 0 {
            // What was read goes now, not after every event: the bytes kept are only those
            // not read yet, which a reader that takes every event before pushing again keeps
            // to the tail of the last chunk (an unfinished line that started earlier has
            // nothing read in front of it).
            self.buffer.drain(..self.start);
            self.scanned = self.scanned.saturating_sub(self.start);
            self.start = 0;
        }
        self.buffer.extend_from_slice(chunk);
    }

    /// The next complete event, `None` until more bytes arrive, or
    /// [`TransportError::MessageTooLarge`] once the block being read is over the limit.
    pub fn next_event(&mut self) -> Result<Option<SseEvent>, TransportError> {
        if !self.started {
            if self.buffer.len() < BYTE_ORDER_MARK.len()
                && BYTE_ORDER_MARK.starts_with(&self.buffer)
            {
                return Ok(None);
            }
            if self.buffer.starts_with(BYTE_ORDER_MARK) {
                self.start = BYTE_ORDER_MARK.len();
            }
            self.started = true;
        }
        loop {
            if self.skip_line_feed && self.start < self.buffer.len() {
                self.skip_line_feed = false;
                if self.buffer[self.start] == b'\n' {
                    self.start += 1;
                    continue;
                }
            }
            // The search resumes where the last one stopped: the bytes of an unfinished line
            // are looked at once, however many chunks it takes (searching it again from its
            // start on every chunk made a line that never ends cost quadratic time).
            let from = self.scanned.max(self.start);
            let found = memchr::memchr2(b'\n', b'\r', &self.buffer[from..]);
            #[cfg(test)]
            {
                self.bytes_scanned += found.map_or(self.buffer.len() - from, |at| at + 1);
            }
            let Some(at) = found else {
                self.scanned = self.buffer.len();
                // An unfinished line counts as it will once it ends (a data line with the
                // block's data, any other line alone), so where the chunks split the body never
                // changes the outcome, and a line that never ends fails as soon as it passes
                // the limit.
                let rest = &self.buffer[self.start..];
                let counted = if rest.starts_with(b"data") {
                    self.block_bytes + rest.len()
                } else {
                    rest.len()
                };
                if counted > self.max_event_bytes {
                    return Err(self.too_large());
                }
                return Ok(None);
            };
            let end = from + at;
            let line = String::from_utf8_lossy(&self.buffer[self.start..end]).into_owned();
            let line_bytes = end + 1 - self.start;
            if self.buffer[end] == b'\r' {
                self.skip_line_feed = true;
            }
            self.start = end + 1;
            self.scanned = self.start;
            // Data lines add up; other lines replace a value or are dropped (comments as
            // keep-alives may come forever), so only their own length counts.
            let counted = if line.starts_with("data") {
                self.block_bytes += line_bytes;
                self.block_bytes
            } else {
                line_bytes
            };
            if counted > self.max_event_bytes {
                return Err(self.too_large());
            }
            if line.is_empty() {
                if let Some(event) = self.dispatch() {
                    return Ok(Some(event));
                }
            } else {
                self.field(&line);
            }
        }
    }

    /// Whether bytes pushed are still to be read by [`next_event`](Self::next_event): the rest
    /// of a chunk after the event it returned, or an unfinished line. The `\n` of a `\r\n`
    /// that ended the last event is not counted: it ends a line already read.
    pub fn has_unread_bytes(&self) -> bool {
        match &self.buffer[self.start..] {
            [] => false,
            [b'\n'] => !self.skip_line_feed,
            _ => true,
        }
    }

    /// The id the server named last (the value for `Last-Event-ID`), including ids of blocks
    /// that dispatched nothing.
    pub fn last_event_id(&self) -> Option<&str> {
        self.last_event_id.as_deref()
    }

    /// The reconnection delay the server asked for with `retry:`, if it did.
    pub fn retry(&self) -> Option<Duration> {
        self.retry
    }

    fn field(&mut self, line: &str) {
        let (name, value) = match line.split_once(':') {
            Some(("", _)) => return, // a comment
            Some((name, value)) => (name, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        match name {
            "data" => {
                self.data.push_str(value);
                self.data.push('\n');
            }
            "event" => value.clone_into(&mut self.event),
            "id" if !value.contains('\0') => {
                self.last_event_id = (!value.is_empty()).then(|| value.to_owned());
            }
            "retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                if let Ok(millis) = value.parse() {
                    self.retry = Some(Duration::from_millis(millis));
                }
            }
            _ => {}
        }
    }

    /// Ends the block: its event if it had data, and a clean slate either way.
    fn dispatch(&mut self) -> Option<SseEvent> {
        self.block_bytes = 0;
        let event = std::mem::take(&mut self.event);
        if self.data.is_empty() {
            return None;
        }
        let mut data = std::mem::take(&mut self.data);
        data.pop(); // the `\n` after the last data line
        Some(SseEvent {
            event: if event.is_empty() {
                "message".to_owned()
            } else {
                event
            },
            data,
            id: self.last_event_id.clone(),
        })
    }

    /// Ends the stream: what follows has no start, so nothing of it is kept.
    fn too_large(&mut self) -> TransportError {
        self.buffer.clear();
        self.start = 0;
        self.scanned = 0;
        self.data.clear();
        self.event.clear();
        self.block_bytes = 0;
        TransportError::MessageTooLarge {
            limit: self.max_event_bytes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(event: &str, data: &str, id: Option<&str>) -> SseEvent {
        SseEvent {
            event: event.to_owned(),
            data: data.to_owned(),
            id: id.map(str::to_owned),
        }
    }

    /// Every event the bytes give when pushed in chunks of `chunk` bytes.
    fn decode_in_chunks(bytes: &[u8], chunk: usize) -> (Vec<SseEvent>, SseDecoder) {
        let mut decoder = SseDecoder::new(1 << 20);
        let mut events = Vec::new();
        for piece in bytes.chunks(chunk) {
            decoder.push(piece);
            while let Some(event) = decoder.next_event().expect("within the limit") {
                events.push(event);
            }
        }
        (events, decoder)
    }

    const STREAM: &[u8] = b"\xEF\xBB\xBF: a comment\r\n\
        id: 1\r\ndata:\r\n\r\n\
        event: message\rdata: {\"a\":1}\r\r\
        data:first\ndata: second\nid: 2\n\n\
        id: 3\nretry: 1500\n\n\
        event: endpoint\ndata: /messages?session=x\n\n\
        data: unfinished";

    #[test]
    fn every_line_ending_and_chunk_boundary_gives_the_same_events() {
        let expected = vec![
            event("message", "", Some("1")),
            event("message", "{\"a\":1}", Some("1")),
            event("message", "first\nsecond", Some("2")),
            event("endpoint", "/messages?session=x", Some("3")),
        ];
        for chunk in 1..=STREAM.len() {
            let (events, decoder) = decode_in_chunks(STREAM, chunk);
            assert_eq!(events, expected, "chunks of {chunk} bytes");
            assert_eq!(
                decoder.last_event_id(),
                Some("3"),
                "chunks of {chunk} bytes"
            );
            assert_eq!(decoder.retry(), Some(Duration::from_millis(1500)));
        }
    }

    #[test]
    fn a_block_without_data_keeps_its_id_and_retry() {
        let (events, decoder) = decode_in_chunks(b"id: 41\nretry: 10\n\nid: 42\n\n", 64);
        assert!(events.is_empty());
        assert_eq!(decoder.last_event_id(), Some("42"));
        assert_eq!(decoder.retry(), Some(Duration::from_millis(10)));
    }

    #[test]
    fn bad_ids_and_retries_are_ignored_and_an_empty_id_clears_it() {
        let (_, decoder) = decode_in_chunks(b"id: 5\nid: a\0b\nretry: 1s\nretry: -3\n\n", 64);
        assert_eq!(decoder.last_event_id(), Some("5"));
        assert_eq!(decoder.retry(), None);
        let (events, decoder) = decode_in_chunks(b"id: 5\n\nid\ndata: x\n\n", 64);
        assert_eq!(events, vec![event("message", "x", None)]);
        assert_eq!(decoder.last_event_id(), None);
    }

    #[test]
    fn one_space_after_the_colon_is_dropped_and_no_more() {
        let (events, _) = decode_in_chunks(b"data:  two spaces\ndata\n\n", 64);
        assert_eq!(events, vec![event("message", " two spaces\n", None)]);
    }

    #[test]
    fn only_bytes_after_the_events_read_are_unread_not_the_line_feed_of_their_crlf() {
        let mut decoder = SseDecoder::new(1024);
        decoder.push(b"data: a\r\n\r\n");
        assert_eq!(
            decoder.next_event().unwrap(),
            Some(event("message", "a", None))
        );
        assert!(!decoder.has_unread_bytes(), "the \\n of the last \\r\\n");
        decoder.push(b"\ndata: b\n\ndat");
        assert_eq!(
            decoder.next_event().unwrap(),
            Some(event("message", "b", None))
        );
        assert!(decoder.has_unread_bytes(), "an unfinished line");
        decoder.push(b"a: c\n\n");
        assert_eq!(
            decoder.next_event().unwrap(),
            Some(event("message", "c", None))
        );
        assert!(!decoder.has_unread_bytes());
    }

    #[test]
    fn a_resumed_stream_reports_the_id_it_resumed_from() {
        let mut decoder = SseDecoder::resuming(64, Some("9".to_owned()));
        decoder.push(b"data: again\n\n");
        assert_eq!(
            decoder.next_event().unwrap(),
            Some(event("message", "again", Some("9")))
        );
    }

    #[test]
    fn an_event_over_the_limit_is_an_error_whether_or_not_its_line_ended() {
        let mut decoder = SseDecoder::new(16);
        decoder.push(b"data: 0123456789ab");
        assert!(matches!(
            decoder.next_event(),
            Err(TransportError::MessageTooLarge { limit: 16 })
        ));

        let mut decoder = SseDecoder::new(16);
        decoder.push(b"data: 01234\ndata: 56789\n");
        assert!(matches!(
            decoder.next_event(),
            Err(TransportError::MessageTooLarge { limit: 16 })
        ));

        let mut decoder = SseDecoder::new(16);
        decoder.push(b"data: 0123456\n\ndata: 0123456\n\n");
        assert_eq!(decoder.next_event().unwrap().unwrap().data, "0123456");
        assert_eq!(decoder.next_event().unwrap().unwrap().data, "0123456");
    }

    #[test]
    fn a_line_after_data_counts_alone_even_while_it_is_unfinished() {
        // Found by `cargo xtask fuzz` (target `sse`): the start of an `id:` line after a
        // data line used to count with the data and fail the stream, but only when the
        // chunks split the body there.
        let body = b"data: 01234567\nid: 7\n\n";
        for chunk in 1..=body.len() {
            let mut decoder = SseDecoder::new(16);
            let mut events = Vec::new();
            for piece in body.chunks(chunk) {
                decoder.push(piece);
                while let Some(event) = decoder.next_event().expect("within the limit") {
                    events.push(event);
                }
            }
            assert_eq!(
                events,
                [event("message", "01234567", Some("7"))],
                "chunks of {chunk} bytes"
            );
        }
    }

    #[test]
    fn comments_sent_forever_as_keep_alives_are_not_an_oversized_event() {
        let mut decoder = SseDecoder::new(16);
        for _ in 0..100 {
            decoder.push(b": keep-alive\n");
            assert_eq!(decoder.next_event().unwrap(), None);
        }
        decoder.push(b"data: x\n\n");
        assert_eq!(
            decoder.next_event().unwrap(),
            Some(event("message", "x", None))
        );
    }

    #[test]
    fn sse_line_that_never_ends_is_cut_at_the_limit_and_scanned_once() {
        // A server that sends one `data:` line forever, in small chunks: the stream fails on
        // the chunk that takes the line past the limit, not later; the decoder never holds
        // more than the limit and that chunk; and each byte is searched for a line end once
        // (the unfinished line used to be searched again from its start on every chunk:
        // quadratic work, 80 s of CPU for 26 MB).
        const LIMIT: usize = 64 * 1024;
        const CHUNK: usize = 100;
        let mut decoder = SseDecoder::new(LIMIT);
        let mut pushed = 0;
        let mut chunks =
            std::iter::once(&b"data: "[..]).chain(std::iter::repeat([b'x'; CHUNK].as_slice()));
        let error = loop {
            let chunk = chunks.next().expect("endless");
            decoder.push(chunk);
            pushed += chunk.len();
            assert!(
                decoder.buffer.len() <= LIMIT + CHUNK,
                "{} bytes buffered after {pushed} pushed",
                decoder.buffer.len()
            );
            match decoder.next_event() {
                Ok(None) => assert!(pushed <= LIMIT, "still reading after {pushed} bytes"),
                Ok(Some(event)) => panic!("an event from an unfinished line: {event:?}"),
                Err(error) => break error,
            }
        };
        assert!(matches!(
            error,
            TransportError::MessageTooLarge { limit: LIMIT }
        ));
        assert!(
            pushed > LIMIT && pushed <= LIMIT + CHUNK,
            "cut after {pushed} bytes"
        );
        assert!(
            decoder.bytes_scanned <= pushed,
            "{} bytes scanned for {pushed} pushed",
            decoder.bytes_scanned
        );
        assert!(
            decoder.buffer.is_empty(),
            "an unusable stream keeps nothing"
        );
    }

    #[test]
    fn events_split_across_many_chunks_are_scanned_once() {
        // Lines of every ending, each split over several pushes, with events between: the
        // search for a line end resumes where it stopped.
        let line = format!("data: {}\r\n", "y".repeat(1000));
        let body = format!("id: 1\r{line}{line}\n: comment\rdata: z\r\r").repeat(20);
        let (events, decoder) = decode_in_chunks(body.as_bytes(), 7);
        assert_eq!(events.len(), 40);
        assert!(
            decoder.bytes_scanned <= body.len(),
            "{} bytes scanned for {} pushed",
            decoder.bytes_scanned,
            body.len()
        );
    }

    #[test]
    fn a_partial_byte_order_mark_waits_for_the_rest() {
        let mut decoder = SseDecoder::new(64);
        decoder.push(b"\xEF\xBB");
        assert_eq!(decoder.next_event().unwrap(), None);
        decoder.push(b"\xBFdata: x\n\n");
        assert_eq!(
            decoder.next_event().unwrap(),
            Some(event("message", "x", None))
        );
    }
}
