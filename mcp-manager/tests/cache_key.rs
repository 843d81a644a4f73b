//! What a cached tool list belongs to: the definition as written *and* as resolved (a
//! variable's value counts, as a hash only: no value is ever stored), the file that defines the
//! server, and for a server that logs in, the login it was listed under. A list cached under
//! anything else is never offered — not deferred at the gate, not as a stateless server's fresh
//! list served live — and a stateless server's `ttlMs` keeps a list fresh for a day at most.
//! Against the stdio fixture and testkit's HTTP fixture (stateless mode, and its own OAuth
//! authorization server), on 127.0.0.1.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use common::*;
use mcp_cache::{
    CacheEntry, CacheOptions, Fingerprint, Listing, MemoryToolCache, MissReason, SledToolCache,
    ToolCache,
};
use mcp_config::{DiscoveryContext, ServerConfig, TrustPolicy};
use mcp_manager::{
    ConnectionStatus, LoadOptions, ManagerOptions, McpManager, discover_mcp_servers,
};
use mcp_transport::Tool;
use mcp_transport::oauth::{CredentialStore, MemoryCredentialStore};
use serde_json::json;
use testkit::{HttpFixture, HttpFixtureOptions};

/// One day: the longest a list is ever taken as fresh.
const DAY: Duration = Duration::from_secs(24 * 60 * 60);

/// Every file under `dir`, read whole.
fn every_file(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(every_file(&path));
        } else if let Ok(bytes) = std::fs::read(&path) {
            files.push((path.display().to_string(), bytes));
        }
    }
    files
}

