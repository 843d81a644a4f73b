//! The launcher every stdio server of the `agent-session` binary is started through
//! (`agent-session-launch`), end to end: a CLI killed with SIGKILL takes every server with it,
//! and everything each server started in its process group; a server's exit is reported as the
//! server's own, though the launcher stays between the CLI and the server.
//!
//! A SIGKILL gives the CLI no chance to stop its servers: the launcher notices its parent's death
//! and kills the server's whole process group. The fixture servers of that test are deaf to their
//! stdin closing and to SIGTERM, and leave a grandchild (`--sleep-forever`) in their group, so
//! only that group kill ends them.
//!
//! A server may also leave a daemon that detached itself the classic way (fork, `setsid()`,
//! fork again: a session and a process group of its own, its parent gone). No group signal
//! reaches it; the launcher, a child subreaper, adopts it and kills it when the server stops,
//! when the server exits by itself, and when the CLI is gone, however it ended. Those tests
//! check that the daemon is gone for good: not alive, and not a zombie either.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod cli_support;

use std::io::{BufRead, BufReader, Write};
#[cfg(target_os = "linux")]
use std::path::{Path, PathBuf};
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

/// A daemon a fixture server left (`--daemon FILE`), named by its pid and start time; killed
/// when dropped if it is still there, so that a failing test leaves nothing running.
#[cfg(target_os = "linux")]
struct Daemon {
    pid: i32,
    start: u64,
}

#[cfg(target_os = "linux")]
impl Daemon {
    /// The daemon whose pid file is `file` (there once its server serves), alive or not.
    fn of(file: &Path) -> Self {
        let text = std::fs::read_to_string(file)
            .unwrap_or_else(|error| panic!("no daemon pid file {}: {error}", file.display()));
        let mut fields = text.split_whitespace();
        let pid = fields.next().unwrap().parse().unwrap();
        let start = fields.next().unwrap().parse().unwrap();
        Self { pid, start }
    }

    /// The daemon while its server runs: there, and alive.
    fn running(file: &Path) -> Self {
        let daemon = Self::of(file);
        assert!(
            testkit::process_is_alive(daemon.pid),
            "daemon {} is not running",
            daemon.pid
        );
        daemon
    }

    /// Waits (bounded, only so that a failure cannot hang) for the daemon to be gone for good.
    fn assert_gone(&self, after: &str) {
        let gone = testkit::wait_until(PROCESS_LIMIT, || {
            testkit::process_is_gone(self.pid, self.start)
        });
        // Its state and parent, as `/proc/PID/stat` shows them after the command name.
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.pid)).unwrap_or_default();
        let state: Vec<&str> = stat
            .rsplit_once(')')
            .map(|(_, rest)| rest.split_whitespace().take(2).collect())
            .unwrap_or_default();
        assert!(
            gone,
            "the daemon {} outlived {after} (state and parent: {state:?})",
            self.pid,
        );
    }
}

#[cfg(target_os = "linux")]
impl Drop for Daemon {
    fn drop(&mut self) {
        if testkit::process_start_time(self.pid) == Some(self.start) {
            testkit::kill_process(self.pid);
        }
    }
}

/// Kills, when dropped, the daemon whose pid file this is, if there is one still running: a
/// server started again writes a new one.
#[cfg(target_os = "linux")]
struct DaemonFile(PathBuf);

#[cfg(target_os = "linux")]
impl Drop for DaemonFile {
    fn drop(&mut self) {
        if self.0.exists() {
            let text = std::fs::read_to_string(&self.0).unwrap_or_default();
            let mut fields = text.split_whitespace().map(str::parse::<u64>);
            if let (Some(Ok(pid)), Some(Ok(start))) = (fields.next(), fields.next()) {
                drop(Daemon {
                    pid: i32::try_from(pid).unwrap_or(0),
                    start,
                });
            }
        }
    }
}

#[cfg(target_os = "linux")]
impl Sandbox {
    /// A fixture entry for `server` that leaves a daemon, and the daemon's pid file.
    fn daemon_fixture(
        &self,
        server: &str,
        configure: impl FnOnce(testkit::FixtureServer) -> testkit::FixtureServer,
    ) -> (Value, DaemonFile) {
        let file = self.root.join(format!("{server}.daemon"));
        let entry = self.fixture(server, |fixture| configure(fixture.daemon(&file)));
        (entry, DaemonFile(file))
    }
}

/// The CLI's interactive shell (`shell --json`), its stdin and its output lines.
#[cfg(target_os = "linux")]
struct Shell {
    cli: KillOnDrop,
    stdin: Option<std::process::ChildStdin>,
    lines: mpsc::Receiver<String>,
}

#[cfg(target_os = "linux")]
impl Shell {
    fn start(sandbox: &Sandbox) -> Self {
        let mut command = sandbox.command(&["shell", "--json", "--no-cache"]);
        command.stdin(Stdio::piped());
        let mut cli = KillOnDrop(command.spawn().unwrap());
        let stdin = cli.0.stdin.take();
        let (lines_out, lines) = mpsc::channel();
        let stdout = BufReader::new(cli.0.stdout.take().unwrap());
        std::thread::spawn(move || {
            for line in stdout.lines().map_while(Result::ok) {
                let _ = lines_out.send(line);
            }
        });
        Self { cli, stdin, lines }
    }

