//! Roo Code: `mcpServers` in the workspace's `.roo/mcp.json` and in the extension's global
//! `mcp_settings.json`.
//!
//! Written from Roo Code's source, RooCodeInc/Roo-Code at commit cb836567 (2026-04-14), and
//! its documentation (RooCodeInc/Roo-Code-Docs `docs/features/mcp/using-mcp-in-roo.mdx` at
//! e932fb44):
//!
//! - the project file is `<workspace>/.roo/mcp.json`, the workspace being the folder VS Code
//!   opened; there is no walk up (`src/services/mcp/McpHub.ts`, `getProjectMcpPath`); a server
//!   defined in both files is the project's;
//! - the global file is `settings/mcp_settings.json` in the extension's VS Code global storage,
//!   `globalStorage/rooveterinaryinc.roo-cline` (`src/shared/globalFileNames.ts`,
//!   `src/utils/storage.ts`);
//! - both are strict JSON (`JSON.parse`), even where the documentation's examples carry
//!   comments;
//! - an entry is `stdio` (`command`, `args`, `cwd`, `env`), `sse` or `streamable-http`
//!   (`url`, `headers`); a `url` without `type` is SSE (the schema's first matching arm);
//!   `disabled`, `timeout` (seconds, for the start and each request), `alwaysAllow`,
//!   `watchPaths` and `disabledTools` (tools hidden from the model: our filter's own key);
//! - `${env:VAR}` and `${workspaceFolder}` are replaced in the whole entry; an unknown
//!   variable stays as written (`src/utils/config.ts`, `injectVariables`).
//!
//! Not read: `roo-cline.customStoragePath`, a VS Code setting that moves the global storage.
//!
//! Project files, seen from a subfolder: Roo Code's rule is `.roo/mcp.json` of the workspace
//! folder, no walk (`McpHub.ts` `getProjectMcpPath`, RooCodeInc/Roo-Code cb836567). Read here: the
//! working folder; a file above is a note.
//!
//! Format, in brief: strict JSON, `mcpServers`; `streamable-http`; bare `url` is SSE; `timeout` in
//! seconds; `disabledTools`; `${env:VAR}`, `${workspaceFolder}`.

use serde_json::Value;

use super::builtin::BuiltinSource;
use super::editor::vscode_user_dirs;
use super::files::load_servers;
use crate::context::DiscoveryContext;
use crate::origin::Level;
use crate::problems::EntryProblem;
use crate::server_config::ServerConfig;
use crate::source::{SourceFile, parse_json};

/// Roo Code: the working folder's `.roo/mcp.json` (Roo Code reads the workspace folder's only;
/// one found above is a note), then the extension's global
/// `globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json` under each of VS
/// Code's user folders. Strict JSON.
///
/// `mcpServers` entries: `type` `stdio` / `sse` / `streamable-http` (→ `http`), a `url`
/// without `type` being SSE; `command`, `args`, `cwd`, `env`, `url`, `headers`;
/// `disabled: true` → `enabled: false`; `timeout` in seconds → `timeout` and `toolTimeout`;
/// `disabledTools` is our filter's own key; `alwaysAllow`, `watchPaths` kept in `extra`.
/// `${env:VAR}` → `${VAR}`, `${workspaceFolder}` → the working folder.
pub const ROO_CODE: BuiltinSource = BuiltinSource::new("roo", "Roo Code", load).here_only(
    &[".roo/mcp.json"],
    "Roo Code reads it only in the workspace folder",
)
    .documented(
        "`<cwd>/.roo/mcp.json`; VS Code's `globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json`",
        "RooCodeInc/Roo-Code `src/services/mcp/McpHub.ts` (cb836567)",
    );

/// Reads the files: see [`ROO_CODE`].
fn load(ctx: &DiscoveryContext) -> Vec<SourceFile> {
    let mut paths = vec![(ctx.cwd().join(".roo").join("mcp.json"), Level::Project)];
    for dir in vscode_user_dirs(ctx) {
        let settings = dir
            .join("globalStorage")
            .join("rooveterinaryinc.roo-cline")
            .join("settings")
            .join("mcp_settings.json");
        paths.push((settings, Level::User));
    }
    load_servers(paths, parse_json, "mcpServers", |entry| convert(entry, ctx))
}

fn convert(entry: &Value, ctx: &DiscoveryContext) -> Result<ServerConfig, EntryProblem> {
    let Some(object) = entry.as_object() else {
        return Err(EntryProblem::NotAnObject);
    };
    super::cline::flat_entry(object.clone(), ctx)
}
