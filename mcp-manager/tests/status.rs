//! Connection status and its events; `wait_for_connection`.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use common::*;
use mcp_manager::{ConnectionStatus, ManagerError, ManagerEvent};

/// The statuses of `server` among `events`, in order.
fn statuses(events: &[ManagerEvent], server: &str) -> Vec<ConnectionStatus> {
    events
        .iter()
        .filter_map(|event| match event {
            ManagerEvent::StatusChanged { server: s, status } if s == server => {
                Some(status.clone())
            }
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn status_moves_connecting_connected_and_back_to_disconnected() {
    const SERVER: &str = "Status-Srv.1";
    // Its list comes only when the test lets it: still connecting at the gate on any machine.
    let folder = TempDir::new("status-moves");
    let hold = testkit::Hold::in_folder(folder.path(), "slow");
    let slow = fixture(SERVER, |s| s.hold("tools/list", hold.fifo()));
    let other = plain("other");
    let cache = memory_cache();
    prefill(&cache, SERVER, &slow.config, &[echo_tool()]).await;
    let manager = manager(cache);
    let mut events = manager.subscribe();
    assert_eq!(
        manager.get_connection_status(SERVER),
        ConnectionStatus::Disconnected
    );

    let outcome = connect(&manager, &configs(&[(SERVER, &slow), ("other", &other)])).await;
    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
    assert_eq!(
        manager.get_connection_status(SERVER),
        ConnectionStatus::Connecting
    );

    hold.release();
    let (_, mut seen) = wait_for_event(&mut events, "connected", |event| {
        matches!(
            event,
            ManagerEvent::StatusChanged { server, status: ConnectionStatus::Connected }
                if server == SERVER
        )
    })
    .await;
    seen.push(ManagerEvent::StatusChanged {
        server: SERVER.to_owned(),
        status: ConnectionStatus::Connected,
    });
    assert_eq!(
        statuses(&seen, SERVER),
        [ConnectionStatus::Connecting, ConnectionStatus::Connected]
    );
    assert_eq!(
        manager.get_connection_status(SERVER),
        ConnectionStatus::Connected
    );
    assert_eq!(
        statuses(&seen, "other")
            .into_iter()
            .take(2)
            .collect::<Vec<_>>(),
        [ConnectionStatus::Connecting, ConnectionStatus::Connected]
    );

    within("disconnect_server", manager.disconnect_server(SERVER)).await;
    assert_eq!(
        manager.get_connection_status(SERVER),
        ConnectionStatus::Disconnected
    );
    let (_, _) = wait_for_event(&mut events, "disconnected", |event| {
        matches!(
            event,
            ManagerEvent::StatusChanged { server, status: ConnectionStatus::Disconnected }
                if server == SERVER
        )
    })
    .await;
    assert_eq!(
        manager.get_connection_status("other"),
        ConnectionStatus::Connected
    );
    assert_no_process(&slow.marker).await;

    within("disconnect_all", manager.disconnect_all()).await;
    assert_eq!(
        manager.get_connection_status("other"),
        ConnectionStatus::Disconnected
    );
    assert_no_process(&other.marker).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wait_for_connection_on_an_unknown_server_errors() {
    let manager = manager(memory_cache());
    let error = within("wait_for_connection", manager.wait_for_connection("nobody"))
        .await
        .expect_err("no such server");
    assert!(
        matches!(&*error, ManagerError::NotConnected { server } if server == "nobody"),
        "{error:?}"
    );
    assert_eq!(error.to_string(), "MCP server not connected: nobody");
    within("disconnect_all", manager.disconnect_all()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wait_for_connection_awaits_a_pending_server_and_errors_after_disconnect() {
    const SERVER: &str = "pending-1";
    let folder = TempDir::new("pending");
    let hold = testkit::Hold::in_folder(folder.path(), "pending");
    let slow = fixture(SERVER, |s| s.hold("initialize", hold.fifo()));
    let cache = memory_cache();
    prefill(&cache, SERVER, &slow.config, &[echo_tool()]).await;
    let manager = manager(cache);

    let _ = connect(&manager, &configs(&[(SERVER, &slow)])).await;
    assert_eq!(
        manager.get_connection_status(SERVER),
        ConnectionStatus::Connecting
    );
    // `join!` polls the wait first: it is waiting when the server is let go.
    let (client, ()) = tokio::join!(
        within("wait_for_connection", manager.wait_for_connection(SERVER)),
        async { hold.release() }
    );
    let client = client.expect("the pending connection is awaited");
    assert_eq!(
        manager.get_connection_status(SERVER),
        ConnectionStatus::Connected
    );
    let tools = within("list_tools", client.list_tools()).await.unwrap();
    assert!(tools.iter().any(|tool| tool.name == "echo"));
    drop(client);

    within("disconnect_server", manager.disconnect_server(SERVER)).await;
    let error = within("wait_for_connection", manager.wait_for_connection(SERVER))
        .await
        .expect_err("disconnected");
    assert!(
        matches!(&*error, ManagerError::NotConnected { .. }),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        format!("MCP server not connected: {SERVER}")
    );
    within("disconnect_all", manager.disconnect_all()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_server_reports_why() {
    let crashy = fixture("crashy", |s| {
        s.crash_at("initialize").crash_stderr("boom at init")
    });
    let manager = manager(memory_cache());
    let mut events = manager.subscribe();

    let outcome = connect(&manager, &configs(&[("crashy", &crashy)])).await;
    assert_eq!(outcome.errors.len(), 1, "{:?}", outcome.errors);
    let ConnectionStatus::Failed(reason) = manager.get_connection_status("crashy") else {
        panic!(
            "expected failed, got {:?}",
            manager.get_connection_status("crashy")
        );
    };
    assert_eq!(
        reason, outcome.errors[0],
        "the status holds the gate's error itself"
    );
    // The transport's error survives, typed: the exit status and the stderr tail.
    let client_error = reason.client_error().expect("a client error");
    assert!(client_error.is_connection_closed(), "{client_error:?}");
    let shown = reason.to_string();
    assert!(
        shown.contains("exited with status 3") && shown.contains("boom at init"),
        "{shown}"
    );
    let seen = drain_events(&mut events);
    assert_eq!(
        statuses(&seen, "crashy"),
        [
            ConnectionStatus::Connecting,
            ConnectionStatus::Failed(reason.clone())
        ]
    );
    // Failed at the gate: reported in `errors`, not as a late error.
    assert!(
        !seen
            .iter()
            .any(|event| matches!(event, ManagerEvent::LateError { .. })),
        "{seen:?}"
    );
    within("disconnect_all", manager.disconnect_all()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_server_is_told_disconnected_on_disconnect() {
    let (one, two) = (
        fixture("failed-one", |s| s.crash_at("initialize")),
        fixture("failed-two", |s| s.crash_at("initialize")),
    );
    let manager = manager(memory_cache());
    let outcome = connect(
        &manager,
        &configs(&[("failed-one", &one), ("failed-two", &two)]),
    )
    .await;
    assert_eq!(outcome.errors.len(), 2, "{:?}", outcome.errors);
    let mut events = manager.subscribe();

    within("disconnect_server", manager.disconnect_server("failed-one")).await;
    assert_eq!(
        manager.get_connection_status("failed-one"),
        ConnectionStatus::Disconnected
    );
    assert_eq!(
        statuses(&drain_events(&mut events), "failed-one"),
        [ConnectionStatus::Disconnected]
    );

    within("disconnect_all", manager.disconnect_all()).await;
    assert_eq!(
        manager.get_connection_status("failed-two"),
        ConnectionStatus::Disconnected
    );
    assert_eq!(
        statuses(&drain_events(&mut events), "failed-two"),
        [ConnectionStatus::Disconnected]
    );
}
