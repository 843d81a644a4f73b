//! Soak and load benchmark of [`McpManager`] with real fixture servers: does a long-lived
//! manager leak, does it stay correct under load while a server is killed again and again, and
//! does a startup with hanging servers answer in time and clean up. Three scenarios:
//!
//! - `soak`: one manager reloads three servers again and again, as `/mcp reload` does
//!   (`AgentSession::reload` is `disconnect_changed` then `connect_servers` with the new
//!   discovery; this bench does the same without reading config files). Every reload changes
//!   each server's definition (`--instructions reload-N`), so every server is really stopped
//!   and started again (the bench checks that `disconnect_changed` named all three and that no
//!   fixture pid survives a reload), its tools are listed again (a changed definition misses the
//!   cache, so the gate waits for the live list), and one `echo` call per server goes through
//!   the new connection. After each reload settles, the live descendant processes of this
//!   process must be the three servers and the open descriptors (`/proc/self/fd`) must be back
//!   at the count after the first load: one descriptor or process more after any reload fails
//!   the bench (the first five reloads that do not come back get 2 s each to do so, later ones
//!   are judged at once). Every few reloads a sample of processes, descriptors, threads
//!   (`/proc/self/status` `Threads`) and resident memory (`VmRSS`) is taken; first, last, max
//!   and the least-squares slope per 100 reloads are reported. Threads and memory are noisy (the
//!   runtime's blocking pool grows and shrinks, the allocator keeps freed pages), so they are
//!   judged on the second half of the run, after warm-up: the thread count there may not exceed
//!   the first half's maximum by more than [`THREAD_SLACK`], and resident memory fails only if
//!   it grew by more than [`RSS_GROWTH_LIMIT`] (2 MiB) over the second half both end to end and
//!   by the fitted slope. A leak of 20 KiB a reload is 2 MiB over the 100 reloads of a full
//!   run's second half (a `--quick` run's 25 catch 80 KiB a reload), while the allocator's own
//!   drift over a full run's second half was under 200 KiB on a 2-core machine. Leaks put into
//!   the loop on purpose (one descriptor, one thread or 100 KiB a reload, one stray child) each
//!   failed a `--quick` run.
//! - `load`: 20 servers; 1,000 callers run at once for a fixed time, each calling `echo` on its
//!   own server (caller k on server k mod 20) again and again (a closed loop: 1,000 calls are in
//!   flight at all times). Every 100–200 ms (at random) a killer sends SIGKILL to the process of
//!   server `srv-00` if that server is connected; the manager reconnects it (reconnect policy
//!   with a 50 ms first delay, instead of the default 500 ms, so that the server is back and
//!   killed again within the killer's period). Callers take their server's tool as the manager
//!   offers it now (a table refreshed on `ToolsChanged`, as a session's registry is), so a call
//!   made while the server reconnects waits for it as a deferred tool. Every call on the 19
//!   healthy servers must answer its own message (the bench fails otherwise); for the killed
//!   server the calls that succeeded and failed are counted (a caller whose call failed waits
//!   10 ms before the next, as an agent would not retry in a tight loop). Throughput, p50/p99/max
//!   latency of the successful calls (healthy servers and the killed one apart) and each kill's
//!   downtime (SIGKILL to `Connected` again) are reported, and the killed server must be
//!   connected again once the killer stops.
//! - `startup`: 100 servers with a 3 s connect timeout (`timeout` in each entry), 10 of which
//!   (every tenth) never answer `initialize` (`--hang-at initialize`). Run twice: `cold` with an
//!   empty cache, where the gate waits for every server that has no cached tools (so it answers
//!   when the hanging ones time out), and `warm`, where the cache holds tools for all 100 (the
//!   cold run wrote the healthy ones; the hanging ones get a healthy server's list, as if they
//!   had worked the day before), where the gate answers at its 250 ms deadline with deferred
//!   tools and the hanging servers fail later. Each run checks that the 90 healthy servers are
//!   connected, that the 10 hanging ones failed with a timeout error and nothing else failed,
//!   and that after `disconnect_all` none of the 100 processes is left (by the unique `--name`
//!   marker in `/proc/*/cmdline`). Time to the gate's answer and to every server settled
//!   (connected or failed) are reported.
//!
//! Usage: `cargo bench -p mcp-manager --bench soak -- [--quick]`. `--quick` does 50 reloads
//! instead of 200 and a 3 s load instead of 6 s; `--list` prints nothing; without `--bench`
//! among the arguments (as under `cargo test --benches`) a small smoke run is done (4 reloads;
//! 3 servers and 30 callers for 1 s; 6 servers, one hanging, with a 1 s timeout), which checks
//! descriptors and processes exactly but does not judge thread or memory growth (too few
//! reloads for a trend). Every fixture process gets a marker derived from a unique `--name`;
//! at the end the bench checks that none is left. A readable report goes to stdout, followed by
//! one JSON line with every figure; any failed check makes the bench exit non-zero.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::error::Error;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use mcp_bridge::AgentTool;
use mcp_cache::{CacheOptions, Fingerprint, MemoryToolCache, ToolCache};
use mcp_config::{DiscoveredServer, Level, ServerConfig, SourceMeta};
use mcp_manager::{
    ConnectionStatus, ManagedTool, ManagerEvent, ManagerOptions, McpManager, ReconnectPolicy,
};
use mcp_transport::credentials::MemoryCredentialStore;
use serde_json::{Value, json};
use testkit::FixtureServer;
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

type BoxError = Box<dyn Error + Send + Sync>;
type Result<T, E = BoxError> = std::result::Result<T, E>;

/// Generated tools per fixture server (`--tools`), besides the fixture's own.
const TOOLS_PER_SERVER: usize = 4;
/// Upper bound for one step (a reload, a startup, a wait for the background).
const STEP_TIMEOUT: Duration = Duration::from_secs(60);
/// How long processes and descriptors may take to come back after a reload or a disconnect.
const SETTLE_LIMIT: Duration = Duration::from_secs(2);
/// Reloads that may each take up to [`SETTLE_LIMIT`] to settle before the rest are judged at
/// once.
const PATIENT_RELOADS: usize = 5;
/// Threads the second half of the soak may have beyond the first half's maximum.
const THREAD_SLACK: i64 = 4;
/// Resident memory the second half of the soak may gain (end to end and by the slope).
const RSS_GROWTH_LIMIT: i64 = 2 * 1024 * 1024;

