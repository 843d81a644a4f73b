//! Junie (JetBrains): `mcpServers` in `.junie/mcp/mcp.json`, in the project and in the user's
//! home.
//!
//! Sources, as read in August 2026: JetBrains' Junie help
//! (jetbrains.com/help/junie/model-context-protocol-mcp.html: stdio servers with `command`,
//! `args`, `env`) and the file locations as Vaadin's documentation of Junie gives them
//! (vaadin.com/docs/next/agentic-development/mcp/supported-tools/junie): the user file
//! `~/.junie/mcp/mcp.json` (where the IDE's Junie MCP settings save), the project file
//! `.junie/mcp/mcp.json` at the project root.
//!
//! Assumed, since no source of JetBrains' says: the project root is the repository root (the
//! folder a JetBrains IDE opens), else the working folder; newer Junie versions reportedly take
//! remote servers as `url` and `headers` with no `type`, read here as Streamable HTTP with the
//! fallback to legacy SSE; `disabled: true` switches a server off as in the other tools.
//!
//! Project files, seen from a subfolder: Junie reads `.junie/mcp/mcp.json` at the project
//! (repository) root. Read here: the repository root, else the working folder.
//!
//! Format, in brief: JSON, `mcpServers`, common shape.

use super::builtin::BuiltinSource;
use super::common_shape::CommonShape;
use crate::context::DiscoveryContext;
use crate::source::SourceFile;

/// Junie (JetBrains): the project root's `.junie/mcp/mcp.json` (the repository root, else the
/// working folder), then `~/.junie/mcp/mcp.json`. `mcpServers` entries in the common shape
/// (`command`, `args`, `env`; `url`, `headers`), `disabled: true` → `enabled: false`.
pub const JUNIE: BuiltinSource = BuiltinSource::new("junie", "Junie", load).documented(
    "`<project root>/.junie/mcp/mcp.json`; `~/.junie/mcp/mcp.json`",
    "jetbrains.com/help/junie/model-context-protocol-mcp.html; Vaadin's Junie page (August 2026)",
);

/// Reads the files: see [`JUNIE`].
fn load(ctx: &DiscoveryContext) -> Vec<SourceFile> {
    SHAPE.at_project_root_and_home(ctx, ".junie/mcp/mcp.json")
}

const SHAPE: CommonShape = CommonShape { tool: "Junie" };
