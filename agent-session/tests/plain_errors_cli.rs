//! Errors a person can act on: one line saying what failed and where, in words (`could not
//! connect: connection refused`, `no such command`), not the layers of the HTTP client or
//! the OS's error names; and the fix when a URL speaks another transport. End to end through
//! the binary, against a closed port, a missing command and testkit's Streamable HTTP fixture.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod cli_support;

use cli_support::Sandbox;
use serde_json::json;
use testkit::{HttpFixture, HttpFixtureOptions};

fn sandbox(test: &str) -> Sandbox {
    Sandbox::labelled("plain-errors", test).without_cache()
}

/// A port on 127.0.0.1 nothing listens on.
fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

#[test]
fn an_unreachable_server_and_a_missing_command_are_said_in_words() {
    let sandbox = sandbox("words");
    let url = format!("http://127.0.0.1:{}/mcp", closed_port());
    sandbox.write_mcp_json(&json!({
        "down": {"type": "http", "url": url},
        "nocmd": {"command": "/nonexistent/agent-session-test-prog"},
    }));
    let down = sandbox.run(&["test", "down"]);
    assert_eq!(down.code, Some(1), "{down:?}");

    assert!(
        down.stderr.contains(&url)
            && down
                .stderr
                .contains("could not connect: connection refused"),
        "{down:?}"
    );
    for internal in ["client error", "tcp connect error", "os error"] {
        assert!(!down.stderr.contains(internal), "{internal}: {down:?}");
    }
    // The whole chain is there for whoever asks for it.
    let mut debug = sandbox.command(&["test", "down"]);
    debug.env("RUST_LOG", "debug");
    let debug = cli_support::run_to_end(debug, None);
    assert!(debug.stderr.contains("tcp connect error"), "{debug:?}");
    let nocmd = sandbox.run(&["test", "nocmd"]);
    assert_eq!(nocmd.code, Some(1), "{nocmd:?}");
    assert!(
        nocmd.stderr.contains(
            "could not start `/nonexistent/agent-session-test-prog`: no such command (check its \
             name, and that it is on PATH)"
        ),
        "{nocmd:?}"
    );
    for internal in ["entity not found", "os error"] {
        assert!(!nocmd.stderr.contains(internal), "{internal}: {nocmd:?}");
    }
}

#[test]
fn sse_on_a_streamable_http_url_says_to_drop_the_transport() {
    let web = HttpFixture::start(HttpFixtureOptions::default());
    let sandbox = sandbox("sse-on-http");
    sandbox
        .run(&["add", "web", "-t", "sse", &web.url()])
        .assert_code(0);
    let tested = sandbox.run(&["test", "web"]);
    assert_eq!(tested.code, Some(1), "{tested:?}");
    assert!(
        tested.stderr.contains("drop `-t sse`"),
        "the fix is said: {tested:?}"
    );
}

