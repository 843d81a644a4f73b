//! [`load_all_configs`]: every provider's files, filtered, merged by precedence, expanded and
//! validated, with the source of each server and the definitions it shadows.
//!
//! The order of work, which decides what a user sees:
//!
//! 1. Providers in priority order (highest first), each giving its project files before its
//!    user files. A file that cannot be read or parsed is an error naming it; the rest go on.
//! 2. Filters, before any merging: project-level entries are dropped when project config is
//!    off (so they never hide a user entry); servers the enterprise policy denies
//!    ([`PolicyDenial`](crate::PolicyDenial)) are skipped, then `enabled: false` entries and names in
//!    `disabledServers`; with `filter_exa`, Exa servers are removed and their API keys
//!    collected.
//! 3. Merge by name: a managed definition ([`Level::Managed`]) wins, else the first one, whole
//!    (no field merge); the others are listed as shadowed in its [`ServerSource`].
//! 4. Expansion of `${VAR}` and validation of each winner; a server that fails either is skipped
//!    with messages naming it.
//!
//! Nothing is dropped silently: every definition not used — switched off, invalid, in a project
//! file while project config is off, denied by policy, removed by the Exa filter — is a
//! [`SkippedServer`] with its source and [`SkipReason`], so a caller can show each server's
//! state without reading a config file itself. A project file that is not read because its
//! tool would not read it from the working folder (a `.vscode/mcp.json` at the repository
//! root, seen from `src/`) is a [`DiscoveryNote`].

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;

use crate::consent::Consent;
use crate::context::DiscoveryContext;
use crate::error::ConfigError;
use crate::expand::expand_server_config;
use crate::origin::{Level, SourceMeta};
use crate::policy::{Policy, PolicyDenial};
use crate::problems::ServerProblem;
use crate::read_pass::{in_read_pass, relative_variables};
use crate::server_config::{ServerConfig, TransportConfig, TransportKind};
use crate::source::UnreadProjectFile;
use crate::trust::{Approvals, ProjectServer};
use crate::validate::validate_server_config;

mod files;
mod options;

use files::{UserFiles, inside_folder, read_every_file};
pub use options::DiscoveryOptions;

/// Where a server's winning definition came from, and the definitions it shadows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ServerSource {
    /// The definition in use.
    pub meta: SourceMeta,
    /// Lower-priority definitions of the same name, highest first.
    pub shadowed: Vec<SourceMeta>,
}

/// A server discovery found usable: its configuration (`${VAR}` expanded) and where it came
/// from.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct DiscoveredServer {
    /// The configuration, expanded (`!command` values and OAuth tokens are resolved later, at
    /// connect time).
    pub config: ServerConfig,
    /// The definition as written, `${VAR}` references unexpanded: what identifies the server
    /// for approvals, and (with the expanded `config`, the file and the login, hashed) for its
    /// tool cache entry. It holds no value from the environment, so a rotated secret changes
    /// nothing here, while an edited definition does.
    pub definition: ServerConfig,
    /// Where it came from.
    pub source: ServerSource,
}

impl DiscoveredServer {
    /// A server defined at `meta`, shadowing nothing, whose definition is `config` itself.
    pub fn new(config: ServerConfig, meta: SourceMeta) -> Self {
        Self {
            definition: config.clone(),
            config,
            source: ServerSource {
                meta,
                shadowed: Vec::new(),
            },
        }
    }
}

/// Why discovery did not use a server definition.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SkipReason {
    /// Switched off: `enabled: false` (or the tool's own switch), or named in the user file's
    /// `disabledServers`.
    Disabled,
    /// The definition cannot be used.
    Invalid(InvalidServer),
    /// It is in a project-level file and project config is off.
    ProjectConfigOff,
    /// The Exa filter removed it (its API keys are in [`DiscoveryResult::exa_api_keys`]).
    ExaFiltered,
    /// It is defined in a file inside the project folder and the user has not approved it (as
    /// it is now): it does not run until they do (see [`TrustPolicy`](crate::TrustPolicy)).
    NeedsApproval,
    /// The machine's enterprise policy does not let it run (see [`PolicyDenial`](crate::PolicyDenial)'s rules);
    /// shown as `denied by policy: …`.
    DeniedByPolicy(PolicyDenial),
}

