//! Remote servers in the manager, exactly like stdio ones: live tools, the gate with deferred
//! tools from the cache, status, failures that name the URL and never a credential, and
//! disconnect (which ends the HTTP session).
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::time::Duration;

use common::*;
use mcp_config::{ServerConfig, TransportConfig};
use mcp_manager::{ConnectionStatus, ManagerOptions};
use testkit::{HttpFixture, HttpFixtureOptions};

fn remote(config: ServerConfig) -> Fixture {
    Fixture {
        config,
        marker: String::new(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_sse_and_stdio_servers_give_live_tools_side_by_side() {
    let streamable = HttpFixture::start(HttpFixtureOptions::default());
    let legacy = HttpFixture::start(HttpFixtureOptions::default().legacy_sse());
    let http = remote(ServerConfig::http(streamable.url()));
    let sse = remote(ServerConfig::sse(legacy.url()));
    let stdio = plain("local");
    let manager = manager(memory_cache());

    let outcome = connect(
        &manager,
        &configs(&[("web", &http), ("old-web", &sse), ("local", &stdio)]),
    )
    .await;

    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
    for server in ["web", "old-web", "local"] {
        assert_eq!(
            manager.get_connection_status(server),
            ConnectionStatus::Connected,
            "{server}"
        );
        let tool = find_tool(&outcome.tools, server, "echo");
        assert!(!tool.deferred);
        let output = echo(tool.tool.as_ref(), &format!("via {server}")).await;
        assert!(!output.is_error, "{output:?}");
        assert_eq!(output.to_text(), format!("via {server}"));
    }
    assert_eq!(
        find_tool(&outcome.tools, "old-web", "echo").tool.name(),
        "mcp_old_web_echo"
    );

    within("disconnect_all", manager.disconnect_all()).await;
    assert_eq!(
        manager.get_connection_status("web"),
        ConnectionStatus::Disconnected
    );
    assert!(
        streamable
            .requests()
            .iter()
            .any(|request| request.http_method == "DELETE"),
        "disconnecting ends the HTTP session: {:?}",
        streamable.requests()
    );
    assert_no_process(&stdio.marker).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_remote_server_with_a_cache_entry_is_deferred_at_the_gate_then_answers() {
    // The server answers `initialize` only when the test lets it: still connecting at the gate
    // on any machine.
    let slow = HttpFixture::start(HttpFixtureOptions::default().hold("initialize"));
    let http = remote(ServerConfig::http(slow.url()));
    let cache = memory_cache();
    prefill(&cache, "slow-web", &http.config, &[echo_tool()]).await;
    let manager = manager_with(
        ManagerOptions::default().startup_timeout(Duration::from_millis(250)),
        cache,
    );

    let outcome = connect(&manager, &configs(&[("slow-web", &http)])).await;

    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
    let deferred = find_tool(&outcome.tools, "slow-web", "echo");
    assert!(deferred.deferred, "{deferred:?}");
    assert_eq!(
        manager.get_connection_status("slow-web"),
        ConnectionStatus::Connecting
    );
    // The deferred tool waits for the connection, then calls through it.
    // (`join!` polls the call first: it is waiting when the server is let go.)
    let (output, ()) = tokio::join!(echo(deferred.tool.as_ref(), "worth the wait"), async {
        slow.release();
    });
    assert!(!output.is_error, "{output:?}");
    assert_eq!(output.to_text(), "worth the wait");
    assert_eq!(
        manager.get_connection_status("slow-web"),
        ConnectionStatus::Connected
    );
    within("disconnect_all", manager.disconnect_all()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_remote_server_fails_naming_its_url_and_never_its_credentials() {
    let mut config = ServerConfig::http("http://127.0.0.1:9/mcp?apiKey=url-secret");
    if let TransportConfig::Http(remote) = &mut config.transport {
        remote.headers.insert(
            "Authorization".to_owned(),
            "Bearer header-secret".to_owned(),
        );
    }
    let unreachable = remote(config);
    let manager = manager(memory_cache());

    let outcome = connect(&manager, &configs(&[("gone", &unreachable)])).await;

    assert_eq!(outcome.errors.len(), 1, "{:?}", outcome.errors);
    let error = &outcome.errors[0];
    assert_eq!(error.server(), Some("gone"));
    let shown = format!("{error} {error:?}");
    assert!(shown.contains("http://127.0.0.1:9/mcp"), "{shown}");
    assert!(!shown.contains("url-secret"), "{shown}");
    assert!(!shown.contains("header-secret"), "{shown}");
    assert!(
        matches!(
            manager.get_connection_status("gone"),
            ConnectionStatus::Failed(_)
        ),
        "{:?}",
        manager.get_connection_status("gone")
    );
    within("disconnect_all", manager.disconnect_all()).await;
}
