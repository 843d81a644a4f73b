//! Round-trip benchmark: `tools/call echo` against the fixture server, our client beside a raw
//! floor, in one run.
//!
//! ```text
//! cargo bench -p mcp-transport --bench roundtrip -- [--pin-core N] [--quick] [--only CLIENT]
//! ```
//!
//! Three clients run one after the other in this process, each against a freshly spawned
//! `mcp-fixture-server`, each warmed up before anything is measured:
//!
//! - `raw`: the floor. Blocking std pipes, pre-serialized request lines written with one
//!   `write_all` each, responses read with `BufRead::read_until` and never parsed.
//! - `ours_mt`: [`mcp_transport::McpClient`] on a multi-thread tokio runtime (default workers).
//! - `ours_ct`: the same on a current-thread runtime.
//!
//! For each: sequential round trips (p50, p99, client CPU per call from `getrusage(RUSAGE_SELF)`,
//! which excludes the server, a child process) and the throughput with 32 requests in flight.
//! The report ends with the ratios of our client to the floor against the targets (sequential p50
//! ≤ 1.7×, CPU per call ≤ 2×, 32-in-flight throughput ≥ ⅓) and one JSON line with every figure.
//! Missing a target is reported, not failed: the exit code is non-zero only on errors.
//!
//! `--pin-core N` restricts the whole process to CPU N before anything starts, so every runtime
//! thread and the server (children inherit the mask) share that core: this measures software
//! cost alone. `--quick` runs a tenth of the calls. `--only raw|ours_mt|ours_ct` (repeatable)
//! runs only those clients, and `--warmup N`, `--sequential N`, `--pipelined N` set the call
//! counts (0 skips a phase, its warm-up included), both for profiling. `--diagnose` adds
//! sequential variants of our client that each remove one suspected cost (see `diagnose.rs`).
//!
//! Run by `cargo test --benches` (no `--bench` flag) it only checks that every client works,
//! with a handful of calls; with `--list` (as `cargo nextest` asks) it prints nothing.

use std::error::Error;
use std::fmt::Write as _;
use std::process::ExitCode;

use serde_json::json;

#[path = "roundtrip/diagnose.rs"]
mod diagnose;
#[path = "roundtrip/ours.rs"]
mod ours;
#[path = "roundtrip/raw.rs"]
mod raw;
#[path = "roundtrip/stats.rs"]
mod stats;
#[path = "roundtrip/sys.rs"]
mod sys;

use ours::Flavor;
use stats::{ClientFigures, Sizes, micros};

type BoxError = Box<dyn Error + Send + Sync>;

/// Requests kept outstanding in the throughput phase.
const IN_FLIGHT: usize = 32;
/// Target: our sequential p50 at most this many times the floor's.
const TARGET_P50_RATIO: f64 = 1.7;
/// Target: our CPU per call at most this many times the floor's.
const TARGET_CPU_RATIO: f64 = 2.0;
/// Target: our 32-in-flight throughput at least this fraction of the floor's.
const TARGET_THROUGHPUT_RATIO: f64 = 1.0 / 3.0;

const CLIENTS: [&str; 3] = ["raw", "ours_mt", "ours_ct"];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scale {
    Full,
    Quick,
    /// Not run by `cargo bench`: prove it works, measure nothing meaningful.
    Smoke,
}

#[derive(Debug)]
struct Args {
    list: bool,
    pin_core: Option<usize>,
    scale: Scale,
    only: Vec<String>,
    diagnose: bool,
    /// `--warmup`, `--sequential` and `--pipelined` overrides of the call counts.
    counts: [Option<usize>; 3],
}

