//! Tool search speed and memory at 10,000 tools: what keeping the index live costs an agent.
//!
//! ```text
//! cargo bench -p mcp-tool-search --bench speed -- [--quick]
//! ```
//!
//! The corpus (`benches/corpus`, 27 real servers, 471 tools) is replicated under renamed
//! servers (`github`, `github-1`, `github-2`, …) until there are 10,000 tools; each copy's
//! descriptions end with three words of the corpus's own vocabulary drawn at random (a fixed
//! seed), so the copies are not identical documents and the vocabulary grows as a real mix of
//! servers' would. Then, against the targets of issue 36:
//!
//! - **build**: a [`ToolIndex`] of the 10,000 tools from their documents, all servers at once
//!   ([`ToolIndex::set_servers`], as a session's start hands it every server's tools from its
//!   cache, read on a thread per core), and its first search, which makes the per-document
//!   length normalisation the index leaves to it (target ≤ 20 ms; median and fastest of the
//!   repetitions);
//! - **query**: each TEST query (`benches/queries/test.json`) searched for its best 5, every
//!   search timed alone (targets p50 ≤ 100 µs, p99 ≤ 1 ms);
//! - **update**: one server's list changed — `set_server` of the corpus's `mongodb` copy, 49
//!   tools, its descriptions alternating between two versions — and the first search after
//!   it, which remakes the length normalisation the update changed (target ≤ 1 ms; p50, p99
//!   and the slowest, which includes the index's occasional compaction); and, apart, the
//!   `set_server` alone and a search that follows another (p50 each), so the update's own
//!   cost shows;
//! - **memory**: the bytes the index holds (its documents, postings, vocabulary, statistics
//!   and word vectors), counted by a global allocator, beside the size of the tools'
//!   definitions as JSON and of the documents alone; and the most the build held at once.
//!
//! The index is the default one, with word vectors ([`Semantic`]); the build and the queries
//! are also timed without them, each beside the other in turn, so what the vectors cost shows.
//! And beside both, the baseline: the `bm25` crate's search engine, which Codex's tool search
//! builds on, over the same tools (each one text: its name, server, title, description and
//! parameters), built and searched the same way (its searches in rounds of their own: its
//! index is large enough to push the others' out of the caches).
//!
//! Timings are reported, never asserted: these machines are shared and noisy. `--quick`
//! repeats less. Without `--bench` (as `cargo test --benches` runs it) it is a smoke run that
//! builds the index once and runs every step once; with `--list` (as `cargo nextest` asks) it
//! prints nothing. Other flags are ignored.
//!
//! The counting allocator is the only `unsafe` here: a `GlobalAlloc` implementation is an
//! `unsafe impl` by definition. It forwards every call to [`System`] unchanged and adds to or
//! takes from two counters; it is in this benchmark binary only, never in the library.

#![allow(
    unsafe_code,
    reason = "a #[global_allocator] implements the unsafe GlobalAlloc trait; it forwards to System"
)]

#[path = "support/corpus.rs"]
mod corpus;

use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::BTreeSet;
use std::hint::black_box;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use corpus::{Result, Server, Split};
use mcp_tool_search::{Semantic, ServerTools, ToolDocument, ToolIndex};
use serde_json::{Value, json};

/// How many tools the index holds.
const TOOLS: usize = 10_000;
/// How many tools a search returns.
const LIMIT: usize = 5;
/// The server whose list changes in the update measurement (49 tools in the corpus).
const CHANGING: &str = "mongodb";

const BUILD_TARGET: Duration = Duration::from_millis(20);
const QUERY_P50_TARGET: Duration = Duration::from_micros(100);
const QUERY_P99_TARGET: Duration = Duration::from_millis(1);
const UPDATE_TARGET: Duration = Duration::from_millis(1);

/// [`System`], counting the bytes it holds for the program and the most it held.
struct Counting;

static HELD: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn grew(bytes: usize) {
    let held = HELD.fetch_add(bytes, Ordering::Relaxed) + bytes;
    PEAK.fetch_max(held, Ordering::Relaxed);
}

fn shrank(bytes: usize) {
    HELD.fetch_sub(bytes, Ordering::Relaxed);
}

