//! Text for a terminal: what a server or a config file wrote, shown so that it cannot drive
//! the terminal.
//!
//! Tool names, descriptions and results, resource and prompt text, server names, paths and
//! error messages are anyone's text. Written raw, an escape sequence in them sets the window
//! title, clears the screen, hides what follows, moves the cursor up to overwrite a line of our
//! own output, and a bidi override shows text in another order than it has. Every human-readable
//! output of this crate goes through this module, which shows such characters visibly as
//! `\u{1b}` (the way Rust writes them) and leaves every other character as it is:
//!
//! | escaped | why |
//! |---|---|
//! | C0 controls (U+0000–U+001F) but `\n` and `\t` in [`escape`] | ESC starts sequences, `\r` and backspace overwrite, BEL rings |
//! | DEL (U+007F) and C1 controls (U+0080–U+009F) | U+009B is CSI and U+009D is OSC on terminals that read 8-bit controls |
//! | bidi marks, embeddings, overrides and isolates (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) | they reorder what is shown |
//! | zero-width and invisible characters (U+200B–U+200D, U+2060–U+2064, U+FEFF) | two names that differ only by them print alike |
//! | line and paragraph separators (U+2028, U+2029) | they break lines where none is expected |
//!
//! [`escape`] is for multi-line text (a tool result, a description), [`escape_line`] for text
//! that must stay on one line (a table cell, a name, a log field). Both are idempotent, and
//! text with none of these characters comes back borrowed and unchanged. A backslash is not
//! escaped: text that already shows `\u{1b}` literally prints the same as an escaped ESC, which
//! drives nothing.
//!
//! [`json`] writes JSON for the same terminal: the strings keep their exact values (a program
//! reading them gets what the server sent), but every one of these characters is written as a
//! JSON `\u` escape, which serde_json does by itself only for C0 controls.
//!
//! What the model gets from a tool call is not touched here: only what is printed for people.

use std::borrow::Cow;
use std::fmt::Write as _;

use serde_json::Value;

/// Whether `c` is shown escaped in text for a terminal (`\n` and `\t` included; [`escape`]
/// keeps those two).
///
/// Narrower than [`mcp_config::hidden_char`], which refuses server names: a name has no use
/// for variation selectors or a soft hyphen, but text shown to people does (an emoji's
/// U+FE0F), so those are left as they are here.
pub fn is_escaped(c: char) -> bool {
    matches!(
        c,
        '\u{0}'..='\u{1f}'
            | '\u{7f}'..='\u{9f}'
            | '\u{61c}'
            | '\u{200b}'..='\u{200f}'
            | '\u{2028}'..='\u{202e}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{2069}'
            | '\u{feff}'
    )
}

/// Multi-line text for a terminal: lines and tabs kept, every other character of
/// [`is_escaped`] shown as `\u{…}`.
pub fn escape(text: &str) -> Cow<'_, str> {
    escape_where(
        text,
        |c| is_escaped(c) && c != '\n' && c != '\t',
        rust_escape,
    )
}

/// One line for a terminal: every character of [`is_escaped`], `\n` and `\t` included, shown
/// as `\u{…}`.
pub fn escape_line(text: &str) -> Cow<'_, str> {
    escape_where(text, is_escaped, rust_escape)
}

/// `text` with each character `escaped` picks written by `show`; borrowed when there is none.
fn escape_where(
    text: &str,
    escaped: impl Fn(char) -> bool,
    show: impl Fn(&mut String, char),
) -> Cow<'_, str> {
    let Some(first) = text.find(&escaped) else {
        return Cow::Borrowed(text);
    };
    let mut shown = String::with_capacity(text.len() + 8);
    shown.push_str(&text[..first]);
    for c in text[first..].chars() {
        if escaped(c) {
            show(&mut shown, c);
        } else {
            shown.push(c);
        }
    }
    Cow::Owned(shown)
}

/// `\u{1b}`, as Rust writes a character.
fn rust_escape(shown: &mut String, c: char) {
    // Writing to a String cannot fail.
    let _ = write!(shown, "\\u{{{:x}}}", u32::from(c));
}

/// `value` as JSON for a terminal (pretty, or on one line): the same value read back, with
/// every character of [`is_escaped`] inside its strings written as a `\u` escape.
pub fn json(value: &Value, pretty: bool) -> String {
    let written = if pretty {
        serde_json::to_string_pretty(value)
    } else {
        serde_json::to_string(value)
    };
    // serde_json escapes C0 controls in strings, and writes none outside them but the pretty
    // layout's newlines; every other character escaped here can only stand inside a string,
    // where a `\u` escape means the same character.
    match written {
        Ok(text) => escape_json_text(&text).into_owned(),
        // Never for a `Value` (every key is a string); if it did, the error is still JSON.
        Err(error) => format!(
            "{{\"error\": {}}}",
            Value::String(escape_line(&error.to_string()).into_owned())
        ),
    }
}

/// JSON text with the characters of [`is_escaped`] but `\n` as `\uXXXX` (all of them are in
/// the basic plane, so one escape each).
fn escape_json_text(text: &str) -> Cow<'_, str> {
    escape_where(
        text,
        |c| is_escaped(c) && c != '\n',
        |shown, c| {
            let _ = write!(shown, "\\u{:04x}", u32::from(c));
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn escape_sequences_and_carriage_returns_are_shown_not_sent() {
        assert_eq!(
            escape("\u{1b}]0;title\u{7}\u{1b}[2J\u{1b}[8mhidden\r"),
            "\\u{1b}]0;title\\u{7}\\u{1b}[2J\\u{1b}[8mhidden\\u{d}"
        );
        assert_eq!(escape("\u{9b}31m\u{7f}"), "\\u{9b}31m\\u{7f}");
    }

    #[test]
    fn multi_line_text_keeps_its_lines_and_tabs_and_one_line_does_not() {
        assert_eq!(escape("a\n\tb"), "a\n\tb");
        assert_eq!(escape_line("a\n\tb"), "a\\u{a}\\u{9}b");
    }

    #[test]
    fn bidi_overrides_and_zero_width_characters_are_shown() {
        assert_eq!(
            escape("git\u{200b}hub \u{202e}txt.exe\u{2066}\u{feff}"),
            "git\\u{200b}hub \\u{202e}txt.exe\\u{2066}\\u{feff}"
        );
    }

    #[test]
    fn plain_text_comes_back_borrowed_and_escaping_twice_changes_nothing() {
        let plain = "tool — naïve 工具 🚀 \\u{1b}";
        assert!(matches!(escape(plain), Cow::Borrowed(text) if text == plain));
        let once = escape_line("\u{1b}[1A\u{1b}[2K\rfake\n");
        assert_eq!(escape_line(&once), once);
    }

    #[test]
    fn json_keeps_the_exact_strings_and_escapes_what_a_terminal_would_obey() {
        let value = json!({"name\u{202e}": ["\u{1b}[2J", "\u{9b}x\u{200b}", "plain é"]});
        for pretty in [false, true] {
            let text = json(&value, pretty);
            assert!(!text.chars().any(|c| is_escaped(c) && c != '\n'), "{text}");
            assert_eq!(
                serde_json::from_str::<Value>(&text).ok(),
                Some(value.clone())
            );
        }
        assert_eq!(
            json(&json!(["\u{9b}\u{2028}"]), false),
            r#"["\u009b\u2028"]"#
        );
    }
}
