//! `LineTransport`: the stdio framing over a Unix socket, against the real fixture server whose
//! stdin and stdout are one end of a socket pair, and the `unix_socket` example as a user runs
//! it.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::os::fd::OwnedFd;
use std::os::unix::net::UnixStream as StdUnixStream;
use std::process::{Child, Command, Stdio};

use common::{guard, object, text};
use mcp_transport::{ClientOptions, Error, LineTransport, McpClient};
use serde_json::json;
use testkit::FixtureServer;
use tokio::net::UnixStream;

/// The fixture with its stdin and stdout on one end of a socket pair, and a client on the other.
async fn connect_over_socket(fixture: &FixtureServer) -> (McpClient, Child) {
    let (client_end, server_end) = StdUnixStream::pair().expect("socket pair");
    let server_out = server_end.try_clone().expect("dup");
    let (program, args) = fixture.command();
    let child = Command::new(program)
        .args(args)
        .stdin(Stdio::from(OwnedFd::from(server_end)))
        .stdout(Stdio::from(OwnedFd::from(server_out)))
        .stderr(Stdio::null())
        .spawn()
        .expect("the fixture starts");
    client_end.set_nonblocking(true).expect("non-blocking");
    let (read, write) = UnixStream::from_std(client_end)
        .expect("a tokio socket")
        .into_split();
    let transport = LineTransport::new(read, write);
    let client = guard(McpClient::connect(
        "socket",
        Box::new(transport),
        ClientOptions::default(),
    ))
    .await
    .expect("connects over the socket");
    (client, child)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_socket_pair_carries_the_handshake_tool_listing_and_calls() {
    let (client, mut child) = connect_over_socket(&FixtureServer::new().tools(3)).await;
    assert_eq!(client.server_info().name, "fixture");
    let tools = guard(client.list_tools()).await.expect("tools/list");
    assert!(tools.iter().any(|tool| tool.name == "tool_2"), "{tools:?}");
    let result = guard(client.call_tool("echo", Some(object(json!({"message": "via socket"})))))
        .await
        .expect("echo");
    assert_eq!(text(&result), "via socket");
    guard(client.close()).await.expect("close");
    // Closing shut the socket's writing half: the server saw the end of its input and left.
    let status = tokio::task::spawn_blocking(move || child.wait())
        .await
        .expect("waiting thread")
        .expect("wait");
    assert!(status.success(), "{status}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_goes_away_fails_the_call_as_closed_by_the_server() {
    let (client, mut child) = connect_over_socket(&FixtureServer::new()).await;
    let crashed = guard(client.call_tool("crash", Some(object(json!({"code": 4})))))
        .await
        .expect_err("the server died mid-call");
    assert!(crashed.is_connection_closed(), "{crashed}");
    assert!(
        crashed
            .to_string()
            .contains("the server closed the connection"),
        "{crashed}"
    );
    let later = guard(client.call_tool("echo", None))
        .await
        .expect_err("closed");
    assert!(matches!(later, Error::Request { .. }), "{later}");
    let _ = child.wait();
}

#[test]
fn the_unix_socket_example_lists_and_echoes_against_the_fixture() {
    let (program, args) = FixtureServer::new().command();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(cargo)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .args([
            "run",
            "--quiet",
            "-p",
            "mcp-transport",
            "--no-default-features",
            "--example",
            "unix_socket",
            "--",
        ])
        .arg(program)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("cargo runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{}\n{stdout}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("server: fixture"), "{stdout}");
    assert!(
        stdout.contains(r#"echo: [{"type":"text","text":"over a unix socket"}]"#),
        "{stdout}"
    );
}
