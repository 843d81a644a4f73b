//! Remote transports against real peers: `server-everything` (Streamable HTTP and legacy SSE)
//! and our echo server on the Python SDK v1 and v2 (Streamable HTTP with SSE or JSON answers,
//! legacy SSE), each listening on 127.0.0.1 at a port the system picked.
//!
//! Ignored under a plain `cargo test`; `cargo xtask ci` installs the peers and runs them.

#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::process::Output;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use common::{guard, object, text};
use mcp_transport::http::{HttpServerParams, RemoteTransport};
use mcp_transport::{ClientOptions, McpClient, RequestOptions};
use serde_json::{Value, json};
use testkit::RemotePeer;
use tokio::net::{TcpListener, TcpStream};

/// Every remote peer, once each.
const PEERS: [RemotePeer; 7] = [
    RemotePeer::EverythingStreamableHttp,
    RemotePeer::EverythingSse,
    RemotePeer::PythonStreamableHttp(2),
    RemotePeer::PythonStreamableHttpJson(2),
    RemotePeer::PythonStreamableHttp(1),
    RemotePeer::PythonSse(1),
    RemotePeer::PythonSse(2),
];

fn probe(args: &[&str]) -> Output {
    common::run_probe_example(args)
}

fn probe_report(peer: RemotePeer, url: &str, transport: &str) -> Value {
    let output = probe(&[
        "--url",
        url,
        "--transport",
        transport,
        "--call",
        "echo",
        "--args",
        r#"{"message":"hi"}"#,
    ]);
    assert!(
        output.status.success(),
        "probe --transport {transport} failed on {}: {}",
        peer.name(),
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("probe prints one JSON object")
}

#[test]
#[ignore = "needs the interop peers (cargo xtask interop)"]
fn probe_lists_and_calls_a_tool_on_every_remote_peer_with_its_own_transport() {
    for peer in PEERS {
        let running = peer.start();
        let transport = if peer.is_legacy_sse() { "sse" } else { "http" };
        let report = probe_report(peer, running.url(), transport);
        let tools = report["tools"].as_array().expect("tools array");
        assert!(
            tools.iter().any(|tool| tool["name"] == json!("echo")),
            "{}: {report}",
            peer.name()
        );
        assert_eq!(
            report["call"]["content"][0]["text"],
            json!(peer.echo_of_hi()),
            "{}",
            peer.name()
        );
        // The Python SDK 2.x serves the stateless revision over Streamable HTTP beside the
        // handshake, and the client speaks the newest revision a server offers.
        let expected = match peer {
            RemotePeer::PythonStreamableHttp(2) | RemotePeer::PythonStreamableHttpJson(2) => {
                "2026-07-28"
            }
            _ => "2025-11-25",
        };
        assert_eq!(
            report["protocolVersion"],
            json!(expected),
            "{}",
            peer.name()
        );
    }
}

#[test]
#[ignore = "needs the interop peers (cargo xtask interop)"]
fn probe_auto_uses_streamable_http_where_offered_and_falls_back_on_sse_only_servers() {
    for peer in PEERS {
        let running = peer.start();
        let report = probe_report(peer, running.url(), "auto");
        assert_eq!(
            report["call"]["content"][0]["text"],
            json!(peer.echo_of_hi()),
            "{}",
            peer.name()
        );
    }
}

#[test]
#[ignore = "needs the interop peers (cargo xtask interop)"]
fn streamable_http_is_not_tried_as_legacy_sse_when_asked_for_sse_only() {
    let running = RemotePeer::EverythingStreamableHttp.start();
    let output = probe(&["--url", running.url(), "--transport", "sse"]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("/mcp"), "the error names the URL: {stderr}");
}

async fn connect(url: &str) -> McpClient {
    let params = HttpServerParams::new(url).expect("a valid URL");
    let options = ClientOptions::default().connect_timeout(Duration::from_secs(20));
    guard(McpClient::connect_http("everything", params, options))
        .await
        .unwrap_or_else(|error| panic!("{error}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the interop peers (cargo xtask interop)"]
async fn progress_reaches_the_caller_over_streamable_http_and_legacy_sse() {
    for peer in [
        RemotePeer::EverythingStreamableHttp,
        RemotePeer::EverythingSse,
    ] {
        let running = peer.start();
        common::four_progress_steps_in_order(connect(running.url()).await).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the interop peers (cargo xtask interop)"]
async fn a_ten_second_tool_call_is_not_cut_by_any_total_timeout() {
    let running = RemotePeer::EverythingStreamableHttp.start();
    let client = connect(running.url()).await;
    let options = RequestOptions::default().timeout(Duration::from_secs(19));
    let result = guard(client.call_tool_with(
        "trigger-long-running-operation",
        Some(&object(json!({"duration": 10, "steps": 1}))),
        &options,
    ))
    .await
    .expect("the long call completes");
    assert!(!result.is_error, "{result:?}");
    assert!(text(&result).contains("completed"), "{}", text(&result));
    guard(client.close()).await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the interop peers (cargo xtask interop)"]
async fn many_calls_in_flight_over_http_each_get_their_own_answer() {
    let running = RemotePeer::PythonStreamableHttp(2).start();
    let client = Arc::new(connect(running.url()).await);
    common::sums_in_flight(client, 40).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the interop peers (cargo xtask interop)"]
async fn the_legacy_transport_alone_connects_to_an_sse_server() {
    let running = RemotePeer::PythonSse(1).start();
    let params = HttpServerParams::new(running.url())
        .expect("a valid URL")
        .transport(RemoteTransport::Sse);
    let client = guard(McpClient::connect_http(
        "python-v1",
        params,
        ClientOptions::default(),
    ))
    .await
    .expect("connects");
    let result = guard(client.call_tool("add", Some(object(json!({"a": 2, "b": 3})))))
        .await
        .expect("add");
    assert_eq!(result.structured_content, Some(json!({"result": 5})));
    guard(client.close()).await.expect("close");
}

/// A TCP forwarder on 127.0.0.1 in front of `url`'s server, counting the connections made
/// through it: the URL to use instead, the count, and the task (aborting it stops every
/// connection it forwards).
async fn counting_proxy(url: &str) -> (String, Arc<AtomicUsize>, tokio::task::JoinHandle<()>) {
    let (authority, path) = url
        .strip_prefix("http://")
        .and_then(|rest| rest.split_once('/'))
        .expect("an http URL with a path");
    let upstream = authority.to_owned();
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a free port");
    let proxied = format!("http://{}/{path}", listener.local_addr().expect("bound"));
    let accepted = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&accepted);
    let proxy = tokio::spawn(async move {
        let mut forwarding = tokio::task::JoinSet::new();
        while let Ok((mut inbound, _)) = listener.accept().await {
            counted.fetch_add(1, Ordering::SeqCst);
            let upstream = upstream.clone();
            forwarding.spawn(async move {
                if let Ok(mut outbound) = TcpStream::connect(&upstream).await {
                    let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                }
            });
        }
    });
    (proxied, accepted, proxy)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the interop peers (cargo xtask interop)"]
async fn sequential_calls_keep_their_connections_alive_whether_answers_are_json_or_sse() {
    const CALLS: usize = 100;
    for peer in [
        RemotePeer::EverythingStreamableHttp,
        RemotePeer::PythonStreamableHttp(2),
        RemotePeer::PythonStreamableHttp(1),
        RemotePeer::PythonStreamableHttpJson(2),
    ] {
        let running = peer.start();
        let (url, accepted, proxy) = counting_proxy(running.url()).await;
        let client = connect(&url).await;
        let before = accepted.load(Ordering::SeqCst);
        for _ in 0..CALLS {
            let result = guard(client.call_tool("echo", Some(object(json!({"message": "hi"})))))
                .await
                .unwrap_or_else(|error| panic!("{}: {error}", peer.name()));
            assert_eq!(text(&result), peer.echo_of_hi(), "{}", peer.name());
        }
        let opened = accepted.load(Ordering::SeqCst) - before;
        // A call finding every pooled connection busy (the answer stream before it still being
        // read to its end) opens one more, so the pool may grow by a few on a busy machine; a
        // client that closed its connections (an answer stream dropped before its end, a pool
        // not kept) would open one for most calls.
        assert!(
            opened <= CALLS / 10,
            "{}: {opened} connections opened for {CALLS} sequential calls",
            peer.name()
        );
        guard(client.close()).await.expect("close");
        proxy.abort();
    }
}
