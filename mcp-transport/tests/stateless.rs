//! The stateless revision (2026-07-28) against a scripted server on an in-memory transport:
//! how the era is found, what every request carries, and multi round-trip requests.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::time::Duration;

use common::channel::{ScriptedServer, pair};
use common::guard;
use mcp_transport::{ClientOptions, Error, McpClient, ProtocolVersion, RequestOptions, Root};
use serde_json::{Value, json};

const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
const META_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";

fn discovered(id: &Value, versions: &[&str]) -> Value {
    discovered_with(id, versions, &json!({"tools": {}}))
}

fn discovered_with(id: &Value, versions: &[&str], capabilities: &Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": {
        "resultType": "complete",
        "supportedVersions": versions,
        "capabilities": capabilities,
        "instructions": "be brief",
        "ttlMs": 0,
        "cacheScope": "private",
        "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "scripted", "version": "9"}}
    }})
}

/// Connects while `answer` plays the server's side of the opening.
async fn connect_with<F>(
    options: ClientOptions,
    answer: F,
) -> (Result<McpClient, Error>, ScriptedServer)
where
    F: AsyncFnOnce(&mut ScriptedServer),
{
    let (transport, mut server) = pair();
    let options = options.connect_timeout(Duration::from_secs(10));
    let (client, ()) = guard(async {
        tokio::join!(
            McpClient::connect("scripted", transport, options),
            answer(&mut server)
        )
    })
    .await;
    (client, server)
}

