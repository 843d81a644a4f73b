//! The fixture's well-behaved protocol: handshake, tools, pagination, notifications.

mod common;

use common::{Fixture, tool_names};
use serde_json::{Value, json};
use testkit::FixtureServer;

#[test]
fn initialize_answers_a_supported_version_and_falls_back_to_the_latest() {
    let mut fixture = Fixture::spawn(&FixtureServer::new().name("alpha").instructions("be nice"));
    let result = fixture.handshake();
    assert_eq!(result["protocolVersion"], "2025-06-18");
    assert_eq!(
        result["serverInfo"],
        json!({"name": "alpha", "version": "1.0.0"})
    );
    assert_eq!(result["instructions"], "be nice");
    assert_eq!(result["capabilities"]["tools"]["listChanged"], true);

    let again = fixture.request(1, "initialize", json!({"protocolVersion": "1999-01-01"}));
    assert_eq!(again["result"]["protocolVersion"], "2025-11-25");
    assert_eq!(fixture.request(2, "ping", json!({}))["result"], json!({}));
}

#[test]
fn protocol_version_flag_forces_even_an_unsupported_answer() {
    let mut fixture = Fixture::spawn(&FixtureServer::new().protocol_version("1999-01-01"));
    assert_eq!(fixture.handshake()["protocolVersion"], "1999-01-01");
}

#[test]
fn echo_add_and_error_tools_answer_as_documented() {
    let mut fixture = Fixture::spawn(&FixtureServer::new());
    fixture.handshake();
    assert_eq!(
        fixture.call_text(1, "echo", json!({"message": "hé \"x\""})),
        "hé \"x\""
    );
    let sum = fixture.call(2, "add", json!({"a": 2, "b": 40}));
    assert_eq!(sum["structuredContent"], json!({"sum": 42}));
    assert_eq!(sum["content"][0]["text"], "42");
    let failed = fixture.call(3, "error", json!({}));
    assert_eq!(failed["isError"], true);
    assert_eq!(failed["content"][0]["text"], "this tool failed");
}

#[test]
fn unknown_tools_and_methods_are_json_rpc_errors() {
    let mut fixture = Fixture::spawn(&FixtureServer::new());
    let unknown_tool = fixture.request(1, "tools/call", json!({"name": "nope", "arguments": {}}));
    assert_eq!(unknown_tool["error"]["code"], -32602);
    assert_eq!(unknown_tool["error"]["message"], "Unknown tool: nope");
    let unknown_method = fixture.request(2, "resources/list", json!({}));
    assert_eq!(unknown_method["error"]["code"], -32601);
    assert_eq!(
        unknown_method["error"]["message"],
        "Method not found: resources/list"
    );
}

#[test]
fn tools_list_pages_through_builtin_and_generated_tools() {
    let mut fixture = Fixture::spawn(&FixtureServer::new().tools(7).page_size(5));
    fixture.handshake();
    let mut names = Vec::new();
    let mut cursor = Value::Null;
    let mut pages = 0;
    loop {
        let params = if cursor.is_null() {
            json!({})
        } else {
            json!({"cursor": cursor})
        };
        let page = fixture.request(10 + pages, "tools/list", params);
        pages += 1;
        let page_names = tool_names(&page);
        assert!(page_names.len() <= 5);
        names.extend(page_names);
        cursor = page["result"]
            .get("nextCursor")
            .cloned()
            .unwrap_or(Value::Null);
        if cursor.is_null() {
            break;
        }
        assert!(cursor.is_string());
    }
    assert_eq!(names.len(), testkit::BUILT_IN_TOOLS + 7);
    assert_eq!(pages, 5, "21 tools, 5 a page");
    assert_eq!(names[0], "echo");
    assert_eq!(names.last().unwrap(), "tool_6");
    assert!(names.contains(&"tool_0".to_owned()));
    assert_eq!(
        fixture.call_text(99, "tool_3", json!({"message": "m"})),
        "m"
    );
}

#[test]
fn repeat_cursor_answers_the_same_next_cursor_forever() {
    let mut fixture = Fixture::spawn(&FixtureServer::new().page_size(4).repeat_cursor());
    let first = fixture.request(1, "tools/list", json!({}));
    let cursor = first["result"]["nextCursor"].clone();
    let second = fixture.request(2, "tools/list", json!({"cursor": cursor}));
    assert_eq!(second["result"]["nextCursor"], cursor);
}

#[test]
fn unknown_fields_and_schema_keywords_are_in_the_tool_list() {
    let mut fixture = Fixture::spawn(&FixtureServer::new());
    let list = fixture.request(1, "tools/list", json!({}));
    let add = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["name"] == "add")
        .unwrap()
        .clone();
    assert_eq!(add["x-extra"], json!({"kept": true}));
    assert!(add["inputSchema"]["$schema"].is_string());
}

