//! Claude Code: `.mcp.json` in the working folder and each parent up to the repository root
//! (the nearer file wins a name), `~/.claude.json` (top-level `mcpServers` and the
//! per-project `projects[<project root>].mcpServers`), and the administrator's
//! `managed-mcp.json` in [`DiscoveryContext::managed_dir`] (level managed).
//!
//! Sources for the managed file and the per-project lists: code.claude.com/docs/en/managed-mcp
//! and /settings as copied verbatim in coroboros/archivist (`docs/code/code-managed-mcp.md` at
//! 1a9d7b47, `docs/code/code-settings.md` at a5452632, August 2026). Claude Code makes a
//! `managed-mcp.json` exclusive (no other server loads); here it takes precedence name by name
//! and the other tools' servers stay, since this runtime is not Claude Code — an administrator
//! who wants only theirs says so with `allowedMcpServers` ([`PolicyDenial`](crate::PolicyDenial)), which applies to
//! every tool's servers. Its `managedMcpServers` setting is not read.
//!
//! Project files, seen from a subfolder: Claude Code's rule is `.mcp.json` in the working folder
//! and every parent; merged from the farthest down, so the nearer file wins a name
//! (`getMcpConfigsByScope("project")`; the declarations of the published
//! `@anthropic-ai/claude-code` package say `getProjectMcpConfigsFromCwd` is the one with "no parent
//! traversal"; anthropics/claude-code#85525 shows the walk stops below the filesystem root);
//! `projects[…]` in `~/.claude.json` is keyed by the repository root (`getProjectPathForConfig`).
//! Read here: every folder of the walk, nearer first; `projects[<repository root, else working
//! folder>]`.
//!
//! Format, in brief: JSON; `type` `stdio`/`http`/`sse`; same `${VAR}` syntax as ours;
//! `$CLAUDE_CONFIG_DIR` moves `.claude.json`; the `disabledMcpServers` / `disabledMcpjsonServers`
//! lists of `~/.claude.json` and `.claude/settings*.json` switch servers off (Claude Code reads no
//! server *definitions* from `.claude/`).

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::builtin::BuiltinSource;
use super::fields::standard_with_disabled;
use super::files::{name_list, read_parsed, walked};
use crate::context::DiscoveryContext;
use crate::error::ConfigError;
use crate::origin::Level;
use crate::source::{SourceFile, parse_json, parse_jsonc, servers_under_key};

/// Claude Code's user-level files: `~/.claude.json` and `~/.claude/settings.json`, both moved
/// by `$CLAUDE_CONFIG_DIR`.
pub(crate) fn user_files(ctx: &DiscoveryContext) -> (PathBuf, PathBuf) {
    let config_dir = ctx.path_var("CLAUDE_CONFIG_DIR");
    let global = config_dir
        .as_ref()
        .unwrap_or(&ctx.home)
        .join(".claude.json");
    let settings = config_dir
        .unwrap_or_else(|| ctx.home.join(".claude"))
        .join("settings.json");
    (global, settings)
}

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
    BuiltinSource::new("claude-code", "Claude Code", load)
    .documented(
        "`<managed dir>/managed-mcp.json`; `~/.claude.json` `projects[<project root>]`; `.mcp.json` of each walked folder; `~/.claude.json` `mcpServers`",
        "code.claude.com/docs/en/mcp, /settings, /managed-mcp (verbatim copies: coroboros/archivist a5452632, 1a9d7b47)",
    );

/// Reads the files: see [`CLAUDE_CODE`].
fn load(ctx: &DiscoveryContext) -> Vec<SourceFile> {
    let (global_path, user_settings) = user_files(ctx);

    let mut switched_off = SwitchedOff::default();
    let mut settings_errors = Vec::new();
    for (path, level) in [
        (
            ctx.cwd().join(".claude").join("settings.local.json"),
            Level::Project,
        ),
        (
            ctx.cwd().join(".claude").join("settings.json"),
            Level::Project,
        ),
        (user_settings, Level::User),
    ] {
        let listed = read_parsed(&path, parse_jsonc)
            .map(|root| root.and_then(|root| name_list(&path, root.get(MCPJSON_KEY), MCPJSON_KEY)));
        match listed {
            None => {}
            Some(Ok(names)) => switched_off.mcpjson.extend(names),
            Some(Err(error)) => settings_errors.push(SourceFile::new(path, level, Err(error))),
        }
    }

    let mut local = None;
    let mut user = None;
    match read_parsed(&global_path, parse_json) {
        None => {}
        Some(Err(error)) => user = Some(SourceFile::new(&global_path, Level::User, Err(error))),
        Some(Ok(root)) => {
            if let Some(project) = project_entry(&root, &ctx.project_root()) {
                let contents = switched_off
                    .read_project_entry(&global_path, project)
                    .and_then(|()| servers_under_key(&global_path, project, "mcpServers", convert));
                local = Some(SourceFile::new(&global_path, Level::Project, contents));
            }
            let contents = servers_under_key(&global_path, &root, "mcpServers", convert);
            user = Some(SourceFile::new(&global_path, Level::User, contents));
        }
    }

    // Nearest first: Claude Code merges them from the farthest down, so the nearer file wins.
    let mcpjson_files = walked(ctx, ".mcp.json")
        .into_iter()
        .filter_map(|(path, level)| {
            read_parsed(&path, parse_json).map(|root| {
                let contents =
                    root.and_then(|root| servers_under_key(&path, &root, "mcpServers", convert));
                SourceFile::new(&path, level, contents)
            })
        });

    let mut files: Vec<SourceFile> = Vec::new();
    // The administrator's servers, at their own level: discovery lets them win their names.
    if let Some(managed) = &ctx.managed_dir {
        let path = managed.join("managed-mcp.json");
        if let Some(root) = read_parsed(&path, parse_json) {
            let contents =
                root.and_then(|root| servers_under_key(&path, &root, "mcpServers", convert));
            files.push(SourceFile::new(path, Level::Managed, contents));
        }
    }
    if let Some(mut file) = local {
        switched_off.apply(&mut file, false);
        files.push(file);
    }
    for mut file in mcpjson_files {
        switched_off.apply(&mut file, true);
        files.push(file);
    }
    files.extend(settings_errors);
    if let Some(mut file) = user {
        switched_off.apply(&mut file, false);
        files.push(file);
    }
    files
}

