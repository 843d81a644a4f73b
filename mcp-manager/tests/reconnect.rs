//! Servers come back by themselves, with real processes: a SIGKILLed stdio server is
//! reconnected with the same tools while a call made during the outage waits for it; a call in
//! flight at the kill fails and is never sent again; a server that keeps dying ends `failed`
//! with its last stderr lines; a SIGSTOPped server is caught by the health ping; a remote server
//! restarted on its port is reconnected; and with reconnection off a dead server stays failed.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::*;
use mcp_config::ServerConfig;
use mcp_manager::{
    ConnectionStatus, HealthCheck, ManagedTool, ManagerEvent, ManagerOptions, McpManager,
    ReconnectPolicy,
};
use serde_json::json;
use testkit::{HttpFixture, HttpFixtureOptions};
use tokio::sync::broadcast;

fn policy(initial_ms: u64, attempts: u32) -> ReconnectPolicy {
    ReconnectPolicy::default()
        .delays(
            Duration::from_millis(initial_ms),
            Duration::from_millis(initial_ms * 4),
        )
        .max_attempts(attempts)
}

fn reconnecting_manager(policy: ReconnectPolicy) -> Arc<McpManager> {
    manager_with(ManagerOptions::default().reconnect(policy), memory_cache())
}

fn tool(manager: &McpManager, server: &str, name: &str) -> ManagedTool {
    find_tool(&manager.tools(), server, name)
}

async fn pid_of(manager: &McpManager, server: &str) -> i32 {
    server_pid(&manager.tools(), server).await
}

async fn wait_for_status(
    events: &mut broadcast::Receiver<ManagerEvent>,
    server: &str,
    what: &str,
    matches: impl Fn(&ConnectionStatus) -> bool,
) -> ConnectionStatus {
    let (event, _) = wait_for_event(events, what, |event| {
        matches!(event, ManagerEvent::StatusChanged { server: s, status } if s == server && matches(status))
    })
    .await;
    let ManagerEvent::StatusChanged { status, .. } = event else {
        unreachable!()
    };
    status
}

