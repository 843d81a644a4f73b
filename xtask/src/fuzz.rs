//! `cargo xtask fuzz [--time S] [--target NAME]… [--seed N] [--list]`: the fuzz targets of the
//! `mcp-fuzz` crate, on the stable toolchain.
//!
//! Each parser that reads outside input (the stdio line reader, JSON-RPC messages and content
//! blocks, the SSE decoder, every config provider, `${VAR}` expansion, tool naming, the cache
//! entry decoder) is run on generated inputs for its share of the budget: `--time` is the whole
//! run's, in seconds (default 60), split evenly among the targets run. The seed comes from the
//! clock unless `--seed` gives one; a failure prints its minimal input and the command that
//! replays it. The crate is built unoptimized, with overflow checks and debug assertions on:
//! they turn silent wrong answers into failures.

use std::path::Path;
use std::process::Command;

use crate::command;
use crate::error::Error;

/// The budget of the fuzz step of `cargo xtask ci`, in seconds: a few seconds per target, a
/// smoke run beside the long runs developers do with `cargo xtask fuzz`.
pub(crate) const CI_SECONDS: &str = "20";

/// Flags `mcp-fuzz` takes with a value, and without.
const WITH_VALUE: &[&str] = &["--time", "--target", "--seed"];
const WITHOUT_VALUE: &[&str] = &["--list"];

/// Runs `mcp-fuzz` from the workspace root with `args` (checked here, so that a mistyped flag is
/// a usage error of xtask).
pub(crate) fn run(root: &Path, args: &[String]) -> Result<(), Error> {
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        if WITH_VALUE.contains(&arg.as_str()) {
            if rest.next().is_none() {
                return Err(Error::Usage(format!("`fuzz {arg}` needs a value")));
            }
        } else if !WITHOUT_VALUE.contains(&arg.as_str()) {
            return Err(Error::Usage(format!(
                "`fuzz` accepts --time SECONDS, --target NAME, --seed N and --list, got `{arg}`"
            )));
        }
    }
    command::run(
        Command::new(crate::cargo())
            .current_dir(root)
            .args(["run", "--quiet", "-p", "mcp-fuzz", "--"])
            .args(args),
    )
}
