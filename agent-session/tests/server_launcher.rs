//! The launcher every stdio server of the `agent-session` binary is started through
//! (`agent-session-launch`), end to end: a CLI killed with SIGKILL takes every server with it,
//! and everything each server started in its process group; a server's exit is reported as the
//! server's own, though the launcher stays between the CLI and the server.
//!
//! A SIGKILL gives the CLI no chance to stop its servers: the launcher notices its parent's death
//! and kills the server's whole process group. The fixture servers of that test are deaf to their
//! stdin closing and to SIGTERM, and leave a grandchild (`--sleep-forever`) in their group, so
//! only that group kill ends them.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod cli_support;

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;
use std::sync::mpsc;

use cli_support::{KillOnDrop, LIMIT, PROCESS_LIMIT, Sandbox};
use serde_json::{Value, json};

impl Sandbox {
    /// An empty project and home labelled `launcher`.
    fn new(test: &str) -> Self {
        Self::labelled("launcher", test)
    }
}

/// Kills the processes it holds when dropped, so that a failing test leaves nothing running.
struct Reap(Vec<i32>);

impl Drop for Reap {
    fn drop(&mut self) {
        for pid in &self.0 {
            if testkit::process_is_alive(*pid) {
                testkit::kill_process(*pid);
            }
        }
    }
}

#[test]
fn a_sigkilled_cli_takes_every_server_and_its_grandchildren_with_it() {
    let sandbox = Sandbox::new("groups");
    let deaf = |server| {
        sandbox.fixture(server, |fixture| {
            fixture.ignore_stdin_close().ignore_sigterm().grandchild()
        })
    };
    sandbox.write_mcp_json(&json!({"fx": deaf("fx"), "fy": deaf("fy")}));
    let mut command = sandbox.command(&["shell", "--json", "--no-cache"]);
    command.stdin(Stdio::piped());
    let mut cli = KillOnDrop(command.spawn().unwrap());
    let mut stdin = cli.0.stdin.take().unwrap();
    let (lines_out, lines) = mpsc::channel();
    let stdout = BufReader::new(cli.0.stdout.take().unwrap());
    std::thread::spawn(move || {
        for line in stdout.lines().map_while(Result::ok) {
            let _ = lines_out.send(line);
        }
    });

    // Each server's own pid and its grandchild's, from the fixture's `pids` tool.
    let mut processes = Reap(Vec::new());
    for server in ["fx", "fy"] {
        writeln!(stdin, "call mcp_{server}_pids {{}}").unwrap();
        let reply: Value = serde_json::from_str(&lines.recv_timeout(LIMIT).unwrap()).unwrap();
        let text = reply["output"]["content"][0]["text"].as_str().unwrap();
        let pids: Value = serde_json::from_str(text).unwrap();
        for key in ["pid", "grandchild"] {
            let pid = i32::try_from(pids[key].as_i64().unwrap()).unwrap();
            assert!(testkit::process_is_alive(pid), "{server} {key} {pid}");
            processes.0.push(pid);
        }
    }

    testkit::signal_process(i32::try_from(cli.0.id()).unwrap(), libc::SIGKILL);
    let _ = cli.0.wait();
    for &pid in &processes.0 {
        assert!(
            testkit::wait_until(PROCESS_LIMIT, || !testkit::process_is_alive(pid)),
            "process {pid} ({:?}) outlived the CLI killed with SIGKILL",
            cli_support::args_of(pid)
        );
    }
    drop(stdin);
}

#[test]
fn a_server_that_exits_or_dies_of_a_signal_is_reported_as_it_ended() {
    let sandbox = Sandbox::new("status");
    let shell = |script: &str| json!({"command": "sh", "args": ["-c", script]});
    sandbox.write_mcp_json(&json!({
        "three": shell("echo bye >&2; exit 3"),
        "segv": shell("echo dying >&2; kill -SEGV $$"),
        "term": shell("echo ending >&2; kill -TERM $$"),
    }));
    let list = sandbox.run(&["list", "--json", "--no-cache"]);
    list.assert_code(1);
    let list = list.json();
    let error_of = |name: &str| {
        let servers = list["servers"].as_array().unwrap();
        let server = servers
            .iter()
            .find(|server| server["name"] == name)
            .unwrap();
        server["error"].as_str().unwrap().to_owned()
    };
    for (server, ended) in [
        ("three", "server exited with status 3: bye"),
        ("segv", "server exited with signal 11: dying"),
        ("term", "server exited with signal 15: ending"),
    ] {
        let error = error_of(server);
        assert!(error.contains(ended), "{server}: {error}");
    }
}
