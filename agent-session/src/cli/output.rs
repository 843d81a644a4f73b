//! What the commands print: the `tools` report (JSON and a table), tool results,
//! and writing to stdout without panicking on a closed pipe.

use std::io::Write;

use agent_session::render::{Align, table};
use mcp_bridge::ToolOutput;
use mcp_manager::ManagedTool;
use serde_json::{Value, json};

/// Writes `text` and a newline to stdout; a closed pipe is not an error worth a panic.
pub(crate) fn print(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{text}");
    let _ = stdout.flush();
}

/// Writes a JSON value to stdout: pretty, or on one line.
pub(crate) fn print_json(value: &Value, one_line: bool) {
    let text = if one_line {
        serde_json::to_string(value)
    } else {
        serde_json::to_string_pretty(value)
    };
    print(&text.unwrap_or_else(|error| json!({"error": error.to_string()}).to_string()));
}

/// `{"tools": [...]}`.
pub(crate) fn tools_json(tools: &[ManagedTool]) -> Value {
    json!({
        "tools": tools.iter().map(|managed| json!({
            "name": managed.tool.name(),
            "server": managed.server,
            "tool": managed.original_name,
            "description": managed.tool.description(),
            "deferred": managed.deferred,
            "input_schema": managed.tool.parameters(),
        })).collect::<Vec<_>>(),
    })
}

/// The tools as an aligned table.
pub(crate) fn tools_text(tools: &[ManagedTool]) -> String {
    if tools.is_empty() {
        return "No MCP tools. Run `agent-session list` to see the servers and their errors."
            .to_owned();
    }
    table(
        &[
            ("NAME", Align::Left),
            ("SERVER", Align::Left),
            ("TOOL", Align::Left),
            ("STATE", Align::Left),
            ("DESCRIPTION", Align::Left),
        ],
        &tools
            .iter()
            .map(|managed| {
                vec![
                    managed.tool.name().to_owned(),
                    managed.server.clone(),
                    managed.original_name.clone(),
                    if managed.deferred { "deferred" } else { "live" }.to_owned(),
                    first_line(managed.tool.description(), 70),
                ]
            })
            .collect::<Vec<_>>(),
    )
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
fn first_line(text: &str, max: usize) -> String {
    let line = text.lines().next().unwrap_or_default().trim();
    if line.chars().count() <= max {
        return line.to_owned();
    }
    let cut: String = line.chars().take(max.saturating_sub(1)).collect();
    format!("{cut}…")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_descriptions_are_cut() {
        assert_eq!(first_line("abcdef\nsecond", 4), "abc…");
        assert_eq!(first_line("abc", 4), "abc");
    }
}
