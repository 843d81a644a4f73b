//! Claude Desktop: `mcpServers` in `claude_desktop_config.json`.

use super::{dedup_paths, load_file, standard_with_disabled};
use crate::context::DiscoveryContext;
use crate::origin::Level;
use crate::source::{SourceFile, parse_json, servers_under_key};

/// Reads the files: see [`super::CLAUDE_DESKTOP`].
pub(super) fn load(ctx: &DiscoveryContext) -> Vec<SourceFile> {
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
