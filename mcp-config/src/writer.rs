//! Config writing for the `/mcp` commands: add, remove, enable and disable servers.
//!
//! Only this agent's **native** files are ever written: the project file
//! (`<cwd>/.<app>/mcp.json`, [`DiscoveryContext::native_project_file`]) and the user file
//! (`<config dir>/<app>/mcp.json`, [`DiscoveryContext::native_user_file`]). Their format is
//!
//! ```json
//! {
//!   "mcpServers": { "name": { "command": "npx", "args": ["-y", "server"] } },
//!   "disabledServers": ["some-user-server-from-another-tool"],
//!   "disabledProjectServers": { "/path/to/project": ["a-project-server-of-another-tool"] }
//! }
//! ```
//!
//! plus anything else a user or another program put there. Servers that come from another
//! tool's file (Claude Code, Cursor, …) are never edited in place: disabling one adds its name
//! to the user file's `disabledServers` (a user-level server), or to its project's list in
//! `disabledProjectServers` (a project's server: a choice about that project, which leaves a
//! server of the same name elsewhere alone); enabling it removes the name again.
//!
//! Every change follows the same rules:
//!
//! - The file is read first. A missing file counts as `{}`; a file that does not parse is an
//!   error and is never overwritten.
//! - Only what the change needs is touched: unknown top-level fields, unknown per-server fields
//!   and the other servers stay as they are, in their order.
//! - The new contents are written as every private file of the runtime is
//!   ([`mcp_private_files`]): a uniquely named file in the same directory, created with mode
//!   `0600`, written, synced and renamed over the target, the directory synced. The file's own
//!   mode is kept as long as it is no wider than `0600` (a `0400` file stays `0400`; a `0644`
//!   one becomes `0600`: the file holds secrets). A missing directory is created with mode
//!   `0700`; existing directories are left alone.
//! - When the target is a symlink, the file it points to is replaced and the link stays.
//! - A change that is already in place writes nothing.
//! - Writers take turns, across processes: the read, the change and the write happen under an
//!   exclusive lock of the file (`flock` on `.<name>.lock` beside it, removed when the change
//!   is done, so none is left in a project's folder), so two `add`s racing each other both
//!   land. A writer that cannot get the lock within 30 seconds fails with an error saying so,
//!   and writes nothing.
//!
//! The reading, the lock and the writing back are `writer/file.rs`; this file is what each
//! change does to the document.
//!
//! ```no_run
//! use mcp_config::{DiscoveryContext, Level, ServerConfig};
//! use mcp_config::writer::{add_server, set_server_enabled};
//!
//! # fn run() -> Result<(), mcp_config::ConfigError> {
//! let ctx = DiscoveryContext::from_process("my-agent", std::env::current_dir().unwrap_or_default())?;
//! let path = add_server(&ctx, Level::User, "files", &ServerConfig::stdio("npx", ["-y", "files"]))?;
//! println!("added \"files\" to {}", path.display());
//! for change in set_server_enabled(&ctx, "files", false, None)? {
//!     println!("{change}");
//! }
//! # Ok(()) }
//! ```

mod file;

use std::fmt;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::consent::{Consent, approval_hash};
use crate::context::DiscoveryContext;
use crate::error::{ChangeProblem, ConfigError, ShapeProblem};
use crate::origin::{Level, SourceMeta};
use crate::server_config::ServerConfig;
use crate::trust::{DISABLED_PROJECT_SERVERS_KEY, TRUSTED_PROJECTS_KEY};

use self::file::{Document, unchanged_shape_error};

/// The provider id of this agent's own files in [`SourceMeta::provider`].
const NATIVE_PROVIDER: &str = "native";
/// The key holding the server definitions.
const SERVERS_KEY: &str = "mcpServers";
/// The key holding the names of servers switched off (honoured in the user file).
const DISABLED_KEY: &str = "disabledServers";
/// What one write did to one file, for a CLI to print.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ConfigChange {
    /// The native file that was changed (as the context names it, even when it is a symlink).
    pub path: PathBuf,
    /// The server the change is about.
    pub server: String,
    /// What was done.
    pub action: ChangeAction,
}