/// A server definition that cannot be used, with every problem found in it. Shown as the
/// problems' messages joined by `; `.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", joined(.problems))]
#[non_exhaustive]
pub struct InvalidServer {
    /// The server.
    pub server: String,
    /// Every problem, each naming the server; shown e.g. as `Server "x": stdio server requires
    /// "command" field` or `Server "x": environment variable "TOKEN" is not set (used in
    /// env.TOKEN); …`.
    pub problems: Vec<ServerProblem>,
}

impl InvalidServer {
    /// A server with these problems.
    pub fn new(server: impl Into<String>, problems: Vec<ServerProblem>) -> Self {
        Self {
            server: server.into(),
            problems,
        }
    }
}

/// The problems' messages, joined by `; `.
fn joined(problems: &[ServerProblem]) -> String {
    problems
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

/// A server definition discovery did not use, where it is, and why.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SkippedServer {
    /// The server's name.
    pub name: String,
    /// Where the definition is.
    pub source: SourceMeta,
    /// The definition's transport, when it could be read.
    pub transport: Option<TransportKind>,
    /// The definition as written (`${VAR}` unexpanded, `!cmd` unresolved), when it could be
    /// read: what a person approves, and what `get` shows, for a server that is not used.
    pub definition: Option<ServerConfig>,
    /// Why it is not used.
    pub reason: SkipReason,
    /// For a project server waiting for approval ([`SkipReason::NeedsApproval`]): what
    /// approving it lets it do, the description an approval is of ([`Consent`]).
    pub consent: Option<Consent>,
}

/// A config file that could not be read or parsed; the other files were still used.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct FileError {
    /// The file.
    pub path: PathBuf,
    /// What is wrong with it (the message names the file).
    pub error: Arc<ConfigError>,
}

/// Everything discovery found.
#[derive(Debug, Default, Clone)]
#[non_exhaustive]
pub struct DiscoveryResult {
    /// The usable servers by name, with their expanded configuration and source.
    pub servers: BTreeMap<String, DiscoveredServer>,
    /// Definitions not used (switched off, invalid, filtered), in priority order. A name may
    /// appear here and in [`servers`](Self::servers) too, when another definition of it is used.
    pub skipped: Vec<SkippedServer>,
    /// Files that could not be read or parsed.
    pub file_errors: Vec<FileError>,
    /// API keys of the Exa servers removed by `filter_exa`.
    pub exa_api_keys: Vec<String>,
    /// Things worth telling the user that are not errors: project files discovery did not read
    /// because the tool that owns them would not read them from the working folder.
    pub notes: Vec<DiscoveryNote>,
}

/// Something discovery tells the user that is neither an error nor a server.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DiscoveryNote {
    /// A project file in a folder above the working folder (up to the repository root) of a
    /// tool that reads its project files only in the folder it starts in, so it was not read:
    /// running from that folder would use it.
    ProjectFileAbove(UnreadProjectFile),
    /// A variable that moves a tool's files (`CODEX_HOME`, `CLAUDE_CONFIG_DIR`, …) is set to a
    /// relative path, so it was not used: the tool's default folder was read instead.
    RelativePathVariable {
        /// The variable.
        variable: String,
        /// Its value.
        value: String,
    },
}

impl std::fmt::Display for DiscoveryNote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::ProjectFileAbove(file) => file.fmt(f),
            Self::RelativePathVariable { variable, value } => write!(
                f,
                "${variable} is a relative path ({value:?}), so it is not used and the default \
                 folder is read instead: a relative path would make files of the project folder \
                 count as your own; set it to an absolute path"
            ),
        }
    }
}

impl DiscoveryResult {
    /// Why `name` is not used, when no definition of it is: the highest-priority skipped
    /// definition. `None` for a server in use, or one discovery never saw.
    pub fn skip_of(&self, name: &str) -> Option<&SkippedServer> {
        if self.servers.contains_key(name) {
            return None;
        }
        self.skipped.iter().find(|skipped| skipped.name == name)
    }

    /// The servers whose definitions are invalid (and not defined usably elsewhere).
    pub fn invalid(&self) -> impl Iterator<Item = &InvalidServer> {
        self.skipped
            .iter()
            .filter_map(|skipped| match &skipped.reason {
                SkipReason::Invalid(invalid) if !self.servers.contains_key(&skipped.name) => {
                    Some(invalid)
                }
                _ => None,
            })
    }

