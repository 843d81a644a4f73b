//! Windsurf: `mcpServers` in `~/.codeium/windsurf/mcp_config.json`.
//!
//! Project files: none; the tool has user files only.
//!
//! Format, in brief: JSON (comments tolerated), `mcpServers`; `serverUrl` (or `url`) for remote;
//! `disabled: true`; `${env:VAR}` translated.

use serde_json::Value;

use super::builtin::BuiltinSource;
use super::editor::editor_entry;
use super::files::load_file;
use crate::context::DiscoveryContext;
use crate::origin::Level;
use crate::problems::EntryProblem;
use crate::server_config::ServerConfig;
use crate::source::{SourceFile, parse_jsonc, servers_under_key};

/// Windsurf (Cascade): `~/.codeium/windsurf/mcp_config.json`, user level only.
///
/// `mcpServers` entries: `command`, `args`, `env` for stdio; `serverUrl` (or `url`) and
/// `headers` for remote servers (`type = "http"`, with SSE fallback); `disabled: true` becomes
/// `enabled: false`; `disabledTools` and the rest are kept in `extra`. `${env:VAR}` becomes
/// `${VAR}`; a `${file:…}` value makes the server invalid.
pub const WINDSURF: BuiltinSource = BuiltinSource::new("windsurf", "Windsurf", load).documented(
    "`~/.codeium/windsurf/mcp_config.json`",
    "docs.windsurf.com, Cascade MCP",
);

/// Reads the files: see [`WINDSURF`].
fn load(ctx: &DiscoveryContext) -> Vec<SourceFile> {
    let path = ctx
        .home
        .join(".codeium")
        .join("windsurf")
        .join("mcp_config.json");
    load_file(&path, Level::User, parse_jsonc, |path, root| {
        servers_under_key(path, root, "mcpServers", |_, entry| convert(entry, ctx))
    })
    .into_iter()
    .collect()
}

fn convert(entry: &Value, ctx: &DiscoveryContext) -> Result<ServerConfig, EntryProblem> {
    let Some(object) = entry.as_object() else {
        return Err(EntryProblem::NotAnObject);
    };
    let mut object = object.clone();
    if let Some(server_url) = object.remove("serverUrl") {
        object.insert("url".to_owned(), server_url);
    }
    if object.contains_key("url") && !object.contains_key("type") {
        object.insert("type".to_owned(), Value::from("http"));
    }
    editor_entry(object, ctx, Some("Windsurf"))
}
