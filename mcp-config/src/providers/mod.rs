//! The built-in providers, one module per tool. Each reads the files that tool writes today and
//! turns its entries into [`ServerConfig`](crate::ServerConfig)s, keeping `${VAR}` references as written (discovery
//! expands them) and translating the tool's own placeholder syntax to `${VAR}` where the meaning
//! is the same.
//!
//! [`default_sources`] lists them highest priority first. Inside one provider the files are
//! listed project first, so a project definition beats the user's.
//!
//! ## Found from a subfolder
//!
//! Each tool's project files are looked for where that tool looks for them, through the one walk
//! of [`DiscoveryContext::project_folders`](crate::DiscoveryContext::project_folders) (the working folder, then each parent up to the
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
//! be parsed is a [`SourceFile`](crate::SourceFile) holding that error; an entry that cannot be converted is listed
//! in [`FileServers::invalid`](crate::FileServers::invalid) as that server's [`EntryProblem`](crate::EntryProblem). A provider of the agent's
//! says why with its own error type ([`EntryProblem::other`](crate::EntryProblem::other)).

use crate::source::ConfigSource;

mod amp;
mod builtin;
mod claude_code;
mod claude_desktop;
mod cline;
mod codex;
mod common_shape;
mod continue_dev;
mod copilot_cli;
mod crush;
mod cursor;
mod editor;
mod fields;
mod files;
mod gemini;
mod goose;
mod junie;
mod kiro;
mod lm_studio;
mod native;
mod opencode;
mod qwen;
mod roo;
mod variables;
mod vscode;
mod warp;
mod windsurf;
mod zed;

pub use amp::AMP;
pub use builtin::BuiltinSource;
pub use claude_code::CLAUDE_CODE;
pub(crate) use claude_code::{
    project_entry as claude_code_project_entry, user_files as claude_code_user_files,
};
pub use claude_desktop::CLAUDE_DESKTOP;
pub use cline::CLINE;
pub use codex::CODEX;
pub use continue_dev::CONTINUE;
pub use copilot_cli::COPILOT_CLI;
pub use crush::CRUSH;
pub use cursor::CURSOR;
pub use gemini::GEMINI;
pub use goose::GOOSE;
pub use junie::JUNIE;
pub use kiro::KIRO;
pub use lm_studio::LM_STUDIO;
pub use native::NATIVE;
pub use opencode::OPENCODE;
pub use qwen::QWEN_CODE;
pub use roo::ROO_CODE;
pub use vscode::VSCODE;
pub use warp::WARP;
pub use windsurf::WINDSURF;
pub use zed::ZED;

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
            source.name(),
            source.id(),
            source.files(),
            source.written_from()
        ));
    }
    table
}
