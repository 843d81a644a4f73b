//! The side-by-side run: every client driver against the reference server, over stdio and
//! Streamable HTTP, in interleaved rounds, unpinned and pinned to one core, then the startup
//! shapes, and a markdown report of the medians with ratios to the raw floors.
//!
//! ```text
//! runner [--quick] [--rounds N] [--core C] [--out PATH] [--unavailable NAME=REASON]...
//! ```
//!
//! Rows: the `client` binary's drivers (`CLIENTS`: raw, ours and rmcp in three shapes), then
//! the peer SDK drivers of `bench/peers/` (`peers::PEERS`: `ts-sdk` under `node`,
//! `python-sdk-v2` and `python-sdk-v1` under the interop virtualenvs' Python). A peer whose
//! install marker is missing is not run and is listed in the report as not measured, with the
//! reason given by `--unavailable NAME=REASON` (what `cargo xtask bench --peers` passes when
//! an install failed) or else the missing path. Then the `client` binary's Streamable HTTP
//! drivers (`HTTP_CLIENTS`: `raw-http`, reqwest alone, ours and rmcp in three shapes, rmcp
//! with kept-alive connections), each once with JSON and once with SSE answers (`client
//! --answers KIND`). The Python rows and rmcp's HTTP rows make fewer calls (their caps are in
//! `peers.rs` and `lib.rs`); the report lists each row's call counts.
//!
//! Tables, per placement: the stdio rows, ratios to `raw`, with issue 15 point 2's per-call
//! targets under it (seq p50 ≤ 1.7× the floor, client CPU ≤ 2.5×, 32-in-flight throughput ≥
//! 0.4×, for each of our shapes); then per answer kind the HTTP rows (the `client` of their
//! figures carries the kind: `ours-http-json`, …), ratios to `raw-http-KIND`, with issue 15
//! point 3's targets under it for each of our shapes (seq p50 ≤ 1.5× `raw-http-KIND`; rmcp's
//! p50 in the same shape ≥ 2× ours) and, as information, rmcp with kept-alive connections and
//! reqwest alone divided by ours.
//!
//! Eras: our client's rows come in two protocol eras. `ours-*` and `ours-http-*` are pinned to
//! 2025-11-25 (the handshake, a session over HTTP) and meet the server in its default mode, the
//! handshake-era-only one every other client meets; `ours-2026-*` and `ours-http-2026-*` use
//! default options against the same binary in its dual-era mode (`--stateless`), where they
//! speak 2026-07-28. They run in the same rounds as every other row; a table per placement
//! puts each 2026 row beside the 2025 row of the same transport, answer kind and shape (seq
//! p50 and client CPU ratios, target ≤ 1.1× each).
//!
//! Startup shapes (the `startup` binary, timed from outside: spawn to reaped): per round and
//! placement, every one-shot shape is run 40 times (`--quick`: 10) and every fan-out shape
//! (50 servers) 10 times (`--quick`: 3), shapes interleaved; the report holds the median over
//! the rounds of each round's median wall time, the ratio to the raw shape, the median peak
//! RSS the process reported, and whether issue 15's targets are met (one-shot: ours ≤ floor +
//! 1 ms; fan-out: ours ≤ 1.15× the floor's time and ≤ 4 MiB peak RSS). Ours connects in
//! three ways there: default options against the default server (the `server/discover` probe
//! is refused, then `initialize`), pinned to 2025-11-25 (`initialize` at once) and default
//! options against the dual-era server (`server/discover` answered, nothing else); the report
//! gives the differences, the cost of the probe and of a 2026-07-28 connect.
//!
//! Each round runs every client row (stdio, peers and HTTP) once per placement, each as a
//! fresh process that spawns its own reference server: first unpinned, then under `taskset -c
//! C` (the server, a child, inherits the mask, so client and server share one core: software
//! cost alone). The row order is rotated each round so no client always runs first or last.
//! Every client makes the same calls (`Sizes::FULL`, or `Sizes::QUICK` with `--quick`; the
//! Python and rmcp HTTP rows at most their cap); warm-up calls are not measured. The report
//! holds, per placement, the median of each figure over the rounds and its ratio to its
//! table's floor's median. It is printed and written to `--out` (default `bench/report.md`). A
//! client or startup run that fails is listed at the end of the report and left out of the
//! medians; the runner then exits non-zero. The `client`, `startup` and `reference-server`
//! binaries are taken from the directory this binary is in: build the workspace first
//! (`cargo build --release --bins`).

use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::Instant;

use mcp_bench_peers::measure::median;
use mcp_bench_peers::peers::{PEERS, Peer, repo_root};
use mcp_bench_peers::{ANSWERS, CLIENTS, Figures, HTTP_CLIENTS, IN_FLIGHT, Sizes, http_sizes};