/// The kinds of change the writer makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ChangeAction {
    /// The server was added under `mcpServers`.
    Added,
    /// The server was removed from `mcpServers`.
    Removed,
    /// `"enabled": false` was set on the server's entry.
    SetEnabledFalse,
    /// The `enabled` field was removed from the server's entry (it is on by default).
    RemovedEnabledFlag,
    /// The name was added to `disabledServers`.
    AddedToDisabledServers,
    /// The name was removed from `disabledServers`.
    RemovedFromDisabledServers,
    /// The name was added to the project's list in `disabledProjectServers`.
    AddedToDisabledProjectServers,
    /// The name was removed from the project's list in `disabledProjectServers`.
    RemovedFromDisabledProjectServers,
}

impl fmt::Display for ConfigChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let server = &self.server;
        let path = self.path.display();
        match self.action {
            ChangeAction::Added => write!(f, "added \"{server}\" to {path}"),
            ChangeAction::Removed => write!(f, "removed \"{server}\" from {path}"),
            ChangeAction::SetEnabledFalse => {
                write!(f, "set \"enabled\": false on \"{server}\" in {path}")
            }
            ChangeAction::RemovedEnabledFlag => {
                write!(f, "removed \"enabled\" from \"{server}\" in {path}")
            }
            ChangeAction::AddedToDisabledServers => {
                write!(f, "added \"{server}\" to \"{DISABLED_KEY}\" in {path}")
            }
            ChangeAction::RemovedFromDisabledServers => {
                write!(f, "removed \"{server}\" from \"{DISABLED_KEY}\" in {path}")
            }
            ChangeAction::AddedToDisabledProjectServers => write!(
                f,
                "added \"{server}\" to this project's \"{DISABLED_PROJECT_SERVERS_KEY}\" in {path}"
            ),
            ChangeAction::RemovedFromDisabledProjectServers => write!(
                f,
                "removed \"{server}\" from this project's \"{DISABLED_PROJECT_SERVERS_KEY}\" in \
                 {path}"
            ),
        }
    }
}

/// The native file of a level: [`DiscoveryContext::native_project_file`] or
/// [`DiscoveryContext::native_user_file`]. `None` for [`Level::Managed`]: an administrator's
/// files are never written here.
pub fn native_config_path(ctx: &DiscoveryContext, level: Level) -> Option<PathBuf> {
    match level {
        Level::Project => Some(ctx.native_project_file()),
        Level::User => Some(ctx.native_user_file()),
        Level::Managed => None,
    }
}

/// [`native_config_path`], or the error of a change asked at managed level.
fn writable_path(ctx: &DiscoveryContext, level: Level) -> Result<PathBuf, ConfigError> {
    native_config_path(ctx, level).ok_or_else(|| ChangeProblem::ManagedLevel.into())
}

/// Checks a name for a new server: not empty, and only ASCII letters, digits, `-`, `_` and `.`.
pub fn validate_server_name(name: &str) -> Result<(), ConfigError> {
    if name.is_empty() {
        return Err(ChangeProblem::EmptyName.into());
    }
    if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
    {
        return Err(ChangeProblem::BadName {
            name: name.to_owned(),
            bad,
        }
        .into());
    }
    Ok(())
}

/// Adds a server to the native file of `level` and returns that file's path.
///
/// The name must pass [`validate_server_name`] and must not be in that file already (remove it
/// first to replace it). The config is written as given (unexpanded `${VAR}` references stay
/// references); it is not validated here.
pub fn add_server(
    ctx: &DiscoveryContext,
    level: Level,
    name: &str,
    config: &ServerConfig,
) -> Result<PathBuf, ConfigError> {
    validate_server_name(name)?;
    let path = writable_path(ctx, level)?;
    let mut doc = Document::load(&path)?;
    if doc.server(name)?.is_some() {
        return Err(ChangeProblem::AlreadyThere {
            name: name.to_owned(),
            path,
        }
        .into());
    }
    let entry = serde_json::to_value(config).map_err(|source| ChangeProblem::NotJson {
        name: name.to_owned(),
        source,
    })?;
    doc.servers_mut()?.insert(name.to_owned(), entry);
    doc.save()?;
    Ok(path)
}

