//! Startup benchmark: time-to-ready of [`McpManager::connect_servers`] for 50 fixture servers
//! connected in parallel.
//!
//! Time-to-ready is measured from the call of `connect_servers` until it returns (the startup
//! gate's answer). Five cases, each run several times with a new manager per run and
//! `disconnect_all` after every run:
//!
//! - `cold-memory`, `cold-sled`: no cache entry (a fresh `MemoryToolCache`, or a fresh
//!   `SledToolCache` in a new temporary directory), fast servers (`--tools 20`). The gate waits
//!   for every server; the time the last server reached `Connected` is reported as well.
//! - `warm-memory`, `warm-sled`: the cache was filled by a first run (which waits for every
//!   server), and the servers are slower than the gate (`--delay tools/list=1000`, the same
//!   configuration as the filling run, so the fingerprints match). The call answers at the gate
//!   with deferred tools; the number of deferred tools and the time until every server finished
//!   in the background are reported. The sled variant opens a new handle on the store for every
//!   run, so the cold open of the database is part of the figure.
//! - `warm-sled-200`: `warm-sled` with 200 generated tools per server (`--tools 200`): the
//!   gate's answer holds 50 × 200 cached tools, so reading the cache and building the answer
//!   are where a warm start's time past the gate goes. The report gives every warm case's
//!   median past the gate (`ready - gate`).
//!
//! - `warm-stateless-http`: 20 servers of the stateless revision (2026-07-28; testkit's HTTP
//!   fixture in its stateless mode, `ttlMs` 10 minutes) whose lists the cache holds, fresh: a
//!   warm start serves their tools live from the cache without a request. The servers count
//!   what reaches them, and any request during the measured runs fails the bench; the report
//!   gives the time to ready beside the target of ≤ gate + 5 ms (the sled store, a new handle
//!   per run, so its cold open is in the figure).
//!
//! Usage: `cargo bench -p mcp-manager --bench startup -- [--quick]`. `--quick` runs each case
//! twice instead of five times; `--list` prints nothing; without `--bench` among the arguments
//! (as under `cargo test --benches`) a small smoke run with 3 servers is done. Every fixture
//! process gets a unique `--name` marker; at the end the bench checks that none is left and
//! fails otherwise. A readable table goes to stdout, followed by one JSON line with every
//! figure.

use std::collections::{BTreeMap, HashMap};
use std::error::Error;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use mcp_cache::{CacheOptions, MemoryToolCache, SledToolCache, ToolCache};
use mcp_config::{DiscoveredServer, Level, ServerConfig, SourceMeta};
use mcp_manager::{ConnectionStatus, ManagerEvent, ManagerOptions, McpManager};
use serde_json::{Value, json};
use testkit::FixtureServer;
use tokio::sync::broadcast;

type BoxError = Box<dyn Error + Send + Sync>;
type Result<T, E = BoxError> = std::result::Result<T, E>;

/// Generated tools per fixture server (`--tools`).
const TOOLS_PER_SERVER: usize = 20;
/// Generated tools per fixture server of the `warm-sled-200` case.
const MANY_TOOLS_PER_SERVER: usize = 200;
/// Upper bound for one `connect_servers` call or one wait for the background.
const STEP_TIMEOUT: Duration = Duration::from_secs(60);

/// What one invocation runs.
struct Plan {
    servers: usize,
    runs: usize,
    /// `--delay tools/list=MS` of the warm cases (must exceed the gate).
    slow_ms: u64,
    mode: &'static str,
}

/// The figures of one measured run.
struct Run {
    /// `connect_servers` call to its return.
    ready: Duration,
    /// `connect_servers` call to the last server's `Connected` event.
    all_connected: Duration,
    /// Tools in the gate's answer.
    tools: usize,
    /// Deferred (cached) tools in the gate's answer.
    deferred: usize,
    /// Fixture processes still alive right after `disconnect_all` returned.
    left_after_disconnect: usize,
}

