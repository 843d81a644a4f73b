//! Helpers the provider test files share: a scratch `Sandbox` and readers of the files a
//! provider returned.

// Each test file that includes this module uses only some of the helpers.
#![allow(dead_code)]
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use mcp_config::providers::BuiltinSource;
use mcp_config::{
    ConfigError, DiscoveryContext, DiscoveryOptions, DiscoveryResult, Level, ServerConfig,
    TrustPolicy, load_all_configs, source::SourceFile,
};
use serde_json::Value;

/// A scratch folder with a `project` and a `home` inside, removed on drop.
pub(crate) struct Sandbox {
    pub(crate) root: PathBuf,
}

impl Sandbox {
    /// A fresh sandbox, `mcp-config-<test file>-<name>-<pid>-<n>` in the temporary directory.
    pub(crate) fn new(name: &str) -> Self {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        // The crate being compiled is the test file including this module.
        let root = std::env::temp_dir().join(format!(
            "mcp-config-{}-{name}-{}-{}",
            env!("CARGO_CRATE_NAME"),
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("project")).unwrap();
        std::fs::create_dir_all(root.join("home")).unwrap();
        Self { root }
    }

    /// `relative` inside the sandbox.
    pub(crate) fn path(&self, relative: &str) -> PathBuf {
        self.root.join(relative)
    }

    pub(crate) fn project(&self) -> PathBuf {
        self.path("project")
    }

    pub(crate) fn home(&self) -> PathBuf {
        self.path("home")
    }

    /// A context for app `myagent` with cwd `project`, home `home`, config dir `home/.config`,
    /// and an empty environment.
    pub(crate) fn ctx(&self) -> DiscoveryContext {
        DiscoveryContext::new("myagent", self.project(), self.home())
    }

    /// A context whose working folder is `cwd` (relative to the sandbox root), created.
    pub(crate) fn ctx_in(&self, cwd: &str) -> DiscoveryContext {
        let cwd = self.path(cwd);
        std::fs::create_dir_all(&cwd).unwrap();
        DiscoveryContext::new("myagent", cwd, self.home())
    }

    /// Marks `relative` as a repository root with a `.git` folder.
    pub(crate) fn repo(&self, relative: &str) {
        std::fs::create_dir_all(self.path(relative).join(".git")).unwrap();
    }

    /// Writes `text` at `path` (relative to the sandbox root), creating folders.
    pub(crate) fn write(&self, path: &str, text: &str) -> PathBuf {
        let path = self.path(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// The paths and levels of the files a provider returned.
pub(crate) fn listing(files: &[SourceFile]) -> Vec<(PathBuf, Level)> {
    files.iter().map(|f| (f.path.clone(), f.level)).collect()
}

/// The one file a provider returned for `path`.
pub(crate) fn file_for<'a>(files: &'a [SourceFile], path: &Path) -> &'a SourceFile {
    let matching: Vec<&SourceFile> = files.iter().filter(|f| f.path == path).collect();
    assert_eq!(matching.len(), 1, "{:?}", listing(files));
    matching[0]
}

/// The servers of a file that loaded.
pub(crate) fn servers(file: &SourceFile) -> &[(String, ServerConfig)] {
    match &file.contents {
        Ok(contents) => &contents.servers,
        Err(error) => panic!("{} did not load: {error}", file.path.display()),
    }
}

/// The names of the servers of a file that loaded, in its order.
pub(crate) fn names(file: &SourceFile) -> Vec<&str> {
    servers(file)
        .iter()
        .map(|(name, _)| name.as_str())
        .collect()
}

/// The invalid entries of a file that loaded: (server, message).
pub(crate) fn invalid(file: &SourceFile) -> Vec<(String, String)> {
    file.contents
        .as_ref()
        .unwrap()
        .invalid
        .iter()
        .map(|problem| (problem.server.clone(), problem.to_string()))
        .collect()
}

/// One server of a file that loaded.
pub(crate) fn config_of<'a>(file: &'a SourceFile, name: &str) -> &'a ServerConfig {
    let (_, config) = servers(file)
        .iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no server {name} in {}", file.path.display()));
    config
}

/// One server of a file, as JSON (every field at once, `extra` flattened).
pub(crate) fn server(file: &SourceFile, name: &str) -> Value {
    serde_json::to_value(config_of(file, name)).unwrap()
}

/// The error of a file that did not load.
pub(crate) fn the_error(file: &SourceFile) -> &ConfigError {
    match &file.contents {
        Ok(_) => panic!("{} loaded", file.path.display()),
        Err(error) => error,
    }
}

/// Discovery with one provider, every project server trusted.
pub(crate) fn discover_with(source: BuiltinSource, ctx: &DiscoveryContext) -> DiscoveryResult {
    let mut options = DiscoveryOptions::default().trust(TrustPolicy::TrustAll);
    options.sources = vec![Arc::new(source)];
    load_all_configs(ctx, &options)
}
