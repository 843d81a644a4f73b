//! What the commands print: the `list` and `tools` reports (JSON and tables), tool results,
//! and writing to stdout without panicking on a closed pipe.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use agent_session::AgentSession;
use mcp_bridge::ToolOutput;
use mcp_config::{ConfigSource, DiscoveryContext, Level, SourceFile, SourceMeta};
use mcp_manager::{ConnectionStatus, LoadError, ManagedTool};
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

/// One server of the `list` report.
#[derive(Debug, Clone)]
pub(crate) struct ServerRow {
    /// The configured name.
    pub(crate) name: String,
    /// `connected`, `connecting`, `failed`, `disconnected`, `disabled` or `invalid`.
    pub(crate) status: String,
    /// `stdio`, `http` or `sse`, when the entry could be read.
    pub(crate) transport: Option<String>,
    /// The file the definition is in.
    pub(crate) source: Option<SourceMeta>,
    /// How many tools the session has from it (live or deferred).
    pub(crate) tools: usize,
    /// Its last error.
    pub(crate) error: Option<String>,
}

/// Every server the session knows of: the usable ones with their live status, the switched
/// off ones, and the ones whose entry is invalid; plus the problems of the last load.
pub(crate) fn server_rows(session: &AgentSession) -> (Vec<ServerRow>, Vec<LoadError>) {
    let snapshot = session.discovery();
    let manager = session.manager();
    let tools = manager.tools();
    let tool_count = |server: &str| tools.iter().filter(|tool| tool.server == server).count();
    let errors_of = |server: &str| {
        let path = format!("mcp:{server}");
        let messages: Vec<&str> = snapshot
            .errors
            .iter()
            .filter(|error| error.path == path)
            .map(|error| error.error.as_str())
            .collect();
        (!messages.is_empty()).then(|| messages.join("; "))
    };
    let mut rows: BTreeMap<String, ServerRow> = BTreeMap::new();
    for (name, config) in &snapshot.configs {
        let status = manager.get_connection_status(name);
        let error = match &status {
            ConnectionStatus::Failed(reason) => Some(reason.clone()),
            _ => errors_of(name),
        };
        rows.insert(
            name.clone(),
            ServerRow {
                name: name.clone(),
                status: status.as_str().to_owned(),
                transport: Some(config.transport_kind().as_str().to_owned()),
                source: snapshot.sources.get(name).cloned(),
                tools: tool_count(name),
                error,
            },
        );
    }
    let invalid: Vec<String> = snapshot
        .errors
        .iter()
        .filter_map(|error| error.path.strip_prefix("mcp:"))
        .filter(|name| !rows.contains_key(*name) && !snapshot.disabled.contains_key(*name))
        .map(str::to_owned)
        .collect();
    let files = if snapshot.disabled.is_empty() && invalid.is_empty() {
        Vec::new()
    } else {
        scan_files(
            session.context().ok().as_ref(),
            session.options().enable_project_config(),
        )
    };
    for (name, meta) in &snapshot.disabled {
        if rows.contains_key(name) {
            continue;
        }
        let transport = find_entry(&files, name, Some(&meta.path)).and_then(|(_, kind)| kind);
        rows.insert(
            name.clone(),
            ServerRow {
                name: name.clone(),
                status: "disabled".to_owned(),
                transport,
                source: Some(meta.clone()),
                tools: 0,
                error: None,
            },
        );
    }
    for name in invalid {
        if rows.contains_key(&name) {
            continue;
        }
        let found = find_entry(&files, &name, None);
        rows.insert(
            name.clone(),
            ServerRow {
                status: "invalid".to_owned(),
                transport: found.as_ref().and_then(|(_, kind)| kind.clone()),
                source: found.map(|(meta, _)| meta),
                tools: 0,
                error: errors_of(&name),
                name,
            },
        );
    }
    (rows.into_values().collect(), snapshot.errors)
}

/// A config file as a provider read it.
struct ScannedFile {
    provider: String,
    provider_name: String,
    file: SourceFile,
}

