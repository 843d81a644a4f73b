//! Developer automation for this workspace, run as `cargo xtask <command>`.
//!
//! - `cargo xtask ci`: every check CI runs, in order, stopping at the first failure: format check,
//!   clippy with warnings denied (and the feature checks: crates without their default features,
//!   the feature boundaries seen with `cargo tree`), the interop install, the fixture server
//!   build, the README's first commands as written, every test (the real-peer tests,
//!   `#[ignore = "needs …"]`, included) and the doctests, a short fuzz run, the benchmarks' smoke
//!   runs, the `bench/` harness's format, clippy and tests, the conformance suite, and rustdoc
//!   with warnings denied.
//! - `cargo xtask interop`: installs the pinned real MCP peers under `interop/`; a peer whose pins
//!   have not changed since its last install is left alone.
//! - `cargo xtask conformance`: the official MCP conformance suite's client scenarios against the
//!   `conformance-client` example of `mcp-transport`.
//! - `cargo xtask bench [--quick]`: the library crates' benchmarks, in one run: a tool call
//!   through the session beside a bare one, discovery over every provider's files, the tool cache of `mcp-cache`, the startup time of `mcp-manager` for 50 servers and its soak run,
//!   and the tool search's quality (beside plain BM25) and speed at 10,000 tools.
//!   `cargo xtask bench --peers [--quick] [--rounds N]` runs the side-by-side harness of the
//!   separate `bench/` workspace instead: the per-call cost of our client beside a raw floor,
//!   rmcp and the TypeScript and Python SDKs, over stdio and Streamable HTTP.
//! - `cargo xtask fuzz [--time S] [--target NAME]… [--seed N] [--list]`: the fuzz targets of
//!   `mcp-fuzz` (every parser of outside input), `--time` seconds in all (default 60), shared
//!   evenly among the targets.
//!
//! The crate uses the standard library only, so that it builds quickly on a fresh clone. It
//! invokes the cargo that runs it (the `CARGO` environment variable) and runs every command from
//! the workspace root. Build outputs are looked for where `cargo metadata` says cargo puts them
//! (its `target_directory`, which `CARGO_TARGET_DIR` moves), never under a fixed `target/`.

mod bench;
mod ci;
mod command;
mod conformance;
mod error;
mod fuzz;
mod interop;
mod metadata;
mod readme;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::error::Error;

const USAGE: &str = "\
Usage: cargo xtask <command>

Commands:
  ci               every check CI runs, stopping at the first failure: format, clippy
                   (-D warnings), interop install, fixture build, the README's first
                   commands as written, all tests (ignored ones
                   too), a short fuzz run, bench smoke runs, the bench/ harness's checks,
                   conformance, rustdoc (-D warnings)
  interop          install the pinned real MCP peers under interop/ (skipped when up to date)
  conformance      run the official MCP conformance suite's client scenarios against the
                   conformance-client example (installs the pinned suite and Node 22)
  bench [--quick]  run the library crates' benchmarks: a session tool call beside a bare
                   one, discovery, the tool cache, the startup of 50
                   servers (cold and warm), the soak run, and the tool
                   search's quality and speed
  bench --peers [--quick] [--rounds N]
                   the side-by-side harness of bench/: raw floors, our client (three
                   shapes), rmcp, reqwest, the TypeScript and Python SDKs, stdio and
                   Streamable HTTP, one-shot and fan-out; interleaved rounds (default 3),
                   unpinned and pinned; writes bench/report.md
  fuzz [--time S] [--target NAME]... [--seed N] [--list]
                   fuzz every parser of outside input for S seconds in all (default 60,
                   shared evenly among the targets); a failure prints its minimal input and
                   the seed that replays it
  help             show this text
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Error::Usage(message)) => {
            eprintln!("xtask: {message}\n");
            eprint!("{USAGE}");
            ExitCode::from(2)
        }
        Err(error) => {
            eprintln!("xtask: error: {error}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &[String]) -> Result<(), Error> {
    let Some((command, rest)) = args.split_first() else {
        print!("{USAGE}");
        return Ok(());
    };
    match command.as_str() {
        "help" | "-h" | "--help" => {
            print!("{USAGE}");
            Ok(())
        }
        "ci" => {
            no_more_args("ci", rest)?;
            ci::run(&workspace_root()?)
        }
        "interop" => {
            no_more_args("interop", rest)?;
            interop::install(&workspace_root()?)
        }
        "conformance" => {
            no_more_args("conformance", rest)?;
            conformance::run(&workspace_root()?)
        }
        "bench" => bench::run(&workspace_root()?, rest),
        "fuzz" => fuzz::run(&workspace_root()?, rest),
        other => Err(Error::Usage(format!("unknown command `{other}`"))),
    }
}

fn no_more_args(command: &str, rest: &[String]) -> Result<(), Error> {
    match rest.first() {
        None => Ok(()),
        Some(extra) => Err(Error::Usage(format!(
            "`{command}` takes no arguments, got `{extra}`"
        ))),
    }
}

/// The workspace root: the parent of this crate's manifest directory.
fn workspace_root() -> Result<PathBuf, Error> {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest_dir
        .parent()
        .map(Path::to_path_buf)
        .ok_or_else(|| Error::Setup(format!("{} has no parent", manifest_dir.display())))
}

/// The cargo binary to invoke: the one that runs us when started through cargo.
fn cargo() -> std::ffi::OsString {
    std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into())
}

#[cfg(test)]
mod tests {
    use super::USAGE;

    /// The manifest's description (what `cargo metadata` and `cargo xtask`'s package show)
    /// names every command `cargo xtask help` lists.
    #[test]
    fn the_package_description_names_every_command() {
        let description: Vec<&str> = env!("CARGO_PKG_DESCRIPTION")
            .split(|c: char| !c.is_ascii_alphanumeric() && c != '-')
            .collect();
        let commands: Vec<&str> = USAGE
            .lines()
            .skip_while(|line| *line != "Commands:")
            .filter(|line| line.starts_with("  ") && !line.starts_with("   "))
            .filter_map(|line| line.split_whitespace().next())
            .filter(|command| *command != "help")
            .collect();
        assert!(commands.contains(&"ci"), "{commands:?}");
        for command in commands {
            assert!(
                description.contains(&command),
                "`{command}` is not in the description {:?}",
                env!("CARGO_PKG_DESCRIPTION")
            );
        }
    }
}
