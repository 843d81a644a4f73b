//! Cline: `mcpServers` in `cline_mcp_settings.json`, user level only.
//!
//! Written from Cline's source, cline/cline at commit 21cb8d25 (2026-08-22):
//!
//! - the file is `~/.cline/data/settings/cline_mcp_settings.json`, shared by the VS Code
//!   extension, the CLI and JetBrains; `$CLINE_MCP_SETTINGS_PATH` names the file itself,
//!   `$CLINE_DATA_DIR` the folder holding `settings/`, `$CLINE_DIR` the one holding `data/`
//!   (`sdk/packages/shared/src/storage/paths.ts`, `resolveMcpSettingsPath`);
//! - before that file existed Cline kept its servers in the VS Code extension's storage
//!   (`globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json`) or in
//!   `~/Documents/Cline/MCP/cline_mcp_settings.json`, and moves them into the new file once
//!   (`apps/vscode/src/hosts/vscode/mcp-settings-legacy-migration.ts`): those are read only when
//!   the new file does not exist;
//! - strict JSON (`JSON.parse`); no project file;
//! - an entry is either the nested form, `{"transport": {"type": "stdio" | "sse" |
//!   "streamableHttp", …}, "disabled", "timeout", "oauthClient": {clientId, clientSecret}}`, or
//!   the older flat one, `{"type" or "transportType": "stdio" | "sse" | "http" |
//!   "streamableHttp", "command", "args", "cwd", "env" | "url", "headers", "disabled",
//!   "timeout", "autoApprove"}`, where **a `url` without a type is SSE**
//!   (`sdk/packages/core/src/extensions/mcp/config-loader.ts`; docs/mcp/mcp-overview.mdx);
//! - `timeout` is in seconds (`sdk/packages/shared/src/mcp.ts`); `${env:VAR}` is the
//!   environment (`apps/vscode/src/utils/envExpansion.ts`).
//!
//! The file also holds the OAuth tokens Cline obtained (`oauth`, `metadata`): they are dropped
//! here, never carried along with the definition. `autoApprove` is an approval list, not a
//! filter; it is kept as written.
//!
//! Project files: none; the tool has user files only.
//!
//! Format, in brief: strict JSON, `mcpServers`, flat or nested `transport`; bare `url` is SSE;
//! `timeout` in seconds; stored tokens dropped.

use std::path::PathBuf;

use serde_json::{Map, Value};

use super::builtin::BuiltinSource;
use super::editor::{editor_entry, vscode_user_dirs};
use super::fields::{normalize_transport_name, single_timeout_in_seconds};
use super::files::load_servers;
use crate::context::DiscoveryContext;
use crate::origin::Level;
use crate::problems::EntryProblem;
use crate::server_config::ServerConfig;
use crate::source::{SourceFile, parse_json};

/// The file's name, in every place Cline keeps it.
const FILE: &str = "cline_mcp_settings.json";

/// Cline: `~/.cline/data/settings/cline_mcp_settings.json` (moved by `CLINE_MCP_SETTINGS_PATH`,
/// `CLINE_DATA_DIR` or `CLINE_DIR`), or, when it does not exist, the files Cline kept before
/// (`globalStorage/saoudrizwan.claude-dev/settings/` under VS Code's user folders,
/// `~/Documents/Cline/MCP/`). User level only; strict JSON.
///
/// `mcpServers` entries, flat or with a nested `transport`: `type` or `transportType`
/// `stdio` / `sse` / `http` / `streamableHttp` (→ `http`), a `url` without a type being SSE;
/// `disabled: true` → `enabled: false`; `timeout` in seconds → `timeout` and `toolTimeout`;
/// `oauthClient` → OAuth settings with that client; the OAuth tokens Cline keeps in the entry
/// (`oauth`, `metadata`) are dropped. `${env:VAR}` → `${VAR}`.
pub const CLINE: BuiltinSource = BuiltinSource::new("cline", "Cline", load).documented(
    "`~/.cline/data/settings/cline_mcp_settings.json` (or the legacy VS Code storage)",
    "cline/cline `sdk/packages/core/src/extensions/mcp/config-loader.ts` (21cb8d25)",
);

/// Reads the file: see [`CLINE`].
fn load(ctx: &DiscoveryContext) -> Vec<SourceFile> {
    let read = |paths: Vec<PathBuf>| {
        let paths = paths.into_iter().map(|path| (path, Level::User)).collect();
        load_servers(paths, parse_json, "mcpServers", |entry| convert(entry, ctx))
    };
    let current = read(vec![current_file(ctx)]);
    if !current.is_empty() {
        return current;
    }
    let mut legacy: Vec<PathBuf> = vscode_user_dirs(ctx)
        .into_iter()
        .map(|dir| {
            dir.join("globalStorage")
                .join("saoudrizwan.claude-dev")
                .join("settings")
                .join(FILE)
        })
        .collect();
    legacy.push(
        ctx.home
            .join("Documents")
            .join("Cline")
            .join("MCP")
            .join(FILE),
    );
    read(legacy)
}

/// Where Cline keeps the file now, its environment overrides applied in Cline's order.
fn current_file(ctx: &DiscoveryContext) -> PathBuf {
    let set = |name: &str| ctx.path_var(name);
    if let Some(file) = set("CLINE_MCP_SETTINGS_PATH") {
        return file;
    }
    let data = set("CLINE_DATA_DIR")
        .or_else(|| set("CLINE_DIR").map(|dir| dir.join("data")))
        .unwrap_or_else(|| ctx.home.join(".cline").join("data"));
    data.join("settings").join(FILE)
}

fn convert(entry: &Value, ctx: &DiscoveryContext) -> Result<ServerConfig, EntryProblem> {
    let Some(object) = entry.as_object() else {
        return Err(EntryProblem::NotAnObject);
    };
    let mut object = object.clone();
    // The nested form: the transport's fields move up, as the flat form has them.
    if let Some(Value::Object(transport)) = object.remove("transport") {
        for (key, value) in transport {
            object.insert(key, value);
        }
    }
    // Tokens Cline keeps in its own file are Cline's; they never travel with the definition.
    object.remove("oauth");
    object.remove("metadata");
    if let Some(client) = object.remove("oauthClient")
        && !object.contains_key("auth")
    {
        let mut auth = client.as_object().cloned().unwrap_or_default();
        auth.insert("type".to_owned(), Value::from("oauth"));
        object.insert("auth".to_owned(), Value::Object(auth));
    }
    normalize_transport_name(&mut object, "transportType");
    flat_entry(object, ctx)
}

/// A flat entry as Cline reads it, and Roo Code (a fork of Cline) too: its `type` named as
/// ours, a `url` without a type being SSE, `timeout` in seconds, `disabled` and the editor
/// variables.
pub(super) fn flat_entry(
    mut object: Map<String, Value>,
    ctx: &DiscoveryContext,
) -> Result<ServerConfig, EntryProblem> {
    normalize_transport_name(&mut object, "type");
    if object.contains_key("url") && !object.contains_key("type") {
        object.insert("type".to_owned(), Value::from("sse"));
    }
    single_timeout_in_seconds(&mut object, "timeout")?;
    editor_entry(object, ctx, None)
}