/// What one invocation runs.
struct Plan {
    mode: &'static str,
    soak: SoakPlan,
    load: LoadPlan,
    startup: StartupPlan,
}

struct SoakPlan {
    servers: usize,
    reloads: usize,
    /// A sample every so many reloads.
    sample_every: usize,
    /// Whether thread and memory growth are judged (not in the smoke run).
    judge_trend: bool,
}

struct LoadPlan {
    servers: usize,
    callers: usize,
    duration: Duration,
}

struct StartupPlan {
    servers: usize,
    /// Every `servers / hanging`-th server hangs.
    hanging: usize,
    timeout: Duration,
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|arg| arg == "--list") {
        return Ok(());
    }
    let quick = args.iter().any(|arg| arg == "--quick");
    let plan = if !args.iter().any(|arg| arg == "--bench") {
        Plan {
            mode: "smoke",
            soak: SoakPlan {
                servers: 3,
                reloads: 4,
                sample_every: 1,
                judge_trend: false,
            },
            load: LoadPlan {
                servers: 3,
                callers: 30,
                duration: Duration::from_secs(1),
            },
            startup: StartupPlan {
                servers: 6,
                hanging: 1,
                timeout: Duration::from_secs(1),
            },
        }
    } else {
        Plan {
            mode: if quick { "quick" } else { "full" },
            soak: SoakPlan {
                servers: 3,
                reloads: if quick { 50 } else { 200 },
                sample_every: if quick { 5 } else { 10 },
                judge_trend: true,
            },
            load: LoadPlan {
                servers: 20,
                callers: 1000,
                duration: Duration::from_secs(if quick { 3 } else { 6 }),
            },
            startup: StartupPlan {
                servers: 100,
                hanging: 10,
                timeout: Duration::from_secs(3),
            },
        }
    };

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let marker = format!(
        "mcp-soak-bench-{}-{}",
        std::process::id(),
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|elapsed| elapsed.as_nanos())
            .unwrap_or_default()
    );
    let mut failures = Vec::new();
    let (soak, load, startup) = runtime.block_on(async {
        let soak = record(&mut failures, "soak", soak(&plan.soak, &marker).await);
        let load = record(&mut failures, "load", load(&plan.load, &marker).await);
        let startup = record(
            &mut failures,
            "startup",
            startup(&plan.startup, &marker).await,
        );
        (soak, load, startup)
    });
    drop(runtime);

    // Whatever happened, no fixture process may outlive the bench.
    let left = if testkit::wait_until(Duration::from_secs(5), || fixtures(&marker).is_empty()) {
        0
    } else {
        fixtures(&marker).len()
    };
    if left > 0 {
        failures.push(format!(
            "{left} fixture process(es) with marker {marker} left behind"
        ));
    }
    report(
        &plan,
        soak.as_ref(),
        load.as_ref(),
        startup.as_ref(),
        left,
        &failures,
    );
    if failures.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} check(s) failed: {}",
            failures.len(),
            failures.join("; ")
        )
        .into())
    }
}

/// Keeps a scenario's figures and adds its failed checks (or its error) to `failures`.
fn record<T: Scenario>(failures: &mut Vec<String>, name: &str, outcome: Result<T>) -> Option<T> {
    match outcome {
        Ok(figures) => {
            failures.extend(
                figures
                    .violations()
                    .iter()
                    .map(|violation| format!("{name}: {violation}")),
            );
            Some(figures)
        }
        Err(error) => {
            failures.push(format!("{name}: {error}"));
            None
        }
    }
}

/// The checks a scenario's run failed.
trait Scenario {
    fn violations(&self) -> &[String];
}

// ---------------------------------------------------------------------------------------------
// Soak
// ---------------------------------------------------------------------------------------------

/// Resources of this process at one point of the soak.
#[derive(Clone, Copy)]
struct Sample {
    reload: usize,
    processes: usize,
    fds: usize,
    threads: usize,
    rss_bytes: u64,
}

struct Soak {
    samples: Vec<Sample>,
    /// Duration of each reload (`disconnect_changed` + `connect_servers`), the first load not
    /// included.
    reload_times: Vec<Duration>,
    /// Open descriptors after the first load settled: every reload must come back to it.
    baseline_fds: usize,
    violations: Vec<String>,
}

impl Scenario for Soak {
    fn violations(&self) -> &[String] {
        &self.violations
    }
}

async fn soak(plan: &SoakPlan, marker: &str) -> Result<Soak> {
    let cache = Arc::new(MemoryToolCache::new(CacheOptions::default()));
    let manager = McpManager::new(ManagerOptions::default(), cache);
    let outcome = soak_reloads(&manager, plan, marker).await;
    manager.disconnect_all().await;
    let mut soak = outcome?;
    if !settle(|| fixtures(marker).is_empty()).await {
        soak.violations.push(format!(
            "{} fixture process(es) alive after disconnect_all",
            fixtures(marker).len()
        ));
    }
    Ok(soak)
}

/// The three servers of reload `generation`: the definition names the generation, so each
/// reload changes every server.
fn soak_configs(
    marker: &str,
    servers: usize,
    generation: usize,
) -> BTreeMap<String, DiscoveredServer> {
    (0..servers)
        .map(|index| {
            let fixture = FixtureServer::new()
                .name(marker)
                .tools(TOOLS_PER_SERVER)
                .instructions(format!("reload-{generation}"));
            (format!("srv-{index}"), discovered(&fixture, None))
        })
        .collect()
}