struct Args {
    quick: bool,
    rounds: usize,
    core: usize,
    out: PathBuf,
    /// Peers the caller could not install, with why.
    unavailable: Vec<(String, String)>,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        quick: false,
        rounds: 3,
        core: 0,
        out: Path::new(env!("CARGO_MANIFEST_DIR")).join("report.md"),
        unavailable: Vec::new(),
    };
    let mut argv = std::env::args().skip(1);
    while let Some(flag) = argv.next() {
        let mut value = || argv.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--quick" => args.quick = true,
            "--rounds" => {
                let text = value()?;
                args.rounds = text
                    .parse()
                    .ok()
                    .filter(|&rounds| rounds > 0)
                    .ok_or_else(|| format!("--rounds wants a positive number, got `{text}`"))?;
            }
            "--core" => {
                let text = value()?;
                args.core = text
                    .parse()
                    .map_err(|_| format!("--core wants a CPU number, got `{text}`"))?;
            }
            "--out" => args.out = PathBuf::from(value()?),
            "--unavailable" => {
                let text = value()?;
                let (name, reason) = text
                    .split_once('=')
                    .ok_or_else(|| format!("--unavailable wants NAME=REASON, got `{text}`"))?;
                if !PEERS.iter().any(|peer| peer.name == name) {
                    return Err(format!("--unavailable: no peer is called `{name}`"));
                }
                args.unavailable.push((name.to_owned(), reason.to_owned()));
            }
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(args)
}

/// Where a client runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Placement {
    Unpinned,
    /// Client and server restricted to this one CPU.
    Pinned(usize),
}

impl Placement {
    fn title(self) -> String {
        match self {
            Self::Unpinned => "unpinned".to_owned(),
            Self::Pinned(core) => format!("pinned: client and server on core {core}"),
        }
    }

    /// A command for `program`, under `taskset` when pinned.
    fn command(self, program: impl Into<OsString>) -> Command {
        match self {
            Self::Unpinned => Command::new(program.into()),
            Self::Pinned(core) => {
                let mut taskset = Command::new("taskset");
                taskset.arg("-c").arg(core.to_string()).arg(program.into());
                taskset
            }
        }
    }
}

/// One row of the client tables: a stdio driver of the `client` binary, a peer SDK driver, or
/// an HTTP driver of the `client` binary with one answer kind.
#[derive(Debug, Clone, Copy)]
enum Row {
    Client(&'static str),
    Peer(Peer),
    /// `client --client NAME --answers KIND`.
    Http(&'static str, &'static str),
}

/// The table a row is in: the stdio one, or the HTTP one of an answer kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Table {
    Stdio,
    Http(&'static str),
}

impl Table {
    /// The `client` of the floor's figures, which the table's ratios divide by.
    fn floor(self) -> String {
        match self {
            Self::Stdio => "raw".to_owned(),
            Self::Http(kind) => format!("raw-http-{kind}"),
        }
    }
}

impl Row {
    fn name(self) -> String {
        match self {
            Self::Client(name) => name.to_owned(),
            Self::Peer(peer) => peer.name.to_owned(),
            Self::Http(name, kind) => format!("{name} --answers {kind}"),
        }
    }

    fn sizes(self, sizes: Sizes) -> Sizes {
        match self {
            Self::Client(_) => sizes,
            Self::Peer(peer) => peer.sizes(sizes),
            Self::Http(name, _) => http_sizes(name, sizes),
        }
    }

    fn table(self) -> Table {
        match self {
            Self::Client(_) | Self::Peer(_) => Table::Stdio,
            Self::Http(_, kind) => Table::Http(kind),
        }
    }
}

/// Where the binaries and the peers are.
struct Paths {
    /// The directory of this binary, `client`, `startup` and `reference-server`.
    bin: PathBuf,
    /// The repository root the peers' paths are relative to.
    root: PathBuf,
}

/// One run of one client driver; its figures.
fn run_client(
    paths: &Paths,
    row: Row,
    placement: Placement,
    sizes: Sizes,
) -> Result<Figures, String> {
    let server = paths.bin.join("reference-server");
    let mut command = match row {
        Row::Client(client) => {
            let mut command = placement.command(paths.bin.join("client"));
            command.arg("--client").arg(client);
            command
        }
        Row::Http(client, kind) => {
            let mut command = placement.command(paths.bin.join("client"));
            command
                .arg("--client")
                .arg(client)
                .arg("--answers")
                .arg(kind);
            command
        }
        Row::Peer(peer) => {
            let (program, args) = peer.command(&paths.root);
            let mut command = placement.command(program);
            command.args(args);
            command
        }
    };
    command
        .arg("--server")
        .arg(&server)
        .args(row.sizes(sizes).to_args())
        .stdin(Stdio::null())
        .stderr(Stdio::inherit());
    let name = row.name();
    let output = command
        .output()
        .map_err(|error| format!("could not run the {name} driver: {error}"))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        return Err(format!(
            "client {name} ({}) ended with {}",
            placement.title(),
            output.status
        ));
    }
    stdout
        .lines()
        .rev()
        .find_map(Figures::from_json_line)
        .ok_or_else(|| format!("client {name} printed no figures: {stdout}"))
}

