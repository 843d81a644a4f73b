//! Kiro: `mcpServers` in `.kiro/settings/mcp.json`, in the workspace and in the user's home.
//!
//! Written from Kiro's documentation, kiro.dev/docs/mcp/configuration (the IDE) and
//! kiro.dev/docs/cli/mcp/configuration (the CLI), as read in August 2026:
//!
//! - the user file is `~/.kiro/settings/mcp.json`, the workspace file
//!   `.kiro/settings/mcp.json`; "if both files exist, configurations are merged with workspace
//!   settings taking precedence";
//! - a local entry has `command`, `args`, `env`; a remote one `url` and `headers` (no `type`);
//!   both may have `disabled`, `autoApprove` and `disabledTools` (tools hidden from the agent:
//!   the same name and meaning as our filter), and a remote one `oauth: {clientId}` and
//!   `oauthScopes`;
//! - `${VAR}` in `env` and `headers` is the environment, as here.
//!
//! Assumed, since the documentation does not say: the workspace is the folder Kiro was opened
//! in, so the file is read in the working folder only (one found above it is a note), and a
//! bare `url` is Streamable HTTP with the usual fallback to legacy SSE. The CLI's agent files
//! (`.kiro/agents/*.json`) are not read: they configure agents, not the user's servers.
//!
//! Project files, seen from a subfolder: Kiro's rule is `.kiro/settings/mcp.json` of the workspace
//! folder (kiro.dev/docs/mcp/configuration; that the workspace is the opened folder is assumed).
//! Read here: the working folder; a file above is a note.
//!
//! Format, in brief: JSON, `mcpServers`; bare `url` is Streamable HTTP; `disabled`,
//! `disabledTools`; `oauth.clientId` → OAuth settings.

use super::builtin::BuiltinSource;
use super::common_shape::CommonShape;
use crate::context::DiscoveryContext;
use crate::origin::Level;
use crate::source::SourceFile;

/// Kiro: the working folder's `.kiro/settings/mcp.json` (Kiro reads the workspace folder's;
/// one found above is a note), then `~/.kiro/settings/mcp.json`.
///
/// `mcpServers` entries: `command`, `args`, `env`; `url` and `headers` (no `type`: Streamable
/// HTTP with the fallback to legacy SSE); `disabled: true` → `enabled: false`;
/// `disabledTools` is our filter's own key; `oauth: {clientId}` → OAuth settings with that
/// client; `autoApprove`, `oauthScopes` kept in `extra`. `${VAR}` as here.
pub const KIRO: BuiltinSource = BuiltinSource::new("kiro", "Kiro", load)
    .here_only(
        &[".kiro/settings/mcp.json"],
        "Kiro reads it only in the workspace folder",
    )
    .documented(
        "`<cwd>/.kiro/settings/mcp.json`; `~/.kiro/settings/mcp.json`",
        "kiro.dev/docs/mcp/configuration, kiro.dev/docs/cli/mcp/configuration (August 2026)",
    );

/// Reads the files: see [`KIRO`].
fn load(ctx: &DiscoveryContext) -> Vec<SourceFile> {
    let file = |folder: &std::path::Path| folder.join(".kiro").join("settings").join("mcp.json");
    SHAPE.load(
        ctx,
        vec![
            (file(ctx.cwd()), Level::Project),
            (file(&ctx.home), Level::User),
        ],
    )
}

const SHAPE: CommonShape = CommonShape { tool: "Kiro" };
