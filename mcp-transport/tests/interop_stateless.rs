//! The stateless revision (2026-07-28) against real servers of that era: the TypeScript SDK v2
//! (`interop/node/stateless_server.mjs`, `createMcpHandler`) and the Python SDK v2
//! (`interop/python/stateless_server.py`), both stateless and dual-era, over Streamable HTTP on
//! 127.0.0.1 at a port the system picked, and over stdio.
//!
//! Through our [`McpClient`]: the era is found with `server/discover` (no `initialize` is ever
//! sent), tools are listed and called, a tool's `input_required` is answered by the client's
//! elicitation handler, a tool list change reaches [`McpClient::subscribe`] on the
//! `subscriptions/listen` stream the client opens by itself, and a client pinned to the
//! handshake era is served by the same server. Each HTTP server counts the requests that
//! reached it (`GET /count`), so a test can say what was *not* sent.
//!
//! Ignored under a plain `cargo test`; `cargo xtask ci` installs the peers and runs them.

#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::time::{Duration, Instant};

use common::{Answering, guard, object, text};
use mcp_transport::http::HttpServerParams;
use mcp_transport::{ClientOptions, McpClient, ProtocolVersion, RequestOptions, StdioServerParams};
use serde_json::{Value, json};
use testkit::{RemotePeer, RunningPeer, interop_path};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The `_meta` key a `subscriptions/listen` stream stamps on what it carries.
const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
/// The tools both servers offer from the start.
const TOOLS: [&str; 4] = ["echo", "greet", "add_tool", "request_count"];
/// The `ttlMs` both servers put on `tools/list` results.
const TOOLS_TTL_MS: u64 = 60_000;

fn options() -> ClientOptions {
    ClientOptions::default().connect_timeout(Duration::from_secs(20))
}

async fn connect_http(running: &RunningPeer, options: ClientOptions) -> McpClient {
    let params = HttpServerParams::new(running.url()).expect("a valid URL");
    guard(McpClient::connect_http("stateless", params, options))
        .await
        .unwrap_or_else(|error| panic!("{}: {error}", running.peer().name()))
}

/// What the server counted so far (`GET /count` beside its `/mcp`): HTTP requests to the
/// endpoint and JSON-RPC messages by method.
async fn counts(running: &RunningPeer) -> Value {
    let authority = running
        .url()
        .strip_prefix("http://")
        .and_then(|rest| rest.split_once('/'))
        .map(|(authority, _)| authority.to_owned())
        .expect("an http URL with a path");
    let mut stream = TcpStream::connect(&authority).await.expect("connects");
    stream
        .write_all(format!("GET /count HTTP/1.0\r\nHost: {authority}\r\n\r\n").as_bytes())
        .await
        .expect("sends");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await.expect("reads");
    let (_, body) = answer.split_once("\r\n\r\n").expect("an HTTP answer");
    serde_json::from_str(body).unwrap_or_else(|_| panic!("not JSON: {answer}"))
}

/// How many messages of `method` the server counted.
fn sent(counts: &Value, method: &str) -> u64 {
    counts["methods"][method].as_u64().unwrap_or(0)
}

fn tool_names(tools: &[mcp_transport::Tool]) -> Vec<String> {
    tools.iter().map(|tool| tool.name.to_string()).collect()
}

async fn echo_hi(client: &McpClient, peer: &str) {
    let result = guard(client.call_tool("echo", Some(object(json!({"message": "hi"})))))
        .await
        .unwrap_or_else(|error| panic!("{peer}: {error}"));
    assert!(!result.is_error, "{peer}: {result:?}");
    assert_eq!(text(&result), "hi", "{peer}");
}

/// The revision the client ended up speaking must be `version`.
fn assert_speaks(client: &McpClient, version: ProtocolVersion, peer: &str) {
    assert_eq!(client.protocol_version(), version, "{peer}");
}

