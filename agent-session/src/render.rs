//! Text for people, shared by the `/mcp` commands and the CLI: aligned tables, sources,
//! problems, messages on one line. Table cells and one-line messages hold names and text that
//! servers and config files wrote, so they are escaped as one line each
//! ([`escape_line`]): a cell cannot break its row or move the cursor. On a terminal a table fits
//! its width: the columns of free text (a source path, a description) are cut with `…`, never a
//! name or a status.

use std::io::IsTerminal;

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

/// Where a column's cells may be cut, with `…`, so that a table fits the terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Cut {
    /// Never: names, states, numbers.
    Never,
    /// At the end: free text, a description.
    End,
    /// In the middle, keeping both ends: a source, whose file name is at the end.
    Middle,
}

/// A column of a [`table`]: its header, how its cells line up, and where its cells may be cut
/// so that the table fits the terminal. Names and states are never cut; long free text (a
/// source path, a description) is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Column {
    /// The header, shown whole.
    pub header: &'static str,
    /// How the cells line up.
    pub align: Align,
    /// Where cells may be cut to fit the terminal.
    pub cut: Cut,
}

impl Column {
    /// A column of text, padded on the right, never cut.
    pub const fn left(header: &'static str) -> Self {
        Self {
            header,
            align: Align::Left,
            cut: Cut::Never,
        }
    }

    /// A column of numbers, padded on the left, never cut.
    pub const fn right(header: &'static str) -> Self {
        Self {
            header,
            align: Align::Right,
            cut: Cut::Never,
        }
    }

    /// The same column, its cells cut at the end with `…` when the table is wider than the
    /// terminal.
    #[must_use]
    pub const fn shrinking(self) -> Self {
        Self {
            cut: Cut::End,
            ..self
        }
    }

    /// The same column, its cells cut in the middle with `…` when the table is wider than the
    /// terminal, so both ends show (`Claude Code (pr…ect/.mcp.json`).
    #[must_use]
    pub const fn shrinking_in_the_middle(self) -> Self {
        Self {
            cut: Cut::Middle,
            ..self
        }
    }
}

/// The width tables are fitted to: `None` (no limit) unless stdout is a terminal; then the
/// `COLUMNS` environment variable when it holds a positive number (as `ls` and other tools
/// read it), else the terminal's own width.
pub fn terminal_width() -> Option<usize> {
    let stdout = std::io::stdout();
    if !stdout.is_terminal() {
        return None;
    }
    let from_env = std::env::var("COLUMNS")
        .ok()
        .and_then(|columns| columns.trim().parse::<usize>().ok())
        .filter(|columns| *columns > 0);
    from_env.or_else(|| {
        rustix::termios::tcgetwinsize(&stdout)
            .ok()
            .map(|size| usize::from(size.ws_col))
            .filter(|columns| *columns > 0)
    })
}

/// Columns padded to their widest cell, two spaces apart, a header row first; the last column
/// is not padded and no line ends in spaces. Each cell is shown on one line, escaped. On a
/// terminal ([`terminal_width`]) the table fits its width: see [`table_within`].
pub fn table(columns: &[Column], rows: &[Vec<String>]) -> String {
    table_within(columns, rows, terminal_width())
}

