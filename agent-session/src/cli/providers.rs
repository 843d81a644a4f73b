//! `agent-session providers [--all]`: every tool whose config files discovery reads, in
//! priority order, the files each looked for here (which exist) and how many servers each file
//! gave; the tools none of whose files exist here are one line at the end, unless `--all`
//! lists their files too. Starts nothing and connects nothing; the answer to "why is my server
//! from tool X missing?".

use std::fmt::Write as _;

use agent_session::SessionOptions;
use agent_session::commands::Interface;
use agent_session::render::plural;
use agent_session::terminal_text::escape_line;
use mcp_config::providers::{ProviderReport, provider_report};
use serde_json::json;

use super::args::Globals;
use super::failure::Kind;
use super::manage::options;
use super::outcome::Outcome;

/// Runs `providers` from the command line and prints its answer.
pub(crate) fn run(globals: &Globals, all: bool) -> u8 {
    match options(globals) {
        Ok(options) => report(&options, all, Interface::Cli).emit(globals.json),
        Err(message) => Outcome::usage(Kind::Usage, message).emit(globals.json),
    }
}

/// The report for the folder and the providers of `options` (the shell's own, in a session);
/// with `all`, the files of the tools that have none here too. The JSON is always whole.
pub(crate) fn report(options: &SessionOptions, all: bool, interface: Interface) -> Outcome {
    let ctx = match options.load.discovery_context(&options.cwd) {
        Ok(ctx) => ctx,
        Err(error) => return Outcome::failed(Kind::Command, error.to_string()),
    };
    let reports = provider_report(&ctx, &options.load.discovery);
    Outcome::ok(
        text(&reports, all, interface),
        json!({ "providers": reports }),
    )
}

/// One block per provider: `Cursor (cursor): 2 of 2 files found, 3 servers`, then a line per
/// file, `found` or `missing`, with its servers or its error. Without `all`, the providers
/// with no file here are named on one line at the end instead.
fn text(reports: &[ProviderReport], all: bool, interface: Interface) -> String {
    let mut text = String::new();
    let mut none_here = Vec::new();
    for report in reports {
        if !all && report.enabled && report.files.iter().all(|file| !file.exists) {
            none_here.push(report.name.as_str());
            continue;
        }
        let heading = format!("{} ({})", report.name, report.id);
        if !report.enabled {
            let _ = writeln!(text, "{}: skipped by the options", escape_line(&heading));
            continue;
        }
        let found = report.files.iter().filter(|file| file.exists).count();
        let servers: usize = report.files.iter().map(|file| file.servers).sum();
        let files = report.files.len();
        let _ = writeln!(
            text,
            "{}: {found} of {files} file{} found, {servers} server{}",
            escape_line(&heading),
            plural(files),
            plural(servers),
        );
        for file in &report.files {
            let path = file.path.display();
            let line = match (&file.error, file.exists, file.level) {
                (Some(error), _, _) => format!("  found   {path}: {error}"),
                (None, true, Some(level)) => format!(
                    "  found   {path}: {} server{} ({level})",
                    file.servers,
                    plural(file.servers)
                ),
                (None, true, None) => format!("  found   {path}: read for its settings"),
                (None, false, _) => format!("  missing {path}"),
            };
            let _ = writeln!(text, "{}", escape_line(&line));
        }
    }
    if !none_here.is_empty() {
        let _ = writeln!(
            text,
            "{}",
            escape_line(&format!(
                "no file here of: {} ({} lists the files looked for)",
                none_here.join(", "),
                interface.command("providers --all")
            ))
        );
    }
    text.trim_end().to_owned()
}
