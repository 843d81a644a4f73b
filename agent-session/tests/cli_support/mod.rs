//! Test support for the tests that run the `agent-session` binary: a throw-away project and
//! home ([`Sandbox`]) with fixture servers marked so that `/proc` can be searched for them,
//! the binary as a [`Command`] that reads nothing of the user's, runs bounded by [`LIMIT`] that
//! end in an [`Outcome`], and a check that no server outlived its command.
//!
//! Each test file gives `Sandbox` a `new(test)` of its own that calls [`Sandbox::labelled`] with
//! the file's label and writes the servers its tests need.

// Each test binary uses a different subset of these helpers.
#![allow(dead_code, unreachable_pub)]
// Helpers panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};
use testkit::FixtureServer;
pub use testkit::Hold;

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_agent-session");
/// The longest any one command may take before the test calls it hung.
pub const LIMIT: Duration = Duration::from_secs(90);
/// How long a server process may take to go away after its command ended.
pub const PROCESS_LIMIT: Duration = Duration::from_secs(5);

/// A temporary project and home, removed at the end.
pub struct Sandbox {
    pub root: PathBuf,
    pub project: PathBuf,
    pub home: PathBuf,
    /// Every fixture of this sandbox has a `--name` starting with this.
    pub marker: String,
    /// Whether every [`command`](Self::command) starts with `--no-cache`.
    no_cache: bool,
}

impl Sandbox {
    /// An empty project and home under `agent-session-<label>-<test>-…` in the temporary
    /// folder; the marker is `<label>-<test>-…-`.
    pub fn labelled(label: &str, test: &str) -> Self {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let stamp = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let unique = format!(
            "{}-{}-{stamp}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        );
        let root = std::env::temp_dir().join(format!("agent-session-{label}-{test}-{unique}"));
        let project = root.join("project");
        let home = root.join("home");
        std::fs::create_dir_all(&project).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(root.join("tmp")).unwrap();
        Self {
            root,
            project,
            home,
            marker: format!("{label}-{test}-{unique}-"),
            no_cache: false,
        }
    }

    /// Every later [`command`](Self::command) of the binary starts with `--no-cache`.
    pub fn without_cache(mut self) -> Self {
        self.no_cache = true;
        self
    }

    /// A fixture server entry for `.mcp.json`, marked with this sandbox's marker.
    pub fn fixture(
        &self,
        server: &str,
        configure: impl FnOnce(FixtureServer) -> FixtureServer,
    ) -> Value {
        let (program, args) =
            configure(FixtureServer::new().name(format!("{}{server}", self.marker))).command();
        json!({"command": program.display().to_string(), "args": args})
    }

    /// Where the server `name` of [`witnessed`](Self::witnessed) notes that it was started.
    pub fn witness(&self, name: &str) -> PathBuf {
        self.root.join(format!("{name}-started"))
    }

    /// A fixture server entry whose command first leaves its [`witness`](Self::witness) file,
    /// with `env`: a test sees whether it was ever started.
    pub fn witnessed(&self, name: &str, env: &Value) -> Value {
        let (program, args) = FixtureServer::new()
            .name(format!("{}{name}", self.marker))
            .command();
        let script = format!(
            "touch '{}'; exec \"$0\" \"$@\"",
            self.witness(name).display()
        );
        let mut all = vec!["-c".to_owned(), script, program.display().to_string()];
        all.extend(args);
        json!({"command": "sh", "args": all, "env": env})
    }

    /// Writes the project's `.mcp.json` (Claude Code's project file) and approves its servers
    /// the way a Claude Code user would have (`enableAllProjectMcpServers` for the folder in
    /// `~/.claude.json`): tests are about what runs; a project trust test starts without it.
    pub fn write_mcp_json(&self, servers: &Value) {
        self.write_unapproved_mcp_json(servers);
        let approval = json!({"projects": {
            self.project.display().to_string(): {"enableAllProjectMcpServers": true}
        }});
        std::fs::write(self.home.join(".claude.json"), approval.to_string()).unwrap();
    }

    /// Writes the project's `.mcp.json`, nothing approved.
    pub fn write_unapproved_mcp_json(&self, servers: &Value) {
        let text = serde_json::to_string_pretty(&json!({ "mcpServers": servers })).unwrap();
        std::fs::write(self.mcp_json(), text).unwrap();
    }

    /// The project's `.mcp.json` (Claude Code's project file).
    pub fn mcp_json(&self) -> PathBuf {
        self.project.join(".mcp.json")
    }

    /// The user's native file, where `/mcp disable` lists servers of other tools.
    pub fn user_file(&self) -> PathBuf {
        self.home.join(".config/agent-session/mcp.json")
    }

    pub fn cache_dir(&self) -> String {
        self.root.join("cache").display().to_string()
    }

    /// The binary in the project folder, with this sandbox's home and nothing of the user's.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut command = self.command_of(BIN, &[]);
        if self.no_cache {
            command.arg("--no-cache");
        }
        command.args(args);
        command
    }

