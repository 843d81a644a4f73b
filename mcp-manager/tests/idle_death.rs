//! A connected server that dies while nothing is asked of it: noticed at once, end to end.
//! With reconnection off (today's behaviour before it existed) it stays failed; with it on,
//! `reconnect.rs` shows it coming back.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use common::*;
use mcp_manager::{ConnectionStatus, ManagerError, ManagerEvent, ManagerOptions, ReconnectPolicy};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_killed_while_idle_is_reported_its_tools_withdrawn_and_calls_get_mcp_error() {
    const SERVER: &str = "Mortal-1";
    let mortal = plain(SERVER);
    let other = plain("other");
    let manager = manager_with(
        ManagerOptions::default().reconnect(ReconnectPolicy::off()),
        memory_cache(),
    );
    let mut events = manager.subscribe();
    let outcome = connect(&manager, &configs(&[(SERVER, &mortal), ("other", &other)])).await;
    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
    let live_echo = find_tool(&outcome.tools, SERVER, "echo");
    assert!(!live_echo.deferred);
    let client = within("wait_for_connection", manager.wait_for_connection(SERVER))
        .await
        .unwrap();
    let pid = server_pid(&outcome.tools, SERVER).await;
    drain_events(&mut events);

    // Nothing is in flight: the server dies on its own (here, killed from outside).
    testkit::kill_process(pid);

    // The connection knows why at once.
    let reason = within("closed()", client.closed()).await;
    assert!(!reason.is_closed_by_client());
    assert!(
        reason.to_string().contains("server exited with signal 9"),
        "{reason}"
    );
    // The manager reports it: failed, with the cause, then its tools changed.
    let (failed, _) = wait_for_event(&mut events, "the failure", |event| {
        matches!(
            event,
            ManagerEvent::StatusChanged { server, status: ConnectionStatus::Failed(_) }
                if server == SERVER
        )
    })
    .await;
    let ManagerEvent::StatusChanged {
        status: ConnectionStatus::Failed(error),
        ..
    } = failed
    else {
        unreachable!("matched above");
    };
    assert!(
        matches!(&*error, ManagerError::ConnectionLost { server, .. } if server == SERVER),
        "{error:?}"
    );
    assert_eq!(
        manager.get_connection_status(SERVER),
        ConnectionStatus::Failed(error.clone())
    );
    wait_for_event(
        &mut events,
        "the tools change",
        |event| matches!(event, ManagerEvent::ToolsChanged { server } if server == SERVER),
    )
    .await;

    // A failed server offers nothing: its tools are withdrawn, and a call through the tool an
    // agent still holds is an MCP error that says the server died.
    let after = manager.tools();
    assert!(after.iter().all(|tool| tool.server != SERVER), "{after:?}");
    let output = echo(live_echo.tool.as_ref(), "anyone there?").await;
    assert!(output.is_error, "{output:?}");
    let text = output.to_text();
    assert!(text.starts_with("MCP error: "), "{text}");
    assert!(text.contains("server exited with signal 9"), "{text}");
    // The other server is untouched.
    assert_eq!(
        manager.get_connection_status("other"),
        ConnectionStatus::Connected
    );
    let output = echo(
        find_tool(&after, "other", "echo").tool.as_ref(),
        "still here",
    )
    .await;
    assert_eq!(output.to_text(), "still here");

    within("disconnect_all", manager.disconnect_all()).await;
    assert_no_process(&mortal.marker).await;
    assert_no_process(&other.marker).await;
}
