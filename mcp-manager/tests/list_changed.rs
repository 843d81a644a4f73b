//! `notifications/tools/list_changed`: the manager re-lists that server on its own, replaces its
//! tools, writes the cache and emits an event.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use common::*;
use mcp_cache::{CacheEntry, Fingerprint, Listing, MemoryToolCache, MissReason, ToolCache};
use mcp_manager::{ConnectionStatus, ManagerEvent};
use mcp_transport::Tool;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_list_change_shows_up_without_any_call() {
    const SERVER: &str = "Changing.Server-1";
    let changing = plain(SERVER);
    let steady = plain("steady");
    let cache = memory_cache();
    let manager = manager(cache.clone());
    let mut events = manager.subscribe();

    let outcome = connect(
        &manager,
        &configs(&[(SERVER, &changing), ("steady", &steady)]),
    )
    .await;
    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
    let steady_before = shape_of(&outcome.tools, "steady");
    let changing_before = shape_of(&outcome.tools, SERVER);
    assert!(
        changing_before
            .iter()
            .all(|(_, original, _)| original != "late_tool"),
        "{changing_before:?}"
    );

    // The server changes its list (and says so) when its `change_tools` tool is called.
    let change = find_tool(&outcome.tools, SERVER, "change_tools");
    assert_eq!(echo(change.tool.as_ref(), "").await.to_text(), "changed");
    let _ = wait_for_event(
        &mut events,
        "the list change",
        |event| matches!(event, ManagerEvent::ToolsChanged { server } if server == SERVER),
    )
    .await;

    let after = manager.tools();
    let late = find_tool(&after, SERVER, "late_tool");
    assert_eq!(late.tool.name(), "mcp_changing_server_1_late_tool");
    assert!(!late.deferred);
    assert_eq!(tools_of(&after, SERVER).len(), changing_before.len() + 1);
    assert_eq!(shape_of(&after, "steady"), steady_before);
    assert_eq!(
        manager.get_connection_status(SERVER),
        ConnectionStatus::Connected
    );
    let output = echo(late.tool.as_ref(), "new").await;
    assert_eq!(output.to_text(), "new");
    // The cache follows.
    let cached = cache
        .get(SERVER, &key_of(&changing.config).await)
        .await
        .expect("a cache hit");
    assert!(cached.iter().any(|tool| tool.name == "late_tool"));

    within("disconnect_all", manager.disconnect_all()).await;
}

/// A cache whose writes take a while, like a busy disk.
struct SlowWrites {
    inner: MemoryToolCache,
    delay: Duration,
}

#[async_trait]
impl ToolCache for SlowWrites {
    async fn lookup_entry(
        &self,
        server: &str,
        fingerprint: &Fingerprint,
    ) -> Result<CacheEntry, MissReason> {
        self.inner.lookup_entry(server, fingerprint).await
    }

    async fn set_entry(
        &self,
        server: &str,
        fingerprint: &Fingerprint,
        tools: &[Tool],
        listing: &Listing,
    ) {
        tokio::time::sleep(self.delay).await;
        self.inner
            .set_entry(server, fingerprint, tools, listing)
            .await;
    }

