//! What the tool cache remembers of a server's protocol era, and what a start does with it: the
//! negotiated version is visible ([`McpManager::protocol_version`]) and pinned at the next start
//! (probed again when the server refuses it), and a stateless server whose cached list is still
//! within its `ttlMs` is served without a single request until its first call. Against the HTTP
//! fixture, which records every request it gets (in its stateless mode: 2026-07-28 only).
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::time::Duration;

use common::*;
use mcp_cache::{Listing, ToolCache};
use mcp_config::ServerConfig;
use mcp_manager::{ConnectionStatus, ManagerOptions, McpManager};
use mcp_transport::ProtocolVersion;
use testkit::{HttpFixture, HttpFixtureOptions, RecordedRequest};

fn remote(fixture: &HttpFixture) -> Fixture {
    Fixture {
        config: ServerConfig::http(fixture.url()),
        marker: String::new(),
    }
}

/// The JSON-RPC methods of the requests after the first `skip`.
fn methods_since(requests: &[RecordedRequest], skip: usize) -> Vec<String> {
    requests
        .iter()
        .skip(skip)
        .map(|request| {
            request
                .rpc_method
                .clone()
                .unwrap_or_else(|| request.http_method.clone())
        })
        .collect()
}

/// One start over `cache`, as a session would make it. The gate is long enough for the fixture
/// on a busy machine, so that what a test sees does not depend on timing.
async fn start(
    cache: &std::sync::Arc<mcp_cache::MemoryToolCache>,
    name: &str,
    server: &Fixture,
) -> (std::sync::Arc<McpManager>, mcp_manager::ConnectOutcome) {
    let options = ManagerOptions::default().startup_timeout(Duration::from_secs(15));
    let manager = manager_with(options, cache.clone());
    let outcome = connect(&manager, &configs(&[(name, server)])).await;
    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
    (manager, outcome)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_handshake_servers_version_is_shown_remembered_and_pinned_at_the_next_start() {
    let fixture = HttpFixture::start(HttpFixtureOptions::default().json_answers());
    let server = remote(&fixture);
    let cache = memory_cache();

    let (first, _) = start(&cache, "web", &server).await;
    assert_eq!(
        first.protocol_version("web"),
        Some(ProtocolVersion::V2025_11_25)
    );
    within("disconnect_all", first.disconnect_all()).await;
    assert_eq!(first.protocol_version("web"), None);
    let probed = methods_since(&fixture.requests(), 0);
    assert_eq!(probed[..2], ["server/discover", "initialize"], "{probed:?}");
    let entry = cache
        .lookup_entry("web", &key_of(&server.config).await)
        .await
        .unwrap();
    assert_eq!(
        entry.listing,
        Listing::new(ProtocolVersion::V2025_11_25),
        "a handshake-era list has no ttl"
    );

    // The next start offers 2025-11-25 at once: no server/discover.
    let before = fixture.requests().len();
    let (second, outcome) = start(&cache, "web", &server).await;
    assert!(!find_tool(&outcome.tools, "web", "echo").deferred);
    let methods = methods_since(&fixture.requests(), before);
    assert_eq!(methods[0], "initialize", "{methods:?}");
    assert!(
        !methods.iter().any(|m| m == "server/discover"),
        "{methods:?}"
    );
    assert_eq!(
        second.protocol_version("web"),
        Some(ProtocolVersion::V2025_11_25)
    );
    within("disconnect_all", second.disconnect_all()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_still_connecting_shows_the_version_the_cache_remembers() {
    let slow = HttpFixture::start(
        HttpFixtureOptions::default()
            .json_answers()
            .hold("initialize"),
    );
    let server = remote(&slow);
    let cache = memory_cache();
    cache
        .set_entry(
            "slow",
            &key_of(&server.config).await,
            &[echo_tool()],
            &Listing::new(ProtocolVersion::V2025_06_18),
        )
        .await;
    let manager = manager_with(
        ManagerOptions::default().startup_timeout(Duration::from_millis(250)),
        cache.clone(),
    );
    let outcome = connect(&manager, &configs(&[("slow", &server)])).await;
    assert!(find_tool(&outcome.tools, "slow", "echo").deferred);
    assert_eq!(
        manager.get_connection_status("slow"),
        ConnectionStatus::Connecting
    );
    assert_eq!(
        manager.protocol_version("slow"),
        Some(ProtocolVersion::V2025_06_18)
    );
    slow.release();
    within("the connection", manager.wait_for_connection("slow"))
        .await
        .unwrap();
    // The fixture answers the version offered.
    assert_eq!(
        manager.protocol_version("slow"),
        Some(ProtocolVersion::V2025_06_18)
    );
    within("disconnect_all", manager.disconnect_all()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remembered_era_the_server_refuses_is_probed_again_and_the_cache_corrected() {
    let cases = [
        // Remembered stateless, now a server of the handshake era.
        (
            HttpFixtureOptions::default().json_answers(),
            ProtocolVersion::V2026_07_28,
            ProtocolVersion::V2025_11_25,
        ),
        // Remembered handshake era, now a stateless-only server.
        (
            HttpFixtureOptions::default().stateless(Some(60_000)),
            ProtocolVersion::V2025_11_25,
            ProtocolVersion::V2026_07_28,
        ),
    ];
    for (options, remembered, now_spoken) in cases {
        let fixture = HttpFixture::start(options);
        let server = remote(&fixture);
        let cache = memory_cache();
        let fingerprint = key_of(&server.config).await;
        let listing = Listing::new(remembered);
        cache
            .set_entry("moved", &fingerprint, &[echo_tool()], &listing)
            .await;

        let (manager, outcome) = start(&cache, "moved", &server).await;
        assert_eq!(
            manager.get_connection_status("moved"),
            ConnectionStatus::Connected,
            "{remembered} → {now_spoken}"
        );
        assert_eq!(manager.protocol_version("moved"), Some(now_spoken));
        let output = echo(
            find_tool(&outcome.tools, "moved", "echo").tool.as_ref(),
            "hi",
        )
        .await;
        assert_eq!(output.to_text(), "hi", "{output:?}");
        let entry = cache.lookup_entry("moved", &fingerprint).await.unwrap();
        assert_eq!(entry.listing.protocol_version, Some(now_spoken));
        within("disconnect_all", manager.disconnect_all()).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stateless_servers_fresh_list_is_served_live_without_a_request_until_its_first_call() {
    let fixture = HttpFixture::start(HttpFixtureOptions::default().stateless(Some(600_000)));
    let server = remote(&fixture);
    let cache = memory_cache();

    let (first, outcome) = start(&cache, "fresh", &server).await;
    assert!(!find_tool(&outcome.tools, "fresh", "echo").deferred);
    assert_eq!(
        first.protocol_version("fresh"),
        Some(ProtocolVersion::V2026_07_28)
    );
    within("disconnect_all", first.disconnect_all()).await;
    let listed = methods_since(&fixture.requests(), 0);
    assert_eq!(listed, ["server/discover", "tools/list"]);
    let entry = cache
        .lookup_entry("fresh", &key_of(&server.config).await)
        .await
        .unwrap();
    let ttl = entry.listing.ttl.expect("the list's ttl is kept");
    assert!(
        ttl > Duration::from_secs(590) && ttl <= Duration::from_secs(600),
        "{ttl:?}"
    );
    assert!(entry.listing.fetched_at.is_some());

    // Within the ttl: live tools, connected, and not one request.
    let before = fixture.requests().len();
    let (second, outcome) = start(&cache, "fresh", &server).await;
    let echo_tool = find_tool(&outcome.tools, "fresh", "echo");
    assert!(!echo_tool.deferred, "served live from the cache");
    assert_eq!(tools_of(&outcome.tools, "fresh").len(), 4);
    assert_eq!(
        second.get_connection_status("fresh"),
        ConnectionStatus::Connected
    );
    assert_eq!(
        second.protocol_version("fresh"),
        Some(ProtocolVersion::V2026_07_28)
    );
    assert_eq!(
        methods_since(&fixture.requests(), before),
        Vec::<String>::new(),
        "a warm start within the ttl sends nothing"
    );
    // Connecting the same servers again (a reload keeping it) leaves it as it is.
    let mut events = second.subscribe();
    let again = connect(&second, &configs(&[("fresh", &server)])).await;
    assert!(!find_tool(&again.tools, "fresh", "echo").deferred);
    assert!(methods_since(&fixture.requests(), before).is_empty());
    let events = drain_events(&mut events);
    assert!(
        events.is_empty(),
        "left alone, as a connected server: {events:?}"
    );

    // The first call connects (server/discover, pinned) and goes through; the list is not
    // fetched again, and no session is involved.
    let output = echo(echo_tool.tool.as_ref(), "on demand").await;
    assert!(!output.is_error, "{output:?}");
    assert_eq!(output.to_text(), "on demand");
    let requests = fixture.requests();
    assert_eq!(
        methods_since(&requests, before),
        ["server/discover", "tools/call"]
    );
    assert!(requests.iter().all(|request| request.session_id.is_none()));
    assert_eq!(
        second.get_connection_status("fresh"),
        ConnectionStatus::Connected
    );
    // The tools are the session's live ones, now through the connection.
    let again = find_tool(&second.tools(), "fresh", "echo");
    assert!(!again.deferred);
    assert_eq!(echo(again.tool.as_ref(), "again").await.to_text(), "again");
    within("disconnect_all", second.disconnect_all()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stale_or_missing_ttl_fetches_the_list_again_as_before() {
    for ttl in [Some(0), None] {
        let fixture = HttpFixture::start(HttpFixtureOptions::default().stateless(ttl));
        let server = remote(&fixture);
        let cache = memory_cache();
        let (first, _) = start(&cache, "stale", &server).await;
        within("disconnect_all", first.disconnect_all()).await;

        let before = fixture.requests().len();
        let (second, outcome) = start(&cache, "stale", &server).await;
        assert!(!find_tool(&outcome.tools, "stale", "echo").deferred);
        assert_eq!(
            methods_since(&fixture.requests(), before),
            ["server/discover", "tools/list"],
            "ttl {ttl:?}"
        );
        within("disconnect_all", second.disconnect_all()).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_required_server_is_connected_at_startup_even_with_a_fresh_list() {
    let fixture = HttpFixture::start(HttpFixtureOptions::default().stateless(Some(600_000)));
    let mut server = remote(&fixture);
    server
        .config
        .extra
        .insert("required".to_owned(), serde_json::json!(true));
    let cache = memory_cache();
    let (first, _) = start(&cache, "needed", &server).await;
    within("disconnect_all", first.disconnect_all()).await;

    let before = fixture.requests().len();
    let (second, _) = start(&cache, "needed", &server).await;
    assert_eq!(
        methods_since(&fixture.requests(), before),
        ["server/discover", "tools/list"]
    );
    within("disconnect_all", second.disconnect_all()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn asking_every_server_for_its_prompts_connects_one_served_on_demand() {
    let fixture = HttpFixture::start(HttpFixtureOptions::default().stateless(Some(600_000)));
    let server = remote(&fixture);
    let cache = memory_cache();
    let (first, _) = start(&cache, "fresh", &server).await;
    within("disconnect_all", first.disconnect_all()).await;

    let before = fixture.requests().len();
    let (second, _) = start(&cache, "fresh", &server).await;
    assert!(methods_since(&fixture.requests(), before).is_empty());
    // It offers no prompts: asked, it is connected and then left out as a server without them.
    let listings = within("all_prompts", second.all_prompts()).await;
    assert!(listings.is_empty(), "{listings:?}");
    assert_eq!(
        methods_since(&fixture.requests(), before),
        ["server/discover"]
    );
    assert!(
        within("the connection", second.wait_for_connection("fresh"))
            .await
            .is_ok()
    );
    assert_eq!(methods_since(&fixture.requests(), before).len(), 1);
    within("disconnect_all", second.disconnect_all()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remembered_era_that_times_out_is_forgotten_so_the_next_start_probes() {
    // A server of the handshake era that ignores requests before `initialize` never answers
    // the stateless probe a remembered 2026-07-28 pins: that start times out, and must not be
    // the fate of every later one.
    let mut silent = fixture("silent", |server| server.hang_at("server/discover"));
    // Short enough for a quick test, long enough for the probe and the handshake that follow
    // on a busy machine (the probe gets half).
    silent.config.timeout = Some(4000);
    let cache = memory_cache();
    let fingerprint = key_of(&silent.config).await;
    let remembered = Listing::new(ProtocolVersion::V2026_07_28);
    cache
        .set_entry("silent", &fingerprint, &[echo_tool()], &remembered)
        .await;

    let first = manager(cache.clone());
    connect(&first, &configs(&[("silent", &silent)])).await;
    let failed = within("the pinned attempt", first.wait_for_connection("silent")).await;
    assert!(failed.unwrap_err().is_timeout());
    assert_eq!(
        cache
            .lookup_entry("silent", &fingerprint)
            .await
            .unwrap_err(),
        mcp_cache::MissReason::Absent
    );
    within("disconnect_all", first.disconnect_all()).await;

    let (second, _) = start(&cache, "silent", &silent).await;
    assert_eq!(
        second.protocol_version("silent"),
        Some(ProtocolVersion::V2025_11_25)
    );
    within("disconnect_all", second.disconnect_all()).await;
    assert_no_process(&silent.marker).await;
}
