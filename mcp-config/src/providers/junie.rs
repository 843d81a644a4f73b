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

use super::CommonShape;
use crate::context::DiscoveryContext;
use crate::source::SourceFile;

/// Reads the files: see [`super::JUNIE`].
pub(super) fn load(ctx: &DiscoveryContext) -> Vec<SourceFile> {
    SHAPE.at_project_root_and_home(ctx, ".junie/mcp/mcp.json")
}

const SHAPE: CommonShape = CommonShape { tool: "Junie" };
