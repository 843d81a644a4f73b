//! What the commands print: the `tools` report (JSON and a table), tool results,
//! and writing to stdout without panicking on a closed pipe. Everything printed on stdout goes
//! through [`print`] or [`print_json`], so through [`terminal_text`]: nothing a server or a
//! config file wrote reaches the terminal raw.

use std::io::Write;

use agent_session::commands::Interface;
use agent_session::render::{Column, collision_notes, source_json, table, terminal_width};
use agent_session::terminal_text;
use mcp_bridge::ToolOutput;
use mcp_manager::ManagedTool;
use serde_json::{Value, json};

/// Writes `text` (its lines kept, every control character shown escaped) and a newline to
/// stdout.
pub(crate) fn print(text: &str) {
    write_line(&terminal_text::escape(text));
}

/// Writes a JSON value to stdout, pretty or on one line: exact strings, written so that none
/// drives a terminal.
pub(crate) fn print_json(value: &Value, one_line: bool) {
    write_line(&terminal_text::json(value, !one_line));
}

/// Writes a line to stdout; a closed pipe is not an error worth a panic.
fn write_line(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{text}");
    let _ = stdout.flush();
}

/// `{"tools": [...]}`: each tool with where it comes from — `path`
/// (`mcp:<server> via <provider>`) and `source` (`{"provider", "provider_name", "path",
/// "level"}` of its server's definition, null when unknown).
pub(crate) fn tools_json(tools: &[ManagedTool]) -> Value {
    json!({
        "tools": tools.iter().map(|managed| json!({
            "name": managed.tool.name(),
            "server": managed.server,
            "tool": managed.original_name,
            "description": managed.tool.description(),
            "deferred": managed.deferred,
            "path": managed.path(),
            "source": managed.source.as_deref().map(source_json),
            "input_schema": managed.tool.parameters(),
        })).collect::<Vec<_>>(),
    })
}

/// The tools as an aligned table; for none, why to look (`configured`: whether any server is
/// defined at all).
pub(crate) fn tools_text(tools: &[ManagedTool], configured: bool, interface: Interface) -> String {
    if tools.is_empty() && !configured {
        return format!(
            "No MCP tools: no MCP servers are configured ({} adds one).",
            interface.bare("add")
        );
    }
    if tools.is_empty() {
        return format!(
            "No MCP tools. Run {} to see the servers and their errors.",
            interface.command("list")
        );
    }
    // On a terminal the model-facing NAME (`mcp_<server>_<tool>`, SERVER and TOOL again) is
    // left out so the rows fit; a pipe gets every column, nothing cut.
    let on_terminal = terminal_width().is_some();
    let mut columns = Vec::new();
    if !on_terminal {
        columns.push(Column::left("NAME"));
    }
    columns.extend([
        Column::left("SERVER"),
        Column::left("TOOL"),
        Column::left("STATE"),
        Column::left("DESCRIPTION").shrinking(),
    ]);
    let rows: Vec<Vec<String>> = tools
        .iter()
        .map(|managed| {
            let mut row = Vec::new();
            if !on_terminal {
                row.push(managed.tool.name().to_owned());
            }
            row.extend([
                managed.server.clone(),
                managed.original_name.clone(),
                if managed.deferred { "deferred" } else { "live" }.to_owned(),
                first_line(managed.tool.description()),
            ]);
            row
        })
        .collect();
    let mut text = table(&columns, &rows);
    for note in collision_notes(tools) {
        text.push('\n');
        text.push_str(&note);
    }
    text
}

/// `{"is_error", "content", "structured_content"}` of a tool result.
pub(crate) fn call_json(output: &ToolOutput) -> Value {
    let structured = output
        .details
        .get("structuredContent")
        .cloned()
        .unwrap_or(Value::Null);
    json!({
        "is_error": output.is_error,
        "content": output.content,
        "structured_content": structured,
    })
}

/// The first line of `text`, cut to `max` characters.
/// The first line of `text`, whole: a table on a terminal cuts it to the width, a pipe keeps
/// it all.
pub(crate) fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or_default().trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_description_is_its_first_line_whole() {
        let long = "a".repeat(300);
        assert_eq!(first_line(&format!("  {long}  \nsecond")), long);
        assert_eq!(first_line(""), "");
    }
}
