//! One of several agent processes sharing a tool cache directory: it writes its own server's
//! tool list and reads its own and a peer's, over and over, and checks every hit.
//!
//! ```text
//! cargo run -p mcp-cache --example cache_worker -- --dir DIR --id NAME --peer NAME
//!     [--seconds N] [--sleep-ms N]
//! cargo run -p mcp-cache --example cache_worker -- verify --id NAME < tools.json
//! ```
//!
//! The worker opens `SledToolCache::open_at(DIR, CacheOptions::default())` and, for `--seconds`
//! (default 3), loops: store the tools of server `--id` under a new generation, look up `--id`,
//! look up `--peer`, sleep `--sleep-ms` (default 2). A worker's tools are a deterministic
//! function of its name and the generation, which every tool description carries, so any reader
//! can tell an intact list from a damaged or mixed one. Then it prints one JSON line:
//!
//! ```text
//! {"id", "peer", "iterations", "own_hits", "peer_hits", "misses": {REASON: n},
//!  "misses_by_key": {"own": {REASON: n}, "peer": {REASON: n}}, "corrupt", "own_stale",
//!  "peer_regressions", "last_peer_generation", "peer_generations_seen", "warnings", "panics",
//!  "op_ms": {"p50", "p99", "max"}, "slow_ops"}
//! ```
//!
//! - `corrupt`: hits whose tools are not exactly what the worker of that name writes for any
//!   generation, or of a generation not written yet. Must be 0.
//! - `own_stale`: own lookups that returned an older generation than the one just stored (the
//!   store was locked and the write skipped). `peer_regressions`: peer lookups that went back to
//!   an older generation than an earlier lookup had seen (a lost write).
//!   `peer_generations_seen`: how many different generations of the peer's list this worker
//!   read; two or more means it saw the peer write while both ran, not only what the peer left.
//! - `warnings`: `WARN`/`ERROR` events the cache logged (also printed on stderr), `panics`:
//!   panics on any thread (the cache's blocking tasks included), `slow_ops`: cache calls that
//!   took 100 ms or more.
//!
//! Exit status 0, or 1 with a message on stderr if a hit did not verify or anything panicked
//! (the summary is printed either way), 2 for bad usage.
//!
//! `verify --id NAME` reads a JSON array of tools on stdin, checks it is exactly the list worker
//! NAME writes for some generation, and prints `{"id", "generation"}`; exit status 1 if not.
//! A test that read the cache in its own process uses it, so the tool generator lives here only.

use std::collections::BTreeMap;
use std::error::Error;
use std::fmt::Write as _;
use std::io::Read as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use mcp_cache::{CacheEntry, CacheOptions, Fingerprint, MissReason, SledToolCache, ToolCache};
use mcp_transport::{JsonObject, Tool};
use serde_json::{Value, json};

type BoxError = Box<dyn Error + Send + Sync>;

/// Tools per server: a realistic size for a busy MCP server.
const TOOLS_PER_SERVER: usize = 50;
/// A cache call this slow or slower is counted in `slow_ops`.
const SLOW_OP: Duration = Duration::from_millis(100);

static PANICS: AtomicUsize = AtomicUsize::new(0);
static WARNINGS: AtomicUsize = AtomicUsize::new(0);

const USAGE: &str = "usage: cache_worker --dir DIR --id NAME --peer NAME [--seconds N] \
                     [--sleep-ms N]\n       cache_worker verify --id NAME < tools.json";

enum Mode {
    Work(WorkArgs),
    Verify { id: String },
}

struct WorkArgs {
    dir: PathBuf,
    id: String,
    peer: String,
    run_for: Duration,
    sleep: Duration,
}

fn parse_args(args: impl IntoIterator<Item = String>) -> Result<Mode, String> {
    let mut args = args.into_iter().peekable();
    let verify = args.next_if(|first| first == "verify").is_some();
    let mut dir = None;
    let mut id = None;
    let mut peer = None;
    let mut seconds = 3.0_f64;
    let mut sleep_ms = 2_u64;
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--dir" => dir = Some(PathBuf::from(value()?)),
            "--id" => id = Some(value()?),
            "--peer" => peer = Some(value()?),
            "--seconds" => {
                let text = value()?;
                seconds = text
                    .parse()
                    .ok()
                    .filter(|seconds: &f64| seconds.is_finite() && *seconds >= 0.0)
                    .ok_or_else(|| format!("--seconds wants a number of seconds, got `{text}`"))?;
            }
            "--sleep-ms" => {
                let text = value()?;
                sleep_ms = text
                    .parse()
                    .map_err(|_| format!("--sleep-ms wants milliseconds, got `{text}`"))?;
            }
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    let id = id.ok_or("--id is required")?;
    if verify {
        return Ok(Mode::Verify { id });
    }
    Ok(Mode::Work(WorkArgs {
        dir: dir.ok_or("--dir is required")?,
        id,
        peer: peer.ok_or("--peer is required")?,
        run_for: Duration::from_secs_f64(seconds),
        sleep: Duration::from_millis(sleep_ms),
    }))
}

