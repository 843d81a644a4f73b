//! `cargo xtask bench [--quick]`: the `roundtrip` benchmark of `mcp-transport`, run twice, its
//! `http_roundtrip` over Streamable HTTP, then the `cache` benchmark of `mcp-cache` and the
//! `startup` and `soak` benchmarks of `mcp-manager`.
//!
//! The round trip runs first with client and server pinned to core 0 (`--pin-core 0`), which
//! measures pure software cost and is stable from run to run; then unpinned, which is what a
//! user's machine does. The cache benchmark measures a warm start's reads: a cold open + get of
//! 50 servers × 200 tools, and a get from an open store. The soak benchmark checks that a
//! long-lived manager does not leak (200 reloads of three servers: processes and descriptors
//! exactly back after each, threads and memory flat), that 1,000 concurrent callers on 20
//! servers all succeed while one server is SIGKILLed every 100–200 ms, and that a startup of
//! 100 servers, 10 of them hanging, answers at its gate and leaves no process; it fails the run
//! when a check fails. Each benchmark prints its own report; `--quick` is passed through to
//! each.
//!
//! `cargo xtask bench --peers [--quick] [--rounds N]` runs the side-by-side harness instead: the
//! separate workspace under `bench/` (outside the library crates' dependency graph, so peer SDKs
//! such as rmcp are never their dependencies) is built in release mode and its `runner` runs
//! every client driver (raw floor, ours in three shapes, rmcp) against one reference server in
//! interleaved rounds, unpinned and pinned to one core, and writes `bench/report.md`.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use crate::command::{self, human};
use crate::error::Error;

/// One run of a benchmark: a title for the log, the package and bench target, and the
/// arguments after `--`.
struct Run {
    title: &'static str,
    package: &'static str,
    bench: &'static str,
    args: &'static [&'static str],
}

const RUNS: [Run; 6] = [
    Run {
        title: "roundtrip, same core (client and server pinned to core 0)",
        package: "mcp-transport",
        bench: "roundtrip",
        args: &["--pin-core", "0"],
    },
    Run {
        title: "roundtrip, unpinned",
        package: "mcp-transport",
        bench: "roundtrip",
        args: &[],
    },
    Run {
        title: "HTTP roundtrip (Streamable HTTP, JSON answers on a kept-alive connection)",
        package: "mcp-transport",
        bench: "http_roundtrip",
        args: &[],
    },
    Run {
        title: "tool cache (cold open + get of 50 servers × 200 tools, get from an open store)",
        package: "mcp-cache",
        bench: "cache",
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

/// The side-by-side harness of `bench/`: builds its binaries, then runs its `runner`.
fn run_peers(root: &Path, quick: bool, rounds: Option<&str>) -> Result<(), Error> {
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
    command::run(&mut runner)?;
    println!(
        "<== bench --peers: done in {}, report in bench/report.md",
        human(started.elapsed())
    );
    Ok(())
}
