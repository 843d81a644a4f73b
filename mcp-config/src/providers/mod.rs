//! The built-in providers, one module per tool. Each reads the files that tool writes today and
//! turns its entries into [`ServerConfig`]s, keeping `${VAR}` references as written (discovery
//! expands them) and translating the tool's own placeholder syntax to `${VAR}` where the meaning
//! is the same.
//!
//! [`default_sources`] lists them highest priority first. Inside one provider the files are
//! listed project first, so a project definition beats the user's.
//!
//! ## Found from a subfolder
//!
//! Each tool's project files are looked for where that tool looks for them, through the one walk
//! of [`DiscoveryContext::project_folders`] (the working folder, then each parent up to the
//! repository root, never `$HOME` or above; the working folder alone outside a repository):
//!
//! | tool | its rule | here |
//! |---|---|---|
//! | native | ours | every folder of the walk, the nearer file first |
//! | Claude Code | `.mcp.json` in the working folder and every parent; merged from the farthest down, so the nearer file wins a name (`getMcpConfigsByScope("project")`; the declarations of the published `@anthropic-ai/claude-code` package say `getProjectMcpConfigsFromCwd` is the one with "no parent traversal"; anthropics/claude-code#85525 shows the walk stops below the filesystem root); `projects[…]` in `~/.claude.json` is keyed by the repository root (`getProjectPathForConfig`) | every folder of the walk, nearer first; `projects[<repository root, else working folder>]` |
//! | Codex | `.codex/config.toml` in every folder from the project root (the nearest folder with a `.git`, else the working folder) down to the working folder, the nearer one winning; trust looked up for the folder, then the project root (openai/codex `codex-rs/core/src/config_loader/mod.rs`, `find_project_root` and `load_project_layers`, commit b98130406aed032a794707309afc14219fee5991) | every folder of the walk, nearer first |
//! | OpenCode | `opencode.json(c)` found up to the Git worktree root and merged farthest first (the nearer wins), then the `.opencode/` folders found on the way up, merged nearest first (anomalyco/opencode `packages/opencode/src/config/config.ts`, `Filesystem.findUp` / `Filesystem.up`, commit 002d98228613564f11f641b36448ba629669281f) | every folder of the walk, in that order |
//! | Gemini CLI | `.gemini/settings.json` of the workspace folder (the working folder) only (google-gemini/gemini-cli `packages/cli/src/config/settings.ts`, `loadSettings`, commit 0038e45d372126f57277fad49086b88b4d3efd91) | the working folder; a file above is a note |
//! | Cursor | `.cursor/mcp.json` of the opened project folder only (cursor.com/docs/mcp) | the working folder; a file above is a note |
//! | VS Code | `.vscode/mcp.json` and the portable `.mcp.json` of the workspace folder only (code.visualstudio.com/docs/copilot/customization/mcp-servers; code.visualstudio.com/docs/agents/reference/mcp-configuration, DateApproved 11/25/2026) | the working folder; a file above is a note |
//! | Kiro | `.kiro/settings/mcp.json` of the workspace folder (kiro.dev/docs/mcp/configuration; that the workspace is the opened folder is assumed) | the working folder; a file above is a note |
//! | Junie, Warp | `.junie/mcp/mcp.json` / `.warp/.mcp.json` at the project (repository) root | the repository root, else the working folder |
//! | Crush | `.crushrc`, `crushrc`, `.crush.json`, `crush.json` in every folder from the working folder up to the Git work-tree root, the deeper winning (`internal/config/load.go` `lookupConfigs`, charmbracelet/crush 37f36e93) | every folder of the walk, nearer first |
//! | Zed | `.zed/settings.json` at the root of the first visible worktree (`context_server_store.rs` `resolve_project_settings`) | the working folder; a file above is a note |
//! | Roo Code | `.roo/mcp.json` of the workspace folder, no walk (`McpHub.ts` `getProjectMcpPath`, RooCodeInc/Roo-Code cb836567) | the working folder; a file above is a note |
//! | Amp | `.amp/settings.json(c)` searched for from the working folder up to the repository root (summaries of Amp's manual) | every folder of the walk, nearer first |
//! | Continue | `.continue/mcpServers/` of each workspace folder, walked down (recursively), never up (`core/context/mcp/json/loadJsonMcpConfigs.ts`, `core/config/loadLocalAssistants.ts` `getDotContinueSubDirs`, continuedev/continue d0a3c0b6) | the working folder; a folder above is a note |
//! | Copilot CLI | `.mcp.json` and `.github/mcp.json` in every folder from the working folder up to the repository root, the closer file winning (github/docs `add-mcp-servers.md`, commit 091100a4315b125650e65f6567256fce35d0d605) | every folder of the walk, nearer first |
//! | Qwen Code | `.qwen/settings.local.json`, `.mcp.json` and `.qwen/settings.json` of the folder it starts in (QwenLM/qwen-code `mcpServers.ts` `assembleMcpServers`, commit 0c5a0defe82a7c01c575af4e9a425651a80eaba3; qwen-code-docs 1.x "MCP") | the working folder; a file above is a note |
//! | Windsurf, Claude Desktop, LM Studio, Cline, Goose | user files only | — |
//!
//! Files a tool that does not look in parent folders would not read from here, found above the
//! working folder, are reported by [`ConfigSource::unread_project_files`] and listed as notes
//! by discovery, so a user running from `src/deep` learns why the root's file is not used.
//!
//! | # | id | name | files read (in order) | format notes |
//! |---|---|---|---|---|
//! | 1 | `native` | native config | `.<app>/mcp.json` of each walked folder; `<config dir>/<app>/mcp.json` | JSON, `mcpServers` in the runtime's own shape; `disabledServers` (user file) |
//! | 2 | `claude-code` | Claude Code | `~/.claude.json` → `projects[<project root>].mcpServers` ("local" scope, level project); `.mcp.json` of each walked folder; `~/.claude.json` → `mcpServers` (user) | JSON; `type` `stdio`/`http`/`sse`; same `${VAR}` syntax as ours; `$CLAUDE_CONFIG_DIR` moves `.claude.json`; the `disabledMcpServers` / `disabledMcpjsonServers` lists of `~/.claude.json` and `.claude/settings*.json` switch servers off (Claude Code reads no server *definitions* from `.claude/`) |
//! | 3 | `codex` | Codex | `.codex/config.toml` of each walked folder; `$CODEX_HOME/config.toml` (default `~/.codex`) | TOML `[mcp_servers.<name>]`; `url` is Streamable HTTP; `bearer_token_env_var`, `env_http_headers` become `${VAR}` headers; `startup_timeout_sec` (float) / `_ms` → `timeout`; `enabled_tools` / `disabled_tools` / `tool_timeout_sec` → `enabledTools` / `disabledTools` / `toolTimeout` |
//! | 4 | `gemini` | Gemini CLI | `<cwd>/.gemini/settings.json`; `~/.gemini/settings.json` | JSON with comments, `mcpServers`; `httpUrl` is Streamable HTTP, `url` is HTTP with SSE fallback unless `type` says which; `$VAR` → `${VAR}`; `mcp.allowed` / `mcp.excluded` switch servers off; `includeTools` / `excludeTools` → `enabledTools` / `disabledTools`, `timeout` is also `toolTimeout` |
//! | 5 | `opencode` | OpenCode | `.opencode/opencode.json(c)` and `opencode.json(c)` of each walked folder; `$OPENCODE_CONFIG`; `<config dir>/opencode/opencode.json(c)`, `config.json` | JSON with comments, key `mcp` (or `mcp.servers`); `local` with a `command` array and `environment`, `remote` with `url`/`headers`; `{env:VAR}` → `${VAR}` |
//! | 6 | `cursor` | Cursor | `<cwd>/.cursor/mcp.json`; `~/.cursor/mcp.json` | JSON (comments tolerated), `mcpServers`; `${env:VAR}`, `${userHome}`, `${workspaceFolder}` translated; `auth` → OAuth settings |
//! | 7 | `windsurf` | Windsurf | `~/.codeium/windsurf/mcp_config.json` | JSON (comments tolerated), `mcpServers`; `serverUrl` (or `url`) for remote; `disabled: true`; `${env:VAR}` translated |
//! | 8 | `vscode` | VS Code | `<cwd>/.vscode/mcp.json`, `<cwd>/.mcp.json` (Copilot's portable format); `<config dir>/Code/User/mcp.json`, `settings.json`, then each named profile's (`Code/User/profiles/<id>/`) (and the macOS / `%APPDATA%` equivalents) | JSON with comments; top-level `servers` (or the older `mcp.servers`) and `inputs`; `${env:VAR}`, `${workspaceFolder}`, `${userHome}` translated; `${input:…}` makes that server invalid; `.mcp.json`: strict JSON, `mcpServers`, read as Copilot CLI reads it |
//! | 9 | `claude-desktop` | Claude Desktop | `<config dir>/Claude/claude_desktop_config.json`, `~/Library/Application Support/Claude/…`, `%APPDATA%/Claude/…` | JSON, `mcpServers` |
//! | 10 | `kiro` | Kiro | `<cwd>/.kiro/settings/mcp.json`; `~/.kiro/settings/mcp.json` | JSON, `mcpServers`; bare `url` is Streamable HTTP; `disabled`, `disabledTools`; `oauth.clientId` → OAuth settings |
//! | 11 | `junie` | Junie | `<project root>/.junie/mcp/mcp.json`; `~/.junie/mcp/mcp.json` | JSON, `mcpServers`, common shape |
//! | 12 | `warp` | Warp | `<project root>/.warp/.mcp.json`; `~/.warp/.mcp.json` | JSON, `mcpServers`, common shape |
//! | 13 | `lm-studio` | LM Studio | `~/.lmstudio/mcp.json` | JSON, `mcpServers`, Cursor's notation |
//! | 14 | `roo` | Roo Code | `<cwd>/.roo/mcp.json`; `…/Code/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json` | strict JSON, `mcpServers`; `streamable-http`; bare `url` is SSE; `timeout` in seconds; `disabledTools`; `${env:VAR}`, `${workspaceFolder}` |
//! | 15 | `cline` | Cline | `~/.cline/data/settings/cline_mcp_settings.json` (env overrides), else the legacy VS Code storage and `~/Documents/Cline/MCP/` files | strict JSON, `mcpServers`, flat or nested `transport`; bare `url` is SSE; `timeout` in seconds; stored tokens dropped |
//! | 16 | `amp` | Amp | `.amp/settings.json(c)` of each walked folder; `<config dir>/amp/settings.json(c)` | JSON with comments, key `"amp.mcpServers"`; `includeTools` → `enabledTools` |
//! | 17 | `zed` | Zed | `<cwd>/.zed/settings.json`; `<config dir>/zed/settings.json` | JSON with comments, `context_servers`; `command` (or nested `{path,args,env}`) → stdio, `url` → Streamable HTTP, neither → extension-provided (invalid here); `timeout` in seconds |
//! | 18 | `crush` | Crush | `.crush.json`, `crush.json` (and `crushrc` scripts, never run) of each walked folder; the data and config folders' `crush.json`, then `<system dir>/crush/crush.json` | strict JSON, `mcp`; snake_case `disabled_tools` / `enabled_tools`; `timeout` in seconds; `$VAR`; `$(…)` refused; stored tokens dropped |
//! | 19 | `goose` | Goose | `<config dir>/goose/config.yaml` over `$GOOSE_ADDITIONAL_CONFIG_FILES` and `<system dir>/goose/config.yaml`, merged field by field | YAML, `extensions`; `cmd`/`uri`/`envs`/`env_keys`; `timeout` in seconds; `available_tools` → `enabledTools`; in-Goose kinds invalid |
//! | 20 | `continue` | Continue | every `*.yaml`, `*.yml`, `*.json` under `<cwd>/.continue/mcpServers/`; `<Continue dir>/config.yaml`; every such file under `<Continue dir>/mcpServers/` (`~/.continue`, or `$CONTINUE_GLOBAL_DIR`) | YAML `mcpServers` **list** of entries with a `name`; JSON with comments in three shapes (a `~/.claude.json` copy, a Claude Desktop file, one server named after the file); `streamable-http`; `apiKey` → bearer header; `connectionTimeout` in ms; `${{ secrets.X }}` invalid; folder walks bounded |
//! | 21 | `copilot-cli` | Copilot CLI | `.mcp.json`, `.github/mcp.json` of each walked folder; `$COPILOT_HOME/mcp-config.json` (default `~/.copilot`) | strict JSON, `mcpServers`; `type` `local`/`stdio`/`http`/`sse`; `tools` (`["*"]` all) → `enabledTools`; `timeout` in ms → `toolTimeout` (and `timeout`, at least 60 s); `oauthClientId` → OAuth settings; `$VAR` in `env` and headers → `${VAR}` |
//! | 22 | `qwen` | Qwen Code | `<cwd>/.qwen/settings.local.json`, `<cwd>/.mcp.json`, `<cwd>/.qwen/settings.json`; `~/.qwen/settings.json` | JSON with comments, `mcpServers`, Gemini CLI's entries except: `url` is SSE, `timeout` is `toolTimeout` only, `discoveryTimeoutMs` → `timeout`; `mcp.allowed` / `mcp.excluded` take glob patterns |
//!
//! Everywhere, `disabled: true` on an entry (Cline / Windsurf style) becomes `enabled: false`.
//! A file that does not exist is left out; a file that is a directory, cannot be read or cannot
//! be parsed is a [`SourceFile`] holding that error; an entry that cannot be converted is listed
//! in [`FileServers::invalid`] as that server's [`EntryProblem`]. A provider of the agent's
//! says why with its own error type ([`EntryProblem::other`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::context::DiscoveryContext;
use crate::error::{ConfigError, ShapeProblem};
use crate::origin::Level;
use crate::placeholder::{Placeholder, Rejected, is_variable_name, rewrite_braced};
use crate::problems::{EntryProblem, PlaceholderProblem};
use crate::read_pass::read_config_file;
use crate::server_config::ServerConfig;
use crate::source::{ConfigSource, FileServers, SourceFile, UnreadProjectFile, parse_jsonc};

