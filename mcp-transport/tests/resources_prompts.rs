//! Resources and prompts against the fixture: every page of `resources/list`,
//! `resources/templates/list` and `prompts/list`, a repeated cursor refused, `resources/read`
//! of text, blob and template URIs, `prompts/get` with arguments, the errors a user sees, and
//! the `list_changed` notifications.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::collections::BTreeMap;

use common::{connect, guard};
use mcp_transport::{ContentBlock, Error, ErrorObject, RpcError};
use serde_json::json;
use testkit::FixtureServer;

fn catalog() -> FixtureServer {
    FixtureServer::new().resources().prompts()
}

fn server_error(error: &Error) -> &ErrorObject {
    match error.rpc_error() {
        Some(RpcError::Server(object)) => object,
        other => panic!("not a server error: {other:?} ({error})"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resources_templates_and_prompts_are_listed_across_every_page() {
    let client = connect(&catalog().page_size(1)).await;
    assert!(client.capabilities().offers_resources());
    assert!(client.capabilities().offers_prompts());

    let resources = guard(client.list_resources()).await.expect("resources");
    let uris: Vec<&str> = resources.iter().map(|r| r.uri.as_str()).collect();
    assert_eq!(
        uris,
        [
            "fixture://docs/readme",
            "fixture://docs/notes",
            "fixture://images/pixel"
        ]
    );
    let readme = &resources[0];
    assert_eq!(readme.title.as_deref(), Some("Read me"));
    assert_eq!(readme.mime_type.as_deref(), Some("text/markdown"));
    assert!(readme.size.is_some());
    assert_eq!(
        resources[1].annotations,
        Some(json!({"audience": ["user"], "priority": 0.5}))
    );
    assert_eq!(resources[2].extra["x-extra"], json!({"kept": true}));

    let templates = guard(client.list_resource_templates())
        .await
        .expect("templates");
    assert_eq!(templates.len(), 1);
    assert_eq!(templates[0].uri_template, "fixture://greetings/{name}");
    assert_eq!(templates[0].name, "greeting");

    let prompts = guard(client.list_prompts()).await.expect("prompts");
    let names: Vec<&str> = prompts.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["greet", "summarize_readme"]);
    assert_eq!(
        prompts[0].required_arguments().collect::<Vec<_>>(),
        ["name"]
    );
    assert_eq!(prompts[0].arguments.len(), 2);
    assert_eq!(prompts[0].extra["icons"], json!([{"src": "data:,greet"}]));
    guard(client.close()).await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_repeated_cursor_in_a_resource_or_prompt_list_is_refused_instead_of_looping() {
    let client = connect(&catalog().page_size(1).repeat_cursor()).await;
    let error = guard(client.list_resources())
        .await
        .expect_err("must not loop");
    assert!(
        matches!(
            error,
            Error::RepeatedCursor {
                method: "resources/list",
                ..
            }
        ),
        "{error:?}"
    );
    assert!(
        error
            .to_string()
            .contains("resources/list returned the cursor"),
        "{error}"
    );
    let error = guard(client.list_prompts())
        .await
        .expect_err("must not loop");
    assert!(
        matches!(
            error,
            Error::RepeatedCursor {
                method: "prompts/list",
                ..
            }
        ),
        "{error:?}"
    );
    guard(client.close()).await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_resource_returns_text_blob_and_template_contents() {
    let client = connect(&catalog()).await;
    let notes = guard(client.read_resource("fixture://docs/notes"))
        .await
        .expect("notes");
    assert_eq!(notes.contents.len(), 1);
    assert_eq!(notes.contents[0].uri, "fixture://docs/notes");
    assert_eq!(
        notes.contents[0].text.as_deref(),
        Some("first line\nsecond line\n")
    );
    assert_eq!(notes.contents[0].mime_type.as_deref(), Some("text/plain"));

    let pixel = guard(client.read_resource("fixture://images/pixel"))
        .await
        .expect("pixel");
    assert!(pixel.contents[0].text.is_none());
    assert!(
        pixel.contents[0]
            .blob
            .as_deref()
            .is_some_and(|b| b.starts_with("iVBOR"))
    );

    let greeting = guard(client.read_resource("fixture://greetings/Ada"))
        .await
        .expect("a URI of the template");
    assert_eq!(greeting.contents[0].text.as_deref(), Some("Hello, Ada!"));
    guard(client.close()).await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reading_an_unknown_resource_names_the_server_the_uri_and_the_servers_answer() {
    let client = connect(&catalog()).await;
    let error = guard(client.read_resource("fixture://nope"))
        .await
        .expect_err("unknown URI");
    assert_eq!(server_error(&error).code, -32002);
    let message = error.to_string();
    assert!(message.contains("\"fixture\""), "{message}");
    assert!(
        message.contains("resources/read \"fixture://nope\""),
        "{message}"
    );
    assert!(message.contains("Resource not found"), "{message}");
    guard(client.close()).await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn get_prompt_sends_string_arguments_and_returns_the_messages() {
    let client = connect(&catalog()).await;
    let arguments = BTreeMap::from([
        ("name".to_owned(), "Ada".to_owned()),
        ("style".to_owned(), "formal".to_owned()),
    ]);
    let greet = guard(client.get_prompt("greet", arguments))
        .await
        .expect("greet");
    assert_eq!(greet.description.as_deref(), Some("A greeting for Ada"));
    let roles: Vec<&str> = greet.messages.iter().map(|m| m.role.as_str()).collect();
    assert_eq!(roles, ["user", "assistant"]);
    assert_eq!(
        greet.messages[0].content.as_text(),
        Some("Please greet Ada formally.")
    );

    let summary = guard(client.get_prompt("summarize_readme", BTreeMap::new()))
        .await
        .expect("summarize_readme");
    let ContentBlock::Resource(embedded) = &summary.messages[1].content else {
        panic!("an embedded resource: {:?}", summary.messages[1]);
    };
    assert_eq!(embedded.resource.uri, "fixture://docs/readme");
    guard(client.close()).await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_without_its_required_argument_fails_with_the_servers_reason() {
    let client = connect(&catalog()).await;
    let error = guard(client.get_prompt("greet", BTreeMap::new()))
        .await
        .expect_err("name is required");
    assert_eq!(server_error(&error).code, -32602);
    assert!(
        error.to_string().contains("prompts/get \"greet\""),
        "{error}"
    );
    assert!(
        error
            .to_string()
            .contains("Missing required argument: name"),
        "{error}"
    );
    guard(client.close()).await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_without_the_capabilities_says_so_and_refuses_the_methods() {
    let client = connect(&FixtureServer::new()).await;
    assert!(!client.capabilities().offers_resources());
    assert!(!client.capabilities().offers_prompts());
    let error = guard(client.list_resources())
        .await
        .expect_err("not offered");
    assert_eq!(server_error(&error).code, -32601);
    guard(client.close()).await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resource_and_prompt_list_changes_reach_subscribers_and_the_lists_grow() {
    let client = connect(&catalog().catalog_change_after(300)).await;
    let mut notifications = client.subscribe();
    let mut methods = Vec::new();
    while methods.len() < 2 {
        let notification = guard(notifications.recv()).await.expect("a notification");
        methods.push(notification.method);
    }
    methods.sort();
    assert_eq!(
        methods,
        [
            "notifications/prompts/list_changed",
            "notifications/resources/list_changed"
        ]
    );
    let resources = guard(client.list_resources()).await.expect("resources");
    assert!(resources.iter().any(|r| r.uri == "fixture://docs/late"));
    let prompts = guard(client.list_prompts()).await.expect("prompts");
    assert!(prompts.iter().any(|p| p.name == "late_prompt"));
    guard(client.close()).await.expect("close");
}