/// Every provider's files, highest priority first (project files left out when project
/// config is off), to tell where a server that discovery could not use is defined.
fn scan_files(context: Option<&DiscoveryContext>, project_config: bool) -> Vec<ScannedFile> {
    let Some(context) = context else {
        return Vec::new();
    };
    let sources: Vec<Box<dyn ConfigSource>> = mcp_config::default_sources();
    // Reading again would log the same problems twice.
    tracing::subscriber::with_default(tracing::subscriber::NoSubscriber::default(), || {
        sources
            .iter()
            .flat_map(|source| {
                source
                    .load(context)
                    .into_iter()
                    .filter(|file| project_config || file.level != Level::Project)
                    .map(|file| ScannedFile {
                        provider: source.id().to_owned(),
                        provider_name: source.name().to_owned(),
                        file,
                    })
            })
            .collect()
    })
}

/// The first definition (or invalid entry) of `name`, in `path` when given: where it is, and
/// its transport when the entry could be read.
fn find_entry(
    files: &[ScannedFile],
    name: &str,
    path: Option<&Path>,
) -> Option<(SourceMeta, Option<String>)> {
    files
        .iter()
        .filter(|scanned| path.is_none_or(|path| scanned.file.path == path))
        .find_map(|scanned| {
            let contents = scanned.file.contents.as_ref().ok()?;
            let meta = || {
                SourceMeta::new(
                    scanned.provider.clone(),
                    scanned.provider_name.clone(),
                    scanned.file.path.clone(),
                    scanned.file.level,
                )
            };
            if let Some((_, config)) = contents.servers.iter().find(|(entry, _)| entry == name) {
                return Some((meta(), Some(config.transport_kind().as_str().to_owned())));
            }
            contents
                .invalid
                .iter()
                .any(|(entry, _)| entry == name)
                .then(|| (meta(), None))
        })
}

fn source_json(source: Option<&SourceMeta>) -> Value {
    match source {
        Some(meta) => json!({
            "provider": meta.provider,
            "path": meta.path.display().to_string(),
            "level": meta.level.as_str(),
        }),
        None => Value::Null,
    }
}

/// `{"servers": [...], "errors": [...]}`.
pub(crate) fn list_json(rows: &[ServerRow], errors: &[LoadError]) -> Value {
    json!({
        "servers": rows.iter().map(|row| json!({
            "name": row.name,
            "status": row.status,
            "transport": row.transport,
            "source": source_json(row.source.as_ref()),
            "tools": row.tools,
            "error": row.error,
        })).collect::<Vec<_>>(),
        "errors": errors.iter().map(|error| json!({
            "path": error.path,
            "error": error.error,
        })).collect::<Vec<_>>(),
    })
}

/// The `list` report as an aligned table, with the problems that belong to no server below.
pub(crate) fn list_text(rows: &[ServerRow], errors: &[LoadError]) -> String {
    let mut text = if rows.is_empty() {
        "No MCP servers found. Add one to .mcp.json (or with `/mcp add` in `agent-session \
         shell`), then run `agent-session list` again."
            .to_owned()
    } else {
        table(
            &["NAME", "STATUS", "TRANSPORT", "TOOLS", "SOURCE", "ERROR"],
            rows.iter()
                .map(|row| {
                    vec![
                        row.name.clone(),
                        row.status.clone(),
                        row.transport.clone().unwrap_or_else(|| "-".to_owned()),
                        row.tools.to_string(),
                        row.source.as_ref().map_or_else(
                            || "-".to_owned(),
                            |meta| {
                                format!(
                                    "{} ({}) {}",
                                    meta.provider_name,
                                    meta.level,
                                    meta.path.display()
                                )
                            },
                        ),
                        row.error.clone().unwrap_or_default(),
                    ]
                })
                .collect(),
        )
    };
    let other: Vec<&LoadError> = errors
        .iter()
        .filter(|error| !error.path.starts_with("mcp:"))
        .collect();
    if !other.is_empty() {
        text.push_str("\n\nProblems:");
        for error in other {
            text.push_str(&format!("\n  {}: {}", error.path, error.error));
        }
    }
    text
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
