//! Claude Desktop: `mcpServers` in `claude_desktop_config.json`.

use std::path::PathBuf;

use super::{dedup_paths, load_file, standard_with_disabled};
use crate::context::DiscoveryContext;
use crate::source::Level;
use crate::source::{ConfigSource, SourceFile, parse_json, servers_under_key};

/// Claude Desktop, user level: `<config dir>/Claude/claude_desktop_config.json` (Linux), then
/// `~/Library/Application Support/Claude/claude_desktop_config.json` (macOS) and
/// `%APPDATA%/Claude/claude_desktop_config.json` (Windows, when `APPDATA` is set), whichever
/// exist. `mcpServers` entries use the common shape (`command`, `args`, `env`).
#[derive(Debug, Default, Clone, Copy)]
#[non_exhaustive]
pub struct ClaudeDesktopSource;

impl ClaudeDesktopSource {
    /// The provider.
    pub const fn new() -> Self {
        Self
    }
}

impl ConfigSource for ClaudeDesktopSource {
    fn id(&self) -> &str {
        "claude-desktop"
    }

    fn name(&self) -> &str {
        "Claude Desktop"
    }

    fn load(&self, ctx: &DiscoveryContext) -> Vec<SourceFile> {
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
        if let Some(app_data) = ctx.var("APPDATA").filter(|dir| !dir.is_empty()) {
            paths.push((
                PathBuf::from(app_data).join("Claude").join(FILE),
                Level::User,
            ));
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
}
