//! Project trust: which project servers may run (documented on [`TrustPolicy`]).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Arc;

use serde_json::Value;

use crate::consent::{Consent, approval_hash};
use crate::context::DiscoveryContext;
use crate::origin::SourceMeta;
use crate::read_pass::read_config_file;
use crate::server_config::ServerConfig;
use crate::source::{parse_json, parse_jsonc};

/// The key of the approvals in the user's native file.
pub(crate) const TRUSTED_PROJECTS_KEY: &str = "trustedProjects";

/// The key, in the user's native file, of the project servers switched off, per folder
/// (`{"<folder>": ["name", …]}`): disabling a project's server is a choice about that project,
/// never about every server of that name.
pub(crate) const DISABLED_PROJECT_SERVERS_KEY: &str = "disabledProjectServers";

/// A project server that asks to run.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct ProjectServer<'a> {
    /// Its name.
    pub name: &'a str,
    /// The folder its file belongs to: the working folder, or a parent up to the repository
    /// root ([`SourceMeta::project_folder`](crate::SourceMeta::project_folder)).
    pub folder: &'a Path,
    /// Where it is defined.
    pub source: &'a SourceMeta,
    /// Its definition as written (`${VAR}` unexpanded).
    pub definition: &'a ServerConfig,
    /// What approving it lets it do: what an approval is of, and what a callback shows the
    /// user. A server it cannot state ([`Consent::is_approvable`]) is never approved by the
    /// user's approvals; a callback sees why.
    pub consent: &'a Consent,
}

/// Decides whether a project server may run.
pub type ApprovalCallback = Arc<dyn Fn(&ProjectServer<'_>) -> bool + Send + Sync>;

/// Which project servers may run.
///
/// Project trust: servers defined in files inside the project folder — a cloned repository's
/// `.mcp.json`, `.cursor/mcp.json`, `.codex/config.toml` and the like — run only when the user
/// approved them.
///
/// [`TrustPolicy::Approvals`] (the default) counts:
///
/// - the runtime's own approvals: `trustedProjects` in the user's native file
///   (`<config dir>/<app>/mcp.json`), a folder mapped to the approved servers and the hash of
///   each definition as written and of what approving it lets it do
///   ([`crate::approval_hash`], [`crate::Consent`]); an edited definition needs
///   approval again;
/// - Claude Code's, for a project `.mcp.json`: `enableAllProjectMcpServers` and
///   `enabledMcpjsonServers` for the project in `~/.claude.json` (or `$CLAUDE_CONFIG_DIR`),
///   keyed as Claude Code keys it (the repository root, else the working folder), and for every
///   folder in the user's `~/.claude/settings.json` and in the enterprise-managed
///   `managed-settings.json` ([`DiscoveryContext::managed_dir`]);
/// - Codex's, for a project `.codex/config.toml`: `trust_level = "trusted"` under `[projects]`
///   in `$CODEX_HOME/config.toml` for the file's folder, or, when that folder has no entry, for
///   the project root (as Codex looks it up).
///
/// ## Which folder
///
/// Project files are found in the working folder and its parents up to the repository root
/// ([`DiscoveryContext::project_folders`]). A file belongs to the folder that holds it
/// ([`SourceMeta::project_folder`](crate::SourceMeta::project_folder)): `/repo/.mcp.json` is
/// `/repo`'s whether discovery runs in `/repo` or in `/repo/src/deep`. Our approvals are
/// recorded and looked up under that folder, so approving the root's servers once holds from
/// every subfolder, and an approval given for a subfolder never covers a file of its parent
/// (or the other way round). The walk never reaches `$HOME` or above, so a file there is never
/// a project file. Folders are absolute and canonical before anything is decided
/// ([`project_folder`](crate::project_folder)): an agent started with `"."` records and finds
/// its approvals under the folder's real path, never under `"."`, so an approval never counts in
/// another folder and the same folder named another way (absolute, through a symlink) is the
/// same folder.
///
/// Approvals come only from outside the folder. A settings file inside it — Claude Code's
/// `.claude/settings.json` and `settings.local.json`, `.codex/`, `.vscode/settings.json` — is
/// the project speaking for itself (a cloned repository can ship one) and never approves
/// anything; it may still switch its own servers off. Which files are the project's is decided
/// by discovery ([`SourceMeta::in_project_folder`](crate::SourceMeta::in_project_folder)): the
/// user's own files never are, whatever the folder (`$HOME`, `/`, a symlink to either).
///
/// A server that is not approved is skipped at discovery with
/// [`SkipReason::NeedsApproval`](crate::SkipReason::NeedsApproval): it is never started, its
/// cached tools are never offered and none of its `!command` values runs. Definitions in the
/// user's own files (including Claude Code's per-project "local" servers, which live in the
/// user's home) need no approval.
#[derive(Clone, Default)]
#[non_exhaustive]
pub enum TrustPolicy {
    /// The approvals the user gave: the runtime's own, Claude Code's and Codex's (the default).
    #[default]
    Approvals,
    /// Every project server runs: for an agent that asks the user itself before it loads a
    /// project (the behaviour before trust existed).
    TrustAll,
    /// No project server runs.
    TrustNone,
    /// The callback decides, server by server (after the user's approvals, which count too).
    Ask(ApprovalCallback),
}

impl std::fmt::Debug for TrustPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Approvals => "Approvals",
            Self::TrustAll => "TrustAll",
            Self::TrustNone => "TrustNone",
            Self::Ask(_) => "Ask(…)",
        })
    }
}