/// The medians over the rounds of one client in one placement.
struct Medians {
    shape: String,
    client: String,
    p50: f64,
    p99: f64,
    cpu: f64,
    server_cpu: Option<f64>,
    throughput: f64,
}

fn medians(runs: &[Figures]) -> Option<Medians> {
    let first = runs.first()?;
    let of = |figure: fn(&Figures) -> f64| median(&mut runs.iter().map(figure).collect::<Vec<_>>());
    let mut server_cpu: Vec<f64> = runs
        .iter()
        .filter_map(|f| f.server_cpu_us_per_call)
        .collect();
    Some(Medians {
        shape: first.shape.clone(),
        client: first.client.clone(),
        p50: of(|f| f.seq_p50_us),
        p99: of(|f| f.seq_p99_us),
        cpu: of(|f| f.cpu_us_per_call),
        server_cpu: (!server_cpu.is_empty()).then(|| median(&mut server_cpu)),
        throughput: of(|f| f.inflight32_calls_per_s),
    })
}

/// The table of `kind`'s rows (of `rows`, with their `results`), with the targets under it.
fn table(report: &mut String, kind: Table, rows: &[Row], results: &[Vec<Figures>], rounds: usize) {
    let mine: Vec<(&Row, &Vec<Figures>)> = rows
        .iter()
        .zip(results)
        .filter(|(row, _)| row.table() == kind)
        .collect();
    let medians: Vec<Medians> = mine.iter().filter_map(|(_, runs)| medians(runs)).collect();
    let missing: Vec<String> = mine
        .iter()
        .filter(|(_, runs)| runs.len() < rounds)
        .map(|(row, runs)| format!("`{}` ({} of {rounds} rounds)", row.name(), runs.len()))
        .collect();
    let floor_client = kind.floor();
    let Some(floor) = medians.iter().find(|row| row.client == floor_client) else {
        report.push_str("(no raw floor figures: no ratios)\n");
        return;
    };
    let (floor_p50, floor_cpu, floor_tp) = (floor.p50, floor.cpu, floor.throughput);
    report.push_str(
        "| client | shape | seq p50 µs | seq p99 µs | client CPU µs/call | server CPU µs/call | 32 in flight, calls/s |\n\
         |---|---|---:|---:|---:|---:|---:|\n",
    );
    for row in &medians {
        let server_cpu = row
            .server_cpu
            .map_or_else(|| "—".to_owned(), |cpu| format!("{cpu:.1}"));
        let _ = writeln!(
            report,
            "| {} | {} | {:.1} ({:.2}×) | {:.1} | {:.1} ({:.2}×) | {server_cpu} | {:.0} ({:.2}×) |",
            row.client,
            row.shape,
            row.p50,
            row.p50 / floor_p50,
            row.p99,
            row.cpu,
            row.cpu / floor_cpu,
            row.throughput,
            row.throughput / floor_tp,
        );
    }
    match kind {
        Table::Stdio => stdio_targets(report, &medians, floor),
        Table::Http(answers) => http_targets(report, answers, &medians, floor),
    }
    if !missing.is_empty() {
        let _ = writeln!(
            report,
            "\nMedians over fewer rounds, or no row, for: {}.",
            missing.join(", ")
        );
    }
}

/// Issue 15 point 2's per-call targets, for each shape of ours over stdio.
fn stdio_targets(report: &mut String, medians: &[Medians], floor: &Medians) {
    let (floor_p50, floor_cpu, floor_tp) = (floor.p50, floor.cpu, floor.throughput);
    report.push_str(
        "\nIssue 15's per-call targets for ours: seq p50 ≤ 1.7× the floor, client CPU ≤ 2.5×, \
         32 in flight ≥ 0.4×.\n\n",
    );
    for row in medians.iter().filter(|row| row.client == "ours") {
        let (p50, cpu, tp) = (
            row.p50 / floor_p50,
            row.cpu / floor_cpu,
            row.throughput / floor_tp,
        );
        let _ = writeln!(
            report,
            "- ours, {}: p50 {}× {}, CPU {}× {}, 32 in flight {}× {}",
            row.shape,
            against(p50, P50_TARGET),
            met(p50 <= P50_TARGET),
            against(cpu, CPU_TARGET),
            met(cpu <= CPU_TARGET),
            against(tp, THROUGHPUT_TARGET),
            met(tp >= THROUGHPUT_TARGET),
        );
    }
}

