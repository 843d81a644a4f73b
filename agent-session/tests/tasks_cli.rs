//! The Tasks extension on the command line, against the TypeScript tasks server of `interop/`
//! (`tasks_server.mjs`: the SDK 2.4 with `@modelcontextprotocol/ext-tasks`, over HTTP, one
//! process for every CLI run so that a task outlives the CLI that started it, logging each
//! `tasks/get`, `tasks/update` and `tasks/cancel` it receives).
//!
//! `call` follows a task to its result and names it in `--json`; a task asking for input gets
//! the CLI's answer (declined, in a pipe); Ctrl-C cancels the task on the server; a CLI killed
//! mid-call leaves its task in the ledger, where `tasks` (a second process) finds it, `task`
//! shows its result and `cancel` cancels one.
//!
//! Ignored under a plain `cargo test` because it needs the interop peers; `cargo xtask ci`
//! installs them and runs it.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod cli_support;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use cli_support::{LIMIT, Sandbox, finish, start};
use serde_json::{Value, json};
use testkit::{RemotePeer, RunningPeer, task_log};

/// A sandbox whose project configures the tasks server (over HTTP) as `tasks`.
fn sandbox_with_tasks(test: &str) -> (Sandbox, RunningPeer, PathBuf) {
    let sandbox = Sandbox::labelled("tasks", test).without_cache();
    let log = sandbox.root.join("tasks.log");
    let running = RemotePeer::TypeScriptTasks.start_with_log(&log);
    sandbox.write_mcp_json(&json!({"tasks": {"type": "http", "url": running.url()}}));
    (sandbox, running, log)
}

/// The CLI's ledger of the tasks it has not seen end.
fn ledger(sandbox: &Sandbox) -> Vec<Value> {
    let path = sandbox.home.join(".local/state/agent-session/tasks.json");
    match std::fs::read_to_string(&path) {
        Ok(text) => serde_json::from_str::<Value>(&text).unwrap()["tasks"]
            .as_array()
            .cloned()
            .unwrap_or_default(),
        Err(_) => Vec::new(),
    }
}

