//! Resources and prompts against the fixture: every page of `resources/list`,
//! `resources/templates/list` and `prompts/list`, a repeated cursor refused, `resources/read`
//! of text, blob and template URIs, `prompts/get` with arguments, the errors a user sees, and
//! the `list_changed` notifications. Three tests, ignored under a plain `cargo test` because
//! they need the interop peers, do the same against the pinned TypeScript `server-everything`
//! over stdio and Streamable HTTP (`cargo xtask ci` installs it and runs them).

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::collections::BTreeMap;
use std::time::Duration;

use common::{connect, guard};
use mcp_transport::http::HttpServerParams;
use mcp_transport::{
    ClientOptions, ContentBlock, Error, ErrorObject, McpClient, RpcError, StdioServerParams,
};
use serde_json::json;
use testkit::{FixtureServer, RemotePeer};

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

/// `server-everything` over stdio, as `cargo xtask interop` installs it.
async fn everything_over_stdio() -> McpClient {
    let script = testkit::interop_path(
        "interop/node/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
    );
    let params = StdioServerParams::new(
        "node",
        [script.to_string_lossy().into_owned(), "stdio".to_owned()],
    );
    let options = ClientOptions::default().connect_timeout(Duration::from_secs(20));
    guard(McpClient::connect_stdio("everything", params, options))
        .await
        .unwrap_or_else(|error| panic!("{error}"))
}

/// What every transport of `server-everything` must give: its static documents and dynamic
/// templates, a text and a blob read through a template, its prompts with their arguments,
/// a prompt with arguments and one with an embedded resource.
async fn everything_offers_resources_and_prompts(client: &McpClient) {
    assert!(client.capabilities().offers_resources());
    assert!(client.capabilities().offers_prompts());

    let resources = guard(client.list_resources())
        .await
        .expect("resources/list");
    assert!(
        resources
            .iter()
            .any(|r| r.uri.starts_with("demo://resource/static/document/")),
        "{resources:?}"
    );
    let templates = guard(client.list_resource_templates())
        .await
        .expect("resources/templates/list");
    let uri_templates: Vec<&str> = templates.iter().map(|t| t.uri_template.as_str()).collect();
    assert!(
        uri_templates.contains(&"demo://resource/dynamic/text/{resourceId}"),
        "{uri_templates:?}"
    );

    let text = guard(client.read_resource("demo://resource/dynamic/text/1"))
        .await
        .expect("read a text resource");
    assert!(
        text.contents[0]
            .text
            .as_deref()
            .is_some_and(|t| t.starts_with("Resource 1:")),
        "{text:?}"
    );
    let blob = guard(client.read_resource("demo://resource/dynamic/blob/2"))
        .await
        .expect("read a blob resource");
    assert!(blob.contents[0].blob.is_some(), "{blob:?}");

    let prompts = guard(client.list_prompts()).await.expect("prompts/list");
    let args_prompt = prompts
        .iter()
        .find(|p| p.name == "args-prompt")
        .unwrap_or_else(|| panic!("an args-prompt in {prompts:?}"));
    assert_eq!(
        args_prompt.required_arguments().collect::<Vec<_>>(),
        ["city"]
    );
    let arguments = BTreeMap::from([
        ("city".to_owned(), "Paris".to_owned()),
        ("state".to_owned(), "TX".to_owned()),
    ]);
    let weather = guard(client.get_prompt("args-prompt", arguments))
        .await
        .expect("prompts/get args-prompt");
    assert_eq!(
        weather.messages[0].content.as_text(),
        Some("What's weather in Paris, TX?")
    );
    let arguments = BTreeMap::from([
        ("resourceType".to_owned(), "Text".to_owned()),
        ("resourceId".to_owned(), "3".to_owned()),
    ]);
    let embedded = guard(client.get_prompt("resource-prompt", arguments))
        .await
        .expect("prompts/get resource-prompt");
    assert!(
        embedded.messages.iter().any(|m| matches!(
            &m.content,
            ContentBlock::Resource(r) if r.resource.uri == "demo://resource/dynamic/text/3"
        )),
        "{embedded:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the interop peers (cargo xtask interop)"]
async fn server_everything_lists_and_reads_resources_and_gets_prompts_over_stdio() {
    let client = everything_over_stdio().await;
    everything_offers_resources_and_prompts(&client).await;
    guard(client.close()).await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the interop peers (cargo xtask interop)"]
async fn server_everything_lists_and_reads_resources_and_gets_prompts_over_streamable_http() {
    let running = RemotePeer::EverythingStreamableHttp.start();
    let params = HttpServerParams::new(running.url()).expect("a valid URL");
    let options = ClientOptions::default().connect_timeout(Duration::from_secs(20));
    let client = guard(McpClient::connect_http("everything", params, options))
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    everything_offers_resources_and_prompts(&client).await;
    guard(client.close()).await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the interop peers (cargo xtask interop)"]
async fn an_unknown_resource_of_server_everything_is_an_error_naming_the_uri() {
    let client = everything_over_stdio().await;
    let error = guard(client.read_resource("demo://resource/nowhere"))
        .await
        .expect_err("no such resource");
    assert!(
        error
            .rpc_error()
            .is_some_and(|e| matches!(e, RpcError::Server(_))),
        "{error:?}"
    );
    assert!(
        error.to_string().contains("demo://resource/nowhere"),
        "{error}"
    );
    guard(client.close()).await.expect("close");
}
