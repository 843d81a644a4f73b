//! One client driver run: spawns the reference server, initializes, makes unmeasured warm-up
//! calls, then measures `--sequential N` echo calls one at a time and `--pipelined M` echo calls
//! with 32 in flight, and prints one JSON line:
//! `{client, shape, seq_p50_us, seq_p99_us, cpu_us_per_call, server_cpu_us_per_call,
//! inflight32_calls_per_s}`.
//!
//! ```text
//! client --client raw|ours-task|ours-block-on|ours-current-thread|rmcp-task|rmcp-block-on|rmcp-current-thread
//!        --server PATH [--warmup W] [--sequential N] [--pipelined M]
//! ```
//!
//! Client CPU per call is `getrusage(RUSAGE_SELF)` over the sequential phase divided by N (the
//! server is a child process and is not counted); the server's CPU over the same phase is read
//! from `/proc/<pid>/schedstat`. Each run is its own process, so no client warms another's
//! caches or allocator.

mod async_driver;
mod ours;
mod raw;
mod rmcp_sdk;

use std::error::Error;
use std::path::PathBuf;
use std::process::ExitCode;

use mcp_bench_peers::{CLIENTS, Figures, Sizes};

use crate::async_driver::Shape;

type BoxError = Box<dyn Error + Send + Sync>;

struct Args {
    client: String,
    server: PathBuf,
    sizes: Sizes,
}

fn parse_args() -> Result<Args, String> {
    let mut client = None;
    let mut server = None;
    let mut sizes = Sizes::QUICK;
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--client" => client = Some(value()?),
            "--server" => server = Some(PathBuf::from(value()?)),
            "--warmup" | "--sequential" | "--pipelined" => {
                let text = value()?;
                let count = text
                    .parse()
                    .map_err(|_| format!("{flag} wants a number of calls, got `{text}`"))?;
                match flag.as_str() {
                    "--warmup" => sizes.warmup = count,
                    "--sequential" => sizes.sequential = count,
                    _ => sizes.pipelined = count,
                }
            }
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    let client = client.ok_or("--client is required")?;
    if !CLIENTS.contains(&client.as_str()) {
        return Err(format!(
            "--client wants one of {}, got `{client}`",
            CLIENTS.join(", ")
        ));
    }
    let server = server.ok_or("--server is required")?;
    Ok(Args {
        client,
        server,
        sizes,
    })
}

fn run(args: &Args) -> Result<Figures, BoxError> {
    let sizes = args.sizes;
    let server = args.server.as_path();
    match args.client.as_str() {
        "raw" => Ok(raw::run(server, sizes)?),
        "ours-task" => ours::run(server, sizes, Shape::SpawnedTask),
        "ours-block-on" => ours::run(server, sizes, Shape::BlockOn),
        "ours-current-thread" => ours::run(server, sizes, Shape::CurrentThread),
        "rmcp-task" => rmcp_sdk::run(server, sizes, Shape::SpawnedTask),
        "rmcp-block-on" => rmcp_sdk::run(server, sizes, Shape::BlockOn),
        "rmcp-current-thread" => rmcp_sdk::run(server, sizes, Shape::CurrentThread),
        other => Err(format!("unknown client `{other}`").into()),
    }
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(args) => args,
        Err(message) => {
            eprintln!("client: {message}");
            return ExitCode::from(2);
        }
    };
    match run(&args) {
        Ok(figures) => {
            println!("{}", figures.to_json_line());
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("client {}: error: {error}", args.client);
            ExitCode::FAILURE
        }
    }
}
