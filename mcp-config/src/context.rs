//! [`DiscoveryContext`]: every root discovery reads from, built by the caller.
//!
//! Nothing in this crate reads `HOME`, the current directory or the environment on its own:
//! the context carries them, so tests point discovery at a temporary folder and never touch the
//! real home. [`DiscoveryContext::from_process`] builds the context an agent normally wants.
//!
//! It also holds the one walk every provider uses for project files found from a subfolder
//! ([`DiscoveryContext::project_folders`]): the working folder, then each parent up to the
//! repository root, never reaching `$HOME` or above. A tool that looks for its project files in
//! parent folders reads them in these folders and nowhere else; a tool that reads them only in
//! the folder it starts in reads them in the first one, and the others are where discovery looks
//! for files of that tool that it would not read from here
//! ([`DiscoveryContext::project_files_above`]).

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fmt;
use std::path::{Component, Path, PathBuf};

use crate::error::ConfigError;
use crate::user_dirs::UserDir;

/// The roots and environment discovery works from.
#[derive(Clone)]
#[non_exhaustive]
pub struct DiscoveryContext {
    /// The embedding agent's name; its native files are `.<app>/mcp.json` in the project and
    /// `<config dir>/<app>/mcp.json` for the user.
    pub app_name: String,
    /// The working folder: where the agent runs, and the first of the
    /// [`project_folders`](Self::project_folders). Absolute and canonical ([`project_folder`]):
    /// set only through [`new`](Self::new) and [`from_process`](Self::from_process), so that
    /// nothing is decided under a relative name.
    cwd: PathBuf,
    /// The user's home directory.
    pub home: PathBuf,
    /// The user's config directory (`$XDG_CONFIG_HOME`, else `~/.config`: [`UserDir::Config`]).
    pub config_dir: PathBuf,
    /// The environment used for `${VAR}` expansion and for variables that move config files
    /// (`CODEX_HOME`, …).
    pub env: BTreeMap<String, String>,
    /// Where enterprise-managed files are (Claude Code's `managed-settings.json`): the
    /// platform's folder for a context [`from_process`](Self::from_process), none for one
    /// built with [`new`](Self::new), so tests never read the machine's.
    pub managed_dir: Option<PathBuf>,
    /// Where other tools' system-wide config files are (`/etc` on Unix: Goose's
    /// `goose/config.yaml`, Crush's `crush/crush.json`): `/etc` for a context
    /// [`from_process`](Self::from_process) on Unix, none for one built with
    /// [`new`](Self::new), so tests never read the machine's.
    pub system_dir: Option<PathBuf>,
}

/// Claude Code's folder for enterprise-managed files on this platform (code.claude.com/docs
/// "managed-mcp"). Settings an administrator delivers another way — a macOS configuration
/// profile, the Windows registry, Anthropic's server-managed settings — are not read.
fn platform_managed_dir() -> Option<PathBuf> {
    if cfg!(target_os = "macos") {
        Some(PathBuf::from("/Library/Application Support/ClaudeCode"))
    } else if cfg!(unix) {
        Some(PathBuf::from("/etc/claude-code"))
    } else if cfg!(windows) {
        Some(PathBuf::from(r"C:\Program Files\ClaudeCode"))
    } else {
        None
    }
}

impl DiscoveryContext {
    /// A context with an empty environment and `~/.config` as the config directory. `cwd` is
    /// made absolute and canonical ([`project_folder`]): `"."` is the process's working
    /// directory, wherever the agent was started.
    pub fn new(
        app_name: impl Into<String>,
        cwd: impl Into<PathBuf>,
        home: impl Into<PathBuf>,
    ) -> Self {
        let home = home.into();
        Self {
            app_name: app_name.into(),
            cwd: project_folder(&cwd.into()),
            config_dir: UserDir::Config.in_home(&home),
            home,
            env: BTreeMap::new(),
            managed_dir: None,
            system_dir: None,
        }
    }