    async fn remove(&self, server: &str) {
        self.inner.remove(server).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_list_change_while_the_first_list_is_being_cached_is_not_lost() {
    const SERVER: &str = "quick-change";
    // The change comes while the first list is still being written to the cache, before the
    // connection is registered.
    let changing = fixture(SERVER, |s| s.list_change_after(100));
    let cache = Arc::new(SlowWrites {
        inner: MemoryToolCache::default(),
        delay: Duration::from_millis(1000),
    });
    let manager = manager(cache);
    let mut events = manager.subscribe();

    let outcome = connect(&manager, &configs(&[(SERVER, &changing)])).await;
    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);

    let _ = wait_for_event(&mut events, "the list change", |event| {
        matches!(event, ManagerEvent::ToolsChanged { server } if server == SERVER)
            && manager
                .tools()
                .iter()
                .any(|tool| tool.original_name == "late_tool")
    })
    .await;

    within("disconnect_all", manager.disconnect_all()).await;
}

/// The same through a real server of the stateless revision (the TypeScript SDK v2 server of
/// `interop/`): its list change comes on the `subscriptions/listen` stream the client opened by
/// itself, and the registry follows.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the pinned interop peers (cargo xtask interop)"]
async fn a_stateless_servers_list_change_reaches_the_registry() {
    let running = testkit::RemotePeer::TypeScriptStateless.start();
    let server = Fixture {
        config: mcp_config::ServerConfig::http(running.url()),
        marker: String::new(),
    };
    let manager = manager(memory_cache());
    let mut events = manager.subscribe();
    let outcome = connect(&manager, &configs(&[("ts", &server)])).await;
    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
    assert_eq!(
        manager
            .protocol_version("ts")
            .map(|version| version.as_str()),
        Some("2026-07-28")
    );

    // The server tells only the listen streams open when the tool is added: wait until the
    // client's has reached it (the client opens it from a task of its own after connecting).
    let count = find_tool(&outcome.tools, "ts", "request_count");
    within("the listen stream", async {
        loop {
            let counts = call(count.tool.as_ref(), serde_json::json!({}))
                .await
                .to_text();
            let counts: serde_json::Value = serde_json::from_str(&counts).unwrap_or_default();
            if counts["methods"]["subscriptions/listen"].as_u64() >= Some(1) {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    })
    .await;
    let add = find_tool(&outcome.tools, "ts", "add_tool");
    let added = call(add.tool.as_ref(), serde_json::json!({"name": "fresh"})).await;
    assert!(!added.is_error, "{added:?}");
    let _ = wait_for_event(
        &mut events,
        "the list change",
        |event| matches!(event, ManagerEvent::ToolsChanged { server } if server == "ts"),
    )
    .await;
    let fresh = find_tool(&manager.tools(), "ts", "fresh");
    assert!(!fresh.deferred);
    assert_eq!(
        call(fresh.tool.as_ref(), serde_json::json!({}))
            .await
            .to_text(),
        "I am fresh"
    );
    within("disconnect_all", manager.disconnect_all()).await;
}

/// What a test's subscriber writes: every log line, kept for the test to read.
#[derive(Clone, Default)]
struct Logged(Arc<std::sync::Mutex<Vec<u8>>>);

impl Logged {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
}

impl std::io::Write for Logged {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The connection closes (its holder closing it, a session ending) while the manager is
/// listing a server's tools again after a change: the listing stops, and that is no failure
/// worth a warning, which a CLI would print on the user's terminal.
// One thread: the subscriber set for this test sees every task of its runtime.
#[tokio::test(flavor = "current_thread")]
async fn a_listing_cut_short_by_the_connection_closing_is_no_warning() {
    let logged = Logged::default();
    let writer = logged.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::DEBUG)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    let _logging = tracing::subscriber::set_default(subscriber);

    const SERVER: &str = "slow-lister";
    // The change comes while the first listing is slow, so the new listing starts as soon as
    // the connection is made, and is still slow when the connection closes.
    let changing = fixture(SERVER, |s| {
        s.delay("tools/list", 1500).list_change_after(100)
    });
    let manager = manager(memory_cache());
    let outcome = connect(&manager, &configs(&[(SERVER, &changing)])).await;
    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
    let client = within("the connection", manager.wait_for_connection(SERVER))
        .await
        .expect("connected");
    // The re-listing begins once the first listing is done (it is slow too): close then.
    assert!(
        wait_until(Duration::from_secs(10), {
            let logged = logged.clone();
            move || logged.text().contains("re-listing tools after a change")
        })
        .await,
        "a re-listing began: {}",
        logged.text()
    );
    client.close().await.expect("closed");
    assert!(
        wait_until(Duration::from_secs(5), {
            let logged = logged.clone();
            move || {
                logged
                    .text()
                    .contains("re-listing tools after a change stopped")
            }
        })
        .await,
        "the listing was under way when the connection closed: {}",
        logged.text()
    );
    let text = logged.text();
    assert!(
        !text.contains("WARN") && text.contains("re-listing tools after a change stopped"),
        "{text}"
    );

    within("disconnect_all", manager.disconnect_all()).await;
}