mod amp;
mod claude_code;
mod claude_desktop;
mod cline;
mod codex;
mod continue_dev;
mod copilot_cli;
mod crush;
mod cursor;
mod gemini;
mod goose;
mod junie;
mod kiro;
mod lm_studio;
mod native;
mod opencode;
mod qwen;
mod roo;
mod vscode;
mod warp;
mod windsurf;
mod zed;

pub(crate) use claude_code::{
    project_entry as claude_code_project_entry, user_files as claude_code_user_files,
};

/// A built-in provider: its id, its display name, the reader of its files and, for a tool that
/// reads its project files only in the folder it starts in, which files those are. They are the
/// constants of this module; [`default_sources`] lists them by priority.
#[derive(Clone, Copy)]
pub struct BuiltinSource {
    id: &'static str,
    name: &'static str,
    load: fn(&DiscoveryContext) -> Vec<SourceFile>,
    here_only: Option<HereOnly>,
    /// The files it reads, in the README's words.
    files: &'static str,
    /// What it was written from: the tool's documentation or source, with a commit or date.
    written_from: &'static str,
}

/// The project files of a tool that does not look for them in parent folders.
#[derive(Clone, Copy)]
struct HereOnly {
    /// Their paths relative to the folder, `/`-separated.
    files: &'static [&'static str],
    /// The tool's rule, for the note about a file found above.
    rule: &'static str,
}

