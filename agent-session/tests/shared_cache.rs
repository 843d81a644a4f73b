//! Twelve agent processes started at once on one tool cache: every one of them offers the
//! cached tools of a server slower than its startup gate.
//!
//! A project has one fixture server whose `tools/list` takes seconds, far past the gate. A first
//! `agent-session tools` run waits for it and fills the cache. Then, three rounds in a row,
//! twelve `agent-session tools --json` processes are started together on the same cache
//! directory (each with its own server process); each must answer with that server's tools
//! marked deferred, which it can only do by reading the cache within its gate. This is what an
//! IDE opening several windows, or a script running several sessions, does. Nothing here
//! asserts a duration: a process that missed the cache answers without the tools (it does not
//! wait for a server whose tools arrive after its gate only if they were cached), and that is
//! what fails.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};
use testkit::FixtureServer;

/// The binary under test.
const BIN: &str = env!("CARGO_BIN_EXE_agent-session");
/// Agent processes started together in each round.
const PROCESSES: usize = 12;
/// Rounds in a row, each of which must give every process its hit.
const ROUNDS: usize = 3;
/// How long the server takes to list its tools: far beyond the startup gate (250 ms).
const SLOW_LIST_MS: u64 = 4_000;
/// Generated tools the server offers (besides its built-in ones).
const TOOLS: usize = 30;
/// How long server processes may take to go away after their agents ended.
const PROCESS_LIMIT: Duration = Duration::from_secs(10);

/// A throw-away project, home and cache directory, removed at the end.
struct Sandbox {
    root: PathBuf,
    project: PathBuf,
    home: PathBuf,
    cache: PathBuf,
    marker: String,
}

impl Sandbox {
    fn new() -> Self {
        let stamp = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let unique = format!("{}-{stamp}", std::process::id());
        let root = std::env::temp_dir().join(format!("agent-session-shared-cache-{unique}"));
        let sandbox = Self {
            project: root.join("project"),
            home: root.join("home"),
            cache: root.join("cache"),
            marker: format!("shared-cache-{unique}-"),
            root,
        };
        std::fs::create_dir_all(&sandbox.project).unwrap();
        std::fs::create_dir_all(&sandbox.home).unwrap();
        sandbox
    }

    /// The project's `.mcp.json` with one slow server, approved the way a Claude Code user
    /// would have approved it.
    fn write_project(&self) {
        let (program, args) = FixtureServer::new()
            .name(format!("{}slow", self.marker))
            .tools(TOOLS)
            .delay("tools/list", SLOW_LIST_MS)
            .command();
        let servers = json!({"mcpServers": {
            "slow": {"command": program.display().to_string(), "args": args}
        }});
        std::fs::write(self.project.join(".mcp.json"), servers.to_string()).unwrap();
        let approval = json!({"projects": {
            self.project.display().to_string(): {"enableAllProjectMcpServers": true}
        }});
        std::fs::write(self.home.join(".claude.json"), approval.to_string()).unwrap();
    }

    /// `agent-session tools --json` on the shared cache directory, started (not awaited).
    fn start_tools(&self) -> Child {
        let mut command = Command::new(BIN);
        command
            .args(["tools", "--json", "--cache-dir"])
            .arg(&self.cache)
            .current_dir(&self.project)
            .env("HOME", &self.home)
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for var in [
            "XDG_CONFIG_HOME",
            "XDG_CACHE_HOME",
            "CLAUDE_CONFIG_DIR",
            "CODEX_HOME",
        ] {
            command.env_remove(var);
        }
        command.spawn().expect("the agent-session binary starts")
    }

    fn assert_no_server_left(&self, after: &str) {
        let gone = testkit::wait_until(PROCESS_LIMIT, || self.servers().is_empty());
        assert!(
            gone,
            "server processes outlived {after}: {:?}",
            self.servers()
        );
    }

    fn servers(&self) -> Vec<i32> {
        let marker = self.marker.clone();
        testkit::processes_with_arg_where(|arg| arg.starts_with(&marker))
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// The `slow` server's tools in a `tools --json` answer, and whether all are deferred.
fn slow_tools(output: &Output) -> (usize, bool) {
    let stdout = String::from_utf8_lossy(&output.stdout);
    let answer: Value = serde_json::from_str(&stdout).unwrap_or_else(|error| {
        panic!(
            "`tools --json` printed no JSON ({error}): stdout {stdout:?}, stderr {:?}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    let tools: Vec<&Value> = answer["tools"]
        .as_array()
        .expect("a tools array")
        .iter()
        .filter(|tool| tool["server"] == "slow")
        .collect();
    let all_deferred = tools.iter().all(|tool| tool["deferred"] == true);
    (tools.len(), all_deferred)
}

fn describe(outputs: &[Output]) -> String {
    outputs
        .iter()
        .enumerate()
        .map(|(index, output)| {
            let (tools, deferred) = slow_tools(output);
            format!(
                "process {index}: {} tools (deferred: {deferred}), stderr {:?}",
                tools,
                String::from_utf8_lossy(&output.stderr)
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn cache_has_files(cache: &Path) -> bool {
    std::fs::read_dir(cache).is_ok_and(|mut entries| entries.next().is_some())
}

#[test]
fn twelve_processes_started_together_all_get_the_cached_tools_within_their_gate() {
    let sandbox = Sandbox::new();
    sandbox.write_project();

    // The first run has no cache entry: it waits for the server, then stores its tools.
    let fill = sandbox.start_tools().wait_with_output().unwrap();
    assert!(fill.status.success(), "the filling run failed: {fill:?}");
    let (listed, deferred) = slow_tools(&fill);
    assert!(
        listed >= TOOLS && !deferred,
        "the filling run lists the live tools: {}",
        describe(std::slice::from_ref(&fill))
    );
    assert!(cache_has_files(&sandbox.cache), "the cache was written");
    sandbox.assert_no_server_left("the filling run");

    for round in 1..=ROUNDS {
        let children: Vec<Child> = (0..PROCESSES).map(|_| sandbox.start_tools()).collect();
        let outputs: Vec<Output> = children
            .into_iter()
            .map(|child| child.wait_with_output().unwrap())
            .collect();
        assert!(
            outputs.iter().all(|output| output.status.success()),
            "round {round}: a process failed:\n{}",
            describe(&outputs)
        );
        let hits = outputs
            .iter()
            .filter(|output| slow_tools(output) == (listed, true))
            .count();
        assert_eq!(
            hits,
            PROCESSES,
            "round {round}: {hits} of {PROCESSES} processes got the cached tools:\n{}",
            describe(&outputs)
        );
        sandbox.assert_no_server_left(&format!("round {round}"));
    }
}
