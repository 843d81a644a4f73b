//! Tool cache benchmark: what a warm start pays to read cached tool lists.
//!
//! ```text
//! cargo bench -p mcp-cache --bench cache -- [--quick]
//! ```
//!
//! One run reports:
//!
//! - **cold open + get, 50 servers × 200 tools**: a store is filled and closed; then, repeatedly,
//!   a new [`SledToolCache`] in this process gets the 50 tool lists, timed from creating the
//!   instance to holding all 50 lists. Once with the gets one after the other, once with 50
//!   concurrent tasks (as a startup fan-out does). "Cold" for the process: the operating
//!   system's page cache is warm, as it is on a second start.
//!   The same for one server alone: what opening the database costs.
//! - **get of one server (200 tools) from an open store**: [`SledToolCache`], and
//!   [`MemoryToolCache`] as the reference, plus `decode_entry` alone (the decoding share of both).
//! - **the same decode, then every input schema built**: tools keep their schemas as JSON text
//!   ([`mcp_transport::JsonSchema`]) until something reads one; this row is what a reader of
//!   every schema pays on top (the cost every get paid before schemas stayed text).
//! - **sizes**: one encoded 200-tool entry, and the store directory on disk after the fill.
//!
//! Each timing gives the median and p90 (p99 and max too, where there are enough samples),
//! printed as a table and as one JSON line. A tool is realistic: a name, a description of about
//! 100 characters and an input schema with five described properties.
//!
//! `--quick` repeats less. Without `--bench` (as `cargo test --benches` runs it) it is a smoke
//! run that only proves every step works; with `--list` (as `cargo nextest` asks) it prints
//! nothing. Other flags are ignored.

use std::error::Error;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use mcp_cache::{
    CacheOptions, Fingerprint, MemoryToolCache, SledToolCache, ToolCache, decode_entry,
    encode_entry,
};
use mcp_transport::{JsonObject, Tool};
use serde_json::{Value, json};

type BoxError = Box<dyn Error + Send + Sync>;

const SERVERS: usize = 50;
const TOOLS_PER_SERVER: usize = 200;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scale {
    Full,
    Quick,
    /// Not run by `cargo bench`: prove it works, measure nothing meaningful.
    Smoke,
}

impl Scale {
    /// Repetitions of the cold open + 50 gets, and gets from an open store.
    fn repetitions(self) -> (usize, usize) {
        match self {
            Self::Full => (20, 2_000),
            Self::Quick => (5, 200),
            Self::Smoke => (1, 5),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::Full => "full",
            Self::Quick => "quick",
            Self::Smoke => "smoke",
        }
    }
}

fn main() -> ExitCode {
    let mut list = false;
    let mut bench = false;
    let mut quick = false;
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--list" => list = true,
            "--bench" => bench = true,
            "--quick" => quick = true,
            // Whatever else the test runners pass (`--format terse`, `--exact NAME`, filters):
            // nothing here depends on it.
            _ => {}
        }
    }
    if list {
        // `cargo nextest` lists tests this way: this target has none.
        return ExitCode::SUCCESS;
    }
    let scale = match (bench, quick) {
        (_, true) => Scale::Quick,
        (true, false) => Scale::Full,
        (false, false) => Scale::Smoke,
    };
    match run(scale) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("cache: error: {error}");
            ExitCode::FAILURE
        }
    }
}

/// A realistic tool list for server number `server`.
fn tools_of(server: usize) -> Vec<Tool> {
    const PROPERTIES: [(&str, &str, &str); 5] = [
        (
            "path",
            "string",
            "Path of the file or directory, relative to the workspace root.",
        ),
        (
            "query",
            "string",
            "Text to search for; plain words or a regular expression.",
        ),
        (
            "limit",
            "integer",
            "The most results to return; the server caps it at 1000.",
        ),
        (
            "recursive",
            "boolean",
            "Whether to descend into subdirectories.",
        ),
        (
            "timeout_ms",
            "number",
            "How long to wait before giving up, in milliseconds.",
        ),
    ];
    (0..TOOLS_PER_SERVER)
        .map(|index| {
            let mut properties = JsonObject::new();
            for (name, kind, description) in PROPERTIES {
                properties.insert(
                    name.to_owned(),
                    json!({"type": kind, "description": description}),
                );
            }
            let mut schema = JsonObject::new();
            schema.insert("type".to_owned(), json!("object"));
            schema.insert("properties".to_owned(), Value::Object(properties));
            schema.insert("required".to_owned(), json!(["path"]));
            Tool::new(
                format!("srv{server:02}_operation_{index:03}"),
                Some(format!(
                    "Operation {index:03} of server {server:02}: reads, searches or updates the \
                     project files it is given."
                )),
                schema,
            )
        })
        .collect()
}