impl BuiltinSource {
    const fn new(
        id: &'static str,
        name: &'static str,
        load: fn(&DiscoveryContext) -> Vec<SourceFile>,
    ) -> Self {
        Self {
            id,
            name,
            load,
            here_only: None,
            files: "",
            written_from: "",
        }
    }

    /// The files it reads and what it was written from, for the README's table of providers
    /// ([`readme_table`]).
    const fn documented(mut self, files: &'static str, written_from: &'static str) -> Self {
        self.files = files;
        self.written_from = written_from;
        self
    }

    /// The files it reads, in words (`<cwd>/.cursor/mcp.json; ~/.cursor/mcp.json`).
    pub const fn files(&self) -> &'static str {
        self.files
    }

    /// What it was written from: the tool's documentation or source, with a commit or date.
    pub const fn written_from(&self) -> &'static str {
        self.written_from
    }

    /// The tool reads its project `files` only in the folder it starts in (`rule` says so in
    /// its words): such a file found above the working folder is noted, not read.
    const fn here_only(mut self, files: &'static [&'static str], rule: &'static str) -> Self {
        self.here_only = Some(HereOnly { files, rule });
        self
    }
}

impl ConfigSource for BuiltinSource {
    fn id(&self) -> &str {
        self.id
    }

    fn name(&self) -> &str {
        self.name
    }

    fn load(&self, ctx: &DiscoveryContext) -> Vec<SourceFile> {
        (self.load)(ctx)
    }

    fn unread_project_files(&self, ctx: &DiscoveryContext) -> Vec<UnreadProjectFile> {
        let Some(here_only) = self.here_only else {
            return Vec::new();
        };
        here_only
            .files
            .iter()
            .flat_map(|file| ctx.project_files_above(&relative(file)))
            .map(|(folder, path)| {
                UnreadProjectFile::new(
                    (self.id, self.name),
                    path,
                    folder,
                    ctx.cwd(),
                    here_only.rule,
                )
            })
            .collect()
    }
}

impl std::fmt::Debug for BuiltinSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("BuiltinSource").field(&self.id).finish()
    }
}

/// The embedding agent's own files, derived from its app name: the project's
/// `.<app>/mcp.json` (in the working folder and each parent up to the repository root, the
/// nearer file first) and the user's `<config dir>/<app>/mcp.json`.
///
/// Format: `{"mcpServers": {name: <ServerConfig>}, "disabledServers": ["name", …]}`. The
/// `disabledServers` list of the user file switches servers off whatever file defines them.
pub const NATIVE: BuiltinSource = BuiltinSource::new("native", "native config", native::load)
    .documented(
        "`.<app>/mcp.json` of each walked folder; `<config dir>/<app>/mcp.json`",
        "this runtime's own format",
    );

/// Claude Code's three MCP scopes, highest first as Claude Code ranks them:
///
/// 1. "local": `projects[<project root>].mcpServers` in `~/.claude.json` (level project, path of
///    `~/.claude.json`), keyed by the repository root, else the working folder, as Claude Code
///    keys it;
/// 2. "project": `.mcp.json` in the working folder and each parent up to the repository root,
///    the nearer file first (Claude Code reads every parent's and lets the nearer one win);
/// 3. "user": the top-level `mcpServers` of `~/.claude.json`.
///
/// Before them, the administrator's `managed-mcp.json` in [`DiscoveryContext::managed_dir`]
/// (`/etc/claude-code/` on Linux), same shape as `.mcp.json`, at level
/// [`Level::Managed`]: discovery lets its servers win their names.
///
/// `~/.claude.json` moves to `$CLAUDE_CONFIG_DIR/.claude.json` when that variable is set.
/// Entries use the runtime's shape (`type` `stdio` / `http` / `sse`, `command`, `args`, `env`,
/// `url`, `headers`) and the same `${VAR}` / `${VAR:-default}` syntax, kept as written.
///
/// Claude Code reads no server definitions from `.claude/` (an `mcpServers` key in
/// `.claude/settings.json` is ignored by it), but it does honour switch-off lists, and so does
/// this provider: names in `projects[<project root>].disabledMcpServers` are disabled, and names in
/// `disabledMcpjsonServers` (in that project entry, in `.claude/settings.json`,
/// `.claude/settings.local.json` or the user's `settings.json`) disable `.mcp.json` servers.
/// Names in `projects[<project root>].enabledMcpServers` switch on a server of `~/.claude.json`
/// that is off (and win over `disabledMcpServers`). A `headersHelper` (a command printing
/// headers) is kept and run at connect time like a `!command` header ([`crate::auth`]); a
/// `ws` entry is kept for a connector plugin.
pub const CLAUDE_CODE: BuiltinSource =
    BuiltinSource::new("claude-code", "Claude Code", claude_code::load)
    .documented(
        "`<managed dir>/managed-mcp.json`; `~/.claude.json` `projects[<project root>]`; `.mcp.json` of each walked folder; `~/.claude.json` `mcpServers`",
        "code.claude.com/docs/en/mcp, /settings, /managed-mcp (verbatim copies: coroboros/archivist a5452632, 1a9d7b47)",
    );

/// Codex (CLI, IDE extension and app share one configuration): `.codex/config.toml` in the
/// working folder and each parent up to the repository root (the nearer first, as Codex layers
/// them), then `$CODEX_HOME/config.toml` (`~/.codex/config.toml` by default).
///
/// Each `[mcp_servers.<name>]` table converts as follows:
///
/// | Codex key | here |
/// |---|---|
/// | `command`, `args`, `env` (table), `cwd` | the same fields |
/// | `url` | `url`, `type = "http"` (Codex speaks Streamable HTTP) |
/// | `http_headers` (table) | `headers` |
/// | `env_http_headers` (header → variable name) | `headers`, value `${VAR}` |
/// | `bearer_token_env_var` | `Authorization: Bearer ${VAR}` |
/// | `startup_timeout_sec` (may be fractional; wins) / `startup_timeout_ms` | `timeout` in ms |
/// | `enabled` | `enabled` |
/// | `env_vars`, `tool_timeout_sec`, `enabled_tools`, `disabled_tools`, … | `extra`, as written |
///
/// An inline `bearer_token` makes the entry invalid, as it does in Codex. A TOML syntax error is
/// the file's [`ConfigError::Parse`] with format `TOML`.
pub const CODEX: BuiltinSource = BuiltinSource::new("codex", "Codex", codex::load).documented(
    "`.codex/config.toml` of each walked folder; `$CODEX_HOME/config.toml`",
    "openai/codex `codex-rs/core/src/config_loader/mod.rs` (b9813040)",
);

/// Gemini CLI: the working folder's `.gemini/settings.json` (Gemini CLI reads the workspace
/// folder's only; one found above is a note), then `~/.gemini/settings.json` (JSON with
/// comments, as Gemini CLI strips them).
///
/// `mcpServers` entries: `command`, `args`, `env`, `cwd`; `httpUrl` (Streamable HTTP, the older
/// key), or `url` with an optional `type` (`http` / `sse`; without it Gemini CLI tries
/// Streamable HTTP and falls back to SSE, which is what `type = "http"` does here); `headers`;
/// `timeout` in ms; `trust`, `includeTools`, `excludeTools`, `oauth`, … kept in `extra`.
/// Gemini CLI expands `$VAR` as well as `${VAR}`: bare `$VAR` becomes `${VAR}`.
///
/// Servers named in `mcp.excluded`, or missing from `mcp.allowed` when a file sets it, are
/// switched off (`enabled: false`), as Gemini CLI does not start them.
pub const GEMINI: BuiltinSource = BuiltinSource::new("gemini", "Gemini CLI", gemini::load)
    .here_only(
        &[".gemini/settings.json"],
        "Gemini CLI reads it only in the folder it starts in",
    )
    .documented(
        "`<cwd>/.gemini/settings.json`; `~/.gemini/settings.json`",
        "google-gemini/gemini-cli `packages/cli/src/config/settings.ts` (0038e45d)",
    );

