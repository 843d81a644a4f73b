//! `McpTool` and `DeferredMcpTool` against the real fixture server (`testkit`): calls, invalid
//! arguments, transport failures, cancellation (before and during a call, and while waiting for
//! the connection), and what the model sees of a tool (name, label, description, parameters).

#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use mcp_bridge::naming::tool_name;
use mcp_bridge::{
    AgentTool, ConnectionError, ConnectionProvider, DeferredMcpTool, McpTool, McpToolDefinition,
    OutputBlock, ToolCancelled, ToolOutput, ToolProvider, check_arguments,
};
use mcp_transport::{ClientOptions, McpClient, StdioServerParams, Tool};
use serde_json::{Map, Value, json};
use testkit::FixtureServer;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

/// Bound on anything that could hang; no test relies on it for timing.
const HANG_GUARD: Duration = Duration::from_secs(30);

/// `future`, or a panic if it hangs.
async fn guard<F: Future>(future: F) -> F::Output {
    tokio::time::timeout(HANG_GUARD, future)
        .await
        .expect("hung past the guard")
}

/// A connected fixture server named `server`.
async fn connect(server: &str, fixture: &FixtureServer) -> Result<Arc<McpClient>, ConnectionError> {
    let (program, args) = fixture.command();
    let params = StdioServerParams::new(program.to_string_lossy(), args);
    McpClient::connect_stdio(server, params, ClientOptions::default())
        .await
        .map(Arc::new)
        .map_err(|error| Arc::new(error) as ConnectionError)
}

/// A provider's error of its own (the manager's is richer).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct ProviderError(String);

fn provider_error(message: impl Into<String>) -> ConnectionError {
    Arc::new(ProviderError(message.into()))
}

/// The definition of the fixture's tool `tool` as listed by `client`.
async fn definition(client: &McpClient, tool: &str) -> McpToolDefinition {
    let listed = guard(client.list_tools())
        .await
        .unwrap()
        .into_iter()
        .find(|listed| listed.name == tool)
        .unwrap_or_else(|| panic!("the fixture has no tool {tool}"));
    let server = client.server_name();
    McpToolDefinition::new(tool_name(server, tool), server, listed)
}

/// A live tool of a fresh fixture named `fixture`, and its client.
async fn live_tool(tool: &str) -> (McpTool, Arc<McpClient>) {
    let client = guard(connect("fixture", &FixtureServer::new()))
        .await
        .unwrap();
    let definition = definition(&client, tool).await;
    (McpTool::new(definition, Arc::clone(&client)), client)
}

/// Calls `tool` without cancellation, within the guard.
async fn run(tool: &dyn AgentTool, args: Value) -> Result<ToolOutput, ToolCancelled> {
    guard(tool.execute(args, CancellationToken::new())).await
}

fn text(text: &str) -> OutputBlock {
    OutputBlock::Text {
        text: text.to_owned(),
    }
}

/// The one text of an output.
fn only_text(output: &ToolOutput) -> &str {
    match output.content.as_slice() {
        [OutputBlock::Text { text }] => text,
        other => panic!("expected one text block, got {other:?}"),
    }
}

/// Everything the fixture behind `client` recorded so far (notifications, responses, sleeps
/// started).
async fn events(client: &McpClient) -> Vec<Value> {
    let result = guard(client.call_tool("events", None)).await.unwrap();
    serde_json::from_str(result.content[0].as_text().unwrap()).unwrap()
}

/// The methods of the notifications the fixture behind `client` received so far.
async fn notifications_received(client: &McpClient) -> Vec<String> {
    events(client)
        .await
        .iter()
        .filter_map(|event| event.get("method").and_then(Value::as_str))
        .map(str::to_owned)
        .collect()
}

