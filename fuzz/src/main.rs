//! `mcp-fuzz [--time S] [--target NAME]… [--seed N] [--list]`: runs the fuzz targets of this
//! crate, `cargo xtask fuzz` being the usual way in.
//!
//! `--time` is the budget of the whole run in seconds (default 60), shared evenly among the
//! targets run; shrinking a failure may take longer. Without `--seed` the seed comes from the
//! clock, so each run explores new inputs; it is printed, and `--target NAME --seed N` replays
//! a failure. The exit status is 0 when every target held, 1 when one failed (its minimal input
//! is printed), 2 for a usage error.

use std::process::ExitCode;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use mcp_fuzz::{Settings, TARGETS, Target};

const USAGE: &str = "\
Usage: mcp-fuzz [--time SECONDS] [--target NAME]... [--seed N] [--list]

  --time SECONDS  the budget of the whole run, shared evenly among the targets (default 60)
  --target NAME   run only this target (repeatable); --list shows the names
  --seed N        the seed to run from (default: from the clock); a failure prints its seed
  --list          list the targets and exit
";

/// What the command line asks for.
struct Options {
    time: Duration,
    targets: Vec<&'static Target>,
    seed: Option<u64>,
    list: bool,
}

fn parse(args: &[String]) -> Result<Options, String> {
    let mut options = Options {
        time: Duration::from_secs(60),
        targets: Vec::new(),
        seed: None,
        list: false,
    };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let mut value = |flag: &str| {
            args.next()
                .ok_or_else(|| format!("{flag} needs a value"))
                .cloned()
        };
        match arg.as_str() {
            "--time" => {
                let text = value("--time")?;
                let seconds: f64 = text
                    .parse()
                    .ok()
                    .filter(|seconds: &f64| seconds.is_finite() && *seconds > 0.0)
                    .ok_or_else(|| {
                        format!("--time takes a positive number of seconds, not {text:?}")
                    })?;
                options.time = Duration::from_secs_f64(seconds);
            }
            "--target" => {
                let name = value("--target")?;
                let target = TARGETS
                    .iter()
                    .find(|target| target.name == name)
                    .ok_or_else(|| format!("no target {name:?} (--list shows them)"))?;
                options.targets.push(target);
            }
            "--seed" => {
                let text = value("--seed")?;
                options.seed = Some(
                    text.parse()
                        .map_err(|_| format!("--seed takes a whole number, not {text:?}"))?,
                );
            }
            "--list" => options.list = true,
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    if options.targets.is_empty() {
        options.targets = TARGETS.iter().collect();
    }
    Ok(options)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let options = match parse(&args) {
        Ok(options) => options,
        Err(message) if message.is_empty() => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            eprintln!("mcp-fuzz: {message}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    if options.list {
        for target in TARGETS {
            println!("{}", target.name);
        }
        return ExitCode::SUCCESS;
    }
    let seed = options.seed.unwrap_or_else(|| {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |since| since.as_nanos() as u64)
    });
    let count = u32::try_from(options.targets.len())
        .unwrap_or(u32::MAX)
        .max(1);
    let each = options.time / count;
    println!(
        "mcp-fuzz: seed {seed}; {:.1}s in all, {:.1}s for each of {} targets",
        options.time.as_secs_f64(),
        each.as_secs_f64(),
        options.targets.len()
    );
    let settings = Settings {
        seed,
        time: each,
        max_cases: None,
    };
    let started = Instant::now();
    let mut failed = Vec::new();
    for target in &options.targets {
        let report = (target.run)(&settings);
        match &report.failure {
            None => println!("  {:<12} {:>9} cases  ok", target.name, report.cases),
            Some(failure) => {
                println!(
                    "  {:<12} FAILED after {} cases\n\n{failure}\n\nreplay: cargo xtask fuzz --target {} --seed {seed}\n",
                    target.name, report.cases, target.name
                );
                failed.push(target.name);
            }
        }
    }
    println!(
        "mcp-fuzz: {} of {} targets held in {:.1}s (seed {seed})",
        options.targets.len() - failed.len(),
        options.targets.len(),
        started.elapsed().as_secs_f64()
    );
    if failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        println!("mcp-fuzz: failed: {}", failed.join(", "));
        ExitCode::FAILURE
    }
}
