//! The fuzz targets, one module per parser; each module's doc says what its property is.

pub mod cache_entry;
pub mod config;
pub mod content;
pub mod expansion;
pub mod jsonrpc;
pub mod line_reader;
pub mod naming;
pub mod sse;
pub mod terminal_text;

/// A server name or field as a config message quotes it: every control, bidi or invisible
/// character (`mcp_config::hidden_char`) written as `\u{…}`, so that no name can rewrite the
/// line it is shown on.
pub(crate) fn quoted_in_messages(text: &str) -> String {
    text.chars()
        .map(|c| match mcp_config::hidden_char(c) {
            Some(_) => format!("\\u{{{:x}}}", u32::from(c)),
            None => c.to_string(),
        })
        .collect()
}
