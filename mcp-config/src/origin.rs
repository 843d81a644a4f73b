//! Where a server definition came from: the [`Level`] of its file, and the tool and file
//! ([`SourceMeta`], [`ToolRef`]). Plain data every part of discovery passes along.

use std::fmt;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// Whether a definition came from a project's files, from the user's, or from the files an
/// administrator manages for the machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Level {
    /// A file inside the project (the current directory).
    Project,
    /// A file in the user's home or config directory.
    User,
    /// An enterprise-managed file
    /// ([`DiscoveryContext::managed_dir`](crate::DiscoveryContext::managed_dir), such as Claude
    /// Code's `managed-mcp.json`): its servers take precedence over every other definition of
    /// the same name, and nothing here writes to it.
    Managed,
}

impl Level {
    /// `project`, `user` or `managed`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Project => "project",
            Self::User => "user",
            Self::Managed => "managed",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a server definition came from.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SourceMeta {
    /// The provider's id, e.g. `claude-code`.
    pub provider: String,
    /// The provider's display name, e.g. `Claude Code`.
    pub provider_name: String,
    /// The file the definition is in.
    pub path: PathBuf,
    /// Project, user or managed level.
    pub level: Level,
    /// The other tools that read this same file (Copilot CLI, Qwen Code and VS Code read the
    /// `.mcp.json` Claude Code reads), after the one named above, by priority. Discovery reads a
    /// path once and lists its servers once, under the highest-priority provider that reads it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub also_used_by: Vec<ToolRef>,
    /// True when the file is inside the project folder and is not one of the user's own files
    /// (whatever the folder: `$HOME`, `/`, a symlink to either): the definitions that run only
    /// once the user approved them. Set by discovery ([`load_all_configs`](crate::load_all_configs));
    /// not part of the serialized form.
    #[serde(skip)]
    pub in_project_folder: bool,
    /// For a file inside the project folder: the folder it belongs to, the working folder or a
    /// parent up to the repository root, the nearest of
    /// [`DiscoveryContext::project_folders`](crate::DiscoveryContext::project_folders) that holds
    /// it (`/repo` for `/repo/.mcp.json` found from `/repo/src`). Approvals of its servers are
    /// recorded and looked up under this folder, so approving once holds from every subfolder.
    /// Set by discovery; not part of the serialized form.
    #[serde(skip)]
    pub project_folder: Option<PathBuf>,
    /// For a definition in a file inside the project folder: the trust policy let it run (the
    /// user approved it, or the embedder's policy did; see [`TrustPolicy`](crate::TrustPolicy)). Set by discovery;
    /// not part of the serialized form.
    #[serde(skip)]
    pub approved: bool,
}

impl SourceMeta {
    /// Metadata for a definition in `path`.
    pub fn new(
        provider: impl Into<String>,
        provider_name: impl Into<String>,
        path: impl Into<PathBuf>,
        level: Level,
    ) -> Self {
        Self {
            provider: provider.into(),
            provider_name: provider_name.into(),
            path: path.into(),
            level,
            also_used_by: Vec::new(),
            in_project_folder: false,
            project_folder: None,
            approved: false,
        }
    }

    /// True when a definition from here may use settings that reach beyond the definition
    /// itself — read a file of the user's or send a credential to a URL it names (the OAuth
    /// settings of [`AuthConfig::local_credential_fields`](crate::AuthConfig::local_credential_fields)):
    /// it is in one of the user's own files, or in a project file whose server the user
    /// approved, the same approval its `!command` values need.
    pub fn may_use_local_credentials(&self) -> bool {
        !self.in_project_folder || self.approved
    }
}

/// A provider named by its id and display name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ToolRef {
    /// The provider's id, e.g. `copilot-cli`.
    pub id: String,
    /// Its display name, e.g. `Copilot CLI`.
    pub name: String,
}

impl ToolRef {
    /// The provider with this id and name.
    pub fn new(id: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
        }
    }
}
