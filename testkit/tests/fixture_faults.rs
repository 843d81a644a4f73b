//! The fixture's scripted faults: crashes, hangs, garbage, huge lines, stderr floods, stdin
//! handling and bad flags.

mod common;

use common::Fixture;
use serde_json::json;
use testkit::FixtureServer;

#[test]
fn crash_at_initialize_exits_with_the_code_and_stderr_without_answering() {
    let mut fixture = Fixture::spawn(
        &FixtureServer::new()
            .crash_at("initialize")
            .exit_code(7)
            .crash_stderr("boom at init"),
    );
    fixture.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}));
    let (status, stderr) = fixture.wait();
    assert_eq!(status.code(), Some(7));
    assert!(stderr.contains("boom at init"), "{stderr}");
}

#[test]
fn crash_at_uses_default_code_and_message() {
    let mut fixture = Fixture::spawn(&FixtureServer::new().crash_at("tools/list"));
    fixture.handshake();
    fixture.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}));
    let (status, stderr) = fixture.wait();
    assert_eq!(status.code(), Some(3));
    assert!(
        stderr.contains("fixture: crashing at tools/list"),
        "{stderr}"
    );
}

#[test]
fn crash_tool_exits_with_its_code() {
    let mut fixture = Fixture::spawn(&FixtureServer::new());
    fixture.send(&json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "crash", "arguments": {"code": 9, "stderr": "bye"}},
    }));
    let (status, stderr) = fixture.wait();
    assert_eq!(status.code(), Some(9));
    assert!(stderr.contains("bye"));
}

#[test]
fn hang_at_never_answers_that_method_but_answers_others() {
    let mut fixture = Fixture::spawn(&FixtureServer::new().hang_at("tools/list"));
    fixture.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}));
    let (ping, before) = fixture.request_collecting(2, "ping", json!({}));
    assert_eq!(ping["result"], json!({}));
    assert!(before.is_empty(), "tools/list was answered: {before:?}");
}

#[test]
fn garbage_lines_come_before_responses() {
    let mut fixture = Fixture::spawn(&FixtureServer::new().garbage());
    fixture.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}));
    let mut saw_invalid_utf8 = false;
    let mut saw_text = false;
    loop {
        let line = fixture.recv_line();
        if let Ok(message) = serde_json::from_slice::<serde_json::Value>(&line) {
            assert_eq!(message["id"], 1);
            break;
        }
        saw_invalid_utf8 |= std::str::from_utf8(&line).is_err();
        saw_text |= line == b"this is not json\n";
    }
    assert!(saw_invalid_utf8 && saw_text);
}

#[test]
fn huge_line_replaces_the_answer_then_serving_goes_on() {
    let mut fixture = Fixture::spawn(&FixtureServer::new().huge_line_at("tools/list", 300_000));
    fixture.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}));
    assert_eq!(fixture.recv_line().len(), 300_001);
    assert_eq!(fixture.request(2, "ping", json!({}))["id"], 2);
}

#[test]
fn huge_tool_answers_one_long_line() {
    let mut fixture = Fixture::spawn(&FixtureServer::new());
    let text = fixture.call_text(1, "huge", json!({"bytes": 1_000_000}));
    assert_eq!(text.len(), 1_000_000);
}

#[test]
fn stderr_flood_is_written_before_serving() {
    // Far more than a pipe holds: the fixture only gets to answer because stderr is drained.
    let mut fixture = Fixture::spawn(&FixtureServer::new().stderr_flood(1_000_000));
    assert_eq!(fixture.request(1, "ping", json!({}))["id"], 1);
    // Written before the answer, though our reader thread may still be catching up.
    assert!(testkit::wait_until(common::PATIENCE, || {
        fixture.stderr_text().len() == 1_000_000
    }));
    fixture.call_text(2, "flood_stderr", json!({"bytes": 5000}));
    fixture.close_stdin();
    let (_, stderr) = fixture.wait();
    assert_eq!(stderr.len(), 1_005_000);
}

#[test]
fn closing_stdin_exits_zero() {
    let mut fixture = Fixture::spawn(&FixtureServer::new());
    fixture.handshake();
    fixture.close_stdin();
    let (status, _) = fixture.wait();
    assert_eq!(status.code(), Some(0));
}

#[test]
fn ignore_stdin_close_keeps_running_after_eof() {
    let mut fixture = Fixture::spawn(&FixtureServer::new().ignore_stdin_close());
    fixture.close_stdin();
    assert!(testkit::wait_until(common::PATIENCE, || {
        fixture
            .stderr_text()
            .contains("stdin closed; staying alive")
    }));
    assert!(testkit::process_is_alive(fixture.pid()));
}

#[test]
fn invalid_flags_exit_2() {
    let fixture = Fixture::spawn(&FixtureServer::new().arg("--no-such-flag"));
    let (status, stderr) = fixture.wait();
    assert_eq!(status.code(), Some(2));
    assert!(stderr.contains("--no-such-flag"), "{stderr}");
}