/// Removes a server from the native file of `level` and returns that file's path.
///
/// A server that is not in that file is an error naming the file; nothing is written then.
pub fn remove_server(
    ctx: &DiscoveryContext,
    level: Level,
    name: &str,
) -> Result<PathBuf, ConfigError> {
    let path = writable_path(ctx, level)?;
    let mut doc = Document::load(&path)?;
    if doc.server(name)?.is_none() {
        return Err(ChangeProblem::NotThere {
            name: name.to_owned(),
            level,
            path,
            file_exists: doc.existed,
        }
        .into());
    }
    doc.servers_mut()?.shift_remove(name);
    doc.save()?;
    Ok(path)
}

/// Turns a server on (`enabled: true`) or off, and returns the changes made (empty when the
/// server was already in that state as far as the native files go).
///
/// `source` is where discovery found the server, if known.
///
/// - A server defined in a native file (the file `source` names first when it is a native
///   project file, found in the working folder or a parent up to the repository root; else the
///   project file, then the user file) is switched in its entry: disabling sets
///   `"enabled": false`, enabling removes the `enabled` field and also removes the name from
///   `disabledServers` (in that file and in the user file).
/// - A project's server from another tool's file (a `source` in the project folder whose
///   provider is not `native`) is switched for that project, in its folder's list in the user
///   file's `disabledProjectServers`: disabling adds the name (once), enabling removes it (and
///   the name from `disabledServers`, where an earlier version put it).
/// - A user-level server from another tool's file, or one that is in no native file, is
///   switched through the user file's `disabledServers` in the same way. The other tool's file
///   is never written.
pub fn set_server_enabled(
    ctx: &DiscoveryContext,
    name: &str,
    enabled: bool,
    source: Option<&SourceMeta>,
) -> Result<Vec<ConfigChange>, ConfigError> {
    if name.is_empty() {
        return Err(ChangeProblem::EmptyName.into());
    }
    let user_path = ctx.native_user_file();
    let mut changes = Vec::new();
    let foreign = source.is_some_and(|meta| meta.provider != NATIVE_PROVIDER);
    if !foreign {
        let levels = match source {
            Some(meta) if meta.level == Level::User || meta.path == user_path => {
                [Level::User, Level::Project]
            }
            _ => [Level::Project, Level::User],
        };
        // A native project file found in a parent folder (the walk up to the repository root)
        // is where that server is switched, as it would be when run from that folder.
        let mut paths: Vec<PathBuf> = source
            .filter(|meta| meta.level == Level::Project && meta.path != user_path)
            .map(|meta| meta.path.clone())
            .into_iter()
            .collect();
        for path in levels
            .into_iter()
            .filter_map(|level| native_config_path(ctx, level))
        {
            if !paths.contains(&path) {
                paths.push(path);
            }
        }
        for path in paths {
            let mut doc = Document::load(&path)?;
            if doc.server(name)?.is_none() {
                continue;
            }
            let action = doc.set_entry_enabled(name, enabled)?;
            let mut unlisted = false;
            if enabled {
                unlisted = doc.unlist_disabled(name)?;
            }
            if action.is_some() || unlisted {
                doc.save()?;
            }
            changes.extend(action.map(|action| change(&path, name, action)));
            if unlisted {
                changes.push(change(
                    &path,
                    name,
                    ChangeAction::RemovedFromDisabledServers,
                ));
            }
            if enabled && path != user_path {
                changes.extend(set_listed_disabled(&user_path, name, false)?);
            }
            return Ok(changes);
        }
    }
    // Another tool's project server: switched for this project only, in the user file.
    if let Some(meta) = source.filter(|meta| meta.in_project_folder) {
        let folder = meta.project_folder.as_deref().unwrap_or(ctx.cwd());
        changes.extend(set_project_disabled(ctx, folder, name, !enabled)?);
        return Ok(changes);
    }
    changes.extend(set_listed_disabled(&user_path, name, !enabled)?);
    Ok(changes)
}

/// The map the user file at `path` keeps folder by folder under `key` (made when missing).
fn folder_map<'a>(
    doc: &'a mut Document,
    path: &Path,
    key: &str,
) -> Result<&'a mut Map<String, Value>, ConfigError> {
    doc.root
        .entry(key)
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
        .ok_or_else(|| not_a_folder_map(path, key))
}

/// The error for a `key` of the user file at `path` that is not a map of folders (or holds a
/// folder's entry of the wrong shape); the file is left as it is.
fn not_a_folder_map(path: &Path, key: &str) -> ConfigError {
    unchanged_shape_error(
        path,
        ShapeProblem::NotAFolderMap {
            key: key.to_owned(),
        },
    )
}