    /// Every name discovery saw, used or skipped, sorted.
    pub fn names(&self) -> BTreeSet<&str> {
        self.servers
            .keys()
            .map(String::as_str)
            .chain(self.skipped.iter().map(|skipped| skipped.name.as_str()))
            .collect()
    }
}

struct Candidate {
    name: String,
    config: ServerConfig,
    meta: SourceMeta,
}

/// Reads every provider's files and returns the merged, filtered, validated servers.
/// Never fails as a whole: each problem is a [`FileError`] or a [`SkippedServer`].
pub fn load_all_configs(ctx: &DiscoveryContext, options: &DiscoveryOptions) -> DiscoveryResult {
    let mut result = DiscoveryResult::default();
    let mut candidates = Vec::new();
    let mut disabled_names = BTreeSet::new();

    // Project files are the walk's: from the working folder up to the repository root (taken
    // in the pass, which the providers took it in).
    let ((files, unread, policy, policy_errors, project_folders), _) = in_read_pass(|| {
        let (files, unread) = read_every_file(ctx, options);
        let (policy, policy_errors) = Policy::load(ctx);
        result.notes.extend(
            relative_variables()
                .into_iter()
                .map(|(variable, value)| DiscoveryNote::RelativePathVariable { variable, value }),
        );
        (files, unread, policy, policy_errors, ctx.project_folders())
    });
    for error in policy_errors {
        let path = error.path().map(Path::to_path_buf).unwrap_or_default();
        result.file_errors.push(FileError {
            path,
            error: Arc::new(error),
        });
    }
    if options.enable_project_config {
        // A file another provider reads is no news, whoever else would not read it.
        let unread = unread
            .into_iter()
            .filter(|note| !files.iter().any(|(_, file, _)| file.path == note.path));
        result
            .notes
            .extend(unread.map(DiscoveryNote::ProjectFileAbove));
    }
    let walk_top = project_folders.last().map_or(ctx.cwd(), PathBuf::as_path);
    let user_files = UserFiles::new(files.iter().map(|(_, file, _)| file));
    for (source, file, also_used_by) in files {
        if file.level == Level::Project && user_files.is_other_path_of_user_file(&file.path) {
            // The same file reached through a symlinked home or folder: read at user level.
            tracing::debug!(path = %file.path.display(), "a project path is a user file; read once");
            continue;
        }
        let mut meta = SourceMeta::new(source.id(), source.name(), &file.path, file.level);
        meta.also_used_by = also_used_by;
        meta.in_project_folder = file.level == Level::Project
            && inside_folder(&file.path, walk_top)
            // Not another name of a user file (those were skipped above): one by its name.
            && !user_files.is_named(&file.path);
        if meta.in_project_folder {
            // By the names first: resolving symlinks costs a look at every part of both paths.
            let folder = project_folders
                .iter()
                .find(|folder| file.path.starts_with(folder))
                .or_else(|| {
                    project_folders
                        .iter()
                        .find(|folder| inside_folder(&file.path, folder))
                });
            meta.project_folder = Some(folder.map_or(walk_top, PathBuf::as_path).to_path_buf());
        }
        let contents = match file.contents {
            Ok(contents) => contents,
            Err(error) => {
                if file.level == Level::Project && !options.enable_project_config {
                    tracing::debug!(path = %file.path.display(), "project config is off; skipping");
                } else {
                    tracing::debug!(path = %file.path.display(), %error, "skipping an MCP config file");
                    result.file_errors.push(FileError {
                        path: file.path,
                        error: Arc::new(error),
                    });
                }
                continue;
            }
        };
        if file.level == Level::Project && !options.enable_project_config {
            tracing::debug!(path = %file.path.display(), "project config is off; skipping");
            let entries = contents.servers.into_iter();
            let entries = entries.map(|(name, config)| (name, Some(config)));
            let invalid = contents
                .invalid
                .into_iter()
                .map(|problem| (problem.server, None));
            for (name, definition) in entries.chain(invalid) {
                result.skip(name, &meta, definition, SkipReason::ProjectConfigOff);
            }
            continue;
        }
        for problem in contents.invalid {
            let name = problem.server.clone();
            let invalid = InvalidServer::new(name.clone(), vec![problem]);
            result.skip(name, &meta, None, SkipReason::Invalid(invalid));
        }
        disabled_names.extend(contents.disabled_servers);
        for (name, config) in contents.servers {
            candidates.push(Candidate {
                name,
                config,
                meta: meta.clone(),
            });
        }
    }

    // Read once per folder, when its first project server asks: most folders have none.
    let mut approvals: BTreeMap<PathBuf, Approvals> = BTreeMap::new();
    // Managed definitions first: an administrator's server wins its name over everyone's.
    candidates.sort_by_key(|candidate| candidate.meta.level != Level::Managed);
    let replaced = if options.trust.trusts_all() {
        Vec::new()
    } else {
        user_definitions_replaced(&candidates, &disabled_names)
    };
    let mut replaced = replaced.into_iter();
    let mut winners: BTreeMap<String, (Candidate, Vec<SourceMeta>)> = BTreeMap::new();
    for mut candidate in candidates {
        let replaces = replaced.next().flatten();
        if let Some(denial) = policy.denial(&candidate.name, &candidate.config, &ctx.env) {
            tracing::debug!(server = candidate.name, %denial, "the enterprise policy denies a server");
            result.skip(
                candidate.name,
                &candidate.meta,
                Some(candidate.config),
                SkipReason::DeniedByPolicy(denial),
            );
            continue;
        }
        // A project server switched off for its project (`disabledProjectServers`).
        let disabled_here = candidate.meta.in_project_folder && {
            let folder = (candidate.meta.project_folder.as_deref()).unwrap_or(ctx.cwd());
            approvals
                .entry(folder.to_path_buf())
                .or_insert_with(|| Approvals::load(ctx, folder))
                .disabled(&candidate.name)
        };
        if !candidate.config.is_enabled()
            || disabled_names.contains(&candidate.name)
            || disabled_here
        {
            result.skip(
                candidate.name,
                &candidate.meta,
                Some(candidate.config),
                SkipReason::Disabled,
            );
            continue;
        }
        // Under `TrustAll` every project server runs: nothing to describe, nothing asked.
        if candidate.meta.in_project_folder && options.trust.trusts_all() {
            candidate.meta.approved = true;
        }
        // Decided before the winner is chosen: an unapproved project definition does not
        // hide the user's own definition of the same name.
        if candidate.meta.in_project_folder && !options.trust.trusts_all() {
            // An entry that could not run even once approved (a name of hidden characters, a
            // root that is no folder) is invalid now, rather than waiting for an approval that
            // would change nothing; a variable unset here is no such fault (approved as
            // written, it reports the variable when it runs).
            if let Err(Unusable::Invalid(problems)) = usable(&candidate, &ctx.env) {
                let invalid =
                    SkipReason::Invalid(InvalidServer::new(candidate.name.clone(), problems));
                result.skip(
                    candidate.name,
                    &candidate.meta,
                    Some(candidate.config),
                    invalid,
                );
                continue;
            }
            let folder = candidate
                .meta
                .project_folder
                .as_deref()
                .unwrap_or(ctx.cwd());
            let consent = Consent::of(&candidate.config, &candidate.meta).replacing(replaces);
            let asking = ProjectServer {
                name: &candidate.name,
                folder,
                source: &candidate.meta,
                definition: &candidate.config,
                consent: &consent,
            };
            let allowed = options.trust.allows(&asking, || {
                approvals
                    .entry(folder.to_path_buf())
                    .or_insert_with(|| Approvals::load(ctx, folder))
            });
            candidate.meta.approved = allowed;
            if !allowed {
                tracing::debug!(
                    server = candidate.name,
                    "a project server waits for approval"
                );
                result.skip(
                    candidate.name,
                    &candidate.meta,
                    Some(candidate.config),
                    SkipReason::NeedsApproval,
                );
                if let Some(skipped) = result.skipped.last_mut() {
                    skipped.consent = Some(consent);
                }
                continue;
            }
        }
        if options.filter_exa && is_exa(&candidate.name, &candidate.config) {
            let expanded = expand_server_config(&candidate.name, &candidate.config, &ctx.env);
            let config = expanded.as_ref().unwrap_or(&candidate.config);
            for key in exa_api_keys(config) {
                if !result.exa_api_keys.contains(&key) {
                    result.exa_api_keys.push(key);
                }
            }
            result.skip(
                candidate.name,
                &candidate.meta,
                Some(candidate.config),
                SkipReason::ExaFiltered,
            );
            continue;
        }
        match winners.get_mut(&candidate.name) {
            Some((_, shadowed)) => shadowed.push(candidate.meta),
            None => {
                winners.insert(candidate.name.clone(), (candidate, Vec::new()));
            }
        }
    }

    for (name, (winner, shadowed)) in winners {
        let problems = match usable(&winner, &ctx.env) {
            Ok(mut expanded) => {
                expanded.reach = policy.reach(&name, &expanded);
                let source = ServerSource {
                    meta: winner.meta,
                    shadowed,
                };
                let server = DiscoveredServer {
                    config: expanded,
                    definition: winner.config,
                    source,
                };
                result.servers.insert(name, server);
                continue;
            }
            Err(Unusable::Unexpanded(problems) | Unusable::Invalid(problems)) => problems,
        };
        for problem in &problems {
            tracing::debug!(server = name, %problem, "skipping an MCP server");
        }
        let invalid = InvalidServer::new(name.clone(), problems);
        let definition = Some(winner.config);
        result.skip(name, &winner.meta, definition, SkipReason::Invalid(invalid));
    }
    result
}

