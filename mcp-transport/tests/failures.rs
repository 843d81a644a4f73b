//! A server that dies while requests are in flight.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::sync::Arc;

use common::{connect, guard, join_all, object};
use mcp_transport::TransportError;
use serde_json::json;
use testkit::FixtureServer;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crash_mid_call_fails_that_call_and_every_pending_one_at_once() {
    let client = Arc::new(connect(&FixtureServer::new()).await);
    let mut sleepers = Vec::new();
    for _ in 0..5 {
        let client = Arc::clone(&client);
        sleepers.push(tokio::spawn(async move {
            client
                .call_tool("sleep", Some(object(json!({"ms": 60_000}))))
                .await
        }));
    }
    // Make sure the sleeps are in flight before the crash.
    guard(client.ping()).await.expect("ping");
    let crash = guard(client.call_tool(
        "crash",
        Some(object(
            json!({"code": 9, "stderr": "panic: index out of range"}),
        )),
    ))
    .await
    .expect_err("the server crashed");
    let message = crash.to_string();
    assert!(
        message.starts_with(
            "MCP server \"fixture\": tools/call \"crash\" failed: server exited with status 9"
        ),
        "{message}"
    );
    assert!(message.contains("panic: index out of range"), "{message}");

    for outcome in guard(join_all(sleepers)).await {
        let error = outcome.expect_err("pending calls fail too");
        assert!(error.is_connection_closed(), "{error:?}");
        assert!(error.to_string().contains("status 9"), "{error}");
    }
    let reason = guard(client.closed()).await;
    assert!(matches!(
        reason.error(),
        TransportError::ServerExited { .. }
    ));
    // New requests fail at once with the same reason.
    let after = guard(client.ping()).await.expect_err("closed");
    assert!(after.to_string().contains("status 9"), "{after}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crash_at_tools_list_reports_the_exit() {
    let client = connect(&FixtureServer::new().crash_at("tools/list").exit_code(4)).await;
    let error = guard(client.list_tools()).await.expect_err("crashed");
    let message = error.to_string();
    assert!(
        message.contains("tools/list failed: server exited with status 4"),
        "{message}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn close_fails_pending_calls_as_closed_by_the_client() {
    let client = Arc::new(connect(&FixtureServer::new()).await);
    let pending = {
        let client = Arc::clone(&client);
        tokio::spawn(async move {
            client
                .call_tool("sleep", Some(object(json!({"ms": 60_000}))))
                .await
        })
    };
    guard(client.ping()).await.expect("ping");
    guard(client.close()).await.expect("close");
    let error = guard(pending).await.expect("task").expect_err("closed");
    assert!(
        error.to_string().contains("closed by the client"),
        "{error}"
    );
}
