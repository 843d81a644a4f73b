//! Windsurf: `mcpServers` in `~/.codeium/windsurf/mcp_config.json`.

use serde_json::Value;

use super::{editor_entry, load_file};
use crate::context::DiscoveryContext;
use crate::origin::Level;
use crate::problems::EntryProblem;
use crate::server_config::ServerConfig;
use crate::source::{SourceFile, parse_jsonc, servers_under_key};

/// Reads the files: see [`super::WINDSURF`].
pub(super) fn load(ctx: &DiscoveryContext) -> Vec<SourceFile> {
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
