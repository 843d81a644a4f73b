//! Listing tools across pages and calling them, with every content type kept.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use common::{connect, guard, object, text};
use mcp_transport::{ContentBlock, Error};
use serde_json::json;
use testkit::FixtureServer;

use testkit::BUILT_IN_TOOLS;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_tools_follows_every_page_to_the_end() {
    let client = connect(&FixtureServer::new().tools(40).page_size(7)).await;
    let tools = guard(client.list_tools()).await.expect("list");
    assert_eq!(tools.len(), BUILT_IN_TOOLS + 40);
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_str()).collect();
    assert_eq!(names[0], "echo");
    assert_eq!(names[BUILT_IN_TOOLS], "tool_0");
    assert_eq!(names.last().copied(), Some("tool_39"));
    guard(client.close()).await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_repeated_cursor_is_refused_instead_of_looping() {
    let client = connect(&FixtureServer::new().page_size(5).repeat_cursor()).await;
    let error = guard(client.list_tools()).await.expect_err("must not loop");
    assert!(matches!(error, Error::RepeatedCursor { .. }), "{error:?}");
    assert!(error.to_string().contains("a second time"), "{error}");
    guard(client.close()).await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tool_schemas_and_unknown_fields_are_kept_verbatim() {
    let client = connect(&FixtureServer::new()).await;
    let tools = guard(client.list_tools()).await.expect("list");
    let add = tools.iter().find(|tool| tool.name == "add").expect("add");
    let keys: Vec<&String> = add.input_schema.as_object().keys().collect();
    assert_eq!(
        keys,
        [
            "$schema",
            "type",
            "properties",
            "required",
            "additionalProperties"
        ]
    );
    assert_eq!(add.extra["x-extra"], json!({"kept": true}));
    assert!(add.output_schema.is_some());
    guard(client.close()).await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn call_tool_returns_text_and_structured_content() {
    let client = connect(&FixtureServer::new()).await;
    let echo = guard(client.call_tool("echo", Some(object(json!({"message": "héllo ✓"})))))
        .await
        .expect("echo");
    assert_eq!(text(&echo), "héllo ✓");
    assert!(!echo.is_error);
    let add = guard(client.call_tool("add", Some(object(json!({"a": 2, "b": 40})))))
        .await
        .expect("add");
    assert_eq!(add.structured_content, Some(json!({"sum": 42})));
    guard(client.close()).await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_content_type_is_kept_and_unknown_types_are_not_errors() {
    let client = connect(&FixtureServer::new()).await;
    let result = guard(client.call_tool("all_content", None))
        .await
        .expect("all_content");
    let kinds: Vec<&str> = result.content.iter().map(ContentBlock::kind).collect();
    assert_eq!(
        kinds,
        [
            "text",
            "image",
            "audio",
            "resource_link",
            "resource",
            "x-custom"
        ]
    );
    let ContentBlock::Unknown(custom) = &result.content[5] else {
        panic!("x-custom should be kept as unknown");
    };
    assert_eq!(custom["payload"], json!({"a": 1}));
    let ContentBlock::Resource(embedded) = &result.content[4] else {
        panic!("embedded resource");
    };
    assert_eq!(embedded.resource.text.as_deref(), Some("hello"));
    assert_eq!(result.structured_content, Some(json!({"ok": true})));
    assert_eq!(
        result.meta.as_ref().and_then(|meta| meta.get("fixture")),
        Some(&json!(true))
    );
    guard(client.close()).await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_error_is_a_result_and_an_unknown_tool_a_server_error() {
    let client = connect(&FixtureServer::new()).await;
    let failed = guard(client.call_tool("error", None))
        .await
        .expect("a result");
    assert!(failed.is_error);
    assert_eq!(text(&failed), "this tool failed");
    let error = guard(client.call_tool("no_such_tool", None))
        .await
        .expect_err("unknown tool");
    let message = error.to_string();
    assert!(
        message.starts_with("MCP server \"fixture\": tools/call \"no_such_tool\" failed"),
        "{message}"
    );
    assert!(message.contains("-32602"), "{message}");
    guard(client.close()).await.expect("close");
}
