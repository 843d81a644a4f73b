//! The handshake: version negotiation, server info, and what a failed connect leaves behind.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::time::Duration;

use common::{
    call_json, connect, connect_with, connect_with_params, guard, params, processes_with_arg,
    unique_marker,
};
use mcp_transport::{ClientOptions, Error, McpClient, ProtocolVersion, StdioServerParams};
use testkit::FixtureServer;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connect_exposes_server_info_capabilities_and_instructions() {
    let fixture = FixtureServer::new()
        .name("scripted")
        .instructions("Use echo to repeat things.");
    let client = connect(&fixture).await;
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_11_25);
    assert_eq!(client.server_info().name, "scripted");
    assert_eq!(client.instructions(), Some("Use echo to repeat things."));
    let tools = client
        .capabilities()
        .tools
        .as_ref()
        .expect("tools capability");
    assert!(tools.list_changed);
    guard(client.ping()).await.expect("ping");
    guard(client.close()).await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn older_supported_version_is_accepted() {
    for version in ["2024-11-05", "2025-03-26", "2025-06-18"] {
        let client = connect(&FixtureServer::new().protocol_version(version)).await;
        assert_eq!(client.protocol_version().as_str(), version);
        guard(client.close()).await.expect("close");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unsupported_version_is_refused_and_the_server_stopped() {
    let marker = unique_marker("unsupported");
    let fixture = FixtureServer::new()
        .protocol_version("1999-01-01")
        .name(marker.clone());
    let error = guard(McpClient::connect_stdio(
        "old-server",
        params(&fixture),
        ClientOptions::default(),
    ))
    .await
    .expect_err("an unsupported version must be refused");
    assert!(matches!(error, Error::UnsupportedProtocolVersion { .. }));
    let message = error.to_string();
    assert!(message.contains("\"old-server\""), "{message}");
    assert!(message.contains("1999-01-01"), "{message}");
    assert!(message.contains("2025-11-25"), "{message}");
    assert!(processes_with_arg(&marker).is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crash_during_initialize_reports_exit_status_and_stderr_tail() {
    let fixture = FixtureServer::new()
        .crash_at("initialize")
        .exit_code(7)
        .crash_stderr("fatal: GITHUB_TOKEN is not set");
    let options = ClientOptions::default().connect_timeout(Duration::from_secs(15));
    let error = guard(McpClient::connect_stdio(
        "github",
        params(&fixture),
        options,
    ))
    .await
    .expect_err("a crashing server cannot connect");
    assert!(
        !error.is_timeout(),
        "the crash must be noticed, not timed out: {error}"
    );
    assert!(error.is_connection_closed(), "{error:?}");
    let message = error.to_string();
    assert!(
        message.starts_with("MCP server \"github\": initialize failed"),
        "{message}"
    );
    assert!(message.contains("status 7"), "{message}");
    assert!(
        message.contains("fatal: GITHUB_TOKEN is not set"),
        "{message}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hang_at_initialize_times_out_and_the_child_is_gone() {
    let marker = unique_marker("hang");
    // Deaf to stdin close and to SIGTERM: only the escalation to SIGKILL stops it.
    let fixture = FixtureServer::new()
        .hang_at("initialize")
        .ignore_stdin_close()
        .ignore_sigterm()
        .name(marker.clone());
    let server = params(&fixture).shutdown_grace(Duration::from_millis(200));
    let options = ClientOptions::default().connect_timeout(Duration::from_millis(300));
    let error = guard(McpClient::connect_stdio("stuck", server, options))
        .await
        .expect_err("a hanging server cannot connect");
    assert_eq!(
        error.to_string(),
        "Connection to MCP server \"stuck\" timed out after 300ms"
    );
    assert!(error.is_timeout());
    assert!(
        processes_with_arg(&marker).is_empty(),
        "the hanging server must be stopped when connect returns"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_command_names_the_server_and_the_command_never_its_arguments() {
    let huge = "x".repeat(50 << 20);
    let server = StdioServerParams::new("/nonexistent/mcp-server", ["--token=sk-secret", &huge])
        .env("API_KEY", "sk-env-secret");
    let shown_params = format!("{server:?}");
    let error = guard(McpClient::connect_stdio(
        "ghost",
        server,
        ClientOptions::default(),
    ))
    .await
    .expect_err("nothing to start");
    let message = error.to_string();
    assert!(message.contains("\"ghost\""), "{message}");
    assert!(
        message.contains("`/nonexistent/mcp-server` (with 2 arguments)"),
        "{message}"
    );
    // Bounded, and no value of an argument or a variable, in the error or in Debug.
    assert!(message.len() < 300, "{} bytes", message.len());
    for shown in [message, format!("{error:?}"), shown_params] {
        assert!(
            !shown.contains("sk-secret") && !shown.contains("sk-env-secret"),
            "{shown}"
        );
        assert!(shown.len() < 1000, "{} bytes", shown.len());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_working_directory_is_reported_as_such() {
    let fixture = FixtureServer::new();
    let server = params(&fixture).cwd("/nonexistent/project");
    let error = guard(McpClient::connect_stdio(
        "ws",
        server,
        ClientOptions::default(),
    ))
    .await
    .expect_err("the cwd does not exist");
    assert!(
        error
            .to_string()
            .contains("working directory /nonexistent/project does not exist"),
        "{error}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connect_with_a_custom_client_name_still_initializes() {
    let options = ClientOptions::default()
        .client_info(mcp_transport::Implementation::new("my-agent", "9.9.9"));
    let client = connect_with(&FixtureServer::new(), options).await;
    assert_eq!(client.server_info().name, "fixture");
    guard(client.close()).await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn configured_env_and_cwd_reach_the_server_and_the_environment_is_inherited() {
    let dir = std::env::temp_dir().canonicalize().expect("temp dir");
    let server = params(&FixtureServer::new())
        .env("FIXTURE_TEST_VALUE", "from-the-client")
        .cwd(&dir);
    let client = connect_with_params(server).await;
    let configured = environment(&client, "FIXTURE_TEST_VALUE").await;
    assert_eq!(configured["value"], serde_json::json!("from-the-client"));
    assert_eq!(configured["cwd"], serde_json::json!(dir.to_string_lossy()));
    let inherited = environment(&client, "PATH").await;
    assert_eq!(
        inherited["value"].as_str(),
        std::env::var("PATH").ok().as_deref()
    );
    guard(client.close()).await.expect("close");
}

async fn environment(client: &McpClient, name: &str) -> serde_json::Value {
    let args = common::object(serde_json::json!({"name": name}));
    let result = guard(client.call_tool("environment", Some(args)))
        .await
        .expect("environment");
    serde_json::from_str(common::text(&result)).expect("JSON")
}

/// A launcher that only replaces itself with the server: `sh -c 'shift; exec "$@"' sh -- …`.
fn exec_launcher() -> mcp_transport::Launcher {
    mcp_transport::Launcher::new("/bin/sh", ["-c", "shift; exec \"$@\"", "sh"])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_started_through_a_launcher_is_the_process_the_launcher_became() {
    let fixture = FixtureServer::new();
    let server = params(&fixture).launcher(Some(exec_launcher()));
    let client = connect_with_params(server).await;
    let pids = call_json(&client, "pids").await;
    // The launcher exec'd the server in place: the server is the child this process spawned.
    let pid = pids["pid"].as_u64().expect("the server's pid");
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let parent = status
        .lines()
        .find_map(|line| line.strip_prefix("PPid:"))
        .map(str::trim);
    assert_eq!(
        parent,
        Some(std::process::id().to_string().as_str()),
        "{pids}"
    );
    guard(client.close()).await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_command_behind_a_launcher_is_the_same_immediate_spawn_error() {
    for command in ["/nonexistent/mcp-server", "no-such-mcp-server-anywhere"] {
        let server = StdioServerParams::new(command, ["--flag"]).launcher(Some(exec_launcher()));
        let error = guard(McpClient::connect_stdio(
            "ghost",
            server,
            ClientOptions::default(),
        ))
        .await
        .expect_err("nothing to start");
        let message = error.to_string();
        assert!(
            matches!(
                error.transport_error(),
                Some(mcp_transport::TransportError::Spawn { source, .. })
                    if source.kind() == std::io::ErrorKind::NotFound
            ),
            "{error:?}"
        );
        assert!(message.contains(&format!("`{command}`")), "{message}");
    }
}
