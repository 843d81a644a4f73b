//! `mcp-fixture-server`: a scriptable MCP server on stdio for tests and benchmarks.
//!
//! It speaks newline-delimited JSON-RPC 2.0 on stdin/stdout and logs on stderr. Without flags
//! it is well behaved; each flag scripts one fault, so a test can say exactly what goes wrong
//! and when. Requests are read by the main thread and answered in order, except slow tools
//! (`sleep`, `progress`) and `--delay`ed methods, which answer from threads of their own.
//! Every outgoing line is written whole and flushed under one lock.
//!
//! Tests find the binary with `testkit::fixture_server_path()` and compose flags with
//! `testkit::FixtureServer`. The full usage, as printed by `--help`:
//!
#![doc = concat!("```text\n", include_str!("mcp-fixture-server/usage.txt"), "```")]

#[path = "mcp-fixture-server/catalog.rs"]
mod catalog;
#[path = "mcp-fixture-server/options.rs"]
mod options;
#[path = "mcp-fixture-server/process.rs"]
mod process;
#[path = "mcp-fixture-server/server.rs"]
mod server;
#[path = "mcp-fixture-server/skills.rs"]
mod skills;
#[path = "mcp-fixture-server/tools.rs"]
mod tools;
#[path = "mcp-fixture-server/wire.rs"]
mod wire;

use std::io::Write as _;
use std::sync::Arc;

use options::{DaemonStep, Options, Parsed};
use server::Server;
use wire::Output;

const USAGE: &str = include_str!("mcp-fixture-server/usage.txt");

fn main() {
    let opts = match Options::parse(std::env::args_os().skip(1)) {
        Ok(Parsed::Run(opts)) => opts,
        Ok(Parsed::Help) => {
            print!("{USAGE}");
            return;
        }
        Err(message) => {
            eprintln!("mcp-fixture-server: {message}");
            eprintln!("Run `mcp-fixture-server --help` for the flags.");
            std::process::exit(2);
        }
    };
    if opts.sleep_forever {
        process::sleep_forever();
    }
    match &opts.daemon_step {
        Some((DaemonStep::Session, file)) => process::start_daemon_session(file),
        Some((DaemonStep::Sleep, file)) => process::be_daemon(file),
        None => {}
    }
    // Before SIGTERM is ignored, so the daemon does not inherit that.
    if let Some(file) = &opts.daemon
        && let Err(err) = process::leave_daemon(file)
    {
        eprintln!("fixture: cannot leave a daemon: {err}");
        std::process::exit(1);
    }
    // Before SIGTERM is ignored, so the grandchild does not inherit that.
    let grandchild = if opts.grandchild {
        match process::spawn_grandchild() {
            Ok(pid) => {
                eprintln!("fixture: grandchild pid {pid}");
                Some(pid)
            }
            Err(err) => {
                eprintln!("fixture: cannot spawn the grandchild: {err}");
                std::process::exit(1);
            }
        }
    } else {
        None
    };
    if opts.ignore_sigterm
        && let Err(err) = process::ignore_sigterm()
    {
        eprintln!("fixture: cannot ignore SIGTERM: {err}");
        std::process::exit(1);
    }
    if opts.stderr_flood > 0 {
        tools::flood_stderr(opts.stderr_flood);
    }
    let out = match Output::stdout(opts.garbage) {
        Ok(out) => out,
        Err(err) => {
            eprintln!("fixture: cannot use stdout: {err}");
            std::process::exit(1);
        }
    };
    if opts.garbage {
        out.send_garbage();
    }
    let ignore_stdin_close = opts.ignore_stdin_close;
    let server = Arc::new(Server::new(opts, out, grandchild));
    server.serve();
    if ignore_stdin_close {
        // Not `eprintln!`: with its client gone, stderr is a closed pipe, and a failed print
        // would end the process this flag keeps alive.
        let _ = writeln!(
            std::io::stderr(),
            "fixture: stdin closed; staying alive as asked"
        );
        process::sleep_forever();
    }
    // Threads of slow tools may still be waiting: they end with the process.
    std::process::exit(0);
}
