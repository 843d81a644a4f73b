//! `context` on a terminal: a bar per server scaled to the context window — as Claude Code's
//! `/context` draws the window, since a share is seen at a glance where a number must be read —
//! then every definition together, what tool search sends instead, and what the mode does. In
//! a pipe and with `--json` the same report is plain numbers
//! ([`agent_session::commands::context_text`]) and JSON.

use std::fmt::Write as _;

use agent_session::ToolContext;
use agent_session::commands::{mode_line, share, thousands};
use agent_session::terminal_text::escape_line;

/// The cells of a bar: the whole window.
const CELLS: usize = 40;
/// A cell filled by eighths.
const EIGHTHS: [&str; 8] = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"];

/// The report as bars.
pub(crate) fn bars(context: &ToolContext) -> String {
    let window = context.context_window;
    let mut rows: Vec<(String, usize, String)> = context
        .servers
        .iter()
        .map(|server| {
            let note = match server.always_loaded_tools {
                0 => String::new(),
                count if count == server.tools => "  always loaded".to_owned(),
                count => format!("  {count} always loaded"),
            };
            (
                format!("{} ({})", escape_line(&server.server), server.tools),
                server.tokens,
                note,
            )
        })
        .collect();
    rows.push((
        format!("all {} tools", context.tools()),
        context.total_tokens,
        String::new(),
    ));
    rows.push((
        "with tool search".to_owned(),
        context.deferred_tokens(),
        String::new(),
    ));
    let label_width = rows
        .iter()
        .map(|(label, _, _)| label.chars().count())
        .max()
        .unwrap_or(0);
    let tokens_width = rows
        .iter()
        .map(|(_, tokens, _)| thousands(*tokens).len())
        .max()
        .unwrap_or(0);
    let mut text = format!(
        "MCP tool definitions in a {}-token context window (estimated: a token per 4 bytes of \
         JSON)",
        thousands(window)
    );
    let servers = context.servers.len();
    for (index, (label, tokens, note)) in rows.iter().enumerate() {
        if index == servers {
            text.push('\n');
        }
        let _ = write!(
            text,
            "\n{label:<label_width$}  {}  {:>tokens_width$}  {:>6}{note}",
            bar(*tokens, window),
            thousands(*tokens),
            share(*tokens, window),
        );
    }
    let _ = write!(text, "\n{}", mode_line(context));
    text
}

/// `tokens` of `window` as [`CELLS`] cells, filled by eighths (anything above nothing shows);
/// past the window, the bar is full.
fn bar(tokens: usize, window: usize) -> String {
    let eighths = match tokens.saturating_mul(CELLS * 8).checked_div(window) {
        None => CELLS * 8,
        Some(exact) => {
            let shown = if tokens > 0 { exact.max(1) } else { 0 };
            shown.min(CELLS * 8)
        }
    };
    let (full, part) = (eighths / 8, eighths % 8);
    let mut bar = "█".repeat(full);
    bar.push_str(EIGHTHS[part]);
    let used = full + usize::from(part > 0);
    bar.push_str(&"░".repeat(CELLS - used));
    bar
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bar_is_the_share_of_the_window_in_eighths_of_a_cell() {
        let full = "█".repeat(CELLS);
        assert_eq!(bar(200_000, 200_000), full);
        assert_eq!(bar(900_000, 200_000), full);
        assert_eq!(bar(0, 200_000), "░".repeat(CELLS));
        // A tenth of the window: four cells.
        assert_eq!(
            bar(20_000, 200_000),
            format!("{}{}", "█".repeat(4), "░".repeat(CELLS - 4))
        );
        // A little shows as the thinnest eighth; half a cell as half a cell.
        assert!(bar(1, 200_000).starts_with('▏'));
        assert!(bar(2_500, 200_000).starts_with('▌'));
        for tokens in [1, 2_500, 54_282, 199_999] {
            assert_eq!(bar(tokens, 200_000).chars().count(), CELLS, "{tokens}");
        }
    }
}
