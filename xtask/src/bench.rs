//! `cargo xtask bench [--quick]`: the benchmarks of the library crates, one after the other:
//! the `session_call` benchmark of `agent-session` (a tool call through the session beside a
//! bare `McpClient::call_tool`, pinned to core 0), the `sse` benchmark of `mcp-transport` (a
//! `data:` line that never ends must cost what a stream of events of the same size costs), the
//! `discovery` benchmark of `mcp-config` (every provider's files, about 40 and 200 servers,
//! discovered warm; target ≤ 5 ms), the
//! `cache` benchmark of `mcp-cache` and the `cache_memory` (peak RSS of 200 stdio servers with
//! the sled cache beside none, each in a child process of its own), `startup` and `soak`
//! benchmarks of `mcp-manager`, and the `quality` and `speed` benchmarks of `mcp-tool-search`
//! (the built-in tool search beside plain BM25 over 27 real servers' tools, with the context
//! an agent saves by deferring; and build, query, update and memory at 10,000 tools), and the
//! `tool_search_refresh` benchmark of `agent-session` (what keeping a session's tool search
//! live costs: refreshes and reloads at 504 and 10,340 tools, a search). The
//! per-call cost of the client itself (stdio and Streamable HTTP, beside a
//! raw floor and the other SDKs) is measured by `--peers` below, the one round-trip harness.
//!
//! The cache benchmark measures a warm start's reads: a cold open + get of 50 servers × 200
//! tools, and a get from an open store. The soak benchmark checks that a
//! long-lived manager does not leak (200 reloads of three servers: processes and descriptors
//! exactly back after each, threads and memory flat), that 1,000 concurrent callers on 20
//! servers all succeed while one server is SIGKILLed every 100–200 ms, and that a startup of
//! 100 servers, 10 of them hanging, answers at its gate and leaves no process; it fails the run
//! when a check fails. Each benchmark prints its own report; `--quick` is passed through to
//! each.
//!
//! `cargo xtask bench --peers [--quick] [--rounds N]` runs the side-by-side harness instead.
//! First it installs the peer SDKs that are not Rust, as `cargo xtask interop` does (each is
//! left alone when its stamp matches its pins):
//!
//! | row | installed into | from |
//! |---|---|---|
//! | `ts-sdk` | `bench/peers/node/node_modules` (`npm ci`; stamp `bench/peers/.installed-node`) | `bench/peers/node/package.json` + `package-lock.json` |
//! | `python-sdk-v2` | `interop/.venv-mcp-v2` | `interop/python/requirements-v2.txt` |
//! | `python-sdk-v1` | `interop/.venv-mcp-v1` | `interop/python/requirements-v1.txt` |
//!
//! A peer that cannot be installed is reported on stderr and passed to the runner as
//! `--unavailable NAME=REASON`, so the report lists it as not measured; the other rows still
//! run. Then the separate workspace under `bench/` (outside the library crates' dependency
//! graph, so peer SDKs such as rmcp are never their dependencies) is built in release mode and
//! its `runner` runs every client driver (raw floor, ours in three shapes, rmcp in three, the
//! TypeScript SDK under `node`, the Python SDK v2 and v1 under the virtualenvs' Python)
//! against one reference server in interleaved rounds, unpinned and pinned to one core, then
//! the startup shapes (one-shot, and a fan-out of 50 servers with peak RSS), and writes
//! `bench/report.md`. The runner finds the peers at those paths itself (`BENCH_NODE` chooses
//! the `node`), so it also runs by hand after one install.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use crate::command::{self, human};
use crate::error::Error;
use crate::interop::{self, NodePeer, PYTHON_PEERS};

/// The TypeScript SDK the `ts-sdk` row drives, pinned in `bench/peers/node`.
const TS_SDK: NodePeer = NodePeer {
    label: "node ts-sdk (bench)",
    dir: "bench/peers/node",
    entry: "bench/peers/node/node_modules/@modelcontextprotocol/sdk/package.json",
    stamp: "bench/peers/.installed-node",
};

/// The runner's row names of the Python virtualenvs, in `PYTHON_PEERS` order.
const PYTHON_ROWS: [&str; 2] = ["python-sdk-v2", "python-sdk-v1"];

/// One run of a benchmark: a title for the log, the package and bench target, and the
/// arguments after `--`.
struct Run {
    title: &'static str,
    package: &'static str,
    bench: &'static str,
    args: &'static [&'static str],
}