#[test]
fn all_content_holds_every_content_type() {
    let mut fixture = Fixture::spawn(&FixtureServer::new());
    let result = fixture.call(1, "all_content", json!({}));
    let types: Vec<&str> = result["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|block| block["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        types,
        [
            "text",
            "image",
            "audio",
            "resource_link",
            "resource",
            "x-custom"
        ]
    );
    assert_eq!(result["structuredContent"], json!({"ok": true}));
    assert_eq!(result["_meta"], json!({"fixture": true}));
}

#[test]
fn events_records_notifications_and_responses_in_arrival_order() {
    let mut fixture = Fixture::spawn(&FixtureServer::new().server_requests());
    fixture.handshake();
    let mut ids = Vec::new();
    for _ in 0..3 {
        let request = fixture.recv();
        ids.push(request["id"].clone());
        fixture.send(&json!({"jsonrpc": "2.0", "id": request["id"], "result": {}}));
    }
    assert_eq!(
        ids,
        [json!("srv-ping"), json!("srv-roots"), json!("srv-unknown")]
    );
    fixture.notify(
        "notifications/cancelled",
        json!({"requestId": 77, "reason": "test"}),
    );
    let events: Value = serde_json::from_str(&fixture.call_text(1, "events", json!({}))).unwrap();
    let events = events.as_array().unwrap();
    assert_eq!(events.len(), 5, "{events:?}");
    assert_eq!(
        events[0],
        json!({"method": "notifications/initialized", "params": {}})
    );
    assert_eq!(events[1]["response"]["id"], "srv-ping");
    assert_eq!(events[3]["response"]["id"], "srv-unknown");
    assert_eq!(
        events[4],
        json!({"method": "notifications/cancelled", "params": {"requestId": 77, "reason": "test"}})
    );
}

#[test]
fn a_cancelled_sleep_never_answers() {
    let mut fixture = Fixture::spawn(&FixtureServer::new());
    fixture.send(&json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "sleep", "arguments": {"ms": 100}},
    }));
    fixture.notify("notifications/cancelled", json!({"requestId": 1}));
    // A longer sleep started afterwards answers; the cancelled one must not come first.
    let (next, before) = fixture.request_collecting(
        2,
        "tools/call",
        json!({"name": "sleep", "arguments": {"ms": 300}}),
    );
    assert_eq!(before, Vec::<Value>::new());
    assert_eq!(next["result"]["content"][0]["text"], "slept 300ms");
}

#[test]
fn progress_reports_every_step_before_the_result() {
    let mut fixture = Fixture::spawn(&FixtureServer::new());
    let (response, others) = fixture.request_collecting(
        1,
        "tools/call",
        json!({
            "name": "progress",
            "arguments": {"steps": 3, "interval_ms": 1},
            "_meta": {"progressToken": "tok"},
        }),
    );
    assert_eq!(response["result"]["content"][0]["text"], "done");
    let steps: Vec<&Value> = others.iter().map(|n| &n["params"]).collect();
    assert_eq!(steps.len(), 3);
    for (i, step) in steps.iter().enumerate() {
        assert_eq!(step["progressToken"], "tok");
        assert_eq!(step["progress"], i + 1);
        assert_eq!(step["total"], 3);
        assert_eq!(step["message"], format!("step {}", i + 1));
    }
}

#[test]
fn list_change_after_adds_late_tool_and_notifies() {
    let mut fixture = Fixture::spawn(&FixtureServer::new().list_change_after(10));
    fixture.handshake();
    assert_eq!(fixture.recv()["method"], "notifications/tools/list_changed");
    let list = fixture.request(1, "tools/list", json!({}));
    assert!(tool_names(&list).contains(&"late_tool".to_owned()));
    assert_eq!(
        fixture.call_text(2, "late_tool", json!({"message": "late"})),
        "late"
    );
}

#[test]
fn change_tools_adds_late_tool_and_notifies_before_it_answers() {
    let mut fixture = Fixture::spawn(&FixtureServer::new());
    fixture.handshake();
    let before = fixture.request(1, "tools/list", json!({}));
    assert!(!tool_names(&before).contains(&"late_tool".to_owned()));
    let (answer, before_answer) =
        fixture.request_collecting(2, "tools/call", json!({"name": "change_tools"}));
    assert_eq!(answer["result"]["content"][0]["text"], "changed");
    assert_eq!(
        before_answer,
        [json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})]
    );
    let after = fixture.request(3, "tools/list", json!({}));
    assert!(tool_names(&after).contains(&"late_tool".to_owned()));
}

#[test]
fn a_started_sleep_is_among_the_events() {
    let mut fixture = Fixture::spawn(&FixtureServer::new());
    fixture.handshake();
    fixture.send(&json!({
        "jsonrpc": "2.0", "id": "long", "method": "tools/call",
        "params": {"name": "sleep", "arguments": {"ms": 60_000}},
    }));
    let events: Value = serde_json::from_str(&fixture.call_text(1, "events", json!({}))).unwrap();
    assert!(
        events
            .as_array()
            .unwrap()
            .contains(&json!({"started": "sleep", "id": "long"})),
        "{events}"
    );
}
