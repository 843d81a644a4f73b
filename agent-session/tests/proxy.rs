//! Subagent proxy tools against real fixture servers: one server process serves the parent and
//! the subagent, calls answer through the parent's connection, cancellation and the call timeout
//! reach the server, and an ended parent gives an error output.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use agent_session::{
    AgentSession, DEFAULT_CALL_TIMEOUT, SessionOptions, SubagentProxyTool, create_agent_session,
    subagent_tools,
};
use async_trait::async_trait;
use mcp_bridge::{AgentTool, ToolCancelled, ToolOutput};
use mcp_cache::{CacheOptions, MemoryToolCache};
use mcp_config::DiscoveryContext;
use serde_json::{Value, json};
use testkit::FixtureServer;
use tokio_util::sync::CancellationToken;

/// The longest any single await may take before the test fails instead of hanging.
const LIMIT: Duration = Duration::from_secs(30);

async fn within<F: Future>(what: &str, future: F) -> F::Output {
    match tokio::time::timeout(LIMIT, future).await {
        Ok(output) => output,
        Err(_) => panic!("timed out after {LIMIT:?}: {what}"),
    }
}

/// A name unique to this test process and call: a directory name, or a fixture's `--name`.
fn unique(label: &str) -> String {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    format!("proxytest-{}-{n}-{label}", std::process::id())
}

/// A directory removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(label: &str) -> Self {
        let path = std::env::temp_dir().join(unique(label));
        std::fs::create_dir_all(&path).unwrap();
        Self(path)
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// One of the agent's own tools, to show that proxies are made for MCP tools only.
struct LocalTool(Value);

#[async_trait]
impl AgentTool for LocalTool {
    fn name(&self) -> &str {
        "local_tool"
    }

    fn label(&self) -> &str {
        "local"
    }

    fn description(&self) -> &str {
        "the agent's own tool"
    }

    fn parameters(&self) -> &Value {
        &self.0
    }

    async fn execute(
        &self,
        _args: Value,
        _cancel: CancellationToken,
    ) -> Result<ToolOutput, ToolCancelled> {
        Ok(ToolOutput::text("local"))
    }
}

/// A parent session over a temporary project whose `.mcp.json` holds one fixture server `fx`,
/// marked with a unique `--name` so its process can be found in `/proc`.
struct Parent {
    session: Arc<AgentSession>,
    marker: String,
    _project: Scratch,
    _home: Scratch,
}

impl Parent {
    async fn start(label: &str) -> Self {
        let project = Scratch::new(&format!("{label}-project"));
        let home = Scratch::new(&format!("{label}-home"));
        let marker = unique(label);
        let (program, args) = FixtureServer::new().name(marker.clone()).command();
        let config = json!({
            "mcpServers": {"fx": {"command": program.to_string_lossy(), "args": args}}
        });
        std::fs::write(
            project.path().join(".mcp.json"),
            serde_json::to_string_pretty(&config).unwrap(),
        )
        .unwrap();
        let app = "proxy-test";
        let options = SessionOptions::new(app, project.path())
            .context(DiscoveryContext::new(app, project.path(), home.path()))
            .cache(Arc::new(MemoryToolCache::new(CacheOptions::default())))
            .own_tool(Arc::new(LocalTool(json!({"type": "object"}))))
            // The project's server is the user's own here.
            .trust(mcp_config::TrustPolicy::TrustAll);
        let started = within("starting the parent session", create_agent_session(options)).await;
        assert!(started.problems.is_empty(), "{:?}", started.problems);
        let parent = Self {
            session: started.session,
            marker,
            _project: project,
            _home: home,
        };
        // No cache entry: the gate waited for the server, so its tools are live.
        assert!(
            parent.session.tool("mcp_fx_echo").is_some(),
            "{:?}",
            parent.session.registry()
        );
        parent
    }

    /// The parent's own tool of that name.
    fn tool(&self, name: &str) -> Arc<dyn AgentTool> {
        self.session
            .tool(name)
            .unwrap_or_else(|| panic!("the parent has no tool {name}"))
    }