/// One case's runs.
struct Case {
    name: &'static str,
    cache: &'static str,
    slow: bool,
    /// The run that filled the cache (warm cases only).
    fill: Option<Duration>,
    runs: Vec<Run>,
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|arg| arg == "--list") {
        return Ok(());
    }
    let quick = args.iter().any(|arg| arg == "--quick");
    let plan = if !args.iter().any(|arg| arg == "--bench") {
        Plan {
            servers: 3,
            runs: 1,
            slow_ms: 600,
            mode: "smoke",
        }
    } else if quick {
        Plan {
            servers: 50,
            runs: 2,
            slow_ms: 1000,
            mode: "quick",
        }
    } else {
        Plan {
            servers: 50,
            runs: 5,
            slow_ms: 1000,
            mode: "full",
        }
    };

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let marker = format!(
        "mcp-startup-bench-{}-{}",
        std::process::id(),
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|elapsed| elapsed.as_nanos())
            .unwrap_or_default()
    );
    let scratch = Scratch::create(&marker)?;
    let outcome = runtime.block_on(run_cases(&plan, &marker, &scratch.path));
    let stateless = runtime.block_on(warm_stateless_http(&plan, &scratch.path.join("stateless")));
    drop(runtime);

    // Whatever happened, no fixture process may outlive the bench.
    let left = if testkit::wait_until(Duration::from_secs(5), || count_fixtures(&marker) == 0) {
        0
    } else {
        count_fixtures(&marker)
    };
    let cases = outcome?;
    let stateless = stateless?;
    report(&plan, &cases, left, &stateless);
    if left > 0 {
        return Err(format!("{left} fixture process(es) with marker {marker} left behind").into());
    }
    if let Some(case) = cases
        .iter()
        .find(|case| case.runs.iter().any(|run| run.left_after_disconnect > 0))
    {
        return Err(format!(
            "{}: fixture processes alive right after disconnect_all returned",
            case.name
        )
        .into());
    }
    Ok(())
}

/// A temporary directory for the sled stores, removed when dropped.
struct Scratch {
    path: PathBuf,
}

