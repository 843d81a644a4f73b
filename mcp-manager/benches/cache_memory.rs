//! Cache memory benchmark: the peak resident set of a process that connects 200 stdio fixture
//! servers through [`McpManager`], with the sled tool cache and without a cache, in one run.
//!
//! Each figure comes from a child process of its own (this bench binary run again with
//! `--child`), so that no case inherits another's heap: the child builds a manager, connects
//! every server, waits until all are connected, disconnects them and prints `VmHWM` of
//! `/proc/self/status` (its peak RSS; the servers are its children and are not counted). Cases:
//!
//! - `none`: [`NoopToolCache`], the baseline;
//! - `sled-cold`: a [`SledToolCache`] in a fresh directory (every server misses, then writes
//!   its entry);
//! - `sled-warm`: the same directory again, now holding every entry (a warm start: every lookup
//!   hits, every server's tools are written back).
//!
//! The target (issue 22): with the cache, within 1.5× the peak RSS without it. It was not: the
//! manager writes every connected server's tools back to the cache, so a warm start (where they
//! are exactly what the cache holds) opened the sled database only to rewrite 200 unchanged
//! entries — sled's page table and log buffers, its nine I/O threads, and up to 80 of tokio's
//! blocking threads (one per concurrent lookup or write), each allocating in a glibc malloc
//! arena of its own; in a debug build also sled's metrics, 21 MiB written with zeros at its
//! first open. Measured with `agent-session list` and 200 fixture servers, without a cache /
//! warm before / warm after: debug build 68 / 150–190 / 81–88 MB, release 54 / 92–96 / 73 MB;
//! this bench (release): 31 / 51.8 (1.67×) / 40.7–42.2 MiB (1.32–1.36×). Unchanged write-backs
//! are now skipped (the database is not opened), lookups and writes wait for a few threads
//! instead of taking one each, and sled's metrics are allocated zeroed (never touched).
//!
//! Usage: `cargo bench -p mcp-manager --bench cache_memory -- [--quick]`. `--quick` runs each
//! case once instead of three times (the median is reported); `--list` prints nothing; without
//! `--bench` among the arguments (as under `cargo test --benches`) a smoke run with 10 servers
//! is done. The bench fails when a fixture process is left behind, not when the target is
//! missed (the figure is for the reader). A table goes to stdout, followed by one JSON line.

use std::collections::BTreeMap;
use std::error::Error;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use mcp_cache::{CacheOptions, NoopToolCache, SledToolCache, ToolCache};
use mcp_config::{DiscoveredServer, Level, ServerConfig, SourceMeta};
use mcp_manager::{ManagerOptions, McpManager};
use serde_json::{Value, json};
use testkit::FixtureServer;

type BoxError = Box<dyn Error + Send + Sync>;
type Result<T, E = BoxError> = std::result::Result<T, E>;

/// Generated tools per fixture server.
const TOOLS_PER_SERVER: usize = 20;
/// Upper bound for connecting every server.
const STEP_TIMEOUT: Duration = Duration::from_secs(120);
/// The target: peak RSS with the cache over peak RSS without it.
const TARGET_RATIO: f64 = 1.5;

/// What one invocation runs.
struct Plan {
    servers: usize,
    runs: usize,
    mode: &'static str,
}

/// One child's figures.
struct Measured {
    peak_rss_kib: u64,
    connect_ms: f64,
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|arg| arg == "--list") {
        return Ok(());
    }
    if let Some(at) = args.iter().position(|arg| arg == "--child") {
        return child(&args[at + 1..]);
    }
    let plan = if !args.iter().any(|arg| arg == "--bench") {
        Plan {
            servers: 10,
            runs: 1,
            mode: "smoke",
        }
    } else if args.iter().any(|arg| arg == "--quick") {
        Plan {
            servers: 200,
            runs: 1,
            mode: "quick",
        }
    } else {
        Plan {
            servers: 200,
            runs: 3,
            mode: "full",
        }
    };
    let marker = format!(
        "mcp-cache-memory-bench-{}-{}",
        std::process::id(),
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|elapsed| elapsed.as_nanos())
            .unwrap_or_default()
    );
    let scratch = std::env::temp_dir().join(&marker);
    std::fs::create_dir_all(&scratch)?;
    let outcome = run_cases(&plan, &marker, &scratch);
    let _ = std::fs::remove_dir_all(&scratch);
    let left = if testkit::wait_until(Duration::from_secs(5), || {
        testkit::processes_with_arg(&marker).is_empty()
    }) {
        0
    } else {
        testkit::processes_with_arg(&marker).len()
    };
    let cases = outcome?;
    report(&plan, &cases);
    if left > 0 {
        return Err(format!("{left} fixture process(es) with marker {marker} left behind").into());
    }
    Ok(())
}

