//! [`DiscoveryContext`]: every root discovery reads from, built by the caller.
//!
//! Nothing in this crate reads `HOME`, the current directory or the environment on its own:
//! the context carries them, so tests point discovery at a temporary folder and never touch the
//! real home. [`DiscoveryContext::from_process`] builds the context an agent normally wants.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use crate::error::ConfigError;

/// The roots and environment discovery works from.
#[derive(Clone)]
#[non_exhaustive]
pub struct DiscoveryContext {
    /// The embedding agent's name; its native files are `.<app>/mcp.json` in the project and
    /// `<config dir>/<app>/mcp.json` for the user.
    pub app_name: String,
    /// The project root (the agent's working directory).
    pub cwd: PathBuf,
    /// The user's home directory.
    pub home: PathBuf,
    /// The user's config directory (`$XDG_CONFIG_HOME`, else `~/.config`).
    pub config_dir: PathBuf,
    /// The environment used for `${VAR}` expansion and for variables that move config files
    /// (`CODEX_HOME`, …).
    pub env: BTreeMap<String, String>,
    /// Where enterprise-managed files are (Claude Code's `managed-settings.json`): the
    /// platform's folder for a context [`from_process`](Self::from_process), none for one
    /// built with [`new`](Self::new), so tests never read the machine's.
    pub managed_dir: Option<PathBuf>,
}

/// Claude Code's folder for enterprise-managed files on this platform.
fn platform_managed_dir() -> Option<PathBuf> {
    if cfg!(target_os = "macos") {
        Some(PathBuf::from("/Library/Application Support/ClaudeCode"))
    } else if cfg!(unix) {
        Some(PathBuf::from("/etc/claude-code"))
    } else {
        None
    }
}

impl DiscoveryContext {
    /// A context with an empty environment and `~/.config` as the config directory.
    pub fn new(
        app_name: impl Into<String>,
        cwd: impl Into<PathBuf>,
        home: impl Into<PathBuf>,
    ) -> Self {
        let home = home.into();
        Self {
            app_name: app_name.into(),
            cwd: cwd.into(),
            config_dir: home.join(".config"),
            home,
            env: BTreeMap::new(),
            managed_dir: None,
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
            .ok_or_else(|| {
                ConfigError::Environment(
                    "HOME is not set, so user-level MCP config files cannot be found; set HOME"
                        .to_owned(),
                )
            })?;
        let mut context = Self::new(app_name, cwd, home);
        if let Some(dir) = env
            .get("XDG_CONFIG_HOME")
            .filter(|dir| Path::new(dir).is_absolute())
        {
            context.config_dir = PathBuf::from(dir);
        }
        context.env = env;
        context.managed_dir = platform_managed_dir();
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

    /// An environment variable, if set.
    pub fn var(&self, name: &str) -> Option<&str> {
        self.env.get(name).map(String::as_str)
    }

    /// The project's native file: `<cwd>/.<app>/mcp.json`.
    pub fn native_project_file(&self) -> PathBuf {
        self.cwd
            .join(format!(".{}", self.app_name))
            .join("mcp.json")
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
            .finish()
    }
}