/// OpenCode, highest first: `.opencode/opencode.json` and `.opencode/opencode.jsonc` of each
/// folder from the repository root down to the working folder, then `opencode.json` and
/// `opencode.jsonc` of each folder from the working folder up to the repository root (OpenCode
/// looks up to the Git worktree root); then the file named by `$OPENCODE_CONFIG`; then
/// `<config dir>/opencode/opencode.jsonc`, `opencode.json` and the legacy `config.json` (OpenCode
/// merges them in the reverse order, the last one winning). All are JSON with comments.
///
/// Entries under `mcp` (or `mcp.servers` in the newer layout):
///
/// - `{"type": "local", "command": ["bin", "arg", …], "environment": {…}}`: the first element of
///   `command` is the program, the rest its arguments; `environment` becomes `env`;
/// - `{"type": "remote", "url": …, "headers": {…}}`: Streamable HTTP with SSE fallback
///   (`type = "http"`); an `oauth` object becomes OAuth settings, `oauth: false` stays in
///   `extra`;
/// - `enabled` (or the newer `disabled`), `timeout` in ms, `cwd`; anything else is kept in
///   `extra`.
///
/// OpenCode's `{env:VAR}` becomes `${VAR}`; a `{file:path}` value makes the server invalid (the
/// runtime does not read values from files).
pub const OPENCODE: BuiltinSource = BuiltinSource::new("opencode", "OpenCode", opencode::load)
    .documented(
        "`.opencode/opencode.json(c)`, `opencode.json(c)` of each walked folder; `$OPENCODE_CONFIG`; `<config dir>/opencode/opencode.json(c)`",
        "anomalyco/opencode `packages/opencode/src/config/config.ts` (002d9822)",
    );

/// Cursor: the working folder's `.cursor/mcp.json` (Cursor reads the opened project folder's
/// only; one found above is a note), then `~/.cursor/mcp.json`.
///
/// `mcpServers` entries use the common shape (`type`, `command`, `args`, `env`, `url`,
/// `headers`); `envFile` is kept in `extra`. Cursor's `auth` object (`CLIENT_ID`,
/// `CLIENT_SECRET`, `scopes` of a pre-registered OAuth client) becomes OAuth settings.
/// Cursor's config interpolation is translated: `${env:VAR}` → `${VAR}`, `${userHome}`,
/// `${workspaceFolder}` (the project root), `${workspaceFolderBasename}`, `${pathSeparator}`.
pub const CURSOR: BuiltinSource = BuiltinSource::new("cursor", "Cursor", cursor::load)
    .here_only(
        &[".cursor/mcp.json"],
        "Cursor reads it only in the project folder it opens",
    )
    .documented(
        "`<cwd>/.cursor/mcp.json`; `~/.cursor/mcp.json`",
        "cursor.com/docs/mcp",
    );

/// Windsurf (Cascade): `~/.codeium/windsurf/mcp_config.json`, user level only.
///
/// `mcpServers` entries: `command`, `args`, `env` for stdio; `serverUrl` (or `url`) and
/// `headers` for remote servers (`type = "http"`, with SSE fallback); `disabled: true` becomes
/// `enabled: false`; `disabledTools` and the rest are kept in `extra`. `${env:VAR}` becomes
/// `${VAR}`; a `${file:…}` value makes the server invalid.
pub const WINDSURF: BuiltinSource = BuiltinSource::new("windsurf", "Windsurf", windsurf::load)
    .documented(
        "`~/.codeium/windsurf/mcp_config.json`",
        "docs.windsurf.com, Cascade MCP",
    );

/// VS Code: the workspace folder's `.vscode/mcp.json` and `.mcp.json` (the working folder's only;
/// one found above is a note), then the default profile's `mcp.json` and `settings.json` in
/// `<config dir>/Code/User/`, then each named profile's in `Code/User/profiles/<id>/` (by
/// folder name; VS Code keeps a profile's `mcp.json` in its folder), and the same under
/// `~/Library/Application Support/Code/User/` and `%APPDATA%/Code/User/` when they exist. All
/// but `.mcp.json` (strict JSON, as Copilot reads it) are JSON with comments and trailing commas.
///
/// `mcp.json` holds a top-level `servers` object (`type` `stdio` / `http` / `sse`, `command`,
/// `args`, `env`, `envFile`, `cwd`, `url`, `headers`) and an `inputs` list; the older shape
/// nests both under `mcp`, which is also how `settings.json` holds them. `envFile`, `dev` and
/// other keys are kept in `extra`.
///
/// Variables: `${env:VAR}` → `${VAR}`; `${workspaceFolder}` → the absolute project root;
/// `${userHome}`, `${workspaceFolderBasename}`, `${pathSeparator}` likewise. A value using
/// `${input:…}` (an interactive VS Code prompt) or `${command:…}` / `${config:…}` makes that
/// server invalid ([`PlaceholderProblem`]: set the value in the config or the environment).
///
/// The root `.mcp.json` is Copilot's portable format, which VS Code's Copilot harness reads too
/// (code.visualstudio.com/docs/agents/reference/mcp-configuration, DateApproved 11/25/2026): a
/// top-level `mcpServers` object whose entries are read as [`COPILOT_CLI`] reads them. The
/// portable user file, `$COPILOT_HOME/mcp-config.json`, is Copilot CLI's, read by that provider.
pub const VSCODE: BuiltinSource = BuiltinSource::new("vscode", "VS Code", vscode::load).here_only(
    &[".vscode/mcp.json", ".mcp.json"],
    "VS Code reads it only in the workspace folder",
)
    .documented(
        "`<cwd>/.vscode/mcp.json`, `<cwd>/.mcp.json`; `<config dir>/Code/User/mcp.json`, `settings.json`, `profiles/<id>/mcp.json`",
        "code.visualstudio.com/docs/agents/reference/mcp-configuration (microsoft/vscode-docs 08868fe5)",
    );

/// Claude Desktop, user level: `<config dir>/Claude/claude_desktop_config.json` (Linux), then
/// `~/Library/Application Support/Claude/claude_desktop_config.json` (macOS) and
/// `%APPDATA%/Claude/claude_desktop_config.json` (Windows, when `APPDATA` is set), whichever
/// exist. `mcpServers` entries use the common shape (`command`, `args`, `env`).
pub const CLAUDE_DESKTOP: BuiltinSource =
    BuiltinSource::new("claude-desktop", "Claude Desktop", claude_desktop::load).documented(
        "`<config dir>/Claude/claude_desktop_config.json` (and the macOS, Windows places)",
        "modelcontextprotocol.io, connecting local servers to Claude Desktop",
    );