fn names(tools: &[ManagedTool], server: &str) -> Vec<String> {
    tools_of(tools, server)
        .into_iter()
        .map(|tool| tool.original_name)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_stdio_server_comes_back_with_its_tools_and_a_call_during_the_outage_waits() {
    let server = plain("revived");
    let manager = reconnecting_manager(policy(300, 5));
    let outcome = connect(&manager, &configs(&[("revived", &server)])).await;
    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
    let before = names(&outcome.tools, "revived");
    let first_pid = pid_of(&manager, "revived").await;

    let mut events = manager.subscribe();
    testkit::kill_process(first_pid);
    let status = wait_for_status(&mut events, "revived", "reconnecting", |status| {
        matches!(status, ConnectionStatus::Reconnecting { attempt: 1, .. })
    })
    .await;
    assert!(
        status.error().unwrap().to_string().contains("signal 9"),
        "{status:?}"
    );
    assert_eq!(
        manager.get_connection_status("revived").as_str(),
        "reconnecting"
    );

    // During the outage the tools are deferred: a call waits for the server.
    let echo_tool = tool(&manager, "revived", "echo");
    assert!(echo_tool.deferred);
    let output = echo(echo_tool.tool.as_ref(), "during the outage").await;
    assert!(!output.is_error, "{output:?}");
    assert_eq!(output.to_text(), "during the outage");

    assert_eq!(
        manager.get_connection_status("revived"),
        ConnectionStatus::Connected
    );
    assert_eq!(names(&manager.tools(), "revived"), before);
    assert_ne!(pid_of(&manager, "revived").await, first_pid);
    within("disconnect_all", manager.disconnect_all()).await;
    assert_no_process(&server.marker).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_in_flight_when_the_server_dies_fails_with_the_cause_and_is_not_sent_again() {
    let server = plain("in-flight");
    let manager = reconnecting_manager(policy(100, 5));
    connect(&manager, &configs(&[("in-flight", &server)])).await;
    let pid = pid_of(&manager, "in-flight").await;
    let sleeper = tool(&manager, "in-flight", "sleep");
    let in_flight =
        tokio::spawn(async move { call(sleeper.tool.as_ref(), json!({"ms": 20_000})).await });
    // The server has started the call before it is killed.
    let events_tool = tool(&manager, "in-flight", "events");
    let mut started = false;
    for _ in 0..1000 {
        let seen = call(events_tool.tool.as_ref(), json!({})).await.to_text();
        if seen.contains("\"started\":\"sleep\"") {
            started = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(started, "the sleep call never started");

    let mut events = manager.subscribe();
    testkit::kill_process(pid);
    let output = within("the call in flight", in_flight).await.unwrap();
    assert!(output.is_error, "{output:?}");
    assert!(
        output.to_text().contains("signal 9"),
        "{}",
        output.to_text()
    );

    wait_for_status(&mut events, "in-flight", "connected again", |status| {
        *status == ConnectionStatus::Connected
    })
    .await;
    let seen = call(
        tool(&manager, "in-flight", "events").tool.as_ref(),
        json!({}),
    )
    .await;
    assert!(
        !seen.to_text().contains("sleep"),
        "the new process saw the call again: {}",
        seen.to_text()
    );
    within("disconnect_all", manager.disconnect_all()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_keeps_dying_ends_failed_with_its_last_stderr_lines() {
    let marker_file = std::env::temp_dir().join(format!("mgr-dies-{}", std::process::id()));
    let _ = std::fs::remove_file(&marker_file);
    let fixture = plain("keeps-dying");
    let mcp_config::TransportConfig::Stdio(stdio) = &fixture.config.transport else {
        unreachable!()
    };
    // The first start works; every later one fails with a message on stderr.
    let script = format!(
        "if [ -e '{mark}' ]; then echo 'boom: the license expired' >&2; exit 3; fi; touch '{mark}'; exec \"$0\" \"$@\"",
        mark = marker_file.display()
    );
    let mut args = vec!["-c".to_owned(), script, stdio.command.clone()];
    args.extend(stdio.args.iter().cloned());
    let dying = Fixture {
        config: ServerConfig::stdio("sh", args),
        marker: fixture.marker.clone(),
    };
    let manager = reconnecting_manager(policy(50, 2));
    connect(&manager, &configs(&[("dying", &dying)])).await;
    let pid = pid_of(&manager, "dying").await;

    let mut events = manager.subscribe();
    testkit::kill_process(pid);
    wait_for_status(&mut events, "dying", "the second attempt", |status| {
        matches!(status, ConnectionStatus::Reconnecting { attempt: 2, .. })
    })
    .await;
    let failed = wait_for_status(&mut events, "dying", "failed", |status| {
        matches!(status, ConnectionStatus::Failed(_))
    })
    .await;
    let message = failed.error().unwrap().to_string();
    assert!(message.contains("boom: the license expired"), "{message}");
    assert!(tools_of(&manager.tools(), "dying").is_empty());
    within("disconnect_all", manager.disconnect_all()).await;
    let _ = std::fs::remove_file(&marker_file);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_reconnection_off_a_dead_server_stays_failed() {
    let server = plain("stays-dead");
    let manager = reconnecting_manager(ReconnectPolicy::off());
    connect(&manager, &configs(&[("dead", &server)])).await;
    let pid = pid_of(&manager, "dead").await;
    let mut events = manager.subscribe();
    testkit::kill_process(pid);
    wait_for_status(&mut events, "dead", "failed", |status| {
        matches!(status, ConnectionStatus::Failed(_))
    })
    .await;
    assert_no_process(&server.marker).await;
    within("disconnect_all", manager.disconnect_all()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frozen_server_is_caught_by_the_health_ping_and_restarted() {
    let server = plain("frozen");
    let options = ManagerOptions::default()
        .reconnect(policy(50, 5))
        .health_check(HealthCheck::new(
            Duration::from_millis(200),
            Duration::from_millis(500),
        ));
    let manager = manager_with(options, memory_cache());
    connect(&manager, &configs(&[("frozen", &server)])).await;
    let pid = pid_of(&manager, "frozen").await;

    let mut events = manager.subscribe();
    testkit::stop_process(pid);
    let status = wait_for_status(&mut events, "frozen", "unresponsive", |status| {
        matches!(status, ConnectionStatus::Reconnecting { .. })
    })
    .await;
    let cause = status.error().unwrap().to_string();
    assert!(
        cause.contains("did not answer a ping within 500ms"),
        "{cause}"
    );
    wait_for_status(&mut events, "frozen", "connected again", |status| {
        *status == ConnectionStatus::Connected
    })
    .await;
    assert_ne!(pid_of(&manager, "frozen").await, pid);
    assert!(
        wait_until(Duration::from_secs(10), move || !testkit::process_is_alive(
            pid
        ))
        .await,
        "the frozen process was stopped"
    );
    within("disconnect_all", manager.disconnect_all()).await;
    assert_no_process(&server.marker).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remote_server_restarted_on_its_port_is_reconnected() {
    let options = HttpFixtureOptions::default().get_stream().json_answers();
    let first = HttpFixture::start(options.clone());
    let port = first.port();
    let server = Fixture {
        config: ServerConfig::http(first.url()),
        marker: String::new(),
    };
    let manager = reconnecting_manager(policy(200, 20));
    connect(&manager, &configs(&[("web", &server)])).await;
    assert_eq!(
        manager.get_connection_status("web"),
        ConnectionStatus::Connected
    );

    let mut events = manager.subscribe();
    drop(first);
    wait_for_status(&mut events, "web", "reconnecting", |status| {
        matches!(status, ConnectionStatus::Reconnecting { .. })
    })
    .await;
    let echo_tool = tool(&manager, "web", "echo");
    let restarted = HttpFixture::start_on(options, port);
    let output = echo(echo_tool.tool.as_ref(), "back").await;
    assert_eq!(output.to_text(), "back", "{output:?}");
    assert_eq!(
        manager.get_connection_status("web"),
        ConnectionStatus::Connected
    );
    assert!(restarted.sessions() >= 1);
    within("disconnect_all", manager.disconnect_all()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remote_server_that_stays_gone_ends_failed_and_a_call_in_flight_fails() {
    let options = HttpFixtureOptions::default().json_answers();
    let gone = HttpFixture::start(options.delay("tools/call", Duration::from_secs(30)));
    let server = Fixture {
        config: ServerConfig::http(gone.url()),
        marker: String::new(),
    };
    let manager = reconnecting_manager(policy(50, 2));
    connect(&manager, &configs(&[("gone", &server)])).await;
    let echo_tool = tool(&manager, "gone", "echo");
    let in_flight = {
        let echo_tool = echo_tool.clone();
        tokio::spawn(async move { echo(echo_tool.tool.as_ref(), "never answered").await })
    };
    // The server goes away once the call has reached it.
    for _ in 0..1000 {
        let reached = gone
            .requests()
            .iter()
            .any(|request| request.rpc_method.as_deref() == Some("tools/call"));
        if reached {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let mut events = manager.subscribe();
    drop(gone);
    let output = within("the call in flight", in_flight).await.unwrap();
    assert!(output.is_error, "{output:?}");

    // Without an event stream the next request finds it gone; it is never reached again.
    let next = echo(echo_tool.tool.as_ref(), "after").await;
    assert!(next.is_error, "{next:?}");
    let failed = wait_for_status(&mut events, "gone", "failed", |status| {
        matches!(status, ConnectionStatus::Failed(_))
    })
    .await;
    let cause = failed.error().unwrap().to_string();
    // The last attempt's first request (the era probe, or initialize) found no one there.
    assert!(
        cause.contains("connection refused")
            && (cause.contains("server/discover") || cause.contains("initialize")),
        "the last attempt's cause: {cause}"
    );
    within("disconnect_all", manager.disconnect_all()).await;
}
