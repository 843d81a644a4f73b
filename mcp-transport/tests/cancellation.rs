//! Timeouts, caller cancellation and progress: what the caller sees and what the server is told.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::time::Duration;

use common::{connect, events, guard, object, recording_progress, sleep_started, text};
use mcp_transport::{CancellationToken, McpClient, RequestOptions, RpcError};
use serde_json::{Value, json};
use testkit::FixtureServer;

/// The `notifications/cancelled` the fixture received, waiting until `count` have arrived.
async fn cancellations(client: &McpClient, count: usize) -> Vec<Value> {
    for _ in 0..500 {
        let received: Vec<Value> = events(client)
            .await
            .into_iter()
            .filter(|event| event["method"] == json!("notifications/cancelled"))
            .collect();
        if received.len() >= count {
            return received;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the server never received {count} cancellation(s)");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_call_returns_as_cancelled_and_the_server_is_told() {
    let client = connect(&FixtureServer::new()).await;
    let cancel = CancellationToken::new();
    let options = RequestOptions::default().cancel_with(cancel.clone());
    let arguments = object(json!({"ms": 60_000}));
    let call = client.call_tool_with("sleep", Some(&arguments), &options);
    let cancel_once_started = async {
        sleep_started(&client).await;
        cancel.cancel();
    };
    let (outcome, ()) = guard(async { tokio::join!(call, cancel_once_started) }).await;
    let error = outcome.expect_err("cancelled");
    assert!(error.is_cancelled(), "{error:?}");

    let cancelled = cancellations(&client, 1).await;
    assert!(
        cancelled[0]["params"]["requestId"].is_number(),
        "{cancelled:?}"
    );
    // The connection is still usable.
    guard(client.ping()).await.expect("ping after cancel");
    guard(client.close()).await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_a_call_cancels_it_on_the_server() {
    let client = connect(&FixtureServer::new()).await;
    let call = client.call_tool("sleep", Some(object(json!({"ms": 60_000}))));
    assert!(
        tokio::time::timeout(Duration::from_millis(100), call)
            .await
            .is_err(),
        "the sleep must still be running"
    );
    let cancelled = cancellations(&client, 1).await;
    assert_eq!(cancelled.len(), 1);
    guard(client.close()).await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timed_out_call_fails_with_the_timeout_and_the_server_is_told() {
    let client = connect(&FixtureServer::new()).await;
    let options = RequestOptions::with_timeout(Duration::from_millis(150));
    let error =
        guard(client.call_tool_with("sleep", Some(&object(json!({"ms": 60_000}))), &options))
            .await
            .expect_err("timed out");
    assert!(error.is_timeout(), "{error:?}");
    assert!(
        error.to_string().contains("no answer within 150ms"),
        "{error}"
    );
    let cancelled = cancellations(&client, 1).await;
    assert_eq!(cancelled[0]["params"]["reason"], json!("timed out"));
    guard(client.close()).await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_notifications_reach_the_caller_in_order() {
    let client = connect(&FixtureServer::new()).await;
    let (options, seen) = recording_progress();
    let result = guard(client.call_tool_with(
        "progress",
        Some(&object(json!({"steps": 20, "interval_ms": 0}))),
        &options,
    ))
    .await
    .expect("progress tool");
    assert_eq!(text(&result), "done");
    let expected: Vec<f64> = (1..=20).map(f64::from).collect();
    assert_eq!(*seen.lock().expect("progress log"), expected);
    guard(client.close()).await.expect("close");
}

/// A progress callback that panics loses its reports, never the connection: the call is
/// answered and the next one too, whoever reads (the reader task on a multi-thread runtime's
/// `block_on`, the call itself on a current-thread runtime).
async fn a_panicking_progress_callback_loses_only_its_reports() {
    let client = connect(&FixtureServer::new()).await;
    let options = RequestOptions::default().on_progress(|_| panic!("a callback with a bug"));
    let result = guard(client.call_tool_with(
        "progress",
        Some(&object(json!({"steps": 3, "interval_ms": 0}))),
        &options,
    ))
    .await
    .expect("progress tool");
    assert_eq!(text(&result), "done");
    let echoed = guard(client.call_tool("echo", Some(object(json!({"message": "still here"})))))
        .await
        .expect("echo");
    assert_eq!(text(&echoed), "still here");
    guard(client.close()).await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panicking_progress_callback_on_the_reader_task_loses_only_its_reports() {
    a_panicking_progress_callback_loses_only_its_reports().await;
}

#[tokio::test(flavor = "current_thread")]
async fn a_panicking_progress_callback_on_the_calling_task_loses_only_its_reports() {
    a_panicking_progress_callback_loses_only_its_reports().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_resets_the_timeout_but_never_past_the_maximum() {
    let client = connect(&FixtureServer::new()).await;
    let args = || Some(object(json!({"steps": 10, "interval_ms": 150})));

    // 1.5 s of work with a 600 ms timeout succeeds because each step resets it.
    let (options, _) = recording_progress();
    let mut options = options
        .timeout(Duration::from_millis(600))
        .reset_timeout_on_progress(Duration::from_secs(10));
    guard(client.call_tool_with("progress", args().as_ref(), &options))
        .await
        .expect("reset by progress");

    // The same work under a 400 ms hard maximum times out anyway.
    options.max_total_timeout = Some(Duration::from_millis(400));
    let error = guard(client.call_tool_with("progress", args().as_ref(), &options))
        .await
        .expect_err("hard maximum");
    assert!(error.is_timeout(), "{error:?}");
    assert!(
        matches!(error.rpc_error(), Some(RpcError::Timeout(limit)) if *limit == Duration::from_millis(400))
    );
    guard(client.close()).await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_short_timeout_behind_a_long_one_still_fires_on_time() {
    let client = std::sync::Arc::new(connect(&FixtureServer::new()).await);
    let long = {
        let client = std::sync::Arc::clone(&client);
        tokio::spawn(async move {
            let options = RequestOptions::with_timeout(Duration::from_secs(600));
            client
                .call_tool_with("sleep", Some(&object(json!({"ms": 60_000}))), &options)
                .await
        })
    };
    guard(client.ping()).await.expect("ping");
    // The guard fails the test long before the 600 s deadline of the first call.
    let short = RequestOptions::with_timeout(Duration::from_millis(150));
    let error = guard(client.call_tool_with("sleep", Some(&object(json!({"ms": 60_000}))), &short))
        .await
        .expect_err("the short timeout fires");
    assert!(error.is_timeout(), "{error:?}");
    long.abort();
    guard(client.close()).await.expect("close");
}