    /// Runs one shell line and returns its JSON answer.
    fn run(&mut self, line: &str) -> Value {
        writeln!(self.stdin.as_mut().unwrap(), "{line}").unwrap();
        let reply = self.lines.recv_timeout(LIMIT).unwrap();
        serde_json::from_str(&reply).unwrap()
    }

    fn signal(&mut self, signal: i32) {
        testkit::signal_process(i32::try_from(self.cli.0.id()).unwrap(), signal);
        let _ = self.cli.0.wait();
    }
}

/// Runs `list` with one server, of the kind `configure` makes, that leaves a daemon, and checks
/// that the daemon is gone once `list` has ended.
#[cfg(target_os = "linux")]
fn daemon_goes_when_list_ends(
    test: &str,
    configure: impl FnOnce(testkit::FixtureServer) -> testkit::FixtureServer,
) {
    let sandbox = Sandbox::new(test);
    let (entry, file) = sandbox.daemon_fixture("fx", configure);
    sandbox.write_mcp_json(&json!({ "fx": entry }));
    sandbox
        .run(&["list", "--json", "--no-cache"])
        .assert_code(0);
    Daemon::of(&file.0).assert_gone("the end of `list`");
}

#[cfg(target_os = "linux")]
#[test]
fn a_daemon_a_server_left_goes_when_the_command_ends() {
    daemon_goes_when_list_ends("daemon-end", |fixture| fixture);
}

/// The stop escalates to SIGKILL: the daemon must not survive the launcher.
#[cfg(target_os = "linux")]
#[test]
fn a_daemon_a_deaf_server_left_goes_when_the_command_ends() {
    daemon_goes_when_list_ends("daemon-end-deaf", |fixture| {
        fixture.ignore_stdin_close().ignore_sigterm()
    });
}

#[cfg(target_os = "linux")]
#[test]
fn a_daemon_a_server_left_goes_when_the_server_exits_by_itself() {
    let sandbox = Sandbox::new("daemon-exit");
    let (mut entry, file) = sandbox.daemon_fixture("fx", |fixture| fixture);
    // Not started again, which would leave another daemon.
    entry["reconnect"] = json!(false);
    sandbox.write_mcp_json(&json!({ "fx": entry }));
    let mut shell = Shell::start(&sandbox);
    shell.run("call mcp_fx_pids {}");
    let daemon = Daemon::running(&file.0);
    shell.run("call mcp_fx_crash {}");
    // The CLI is still running: only the launcher can have ended it.
    daemon.assert_gone("its server's exit");
    assert!(shell.cli.0.try_wait().unwrap().is_none(), "the CLI ended");
    drop(shell.stdin.take());
}

/// An orphan the launcher adopted is its child: when it ends, the launcher reaps it, though
/// the server runs on.
#[cfg(target_os = "linux")]
#[test]
fn an_adopted_daemon_that_ends_is_reaped_while_its_server_runs() {
    let sandbox = Sandbox::new("daemon-reaped");
    let (entry, file) = sandbox.daemon_fixture("fx", |fixture| fixture);
    sandbox.write_mcp_json(&json!({ "fx": entry }));
    let mut shell = Shell::start(&sandbox);
    shell.run("call mcp_fx_pids {}");
    let daemon = Daemon::running(&file.0);
    testkit::kill_process(daemon.pid);
    daemon.assert_gone("its own end");
    let reply = shell.run("call mcp_fx_echo {\"message\": \"still here\"}");
    assert_eq!(
        reply["output"]["content"][0]["text"], "still here",
        "{reply}"
    );
    drop(shell.stdin.take());
}

#[cfg(target_os = "linux")]
#[test]
fn a_daemon_a_server_left_goes_with_a_cli_ended_by_sigterm() {
    let sandbox = Sandbox::new("daemon-term");
    let (entry, file) = sandbox.daemon_fixture("fx", |fixture| fixture);
    sandbox.write_mcp_json(&json!({ "fx": entry }));
    let mut shell = Shell::start(&sandbox);
    shell.run("call mcp_fx_pids {}");
    let daemon = Daemon::running(&file.0);
    shell.signal(libc::SIGTERM);
    daemon.assert_gone("the CLI ended by SIGTERM");
}

#[cfg(target_os = "linux")]
#[test]
fn a_daemon_a_server_left_goes_with_a_cli_killed_by_sigkill() {
    let sandbox = Sandbox::new("daemon-kill");
    let (entry, file) = sandbox.daemon_fixture("fx", |fixture| fixture);
    sandbox.write_mcp_json(&json!({ "fx": entry }));
    let mut shell = Shell::start(&sandbox);
    shell.run("call mcp_fx_pids {}");
    let daemon = Daemon::running(&file.0);
    shell.signal(libc::SIGKILL);
    daemon.assert_gone("the CLI killed with SIGKILL");
}