const RUNS: [Run; 10] = [
    Run {
        title: "session call: a tool call through the session beside a bare call_tool (pinned to core 0)",
        package: "agent-session",
        bench: "session_call",
        args: &["--pin-core", "0", "--diagnose"],
    },
    Run {
        title: "SSE decoding: 40 MB of events beside a 40 MB data line that never ends",
        package: "mcp-transport",
        bench: "sse",
        args: &[],
    },
    Run {
        title: "discovery: every provider's files (about 40 files, 200 servers), warm (target ≤ 5 ms)",
        package: "mcp-config",
        bench: "discovery",
        args: &[],
    },
    Run {
        title: "tool cache (cold open + get of 50 servers × 200 tools, get from an open store)",
        package: "mcp-cache",
        bench: "cache",
        args: &[],
    },
    Run {
        title: "cache memory: peak RSS of 200 stdio servers with the sled cache and without (target ≤ 1.5×)",
        package: "mcp-manager",
        bench: "cache_memory",
        args: &[],
    },
    Run {
        title: "startup: time to ready for 50 fixture servers, cold and warm",
        package: "mcp-manager",
        bench: "startup",
        args: &[],
    },
    Run {
        title: "soak: 200 reloads; 1,000 callers, one server killed; 100 servers, 10 hanging",
        package: "mcp-manager",
        bench: "soak",
        args: &[],
    },
    Run {
        title: "tool search quality: 173 queries over 27 real servers' 471 tools, built-in beside plain BM25; context with and without deferral",
        package: "mcp-tool-search",
        bench: "quality",
        args: &[],
    },
    Run {
        title: "tool search speed at 10,000 tools: build (target ≤ 20 ms), query (p50 ≤ 100 µs, p99 ≤ 1 ms), one server's update (≤ 1 ms), memory",
        package: "mcp-tool-search",
        bench: "speed",
        args: &[],
    },
    Run {
        title: "tool search in a session: a refresh and a reload at 504 and 10,340 tools, a search and a search tool call",
        package: "agent-session",
        bench: "tool_search_refresh",
        args: &[],
    },
];

/// Runs every benchmark pass from the workspace root, stopping if one fails.
pub(crate) fn run(root: &Path, args: &[String]) -> Result<(), Error> {
    let mut quick = false;
    let mut peers = false;
    let mut rounds = None;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--quick" => quick = true,
            "--peers" => peers = true,
            "--rounds" => match args.next() {
                Some(count) if count.parse::<usize>().is_ok_and(|count| count > 0) => {
                    rounds = Some(count.clone());
                }
                _ => {
                    return Err(Error::Usage(
                        "`--rounds` wants a positive number of rounds".to_owned(),
                    ));
                }
            },
            other => {
                return Err(Error::Usage(format!(
                    "`bench` accepts `--quick`, `--peers` and `--rounds N`, got `{other}`"
                )));
            }
        }
    }
    if peers {
        return run_peers(root, quick, rounds.as_deref());
    }
    if rounds.is_some() {
        return Err(Error::Usage(
            "`--rounds` applies to `bench --peers` only".to_owned(),
        ));
    }
    for (index, run) in RUNS.iter().enumerate() {
        println!("\n==> bench [{}/{}] {}", index + 1, RUNS.len(), run.title);
        let started = Instant::now();
        let mut bench = Command::new(crate::cargo());
        bench
            .current_dir(root)
            .args(["bench", "-p", run.package, "--bench", run.bench, "--"])
            .args(run.args);
        if quick {
            bench.arg("--quick");
        }
        command::run(&mut bench)?;
        println!(
            "<== bench [{}/{}] {}: done in {}",
            index + 1,
            RUNS.len(),
            run.title,
            human(started.elapsed())
        );
    }
    Ok(())
}

/// Installs every peer it can; the `NAME=REASON` of each one that could not be installed.
fn install_peers(root: &Path) -> Vec<String> {
    let mut unavailable = Vec::new();
    let mut give_up = |row: &str, error: &Error| {
        eprintln!("bench --peers: {row} cannot be installed and will not be measured: {error}");
        unavailable.push(format!("{row}=could not be installed: {error}"));
    };
    if let Err(error) = interop::install_node(root, &TS_SDK) {
        give_up("ts-sdk", &error);
    }
    match interop::base_python(root) {
        Ok(base) => {
            for (peer, row) in PYTHON_PEERS.iter().zip(PYTHON_ROWS) {
                if let Err(error) = interop::install_python(root, peer, &base) {
                    give_up(row, &error);
                }
            }
        }
        Err(error) => {
            for row in PYTHON_ROWS {
                give_up(row, &error);
            }
        }
    }
    unavailable
}

/// The side-by-side harness of `bench/`: installs the peers, builds its binaries, then runs
/// its `runner`.
fn run_peers(root: &Path, quick: bool, rounds: Option<&str>) -> Result<(), Error> {
    println!("\n==> bench --peers: installing the peer SDKs");
    let unavailable = install_peers(root);
    let manifest = root.join("bench").join("Cargo.toml");
    println!(
        "\n==> bench --peers: building the harness ({})",
        manifest.display()
    );
    let started = Instant::now();
    let mut build = Command::new(crate::cargo());
    build
        .current_dir(root)
        .arg("build")
        .arg("--release")
        .arg("--manifest-path")
        .arg(&manifest)
        .arg("--bins");
    command::run(&mut build)?;
    let mut runner = Command::new(crate::cargo());
    runner
        .current_dir(root)
        .arg("run")
        .arg("--release")
        .arg("--manifest-path")
        .arg(&manifest)
        .args(["--bin", "runner", "--"]);
    if quick {
        runner.arg("--quick");
    }
    if let Some(rounds) = rounds {
        runner.args(["--rounds", rounds]);
    }
    for peer in &unavailable {
        runner.arg("--unavailable").arg(peer);
    }
    command::run(&mut runner)?;
    println!(
        "<== bench --peers: done in {}, report in bench/report.md",
        human(started.elapsed())
    );
    Ok(())
}