    /// `program` run as [`command`](Self::command) runs the binary.
    pub fn command_of(&self, program: &str, args: &[&str]) -> Command {
        let mut command = Command::new(program);
        command
            .args(args)
            .current_dir(&self.project)
            .env("HOME", &self.home)
            // Whatever the binary leaves in the temporary folder goes with the sandbox (cut
            // results are kept under the sandbox's home, `~/.cache/<app>/results`).
            .env("TMPDIR", self.root.join("tmp"))
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for var in [
            "XDG_CONFIG_HOME",
            "XDG_CACHE_HOME",
            // The shell's history and the task ledger go under the sandbox's home.
            "XDG_STATE_HOME",
            "CLAUDE_CONFIG_DIR",
            "CODEX_HOME",
            "OPENCODE_CONFIG",
            "NO_COLOR",
            "CLICOLOR_FORCE",
            // Tables on a terminal fit it; the user's width is not the test's.
            "COLUMNS",
        ] {
            command.env_remove(var);
        }
        command
    }

    /// Runs a command to its end (within [`LIMIT`]) and checks that it left no server behind.
    pub fn run(&self, args: &[&str]) -> Outcome {
        let outcome = run_to_end(self.command(args), None);
        self.assert_no_server_left(&format!("{args:?}"));
        outcome
    }

    /// Runs a command with `input` on stdin.
    pub fn run_with_input(&self, args: &[&str], input: &str) -> Outcome {
        let mut command = self.command(args);
        command.stdin(Stdio::piped());
        let outcome = run_to_end(command, Some(input));
        self.assert_no_server_left(&format!("{args:?}"));
        outcome
    }

    /// Polls `/proc` until no process carries this sandbox's marker.
    pub fn assert_no_server_left(&self, after: &str) {
        let marker = self.marker.clone();
        let gone = testkit::wait_until(PROCESS_LIMIT, || pids_with_prefix(&marker).is_empty());
        assert!(
            gone,
            "server processes outlived {after}: {:?}",
            pids_with_prefix(&self.marker)
        );
    }

    /// How many processes of the fixture `server` of this sandbox are running.
    pub fn servers_running(&self, server: &str) -> usize {
        let marker = format!("{}{server}", self.marker);
        pids_with_prefix(&marker)
            .into_iter()
            .filter(|pid| args_of(*pid).contains(&marker))
            .count()
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// What a finished command gave.
#[derive(Debug)]
pub struct Outcome {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub pid: u32,
}

impl Outcome {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|error| {
            panic!(
                "stdout is not JSON ({error}):\n{}\nstderr:\n{}",
                self.stdout, self.stderr
            )
        })
    }

    pub fn assert_code(&self, code: i32) -> &Self {
        assert_eq!(
            self.code,
            Some(code),
            "exit status; stdout:\n{}\nstderr:\n{}",
            self.stdout,
            self.stderr
        );
        self
    }
}

/// Which of the binary's output streams a terminal shows (the other one is discarded).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnTerminal {
    Stdout,
    Stderr,
    Both,
}

/// Runs `command` (stdin empty, `TERM=xterm`, `NO_COLOR=1`) with `streams` on a new
/// pseudo-terminal `columns` wide, to its end (within [`LIMIT`]); its exit status and every
/// byte the terminal received. The command's copies of the terminal's end are dropped here,
/// so reading ends (with EIO) once every process holding it has closed it.
pub fn run_on_terminal(
    command: Command,
    streams: OnTerminal,
    columns: u16,
) -> (Option<i32>, Vec<u8>) {
    let (mut child, shown, mut screen) = start_on_terminal(command, streams, columns);
    let (sender, received) = mpsc::channel();
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let mut buffer = [0; 4096];
        while let Ok(read @ 1..) = screen.read(&mut buffer) {
            bytes.extend_from_slice(&buffer[..read]);
        }
        let _ = sender.send(bytes);
    });
    let deadline = Instant::now() + LIMIT;
    let status = loop {
        if let Some(status) = child.0.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "{shown} did not finish");
        std::thread::sleep(Duration::from_millis(20));
    };
    (status.code(), received.recv_timeout(LIMIT).unwrap())
}

