//! Text for people, shared by the `/mcp` commands and the CLI: aligned tables, sources,
//! problems, messages on one line. Table cells and one-line messages hold names and text that
//! servers and config files wrote, so they are escaped as one line each
//! ([`escape_line`]): a cell cannot break its row or move the cursor.

use mcp_bridge::naming;
use mcp_config::SourceMeta;
use mcp_manager::{ManagedTool, Problem};
use serde_json::{Value, json};

use crate::terminal_text::escape_line;

/// How a column's cells line up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Align {
    /// Padded on the right (text).
    Left,
    /// Padded on the left (numbers).
    Right,
}

/// Columns padded to their widest cell, two spaces apart, a header row first; the last column
/// is not padded and no line ends in spaces. Each cell is shown on one line, escaped.
pub fn table(columns: &[(&str, Align)], rows: &[Vec<String>]) -> String {
    let rows: Vec<Vec<String>> = rows
        .iter()
        .map(|row| {
            row.iter()
                .map(|cell| escape_line(cell).into_owned())
                .collect()
        })
        .collect();
    let mut widths: Vec<usize> = columns
        .iter()
        .map(|(header, _)| header.chars().count())
        .collect();
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let header: Vec<String> = columns
        .iter()
        .map(|(header, _)| (*header).to_owned())
        .collect();
    std::iter::once(&header)
        .chain(&rows)
        .map(|row| {
            let last = row.len().saturating_sub(1);
            let cells: Vec<String> = row
                .iter()
                .enumerate()
                .map(|(index, cell)| {
                    let pad = " ".repeat(widths[index].saturating_sub(cell.chars().count()));
                    match columns.get(index).map(|(_, align)| *align) {
                        _ if index == last => cell.clone(),
                        Some(Align::Right) => format!("{pad}{cell}"),
                        _ => format!("{cell}{pad}"),
                    }
                })
                .collect();
            cells.join("  ").trim_end().to_owned()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `Claude Code (project) /work/app/.mcp.json`.
pub fn describe_source(meta: &SourceMeta) -> String {
    format!(
        "{} ({}) {}",
        meta.provider_name,
        meta.level,
        meta.path.display()
    )
}

/// `{"provider", "provider_name", "path", "level"}`.
pub fn source_json(meta: &SourceMeta) -> Value {
    json!({
        "provider": meta.provider,
        "provider_name": meta.provider_name,
        "path": meta.path.display().to_string(),
        "level": meta.level.as_str(),
    })
}

/// `{"path", "server", "error"}`: the file the problem points at (a broken file, the server's
/// config file, `.mcp.json` for a failed discovery), the server it is about, the message.
pub fn problem_json(problem: &Problem) -> Value {
    json!({
        "path": problem.path().map(|path| path.display().to_string()),
        "server": problem.server(),
        "error": problem.to_string(),
    })
}

/// A message (a server's stderr tail, say) on one line: its lines joined with ` | `, and what
/// else would drive a terminal escaped.
pub fn one_line(text: &str) -> String {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect();
    escape_line(&lines.join(" | ")).into_owned()
}

/// `""` for one, `"s"` for any other count.
pub fn plural(count: usize) -> &'static str {
    if count == 1 { "" } else { "s" }
}

/// One line per pair of servers whose tools met on the same names: which one took names with a
/// hash, and which kept the plain ones (the user's own server before a project folder's).
pub fn collision_notes(tools: &[ManagedTool]) -> Vec<String> {
    let owner_of = |name: &str| {
        tools
            .iter()
            .find(|managed| managed.tool.name() == name)
            .map(|managed| managed.server.as_str())
    };
    let mut pairs: Vec<(&str, &str, &str)> = Vec::new();
    for managed in tools {
        let plain = naming::tool_name(&managed.server, &managed.original_name);
        if managed.tool.name() == plain {
            continue;
        }
        let Some(keeper) = owner_of(&plain).filter(|keeper| *keeper != managed.server) else {
            continue;
        };
        if !pairs
            .iter()
            .any(|(renamed, kept, _)| *renamed == managed.server && *kept == keeper)
        {
            pairs.push((managed.server.as_str(), keeper, managed.tool.name()));
        }
    }
    pairs
        .into_iter()
        .map(|(renamed, kept, example)| {
            format!(
                "note: the tools of \"{renamed}\" have the same names as those of \"{kept}\", \
                 which keeps them; \"{renamed}\"'s end in a hash (e.g. {example})"
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_aligned() {
        let text = table(
            &[("A", Align::Left), ("N", Align::Right), ("C", Align::Left)],
            &[
                vec!["long".to_owned(), "7".to_owned(), "end".to_owned()],
                vec!["s".to_owned(), "123".to_owned(), String::new()],
            ],
        );
        assert_eq!(text, "A       N  C\nlong    7  end\ns     123");
    }

    #[test]
    fn multi_line_messages_become_one_line() {
        assert_eq!(one_line("a\n\n  b \nc"), "a | b | c");
        assert_eq!(one_line("a\rb\u{1b}[2K"), "a\\u{d}b\\u{1b}[2K");
    }

    #[test]
    fn a_cell_cannot_break_its_row() {
        let text = table(
            &[("A", Align::Left), ("B", Align::Left)],
            &[vec!["x\u{1b}[1A\r".to_owned(), "y\nz".to_owned()]],
        );
        assert_eq!(text, "A                B\nx\\u{1b}[1A\\u{d}  y\\u{a}z");
    }
}