// SAFETY: every method forwards to `System` with the caller's arguments unchanged and returns
// what `System` returned; the counting around it touches only two atomic integers.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded as received; the caller upholds `alloc`'s contract.
        let pointer = unsafe { System.alloc(layout) };
        if !pointer.is_null() {
            grew(layout.size());
        }
        pointer
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded as received; the caller upholds `alloc_zeroed`'s contract.
        let pointer = unsafe { System.alloc_zeroed(layout) };
        if !pointer.is_null() {
            grew(layout.size());
        }
        pointer
    }

    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
        // SAFETY: forwarded as received; the caller upholds `dealloc`'s contract.
        unsafe { System.dealloc(pointer, layout) };
        shrank(layout.size());
    }

    unsafe fn realloc(&self, pointer: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded as received; the caller upholds `realloc`'s contract.
        let moved = unsafe { System.realloc(pointer, layout, new_size) };
        if !moved.is_null() {
            if new_size >= layout.size() {
                grew(new_size - layout.size());
            } else {
                shrank(layout.size() - new_size);
            }
        }
        moved
    }
}

/// Runs `work`; what it returned, the bytes held after it beyond those held before, and the
/// most held at once during it beyond those held before.
fn counted<T>(work: impl FnOnce() -> T) -> (T, usize, usize) {
    let before = HELD.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let value = work();
    let after = HELD.load(Ordering::Relaxed);
    let peak = PEAK.load(Ordering::Relaxed);
    (
        value,
        after.saturating_sub(before),
        peak.saturating_sub(before),
    )
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scale {
    Full,
    Quick,
    Smoke,
}

impl Scale {
    /// Index builds, rounds over the TEST queries, and server updates.
    fn repetitions(self) -> (usize, usize, usize) {
        match self {
            Self::Full => (30, 40, 600),
            Self::Quick => (5, 5, 60),
            Self::Smoke => (1, 1, 2),
        }
    }
}

fn main() -> ExitCode {
    let (mut list, mut bench, mut quick) = (false, false, false);
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--list" => list = true,
            "--bench" => bench = true,
            "--quick" => quick = true,
            _ => {}
        }
    }
    if list {
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
            eprintln!("speed: error: {error}");
            ExitCode::FAILURE
        }
    }
}

/// One server's documents, ready to be indexed.
#[derive(Debug, Clone)]
struct Batch {
    server: String,
    instructions: Option<String>,
    documents: Vec<ToolDocument>,
}

fn build(batches: Vec<Batch>, semantic: Semantic) -> ToolIndex {
    let mut index = ToolIndex::new();
    index.set_semantic(semantic);
    index.set_servers(
        batches
            .into_iter()
            .map(|batch| ServerTools::new(batch.server, batch.instructions, batch.documents))
            .collect(),
    );
    index
}

/// The query searched right after a build or an update (it completes them: see the module
/// documentation).
const FIRST_QUERY: &str = "list the collections of a database";

