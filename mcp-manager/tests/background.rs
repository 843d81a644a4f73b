//! After the gate: a late finish replaces exactly that server's tools and writes the cache; a
//! late failure is reported as an event and the server's deferred tools answer `MCP error: …`.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use common::*;
use mcp_cache::ToolCache;
use mcp_manager::{ConnectionStatus, ManagerEvent};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_late_finish_replaces_exactly_that_servers_tools_and_writes_the_cache() {
    const SLOW: &str = "Slow-Server.v2";
    const STUCK: &str = "Stuck.Server-3";
    const FAST: &str = "Fast9";
    // Its list comes only when the test lets it: after the gate, on any machine.
    let folder = TempDir::new("late-finish");
    let hold = testkit::Hold::in_folder(folder.path(), "slow");
    let slow = fixture(SLOW, |s| s.hold("tools/list", hold.fifo()));
    // Never answers initialize within the test: its deferred tools stay as they are.
    let stuck = fixture(STUCK, |s| s.hang_at("initialize"));
    let fast = plain(FAST);
    let cache = memory_cache();
    prefill(&cache, SLOW, &slow.config, &[echo_tool()]).await;
    prefill(&cache, STUCK, &stuck.config, &[echo_tool()]).await;
    let manager = manager(cache.clone());
    let mut events = manager.subscribe();
    let configs = configs(&[(SLOW, &slow), (STUCK, &stuck), (FAST, &fast)]);

    let outcome = connect(&manager, &configs).await;

    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
    assert_eq!(
        shape_of(&outcome.tools, SLOW),
        [(
            "mcp_slow_server_v2_echo".to_owned(),
            "echo".to_owned(),
            true
        )]
    );
    assert_eq!(
        shape_of(&outcome.tools, STUCK),
        [(
            "mcp_stuck_server_3_echo".to_owned(),
            "echo".to_owned(),
            true
        )]
    );
    let fast_before = shape_of(&outcome.tools, FAST);
    assert!(fast_before.len() > 1);
    assert!(fast_before.iter().all(|(_, _, deferred)| !deferred));

    hold.release();
    let (event, _) = wait_for_event(
        &mut events,
        "the slow server's tools",
        |event| matches!(event, ManagerEvent::ToolsChanged { server } if server == SLOW),
    )
    .await;
    assert_eq!(
        event,
        ManagerEvent::ToolsChanged {
            server: SLOW.to_owned()
        }
    );

    let after = manager.tools();
    let slow_after = tools_of(&after, SLOW);
    assert!(
        slow_after.len() > 1,
        "the real list replaced the cached one: {slow_after:?}"
    );
    assert!(
        slow_after.iter().all(|tool| !tool.deferred),
        "{slow_after:?}"
    );
    assert!(
        slow_after
            .iter()
            .all(|tool| tool.tool.name().starts_with("mcp_slow_server_v2_"))
    );
    let slow_names: Vec<String> = slow_after
        .iter()
        .map(|tool| tool.original_name.clone())
        .collect();
    for name in ["echo", "add", "sleep", "pids"] {
        assert!(
            slow_names.iter().any(|n| n == name),
            "{name} in {slow_names:?}"
        );
    }
    // The other servers' tools are exactly as they were.
    assert_eq!(shape_of(&after, FAST), fast_before);
    assert_eq!(shape_of(&after, STUCK), shape_of(&outcome.tools, STUCK));
    assert_eq!(
        manager.get_connection_status(SLOW),
        ConnectionStatus::Connected
    );
    assert_eq!(
        manager.get_connection_status(STUCK),
        ConnectionStatus::Connecting
    );

    // The cache holds the server's real list now.
    match cache.lookup_entry(SLOW, &key_of(&slow.config).await).await {
        Ok(entry) => {
            let mut cached: Vec<String> = entry.tools.into_iter().map(|tool| tool.name).collect();
            cached.sort();
            assert_eq!(cached, slow_names);
        }
        Err(reason) => panic!("expected a cache hit, got {reason:?}"),
    }

    // The live tool works.
    let output = echo(find_tool(&after, SLOW, "echo").tool.as_ref(), "live").await;
    assert_eq!(output.to_text(), "live");

    within("disconnect_all", manager.disconnect_all()).await;
    assert_no_process(&stuck.marker).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_late_failure_is_reported_after_the_gate_and_deferred_tools_answer_mcp_error() {
    const LATE: &str = "Late-Fail.1";
    // It answers initialize only when the test lets it (after the gate), then crashes.
    let folder = TempDir::new("late-failure");
    let hold = testkit::Hold::in_folder(folder.path(), "late");
    let late = fixture(LATE, |s| {
        s.hold("initialize", hold.fifo()).crash_at("tools/list")
    });
    let ok = plain("ok");
    let cache = memory_cache();
    prefill(&cache, LATE, &late.config, &[echo_tool()]).await;
    let manager = manager(cache);
    let mut events = manager.subscribe();
    let configs = configs(&[(LATE, &late), ("ok", &ok)]);

    let outcome = connect(&manager, &configs).await;

    // At the gate: no error yet, deferred tools.
    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
    assert_eq!(
        manager.get_connection_status(LATE),
        ConnectionStatus::Connecting
    );
    let deferred = find_tool(&outcome.tools, LATE, "echo");
    assert!(deferred.deferred);
    // A call made while the server is still connecting waits for the outcome.
    let early_call = {
        let tool = deferred.tool.clone();
        tokio::spawn(async move { echo(tool.as_ref(), "too early").await })
    };
    hold.release();

    let (event, _) = wait_for_event(
        &mut events,
        "the late error",
        |event| matches!(event, ManagerEvent::LateError { server, .. } if server == LATE),
    )
    .await;
    let ManagerEvent::LateError { error, .. } = event else {
        unreachable!("matched above")
    };
    assert!(
        error.to_string().contains(LATE),
        "the error names the server: {error}"
    );
    assert!(matches!(
        manager.get_connection_status(LATE),
        ConnectionStatus::Failed(_)
    ));

    let early = within("the early call", early_call).await.unwrap();
    assert!(early.is_error, "{early:?}");
    assert!(
        early.to_text().starts_with("MCP error:"),
        "{}",
        early.to_text()
    );
    let later = echo(deferred.tool.as_ref(), "after the failure").await;
    assert!(later.is_error, "{later:?}");
    assert!(
        later.to_text().starts_with("MCP error:"),
        "{}",
        later.to_text()
    );
    assert!(later.to_text().contains(LATE), "{}", later.to_text());

    // The other server is untouched.
    assert_eq!(
        manager.get_connection_status("ok"),
        ConnectionStatus::Connected
    );
    let output = echo(
        find_tool(&manager.tools(), "ok", "echo").tool.as_ref(),
        "fine",
    )
    .await;
    assert_eq!(output.to_text(), "fine");
    assert_no_process(&late.marker).await;

    within("disconnect_all", manager.disconnect_all()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connecting_more_servers_keeps_the_others_tools() {
    let (first, second, third) = (plain("first"), plain("Second.2"), plain("third-3"));
    let manager = manager(memory_cache());
    let outcome = connect(&manager, &configs(&[("first", &first)])).await;
    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
    let first_tools = shape_of(&outcome.tools, "first");
    assert!(!first_tools.is_empty());

    // A batch without the first server, then one that names it again (it is left alone).
    let outcome = connect(&manager, &configs(&[("Second.2", &second)])).await;
    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
    assert_eq!(shape_of(&outcome.tools, "first"), first_tools);
    assert!(!tools_of(&outcome.tools, "Second.2").is_empty());
    let outcome = connect(
        &manager,
        &configs(&[("first", &first), ("third-3", &third)]),
    )
    .await;
    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
    assert_eq!(shape_of(&outcome.tools, "first"), first_tools);
    assert!(!tools_of(&outcome.tools, "Second.2").is_empty());
    assert!(!tools_of(&outcome.tools, "third-3").is_empty());
    // Still one process for the first server.
    assert_eq!(pids_with_marker(&first.marker).len(), 1);

    within("disconnect_all", manager.disconnect_all()).await;
    for fixture in [&first, &second, &third] {
        assert_no_process(&fixture.marker).await;
    }
}
