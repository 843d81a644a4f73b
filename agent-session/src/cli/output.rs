//! What the commands print: the `tools` report (JSON and a table), tool results,
//! and writing to stdout without panicking on a closed pipe.

use std::io::Write;

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
        &["NAME", "SERVER", "TOOL", "STATE", "DESCRIPTION"],
        tools
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
            .collect(),
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

/// Columns padded to their widest cell, two spaces apart; the last column is not padded.
pub(crate) fn table(headers: &[&str], rows: Vec<Vec<String>>) -> String {
    let mut widths: Vec<usize> = headers
        .iter()
        .map(|header| header.chars().count())
        .collect();
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let header_row: Vec<String> = headers.iter().map(|header| (*header).to_owned()).collect();
    std::iter::once(header_row)
        .chain(rows)
        .map(|row| {
            let last = row.len().saturating_sub(1);
            row.iter()
                .enumerate()
                .map(|(index, cell)| {
                    if index == last {
                        cell.clone()
                    } else {
                        let pad = widths[index].saturating_sub(cell.chars().count());
                        format!("{cell}{}", " ".repeat(pad))
                    }
                })
                .collect::<Vec<_>>()
                .join("  ")
                .trim_end()
                .to_owned()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_aligned() {
        let text = table(
            &["A", "BB", "C"],
            vec![
                vec!["long".to_owned(), "x".to_owned(), "end".to_owned()],
                vec!["s".to_owned(), "yyy".to_owned(), String::new()],
            ],
        );
        assert_eq!(text, "A     BB   C\nlong  x    end\ns     yyy");
    }

    #[test]
    fn long_descriptions_are_cut() {
        assert_eq!(first_line("abcdef\nsecond", 4), "abc…");
        assert_eq!(first_line("abc", 4), "abc");
    }
}
