//! Target `terminal_text`: text for a terminal, `agent_session::terminal_text` (`escape` for
//! multi-line text, `escape_line` for one line, `json` for `--json`) and the tables of
//! `agent_session::render` built on it.
//!
//! Everything the CLI prints for people — tool names, descriptions, results, server names,
//! error messages — goes through these functions, and all of it may come from a server or a
//! project file. Inputs are arbitrary strings, and strings made of pieces that drive terminals
//! (CSI and OSC sequences, BEL, `\r`, backspace, DEL, 8-bit C1 controls, bidi overrides and
//! isolates, zero-width characters, line separators) mixed with plain ASCII, non-ASCII text,
//! backslashes and already escaped text. The property, checked against a list of what drives a
//! terminal written here independently of the module (every `char::is_control` character,
//! plus the bidi, zero-width and separator characters):
//!
//! - `escape_line`'s output has none of them; `escape`'s has none but `\n` and `\t`;
//! - text that had none comes back unchanged; escaping escaped text changes nothing;
//! - `json` of the text as a JSON string reads back as the exact text, and its characters are
//!   all inert (the pretty form may add the layout's newlines);
//! - a table of such cells has exactly one line per row plus the header;
//! - escaping holds at most `16 × input + 1 KiB` at once, and never panics.

use agent_session::render::{Column, table_within};
use agent_session::terminal_text::{escape, escape_line, json};
use proptest::prelude::*;
use proptest::sample::select;
use serde_json::Value;

use crate::runner::{Report, Settings, fuzz};

/// Pieces of hostile and ordinary text.
const PIECES: &[&str] = &[
    "\u{1b}[2J",
    "\u{1b}[1A",
    "\u{1b}[2K",
    "\u{1b}[8m",
    "\u{1b}]0;title\u{7}",
    "\u{1b}]8;;http://x\u{1b}\\",
    "\u{1b}",
    "\r",
    "\n",
    "\r\n",
    "\t",
    "\u{8}",
    "\u{0}",
    "\u{7f}",
    "\u{85}",
    "\u{9b}31m",
    "\u{9d}0;t\u{9c}",
    "\u{202e}",
    "\u{202a}",
    "\u{2066}",
    "\u{2069}",
    "\u{200e}",
    "\u{61c}",
    "\u{200b}",
    "\u{200d}",
    "\u{2060}",
    "\u{feff}",
    "\u{2028}",
    "\u{2029}",
    "\\",
    "\\u{1b}",
    "{",
    "}",
    "a",
    "tool_name",
    " ",
    "é",
    "工具",
    "🚀",
    "\u{301}",
];

/// Runs the target.
pub fn run(settings: &Settings) -> Report {
    fuzz("terminal_text", settings, input(), |cells| check(cells))
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::collection::vec(select(PIECES), 0..24).prop_map(|pieces| pieces.concat()),
        1 => any::<String>(),
        1 => prop::collection::vec(any::<u8>(), 0..64)
            .prop_map(|bytes| String::from_utf8_lossy(&bytes).into_owned()),
    ]
}

fn input() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(text(), 1..6)
}

/// Whether `c` would drive a terminal (or hide, reorder or break text) if written raw.
fn drives_a_terminal(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{61c}'
                | '\u{200b}'..='\u{200f}'
                | '\u{2028}'..='\u{202e}'
                | '\u{2060}'..='\u{2064}'
                | '\u{2066}'..='\u{2069}'
                | '\u{feff}'
        )
}

fn check(cells: &[String]) -> Result<(), String> {
    for text in cells {
        check_text(text)?;
    }
    // A table of these cells in two columns: one line per row, plus the header.
    let rows: Vec<Vec<String>> = cells.chunks(2).map(|pair| pair.to_vec()).collect();
    // No width: the same table whatever the fuzzer's stdout is.
    let shown = table_within(&[Column::left("A"), Column::right("B")], &rows, None);
    let lines = shown.split('\n').count();
    if lines != rows.len() + 1 {
        return Err(format!(
            "a table of {} rows has {lines} lines: {shown:?}",
            rows.len()
        ));
    }
    if let Some(c) = shown.chars().find(|c| *c != '\n' && drives_a_terminal(*c)) {
        return Err(format!("a table holds {c:?}: {shown:?}"));
    }
    Ok(())
}

fn check_text(text: &str) -> Result<(), String> {
    let ((line, multi), peak) =
        crate::alloc_meter::peak_during(|| (escape_line(text), escape(text)));
    let bound = 16 * text.len() + 1024;
    if peak > bound {
        return Err(format!(
            "escaping {} bytes held {peak} bytes at once, over {bound}",
            text.len()
        ));
    }
    if let Some(c) = line.chars().find(|c| drives_a_terminal(*c)) {
        return Err(format!("escape_line left {c:?}: {line:?}"));
    }
    if let Some(c) = multi
        .chars()
        .find(|c| *c != '\n' && *c != '\t' && drives_a_terminal(*c))
    {
        return Err(format!("escape left {c:?}: {multi:?}"));
    }
    let inert = !text.chars().any(drives_a_terminal);
    if inert && (line != text || multi != text) {
        return Err(format!(
            "inert text was changed: {line:?} (one line), {multi:?}"
        ));
    }
    if !inert && line == text {
        return Err("escape_line left the text as it was".to_owned());
    }
    if escape_line(&line) != line || escape(&multi) != multi {
        return Err(format!("escaping twice changed {line:?} or {multi:?}"));
    }
    let value = Value::String(text.to_owned());
    for pretty in [false, true] {
        let written = json(&value, pretty);
        if let Some(c) = written.chars().find(|c| drives_a_terminal(*c)) {
            return Err(format!("json left {c:?}: {written:?}"));
        }
        match serde_json::from_str::<Value>(&written) {
            Ok(back) if back == value => {}
            Ok(back) => return Err(format!("json read back as {back:?}: {written:?}")),
            Err(error) => return Err(format!("json does not parse ({error}): {written:?}")),
        }
    }
    Ok(())
}