impl Args {
    fn parse(args: impl IntoIterator<Item = String>) -> Result<Self, String> {
        let mut list = false;
        let mut bench = false;
        let mut quick = false;
        let mut pin_core = None;
        let mut only = Vec::new();
        let mut diagnose = false;
        let mut counts = [None; 3];
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            let (flag, inline) = match arg.split_once('=') {
                Some((flag, value)) if flag.starts_with("--") => {
                    (flag.to_owned(), Some(value.to_owned()))
                }
                _ => (arg.clone(), None),
            };
            let mut value = |name: &str| {
                inline
                    .clone()
                    .or_else(|| args.next())
                    .ok_or_else(|| format!("{name} needs a value"))
            };
            match flag.as_str() {
                "--list" => list = true,
                "--bench" => bench = true,
                "--quick" => quick = true,
                "--diagnose" => diagnose = true,
                "--pin-core" => {
                    let text = value("--pin-core")?;
                    let core = text
                        .parse()
                        .map_err(|_| format!("--pin-core wants a CPU number, got `{text}`"))?;
                    pin_core = Some(core);
                }
                "--only" => {
                    let client = value("--only")?;
                    if !CLIENTS.contains(&client.as_str()) {
                        return Err(format!(
                            "--only wants one of {}, got `{client}`",
                            CLIENTS.join(", ")
                        ));
                    }
                    only.push(client);
                }
                "--warmup" | "--sequential" | "--pipelined" => {
                    let text = value(&flag)?;
                    let count = text
                        .parse()
                        .map_err(|_| format!("{flag} wants a number of calls, got `{text}`"))?;
                    let index = match flag.as_str() {
                        "--warmup" => 0,
                        "--sequential" => 1,
                        _ => 2,
                    };
                    counts[index] = Some(count);
                }
                // Whatever else the test runners pass (`--format terse`, `--exact NAME`,
                // `--nocapture`, filters): nothing here depends on it.
                _ => {}
            }
        }
        let scale = match (bench, quick) {
            (_, true) => Scale::Quick,
            (true, false) => Scale::Full,
            (false, false) => Scale::Smoke,
        };
        Ok(Self {
            list,
            pin_core,
            scale,
            only,
            diagnose,
            counts,
        })
    }

    fn runs(&self, client: &str) -> bool {
        self.only.is_empty() || self.only.iter().any(|only| only == client)
    }

    fn sizes(&self) -> Sizes {
        let (warmup, sequential, pipelined) = match self.scale {
            Scale::Full => (2_000, 20_000, 100_000),
            Scale::Quick => (500, 2_000, 10_000),
            Scale::Smoke => (10, 50, 200),
        };
        let [warmup_count, sequential_count, pipelined_count] = self.counts;
        Sizes {
            warmup: warmup_count.unwrap_or(warmup),
            sequential: sequential_count.unwrap_or(sequential),
            pipelined: pipelined_count.unwrap_or(pipelined),
            in_flight: IN_FLIGHT,
        }
    }
}

fn main() -> ExitCode {
    let args = match Args::parse(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(message) => {
            eprintln!("roundtrip: {message}");
            return ExitCode::from(2);
        }
    };
    if args.list {
        // `cargo nextest` lists tests this way: this target has none.
        return ExitCode::SUCCESS;
    }
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("roundtrip: error: {error}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &Args) -> Result<(), BoxError> {
    if let Some(core) = args.pin_core {
        // First thing: no other thread exists yet, and everything started later inherits it.
        sys::pin_to_core(core).map_err(|error| format!("cannot pin to core {core}: {error}"))?;
    }
    let mask = sys::current_affinity()?;
    let mode = if args.pin_core.is_some() {
        "pinned"
    } else {
        "unpinned"
    };
    let sizes = args.sizes();
    let (program, server_args) = testkit::FixtureServer::new().command();

    println!("roundtrip: tools/call echo against {}", program.display());
    println!(
        "mode {mode}: CPU affinity {{{}}} (available parallelism {}); {} warm-up, {} sequential and {} pipelined ({} in flight) calls per client{}",
        format_cpus(&mask),
        std::thread::available_parallelism().map_or(0, usize::from),
        sizes.warmup,
        sizes.sequential,
        sizes.pipelined,
        sizes.in_flight,
        match args.scale {
            Scale::Full => "",
            Scale::Quick => " (--quick)",
            Scale::Smoke => " (smoke test: not run by `cargo bench`, figures are meaningless)",
        },
    );

    let mut figures = Vec::new();
    if args.runs("raw") {
        eprintln!("roundtrip: running raw ...");
        figures.push(raw::run(&program, &server_args, &sizes)?);
    }
    for flavor in [Flavor::MultiThread, Flavor::CurrentThread] {
        if args.runs(flavor.key()) {
            eprintln!("roundtrip: running {} ...", flavor.key());
            figures.push(ours::run(flavor, &program, &server_args, &sizes)?);
        }
    }

    println!();
    print!("{}", table(&figures));
    let floor = figures.iter().find(|figures| figures.key == "raw");
    let ratios: Vec<Ratios> = match floor {
        Some(floor) => figures
            .iter()
            .filter(|figures| figures.key != "raw")
            .map(|ours| Ratios::new(ours, floor))
            .collect(),
        None => Vec::new(),
    };
    if !ratios.is_empty() && args.scale != Scale::Smoke {
        println!();
        print!("{}", summary(&ratios));
    }
    if args.diagnose {
        diagnose::decode_costs()?;
        diagnose::run(&program, &server_args, &sizes)?;
    }
    println!();
    println!("{}", json_line(mode, args, &mask, &figures, &ratios));
    Ok(())
}

fn format_cpus(cpus: &[usize]) -> String {
    cpus.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

fn table(figures: &[ClientFigures]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<38} {:>9} {:>9} {:>9} {:>9} | {:>11} {:>9}",
        "client", "p50 µs", "p99 µs", "mean µs", "CPU µs", "32∥ calls/s", "CPU µs"
    );
    let _ = writeln!(out, "{}", "-".repeat(38 + 4 * 10 + 3 + 12 + 10));
    for row in figures {
        let seq = &row.sequential;
        let pipe = &row.pipelined;
        let _ = writeln!(
            out,
            "{:<38} {:>9.2} {:>9.2} {:>9.2} {:>9.2} | {:>11.0} {:>9.2}",
            row.label,
            micros(seq.p50),
            micros(seq.p99),
            micros(seq.mean),
            micros(seq.cpu_per_call),
            pipe.calls_per_sec(),
            micros(pipe.cpu_per_call),
        );
    }
    let _ = writeln!(
        out,
        "(sequential: latency per call and client CPU per call; | 32 in flight: calls per second and client CPU per call)"
    );
    out
}