/// Issue 15 point 3's targets, for each shape of ours over HTTP with `answers` answers: seq
/// p50 ≤ 1.5× the raw HTTP floor's, and rmcp's p50 in the same shape ≥ 2× ours. The ratios to
/// rmcp with kept-alive connections and to reqwest alone (the HTTP stack under ours) are shown
/// beside them, as information.
fn http_targets(report: &mut String, answers: &str, medians: &[Medians], floor: &Medians) {
    let _ = writeln!(
        report,
        "\nIssue 15's HTTP targets for ours: seq p50 ≤ {HTTP_P50_TARGET}× `{}`, and \
         `rmcp-http-{answers}` seq p50 ≥ {HTTP_RMCP_TARGET}× ours in the same shape. For \
         information: `rmcp-http-pooled-{answers}` (its one shape, spawned-task) and \
         `reqwest-http-{answers}` (same shape) ÷ ours.\n",
        floor.client
    );
    let find = |client: String, shape: &str| {
        medians
            .iter()
            .find(|row| row.client == client && row.shape == shape)
    };
    let pooled = medians
        .iter()
        .find(|row| row.client == format!("rmcp-http-pooled-{answers}"));
    for row in medians
        .iter()
        .filter(|row| row.client == format!("ours-http-{answers}"))
    {
        let p50 = row.p50 / floor.p50;
        let rmcp = find(format!("rmcp-http-{answers}"), &row.shape).map_or_else(
            || "no rmcp row in this shape".to_owned(),
            |rmcp| {
                let ratio = rmcp.p50 / row.p50;
                format!(
                    "{}× {}",
                    against(ratio, HTTP_RMCP_TARGET),
                    met(ratio >= HTTP_RMCP_TARGET)
                )
            },
        );
        let pooled = pooled.map_or_else(
            || "—".to_owned(),
            |pooled| format!("{:.2}×", pooled.p50 / row.p50),
        );
        let reqwest = find(format!("reqwest-http-{answers}"), &row.shape).map_or_else(
            || "—".to_owned(),
            |reqwest| format!("{:.2}×", reqwest.p50 / row.p50),
        );
        let _ = writeln!(
            report,
            "- ours, {}: p50 {}× the floor {}; rmcp ÷ ours {rmcp}; \
             (rmcp pooled ÷ ours {pooled}; reqwest ÷ ours {reqwest})",
            row.shape,
            against(p50, HTTP_P50_TARGET),
            met(p50 <= HTTP_P50_TARGET),
        );
    }
}

/// Our 2026-07-28 rows beside the 2025-11-25 rows of the same transport: (title, the figures'
/// `client` of the 2025 row, of the 2026 row). Each pair is compared shape by shape.
fn era_pairs() -> Vec<(String, String, String)> {
    let mut pairs = vec![(
        "stdio".to_owned(),
        "ours".to_owned(),
        "ours-2026".to_owned(),
    )];
    for kind in ANSWERS {
        pairs.push((
            format!("HTTP {}", if kind == "sse" { "SSE" } else { "JSON" }),
            format!("ours-http-{kind}"),
            format!("ours-http-2026-{kind}"),
        ));
    }
    pairs
}

/// The issue's target for a 2026-07-28 call against a 2025-era call on the same connection
/// shape: seq p50 and client CPU per call each ≤ this × the 2025 row's.
const ERA_TARGET: f64 = 1.1;

/// Each of our 2026-07-28 rows beside the 2025-11-25 row of the same transport, answer kind and
/// shape (of `rows`, with their `results` in one placement), with the ratios and [`ERA_TARGET`].
fn era_table(report: &mut String, rows: &[Row], results: &[Vec<Figures>]) {
    let medians: Vec<Medians> = rows
        .iter()
        .zip(results)
        .filter_map(|(_, runs)| medians(runs))
        .collect();
    let find = |client: &str, shape: &str| {
        medians
            .iter()
            .find(|row| row.client == client && row.shape == shape)
    };
    let _ = writeln!(
        report,
        "| transport | shape | seq p50 µs, 2025 → 2026 | × | client CPU µs/call, 2025 → 2026 | × | server CPU µs/call, 2025 → 2026 | 32 in flight calls/s, 2025 → 2026 | × | target: p50, CPU ≤ {ERA_TARGET}× |\n\
         |---|---|---:|---:|---:|---:|---:|---:|---:|---|",
    );
    let mut missing = Vec::new();
    for (title, handshake, stateless) in era_pairs() {
        for shape in ["spawned-task", "block_on", "current-thread"] {
            let (Some(old), Some(new)) = (find(&handshake, shape), find(&stateless, shape)) else {
                missing.push(format!("{title} {shape}"));
                continue;
            };
            let (p50, cpu) = (new.p50 / old.p50, new.cpu / old.cpu);
            let server = match (old.server_cpu, new.server_cpu) {
                (Some(old), Some(new)) => format!("{old:.1} → {new:.1}"),
                _ => "—".to_owned(),
            };
            let _ = writeln!(
                report,
                "| {title} | {shape} | {:.1} → {:.1} | {} | {:.1} → {:.1} | {} | {server} | {:.0} → {:.0} | {:.2} | p50 {}, CPU {} |",
                old.p50,
                new.p50,
                against(p50, ERA_TARGET),
                old.cpu,
                new.cpu,
                against(cpu, ERA_TARGET),
                old.throughput,
                new.throughput,
                new.throughput / old.throughput,
                met(p50 <= ERA_TARGET),
                met(cpu <= ERA_TARGET),
            );
        }
    }
    if !missing.is_empty() {
        let _ = writeln!(
            report,
            "\nNo pair (a row without figures) for: {}.",
            missing.join(", ")
        );
    }
}

