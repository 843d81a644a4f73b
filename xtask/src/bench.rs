//! `cargo xtask bench [--quick]`: the `roundtrip` benchmark of `mcp-transport`, run twice.
//!
//! First with client and server pinned to core 0 (`--pin-core 0`), which measures pure software
//! cost and is stable from run to run; then unpinned, which is what a user's machine does. The
//! benchmark prints its own report; `--quick` is passed through to it.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use crate::command::{self, human};
use crate::error::Error;

/// One run of the benchmark: a title for the log and the arguments after `--`.
struct Run {
    title: &'static str,
    args: &'static [&'static str],
}

const RUNS: [Run; 2] = [
    Run {
        title: "same core (client and server pinned to core 0)",
        args: &["--pin-core", "0"],
    },
    Run {
        title: "unpinned",
        args: &[],
    },
];

/// Runs both benchmark passes from the workspace root, stopping if one fails.
pub(crate) fn run(root: &Path, args: &[String]) -> Result<(), Error> {
    let mut quick = false;
    for arg in args {
        match arg.as_str() {
            "--quick" => quick = true,
            other => {
                return Err(Error::Usage(format!(
                    "`bench` accepts only `--quick`, got `{other}`"
                )));
            }
        }
    }
    for (index, run) in RUNS.iter().enumerate() {
        println!("\n==> bench [{}/{}] {}", index + 1, RUNS.len(), run.title);
        let started = Instant::now();
        let mut bench = Command::new(crate::cargo());
        bench
            .current_dir(root)
            .args(["bench", "-p", "mcp-transport", "--bench", "roundtrip", "--"])
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
