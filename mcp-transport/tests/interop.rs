//! Real peers: the official TypeScript `server-everything` and our echo server on the Python SDK
//! (v1 and v2), pinned under `interop/` and installed by `cargo xtask interop`.
//!
//! These tests are ignored under a plain `cargo test`; `cargo xtask ci` installs the peers and
//! runs them. A missing peer is a failure that says what to run, never a silent pass.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use common::{guard, object, text};
use mcp_transport::{ClientOptions, ContentBlock, McpClient, ProtocolVersion, StdioServerParams};
use serde_json::{Value, json};

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the crate sits in the workspace root")
        .to_path_buf()
}

fn require(path: &Path) -> String {
    assert!(
        path.exists(),
        "{} is missing: run `cargo xtask interop` to install the interop peers",
        path.display()
    );
    path.to_string_lossy().into_owned()
}

/// A real peer: its command line and what its `echo` answers to "hi".
struct RealPeer {
    name: &'static str,
    command: String,
    args: Vec<String>,
    echo_of_hi: &'static str,
}

impl RealPeer {
    fn server_everything() -> Self {
        let script = workspace_root().join(
            "interop/node/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
        );
        Self {
            name: "everything",
            command: "node".to_owned(),
            args: vec![require(&script), "stdio".to_owned()],
            echo_of_hi: "Echo: hi",
        }
    }

    fn python(major: u8) -> Self {
        let root = workspace_root();
        let python = root.join(format!("interop/.venv-mcp-v{major}/bin/python"));
        Self {
            name: if major == 1 { "python-v1" } else { "python-v2" },
            command: require(&python),
            args: vec![require(&root.join("interop/python/echo_server.py"))],
            echo_of_hi: "hi",
        }
    }

    fn params(&self) -> StdioServerParams {
        StdioServerParams::new(self.command.clone(), self.args.clone())
    }

    async fn connect(&self) -> McpClient {
        let options = ClientOptions::default().connect_timeout(Duration::from_secs(20));
        guard(McpClient::connect_stdio(self.name, self.params(), options))
            .await
            .unwrap_or_else(|error| panic!("{error}"))
    }
}

