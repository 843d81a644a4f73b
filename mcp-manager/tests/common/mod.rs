//! Helpers shared by the manager's integration tests: fixture servers as `ServerConfig`s that can
//! be found again in `/proc`, a pre-filled tool cache, bounded waits and event matching.
#![allow(dead_code, unreachable_pub)]
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp_bridge::{AgentTool, ToolOutput};
use mcp_cache::{Fingerprint, MemoryToolCache, ToolCache};
use mcp_config::{DiscoveredServer, Level, ServerConfig, SourceMeta};
use mcp_manager::{ConnectOutcome, ManagedTool, ManagerEvent, ManagerOptions, McpManager};
use mcp_transport::Tool;
use mcp_transport::credentials::MemoryCredentialStore;
use serde_json::{Value, json};
use testkit::FixtureServer;
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

/// How long any single await of a test may take before the test fails instead of hanging.
pub const LIMIT: Duration = Duration::from_secs(20);

/// How long processes get to disappear after a disconnect.
pub const PROCESS_LIMIT: Duration = Duration::from_secs(10);

/// Awaits `future`, failing the test if it takes longer than [`LIMIT`].
pub async fn within<F: Future>(what: &str, future: F) -> F::Output {
    match tokio::time::timeout(LIMIT, future).await {
        Ok(output) => output,
        Err(_) => panic!("timed out after {LIMIT:?}: {what}"),
    }
}

/// A marker unique to this test process and call, put in a fixture's command line
/// (`--name MARKER`) so its process can be found in `/proc`.
pub fn marker(label: &str) -> String {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let label: String = label
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    format!("mgrtest-{}-{n}-{label}", std::process::id())
}

/// A fixture server with its flags, marked with a unique `--name`.
pub struct Fixture {
    pub config: ServerConfig,
    pub marker: String,
}

/// A fixture server configuration; `flags` adds the behaviour under test.
pub fn fixture(label: &str, flags: impl FnOnce(FixtureServer) -> FixtureServer) -> Fixture {
    let marker = marker(label);
    let (program, args) = flags(FixtureServer::new().name(marker.clone())).command();
    Fixture {
        config: ServerConfig::stdio(program.to_string_lossy(), args),
        marker,
    }
}

/// A well-behaved fixture server.
pub fn plain(label: &str) -> Fixture {
    fixture(label, |server| server)
}

/// The pids of live processes whose command line holds `marker` as an argument.
pub fn pids_with_marker(marker: &str) -> Vec<i32> {
    testkit::processes_with_arg(marker)
}

/// Polls `cond` (blocking, off the runtime's workers) until it holds or `timeout` passes.
pub async fn wait_until(timeout: Duration, cond: impl FnMut() -> bool + Send + 'static) -> bool {
    tokio::task::spawn_blocking(move || testkit::wait_until(timeout, cond))
        .await
        .expect("the polling thread panicked")
}

/// Waits until no process with `marker` is left, failing the test otherwise.
pub async fn assert_no_process(marker: &str) {
    let owned = marker.to_owned();
    let gone = wait_until(PROCESS_LIMIT, move || pids_with_marker(&owned).is_empty()).await;
    assert!(
        gone,
        "processes of {marker} still alive: {:?}",
        pids_with_marker(marker)
    );
}

/// Waits until none of `pids` is alive, failing the test otherwise.
pub async fn assert_pids_gone(pids: &[i32]) {
    let owned = pids.to_vec();
    let gone = wait_until(PROCESS_LIMIT, move || {
        owned.iter().all(|pid| !testkit::process_is_alive(*pid))
    })
    .await;
    let alive: Vec<i32> = pids
        .iter()
        .copied()
        .filter(|pid| testkit::process_is_alive(*pid))
        .collect();
    assert!(gone, "processes still alive: {alive:?}");
}

/// The definition of the fixture's `echo` tool, as a cache would hold it.
pub fn echo_tool() -> Tool {
    tool(json!({
        "name": "echo",
        "description": "Answers with the message it is given.",
        "inputSchema": {
            "type": "object",
            "properties": {"message": {"type": "string"}},
            "required": ["message"],
        },
    }))
}

/// A tool from its JSON definition.
pub fn tool(definition: Value) -> Tool {
    serde_json::from_value(definition).expect("a valid tool definition")
}

/// A memory cache.
pub fn memory_cache() -> Arc<MemoryToolCache> {
    Arc::new(MemoryToolCache::default())
}

/// Stores `tools` for `server` under the key the manager gives exactly `config` (defined as
/// [`configs`] defines it, nothing logged in).
pub async fn prefill(cache: &MemoryToolCache, server: &str, config: &ServerConfig, tools: &[Tool]) {
    cache.set(server, &key_of(config).await, tools).await;
}

/// The server `config` as discovery would hand it over, from a made-up project file.
pub fn discovered(config: &ServerConfig) -> DiscoveredServer {
    let source = SourceMeta::new("test", "Test", "/test/.mcp.json", Level::Project);
    DiscoveredServer::new(config.clone(), source)
}

/// The key the manager caches the tools of `config` (as [`discovered`]) under, with nothing
/// logged in.
pub async fn key_of(config: &ServerConfig) -> Fingerprint {
    mcp_manager::cache_fingerprint(&discovered(config), &MemoryCredentialStore::new()).await
}

/// A manager with default options over `cache`.
pub fn manager(cache: Arc<dyn ToolCache>) -> Arc<McpManager> {
    manager_with(ManagerOptions::default(), cache)
}