fn holds(bytes: &[u8], text: &str) -> bool {
    bytes
        .windows(text.len())
        .any(|window| window == text.as_bytes())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_variables_value_is_part_of_the_cache_key_and_never_stored() {
    let dir = TempDir::new("var-key-project");
    let home = TempDir::new("var-key-home");
    let cache_dir = TempDir::new("var-key-cache");
    // Lists its tools only when the test lets it, and then 1.5 s later: with the hold kept, a
    // cached list is surely offered, deferred; released, an uncached server is awaited past
    // the gate (a cached list, were one wrongly found, would be offered deferred).
    let hold_dir = TempDir::new("var-key-hold");
    let hold = testkit::Hold::in_folder(hold_dir.path(), "var-key");
    let server = fixture("var-key", |s| {
        s.hold("tools/list", hold.fifo()).delay("tools/list", 1500)
    });
    let mcp_config::TransportConfig::Stdio(stdio) = &server.config.transport else {
        unreachable!()
    };
    // In the server's environment, which it never echoes: what it says (its tools, its
    // instructions) is cached, what its definition resolves to only as part of a hash.
    let config = json!({"mcpServers": {"fp": {
        "command": stdio.command,
        "args": stdio.args,
        "env": {"FIXTURE_SECRET": "${SECRET}"},
    }}});
    std::fs::write(dir.path().join(".mcp.json"), config.to_string()).unwrap();

    let start = async |secret: &str| {
        let cache = SledToolCache::open_at(cache_dir.path(), CacheOptions::default());
        let context = DiscoveryContext::new("testapp", dir.path(), home.path())
            .with_env([("SECRET", secret)]);
        let options = LoadOptions::new("testapp")
            .context(context)
            .cache(Arc::new(cache.clone()))
            .trust(TrustPolicy::TrustAll);
        let mut loaded = discover_mcp_servers(dir.path(), &options);
        within("connect", loaded.connect()).await;
        assert!(loaded.problems.is_empty(), "{:?}", loaded.problems);
        let tools = shape_of(&loaded.tools, "fp");
        within("disconnect_all", loaded.manager.disconnect_all()).await;
        cache.close().await;
        tools
    };

    hold.release();
    let first = start("first-secret-value").await;
    assert!(!first.is_empty() && first.iter().all(|(_, _, deferred)| !deferred));
    // The same value again: the list is known, offered deferred while the server is held.
    let again = start("first-secret-value").await;
    assert!(again.iter().all(|(_, _, deferred)| *deferred), "{again:?}");

    // The held server is gone before the next is let go (a release goes to whoever holds).
    assert_no_process(&server.marker).await;
    hold.release();
    let rotated = start("other-secret-value").await;
    assert!(
        rotated.iter().all(|(_, _, deferred)| !deferred),
        "a list cached under another value of the variable was offered: {rotated:?}"
    );
    for (path, bytes) in every_file(cache_dir.path()) {
        assert!(
            !holds(&bytes, "secret-value"),
            "{path} holds a variable's value"
        );
    }
}

/// The JSON-RPC methods the fixture received after the first `skip` requests.
fn methods_since(fixture: &HttpFixture, skip: usize) -> Vec<String> {
    fixture.requests()[skip..]
        .iter()
        .filter_map(|request| request.rpc_method.clone())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_logged_in_servers_fresh_list_belongs_to_its_login() {
    let fixture = HttpFixture::start(
        HttpFixtureOptions::default()
            .oauth()
            .json_answers()
            .stateless(Some(600_000)),
    );
    let server = Fixture {
        config: ServerConfig::http(fixture.url()),
        marker: String::new(),
    };
    let store: Arc<dyn CredentialStore> = Arc::new(MemoryCredentialStore::new());
    let cache = memory_cache();
    let manager = || {
        let options = ManagerOptions::default()
            .credentials(Arc::clone(&store))
            .startup_timeout(Duration::from_secs(15));
        manager_with(options, cache.clone())
    };
    let login = async |manager: &McpManager| {
        within(
            "login",
            manager.login("web", &server.config, Arc::new(Browser), LIMIT),
        )
        .await
        .unwrap_or_else(|error| panic!("{error}"))
    };

    let first = manager();
    assert_eq!(login(&first).await, 4);
    let outcome = connect(&first, &configs(&[("web", &server)])).await;
    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
    within("disconnect_all", first.disconnect_all()).await;

    // The same login: the fresh list is served live, and nothing is sent.
    let before = fixture.requests().len();
    let second = manager();
    let outcome = connect(&second, &configs(&[("web", &server)])).await;
    let tool = find_tool(&outcome.tools, "web", "echo");
    assert!(!tool.deferred);
    assert_eq!(methods_since(&fixture, before), Vec::<String>::new());
    // Its token expired and refreshed at the first call: still the same login.
    fixture.expire_access_tokens();
    assert_eq!(echo(tool.tool.as_ref(), "hi").await.to_text(), "hi");
    assert_eq!(fixture.token_requests("refresh_token"), 1);
    within("disconnect_all", second.disconnect_all()).await;
    let before = fixture.requests().len();
    let refreshed = manager();
    connect(&refreshed, &configs(&[("web", &server)])).await;
    assert_eq!(methods_since(&fixture, before), Vec::<String>::new());
    within("disconnect_all", refreshed.disconnect_all()).await;

    // Logged in again (as someone else, for all the client can tell): asked again.
    let third = manager();
    login(&third).await;
    let before = fixture.requests().len();
    let outcome = connect(&third, &configs(&[("web", &server)])).await;
    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
    assert!(
        methods_since(&fixture, before).contains(&"server/discover".to_owned()),
        "the list cached under the earlier login was served: {:?}",
        methods_since(&fixture, before)
    );
    within("disconnect_all", third.disconnect_all()).await;

    // Logged out: nothing is served, and the server says a login is needed.
    let fourth = manager();
    assert!(
        within("logout", fourth.logout("web", &server.config))
            .await
            .unwrap()
    );
    let outcome = connect(&fourth, &configs(&[("web", &server)])).await;
    assert!(
        matches!(
            fourth.get_connection_status("web"),
            ConnectionStatus::NeedsLogin(_)
        ),
        "{:?}: {:?}",
        fourth.get_connection_status("web"),
        outcome.tools
    );
    assert!(
        tools_of(&outcome.tools, "web").is_empty(),
        "{:?}",
        outcome.tools
    );
    within("disconnect_all", fourth.disconnect_all()).await;
}

/// A memory cache that keeps every listing written to it.
#[derive(Default)]
struct Recording {
    inner: MemoryToolCache,
    written: Mutex<Vec<Listing>>,
}

#[async_trait]
impl ToolCache for Recording {
    async fn set(&self, server: &str, fingerprint: &Fingerprint, tools: &[Tool]) {
        self.inner.set(server, fingerprint, tools).await;
    }

    async fn remove(&self, server: &str) {
        self.inner.remove(server).await;
    }

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
        self.written.lock().unwrap().push(listing.clone());
        self.inner
            .set_entry(server, fingerprint, tools, listing)
            .await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stateless_servers_ttl_keeps_its_list_fresh_for_a_day_at_most() {
    // 10^12 ms: 31 years.
    let fixture =
        HttpFixture::start(HttpFixtureOptions::default().stateless(Some(1_000_000_000_000)));
    let server = Fixture {
        config: ServerConfig::http(fixture.url()),
        marker: String::new(),
    };
    let cache = Arc::new(Recording::default());
    let manager = manager_with(ManagerOptions::default(), cache.clone());
    let outcome = connect(&manager, &configs(&[("long", &server)])).await;
    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
    within("disconnect_all", manager.disconnect_all()).await;

    let written = cache.written.lock().unwrap().clone();
    assert_eq!(written.len(), 1, "{written:?}");
    let listing = written[0].clone();
    let fetched_at = listing.fetched_at.expect("a stateless list's fetch time");
    let fresh_until = listing.fresh_until().expect("a readable ttl is kept");
    assert!(
        fresh_until <= fetched_at + DAY,
        "fresh for {:?}",
        fresh_until.duration_since(fetched_at)
    );
    assert!(listing.is_fresh_at(fetched_at + DAY - Duration::from_secs(120)));
    assert!(!listing.is_fresh_at(fetched_at + DAY));
}