/// Every case's runs, in the order `none`, `sled-cold`, `sled-warm`, interleaved run by run.
fn run_cases(
    plan: &Plan,
    marker: &str,
    scratch: &Path,
) -> Result<BTreeMap<&'static str, Vec<Measured>>> {
    let mut cases: BTreeMap<&'static str, Vec<Measured>> = BTreeMap::new();
    for run in 0..plan.runs {
        let dir = scratch.join(format!("store-{run}"));
        for (case, store) in [
            ("none", None),
            ("sled-cold", Some(&dir)),
            ("sled-warm", Some(&dir)),
        ] {
            let measured = spawn_child(plan.servers, marker, store)?;
            cases.entry(case).or_default().push(measured);
        }
    }
    Ok(cases)
}

/// Runs one case in a child process and reads its figures.
fn spawn_child(servers: usize, marker: &str, store: Option<&PathBuf>) -> Result<Measured> {
    let mut command = Command::new(std::env::current_exe()?);
    command.arg("--child").arg(servers.to_string()).arg(marker);
    if let Some(store) = store {
        command.arg(store);
    }
    let output = command.output()?;
    if !output.status.success() {
        return Err(format!(
            "the child ({}) failed: {}{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
        .into());
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    let figures: Value = stdout
        .lines()
        .rev()
        .find_map(|line| serde_json::from_str(line).ok())
        .ok_or_else(|| format!("the child printed no figures: {stdout}"))?;
    Ok(Measured {
        peak_rss_kib: figures["peak_rss_kib"]
            .as_u64()
            .ok_or("no peak_rss_kib from the child")?,
        connect_ms: figures["connect_ms"]
            .as_f64()
            .ok_or("no connect_ms from the child")?,
    })
}

/// The child: `SERVERS MARKER [STORE]`. Connects that many fixture servers with the sled store
/// at STORE (or no cache), then prints its peak RSS.
fn child(args: &[String]) -> Result<()> {
    let [servers, marker, store @ ..] = args else {
        return Err("--child wants SERVERS MARKER [STORE]".into());
    };
    let servers: usize = servers.parse()?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let connect_ms = runtime.block_on(async {
        let sled = store
            .first()
            .map(|dir| SledToolCache::open_at(dir, CacheOptions::default()));
        let cache: Arc<dyn ToolCache> = match &sled {
            Some(sled) => Arc::new(sled.clone()),
            None => Arc::new(NoopToolCache::new()),
        };
        let manager = McpManager::new(ManagerOptions::default(), cache);
        let configs = server_configs(marker, servers);
        let started = Instant::now();
        let connected = connect_all(&manager, &configs).await;
        let elapsed = started.elapsed();
        manager.disconnect_all().await;
        drop(manager);
        if let Some(sled) = sled {
            sled.close().await;
        }
        connected.map(|()| elapsed.as_secs_f64() * 1000.0)
    })?;
    drop(runtime);
    let line = json!({
        "peak_rss_kib": peak_rss_kib()?,
        "connect_ms": (connect_ms * 10.0).round() / 10.0,
    });
    println!("{line}");
    Ok(())
}

/// `count` fixture servers `srv-000` …, each `--name <marker> --tools 20`.
fn server_configs(marker: &str, count: usize) -> BTreeMap<String, DiscoveredServer> {
    (0..count)
        .map(|index| {
            let fixture = FixtureServer::new().name(marker).tools(TOOLS_PER_SERVER);
            let (program, args) = fixture.command();
            let config = ServerConfig::stdio(program.to_string_lossy(), args);
            let source = SourceMeta::new("bench", "Bench", "bench.json", Level::User);
            (
                format!("srv-{index:03}"),
                DiscoveredServer::new(config, source),
            )
        })
        .collect()
}

/// Connects every server and waits until each one is connected.
async fn connect_all(
    manager: &McpManager,
    configs: &BTreeMap<String, DiscoveredServer>,
) -> Result<()> {
    let all = async {
        let outcome = manager.connect_servers(configs).await;
        if let Some(error) = outcome.errors.first() {
            return Err(
                format!("{} server(s) failed, first: {error}", outcome.errors.len()).into(),
            );
        }
        for server in configs.keys() {
            manager.wait_for_connection(server).await?;
        }
        Ok(())
    };
    tokio::time::timeout(STEP_TIMEOUT, all)
        .await
        .map_err(|_| "the servers did not all connect in time")?
}

/// `VmHWM` of `/proc/self/status`: this process's peak resident set, KiB.
fn peak_rss_kib() -> Result<u64> {
    let status = std::fs::read_to_string("/proc/self/status")?;
    let value = status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .ok_or("no VmHWM line in /proc/self/status")?;
    Ok(value.trim().trim_end_matches("kB").trim().parse()?)
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    match values.len() {
        0 => 0.0,
        len if len % 2 == 1 => values[len / 2],
        len => (values[len / 2 - 1] + values[len / 2]) / 2.0,
    }
}

fn report(plan: &Plan, cases: &BTreeMap<&'static str, Vec<Measured>>) {
    let peak_mib = |case: &str| {
        median(
            cases
                .get(case)
                .map(|runs| {
                    runs.iter()
                        .map(|run| run.peak_rss_kib as f64 / 1024.0)
                        .collect()
                })
                .unwrap_or_default(),
        )
    };
    let baseline = peak_mib("none");
    println!(
        "cache memory: {} stdio fixture servers (--tools {TOOLS_PER_SERVER}), one child process per \
         figure, {} run(s) per case ({})",
        plan.servers, plan.runs, plan.mode
    );
    println!(
        "{:<10} {:>16} {:>14} {:>16}",
        "case", "peak RSS med", "vs none", "connect med"
    );
    let mut json_cases = serde_json::Map::new();
    let mut worst: f64 = 0.0;
    for case in ["none", "sled-cold", "sled-warm"] {
        let Some(runs) = cases.get(case) else {
            continue;
        };
        let peak = peak_mib(case);
        let ratio = peak / baseline.max(f64::MIN_POSITIVE);
        if case != "none" {
            worst = worst.max(ratio);
        }
        let connect = median(runs.iter().map(|run| run.connect_ms).collect());
        println!("{case:<10} {peak:>12.1} MiB {ratio:>13.2}× {connect:>13.1} ms");
        json_cases.insert(
            case.to_owned(),
            json!({
                "peak_rss_mib_median": (peak * 10.0).round() / 10.0,
                "peak_rss_kib_runs": runs.iter().map(|run| run.peak_rss_kib).collect::<Vec<_>>(),
                "ratio_to_none": (ratio * 100.0).round() / 100.0,
                "connect_ms_median": (connect * 10.0).round() / 10.0,
            }),
        );
    }
    println!(
        "with the cache / without: {worst:.2}× (target ≤ {TARGET_RATIO}×): {}",
        if worst <= TARGET_RATIO {
            "met"
        } else {
            "MISSED"
        }
    );
    let line = json!({
        "bench": "cache_memory",
        "mode": plan.mode,
        "servers": plan.servers,
        "tools_per_server": TOOLS_PER_SERVER,
        "runs_per_case": plan.runs,
        "cases": json_cases,
        "worst_ratio": (worst * 100.0).round() / 100.0,
        "target_ratio": TARGET_RATIO,
    });
    println!("{line}");
}