    /// The context of this process: `HOME`, `XDG_CONFIG_HOME` and the whole environment.
    pub fn from_process(
        app_name: impl Into<String>,
        cwd: impl Into<PathBuf>,
    ) -> Result<Self, ConfigError> {
        let env: BTreeMap<String, String> = std::env::vars_os()
            .filter_map(|(key, value)| Some((key.into_string().ok()?, value.into_string().ok()?)))
            .collect();
        let home = env
            .get("HOME")
            .filter(|home| !home.is_empty())
            .map(PathBuf::from)
            .ok_or(ConfigError::NoHome)?;
        let mut context = Self::new(app_name, cwd, home);
        context.config_dir =
            UserDir::Config.under(&context.home, |var| env.get(var).map(OsString::from));
        context.env = env;
        context.managed_dir = platform_managed_dir();
        context.system_dir = cfg!(unix).then(|| PathBuf::from("/etc"));
        Ok(context)
    }

    /// Replaces the environment.
    #[must_use]
    pub fn with_env<I, K, V>(mut self, vars: I) -> Self
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<String>,
        V: Into<String>,
    {
        self.env = vars
            .into_iter()
            .map(|(k, v)| (k.into(), v.into()))
            .collect();
        self
    }

    /// Replaces the config directory.
    #[must_use]
    pub fn with_config_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.config_dir = dir.into();
        self
    }

    /// Replaces the folder of enterprise-managed files.
    #[must_use]
    pub fn with_managed_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.managed_dir = Some(dir.into());
        self
    }

    /// Replaces the folder of other tools' system-wide config files.
    #[must_use]
    pub fn with_system_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.system_dir = Some(dir.into());
        self
    }

    /// The working folder, absolute and canonical: where discovery walks up from, and the
    /// first of the [`project_folders`](Self::project_folders).
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// An environment variable, if set.
    pub fn var(&self, name: &str) -> Option<&str> {
        self.env.get(name).map(String::as_str)
    }

    /// A variable naming a file or folder (`CODEX_HOME`, `APPDATA`, …): its value as a path,
    /// when it is set to an absolute path. An empty one counts as unset, as the tools read it.
    /// A relative one is not used either (and discovery notes it,
    /// [`DiscoveryNote::RelativePathVariable`](crate::DiscoveryNote::RelativePathVariable)): the
    /// tool would take it from the folder it starts in, which makes a cloned repository's files
    /// the user's own, run without approval.
    pub fn path_var(&self, name: &str) -> Option<PathBuf> {
        let value = self.var(name).filter(|value| !value.is_empty())?;
        let path = PathBuf::from(value);
        if path.is_relative() {
            crate::read_pass::note_relative_variable(name, value);
            return None;
        }
        Some(path)
    }

    /// The project's native file: `<cwd>/.<app>/mcp.json`.
    pub fn native_project_file(&self) -> PathBuf {
        self.cwd
            .join(format!(".{}", self.app_name))
            .join("mcp.json")
    }

    /// The folders whose project files a tool that looks in parent folders reads, nearest
    /// first: the working folder, then each parent up to the repository root (the nearest folder
    /// holding a `.git` folder or file, as Git and Codex mark it).
    ///
    /// The walk never goes above the repository root and never reaches `$HOME` or a folder above
    /// it (compared as written and with symlinks resolved): a file there is the user's, never a
    /// project's. When no repository root is found below `$HOME`, or the working folder is not
    /// inside one, the working folder alone is the project: a `.mcp.json` in a shared folder
    /// such as `/tmp` is never picked up by every project under it.
    pub fn project_folders(&self) -> Vec<PathBuf> {
        self.walk().0
    }

    /// The repository root the walk ends at, when the working folder is inside a repository
    /// below `$HOME` (see [`project_folders`](Self::project_folders)).
    pub fn repository_root(&self) -> Option<PathBuf> {
        self.walk().1
    }

    /// The folder a project is known by: the repository root, else the working folder. Claude
    /// Code keys `~/.claude.json` `projects[…]` by it, and Codex falls back to it for trust.
    pub fn project_root(&self) -> PathBuf {
        self.repository_root().unwrap_or_else(|| self.cwd.clone())
    }

    /// The files at `relative` (e.g. `.vscode/mcp.json`) that exist in the walked folders above
    /// the working folder, nearest first, each with its folder: project files of a tool that
    /// reads them only in the folder it starts in, which that tool would not read from here.
    pub fn project_files_above(&self, relative: &Path) -> Vec<(PathBuf, PathBuf)> {
        self.project_folders()
            .into_iter()
            .skip(1)
            .map(|folder| {
                let path = folder.join(relative);
                (folder, path)
            })
            .filter(|(_, path)| path.exists())
            .collect()
    }

    /// The walk: the folders, nearest first, and the repository root it ended at. Inside a
    /// discovery pass it is taken once (every provider asks for it, some several times); a
    /// later pass walks again (a repository may have appeared).
    fn walk(&self) -> (Vec<PathBuf>, Option<PathBuf>) {
        crate::read_pass::once_per_pass(&self.cwd, &self.home, || self.walk_now())
    }

    fn walk_now(&self) -> (Vec<PathBuf>, Option<PathBuf>) {
        let home = [
            Some(self.home.clone()),
            std::fs::canonicalize(&self.home).ok(),
        ];
        let home_or_above = |folder: &Path| {
            let resolved = std::fs::canonicalize(folder).ok();
            home.iter().flatten().any(|home| {
                home.starts_with(folder)
                    || resolved
                        .as_ref()
                        .is_some_and(|resolved| home.starts_with(resolved))
            })
        };
        // The working folder is canonical (`new` made it so): its parents are the real ones.
        let mut folders: Vec<PathBuf> = Vec::new();
        for folder in self.cwd.ancestors() {
            if folder.as_os_str().is_empty() {
                break;
            }
            // The working folder is always the project's, even at `$HOME`; a parent never is.
            if !folders.is_empty() && home_or_above(folder) {
                break;
            }
            folders.push(folder.to_path_buf());
            if std::fs::symlink_metadata(folder.join(".git")).is_ok() {
                let root = folders.last().cloned();
                return (folders, root);
            }
        }
        (vec![self.cwd.clone()], None)
    }

    /// The user's native file: `<config dir>/<app>/mcp.json`.
    pub fn native_user_file(&self) -> PathBuf {
        self.config_dir.join(&self.app_name).join("mcp.json")
    }

    /// Where the agent keeps the user's OAuth logins: `<config dir>/<app>/credentials.json`.
    pub fn credentials_file(&self) -> PathBuf {
        self.config_dir
            .join(&self.app_name)
            .join("credentials.json")
    }
}

