//! Test support shared by the integration tests: a temporary project and home ("world") whose
//! `.mcp.json` (Claude Code's format) holds fixture servers, session options pointed at it
//! with an in-memory tool cache, and timeouts that turn a hang into a failure.

#![allow(dead_code, unreachable_pub)]
// Helpers panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use agent_session::{AgentSession, SessionOptions, SessionStart, create_agent_session};
use mcp_cache::{CacheOptions, MemoryToolCache, ToolCache};
use mcp_config::DiscoveryContext;
use serde_json::{Map, Value, json};
use testkit::FixtureServer;

/// The agent name the worlds use: native files are `.agent-test/mcp.json` in the project and
/// `<home>/.config/agent-test/mcp.json`.
pub const APP: &str = "agent-test";

/// How long any one awaited step may take before the test fails as hung.
pub const GUARD: Duration = Duration::from_secs(30);

/// Awaits `future`, failing the test if it takes longer than [`GUARD`].
pub async fn guard<F: Future>(future: F) -> F::Output {
    guard_for(GUARD, "a step", future).await
}

/// Awaits `future`, failing the test with `what` if it takes longer than `limit`.
pub async fn guard_for<F: Future>(limit: Duration, what: &str, future: F) -> F::Output {
    match tokio::time::timeout(limit, future).await {
        Ok(output) => output,
        Err(_) => panic!("{what} did not finish within {limit:?}"),
    }
}

/// Polls `condition` every 20 ms until it holds; fails the test after [`GUARD`].
pub async fn wait_for(what: &str, mut condition: impl FnMut() -> bool) {
    let deadline = Instant::now() + GUARD;
    while !condition() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A fresh in-memory tool cache.
pub fn memory_cache() -> Arc<MemoryToolCache> {
    Arc::new(MemoryToolCache::new(CacheOptions::default()))
}

/// The `.mcp.json` entry that runs this fixture server.
pub fn fixture_entry(fixture: &FixtureServer) -> Value {
    let (program, args) = fixture.command();
    json!({"command": program.to_string_lossy(), "args": args})
}

/// The fixture executable's path, as text for a command line.
pub fn fixture_program() -> String {
    testkit::fixture_server_path()
        .to_string_lossy()
        .into_owned()
}

/// Reads a JSON file.
pub fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|error| panic!("cannot read {}: {error}", path.display()));
    serde_json::from_str(&text)
        .unwrap_or_else(|error| panic!("{} is not JSON: {error}", path.display()))
}

/// Writes a JSON file, creating its directory.
pub fn write_json(path: &Path, value: &Value) {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).unwrap();
    }
    std::fs::write(path, serde_json::to_string_pretty(value).unwrap()).unwrap();
}

/// The names of the session's active tools.
pub fn tool_names(session: &AgentSession) -> Vec<String> {
    session
        .tools()
        .iter()
        .map(|tool| tool.name().to_owned())
        .collect()
}

/// How many tools the manager offers for `server` (live or deferred).
pub fn server_tool_count(session: &AgentSession, server: &str) -> usize {
    session
        .manager()
        .tools()
        .iter()
        .filter(|tool| tool.server == server)
        .count()
}

/// A temporary project folder and home folder, removed on drop.
pub struct World {
    root: PathBuf,
    project: PathBuf,
    home: PathBuf,
}

impl World {
    /// Empty `project/` and `home/` folders under a new temporary directory.
    pub fn new() -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let root = std::env::temp_dir().join(format!(
            "agent-session-world-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&root);
        let project = root.join("project");
        let home = root.join("home");
        std::fs::create_dir_all(&project).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        Self {
            root,
            project,
            home,
        }
    }

    /// The project folder (the session's cwd).
    pub fn project(&self) -> &Path {
        &self.project
    }

    /// The home folder.
    pub fn home(&self) -> &Path {
        &self.home
    }

    /// The project's `.mcp.json` (Claude Code's project file).
    pub fn mcp_json(&self) -> PathBuf {
        self.project.join(".mcp.json")
    }

    /// Writes `.mcp.json` with these fixture servers.
    pub fn write_mcp_json(&self, servers: &[(&str, FixtureServer)]) {
        let entries: Vec<(&str, Value)> = servers
            .iter()
            .map(|(name, fixture)| (*name, fixture_entry(fixture)))
            .collect();
        self.write_mcp_json_entries(&entries);
    }

    /// Writes `.mcp.json` with these raw entries under `mcpServers`.
    pub fn write_mcp_json_entries(&self, entries: &[(&str, Value)]) {
        let servers: Map<String, Value> = entries
            .iter()
            .map(|(name, entry)| ((*name).to_owned(), entry.clone()))
            .collect();
        write_json(&self.mcp_json(), &json!({"mcpServers": servers}));
    }

    /// The discovery roots of this world.
    pub fn context(&self) -> DiscoveryContext {
        DiscoveryContext::new(APP, &self.project, &self.home)
    }

    /// The agent's native project file: `<project>/.agent-test/mcp.json`.
    pub fn native_project_file(&self) -> PathBuf {
        self.context().native_project_file()
    }

    /// The agent's native user file: `<home>/.config/agent-test/mcp.json`.
    pub fn native_user_file(&self) -> PathBuf {
        self.context().native_user_file()
    }

    /// Session options for this world with a fresh in-memory cache.
    pub fn options(&self) -> SessionOptions {
        self.options_with_cache(memory_cache())
    }

    /// Session options for this world with `cache`.
    /// Project servers are trusted: these tests are about what a session does with its
    /// servers (project trust has tests of its own).
    pub fn options_with_cache(&self, cache: Arc<dyn ToolCache>) -> SessionOptions {
        SessionOptions::new(APP, &self.project)
            .context(self.context())
            .cache(cache)
            .trust(mcp_config::TrustPolicy::TrustAll)
    }

    /// Starts a session with [`Self::options`].
    pub async fn start(&self) -> SessionStart {
        guard_for(
            GUARD,
            "create_agent_session",
            create_agent_session(self.options()),
        )
        .await
    }
}

impl Default for World {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for World {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}