/// Adds `name` to (or removes it from) `folder`'s list in the user file's
/// `disabledProjectServers`; enabling also takes it off `disabledServers` (a name switched off
/// everywhere before projects had their own list). One change of the file, saved once.
fn set_project_disabled(
    ctx: &DiscoveryContext,
    folder: &Path,
    name: &str,
    disabled: bool,
) -> Result<Vec<ConfigChange>, ConfigError> {
    let folder = crate::context::project_folder(folder);
    if folder.is_relative() {
        return Err(ChangeProblem::RelativeFolder { folder }.into());
    }
    let path = ctx.native_user_file();
    let mut doc = Document::load(&path)?;
    let projects = folder_map(&mut doc, &path, DISABLED_PROJECT_SERVERS_KEY)?;
    let key = folder.to_string_lossy().into_owned();
    let list = projects
        .entry(key.clone())
        .or_insert_with(|| Value::Array(Vec::new()))
        .as_array_mut()
        .ok_or_else(|| not_a_folder_map(&path, DISABLED_PROJECT_SERVERS_KEY))?;
    let listed = list.iter().any(|item| item.as_str() == Some(name));
    let action = match (disabled, listed) {
        (true, false) => {
            list.push(Value::String(name.to_owned()));
            Some(ChangeAction::AddedToDisabledProjectServers)
        }
        (false, true) => {
            list.retain(|item| item.as_str() != Some(name));
            if list.is_empty() {
                projects.remove(&key);
            }
            Some(ChangeAction::RemovedFromDisabledProjectServers)
        }
        _ => None,
    };
    let unlisted = !disabled && doc.unlist_disabled(name)?;
    if action.is_some() || unlisted {
        doc.save()?;
    }
    let mut changes: Vec<ConfigChange> = action
        .map(|action| change(&path, name, action))
        .into_iter()
        .collect();
    if unlisted {
        changes.push(change(
            &path,
            name,
            ChangeAction::RemovedFromDisabledServers,
        ));
    }
    Ok(changes)
}

/// Records the user's approval of project servers ([`TrustPolicy`](crate::TrustPolicy)): each name of `servers`
/// with the hash of its definition as written and of the consent description the user was shown
/// ([`approval_hash`]), under `folder` in the user file's `trustedProjects`. A server whose
/// description cannot state what it allows is refused ([`ChangeProblem::NotApprovable`]), and
/// then nothing is written. `folder` is the folder their file belongs to
/// ([`SourceMeta::project_folder`]: the working folder, or the parent up to the repository root
/// that holds the file), so an approval given from a subfolder holds in the whole project. An
/// approval of the same definition already there writes nothing. The names newly approved (or
/// approved again after an edit).
pub fn trust_project_servers(
    ctx: &DiscoveryContext,
    folder: &Path,
    servers: &[(&str, &ServerConfig, &Consent)],
) -> Result<Vec<String>, ConfigError> {
    if let Some((name, _, consent)) = servers
        .iter()
        .find(|(_, _, consent)| !consent.is_approvable())
    {
        return Err(ChangeProblem::NotApprovable {
            name: (*name).to_owned(),
            refused: consent.refused.clone(),
        }
        .into());
    }
    // Recorded under the folder's one name, whatever name the caller gave it.
    let folder = crate::context::project_folder(folder);
    if folder.is_relative() {
        return Err(ChangeProblem::RelativeFolder { folder }.into());
    }
    let path = ctx.native_user_file();
    let mut doc = Document::load(&path)?;
    let folder = folder.to_string_lossy().into_owned();
    let approved = folder_map(&mut doc, &path, TRUSTED_PROJECTS_KEY)?
        .entry(folder)
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
        .ok_or_else(|| not_a_folder_map(&path, TRUSTED_PROJECTS_KEY))?;
    let mut changed = Vec::new();
    for (name, definition, consent) in servers {
        let hash = Value::String(approval_hash(definition, consent));
        if approved.get(*name) != Some(&hash) {
            approved.insert((*name).to_owned(), hash);
            changed.push((*name).to_owned());
        }
    }
    if !changed.is_empty() {
        doc.save()?;
    }
    Ok(changed)
}

