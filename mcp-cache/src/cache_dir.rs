//! [`user_cache_dir`]: where an agent keeps what it caches for its user.

use std::path::PathBuf;

/// The agent's folder in the user's cache directory: `$XDG_CACHE_HOME/<app>`, else
/// `~/.cache/<app>` (only absolute values count); without a home, a folder in the system's
/// temporary directory. The tool cache lives in its `tool-cache`, the CLI's cut results in its
/// `results`.
pub fn user_cache_dir(app_name: &str) -> PathBuf {
    let absolute = |var: &str| {
        std::env::var_os(var)
            .map(PathBuf::from)
            .filter(|path| path.is_absolute())
    };
    absolute("XDG_CACHE_HOME")
        .or_else(|| absolute("HOME").map(|home| home.join(".cache")))
        .unwrap_or_else(|| std::env::temp_dir().join("mcp-runtime-cache"))
        .join(app_name)
}
