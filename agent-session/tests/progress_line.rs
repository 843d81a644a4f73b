//! The startup line tells the truth: shown on a terminal (stderr on a pseudo-terminal here), it
//! counts only the servers the command starts, names the servers the startup still waits for
//! past the gate, and never shows in a pipe; `list --timeout-ms` answers in time, with a server
//! that did not connect by then reported as timed out and exit status 1. A slow server is held
//! by the test (`FixtureServer::hold`) until the line has shown what it must, never raced.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod cli_support;

use cli_support::{
    OnTerminal, PipedShell, Sandbox, hold_pipe, run_on_terminal, run_on_terminal_until, server,
};
use serde_json::json;

impl Sandbox {
    /// An empty project run without a cache, so that nothing is deferred and the startup
    /// waits for every server.
    fn new(test: &str) -> Self {
        Self::labelled("progress", test).without_cache()
    }

    /// Runs the binary with stderr on a pseudo-terminal (stdout in a pipe, stdin empty); its
    /// exit status and everything stderr's terminal received.
    fn with_stderr_on_terminal(&self, args: &[&str]) -> (Option<i32>, String) {
        let (code, bytes) = run_on_terminal(self.command(args), OnTerminal::Stderr, 200);
        self.assert_no_server_left(&format!("{args:?}"));
        (code, String::from_utf8_lossy(&bytes).into_owned())
    }

    /// As [`with_stderr_on_terminal`](Self::with_stderr_on_terminal), calling `then` once the
    /// terminal shows `seen`.
    fn with_stderr_on_terminal_until(
        &self,
        args: &[&str],
        seen: impl Fn(&str) -> bool,
        then: impl FnOnce(),
    ) -> (Option<i32>, String) {
        let (code, bytes) =
            run_on_terminal_until(self.command(args), OnTerminal::Stderr, 200, seen, then);
        self.assert_no_server_left(&format!("{args:?}"));
        (code, String::from_utf8_lossy(&bytes).into_owned())
    }
}

/// Whether the line, as the terminal got it, named `server` after `waiting for`.
fn waits_for(screen: &str, server: &str) -> bool {
    screen.split("waiting for ").skip(1).any(|tail| {
        tail.split(['\u{1b}', '\r', '\n'])
            .next()
            .unwrap_or_default()
            .contains(server)
    })
}