fn main() -> ExitCode {
    let mode = match parse_args(std::env::args().skip(1)) {
        Ok(mode) => mode,
        Err(message) => {
            eprintln!("cache_worker: {message}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let outcome = match mode {
        Mode::Verify { id } => verify_stdin(&id),
        Mode::Work(args) => {
            install_panic_counter();
            if let Err(error) = tracing::subscriber::set_global_default(WarningCounter) {
                eprintln!("cache_worker: cannot install the log subscriber: {error}");
            }
            work(&args)
        }
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("cache_worker: {error}");
            ExitCode::FAILURE
        }
    }
}

/// The tools worker `id` stores at `generation`: names, ~100-character descriptions and input
/// schemas of five properties, all derived from the two, the generation written into every
/// description.
fn tools_of(id: &str, generation: u64) -> Vec<Tool> {
    const KINDS: [(&str, &str); 5] = [
        ("path", "string"),
        ("limit", "integer"),
        ("recursive", "boolean"),
        ("pattern", "string"),
        ("timeout_ms", "number"),
    ];
    (0..TOOLS_PER_SERVER)
        .map(|index| {
            let mut properties = JsonObject::new();
            for (offset, (name, kind)) in KINDS.iter().enumerate() {
                properties.insert(
                    format!("{name}_{}", (index + offset) % 7),
                    json!({
                        "type": kind,
                        "description": format!("The {name} the {id} tool {index} works on."),
                    }),
                );
            }
            let mut schema = JsonObject::new();
            schema.insert("type".to_owned(), json!("object"));
            schema.insert("properties".to_owned(), Value::Object(properties));
            schema.insert(
                "required".to_owned(),
                json!([format!("{}_{}", KINDS[0].0, index % 7)]),
            );
            Tool::new(
                format!("{id}_tool_{index:02}"),
                Some(format!(
                    "Tool {index} of server {id}: searches, lists and reads the resources it \
                     serves. [generation {generation}]"
                )),
                schema,
            )
        })
        .collect()
}

/// The generation of a list of tools that is exactly what worker `id` writes, or why not.
fn verify(id: &str, tools: &[Tool]) -> Result<u64, String> {
    let first = tools
        .first()
        .ok_or_else(|| format!("an empty tool list for {id}"))?;
    let description = first.description.as_deref().unwrap_or_default();
    let generation = description
        .rsplit_once("[generation ")
        .and_then(|(_, rest)| rest.strip_suffix(']'))
        .and_then(|number| number.parse::<u64>().ok())
        .ok_or_else(|| format!("no generation in the first tool of {id}: {description:?}"))?;
    if tools == tools_of(id, generation).as_slice() {
        Ok(generation)
    } else {
        Err(format!(
            "the {} tools read for {id} (generation {generation}) differ from what {id} writes",
            tools.len()
        ))
    }
}

fn fingerprint_of(id: &str) -> Fingerprint {
    Fingerprint::of(&json!({"command": "mcp-server", "args": ["--name", id]}))
}

fn verify_stdin(id: &str) -> Result<(), BoxError> {
    let mut input = String::new();
    std::io::stdin().read_to_string(&mut input)?;
    let tools: Vec<Tool> = serde_json::from_str(&input)?;
    let generation = verify(id, &tools)?;
    println!("{}", json!({"id": id, "generation": generation}));
    Ok(())
}

#[derive(Default)]
struct Tally {
    iterations: u64,
    own_hits: u64,
    peer_hits: u64,
    own_misses: BTreeMap<String, u64>,
    peer_misses: BTreeMap<String, u64>,
    corrupt: u64,
    own_stale: u64,
    peer_regressions: u64,
    last_peer_generation: u64,
    peer_generations_seen: u64,
    op_times: Vec<Duration>,
    problems: Vec<String>,
}

impl Tally {
    /// Records one cache call's duration.
    fn timed(&mut self, started: Instant) {
        self.op_times.push(started.elapsed());
    }

    /// Counts a lookup; returns the verified generation of a hit.
    fn lookup(
        &mut self,
        whose: &str,
        own: bool,
        lookup: Result<CacheEntry, MissReason>,
    ) -> Option<u64> {
        let tools = match lookup {
            Ok(entry) => entry.tools,
            Err(reason) => {
                let reason = format!("{reason:?}");
                let misses = if own {
                    &mut self.own_misses
                } else {
                    &mut self.peer_misses
                };
                *misses.entry(reason).or_default() += 1;
                return None;
            }
        };
        match verify(whose, &tools) {
            Ok(generation) => {
                if own {
                    self.own_hits += 1;
                } else {
                    self.peer_hits += 1;
                }
                Some(generation)
            }
            Err(problem) => {
                self.corrupt += 1;
                self.note(problem);
                None
            }
        }
    }

    fn note(&mut self, problem: String) {
        // The first few are enough to diagnose; the count says the rest.
        if self.problems.len() < 5 {
            self.problems.push(problem);
        }
    }

    fn summary(&mut self, args: &WorkArgs) -> Value {
        self.op_times.sort_unstable();
        let at = |fraction: f64| {
            let times = &self.op_times;
            if times.is_empty() {
                return 0.0;
            }
            // Nearest rank.
            let rank = (fraction * times.len() as f64).ceil() as usize;
            millis(times[rank.clamp(1, times.len()) - 1])
        };
        let slow_ops = self
            .op_times
            .iter()
            .filter(|time| **time >= SLOW_OP)
            .count();
        let mut misses = self.own_misses.clone();
        for (reason, count) in &self.peer_misses {
            *misses.entry(reason.clone()).or_default() += count;
        }
        json!({
            "id": args.id,
            "peer": args.peer,
            "iterations": self.iterations,
            "own_hits": self.own_hits,
            "peer_hits": self.peer_hits,
            "misses": misses,
            "misses_by_key": {"own": self.own_misses, "peer": self.peer_misses},
            "corrupt": self.corrupt,
            "own_stale": self.own_stale,
            "peer_regressions": self.peer_regressions,
            "last_peer_generation": self.last_peer_generation,
            "peer_generations_seen": self.peer_generations_seen,
            "warnings": WARNINGS.load(Ordering::Relaxed),
            "panics": PANICS.load(Ordering::Relaxed),
            "op_ms": {"p50": at(0.5), "p99": at(0.99), "max": at(1.0)},
            "slow_ops": slow_ops,
        })
    }
}

fn millis(duration: Duration) -> f64 {
    (duration.as_secs_f64() * 1e6).round() / 1e3
}

fn work(args: &WorkArgs) -> Result<(), BoxError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let mut tally = runtime.block_on(exercise(args));
    let summary = tally.summary(args);
    println!("{summary}");

    let mut failure = String::new();
    if tally.corrupt > 0 {
        let _ = write!(failure, "{} hits did not verify", tally.corrupt);
        for problem in &tally.problems {
            let _ = write!(failure, "\n  {problem}");
        }
    }
    let panics = PANICS.load(Ordering::Relaxed);
    if panics > 0 {
        let _ = write!(failure, "\n{panics} panics (see stderr)");
    }
    if failure.is_empty() {
        Ok(())
    } else {
        Err(failure.trim_start().into())
    }
}