fn run(scale: Scale) -> Result<()> {
    let servers = corpus::corpus()?;
    let queries: Vec<String> = corpus::queries()?
        .into_iter()
        .filter(|query| query.split == Split::Test)
        .map(|query| query.text)
        .collect();
    let replicas = replicate(&servers, TOOLS);
    let definitions: usize = replicas
        .iter()
        .flat_map(|server| &server.tools)
        .map(|tool| tool.to_string().len())
        .sum();
    let (batches, documents_bytes, _) = counted(|| batches(&replicas));
    let tools: usize = batches.iter().map(|batch| batch.documents.len()).sum();

    let (index, index_bytes, build_peak) = counted(|| build(batches.clone(), Semantic::default()));
    let (words_only, words_only_bytes, _) = counted(|| build(batches.clone(), Semantic::OFF));
    if index.len() != tools {
        return Err(format!("the index holds {} tools of {tools}", index.len()).into());
    }
    let (builds, rounds, updates) = scale.repetitions();
    let texts = baseline_texts(&batches);
    let (baseline, baseline_bytes, _) = counted(|| baseline_build(texts.clone()));

    // Each build and each search with word vectors beside the same without them and the
    // baseline's, in turn.
    let mut build_times = Vec::with_capacity(builds);
    let mut words_only_build_times = Vec::with_capacity(builds);
    let mut baseline_build_times = Vec::with_capacity(builds);
    for _ in 0..builds {
        for (semantic, times) in [
            (Semantic::default(), &mut build_times),
            (Semantic::OFF, &mut words_only_build_times),
        ] {
            let input = batches.clone();
            let started = Instant::now();
            let built = build(input, semantic);
            let hits = built.search(FIRST_QUERY, LIMIT, None)?;
            times.push(started.elapsed());
            black_box((&built, hits));
        }
        let input = texts.clone();
        let started = Instant::now();
        let built = baseline_build(input);
        let hits = built.search(FIRST_QUERY, LIMIT);
        baseline_build_times.push(started.elapsed());
        black_box((&built, hits));
    }

    let mut query_times = Vec::with_capacity(rounds * queries.len());
    let mut words_only_query_times = Vec::with_capacity(rounds * queries.len());
    let mut baseline_query_times = Vec::with_capacity(rounds * queries.len());
    let mut empty = BTreeSet::new();
    for _ in 0..rounds {
        for query in &queries {
            let started = Instant::now();
            let hits = index.search(query, LIMIT, None)?;
            query_times.push(started.elapsed());
            if hits.is_empty() {
                empty.insert(query.as_str());
            }
            black_box(hits);
            let started = Instant::now();
            let hits = words_only.search(query, LIMIT, None)?;
            words_only_query_times.push(started.elapsed());
            black_box(hits);
        }
    }
    // The baseline's searches apart: its index is large enough to push the others' out of
    // the caches between searches.
    for _ in 0..rounds {
        for query in &queries {
            let started = Instant::now();
            let hits = baseline.search(query, LIMIT);
            baseline_query_times.push(started.elapsed());
            black_box(hits);
        }
    }

    let changing = replicas
        .iter()
        .find(|server| server.name == CHANGING)
        .ok_or_else(|| format!("the corpus has no {CHANGING} server"))?;
    let before = changing.documents();
    let after: Vec<ToolDocument> = changing
        .tools
        .iter()
        .enumerate()
        .map(|(number, tool)| {
            let mut tool = tool.clone();
            let description = format!("{} (changed {number})", corpus::description(&tool));
            tool["description"] = Value::String(description);
            corpus::document(&changing.name, &tool)
        })
        .collect();
    let mut index = index;
    let mut update_times = Vec::with_capacity(updates);
    let mut set_server_times = Vec::with_capacity(updates);
    let mut next_search_times = Vec::with_capacity(updates);
    for update in 0..updates {
        let documents = if update % 2 == 0 {
            after.clone()
        } else {
            before.clone()
        };
        let started = Instant::now();
        index.set_server(&changing.name, changing.instructions.as_deref(), documents);
        let set = started.elapsed();
        let hits = index.search(FIRST_QUERY, LIMIT, None)?;
        update_times.push(started.elapsed());
        set_server_times.push(set);
        black_box(hits);
        let started = Instant::now();
        black_box(index.search(FIRST_QUERY, LIMIT, None)?);
        next_search_times.push(started.elapsed());
    }
    if index.len() != tools {
        return Err(format!("after the updates the index holds {} tools", index.len()).into());
    }

    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    let build = Summary::of(build_times);
    let query = Summary::of(query_times);
    let words_only_build = Summary::of(words_only_build_times);
    let words_only_query = Summary::of(words_only_query_times);
    let baseline_build = Summary::of(baseline_build_times);
    let baseline_query = Summary::of(baseline_query_times);
    let update = Summary::of(update_times);
    let set_server = Summary::of(set_server_times);
    let next_search = Summary::of(next_search_times);
    if scale == Scale::Smoke {
        println!(
            "speed (smoke): {tools} tools of {} servers indexed, {} queries searched \
             ({} found nothing), {} updates of {} {} tools; the bm25 crate's index of them \
             found {} tools for the first query",
            batches.len(),
            queries.len(),
            empty.len(),
            updates,
            changing.tools.len(),
            CHANGING,
            baseline.search(FIRST_QUERY, LIMIT).len(),
        );
        return Ok(());
    }
    let verdict = |within: bool| if within { "within" } else { "OVER" };
    let mib = |bytes: usize| bytes as f64 / (1024.0 * 1024.0);
    println!(
        "tool search speed: {tools} tools of {} servers (the corpus's 471 replicated), {} TEST \
         queries (best {LIMIT}), {cores} cores",
        batches.len(),
        queries.len()
    );
    println!(
        "  build          median {:>9}  fastest {:>9}  ({} builds and their first search; \
         target ≤ {}: {})",
        human(build.median),
        human(build.fastest),
        build.count,
        human(BUILD_TARGET),
        verdict(build.median <= BUILD_TARGET),
    );
    println!(
        "  query          p50 {:>9}  p99 {:>9}  max {:>9}  ({} searches; targets p50 ≤ {}, \
         p99 ≤ {}: {})",
        human(query.median),
        human(query.p99),
        human(query.slowest),
        query.count,
        human(QUERY_P50_TARGET),
        human(QUERY_P99_TARGET),
        verdict(query.median <= QUERY_P50_TARGET && query.p99 <= QUERY_P99_TARGET),
    );
    println!(
        "  update         p50 {:>9}  p99 {:>9}  max {:>9}  (set_server of {} tools and the \
         first search after it, {} times; target ≤ {}: {})",
        human(update.median),
        human(update.p99),
        human(update.slowest),
        changing.tools.len(),
        update.count,
        human(UPDATE_TARGET),
        verdict(update.median <= UPDATE_TARGET),
    );
    println!(
        "                 of which set_server p50 {:>9}; the same search again p50 {:>9}",
        human(set_server.median),
        human(next_search.median),
    );
    println!(
        "  memory         the index holds {:.1} MiB ({:.1} MiB of it its documents); the \
         definitions are {:.1} MiB of JSON; the build held {:.1} MiB at most",
        mib(index_bytes),
        mib(documents_bytes),
        mib(definitions),
        mib(build_peak),
    );
    println!(
        "  without word vectors (Semantic::OFF), side by side: build median {:>9}, query p50 \
         {:>9} p99 {:>9}; the index holds {:.1} MiB",
        human(words_only_build.median),
        human(words_only_query.median),
        human(words_only_query.p99),
        mib(words_only_bytes),
    );
    println!(
        "  the bm25 crate (Codex's tool search), side by side over the same tools: build median \
         {:>9}, query p50 {:>9} p99 {:>9}; it holds {:.1} MiB",
        human(baseline_build.median),
        human(baseline_query.median),
        human(baseline_query.p99),
        mib(baseline_bytes),
    );
    if !empty.is_empty() {
        println!(
            "  ({} TEST queries found nothing: {})",
            empty.len(),
            empty.into_iter().collect::<Vec<_>>().join("; ")
        );
    }
    let micros = |duration: Duration| duration.as_secs_f64() * 1e6;
    println!(
        "{}",
        json!({
            "bench": "mcp_tool_search_speed",
            "tools": tools,
            "servers": batches.len(),
            "cores": cores,
            "build_median_us": micros(build.median),
            "build_fastest_us": micros(build.fastest),
            "query_p50_us": micros(query.median),
            "query_p99_us": micros(query.p99),
            "query_max_us": micros(query.slowest),
            "update_tools": changing.tools.len(),
            "update_p50_us": micros(update.median),
            "update_p99_us": micros(update.p99),
            "update_max_us": micros(update.slowest),
            "update_set_server_p50_us": micros(set_server.median),
            "update_next_search_p50_us": micros(next_search.median),
            "index_bytes": index_bytes,
            "documents_bytes": documents_bytes,
            "definitions_bytes": definitions,
            "build_peak_bytes": build_peak,
            "words_only_build_median_us": micros(words_only_build.median),
            "words_only_query_p50_us": micros(words_only_query.median),
            "words_only_query_p99_us": micros(words_only_query.p99),
            "words_only_index_bytes": words_only_bytes,
            "bm25_crate_build_median_us": micros(baseline_build.median),
            "bm25_crate_query_p50_us": micros(baseline_query.median),
            "bm25_crate_query_p99_us": micros(baseline_query.p99),
            "bm25_crate_bytes": baseline_bytes,
        })
    );
    Ok(())
}

