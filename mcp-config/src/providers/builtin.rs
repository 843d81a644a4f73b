//! [`BuiltinSource`]: what a built-in provider is (its id, name, reader and documented files)
//! and how it serves as a [`ConfigSource`]. Each provider's file defines its own constant.

use super::files::relative;
use crate::context::DiscoveryContext;
use crate::source::{ConfigSource, SourceFile, UnreadProjectFile};

/// A built-in provider: its id, its display name, the reader of its files and, for a tool that
/// reads its project files only in the folder it starts in, which files those are. Each provider's
/// file holds its constant; [`default_sources`](super::default_sources) lists them by priority.
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
    pub(super) const fn new(
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
    /// ([`readme_table`](super::readme_table)).
    pub(super) const fn documented(
        mut self,
        files: &'static str,
        written_from: &'static str,
    ) -> Self {
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
    pub(super) const fn here_only(
        mut self,
        files: &'static [&'static str],
        rule: &'static str,
    ) -> Self {
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
