//! Server notifications reach subscribers, and say what they are about.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use common::channel::connected;
use common::{connect, guard, text};
use mcp_transport::NotificationKind;
use serde_json::json;
use testkit::FixtureServer;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscribers_can_match_each_notification_on_its_kind() {
    let (client, server) = connected().await;
    let mut notifications = client.subscribe();
    let sent = [
        json!({"method": "notifications/tools/list_changed"}),
        json!({"method": "notifications/resources/list_changed", "params": {}}),
        json!({"method": "notifications/prompts/list_changed"}),
        json!({"method": "notifications/resources/updated", "params": {"uri": "file:///a.md"}}),
        json!({"method": "notifications/message",
               "params": {"level": "info", "logger": "db", "data": "warm"}}),
        json!({"method": "notifications/vendor/thing", "params": {"n": 1}}),
    ];
    for notification in &sent {
        let mut message = notification.clone();
        message["jsonrpc"] = json!("2.0");
        server.reply(&message);
    }
    let mut kinds = Vec::new();
    for _ in &sent {
        let notification = guard(notifications.recv()).await.expect("a notification");
        kinds.push(match notification.kind() {
            NotificationKind::ToolsListChanged => "tools".to_owned(),
            NotificationKind::ResourcesListChanged => "resources".to_owned(),
            NotificationKind::PromptsListChanged => "prompts".to_owned(),
            NotificationKind::ResourceUpdated { uri, .. } => format!("updated {uri}"),
            NotificationKind::LogMessage {
                level,
                logger,
                data,
                ..
            } => format!("log {level} {logger:?} {data}"),
            NotificationKind::Other { method, params } => {
                format!("other {method} {}", params.expect("params"))
            }
            other => panic!("not sent: {other:?}"),
        });
    }
    assert_eq!(
        kinds,
        [
            "tools",
            "resources",
            "prompts",
            "updated file:///a.md",
            "log info Some(\"db\") \"warm\"",
            "other notifications/vendor/thing {\"n\":1}",
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_list_changed_reaches_subscribers_and_the_new_tool_is_listed() {
    let client = connect(&FixtureServer::new()).await;
    let mut notifications = client.subscribe();
    let before = guard(client.list_tools()).await.expect("list");
    assert!(before.iter().all(|tool| tool.name != "late_tool"));
    // The fixture sends the notification before it answers.
    let changed = guard(client.call_tool("change_tools", None))
        .await
        .expect("change");
    assert_eq!(text(&changed), "changed");
    let notification = guard(notifications.recv()).await.expect("a notification");
    assert_eq!(notification.method, "notifications/tools/list_changed");
    let after = guard(client.list_tools()).await.expect("list again");
    assert!(after.iter().any(|tool| tool.name == "late_tool"));
    guard(client.close()).await.expect("close");
}

#[tokio::test(flavor = "current_thread")]
async fn server_log_messages_reach_tracing_at_their_level_tagged_with_the_server() {
    let captured = common::Captured::default();
    let _logs = captured.install();
    let client = connect(&FixtureServer::new()).await;
    for (level, message) in [
        ("warning", "disk almost full"),
        ("error", "lost the database"),
        ("debug", "cache warm"),
    ] {
        let logged = guard(client.call_tool(
            "log",
            Some(common::object(
                serde_json::json!({"level": level, "message": message}),
            )),
        ))
        .await
        .expect("log");
        assert_eq!(text(&logged), "logged");
    }
    guard(client.close()).await.expect("close");
    let logs = captured.text();
    for (shown_level, message) in [
        ("WARN", "disk almost full"),
        ("ERROR", "lost the database"),
        ("DEBUG", "cache warm"),
    ] {
        let line = logs
            .lines()
            .find(|line| line.contains(message))
            .unwrap_or_else(|| panic!("{message} was not logged: {logs}"));
        assert!(line.contains(shown_level), "{line}");
        assert!(line.contains("server=\"fixture\""), "{line}");
        assert!(line.contains("logger=\"fixture\""), "{line}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn messages_with_a_requests_id_that_are_not_responses_are_skipped() {
    // Before the real answer: one without "jsonrpc", one with neither result nor error.
    let client = connect(&FixtureServer::new().false_answers_at("tools/call")).await;
    let answer = guard(client.call_tool(
        "echo",
        Some(common::object(
            serde_json::json!({"message": "the real one"}),
        )),
    ))
    .await
    .expect("the real answer wins");
    assert_eq!(text(&answer), "the real one");
    guard(client.close()).await.expect("close");
}