/// Kiro: the working folder's `.kiro/settings/mcp.json` (Kiro reads the workspace folder's;
/// one found above is a note), then `~/.kiro/settings/mcp.json`.
///
/// `mcpServers` entries: `command`, `args`, `env`; `url` and `headers` (no `type`: Streamable
/// HTTP with the fallback to legacy SSE); `disabled: true` → `enabled: false`;
/// `disabledTools` is our filter's own key; `oauth: {clientId}` → OAuth settings with that
/// client; `autoApprove`, `oauthScopes` kept in `extra`. `${VAR}` as here.
pub const KIRO: BuiltinSource = BuiltinSource::new("kiro", "Kiro", kiro::load)
    .here_only(
        &[".kiro/settings/mcp.json"],
        "Kiro reads it only in the workspace folder",
    )
    .documented(
        "`<cwd>/.kiro/settings/mcp.json`; `~/.kiro/settings/mcp.json`",
        "kiro.dev/docs/mcp/configuration, kiro.dev/docs/cli/mcp/configuration (August 2026)",
    );

/// Junie (JetBrains): the project root's `.junie/mcp/mcp.json` (the repository root, else the
/// working folder), then `~/.junie/mcp/mcp.json`. `mcpServers` entries in the common shape
/// (`command`, `args`, `env`; `url`, `headers`), `disabled: true` → `enabled: false`.
pub const JUNIE: BuiltinSource = BuiltinSource::new("junie", "Junie", junie::load).documented(
    "`<project root>/.junie/mcp/mcp.json`; `~/.junie/mcp/mcp.json`",
    "jetbrains.com/help/junie/model-context-protocol-mcp.html; Vaadin's Junie page (August 2026)",
);

/// Warp: the repository root's `.warp/.mcp.json` (else the working folder's), then
/// `~/.warp/.mcp.json`. `mcpServers` entries in the common shape, a `url` without `type` being
/// Streamable HTTP with the fallback to legacy SSE.
pub const WARP: BuiltinSource = BuiltinSource::new("warp", "Warp", warp::load)
    .documented(
        "`<project root>/.warp/.mcp.json`; `~/.warp/.mcp.json`",
        "Warp's `agent-add-mcp` skill (warpdotdev/warp); docs.warp.dev/agents/capabilities/mcp (August 2026)",
    );

/// LM Studio: `~/.lmstudio/mcp.json`, user level only, in Cursor's notation (`command`,
/// `args`, `env`; `url`, `headers`; `${env:VAR}`).
pub const LM_STUDIO: BuiltinSource = BuiltinSource::new("lm-studio", "LM Studio", lm_studio::load)
    .documented(
        "`~/.lmstudio/mcp.json`",
        "lmstudio-ai/docs `0_app/2_mcp/index.mdx` (6fc6a668)",
    );

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
pub const ROO_CODE: BuiltinSource = BuiltinSource::new("roo", "Roo Code", roo::load).here_only(
    &[".roo/mcp.json"],
    "Roo Code reads it only in the workspace folder",
)
    .documented(
        "`<cwd>/.roo/mcp.json`; VS Code's `globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json`",
        "RooCodeInc/Roo-Code `src/services/mcp/McpHub.ts` (cb836567)",
    );

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
pub const CLINE: BuiltinSource = BuiltinSource::new("cline", "Cline", cline::load).documented(
    "`~/.cline/data/settings/cline_mcp_settings.json` (or the legacy VS Code storage)",
    "cline/cline `sdk/packages/core/src/extensions/mcp/config-loader.ts` (21cb8d25)",
);

/// Amp: `.amp/settings.json` and `.amp/settings.jsonc` of each folder from the working folder
/// up to the repository root (the nearer first), then `<config dir>/amp/settings.json(c)`.
/// JSON with comments; the servers are under the literal key `"amp.mcpServers"`, in the common
/// shape (a `url` without `type` is Streamable HTTP with the fallback to legacy SSE);
/// `disabled: true` → `enabled: false`; `includeTools` → `enabledTools`.
pub const AMP: BuiltinSource = BuiltinSource::new("amp", "Amp", amp::load).documented(
    "`.amp/settings.json(c)` of each walked folder; `<config dir>/amp/settings.json(c)`",
    "ampcode.com/news/mcp-permissions and summaries of Amp's manual (August 2026)",
);

/// Zed: the working folder's `.zed/settings.json` (Zed reads the worktree root's only; one found
/// above is a note), then `$FLATPAK_XDG_CONFIG_HOME` or `<config dir>/zed/settings.json` (and
/// `%APPDATA%/Zed/settings.json`). JSON with comments, key `context_servers`.
///
/// An entry with `command` (a string, or the older `{path, args, env}` object) is stdio; one
/// with `url` and `headers` is Streamable HTTP, its `oauth: {client_id, client_secret}` the
/// OAuth client; one with neither is provided by a Zed extension and is invalid here, saying
/// so. `enabled`; `timeout` in seconds (at most 600; `context_server_timeout` is the file's
/// default) → `timeout` and `toolTimeout`; `remote` and `settings` kept in `extra`.
pub const ZED: BuiltinSource = BuiltinSource::new("zed", "Zed", zed::load)
    .here_only(
        &[".zed/settings.json"],
        "Zed reads it only at the root of the worktree it opens",
    )
    .documented(
        "`<cwd>/.zed/settings.json`; `<config dir>/zed/settings.json`",
        "zed-industries/zed `crates/settings_content/src/project.rs` (006ce515)",
    );

/// Crush: in every folder from the working folder up to the repository root (the nearer
/// first) `.crushrc`, `crushrc`, `.crush.json`, `crush.json`; then the data file
/// (`$CRUSH_GLOBAL_DATA` or `${XDG_DATA_HOME:-~/.local/share}/crush/crush.json`), the config
/// folder's `crushrc` and `crush.json` (`$CRUSH_GLOBAL_CONFIG` or `<config dir>/crush/`), then `<system dir>/crush/crush.json`.
///
/// JSON files are strict JSON with the servers under `mcp`: `type` `stdio` / `sse` / `http`,
/// `command`, `args`, `env`, `url`, `headers`; `disabled: true` → `enabled: false`;
/// `disabled_tools` / `enabled_tools` → `disabledTools` / `enabledTools`; `timeout` in seconds
/// → `timeout` and `toolTimeout`; `oauth_client_id` / `oauth_client_secret` → OAuth settings;
/// the `oauth_token` Crush writes is dropped. `$VAR` → `${VAR}`; a `$(…)` makes the entry
/// invalid. A `crushrc` is a Bash script and is never run: each one found is a file error
/// naming it ([`ConfigError::Script`]).
pub const CRUSH: BuiltinSource = BuiltinSource::new("crush", "Crush", crush::load)
    .documented(
        "`.crush.json`, `crush.json` (`crushrc` never run) of each walked folder; `<data dir>/crush/crush.json`; `<config dir>/crush/crush.json`; `<system dir>/crush/crush.json`",
        "charmbracelet/crush `internal/config/load.go` (37f36e93)",
    );

/// Goose: `extensions` in `<config dir>/goose/config.yaml`, merged over the files of
/// `$GOOSE_ADDITIONAL_CONFIG_FILES` and `<system dir>/goose/config.yaml` field by field, as
/// Goose merges them (a server is listed in the highest file defining it). User level only;
/// YAML.
///
/// `stdio` entries: `cmd` → `command`, `args`, `envs` → `env`, `cwd`; `streamable_http` (→
/// `http`) and the older `sse`: `uri` → `url`, `headers` (their variables filled from the
/// entry's `envs` first); `env_keys` are forwarded from the environment; `enabled`; `timeout`
/// in seconds → `timeout` and `toolTimeout`; a non-empty `available_tools` → `enabledTools`.
/// `builtin`, `platform`, `frontend` and `inline_python` extensions run inside Goose and are
/// listed as invalid, saying so. `$VAR` → `${VAR}`.
pub const GOOSE: BuiltinSource = BuiltinSource::new("goose", "Goose", goose::load)
    .documented(
        "`<config dir>/goose/config.yaml` over `$GOOSE_ADDITIONAL_CONFIG_FILES` and `<system dir>/goose/config.yaml`",
        "aaif-goose/goose `crates/goose/src/config/base.rs` (001a90f2)",
    );