/// [`table`] fitted to `width` characters: when a row would be wider, the columns that may be
/// [cut](Cut) are narrowed, the widest first and never below their header, and their longer
/// cells cut with `…`. The other columns are never cut, so a table can
/// stay wider than `width` when they alone are. `None` fits nothing (a pipe, a file).
pub fn table_within(columns: &[Column], rows: &[Vec<String>], width: Option<usize>) -> String {
    let mut rows: Vec<Vec<String>> = rows
        .iter()
        .map(|row| {
            row.iter()
                .map(|cell| escape_line(cell).into_owned())
                .collect()
        })
        .collect();
    let mut widths: Vec<usize> = columns
        .iter()
        .map(|column| column.header.chars().count())
        .collect();
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    if let Some(budget) = width {
        narrow(columns, &mut widths, budget);
        for row in &mut rows {
            for ((cell, width), column) in row.iter_mut().zip(&widths).zip(columns) {
                cut(cell, *width, column.cut);
            }
        }
    }
    let header: Vec<String> = columns
        .iter()
        .map(|column| column.header.to_owned())
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
                    match columns.get(index).map(|column| column.align) {
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

/// Narrows the columns that may be cut, one character at a time from the widest, until the widest
/// row fits `budget` or none can narrow further (each keeps at least its header's width).
fn narrow(columns: &[Column], widths: &mut [usize], budget: usize) {
    let gaps = 2 * widths.len().saturating_sub(1);
    let mut excess = (widths.iter().sum::<usize>() + gaps).saturating_sub(budget);
    while excess > 0 {
        let narrowest = |index: usize| {
            columns
                .get(index)
                .map_or(usize::MAX, |column| column.header.chars().count().max(1))
        };
        let widest = (0..widths.len())
            .filter(|&index| {
                columns
                    .get(index)
                    .is_some_and(|column| column.cut != Cut::Never)
            })
            .filter(|&index| widths[index] > narrowest(index))
            .max_by_key(|&index| widths[index]);
        let Some(index) = widest else {
            return;
        };
        widths[index] -= 1;
        excess -= 1;
    }
}

/// Cuts `cell` to `width` characters, one of them `…`, when it is longer and `how` allows.
fn cut(cell: &mut String, width: usize, how: Cut) {
    let count = cell.chars().count();
    if count <= width {
        return;
    }
    let kept = width.saturating_sub(1);
    let (head, tail) = match how {
        Cut::Never => return,
        Cut::End => (kept, 0),
        // The end (a file name) gets the extra character of an odd count.
        Cut::Middle => (kept / 2, kept - kept / 2),
    };
    let start: String = cell.chars().take(head).collect();
    let end: String = cell.chars().skip(count - tail).collect();
    *cell = format!("{start}…{end}");
}

/// `Claude Code (project) /work/app/.mcp.json`; a file other tools read too counts them, short
/// enough for a table column: `Claude Code +3 (project) /work/app/.mcp.json` (their names are
/// [`also_used_by`]).
pub fn describe_source(meta: &SourceMeta) -> String {
    let others = match meta.also_used_by.len() {
        0 => String::new(),
        count => format!(" +{count}"),
    };
    format!(
        "{}{others} ({}) {}",
        meta.provider_name,
        meta.level,
        meta.path.display()
    )
}

/// The other tools that read a definition's file, by name: `VS Code, Copilot CLI, Qwen Code`;
/// `None` when no other tool does.
pub fn also_used_by(meta: &SourceMeta) -> Option<String> {
    let names: Vec<&str> = meta
        .also_used_by
        .iter()
        .map(|tool| tool.name.as_str())
        .collect();
    (!names.is_empty()).then(|| names.join(", "))
}

/// `{"provider", "provider_name", "path", "level", "also_used_by"}` (the ids of the other
/// tools that read the same file, when there are any).
pub fn source_json(meta: &SourceMeta) -> Value {
    let mut json = json!({
        "provider": meta.provider,
        "provider_name": meta.provider_name,
        "path": meta.path.display().to_string(),
        "level": meta.level.as_str(),
    });
    if !meta.also_used_by.is_empty() {
        json["also_used_by"] = meta
            .also_used_by
            .iter()
            .map(|tool| tool.id.clone())
            .collect();
    }
    json
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
            &[Column::left("A"), Column::right("N"), Column::left("C")],
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
            &[Column::left("A"), Column::left("B")],
            &[vec!["x\u{1b}[1A\r".to_owned(), "y\nz".to_owned()]],
        );
        assert_eq!(text, "A                B\nx\\u{1b}[1A\\u{d}  y\\u{a}z");
    }

    fn strings(cells: &[&str]) -> Vec<String> {
        cells.iter().map(|cell| (*cell).to_owned()).collect()
    }

    fn longest_line(text: &str) -> usize {
        text.lines()
            .map(|line| line.chars().count())
            .max()
            .unwrap_or_default()
    }

    #[test]
    fn a_wide_table_cuts_its_shrinking_column_to_the_width_and_keeps_names_whole() {
        let columns = [
            Column::left("NAME"),
            Column::left("STATUS"),
            Column::left("SOURCE").shrinking(),
        ];
        let rows = [
            strings(&[
                "a-long-server-name",
                "connected",
                "/a/very/long/path/.mcp.json",
            ]),
            strings(&["b", "failed", "/short"]),
        ];
        let text = table_within(&columns, &rows, Some(40));
        assert_eq!(
            text,
            "NAME                STATUS     SOURCE\n\
             a-long-server-name  connected  /a/very/…\n\
             b                   failed     /short"
        );
        assert_eq!(longest_line(&text), 40);
    }

    #[test]
    fn a_table_that_fits_or_has_no_width_is_not_cut() {
        let columns = [Column::left("NAME"), Column::left("SOURCE").shrinking()];
        let rows = [strings(&["name", "/a/long/path"])];
        let whole = "NAME  SOURCE\nname  /a/long/path";
        assert_eq!(table_within(&columns, &rows, None), whole);
        assert_eq!(table_within(&columns, &rows, Some(18)), whole);
        assert_eq!(
            table_within(&columns, &rows, Some(17)),
            "NAME  SOURCE\nname  /a/long/pa…"
        );
    }

    #[test]
    fn the_widest_shrinking_column_is_narrowed_first() {
        let columns = [
            Column::left("N"),
            Column::left("PATH").shrinking(),
            Column::right("#"),
            Column::left("TEXT").shrinking(),
        ];
        let rows = [strings(&["n", "0123456789", "7", "abcdefghijklmnopqrst"])];
        // 1 + 10 + 1 + 20 + 6 = 38; at 30 the 20-wide text loses 8 and the path nothing.
        let text = table_within(&columns, &rows, Some(30));
        assert_eq!(
            text,
            "N  PATH        #  TEXT\nn  0123456789  7  abcdefghijk…"
        );
        // At 20 both are narrowed until equal, then in turn: 18 characters to lose.
        let text = table_within(&columns, &rows, Some(20));
        assert_eq!(text, "N  PATH    #  TEXT\nn  01234…  7  abcde…");
        assert_eq!(longest_line(&text), 20);
    }

    #[test]
    fn names_and_headers_stay_whole_when_the_width_is_too_small() {
        let columns = [
            Column::left("NAME"),
            Column::left("STATUS"),
            Column::left("SOURCE").shrinking(),
        ];
        let rows = [strings(&[
            "a-long-server-name",
            "needs-approval",
            "/p/.mcp.json",
        ])];
        let text = table_within(&columns, &rows, Some(10));
        assert_eq!(
            text,
            "NAME                STATUS          SOURCE\n\
             a-long-server-name  needs-approval  /p/.m…"
        );
    }

    #[test]
    fn a_source_is_cut_in_the_middle_so_its_file_name_shows() {
        let columns = [
            Column::left("NAME"),
            Column::left("SOURCE").shrinking_in_the_middle(),
        ];
        let rows = [strings(&[
            "fs",
            "Claude Code (project) /work/app/.mcp.json",
        ])];
        let text = table_within(&columns, &rows, Some(26));
        assert_eq!(text, "NAME  SOURCE\nfs    Claude Co…/.mcp.json");
        assert_eq!(longest_line(&text), 26);
    }

    #[test]
    fn a_cut_cell_stays_escaped() {
        let columns = [Column::left("N"), Column::left("TEXT").shrinking()];
        let rows = [strings(&["n", "ab\u{1b}[2Jcdefgh"])];
        let text = table_within(&columns, &rows, Some(12));
        assert_eq!(text, "N  TEXT\nn  ab\\u{1b}…");
    }
}
