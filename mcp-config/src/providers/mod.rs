//! The built-in providers, one module per tool. Each reads the files that tool writes today and
//! turns its entries into [`ServerConfig`]s, keeping `${VAR}` references as written (discovery
//! expands them) and translating the tool's own placeholder syntax to `${VAR}` where the meaning
//! is the same.
//!
//! [`default_sources`] lists them highest priority first. Inside one provider the files are
//! listed project first, so a project definition beats the user's.
//!
//! | # | id | name | files read (in order) | format notes |
//! |---|---|---|---|---|
//! | 1 | `native` | native config | `<cwd>/.<app>/mcp.json`; `<config dir>/<app>/mcp.json` | JSON, `mcpServers` in the runtime's own shape; `disabledServers` (user file) |
//! | 2 | `claude-code` | Claude Code | `~/.claude.json` → `projects[<cwd>].mcpServers` ("local" scope, level project); `<cwd>/.mcp.json`; `~/.claude.json` → `mcpServers` (user) | JSON; `type` `stdio`/`http`/`sse`; same `${VAR}` syntax as ours; `$CLAUDE_CONFIG_DIR` moves `.claude.json`; the `disabledMcpServers` / `disabledMcpjsonServers` lists of `~/.claude.json` and `.claude/settings*.json` switch servers off (Claude Code reads no server *definitions* from `.claude/`) |
//! | 3 | `codex` | Codex | `<cwd>/.codex/config.toml`; `$CODEX_HOME/config.toml` (default `~/.codex`) | TOML `[mcp_servers.<name>]`; `url` is Streamable HTTP; `bearer_token_env_var`, `env_http_headers` become `${VAR}` headers; `startup_timeout_sec` (float) / `_ms` → `timeout` |
//! | 4 | `gemini` | Gemini CLI | `<cwd>/.gemini/settings.json`; `~/.gemini/settings.json` | JSON with comments, `mcpServers`; `httpUrl` is Streamable HTTP, `url` is HTTP with SSE fallback unless `type` says which; `$VAR` → `${VAR}`; `mcp.allowed` / `mcp.excluded` switch servers off |
//! | 5 | `opencode` | OpenCode | `<cwd>/.opencode/opencode.json(c)`; `<cwd>/opencode.json(c)`; `$OPENCODE_CONFIG`; `<config dir>/opencode/opencode.json(c)`, `config.json` | JSON with comments, key `mcp` (or `mcp.servers`); `local` with a `command` array and `environment`, `remote` with `url`/`headers`; `{env:VAR}` → `${VAR}` |
//! | 6 | `cursor` | Cursor | `<cwd>/.cursor/mcp.json`; `~/.cursor/mcp.json` | JSON (comments tolerated), `mcpServers`; `${env:VAR}`, `${userHome}`, `${workspaceFolder}` translated; `auth` → OAuth settings |
//! | 7 | `windsurf` | Windsurf | `~/.codeium/windsurf/mcp_config.json` | JSON (comments tolerated), `mcpServers`; `serverUrl` (or `url`) for remote; `disabled: true`; `${env:VAR}` translated |
//! | 8 | `vscode` | VS Code | `<cwd>/.vscode/mcp.json`; `<config dir>/Code/User/mcp.json`, `settings.json` (and the macOS / `%APPDATA%` equivalents) | JSON with comments; top-level `servers` (or the older `mcp.servers`) and `inputs`; `${env:VAR}`, `${workspaceFolder}`, `${userHome}` translated; `${input:…}` makes that server invalid |
//! | 9 | `claude-desktop` | Claude Desktop | `<config dir>/Claude/claude_desktop_config.json`, `~/Library/Application Support/Claude/…`, `%APPDATA%/Claude/…` | JSON, `mcpServers` |
//!
//! Everywhere, `disabled: true` on an entry (Cline / Windsurf style) becomes `enabled: false`.
//! A file that does not exist is left out; a file that is a directory, cannot be read or cannot
//! be parsed is a [`SourceFile`] holding that error; an entry that cannot be converted is listed
//! in [`FileServers::invalid`] with a message naming the server.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::error::ConfigError;
use crate::expand::{Placeholder, is_variable_name, rewrite_braced};
use crate::server_config::ServerConfig;
use crate::source::Level;
use crate::source::{ConfigSource, FileServers, SourceFile, read_config_file};

mod claude_code;
mod claude_desktop;
mod codex;
mod cursor;
mod gemini;
mod native;
mod opencode;
mod vscode;
mod windsurf;

pub use claude_code::ClaudeCodeSource;
pub use claude_desktop::ClaudeDesktopSource;
pub use codex::CodexSource;
pub use cursor::CursorSource;
pub use gemini::GeminiSource;
pub use native::NativeSource;
pub use opencode::OpenCodeSource;
pub use vscode::VsCodeSource;
pub use windsurf::WindsurfSource;

/// The built-in providers, highest priority first: native, Claude Code, Codex, Gemini CLI,
/// OpenCode, Cursor, Windsurf, VS Code, Claude Desktop.
pub fn default_sources() -> Vec<Box<dyn ConfigSource>> {
    vec![
        Box::new(NativeSource::new()),
        Box::new(ClaudeCodeSource::new()),
        Box::new(CodexSource::new()),
        Box::new(GeminiSource::new()),
        Box::new(OpenCodeSource::new()),
        Box::new(CursorSource::new()),
        Box::new(WindsurfSource::new()),
        Box::new(VsCodeSource::new()),
        Box::new(ClaudeDesktopSource::new()),
    ]
}

// ---------------------------------------------------------------------------------------------
// Helpers the providers share.
// ---------------------------------------------------------------------------------------------

/// A parser of one file format (`parse_json` or `parse_jsonc`).
type Parser = fn(&Path, &str) -> Result<Value, ConfigError>;

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
fn standard_with_disabled(entry: &Value) -> Result<ServerConfig, String> {
    let mut config = crate::source::standard_entry(entry)?;
    apply_disabled_flag(&mut config);
    Ok(config)
}

/// Our reference to an environment variable.
fn var_ref(name: &str) -> String {
    format!("${{{name}}}")
}

/// Applies `rewrite` to every value discovery expands (command, args, env values, cwd, url,
/// header values). The error names the field, e.g. `env.TOKEN uses ${input:token}: …`.
fn rewrite_fields(
    config: &mut ServerConfig,
    rewrite: &mut dyn FnMut(&str) -> Result<String, String>,
) -> Result<(), String> {
    for (field, value) in config.transport.expandable_values_mut() {
        *value = rewrite(value).map_err(|why| format!("{field} {why}"))?;
    }
    Ok(())
}

/// The variables VS Code and its forks (Cursor, Windsurf) substitute in MCP files that mean the
/// same here: `${env:VAR}` → `${VAR}`, `${userHome}`, `${workspaceFolder}` (the project root),
/// `${workspaceFolderBasename}`, `${pathSeparator}` / `${/}`. Anything else is kept.
fn editor_variable(inner: &str, cwd: &Path, home: &Path) -> Placeholder {
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

/// A whole number of milliseconds from a JSON number (fractions are rounded).
fn json_millis(value: &Value, field: &str) -> Result<u64, String> {
    if let Some(ms) = value.as_u64() {
        return Ok(ms);
    }
    match value.as_f64() {
        Some(ms) if ms.is_finite() && ms >= 0.0 => Ok(round_to_u64(ms)),
        _ => Err(format!(
            "\"{field}\" must be a non-negative number of milliseconds"
        )),
    }
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