async fn soak_reloads(manager: &McpManager, plan: &SoakPlan, marker: &str) -> Result<Soak> {
    let mut samples = Vec::new();
    let mut reload_times = Vec::new();
    let mut violations = Vec::new();
    let mut baseline_fds = 0;
    // What did not come back, reload by reload.
    let mut unsettled: Vec<String> = Vec::new();
    let mut previous_pids: HashSet<i32> = HashSet::new();
    // What a session's registry holds between reloads: the tools of the last load.
    let mut registry: Vec<ManagedTool> = Vec::new();
    for generation in 0..=plan.reloads {
        let servers = soak_configs(marker, plan.servers, generation);
        let started = Instant::now();
        let restarted = manager.disconnect_changed(&servers).await;
        let outcome = tokio::time::timeout(STEP_TIMEOUT, manager.connect_servers(&servers))
            .await
            .map_err(|_| format!("reload {generation}: connect_servers took over 60 s"))?;
        if generation > 0 {
            reload_times.push(started.elapsed());
            if restarted.len() != plan.servers {
                return Err(format!(
                    "reload {generation}: {} server(s) restarted, expected {}",
                    restarted.len(),
                    plan.servers
                )
                .into());
            }
        }
        if let Some(error) = outcome.errors.first() {
            return Err(format!("reload {generation}: a server failed: {error}").into());
        }
        let expected = plan.servers * (testkit::BUILT_IN_TOOLS + TOOLS_PER_SERVER);
        let live = outcome.tools.iter().filter(|tool| !tool.deferred).count();
        if outcome.tools.len() != expected || live != expected {
            return Err(format!(
                "reload {generation}: {} tools ({live} live), expected {expected} live",
                outcome.tools.len()
            )
            .into());
        }
        // The session's registry takes the new tools; the old ones go.
        drop(std::mem::replace(&mut registry, manager.tools()));
        for server in servers.keys() {
            let message = format!("{server}-{generation}");
            let output = call(&tool_of(&registry, server, "echo")?, &message).await;
            if output.as_deref() != Ok(message.as_str()) {
                return Err(format!("reload {generation}: echo on {server}: {output:?}").into());
            }
        }

        // Settled: the old processes gone (only the new ones are children of this process),
        // and the descriptors back where the first load left them.
        let survivors = || {
            fixtures(marker)
                .into_iter()
                .filter(|pid| previous_pids.contains(pid))
                .count()
        };
        // Once a few reloads did not settle, the rest are judged at once: a leak every reload
        // would otherwise cost the whole limit each time.
        let limit = if unsettled.len() < PATIENT_RELOADS {
            SETTLE_LIMIT
        } else {
            Duration::ZERO
        };
        let settled = settle_within(limit, || {
            survivors() == 0
                && descendants().len() == plan.servers
                && (generation == 0 || fds() == baseline_fds)
        })
        .await;
        if generation == 0 {
            baseline_fds = fds();
        }
        if !settled {
            unsettled.push(format!(
                "after reload {generation}: {} old server process(es) alive, {} live child \
                 processes (expected {}), {} open descriptors (expected {baseline_fds})",
                survivors(),
                descendants().len(),
                plan.servers,
                fds()
            ));
        }
        previous_pids = fixtures(marker).into_iter().collect();
        if generation % plan.sample_every == 0 || generation == plan.reloads {
            samples.push(Sample {
                reload: generation,
                processes: descendants().len(),
                fds: fds(),
                threads: status_field("Threads:").unwrap_or(0) as usize,
                rss_bytes: status_field("VmRSS:").unwrap_or(0) * 1024,
            });
        }
    }
    drop(registry);
    if let (Some(first), Some(last)) = (unsettled.first(), unsettled.last()) {
        violations.push(format!(
            "processes or descriptors not back in {} of {} reloads; first {first}; last {last}",
            unsettled.len(),
            plan.reloads + 1
        ));
    }
    if plan.judge_trend {
        violations.extend(trend_violations(&samples, plan.reloads));
    }
    Ok(Soak {
        samples,
        reload_times,
        baseline_fds,
        violations,
    })
}

/// Thread and memory growth over the second half of the soak, against the limits.
fn trend_violations(samples: &[Sample], reloads: usize) -> Vec<String> {
    let mut violations = Vec::new();
    let half = reloads / 2;
    let (first, second): (Vec<&Sample>, Vec<&Sample>) =
        samples.iter().partition(|sample| sample.reload < half);
    let max_threads = |part: &[&Sample]| {
        part.iter()
            .map(|sample| sample.threads as i64)
            .max()
            .unwrap_or(0)
    };
    let (first_threads, second_threads) = (max_threads(&first), max_threads(&second));
    if second_threads > first_threads + THREAD_SLACK {
        violations.push(format!(
            "threads grew: {second_threads} in the second half, at most {first_threads} in the \
             first"
        ));
    }
    if let (Some(mid), Some(last)) = (second.first(), second.last()) {
        let end_to_end = last.rss_bytes as i64 - mid.rss_bytes as i64;
        let points: Vec<(f64, f64)> = second
            .iter()
            .map(|sample| (sample.reload as f64, sample.rss_bytes as f64))
            .collect();
        let fitted = (slope(&points) * (last.reload - mid.reload) as f64) as i64;
        if end_to_end > RSS_GROWTH_LIMIT && fitted > RSS_GROWTH_LIMIT {
            violations.push(format!(
                "resident memory grew by {} KiB over the second half ({} KiB by the slope), \
                 limit {} KiB",
                end_to_end / 1024,
                fitted / 1024,
                RSS_GROWTH_LIMIT / 1024
            ));
        }
    }
    violations
}

/// Least-squares slope of `y` over `x`; 0 with fewer than two distinct `x`.
fn slope(points: &[(f64, f64)]) -> f64 {
    let count = points.len() as f64;
    if points.len() < 2 {
        return 0.0;
    }
    let mean_x = points.iter().map(|(x, _)| x).sum::<f64>() / count;
    let mean_y = points.iter().map(|(_, y)| y).sum::<f64>() / count;
    let covariance: f64 = points
        .iter()
        .map(|(x, y)| (x - mean_x) * (y - mean_y))
        .sum();
    let variance: f64 = points.iter().map(|(x, _)| (x - mean_x).powi(2)).sum();
    if variance == 0.0 {
        0.0
    } else {
        covariance / variance
    }
}

// ---------------------------------------------------------------------------------------------
// Load with a killer
// ---------------------------------------------------------------------------------------------

/// What the callers of one server saw.
#[derive(Default)]
struct Calls {
    ok: u64,
    failed: u64,
    /// Latency of each successful call, in microseconds.
    latencies_us: Vec<u32>,
    /// The first failure, for the report.
    first_failure: Option<String>,
}