#[test]
fn a_command_that_starts_one_server_counts_that_server_alone() {
    let sandbox = Sandbox::new("one");
    let broken = |name: &str| sandbox.fixture(name, |server| server.crash_at("initialize"));
    sandbox.write_mcp_json(&json!({
        "fx": sandbox.fixture("fx", |server| server),
        "broken_a": broken("broken_a"),
        "broken_b": broken("broken_b"),
        "broken_c": broken("broken_c"),
    }));
    let (code, screen) =
        sandbox.with_stderr_on_terminal(&["call", "fx/echo", r#"{"message":"hi"}"#]);
    assert_eq!(code, Some(0), "{screen}");
    assert!(
        screen.contains("connecting 1 MCP server (fx)… "),
        "the line names the one server started:\n{screen}"
    );
    assert!(
        screen.contains("(1 live, 0 deferred, 0 failed)"),
        "servers never started are not counted as failed:\n{screen}"
    );
    assert!(!screen.contains("broken"), "{screen}");
}

#[test]
fn a_server_the_startup_waits_for_is_named_while_it_connects() {
    let sandbox = Sandbox::new("slow");
    // `slow` lists its tools only when the test lets it: once the line has named it.
    let hold = hold_pipe(&sandbox, "slow");
    sandbox.write_mcp_json(&json!({
        "fx": sandbox.fixture("fx", |server| server),
        "slow": sandbox.fixture("slow", |server| server.hold("tools/list", hold.fifo())),
    }));
    let (code, screen) = sandbox.with_stderr_on_terminal_until(
        &["tools"],
        |screen| waits_for(screen, "slow"),
        || hold.release(),
    );
    assert_eq!(code, Some(0), "{screen}");
    let named = waits_for(&screen, "slow");
    assert!(
        named,
        "the line names the server still connecting:\n{screen:?}"
    );
    // The line is written again in place, never once more after itself.
    assert!(
        screen
            .split('\r')
            .all(|row| row.matches("connecting 2 MCP servers").count() <= 1),
        "{screen:?}"
    );
    // The wait's tail goes once the server is in: the line ends with the summary alone.
    let last = screen
        .rsplit('\r')
        .find(|part| part.contains("ready in"))
        .unwrap_or_default();
    assert!(
        last.contains("connecting 2 MCP servers (fx, slow)… ready in")
            && last.contains("(2 live, 0 deferred, 0 failed)"),
        "{screen:?}"
    );

    // In a pipe there is no line at all, and so no wait shown.
    hold.release();
    let piped = sandbox.run(&["tools"]);
    piped.assert_code(0);
    assert!(!piped.stderr.contains("waiting for"), "{}", piped.stderr);
    assert!(!piped.stderr.contains("connecting"), "{}", piped.stderr);
}

#[test]
fn list_with_timeout_ms_reports_a_server_not_connected_in_time_and_fails() {
    let sandbox = Sandbox::new("list-timeout");
    let mut servers = json!({
        "fx": sandbox.fixture("fx", |server| server),
        "stuck": sandbox.fixture("stuck", |server| server.hang_at("initialize")),
    });
    // The server's own timeout is far longer than the test's bound: only the option ends it.
    servers["stuck"]["timeout"] = json!(600_000);
    sandbox.write_mcp_json(&servers);
    // `fx` must connect within the same bound, so the bound is one that a handshake of the
    // fixture meets on any machine however loaded (it takes milliseconds); `stuck` never
    // answers, so it is the option that ends the command, whatever the bound.
    const BOUND: &str = "5000";

    let list = sandbox.run(&["list", "--timeout-ms", BOUND, "--json"]);
    let report = list.assert_code(1).json();
    assert_eq!(server(&report, "fx")["status"], "connected", "{report:#}");
    let stuck = server(&report, "stuck");
    assert_eq!(stuck["status"], "failed", "{report:#}");
    assert!(
        stuck
            .to_string()
            .contains(&format!("timed out after {BOUND}ms")),
        "{report:#}"
    );

    let (code, screen) = sandbox.with_stderr_on_terminal(&["list", "--timeout-ms", BOUND]);
    assert_eq!(code, Some(1), "{screen}");
    assert!(
        screen.contains("(1 live, 0 deferred, 1 failed)"),
        "{screen:?}"
    );
}

#[test]
fn with_cached_tools_the_line_of_list_test_and_get_says_ready_only_once_the_server_is() {
    // With a cache: the second run defers the slow server (its tools are cached). The slow
    // server answers `initialize` only when the test lets it, which on a terminal is once the
    // line has named it as waited for: how slow it is is the test's doing, not the machine's.
    let sandbox = Sandbox::labelled("progress", "warm-cache");
    let hold = hold_pipe(&sandbox, "slow");
    sandbox.write_mcp_json(&json!({
        "fx": sandbox.fixture("fx", |server| server),
        "slow": sandbox.fixture("slow", |server| server.hold("initialize", hold.fifo())),
    }));
    hold.release();
    sandbox.run(&["list"]).assert_code(0);
    for args in [&["list"][..], &["test", "slow"], &["get", "slow"]] {
        let (code, screen) = sandbox.with_stderr_on_terminal_until(
            args,
            |screen| waits_for(screen, "slow"),
            || hold.release(),
        );
        assert_eq!(code, Some(0), "{args:?}: {screen}");
        let named = waits_for(&screen, "slow");
        assert!(
            named,
            "{args:?}: the line names the server it waits for:\n{screen:?}"
        );
        // The summary comes after the wait, and counts the server as live.
        let waiting = screen.find("waiting for ").unwrap();
        let ready = screen.rfind("ready in");
        assert!(
            ready.is_some_and(|ready| ready > waiting),
            "{args:?}: ready only after the wait:\n{screen:?}"
        );
        assert!(
            screen.contains(" 0 deferred, 0 failed)"),
            "{args:?}: ready only once nothing is deferred:\n{screen:?}"
        );
    }
    // The shell's list waits as the command line's does: asked while the server is held, it
    // answers once the server is let through, with the server connected.
    let mut shell = PipedShell::start(&sandbox, &["shell", "--json"]);
    shell.send("/mcp list");
    hold.release();
    let reply = shell.reply_to("/mcp list");
    assert_eq!(
        server(&reply["output"], "slow")["status"],
        "connected",
        "{reply:#}"
    );
    assert_eq!(shell.wait(), Some(0));
    sandbox.assert_no_server_left("the shell");
}

#[test]
fn a_long_call_shows_its_servers_progress_on_a_terminal() {
    let sandbox = Sandbox::new("call-progress");
    sandbox.write_mcp_json(&json!({"fx": sandbox.fixture("fx", |server| server)}));
    let (code, screen) = sandbox.with_stderr_on_terminal(&[
        "call",
        "fx/progress",
        "--arg",
        "steps=3",
        "--arg",
        "interval_ms=150",
    ]);
    assert_eq!(code, Some(0), "{screen}");
    assert!(screen.contains("calling mcp_fx_progress… "), "{screen:?}");
    assert!(screen.contains("3 of 3: step 3"), "{screen:?}");
    assert!(screen.contains("done"), "{screen:?}");
    // In a pipe, nothing but the result.
    let piped = sandbox.run(&[
        "call",
        "fx/progress",
        "--arg",
        "steps=2",
        "--arg",
        "interval_ms=50",
    ]);
    piped.assert_code(0);
    assert!(!piped.stderr.contains("calling"), "{piped:?}");
}