async fn exercise(args: &WorkArgs) -> Tally {
    let cache = SledToolCache::open_at(&args.dir, CacheOptions::default());
    let own_fingerprint = fingerprint_of(&args.id);
    let peer_fingerprint = fingerprint_of(&args.peer);
    let mut tally = Tally::default();
    let deadline = Instant::now() + args.run_for;
    let mut generation = 0;
    while Instant::now() < deadline {
        generation += 1;
        tally.iterations += 1;

        let tools = tools_of(&args.id, generation);
        let started = Instant::now();
        cache.set(&args.id, &own_fingerprint, &tools).await;
        tally.timed(started);

        let started = Instant::now();
        let own = cache.lookup_entry(&args.id, &own_fingerprint).await;
        tally.timed(started);
        if let Some(read) = tally.lookup(&args.id, true, own) {
            if read > generation {
                tally.corrupt += 1;
                tally.note(format!(
                    "read generation {read} of {}, which has written only {generation}",
                    args.id
                ));
            } else if read < generation {
                tally.own_stale += 1;
            }
        }

        let started = Instant::now();
        let peer = cache.lookup_entry(&args.peer, &peer_fingerprint).await;
        tally.timed(started);
        if let Some(read) = tally.lookup(&args.peer, false, peer) {
            if read < tally.last_peer_generation {
                tally.peer_regressions += 1;
            } else if read > tally.last_peer_generation {
                tally.peer_generations_seen += 1;
            }
            tally.last_peer_generation = tally.last_peer_generation.max(read);
        }

        tokio::time::sleep(args.sleep).await;
    }
    cache.close().await;
    tally
}

/// Counts panics on every thread, then reports them as the default hook does.
fn install_panic_counter() {
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        PANICS.fetch_add(1, Ordering::Relaxed);
        default_hook(info);
    }));
}

/// A minimal `tracing` subscriber: prints `WARN` and `ERROR` events on stderr and counts them.
struct WarningCounter;

impl tracing::Subscriber for WarningCounter {
    fn enabled(&self, metadata: &tracing::Metadata<'_>) -> bool {
        *metadata.level() <= tracing::Level::WARN
    }

    fn new_span(&self, _span: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }

    fn record(&self, _span: &tracing::span::Id, _values: &tracing::span::Record<'_>) {}

    fn record_follows_from(&self, _span: &tracing::span::Id, _follows: &tracing::span::Id) {}

    fn event(&self, event: &tracing::Event<'_>) {
        WARNINGS.fetch_add(1, Ordering::Relaxed);
        let mut line = String::new();
        event.record(&mut FieldWriter(&mut line));
        eprintln!("cache_worker: {}{line}", event.metadata().level());
    }

    fn enter(&self, _span: &tracing::span::Id) {}

    fn exit(&self, _span: &tracing::span::Id) {}
}

struct FieldWriter<'a>(&'a mut String);

impl tracing::field::Visit for FieldWriter<'_> {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            let _ = write!(self.0, " {value:?}");
        } else {
            let _ = write!(self.0, " {}={value:?}", field.name());
        }
    }
}