struct Load {
    servers: usize,
    callers: usize,
    wall: Duration,
    healthy: Calls,
    victim: Calls,
    kills: u64,
    /// For each kill, the time until the server was connected again (microseconds, sorted).
    downtimes_us: Vec<u32>,
    /// Time from the killer's stop until the killed server was connected again.
    recovered_after: Option<Duration>,
    violations: Vec<String>,
}

impl Scenario for Load {
    fn violations(&self) -> &[String] {
        &self.violations
    }
}

/// The server the killer kills.
const VICTIM: &str = "srv-00";

async fn load(plan: &LoadPlan, marker: &str) -> Result<Load> {
    // A marker of its own, so that the killer finds this server's process alone.
    let victim_marker = format!("{marker}-victim");
    let servers: BTreeMap<String, DiscoveredServer> = (0..plan.servers)
        .map(|index| {
            let name = format!("srv-{index:02}");
            let fixture_name = if name == VICTIM {
                victim_marker.as_str()
            } else {
                marker
            };
            let fixture = FixtureServer::new()
                .name(fixture_name)
                .tools(TOOLS_PER_SERVER);
            (name, discovered(&fixture, None))
        })
        .collect();
    let options = ManagerOptions::default().reconnect(
        ReconnectPolicy::default()
            .delays(Duration::from_millis(50), Duration::from_secs(1))
            .max_attempts(10),
    );
    let cache = Arc::new(MemoryToolCache::new(CacheOptions::default()));
    let manager = Arc::new(McpManager::new(options, cache));
    let outcome = run_load(&manager, &servers, plan, &victim_marker).await;
    manager.disconnect_all().await;
    let mut load = outcome?;
    if !settle(|| fixtures(marker).is_empty()).await {
        load.violations.push(format!(
            "{} fixture process(es) alive after disconnect_all",
            fixtures(marker).len()
        ));
    }
    Ok(load)
}

/// Each server's `echo` tool as the manager offers it now, kept up to date from its events.
struct ToolTable {
    names: Vec<String>,
    slots: Vec<Mutex<Arc<dyn AgentTool>>>,
}

impl ToolTable {
    fn new(names: Vec<String>, tools: &[ManagedTool]) -> Result<Self> {
        let slots = names
            .iter()
            .map(|name| tool_of(tools, name, "echo").map(Mutex::new))
            .collect::<Result<_>>()?;
        Ok(Self { names, slots })
    }

    fn get(&self, index: usize) -> Arc<dyn AgentTool> {
        Arc::clone(
            &self.slots[index]
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        )
    }

    /// Takes the current tools of `server` (every server when `None`).
    fn refresh(&self, manager: &McpManager, server: Option<&str>) {
        let tools = manager.tools();
        for (name, slot) in self.names.iter().zip(&self.slots) {
            if server.is_some_and(|server| server != name) {
                continue;
            }
            if let Ok(tool) = tool_of(&tools, name, "echo") {
                *slot.lock().unwrap_or_else(PoisonError::into_inner) = tool;
            }
        }
    }
}

async fn run_load(
    manager: &Arc<McpManager>,
    servers: &BTreeMap<String, DiscoveredServer>,
    plan: &LoadPlan,
    victim_marker: &str,
) -> Result<Load> {
    let events = manager.subscribe();
    let outcome = tokio::time::timeout(STEP_TIMEOUT, manager.connect_servers(servers))
        .await
        .map_err(|_| "connect_servers took over 60 s")?;
    if let Some(error) = outcome.errors.first() {
        return Err(format!("a server failed to start: {error}").into());
    }
    let names: Vec<String> = servers.keys().cloned().collect();
    let victim = names
        .iter()
        .position(|name| name == VICTIM)
        .ok_or("no victim server")?;
    let table = Arc::new(ToolTable::new(names, &outcome.tools)?);

    let stop = CancellationToken::new();
    let victim_up = Arc::new(Mutex::new(Vec::new()));
    let refresher = tokio::spawn(follow_tools(
        Arc::clone(manager),
        Arc::clone(&table),
        events,
        Arc::clone(&victim_up),
        stop.clone(),
    ));
    let kills = Arc::new(Mutex::new(Vec::new()));
    let killer = tokio::spawn(kill_repeatedly(
        Arc::clone(manager),
        victim_marker.to_owned(),
        Arc::clone(&kills),
        stop.clone(),
    ));

    let started = Instant::now();
    let deadline = started + plan.duration;
    let mut callers = tokio::task::JoinSet::new();
    for caller in 0..plan.callers {
        let server = caller % table.names.len();
        callers.spawn(call_until(
            Arc::clone(&table),
            server,
            caller,
            deadline,
            server == victim,
        ));
    }
    let mut healthy = Calls::default();
    let mut victim_calls = Calls::default();
    while let Some(joined) = callers.join_next().await {
        let (server, calls) = joined?;
        let total = if server == victim {
            &mut victim_calls
        } else {
            &mut healthy
        };
        total.ok += calls.ok;
        total.failed += calls.failed;
        total.latencies_us.extend(calls.latencies_us);
        if total.first_failure.is_none() {
            total.first_failure = calls.first_failure;
        }
    }
    let wall = started.elapsed();
    stop.cancel();
    killer.await?;
    let stopped = Instant::now();
    let recovered = wait_connected(manager, VICTIM, Duration::from_secs(10)).await;
    let recovered_after = recovered.then(|| stopped.elapsed());
    refresher.await?;

    let kills = std::mem::take(&mut *kills.lock().unwrap_or_else(PoisonError::into_inner));
    let up = std::mem::take(&mut *victim_up.lock().unwrap_or_else(PoisonError::into_inner));
    // Each kill's downtime: until the first `Connected` of the server after it.
    let mut downtimes_us: Vec<u32> = kills
        .iter()
        .filter_map(|killed| up.iter().find(|at| *at > killed).map(|at| *at - *killed))
        .map(|downtime| u32::try_from(downtime.as_micros()).unwrap_or(u32::MAX))
        .collect();
    downtimes_us.sort_unstable();
    let kills = kills.len() as u64;
    let mut violations = Vec::new();
    if healthy.failed > 0 {
        violations.push(format!(
            "{} call(s) on healthy servers failed, first: {}",
            healthy.failed,
            healthy.first_failure.as_deref().unwrap_or("?")
        ));
    }
    if kills == 0 {
        violations.push("the killer never found the server connected".to_owned());
    }
    if !recovered {
        violations.push(format!(
            "{VICTIM} was not connected again within 10 s of the last kill: {}",
            manager.get_connection_status(VICTIM).as_str()
        ));
    }
    Ok(Load {
        servers: plan.servers,
        callers: plan.callers,
        wall,
        healthy,
        victim: victim_calls,
        kills,
        downtimes_us,
        recovered_after,
        violations,
    })
}

