//! Claude Desktop: `mcpServers` in `claude_desktop_config.json`.
//!
//! Project files: none; the tool has user files only.
//!
//! Format, in brief: JSON, `mcpServers`.

use super::builtin::BuiltinSource;
use super::fields::standard_with_disabled;
use super::files::{dedup_paths, load_file};
use crate::context::DiscoveryContext;
use crate::origin::Level;
use crate::source::{SourceFile, parse_json, servers_under_key};

/// Claude Desktop, user level: `<config dir>/Claude/claude_desktop_config.json` (Linux), then
/// `~/Library/Application Support/Claude/claude_desktop_config.json` (macOS) and
/// `%APPDATA%/Claude/claude_desktop_config.json` (Windows, when `APPDATA` is set), whichever
/// exist. `mcpServers` entries use the common shape (`command`, `args`, `env`).
pub const CLAUDE_DESKTOP: BuiltinSource =
    BuiltinSource::new("claude-desktop", "Claude Desktop", load).documented(
        "`<config dir>/Claude/claude_desktop_config.json` (and the macOS, Windows places)",
        "modelcontextprotocol.io, connecting local servers to Claude Desktop",
    );

/// Reads the files: see [`CLAUDE_DESKTOP`].
fn load(ctx: &DiscoveryContext) -> Vec<SourceFile> {
    const FILE: &str = "claude_desktop_config.json";
    let mut paths = vec![
        (ctx.config_dir.join("Claude").join(FILE), Level::User),
        (
            ctx.home
                .join("Library")
                .join("Application Support")
                .join("Claude")
                .join(FILE),
            Level::User,
        ),
    ];
    if let Some(app_data) = ctx.path_var("APPDATA") {
        paths.push((app_data.join("Claude").join(FILE), Level::User));
    }
    dedup_paths(&mut paths);
    paths
        .into_iter()
        .filter_map(|(path, level)| {
            load_file(&path, level, parse_json, |path, root| {
                servers_under_key(path, root, "mcpServers", |_, entry| {
                    standard_with_disabled(entry)
                })
            })
        })
        .collect()
}
