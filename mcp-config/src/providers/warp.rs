//! Warp: `mcpServers` in `.warp/.mcp.json`, at the repository root and in the user's home.
//!
//! Sources, as read in August 2026: the `agent-add-mcp` skill Warp ships (warpdotdev/warp, as
//! listed on skills.sh), which writes servers to `~/.warp/.mcp.json` (global) or
//! `{repo_root}/.warp/.mcp.json` (project) in the common `mcpServers` shape; and Warp's MCP
//! documentation (docs.warp.dev/agents/capabilities/mcp): stdio servers with `env`, Streamable
//! HTTP and SSE servers with `headers`.
//!
//! Assumed: a `url` without `type` is Streamable HTTP with the fallback to legacy SSE;
//! `disabled: true` switches a server off. Warp is said to pick up a root `.mcp.json` too; no
//! source of Warp's says so, and Claude Code's provider reads that file already.
//!
//! Project files, seen from a subfolder: Warp reads `.warp/.mcp.json` at the project (repository)
//! root. Read here: the repository root, else the working folder.
//!
//! Format, in brief: JSON, `mcpServers`, common shape.

use super::builtin::BuiltinSource;
use super::common_shape::CommonShape;
use crate::context::DiscoveryContext;
use crate::source::SourceFile;

/// Warp: the repository root's `.warp/.mcp.json` (else the working folder's), then
/// `~/.warp/.mcp.json`. `mcpServers` entries in the common shape, a `url` without `type` being
/// Streamable HTTP with the fallback to legacy SSE.
pub const WARP: BuiltinSource = BuiltinSource::new("warp", "Warp", load)
    .documented(
        "`<project root>/.warp/.mcp.json`; `~/.warp/.mcp.json`",
        "Warp's `agent-add-mcp` skill (warpdotdev/warp); docs.warp.dev/agents/capabilities/mcp (August 2026)",
    );

/// Reads the files: see [`WARP`].
fn load(ctx: &DiscoveryContext) -> Vec<SourceFile> {
    SHAPE.at_project_root_and_home(ctx, ".warp/.mcp.json")
}

const SHAPE: CommonShape = CommonShape { tool: "Warp" };
