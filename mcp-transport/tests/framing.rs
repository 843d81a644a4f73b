//! Line framing on stdio: garbage, over-long lines and stderr floods.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use common::{connect, connect_with_params, guard, object, params, text};
use mcp_transport::{RpcError, TransportError};
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_over_long_line_fails_with_a_clear_error() {
    const LIMIT: usize = 1024 * 1024;
    let server = params(&FixtureServer::new()).max_message_bytes(LIMIT);
    let client = connect_with_params(server).await;
    let error = guard(client.call_tool("huge", Some(object(json!({"bytes": 16 * LIMIT})))))
        .await
        .expect_err("a 16 MiB line is over the 1 MiB limit");
    let Some(RpcError::ConnectionClosed(reason)) = error.rpc_error() else {
        panic!("expected the connection to close: {error:?}");
    };
    assert!(
        matches!(reason.error(), TransportError::MessageTooLarge { limit } if *limit == LIMIT),
        "{reason:?}"
    );
    assert!(
        error.to_string().contains("longer than 1048576 bytes"),
        "{error}"
    );
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