/// The key of Claude Code's list of rejected `.mcp.json` servers.
const MCPJSON_KEY: &str = "disabledMcpjsonServers";

fn convert(_name: &str, entry: &Value) -> Result<crate::ServerConfig, crate::EntryProblem> {
    standard_with_disabled(entry)
}

/// The servers Claude Code was told not to start, or to start though they are off.
#[derive(Default)]
struct SwitchedOff {
    /// `disabledMcpServers` of the project entry: any server.
    any: Vec<String>,
    /// `disabledMcpjsonServers`: servers of `.mcp.json` only.
    mcpjson: Vec<String>,
    /// `enabledMcpServers` of the project entry: the servers the user switched on for this
    /// project (Claude Code's opt-in for servers that are off by default). It turns on a
    /// server of `~/.claude.json` whose definition is off, and wins over `disabledMcpServers`
    /// (Claude Code keeps a name in one list only). It never approves a `.mcp.json` server:
    /// that is `enabledMcpjsonServers`, read by [`TrustPolicy`](crate::TrustPolicy).
    enabled: Vec<String>,
}

impl SwitchedOff {
    fn read_project_entry(&mut self, path: &Path, project: &Value) -> Result<(), ConfigError> {
        self.any.extend(name_list(
            path,
            project.get("disabledMcpServers"),
            "disabledMcpServers",
        )?);
        self.mcpjson
            .extend(name_list(path, project.get(MCPJSON_KEY), MCPJSON_KEY)?);
        self.enabled.extend(name_list(
            path,
            project.get("enabledMcpServers"),
            "enabledMcpServers",
        )?);
        Ok(())
    }

    fn apply(&self, file: &mut SourceFile, is_mcpjson: bool) {
        let Ok(contents) = file.contents.as_mut() else {
            return;
        };
        for (name, config) in &mut contents.servers {
            if is_mcpjson {
                if self.any.contains(name) || self.mcpjson.contains(name) {
                    config.enabled = Some(false);
                }
            } else if self.enabled.contains(name) {
                config.enabled = Some(true);
            } else if self.any.contains(name) {
                config.enabled = Some(false);
            }
        }
    }
}

/// `projects[<project root>]`: Claude Code keys it by the absolute path of the project (the
/// repository root when there is one, else the working folder; with `/` separators on every
/// platform). Also where Claude Code's approvals of `.mcp.json` servers are.
pub(crate) fn project_entry<'a>(root: &'a Value, project: &Path) -> Option<&'a Value> {
    let wanted = normalize(&project.display().to_string());
    root.get("projects")?
        .as_object()?
        .iter()
        .find(|(key, _)| normalize(key) == wanted)
        .map(|(_, entry)| entry)
        .filter(|entry| entry.is_object())
}

fn normalize(path: &str) -> String {
    let path = path.replace('\\', "/");
    match path.trim_end_matches('/') {
        "" if path.starts_with('/') => "/".to_owned(),
        trimmed => trimmed.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_keys_match_whatever_the_separators_and_trailing_slash() {
        let root = serde_json::json!({"projects": {
            "C:\\work\\app\\": {"mcpServers": {}},
            "/home/u/app": {"mcpServers": {"a": {"command": "x"}}}
        }});
        assert!(project_entry(&root, Path::new("/home/u/app/")).is_some());
        assert!(project_entry(&root, Path::new("C:/work/app")).is_some());
        assert!(project_entry(&root, Path::new("/home/u")).is_none());
        assert_eq!(normalize("/"), "/");
    }
}
