//! Cursor: `mcpServers` in `.cursor/mcp.json`.

use serde_json::Value;

use super::{editor_entry, load_servers};
use crate::context::DiscoveryContext;
use crate::origin::Level;
use crate::problems::EntryProblem;
use crate::server_config::ServerConfig;
use crate::source::{SourceFile, parse_jsonc};

/// Reads the files: see [`super::CURSOR`].
pub(super) fn load(ctx: &DiscoveryContext) -> Vec<SourceFile> {
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