/// Issue 15 point 3's targets: ours over HTTP ≤ 1.5× the raw HTTP floor's seq p50, and rmcp's
/// streamable HTTP client's seq p50 ≥ 2× ours.
const HTTP_P50_TARGET: f64 = 1.5;
const HTTP_RMCP_TARGET: f64 = 2.0;

/// Issue 15's per-call targets for ours, as ratios to the floor.
const P50_TARGET: f64 = 1.7;
const CPU_TARGET: f64 = 2.5;
const THROUGHPUT_TARGET: f64 = 0.4;

/// The startup shapes of the `startup` binary, floor first.
const ONE_SHOT: [&str; 6] = [
    "oneshot-raw",
    "oneshot-ours-current-thread",
    "oneshot-ours-multi-thread",
    "oneshot-ours-pinned-current-thread",
    "oneshot-ours-2026-current-thread",
    "oneshot-rmcp-current-thread",
];
const FAN_OUT: [&str; 7] = [
    "fanout-raw",
    "fanout-raw-threads",
    "fanout-ours-multi-thread",
    "fanout-ours-current-thread",
    "fanout-ours-pinned-multi-thread",
    "fanout-ours-2026-multi-thread",
    "fanout-rmcp-multi-thread",
];
/// What the connect of ours costs by era, as differences of startup shapes: (title, shape,
/// the shape it is compared with). Default options probe with `server/discover` first; pinned
/// to 2025-11-25 they send `initialize` at once; against the dual-era server the probe is the
/// whole connect.
const CONNECT_COSTS: [(&str, &str, &str); 4] = [
    (
        "one-shot, the `server/discover` probe refused before `initialize` (default options ÷ pinned to 2025-11-25)",
        "oneshot-ours-current-thread",
        "oneshot-ours-pinned-current-thread",
    ),
    (
        "one-shot, a 2026-07-28 connect (`server/discover` answered) ÷ a pinned handshake",
        "oneshot-ours-2026-current-thread",
        "oneshot-ours-pinned-current-thread",
    ),
    (
        "fan-out, the probe refused before `initialize` (default options ÷ pinned)",
        "fanout-ours-multi-thread",
        "fanout-ours-pinned-multi-thread",
    ),
    (
        "fan-out, 2026-07-28 connects ÷ pinned handshakes",
        "fanout-ours-2026-multi-thread",
        "fanout-ours-pinned-multi-thread",
    ),
];
/// Servers the fan-out shapes start.
const FAN_OUT_SERVERS: usize = 50;
/// Issue 15's targets: one-shot ours ≤ floor + 1 ms; fan-out ours ≤ 1.15× floor, ≤ 4 MiB.
const ONE_SHOT_MARGIN_MS: f64 = 1.0;
const FAN_OUT_RATIO: f64 = 1.15;
const FAN_OUT_RSS_KIB: f64 = 4096.0;

/// One startup process: its wall time from spawn to reaped (ms) and the peak RSS it reported.
fn run_startup(paths: &Paths, shape: &str, placement: Placement) -> Result<(f64, f64), String> {
    let mut command = placement.command(paths.bin.join("startup"));
    command
        .args(["--shape", shape, "--servers", &FAN_OUT_SERVERS.to_string()])
        .arg("--server")
        .arg(paths.bin.join("reference-server"))
        .stdin(Stdio::null())
        .stderr(Stdio::inherit());
    let started = Instant::now();
    let output = command
        .output()
        .map_err(|error| format!("could not run startup: {error}"))?;
    let wall_ms = started.elapsed().as_secs_f64() * 1e3;
    if !output.status.success() {
        return Err(format!(
            "startup {shape} ({}) ended with {}",
            placement.title(),
            output.status
        ));
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    let peak = stdout
        .lines()
        .rev()
        .find_map(|line| {
            let value: serde_json::Value = serde_json::from_str(line).ok()?;
            value.get("peak_rss_kib")?.as_f64()
        })
        .ok_or_else(|| format!("startup {shape} printed no peak RSS: {stdout}"))?;
    Ok((wall_ms, peak))
}

/// The samples of one startup shape in one placement.
#[derive(Clone, Default)]
struct StartupRuns {
    /// The median wall time (ms) of each round.
    round_medians: Vec<f64>,
    /// Every run's peak RSS (KiB).
    peaks: Vec<f64>,
}

/// Runs every shape of `shapes` `repeats` times, interleaved and rotated, and adds each
/// shape's round median to `runs`.
fn startup_round(
    paths: &Paths,
    shapes: &[&str],
    repeats: usize,
    placement: Placement,
    round: usize,
    runs: &mut [StartupRuns],
    failures: &mut Vec<String>,
) {
    let mut walls = vec![Vec::new(); shapes.len()];
    for repeat in 0..repeats {
        for step in 0..shapes.len() {
            let index = (step + round + repeat) % shapes.len();
            match run_startup(paths, shapes[index], placement) {
                Ok((wall, peak)) => {
                    walls[index].push(wall);
                    runs[index].peaks.push(peak);
                }
                Err(message) => {
                    eprintln!("runner: {message}");
                    failures.push(format!("round {}: {message}", round + 1));
                }
            }
        }
    }
    for (index, mut wall) in walls.into_iter().enumerate() {
        if !wall.is_empty() {
            runs[index].round_medians.push(median(&mut wall));
        }
    }
}

/// A ratio judged against `target`, to two decimals, or three when two would show the target
/// itself (1.70× could be met or missed against 1.7×).
fn against(ratio: f64, target: f64) -> String {
    if format!("{ratio:.2}") == format!("{target:.2}") {
        format!("{ratio:.3}")
    } else {
        format!("{ratio:.2}")
    }
}

fn met(ok: bool) -> &'static str {
    if ok { "met" } else { "**missed**" }
}