/// Our client against the floor.
struct Ratios {
    key: &'static str,
    label: String,
    p50: f64,
    cpu: f64,
    throughput: f64,
}

impl Ratios {
    fn new(ours: &ClientFigures, floor: &ClientFigures) -> Self {
        let ratio = |ours: f64, floor: f64| if floor > 0.0 { ours / floor } else { f64::NAN };
        Self {
            key: ours.key,
            label: ours.label.clone(),
            p50: ratio(
                ours.sequential.p50.as_secs_f64(),
                floor.sequential.p50.as_secs_f64(),
            ),
            cpu: ratio(
                ours.sequential.cpu_per_call.as_secs_f64(),
                floor.sequential.cpu_per_call.as_secs_f64(),
            ),
            throughput: ratio(
                ours.pipelined.calls_per_sec(),
                floor.pipelined.calls_per_sec(),
            ),
        }
    }

    fn p50_pass(&self) -> bool {
        self.p50 <= TARGET_P50_RATIO
    }

    fn cpu_pass(&self) -> bool {
        self.cpu <= TARGET_CPU_RATIO
    }

    fn throughput_pass(&self) -> bool {
        self.throughput >= TARGET_THROUGHPUT_RATIO
    }
}

fn verdict(pass: bool) -> &'static str {
    if pass { "PASS" } else { "MISS" }
}

fn summary(ratios: &[Ratios]) -> String {
    let mut out = String::from("ratios to the raw floor (informational; targets in brackets):\n");
    for ratio in ratios {
        let _ = writeln!(out, "  {}:", ratio.label);
        let _ = writeln!(
            out,
            "    sequential p50        {:>6.2}×  [≤ {TARGET_P50_RATIO}×]  {}",
            ratio.p50,
            verdict(ratio.p50_pass())
        );
        let _ = writeln!(
            out,
            "    CPU per call          {:>6.2}×  [≤ {TARGET_CPU_RATIO}×]  {}",
            ratio.cpu,
            verdict(ratio.cpu_pass())
        );
        let _ = writeln!(
            out,
            "    32-in-flight calls/s  {:>6.2}×  [≥ 0.33×]  {}",
            ratio.throughput,
            verdict(ratio.throughput_pass())
        );
    }
    out
}

fn json_line(
    mode: &str,
    args: &Args,
    mask: &[usize],
    figures: &[ClientFigures],
    ratios: &[Ratios],
) -> String {
    let nanos =
        |duration: std::time::Duration| u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX);
    let mut clients = serde_json::Map::new();
    for row in figures {
        clients.insert(
            row.key.to_owned(),
            json!({
                "label": row.label,
                "seq_calls": row.sequential.calls,
                "seq_p50_ns": nanos(row.sequential.p50),
                "seq_p99_ns": nanos(row.sequential.p99),
                "seq_mean_ns": nanos(row.sequential.mean),
                "seq_cpu_per_call_ns": nanos(row.sequential.cpu_per_call),
                "pipe_calls": row.pipelined.calls,
                "pipe_in_flight": IN_FLIGHT,
                "pipe_elapsed_ns": nanos(row.pipelined.elapsed),
                "pipe_calls_per_sec": row.pipelined.calls_per_sec().round(),
                "pipe_cpu_per_call_ns": nanos(row.pipelined.cpu_per_call),
            }),
        );
    }
    let mut ratio_map = serde_json::Map::new();
    for ratio in ratios {
        ratio_map.insert(
            ratio.key.to_owned(),
            json!({
                "seq_p50": round3(ratio.p50),
                "seq_p50_pass": ratio.p50_pass(),
                "cpu_per_call": round3(ratio.cpu),
                "cpu_per_call_pass": ratio.cpu_pass(),
                "throughput_32": round3(ratio.throughput),
                "throughput_32_pass": ratio.throughput_pass(),
            }),
        );
    }
    json!({
        "mode": mode,
        "pin_core": args.pin_core,
        "affinity": mask,
        "scale": match args.scale {
            Scale::Full => "full",
            Scale::Quick => "quick",
            Scale::Smoke => "smoke",
        },
        "clients": clients,
        "ratios": ratio_map,
        "targets": {
            "seq_p50_max": TARGET_P50_RATIO,
            "cpu_per_call_max": TARGET_CPU_RATIO,
            "throughput_32_min": round3(TARGET_THROUGHPUT_RATIO),
        },
    })
    .to_string()
}

fn round3(value: f64) -> f64 {
    (value * 1000.0).round() / 1000.0
}