/// As [`run_on_terminal`], and once what the terminal received satisfies `seen` (the text
/// decoded lossily), calls `then`, once; the command's end is awaited as the terminal's: the
/// text is read until every process holding the terminal has closed it (within [`LIMIT`]).
/// `then` is not called when the command ends without `seen` being satisfied.
pub fn run_on_terminal_until(
    command: Command,
    streams: OnTerminal,
    columns: u16,
    seen: impl Fn(&str) -> bool,
    then: impl FnOnce(),
) -> (Option<i32>, Vec<u8>) {
    let (mut child, shown, mut screen) = start_on_terminal(command, streams, columns);
    let (sender, chunks) = mpsc::channel();
    std::thread::spawn(move || {
        let mut buffer = [0; 4096];
        while let Ok(read @ 1..) = screen.read(&mut buffer) {
            if sender.send(buffer[..read].to_vec()).is_err() {
                break;
            }
        }
    });
    let deadline = Instant::now() + LIMIT;
    let mut bytes = Vec::new();
    let mut then = Some(then);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match chunks.recv_timeout(left) {
            Ok(chunk) => bytes.extend_from_slice(&chunk),
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
            Err(mpsc::RecvTimeoutError::Timeout) => panic!(
                "{shown} did not finish; the terminal got:\n{}",
                String::from_utf8_lossy(&bytes)
            ),
        }
        if then.is_some() && seen(&String::from_utf8_lossy(&bytes)) {
            then.take().unwrap()();
        }
    }
    // Every holder of the terminal has closed it: the command has ended, or is ending.
    let status = child.0.wait().unwrap();
    (status.code(), bytes)
}

/// Starts `command` with `streams` on a new pseudo-terminal (see [`run_on_terminal`]); the
/// child, how it is shown, and the terminal's end to read.
fn start_on_terminal(
    mut command: Command,
    streams: OnTerminal,
    columns: u16,
) -> (KillOnDrop, String, std::fs::File) {
    let size = nix::pty::Winsize {
        ws_row: 40,
        ws_col: columns,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    let pty = nix::pty::openpty(Some(&size), None).unwrap();
    let on_terminal = |shown: bool| {
        if shown {
            Stdio::from(pty.slave.try_clone().unwrap())
        } else {
            Stdio::null()
        }
    };
    command
        .env("TERM", "xterm")
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(on_terminal(streams != OnTerminal::Stderr))
        .stderr(on_terminal(streams != OnTerminal::Stdout));
    drop(pty.slave);
    let shown = format!("{command:?}");
    let child = KillOnDrop(command.spawn().unwrap());
    drop(command);
    (child, shown, std::fs::File::from(pty.master))
}

/// A held fixture server's pipe, made in the sandbox.
pub fn hold_pipe(sandbox: &Sandbox, name: &str) -> Hold {
    Hold::in_folder(&sandbox.root, name)
}

/// The entry of server `name` in the output of `list --json`.
pub fn server<'a>(list: &'a Value, name: &str) -> &'a Value {
    list["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|server| server["name"] == name)
        .unwrap_or_else(|| panic!("no server {name} in {list:#}"))
}

/// Kills the child if the test gives up on it, so a failing test leaves nothing running.
pub struct KillOnDrop(pub Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        if matches!(self.0.try_wait(), Ok(None)) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

/// Reads `source` to its end on a thread of its own; the text comes on the receiver.
pub fn reader(mut source: impl Read + Send + 'static) -> mpsc::Receiver<String> {
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        let mut text = String::new();
        let _ = source.read_to_string(&mut text);
        let _ = sender.send(text);
    });
    receiver
}

/// A command started, its output being read.
pub struct Running {
    pub child: KillOnDrop,
    pub shown: String,
    pub stdout: mpsc::Receiver<String>,
    pub stderr: mpsc::Receiver<String>,
}

