//! SSE decoding benchmark: what a 40 MB body costs [`SseDecoder`] when it is a normal stream of
//! events, and when it is one `data:` line that never ends (a hostile or broken server).
//!
//! Each body arrives in 8 KiB chunks, as a socket hands it on, and is decoded the way the HTTP
//! transports do: a push, then every event the decoder has. Three cases:
//!
//! - `events`: 40 MB of 4 KiB events, under the default limit (32 MiB per event);
//! - `endless-line`: `data: ` and 40 MB without a line end, under a limit above it (64 MiB), so
//!   the whole body is read as one unfinished line;
//! - `endless-line-default-limit`: the same line under the default limit, which ends the stream
//!   with `MessageTooLarge`; the bytes pushed until then are reported.
//!
//! Figures: wall time and this thread's CPU time (`/proc/thread-self/schedstat`), median over
//! the runs, and the throughput. Linear decoding shows as `endless-line` costing about what
//! `events` costs (the ratio is printed); the unfinished line used to be searched again from its
//! start on every chunk, which made the same 40 MB cost minutes.
//!
//! Usage: `cargo bench -p mcp-transport --bench sse -- [--quick]` (`cargo xtask bench` runs it).
//! `--quick` runs each case once instead of five times; `--list` prints nothing; without
//! `--bench` among the arguments (as under `cargo test --benches`) a 1 MB smoke run is done.
//! A readable table goes to stdout, followed by one JSON line with every figure.

use std::error::Error;
use std::time::{Duration, Instant};

use mcp_transport::TransportError;
use mcp_transport::sse::SseDecoder;
use serde_json::json;

type Result<T, E = Box<dyn Error>> = std::result::Result<T, E>;

/// The chunk size the bodies arrive in.
const CHUNK: usize = 8 * 1024;
/// The data of one event of the `events` case.
const EVENT_DATA: usize = 4 * 1024;
/// The transports' default limit per event.
const DEFAULT_LIMIT: usize = 32 * 1024 * 1024;

/// What one invocation runs.
struct Plan {
    body_bytes: usize,
    runs: usize,
    mode: &'static str,
}

/// One case: a name, its body and its limit.
struct Case {
    name: &'static str,
    body: Vec<u8>,
    limit: usize,
}

/// One decode of a body.
struct Run {
    wall: Duration,
    cpu: Option<Duration>,
    events: usize,
    /// Bytes pushed until the stream ended (its end, or `MessageTooLarge`).
    pushed: usize,
    too_large: bool,
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|arg| arg == "--list") {
        return Ok(());
    }
    let plan = if !args.iter().any(|arg| arg == "--bench") {
        Plan {
            body_bytes: 1_000_000,
            runs: 1,
            mode: "smoke",
        }
    } else if args.iter().any(|arg| arg == "--quick") {
        Plan {
            body_bytes: 40_000_000,
            runs: 1,
            mode: "quick",
        }
    } else {
        Plan {
            body_bytes: 40_000_000,
            runs: 5,
            mode: "full",
        }
    };
    let cases = [
        Case {
            name: "events",
            body: events_body(plan.body_bytes),
            limit: DEFAULT_LIMIT,
        },
        Case {
            name: "endless-line",
            body: endless_line(plan.body_bytes),
            limit: 64 * 1024 * 1024,
        },
        Case {
            name: "endless-line-default-limit",
            body: endless_line(plan.body_bytes),
            limit: DEFAULT_LIMIT,
        },
    ];
    let mut results = Vec::new();
    for case in &cases {
        let runs = (0..plan.runs)
            .map(|_| decode(&case.body, case.limit))
            .collect::<Result<Vec<_>>>()?;
        results.push((case, runs));
    }
    report(&plan, &results)
}

/// Events of [`EVENT_DATA`] bytes of data, `body_bytes` in all (to within one event).
fn events_body(body_bytes: usize) -> Vec<u8> {
    let mut event = b"event: message\ndata: ".to_vec();
    event.resize(event.len() + EVENT_DATA, b'e');
    event.extend_from_slice(b"\n\n");
    let count = body_bytes.div_ceil(event.len());
    event.repeat(count)
}

/// `data: ` and then `body_bytes` bytes that never end the line.
fn endless_line(body_bytes: usize) -> Vec<u8> {
    let mut body = b"data: ".to_vec();
    body.resize(body.len() + body_bytes, b'x');
    body
}

