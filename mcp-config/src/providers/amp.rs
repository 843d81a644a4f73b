//! Amp (Sourcegraph): the literal top-level key `"amp.mcpServers"` in Amp's settings files.
//!
//! Sources, as read in August 2026: Amp's own announcement of MCP permissions
//! (ampcode.com/news/mcp-permissions) for the settings' `amp.` keys, and the summaries of
//! Amp's manual that name the files (developersdigest.tech/reference/amp/config-files, and the
//! article on `amp mcp add --workspace` at augmenter.dev); the manual's own text could not be
//! read. From them:
//!
//! - the user file is `~/.config/amp/settings.json` (or `settings.jsonc`), read here from the
//!   XDG config folder (the same place unless `XDG_CONFIG_HOME` moves it);
//! - the workspace file is `.amp/settings.json` (or `.jsonc`), searched for from the working
//!   folder up to the repository root, and it wins over the user's; its servers need approval
//!   in Amp too;
//! - the servers are under one dotted key, `{"amp.mcpServers": {…}}` (VS Code settings style),
//!   in the common shape: `command`, `args`, `env`; `url`, `headers`.
//!
//! Assumed, from third-party summaries only: `disabled: true` switches a server off and
//! `includeTools` lists the only tools offered (our `enabledTools`). Amp's
//! `amp.mcpPermissions` (allow or reject servers by command or URL pattern) is not applied
//! here: it is a policy, and this provider only reads definitions.
//!
//! Project files, seen from a subfolder: Amp's rule is `.amp/settings.json(c)` searched for from
//! the working folder up to the repository root (summaries of Amp's manual). Read here: every
//! folder of the walk, nearer first.
//!
//! Format, in brief: JSON with comments, key `"amp.mcpServers"`; `includeTools` → `enabledTools`.

use std::path::PathBuf;

use serde_json::Value;

use super::builtin::BuiltinSource;
use super::common_shape::CommonShape;
use super::files::load_servers;
use crate::context::DiscoveryContext;
use crate::origin::Level;
use crate::problems::EntryProblem;
use crate::server_config::ServerConfig;
use crate::source::{SourceFile, parse_jsonc};

/// The names of Amp's settings file, in the order they are read.
const NAMES: [&str; 2] = ["settings.json", "settings.jsonc"];

/// The key Amp keeps its servers under, dots and all.
const KEY: &str = "amp.mcpServers";

/// Amp: `.amp/settings.json` and `.amp/settings.jsonc` of each folder from the working folder
/// up to the repository root (the nearer first), then `<config dir>/amp/settings.json(c)`.
/// JSON with comments; the servers are under the literal key `"amp.mcpServers"`, in the common
/// shape (a `url` without `type` is Streamable HTTP with the fallback to legacy SSE);
/// `disabled: true` → `enabled: false`; `includeTools` → `enabledTools`.
pub const AMP: BuiltinSource = BuiltinSource::new("amp", "Amp", load).documented(
    "`.amp/settings.json(c)` of each walked folder; `<config dir>/amp/settings.json(c)`",
    "ampcode.com/news/mcp-permissions and summaries of Amp's manual (August 2026)",
);

/// Reads the files: see [`AMP`].
fn load(ctx: &DiscoveryContext) -> Vec<SourceFile> {
    // Nearest folder first; in each folder `settings.json` before `settings.jsonc`.
    let mut paths: Vec<(PathBuf, Level)> = Vec::new();
    for folder in ctx.project_folders() {
        for name in NAMES {
            paths.push((folder.join(".amp").join(name), Level::Project));
        }
    }
    for name in NAMES {
        paths.push((ctx.config_dir.join("amp").join(name), Level::User));
    }
    load_servers(paths, parse_jsonc, KEY, |entry| convert(entry, ctx))
}

fn convert(entry: &Value, ctx: &DiscoveryContext) -> Result<ServerConfig, EntryProblem> {
    let mut entry = entry.clone();
    if let Some(object) = entry.as_object_mut()
        && let Some(include) = object.remove("includeTools")
    {
        object.insert("enabledTools".to_owned(), include);
    }
    SHAPE.convert(&entry, ctx)
}

const SHAPE: CommonShape = CommonShape { tool: "Amp" };
