//! A call alone in flight, on a thread that runs the runtime (a current-thread `block_on`, a
//! task), reads its own answer from a stdio server instead of waiting for the peer's reader task
//! to hand it over. These tests pin down that nothing is lost by it: what the server sends before
//! the answer is handled, a second call never waits on a first one nobody polls, and reading goes
//! back to the reader task however the call ends.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::{connect, connect_with, guard, object, recording_progress, text};
use mcp_transport::handlers::{ElicitRequest, ElicitResult, ElicitationHandler};
use mcp_transport::{ClientOptions, ErrorObject, McpClient, TransportError};
use serde_json::{Value, json};
use testkit::FixtureServer;

/// Accepts every elicitation with the message it was asked.
struct Accepting;

#[async_trait::async_trait]
impl ElicitationHandler for Accepting {
    async fn elicit(
        &self,
        _server: &str,
        request: ElicitRequest,
    ) -> Result<ElicitResult, ErrorObject> {
        let mut content = request.defaults();
        content.insert("asked".to_owned(), json!(request.message));
        Ok(ElicitResult::accept(content))
    }
}

/// A server request, a notification and progress, each sent before the answer, each reach where
/// they belong while the lone call reads.
async fn everything_sent_before_the_answer_is_handled(client: &McpClient) {
    let mut notifications = client.subscribe();

    let asked = guard(client.call_tool("ask", Some(object(json!({"message": "Which colour?"})))))
        .await
        .expect("ask");
    let reply: Value = serde_json::from_str(text(&asked)).expect("the fixture answers JSON");
    assert_eq!(
        reply,
        json!({"action": "accept", "content": {"asked": "Which colour?"}})
    );

    let logged = guard(client.call_tool(
        "log",
        Some(object(json!({"level": "info", "message": "hello"}))),
    ))
    .await
    .expect("log");
    assert_eq!(text(&logged), "logged");
    let notification = guard(notifications.recv()).await.expect("a notification");
    assert_eq!(notification.method, "notifications/message");

    let (options, seen) = recording_progress();
    let progressed = guard(client.call_tool_with(
        "progress",
        Some(&object(json!({"steps": 5, "interval_ms": 0}))),
        &options,
    ))
    .await
    .expect("progress");
    assert_eq!(text(&progressed), "done");
    assert_eq!(*seen.lock().unwrap(), vec![1.0, 2.0, 3.0, 4.0, 5.0]);
}

fn answering_client_options() -> ClientOptions {
    ClientOptions::default().elicitation(Arc::new(Accepting))
}

#[tokio::test(flavor = "current_thread")]
async fn on_one_thread_a_lone_call_handles_what_the_server_sends_before_its_answer() {
    let client = connect_with(&FixtureServer::new(), answering_client_options()).await;
    everything_sent_before_the_answer_is_handled(&client).await;
    guard(client.close()).await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_a_task_a_lone_call_handles_what_the_server_sends_before_its_answer() {
    let client = connect_with(&FixtureServer::new(), answering_client_options()).await;
    let client = guard(tokio::spawn(async move {
        everything_sent_before_the_answer_is_handled(&client).await;
        client
    }))
    .await
    .expect("task");
    guard(client.close()).await.expect("close");
}

/// A first call starts reading its own answer, then its future is kept but no longer polled
/// while a second call runs: the second is answered (the reader task took reading back), and the
/// first still gets its answer once polled again.
#[tokio::test(flavor = "current_thread")]
async fn a_second_call_is_answered_while_the_first_call_is_not_polled() {
    let client = connect(&FixtureServer::new()).await;
    let first = client.call_tool("sleep", Some(object(json!({"ms": 300}))));
    tokio::pin!(first);
    // Polled for a while, so it is in flight and reading.
    assert!(
        tokio::time::timeout(Duration::from_millis(50), &mut first)
            .await
            .is_err()
    );

    let second = guard(client.call_tool("echo", Some(object(json!({"message": "second"})))))
        .await
        .expect("echo");
    assert_eq!(text(&second), "second");

    let first = guard(first).await.expect("sleep");
    assert_eq!(text(&first), "slept 300ms");
    guard(client.close()).await.expect("close");
}

/// A lone call dropped while it reads hands reading back: a notification the server sends later,
/// with no call in flight, still reaches subscribers.
#[tokio::test(flavor = "current_thread")]
async fn a_call_dropped_while_reading_hands_reading_back() {
    let client = connect(&FixtureServer::new().list_change_after(400)).await;
    let mut notifications = client.subscribe();
    let dropped = tokio::time::timeout(
        Duration::from_millis(50),
        client.call_tool("sleep", Some(object(json!({"ms": 60_000})))),
    )
    .await;
    assert!(dropped.is_err(), "the sleep cannot have ended");

    let notification = guard(notifications.recv()).await.expect("a notification");
    assert_eq!(notification.method, "notifications/tools/list_changed");
    let tools = guard(client.list_tools()).await.expect("list");
    assert!(tools.iter().any(|tool| tool.name == "late_tool"));
    guard(client.close()).await.expect("close");
}

/// A server that exits while a lone call reads fails that call with the exit status and the
/// stderr tail, as the reader task would have.
#[tokio::test(flavor = "current_thread")]
async fn a_crash_while_a_lone_call_reads_fails_it_with_the_status_and_stderr() {
    let client = connect(&FixtureServer::new()).await;
    let crash = guard(client.call_tool(
        "crash",
        Some(object(json!({"code": 6, "stderr": "fatal: out of memory"}))),
    ))
    .await
    .expect_err("the server crashed");
    let message = crash.to_string();
    assert!(message.contains("server exited with status 6"), "{message}");
    assert!(message.contains("fatal: out of memory"), "{message}");
    let reason = guard(client.closed()).await;
    assert!(matches!(
        reason.error(),
        TransportError::ServerExited { .. }
    ));
}

/// A lone call whose answer is over the size limit fails with that, and the connection reads on.
#[tokio::test(flavor = "current_thread")]
async fn a_lone_call_whose_answer_is_too_large_fails_and_the_next_call_is_answered() {
    let (program, args) = FixtureServer::new().command();
    let params = mcp_transport::StdioServerParams::new(program.to_string_lossy(), args)
        .max_message_bytes(64 * 1024);
    let client = common::connect_with_params(params).await;
    let error = guard(client.call_tool("huge", Some(object(json!({"bytes": 200_000})))))
        .await
        .expect_err("too large");
    assert!(error.to_string().contains("over the limit"), "{error}");
    let echoed = guard(client.call_tool("echo", Some(object(json!({"message": "after"})))))
        .await
        .expect("echo");
    assert_eq!(text(&echoed), "after");
    guard(client.close()).await.expect("close");
}
