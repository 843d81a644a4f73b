//! Disconnects: `disconnect_all` with connections still in flight leaves no process, no task and
//! no tool behind; `disconnect_server` touches only its server and kills its process group.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::*;
use mcp_manager::{ConnectionStatus, ManagerEvent, ManagerOptions, McpManager};
use serde_json::{Value, json};

/// Tasks alive in this test's runtime.
fn alive_tasks() -> usize {
    tokio::runtime::Handle::current()
        .metrics()
        .num_alive_tasks()
}

/// Waits until this runtime has no more than `baseline` tasks, failing the test otherwise.
async fn assert_tasks_back_to(baseline: usize) {
    let settled = tokio::time::timeout(PROCESS_LIMIT, async {
        while alive_tasks() > baseline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    assert!(
        settled.is_ok(),
        "{} tasks still alive, {baseline} before the test",
        alive_tasks()
    );
}

/// Waits until every fixture has started and spawned its grandchild; returns every pid of
/// their process groups (servers and grandchildren).
async fn started_groups(markers: &[String]) -> Vec<i32> {
    let owned = markers.to_vec();
    let started = wait_until(PROCESS_LIMIT, move || {
        owned.iter().all(|marker| {
            let pids = pids_with_marker(marker);
            pids.len() == 1 && testkit::process_group_members(pids[0]).len() >= 2
        })
    })
    .await;
    assert!(
        started,
        "the fixtures did not start with their grandchildren"
    );
    let mut pids: Vec<i32> = markers
        .iter()
        .flat_map(|marker| pids_with_marker(marker))
        .flat_map(testkit::process_group_members)
        .collect();
    pids.sort_unstable();
    pids.dedup();
    assert_eq!(pids.len(), markers.len() * 2, "{pids:?}");
    pids
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn disconnect_all_with_connections_in_flight_leaves_nothing_behind() {
    let baseline = alive_tasks();
    let slow = |label: &str| fixture(label, |s| s.delay("initialize", 3000).grandchild());
    let (a, b, c) = (slow("Cached-A.1"), slow("Cached-B.2"), slow("Uncached-C.3"));
    let cache = memory_cache();
    prefill(&cache, "Cached-A.1", &a.config, &[echo_tool()]).await;
    prefill(&cache, "Cached-B.2", &b.config, &[echo_tool()]).await;
    let manager = manager(cache);
    let mut events = manager.subscribe();
    let configs = configs(&[("Cached-A.1", &a), ("Cached-B.2", &b), ("Uncached-C.3", &c)]);

    // The gate answers only once the uncached server is done: connect from a task.
    let connecting = {
        let manager = Arc::clone(&manager);
        tokio::spawn(async move { manager.connect_servers(&configs).await })
    };
    let pids = started_groups(&[a.marker.clone(), b.marker.clone(), c.marker.clone()]).await;
    // The gate has passed once the cached servers' deferred tools are offered.
    let gate_passed = {
        let manager = Arc::clone(&manager);
        wait_until(PROCESS_LIMIT, move || {
            !tools_of(&manager.tools(), "Cached-A.1").is_empty()
        })
        .await
    };
    assert!(gate_passed, "no deferred tools after the gate");
    assert_eq!(
        manager.get_connection_status("Uncached-C.3"),
        ConnectionStatus::Connecting
    );

    within("disconnect_all", manager.disconnect_all()).await;

    // The caller still waiting on the gate gets its answer, with nothing in it.
    let outcome = within("the pending connect_servers", connecting)
        .await
        .unwrap();
    assert!(outcome.tools.is_empty(), "{:?}", outcome.tools);
    assert!(manager.tools().is_empty(), "{:?}", manager.tools());
    for server in ["Cached-A.1", "Cached-B.2", "Uncached-C.3"] {
        assert_eq!(
            manager.get_connection_status(server),
            ConnectionStatus::Disconnected
        );
    }
    assert_pids_gone(&pids).await;
    assert_tasks_back_to(baseline).await;

    // Events stop: nothing after the disconnect's own.
    let seen = drain_events(&mut events);
    assert!(
        seen.iter().any(|event| matches!(
            event,
            ManagerEvent::StatusChanged {
                status: ConnectionStatus::Disconnected,
                ..
            }
        )),
        "{seen:?}"
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(drain_events(&mut events), []);
    assert!(manager.tools().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn disconnect_all_before_the_gate_offers_no_deferred_tools() {
    let baseline = alive_tasks();
    let slow = |label: &str| fixture(label, |s| s.delay("initialize", 3000).grandchild());
    let (a, b) = (slow("early-a"), slow("early-b"));
    let cache = memory_cache();
    prefill(&cache, "early-a", &a.config, &[echo_tool()]).await;
    prefill(&cache, "early-b", &b.config, &[echo_tool()]).await;
    // A gate far longer than the test: the disconnect comes before it.
    let options = ManagerOptions::default().startup_timeout(Duration::from_secs(60));
    let manager = manager_with(options, cache);
    let configs = configs(&[("early-a", &a), ("early-b", &b)]);

    let connecting = {
        let manager = Arc::clone(&manager);
        tokio::spawn(async move { manager.connect_servers(&configs).await })
    };
    let pids = started_groups(&[a.marker.clone(), b.marker.clone()]).await;
    // Before the gate, what is offered is the cache's tools of servers still connecting.
    assert!(manager.tools().iter().all(|tool| tool.deferred));

    within("disconnect_all", manager.disconnect_all()).await;

    let outcome = within("the pending connect_servers", connecting)
        .await
        .unwrap();
    // The servers were disconnected: their cached tools must not come back.
    assert!(outcome.tools.is_empty(), "{:?}", outcome.tools);
    assert!(manager.tools().is_empty(), "{:?}", manager.tools());
    assert_eq!(
        manager.get_connection_status("early-a"),
        ConnectionStatus::Disconnected
    );
    assert_pids_gone(&pids).await;
    assert_tasks_back_to(baseline).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn disconnect_server_removes_only_that_servers_tools() {
    let (a, b, c) = (plain("keep-a"), plain("Drop-Me.2"), plain("keep-c"));
    let manager = manager(memory_cache());
    let mut events = manager.subscribe();
    let outcome = connect(
        &manager,
        &configs(&[("keep-a", &a), ("Drop-Me.2", &b), ("keep-c", &c)]),
    )
    .await;
    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
    assert!(!tools_of(&outcome.tools, "Drop-Me.2").is_empty());
    let (a_before, c_before) = (
        shape_of(&outcome.tools, "keep-a"),
        shape_of(&outcome.tools, "keep-c"),
    );
    let _ = drain_events(&mut events);

    within("disconnect_server", manager.disconnect_server("Drop-Me.2")).await;

    let after = manager.tools();
    assert!(tools_of(&after, "Drop-Me.2").is_empty(), "{after:?}");
    assert_eq!(shape_of(&after, "keep-a"), a_before);
    assert_eq!(shape_of(&after, "keep-c"), c_before);
    assert_eq!(
        manager.get_connection_status("Drop-Me.2"),
        ConnectionStatus::Disconnected
    );
    assert_eq!(
        manager.get_connection_status("keep-a"),
        ConnectionStatus::Connected
    );
    let seen = drain_events(&mut events);
    assert!(
        seen.contains(&ManagerEvent::ToolsChanged {
            server: "Drop-Me.2".to_owned()
        }),
        "{seen:?}"
    );
    assert!(
        seen.iter().all(|event| !matches!(
            event,
            ManagerEvent::StatusChanged { server, .. } | ManagerEvent::ToolsChanged { server }
                if server != "Drop-Me.2"
        )),
        "{seen:?}"
    );
    assert_no_process(&b.marker).await;
    let output = echo(
        find_tool(&after, "keep-c", "echo").tool.as_ref(),
        "still here",
    )
    .await;
    assert_eq!(output.to_text(), "still here");

    within("disconnect_all", manager.disconnect_all()).await;
    assert_no_process(&a.marker).await;
    assert_no_process(&c.marker).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn disconnecting_a_server_with_a_grandchild_kills_its_process_group() {
    let gc = fixture("gc", |s| s.grandchild());
    let other = plain("other");
    let manager = manager(memory_cache());
    let outcome = connect(&manager, &configs(&[("gc", &gc), ("other", &other)])).await;
    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);

    let output = call(
        find_tool(&outcome.tools, "gc", "pids").tool.as_ref(),
        json!({}),
    )
    .await;
    assert!(!output.is_error, "{output:?}");
    let pids: Value = serde_json::from_str(&output.to_text()).unwrap();
    let pid = i32::try_from(pids["pid"].as_i64().unwrap()).unwrap();
    let pgid = i32::try_from(pids["pgid"].as_i64().unwrap()).unwrap();
    let grandchild = i32::try_from(pids["grandchild"].as_i64().unwrap()).unwrap();
    assert_eq!(pid, pgid, "the server leads its own process group");
    let members = testkit::process_group_members(pgid);
    assert!(
        members.contains(&pid) && members.contains(&grandchild),
        "{members:?}"
    );

    within("disconnect_server", manager.disconnect_server("gc")).await;

    let gone = wait_until(PROCESS_LIMIT, move || {
        testkit::process_group_members(pgid).is_empty()
    })
    .await;
    assert!(
        gone,
        "left in the group: {:?}",
        testkit::process_group_members(pgid)
    );
    assert_eq!(
        manager.get_connection_status("other"),
        ConnectionStatus::Connected
    );

    within("disconnect_all", manager.disconnect_all()).await;
    assert_no_process(&other.marker).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_the_manager_stops_connections_in_flight() {
    let slow = fixture("dropped", |s| s.delay("initialize", 3000).grandchild());
    let cache = memory_cache();
    prefill(&cache, "dropped", &slow.config, &[echo_tool()]).await;
    let manager = McpManager::new(ManagerOptions::default(), cache);
    let outcome = connect(&manager, &configs(&[("dropped", &slow)])).await;
    assert!(find_tool(&outcome.tools, "dropped", "echo").deferred);
    let pids = started_groups(std::slice::from_ref(&slow.marker)).await;

    drop(outcome);
    drop(manager);

    assert_pids_gone(&pids).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_the_manager_stops_connected_servers_even_while_their_tools_are_held() {
    let live = fixture("held", |s| s.grandchild());
    let manager = McpManager::new(ManagerOptions::default(), memory_cache());
    let outcome = connect(&manager, &configs(&[("held", &live)])).await;
    let tool = find_tool(&outcome.tools, "held", "echo");
    assert!(!tool.deferred);
    let pids = started_groups(std::slice::from_ref(&live.marker)).await;

    // A session may keep its tool objects longer than the manager.
    drop(manager);

    assert_pids_gone(&pids).await;
    let output = echo(tool.tool.as_ref(), "anyone there?").await;
    assert!(output.is_error, "{output:?}");
    assert!(
        output.to_text().starts_with("MCP error:"),
        "{}",
        output.to_text()
    );
}