/// Decodes `body` in chunks of [`CHUNK`] bytes, as the transports read a response.
fn decode(body: &[u8], limit: usize) -> Result<Run> {
    let cpu_before = thread_cpu();
    let started = Instant::now();
    let mut decoder = SseDecoder::new(limit);
    let mut events = 0;
    let mut pushed = 0;
    let mut too_large = false;
    'body: for chunk in body.chunks(CHUNK) {
        decoder.push(chunk);
        pushed += chunk.len();
        loop {
            match decoder.next_event() {
                Ok(Some(event)) => {
                    events += 1;
                    std::hint::black_box(event);
                }
                Ok(None) => break,
                Err(TransportError::MessageTooLarge { .. }) => {
                    too_large = true;
                    break 'body;
                }
                Err(other) => return Err(format!("unexpected error: {other}").into()),
            }
        }
    }
    let wall = started.elapsed();
    let cpu = match (cpu_before, thread_cpu()) {
        (Some(before), Some(after)) => after.checked_sub(before),
        _ => None,
    };
    Ok(Run {
        wall,
        cpu,
        events,
        pushed,
        too_large,
    })
}

/// The CPU time this thread has run so far (Linux; `None` elsewhere).
fn thread_cpu() -> Option<Duration> {
    let schedstat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let nanos = schedstat.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(nanos))
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    match values.len() {
        0 => 0.0,
        len if len % 2 == 1 => values[len / 2],
        len => (values[len / 2 - 1] + values[len / 2]) / 2.0,
    }
}

fn report(plan: &Plan, results: &[(&Case, Vec<Run>)]) -> Result<()> {
    println!(
        "sse: {} MB bodies in {} KiB chunks, {} run(s) per case ({})",
        plan.body_bytes / 1_000_000,
        CHUNK / 1024,
        plan.runs,
        plan.mode
    );
    println!(
        "{:<28} {:>12} {:>12} {:>12} {:>14} {:>8} {:>12}",
        "case", "limit", "wall med", "cpu med", "throughput", "events", "pushed"
    );
    let mut json_cases = serde_json::Map::new();
    let mut walls = Vec::new();
    for (case, runs) in results {
        let wall_ms = median(
            runs.iter()
                .map(|run| run.wall.as_secs_f64() * 1e3)
                .collect(),
        );
        let cpu_ms = runs
            .iter()
            .map(|run| run.cpu.map(|cpu| cpu.as_secs_f64() * 1e3))
            .collect::<Option<Vec<_>>>()
            .map(median);
        let pushed = runs.first().map_or(0, |run| run.pushed);
        let events = runs.first().map_or(0, |run| run.events);
        let too_large = runs.first().is_some_and(|run| run.too_large);
        let mb_per_s = pushed as f64 / 1e6 / (wall_ms / 1e3).max(f64::MIN_POSITIVE);
        println!(
            "{:<28} {:>9} MiB {:>9.1} ms {:>12} {:>9.0} MB/s {:>8} {:>12}{}",
            case.name,
            case.limit / (1024 * 1024),
            wall_ms,
            cpu_ms.map_or_else(|| "-".to_owned(), |cpu| format!("{cpu:.1} ms")),
            mb_per_s,
            events,
            pushed,
            if too_large { " (MessageTooLarge)" } else { "" }
        );
        walls.push(wall_ms);
        json_cases.insert(
            case.name.to_owned(),
            json!({
                "limit_bytes": case.limit,
                "wall_ms_median": (wall_ms * 10.0).round() / 10.0,
                "cpu_ms_median": cpu_ms.map(|cpu| (cpu * 10.0).round() / 10.0),
                "mb_per_s": mb_per_s.round(),
                "events": events,
                "pushed_bytes": pushed,
                "message_too_large": too_large,
            }),
        );
    }
    let ratio = match walls.as_slice() {
        [events, endless, ..] => endless / events.max(f64::MIN_POSITIVE),
        _ => return Err("fewer cases than expected".into()),
    };
    println!("endless line / events, same bytes: {ratio:.2}× (linear decoding keeps this near 1)");
    let cut = results
        .iter()
        .find(|(case, _)| case.name == "endless-line-default-limit")
        .and_then(|(_, runs)| runs.first());
    // The limit ends a line that never ends at once: on the chunk that passes it.
    if let Some(run) = cut
        && plan.body_bytes > DEFAULT_LIMIT
        && !(run.too_large && run.pushed <= DEFAULT_LIMIT + CHUNK)
    {
        return Err(format!(
            "the endless line was not cut at the limit: {} bytes read, limit {DEFAULT_LIMIT}",
            run.pushed
        )
        .into());
    }
    let line = json!({
        "bench": "sse",
        "mode": plan.mode,
        "body_bytes": plan.body_bytes,
        "chunk_bytes": CHUNK,
        "runs_per_case": plan.runs,
        "cases": json_cases,
        "endless_over_events": (ratio * 100.0).round() / 100.0,
    });
    println!("{line}");
    Ok(())
}