/// GitHub Copilot CLI: `.mcp.json` and `.github/mcp.json` of each folder from the working folder
/// up to the repository root (the nearer first, `.mcp.json` before `.github/mcp.json` in one
/// folder), then `$COPILOT_HOME/mcp-config.json` (`~/.copilot/mcp-config.json` by default).
/// Strict JSON, servers under `mcpServers`.
///
/// `type` `local` (the default) or `stdio` → `stdio`, `http` or `streamable-http` → `http`,
/// `sse`; `command`, `args`, `env`, `cwd`, `url`, `headers`; a `url` without `type` is `http`.
/// `tools`: a list of names → `enabledTools`, `["*"]` (or no `tools`) → every tool. `timeout`
/// in ms → `toolTimeout`, and `timeout` raised to at least 60 000 (Copilot's floor for
/// connecting). `oauthClientId` → OAuth settings with that client (`oauthGrantType`
/// `client_credentials` → the `clientCredentials` grant); `oauthScopes`, `deferTools`, … kept
/// in `extra`; `disabled: true` → `enabled: false`. A bare `$VAR` in an `env` or header value
/// becomes `${VAR}`.
pub const COPILOT_CLI: BuiltinSource =
    BuiltinSource::new("copilot-cli", "Copilot CLI", copilot_cli::load).documented(
        "`.mcp.json`, `.github/mcp.json` of each walked folder; `$COPILOT_HOME/mcp-config.json` (default `~/.copilot`)",
        "github/docs `add-mcp-servers.md` (091100a4), `cli-command-reference.md` (046d2679)",
    );

/// Qwen Code (a fork of Gemini CLI): the working folder's `.qwen/settings.local.json`, `.mcp.json`
/// and older `.qwen/settings.json`, in that order (Qwen Code reads them only in the folder it
/// starts in; one found above is a note), then `~/.qwen/settings.json`. JSON with comments.
///
/// `mcpServers` entries as [`GEMINI`] reads them (`command`, `args`, `env`, `cwd`; `httpUrl`
/// → `http`; `includeTools` / `excludeTools`; `$VAR` → `${VAR}`), except that a `url` without
/// `type` is SSE, `timeout` bounds tool calls only (`toolTimeout`) and `discoveryTimeoutMs` is
/// the connect `timeout`. `.mcp.json` may use Claude Code's shape (`type: "http"` with `url`);
/// `type: "ws"` is kept for a transport plugin. Servers that a settings file's `mcp.excluded`
/// matches, or its `mcp.allowed` does not, are switched off; both lists take glob patterns.
pub const QWEN_CODE: BuiltinSource = BuiltinSource::new("qwen", "Qwen Code", qwen::load).here_only(
    &[
        ".qwen/settings.local.json",
        ".mcp.json",
        ".qwen/settings.json",
    ],
    "Qwen Code reads it only in the folder it starts in",
)
.documented(
    "`<cwd>/.qwen/settings.local.json`, `<cwd>/.mcp.json`, `<cwd>/.qwen/settings.json`; `~/.qwen/settings.json`",
    "qwenlm.github.io/qwen-code-docs 1.x users/mcp, users/settings (December 2026); QwenLM/qwen-code `packages/cli/src/config/mcpJson.ts` (4d024d69)",
);

/// Continue (continue.dev), highest first: every server file under the working folder's
/// `.continue/mcpServers/` (project level; Continue reads each workspace folder's, never a
/// parent's: one found above is a note), then `config.yaml` in Continue's folder (`~/.continue`,
/// or `$CONTINUE_GLOBAL_DIR`, relative to the working folder), then every server file under
/// that folder's `mcpServers/` (user level).
///
/// The folders are walked down, depth first in name order, within bounds a cloned repository
/// cannot stretch (folders nested 8 deep, 4096 entries looked at, 256 server files, reading
/// stops once 16 MiB were read; symlinked folders never entered, and the workspace's
/// `.continue` and `.continue/mcpServers` never followed when they are links): past a bound,
/// the folder's
/// [`ConfigError::Folder`] says which. `*.yaml` / `*.yml` files (and `config.yaml`) hold an
/// `mcpServers` **list** whose entries carry a `name`; `*.json` files (comments allowed) are a
/// copy of `~/.claude.json` (every project's servers taken), a Claude Desktop file, or a single
/// server named after the file, tried in that order; any other JSON file is that file's error.
///
/// YAML entries: `type` `stdio` / `sse` / `streamable-http` (→ `http`), a `url` without `type`
/// being `http` (Continue tries Streamable HTTP, then SSE); `command`, `args`, `env`, `cwd`;
/// `url`, `requestOptions.headers` → `headers`, `apiKey` → `Authorization: Bearer <apiKey>`;
/// `connectionTimeout` in milliseconds → `timeout` and `toolTimeout`. JSON entries: `type`
/// `stdio` / `sse` / `http`, `command`, `args`, `env`, `url`, `headers`. A `uses:` entry (a hub
/// block) and a value using `${{ secrets.X }}` or `${{ inputs.X }}` make that server invalid,
/// saying so ([`PlaceholderProblem::ContinueSecret`]): no `.env` file is ever read. `${VAR}` is
/// kept as written. Continue has no switch-off and no tool filter.
pub const CONTINUE: BuiltinSource = BuiltinSource::new("continue", "Continue", continue_dev::load)
    .here_only(
        &[".continue/mcpServers"],
        "Continue reads it only in the workspace folder",
    )
    .documented(
        "every `*.yaml`, `*.yml`, `*.json` under `<cwd>/.continue/mcpServers/`; `~/.continue/config.yaml`; the same under `~/.continue/mcpServers/` (`$CONTINUE_GLOBAL_DIR`)",
        "continuedev/continue `packages/config-yaml/src/schemas/mcp/`, `core/context/mcp/json/loadJsonMcpConfigs.ts` (d0a3c0b6)",
    );

/// The built-in providers, highest priority first.
const BUILT_IN: [BuiltinSource; 22] = [
    NATIVE,
    CLAUDE_CODE,
    CODEX,
    GEMINI,
    OPENCODE,
    CURSOR,
    WINDSURF,
    VSCODE,
    CLAUDE_DESKTOP,
    KIRO,
    JUNIE,
    WARP,
    LM_STUDIO,
    ROO_CODE,
    CLINE,
    AMP,
    ZED,
    CRUSH,
    GOOSE,
    CONTINUE,
    COPILOT_CLI,
    QWEN_CODE,
];

/// The built-in providers, highest priority first: native, Claude Code, Codex, Gemini CLI,
/// OpenCode, Cursor, Windsurf, VS Code, Claude Desktop, Kiro, Junie, Warp, LM Studio, Roo
/// Code, Cline, Amp, Zed, Crush, Goose, Continue, Copilot CLI, Qwen Code.
pub fn default_sources() -> Vec<Box<dyn ConfigSource>> {
    BUILT_IN
        .iter()
        .map(|source| Box::new(*source) as Box<dyn ConfigSource>)
        .collect()
}

/// The built-in providers as data, highest priority first: what [`default_sources`] gives,
/// each with the files it reads and what it was written from.
pub fn built_in() -> &'static [BuiltinSource] {
    &BUILT_IN
}

/// The README's table of the built-in providers, in Markdown: priority, tool, id, the files
/// read and what each was written from. The README holds exactly this (a test keeps them
/// equal), so the table never tells of a provider that is not there.
pub fn readme_table() -> String {
    let mut table = String::from(
        "| # | tool | id | files read, highest first | written from |\n|---|---|---|---|---|\n",
    );
    for (index, source) in BUILT_IN.iter().enumerate() {
        table.push_str(&format!(
            "| {} | {} | `{}` | {} | {} |\n",
            index + 1,
            source.name,
            source.id,
            source.files,
            source.written_from
        ));
    }
    table
}