/// The approvals that count for the project files of one folder.
#[derive(Debug, Default)]
pub(crate) struct Approvals {
    /// Ours: server name → the approval hash (`approval_hash`).
    ours: BTreeMap<String, String>,
    /// The folder's project servers the user switched off ([`DISABLED_PROJECT_SERVERS_KEY`]).
    disabled: BTreeSet<String>,
    claude_all: bool,
    claude_enabled: BTreeSet<String>,
    codex_trusted: bool,
}

impl Approvals {
    /// Whether the user switched off the folder's project server `name`.
    pub(crate) fn disabled(&self, name: &str) -> bool {
        self.disabled.contains(name)
    }

    /// Reads the approvals for the files of `folder` (one of the walked project folders);
    /// unreadable files approve nothing.
    pub(crate) fn load(ctx: &DiscoveryContext, folder: &Path) -> Self {
        let mut approvals = Self::default();
        if folder.is_relative() {
            // Recorded under absolute folders only: a relative name means another folder in
            // every process, so nothing under one counts.
            return approvals;
        }
        let folder_key = folder.to_string_lossy().into_owned();
        if let Some(root) = json_file(&ctx.native_user_file(), false) {
            if let Some(Value::Object(servers)) = root
                .get(TRUSTED_PROJECTS_KEY)
                .and_then(|projects| projects.get(&folder_key))
            {
                for (name, hash) in servers {
                    if let Some(hash) = hash.as_str() {
                        approvals.ours.insert(name.clone(), hash.to_owned());
                    }
                }
            }
            approvals.disabled = root
                .get(DISABLED_PROJECT_SERVERS_KEY)
                .and_then(|projects| projects.get(&folder_key))
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect();
        }
        // Claude Code: the project's entry in `~/.claude.json` (keyed by the project root, as
        // Claude Code keys it, whichever walked folder holds the file), the user's settings
        // (every folder) and the enterprise-managed settings. Never `.claude/settings*.json`
        // inside the project: that is the project approving itself.
        let (global, user_settings) = crate::providers::claude_code_user_files(ctx);
        let mut claude_files = Vec::new();
        if let Some(root) = json_file(&global, false) {
            let project = crate::providers::claude_code_project_entry(&root, &ctx.project_root());
            claude_files.push(project.cloned());
        }
        claude_files.push(json_file(&user_settings, true));
        if let Some(managed) = &ctx.managed_dir {
            claude_files.push(json_file(&managed.join("managed-settings.json"), true));
        }
        for settings in claude_files.into_iter().flatten() {
            if settings.get("enableAllProjectMcpServers") == Some(&Value::Bool(true)) {
                approvals.claude_all = true;
            }
            for name in settings
                .get("enabledMcpjsonServers")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
            {
                approvals.claude_enabled.insert(name.to_owned());
            }
        }
        // Codex.
        let codex_home = ctx
            .path_var("CODEX_HOME")
            .unwrap_or_else(|| ctx.home.join(".codex"));
        // Codex: the folder's own entry decides when it has one (an "untrusted" there wins),
        // else the project root's.
        if let Ok(Some(text)) = read_config_file(&codex_home.join("config.toml"))
            && let Ok(root) = text.parse::<toml::Table>()
        {
            let project_root = ctx.project_root().to_string_lossy().into_owned();
            let trust_level = |key: &str| {
                root.get("projects")
                    .and_then(|projects| projects.get(key))
                    .and_then(|project| project.get("trust_level"))
                    .and_then(toml::Value::as_str)
                    .map(str::to_owned)
            };
            let level = trust_level(&folder_key).or_else(|| trust_level(&project_root));
            approvals.codex_trusted = level.as_deref() == Some("trusted");
        }
        approvals
    }

