//! LM Studio: `mcpServers` in `~/.lmstudio/mcp.json`, user level only.
//!
//! Sources: LM Studio's documentation (lmstudio-ai/docs `0_app/2_mcp/index.mdx`, commit
//! 6fc6a668): "LM Studio currently follows Cursor's `mcp.json` notation", local and remote
//! servers (since 0.3.17), edited in the app; no project file. The file's place,
//! `~/.lmstudio/mcp.json`, is where LM Studio's own folder is (several servers' READMEs tell
//! users to edit it there); the documentation does not name it.
//!
//! Read like Cursor's file: `command`, `args`, `env`; `url` and `headers` (Streamable HTTP with
//! the fallback to legacy SSE); `${env:VAR}` translated.
//!
//! Project files: none; the tool has user files only.
//!
//! Format, in brief: JSON, `mcpServers`, Cursor's notation.

use super::builtin::BuiltinSource;
use super::common_shape::CommonShape;
use crate::context::DiscoveryContext;
use crate::origin::Level;
use crate::source::SourceFile;

/// LM Studio: `~/.lmstudio/mcp.json`, user level only, in Cursor's notation (`command`,
/// `args`, `env`; `url`, `headers`; `${env:VAR}`).
pub const LM_STUDIO: BuiltinSource = BuiltinSource::new("lm-studio", "LM Studio", load).documented(
    "`~/.lmstudio/mcp.json`",
    "lmstudio-ai/docs `0_app/2_mcp/index.mdx` (6fc6a668)",
);

/// Reads the file: see [`LM_STUDIO`].
fn load(ctx: &DiscoveryContext) -> Vec<SourceFile> {
    SHAPE.load(
        ctx,
        vec![(ctx.home.join(".lmstudio").join("mcp.json"), Level::User)],
    )
}

const SHAPE: CommonShape = CommonShape { tool: "LM Studio" };