/// Each shape's median wall time (ms) and peak RSS (KiB), if it has a successful run.
fn startup_figures(runs: &[StartupRuns]) -> Vec<Option<(f64, f64)>> {
    runs.iter()
        .map(|run| {
            (!run.round_medians.is_empty()).then(|| {
                (
                    median(&mut run.round_medians.clone()),
                    median(&mut run.peaks.clone()),
                )
            })
        })
        .collect()
}

/// The lines of [`CONNECT_COSTS`] whose shapes are both in `shapes` (with their `runs`).
fn connect_costs(report: &mut String, shapes: &[&str], runs: &[StartupRuns]) {
    let figures = startup_figures(runs);
    let wall = |shape: &str| {
        shapes
            .iter()
            .position(|known| *known == shape)
            .and_then(|index| figures[index])
            .map(|(ms, _)| ms)
    };
    let mut first = true;
    for (title, shape, base) in CONNECT_COSTS {
        let (Some(ms), Some(base_ms)) = (wall(shape), wall(base)) else {
            continue;
        };
        if first {
            report.push_str("\nConnect cost by era:\n\n");
            first = false;
        }
        let _ = writeln!(
            report,
            "- {title}: {ms:.2} ms vs {base_ms:.2} ms, {:+.2} ms ({:.2}×)",
            ms - base_ms,
            ms / base_ms
        );
    }
}

fn startup_table(report: &mut String, shapes: &[&str], runs: &[StartupRuns], fan_out: bool) {
    let figures = startup_figures(runs);
    let Some((floor_ms, floor_rss)) = figures.first().copied().flatten() else {
        report.push_str("(no raw floor figures: no ratios)\n");
        return;
    };
    report.push_str(
        "| shape | wall ms | × floor | − floor ms | peak RSS KiB | − floor KiB | target |\n\
         |---|---:|---:|---:|---:|---:|---|\n",
    );
    for (shape, figure) in shapes.iter().zip(&figures) {
        let Some((ms, rss)) = *figure else {
            let _ = writeln!(
                report,
                "| {shape} | — | — | — | — | — | no successful run |"
            );
            continue;
        };
        let target = if !shape.contains("-ours-") {
            String::new()
        } else if fan_out {
            format!(
                "time ≤ {FAN_OUT_RATIO}× floor: {}; peak RSS ≤ 4 MiB: {}",
                met(ms <= FAN_OUT_RATIO * floor_ms),
                met(rss <= FAN_OUT_RSS_KIB)
            )
        } else {
            format!(
                "≤ floor + {ONE_SHOT_MARGIN_MS} ms: {}",
                met(ms <= floor_ms + ONE_SHOT_MARGIN_MS)
            )
        };
        let _ = writeln!(
            report,
            "| {shape} | {ms:.2} | {:.2}× | {:+.2} | {rss:.0} | {:+.0} | {target} |",
            ms / floor_ms,
            ms - floor_ms,
            rss - floor_rss,
        );
    }
}

/// The report, and whether any run failed.
struct Outcome {
    report: String,
    failed: bool,
}

