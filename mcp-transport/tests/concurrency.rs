//! Many requests in flight on one connection.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::sync::Arc;

use common::{connect, guard, object, text};
use mcp_transport::RequestOptions;
use serde_json::json;
use testkit::FixtureServer;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_concurrent_calls_each_get_their_own_answer() {
    let client = Arc::new(connect(&FixtureServer::new()).await);
    let calls: Vec<_> = (0..1000)
        .map(|index| {
            let client = Arc::clone(&client);
            tokio::spawn(async move {
                let message = format!("call {index}");
                let result = client
                    .call_tool("echo", Some(object(json!({"message": message}))))
                    .await
                    .expect("echo");
                (message, text(&result).to_owned())
            })
        })
        .collect();
    for call in calls {
        let (sent, answered) = guard(call).await.expect("task");
        assert_eq!(sent, answered);
    }
    guard(client.close()).await.expect("close");
}

/// On one thread, a burst of calls leaves through the writer task in batches; each call still
/// gets its own answer, and arguments lent to the client come back untouched.
#[tokio::test(flavor = "current_thread")]
async fn a_burst_of_calls_with_borrowed_arguments_on_one_thread_each_get_their_own_answer() {
    let client = Arc::new(connect(&FixtureServer::new()).await);
    let calls: Vec<_> = (0..300)
        .map(|index| {
            let client = Arc::clone(&client);
            tokio::spawn(async move {
                let arguments = object(json!({"message": format!("burst {index}")}));
                let result = client
                    .call_tool_with("echo", Some(&arguments), &RequestOptions::default())
                    .await
                    .expect("echo");
                (arguments, text(&result).to_owned())
            })
        })
        .collect();
    for call in calls {
        let (arguments, answered) = guard(call).await.expect("task");
        assert_eq!(arguments["message"], json!(answered));
    }
    guard(client.close()).await.expect("close");
}