/// A server given as `http` that refuses the initialize POST with 400 and the legacy GET too:
/// the error is the POST's refusal, not advice to drop a `-t sse` nobody gave.
#[test]
fn an_http_server_refusing_both_transports_is_not_told_to_drop_sse() {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    // One connection per request (the answer closes it), for as long as the test runs.
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let mut stream = stream.unwrap();
            stream
                .set_read_timeout(Some(std::time::Duration::from_secs(5)))
                .unwrap();
            let mut request = [0_u8; 8192];
            let _ = stream.read(&mut request);
            let body = "not an MCP endpoint";
            let _ = write!(
                stream,
                "HTTP/1.1 400 Bad Request\r\ncontent-type: text/plain\r\ncontent-length: {}\r\n\
                 connection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    let sandbox = sandbox("http-400");
    let url = format!("http://127.0.0.1:{port}/mcp");
    sandbox.write_mcp_json(&json!({"refusing": {"type": "http", "url": url}}));
    let tested = sandbox.run(&["test", "refusing"]);
    assert_eq!(tested.code, Some(1), "{tested:?}");
    assert!(
        tested.stderr.contains("400") && !tested.stderr.contains("-t sse"),
        "{tested:?}"
    );
}

/// An answer over `--max-message-bytes` fails its call with one line that says so, and
/// nothing else (no warning beside it saying the same).
#[test]
fn an_answer_over_the_message_limit_is_said_once() {
    let sandbox = sandbox("too-large");
    sandbox.write_mcp_json(&json!({"big": sandbox.fixture("big", |server| server)}));
    let outcome = sandbox.run(&[
        "call",
        "big/huge",
        "--arg",
        "bytes=5000",
        "--max-message-bytes",
        "2048",
    ]);
    assert_eq!(outcome.code, Some(1), "{outcome:?}");
    let lines: Vec<&str> = outcome.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{outcome:?}");
    assert!(
        lines[0].contains("2048") && !lines[0].contains("WARN"),
        "{outcome:?}"
    );
}

/// With `RUST_LOG=debug`, each log line about a server names it once (the transport's tasks
/// log in a span of their own, not nested in the manager's).
#[test]
fn a_log_line_names_its_server_once() {
    let sandbox = sandbox("log-span");
    sandbox.write_mcp_json(&json!({"fx": sandbox.fixture("fx", |server| server)}));
    let mut command = sandbox.command(&["call", "fx/change_tools"]);
    command.env("RUST_LOG", "debug");
    let outcome = cli_support::run_to_end(command, None);
    assert_eq!(outcome.code, Some(0), "{outcome:?}");
    assert!(
        outcome
            .stderr
            .contains("mcp_server{server=fx}: server notification"),
        "{outcome:?}"
    );
    for line in outcome.stderr.lines() {
        assert!(
            line.matches("mcp_server{").count() <= 1,
            "named twice: {line}"
        );
    }
}

/// A server that connects but does not answer `test`'s ping: the failure is the server's, for
/// a script as for a person.
#[test]
fn a_test_that_fails_on_the_servers_side_is_a_server_failure() {
    let sandbox = sandbox("ping-hangs");
    sandbox
        .write_mcp_json(&json!({"mute": sandbox.fixture("mute", |server| server.hang_at("ping"))}));
    let outcome = sandbox.run(&["--json", "test", "mute", "--timeout-ms", "300"]);
    assert_eq!(outcome.code, Some(1), "{outcome:?}");
    let json = outcome.json();
    assert_eq!(json["error"]["kind"], "server", "{json}");
    assert!(
        json["error"]["message"]
            .as_str()
            .is_some_and(|message| message.contains("did not answer ping")),
        "{json}"
    );
}

/// A call that fails (its server died mid-call) is said as every other error is, without the
/// `MCP error: ` the model's copy of it starts with; the same in `--json`.
#[test]
fn a_failed_call_is_said_without_the_models_prefix() {
    let sandbox = sandbox("call-failed");
    sandbox.write_mcp_json(&json!({"fx": sandbox.fixture("fx", |server| server)}));
    let outcome = sandbox.run(&["call", "fx/crash", "{}"]);
    assert_eq!(outcome.code, Some(1), "{outcome:?}");
    assert!(
        outcome
            .stderr
            .starts_with("agent-session: MCP server \"fx\""),
        "{outcome:?}"
    );
    let json = sandbox.run(&["--json", "call", "fx/crash", "{}"]).json();
    let message = json["error"]["message"].as_str().unwrap_or_default();
    assert!(message.starts_with("MCP server \"fx\""), "{json}");
}

/// An answer over the message limit from a Streamable HTTP server is said as the client's
/// refusal it is, not as an error the server answered with (nor with a JSON-RPC code).
#[test]
fn an_http_answer_over_the_limit_is_not_the_servers_error() {
    let web = HttpFixture::start(HttpFixtureOptions::default());
    let sandbox = sandbox("http-too-large");
    sandbox.write_mcp_json(&json!({"web": {"type": "http", "url": web.url()}}));
    let outcome = sandbox.run(&["test", "web", "--max-message-bytes", "300"]);
    assert_eq!(outcome.code, Some(1), "{outcome:?}");
    assert!(
        outcome.stderr.contains("longer than 300 bytes"),
        "{outcome:?}"
    );
    for internal in ["the server answered with an error", "JSON-RPC error"] {
        assert!(
            !outcome.stderr.contains(internal),
            "{internal}: {outcome:?}"
        );
    }
}