/// Waits (within [`LIMIT`]) until the ledger keeps a task; its id.
fn kept_task(sandbox: &Sandbox) -> String {
    let deadline = Instant::now() + LIMIT;
    loop {
        if let Some(task) = ledger(sandbox).first() {
            return task["taskId"].as_str().unwrap().to_owned();
        }
        assert!(Instant::now() < deadline, "no task was kept");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
#[ignore = "needs the pinned interop peers (cargo xtask interop)"]
fn a_call_that_becomes_a_task_gives_its_result_and_names_it_in_json() {
    let (sandbox, _running, log) = sandbox_with_tasks("completes");
    let called = sandbox
        .run(&["call", "tasks/slow_sum", r#"{"a": 2, "b": 5}"#, "--json"])
        .assert_code(0)
        .json();
    assert_eq!(
        called["structured_content"],
        json!({"sum": 7}),
        "{called:#}"
    );
    let task_id = called["task"]["taskId"].as_str().expect("the task's id");
    assert_eq!(called["task"]["server"], "tasks");
    assert_eq!(called["task"]["status"], "completed");
    assert!(task_log(&log).contains(&format!("tasks/get {task_id}")));
    // Seen to end: nothing is left for `tasks`.
    assert_eq!(ledger(&sandbox), Vec::<Value>::new());
    let text = sandbox.run(&["call", "tasks/slow_sum", r#"{"a": 1, "b": 1}"#]);
    text.assert_code(0);
    assert_eq!(text.stdout.trim(), "2", "{}", text.stderr);
}

#[test]
#[ignore = "needs the pinned interop peers (cargo xtask interop)"]
fn a_task_asking_for_input_gets_the_clis_answer() {
    let (sandbox, _running, log) = sandbox_with_tasks("input");
    // Nobody can answer in a pipe: the CLI declines, and says so.
    let called = sandbox.run(&["call", "tasks/confirm", r#"{"action": "deploy"}"#]);
    called.assert_code(0);
    assert_eq!(called.stdout.trim(), "declined deploy", "{}", called.stderr);
    assert!(
        called.stderr.contains("Confirm deploy?"),
        "{}",
        called.stderr
    );
    assert!(
        task_log(&log)
            .iter()
            .any(|line| line.starts_with("tasks/update ")),
        "{:?}",
        task_log(&log)
    );
}

#[test]
#[ignore = "needs the pinned interop peers (cargo xtask interop)"]
fn ctrl_c_cancels_the_task_on_the_server() {
    let (sandbox, _running, log) = sandbox_with_tasks("ctrl-c");
    let running = start(sandbox.command(&["call", "tasks/endless", "--json"]), None);
    let task_id = kept_task(&sandbox);
    testkit::signal_process(i32::try_from(running.child.0.id()).unwrap(), libc::SIGINT);
    let ended = finish(running);
    ended.assert_code(130);
    assert!(
        ended.stderr.contains(&format!("task {task_id}")),
        "{}",
        ended.stderr
    );
    assert!(
        task_log(&log).contains(&format!("tasks/cancel {task_id}")),
        "{:?}",
        task_log(&log)
    );
    assert_eq!(ledger(&sandbox), Vec::<Value>::new());
    // The server says so too, to another process.
    let shown = sandbox.run(&["task", "tasks", &task_id, "--json"]).json();
    assert_eq!(shown["status"], "cancelled", "{shown:#}");
    sandbox.assert_no_server_left("ctrl-c");
}

#[test]
#[ignore = "needs the pinned interop peers (cargo xtask interop)"]
fn a_task_left_by_a_killed_cli_is_found_and_finished_by_another() {
    let (sandbox, _running, _log) = sandbox_with_tasks("resumed");
    let running = start(
        sandbox.command(&[
            "call",
            "tasks/slow_sum",
            r#"{"a": 20, "b": 22, "steps": 8}"#,
        ]),
        None,
    );
    let task_id = kept_task(&sandbox);
    // Killed: it cancels nothing and forgets nothing.
    testkit::signal_process(i32::try_from(running.child.0.id()).unwrap(), libc::SIGKILL);
    let _ = finish(running);

    let listed = sandbox.run(&["tasks", "--json"]).assert_code(0).json();
    let tasks = listed["tasks"].as_array().unwrap();
    assert_eq!(tasks.len(), 1, "{listed:#}");
    assert_eq!(tasks[0]["taskId"], task_id.as_str());
    assert_eq!(tasks[0]["tool"], "mcp_tasks_slow_sum");

    // Asked again until it has ended: then its result, and it is forgotten.
    let deadline = Instant::now() + LIMIT;
    let shown = loop {
        let shown = sandbox
            .run(&["task", "tasks", &task_id, "--json"])
            .assert_code(0)
            .json();
        if shown["ended"] == true {
            break shown;
        }
        assert_eq!(shown["status"], "working", "{shown:#}");
        assert!(Instant::now() < deadline, "the task never ended");
        std::thread::sleep(Duration::from_millis(200));
    };
    assert_eq!(shown["status"], "completed", "{shown:#}");
    assert_eq!(shown["result"]["structured_content"], json!({"sum": 42}));
    assert_eq!(ledger(&sandbox), Vec::<Value>::new());
    let text = sandbox.run(&["task", "tasks", &task_id]);
    assert!(
        text.stdout
            .starts_with(&format!("task {task_id} of tasks: completed")),
        "{}",
        text.stdout
    );
}

#[test]
#[ignore = "needs the pinned interop peers (cargo xtask interop)"]
fn cancel_asks_the_server_to_cancel_a_task_another_cli_started() {
    let (sandbox, _running, log) = sandbox_with_tasks("cancel");
    let running = start(sandbox.command(&["call", "tasks/endless"]), None);
    let task_id = kept_task(&sandbox);
    testkit::signal_process(i32::try_from(running.child.0.id()).unwrap(), libc::SIGKILL);
    let _ = finish(running);
    assert!(
        !task_log(&log)
            .iter()
            .any(|line| line.starts_with("tasks/cancel"))
    );

    let cancelled = sandbox.run(&["cancel", "tasks", &task_id]);
    cancelled.assert_code(0);
    assert!(
        cancelled
            .stdout
            .starts_with(&format!("Asked tasks to cancel task {task_id}.")),
        "{}",
        cancelled.stdout
    );
    assert!(
        cancelled.stdout.contains(": cancelled"),
        "{}",
        cancelled.stdout
    );
    assert!(task_log(&log).contains(&format!("tasks/cancel {task_id}")));
    assert_eq!(ledger(&sandbox), Vec::<Value>::new());
    let listed = sandbox.run(&["tasks"]).assert_code(0).stdout.clone();
    assert!(listed.starts_with("No task is waiting"), "{listed}");
}

#[test]
#[ignore = "needs the pinned interop peers (cargo xtask interop)"]
fn task_commands_of_a_server_without_tasks_say_so() {
    let sandbox = Sandbox::labelled("tasks", "not-offered").without_cache();
    let running = RemotePeer::TypeScriptStateless.start();
    sandbox.write_mcp_json(&json!({"plain": {"type": "http", "url": running.url()}}));
    let shown = sandbox.run(&["task", "plain", "some-id"]);
    shown.assert_code(1);
    assert!(shown.stderr.contains("tasks"), "{}", shown.stderr);
}

#[test]
#[ignore = "needs the pinned interop peers (cargo xtask interop)"]
fn on_a_terminal_call_shows_the_tasks_status_as_it_changes() {
    let (sandbox, _running, _log) = sandbox_with_tasks("terminal");
    let (code, bytes) = cli_support::run_on_terminal(
        sandbox.command(&["call", "tasks/slow_sum", r#"{"a": 2, "b": 5, "steps": 3}"#]),
        cli_support::OnTerminal::Stderr,
        200,
    );
    assert_eq!(code, Some(0));
    let screen = String::from_utf8_lossy(&bytes);
    // Polled every 100 ms, a step of 150 ms may pass unseen: the first and the last are not.
    for status in [
        "task working: step 1 of 3",
        "task completed: sum of 2 and 5",
    ] {
        assert!(screen.contains(status), "{status} not shown: {screen:?}");
    }
}

#[test]
#[ignore = "needs the pinned interop peers (cargo xtask interop)"]
fn the_shell_runs_the_task_commands() {
    let (sandbox, _running, log) = sandbox_with_tasks("shell");
    let running = start(sandbox.command(&["call", "tasks/endless"]), None);
    let task_id = kept_task(&sandbox);
    testkit::signal_process(i32::try_from(running.child.0.id()).unwrap(), libc::SIGKILL);
    let _ = finish(running);

    let script = format!("tasks\ntask tasks {task_id}\n/mcp cancel tasks {task_id}\ntasks\n");
    let shell = sandbox.run_with_input(&["shell", "--json"], &script);
    shell.assert_code(0);
    let replies: Vec<Value> = shell
        .stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(replies.len(), 4, "{}", shell.stdout);
    assert_eq!(replies[0]["output"]["tasks"][0]["taskId"], task_id.as_str());
    assert_eq!(replies[1]["output"]["status"], "working");
    assert_eq!(replies[2]["output"]["cancelRequested"], true);
    assert_eq!(replies[3]["output"]["tasks"], json!([]));
    assert!(task_log(&log).contains(&format!("tasks/cancel {task_id}")));
}

#[test]
#[ignore = "needs the pinned interop peers (cargo xtask interop)"]
fn a_call_past_its_timeout_cancels_its_task() {
    let (sandbox, _running, log) = sandbox_with_tasks("timeout");
    let called = sandbox.run(&["call", "tasks/endless", "--timeout-ms", "1500"]);
    called.assert_code(1);
    assert!(
        called.stderr.contains("timed out after 1500 ms"),
        "{}",
        called.stderr
    );
    let cancelled: Vec<String> = task_log(&log)
        .into_iter()
        .filter(|line| line.starts_with("tasks/cancel "))
        .collect();
    assert_eq!(cancelled.len(), 1, "{:?}", task_log(&log));
    assert_eq!(ledger(&sandbox), Vec::<Value>::new());
}
