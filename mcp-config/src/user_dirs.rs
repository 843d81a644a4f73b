//! [`UserDir`]: the one lookup of the user's XDG base directories for the whole runtime.
//!
//! The config, cache and state directories are `$XDG_CONFIG_HOME`, `$XDG_CACHE_HOME` and
//! `$XDG_STATE_HOME` when the variable holds an absolute path (the XDG base-directory
//! specification says a relative one is invalid and is to be ignored), else `~/.config`,
//! `~/.cache` and `~/.local/state`. Nothing here reads the process's environment: the caller
//! passes it in, as a function from a variable's name to its value.
//!
//! It lives in this crate because this is the lowest crate every user can reach, and this crate
//! depends on no other (see DESIGN.md). Its users:
//!
//! - [`DiscoveryContext`](crate::DiscoveryContext): the config directory, from the environment
//!   the context carries ([`UserDir::under`] its home), so tests inject it;
//! - the tool cache: `mcp-cache` looks nothing up, its caller (the manager's loader, the session,
//!   the CLI) hands `SledToolCache` the agent's cache folder from [`app_cache_dir`];
//! - the folder of results cut by the output budget (`agent_session::user_results_dir`), also
//!   [`app_cache_dir`];
//! - the CLI shell's history ([`UserDir::State`]).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// One of the user's XDG base directories.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum UserDir {
    /// Configuration the user writes: `$XDG_CONFIG_HOME`, else `~/.config`.
    Config,
    /// What may be deleted at any time and is rebuilt: `$XDG_CACHE_HOME`, else `~/.cache`.
    Cache,
    /// State kept between runs that is neither (history, logs): `$XDG_STATE_HOME`, else
    /// `~/.local/state`.
    State,
}

impl UserDir {
    /// The environment variable that moves this directory.
    pub const fn variable(self) -> &'static str {
        match self {
            Self::Config => "XDG_CONFIG_HOME",
            Self::Cache => "XDG_CACHE_HOME",
            Self::State => "XDG_STATE_HOME",
        }
    }

    /// Where this directory is in a home folder when the variable does not move it.
    pub fn in_home(self, home: &Path) -> PathBuf {
        match self {
            Self::Config => home.join(".config"),
            Self::Cache => home.join(".cache"),
            Self::State => home.join(".local").join("state"),
        }
    }

    /// This directory for the user whose home is `home`: the variable's value (`env` gives the
    /// variables) when it is an absolute path, else its place in `home`.
    pub fn under(self, home: &Path, env: impl Fn(&str) -> Option<OsString>) -> PathBuf {
        absolute(&env, self.variable()).unwrap_or_else(|| self.in_home(home))
    }

    /// This directory from the environment alone (`env` gives the variables): the variable's
    /// value when it is an absolute path, else its place in `$HOME` when that is one; none
    /// without either.
    pub fn find(self, env: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
        absolute(&env, self.variable())
            .or_else(|| absolute(&env, "HOME").map(|home| self.in_home(&home)))
    }
}

/// The folder of the agent `app_name` in the user's cache directory (`env` gives the
/// variables): `$XDG_CACHE_HOME/<app>`, else `~/.cache/<app>`; without either, a folder in the
/// system's temporary directory, since a cache may live anywhere. The tool cache keeps its
/// store in its `tool-cache`, the CLI its cut results in its `results`.
pub fn app_cache_dir(app_name: &str, env: impl Fn(&str) -> Option<OsString>) -> PathBuf {
    UserDir::Cache
        .find(env)
        .unwrap_or_else(|| std::env::temp_dir().join("mcp-runtime-cache"))
        .join(app_name)
}

/// The value of `var` as a path, when it is an absolute one.
fn absolute(env: &impl Fn(&str) -> Option<OsString>, var: &str) -> Option<PathBuf> {
    env(var)
        .map(PathBuf::from)
        .filter(|path| path.is_absolute())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&str, &str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
        |name| {
            vars.iter()
                .find(|(var, _)| *var == name)
                .map(|(_, value)| OsString::from(value))
        }
    }

    #[test]
    fn each_directory_is_its_variable_when_absolute_else_its_place_in_the_home() {
        let home = [("HOME", "/home/u")];
        let all = [
            ("HOME", "/home/u"),
            ("XDG_CONFIG_HOME", "/c"),
            ("XDG_CACHE_HOME", "/k"),
            ("XDG_STATE_HOME", "/s"),
        ];
        for (dir, variable, in_home, among_all) in [
            (UserDir::Config, "XDG_CONFIG_HOME", "/home/u/.config", "/c"),
            (UserDir::Cache, "XDG_CACHE_HOME", "/home/u/.cache", "/k"),
            (
                UserDir::State,
                "XDG_STATE_HOME",
                "/home/u/.local/state",
                "/s",
            ),
        ] {
            assert_eq!(dir.variable(), variable);
            assert_eq!(dir.find(env(&home)), Some(PathBuf::from(in_home)));
            assert_eq!(
                dir.under(Path::new("/home/u"), env(&[])),
                Path::new(in_home)
            );
            let moved = [("HOME", "/home/u"), (variable, "/elsewhere")];
            assert_eq!(dir.find(env(&moved)), Some(PathBuf::from("/elsewhere")));
            assert_eq!(
                dir.under(Path::new("/home/u"), env(&moved)),
                Path::new("/elsewhere")
            );
            // A relative value is ignored, as the specification says; so is an empty one.
            for ignored in ["relative/dir", ""] {
                let vars = [("HOME", "/home/u"), (variable, ignored)];
                assert_eq!(dir.find(env(&vars)), Some(PathBuf::from(in_home)));
                assert_eq!(
                    dir.under(Path::new("/home/u"), env(&vars)),
                    Path::new(in_home)
                );
            }
            // Only its own variable moves it.
            assert_eq!(dir.find(env(&all)), Some(PathBuf::from(among_all)));
        }
    }

    #[test]
    fn without_an_absolute_home_only_the_variable_finds_a_directory() {
        assert_eq!(UserDir::State.find(env(&[])), None);
        assert_eq!(UserDir::State.find(env(&[("HOME", "rel")])), None);
        assert_eq!(
            UserDir::State.find(env(&[("XDG_STATE_HOME", "/state")])),
            Some(PathBuf::from("/state"))
        );
    }

    #[test]
    fn the_agents_cache_folder_falls_back_to_the_temporary_directory() {
        assert_eq!(
            app_cache_dir("my-agent", env(&[("HOME", "/home/u")])),
            Path::new("/home/u/.cache/my-agent")
        );
        assert_eq!(
            app_cache_dir(
                "my-agent",
                env(&[("HOME", "/home/u"), ("XDG_CACHE_HOME", "/k")])
            ),
            Path::new("/k/my-agent")
        );
        assert_eq!(
            app_cache_dir("my-agent", env(&[])),
            std::env::temp_dir()
                .join("mcp-runtime-cache")
                .join("my-agent")
        );
    }
}
