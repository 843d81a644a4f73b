//! The agent's own files: `.<app>/mcp.json` in the working folder and each parent up to the
//! repository root (nearest first), and `<config dir>/<app>/mcp.json`.
//!
//! Project files, seen from a subfolder: this runtime's rule is ours. Read here: every folder of
//! the walk, the nearer file first.
//!
//! Format, in brief: JSON, `mcpServers` in the runtime's own shape; `disabledServers` (user file).

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::builtin::BuiltinSource;
use super::fields::standard_with_disabled;
use super::files::{dedup_paths, load_file, name_list, walked};
use crate::context::DiscoveryContext;
use crate::error::ConfigError;
use crate::origin::Level;
use crate::source::{FileServers, SourceFile, parse_json, servers_under_key};

/// The embedding agent's own files, derived from its app name: the project's
/// `.<app>/mcp.json` (in the working folder and each parent up to the repository root, the
/// nearer file first) and the user's `<config dir>/<app>/mcp.json`.
///
/// Format: `{"mcpServers": {name: <ServerConfig>}, "disabledServers": ["name", …]}`. The
/// `disabledServers` list of the user file switches servers off whatever file defines them.
pub const NATIVE: BuiltinSource = BuiltinSource::new("native", "native config", load).documented(
    "`.<app>/mcp.json` of each walked folder; `<config dir>/<app>/mcp.json`",
    "this runtime's own format",
);

/// Reads the files: see [`NATIVE`].
fn load(ctx: &DiscoveryContext) -> Vec<SourceFile> {
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