async fn stateless_client(options: ClientOptions) -> (McpClient, ScriptedServer) {
    let (client, server) = connect_with(options, async |server: &mut ScriptedServer| {
        let probe = server.next().await;
        server.reply(&discovered(&probe["id"], &["2026-07-28"]));
    })
    .await;
    (client.expect("connected"), server)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_answers_discover_is_spoken_to_statelessly() {
    let (transport, mut server) = pair();
    let connect = McpClient::connect("scripted", transport, ClientOptions::default());
    let answer = async {
        let probe = server.next().await;
        assert_eq!(probe["method"], "server/discover");
        assert_eq!(probe["params"]["_meta"][META_VERSION], "2026-07-28");
        server.reply(&discovered(&probe["id"], &["2026-07-28", "2025-11-25"]));
    };
    let (client, ()) = guard(async { tokio::join!(connect, answer) }).await;
    let client = client.expect("connected");
    assert_eq!(client.protocol_version(), ProtocolVersion::V2026_07_28);
    assert_eq!(client.server_info().name, "scripted");
    assert_eq!(client.instructions(), Some("be brief"));
    assert!(client.capabilities().tools.is_some());

    let list = client.list_tools();
    let answer = async {
        let request = server.next().await;
        // No initialize and no notifications/initialized went before it.
        assert_eq!(request["method"], "tools/list");
        let meta = &request["params"]["_meta"];
        assert_eq!(meta[META_VERSION], "2026-07-28");
        assert_eq!(
            meta["io.modelcontextprotocol/clientInfo"]["name"],
            "mcp-runtime"
        );
        assert!(meta["io.modelcontextprotocol/clientCapabilities"].is_object());
        server.reply(&json!({"jsonrpc": "2.0", "id": request["id"], "result": {
            "resultType": "complete", "ttlMs": 60000, "cacheScope": "private",
            "tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}}));
    };
    let (tools, ()) = guard(async { tokio::join!(list, answer) }).await;
    assert_eq!(tools.expect("listed")[0].name, "echo");

    // `ping` is gone from the revision: liveness is asked with server/discover.
    let ping = client.ping();
    let answer = async {
        let request = server.next().await;
        assert_eq!(request["method"], "server/discover");
        assert_eq!(request["params"]["_meta"][META_VERSION], "2026-07-28");
        server.reply(&discovered(&request["id"], &["2026-07-28"]));
    };
    let (pinged, ()) = guard(async { tokio::join!(ping, answer) }).await;
    pinged.expect("alive");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_does_not_know_discover_gets_the_handshake() {
    let (client, _server) = connect_with(
        ClientOptions::default(),
        async |server: &mut ScriptedServer| {
            let probe = server.next().await;
            server.reply(&json!({"jsonrpc": "2.0", "id": probe["id"],
            "error": {"code": -32602, "message": "Invalid request parameters"}}));
            let initialize = server.next().await;
            assert_eq!(initialize["method"], "initialize");
            assert_eq!(initialize["params"]["protocolVersion"], "2025-11-25");
            assert!(initialize["params"].get("_meta").is_none());
            server.reply(
                &json!({"jsonrpc": "2.0", "id": initialize["id"], "result": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "serverInfo": {"name": "old", "version": "1"}}}),
            );
            assert_eq!(server.next().await["method"], "notifications/initialized");
        },
    )
    .await;
    let client = client.expect("connected");
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_06_18);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unsupported_version_error_is_answered_with_a_version_it_lists_not_a_fallback() {
    let (client, _server) = connect_with(
        ClientOptions::default(),
        async |server: &mut ScriptedServer| {
            let probe = server.next().await;
            server.reply(&json!({"jsonrpc": "2.0", "id": probe["id"], "error": {
            "code": -32022, "message": "Unsupported protocol version",
            "data": {"supported": ["2026-07-28"], "requested": "2026-07-28"}}}));
            let again = server.next().await;
            assert_eq!(again["method"], "server/discover");
            assert_ne!(again["id"], probe["id"]);
            server.reply(&discovered(&again["id"], &["2026-07-28"]));
        },
    )
    .await;
    assert_eq!(
        client.expect("connected").protocol_version(),
        ProtocolVersion::V2026_07_28
    );

    let (client, mut server) = connect_with(
        ClientOptions::default(),
        async |server: &mut ScriptedServer| {
            let probe = server.next().await;
            server.reply(&json!({"jsonrpc": "2.0", "id": probe["id"], "error": {
            "code": -32022, "message": "Unsupported protocol version",
            "data": {"supported": ["2099-01-01"]}}}));
        },
    )
    .await;
    let error = client.expect_err("no common version");
    assert!(
        matches!(error, Error::UnsupportedProtocolVersion { .. }),
        "{error:?}"
    );
    assert!(error.to_string().contains("2099-01-01"), "{error}");
    // A stateless server is never sent `initialize`.
    assert_eq!(guard(server.received.recv()).await, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pinned_handshake_version_skips_the_probe_and_a_pinned_stateless_one_never_falls_back() {
    let pinned = ClientOptions::default().protocol_version(ProtocolVersion::V2025_03_26);
    let (client, _server) = connect_with(pinned, async |server: &mut ScriptedServer| {
        let initialize = server.next().await;
        assert_eq!(initialize["method"], "initialize");
        assert_eq!(initialize["params"]["protocolVersion"], "2025-03-26");
        server.reply(
            &json!({"jsonrpc": "2.0", "id": initialize["id"], "result": {
            "protocolVersion": "2025-03-26", "capabilities": {},
            "serverInfo": {"name": "old", "version": "1"}}}),
        );
    })
    .await;
    assert_eq!(
        client.expect("connected").protocol_version(),
        ProtocolVersion::V2025_03_26
    );

    let pinned = ClientOptions::default().protocol_version(ProtocolVersion::V2026_07_28);
    let (client, mut server) = connect_with(pinned, async |server: &mut ScriptedServer| {
        let probe = server.next().await;
        server.reply(&json!({"jsonrpc": "2.0", "id": probe["id"],
            "error": {"code": -32601, "message": "Method not found"}}));
    })
    .await;
    let error = client.expect_err("a handshake-era server");
    assert!(
        error.to_string().contains("2026-07-28, as pinned"),
        "{error}"
    );
    assert_eq!(guard(server.received.recv()).await, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_lists_ttl_is_its_first_page_to_go_stale_and_none_when_a_page_has_none() {
    let (client, mut server) = stateless_client(ClientOptions::default()).await;
    let page = |id: &Value, name: &str, ttl: Option<u64>, next: Option<&str>| {
        let mut result = json!({"resultType": "complete", "cacheScope": "public",
            "tools": [{"name": name, "inputSchema": {"type": "object"}}]});
        if let Some(ttl) = ttl {
            result["ttlMs"] = json!(ttl);
        }
        if let Some(next) = next {
            result["nextCursor"] = json!(next);
        }
        json!({"jsonrpc": "2.0", "id": id, "result": result})
    };

    let list = client.list_tools_with_ttl();
    let answer = async {
        let first = server.next().await;
        server.reply(&page(&first["id"], "a", Some(600_000), Some("2")));
        let second = server.next().await;
        assert_eq!(second["params"]["cursor"], "2");
        server.reply(&page(&second["id"], "b", Some(60_000), None));
    };
    let (listed, ()) = guard(async { tokio::join!(list, answer) }).await;
    let listed = listed.expect("listed");
    let names: Vec<&str> = listed.tools.iter().map(|tool| tool.name.as_str()).collect();
    assert_eq!(names, ["a", "b"]);
    let ttl = listed.ttl.expect("both pages carry a ttl");
    assert!(
        ttl <= Duration::from_secs(60) && ttl > Duration::from_secs(30),
        "{ttl:?}"
    );

    let list = client.list_tools_with_ttl();
    let answer = async {
        let first = server.next().await;
        server.reply(&page(&first["id"], "a", Some(600_000), Some("2")));
        let second = server.next().await;
        server.reply(&page(&second["id"], "b", None, None));
    };
    let (listed, ()) = guard(async { tokio::join!(list, answer) }).await;
    assert_eq!(listed.expect("listed").ttl, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn input_required_is_answered_and_the_request_sent_again_with_the_state_as_it_came() {
    let options =
        ClientOptions::default().roots(vec![Root::from_path(std::path::Path::new("/work"))]);
    let (client, mut server) = stateless_client(options).await;
    let call = client.call_tool("deploy", Some(common::object(json!({"env": "prod"}))));
    let answer = async {
        let first = server.next().await;
        assert_eq!(first["method"], "tools/call");
        assert!(first["params"].get("requestState").is_none());
        // The state is opaque: escapes and all, it must come back byte for byte.
        let state = r#""s\u0074ate-1""#;
        let reply = format!(
            r#"{{"jsonrpc":"2.0","id":{},"result":{{"resultType":"input_required","inputRequests":{{"where":{{"method":"roots/list"}}}},"requestState":{state}}}}}"#,
            first["id"]
        );
        server.replies.send(Ok(reply.into())).expect("alive");
        let line = guard(server.received.recv()).await.expect("the retry");
        assert!(line.contains(r#""requestState":"s\u0074ate-1""#), "{line}");
        let retry: Value = serde_json::from_str(&line).expect("JSON");
        assert_eq!(retry["method"], "tools/call");
        assert_ne!(retry["id"], first["id"]);
        assert_eq!(retry["params"]["name"], "deploy");
        assert_eq!(retry["params"]["arguments"]["env"], "prod");
        assert_eq!(
            retry["params"]["inputResponses"]["where"]["roots"][0]["uri"],
            "file:///work"
        );
        assert_eq!(retry["params"]["_meta"][META_VERSION], "2026-07-28");
        server.reply(&json!({"jsonrpc": "2.0", "id": retry["id"], "result": {
            "resultType": "complete", "content": [{"type": "text", "text": "done"}]}}));
    };
    let (result, ()) = guard(async { tokio::join!(call, answer) }).await;
    let result = result.expect("completed");
    assert_eq!(common::text(&result), "done");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_is_asked_for_beside_the_revisions_meta_and_reported_in_every_round() {
    let options =
        ClientOptions::default().roots(vec![Root::from_path(std::path::Path::new("/work"))]);
    let (client, mut server) = stateless_client(options).await;
    let (progress_tx, mut progress_rx) = tokio::sync::mpsc::unbounded_channel();
    let options = RequestOptions::default().on_progress(move |progress| {
        let _ = progress_tx.send(progress.progress);
    });
    let call = client.call_tool_with("build", None, &options);
    let answer = async {
        let mut tokens = Vec::new();
        for (round, progress) in [(0, 0.25), (1, 0.75)] {
            let request = server.next().await;
            let meta = &request["params"]["_meta"];
            assert_eq!(meta[META_VERSION], "2026-07-28", "round {round}: {request}");
            assert!(meta[META_CLIENT_INFO]["name"].is_string(), "{request}");
            assert!(meta[META_CAPABILITIES]["roots"].is_object(), "{request}");
            let token = meta["progressToken"].clone();
            assert!(token.is_number(), "round {round}: {request}");
            tokens.push(token.clone());
            server.reply(
                &json!({"jsonrpc": "2.0", "method": "notifications/progress",
                "params": {"progressToken": token, "progress": progress}}),
            );
            let result = if round == 0 {
                json!({"resultType": "input_required",
                    "inputRequests": {"where": {"method": "roots/list"}}, "requestState": "s"})
            } else {
                json!({"resultType": "complete", "content": []})
            };
            server.reply(&json!({"jsonrpc": "2.0", "id": request["id"], "result": result}));
        }
        tokens
    };
    let (result, tokens) = guard(async { tokio::join!(call, answer) }).await;
    result.expect("completed");
    assert_ne!(tokens[0], tokens[1], "each round is its own request");
    let mut seen = Vec::new();
    while let Ok(progress) = progress_rx.try_recv() {
        seen.push(progress);
    }
    assert_eq!(seen, [0.25, 0.75]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn input_the_client_cannot_give_fails_the_call_with_a_clear_error() {
    let (client, mut server) = stateless_client(ClientOptions::default()).await;
    let call = client.call_tool("ask", None);
    let answer = async {
        let first = server.next().await;
        server.reply(&json!({"jsonrpc": "2.0", "id": first["id"], "result": {
            "resultType": "input_required",
            "inputRequests": {"q": {"method": "elicitation/create",
                "params": {"message": "name?", "requestedSchema": {"type": "object"}}}}}}));
    };
    let (result, ()) = guard(async { tokio::join!(call, answer) }).await;
    let error = result.expect_err("no elicitation handler");
    let text = error.to_string();
    assert!(text.contains("could not give"), "{text}");
    assert!(text.contains("elicitation/create"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_keeps_asking_for_input_is_given_up_on() {
    let options = ClientOptions::default().roots(Vec::new());
    let (client, mut server) = stateless_client(options).await;
    let call = client.call_tool("loop", None);
    let answer = async {
        while let Some(line) = server.received.recv().await {
            let request: Value = serde_json::from_str(&line).expect("JSON");
            server.reply(&json!({"jsonrpc": "2.0", "id": request["id"], "result": {
                "resultType": "input_required",
                "inputRequests": {"r": {"method": "roots/list"}}}}));
        }
    };
    let result = guard(async {
        tokio::select! {
            result = call => result,
            () = answer => panic!("the client hung up first"),
        }
    })
    .await;
    let error = result.expect_err("endless input");
    assert!(error.to_string().contains("asked for input"), "{error}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_changes_come_on_a_listen_stream_that_is_opened_again_when_it_ends() {
    let (client, mut server) = connect_with(
        ClientOptions::default(),
        async |server: &mut ScriptedServer| {
            let probe = server.next().await;
            let capabilities = json!({"tools": {"listChanged": true}, "prompts": {}});
            server.reply(&discovered_with(
                &probe["id"],
                &["2026-07-28"],
                &capabilities,
            ));
        },
    )
    .await;
    let client = client.expect("connected");
    let mut notifications = client.subscribe();
    let listen = server.next().await;
    assert_eq!(listen["method"], "subscriptions/listen");
    assert_eq!(
        listen["params"]["notifications"],
        json!({"toolsListChanged": true})
    );
    assert_eq!(listen["params"]["_meta"][META_VERSION], "2026-07-28");
    let subscription = json!({"io.modelcontextprotocol/subscriptionId": listen["id"]});
    server.reply(
        &json!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
        "params": {"_meta": subscription, "notifications": {"toolsListChanged": true}}}),
    );
    server.reply(
        &json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed",
        "params": {"_meta": subscription}}),
    );
    let changed = guard(async {
        loop {
            let notification = notifications.recv().await.expect("a notification");
            if notification.method == "notifications/tools/list_changed" {
                return notification;
            }
        }
    })
    .await;
    assert_eq!(changed.method, "notifications/tools/list_changed");

    // The server ends the stream gracefully: the client listens again, under a new id.
    server.reply(&json!({"jsonrpc": "2.0", "id": listen["id"],
        "result": {"resultType": "complete", "_meta": subscription}}));
    let again = server.next().await;
    assert_eq!(again["method"], "subscriptions/listen");
    assert_ne!(again["id"], listen["id"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_listen_stream_is_opened_for_a_server_that_announces_no_changes() {
    let (client, mut server) = connect_with(
        ClientOptions::default(),
        async |server: &mut ScriptedServer| {
            let probe = server.next().await;
            server.reply(&json!({"jsonrpc": "2.0", "id": probe["id"], "result": {
            "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}}}));
        },
    )
    .await;
    let client = client.expect("connected");
    let list = client.list_tools();
    let answer = async {
        // The first message after the probe is the list, not a listen request.
        let request = server.next().await;
        assert_eq!(request["method"], "tools/list");
        server.reply(&json!({"jsonrpc": "2.0", "id": request["id"], "result": {"tools": []}}));
    };
    let (tools, ()) = guard(async { tokio::join!(list, answer) }).await;
    assert!(tools.expect("listed").is_empty());
}