/// Starts `command` with `input` on stdin (then closed).
pub fn start(mut command: Command, input: Option<&str>) -> Running {
    let mut child = KillOnDrop(command.spawn().unwrap());
    if let Some(input) = input {
        let mut stdin = child.0.stdin.take().unwrap();
        stdin.write_all(input.as_bytes()).unwrap();
        // Dropping stdin is the end of input.
    }
    Running {
        stdout: reader(child.0.stdout.take().unwrap()),
        stderr: reader(child.0.stderr.take().unwrap()),
        shown: format!("{command:?}"),
        child,
    }
}

/// Waits (within [`LIMIT`]) for a started command to end.
pub fn finish(mut running: Running) -> Outcome {
    let deadline = Instant::now() + LIMIT;
    let status = loop {
        if let Some(status) = running.child.0.try_wait().unwrap() {
            break status;
        }
        assert!(
            Instant::now() < deadline,
            "{} did not finish within {LIMIT:?}",
            running.shown
        );
        std::thread::sleep(Duration::from_millis(10));
    };
    Outcome {
        code: status.code(),
        stdout: running.stdout.recv_timeout(LIMIT).unwrap(),
        stderr: running.stderr.recv_timeout(LIMIT).unwrap(),
        pid: running.child.0.id(),
    }
}

/// Starts `command` and waits for it to end (see [`start`] and [`finish`]).
pub fn run_to_end(command: Command, input: Option<&str>) -> Outcome {
    finish(start(command, input))
}

/// The arguments of a process, from `/proc/<pid>/cmdline`.
pub fn args_of(pid: i32) -> Vec<String> {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|bytes| {
            bytes
                .split(|byte| *byte == 0)
                .map(|arg| String::from_utf8_lossy(arg).into_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// Live processes with an argument that starts with `prefix`.
pub fn pids_with_prefix(prefix: &str) -> Vec<i32> {
    testkit::processes_with_arg_where(|arg| arg.starts_with(prefix))
}

/// The shell on a pipe the test writes to line by line, reading one JSON line per command
/// (started with `--json` among `args`).
pub struct PipedShell {
    child: KillOnDrop,
    stdin: Option<std::process::ChildStdin>,
    lines: mpsc::Receiver<String>,
}

impl PipedShell {
    pub fn start(sandbox: &Sandbox, args: &[&str]) -> Self {
        use std::io::{BufRead as _, BufReader};
        let mut command = sandbox.command(args);
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = KillOnDrop(command.spawn().unwrap());
        let stdin = child.0.stdin.take();
        let stdout = BufReader::new(child.0.stdout.take().unwrap());
        let (sender, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in stdout.lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        // stderr is drained so that the child never blocks on it.
        let _stderr = reader(child.0.stderr.take().unwrap());
        Self {
            child,
            stdin,
            lines,
        }
    }

    pub fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    }

    /// Sends a command and returns its whole JSON line (`{"command", "ok", "output"}`).
    pub fn reply(&mut self, line: &str) -> Value {
        self.send(line);
        self.reply_to(line)
    }

    /// The whole JSON line answering `line`, which was sent.
    pub fn reply_to(&mut self, line: &str) -> Value {
        let reply = self
            .lines
            .recv_timeout(LIMIT)
            .unwrap_or_else(|_| panic!("no answer to {line:?} within {LIMIT:?}"));
        let reply: Value = serde_json::from_str(&reply)
            .unwrap_or_else(|error| panic!("{line:?}: not a JSON line ({error}): {reply}"));
        assert_eq!(reply["command"], line, "{reply}");
        reply
    }

    /// Sends a command and returns its output, which must say `ok`.
    pub fn ok(&mut self, line: &str) -> Value {
        let reply = self.reply(line);
        assert_eq!(reply["ok"], true, "{line:?} failed: {reply}");
        reply["output"].clone()
    }

    /// Closes the shell's stdin (its end of input) and waits for it to exit; its status.
    pub fn wait(mut self) -> Option<i32> {
        drop(self.stdin.take());
        let deadline = Instant::now() + LIMIT;
        loop {
            if let Some(status) = self.child.0.try_wait().unwrap() {
                return status.code();
            }
            assert!(Instant::now() < deadline, "the shell did not exit");
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}
