//! The agent's own files: `<cwd>/.<app>/mcp.json` and `<config dir>/<app>/mcp.json`.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{dedup_paths, load_file, standard_with_disabled};
use crate::context::DiscoveryContext;
use crate::error::ConfigError;
use crate::source::Level;
use crate::source::{ConfigSource, FileServers, SourceFile, parse_json, servers_under_key};

/// The embedding agent's own files, derived from its app name: the project's
/// `.<app>/mcp.json` and the user's `<config dir>/<app>/mcp.json`.
///
/// Format: `{"mcpServers": {name: <ServerConfig>}, "disabledServers": ["name", …]}`. The
/// `disabledServers` list of the user file switches servers off whatever file defines them.
#[derive(Debug, Default, Clone, Copy)]
#[non_exhaustive]
pub struct NativeSource;

impl NativeSource {
    /// The provider.
    pub const fn new() -> Self {
        Self
    }
}

impl ConfigSource for NativeSource {
    fn id(&self) -> &str {
        "native"
    }

    fn name(&self) -> &str {
        "native config"
    }

    fn load(&self, ctx: &DiscoveryContext) -> Vec<SourceFile> {
        let mut paths: Vec<(PathBuf, Level)> = vec![
            (ctx.native_project_file(), Level::Project),
            (ctx.native_user_file(), Level::User),
        ];
        dedup_paths(&mut paths);
        paths
            .into_iter()
            .filter_map(|(path, level)| {
                load_file(&path, level, parse_json, |path, root| {
                    convert(path, root, level == Level::User)
                })
            })
            .collect()
    }
}

fn convert(path: &Path, root: &Value, read_disabled: bool) -> Result<FileServers, ConfigError> {
    let mut file = servers_under_key(path, root, "mcpServers", |_, entry| {
        standard_with_disabled(entry)
    })?;
    if read_disabled {
        file.disabled_servers = disabled_servers(path, root)?;
    }
    Ok(file)
}

/// The `disabledServers` list. A list we cannot read is the file's error: running a server the
/// user meant to switch off would be worse than not loading the file.
fn disabled_servers(path: &Path, root: &Value) -> Result<Vec<String>, ConfigError> {
    let shape_error = || ConfigError::Shape {
        path: path.to_owned(),
        message: "\"disabledServers\" must be a list of server names".to_owned(),
    };
    match root.get("disabledServers") {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(names)) => names
            .iter()
            .map(|name| name.as_str().map(str::to_owned).ok_or_else(shape_error))
            .collect(),
        Some(_) => Err(shape_error()),
    }
}
