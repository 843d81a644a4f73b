//! The side-by-side run: every client driver against the reference server, in interleaved
//! rounds, unpinned and pinned to one core, and a markdown report of the medians with ratios
//! to the raw floor.
//!
//! ```text
//! runner [--quick] [--rounds N] [--core C] [--out PATH]
//! ```
//!
//! Each round runs every client once per placement, each as a fresh `client` process that
//! spawns its own reference server: first unpinned, then under `taskset -c C` (the server, a
//! child, inherits the mask, so client and server share one core: software cost alone). The
//! client order is rotated each round so no client always runs first or last. Every client
//! makes the same calls (`Sizes::FULL`, or `Sizes::QUICK` with `--quick`); warm-up calls are not
//! measured. The report holds, per placement, the median of each figure over the rounds and
//! its ratio to the raw floor's median. It is printed and written to `--out` (default
//! `bench/report.md`). A client run that fails is listed at the end of the report and left out
//! of the medians; the runner then exits non-zero. The `client` and `reference-server` binaries are taken from the
//! directory this binary is in: build the workspace first (`cargo build --release --bins`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

use mcp_bench_peers::measure::median;
use mcp_bench_peers::{CLIENTS, Figures, IN_FLIGHT, Sizes};

struct Args {
    quick: bool,
    rounds: usize,
    core: usize,
    out: PathBuf,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        quick: false,
        rounds: 3,
        core: 0,
        out: Path::new(env!("CARGO_MANIFEST_DIR")).join("report.md"),
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
}

/// One run of one client driver; its figures.
fn run_client(
    dir: &Path,
    client: &str,
    placement: Placement,
    sizes: Sizes,
) -> Result<Figures, String> {
    let driver = dir.join("client");
    let server = dir.join("reference-server");
    let mut command = match placement {
        Placement::Unpinned => Command::new(&driver),
        Placement::Pinned(core) => {
            let mut taskset = Command::new("taskset");
            taskset.arg("-c").arg(core.to_string()).arg(&driver);
            taskset
        }
    };
    command
        .arg("--client")
        .arg(client)
        .arg("--server")
        .arg(&server)
        .args(sizes.to_args())
        .stdin(Stdio::null())
        .stderr(Stdio::inherit());
    let output = command
        .output()
        .map_err(|error| format!("could not run {}: {error}", driver.display()))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        return Err(format!(
            "client {client} ({}) ended with {}",
            placement.title(),
            output.status
        ));
    }
    stdout
        .lines()
        .rev()
        .find_map(Figures::from_json_line)
        .ok_or_else(|| format!("client {client} printed no figures: {stdout}"))
}

/// The medians over the rounds of one client in one placement.
struct Medians {
    shape: String,
    client: String,
    p50: f64,
    p99: f64,
    cpu: f64,
    server_cpu: f64,
    throughput: f64,
}

fn medians(runs: &[Figures]) -> Option<Medians> {
    let first = runs.first()?;
    let of = |figure: fn(&Figures) -> f64| median(&mut runs.iter().map(figure).collect::<Vec<_>>());
    Some(Medians {
        shape: first.shape.clone(),
        client: first.client.clone(),
        p50: of(|f| f.seq_p50_us),
        p99: of(|f| f.seq_p99_us),
        cpu: of(|f| f.cpu_us_per_call),
        server_cpu: of(|f| f.server_cpu_us_per_call),
        throughput: of(|f| f.inflight32_calls_per_s),
    })
}

fn table(report: &mut String, results: &[Vec<Figures>], rounds: usize) {
    let rows: Vec<Medians> = results.iter().filter_map(|runs| medians(runs)).collect();
    let missing: Vec<String> = results
        .iter()
        .zip(CLIENTS)
        .filter(|(runs, _)| runs.len() < rounds)
        .map(|(runs, client)| format!("`{client}` ({} of {rounds} rounds)", runs.len()))
        .collect();
    let Some(floor) = rows.iter().find(|row| row.client == "raw") else {
        report.push_str("(no raw floor figures: no ratios)\n");
        return;
    };
    let (floor_p50, floor_cpu, floor_tp) = (floor.p50, floor.cpu, floor.throughput);
    report.push_str(
        "| client | shape | seq p50 µs | seq p99 µs | client CPU µs/call | server CPU µs/call | 32 in flight, calls/s |\n\
         |---|---|---:|---:|---:|---:|---:|\n",
    );
    for row in &rows {
        let _ = writeln!(
            report,
            "| {} | {} | {:.1} ({:.2}×) | {:.1} | {:.1} ({:.2}×) | {:.1} | {:.0} ({:.2}×) |",
            row.client,
            row.shape,
            row.p50,
            row.p50 / floor_p50,
            row.p99,
            row.cpu,
            row.cpu / floor_cpu,
            row.server_cpu,
            row.throughput,
            row.throughput / floor_tp,
        );
    }
    if !missing.is_empty() {
        let _ = writeln!(
            report,
            "\nMedians over fewer rounds, or no row, for: {}.",
            missing.join(", ")
        );
    }
}

/// The report, and whether any client run failed.
struct Outcome {
    report: String,
    failed: bool,
}

fn run(args: &Args) -> Result<Outcome, String> {
    let exe = std::env::current_exe().map_err(|error| format!("no current exe: {error}"))?;
    let dir = exe
        .parent()
        .ok_or("the runner's path has no directory")?
        .to_owned();
    for binary in ["client", "reference-server"] {
        if !dir.join(binary).is_file() {
            return Err(format!(
                "{} is missing: build every binary first (cargo build --release --manifest-path bench/Cargo.toml --bins)",
                dir.join(binary).display()
            ));
        }
    }
    let sizes = if args.quick {
        Sizes::QUICK
    } else {
        Sizes::FULL
    };
    let placements = [Placement::Unpinned, Placement::Pinned(args.core)];
    // results[placement][client] holds one `Figures` per round.
    let mut results = vec![vec![Vec::new(); CLIENTS.len()]; placements.len()];
    let mut failures = Vec::new();
    for round in 0..args.rounds {
        for (p, &placement) in placements.iter().enumerate() {
            for step in 0..CLIENTS.len() {
                let index = (step + round) % CLIENTS.len();
                let client = CLIENTS[index];
                eprintln!(
                    "round {}/{}, {}: {client}",
                    round + 1,
                    args.rounds,
                    placement.title()
                );
                // A failing client is reported, not fatal: the others' figures still count.
                match run_client(&dir, client, placement, sizes) {
                    Ok(figures) => results[p][index].push(figures),
                    Err(message) => {
                        eprintln!("runner: {message}");
                        failures.push(format!("round {}: {message}", round + 1));
                    }
                }
            }
        }
    }

    let mut report = String::new();
    let cpus = std::thread::available_parallelism().map_or(0, usize::from);
    let _ = writeln!(
        report,
        "# Side-by-side MCP client benchmark (stdio, echo tool)\n\n\
         {} round(s), interleaved; medians over the rounds; ratios are to the raw floor. \
         Per client: {} warm-up calls (not measured), {} sequential calls, {} calls with \
         {IN_FLIGHT} in flight; {cpus} CPUs available. Client CPU is `getrusage(RUSAGE_SELF)` \
         of the client process; server CPU is the reference server's `/proc/<pid>/schedstat`, \
         both over the sequential phase.",
        args.rounds, sizes.warmup, sizes.sequential, sizes.pipelined
    );
    for (p, placement) in placements.iter().enumerate() {
        let _ = writeln!(report, "\n## {}\n", placement.title());
        table(&mut report, &results[p], args.rounds);
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
                eprintln!("runner: some client runs failed (listed at the end of the report)");
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