    /// The events the server recorded (its `events` tool, called through the parent) that
    /// `wanted` accepts, polling until at least `count` are there.
    async fn events_until(&self, count: usize, wanted: impl Fn(&Value) -> bool) -> Vec<Value> {
        let events = self.tool("mcp_fx_events");
        for _ in 0..200 {
            let output = call(&events, json!({})).await.expect("events");
            assert!(!output.is_error, "{output:?}");
            let all: Vec<Value> = serde_json::from_str(&output.to_text()).unwrap();
            let found: Vec<Value> = all.into_iter().filter(&wanted).collect();
            if found.len() >= count {
                return found;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        panic!("the server never recorded {count} such event(s)");
    }

    /// The `notifications/cancelled` the server received, at least `count` of them.
    async fn cancellations(&self, count: usize) -> Vec<Value> {
        self.events_until(count, |event| {
            event["method"] == json!("notifications/cancelled")
        })
        .await
    }
}

/// Calls a tool with a fresh token, bounded by [`LIMIT`].
async fn call(tool: &Arc<dyn AgentTool>, args: Value) -> Result<ToolOutput, ToolCancelled> {
    within(
        &format!("calling {}", tool.name()),
        tool.execute(args, CancellationToken::new()),
    )
    .await
}

fn proxy(tools: &[Arc<dyn AgentTool>], name: &str) -> Arc<dyn AgentTool> {
    tools
        .iter()
        .find(|tool| tool.name() == name)
        .cloned()
        .unwrap_or_else(|| panic!("no proxy named {name}"))
}

/// The pid the `pids` tool reports.
async fn server_pid(tool: &Arc<dyn AgentTool>) -> i64 {
    let output = call(tool, json!({})).await.expect("pids");
    assert!(!output.is_error, "{output:?}");
    let pids: Value = serde_json::from_str(&output.to_text()).unwrap();
    pids["pid"].as_i64().unwrap()
}

/// The live processes whose command line holds `marker` as an argument.
fn processes_with(marker: &str) -> Vec<i32> {
    testkit::processes_with_arg(marker)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn proxies_mirror_the_parents_mcp_tools_only() {
    let parent = Parent::start("mirror").await;
    let proxies = subagent_tools(&parent.session, DEFAULT_CALL_TIMEOUT);
    let mcp_tools: Vec<Arc<dyn AgentTool>> = parent
        .session
        .tools()
        .into_iter()
        .filter(|tool| tool.name().starts_with("mcp_"))
        .collect();
    assert!(parent.session.tool("local_tool").is_some());
    assert_eq!(proxies.len(), mcp_tools.len());
    for tool in &mcp_tools {
        let proxy = proxy(&proxies, tool.name());
        assert_eq!(proxy.label(), tool.label());
        assert_eq!(proxy.description(), tool.description());
        assert_eq!(proxy.parameters(), tool.parameters());
    }
    let single = SubagentProxyTool::new(
        &parent.session,
        parent.tool("mcp_fx_echo"),
        Duration::from_secs(5),
    );
    assert_eq!(single.server(), Some("fx"));
    assert_eq!(single.call_timeout(), Duration::from_secs(5));
    // Arguments are checked against the schema the proxy shows.
    assert_eq!(single.check_arguments(&json!({"message": "hi"})), Ok(()));
    assert_eq!(
        single
            .check_arguments(&json!({"message": 1}))
            .unwrap_err()
            .to_string(),
        "argument `message` must be a string, not an integer"
    );
    within("shutdown", parent.session.shutdown()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_server_process_serves_parent_and_subagent() {
    let parent = Parent::start("one-process").await;
    let proxies = subagent_tools(&parent.session, DEFAULT_CALL_TIMEOUT);
    let through_parent = server_pid(&parent.tool("mcp_fx_pids")).await;
    let through_proxy = server_pid(&proxy(&proxies, "mcp_fx_pids")).await;
    assert_eq!(through_parent, through_proxy);
    assert_eq!(
        processes_with(&parent.marker),
        [i32::try_from(through_parent).unwrap()]
    );
    within("shutdown", parent.session.shutdown()).await;
    assert!(testkit::wait_until(Duration::from_secs(10), || {
        processes_with(&parent.marker).is_empty()
    }));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_proxy_call_answers_through_the_parent() {
    let parent = Parent::start("echo").await;
    let proxies = subagent_tools(&parent.session, DEFAULT_CALL_TIMEOUT);
    let output = call(
        &proxy(&proxies, "mcp_fx_echo"),
        json!({"message": "hello from the subagent"}),
    )
    .await
    .expect("echo");
    assert!(!output.is_error, "{output:?}");
    assert_eq!(output.to_text(), "hello from the subagent");
    within("shutdown", parent.session.shutdown()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_proxy_call_is_cancelled_on_the_server() {
    let parent = Parent::start("cancel").await;
    let proxies = subagent_tools(&parent.session, DEFAULT_CALL_TIMEOUT);
    let sleep = proxy(&proxies, "mcp_fx_sleep");
    let cancel = CancellationToken::new();
    // Cancelled once the server has started the sleep, so the server must hear of it.
    let cancel_once_started = async {
        parent
            .events_until(1, |event| event["started"] == json!("sleep"))
            .await;
        cancel.cancel();
    };
    let (outcome, ()) = within("the cancelled call", async {
        tokio::join!(
            sleep.execute(json!({"ms": 60_000}), cancel.clone()),
            cancel_once_started
        )
    })
    .await;
    assert_eq!(outcome, Err(ToolCancelled::new()));
    let cancelled = parent.cancellations(1).await;
    assert_eq!(cancelled.len(), 1, "{cancelled:?}");
    // The connection is still good for the parent.
    let output = call(
        &parent.tool("mcp_fx_echo"),
        json!({"message": "still here"}),
    )
    .await
    .expect("echo");
    assert_eq!(output.to_text(), "still here");
    within("shutdown", parent.session.shutdown()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_proxy_call_that_times_out_is_cancelled_on_the_server() {
    let parent = Parent::start("timeout").await;
    let proxies = subagent_tools(&parent.session, Duration::from_millis(200));
    let output = call(&proxy(&proxies, "mcp_fx_sleep"), json!({"ms": 60_000}))
        .await
        .expect("a timeout is an output, not a cancellation");
    assert!(output.is_error, "{output:?}");
    assert_eq!(
        output.to_text(),
        "MCP error: the call timed out after 200ms"
    );
    let cancelled = parent.cancellations(1).await;
    assert_eq!(cancelled.len(), 1, "{cancelled:?}");
    within("shutdown", parent.session.shutdown()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_proxy_follows_the_parents_reconnected_server() {
    let parent = Parent::start("reconnect").await;
    let proxies = subagent_tools(&parent.session, DEFAULT_CALL_TIMEOUT);
    let pids = proxy(&proxies, "mcp_fx_pids");
    let before = server_pid(&pids).await;
    within("reconnect", parent.session.reconnect("fx"))
        .await
        .expect("reconnect");
    let after_parent = server_pid(&parent.tool("mcp_fx_pids")).await;
    let after_proxy = server_pid(&pids).await;
    assert_ne!(before, after_proxy, "the proxy kept the old connection");
    assert_eq!(after_parent, after_proxy);
    assert_eq!(
        processes_with(&parent.marker),
        [i32::try_from(after_proxy).unwrap()]
    );
    within("shutdown", parent.session.shutdown()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_the_parent_ends_a_proxy_call_answers_an_error() {
    let parent = Parent::start("ended").await;
    let proxies = subagent_tools(&parent.session, DEFAULT_CALL_TIMEOUT);
    let echo = proxy(&proxies, "mcp_fx_echo");
    within("shutdown", parent.session.shutdown()).await;

    // Shut down but still there: its servers are gone, so the call fails.
    let output = call(&echo, json!({"message": "anyone?"}))
        .await
        .expect("an output");
    assert!(output.is_error, "{output:?}");
    assert!(output.to_text().starts_with("MCP error: "), "{output:?}");

    // Dropped: the proxy says so.
    let Parent {
        session, marker, ..
    } = parent;
    drop(session);
    let output = call(&echo, json!({"message": "anyone?"}))
        .await
        .expect("an output");
    assert!(output.is_error, "{output:?}");
    assert_eq!(output.to_text(), "MCP error: the parent session has ended");
    assert!(testkit::wait_until(Duration::from_secs(10), || {
        processes_with(&marker).is_empty()
    }));
}
