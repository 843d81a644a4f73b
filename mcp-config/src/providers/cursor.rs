//! Cursor: `mcpServers` in `.cursor/mcp.json`.

use serde_json::Value;

use super::{
    dedup_paths, editor_variable, load_file, rewrite_braced, rewrite_fields, standard_with_disabled,
};
use crate::context::DiscoveryContext;
use crate::problems::EntryProblem;
use crate::server_config::ServerConfig;
use crate::source::Level;
use crate::source::{SourceFile, parse_jsonc, servers_under_key};

/// Reads the files: see [`super::CURSOR`].
pub(super) fn load(ctx: &DiscoveryContext) -> Vec<SourceFile> {
    let mut paths = vec![
        (ctx.cwd.join(".cursor").join("mcp.json"), Level::Project),
        (ctx.home.join(".cursor").join("mcp.json"), Level::User),
    ];
    dedup_paths(&mut paths);
    paths
        .into_iter()
        .filter_map(|(path, level)| {
            load_file(&path, level, parse_jsonc, |path, root| {
                servers_under_key(path, root, "mcpServers", |_, entry| convert(entry, ctx))
            })
        })
        .collect()
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
    let mut config = standard_with_disabled(&Value::Object(object))?;
    rewrite_fields(&mut config, &mut |text| {
        rewrite_braced(text, &mut |inner| {
            editor_variable(inner, &ctx.cwd, &ctx.home)
        })
    })?;
    Ok(config)
}