    /// True when the user approved `server`: never one whose consent description cannot state
    /// what it allows.
    pub(crate) fn approve(&self, server: &ProjectServer<'_>) -> bool {
        if !server.consent.is_approvable() {
            return false;
        }
        if self
            .ours
            .get(server.name)
            .is_some_and(|hash| *hash == approval_hash(server.definition, server.consent))
        {
            return true;
        }
        let file = server.source.path.strip_prefix(server.folder).ok();
        let claude_file = file == Some(Path::new(".mcp.json"));
        if server.source.provider == "claude-code"
            && claude_file
            && (self.claude_all || self.claude_enabled.contains(server.name))
        {
            return true;
        }
        let codex_file = file == Some(&Path::new(".codex").join("config.toml"));
        server.source.provider == "codex" && codex_file && self.codex_trusted
    }
}

fn json_file(path: &Path, comments: bool) -> Option<Value> {
    let text = read_config_file(path).ok()??;
    let parsed = if comments {
        parse_jsonc(path, &text)
    } else {
        parse_json(path, &text)
    };
    parsed.ok()
}

impl TrustPolicy {
    /// True for [`TrustPolicy::TrustAll`]: every project server runs, none is asked about.
    pub(crate) fn trusts_all(&self) -> bool {
        matches!(self, Self::TrustAll)
    }

    /// Whether `server` may run, `approvals` giving the user's approvals for its folder: only
    /// called by the policies that consult them, so `TrustAll` and `TrustNone` read no file.
    pub(crate) fn allows<'a>(
        &self,
        server: &ProjectServer<'_>,
        approvals: impl FnOnce() -> &'a Approvals,
    ) -> bool {
        match self {
            Self::TrustAll => true,
            Self::TrustNone => false,
            Self::Approvals => approvals().approve(server),
            Self::Ask(callback) => approvals().approve(server) || callback(server),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_ignores_key_order_and_follows_every_value() {
        let source = SourceMeta::new(
            "native",
            "this agent",
            "/repo/.x/mcp.json",
            crate::Level::Project,
        );
        let hash = |definition: serde_json::Value| {
            let definition: ServerConfig = serde_json::from_value(definition).unwrap();
            approval_hash(&definition, &Consent::of(&definition, &source))
        };
        let a =
            hash(serde_json::json!({"command": "x", "args": ["1"], "env": {"B": "2", "A": "1"}}));
        let b =
            hash(serde_json::json!({"env": {"A": "1", "B": "2"}, "args": ["1"], "command": "x"}));
        assert_eq!(a, b);
        assert_ne!(a, hash(serde_json::json!({"command": "x", "args": ["2"]})));
        assert_eq!(a.len(), 64);
    }
}