/// `tools/list` names every tool the interop servers have.
async fn lists_every_tool(client: &McpClient, peer: &str) {
    let tools = guard(client.list_tools()).await.expect("tools/list");
    let names = tool_names(&tools);
    for tool in TOOLS {
        assert!(names.iter().any(|name| name == tool), "{peer}: {names:?}");
    }
}

/// `greet` asks for a name through the elicitation handler, which answers "Ada".
async fn greets_ada(client: &McpClient, handler: &Answering, peer: &str) {
    let greeting = guard(client.call_tool("greet", None))
        .await
        .unwrap_or_else(|error| panic!("{peer}: {error}"));
    assert_eq!(text(&greeting), "Hello, Ada!", "{peer}: {greeting:?}");
    assert_eq!(handler.asked(), ["What is your name?"], "{peer}");
}

/// What a server over stdio counted so far, read through its `request_count` tool.
async fn counted_by_the_server(client: &McpClient) -> Value {
    let counted = guard(client.call_tool("request_count", None))
        .await
        .expect("request_count");
    serde_json::from_str(text(&counted)).expect("JSON counts")
}

async fn spoken_to_statelessly(peer: RemotePeer) {
    let running = peer.start();
    let name = peer.name();
    let client = connect_http(&running, options()).await;
    assert_speaks(&client, ProtocolVersion::V2026_07_28, &name);
    assert!(
        client.server_info().name.starts_with("interop-stateless-"),
        "{name}: {:?}",
        client.server_info()
    );
    assert!(
        client
            .instructions()
            .is_some_and(|text| text.contains("Interop stateless server")),
        "{name}: {:?}",
        client.instructions()
    );
    lists_every_tool(&client, &name).await;
    echo_hi(&client, &name).await;

    // The list's cache hint comes through (and the request carries the envelope, or the
    // server would refuse it).
    let listed: Value = guard(client.peer().request(
        "tools/list",
        Some(json!({})),
        &RequestOptions::default(),
    ))
    .await
    .expect("a raw tools/list");
    assert_eq!(listed["ttlMs"], json!(TOOLS_TTL_MS), "{name}: {listed}");
    assert_eq!(listed["resultType"], "complete", "{name}: {listed}");

    // `ping` is gone from the revision: liveness is asked with server/discover.
    guard(client.ping()).await.expect("ping");
    let counts = counts(&running).await;
    assert_eq!(sent(&counts, "initialize"), 0, "{name}: {counts}");
    assert_eq!(sent(&counts, "ping"), 0, "{name}: {counts}");
    assert_eq!(
        sent(&counts, "notifications/initialized"),
        0,
        "{name}: {counts}"
    );
    assert_eq!(sent(&counts, "server/discover"), 2, "{name}: {counts}");
    guard(client.close()).await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the pinned interop peers (cargo xtask interop)"]
async fn the_typescript_sdk_server_is_spoken_to_statelessly_without_a_handshake() {
    spoken_to_statelessly(RemotePeer::TypeScriptStateless).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the pinned interop peers (cargo xtask interop)"]
async fn the_python_sdk_server_is_spoken_to_statelessly_without_a_handshake() {
    spoken_to_statelessly(RemotePeer::PythonStateless).await;
}

/// Calls `greet` with an elicitation handler that gives `answer`; the handler must have been
/// asked exactly once.
async fn greet_with(running: &RunningPeer, answer: Option<&'static str>) -> String {
    let name = running.peer().name();
    let handler = match answer {
        Some(name) => Answering::accepting(json!({ "name": name })),
        None => Answering::declining(),
    };
    let client = connect_http(running, options().elicitation(handler.clone())).await;
    let result = guard(client.call_tool("greet", None))
        .await
        .unwrap_or_else(|error| panic!("{name}: {error}"));
    assert!(!result.is_error, "{name}: {result:?}");
    assert_eq!(handler.asked(), ["What is your name?"], "{name}");
    guard(client.close()).await.expect("close");
    text(&result).to_owned()
}

async fn input_is_answered_by_the_elicitation_handler(peer: RemotePeer) {
    let running = peer.start();
    let name = peer.name();
    let before = sent(&counts(&running).await, "tools/call");
    assert_eq!(
        greet_with(&running, Some("Ada")).await,
        "Hello, Ada!",
        "{name}"
    );
    let after = sent(&counts(&running).await, "tools/call");
    assert_eq!(
        after - before,
        2,
        "{name}: the call, then its retry with the input"
    );
    assert_eq!(
        greet_with(&running, None).await,
        "No name given (decline).",
        "{name}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the pinned interop peers (cargo xtask interop)"]
async fn the_typescript_sdk_servers_input_request_is_answered_by_the_elicitation_handler() {
    input_is_answered_by_the_elicitation_handler(RemotePeer::TypeScriptStateless).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the pinned interop peers (cargo xtask interop)"]
async fn the_python_sdk_servers_input_request_is_answered_by_the_elicitation_handler() {
    input_is_answered_by_the_elicitation_handler(RemotePeer::PythonStateless).await;
}

/// Waits for `notifications/tools/list_changed` on `notifications`, at most `within`.
async fn tools_list_changed(
    notifications: &mut tokio::sync::broadcast::Receiver<mcp_transport::ServerNotification>,
    within: Duration,
) -> Option<mcp_transport::ServerNotification> {
    let deadline = tokio::time::Instant::now() + within;
    loop {
        match tokio::time::timeout_at(deadline, notifications.recv()).await {
            Err(_) => return None,
            Ok(Err(tokio::sync::broadcast::error::RecvError::Lagged(_))) => {}
            Ok(Err(closed)) => panic!("the notifications ended: {closed}"),
            Ok(Ok(notification)) if notification.method == "notifications/tools/list_changed" => {
                return Some(notification);
            }
            Ok(Ok(_)) => {}
        }
    }
}

/// Adds tools until a list change arrives (the stream may not be registered yet when the first
/// is added: a change is published to the streams open at that moment, and not replayed).
/// Returns the change and the tools added.
async fn add_tools_until_a_change_arrives(
    client: &McpClient,
    notifications: &mut tokio::sync::broadcast::Receiver<mcp_transport::ServerNotification>,
    peer: &str,
) -> (mcp_transport::ServerNotification, Vec<String>) {
    let mut added = Vec::new();
    for attempt in 0..8 {
        let tool = format!("fresh_{attempt}");
        let result = guard(client.call_tool("add_tool", Some(object(json!({"name": tool})))))
            .await
            .unwrap_or_else(|error| panic!("{peer}: {error}"));
        assert_eq!(text(&result), format!("added {tool}"), "{peer}");
        added.push(tool);
        if let Some(change) = tools_list_changed(notifications, Duration::from_secs(2)).await {
            return (change, added);
        }
    }
    panic!("{peer}: no tools/list_changed reached the subscriber after {added:?} were added");
}

async fn a_list_change_reaches_subscribers_over_http(peer: RemotePeer) {
    let running = peer.start();
    let name = peer.name();
    let client = connect_http(&running, options()).await;
    let mut notifications = client.subscribe();
    // The client opens the stream by itself, since the server announced tools.listChanged.
    let deadline = Instant::now() + Duration::from_secs(15);
    while sent(&counts(&running).await, "subscriptions/listen") == 0 {
        assert!(
            Instant::now() < deadline,
            "{name}: no subscriptions/listen was sent: {}",
            counts(&running).await
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let (change, added) =
        add_tools_until_a_change_arrives(&client, &mut notifications, &name).await;
    // It came on the listen stream: stamped with that stream's id.
    let params = change.params.clone().unwrap_or(Value::Null);
    assert!(
        params["_meta"].get(SUBSCRIPTION_ID).is_some(),
        "{name}: {params}"
    );
    let tools = guard(client.list_tools()).await.expect("tools/list");
    let names = tool_names(&tools);
    for tool in &added {
        assert!(names.contains(tool), "{name}: {names:?}");
    }
    let result = guard(client.call_tool(&added[0], None))
        .await
        .expect("the added tool");
    assert_eq!(text(&result), format!("I am {}", added[0]), "{name}");
    // One stream, kept open (a stream that ended would have been opened again).
    assert_eq!(
        sent(&counts(&running).await, "subscriptions/listen"),
        1,
        "{name}"
    );
    guard(client.close()).await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the pinned interop peers (cargo xtask interop)"]
async fn a_typescript_sdk_servers_tool_list_change_reaches_subscribers_over_its_listen_stream() {
    a_list_change_reaches_subscribers_over_http(RemotePeer::TypeScriptStateless).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the pinned interop peers (cargo xtask interop)"]
async fn a_python_sdk_servers_tool_list_change_reaches_subscribers_over_its_listen_stream() {
    a_list_change_reaches_subscribers_over_http(RemotePeer::PythonStateless).await;
}

async fn the_handshake_era_is_served_too(peer: RemotePeer) {
    let running = peer.start();
    let name = peer.name();
    let handler = Answering::accepting(json!({"name": "Ada"}));
    let pinned = options()
        .protocol_version(ProtocolVersion::V2025_11_25)
        .elicitation(handler.clone());
    let client = connect_http(&running, pinned).await;
    assert_speaks(&client, ProtocolVersion::V2025_11_25, &name);
    lists_every_tool(&client, &name).await;
    echo_hi(&client, &name).await;
    guard(client.ping()).await.expect("ping");

    // Served statelessly, one request at a time, a 2025-era call has no channel for the
    // server's own requests: both SDKs refuse to ask for input there (TypeScript: an isError
    // result; Python: JSON-RPC -32600 "no back-channel"), and the handler is never asked. Over
    // stdio the same question is asked (see the stdio tests).
    let greeting = guard(client.call_tool("greet", None)).await;
    let refused = match &greeting {
        Ok(result) => result.is_error,
        Err(error) => error.to_string().contains("back-channel"),
    };
    assert!(refused, "{name}: {greeting:?}");
    assert!(handler.asked().is_empty(), "{name}");
    guard(client.close()).await.expect("close");

    let counts = counts(&running).await;
    // A pinned handshake-era client does not probe, and needs no listen stream.
    assert_eq!(sent(&counts, "server/discover"), 0, "{name}: {counts}");
    assert_eq!(sent(&counts, "initialize"), 1, "{name}: {counts}");
    assert_eq!(sent(&counts, "subscriptions/listen"), 0, "{name}: {counts}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the pinned interop peers (cargo xtask interop)"]
async fn a_client_pinned_to_the_handshake_era_is_served_by_the_typescript_sdk_server() {
    the_handshake_era_is_served_too(RemotePeer::TypeScriptStateless).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the pinned interop peers (cargo xtask interop)"]
async fn a_client_pinned_to_the_handshake_era_is_served_by_the_python_sdk_server() {
    the_handshake_era_is_served_too(RemotePeer::PythonStateless).await;
}

/// The stdio servers: `node stateless_server.mjs stdio` and the Python one.
fn stdio_params(peer: RemotePeer) -> StdioServerParams {
    match peer {
        RemotePeer::TypeScriptStateless => {
            interop_path("interop/node/node_modules/@modelcontextprotocol/server/package.json");
            let script = interop_path("interop/node/stateless_server.mjs");
            StdioServerParams::new("node", [script.display().to_string(), "stdio".to_owned()])
        }
        RemotePeer::PythonStateless => {
            let python = interop_path("interop/.venv-mcp-v2/bin/python");
            let script = interop_path("interop/python/stateless_server.py");
            StdioServerParams::new(
                python.display().to_string(),
                [script.display().to_string(), "stdio".to_owned()],
            )
        }
        other => panic!("{} has no stdio mode here", other.name()),
    }
}

async fn the_stateless_revision_over_stdio(peer: RemotePeer) {
    let name = format!("{} (stdio)", peer.name());
    let handler = Answering::accepting(json!({"name": "Ada"}));
    let client = guard(McpClient::connect_stdio(
        "stateless",
        stdio_params(peer),
        options().elicitation(handler.clone()),
    ))
    .await
    .unwrap_or_else(|error| panic!("{name}: {error}"));
    assert_speaks(&client, ProtocolVersion::V2026_07_28, &name);
    let mut notifications = client.subscribe();
    lists_every_tool(&client, &name).await;
    echo_hi(&client, &name).await;
    greets_ada(&client, &handler, &name).await;

    let (change, added) =
        add_tools_until_a_change_arrives(&client, &mut notifications, &name).await;
    let params = change.params.clone().unwrap_or(Value::Null);
    assert!(
        params["_meta"].get(SUBSCRIPTION_ID).is_some(),
        "{name}: {params}"
    );
    let names = tool_names(&guard(client.list_tools()).await.expect("tools/list"));
    for tool in &added {
        assert!(names.contains(tool), "{name}: {names:?}");
    }
    let counts = counted_by_the_server(&client).await;
    assert_eq!(sent(&counts, "initialize"), 0, "{name}: {counts}");
    assert_eq!(sent(&counts, "subscriptions/listen"), 1, "{name}: {counts}");
    guard(client.close()).await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the pinned interop peers (cargo xtask interop)"]
async fn the_typescript_sdk_server_speaks_the_stateless_revision_over_stdio() {
    the_stateless_revision_over_stdio(RemotePeer::TypeScriptStateless).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the pinned interop peers (cargo xtask interop)"]
async fn the_python_sdk_server_speaks_the_stateless_revision_over_stdio() {
    the_stateless_revision_over_stdio(RemotePeer::PythonStateless).await;
}

async fn the_handshake_era_over_stdio(peer: RemotePeer) {
    let name = format!("{} (stdio, 2025-11-25)", peer.name());
    let handler = Answering::accepting(json!({"name": "Ada"}));
    let pinned = options()
        .protocol_version(ProtocolVersion::V2025_11_25)
        .elicitation(handler.clone());
    let client = guard(McpClient::connect_stdio(
        "stateless",
        stdio_params(peer),
        pinned,
    ))
    .await
    .unwrap_or_else(|error| panic!("{name}: {error}"));
    assert_speaks(&client, ProtocolVersion::V2025_11_25, &name);
    let mut notifications = client.subscribe();
    echo_hi(&client, &name).await;
    // On a connection, the server's question is a request of its own, answered by the handler.
    greets_ada(&client, &handler, &name).await;
    // A list change is a plain notification on the connection, with no stream's id.
    let (change, added) =
        add_tools_until_a_change_arrives(&client, &mut notifications, &name).await;
    let params = change.params.clone().unwrap_or(Value::Null);
    assert!(
        params["_meta"].get(SUBSCRIPTION_ID).is_none(),
        "{name}: {params}"
    );
    let names = tool_names(&guard(client.list_tools()).await.expect("tools/list"));
    assert!(names.contains(&added[0]), "{name}: {names:?}");
    let counts = counted_by_the_server(&client).await;
    assert_eq!(sent(&counts, "server/discover"), 0, "{name}: {counts}");
    assert_eq!(sent(&counts, "initialize"), 1, "{name}: {counts}");
    guard(client.close()).await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the pinned interop peers (cargo xtask interop)"]
async fn the_typescript_sdk_server_serves_the_handshake_era_over_stdio_with_real_elicitation() {
    the_handshake_era_over_stdio(RemotePeer::TypeScriptStateless).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the pinned interop peers (cargo xtask interop)"]
async fn the_python_sdk_server_serves_the_handshake_era_over_stdio_with_real_elicitation() {
    the_handshake_era_over_stdio(RemotePeer::PythonStateless).await;
}