// ---------------------------------------------------------------------------------------------
// Helpers the providers share.
// ---------------------------------------------------------------------------------------------

/// A parser of one file format (`parse_json` or `parse_jsonc`).
type Parser = fn(&Path, &str) -> Result<Value, ConfigError>;

/// A `/`-separated relative path as a path of this platform.
fn relative(path: &str) -> PathBuf {
    path.split('/').collect()
}

/// `relative` in each folder of the walk ([`DiscoveryContext::project_folders`]), nearest
/// first, at project level: the files of a tool that looks for them in parent folders and lets
/// the nearer one win.
fn walked(ctx: &DiscoveryContext, relative_path: &str) -> Vec<(PathBuf, Level)> {
    let relative_path = relative(relative_path);
    ctx.project_folders()
        .into_iter()
        .map(|folder| (folder.join(&relative_path), Level::Project))
        .collect()
}

/// Reads and parses a file. `None` when it does not exist.
fn read_parsed(path: &Path, parse: Parser) -> Option<Result<Value, ConfigError>> {
    match read_config_file(path) {
        Ok(None) => None,
        Ok(Some(text)) => Some(parse(path, &text)),
        Err(error) => Some(Err(error)),
    }
}

/// Reads, parses and converts one file. `None` when it does not exist.
fn load_file(
    path: &Path,
    level: Level,
    parse: Parser,
    convert: impl FnOnce(&Path, &Value) -> Result<FileServers, ConfigError>,
) -> Option<SourceFile> {
    let contents = read_parsed(path, parse)?.and_then(|root| convert(path, &root));
    Some(SourceFile::new(path, level, contents))
}

/// Drops later duplicates of a path (the project file is the user file when the project is
/// the home directory). The first, higher-priority listing stays, at user level if any listing
/// is: a user's own file stays in use when project config is turned off.
fn dedup_paths(paths: &mut Vec<(PathBuf, Level)>) {
    let mut kept: Vec<(PathBuf, Level)> = Vec::with_capacity(paths.len());
    for (path, level) in paths.drain(..) {
        match kept.iter_mut().find(|(seen, _)| *seen == path) {
            Some((_, seen_level)) if level == Level::User => *seen_level = Level::User,
            Some(_) => {}
            None => kept.push((path, level)),
        }
    }
    *paths = kept;
}

/// The server names of a list such as `disabledServers` (`value` is the key's value, if the key
/// is there: missing or `null` is no name). Anything but a list of strings is the file's error,
/// naming the key (`label`): running a server the user meant to switch off would be worse than
/// not loading the file.
fn name_list(path: &Path, value: Option<&Value>, label: &str) -> Result<Vec<String>, ConfigError> {
    let shape_error = || {
        ConfigError::shape(
            path,
            ShapeProblem::NotANameList {
                key: label.to_owned(),
            },
        )
    };
    match value {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(names)) => names
            .iter()
            .map(|name| name.as_str().map(str::to_owned).ok_or_else(shape_error))
            .collect(),
        Some(_) => Err(shape_error()),
    }
}

/// Turns `disabled: true` (Cline / Windsurf / Claude Desktop style) into `enabled: false`.
fn apply_disabled_flag(config: &mut ServerConfig) {
    if let Some(Value::Bool(disabled)) = config.extra.get("disabled") {
        if *disabled {
            config.enabled = Some(false);
        }
        config.extra.remove("disabled");
    }
}

/// An entry in the runtime's own shape, with `disabled: true` honoured.
fn standard_with_disabled(entry: &Value) -> Result<ServerConfig, EntryProblem> {
    let mut config = crate::source::standard_entry(entry)?;
    apply_disabled_flag(&mut config);
    Ok(config)
}

/// How an `mcpServers` entry of the common shape (`command`, `args`, `env`, `url`, `headers`,
/// `disabled`) is read for a tool that writes it: Kiro, Junie, Warp, LM Studio.
#[derive(Clone, Copy)]
struct CommonShape {
    /// The tool, for a placeholder it does not support.
    tool: &'static str,
}

impl CommonShape {
    /// Reads `paths` (each a JSON file, comments tolerated, with `mcpServers`), the missing ones
    /// left out.
    fn load(self, ctx: &DiscoveryContext, paths: Vec<(PathBuf, Level)>) -> Vec<SourceFile> {
        load_servers(paths, parse_jsonc, "mcpServers", |entry| {
            self.convert(entry, ctx)
        })
    }

    /// Reads `relative` (`/`-separated) at the project root (the repository root, else the
    /// working folder) and in the user's home.
    fn at_project_root_and_home(
        self,
        ctx: &DiscoveryContext,
        relative_path: &str,
    ) -> Vec<SourceFile> {
        let relative_path = relative(relative_path);
        let paths = vec![
            (ctx.project_root().join(&relative_path), Level::Project),
            (ctx.home.join(&relative_path), Level::User),
        ];
        self.load(ctx, paths)
    }

    /// One entry: `disabled: true` → `enabled: false`; a `url` without `type` → `http`
    /// (Streamable HTTP, falling back to legacy SSE); an
    /// `oauth: {clientId, …}` object → OAuth settings with that client; `${env:VAR}` and the
    /// editor variables translated, a `${file:…}` value refused; every other key
    /// (`disabledTools` — our filter's own name —, `autoApprove`, …) kept as written.
    fn convert(self, entry: &Value, ctx: &DiscoveryContext) -> Result<ServerConfig, EntryProblem> {
        let Some(object) = entry.as_object() else {
            return Err(EntryProblem::NotAnObject);
        };
        let mut object = object.clone();
        if object.contains_key("url") && !object.contains_key("type") {
            object.insert("type".to_owned(), Value::from("http"));
        }
        if let Some(Value::Object(oauth)) = object.get("oauth")
            && !object.contains_key("auth")
        {
            let mut auth = oauth.clone();
            auth.insert("type".to_owned(), Value::from("oauth"));
            object.remove("oauth");
            object.insert("auth".to_owned(), Value::Object(auth));
        }
        editor_entry(object, ctx, Some(self.tool))
    }
}

/// Reads each of `paths` that exists (a later duplicate of a path dropped) with `parse`, its
/// servers under `key`, each entry converted by `convert`.
fn load_servers(
    mut paths: Vec<(PathBuf, Level)>,
    parse: Parser,
    key: &str,
    convert: impl Fn(&Value) -> Result<ServerConfig, EntryProblem>,
) -> Vec<SourceFile> {
    dedup_paths(&mut paths);
    paths
        .into_iter()
        .filter_map(|(path, level)| {
            load_file(&path, level, parse, |path, root| {
                crate::source::servers_under_key(path, root, key, |_, entry| convert(entry))
            })
        })
        .collect()
}

/// An entry of an editor's (VS Code and its forks, the extensions in them), its keys already
/// mapped onto ours, as a [`ServerConfig`]: `disabled: true` honoured, the editor variables
/// translated ([`editor_variable`]); when the tool has `${file:…}` (`file_tool` names it), such
/// a value is refused.
fn editor_entry(
    object: Map<String, Value>,
    ctx: &DiscoveryContext,
    file_tool: Option<&'static str>,
) -> Result<ServerConfig, EntryProblem> {
    let mut config = standard_with_disabled(&Value::Object(object))?;
    rewrite_fields(&mut config, &mut |text| {
        rewrite_braced(text, &mut |inner| match file_tool {
            Some(tool) if inner.starts_with("file:") => {
                Placeholder::Reject(PlaceholderProblem::FromFile { tool })
            }
            _ => editor_variable(inner, ctx.cwd(), &ctx.home),
        })
    })?;
    Ok(config)
}

