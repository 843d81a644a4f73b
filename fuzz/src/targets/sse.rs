//! Target `sse`: `mcp_transport::sse::SseDecoder`, the decoder both HTTP transports read every
//! `text/event-stream` body with (our own, with a size limit, in place of `eventsource-stream`).
//!
//! A remote server's body arrives in chunks whose boundaries the network chooses. For arbitrary
//! bytes and for streams built from SSE fields (`data:`, `id:`, `event:`, `retry:`, comments,
//! unknown fields, fields without a colon), CR, LF and CRLF line ends, a byte-order mark, NULs,
//! non-UTF-8 bytes and data lines near the limit, fed in chunks of drawn sizes:
//!
//! - the events, the last event id, the retry delay and the first `MessageTooLarge` error are
//!   the same as when the whole body is pushed at once: where the chunks split the body never
//!   changes what is decoded;
//! - no event's data is longer than the limit (counting the bytes read: an invalid UTF-8 byte
//!   becomes a three-byte U+FFFD in the event);
//! - it never panics and holds at most `4 × (limit + largest chunk) + 16 KiB` at once, beyond
//!   the events it gave (each counted at four times its size).

use std::time::Duration;

use mcp_transport::TransportError;
use mcp_transport::sse::{SseDecoder, SseEvent};
use proptest::prelude::*;
use proptest::sample::select;

use crate::grammar::{self, Blob};
use crate::runner::{Report, Settings, fuzz};

/// One input: the limit, the body, and the sizes of the chunks it arrives in (used in turn).
#[derive(Debug, Clone)]
pub struct SseInput {
    limit: usize,
    body: Blob,
    chunks: Vec<usize>,
}

/// Runs the target.
pub fn run(settings: &Settings) -> Report {
    fuzz("sse", settings, input(), check)
}

fn input() -> impl Strategy<Value = SseInput> {
    let limit = prop_oneof![1 => 1usize..32, 3 => 32usize..1024];
    let chunks = prop::collection::vec(prop_oneof![3 => 1usize..16, 1 => 16usize..4096], 1..6);
    (limit, chunks).prop_flat_map(|(limit, chunks)| {
        let body = prop_oneof![
            1 => grammar::raw_bytes(256),
            3 => grammar::mutated(stream(limit)),
        ];
        (Just(limit), body, Just(chunks)).prop_map(|(limit, body, chunks)| SseInput {
            limit,
            body,
            chunks,
        })
    })
}

/// A body of SSE lines, some of them sized against the limit.
fn stream(limit: usize) -> impl Strategy<Value = Vec<u8>> {
    let name = select(
        &[
            "data", "data", "data", "id", "event", "retry", "", "dat", "data ", "x", "ID",
        ][..],
    );
    let value = prop_oneof![
        6 => grammar::text(8),
        1 => Just(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#.to_owned()),
        2 => (0u32..100_000).prop_map(|millis| millis.to_string()),
        1 => (0usize..4).prop_map(move |extra| "x".repeat((limit + extra).saturating_sub(6))),
    ];
    let separator = select(&[": ", ":", " : ", ""][..]);
    let end = select(&["\n", "\r\n", "\r", "\n\n", "\r\n\r\n", "\r\r"][..]);
    let line = (name, separator, value, end)
        .prop_map(|(name, separator, value, end)| format!("{name}{separator}{value}{end}"));
    (
        prop::bool::weighted(0.1),
        prop::collection::vec(line, 0..12),
    )
        .prop_map(|(bom, lines)| {
            let mut bytes = if bom {
                b"\xEF\xBB\xBF".to_vec()
            } else {
                Vec::new()
            };
            for line in lines {
                bytes.extend_from_slice(line.as_bytes());
            }
            bytes
        })
}

/// What a decoder gave: its events, then the end or the first error, and its id and retry.
#[derive(Debug, PartialEq)]
struct Decoded {
    events: Vec<SseEvent>,
    too_large: Option<usize>,
    last_event_id: Option<String>,
    retry: Option<Duration>,
}

/// Takes every event the decoder has; `Err(limit)` at a `MessageTooLarge`.
fn drain(
    decoder: &mut SseDecoder,
    events: &mut Vec<SseEvent>,
) -> Result<Result<(), usize>, String> {
    loop {
        match decoder.next_event() {
            Ok(Some(event)) => events.push(event),
            Ok(None) => return Ok(Ok(())),
            Err(TransportError::MessageTooLarge { limit }) => return Ok(Err(limit)),
            Err(other) => return Err(format!("unexpected error: {other}")),
        }
    }
}

fn decode(body: &[u8], limit: usize, chunks: Option<&[usize]>) -> Result<Decoded, String> {
    let mut decoder = SseDecoder::new(limit);
    let mut events = Vec::new();
    let mut too_large = None;
    match chunks {
        None => {
            decoder.push(body);
            too_large = drain(&mut decoder, &mut events)?.err();
        }
        Some(sizes) => {
            let mut rest = body;
            let mut turn = 0;
            while !rest.is_empty() {
                let size = sizes
                    .get(turn % sizes.len().max(1))
                    .copied()
                    .unwrap_or(1)
                    .max(1)
                    .min(rest.len());
                turn += 1;
                decoder.push(&rest[..size]);
                rest = &rest[size..];
                if let Err(limit) = drain(&mut decoder, &mut events)? {
                    too_large = Some(limit);
                    break;
                }
            }
        }
    }
    Ok(Decoded {
        events,
        too_large,
        last_event_id: decoder.last_event_id().map(str::to_owned),
        retry: decoder.retry(),
    })
}

fn check(input: &SseInput) -> Result<(), String> {
    let body = &input.body.0;
    let whole = decode(body, input.limit, None)?;
    let (chunked, peak) =
        crate::alloc_meter::peak_during(|| decode(body, input.limit, Some(&input.chunks)));
    let chunked = chunked?;
    if let Some(limit) = whole.too_large.filter(|limit| *limit != input.limit) {
        return Err(format!(
            "the error names the limit {limit}, not {}",
            input.limit
        ));
    }
    for event in &whole.events {
        // The limit is on the bytes read; each invalid UTF-8 byte became a three-byte U+FFFD.
        let replaced = event.data.matches('\u{FFFD}').count();
        let read = event.data.len() - 2 * replaced;
        if read > input.limit {
            return Err(format!(
                "an event of {read} bytes of data passed the limit of {}",
                input.limit
            ));
        }
    }
    if whole != chunked {
        return Err(format!(
            "the chunks changed what was decoded:\n  whole body: {whole:?}\n  in chunks:  {chunked:?}"
        ));
    }
    let largest_chunk = input.chunks.iter().copied().max().unwrap_or(1);
    let kept: usize = chunked
        .events
        .iter()
        .map(|event| event.data.len() + event.event.len() + 64)
        .sum();
    let bound = 4 * (input.limit + largest_chunk) + 4 * kept + 16 * 1024;
    if peak > bound {
        return Err(format!(
            "decoding held {peak} bytes at once, over the bound of {bound} (limit {}, body of \
             {} bytes)",
            input.limit,
            body.len()
        ));
    }
    Ok(())
}