/// `folder` as discovery and approvals name it: absolute and canonical (symlinks resolved), so
/// that `"."` or `src/deep` names the folder it means wherever the process runs, and one folder
/// has one name for its approvals however it was reached. A folder that does not exist (yet)
/// is made absolute against the process's working directory, `.` and `..` taken out by their
/// text. Only when even that cannot be done (the process's working directory is gone) does a
/// relative name stay, and approvals are then neither recorded nor matched under it.
pub fn project_folder(folder: &Path) -> PathBuf {
    std::fs::canonicalize(folder).unwrap_or_else(|_| {
        let absolute = std::path::absolute(folder).unwrap_or_else(|_| folder.to_path_buf());
        lexically_normal(&absolute)
    })
}

/// `path` with `.` dropped and each `..` taking the folder before it away (never above the
/// root), by its text alone.
fn lexically_normal(path: &Path) -> PathBuf {
    let mut normal = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !normal.pop() && !normal.has_root() {
                    normal.push(component);
                }
            }
            other => normal.push(other),
        }
    }
    normal
}

impl fmt::Debug for DiscoveryContext {
    /// Environment values can be secrets: only the names are shown.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DiscoveryContext")
            .field("app_name", &self.app_name)
            .field("cwd", &self.cwd)
            .field("home", &self.home)
            .field("config_dir", &self.config_dir)
            .field("env", &self.env.keys().collect::<Vec<_>>())
            .field("managed_dir", &self.managed_dir)
            .field("system_dir", &self.system_dir)
            .finish()
    }
}