/// VS Code's user folders (`…/Code/User`): the XDG config folder's, macOS's, and `%APPDATA%`'s
/// when that is set. The extensions' global storage is under each (`globalStorage/<id>`).
fn vscode_user_dirs(ctx: &DiscoveryContext) -> Vec<PathBuf> {
    let mut dirs = vec![
        ctx.config_dir.join("Code").join("User"),
        ctx.home
            .join("Library")
            .join("Application Support")
            .join("Code")
            .join("User"),
    ];
    if let Some(app_data) = ctx.path_var("APPDATA") {
        dirs.push(app_data.join("Code").join("User"));
    }
    dirs
}

/// A tool's name of a transport as ours, in place: `streamable-http`, `streamableHttp` and
/// `http` are `http` (Streamable HTTP, falling back to legacy SSE); `sse` and `stdio` stay.
/// Other names are left as written (a plugin's connector may claim them).
fn normalize_transport_name(object: &mut Map<String, Value>, key: &str) {
    let Some(Value::String(name)) = object.get(key) else {
        return;
    };
    let ours = match name.as_str() {
        "streamable-http" | "streamableHttp" | "streamable_http" | "http" => "http",
        "sse" => "sse",
        "stdio" => "stdio",
        _ => return,
    };
    let ours = Value::from(ours);
    object.remove(key);
    object.insert("type".to_owned(), ours);
}

/// A tool's one timeout in seconds (`key`), which bounds the start and every request, as our
/// `timeout` and `toolTimeout` in milliseconds. Left alone when it is not there.
fn single_timeout_in_seconds(
    object: &mut Map<String, Value>,
    key: &str,
) -> Result<(), EntryProblem> {
    let Some(value) = object.remove(key) else {
        return Ok(());
    };
    let millis = seconds(key, &value)?;
    object.insert("timeout".to_owned(), Value::from(millis));
    object.insert("toolTimeout".to_owned(), Value::from(millis));
    Ok(())
}

/// `$VAR` → `${VAR}`; `${…}` and a `$` not followed by a name are left alone.
fn dollar_vars(text: &str) -> String {
    if !text.contains('$') {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() + 8);
    let mut rest = text;
    while let Some(start) = rest.find('$') {
        out.push_str(&rest[..start]);
        let after = &rest[start + 1..];
        let name_len = after
            .char_indices()
            .find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '_'))
            .map_or(after.len(), |(index, _)| index);
        let name = &after[..name_len];
        if is_variable_name(name) {
            out.push_str(&var_ref(name));
            rest = &after[name_len..];
        } else {
            out.push('$');
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// Our reference to an environment variable.
fn var_ref(name: &str) -> String {
    format!("${{{name}}}")
}

/// Applies `rewrite` to every value discovery expands (command, args, env values, cwd, url,
/// header values). The problem names the field, e.g. `env.TOKEN uses ${input:token}: …`.
fn rewrite_fields(
    config: &mut ServerConfig,
    rewrite: &mut dyn FnMut(&str) -> Result<String, Rejected<PlaceholderProblem>>,
) -> Result<(), EntryProblem> {
    for (field, value) in config.transport.expandable_values_mut() {
        *value = rewrite(value).map_err(|rejected| EntryProblem::Placeholder {
            field,
            placeholder: rejected.placeholder,
            reason: rejected.reason,
        })?;
    }
    Ok(())
}

/// The variables VS Code and its forks (Cursor, Windsurf) substitute in MCP files that mean the
/// same here: `${env:VAR}` → `${VAR}`, `${userHome}`, `${workspaceFolder}` (the project root),
/// `${workspaceFolderBasename}`, `${pathSeparator}` / `${/}`. Anything else is kept.
fn editor_variable(inner: &str, cwd: &Path, home: &Path) -> Placeholder<PlaceholderProblem> {
    if let Some(name) = inner.strip_prefix("env:") {
        return if is_variable_name(name) {
            Placeholder::Replace(var_ref(name))
        } else {
            Placeholder::Keep
        };
    }
    match inner {
        "userHome" => Placeholder::Replace(home.display().to_string()),
        "workspaceFolder" | "workspaceRoot" | "cwd" => {
            Placeholder::Replace(cwd.display().to_string())
        }
        "workspaceFolderBasename" => Placeholder::Replace(
            cwd.file_name()
                .map(|name| name.to_string_lossy().into_owned())
                .unwrap_or_default(),
        ),
        "pathSeparator" | "/" => Placeholder::Replace(std::path::MAIN_SEPARATOR.to_string()),
        _ => Placeholder::Keep,
    }
}

/// A string; the problem names the key.
fn string(key: &str, value: &Value) -> Result<String, EntryProblem> {
    value
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| EntryProblem::NotString {
            key: key.to_owned(),
        })
}

/// A list of strings (`None`: the key is missing); the problem names the key.
fn string_list(key: &str, value: Option<&Value>) -> Result<Vec<String>, EntryProblem> {
    let error = || EntryProblem::NotStringList {
        key: key.to_owned(),
    };
    value
        .and_then(Value::as_array)
        .ok_or_else(error)?
        .iter()
        .map(|item| item.as_str().map(str::to_owned).ok_or_else(error))
        .collect()
}

/// A map of strings, which the tool's format calls a `noun` (`a table`, `an object`); the
/// problem names the key.
fn string_map(
    key: &str,
    value: &Value,
    noun: &'static str,
) -> Result<BTreeMap<String, String>, EntryProblem> {
    let error = || EntryProblem::NotStringMap {
        key: key.to_owned(),
        noun,
    };
    value
        .as_object()
        .ok_or_else(error)?
        .iter()
        .map(|(name, item)| Ok((name.clone(), item.as_str().ok_or_else(error)?.to_owned())))
        .collect()
}

/// A whole number of milliseconds from a JSON number (fractions are rounded).
fn json_millis(value: &Value, field: &'static str) -> Result<u64, EntryProblem> {
    if let Some(ms) = value.as_u64() {
        return Ok(ms);
    }
    match value.as_f64() {
        Some(ms) if ms.is_finite() && ms >= 0.0 => Ok(round_to_u64(ms)),
        _ => Err(EntryProblem::NotMilliseconds { key: field }),
    }
}

/// Seconds (whole or fractional) as milliseconds.
fn seconds(key: &str, value: &Value) -> Result<u64, EntryProblem> {
    let error = || EntryProblem::NotSeconds {
        key: key.to_owned(),
    };
    let millis = match (value.as_u64(), value.as_f64()) {
        (Some(seconds), _) => seconds.saturating_mul(1000),
        (None, Some(seconds)) if value.is_f64() && seconds.is_finite() && seconds >= 0.0 => {
            round_to_u64(seconds * 1000.0)
        }
        _ => return Err(error()),
    };
    Ok(millis)
}

/// Rounds a finite, non-negative float to the nearest whole number, saturating.
#[allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    reason = "the value is finite and non-negative; `as` saturates at u64::MAX"
)]
fn round_to_u64(value: f64) -> u64 {
    value.round() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_dollar_variables_become_braced() {
        assert_eq!(dollar_vars("$TOKEN"), "${TOKEN}");
        assert_eq!(dollar_vars("a-$A_1/b"), "a-${A_1}/b");
        assert_eq!(dollar_vars("${KEEP} $"), "${KEEP} $");
        assert_eq!(dollar_vars("$1 $$X"), "$1 $${X}");
        assert_eq!(dollar_vars("ünï $HOME ✓"), "ünï ${HOME} ✓");
    }
}
