//! `/mcp list`: every server with its status, transport, tool count and source, its error
//! under it, a note for each project file found above the working folder that its tool would
//! not read from here, and the problems about files at the end.

use std::fmt::Write as _;

use mcp_config::{DiscoveryNote, DiscoveryResult, SkipReason, TransportKind};
use mcp_manager::Problem;
use serde_json::{Value, json};

use super::status::{ServerRow, ServerStatus, Servers};
use super::{CommandOutput, Interface};
use crate::render::{Column, collision_notes, describe_source, one_line, table};
use crate::session::AgentSession;
use crate::terminal_text::escape_line;

pub(super) fn list(session: &AgentSession, interface: Interface) -> CommandOutput {
    let servers = Servers::collect(session);
    let mut text = String::new();
    if servers.rows.is_empty() {
        let _ = writeln!(
            text,
            "no MCP servers are configured ({} adds one)",
            interface.bare("add")
        );
    } else {
        let columns = [
            Column::left("NAME"),
            Column::left("STATUS"),
            Column::left("TRANSPORT"),
            Column::right("TOOLS"),
            Column::left("SOURCE").shrinking_in_the_middle(),
        ];
        let cells: Vec<Vec<String>> = servers
            .rows
            .iter()
            .map(|row| {
                vec![
                    row.name.clone(),
                    row.status.as_str().to_owned(),
                    row.transport.map_or("-", TransportKind::as_str).to_owned(),
                    row.tools.to_string(),
                    row.source
                        .as_ref()
                        .map_or_else(|| "-".to_owned(), describe_source),
                ]
            })
            .collect();
        let rendered = table(&columns, &cells);
        let mut lines = rendered.lines();
        if let Some(header) = lines.next() {
            let _ = writeln!(text, "{header}");
        }
        for (row, line) in servers.rows.iter().zip(lines) {
            let _ = writeln!(text, "{line}");
            if let Some(error) = &row.error {
                let _ = writeln!(text, "  error: {}", one_line(&error.to_string()));
            }
            if row.status == ServerStatus::NeedsLogin {
                let hint = interface.login_hint(&row.name);
                let _ = writeln!(text, "  {}", escape_line(&hint));
            }
            // In a session, a server defined since it started (approved, added): not
            // started until a reload.
            if row.status == ServerStatus::Disconnected && interface == Interface::Shell {
                let hint = format!("not started yet: {} starts it", interface.bare("reload"));
                let _ = writeln!(text, "  {hint}");
            }
            if row.status == ServerStatus::NeedsApproval {
                let step = super::trust::approval_step(&row.name, row.consent.as_ref(), interface);
                let hint = format!("a project server: {step}");
                let _ = writeln!(text, "  {}", escape_line(&hint));
            }
        }
    }
    for note in collision_notes(&session.manager().tools()) {
        let _ = writeln!(text, "{}", escape_line(&note));
    }
    let mut notes = discovery_notes(&servers.discovery);
    notes.extend(waiting_replacements(&servers.discovery, interface));
    for (line, _) in &notes {
        let _ = writeln!(text, "note: {}", escape_line(line));
    }
    let file_problems: Vec<&Problem> = servers
        .problems
        .iter()
        .filter(|problem| problem.server().is_none())
        .collect();
    if !file_problems.is_empty() {
        text.push_str("problems:\n");
        for problem in file_problems {
            let _ = writeln!(text, "  {}", one_line(&problem.to_string()));
        }
    }
    let json = json!({
        "servers": servers.rows.iter().map(ServerRow::to_json).collect::<Vec<_>>(),
        "errors": servers.problems_json(),
        "notes": notes.into_iter().map(|(_, json)| json).collect::<Vec<_>>(),
    });
    CommandOutput::ok(text.trim_end(), json)
}

/// A project server waiting for approval under the name of a server in use (the user's own):
/// its row is the one in use, so a note says the project's definition is there, that
/// approving it would replace the one listed, and where to see what it would do.
fn waiting_replacements(discovery: &DiscoveryResult, interface: Interface) -> Vec<(String, Value)> {
    discovery
        .skipped
        .iter()
        .filter(|skipped| {
            skipped.reason == SkipReason::NeedsApproval
                && discovery.servers.contains_key(&skipped.name)
        })
        .map(|skipped| {
            let line = format!(
                "{} also defines \"{}\"; it waits for approval, and approved it would replace \
                 the one listed: {} shows what it would do",
                describe_source(&skipped.source),
                skipped.name,
                interface.command("trust")
            );
            let json = json!({
                "kind": "waiting-replacement",
                "server": skipped.name,
                "path": skipped.source.path.display().to_string(),
                "message": line,
            });
            (line, json)
        })
        .collect()
}

/// What discovery noted, one hint line and one JSON object each: a project file above the
/// working folder that its tool reads only in the folder it starts in, and where to run from
/// to use it; a variable moving a tool's files that was not used, being relative.
fn discovery_notes(discovery: &DiscoveryResult) -> Vec<(String, Value)> {
    discovery
        .notes
        .iter()
        .map(|note| match note {
            DiscoveryNote::ProjectFileAbove(file) => {
                let folder = file.folder.display();
                let line = format!("{file}; run from {folder} or pass --cwd {folder}");
                let json = json!({
                    "kind": "project-file-above",
                    "provider": file.provider,
                    "path": file.path.display().to_string(),
                    "folder": file.folder.display().to_string(),
                    "working_folder": file.working_folder.display().to_string(),
                    "message": line,
                });
                (line, json)
            }
            DiscoveryNote::RelativePathVariable { variable, value } => {
                let line = note.to_string();
                let json = json!({
                    "kind": "relative-path-variable",
                    "variable": variable,
                    "value": value,
                    "message": line,
                });
                (line, json)
            }
            other => {
                let line = other.to_string();
                (line.clone(), json!({"message": line}))
            }
        })
        .collect()
}