/// Why a candidate's definition cannot be used as it stands.
enum Unusable {
    /// A `${VAR}` it names cannot be expanded here (unset, nested too deep).
    Unexpanded(Vec<ServerProblem>),
    /// Expanded, it is not a definition that could run (see [`validate_server_config`]).
    Invalid(Vec<ServerProblem>),
}

/// A candidate's definition expanded with `env` and validated: what connects, or why not.
fn usable(candidate: &Candidate, env: &BTreeMap<String, String>) -> Result<ServerConfig, Unusable> {
    let expanded = expand_server_config(&candidate.name, &candidate.config, env)
        .map_err(Unusable::Unexpanded)?;
    let problems = validate_server_config(&candidate.name, &expanded);
    if problems.is_empty() {
        Ok(expanded)
    } else {
        Err(Unusable::Invalid(problems))
    }
}

impl DiscoveryResult {
    fn skip(
        &mut self,
        name: String,
        source: &SourceMeta,
        definition: Option<ServerConfig>,
        reason: SkipReason,
    ) {
        self.skipped.push(SkippedServer {
            name,
            source: source.clone(),
            transport: definition.as_ref().map(ServerConfig::transport_kind),
            definition,
            reason,
            consent: None,
        });
    }
}

/// For each candidate, in order: when it is a project definition, the user's own definition of
/// the same name it would take the place of once approved — the first later one (candidates
/// are in priority order, the first usable one wins) that is not the project's and is switched
/// on. Its approval says so ([`Consent::replacing`]).
fn user_definitions_replaced(
    candidates: &[Candidate],
    disabled_names: &BTreeSet<String>,
) -> Vec<Option<SourceMeta>> {
    candidates
        .iter()
        .enumerate()
        .map(|(index, candidate)| {
            if !candidate.meta.in_project_folder || disabled_names.contains(&candidate.name) {
                return None;
            }
            candidates[index + 1..]
                .iter()
                .find(|other| {
                    other.name == candidate.name
                        && !other.meta.in_project_folder
                        && other.config.is_enabled()
                })
                .map(|other| other.meta.clone())
        })
        .collect()
}