fn run(args: &Args) -> Result<Outcome, String> {
    let exe = std::env::current_exe().map_err(|error| format!("no current exe: {error}"))?;
    let paths = Paths {
        bin: exe
            .parent()
            .ok_or("the runner's path has no directory")?
            .to_owned(),
        root: repo_root(),
    };
    for binary in ["client", "startup", "reference-server"] {
        if !paths.bin.join(binary).is_file() {
            return Err(format!(
                "{} is missing: build every binary first (cargo build --release --manifest-path bench/Cargo.toml --bins)",
                paths.bin.join(binary).display()
            ));
        }
    }
    let sizes = if args.quick {
        Sizes::QUICK
    } else {
        Sizes::FULL
    };
    let mut rows: Vec<Row> = CLIENTS.iter().map(|&client| Row::Client(client)).collect();
    let mut not_measured = Vec::new();
    for peer in PEERS {
        let given = args.unavailable.iter().find(|(name, _)| name == peer.name);
        if let Some((_, reason)) = given {
            not_measured.push(format!("`{}`: {reason}", peer.name));
        } else if peer.installed(&paths.root) {
            rows.push(Row::Peer(peer));
        } else {
            not_measured.push(format!(
                "`{}`: not installed ({} is missing; `cargo xtask bench --peers` installs it)",
                peer.name, peer.marker
            ));
        }
    }
    for kind in ANSWERS {
        rows.extend(HTTP_CLIENTS.iter().map(|&client| Row::Http(client, kind)));
    }
    for line in &not_measured {
        eprintln!("runner: not measured: {line}");
    }

    let placements = [Placement::Unpinned, Placement::Pinned(args.core)];
    // results[placement][row] holds one `Figures` per round.
    let mut results = vec![vec![Vec::new(); rows.len()]; placements.len()];
    let mut one_shot = vec![vec![StartupRuns::default(); ONE_SHOT.len()]; placements.len()];
    let mut fan_out = vec![vec![StartupRuns::default(); FAN_OUT.len()]; placements.len()];
    let (one_shot_repeats, fan_out_repeats) = if args.quick { (10, 3) } else { (40, 10) };
    let mut failures = Vec::new();
    for round in 0..args.rounds {
        for (p, &placement) in placements.iter().enumerate() {
            for step in 0..rows.len() {
                let index = (step + round) % rows.len();
                let row = rows[index];
                eprintln!(
                    "round {}/{}, {}: {}",
                    round + 1,
                    args.rounds,
                    placement.title(),
                    row.name()
                );
                // A failing client is reported, not fatal: the others' figures still count.
                match run_client(&paths, row, placement, sizes) {
                    Ok(figures) => results[p][index].push(figures),
                    Err(message) => {
                        eprintln!("runner: {message}");
                        failures.push(format!("round {}: {message}", round + 1));
                    }
                }
            }
            eprintln!(
                "round {}/{}, {}: startup shapes",
                round + 1,
                args.rounds,
                placement.title()
            );
            startup_round(
                &paths,
                &ONE_SHOT,
                one_shot_repeats,
                placement,
                round,
                &mut one_shot[p],
                &mut failures,
            );
            startup_round(
                &paths,
                &FAN_OUT,
                fan_out_repeats,
                placement,
                round,
                &mut fan_out[p],
                &mut failures,
            );
        }
    }

    let mut report = String::new();
    let cpus = std::thread::available_parallelism().map_or(0, usize::from);
    let _ = writeln!(
        report,
        "# Side-by-side MCP client benchmark (stdio and Streamable HTTP, echo tool)\n\n\
         {} round(s), stdio and HTTP rows interleaved in each; medians over the rounds; ratios \
         are to the raw floor of the table (`raw` over stdio, `raw-http-json` or `raw-http-sse` \
         over HTTP); {cpus} CPUs available. Client CPU is the client process's own CPU time \
         (`getrusage(RUSAGE_SELF)`, Node's `process.cpuUsage()`); server CPU is the reference \
         server's, from `/proc/<pid>/schedstat` (summed over its threads for the HTTP server), \
         both over the sequential phase. The pipelined phase keeps {IN_FLIGHT} calls in \
         flight.\n\n\
         Calls per run (warm-up, not measured / sequential / pipelined):\n",
        args.rounds
    );
    for row in &rows {
        let row_sizes = row.sizes(sizes);
        let name = match row {
            // One line per HTTP client, for both answer kinds.
            Row::Http(_, kind) if *kind != ANSWERS[0] => continue,
            Row::Http(client, _) => format!("{client} --answers {}", ANSWERS.join("|")),
            _ => row.name(),
        };
        let _ = writeln!(
            report,
            "- `{name}`: {} / {} / {}",
            row_sizes.warmup, row_sizes.sequential, row_sizes.pipelined
        );
    }
    if !not_measured.is_empty() {
        report.push_str("\nNot measured:\n");
        for line in &not_measured {
            let _ = writeln!(report, "- {line}");
        }
    }
    for (p, placement) in placements.iter().enumerate() {
        let _ = writeln!(report, "\n## stdio, {}\n", placement.title());
        table(&mut report, Table::Stdio, &rows, &results[p], args.rounds);
    }
    let _ = writeln!(
        report,
        "\n# Streamable HTTP\n\n\
         The same server binary in its HTTP mode (`reference-server --http`, `--sse` for SSE \
         answers) on 127.0.0.1, each client keeping its connections alive except \
         `rmcp-http-*`, whose default reqwest client opens one per POST \
         (`rmcp-http-pooled-*` is handed a client that keeps them). The floor `raw-http` \
         writes pre-built POSTs on blocking kept-alive `TcpStream`s (one per call in flight) \
         and never parses an answer; `reqwest-http` is reqwest alone posting pre-serialized \
         bodies, the HTTP stack under ours."
    );
    for (p, placement) in placements.iter().enumerate() {
        for kind in ANSWERS {
            let _ = writeln!(
                report,
                "\n## HTTP, {} answers, {}\n",
                if kind == "sse" { "SSE" } else { "JSON" },
                placement.title()
            );
            table(
                &mut report,
                Table::Http(kind),
                &rows,
                &results[p],
                args.rounds,
            );
        }
    }
    let _ = writeln!(
        report,
        "\n# 2026-07-28 beside 2025-11-25\n\n\
         Our client on the same transport, answer kind and shape in both eras: `ours*` pinned \
         to 2025-11-25 (`initialize`, a session over HTTP) against the server's default mode, \
         `ours-2026*` and `ours-http-2026-*` with default options against the same server \
         binary in its dual-era mode (`--stateless`), where the client's `server/discover` \
         probe is answered and every request carries the revision's `_meta` (over HTTP its \
         `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers, and no session). × is \
         2026 ÷ 2025 of the medians; the issue's target is a stateless call's seq p50 and \
         client CPU per call within {ERA_TARGET}× of the 2025-era call's."
    );
    for (p, placement) in placements.iter().enumerate() {
        let _ = writeln!(report, "\n## Eras, {}\n", placement.title());
        era_table(&mut report, &rows, &results[p]);
    }
    let _ = writeln!(
        report,
        "\n# Startup shapes\n\n\
         Each a fresh `startup` process, timed by the runner from spawn to reaped; wall ms is the \
         median over the rounds of each round's median ({one_shot_repeats} one-shot and \
         {fan_out_repeats} fan-out runs per shape, round and placement, interleaved). Peak RSS \
         is the process's own `VmHWM` at its end (the servers, children, are not in it), median \
         over every run. One binary holds every shape, so the floor's RSS includes the same \
         mapped code as the others' (only the pages touched count). Fan-out ratios and \
         targets are to `fanout-raw`, one thread; `fanout-raw-threads` is the same work split \
         over one thread per CPU (std's spawn waits for each child's exec, so one thread \
         spawns one server at a time, while a multi-thread runtime spawns from every worker). \
         Shapes of ours without an era in their name use default options against the default \
         (handshake-era only) server: the client's `server/discover` probe is refused (-32601), \
         then it sends `initialize`. `-pinned-` shapes pin 2025-11-25 (`initialize` at once, no \
         probe: what the client did before it spoke 2026-07-28); `-2026-` shapes meet the \
         server's dual-era mode, where the answered probe is the whole connect."
    );
    for (p, placement) in placements.iter().enumerate() {
        let _ = writeln!(
            report,
            "\n## One-shot, {}: start → spawn the server → initialize → tools/list → exit\n",
            placement.title()
        );
        startup_table(&mut report, &ONE_SHOT, &one_shot[p], false);
        connect_costs(&mut report, &ONE_SHOT, &one_shot[p]);
        let _ = writeln!(
            report,
            "\n## Fan-out, {}: {FAN_OUT_SERVERS} servers started, initialized and listed concurrently, then exit\n",
            placement.title()
        );
        startup_table(&mut report, &FAN_OUT, &fan_out[p], true);
        connect_costs(&mut report, &FAN_OUT, &fan_out[p]);
    }
    if !failures.is_empty() {
        report.push_str("\n## Failed runs (not in the medians)\n\n");
        for failure in &failures {
            let _ = writeln!(report, "- {failure}");
        }
    }
    Ok(Outcome {
        report,
        failed: !failures.is_empty(),
    })
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(args) => args,
        Err(message) => {
            eprintln!("runner: {message}");
            return ExitCode::from(2);
        }
    };
    match run(&args) {
        Ok(Outcome { report, failed }) => {
            print!("{report}");
            if let Err(error) = std::fs::write(&args.out, &report) {
                eprintln!("runner: could not write {}: {error}", args.out.display());
                return ExitCode::FAILURE;
            }
            eprintln!("runner: report written to {}", args.out.display());
            if failed {
                eprintln!("runner: some runs failed (listed at the end of the report)");
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            }
        }
        Err(message) => {
            eprintln!("runner: error: {message}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::against;

    #[test]
    fn a_ratio_that_would_show_as_its_target_gets_a_third_decimal() {
        assert_eq!(against(1.7013, 1.7), "1.701");
        assert_eq!(against(1.6962, 1.7), "1.696");
        assert_eq!(against(1.73, 1.7), "1.73");
        assert_eq!(against(0.4, 0.4), "0.400");
    }
}
