//! One client driver run: spawns the reference server, initializes, makes unmeasured warm-up
//! calls, then measures `--sequential N` echo calls one at a time and `--pipelined M` echo calls
//! with 32 in flight, and prints one JSON line:
//! `{client, shape, seq_p50_us, seq_p99_us, cpu_us_per_call, server_cpu_us_per_call,
//! inflight32_calls_per_s}`.
//!
//! ```text
//! client --client raw|ours-task|ours-block-on|ours-current-thread
//!                 |ours-2026-task|ours-2026-block-on|ours-2026-current-thread
//!                 |rmcp-task|rmcp-block-on|rmcp-current-thread
//!        --server PATH [--warmup W] [--sequential N] [--pipelined M]
//! client --client raw-http|ours-http-task|ours-http-block-on|ours-http-current-thread
//!                 |ours-http-2026-task|ours-http-2026-block-on|ours-http-2026-current-thread
//!                 |rmcp-http-task|rmcp-http-block-on|rmcp-http-current-thread|rmcp-http-pooled-task
//!                 |reqwest-http-task|reqwest-http-block-on|reqwest-http-current-thread
//!        --server PATH [--answers json|sse] [--warmup W] [--sequential N] [--pipelined M]
//! ```
//!
//! The `-http` clients start the server in its Streamable HTTP mode (`--http`, and `--sse`
//! with `--answers sse`), read the address it prints, and talk to `http://ADDRESS/mcp`;
//! `--answers` (default `json`) picks `application/json` or `text/event-stream` answers. Their
//! JSON line names the client with the answer kind: `raw-http-json`, `ours-http-sse`,
//! `rmcp-http-json`, … (the shape is in `shape` as for stdio). `raw-http` is the HTTP floor
//! (`raw_http.rs`): blocking kept-alive `TcpStream`s, one per call in flight. rmcp's default
//! HTTP client opens a connection per POST; `rmcp-http-pooled-task` (JSON line
//! `rmcp-http-pooled-json`/`-sse`) gives it a reqwest client that keeps them alive.
//! `reqwest-http-*` (`reqwest_http.rs`) is reqwest alone posting pre-serialized bodies, no MCP
//! client: the cost of the HTTP stack under ours and rmcp's, told apart from the MCP layers'.
//!
//! Our rows speak the handshake era (2025-11-25, pinned: `initialize`, no probe) to the server's
//! default mode, as every other client does; `ours-2026-*` and `ours-http-2026-*` speak
//! 2026-07-28 (default options: the client's `server/discover` probe is answered) to the server
//! in its dual-era mode (`--stateless`). Their JSON line names them `ours-2026`,
//! `ours-http-2026-json`, `ours-http-2026-sse`. Each checks the version it ended up speaking
//! before anything is timed (see `ours.rs`).
//!
//! Client CPU per call is `getrusage(RUSAGE_SELF)` over the sequential phase divided by N (the
//! server is a child process and is not counted); the server's CPU over the same phase is read
//! from `/proc/<pid>/schedstat` of its threads (the HTTP server has one per connection). Each
//! run is its own process, so no client warms another's caches or allocator.

mod async_driver;
mod http_server;
mod ours;
mod raw;
mod raw_http;
mod reqwest_http;
mod rmcp_sdk;

use std::error::Error;
use std::path::PathBuf;
use std::process::ExitCode;

use mcp_bench_peers::{CLIENTS, Figures, HTTP_CLIENTS, Sizes};

use crate::async_driver::Shape;
use crate::http_server::Answers;
use crate::ours::Era;
use crate::rmcp_sdk::Pool;

type BoxError = Box<dyn Error + Send + Sync>;

struct Args {
    client: String,
    server: PathBuf,
    answers: Answers,
    sizes: Sizes,
}