const EXA_HOST: &str = "mcp.exa.ai";

/// An Exa server: named `exa`, or pointing at (or launched with) `mcp.exa.ai`.
fn is_exa(name: &str, config: &ServerConfig) -> bool {
    name.eq_ignore_ascii_case("exa")
        || match &config.transport {
            TransportConfig::Stdio(stdio) => stdio.args.iter().any(|arg| arg.contains(EXA_HOST)),
            TransportConfig::Http(remote) | TransportConfig::Sse(remote) => {
                remote.url.contains(EXA_HOST)
            }
            TransportConfig::Custom(_) => false,
        }
}

/// The Exa API keys of a server: `exaApiKey=` in its URL or arguments, `EXA_API_KEY` in its
/// environment.
fn exa_api_keys(config: &ServerConfig) -> Vec<String> {
    let mut keys = Vec::new();
    let (texts, env) = match &config.transport {
        TransportConfig::Stdio(stdio) => (stdio.args.as_slice(), Some(&stdio.env)),
        TransportConfig::Http(remote) | TransportConfig::Sse(remote) => {
            (std::slice::from_ref(&remote.url), None)
        }
        TransportConfig::Custom(_) => (&[][..], None),
    };
    for text in texts {
        let mut rest = text.as_str();
        while let Some(start) = rest.find("exaApiKey=") {
            let value = &rest[start + "exaApiKey=".len()..];
            let end = value
                .find(['&', '#', ' ', '"', '\''])
                .unwrap_or(value.len());
            if end > 0 {
                keys.push(value[..end].to_owned());
            }
            rest = &value[end..];
        }
    }
    let env_key = env.and_then(|env| env.get("EXA_API_KEY"));
    if let Some(key) = env_key.filter(|key| !key.is_empty()) {
        keys.push(key.clone());
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server_config::StdioConfig;
    use crate::source::FileServers;
    use crate::source::SourceFile;

    /// On ext4 a freed inode number goes to the next file created, so the project file written
    /// right after the user file was replaced gets the user file's old number: it must still be
    /// read as a project file (a race seen with concurrent `add`s in separate processes).
    #[test]
    fn a_project_file_given_a_replaced_user_files_inode_is_not_taken_for_the_user_file() {
        let dir = std::env::temp_dir().join(format!("mcp-config-reuse-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (user, project) = (dir.join("user.json"), dir.join("project.json"));
        std::fs::write(&user, "{}").unwrap();
        let read = [SourceFile::new(
            &user,
            Level::User,
            Ok(FileServers::default()),
        )];
        let user_files = UserFiles::new(read.iter());
        // Another process replaces the user file, then writes the project file.
        std::fs::write(dir.join("user.tmp"), "{}").unwrap();
        std::fs::rename(dir.join("user.tmp"), &user).unwrap();
        std::fs::write(dir.join("project.tmp"), "{}").unwrap();
        std::fs::rename(dir.join("project.tmp"), &project).unwrap();
        let taken =
            user_files.is_other_path_of_user_file(&project) || user_files.is_named(&project);
        // A real second name of the user file is still recognised.
        std::os::unix::fs::symlink(&user, dir.join("link.json")).unwrap();
        let link_seen = user_files.is_other_path_of_user_file(&dir.join("link.json"));
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(!taken, "the project file was taken for the user file");
        assert!(link_seen, "a symlink to the user file was not recognised");
    }

    #[test]
    fn options_debug_names_each_provider_by_id() {
        let options = DiscoveryOptions::default().disable_provider("cursor");
        let shown = format!("{options:?}");
        assert!(shown.contains(r#"ConfigSource("claude-code")"#), "{shown}");
        assert!(
            shown.contains(r#"disabled_providers: {"cursor"}"#),
            "{shown}"
        );
    }

    #[test]
    fn exa_keys_come_from_url_args_and_env() {
        let remote =
            ServerConfig::http("https://mcp.exa.ai/mcp?exaApiKey=url-key&tools=web_search");
        assert!(is_exa("search", &remote));
        assert_eq!(exa_api_keys(&remote), ["url-key"]);

        let mut stdio = StdioConfig::new(
            "npx",
            [
                "-y",
                "mcp-remote",
                "https://mcp.exa.ai/mcp?exaApiKey=arg-key",
            ],
        );
        stdio.env.insert("EXA_API_KEY".into(), "env-key".into());
        let local = ServerConfig::new(TransportConfig::Stdio(stdio));
        assert!(is_exa("web", &local));
        assert_eq!(exa_api_keys(&local), ["arg-key", "env-key"]);

        assert!(is_exa(
            "Exa",
            &ServerConfig::stdio("exa-mcp-server", Vec::<String>::new())
        ));
        assert!(!is_exa(
            "github",
            &ServerConfig::stdio("gh-mcp", Vec::<String>::new())
        ));
    }
}
