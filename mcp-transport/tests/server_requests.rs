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

/// Answers every elicitation with the message it was asked, and every sampling request with a
/// fixed text.
struct Answering;

#[async_trait::async_trait]
impl mcp_transport::handlers::ElicitationHandler for Answering {
    async fn elicit(
        &self,
        server: &str,
        request: mcp_transport::handlers::ElicitRequest,
    ) -> Result<mcp_transport::handlers::ElicitResult, mcp_transport::ErrorObject> {
        let mut content = request.defaults();
        content.insert("asked".to_owned(), json!(request.message));
        content.insert("server".to_owned(), json!(server));
        Ok(mcp_transport::handlers::ElicitResult::accept(content))
    }
}

#[async_trait::async_trait]
impl mcp_transport::handlers::SamplingHandler for Answering {
    async fn create_message(
        &self,
        _server: &str,
        request: mcp_transport::handlers::CreateMessageRequest,
    ) -> Result<mcp_transport::handlers::CreateMessageResult, mcp_transport::ErrorObject> {
        Ok(mcp_transport::handlers::CreateMessageResult::text(
            "test-model",
            format!("{} messages", request.messages.len()),
        ))
    }
}

async fn ask(client: &mcp_transport::McpClient) -> Value {
    let arguments = common::object(json!({
        "message": "Which colour?",
        "schema": {"type": "object", "properties": {"colour": {"type": "string", "default": "blue"}}}
    }));
    let result = guard(client.call_tool("ask", Some(arguments)))
        .await
        .expect("ask");
    serde_json::from_str(common::text(&result)).expect("the fixture answers JSON")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn elicitation_and_sampling_go_to_the_handlers_the_client_was_given() {
    let handler = std::sync::Arc::new(Answering);
    let options = ClientOptions::default()
        .elicitation(handler.clone())
        .sampling(handler);
    let client = connect_with(&FixtureServer::new().server_requests(), options).await;

    assert_eq!(
        ask(&client).await,
        json!({"action": "accept", "content": {"colour": "blue", "asked": "Which colour?", "server": "fixture"}})
    );
    let sampled = response_to(&client, "srv-unknown").await;
    assert_eq!(
        sampled["result"],
        json!({"role": "assistant", "content": {"type": "text", "text": "1 messages"},
               "model": "test-model", "stopReason": "endTurn"})
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_handler_elicitation_is_method_not_found() {
    let client = connect(&FixtureServer::new()).await;
    let reply = ask(&client).await;
    assert_eq!(reply["code"], json!(-32601), "{reply}");
}
