//! Line framing on stdio: garbage, over-long lines and stderr floods.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use common::{connect, connect_with_params, guard, object, params, text};
use mcp_transport::RpcError;
use mcp_transport::framing::DEFAULT_MAX_MESSAGE_BYTES;
use serde_json::json;
use testkit::FixtureServer;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn garbage_lines_on_stdout_are_skipped() {
    let client = connect(&FixtureServer::new().garbage()).await;
    let tools = guard(client.list_tools())
        .await
        .expect("list despite garbage");
    assert!(!tools.is_empty());
    let echo = guard(client.call_tool("echo", Some(object(json!({"message": "still here"})))))
        .await
        .expect("echo despite garbage");
    assert_eq!(text(&echo), "still here");
    guard(client.close()).await.expect("close");
}

// On one thread: the reader task logs where the test's log capture is installed.
#[tokio::test(flavor = "current_thread")]
async fn garbage_on_stdout_is_one_warning_naming_the_server_and_one_counting_the_lines() {
    let captured = common::Captured::default();
    let _logs = captured.install();
    let client = connect(&FixtureServer::new().garbage()).await;
    for message in ["one", "two", "three"] {
        guard(client.call_tool("echo", Some(object(json!({"message": message})))))
            .await
            .expect("echo despite garbage");
    }
    guard(client.close()).await.expect("close");
    drop(client);
    let logs = captured.text();
    let warnings: Vec<&str> = logs
        .lines()
        .filter(|line| line.contains(" WARN "))
        .collect();
    assert_eq!(warnings.len(), 2, "{logs}");
    assert!(
        warnings[0].contains("not a JSON-RPC message") && warnings[0].contains("server="),
        "{logs}"
    );
    assert!(
        warnings[1].contains("lines that were not JSON-RPC messages"),
        "{logs}"
    );
    assert!(warnings[1].contains("lines="), "{logs}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_40_mib_answer_fails_its_own_call_and_the_next_call_succeeds() {
    // The default limit (32 MiB): a 40 MiB result is over it.
    let client = connect(&FixtureServer::new()).await;
    let error = guard(client.call_tool("huge", Some(object(json!({"bytes": 40 << 20})))))
        .await
        .expect_err("a 40 MiB answer is over the 32 MiB limit");
    let Some(RpcError::AnswerTooLarge { limit, size }) = error.rpc_error() else {
        panic!("expected the call to fail on its own: {error:?}");
    };
    assert_eq!(*limit, DEFAULT_MAX_MESSAGE_BYTES);
    assert!(*size > 40 << 20, "{size}");
    let message = error.to_string();
    assert!(
        message.contains("over the limit of 33554432 bytes"),
        "{message}"
    );
    assert!(message.contains("maxMessageBytes"), "{message}");

    let next = guard(client.call_tool("echo", Some(object(json!({"message": "still here"})))))
        .await
        .expect("the connection lives on");
    assert_eq!(text(&next), "still here");
    guard(client.close()).await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_over_a_configured_limit_fails_only_its_call() {
    const LIMIT: usize = 1024 * 1024;
    let server = params(&FixtureServer::new()).max_message_bytes(LIMIT);
    let client = connect_with_params(server).await;
    let error = guard(client.call_tool("huge", Some(object(json!({"bytes": 16 * LIMIT})))))
        .await
        .expect_err("a 16 MiB line is over the 1 MiB limit");
    assert!(
        matches!(error.rpc_error(), Some(RpcError::AnswerTooLarge { limit, .. }) if *limit == LIMIT),
        "{error:?}"
    );
    guard(client.ping()).await.expect("still answering");
    guard(client.close()).await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_line_just_under_the_limit_is_accepted() {
    const LIMIT: usize = 1024 * 1024;
    let server = params(&FixtureServer::new()).max_message_bytes(LIMIT);
    let client = connect_with_params(server).await;
    let big = guard(client.call_tool("huge", Some(object(json!({"bytes": LIMIT - 200})))))
        .await
        .expect("under the limit");
    assert_eq!(text(&big).len(), LIMIT - 200);
    guard(client.close()).await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ten_mib_stderr_flood_does_not_stall_the_server() {
    // The fixture writes 10 MiB to stderr before it reads its first request: if stderr were
    // not drained, the pipe would fill and the handshake would never complete.
    let client = connect(&FixtureServer::new().stderr_flood(10 * 1024 * 1024)).await;
    let flooded = guard(client.call_tool(
        "flood_stderr",
        Some(object(json!({"bytes": 10 * 1024 * 1024}))),
    ))
    .await
    .expect("flood mid-session");
    assert_eq!(text(&flooded), "flooded");
    guard(client.ping()).await.expect("still answering");
    guard(client.close()).await.expect("close");
}
