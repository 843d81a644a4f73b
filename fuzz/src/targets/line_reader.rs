//! Target `line_reader`: the newline-delimited framing of stdio (and of every byte-stream
//! transport), `mcp_transport::framing::LineReader`, with its message size limit.
//!
//! A server's stdout is the least trusted input the client has: any bytes, in reads of any
//! size, lines of any length. The property, for arbitrary bytes and for streams built from
//! lines near the limit, huge lines, CRLF and bare CR endings, blank lines and JSON-RPC
//! messages, each read in chunks of drawn sizes:
//!
//! - the reader gives exactly what a simple model of the framing gives: each line (the last
//!   one may lack its `\n`) with one trailing `\r` dropped, blank ones skipped, and a line over
//!   the limit reported as `MessageSkipped` with its size (without the `\r`) and the limit —
//!   whatever the chunk sizes, so where the reads split the stream never changes what is read;
//! - no message is longer than the limit;
//! - it never panics and never holds much more than the limit: its peak allocation stays under
//!   `2 × (limit + 64 KiB) + 32 KiB` (64 KiB is the reader's read size; 32 KiB covers the
//!   start and end kept of a skipped line to find its id), however long the lines are — a
//!   1 MiB line with a 1 KiB limit must not be buffered.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use bytes::Bytes;
use mcp_transport::TransportError;
use mcp_transport::framing::LineReader;
use proptest::prelude::*;
use proptest::sample::select;
use tokio::io::{AsyncRead, ReadBuf};

use crate::grammar::{self, Blob};
use crate::runner::{Report, Settings, fuzz};

/// One input: the limit, the bytes the server writes, and the sizes of the reads that deliver
/// them (used in turn, round and round).
#[derive(Debug, Clone)]
pub struct LineInput {
    limit: usize,
    stream: Blob,
    reads: Vec<usize>,
}

/// The reader's read size; the memory bound allows for a few of these.
const READ_CHUNK: usize = 64 * 1024;

/// Runs the target.
pub fn run(settings: &Settings) -> Report {
    fuzz("line_reader", settings, input(), check)
}

fn input() -> impl Strategy<Value = LineInput> {
    let limit = prop_oneof![1usize..64, 64usize..2048];
    let reads = prop::collection::vec(prop_oneof![3 => 1usize..64, 1 => 64usize..100_000], 1..6);
    (limit, reads).prop_flat_map(|(limit, reads)| {
        let stream = prop_oneof![
            1 => grammar::raw_bytes(512),
            3 => grammar::mutated(
                prop::collection::vec(line(limit), 0..8).prop_map(|lines| lines.concat())
            ),
        ];
        (Just(limit), stream, Just(reads)).prop_map(|(limit, stream, reads)| LineInput {
            limit,
            stream,
            reads,
        })
    })
}

/// A line (or a piece of one, when its ending is empty) built to probe the limit.
fn line(limit: usize) -> impl Strategy<Value = Vec<u8>> {
    let body = prop_oneof![
        // A JSON-RPC response padded to the limit give or take two bytes.
        2 => (-2i64..=2).prop_map(move |delta| padded_response(limit, delta)),
        // A response far over the limit (its id at the end, as TypeScript servers write it).
        1 => prop_oneof![4 => 1usize..8192, 1 => 8192usize..(1 << 20)].prop_map(|size| {
            let mut line = b"{\"result\":{\"text\":\"".to_vec();
            line.resize(line.len() + size, b'x');
            line.extend_from_slice(b"\"},\"jsonrpc\":\"2.0\",\"id\":7}");
            line
        }),
        2 => grammar::call_tool_result().prop_map(|result| {
            serde_json::json!({"jsonrpc": "2.0", "id": 2, "result": result})
                .to_string()
                .into_bytes()
        }),
        1 => prop::collection::vec(select(&b" \t\r\x0c"[..]), 0..4),
        1 => grammar::raw_bytes(96).prop_map(|blob| blob.0),
    ];
    let ending = select(&["\n", "\n", "\r\n", "\r", ""][..]);
    (body, ending).prop_map(|(mut body, ending)| {
        body.extend_from_slice(ending.as_bytes());
        body
    })
}

/// `{"jsonrpc":"2.0","id":1,"result":"xxx…"}` of `limit + delta` bytes (or as short as it can
/// be).
fn padded_response(limit: usize, delta: i64) -> Vec<u8> {
    let frame = br#"{"jsonrpc":"2.0","id":1,"result":""}"#;
    let wanted = i64::try_from(limit)
        .unwrap_or(i64::MAX)
        .saturating_add(delta);
    let padding = usize::try_from(wanted)
        .unwrap_or(0)
        .saturating_sub(frame.len());
    let mut line = frame[..frame.len() - 2].to_vec();
    line.resize(line.len() + padding, b'x');
    line.extend_from_slice(b"\"}");
    line
}

