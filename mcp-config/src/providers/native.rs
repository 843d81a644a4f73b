//! The agent's own files: `.<app>/mcp.json` in the working folder and each parent up to the
//! repository root (nearest first), and `<config dir>/<app>/mcp.json`.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{dedup_paths, load_file, name_list, standard_with_disabled, walked};
use crate::context::DiscoveryContext;
use crate::error::ConfigError;
use crate::origin::Level;
use crate::source::{FileServers, SourceFile, parse_json, servers_under_key};

/// Reads the files: see [`super::NATIVE`].
pub(super) fn load(ctx: &DiscoveryContext) -> Vec<SourceFile> {
    let mut paths: Vec<(PathBuf, Level)> = walked(ctx, &format!(".{}/mcp.json", ctx.app_name));
    paths.push((ctx.native_user_file(), Level::User));
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

fn convert(path: &Path, root: &Value, read_disabled: bool) -> Result<FileServers, ConfigError> {
    let mut file = servers_under_key(path, root, "mcpServers", |_, entry| {
        standard_with_disabled(entry)
    })?;
    if read_disabled {
        file.disabled_servers = name_list(path, root.get("disabledServers"), "disabledServers")?;
    }
    Ok(file)
}
