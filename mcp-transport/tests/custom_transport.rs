//! The peer over a transport written outside this crate, as a plugin author would: an in-memory
//! pair of channels with a scripted server on the other end. The plugin implements `send`,
//! `receive` and `close`, all the `Transport` trait has.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::error::Error as _;
use std::time::Duration;

use bytes::Bytes;
use common::channel::pair;
use common::guard;
use mcp_transport::{
    ClientOptions, Error, McpClient, Peer, PeerOptions, ProtocolVersion, RequestOptions, RpcError,
    TransportError,
};
use serde_json::{Value, json};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plugin_with_only_send_receive_and_close_connects_lists_calls_and_closes() {
    let (transport, mut server) = pair();
    let options = ClientOptions::default().connect_timeout(Duration::from_secs(10));
    let script = async {
        // The era probe, refused as a server of the handshake era refuses it.
        let probe = server.next().await;
        assert_eq!(probe["method"], "server/discover");
        server.reply(&json!({"jsonrpc": "2.0", "id": probe["id"],
            "error": {"code": -32601, "message": "Method not found"}}));
        let initialize = server.next().await;
        assert_eq!(initialize["method"], "initialize");
        server.reply(
            &json!({"jsonrpc": "2.0", "id": initialize["id"], "result": {
            "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
            "serverInfo": {"name": "plugged", "version": "1"}}}),
        );
        assert_eq!(server.next().await["method"], "notifications/initialized");
    };
    let (client, ()) =
        guard(async { tokio::join!(McpClient::connect("plugin", transport, options), script) })
            .await;
    let client = client.expect("connected over the plugin");
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_11_25);
    assert_eq!(client.server_info().name, "plugged");

    let list = client.list_tools();
    let answer = async {
        let request = server.next().await;
        assert_eq!(request["method"], "tools/list");
        server.reply(&json!({"jsonrpc": "2.0", "id": request["id"], "result": {
            "tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}}));
    };
    let (tools, ()) = guard(async { tokio::join!(list, answer) }).await;
    let tools = tools.expect("listed");
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0].name, "echo");

    let call = client.call_tool("echo", Some(common::object(json!({"message": "hi"}))));
    let answer = async {
        let request = server.next().await;
        assert_eq!(request["method"], "tools/call");
        assert_eq!(request["params"]["arguments"]["message"], "hi");
        server.reply(&json!({"jsonrpc": "2.0", "id": request["id"], "result": {
            "content": [{"type": "text", "text": "hi"}]}}));
    };
    let (result, ()) = guard(async { tokio::join!(call, answer) }).await;
    assert_eq!(common::text(&result.expect("called")), "hi");

    guard(client.close()).await.expect("closed");
    // The plugin's `close` let go of its sending end: the server sees the end of its input.
    assert_eq!(guard(server.received.recv()).await, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plugins_own_error_stays_reachable_as_the_source_of_the_close_reason() {
    let (transport, mut server) = pair();
    let peer = Peer::start("tunnel", transport, PeerOptions::default());
    let options = RequestOptions::default();
    let pending = peer.request::<Value, Value>("slow/thing", None, &options);
    let fail = async {
        server.next().await;
        let collapsed =
            std::io::Error::new(std::io::ErrorKind::ConnectionReset, "the tunnel collapsed");
        server
            .replies
            .send(Err(TransportError::other(collapsed)))
            .expect("client alive");
    };
    let (outcome, ()) = guard(async { tokio::join!(pending, fail) }).await;
    let Err(RpcError::ConnectionClosed(reason)) = outcome else {
        panic!("expected a closed connection, got {outcome:?}");
    };
    assert!(
        matches!(reason.error(), TransportError::Other(_)),
        "{reason:?}"
    );
    assert_eq!(reason.to_string(), "the tunnel collapsed");
    for source in [reason.source(), reason.error().source()] {
        let io = source
            .and_then(|source| source.downcast_ref::<std::io::Error>())
            .unwrap_or_else(|| panic!("the plugin's io::Error is the source: {source:?}"));
        assert_eq!(io.kind(), std::io::ErrorKind::ConnectionReset);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_initialize_that_times_out_is_never_cancelled() {
    let (transport, mut server) = pair();
    let options = ClientOptions::default()
        .protocol_version(ProtocolVersion::V2025_11_25)
        .connect_timeout(Duration::from_millis(100));
    let error = guard(McpClient::connect("silent", transport, options))
        .await
        .expect_err("no answer");
    assert!(matches!(error, Error::ConnectTimeout { .. }), "{error:?}");
    assert_eq!(server.next().await["method"], json!("initialize"));
    // Nothing else was sent, in particular no notifications/cancelled for initialize, until the
    // failed connection let go of the transport (which ends the channel).
    assert_eq!(guard(server.received.recv()).await, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_server_gets_the_era_probe_then_initialize_and_neither_is_cancelled() {
    let (transport, mut server) = pair();
    let options = ClientOptions::default().connect_timeout(Duration::from_millis(400));
    let error = guard(McpClient::connect("silent", transport, options))
        .await
        .expect_err("no answer");
    assert!(matches!(error, Error::ConnectTimeout { .. }), "{error:?}");
    assert_eq!(server.next().await["method"], json!("server/discover"));
    assert_eq!(server.next().await["method"], json!("initialize"));
    assert_eq!(guard(server.received.recv()).await, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_of_responses_is_dispatched_to_each_request() {
    let (transport, mut server) = pair();
    let peer = Peer::start("batch", transport, PeerOptions::default());
    let options = RequestOptions::with_timeout(Duration::from_secs(10));
    let first = peer.request::<Value, Value>("a/first", None, &options);
    let second = peer.request::<Value, Value>("a/second", None, &options);
    let answer = async {
        let one = server.next().await;
        let two = server.next().await;
        server.reply(&json!([
            {"jsonrpc": "2.0", "id": two["id"], "result": {"name": "second"}},
            {"jsonrpc": "2.0", "id": one["id"], "result": {"name": "first"}},
        ]));
    };
    let (first, second, ()) = guard(async { tokio::join!(first, second, answer) }).await;
    assert_eq!(first.expect("first")["name"], json!("first"));
    assert_eq!(second.expect("second")["name"], json!("second"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_transport_failure_fails_pending_requests_with_its_reason() {
    let (transport, mut server) = pair();
    let peer = Peer::start("flaky", transport, PeerOptions::default());
    let options = RequestOptions::default();
    let pending = peer.request::<Value, Value>("slow/thing", None, &options);
    let fail = async {
        server.next().await;
        server
            .replies
            .send(Err(TransportError::Other("the tunnel collapsed".into())))
            .expect("client alive");
    };
    let (outcome, ()) = guard(async { tokio::join!(pending, fail) }).await;
    let Err(RpcError::ConnectionClosed(reason)) = outcome else {
        panic!("expected a closed connection, got {outcome:?}");
    };
    assert_eq!(reason.to_string(), "the tunnel collapsed");
    assert_eq!(
        guard(peer.closed()).await.to_string(),
        "the tunnel collapsed"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn responses_to_unknown_ids_and_non_json_are_skipped() {
    let (transport, mut server) = pair();
    let peer = Peer::start("noisy", transport, PeerOptions::default());
    let options = RequestOptions::default();
    let request = peer.request::<Value, Value>("x/y", None, &options);
    let answer = async {
        let message = server.next().await;
        server
            .replies
            .send(Ok(Bytes::from_static(b"Starting server on stdio...")))
            .expect("alive");
        server.reply(&json!({"jsonrpc": "2.0", "id": "not-ours", "result": {}}));
        server.reply(&json!({"jsonrpc": "2.0", "id": 999_999, "result": {}}));
        server.reply(&json!({"jsonrpc": "2.0", "id": message["id"], "result": {"ok": true}}));
    };
    let (outcome, ()) = guard(async { tokio::join!(request, answer) }).await;
    assert_eq!(outcome.expect("answered")["ok"], json!(true));
}
