//! A transport plugin used through a config file: the `unix_plugin` example's connector,
//! registered for `"type": "unix"`, connects a `.mcp.json` entry of that type through the
//! session API; its tools reach the registry, calls work, and shutting down leaves no server.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;
#[path = "../examples/unix_plugin/plugin.rs"]
mod plugin;
#[path = "../examples/unix_plugin/socket_server.rs"]
mod socket_server;

use std::sync::Arc;

use agent_session::create_agent_session;
use common::{World, guard, tool_names};
use mcp_manager::{ConnectionStatus, ManagerError, ManagerOptions, Problem};
use plugin::UnixSocketConnector;
use serde_json::json;
use socket_server::SocketServer;
use testkit::FixtureServer;
use tokio_util::sync::CancellationToken;

/// Offers a fixture server on `<project>/<socket>`.
fn serve(world: &World, socket: &str) -> SocketServer {
    let (program, args) = FixtureServer::new().command();
    SocketServer::serve(
        &world.project().join(socket),
        program.to_string_lossy().into_owned(),
        args,
    )
    .expect("the socket listens")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_unix_entry_connects_through_its_plugin_and_its_tools_work() {
    let world = World::new();
    let server = serve(&world, "server.sock");
    // A path relative to the file that defines the server.
    world.write_mcp_json_entries(&[("local", json!({"type": "unix", "path": "server.sock"}))]);
    let mut options = world.options();
    options.load = options
        .load
        .manager(ManagerOptions::default().connector("unix", Arc::new(UnixSocketConnector)));

    let started = guard(create_agent_session(options)).await;
    let session = started.session;

    assert!(started.problems.is_empty(), "{:?}", started.problems);
    assert_eq!(
        session.manager().get_connection_status("local"),
        ConnectionStatus::Connected
    );
    let names = tool_names(&session);
    assert!(names.contains(&"mcp_local_echo".to_owned()), "{names:?}");
    let echo = session.tool("mcp_local_echo").expect("the echo tool");
    let output = guard(echo.execute(
        json!({"message": "over a unix socket"}),
        CancellationToken::new(),
    ))
    .await
    .expect("not cancelled");
    assert!(!output.is_error, "{output:?}");
    assert_eq!(output.to_text(), "over a unix socket");

    guard(session.shutdown()).await;
    assert!(session.manager().server_names().is_empty());
    // The server's process ends when its connection closes: shutting down closed it.
    let exits = guard(server.stop()).await;
    assert_eq!(exits.len(), 1, "one connection was made");
    assert!(
        exits.iter().all(std::process::ExitStatus::success),
        "{exits:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_unix_entry_without_its_plugin_fails_naming_its_type() {
    let world = World::new();
    let server = serve(&world, "server.sock");
    world.write_mcp_json_entries(&[
        ("local", json!({"type": "unix", "path": "server.sock"})),
        ("fx", common::fixture_entry(&FixtureServer::new())),
    ]);

    let started = guard(create_agent_session(world.options())).await;
    let session = started.session;

    let [Problem::Server { name, error, .. }] = started.problems.as_slice() else {
        panic!("one problem: {:?}", started.problems);
    };
    assert_eq!(name, "local");
    assert!(
        matches!(&**error, ManagerError::UnclaimedTransport { kind, .. } if kind == "unix"),
        "{error:?}"
    );
    assert!(error.to_string().contains("\"type\": \"unix\""), "{error}");
    assert!(matches!(
        session.manager().get_connection_status("local"),
        ConnectionStatus::Failed(_)
    ));
    // The other servers are not held back.
    assert!(tool_names(&session).contains(&"mcp_fx_echo".to_owned()));
    guard(session.shutdown()).await;
    assert!(
        guard(server.stop()).await.is_empty(),
        "nothing dialled the socket"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_unix_entry_whose_socket_is_missing_fails_with_the_plugins_error() {
    let world = World::new();
    world.write_mcp_json_entries(&[("local", json!({"type": "unix", "path": "nowhere.sock"}))]);
    let mut options = world.options();
    options.load = options
        .load
        .manager(ManagerOptions::default().connector("unix", Arc::new(UnixSocketConnector)));

    let started = guard(create_agent_session(options)).await;

    let [Problem::Server { error, .. }] = started.problems.as_slice() else {
        panic!("one problem: {:?}", started.problems);
    };
    assert!(
        matches!(&**error, ManagerError::Plugin { kind, .. } if kind == "unix"),
        "{error:?}"
    );
    let message = error.to_string();
    assert!(
        message.contains("MCP server \"local\" (type \"unix\")"),
        "{message}"
    );
    assert!(message.contains("nowhere.sock"), "{message}");
    guard(started.session.shutdown()).await;
}
