//! `/mcp search` and `/mcp context`: the session's tool search as a command — the tools a
//! query finds (nothing is loaded: that is the model's search tool), and what the tools'
//! definitions cost the model's context, server by server, beside what tool search sends. The
//! text and JSON here are the CLI's `search` and `context` too ([`search_text`],
//! [`search_json`], [`context_text`]).

use std::fmt::Write as _;

use serde_json::{Value, json};

use super::{CommandOutput, Interface, parse, unknown_server};
use crate::render::{Column, one_line, table};
use crate::session::AgentSession;
use crate::tool_search::{DEFAULT_SEARCH_LIMIT, FoundTool, ToolContext, ToolSearchMode};

/// `/mcp search QUERY… [--limit N] [--server NAME]`: the words after `search` are the query.
pub(super) async fn search(
    session: &AgentSession,
    rest: &[String],
    interface: Interface,
) -> CommandOutput {
    let usage = interface.usage("search QUERY [--limit N] [--server NAME]");
    let parsed = match parse::parse_words(rest, &["--limit", "--server"], false, &usage) {
        Ok(parsed) => parsed,
        Err(message) => return CommandOutput::usage(message),
    };
    let query = parsed.positionals.join(" ");
    if query.trim().is_empty() {
        return CommandOutput::usage(format!("missing QUERY; {usage}"));
    }
    let limit = match parsed.flag("--limit") {
        None => DEFAULT_SEARCH_LIMIT,
        Some(text) => match text.parse::<usize>() {
            Ok(limit) if limit >= 1 => limit,
            _ => {
                return CommandOutput::usage(format!(
                    "--limit takes a number of tools of at least 1, not \"{text}\"; {usage}"
                ));
            }
        },
    };
    let server = parsed.flag("--server");
    if let Some(server) = server {
        let discovery = session.discovery();
        if !discovery.servers.contains_key(server) {
            let known = discovery.servers.keys().map(String::as_str);
            return CommandOutput::usage(unknown_server(server, known, interface));
        }
    }
    match session.search_tools(&query, limit, server).await {
        Ok(found) => CommandOutput::ok(search_text(&query, &found), search_json(&query, &found)),
        Err(error) => CommandOutput::usage(format!(
            "{}; write the pattern again, or search with words; {usage}",
            one_line(&error.to_string())
        )),
    }
}

/// The tools found, best first, as a table (`NAME`, `SERVER`, `SCORE`, `DESCRIPTION`); a line
/// saying so when none is.
pub fn search_text(query: &str, found: &[FoundTool]) -> String {
    if found.is_empty() {
        return format!("no tool matches {}", one_line(&format!("{query:?}")));
    }
    table(
        &[
            Column::left("NAME"),
            Column::left("SERVER"),
            Column::right("SCORE"),
            Column::left("DESCRIPTION").shrinking(),
        ],
        &found
            .iter()
            .map(|tool| {
                vec![
                    tool.name.clone(),
                    tool.server.clone(),
                    format!("{:.2}", tool.score),
                    tool.description
                        .lines()
                        .next()
                        .unwrap_or_default()
                        .to_owned(),
                ]
            })
            .collect::<Vec<_>>(),
    )
}

/// `{"query", "tools": [{"name", "server", "tool", "score", "description"}]}`, best first.
pub fn search_json(query: &str, found: &[FoundTool]) -> Value {
    json!({
        "query": query,
        "tools": found.iter().map(|tool| json!({
            "name": tool.name,
            "server": tool.server,
            "tool": tool.tool,
            // Four decimals: the ranking's precision, without an f32's binary tail.
            "score": (f64::from(tool.score) * 1e4).round() / 1e4,
            "description": tool.description,
        })).collect::<Vec<_>>(),
    })
}

/// `/mcp context`.
pub(super) fn context(
    session: &AgentSession,
    rest: &[String],
    interface: Interface,
) -> CommandOutput {
    if let Err(message) = parse::no_arguments(rest, &interface.usage("context")) {
        return CommandOutput::usage(message);
    }
    let context = session.tool_context();
    CommandOutput::ok(context_text(&context), context.to_json())
}

/// `12,345`.
pub fn thousands(number: usize) -> String {
    let digits = number.to_string();
    let mut text = String::with_capacity(digits.len() + digits.len() / 3);
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            text.push(',');
        }
        text.push(digit);
    }
    text
}

/// `tokens` as a percentage of `window`, one decimal: `27.1%`.
pub fn share(tokens: usize, window: usize) -> String {
    if window == 0 {
        return "-".to_owned();
    }
    format!("{:.1}%", tokens as f64 * 100.0 / window as f64)
}

/// The context report in plain numbers: a row per server (tools, estimated tokens, share of
/// the window), the total, what tool search sends instead, and what the mode does.
pub fn context_text(context: &ToolContext) -> String {
    let window = context.context_window;
    let mut rows: Vec<Vec<String>> = context
        .servers
        .iter()
        .map(|server| {
            let always = match server.always_loaded_tools {
                0 => String::new(),
                count if count == server.tools => "all".to_owned(),
                count => count.to_string(),
            };
            vec![
                server.server.clone(),
                server.tools.to_string(),
                thousands(server.tokens),
                share(server.tokens, window),
                always,
            ]
        })
        .collect();
    rows.push(vec![
        "total".to_owned(),
        context.tools().to_string(),
        thousands(context.total_tokens),
        share(context.total_tokens, window),
        String::new(),
    ]);
    let mut text = table(
        &[
            Column::left("SERVER"),
            Column::right("TOOLS"),
            Column::right("TOKENS"),
            Column::right("WINDOW"),
            Column::left("ALWAYS LOADED"),
        ],
        &rows,
    );
    let _ = write!(
        text,
        "\nwith tool search: {} tokens ({}): the search tool {}, always-loaded tools {}",
        thousands(context.deferred_tokens()),
        share(context.deferred_tokens(), window),
        thousands(context.search_tool_tokens),
        thousands(context.always_loaded_tokens),
    );
    if context.loaded_tools > 0 {
        let _ = write!(
            text,
            "; loaded by searches: {} tools, {} tokens",
            context.loaded_tools,
            thousands(context.loaded_tokens)
        );
    }
    let _ = write!(text, "\n{}", mode_line(context));
    text
}

/// What the mode does with these definitions: `tool search auto: deferring (…)`.
pub fn mode_line(context: &ToolContext) -> String {
    let window = thousands(context.context_window);
    let doing = if context.deferring {
        "deferring"
    } else {
        "sending every definition"
    };
    let why = match context.mode {
        ToolSearchMode::Auto if context.deferring => format!(
            "the definitions take more than {}% of the {window}-token window: {} tokens",
            context.share_percent,
            thousands(context.threshold)
        ),
        ToolSearchMode::Auto => format!(
            "the definitions fit in {}% of the {window}-token window: {} tokens",
            context.share_percent,
            thousands(context.threshold)
        ),
        ToolSearchMode::On => "always".to_owned(),
        _ => "never deferred".to_owned(),
    };
    format!("tool search {}: {doing} ({why})", context.mode)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_with_thousands_and_shares_with_one_decimal() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000), "1,000");
        assert_eq!(thousands(1_477_160), "1,477,160");
        assert_eq!(share(54_282, 200_000), "27.1%");
        assert_eq!(share(1, 0), "-");
    }
}