/// One caller: `echo` on its server until `deadline`, each message its own.
async fn call_until(
    table: Arc<ToolTable>,
    server: usize,
    caller: usize,
    deadline: Instant,
    victim: bool,
) -> (usize, Calls) {
    let mut calls = Calls::default();
    let mut sequence = 0u64;
    while Instant::now() < deadline {
        sequence += 1;
        let message = format!("c{caller}-{sequence}");
        let tool = table.get(server);
        let started = Instant::now();
        let output = call(&tool, &message).await;
        let latency = started.elapsed();
        match output {
            Ok(text) if text == message => {
                calls.ok += 1;
                calls
                    .latencies_us
                    .push(u32::try_from(latency.as_micros()).unwrap_or(u32::MAX));
            }
            other => {
                calls.failed += 1;
                if calls.first_failure.is_none() {
                    calls.first_failure = Some(match other {
                        Ok(text) => format!("answered {text:?} to {message:?}"),
                        Err(error) => error,
                    });
                }
                if victim {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
            }
        }
    }
    (server, calls)
}

/// Keeps `table` in step with the manager's tools until `stop`, and notes when the killed
/// server is connected again.
async fn follow_tools(
    manager: Arc<McpManager>,
    table: Arc<ToolTable>,
    mut events: broadcast::Receiver<ManagerEvent>,
    victim_up: Arc<Mutex<Vec<Instant>>>,
    stop: CancellationToken,
) {
    loop {
        let event = tokio::select! {
            () = stop.cancelled() => return,
            event = events.recv() => event,
        };
        match event {
            Ok(ManagerEvent::ToolsChanged { server }) => table.refresh(&manager, Some(&server)),
            Ok(ManagerEvent::StatusChanged {
                server,
                status: ConnectionStatus::Connected,
            }) if server == VICTIM => {
                victim_up
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(Instant::now());
            }
            Ok(_) => {}
            Err(broadcast::error::RecvError::Lagged(_)) => table.refresh(&manager, None),
            Err(broadcast::error::RecvError::Closed) => return,
        }
    }
}

/// Every 100–200 ms, SIGKILLs the process of the victim if the manager has it connected;
/// notes when.
async fn kill_repeatedly(
    manager: Arc<McpManager>,
    victim_marker: String,
    kills: Arc<Mutex<Vec<Instant>>>,
    stop: CancellationToken,
) {
    let mut random = XorShift::seeded();
    loop {
        let pause = Duration::from_millis(100 + random.next() % 101);
        tokio::select! {
            () = stop.cancelled() => return,
            () = tokio::time::sleep(pause) => {}
        }
        if manager.get_connection_status(VICTIM) != ConnectionStatus::Connected {
            continue;
        }
        let pids = testkit::processes_with_arg(&victim_marker);
        for &pid in &pids {
            testkit::kill_process(pid);
        }
        if !pids.is_empty() {
            kills
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(Instant::now());
        }
    }
}

/// A small pseudo-random sequence for the killer's pauses.
struct XorShift(u64);

impl XorShift {
    fn seeded() -> Self {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|elapsed| elapsed.subsec_nanos())
            .unwrap_or(1);
        Self(u64::from(nanos) | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// The key the manager caches `server`'s tools under (the benches log nothing in).
async fn key_of(server: &DiscoveredServer) -> Fingerprint {
    mcp_manager::cache_fingerprint(server, &MemoryCredentialStore::new()).await
}

/// Waits until `server` is connected; false after `limit`.
async fn wait_connected(manager: &McpManager, server: &str, limit: Duration) -> bool {
    let deadline = Instant::now() + limit;
    loop {
        if manager.get_connection_status(server) == ConnectionStatus::Connected {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

// ---------------------------------------------------------------------------------------------
// Startup with hanging servers
// ---------------------------------------------------------------------------------------------

struct StartupRun {
    name: &'static str,
    /// `connect_servers` call to its answer.
    gate: Duration,
    /// `connect_servers` call to the last server connected or failed.
    all_settled: Duration,
    /// Servers with live tools in the gate's answer.
    live_at_gate: usize,
    /// Servers with only deferred tools in the gate's answer.
    deferred_at_gate: usize,
    /// Errors in the gate's answer.
    errors_at_gate: usize,
    connected: usize,
    timed_out: usize,
    /// Fixture processes alive right after `disconnect_all` returned.
    left_after_disconnect: usize,
}

struct Startup {
    servers: usize,
    hanging: usize,
    timeout: Duration,
    runs: Vec<StartupRun>,
    violations: Vec<String>,
}

impl Scenario for Startup {
    fn violations(&self) -> &[String] {
        &self.violations
    }
}

async fn startup(plan: &StartupPlan, marker: &str) -> Result<Startup> {
    let every = plan.servers / plan.hanging.max(1);
    let hanging: HashSet<String> = (0..plan.servers)
        .filter(|index| index % every == every - 1)
        .map(|index| format!("srv-{index:03}"))
        .collect();
    let servers: BTreeMap<String, DiscoveredServer> = (0..plan.servers)
        .map(|index| {
            let name = format!("srv-{index:03}");
            let mut fixture = FixtureServer::new().name(marker).tools(TOOLS_PER_SERVER);
            if hanging.contains(&name) {
                fixture = fixture.hang_at("initialize");
            }
            (name, discovered(&fixture, Some(plan.timeout)))
        })
        .collect();
    let cache = Arc::new(MemoryToolCache::new(CacheOptions::default()));
    let mut violations = Vec::new();

    let cold = startup_run("cold", &cache, &servers, &hanging, marker, &mut violations).await?;

    // As if every server had worked before: the hanging ones get a healthy server's list.
    let healthy = servers
        .iter()
        .find(|(name, _)| !hanging.contains(*name))
        .ok_or("no healthy server")?;
    let tools = cache
        .get(healthy.0, &key_of(healthy.1).await)
        .await
        .ok_or("the cold run cached no tools")?;
    for name in &hanging {
        if let Some(server) = servers.get(name) {
            cache.set(name, &key_of(server).await, &tools).await;
        }
    }
    let warm = startup_run("warm", &cache, &servers, &hanging, marker, &mut violations).await?;

    Ok(Startup {
        servers: plan.servers,
        hanging: hanging.len(),
        timeout: plan.timeout,
        runs: vec![cold, warm],
        violations,
    })
}

async fn startup_run(
    name: &'static str,
    cache: &Arc<MemoryToolCache>,
    servers: &BTreeMap<String, DiscoveredServer>,
    hanging: &HashSet<String>,
    marker: &str,
    violations: &mut Vec<String>,
) -> Result<StartupRun> {
    let manager = McpManager::new(
        ManagerOptions::default(),
        Arc::clone(cache) as Arc<dyn ToolCache>,
    );
    let measured = measure_startup(&manager, servers, hanging).await;
    manager.disconnect_all().await;
    let left_after_disconnect = fixtures(marker).len();
    let mut run = measured?;
    run.name = name;
    run.left_after_disconnect = left_after_disconnect;
    let healthy = servers.len() - hanging.len();
    if run.connected != healthy {
        violations.push(format!(
            "{name}: {} of {healthy} healthy servers connected",
            run.connected
        ));
    }
    if run.timed_out != hanging.len() {
        violations.push(format!(
            "{name}: {} of {} hanging servers failed with a timeout",
            run.timed_out,
            hanging.len()
        ));
    }
    if left_after_disconnect > 0 {
        violations.push(format!(
            "{name}: {left_after_disconnect} fixture process(es) alive after disconnect_all \
             returned"
        ));
    }
    Ok(run)
}

async fn measure_startup(
    manager: &McpManager,
    servers: &BTreeMap<String, DiscoveredServer>,
    hanging: &HashSet<String>,
) -> Result<StartupRun> {
    let events = manager.subscribe();
    let watcher = tokio::spawn(settle_times(events, servers.len()));
    let started = Instant::now();
    let outcome = tokio::time::timeout(STEP_TIMEOUT, manager.connect_servers(servers))
        .await
        .map_err(|_| "connect_servers took over 60 s")?;
    let gate = started.elapsed();
    let settled = tokio::time::timeout(STEP_TIMEOUT, watcher)
        .await
        .map_err(|_| "the servers did not all settle within 60 s")???;
    let all_settled = settled
        .values()
        .map(|(at, _)| at.saturating_duration_since(started))
        .max()
        .unwrap_or_default();

    let mut by_server: HashMap<&str, (bool, bool)> = HashMap::new();
    for tool in &outcome.tools {
        let entry = by_server.entry(tool.server.as_str()).or_default();
        if tool.deferred {
            entry.1 = true;
        } else {
            entry.0 = true;
        }
    }
    let live_at_gate = by_server.values().filter(|(live, _)| *live).count();
    let deferred_at_gate = by_server
        .values()
        .filter(|(live, deferred)| *deferred && !*live)
        .count();

    let mut connected = 0;
    let mut timed_out = 0;
    for (server, (_, status)) in &settled {
        match status {
            ConnectionStatus::Connected if !hanging.contains(server) => connected += 1,
            ConnectionStatus::Failed(error) if hanging.contains(server) && error.is_timeout() => {
                timed_out += 1;
            }
            other => {
                return Err(format!(
                    "{server} ended {} ({:?})",
                    other.as_str(),
                    other.error().map(ToString::to_string)
                )
                .into());
            }
        }
    }
    // The gate's errors are the hanging servers' timeouts, or nothing (when it answered first).
    if let Some(error) = outcome
        .errors
        .iter()
        .find(|error| !error.is_timeout() || !error.server().is_some_and(|s| hanging.contains(s)))
    {
        return Err(format!("unexpected error at the gate: {error}").into());
    }
    Ok(StartupRun {
        name: "",
        gate,
        all_settled,
        live_at_gate,
        deferred_at_gate,
        errors_at_gate: outcome.errors.len(),
        connected,
        timed_out,
        left_after_disconnect: 0,
    })
}

/// When each of `count` servers ended connected or failed, and how.
async fn settle_times(
    mut events: broadcast::Receiver<ManagerEvent>,
    count: usize,
) -> Result<HashMap<String, (Instant, ConnectionStatus)>> {
    let mut settled = HashMap::new();
    while settled.len() < count {
        match events.recv().await {
            Ok(ManagerEvent::StatusChanged { server, status }) => {
                if matches!(
                    status,
                    ConnectionStatus::Connected | ConnectionStatus::Failed(_)
                ) {
                    settled
                        .entry(server)
                        .or_insert_with(|| (Instant::now(), status));
                }
            }
            Ok(_) => {}
            Err(error) => return Err(format!("manager events: {error}").into()),
        }
    }
    Ok(settled)
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/// A discovered stdio server running `fixture`, with a connect timeout when given.
fn discovered(fixture: &FixtureServer, timeout: Option<Duration>) -> DiscoveredServer {
    let (program, args) = fixture.command();
    let mut config = ServerConfig::stdio(program.to_string_lossy(), args);
    config.timeout = timeout.map(|timeout| u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX));
    let source = SourceMeta::new("bench", "Bench", "bench.json", Level::User);
    DiscoveredServer::new(config, source)
}

/// The tool `tool` of `server` among `tools`.
fn tool_of(tools: &[ManagedTool], server: &str, tool: &str) -> Result<Arc<dyn AgentTool>> {
    tools
        .iter()
        .find(|candidate| candidate.server == server && candidate.original_name == tool)
        .map(|found| Arc::clone(&found.tool))
        .ok_or_else(|| format!("{server} offers no {tool} tool").into())
}

/// Calls an `echo` tool: its text, or the error it answered.
async fn call(tool: &Arc<dyn AgentTool>, message: &str) -> Result<String, String> {
    match tool
        .execute(json!({ "message": message }), CancellationToken::new())
        .await
    {
        Ok(output) if output.is_error => Err(output.to_text()),
        Ok(output) => Ok(output.to_text()),
        Err(cancelled) => Err(cancelled.to_string()),
    }
}

/// Waits (at most [`SETTLE_LIMIT`]) until `cond` holds; its last answer.
async fn settle(cond: impl FnMut() -> bool) -> bool {
    settle_within(SETTLE_LIMIT, cond).await
}

/// Waits (at most `limit`) until `cond` holds; its last answer. `cond` is asked at least once.
async fn settle_within(limit: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    loop {
        if cond() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// Live fixture processes of this bench (the load's victim has a marker of its own that starts
/// with the bench's).
fn fixtures(marker: &str) -> Vec<i32> {
    testkit::processes_with_arg_where(|arg| arg.starts_with(marker))
}

/// Live (non-zombie) descendants of this process, from `/proc/<pid>/stat`.
fn descendants() -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut parents: HashMap<i32, (i32, bool)> = HashMap::new();
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|name| name.parse::<i32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // The command name (field 2) is in parentheses and may hold spaces or ')'.
        let Some(rest) = stat.rfind(')').map(|end| &stat[end + 1..]) else {
            continue;
        };
        let mut fields = rest.split_whitespace();
        let state = fields.next().and_then(|state| state.chars().next());
        let ppid = fields.next().and_then(|ppid| ppid.parse::<i32>().ok());
        if let (Some(state), Some(ppid)) = (state, ppid) {
            parents.insert(pid, (ppid, !matches!(state, 'Z' | 'X')));
        }
    }
    let own = i32::try_from(std::process::id()).unwrap_or(0);
    let mut found: Vec<i32> = parents
        .iter()
        .filter(|(_, (_, alive))| *alive)
        .filter(|(pid, _)| {
            // Walk up to init; the chain is short and acyclic.
            let mut current = **pid;
            for _ in 0..64 {
                match parents.get(&current) {
                    Some(&(parent, _)) if parent == own => return true,
                    Some(&(parent, _)) if parent > 1 => current = parent,
                    _ => return false,
                }
            }
            false
        })
        .map(|(pid, _)| *pid)
        .collect();
    found.sort_unstable();
    found
}

/// Open descriptors of this process (the one reading the directory included, always).
fn fds() -> usize {
    std::fs::read_dir("/proc/self/fd").map_or(0, |entries| entries.count())
}

/// A numeric field of `/proc/self/status` (`Threads:`, `VmRSS:` in KiB).
fn status_field(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix(field))
        .and_then(|value| value.split_whitespace().next())
        .and_then(|value| value.parse().ok())
}

// ---------------------------------------------------------------------------------------------
// Report
// ---------------------------------------------------------------------------------------------

fn ms(duration: Duration) -> f64 {
    (duration.as_secs_f64() * 10_000.0).round() / 10.0
}

/// The `fraction` percentile of sorted values.
fn percentile(sorted: &[u32], fraction: f64) -> u32 {
    if sorted.is_empty() {
        return 0;
    }
    let index = ((sorted.len() - 1) as f64 * fraction).round() as usize;
    sorted[index.min(sorted.len() - 1)]
}

/// first / last / max / slope per 100 reloads of one soak figure.
fn series(samples: &[Sample], value: impl Fn(&Sample) -> f64) -> (f64, f64, f64, f64) {
    let first = samples.first().map_or(0.0, &value);
    let last = samples.last().map_or(0.0, &value);
    let max = samples.iter().map(&value).fold(f64::MIN, f64::max);
    let points: Vec<(f64, f64)> = samples
        .iter()
        .map(|sample| (sample.reload as f64, value(sample)))
        .collect();
    (first, last, max.max(0.0), slope(&points) * 100.0)
}

fn report(
    plan: &Plan,
    soak: Option<&Soak>,
    load: Option<&Load>,
    startup: Option<&Startup>,
    left: usize,
    failures: &[String],
) {
    println!("soak/load/startup benchmark ({})", plan.mode);
    let mut line = serde_json::Map::new();
    line.insert("bench".into(), json!("soak"));
    line.insert("mode".into(), json!(plan.mode));
    if let Some(soak) = soak {
        line.insert("soak".into(), report_soak(plan, soak));
    }
    if let Some(load) = load {
        line.insert("load".into(), report_load(load));
    }
    if let Some(startup) = startup {
        line.insert("startup".into(), report_startup(startup));
    }
    println!("\nfixture processes left at the end: {left}");
    if failures.is_empty() {
        println!("every check passed");
    } else {
        for failure in failures {
            println!("FAILED: {failure}");
        }
    }
    line.insert("processes_left".into(), json!(left));
    line.insert("failures".into(), json!(failures));
    println!("{}", Value::Object(line));
}

/// One figure of a soak sample, as a number.
type SampleFigure = fn(&Sample) -> f64;

fn report_soak(plan: &Plan, soak: &Soak) -> Value {
    let mut times: Vec<u32> = soak
        .reload_times
        .iter()
        .map(|time| u32::try_from(time.as_micros()).unwrap_or(u32::MAX))
        .collect();
    times.sort_unstable();
    println!(
        "\nsoak: {} reloads of {} servers (each restarted and listed again), sample every {} \
         reloads; reload p50 {:.1} ms, p99 {:.1} ms; descriptors after each reload must equal \
         {}",
        plan.soak.reloads,
        plan.soak.servers,
        plan.soak.sample_every,
        f64::from(percentile(&times, 0.5)) / 1000.0,
        f64::from(percentile(&times, 0.99)) / 1000.0,
        soak.baseline_fds
    );
    println!(
        "{:<12} {:>12} {:>12} {:>12} {:>18}",
        "figure", "first", "last", "max", "slope / 100 rel."
    );
    let mut figures = serde_json::Map::new();
    let rows: [(&str, SampleFigure, f64); 4] = [
        ("processes", |s| s.processes as f64, 1.0),
        ("fds", |s| s.fds as f64, 1.0),
        ("threads", |s| s.threads as f64, 1.0),
        ("rss_kib", |s| s.rss_bytes as f64, 1024.0),
    ];
    for (name, value, unit) in rows {
        let (first, last, max, per_100) = series(&soak.samples, value);
        println!(
            "{:<12} {:>12.0} {:>12.0} {:>12.0} {:>18.1}",
            name,
            first / unit,
            last / unit,
            max / unit,
            per_100 / unit
        );
        figures.insert(
            name.to_owned(),
            json!({
                "first": first / unit,
                "last": last / unit,
                "max": max / unit,
                "slope_per_100_reloads": (per_100 / unit * 10.0).round() / 10.0,
            }),
        );
    }
    json!({
        "servers": plan.soak.servers,
        "reloads": plan.soak.reloads,
        "sample_every": plan.soak.sample_every,
        "trend_judged": plan.soak.judge_trend,
        "reload_ms": {
            "p50": f64::from(percentile(&times, 0.5)) / 1000.0,
            "p99": f64::from(percentile(&times, 0.99)) / 1000.0,
            "max": f64::from(times.last().copied().unwrap_or(0)) / 1000.0,
        },
        "baseline_fds": soak.baseline_fds,
        "figures": figures,
        "samples": soak.samples.iter().map(|sample| json!([
            sample.reload, sample.processes, sample.fds, sample.threads, sample.rss_bytes / 1024
        ])).collect::<Vec<_>>(),
        "samples_columns": ["reload", "processes", "fds", "threads", "rss_kib"],
        "violations": soak.violations,
    })
}

fn report_load(load: &Load) -> Value {
    let sorted = |latencies: &[u32]| {
        let mut sorted = latencies.to_vec();
        sorted.sort_unstable();
        sorted
    };
    let healthy = sorted(&load.healthy.latencies_us);
    let victim = sorted(&load.victim.latencies_us);
    let total = load.healthy.ok + load.healthy.failed + load.victim.ok + load.victim.failed;
    let throughput = (load.healthy.ok + load.victim.ok) as f64 / load.wall.as_secs_f64();
    let millis = |micros: u32| f64::from(micros) / 1000.0;
    let latency = |sorted: &[u32]| {
        json!({
            "p50": millis(percentile(sorted, 0.5)),
            "p99": millis(percentile(sorted, 0.99)),
            "max": millis(sorted.last().copied().unwrap_or(0)),
        })
    };
    let shown = |sorted: &[u32]| {
        format!(
            "p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
            millis(percentile(sorted, 0.5)),
            millis(percentile(sorted, 0.99)),
            millis(sorted.last().copied().unwrap_or(0))
        )
    };
    println!(
        "\nload: {} servers, {} callers at once for {:.1} s, {VICTIM} SIGKILLed every 100-200 ms \
         while connected",
        load.servers,
        load.callers,
        load.wall.as_secs_f64()
    );
    println!("calls {total}, throughput {throughput:.0} successful calls/s");
    println!(
        "healthy servers: {} ok, {} failed; latency {}",
        load.healthy.ok,
        load.healthy.failed,
        shown(&healthy)
    );
    println!(
        "killed server: {} kills, {} calls ok, {} failed (first: {}); latency of its successful \
         calls {}",
        load.kills,
        load.victim.ok,
        load.victim.failed,
        load.victim.first_failure.as_deref().unwrap_or("none"),
        shown(&victim)
    );
    println!(
        "killed server down after each kill (SIGKILL to connected again): p50 {:.1} ms, max \
         {:.1} ms; connected {} after the killer stopped",
        millis(percentile(&load.downtimes_us, 0.5)),
        millis(load.downtimes_us.last().copied().unwrap_or(0)),
        load.recovered_after
            .map_or("never".to_owned(), |after| format!("{:.1} ms", ms(after)))
    );
    json!({
        "servers": load.servers,
        "callers": load.callers,
        "wall_ms": ms(load.wall),
        "calls": total,
        "throughput_per_s": throughput.round(),
        "healthy": {
            "ok": load.healthy.ok,
            "failed": load.healthy.failed,
            "latency_ms": latency(&healthy),
        },
        "killed": {
            "kills": load.kills,
            "ok": load.victim.ok,
            "failed": load.victim.failed,
            "latency_ms": latency(&victim),
            "first_failure": load.victim.first_failure,
            "downtime_ms": latency(&load.downtimes_us),
            "recovered_ms": load.recovered_after.map(ms),
        },
        "violations": load.violations,
    })
}

fn report_startup(startup: &Startup) -> Value {
    let gate = ManagerOptions::default().startup_timeout;
    println!(
        "\nstartup: {} servers, {} hanging at initialize, connect timeout {} ms, gate {} ms",
        startup.servers,
        startup.hanging,
        startup.timeout.as_millis(),
        gate.as_millis()
    );
    println!(
        "{:<6} {:>12} {:>14} {:>9} {:>10} {:>8} {:>10} {:>10} {:>6}",
        "run",
        "gate",
        "all settled",
        "live@gate",
        "deferred",
        "errors",
        "connected",
        "timed out",
        "left"
    );
    let mut runs = serde_json::Map::new();
    for run in &startup.runs {
        println!(
            "{:<6} {:>9.1} ms {:>11.1} ms {:>9} {:>10} {:>8} {:>10} {:>10} {:>6}",
            run.name,
            ms(run.gate),
            ms(run.all_settled),
            run.live_at_gate,
            run.deferred_at_gate,
            run.errors_at_gate,
            run.connected,
            run.timed_out,
            run.left_after_disconnect
        );
        runs.insert(
            run.name.to_owned(),
            json!({
                "gate_ms": ms(run.gate),
                "all_settled_ms": ms(run.all_settled),
                "servers_live_at_gate": run.live_at_gate,
                "servers_deferred_at_gate": run.deferred_at_gate,
                "errors_at_gate": run.errors_at_gate,
                "connected": run.connected,
                "timed_out": run.timed_out,
                "processes_left_after_disconnect": run.left_after_disconnect,
            }),
        );
    }
    json!({
        "servers": startup.servers,
        "hanging": startup.hanging,
        "timeout_ms": startup.timeout.as_millis(),
        "gate_ms": gate.as_millis(),
        "runs": runs,
        "violations": startup.violations,
    })
}