fn server_name(server: usize) -> String {
    format!("server-{server:02}")
}

fn fingerprint_of(server: usize) -> Fingerprint {
    Fingerprint::of(&json!({"command": "npx", "args": ["-y", server_name(server)]}))
}

/// A fresh directory under the system's temporary directory, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> Result<Self, BoxError> {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|since| since.as_nanos())
            .unwrap_or_default();
        let path =
            std::env::temp_dir().join(format!("mcp-cache-bench-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&path)?;
        Ok(Self(path))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The summary of a set of timings.
struct Stats {
    samples: usize,
    median: Duration,
    p90: Duration,
    p99: Duration,
    max: Duration,
}

impl Stats {
    fn of(mut times: Vec<Duration>) -> Self {
        times.sort_unstable();
        // Nearest rank.
        let at = |fraction: f64| {
            if times.is_empty() {
                return Duration::ZERO;
            }
            let rank = (fraction * times.len() as f64).ceil() as usize;
            times[rank.clamp(1, times.len()) - 1]
        };
        Self {
            samples: times.len(),
            median: at(0.5),
            p90: at(0.9),
            p99: at(0.99),
            max: at(1.0),
        }
    }

    fn json(&self) -> Value {
        json!({
            "samples": self.samples,
            "median_us": micros(self.median),
            "p90_us": micros(self.p90),
            "p99_us": micros(self.p99),
            "max_us": micros(self.max),
        })
    }
}

fn micros(duration: Duration) -> f64 {
    (duration.as_secs_f64() * 1e7).round() / 10.0
}

/// A duration for the table: microseconds below 10 ms, milliseconds above.
fn shown(duration: Duration) -> String {
    if duration < Duration::from_millis(10) {
        format!("{:.1} µs", duration.as_secs_f64() * 1e6)
    } else {
        format!("{:.2} ms", duration.as_secs_f64() * 1e3)
    }
}

fn run(scale: Scale) -> Result<(), BoxError> {
    let (cold_repetitions, warm_repetitions) = scale.repetitions();
    println!(
        "cache: {SERVERS} servers × {TOOLS_PER_SERVER} tools; {cold_repetitions} cold opens, \
         {warm_repetitions} gets from an open store{}",
        match scale {
            Scale::Full => "",
            Scale::Quick => " (--quick)",
            Scale::Smoke => " (smoke test: not run by `cargo bench`, figures are meaningless)",
        }
    );
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let temp = TempDir::new()?;
    let dir = temp.0.join("tool-cache");
    let servers: Vec<(String, Fingerprint, Vec<Tool>)> = (0..SERVERS)
        .map(|server| {
            (
                server_name(server),
                fingerprint_of(server),
                tools_of(server),
            )
        })
        .collect();

    runtime.block_on(fill(&dir, &servers))?;
    let store_bytes = size_on_disk(&dir);
    let entry_bytes = encode_entry(&servers[0].1, &servers[0].2, SystemTime::now()).len();

    eprintln!("cache: cold open + get of one server ...");
    let cold_one = runtime.block_on(cold_gets(&dir, &servers[..1], cold_repetitions, false))?;
    eprintln!("cache: cold open + get, sequential ...");
    let cold_sequential = runtime.block_on(cold_gets(&dir, &servers, cold_repetitions, false))?;
    eprintln!("cache: cold open + get, concurrent ...");
    let cold_concurrent = runtime.block_on(cold_gets(&dir, &servers, cold_repetitions, true))?;
    eprintln!("cache: get from an open store ...");
    let warm_sled = runtime.block_on(warm_sled_gets(&dir, &servers[0], warm_repetitions))?;
    let warm_memory = runtime.block_on(warm_memory_gets(&servers[0], warm_repetitions))?;
    let decode_only = decode_gets(&servers[0], warm_repetitions, false)?;
    let decode_built = decode_gets(&servers[0], warm_repetitions, true)?;
    drop(runtime);
    drop(temp);

    let rows = [
        ("cold open + 1 get (sled)", &cold_one),
        ("cold open + 50 gets, sequential (sled)", &cold_sequential),
        ("cold open + 50 gets, 50 tasks (sled)", &cold_concurrent),
        ("get 1 × 200 tools, open store (sled)", &warm_sled),
        ("get 1 × 200 tools (memory)", &warm_memory),
        ("decode_entry 1 × 200 tools", &decode_only),
        ("decode_entry 1 × 200 tools + schemas built", &decode_built),
    ];
    println!();
    println!(
        "{:<42} {:>7} {:>11} {:>11} {:>11} {:>11}",
        "", "samples", "median", "p90", "p99", "max"
    );
    for (title, stats) in rows {
        println!(
            "{title:<42} {:>7} {:>11} {:>11} {:>11} {:>11}",
            stats.samples,
            shown(stats.median),
            shown(stats.p90),
            shown(stats.p99),
            shown(stats.max)
        );
    }
    println!(
        "one 200-tool entry: {entry_bytes} bytes; the store of {SERVERS} entries on disk: \
         {store_bytes} bytes"
    );
    println!();
    println!(
        "{}",
        json!({
            "bench": "cache",
            "scale": scale.name(),
            "servers": SERVERS,
            "tools_per_server": TOOLS_PER_SERVER,
            "cold_open_get_one": cold_one.json(),
            "cold_open_get_all": {
                "sequential": cold_sequential.json(),
                "concurrent": cold_concurrent.json(),
            },
            "get_one_open_store": {
                "sled": warm_sled.json(),
                "memory": warm_memory.json(),
                "decode_only": decode_only.json(),
                "decode_and_build_schemas": decode_built.json(),
            },
            "entry_bytes": entry_bytes,
            "store_bytes_on_disk": store_bytes,
        })
    );
    Ok(())
}

/// Writes every server's tools, then closes the store so the next open starts from disk.
async fn fill(dir: &Path, servers: &[(String, Fingerprint, Vec<Tool>)]) -> Result<(), BoxError> {
    let cache = SledToolCache::open_at(dir, CacheOptions::default());
    for (name, fingerprint, tools) in servers {
        cache.set(name, fingerprint, tools).await;
    }
    cache.close().await;
    // The sets are best effort: make sure they all landed before measuring reads.
    let check = SledToolCache::open_at(dir, CacheOptions::default());
    for (name, fingerprint, _) in servers {
        if let Err(reason) = check.lookup_entry(name, fingerprint).await {
            return Err(format!("the filled store misses {name}: {reason:?}").into());
        }
    }
    check.close().await;
    Ok(())
}

/// New store instances each getting every server's tools; one sample per instance.
async fn cold_gets(
    dir: &Path,
    servers: &[(String, Fingerprint, Vec<Tool>)],
    repetitions: usize,
    concurrent: bool,
) -> Result<Stats, BoxError> {
    let mut times = Vec::with_capacity(repetitions);
    for _ in 0..repetitions {
        let started = Instant::now();
        let cache = SledToolCache::open_at(dir, CacheOptions::default());
        let lists = if concurrent {
            let tasks: Vec<_> = servers
                .iter()
                .map(|(name, fingerprint, _)| {
                    let cache = cache.clone();
                    let name = name.clone();
                    let fingerprint = fingerprint.clone();
                    tokio::spawn(async move { cache.get(&name, &fingerprint).await })
                })
                .collect();
            let mut lists = Vec::with_capacity(tasks.len());
            for task in tasks {
                lists.push(task.await?);
            }
            lists
        } else {
            let mut lists = Vec::with_capacity(servers.len());
            for (name, fingerprint, _) in servers {
                lists.push(cache.get(name, fingerprint).await);
            }
            lists
        };
        let elapsed = started.elapsed();
        for ((name, _, tools), list) in servers.iter().zip(&lists) {
            if list.as_ref() != Some(tools) {
                return Err(format!("a cold get of {name} did not return its tools").into());
            }
        }
        times.push(elapsed);
        // Released before the next instance opens (sled allows one opener per process too).
        cache.close().await;
        drop(lists);
        settle_allocator();
    }
    Ok(Stats::of(times))
}

/// Has the allocator tidy up what was just freed, before the next timing starts: glibc
/// merges freed small blocks at the next allocation of a KiB or more, and after a repetition
/// freed tens of thousands of them (the tools, their built schemas) that took ~20 ms — paid by
/// whatever timed code allocated next, which a process's real first read does not pay.
fn settle_allocator() {
    std::hint::black_box(Vec::<u8>::with_capacity(64 * 1024));
}

async fn warm_sled_gets(
    dir: &Path,
    (name, fingerprint, tools): &(String, Fingerprint, Vec<Tool>),
    repetitions: usize,
) -> Result<Stats, BoxError> {
    let cache = SledToolCache::open_at(dir, CacheOptions::default());
    // Opens the database: the timed gets find it open (until the store steps aside).
    if cache.get(name, fingerprint).await.as_ref() != Some(tools) {
        return Err(format!("the open store did not return the tools of {name}").into());
    }
    let stats = timed_gets(&cache, name, fingerprint, repetitions, "the open store").await;
    cache.close().await;
    stats
}

/// Times `repetitions` gets of one entry; every one must hit.
async fn timed_gets(
    cache: &dyn ToolCache,
    name: &str,
    fingerprint: &Fingerprint,
    repetitions: usize,
    store: &str,
) -> Result<Stats, BoxError> {
    let mut times = Vec::with_capacity(repetitions);
    for _ in 0..repetitions {
        let started = Instant::now();
        let got = cache.get(name, fingerprint).await;
        times.push(started.elapsed());
        if got.is_none() {
            return Err(format!("a get of {name} from {store} missed").into());
        }
    }
    Ok(Stats::of(times))
}

async fn warm_memory_gets(
    (name, fingerprint, tools): &(String, Fingerprint, Vec<Tool>),
    repetitions: usize,
) -> Result<Stats, BoxError> {
    let cache = MemoryToolCache::new(CacheOptions::default());
    cache.set(name, fingerprint, tools).await;
    timed_gets(&cache, name, fingerprint, repetitions, "the memory store").await
}

/// `decode_entry` of one entry, timed; with `build_schemas`, every input schema is built as an
/// object inside the timing too. Every decode is checked to be a hit; the built schemas, to be
/// the ones encoded.
fn decode_gets(
    (name, fingerprint, tools): &(String, Fingerprint, Vec<Tool>),
    repetitions: usize,
    build_schemas: bool,
) -> Result<Stats, BoxError> {
    let options = CacheOptions::default();
    let bytes = encode_entry(fingerprint, tools, SystemTime::now());
    let mut times = Vec::with_capacity(repetitions);
    for _ in 0..repetitions {
        let started = Instant::now();
        let decoded = decode_entry(&bytes, fingerprint, options.ttl, SystemTime::now())
            .map_err(|reason| format!("the entry of {name} did not decode: {reason:?}"))?
            .tools;
        let built = if build_schemas {
            decoded
                .iter()
                .map(|tool| tool.input_schema.as_object().len())
                .sum::<usize>()
        } else {
            0
        };
        times.push(started.elapsed());
        let intact = !build_schemas
            || (built > 0
                && decoded.len() == tools.len()
                && decoded.iter().zip(tools).all(|(read, tool)| {
                    read.input_schema.as_object() == tool.input_schema.as_object()
                }));
        if !intact {
            return Err(format!("the schemas of {name} did not decode as encoded").into());
        }
    }
    Ok(Stats::of(times))
}

/// The bytes of the files under `dir`, recursively.
fn size_on_disk(dir: &Path) -> u64 {
    let mut total = 0;
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            match entry.metadata() {
                Ok(meta) if meta.is_dir() => pending.push(entry.path()),
                Ok(meta) => total += meta.len(),
                Err(_) => {}
            }
        }
    }
    total
}
