//! The files discovery reads: every provider's files, each path once
//! ([`read_every_file`]), the user's own among them, so a user file is never taken for a
//! project file ([`UserFiles`]), and whether a file is inside a folder ([`inside_folder`]).

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use crate::context::DiscoveryContext;
use crate::origin::{Level, ToolRef};
use crate::source::{ConfigSource, SourceFile, UnreadProjectFile};

use super::options::DiscoveryOptions;

/// A file one provider read, with the other providers that read the same path.
pub(super) type ReadFile<'a> = (&'a Arc<dyn ConfigSource>, SourceFile, Vec<ToolRef>);

/// Every provider's files, in priority order, each path once: a path a higher-priority
/// provider read already (the `.mcp.json` Claude Code, Copilot CLI, Qwen Code and VS Code all
/// read) is dropped from the later provider, which is named in the first one's
/// `also_used_by` instead, when it could read the file too. When the first could not and a
/// later one can, the later reading is the one used. Kept at user level when any provider
/// reads it as a user file (a
/// user's own file stays in use when project config is off). Also the project files above the
/// working folder that their tools would not read.
pub(super) fn read_every_file<'a>(
    ctx: &DiscoveryContext,
    options: &'a DiscoveryOptions,
) -> (Vec<ReadFile<'a>>, Vec<UnreadProjectFile>) {
    let mut files: Vec<ReadFile<'a>> = Vec::new();
    let mut unread = Vec::new();
    for source in &options.sources {
        if options.disabled_providers.contains(source.id()) {
            continue;
        }
        // A provider may read one file twice itself, for two things (Claude Code's
        // `~/.claude.json` holds its user servers and the project's "local" ones): only
        // another provider's reading is the same file again.
        let earlier = files.len();
        for file in source.load(ctx) {
            let Some((first, kept, also_used_by)) = files[..earlier]
                .iter_mut()
                .find(|(_, kept, _)| kept.path == file.path)
            else {
                files.push((source, file, Vec::new()));
                continue;
            };
            let level = if file.level == Level::User || kept.level == Level::User {
                Level::User
            } else {
                kept.level
            };
            if kept.contents.is_err() && file.contents.is_ok() {
                // The first tool could not read it (Claude Code's strict JSON and a comment,
                // say); this one can: its reading is the one used.
                *first = source;
                *kept = file;
            } else if file.contents.is_ok() {
                let tool = ToolRef::new(source.id(), source.name());
                if !also_used_by.contains(&tool) {
                    also_used_by.push(tool);
                }
            }
            kept.level = level;
        }
        if options.enable_project_config {
            unread.extend(source.unread_project_files(ctx));
        }
    }
    (files, unread)
}

/// The user's own files among those the providers read, so a user file is never taken for a
/// project file: not when the project folder is `$HOME` or `/`, and not when one of the two is
/// reached through a symlink.
///
/// Files are compared by name, and by identity (device and inode) taken from both paths at the
/// moment of the comparison. An identity remembered from earlier would be wrong: when another
/// process replaces the user file (an atomic rename), the old inode is freed and the file system
/// may give its number to the next file written, such as a project file `add` just wrote. That
/// project file would then look like the user file and its servers would vanish. So the
/// identities taken at the first comparison only rule files out (most project files are no user
/// file, and then cost one look, not one per user file); a project file that seems to be a user
/// file is looked at again, with that user file, before it is taken for it. A user file replaced
/// during the comparisons can only make a project file be taken for a project file, which waits
/// for approval: the safe side.
pub(super) struct UserFiles {
    paths: Vec<PathBuf>,
    /// The identity of each of `paths` at the first comparison (`None`: none then).
    identities: OnceLock<Vec<Option<(u64, u64)>>>,
}

impl UserFiles {
    pub(super) fn new<'a>(files: impl Iterator<Item = &'a SourceFile>) -> Self {
        let paths = files
            .filter(|file| file.level == Level::User)
            .map(|file| file.path.clone())
            .collect();
        Self {
            paths,
            identities: OnceLock::new(),
        }
    }

    /// True when `path` is the name of one of the user's files.
    pub(super) fn is_named(&self, path: &Path) -> bool {
        self.paths.iter().any(|user| user == path)
    }

    /// True when `path` is a user file reached under another name (a symlink on the way).
    pub(super) fn is_other_path_of_user_file(&self, path: &Path) -> bool {
        !self.is_named(path) && self.is_same_file_as_one(path)
    }

    /// True when `path` and one of the user's paths name the same file now. The path is looked
    /// at before and after the user file, so a file replaced in between does not match.
    pub(super) fn is_same_file_as_one(&self, path: &Path) -> bool {
        let Some(identity) = file_identity(path) else {
            return false;
        };
        let identities = self
            .identities
            .get_or_init(|| self.paths.iter().map(|user| file_identity(user)).collect());
        self.paths
            .iter()
            .zip(identities)
            .filter(|(_, earlier)| **earlier == Some(identity))
            .any(|(user, _)| {
                file_identity(user) == Some(identity) && file_identity(path) == Some(identity)
            })
    }
}

/// The device and inode of a file, following symlinks.
#[cfg(unix)]
fn file_identity(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt as _;
    std::fs::metadata(path)
        .ok()
        .map(|meta| (meta.dev(), meta.ino()))
}

/// Elsewhere files are compared by their resolved paths alone.
#[cfg(not(unix))]
fn file_identity(_path: &Path) -> Option<(u64, u64)> {
    None
}

/// True when `path` is inside `folder`, compared as written and with symlinks resolved.
pub(super) fn inside_folder(path: &Path, folder: &Path) -> bool {
    if path.starts_with(folder) {
        return true;
    }
    match (std::fs::canonicalize(path), std::fs::canonicalize(folder)) {
        (Ok(path), Ok(folder)) => path.starts_with(folder),
        _ => false,
    }
}