/// Waits until the fixture behind `client` has started a `sleep` call.
async fn sleep_started(client: &McpClient) {
    guard(async {
        while !events(client)
            .await
            .iter()
            .any(|event| event["started"] == json!("sleep"))
        {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
}

/// Asserts the fixture behind `client` is alive and answering (it did not run `crash`).
/// Starts a ten-minute `sleep` through `tool`, cancels it once the request is out, and checks
/// that the call ends as a cancellation and that the server received `notifications/cancelled`.
async fn cancel_a_long_sleep(tool: Arc<dyn AgentTool>, client: &McpClient) {
    let cancel = CancellationToken::new();
    let call = tokio::spawn({
        let cancel = cancel.clone();
        async move { tool.execute(json!({"ms": 600_000}), cancel).await }
    });
    // Cancelled once the server has the request, so the server must hear of it.
    sleep_started(client).await;
    cancel.cancel();
    assert_eq!(guard(call).await.unwrap(), Err(ToolCancelled::new()));
    // The cancellation went out before the `events` request, on the same connection.
    let received = notifications_received(client).await;
    assert!(
        received
            .iter()
            .any(|method| method == "notifications/cancelled"),
        "{received:?}"
    );
}

async fn assert_still_serving(client: &McpClient) {
    let result = guard(client.call_tool("echo", Some(object(json!({"message": "alive"})))))
        .await
        .expect("the server still answers");
    assert_eq!(result.content[0].as_text(), Some("alive"));
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(object) => object,
        other => panic!("not an object: {other}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn echo_through_a_live_connection() {
    let (tool, client) = live_tool("echo").await;
    assert_eq!(tool.name(), "mcp_fixture_echo");
    assert_eq!(tool.label(), "fixture/echo");
    assert_eq!(tool.description(), "Answers with the message it is given.");
    assert_eq!(tool.definition().server, "fixture");
    assert_eq!(tool.definition().tool.name, "echo");

    // Through the trait object, as an agent's registry holds it.
    let registry: Vec<Arc<dyn AgentTool>> = vec![Arc::new(tool)];
    let output = run(registry[0].as_ref(), json!({"message": "hello, world"}))
        .await
        .unwrap();
    assert!(!output.is_error);
    assert_eq!(output.content, [text("hello, world")]);
    assert_eq!(output.details["server"], "fixture");
    assert_eq!(output.details["tool"], "echo");
    assert_eq!(
        output.details["content"],
        json!([{"type": "text", "text": "hello, world"}])
    );
    guard(client.close()).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn all_content_through_a_live_connection() {
    let (tool, client) = live_tool("all_content").await;
    let output = run(&tool, json!({})).await.unwrap();
    assert!(!output.is_error);
    let content = &output.content;
    assert_eq!(content.len(), 6, "{content:?}");
    assert_eq!(content[0], text("plain text"));
    assert!(
        matches!(&content[1], OutputBlock::Image { data, mime_type }
            if mime_type == "image/png" && data.starts_with("iVBORw0KGgo")),
        "{:?}",
        content[1]
    );
    assert!(
        matches!(&content[2], OutputBlock::Audio { data, mime_type }
            if mime_type == "audio/wav" && data.starts_with("UklGR")),
        "{:?}",
        content[2]
    );
    assert_eq!(
        content[3],
        text("[Resource link: linked.txt] file:///linked.txt (text/plain)")
    );
    assert_eq!(
        content[4],
        text("[Resource: file:///x.txt (text/plain)]\nhello")
    );
    assert_eq!(
        content[5],
        text(r#"[x-custom content] {"type":"x-custom","payload":{"a":1}}"#)
    );
    // There is text of its own, so the structured content stays in the details.
    assert_eq!(output.details["structuredContent"], json!({"ok": true}));
    assert_eq!(output.details["_meta"], json!({"fixture": true}));
    assert_eq!(output.details["content"].as_array().unwrap().len(), 6);
    // For agents that take text only.
    let as_text = output.to_text();
    assert!(
        as_text.starts_with("plain text\n[image: image/png, "),
        "{as_text}"
    );
    assert!(
        as_text.contains("\n[audio: audio/wav, 48 bytes]\n"),
        "{as_text}"
    );
    guard(client.close()).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn structured_content_and_is_error_through_a_live_connection() {
    let (add, client) = live_tool("add").await;
    let output = run(&add, json!({"a": 2, "b": 40})).await.unwrap();
    assert!(!output.is_error);
    assert_eq!(output.details["structuredContent"], json!({"sum": 42}));

    let error = McpTool::new(definition(&client, "error").await, Arc::clone(&client));
    let output = run(&error, json!({})).await.unwrap();
    assert!(output.is_error, "{output:?}");
    assert!(
        !output.to_text().starts_with("MCP error:"),
        "a tool error as it came"
    );
    guard(client.close()).await.unwrap();
}

/// Every result of a tool whose definition names its config provider carries it in the details
/// (SPEC §6: server, tool, provider, raw content): a result, a tool's own error, and each
/// `MCP error: …` — arguments refused, no connection, a server that died during the call. A
/// tool whose provider is unknown says so with nulls.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn results_carry_the_provider_in_their_details() {
    let client = guard(connect("fixture", &FixtureServer::new()))
        .await
        .unwrap();
    let cursor = || Some(Arc::new(ToolProvider::new("cursor", "Cursor")));
    let live = |definition: McpToolDefinition| {
        McpTool::new(definition.with_provider(cursor()), Arc::clone(&client))
    };
    let echo = live(definition(&client, "echo").await);
    let error = live(definition(&client, "error").await);
    let crash = live(definition(&client, "crash").await);
    let unconnected = DeferredMcpTool::new(
        cached_echo("broken").with_provider(cursor()),
        Arc::new(FailingProvider),
    );
    let mut outputs = vec![
        ("a result", run(&echo, json!({"message": "hi"})).await),
        ("a tool error", run(&error, json!({})).await),
        ("arguments refused", run(&echo, json!([1])).await),
        (
            "no connection",
            run(&unconnected, json!({"message": "hi"})).await,
        ),
    ];
    // Last: it takes the server down.
    outputs.push(("a dead server", run(&crash, json!({"code": 3})).await));
    for (what, output) in outputs {
        let output = output.unwrap();
        assert_eq!(output.is_error, what != "a result", "{what}: {output:?}");
        if what != "a result" && what != "a tool error" {
            assert!(
                only_text(&output).starts_with("MCP error: "),
                "{what}: {output:?}"
            );
        }
        assert_eq!(output.details["provider"], "cursor", "{what}: {output:?}");
        assert_eq!(
            output.details["providerName"], "Cursor",
            "{what}: {output:?}"
        );
        assert!(output.details["tool"].is_string(), "{what}: {output:?}");
    }

    let unknown = DeferredMcpTool::new(cached_echo("broken"), Arc::new(FailingProvider));
    let output = run(&unknown, json!({"message": "hi"})).await.unwrap();
    let details = output.details.as_object().unwrap();
    assert_eq!(details.get("provider"), Some(&Value::Null), "{details:?}");
    assert_eq!(
        details.get("providerName"),
        Some(&Value::Null),
        "{details:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn arguments_that_are_not_an_object_are_refused_without_a_call() {
    // Called with any arguments, `crash` would take the server down.
    let (crash, client) = live_tool("crash").await;
    for (args, what) in [
        (json!([1, 2]), "an array"),
        (json!("code"), "a string"),
        (json!(7), "a number"),
        (json!(true), "a boolean"),
    ] {
        let output = run(&crash, args).await.unwrap();
        assert!(output.is_error);
        assert_eq!(
            only_text(&output),
            format!("MCP error: the arguments must be a JSON object, not {what}")
        );
        assert_eq!(output.details["server"], "fixture");
        assert_eq!(output.details["tool"], "crash");
    }
    assert_still_serving(&client).await;

    // `null` means no arguments: the call is made.
    let (echo, echo_client) = live_tool("echo").await;
    let output = run(&echo, Value::Null).await.unwrap();
    assert!(output.is_error, "the fixture wants a message: {output:?}");
    assert!(only_text(&output).starts_with("MCP error: "), "{output:?}");
    assert_still_serving(&echo_client).await;
    guard(client.close()).await.unwrap();
    guard(echo_client.close()).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_transport_failure_is_an_mcp_error_with_the_exit_status() {
    let (crash, _client) = live_tool("crash").await;
    let output = run(
        &crash,
        json!({"code": 7, "stderr": "fixture: out of cheese"}),
    )
    .await
    .unwrap();
    assert!(output.is_error);
    let message = only_text(&output);
    assert!(
        message.starts_with("MCP error: MCP server \"fixture\": tools/call \"crash\" failed: "),
        "{message}"
    );
    assert!(message.contains("status 7"), "{message}");
    assert!(message.contains("fixture: out of cheese"), "{message}");
    assert_eq!(output.details["error"], message["MCP error: ".len()..]);

    // The connection is gone: the next call fails the same way, it does not hang.
    let again = run(&crash, json!({})).await.unwrap();
    assert!(again.is_error);
    assert!(only_text(&again).starts_with("MCP error: "), "{again:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_a_call_is_a_cancellation_and_the_server_is_told() {
    let (sleep, client) = live_tool("sleep").await;
    cancel_a_long_sleep(Arc::new(sleep), &client).await;
    assert_still_serving(&client).await;
    guard(client.close()).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_cancelled_before_it_starts_never_reaches_the_server() {
    let (crash, client) = live_tool("crash").await;
    let cancel = CancellationToken::new();
    cancel.cancel();
    let outcome = guard(crash.execute(json!({"code": 9}), cancel)).await;
    assert_eq!(outcome, Err(ToolCancelled::new()));
    // Had the request been sent (and cancelled right after), the server would have crashed.
    assert_still_serving(&client).await;
    let received = notifications_received(&client).await;
    assert!(
        !received
            .iter()
            .any(|method| method == "notifications/cancelled"),
        "{received:?}"
    );
    guard(client.close()).await.unwrap();
}

/// Connects a fixture once the test opens the gate, and records who asked.
struct GatedProvider {
    gate: watch::Receiver<bool>,
    asked: Mutex<Vec<String>>,
}

#[async_trait]
impl ConnectionProvider for GatedProvider {
    async fn wait_for_connection(&self, server: &str) -> Result<Arc<McpClient>, ConnectionError> {
        self.asked.lock().unwrap().push(server.to_owned());
        let mut gate = self.gate.clone();
        gate.wait_for(|open| *open)
            .await
            .map_err(|_| provider_error("the gate was dropped"))?;
        connect(server, &FixtureServer::new()).await
    }
}

/// Connects after a delay.
struct SlowProvider {
    delay: Duration,
}

#[async_trait]
impl ConnectionProvider for SlowProvider {
    async fn wait_for_connection(&self, server: &str) -> Result<Arc<McpClient>, ConnectionError> {
        tokio::time::sleep(self.delay).await;
        connect(server, &FixtureServer::new()).await
    }
}

/// Has a connection ready at once.
struct ReadyProvider {
    client: Arc<McpClient>,
}

#[async_trait]
impl ConnectionProvider for ReadyProvider {
    async fn wait_for_connection(&self, _server: &str) -> Result<Arc<McpClient>, ConnectionError> {
        Ok(Arc::clone(&self.client))
    }
}

/// Never gets a connection; tells when it was asked for one.
#[derive(Default)]
struct PendingProvider {
    asked: tokio::sync::Notify,
}

#[async_trait]
impl ConnectionProvider for PendingProvider {
    async fn wait_for_connection(&self, _server: &str) -> Result<Arc<McpClient>, ConnectionError> {
        self.asked.notify_one();
        std::future::pending().await
    }
}

/// Fails with a message.
struct FailingProvider;

#[async_trait]
impl ConnectionProvider for FailingProvider {
    async fn wait_for_connection(&self, server: &str) -> Result<Arc<McpClient>, ConnectionError> {
        Err(provider_error(format!(
            "MCP server not connected: {server}"
        )))
    }
}

/// A cached-looking definition of the fixture's `echo`, for server `server`.
fn cached_echo(server: &str) -> McpToolDefinition {
    let tool: Tool = serde_json::from_value(json!({
        "name": "echo",
        "description": "Answers with the message it is given.",
        "inputSchema": {
            "type": "object",
            "properties": {"message": {"type": "string"}},
            "required": ["message"],
        },
    }))
    .unwrap();
    McpToolDefinition::new(tool_name(server, "echo"), server, tool)
}

/// A cached-looking definition of the fixture's tool `name` (any arguments).
fn cached(server: &str, name: &str) -> McpToolDefinition {
    let tool = Tool::new(name, None, object(json!({"type": "object"})));
    McpToolDefinition::new(tool_name(server, name), server, tool)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deferred_call_waits_for_the_connection_then_succeeds() {
    let (open, gate) = watch::channel(false);
    let provider = Arc::new(GatedProvider {
        gate,
        asked: Mutex::new(Vec::new()),
    });
    let tool = Arc::new(DeferredMcpTool::new(
        cached_echo("Slow-Server.2"),
        Arc::clone(&provider) as Arc<dyn ConnectionProvider>,
    ));
    assert_eq!(tool.name(), "mcp_slow_server_2_echo");
    assert_eq!(tool.label(), "Slow-Server.2/echo");
    let call = tokio::spawn({
        let tool = Arc::clone(&tool);
        async move {
            tool.execute(
                json!({"message": "worth the wait"}),
                CancellationToken::new(),
            )
            .await
        }
    });
    // The call asked for the connection and waits for it: it cannot have finished.
    guard(async {
        while provider.asked.lock().unwrap().is_empty() {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await;
    assert!(
        !call.is_finished(),
        "the call did not wait for the connection"
    );
    open.send_replace(true);
    let output = guard(call).await.unwrap().unwrap();
    assert!(!output.is_error, "{output:?}");
    assert_eq!(output.content, [text("worth the wait")]);
    assert_eq!(output.details["server"], "Slow-Server.2");
    assert_eq!(output.details["tool"], "echo");
    assert_eq!(*provider.asked.lock().unwrap(), ["Slow-Server.2"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deferred_call_through_a_provider_that_connects_after_a_delay() {
    let tool = DeferredMcpTool::new(
        cached_echo("slow"),
        Arc::new(SlowProvider {
            delay: Duration::from_millis(300),
        }),
    );
    let output = run(&tool, json!({"message": "late but fine"}))
        .await
        .unwrap();
    assert!(!output.is_error, "{output:?}");
    assert_eq!(output.content, [text("late but fine")]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deferred_call_whose_connection_fails_is_an_mcp_error() {
    let tool = DeferredMcpTool::new(cached_echo("broken"), Arc::new(FailingProvider));
    let output = run(&tool, json!({"message": "x"})).await.unwrap();
    assert!(output.is_error);
    assert_eq!(
        only_text(&output),
        "MCP error: MCP server not connected: broken"
    );
    assert_eq!(output.details["server"], "broken");
    assert_eq!(output.details["tool"], "echo");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deferred_call_cancelled_while_waiting_for_the_connection() {
    let provider = Arc::new(PendingProvider::default());
    let tool = Arc::new(DeferredMcpTool::new(
        cached_echo("never"),
        Arc::clone(&provider) as Arc<dyn ConnectionProvider>,
    ));
    let cancel = CancellationToken::new();
    let call = tokio::spawn({
        let (tool, cancel) = (Arc::clone(&tool), cancel.clone());
        async move { tool.execute(json!({"message": "x"}), cancel).await }
    });
    // Cancelled while it waits for the connection.
    guard(provider.asked.notified()).await;
    cancel.cancel();
    assert_eq!(guard(call).await.unwrap(), Err(ToolCancelled::new()));

    // Cancelled before the call: no wait at all.
    let cancel = CancellationToken::new();
    cancel.cancel();
    assert_eq!(
        guard(tool.execute(json!({}), cancel)).await,
        Err(ToolCancelled::new())
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deferred_call_cancelled_before_it_starts_never_reaches_the_server() {
    let client = guard(connect("ready", &FixtureServer::new()))
        .await
        .unwrap();
    let tool = DeferredMcpTool::new(
        cached("ready", "crash"),
        Arc::new(ReadyProvider {
            client: Arc::clone(&client),
        }),
    );
    // The connection is ready at once, and the cancellation is too: the cancellation wins.
    for _ in 0..20 {
        let cancel = CancellationToken::new();
        cancel.cancel();
        assert_eq!(
            guard(tool.execute(json!({}), cancel)).await,
            Err(ToolCancelled::new())
        );
    }
    assert_still_serving(&client).await;
    guard(client.close()).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deferred_call_cancelled_during_the_call() {
    let client = guard(connect("ready", &FixtureServer::new()))
        .await
        .unwrap();
    let tool = Arc::new(DeferredMcpTool::new(
        cached("ready", "sleep"),
        Arc::new(ReadyProvider {
            client: Arc::clone(&client),
        }),
    ));
    cancel_a_long_sleep(tool, &client).await;
    guard(client.close()).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn parameters_are_the_input_schema_without_dollar_schema() {
    let client = guard(connect("my-db.v2", &FixtureServer::new()))
        .await
        .unwrap();
    // The fixture's `add` declares `$schema`.
    let add = definition(&client, "add").await;
    assert!(
        add.tool.input_schema.contains_key("$schema"),
        "kept on the tool"
    );
    assert_eq!(
        *add.parameters(),
        json!({
            "type": "object",
            "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
            "required": ["a", "b"],
            "additionalProperties": false,
        })
    );
    let keys: Vec<&str> = add
        .parameters()
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        ["type", "properties", "required", "additionalProperties"]
    );
    assert_eq!(add.name, "mcp_my_db_v2_add");
    assert_eq!(add.label, "my-db.v2/add");
    assert_eq!(add.server, "my-db.v2");
    let tool = McpTool::new(add, Arc::clone(&client));
    assert_eq!(tool.parameters()["required"], json!(["a", "b"]));
    let output = run(&tool, json!({"a": 1, "b": 2})).await.unwrap();
    assert_eq!(output.details["structuredContent"], json!({"sum": 3}));

    // A nested `$schema` is part of the schema and stays.
    let nested = Tool::new(
        "nested",
        None,
        object(json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {"inner": {"$schema": "x", "type": "object"}},
        })),
    );
    let nested = McpToolDefinition::new("mcp_s_nested", "s", nested);
    assert_eq!(
        *nested.parameters(),
        json!({"type": "object", "properties": {"inner": {"$schema": "x", "type": "object"}}})
    );
    guard(client.close()).await.unwrap();
}

/// An input schema as an OpenAPI 3.0 based server lists it (generated from an API description):
/// `nullable` at every depth — properties, items, `anyOf` branches, `additionalProperties`,
/// `$defs` — next to a type name, a type list, an `enum`, a `$ref`, with `false`; and the word
/// `nullable` where it is not that keyword: a property's name, inside `default`, `examples`,
/// `const` and an extension.
fn openapi_shaped_schema() -> Map<String, Value> {
    object(json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "title": "create_issue arguments",
        "properties": {
            "title": {"type": "string", "minLength": 1},
            "body": {"type": "string", "nullable": true, "description": "Markdown"},
            "assignees": {
                "type": "array",
                "nullable": true,
                "items": {"type": "string", "nullable": true}
            },
            "milestone": {"type": ["integer", "string"], "nullable": true},
            "due": {"type": ["string", "null"], "format": "date", "nullable": true},
            "state": {"type": "string", "enum": ["open", "closed"], "nullable": true},
            "draft": {"type": "boolean", "nullable": false, "default": false},
            "labels": {
                "type": "array",
                "items": {
                    "anyOf": [
                        {"type": "string", "nullable": true},
                        {
                            "type": "object",
                            "properties": {
                                "name": {"type": "string"},
                                "color": {"type": "string", "nullable": true}
                            },
                            "additionalProperties": false
                        }
                    ]
                }
            },
            "metadata": {
                "type": "object",
                "additionalProperties": {"type": "string", "nullable": true}
            },
            "reviewer": {"$ref": "#/$defs/User", "nullable": true},
            "nullable": {
                "type": "boolean",
                "description": "A property named `nullable` is not the keyword.",
                "default": {"nullable": true},
                "examples": [{"nullable": true}]
            },
            "options": {
                "type": "object",
                "const": {"nullable": true},
                "x-openapi": {"nullable": true}
            }
        },
        "required": ["title"],
        "$defs": {
            "User": {
                "type": "object",
                "nullable": true,
                "properties": {"login": {"type": "string"}}
            }
        }
    }))
}

/// `nullable` (OpenAPI 3.0's keyword, unknown to JSON Schema) becomes what it means there: the
/// type it stands next to also allows `null`; everything else stays as written.
#[test]
fn parameters_turn_openapi_nullable_into_a_null_type_at_every_depth() {
    let tool = Tool::new("create_issue", None, openapi_shaped_schema());
    let definition = McpToolDefinition::new("mcp_tracker_create_issue", "tracker", tool);
    assert_eq!(
        *definition.parameters(),
        json!({
            "type": "object",
            "title": "create_issue arguments",
            "properties": {
                "title": {"type": "string", "minLength": 1},
                "body": {"type": ["string", "null"], "description": "Markdown"},
                "assignees": {
                    "type": ["array", "null"],
                    "items": {"type": ["string", "null"]}
                },
                "milestone": {"type": ["integer", "string", "null"]},
                "due": {"type": ["string", "null"], "format": "date"},
                // OpenAPI 3.0.3: the other keywords keep their meaning, so this enum still
                // refuses null.
                "state": {"type": ["string", "null"], "enum": ["open", "closed"]},
                "draft": {"type": "boolean", "default": false},
                "labels": {
                    "type": "array",
                    "items": {
                        "anyOf": [
                            {"type": ["string", "null"]},
                            {
                                "type": "object",
                                "properties": {
                                    "name": {"type": "string"},
                                    "color": {"type": ["string", "null"]}
                                },
                                "additionalProperties": false
                            }
                        ]
                    }
                },
                "metadata": {
                    "type": "object",
                    "additionalProperties": {"type": ["string", "null"]}
                },
                // Without a `type` beside it, `nullable` means nothing (OpenAPI 3.0.3).
                "reviewer": {"$ref": "#/$defs/User"},
                "nullable": {
                    "type": "boolean",
                    "description": "A property named `nullable` is not the keyword.",
                    "default": {"nullable": true},
                    "examples": [{"nullable": true}]
                },
                "options": {
                    "type": "object",
                    "const": {"nullable": true},
                    "x-openapi": {"nullable": true}
                }
            },
            "required": ["title"],
            "$defs": {
                "User": {
                    "type": ["object", "null"],
                    "properties": {"login": {"type": "string"}}
                }
            }
        })
    );
    // The keys keep their order: `type` stays where it was.
    let body: Vec<&str> = definition.parameters()["properties"]["body"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(body, ["type", "description"]);
    // The tool as listed is untouched.
    assert_eq!(
        definition.tool.input_schema.as_object()["properties"]["body"]["nullable"],
        json!(true)
    );
    // A tool checks arguments against what it shows: null is taken where `nullable` allowed
    // it, and still refused where it did not.
    let tool = DeferredMcpTool::new(definition, Arc::new(FailingProvider));
    assert_eq!(
        tool.check_arguments(&json!({"title": "t", "body": null, "assignees": [null, "a"]})),
        Ok(())
    );
    assert_eq!(
        tool.check_arguments(&json!({"title": "t", "draft": null}))
            .unwrap_err()
            .to_string(),
        "argument `draft` must be a boolean, not null"
    );
}

/// A schema without `nullable` is given as it was listed, but for `$schema`.
#[test]
fn parameters_without_nullable_are_the_schema_verbatim() {
    let mut schema = openapi_shaped_schema();
    strip_nullable_by_hand(&mut schema);
    let tool = Tool::new("create_issue", None, schema.clone());
    let definition = McpToolDefinition::new("mcp_tracker_create_issue", "tracker", tool);
    schema.shift_remove("$schema");
    assert_eq!(*definition.parameters(), Value::Object(schema));
}

/// The test schema with every `nullable` keyword taken out (the look-alikes stay).
fn strip_nullable_by_hand(schema: &mut Map<String, Value>) {
    let properties = schema["properties"].as_object_mut().unwrap();
    for name in [
        "body",
        "assignees",
        "milestone",
        "due",
        "state",
        "draft",
        "reviewer",
    ] {
        properties[name]
            .as_object_mut()
            .unwrap()
            .shift_remove("nullable");
    }
    properties["assignees"]["items"]
        .as_object_mut()
        .unwrap()
        .shift_remove("nullable");
    let labels = &mut properties["labels"]["items"]["anyOf"];
    labels[0].as_object_mut().unwrap().shift_remove("nullable");
    labels[1]["properties"]["color"]
        .as_object_mut()
        .unwrap()
        .shift_remove("nullable");
    properties["metadata"]["additionalProperties"]
        .as_object_mut()
        .unwrap()
        .shift_remove("nullable");
    schema["$defs"]["User"]
        .as_object_mut()
        .unwrap()
        .shift_remove("nullable");
}

/// A live and a deferred tool check arguments against their own schema (prepared when the tool
/// is made) as `check_arguments` does against the schema they show.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_check_arguments_against_the_schema_they_show() {
    let (live, client) = live_tool("add").await;
    let deferred = DeferredMcpTool::new(cached_echo("fixture"), Arc::new(FailingProvider));
    let cases: [(&dyn AgentTool, Value); 6] = [
        (&live, json!({"a": 1, "b": 2})),
        (&live, json!({"a": 1})),
        (&live, json!({"a": 1, "b": "2"})),
        (&live, json!({"a": 1, "b": 2, "c": 3})),
        (&deferred, json!({"message": "hi"})),
        (&deferred, json!({"message": 7})),
    ];
    for (tool, args) in cases {
        assert_eq!(
            tool.check_arguments(&args),
            check_arguments(tool.parameters(), &args),
            "{} {args}",
            tool.name()
        );
    }
    assert_eq!(
        live.check_arguments(&json!({"a": 1, "b": 2, "c": 3}))
            .unwrap_err()
            .to_string(),
        "argument `c` is not an argument of this tool (it takes a, b)"
    );
    assert_eq!(
        deferred
            .check_arguments(&json!({"message": 7}))
            .unwrap_err()
            .to_string(),
        "argument `message` must be a string, not an integer"
    );
    assert_eq!(live.check_arguments(&json!({"a": 1, "b": 2.5})), Ok(()));
    guard(client.close()).await.unwrap();
}

#[test]
fn label_and_description_fallback() {
    let schema = object(json!({"type": "object"}));
    let plain = McpToolDefinition::new(
        tool_name("My Server", "Run Query"),
        "My Server",
        Tool::new("Run Query", None, schema.clone()),
    );
    assert_eq!(plain.name, "mcp_my_server_run_query");
    assert_eq!(plain.label, "My Server/Run Query");
    assert_eq!(plain.description, "MCP tool from My Server");
    assert_eq!(plain.server, "My Server");
    assert_eq!(plain.tool.name, "Run Query");

    let blank = McpToolDefinition::new(
        "mcp_srv_t",
        "srv",
        Tool::new("t", Some("   ".to_owned()), schema.clone()),
    );
    assert_eq!(blank.description, "MCP tool from srv");

    let described = McpToolDefinition::new(
        "mcp_srv_t",
        "srv",
        Tool::new("t", Some("Does t.".to_owned()), schema),
    );
    assert_eq!(described.description, "Does t.");

    let deferred = DeferredMcpTool::new(plain, Arc::new(FailingProvider));
    assert_eq!(deferred.label(), "My Server/Run Query");
    assert_eq!(deferred.description(), "MCP tool from My Server");
    assert_eq!(deferred.parameters(), &json!({"type": "object"}));
    assert_eq!(deferred.definition().tool.name, "Run Query");
}
