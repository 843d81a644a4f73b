//! The startup gate: what `connect_servers` answers with fast, slow (cached or not), failing and
//! hanging servers connected together.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use common::*;
use mcp_manager::{ConnectionStatus, ManagerEvent, ManagerOptions};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fast_servers_give_live_tools() {
    let (a, b, c) = (plain("alpha"), plain("Beta-2"), plain("gamma.3"));
    let manager = manager(memory_cache());
    let configs = configs(&[("alpha", &a), ("Beta-2", &b), ("gamma.3", &c)]);

    let outcome = connect(&manager, &configs).await;

    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
    for server in ["alpha", "Beta-2", "gamma.3"] {
        let tools = tools_of(&outcome.tools, server);
        assert!(
            tools.iter().any(|tool| tool.original_name == "echo"),
            "{server}: {tools:?}"
        );
        assert!(
            tools.iter().all(|tool| !tool.deferred),
            "{server}: {tools:?}"
        );
        assert_eq!(
            manager.get_connection_status(server),
            ConnectionStatus::Connected
        );
    }
    let echo_b = find_tool(&outcome.tools, "Beta-2", "echo");
    assert_eq!(echo_b.tool.name(), "mcp_beta_2_echo");
    let output = echo(echo_b.tool.as_ref(), "hello").await;
    assert!(!output.is_error, "{output:?}");
    assert_eq!(output.to_text(), "hello");

    within("disconnect_all", manager.disconnect_all()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_servers_with_a_cache_entry_are_deferred_at_the_gate() {
    let fast = plain("fast");
    // Each answers (its list, its initialize) only when the test lets it: still connecting at
    // the gate on any machine.
    let folder = TempDir::new("deferred-at-the-gate");
    let list_hold = testkit::Hold::in_folder(folder.path(), "slow-list");
    let init_hold = testkit::Hold::in_folder(folder.path(), "slow-init");
    let slow_list = fixture("slow-list", |s| s.hold("tools/list", list_hold.fifo()));
    let slow_init = fixture("slow-init", |s| s.hold("initialize", init_hold.fifo()));
    let cache = memory_cache();
    prefill(&cache, "slow-list", &slow_list.config, &[echo_tool()]).await;
    prefill(&cache, "slow-init", &slow_init.config, &[echo_tool()]).await;
    let manager = manager(cache);
    let configs = configs(&[
        ("fast", &fast),
        ("slow-list", &slow_list),
        ("slow-init", &slow_init),
    ]);

    let outcome = connect(&manager, &configs).await;

    // Returned at the gate: the slow servers are still connecting, their tools come from the
    // cache.
    assert_eq!(
        manager.get_connection_status("slow-list"),
        ConnectionStatus::Connecting
    );
    assert_eq!(
        manager.get_connection_status("slow-init"),
        ConnectionStatus::Connecting
    );
    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
    for server in ["slow-list", "slow-init"] {
        let tools = tools_of(&outcome.tools, server);
        assert_eq!(tools.len(), 1, "{server}: {tools:?}");
        assert_eq!(tools[0].original_name, "echo");
        assert!(tools[0].deferred, "{server}: {tools:?}");
    }
    let fast_tools = tools_of(&outcome.tools, "fast");
    assert!(fast_tools.len() > 1, "{fast_tools:?}");
    assert!(fast_tools.iter().all(|tool| !tool.deferred));

    // Calling a deferred tool waits for its server, then calls it: `join!` polls the calls
    // first, so they are waiting when the servers are let go.
    let deferred_list = find_tool(&outcome.tools, "slow-list", "echo");
    let deferred_init = find_tool(&outcome.tools, "slow-init", "echo");
    assert_eq!(deferred_list.tool.name(), "mcp_slow_list_echo");
    let (first, second, ()) = within("two deferred calls", async {
        tokio::join!(
            echo(deferred_list.tool.as_ref(), "via the cache"),
            echo(deferred_init.tool.as_ref(), "also via the cache"),
            async {
                list_hold.release();
                init_hold.release();
            },
        )
    })
    .await;
    assert!(!first.is_error, "{first:?}");
    assert_eq!(first.to_text(), "via the cache");
    assert!(!second.is_error, "{second:?}");
    assert_eq!(second.to_text(), "also via the cache");
    assert_eq!(
        manager.get_connection_status("slow-list"),
        ConnectionStatus::Connected
    );
    assert_eq!(
        manager.get_connection_status("slow-init"),
        ConnectionStatus::Connected
    );

    within("disconnect_all", manager.disconnect_all()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_server_without_a_cache_entry_is_awaited() {
    let fast = plain("fast");
    let slow = fixture("slow", |s| s.delay("tools/list", 1500));
    let slow_init = fixture("slow-init", |s| s.delay("initialize", 1500));
    let manager = manager(memory_cache());
    let configs = configs(&[("fast", &fast), ("slow", &slow), ("slow.init", &slow_init)]);

    let outcome = connect(&manager, &configs).await;

    // Only returned once the slow servers finished: live tools, connected.
    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
    for server in ["fast", "slow", "slow.init"] {
        assert_eq!(
            manager.get_connection_status(server),
            ConnectionStatus::Connected
        );
        let tools = tools_of(&outcome.tools, server);
        assert!(tools.len() > 1, "{server}: {tools:?}");
        assert!(
            tools.iter().all(|tool| !tool.deferred),
            "{server}: {tools:?}"
        );
    }
    let output = echo(
        find_tool(&outcome.tools, "slow", "echo").tool.as_ref(),
        "now",
    )
    .await;
    assert_eq!(output.to_text(), "now");

    within("disconnect_all", manager.disconnect_all()).await;
}

/// With `wait_for_uncached` off, the gate answers without a server that has no cached tools:
/// one that hangs (under the default it would be awaited for its whole timeout) is still
/// connecting in the answer, and a slow one's tools arrive later, told as a change of tools.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_waiting_for_uncached_servers_the_gate_answers_and_their_tools_come_by_event() {
    let fast = plain("fast-by-event");
    // Lists its tools only when the test lets it: after the gate's answer, on any machine.
    let folder = TempDir::new("slow-by-event");
    let hold = testkit::Hold::in_folder(folder.path(), "slow");
    let slow = fixture("slow-by-event", |s| s.hold("tools/list", hold.fifo()));
    let mut hang = fixture("hang-by-event", |s| s.hang_at("tools/list"));
    hang.config.timeout = Some(600_000);
    let options = ManagerOptions::default().wait_for_uncached(false);
    let manager = manager_with(options, memory_cache());
    let mut events = manager.subscribe();
    let configs = configs(&[("fast", &fast), ("slow", &slow), ("hang", &hang)]);

    // `connect` fails the test after 20 s: the hanging server is not waited for.
    let outcome = connect(&manager, &configs).await;

    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
    assert!(tools_of(&outcome.tools, "hang").is_empty());
    assert_eq!(
        manager.get_connection_status("hang"),
        ConnectionStatus::Connecting
    );
    // The slow server is not waited for either: still connecting, no tools in the answer.
    assert!(tools_of(&outcome.tools, "slow").is_empty());
    assert_eq!(
        manager.get_connection_status("slow"),
        ConnectionStatus::Connecting
    );
    // Let go, its tools come as live ones, and a change of tools says so.
    hold.release();
    wait_for_event(
        &mut events,
        "the slow server's tools",
        |event| matches!(event, ManagerEvent::ToolsChanged { server } if server == "slow"),
    )
    .await;
    let slow_tools = tools_of(&manager.tools(), "slow");
    assert!(!slow_tools.is_empty());
    assert!(
        slow_tools.iter().all(|tool| !tool.deferred),
        "{slow_tools:?}"
    );
    assert!(!tools_of(&manager.tools(), "fast").is_empty());

    within("disconnect_all", manager.disconnect_all()).await;
    assert_no_process(&hang.marker).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_server_gives_its_error_while_the_others_work() {
    let good = plain("good");
    let other = plain("other");
    let crashy = fixture("crashy", |s| s.crash_at("initialize"));
    let manager = manager(memory_cache());
    let configs = configs(&[("good", &good), ("Crashy-1", &crashy), ("other", &other)]);

    let outcome = connect(&manager, &configs).await;

    assert_eq!(outcome.errors.len(), 1, "{:?}", outcome.errors);
    assert_eq!(outcome.errors[0].server(), Some("Crashy-1"));
    assert!(
        outcome.errors[0].to_string().contains("\"Crashy-1\""),
        "the error names the server: {}",
        outcome.errors[0]
    );
    assert!(tools_of(&outcome.tools, "Crashy-1").is_empty());
    assert!(matches!(
        manager.get_connection_status("Crashy-1"),
        ConnectionStatus::Failed(_)
    ));
    for server in ["good", "other"] {
        assert_eq!(
            manager.get_connection_status(server),
            ConnectionStatus::Connected
        );
        let output = echo(
            find_tool(&outcome.tools, server, "echo").tool.as_ref(),
            server,
        )
        .await;
        assert!(!output.is_error, "{output:?}");
        assert_eq!(output.to_text(), server);
    }
    assert_no_process(&crashy.marker).await;

    within("disconnect_all", manager.disconnect_all()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hanging_server_gives_its_timeout_error() {
    let good = plain("good");
    let mut hang = fixture("hang", |s| s.hang_at("initialize"));
    hang.config.timeout = Some(500);
    let manager = manager(memory_cache());
    let configs = configs(&[("good", &good), ("hang", &hang)]);

    let outcome = connect(&manager, &configs).await;

    assert_eq!(outcome.errors.len(), 1, "{:?}", outcome.errors);
    assert_eq!(outcome.errors[0].server(), Some("hang"));
    assert!(outcome.errors[0].is_timeout(), "{:?}", outcome.errors[0]);
    assert_eq!(
        outcome.errors[0].to_string(),
        "Connection to MCP server \"hang\" timed out after 500ms"
    );
    assert!(tools_of(&outcome.tools, "hang").is_empty());
    assert_eq!(
        manager.get_connection_status("good"),
        ConnectionStatus::Connected
    );
    assert!(!tools_of(&outcome.tools, "good").is_empty());
    // The timed-out server's process is stopped.
    assert_no_process(&hang.marker).await;

    within("disconnect_all", manager.disconnect_all()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_hanging_at_tools_list_without_a_cache_entry_is_bounded_by_its_timeout() {
    let good = plain("good");
    let mut hang = fixture("hang-list", |s| s.hang_at("tools/list"));
    hang.config.timeout = Some(500);
    let manager = manager(memory_cache());
    let configs = configs(&[("good", &good), ("Hang.List-2", &hang)]);

    // Awaited at the gate (no cache entry), but only as long as its own timeout, not the
    // (60 s) request timeout: `connect` fails the test after 20 s.
    let outcome = connect(&manager, &configs).await;

    assert_eq!(outcome.errors.len(), 1, "{:?}", outcome.errors);
    assert_eq!(outcome.errors[0].server(), Some("Hang.List-2"));
    assert!(outcome.errors[0].is_timeout(), "{:?}", outcome.errors[0]);
    assert_eq!(
        outcome.errors[0].to_string(),
        "Connection to MCP server \"Hang.List-2\" timed out after 500ms"
    );
    assert!(tools_of(&outcome.tools, "Hang.List-2").is_empty());
    assert!(matches!(
        manager.get_connection_status("Hang.List-2"),
        ConnectionStatus::Failed(_)
    ));
    assert_eq!(
        manager.get_connection_status("good"),
        ConnectionStatus::Connected
    );
    assert_no_process(&hang.marker).await;

    within("disconnect_all", manager.disconnect_all()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_server_is_started_at_once_not_one_after_another() {
    // Five servers that never answer initialize: one after another, only the first would ever
    // be started; in parallel, all five run at the same time while none is connected.
    let hanging: Vec<Fixture> = (0..5)
        .map(|index| fixture(&format!("hang-{index}"), |s| s.hang_at("initialize")))
        .collect();
    let names: Vec<String> = (0..5).map(|index| format!("hang-{index}")).collect();
    let servers: Vec<(&str, &Fixture)> = names
        .iter()
        .map(String::as_str)
        .zip(hanging.iter())
        .collect();
    let configs = configs(&servers);
    let manager = manager(memory_cache());
    let connecting = tokio::spawn({
        let manager = std::sync::Arc::clone(&manager);
        async move { manager.connect_servers(&configs).await }
    });

    let markers: Vec<String> = hanging
        .iter()
        .map(|fixture| fixture.marker.clone())
        .collect();
    let all_running = wait_until(LIMIT, move || {
        markers
            .iter()
            .all(|marker| pids_with_marker(marker).len() == 1)
    })
    .await;
    assert!(all_running, "the five servers never ran at the same time");
    for name in &names {
        assert_eq!(
            manager.get_connection_status(name),
            ConnectionStatus::Connecting,
            "{name}"
        );
    }

    // Cancelled in flight: every process goes, and the gate answers with no tools.
    within("disconnect_all", manager.disconnect_all()).await;
    let outcome = within("the gate's answer", connecting).await.unwrap();
    assert!(outcome.tools.is_empty(), "{:?}", outcome.tools);
    for fixture in &hanging {
        assert_no_process(&fixture.marker).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_required_server_is_awaited_even_with_a_cache_entry() {
    let mut required = fixture("required", |server| server.delay("tools/list", 800));
    required
        .config
        .extra
        .insert("required".into(), serde_json::json!(true));
    let cache = memory_cache();
    prefill(&cache, "required", &required.config, &[echo_tool()]).await;
    let manager = manager(cache);

    let outcome = connect(&manager, &configs(&[("required", &required)])).await;
    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
    assert_eq!(
        manager.get_connection_status("required"),
        ConnectionStatus::Connected,
        "the gate waited for it"
    );
    let tools = tools_of(&outcome.tools, "required");
    assert_eq!(
        tools.len(),
        testkit::BUILT_IN_TOOLS,
        "its live tools, not the cached one"
    );
    assert!(tools.iter().all(|tool| !tool.deferred));
    within("disconnect_all", manager.disconnect_all()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hundred_slow_servers_twenty_at_a_time_all_connect_each_within_its_own_timeout() {
    // The queue is the test's doing, not the machine's: twenty start at a time and each takes
    // 1.5 s to answer `initialize`, so the hundred take five turns, 7.5 s or more, past the 4 s
    // each has; a clock started with `connect_servers` would lose every server from the third
    // turn on. Counted from its own turn, a server has 2.5 s to spare, however loaded the
    // machine.
    let servers: Vec<(String, Fixture)> = (0..100)
        .map(|n| {
            let mut server = fixture(&format!("hundred-{n}"), |s| s.delay("initialize", 1500));
            server.config.timeout = Some(4000);
            (format!("s{n}"), server)
        })
        .collect();
    let named: Vec<(&str, &Fixture)> = servers
        .iter()
        .map(|(name, server)| (name.as_str(), server))
        .collect();
    let manager = manager_with(
        mcp_manager::ManagerOptions::default().max_parallel_starts(20),
        memory_cache(),
    );
    let outcome = within("connect_servers", manager.connect_servers(&configs(&named))).await;
    assert!(
        outcome.errors.is_empty(),
        "{} failed: {:?}",
        outcome.errors.len(),
        outcome.errors.first()
    );
    for (name, _) in &servers {
        assert_eq!(
            manager.get_connection_status(name),
            ConnectionStatus::Connected,
            "{name}"
        );
    }
    within("disconnect_all", manager.disconnect_all()).await;
    for (_, server) in &servers {
        assert_no_process(&server.marker).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_servers_timeout_starts_when_its_turn_to_start_comes() {
    // Two at a time, 1 s each: the last of ten starts 4 s or more after the first, past the
    // 3 s timeout each has, and still connects, its clock started with its turn. A server has
    // 2 s to spare for its start and listing, however loaded the machine.
    let servers: Vec<(String, Fixture)> = (0..10)
        .map(|n| {
            let mut server = fixture(&format!("turns-{n}"), |s| s.delay("initialize", 1000));
            server.config.timeout = Some(3000);
            (format!("t{n}"), server)
        })
        .collect();
    let named: Vec<(&str, &Fixture)> = servers
        .iter()
        .map(|(name, server)| (name.as_str(), server))
        .collect();
    let manager = manager_with(
        mcp_manager::ManagerOptions::default().max_parallel_starts(2),
        memory_cache(),
    );
    let outcome = within("connect_servers", manager.connect_servers(&configs(&named))).await;
    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors.first());
    within("disconnect_all", manager.disconnect_all()).await;
}

/// A `!command` value is resolved before the server's timeout starts, with a bound of its own:
/// a slow command does not use up the time a healthy server has to connect and list its tools.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_command_value_leaves_the_server_its_whole_timeout() {
    let mut slow = fixture("slow-command", |server| server.delay("tools/list", 1500));
    slow.config.timeout = Some(3000);
    let mcp_config::TransportConfig::Stdio(stdio) = &mut slow.config.transport else {
        unreachable!("a fixture is a stdio server");
    };
    // Two of the server's three seconds, were they counted from before the command ran.
    stdio
        .env
        .insert("TOKEN".to_owned(), "!sleep 2; echo resolved".to_owned());
    let manager = manager(memory_cache());

    let outcome = connect(&manager, &configs(&[("slow", &slow)])).await;

    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
    assert_eq!(
        manager.get_connection_status("slow"),
        ConnectionStatus::Connected
    );
    let tools = tools_of(&outcome.tools, "slow");
    assert!(
        tools.iter().any(|tool| tool.original_name == "echo"),
        "{tools:?}"
    );
    within("disconnect_all", manager.disconnect_all()).await;
}