async fn lists_tools_calls_echo_and_stops(peer: RealPeer) {
    let client = peer.connect().await;
    assert!(ProtocolVersion::parse(client.protocol_version().as_str()).is_some());
    assert!(client.instructions().is_some_and(|text| !text.is_empty()));
    let tools = guard(client.list_tools()).await.expect("tools/list");
    let echo = tools
        .iter()
        .find(|tool| tool.name == "echo")
        .expect("an echo tool");
    assert_eq!(echo.input_schema.as_object()["type"], json!("object"));
    let result = guard(client.call_tool("echo", Some(object(json!({"message": "hi"})))))
        .await
        .expect("echo");
    assert_eq!(text(&result), peer.echo_of_hi);
    assert!(!result.is_error);
    guard(client.close()).await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the interop peers (cargo xtask interop)"]
async fn server_everything_lists_tools_and_echoes() {
    lists_tools_calls_echo_and_stops(RealPeer::server_everything()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the interop peers (cargo xtask interop)"]
async fn python_sdk_v2_server_lists_tools_and_echoes() {
    lists_tools_calls_echo_and_stops(RealPeer::python(2)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the interop peers (cargo xtask interop)"]
async fn python_sdk_v1_server_lists_tools_and_echoes() {
    lists_tools_calls_echo_and_stops(RealPeer::python(1)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the interop peers (cargo xtask interop)"]
async fn server_everything_returns_images_and_structured_content() {
    let client = RealPeer::server_everything().connect().await;
    let image = guard(client.call_tool("get-tiny-image", None))
        .await
        .expect("get-tiny-image");
    assert!(
        image.content.iter().any(
            |block| matches!(block, ContentBlock::Image(image) if image.mime_type == "image/png")
        ),
        "{image:?}"
    );
    let structured = guard(client.call_tool(
        "get-structured-content",
        Some(object(json!({"location": "Chicago"}))),
    ))
    .await
    .expect("get-structured-content");
    assert!(structured.structured_content.is_some(), "{structured:?}");
    guard(client.close()).await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the interop peers (cargo xtask interop)"]
async fn server_everything_sees_the_configured_environment() {
    let peer = RealPeer::server_everything();
    let params = peer.params().env("MCP_INTEROP_MARKER", "configured-value");
    let client = guard(McpClient::connect_stdio(
        "everything",
        params,
        ClientOptions::default(),
    ))
    .await
    .expect("connect");
    let env = guard(client.call_tool("get-env", None))
        .await
        .expect("get-env");
    let env: Value = serde_json::from_str(text(&env)).expect("get-env answers JSON");
    assert_eq!(env["MCP_INTEROP_MARKER"], json!("configured-value"));
    assert!(
        env.get("PATH").is_some(),
        "the environment is inherited too"
    );
    guard(client.close()).await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the interop peers (cargo xtask interop)"]
async fn server_everything_progress_reaches_the_caller_in_order() {
    common::four_progress_steps_in_order(RealPeer::server_everything().connect().await).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the interop peers (cargo xtask interop)"]
async fn python_sdk_v2_answers_out_of_order_and_every_call_gets_its_own_answer() {
    let client = Arc::new(RealPeer::python(2).connect().await);
    common::sums_in_flight(client, 100).await;
}

/// `cargo run` of the `probe` example, the way a user runs it; `probe_args` go before `--`.
fn probe(probe_args: &[&str], command: &str, args: &[String]) -> std::process::Output {
    let mut all: Vec<&str> = probe_args.to_vec();
    all.push("--");
    all.push(command);
    all.extend(args.iter().map(String::as_str));
    common::run_probe_example(&all)
}

/// Runs the probe with `--call echo` and returns its JSON report.
fn run_probe(peer: &RealPeer) -> Value {
    let output = probe(
        &["--call", "echo", "--args", r#"{"message":"hi"}"#],
        &peer.command,
        &peer.args,
    );
    assert!(
        output.status.success(),
        "probe failed on {}: {}",
        peer.name,
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("probe prints one JSON object")
}

#[test]
#[ignore = "needs the interop peers (cargo xtask interop)"]
fn probe_lists_tools_and_calls_echo_on_every_real_peer() {
    for peer in [
        RealPeer::server_everything(),
        RealPeer::python(2),
        RealPeer::python(1),
    ] {
        let report = run_probe(&peer);
        for key in [
            "protocolVersion",
            "serverInfo",
            "capabilities",
            "instructions",
            "tools",
        ] {
            assert!(
                report.get(key).is_some(),
                "{}: no {key} in {report}",
                peer.name
            );
        }
        let tools = report["tools"].as_array().expect("tools array");
        assert!(
            tools.iter().any(|tool| tool["name"] == json!("echo")),
            "{}",
            peer.name
        );
        assert_eq!(
            report["call"]["content"][0]["text"],
            json!(peer.echo_of_hi),
            "{}",
            peer.name
        );
    }
}

#[test]
fn probe_lists_tools_and_calls_echo_on_the_fixture_server() {
    let (program, args) = testkit::FixtureServer::new().command();
    let peer = RealPeer {
        name: "fixture",
        command: program.to_string_lossy().into_owned(),
        args,
        echo_of_hi: "hi",
    };
    let report = run_probe(&peer);
    assert_eq!(report["serverInfo"]["name"], json!("fixture"));
    assert_eq!(report["protocolVersion"], json!("2025-11-25"));
}

#[test]
fn probe_exits_non_zero_with_one_line_on_stderr_when_the_server_fails() {
    let (program, args) = testkit::FixtureServer::new()
        .crash_at("initialize")
        .exit_code(5)
        .command();
    let output = probe(&[], &program.to_string_lossy(), &args);
    assert!(!output.status.success());
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    assert!(stderr.contains("status 5"), "{stderr}");
}
