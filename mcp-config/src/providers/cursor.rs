//! Cursor: `mcpServers` in `.cursor/mcp.json`.

use serde_json::Value;

use super::{
    dedup_paths, editor_variable, load_file, rewrite_braced, rewrite_fields, standard_with_disabled,
};
use crate::context::DiscoveryContext;
use crate::server_config::ServerConfig;
use crate::source::Level;
use crate::source::{ConfigSource, SourceFile, parse_jsonc, servers_under_key};

/// Cursor: the project's `.cursor/mcp.json`, then `~/.cursor/mcp.json`.
///
/// `mcpServers` entries use the common shape (`type`, `command`, `args`, `env`, `url`,
/// `headers`); `envFile` is kept in `extra`. Cursor's `auth` object (`CLIENT_ID`,
/// `CLIENT_SECRET`, `scopes` of a pre-registered OAuth client) becomes OAuth settings.
/// Cursor's config interpolation is translated: `${env:VAR}` → `${VAR}`, `${userHome}`,
/// `${workspaceFolder}` (the project root), `${workspaceFolderBasename}`, `${pathSeparator}`.
#[derive(Debug, Default, Clone, Copy)]
#[non_exhaustive]
pub struct CursorSource;

impl CursorSource {
    /// The provider.
    pub const fn new() -> Self {
        Self
    }
}

impl ConfigSource for CursorSource {
    fn id(&self) -> &str {
        "cursor"
    }

    fn name(&self) -> &str {
        "Cursor"
    }

    fn load(&self, ctx: &DiscoveryContext) -> Vec<SourceFile> {
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
}

fn convert(entry: &Value, ctx: &DiscoveryContext) -> Result<ServerConfig, String> {
    let Some(object) = entry.as_object() else {
        return Err("the entry must be an object".to_owned());
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