/// Withdraws approvals of the servers of the project files discovery reads from the working
/// folder: those recorded under any of [`DiscoveryContext::project_folders`] (the working folder
/// and its parents up to the repository root), the named ones, or all. The names whose approval
/// was withdrawn, each once.
pub fn untrust_project_servers(
    ctx: &DiscoveryContext,
    names: Option<&[String]>,
) -> Result<Vec<String>, ConfigError> {
    // No file, no approval: nothing is locked or made (not even its folder).
    if !ctx.native_user_file().exists() {
        return Ok(Vec::new());
    }
    let mut doc = Document::load(&ctx.native_user_file())?;
    let Some(Value::Object(projects)) = doc.root.get_mut(TRUSTED_PROJECTS_KEY) else {
        return Ok(Vec::new());
    };
    let mut withdrawn: Vec<String> = Vec::new();
    for folder in ctx.project_folders() {
        let folder = folder.to_string_lossy().into_owned();
        let Some(Value::Object(approved)) = projects.get_mut(&folder) else {
            continue;
        };
        let names_here: Vec<String> = approved
            .keys()
            .filter(|name| names.is_none_or(|names| names.contains(name)))
            .cloned()
            .collect();
        for name in names_here {
            approved.shift_remove(&name);
            if !withdrawn.contains(&name) {
                withdrawn.push(name);
            }
        }
        if approved.is_empty() {
            projects.shift_remove(&folder);
        }
    }
    if !withdrawn.is_empty() {
        doc.save()?;
    }
    Ok(withdrawn)
}

/// Adds `name` to (or removes it from) `disabledServers` in the file at `path`.
fn set_listed_disabled(
    path: &Path,
    name: &str,
    disabled: bool,
) -> Result<Option<ConfigChange>, ConfigError> {
    let mut doc = Document::load(path)?;
    let action = if disabled {
        doc.list_disabled(name)?
            .then_some(ChangeAction::AddedToDisabledServers)
    } else {
        doc.unlist_disabled(name)?
            .then_some(ChangeAction::RemovedFromDisabledServers)
    };
    if action.is_some() {
        doc.save()?;
    }
    Ok(action.map(|action| change(path, name, action)))
}

fn change(path: &Path, server: &str, action: ChangeAction) -> ConfigChange {
    ConfigChange {
        path: path.to_owned(),
        server: server.to_owned(),
        action,
    }
}

impl Document {
    /// Writes the change back, without this runtime's own lists that the change emptied.
    fn save(&mut self) -> Result<(), ConfigError> {
        // This runtime's own lists, emptied by the change, go: an empty one means nothing.
        for key in [
            DISABLED_KEY,
            DISABLED_PROJECT_SERVERS_KEY,
            TRUSTED_PROJECTS_KEY,
        ] {
            let empty = match self.root.get(key) {
                Some(Value::Array(items)) => items.is_empty(),
                Some(Value::Object(entries)) => entries.is_empty(),
                _ => false,
            };
            if empty {
                self.root.shift_remove(key);
            }
        }
        self.write()
    }

