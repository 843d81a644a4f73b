//! Cursor: `mcpServers` in `.cursor/mcp.json`.
//!
//! Project files, seen from a subfolder: Cursor's rule is `.cursor/mcp.json` of the opened project
//! folder only (cursor.com/docs/mcp). Read here: the working folder; a file above is a note.
//!
//! Format, in brief: JSON (comments tolerated), `mcpServers`; `${env:VAR}`, `${userHome}`,
//! `${workspaceFolder}` translated; `auth` → OAuth settings.

use serde_json::Value;

use super::builtin::BuiltinSource;
use super::editor::editor_entry;
use super::files::load_servers;
use crate::context::DiscoveryContext;
use crate::origin::Level;
use crate::problems::EntryProblem;
use crate::server_config::ServerConfig;
use crate::source::{SourceFile, parse_jsonc};

/// Cursor: the working folder's `.cursor/mcp.json` (Cursor reads the opened project folder's
/// only; one found above is a note), then `~/.cursor/mcp.json`.
///
/// `mcpServers` entries use the common shape (`type`, `command`, `args`, `env`, `url`,
/// `headers`); `envFile` is kept in `extra`. Cursor's `auth` object (`CLIENT_ID`,
/// `CLIENT_SECRET`, `scopes` of a pre-registered OAuth client) becomes OAuth settings.
/// Cursor's config interpolation is translated: `${env:VAR}` → `${VAR}`, `${userHome}`,
/// `${workspaceFolder}` (the project root), `${workspaceFolderBasename}`, `${pathSeparator}`.
pub const CURSOR: BuiltinSource = BuiltinSource::new("cursor", "Cursor", load)
    .here_only(
        &[".cursor/mcp.json"],
        "Cursor reads it only in the project folder it opens",
    )
    .documented(
        "`<cwd>/.cursor/mcp.json`; `~/.cursor/mcp.json`",
        "cursor.com/docs/mcp",
    );

/// Reads the files: see [`CURSOR`].
fn load(ctx: &DiscoveryContext) -> Vec<SourceFile> {
    let paths = vec![
        (ctx.cwd().join(".cursor").join("mcp.json"), Level::Project),
        (ctx.home.join(".cursor").join("mcp.json"), Level::User),
    ];
    load_servers(paths, parse_jsonc, "mcpServers", |entry| {
        convert(entry, ctx)
    })
}

fn convert(entry: &Value, ctx: &DiscoveryContext) -> Result<ServerConfig, EntryProblem> {
    let Some(object) = entry.as_object() else {
        return Err(EntryProblem::NotAnObject);
    };
    let mut object = object.clone();
    if let Some(Value::Object(auth)) = object.get_mut("auth")
        && !auth.contains_key("type")
    {
        auth.insert("type".to_owned(), Value::from("oauth"));
    }
    editor_entry(object, ctx, None)
}
