//! `agent-session list --json` against servers of the stateless revision (2026-07-28): the
//! TypeScript SDK v2 server and the Python SDK v2 server of `interop/` (stateless, dual-era),
//! configured as `http` servers in the project's `.mcp.json`. Each is connected, spoken to in
//! the stateless revision (the peers count the requests that reached them: `server/discover`,
//! no `initialize`), and shown with that protocol version.
//!
//! Every run gets a temporary project and home (`HOME` set, `XDG_CONFIG_HOME` unset), so the
//! user's own config files are never read or written. Ignored under a plain `cargo test`
//! because it needs the interop peers; `cargo xtask ci` installs them and runs it.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod cli_support;

use std::io::{Read, Write};
use std::net::TcpStream;

use cli_support::{Sandbox, server};
use serde_json::{Value, json};
use testkit::{RemotePeer, RunningPeer};

/// What the peer counted so far (`GET /count` beside its `/mcp`): JSON-RPC messages by method
/// under `methods`.
fn counts(running: &RunningPeer) -> Value {
    let authority = running
        .url()
        .strip_prefix("http://")
        .and_then(|rest| rest.split_once('/'))
        .map(|(authority, _)| authority)
        .unwrap();
    let mut stream = TcpStream::connect(authority).unwrap();
    write!(stream, "GET /count HTTP/1.0\r\nHost: {authority}\r\n\r\n").unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let (_, body) = answer.split_once("\r\n\r\n").unwrap();
    serde_json::from_str(body).unwrap_or_else(|_| panic!("not JSON: {answer}"))
}

#[test]
#[ignore = "needs the pinned interop peers (cargo xtask interop)"]
fn list_json_shows_the_stateless_servers_connected_in_the_2026_07_28_revision() {
    let typescript = RemotePeer::TypeScriptStateless.start();
    let python = RemotePeer::PythonStateless.start();
    let sandbox = Sandbox::labelled("stateless", "list").without_cache();
    sandbox.write_mcp_json(&json!({
        "typescript": {"type": "http", "url": typescript.url()},
        "python": {"type": "http", "url": python.url()},
    }));

    let list = sandbox.run(&["list", "--json"]).assert_code(0).json();
    for name in ["typescript", "python"] {
        let entry = server(&list, name);
        assert_eq!(entry["status"], "connected", "{name}: {list:#}");
        assert_eq!(entry["transport"], "http", "{name}: {list:#}");
        // echo, greet, add_tool, request_count.
        assert_eq!(entry["tools"], 4, "{name}: {list:#}");
        assert_eq!(entry["error"], Value::Null, "{name}: {list:#}");
    }
    // Spoken to in the stateless revision: found with server/discover, never initialized.
    for (name, running) in [("typescript", &typescript), ("python", &python)] {
        let counts = counts(running);
        assert!(
            counts["methods"]["server/discover"].as_u64() >= Some(1),
            "{name}: {counts}"
        );
        assert_eq!(
            counts["methods"]["initialize"],
            Value::Null,
            "{name}: {counts}"
        );
    }
    for name in ["typescript", "python"] {
        assert_eq!(
            server(&list, name)["protocol"],
            "2026-07-28",
            "{name}: {list:#}"
        );
    }
}

/// Every JSON-RPC message the peer counted, whatever its method.
fn messages(running: &RunningPeer) -> u64 {
    counts(running)["methods"].as_object().map_or(0, |methods| {
        methods.values().filter_map(Value::as_u64).sum()
    })
}

/// A warm start inside the tool list's `ttlMs` (60 s on both peers) serves the stateless
/// servers' tools from the cache as live tools and sends them nothing; a call then reaches the
/// server without a handshake.
#[test]
#[ignore = "needs the pinned interop peers (cargo xtask interop)"]
fn a_warm_start_inside_the_lists_ttl_sends_the_stateless_servers_no_request() {
    let typescript = RemotePeer::TypeScriptStateless.start();
    let python = RemotePeer::PythonStateless.start();
    let sandbox = Sandbox::labelled("stateless", "warm");
    sandbox.write_mcp_json(&json!({
        "typescript": {"type": "http", "url": typescript.url()},
        "python": {"type": "http", "url": python.url()},
    }));
    let cache = sandbox.cache_dir();
    let tools = ["tools", "--json", "--cache-dir", cache.as_str()];
    let listed = |output: &Value, name: &str| {
        output["tools"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|tool| tool["server"] == name)
            .map(|tool| (tool["name"].clone(), tool["deferred"].clone()))
            .collect::<Vec<_>>()
    };

    let cold = sandbox.run(&tools).assert_code(0).json();
    let before = [messages(&typescript), messages(&python)];
    assert!(before.iter().all(|count| *count > 0), "{before:?}");

    let warm = sandbox.run(&tools).assert_code(0).json();
    for name in ["typescript", "python"] {
        let tools = listed(&warm, name);
        assert_eq!(tools.len(), 4, "{name}: {warm:#}");
        assert_eq!(tools, listed(&cold, name), "{name}: {warm:#}");
        assert!(
            tools.iter().all(|(_, deferred)| *deferred != json!(true)),
            "served as live tools: {warm:#}"
        );
    }
    assert_eq!(
        [messages(&typescript), messages(&python)],
        before,
        "the warm start sent a request: {} / {}",
        counts(&typescript),
        counts(&python)
    );

    // A call from a warm start reaches the server, still without initialize.
    let called = sandbox.run(&[
        "call",
        "typescript/echo",
        r#"{"message":"warm"}"#,
        "--cache-dir",
        cache.as_str(),
    ]);
    called.assert_code(0);
    assert!(called.stdout.contains("warm"), "{}", called.stdout);
    assert_eq!(counts(&typescript)["methods"]["initialize"], Value::Null);
}