fn parse_args() -> Result<Args, String> {
    let mut client = None;
    let mut server = None;
    let mut sizes = Sizes::QUICK;
    let mut answers = None;
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--client" => client = Some(value()?),
            "--server" => server = Some(PathBuf::from(value()?)),
            "--answers" => {
                let text = value()?;
                answers = Some(
                    Answers::parse(&text)
                        .ok_or_else(|| format!("--answers wants json or sse, got `{text}`"))?,
                );
            }
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
    let http = HTTP_CLIENTS.contains(&client.as_str());
    if !http && !CLIENTS.contains(&client.as_str()) {
        return Err(format!(
            "--client wants one of {}, {}, got `{client}`",
            CLIENTS.join(", "),
            HTTP_CLIENTS.join(", ")
        ));
    }
    if !http && answers.is_some() {
        return Err(format!("--answers is for the HTTP clients, not `{client}`"));
    }
    let server = server.ok_or("--server is required")?;
    Ok(Args {
        client,
        server,
        answers: answers.unwrap_or(Answers::Json),
        sizes,
    })
}

fn run(args: &Args) -> Result<Figures, BoxError> {
    let sizes = args.sizes;
    let server = args.server.as_path();
    let answers = args.answers;
    match args.client.as_str() {
        "raw" => Ok(raw::run(server, sizes)?),
        "ours-task" => ours::run(server, sizes, Shape::SpawnedTask, Era::Handshake),
        "ours-block-on" => ours::run(server, sizes, Shape::BlockOn, Era::Handshake),
        "ours-current-thread" => ours::run(server, sizes, Shape::CurrentThread, Era::Handshake),
        "ours-2026-task" => ours::run(server, sizes, Shape::SpawnedTask, Era::Stateless),
        "ours-2026-block-on" => ours::run(server, sizes, Shape::BlockOn, Era::Stateless),
        "ours-2026-current-thread" => {
            ours::run(server, sizes, Shape::CurrentThread, Era::Stateless)
        }
        "rmcp-task" => rmcp_sdk::run(server, sizes, Shape::SpawnedTask),
        "rmcp-block-on" => rmcp_sdk::run(server, sizes, Shape::BlockOn),
        "rmcp-current-thread" => rmcp_sdk::run(server, sizes, Shape::CurrentThread),
        "raw-http" => Ok(raw_http::run(server, answers, sizes)?),
        "ours-http-task" => {
            ours::run_http(server, answers, sizes, Shape::SpawnedTask, Era::Handshake)
        }
        "ours-http-block-on" => {
            ours::run_http(server, answers, sizes, Shape::BlockOn, Era::Handshake)
        }
        "ours-http-current-thread" => {
            ours::run_http(server, answers, sizes, Shape::CurrentThread, Era::Handshake)
        }
        "ours-http-2026-task" => {
            ours::run_http(server, answers, sizes, Shape::SpawnedTask, Era::Stateless)
        }
        "ours-http-2026-block-on" => {
            ours::run_http(server, answers, sizes, Shape::BlockOn, Era::Stateless)
        }
        "ours-http-2026-current-thread" => {
            ours::run_http(server, answers, sizes, Shape::CurrentThread, Era::Stateless)
        }
        "rmcp-http-task" => rmcp_sdk::run_http(
            server,
            answers,
            Pool::RmcpDefault,
            sizes,
            Shape::SpawnedTask,
        ),
        "rmcp-http-block-on" => {
            rmcp_sdk::run_http(server, answers, Pool::RmcpDefault, sizes, Shape::BlockOn)
        }
        "rmcp-http-current-thread" => rmcp_sdk::run_http(
            server,
            answers,
            Pool::RmcpDefault,
            sizes,
            Shape::CurrentThread,
        ),
        "rmcp-http-pooled-task" => {
            rmcp_sdk::run_http(server, answers, Pool::KeepAlive, sizes, Shape::SpawnedTask)
        }
        "reqwest-http-task" => reqwest_http::run(server, answers, sizes, Shape::SpawnedTask),
        "reqwest-http-block-on" => reqwest_http::run(server, answers, sizes, Shape::BlockOn),
        "reqwest-http-current-thread" => {
            reqwest_http::run(server, answers, sizes, Shape::CurrentThread)
        }
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
