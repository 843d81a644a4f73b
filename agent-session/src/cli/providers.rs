//! `agent-session providers`: every tool whose config files discovery reads, in priority
//! order, the files each looked for here (which exist) and how many servers each file gave.
//! Starts nothing and connects nothing; the answer to "why is my server from tool X missing?".

use std::fmt::Write as _;

use agent_session::SessionOptions;
use agent_session::render::plural;
use agent_session::terminal_text::escape_line;
use mcp_config::{ProviderReport, provider_report};
use serde_json::json;

use super::args::Globals;
use super::failure::Kind;
use super::manage::options;
use super::outcome::Outcome;

/// Runs `providers` from the command line and prints its answer.
pub(crate) fn run(globals: &Globals) -> u8 {
    match options(globals) {
        Ok(options) => report(&options).emit(globals.json),
        Err(message) => Outcome::usage(Kind::Usage, message).emit(globals.json),
    }
}

/// The report for the folder and the providers of `options` (the shell's own, in a session).
pub(crate) fn report(options: &SessionOptions) -> Outcome {
    let ctx = match options.load.discovery_context(&options.cwd) {
        Ok(ctx) => ctx,
        Err(error) => return Outcome::failed(Kind::Command, error.to_string()),
    };
    let reports = provider_report(&ctx, &options.load.discovery);
    Outcome::ok(text(&reports), json!({ "providers": reports }))
}

/// One block per provider: `Cursor (cursor): 2 of 2 files found, 3 servers`, then a line per
/// file, `found` or `missing`, with its servers or its error.
fn text(reports: &[ProviderReport]) -> String {
    let mut text = String::new();
    for report in reports {
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
    text.trim_end().to_owned()
}