/// What the reader must give for one line.
#[derive(Debug, PartialEq)]
enum Expected {
    Message(Vec<u8>),
    Skipped { size: usize },
}

/// The framing, written as plainly as possible.
fn model(stream: &[u8], limit: usize) -> Vec<Expected> {
    let mut expected = Vec::new();
    let mut rest = stream;
    while !rest.is_empty() {
        let (line, after) = match rest.iter().position(|&byte| byte == b'\n') {
            Some(end) => (&rest[..end], &rest[end + 1..]),
            None => (rest, &[][..]),
        };
        rest = after;
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.len() > limit {
            expected.push(Expected::Skipped { size: line.len() });
        } else if !line.iter().all(u8::is_ascii_whitespace) {
            expected.push(Expected::Message(line.to_vec()));
        }
    }
    expected
}

fn check(input: &LineInput) -> Result<(), String> {
    let expected = model(&input.stream.0, input.limit);
    let reads = Reads {
        rest: &input.stream.0,
        sizes: &input.reads,
        next: 0,
    };
    let mut reader = LineReader::new(reads, input.limit);
    let (outcome, peak) = crate::alloc_meter::peak_during(|| {
        let mut index = 0;
        loop {
            let got = match poll_now(reader.next_message())? {
                Ok(None) => break,
                Ok(Some(message)) => check_message(&message, input.limit)?,
                Err(TransportError::MessageSkipped { limit, size, .. }) => {
                    if limit != input.limit {
                        return Err(format!(
                            "a skipped message names the limit {limit}, not {}",
                            input.limit
                        ));
                    }
                    Expected::Skipped { size }
                }
                Err(other) => return Err(format!("unexpected error: {other}")),
            };
            match expected.get(index) {
                Some(want) if *want == got => {}
                want => {
                    return Err(format!(
                        "item {index}: the reader gave {}, the model {}",
                        show(Some(&got)),
                        show(want)
                    ));
                }
            }
            index += 1;
        }
        if index == expected.len() {
            Ok(())
        } else {
            Err(format!(
                "the reader ended after {index} items; the model has {}, the next {}",
                expected.len(),
                show(expected.get(index))
            ))
        }
    });
    outcome?;
    let bound = 2 * (input.limit + READ_CHUNK) + 32 * 1024;
    if peak > bound {
        return Err(format!(
            "reading held {peak} bytes at once, over the bound of {bound} for a limit of {} \
             (stream of {} bytes)",
            input.limit,
            input.stream.0.len()
        ));
    }
    Ok(())
}

fn check_message(message: &Bytes, limit: usize) -> Result<Expected, String> {
    if message.len() > limit {
        return Err(format!(
            "a message of {} bytes passed the limit of {limit}",
            message.len()
        ));
    }
    if message.contains(&b'\n') {
        return Err("a message holds a newline".to_owned());
    }
    Ok(Expected::Message(message.to_vec()))
}

fn show(item: Option<&Expected>) -> String {
    match item {
        None => "nothing".to_owned(),
        Some(Expected::Skipped { size }) => format!("a skipped line of {size} bytes"),
        Some(Expected::Message(bytes)) => format!(
            "the message b\"{}\" ({} bytes)",
            bytes.escape_ascii(),
            bytes.len()
        ),
    }
}

/// Polls a future that never waits (its reader always has bytes or the end ready) to its end.
fn poll_now<F: Future>(future: F) -> Result<F::Output, String> {
    let mut future = std::pin::pin!(future);
    match future
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        Poll::Ready(output) => Ok(output),
        Poll::Pending => Err("the reader waited on a stream that never blocks".to_owned()),
    }
}

/// An in-memory stream that hands out its bytes in reads of the given sizes.
struct Reads<'a> {
    rest: &'a [u8],
    sizes: &'a [usize],
    next: usize,
}

impl AsyncRead for Reads<'_> {
    fn poll_read(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let size = this
            .sizes
            .get(this.next % this.sizes.len().max(1))
            .copied()
            .unwrap_or(1)
            .max(1);
        this.next += 1;
        let take = size.min(this.rest.len()).min(buf.remaining());
        buf.put_slice(&this.rest[..take]);
        this.rest = &this.rest[take..];
        Poll::Ready(Ok(()))
    }
}