impl Scratch {
    fn create(marker: &str) -> Result<Self> {
        let path = std::env::temp_dir().join(marker);
        std::fs::create_dir_all(&path)?;
        Ok(Self { path })
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

async fn run_cases(plan: &Plan, marker: &str, scratch: &Path) -> Result<Vec<Case>> {
    let fast = server_configs(marker, plan.servers, TOOLS_PER_SERVER, None);
    let slow = server_configs(marker, plan.servers, TOOLS_PER_SERVER, Some(plan.slow_ms));
    let mut cases = Vec::new();

    // Cold, in-memory store: a fresh cache per run.
    let mut runs = Vec::new();
    for _ in 0..plan.runs {
        let cache = Arc::new(MemoryToolCache::new(CacheOptions::default()));
        let manager = McpManager::new(ManagerOptions::default(), cache);
        runs.push(measure(&manager, &fast, marker, Expect::AllLive).await?);
    }
    cases.push(Case {
        name: "cold-memory",
        cache: "memory",
        slow: false,
        fill: None,
        runs,
    });

    // Cold, sled store: a new database directory per run (created by the first use).
    let mut runs = Vec::new();
    for index in 0..plan.runs {
        let cache = SledToolCache::open_at(
            scratch.join(format!("cold-{index}")),
            CacheOptions::default(),
        );
        let manager = McpManager::new(ManagerOptions::default(), Arc::new(cache.clone()));
        runs.push(measure(&manager, &fast, marker, Expect::AllLive).await?);
        drop(manager);
        cache.close().await;
    }
    cases.push(Case {
        name: "cold-sled",
        cache: "sled",
        slow: false,
        fill: None,
        runs,
    });

    // Warm, in-memory store: filled once by a run that waits for every (slow) server.
    let cache = Arc::new(MemoryToolCache::new(CacheOptions::default()));
    let fill = fill_cache(Arc::clone(&cache) as Arc<dyn ToolCache>, &slow, marker).await?;
    let mut runs = Vec::new();
    for _ in 0..plan.runs {
        let manager = McpManager::new(
            ManagerOptions::default(),
            Arc::clone(&cache) as Arc<dyn ToolCache>,
        );
        runs.push(measure(&manager, &slow, marker, Expect::AllDeferred).await?);
    }
    cases.push(Case {
        name: "warm-memory",
        cache: "memory",
        slow: true,
        fill: Some(fill),
        runs,
    });

    cases.push(warm_sled("warm-sled", plan, marker, &scratch.join("warm"), &slow).await?);
    let many = server_configs(
        marker,
        plan.servers,
        MANY_TOOLS_PER_SERVER,
        Some(plan.slow_ms),
    );
    let dir = scratch.join("warm-200");
    cases.push(warm_sled("warm-sled-200", plan, marker, &dir, &many).await?);

    Ok(cases)
}

/// Servers of the `warm-stateless-http` case (fewer in the smoke run).
const STATELESS_SERVERS: usize = 20;
/// The `ttlMs` the stateless fixtures give their lists: far longer than the bench.
const STATELESS_TTL_MS: u64 = 600_000;

/// The `warm-stateless-http` case: its times to ready, and its server and tool counts.
struct StatelessCase {
    servers: usize,
    tools: usize,
    ready: Vec<Duration>,
}

/// Fills a sled store from stateless HTTP fixtures, then times warm starts on new handles and
/// checks that none of them sent the servers anything.
async fn warm_stateless_http(plan: &Plan, dir: &Path) -> Result<StatelessCase> {
    let count = STATELESS_SERVERS.min(plan.servers);
    let fixtures: Vec<testkit::HttpFixture> = (0..count)
        .map(|_| {
            testkit::HttpFixture::start(
                testkit::HttpFixtureOptions::default().stateless(Some(STATELESS_TTL_MS)),
            )
        })
        .collect();
    let source = SourceMeta::new("bench", "Bench", "bench.json", Level::User);
    let servers: BTreeMap<String, DiscoveredServer> = fixtures
        .iter()
        .enumerate()
        .map(|(index, fixture)| {
            let config = ServerConfig::http(fixture.url());
            (
                format!("stateless-{index:02}"),
                DiscoveredServer::new(config, source.clone()),
            )
        })
        .collect();
    let requests = || -> usize {
        fixtures
            .iter()
            .map(|fixture| fixture.requests().len())
            .sum()
    };

    let filler = SledToolCache::open_at(dir, CacheOptions::default());
    let manager = McpManager::new(ManagerOptions::default(), Arc::new(filler.clone()));
    let filled = tokio::time::timeout(STEP_TIMEOUT, manager.connect_servers(&servers))
        .await
        .map_err(|_| "filling the cache did not finish within 60 s")?;
    if let Some(error) = filled.errors.first() {
        return Err(format!("a stateless fixture failed: {error}").into());
    }
    let tools = filled.tools.len();
    manager.disconnect_all().await;
    drop(manager);
    filler.close().await;

    let before = requests();
    let mut ready = Vec::new();
    for _ in 0..plan.runs {
        let cache = SledToolCache::open_at(dir, CacheOptions::default());
        let manager = McpManager::new(ManagerOptions::default(), Arc::new(cache.clone()));
        let started = Instant::now();
        let outcome = tokio::time::timeout(STEP_TIMEOUT, manager.connect_servers(&servers))
            .await
            .map_err(|_| "a warm start did not return within 60 s")?;
        ready.push(started.elapsed());
        let served = outcome.tools.len();
        let deferred = outcome.tools.iter().filter(|tool| tool.deferred).count();
        manager.disconnect_all().await;
        drop(manager);
        cache.close().await;
        if served != tools || deferred != 0 || !outcome.errors.is_empty() {
            return Err(format!(
                "a warm start served {served} tools ({deferred} deferred, {} errors) where the \
                 cache holds {tools} live ones",
                outcome.errors.len()
            )
            .into());
        }
    }
    let sent = requests() - before;
    if sent != 0 {
        return Err(format!(
            "warm starts inside the lists' ttl sent the stateless servers {sent} request(s)"
        )
        .into());
    }
    Ok(StatelessCase {
        servers: count,
        tools,
        ready,
    })
}

/// Prints the `warm-stateless-http` case beside its target; its JSON figures.
fn report_stateless(case: &StatelessCase) -> Value {
    let gate = ManagerOptions::default().startup_timeout;
    let ready: Vec<f64> = case.ready.iter().copied().map(ms).collect();
    let (median, max) = stats(&ready);
    let target = ms(gate) + 5.0;
    println!(
        "warm-stateless-http: {} stateless HTTP servers, {} cached tools, no request sent: ready \
         median {median:.1} ms, max {max:.1} ms; target ≤ gate + 5 ms = {target:.0} ms: {}",
        case.servers,
        case.tools,
        if max <= target { "met" } else { "MISSED" }
    );
    json!({
        "servers": case.servers,
        "tools": case.tools,
        "requests_sent": 0,
        "ready_ms": figure(&ready),
        "target_ms": target,
    })
}

/// Warm, sled store in `dir`: filled once, then a new handle (a cold open of the database) per
/// run.
async fn warm_sled(
    name: &'static str,
    plan: &Plan,
    marker: &str,
    dir: &Path,
    slow: &Configs,
) -> Result<Case> {
    let filler = SledToolCache::open_at(dir, CacheOptions::default());
    let fill = fill_cache(Arc::new(filler.clone()), slow, marker).await?;
    filler.close().await;
    drop(filler);
    let mut runs = Vec::new();
    for _ in 0..plan.runs {
        let cache = SledToolCache::open_at(dir, CacheOptions::default());
        let manager = McpManager::new(ManagerOptions::default(), Arc::new(cache.clone()));
        runs.push(measure(&manager, slow, marker, Expect::AllDeferred).await?);
        drop(manager);
        cache.close().await;
    }
    Ok(Case {
        name,
        cache: "sled",
        slow: true,
        fill: Some(fill),
        runs,
    })
}

/// Fixture servers by name, with the number of tools each generates.
struct Configs {
    servers: BTreeMap<String, DiscoveredServer>,
    tools_per_server: usize,
}

/// `count` fixture servers `srv-00` …, each `--name <marker> --tools <tools>`, plus
/// `--delay tools/list=<ms>` when slow.
fn server_configs(marker: &str, count: usize, tools: usize, slow_ms: Option<u64>) -> Configs {
    let servers = (0..count)
        .map(|index| {
            let mut fixture = FixtureServer::new().name(marker).tools(tools);
            if let Some(ms) = slow_ms {
                fixture = fixture.delay("tools/list", ms);
            }
            let (program, args) = fixture.command();
            let config = ServerConfig::stdio(program.to_string_lossy(), args);
            let source = SourceMeta::new("bench", "Bench", "bench.json", Level::User);
            (
                format!("srv-{index:02}"),
                DiscoveredServer::new(config, source),
            )
        })
        .collect();
    Configs {
        servers,
        tools_per_server: tools,
    }
}

/// Connects every server with no cache entry (so the gate waits for all of them), which writes
/// the cache, then disconnects. Returns how long the connect took.
async fn fill_cache(
    cache: Arc<dyn ToolCache>,
    configs: &Configs,
    marker: &str,
) -> Result<Duration> {
    let manager = McpManager::new(ManagerOptions::default(), cache);
    let run = measure(&manager, configs, marker, Expect::AllLive).await?;
    Ok(run.ready)
}

/// What the gate's answer must hold.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// Every server finished before the answer: live tools only.
    AllLive,
    /// Every server is still connecting at the gate: cached tools only.
    AllDeferred,
}

/// One run: `connect_servers`, then the wait until every server is connected, then
/// `disconnect_all` (also when the run failed) and a count of the fixture processes left.
async fn measure(
    manager: &McpManager,
    configs: &Configs,
    marker: &str,
    expect: Expect,
) -> Result<Run> {
    let measured = connect_and_wait(manager, configs, expect).await;
    manager.disconnect_all().await;
    let left_after_disconnect = count_fixtures(marker);
    let (ready, all_connected, tools, deferred) = measured?;
    Ok(Run {
        ready,
        all_connected,
        tools,
        deferred,
        left_after_disconnect,
    })
}

/// Times `connect_servers` and the last `Connected` event, and checks the gate's answer:
/// `(ready, all connected, tools, deferred tools)`.
async fn connect_and_wait(
    manager: &McpManager,
    Configs {
        servers: configs,
        tools_per_server,
    }: &Configs,
    expect: Expect,
) -> Result<(Duration, Duration, usize, usize)> {
    let events = manager.subscribe();
    let watcher = tokio::spawn(connected_times(events, configs.len()));

    let started = Instant::now();
    let outcome = tokio::time::timeout(STEP_TIMEOUT, manager.connect_servers(configs))
        .await
        .map_err(|_| "connect_servers did not return within 60 s")?;
    let ready = started.elapsed();

    let connected = tokio::time::timeout(STEP_TIMEOUT, watcher)
        .await
        .map_err(|_| "the servers did not all connect within 60 s")???;
    let all_connected = connected
        .iter()
        .map(|at| at.saturating_duration_since(started))
        .max()
        .unwrap_or_default();

    if let Some(error) = outcome.errors.first() {
        return Err(format!("{} server(s) failed, first: {error}", outcome.errors.len(),).into());
    }
    let tools = outcome.tools.len();
    let deferred = outcome.tools.iter().filter(|tool| tool.deferred).count();
    // The fixture has its own tools besides the generated ones.
    let expected = configs.len() * (tools_per_server + 1);
    if tools < expected {
        return Err(
            format!("the gate answered {tools} tools, expected at least {expected}").into(),
        );
    }
    match expect {
        Expect::AllLive if deferred != 0 => {
            return Err(format!("{deferred} deferred tools where all should be live").into());
        }
        Expect::AllDeferred if deferred != tools => {
            return Err(format!(
                "{deferred} of {tools} tools deferred: the cache missed (or a server beat the gate)"
            )
            .into());
        }
        _ => {}
    }
    let live_now = manager.tools();
    if live_now.len() != tools || live_now.iter().any(|tool| tool.deferred) {
        return Err("after every server connected, not every tool was live".into());
    }
    Ok((ready, all_connected, tools, deferred))
}

/// When each of `count` servers reported `Connected` (the first failure is an error).
async fn connected_times(
    mut events: broadcast::Receiver<ManagerEvent>,
    count: usize,
) -> Result<Vec<Instant>> {
    let mut connected: HashMap<String, Instant> = HashMap::new();
    while connected.len() < count {
        match events.recv().await {
            Ok(ManagerEvent::StatusChanged { server, status }) => match status {
                ConnectionStatus::Connected => {
                    connected.entry(server).or_insert_with(Instant::now);
                }
                ConnectionStatus::Failed(reason) => {
                    return Err(format!("server {server} failed: {reason}").into());
                }
                _ => {}
            },
            Ok(_) => {}
            Err(error) => return Err(format!("manager events: {error}").into()),
        }
    }
    Ok(connected.into_values().collect())
}

/// Live (non-zombie) processes whose command line holds `marker` as an argument.
fn count_fixtures(marker: &str) -> usize {
    testkit::processes_with_arg(marker).len()
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

/// Median and max of the figures (milliseconds).
fn stats(values: &[f64]) -> (f64, f64) {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let median = match sorted.len() {
        0 => 0.0,
        len if len % 2 == 1 => sorted[len / 2],
        len => (sorted[len / 2 - 1] + sorted[len / 2]) / 2.0,
    };
    (median, sorted.last().copied().unwrap_or(0.0))
}

fn figure(values: &[f64]) -> Value {
    let (median, max) = stats(values);
    let round = |value: f64| (value * 10.0).round() / 10.0;
    json!({
        "median": round(median),
        "max": round(max),
        "runs": values.iter().map(|&value| round(value)).collect::<Vec<_>>(),
    })
}

fn report(plan: &Plan, cases: &[Case], left: usize, stateless: &StatelessCase) {
    // Every manager here runs with the default options, so with the default gate.
    let gate = ManagerOptions::default().startup_timeout;
    println!(
        "startup: {} fixture servers in parallel (--tools {TOOLS_PER_SERVER}; warm-sled-200: \
         --tools {MANY_TOOLS_PER_SERVER}), gate {} ms, warm servers --delay tools/list={}, {} run(s) per case ({})",
        plan.servers,
        gate.as_millis(),
        plan.slow_ms,
        plan.runs,
        plan.mode
    );
    println!(
        "{:<14} {:>16} {:>16} {:>16} {:>20} {:>20} {:>7} {:>9}",
        "case",
        "ready median",
        "ready max",
        "past the gate",
        "all connected med",
        "all connected max",
        "tools",
        "deferred"
    );
    let mut json_cases = serde_json::Map::new();
    for case in cases {
        let ready: Vec<f64> = case.runs.iter().map(|run| ms(run.ready)).collect();
        let connected: Vec<f64> = case.runs.iter().map(|run| ms(run.all_connected)).collect();
        let (ready_median, ready_max) = stats(&ready);
        let (connected_median, connected_max) = stats(&connected);
        let tools = case.runs.iter().map(|run| run.tools).max().unwrap_or(0);
        let deferred = case.runs.iter().map(|run| run.deferred).min().unwrap_or(0);
        // A warm start answers at the gate: what it pays past it.
        let past_gate = case.slow.then(|| ready_median - ms(gate));
        println!(
            "{:<14} {:>13.1} ms {:>13.1} ms {:>16} {:>17.1} ms {:>17.1} ms {:>7} {:>9}",
            case.name,
            ready_median,
            ready_max,
            past_gate.map_or_else(|| "-".to_owned(), |past| format!("{past:.1} ms")),
            connected_median,
            connected_max,
            tools,
            deferred
        );
        let left_after_disconnect = case
            .runs
            .iter()
            .map(|run| run.left_after_disconnect)
            .max()
            .unwrap_or(0);
        json_cases.insert(
            case.name.to_owned(),
            json!({
                "cache": case.cache,
                "slow_servers": case.slow,
                "fill_ms": case.fill.map(|fill| (ms(fill) * 10.0).round() / 10.0),
                "ready_ms": figure(&ready),
                "median_past_gate_ms": past_gate.map(|past| (past * 10.0).round() / 10.0),
                "all_connected_ms": figure(&connected),
                "tools": tools,
                "deferred_tools": deferred,
                "processes_left_after_disconnect": left_after_disconnect,
            }),
        );
    }
    for case in cases {
        if let Some(fill) = case.fill {
            println!(
                "{}: the cache was filled by one run that waited for every server: {:.1} ms",
                case.name,
                ms(fill)
            );
        }
    }
    let stateless = report_stateless(stateless);
    println!("fixture processes left at the end: {left}");
    let line = json!({
        "bench": "startup",
        "mode": plan.mode,
        "servers": plan.servers,
        "tools_per_server": TOOLS_PER_SERVER,
        "tools_per_server_warm_sled_200": MANY_TOOLS_PER_SERVER,
        "gate_ms": gate.as_millis(),
        "slow_delay_ms": plan.slow_ms,
        "runs_per_case": plan.runs,
        "cases": json_cases,
        "warm_stateless_http": stateless,
        "processes_left": left,
    });
    println!("{line}");
}