    /// The entry of server `name`, if the file has one.
    fn server(&self, name: &str) -> Result<Option<&Value>, ConfigError> {
        match self.root.get(SERVERS_KEY) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Object(servers)) => Ok(servers.get(name)),
            Some(_) => Err(self.servers_shape_error()),
        }
    }

    /// The `mcpServers` object, created (at the end) when missing.
    fn servers_mut(&mut self) -> Result<&mut Map<String, Value>, ConfigError> {
        let error = self.servers_shape_error();
        let slot = self
            .root
            .entry(SERVERS_KEY)
            .or_insert_with(|| Value::Object(Map::new()));
        if slot.is_null() {
            *slot = Value::Object(Map::new());
        }
        slot.as_object_mut().ok_or(error)
    }

    fn servers_shape_error(&self) -> ConfigError {
        self.shape_error(ShapeProblem::NotAServerMap {
            key: SERVERS_KEY.to_owned(),
        })
    }

    /// Sets or clears `enabled` on an existing entry; `None` when it already was so.
    fn set_entry_enabled(
        &mut self,
        name: &str,
        enabled: bool,
    ) -> Result<Option<ChangeAction>, ConfigError> {
        let error = self.shape_error(ShapeProblem::EntryNotAnObject {
            key: SERVERS_KEY.to_owned(),
            name: name.to_owned(),
        });
        let Some(entry) = self
            .servers_mut()?
            .get_mut(name)
            .and_then(Value::as_object_mut)
        else {
            return Err(error);
        };
        if enabled {
            match entry.get("enabled") {
                None | Some(Value::Bool(true)) => Ok(None),
                Some(_) => {
                    entry.shift_remove("enabled");
                    Ok(Some(ChangeAction::RemovedEnabledFlag))
                }
            }
        } else if entry.get("enabled") == Some(&Value::Bool(false)) {
            Ok(None)
        } else {
            entry.insert("enabled".to_owned(), Value::Bool(false));
            Ok(Some(ChangeAction::SetEnabledFalse))
        }
    }

    /// The `disabledServers` list, if there is one.
    fn disabled_list(&mut self, create: bool) -> Result<Option<&mut Vec<Value>>, ConfigError> {
        let error = self.shape_error(ShapeProblem::NotANameList {
            key: DISABLED_KEY.to_owned(),
        });
        if !create && self.root.get(DISABLED_KEY).is_none_or(Value::is_null) {
            return Ok(None);
        }
        let slot = self
            .root
            .entry(DISABLED_KEY)
            .or_insert_with(|| Value::Array(Vec::new()));
        if slot.is_null() {
            *slot = Value::Array(Vec::new());
        }
        slot.as_array_mut().map(Some).ok_or(error)
    }

    /// Adds `name` to `disabledServers`; false when it was there already.
    fn list_disabled(&mut self, name: &str) -> Result<bool, ConfigError> {
        let Some(list) = self.disabled_list(true)? else {
            return Ok(false);
        };
        if list.iter().any(|item| item.as_str() == Some(name)) {
            return Ok(false);
        }
        list.push(Value::String(name.to_owned()));
        Ok(true)
    }

    /// Removes every `name` from `disabledServers`; false when it was not there.
    fn unlist_disabled(&mut self, name: &str) -> Result<bool, ConfigError> {
        let Some(list) = self.disabled_list(false)? else {
            return Ok(false);
        };
        let before = list.len();
        list.retain(|item| item.as_str() != Some(name));
        Ok(list.len() != before)
    }
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::time::Duration;

    use super::file::lock;
    use super::*;

    #[test]
    fn server_names_are_checked() {
        assert!(validate_server_name("my-server_1.0").is_ok());
        let empty = validate_server_name("").unwrap_err().to_string();
        assert!(empty.contains("empty"), "{empty}");
        let spaced = validate_server_name("my server").unwrap_err().to_string();
        assert!(spaced.contains("\"my server\""), "{spaced}");
        assert!(spaced.contains("letters, digits"), "{spaced}");
        assert!(validate_server_name("a/b").is_err());
        assert!(validate_server_name("é").is_err());
    }

    #[test]
    fn a_writer_that_cannot_get_the_lock_fails_and_writes_nothing() {
        let dir = std::env::temp_dir().join(format!("mcp-config-lock-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("mcp.json");
        fs::write(&path, "{\"mcpServers\": {}}\n").unwrap();
        // Another process in the middle of a change, as far as the lock goes.
        let holder = lock(&path, Duration::ZERO).unwrap();
        let Err(error) = Document::load_waiting(&path, Duration::from_millis(50)) else {
            panic!("the lock was taken twice");
        };
        let message = error.to_string();
        assert!(message.contains("another process"), "{message}");
        assert!(message.contains("try again"), "{message}");
        assert!(message.contains(".mcp.json.lock"), "{message}");
        drop(holder);
        let mut doc = Document::load_waiting(&path, Duration::ZERO).unwrap();
        doc.servers_mut()
            .unwrap()
            .insert("late".into(), Value::Null);
        doc.save().unwrap();
        assert!(fs::read_to_string(&path).unwrap().contains("late"));
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn changes_print_the_file_and_what_was_done() {
        let shown = change(
            Path::new("/h/.config/a/mcp.json"),
            "x",
            ChangeAction::AddedToDisabledServers,
        )
        .to_string();
        assert_eq!(
            shown,
            "added \"x\" to \"disabledServers\" in /h/.config/a/mcp.json"
        );
    }
}
