//! Requests the server sends to the client: ping, roots/list, and everything else.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::time::Duration;

use common::{connect, connect_with, events, guard};
use mcp_transport::{ClientOptions, Root};
use serde_json::{Value, json};
use testkit::FixtureServer;

/// The response the fixture recorded for its request `id`, waiting until it has arrived.
async fn response_to(client: &mcp_transport::McpClient, id: &str) -> Value {
    for _ in 0..500 {
        let found = events(client)
            .await
            .into_iter()
            .find(|event| event["response"]["id"] == json!(id));
        if let Some(event) = found {
            return event["response"].clone();
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the client never answered the server's request {id}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_ping_and_roots_are_answered_and_unknown_requests_get_method_not_found() {
    let root = Root::from_path(std::path::Path::new("/work/project"));
    let options = ClientOptions::default().roots(vec![root]);
    let client = connect_with(&FixtureServer::new().server_requests(), options).await;

    let ping = response_to(&client, "srv-ping").await;
    assert_eq!(ping["result"], json!({}));

    let roots = response_to(&client, "srv-roots").await;
    assert_eq!(
        roots["result"]["roots"],
        json!([{"uri": "file:///work/project", "name": "project"}])
    );

    let unknown = response_to(&client, "srv-unknown").await;
    assert_eq!(unknown["error"]["code"], json!(-32601));
    assert!(unknown.get("result").is_none());
    guard(client.close()).await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn roots_list_is_method_not_found_when_no_roots_are_declared() {
    let client = connect(&FixtureServer::new().server_requests()).await;
    let roots = response_to(&client, "srv-roots").await;
    assert_eq!(roots["error"]["code"], json!(-32601));
    guard(client.close()).await.expect("close");
}