/// A manager with `options` over `cache`.
pub fn manager_with(options: ManagerOptions, cache: Arc<dyn ToolCache>) -> Arc<McpManager> {
    Arc::new(McpManager::new(options, cache))
}

/// The servers by name, as discovery would hand them over (from a made-up project file).
pub fn configs(servers: &[(&str, &Fixture)]) -> BTreeMap<String, DiscoveredServer> {
    servers
        .iter()
        .map(|(name, fixture)| ((*name).to_owned(), discovered(&fixture.config)))
        .collect()
}

/// Connects `servers` (bounded by [`LIMIT`]).
pub async fn connect(
    manager: &McpManager,
    servers: &BTreeMap<String, DiscoveredServer>,
) -> ConnectOutcome {
    within("connect_servers", manager.connect_servers(servers)).await
}

/// The tools of `server`, sorted by their original name.
pub fn tools_of(tools: &[ManagedTool], server: &str) -> Vec<ManagedTool> {
    let mut of: Vec<ManagedTool> = tools
        .iter()
        .filter(|tool| tool.server == server)
        .cloned()
        .collect();
    of.sort_by(|a, b| a.original_name.cmp(&b.original_name));
    of
}

/// (model-facing name, original name, deferred) of `server`'s tools, for comparisons.
pub fn shape_of(tools: &[ManagedTool], server: &str) -> Vec<(String, String, bool)> {
    tools_of(tools, server)
        .into_iter()
        .map(|tool| {
            (
                tool.tool.name().to_owned(),
                tool.original_name,
                tool.deferred,
            )
        })
        .collect()
}

/// The tool of `server` with the original name `name`.
pub fn find_tool(tools: &[ManagedTool], server: &str, name: &str) -> ManagedTool {
    tools
        .iter()
        .find(|tool| tool.server == server && tool.original_name == name)
        .cloned()
        .unwrap_or_else(|| panic!("no tool {name} of {server} in {tools:?}"))
}

/// Calls `tool` with `args` (bounded by [`LIMIT`]); a cancellation fails the test.
pub async fn call(tool: &dyn AgentTool, args: Value) -> ToolOutput {
    within("a tool call", tool.execute(args, CancellationToken::new()))
        .await
        .expect("the call was not cancelled")
}

/// The process id of `server`'s fixture, as its `pids` tool reports it.
pub async fn server_pid(tools: &[ManagedTool], server: &str) -> i32 {
    let output = call(find_tool(tools, server, "pids").tool.as_ref(), json!({})).await;
    assert!(!output.is_error, "{output:?}");
    let pids: Value = serde_json::from_str(&output.to_text()).unwrap();
    i32::try_from(pids["pid"].as_i64().unwrap()).unwrap()
}

/// Calls the fixture's `echo` through `tool` and returns the output's text.
pub async fn echo(tool: &dyn AgentTool, message: &str) -> ToolOutput {
    call(tool, json!({"message": message})).await
}

/// Receives events until one satisfies `pred` (bounded by [`LIMIT`]); returns it and every
/// event received before it.
pub async fn wait_for_event(
    events: &mut broadcast::Receiver<ManagerEvent>,
    what: &str,
    mut pred: impl FnMut(&ManagerEvent) -> bool,
) -> (ManagerEvent, Vec<ManagerEvent>) {
    let mut before = Vec::new();
    within(what, async {
        loop {
            match events.recv().await {
                Ok(event) if pred(&event) => return (event, before),
                Ok(event) => before.push(event),
                Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(broadcast::error::RecvError::Closed) => {
                    panic!("the event stream closed while waiting for {what}")
                }
            }
        }
    })
    .await
}

/// Every event already in the channel.
pub fn drain_events(events: &mut broadcast::Receiver<ManagerEvent>) -> Vec<ManagerEvent> {
    let mut drained = Vec::new();
    loop {
        match events.try_recv() {
            Ok(event) => drained.push(event),
            Err(broadcast::error::TryRecvError::Lagged(_)) => {}
            Err(_) => return drained,
        }
    }
}

/// A temporary directory removed on drop.
pub struct TempDir {
    path: PathBuf,
}

impl TempDir {
    pub fn new(label: &str) -> Self {
        let path = std::env::temp_dir().join(marker(label));
        std::fs::create_dir_all(&path).expect("create a temporary directory");
        Self { path }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// The user's browser, played by the test: it asks for the authorization URL and hands back the
/// redirect the fixture answers with (no listener is needed for that).
pub struct Browser;

struct Redirect(mcp_transport::http::Url);

#[async_trait::async_trait]
impl mcp_transport::oauth::AuthorizationHandler for Browser {
    async fn prepare(
        &self,
    ) -> Result<Box<dyn mcp_transport::oauth::PendingRedirect>, mcp_transport::oauth::OAuthError>
    {
        Ok(Box::new(Redirect(
            mcp_transport::http::Url::parse("http://127.0.0.1:9/callback").unwrap(),
        )))
    }
}

#[async_trait::async_trait]
impl mcp_transport::oauth::PendingRedirect for Redirect {
    fn redirect_uri(&self) -> &mcp_transport::http::Url {
        &self.0
    }

    async fn complete(
        &mut self,
        authorization_url: &mcp_transport::oauth::OpenableUrl,
    ) -> Result<mcp_transport::http::Url, mcp_transport::oauth::OAuthError> {
        let url = authorization_url.to_string();
        let (status, location, _) = tokio::task::spawn_blocking(move || testkit::browser_get(&url))
            .await
            .unwrap();
        assert_eq!(status, 302);
        Ok(mcp_transport::http::Url::parse(&location.unwrap()).unwrap())
    }
}