/// The baseline's documents: each tool as one text, as Codex's tool search makes them — its
/// name, its server, its title, its description, its parameters' names and descriptions.
fn baseline_texts(batches: &[Batch]) -> Vec<bm25::Document<usize>> {
    batches
        .iter()
        .flat_map(|batch| &batch.documents)
        .enumerate()
        .map(|(id, document)| {
            let mut text = vec![document.tool.as_str(), document.server.as_str()];
            text.extend(document.title.as_deref());
            text.push(&document.description);
            for parameter in &document.parameters {
                text.push(&parameter.name);
                text.extend(parameter.description.as_deref());
            }
            bm25::Document::new(id, text.join(" "))
        })
        .collect()
}

/// The baseline's index of `documents`, as Codex's tool search builds it.
fn baseline_build(documents: Vec<bm25::Document<usize>>) -> bm25::SearchEngine<usize> {
    bm25::SearchEngineBuilder::<usize>::with_documents(bm25::Language::English, documents).build()
}

/// The corpus's servers, copied under new names until they hold `target` tools (the last copy
/// cut short), each copy's descriptions varied.
fn replicate(servers: &[Server], target: usize) -> Vec<Server> {
    let vocabulary: Vec<String> = servers
        .iter()
        .flat_map(|server| &server.tools)
        .flat_map(|tool| {
            corpus::description(tool)
                .split(|c: char| !c.is_alphanumeric())
                .filter(|word| word.len() > 2)
                .map(str::to_lowercase)
                .collect::<Vec<_>>()
        })
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let mut random = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = |bound: usize| {
        // xorshift64: a fixed sequence, so every run indexes the same documents.
        random ^= random << 13;
        random ^= random >> 7;
        random ^= random << 17;
        usize::try_from(random % bound as u64).unwrap_or_default()
    };
    let mut replicas = Vec::new();
    let mut total = 0;
    'copies: for copy in 0.. {
        for server in servers {
            if total == target {
                break 'copies;
            }
            let take = server.tools.len().min(target - total);
            let tools = server.tools[..take]
                .iter()
                .map(|tool| {
                    let mut tool = tool.clone();
                    if copy > 0 {
                        let words: Vec<&str> = (0..3)
                            .map(|_| vocabulary[next(vocabulary.len())].as_str())
                            .collect();
                        let description =
                            format!("{} {}", corpus::description(&tool), words.join(" "));
                        tool["description"] = Value::String(description);
                    }
                    tool
                })
                .collect();
            replicas.push(Server {
                name: if copy == 0 {
                    server.name.clone()
                } else {
                    format!("{}-{copy}", server.name)
                },
                instructions: server.instructions.clone(),
                tools,
            });
            total += take;
        }
    }
    replicas
}

fn batches(servers: &[Server]) -> Vec<Batch> {
    servers
        .iter()
        .map(|server| Batch {
            server: server.name.clone(),
            instructions: server.instructions.clone(),
            documents: server.documents(),
        })
        .collect()
}

/// Percentiles of a set of timings.
struct Summary {
    count: usize,
    fastest: Duration,
    median: Duration,
    p99: Duration,
    slowest: Duration,
}

impl Summary {
    fn of(mut times: Vec<Duration>) -> Self {
        times.sort_unstable();
        let at = |share: f64| {
            let index = ((times.len() as f64 - 1.0) * share).round() as usize;
            times.get(index).copied().unwrap_or_default()
        };
        Self {
            count: times.len(),
            fastest: at(0.0),
            median: at(0.5),
            p99: at(0.99),
            slowest: at(1.0),
        }
    }
}

fn human(duration: Duration) -> String {
    let micros = duration.as_secs_f64() * 1e6;
    if micros >= 1000.0 {
        format!("{:.2} ms", micros / 1000.0)
    } else {
        format!("{micros:.1} µs")
    }
}
