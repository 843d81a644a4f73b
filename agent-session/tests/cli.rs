//! The `agent-session` binary end to end: the demo, `list` / `tools` / `call` against a project
//! with a fast, a slow and a broken server, `call`'s exit statuses, the shell fed through a pipe,
//! and that no server process outlives any command.
//!
//! Every run gets a temporary project and home (`HOME` set, `XDG_CONFIG_HOME` unset), so the
//! user's own config files are never read or written; every fixture server carries a unique
//! `--name` marker that `/proc` is searched for after each command.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod cli_support;

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use cli_support::{
    BIN, KillOnDrop, LIMIT, Outcome, PROCESS_LIMIT, PipedShell, Running, Sandbox, args_of, finish,
    hold_pipe, pids_with_prefix, reader, run_to_end, server, start,
};
use serde_json::{Value, json};
use testkit::FixtureServer;

impl Sandbox {
    /// An empty project and home labelled `cli`.
    fn new(test: &str) -> Self {
        Self::labelled("cli", test)
    }
}

fn tools_of<'a>(tools: &'a Value, server: &str) -> Vec<&'a Value> {
    tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|tool| tool["server"] == server)
        .collect()
}

fn servers_of(tools: &Value) -> BTreeSet<String> {
    tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["server"].as_str().unwrap().to_owned())
        .collect()
}

fn names_of(tools: &Value) -> BTreeSet<String> {
    tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn demo_walks_through_every_step_and_leaves_nothing_running() {
    let sandbox = Sandbox::new("demo");
    let outcome = sandbox.run(&["demo"]);
    outcome.assert_code(0);
    for expected in [
        "1. Discovery",
        "found 2 servers",
        "2. The startup gate, first run",
        "3. The startup gate, second run",
        "4. Tool calls",
        "\"hello from the demo\"",
        "\"5 words\"",
        "5. /mcp reload",
        // What the step says reload does is what it does: nothing changed, nothing restarts.
        "restarts only the servers whose definition",
        "6. Shutdown",
        "demo server processes left (looked for the marker in /proc): 0",
    ] {
        assert!(
            outcome.stdout.contains(expected),
            "the demo did not print {expected:?}:\n{}\nstderr:\n{}",
            outcome.stdout,
            outcome.stderr
        );
    }
    let demo_marker = format!("agent-session-demo-{}-", outcome.pid);
    assert!(
        testkit::wait_until(PROCESS_LIMIT, || pids_with_prefix(&demo_marker).is_empty()),
        "demo servers outlived the demo"
    );
}

#[test]
fn list_tools_and_call_with_a_fast_a_slow_and_a_broken_server() {
    let sandbox = Sandbox::new("servers");
    // `slow` lists its tools only once the test lets it, and then 1.5 s later: released before
    // a command that waits for it, it is still slow past the gate; kept, it is surely still
    // connecting at the gate (where the command ends, stopping it).
    let hold = hold_pipe(&sandbox, "slow");
    sandbox.write_mcp_json(&json!({
        "fast": sandbox.fixture("fast", |s| s),
        "slow": sandbox.fixture("slow", |s| {
            s.hold("tools/list", hold.fifo()).delay("tools/list", 1500)
        }),
        "broken": {"command": ""},
    }));
    let mcp_json = sandbox.mcp_json().display().to_string();
    let source = json!({
        "provider": "claude-code",
        "provider_name": "Claude Code",
        "path": mcp_json,
        "level": "project",
        // Copilot CLI, Qwen Code and VS Code read the project's `.mcp.json` too.
        "also_used_by": ["vscode", "copilot-cli", "qwen"],
    });

    // list: without a cache the slow server is awaited; the invalid one makes it exit 1.
    hold.release();
    let list = sandbox.run(&["list", "--json", "--no-cache"]);
    let list = list.assert_code(1).json();
    let fast = server(&list, "fast");
    assert_eq!(fast["status"], "connected", "{list:#}");
    assert_eq!(fast["transport"], "stdio");
    assert_eq!(fast["source"], source);
    assert_eq!(fast["tools"], testkit::BUILT_IN_TOOLS);
    assert_eq!(fast["error"], Value::Null);
    // The fixture speaks the handshake era: the version it negotiated.
    assert_eq!(fast["protocol"], "2025-11-25", "{list:#}");
    let slow = server(&list, "slow");
    assert_eq!(slow["status"], "connected", "{list:#}");
    assert_eq!(slow["source"], source);
    assert_eq!(slow["tools"], fast["tools"]);
    assert_eq!(slow["error"], Value::Null);
    let broken = server(&list, "broken");
    assert_eq!(broken["status"], "invalid", "{list:#}");
    assert_eq!(broken["source"], source);
    assert_eq!(broken["tools"], 0);
    assert_eq!(broken["protocol"], Value::Null, "{list:#}");
    assert!(
        broken["error"].as_str().unwrap().contains("\"command\""),
        "{list:#}"
    );
    assert!(
        list["errors"]
            .as_array()
            .unwrap()
            .iter()
            .any(|error| error["server"] == "broken"
                && error["path"] == broken["source"]["path"]
                && error["error"].is_string()),
        "{list:#}"
    );

    // The same as a table.
    hold.release();
    let table = sandbox.run(&["list", "--no-cache"]);
    let table = &table.assert_code(1).stdout;
    assert!(table.starts_with("NAME"), "{table}");
    assert!(
        table
            .lines()
            .any(|line| line.starts_with("broken") && line.contains("invalid")),
        "{table}"
    );

    // tools, twice against one cache: live after waiting, then deferred within the gate (the
    // server held throughout the second run).
    let cache = sandbox.cache_dir();
    hold.release();
    let first = sandbox.run(&["tools", "--json", "--cache-dir", &cache]);
    let first = first.assert_code(0).json();
    let slow_tools = tools_of(&first, "slow");
    assert!(!slow_tools.is_empty(), "{first:#}");
    assert!(
        slow_tools.iter().all(|tool| tool["deferred"] == false),
        "{first:#}"
    );
    let echo = slow_tools
        .iter()
        .find(|tool| tool["name"] == "mcp_slow_echo")
        .unwrap();
    assert_eq!(echo["server"], "slow");
    assert_eq!(echo["tool"], "echo");
    assert!(echo["description"].is_string());
    assert_eq!(echo["input_schema"]["type"], "object");
    assert!(servers_of(&first).contains("fast"));
    assert!(!servers_of(&first).contains("broken"));

    let second = sandbox.run(&["tools", "--json", "--cache-dir", &cache]);
    let second = second.assert_code(0).json();
    let slow_tools = tools_of(&second, "slow");
    assert_eq!(
        slow_tools.len(),
        tools_of(&first, "slow").len(),
        "{second:#}"
    );
    assert!(
        slow_tools.iter().all(|tool| tool["deferred"] == true),
        "{second:#}"
    );
    assert_eq!(names_of(&first), names_of(&second));

    // tools --server.
    let only_fast = sandbox.run(&["tools", "--json", "--cache-dir", &cache, "--server", "fast"]);
    let only_fast = only_fast.assert_code(0).json();
    assert_eq!(servers_of(&only_fast), BTreeSet::from(["fast".to_owned()]));
    sandbox
        .run(&["tools", "--no-cache", "--server", "nope"])
        .assert_code(2);

    // call on the (deferred) slow tool: it waits for its server.
    hold.release();
    let call = sandbox.run(&[
        "call",
        "mcp_slow_echo",
        r#"{"message":"hi"}"#,
        "--cache-dir",
        &cache,
        "--json",
    ]);
    let call = call.assert_code(0).json();
    assert_eq!(call["is_error"], false, "{call:#}");
    assert_eq!(call["content"], json!([{"type": "text", "text": "hi"}]));
    assert_eq!(call["structured_content"], Value::Null);
}

/// `tools --json` says where each tool comes from, live or deferred: the source of its server's
/// definition (provider, file, level) and `mcp:<server> via <provider name>`.
#[test]
fn tools_json_names_where_each_tool_comes_from() {
    let sandbox = Sandbox::new("tool-sources");
    // `slow` lists its tools only when the test lets it: in the second run it is surely still
    // connecting at the gate, its tools deferred.
    let hold = hold_pipe(&sandbox, "slow");
    sandbox.write_mcp_json(&json!({
        "fast": sandbox.fixture("fast", |s| s),
        "slow": sandbox.fixture("slow", |s| s.hold("tools/list", hold.fifo())),
    }));
    let source = json!({
        "provider": "claude-code",
        "provider_name": "Claude Code",
        "path": sandbox.mcp_json().display().to_string(),
        "level": "project",
        "also_used_by": ["vscode", "copilot-cli", "qwen"],
    });
    let cache = sandbox.cache_dir();
    // Live after waiting (the slow server let go), then the slow server's tools deferred from
    // the cache (held).
    for round in 0..2 {
        if round == 0 {
            hold.release();
        }
        let tools = sandbox.run(&["tools", "--json", "--cache-dir", &cache]);
        let tools = tools.assert_code(0).json();
        for server in ["fast", "slow"] {
            let listed = tools_of(&tools, server);
            assert!(!listed.is_empty(), "{tools:#}");
            for tool in listed {
                if server == "slow" {
                    assert_eq!(tool["deferred"], round == 1, "{tool:#}");
                }
                assert_eq!(
                    tool["path"],
                    format!("mcp:{server} via Claude Code"),
                    "{tool:#}"
                );
                assert_eq!(tool["source"], source, "{tool:#}");
            }
        }
    }
}

#[test]
fn call_exit_statuses() {
    let sandbox = Sandbox::new("call");
    sandbox.write_mcp_json(&json!({"fast": sandbox.fixture("fast", |s| s)}));

    let echo = sandbox.run(&[
        "call",
        "mcp_fast_echo",
        r#"{"message":"plain text"}"#,
        "--no-cache",
    ]);
    assert_eq!(echo.assert_code(0).stdout, "plain text\n");

    let by_label = sandbox.run(&["--no-cache", "call", "fast/echo", r#"{"message":"label"}"#]);
    assert_eq!(by_label.assert_code(0).stdout, "label\n");

    let add = sandbox.run(&[
        "call",
        "mcp_fast_add",
        r#"{"a":1,"b":2}"#,
        "--json",
        "--no-cache",
    ]);
    let add = add.assert_code(0).json();
    assert_eq!(
        add,
        json!({
            "is_error": false,
            "content": [{"type": "text", "text": "3"}],
            "structured_content": {"sum": 3},
        })
    );

    let error = sandbox.run(&["call", "mcp_fast_error", "--json", "--no-cache"]);
    let error = error.assert_code(1).json();
    assert_eq!(error["is_error"], true, "{error:#}");

    let slow = sandbox.run(&[
        "call",
        "mcp_fast_sleep",
        r#"{"ms":60000}"#,
        "--timeout-ms",
        "300",
        "--no-cache",
    ]);
    // A call that failed (timed out, or its server died) is an error on stderr, said once;
    // stdout carries results only.
    slow.assert_code(1);
    assert!(slow.stdout.is_empty(), "{slow:?}");
    assert_eq!(slow.stderr.matches("timed out").count(), 1, "{slow:?}");
    let crash = sandbox.run(&["call", "mcp_fast_crash", "{}", "--no-cache"]);
    crash.assert_code(1);
    assert!(crash.stdout.is_empty(), "{crash:?}");
    assert_eq!(
        crash.stderr.matches("crashing as asked").count(),
        1,
        "{crash:?}"
    );
    let crash = sandbox.run(&["call", "mcp_fast_crash", "{}", "--no-cache", "--json"]);
    crash.assert_code(1);
    assert_eq!(crash.json()["error"]["kind"], "server", "{crash:?}");

    for (args, expected) in [
        (
            vec!["call", "mcp_fast_nope", "--no-cache"],
            "agent-session tools",
        ),
        (
            vec!["call", "mcp_fast_echo", "{not json", "--no-cache"],
            "not valid JSON",
        ),
        (
            vec!["call", "mcp_fast_echo", "[1]", "--no-cache"],
            "JSON object",
        ),
        (vec!["call", "--no-cache"], "tool name"),
        (
            vec!["call", "mcp_fast_echo", "--timeout-ms", "soon"],
            "milliseconds",
        ),
    ] {
        let outcome = sandbox.run(&args);
        outcome.assert_code(2);
        let stderr: Vec<&str> = outcome
            .stderr
            .lines()
            .filter(|line| line.starts_with("agent-session:"))
            .collect();
        assert_eq!(stderr.len(), 1, "{args:?}: {outcome:?}");
        assert!(stderr[0].contains(expected), "{args:?}: {outcome:?}");
        assert!(outcome.stdout.is_empty(), "{args:?}: {outcome:?}");
    }
}

#[test]
fn help_and_usage_errors() {
    let sandbox = Sandbox::new("usage");
    for args in [&["help"][..], &["--help"], &["list", "-h"]] {
        let help = sandbox.run(args);
        assert!(
            help.assert_code(0).stdout.contains("Usage: agent-session"),
            "{help:?}"
        );
    }
    for args in [
        &[][..],
        &["frobnicate"],
        &["list", "--bogus"],
        &["list", "--cache-dir", "/tmp/x", "--no-cache"],
        &["list", "extra"],
        &["--cwd", "/surely/not/a/dir", "list"],
    ] {
        let outcome = sandbox.run(args);
        outcome.assert_code(2);
        assert_eq!(outcome.stderr.lines().count(), 1, "{args:?}: {outcome:?}");
    }
}

/// The README's map names every command `help` lists (and no other), so a command added to the
/// CLI cannot be left out of it.
#[test]
fn the_readme_map_names_every_command_help_lists() {
    let sandbox = Sandbox::new("map");
    let help = sandbox.run(&["help"]);
    let commands: BTreeSet<String> = help
        .assert_code(0)
        .stdout
        .lines()
        .skip_while(|line| !line.starts_with("Commands:"))
        .skip(1)
        .take_while(|line| !line.trim().is_empty())
        .filter_map(|line| line.split_whitespace().next())
        .filter(|command| *command != "help")
        .map(str::to_owned)
        .collect();
    assert!(commands.len() > 10, "{help:?}");
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md"))
            .unwrap();
    let row = readme
        .lines()
        .find(|line| line.starts_with("| `agent-session/` |"))
        .expect("the map has a row for agent-session/");
    let named = row
        .split_once("the `agent-session` CLI (default feature `cli`; ")
        .and_then(|(_, rest)| rest.split_once(')'))
        .map(|(list, _)| list)
        .expect("the row lists the CLI's commands");
    let named: BTreeSet<String> = named
        .split(", ")
        .map(|command| command.trim_matches('`').to_owned())
        .collect();
    assert_eq!(named, commands, "the README map's commands against `help`");
}

#[test]
fn version_per_command_help_and_did_you_mean() {
    let sandbox = Sandbox::new("help");
    let version = sandbox.run(&["--version"]);
    assert_eq!(
        version.assert_code(0).stdout,
        format!("agent-session {}\n", env!("CARGO_PKG_VERSION"))
    );
    for args in [&["help", "call"][..], &["call", "--help"]] {
        let help = sandbox.run(args);
        let text = &help.assert_code(0).stdout;
        assert!(
            text.contains("Usage: agent-session call"),
            "{args:?}: {text}"
        );
        assert!(text.contains("--timeout-ms <MS>"), "{args:?}: {text}");
        assert!(
            !text.contains("--server"),
            "only call's own options: {text}"
        );
    }
    let tools = sandbox.run(&["tools", "--help"]);
    assert!(tools.assert_code(0).stdout.contains("--server <NAME>"));
    for (args, tip) in [
        (&["lst"][..], "(did you mean \"list\""),
        (&["list", "--jsn"], "a similar argument exists: '--json'"),
        (
            &["tols", "--no-cache"],
            "unknown command \"tols\" (did you mean \"tools\"?)",
        ),
    ] {
        let outcome = sandbox.run(args);
        outcome.assert_code(2);
        assert_eq!(outcome.stderr.lines().count(), 1, "{args:?}: {outcome:?}");
        assert!(outcome.stderr.contains(tip), "{args:?}: {outcome:?}");
        assert!(outcome.stdout.is_empty(), "{args:?}: {outcome:?}");
    }
}

/// A project with a server that crashes at initialize, an entry that is no server, and a
/// broken config file of another tool.
fn troubled_project(sandbox: &Sandbox) -> PathBuf {
    sandbox.write_mcp_json(&json!({
        "crashy": sandbox.fixture("crashy", |s| s.crash_at("initialize").crash_stderr("boom at init")),
        "fine": sandbox.fixture("fine", |s| s),
        "broken": {"type": "stdio"},
    }));
    let cursor = sandbox.project.join(".cursor/mcp.json");
    std::fs::create_dir_all(cursor.parent().unwrap()).unwrap();
    std::fs::write(&cursor, "{ not json").unwrap();
    cursor
}

#[test]
fn each_problem_is_reported_once() {
    let sandbox = Sandbox::new("once");
    let cursor = troubled_project(&sandbox);
    // A failed server makes `list` exit 1; its table says every problem, and nothing else
    // says them again.
    let list = sandbox.run(&["list", "--no-cache"]);
    assert_eq!(list.assert_code(1).stderr, "", "{list:?}");
    assert!(list.stdout.contains("boom at init"), "{}", list.stdout);
    assert!(list.stdout.contains("\"broken\""), "{}", list.stdout);
    assert!(list.stdout.contains(&cursor.display().to_string()));
    // `tools` does not report servers: each problem is one warning on stderr.
    let tools = sandbox.run(&["tools", "--no-cache"]);
    let stderr = &tools.assert_code(0).stderr;
    let lines_about = |needle: &str| stderr.lines().filter(|line| line.contains(needle)).count();
    assert_eq!(lines_about("\"crashy\""), 1, "{stderr}");
    assert_eq!(lines_about("boom at init"), 1, "{stderr}");
    assert_eq!(lines_about("\"broken\""), 1, "{stderr}");
    assert_eq!(lines_about(&cursor.display().to_string()), 1, "{stderr}");
    assert_eq!(stderr.lines().count(), 3, "nothing else: {stderr}");
    assert!(
        stderr
            .lines()
            .all(|line| line.starts_with("agent-session: warning: ")),
        "{stderr}"
    );
}

#[test]
fn colour_goes_only_to_a_terminal_and_never_with_no_color() {
    let sandbox = Sandbox::new("colour");
    troubled_project(&sandbox);
    let run = |env: &[(&str, &str)], args: &[&str]| {
        let mut command = sandbox.command(args);
        command.envs(env.iter().copied());
        let outcome = run_to_end(command, None);
        sandbox.assert_no_server_left("colour");
        outcome
    };
    let escapes =
        |outcome: &Outcome| outcome.stderr.contains("\x1b[") || outcome.stdout.contains("\x1b[");
    // A pipe gets no colour; CLICOLOR_FORCE asks for it; NO_COLOR wins over both.
    let plain = run(&[], &["tools", "--no-cache"]);
    assert!(!escapes(&plain), "{plain:?}");
    let forced = run(&[("CLICOLOR_FORCE", "1")], &["tools", "--no-cache"]);
    assert!(
        forced.stderr.contains("\x1b["),
        "the warnings are coloured: {forced:?}"
    );
    let denied = run(
        &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")],
        &["tools", "--no-cache"],
    );
    assert!(!escapes(&denied), "{denied:?}");
    assert_eq!(
        denied.stderr.lines().count(),
        forced.stderr.lines().count(),
        "the same report, without colour"
    );
    // The CLI's own messages too.
    let usage = run(&[("CLICOLOR_FORCE", "1")], &["lst"]);
    assert!(usage.stderr.starts_with("\x1b["), "{usage:?}");
    let usage = run(&[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")], &["lst"]);
    assert!(usage.stderr.starts_with("agent-session: "), "{usage:?}");
}

/// Quotes a word for `sh -c`.
fn sh_quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

/// The binary with `args`, run by `script` (util-linux) on a pseudo-terminal: stdin, stdout and
/// stderr are a terminal, as in a user's shell; `NO_COLOR` keeps the text plain.
fn on_a_terminal(sandbox: &Sandbox, args: &[&str]) -> Command {
    let line = std::iter::once(BIN)
        .chain(args.iter().copied())
        .map(sh_quote)
        .collect::<Vec<_>>()
        .join(" ");
    let mut script = sandbox.command_of(
        "script",
        &["--quiet", "--return", "--command", &line, "/dev/null"],
    );
    script.env("NO_COLOR", "1");
    script
}

#[test]
fn on_a_terminal_the_progress_line_stays_whole_and_warnings_follow_it() {
    let sandbox = Sandbox::new("terminal");
    troubled_project(&sandbox);
    let script = on_a_terminal(&sandbox, &["tools", "--no-cache"]);
    let outcome = run_to_end(script, None);
    sandbox.assert_no_server_left("script");
    let text = outcome.assert_code(0).stdout.replace('\r', "");
    let lines: Vec<&str> = text.lines().collect();
    let progress = lines
        .iter()
        .position(|line| line.starts_with("connecting 2 MCP servers (crashy, fine)… ready in "))
        .unwrap_or_else(|| panic!("no whole progress line:\n{text}"));
    assert!(
        lines[progress].ends_with(
            "(1 live, 0 deferred, 1 failed); 1 invalid entry skipped, see `agent-session list`"
        ),
        "{}",
        lines[progress]
    );
    let warnings: Vec<usize> = (0..lines.len())
        .filter(|index| lines[*index].starts_with("agent-session: warning: "))
        .collect();
    assert_eq!(warnings.len(), 3, "{text}");
    assert!(
        warnings.iter().all(|index| *index > progress),
        "warnings come after the progress line:\n{text}"
    );
    assert!(!text.contains("WARN"), "no log line repeats them:\n{text}");
}

/// The project's servers switched off in the user file (`disabledProjectServers`).
fn project_disabled(sandbox: &Sandbox) -> Vec<String> {
    let project = sandbox.project.display().to_string();
    listed(&sandbox.user_file(), &["disabledProjectServers", &project])
}

fn disabled_servers(path: &Path) -> Vec<String> {
    listed(path, &["disabledServers"])
}

/// The names of the list at `keys` in the JSON file at `path` (none without one).
fn listed(path: &Path, keys: &[&str]) -> Vec<String> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    let doc: Value = serde_json::from_str(&text).unwrap();
    keys.iter()
        .fold(&doc, |value, key| &value[*key])
        .as_array()
        .map(|names| {
            names
                .iter()
                .map(|name| name.as_str().unwrap().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn shell_on_a_pipe_disables_and_enables_a_server() {
    let sandbox = Sandbox::new("shell");
    sandbox.write_mcp_json(&json!({
        "alpha": sandbox.fixture("alpha", |s| s),
        "beta": sandbox.fixture("beta", |s| s.tools(2)),
    }));
    let both = BTreeSet::from(["alpha".to_owned(), "beta".to_owned()]);
    let mut shell = PipedShell::start(&sandbox, &["shell", "--json", "--no-cache"]);

    let before = shell.ok("tools");
    assert_eq!(servers_of(&before), both, "{before:#}");
    let list = shell.ok("/mcp list");
    assert!(list.to_string().contains("beta"), "{list:#}");

    shell.ok("/mcp disable beta");
    // A project server is switched off for this project, not by its name everywhere.
    assert!(disabled_servers(&sandbox.user_file()).is_empty());
    assert_eq!(project_disabled(&sandbox), ["beta"]);
    assert!(
        std::fs::read_to_string(sandbox.mcp_json())
            .unwrap()
            .contains("\"beta\""),
        "the project's .mcp.json (another tool's file) must not be edited"
    );
    shell.ok("/mcp reload");
    let shrunk = shell.ok("tools");
    assert_eq!(
        servers_of(&shrunk),
        BTreeSet::from(["alpha".to_owned()]),
        "{shrunk:#}"
    );
    assert!(names_of(&shrunk).is_subset(&names_of(&before)));
    assert!(
        testkit::wait_until(PROCESS_LIMIT, || sandbox.servers_running("beta") == 0),
        "the disabled server still runs after the reload"
    );

    shell.ok("/mcp enable beta");
    assert!(project_disabled(&sandbox).is_empty());
    shell.ok("/mcp reload");
    let grown = shell.ok("tools");
    assert_eq!(names_of(&grown), names_of(&before), "{grown:#}");

    shell.send("exit");
    assert_eq!(shell.wait(), Some(0));
    sandbox.assert_no_server_left("shell");
}

#[test]
fn shell_reads_a_pipe_to_its_end_without_a_prompt() {
    let sandbox = Sandbox::new("pipe");
    sandbox.write_mcp_json(&json!({"alpha": sandbox.fixture("alpha", |s| s)}));
    let input = "help\n\n# a comment\ntools\ncall mcp_alpha_echo {\"message\": \"through the pipe\"}\n\
                 call mcp_alpha_nope\nfrobnicate\n/mcp help\n";

    // Two of the commands fail (an unknown tool, an unknown command): the shell exits 1.
    let plain = sandbox.run_with_input(&["shell", "--no-cache"], input);
    let stdout = &plain.assert_code(1).stdout;
    assert!(
        !stdout.contains("mcp> ") && !plain.stderr.contains("mcp> "),
        "{plain:?}"
    );
    assert!(stdout.contains("Usage: /mcp <COMMAND>"), "{stdout}");
    assert!(stdout.contains("mcp_alpha_echo"), "{stdout}");
    assert!(stdout.contains("\nthrough the pipe\n"), "{stdout}");
    // What went wrong goes to stderr, as on the command line.
    assert!(
        plain
            .stderr
            .contains("error: unknown tool \"mcp_alpha_nope\""),
        "{plain:?}"
    );
    assert!(
        plain
            .stderr
            .contains("error: unknown command \"frobnicate\""),
        "{plain:?}"
    );
    assert!(!stdout.contains("error:"), "{stdout}");

    let json_lines = sandbox.run_with_input(&["shell", "--json", "--no-cache"], input);
    let replies: Vec<Value> = json_lines
        .assert_code(1)
        .stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let commands: Vec<&str> = replies
        .iter()
        .map(|reply| reply["command"].as_str().unwrap())
        .collect();
    assert_eq!(
        commands,
        [
            "help",
            "tools",
            "call mcp_alpha_echo {\"message\": \"through the pipe\"}",
            "call mcp_alpha_nope",
            "frobnicate",
            "/mcp help",
        ]
    );
    let oks: Vec<bool> = replies
        .iter()
        .map(|reply| reply["ok"].as_bool().unwrap())
        .collect();
    assert_eq!(oks, [true, true, true, false, false, true]);
    assert_eq!(
        replies[2]["output"]["content"],
        json!([{"type": "text", "text": "through the pipe"}])
    );
}

#[test]
fn list_tools_and_call_work_on_http_and_sse_servers_from_the_project_file() {
    let sandbox = Sandbox::new("remote");
    // `web` answers `tools/list` 1.5 s late, and only while the test lets it: let go, it is
    // still slow past the gate of a command that waits for it; held again, it is surely still
    // connecting at the gate (where the command ends).
    let web = testkit::HttpFixture::start(
        testkit::HttpFixtureOptions::default()
            .delay("tools/list", Duration::from_millis(1500))
            .hold("tools/list"),
    );
    web.release();
    let legacy = testkit::HttpFixture::start(testkit::HttpFixtureOptions::default().legacy_sse());
    sandbox.write_mcp_json(&json!({
        "web": {"type": "http", "url": web.url()},
        "legacy": {"type": "sse", "url": legacy.url()},
    }));

    let list = sandbox.run(&["list", "--json", "--no-cache"]);
    let list = list.assert_code(0).json();
    for (name, transport) in [("web", "http"), ("legacy", "sse")] {
        let entry = server(&list, name);
        assert_eq!(entry["status"], "connected", "{list:#}");
        assert_eq!(entry["transport"], transport, "{list:#}");
        assert_eq!(entry["tools"], 4, "{list:#}");
        assert_eq!(entry["error"], Value::Null, "{list:#}");
        assert_eq!(entry["protocol"], "2025-11-25", "{list:#}");
    }

    // The slow remote server is awaited without a cache entry, deferred with one.
    let cache = sandbox.cache_dir();
    let first = sandbox.run(&["tools", "--json", "--cache-dir", &cache]);
    let first = first.assert_code(0).json();
    assert!(
        tools_of(&first, "web")
            .iter()
            .all(|tool| tool["deferred"] == false),
        "{first:#}"
    );
    web.hold_again();
    let second = sandbox.run(&["tools", "--json", "--cache-dir", &cache]);
    web.release();
    let second = second.assert_code(0).json();
    let web_tools = tools_of(&second, "web");
    assert_eq!(web_tools.len(), 4, "{second:#}");
    assert!(
        web_tools.iter().all(|tool| tool["deferred"] == true),
        "{second:#}"
    );
    assert_eq!(names_of(&first), names_of(&second));

    for tool in ["mcp_web_echo", "mcp_legacy_echo"] {
        let call = sandbox.run(&[
            "call",
            tool,
            r#"{"message":"over http"}"#,
            "--cache-dir",
            &cache,
            "--json",
        ]);
        let call = call.assert_code(0).json();
        assert_eq!(
            call["content"],
            json!([{"type": "text", "text": "over http"}]),
            "{tool}: {call:#}"
        );
    }
}

#[test]
fn mcp_add_url_connects_a_remote_server_after_a_reload() {
    let sandbox = Sandbox::new("add-url");
    let legacy = testkit::HttpFixture::start(testkit::HttpFixtureOptions::default().legacy_sse());
    let web = testkit::HttpFixture::start(testkit::HttpFixtureOptions::default());
    sandbox.write_mcp_json(&json!({"alpha": sandbox.fixture("alpha", |s| s)}));
    let mut shell = PipedShell::start(&sandbox, &["shell", "--json", "--no-cache"]);

    shell.ok(&format!("/mcp add web --url {}", web.url()));
    shell.ok(&format!(
        "/mcp add old --url {} --transport sse",
        legacy.url()
    ));
    shell.ok("/mcp reload");
    let tools = shell.ok("tools");
    assert_eq!(
        servers_of(&tools),
        BTreeSet::from(["alpha".to_owned(), "old".to_owned(), "web".to_owned()]),
        "{tools:#}"
    );
    let call = shell.ok(r#"call mcp_old_echo {"message": "added"}"#);
    assert_eq!(
        call["content"],
        json!([{"type": "text", "text": "added"}]),
        "{call:#}"
    );
    let call = shell.ok(r#"call mcp_web_echo {"message": "added too"}"#);
    assert_eq!(
        call["content"],
        json!([{"type": "text", "text": "added too"}]),
        "{call:#}"
    );

    shell.send("exit");
    assert_eq!(shell.wait(), Some(0));
    sandbox.assert_no_server_left("shell");
}

/// Arguments of the fixture's `ask` tool: a name (no default) and an age (default 30).
const ASK_ARGS: &str = r#"{"message": "Who are you?", "schema": {"type": "object",
    "properties": {"name": {"type": "string"}, "age": {"type": "integer", "default": 30}},
    "required": ["name"]}}"#;

#[test]
fn a_servers_question_is_declined_when_stdin_is_not_a_terminal() {
    let sandbox = Sandbox::new("elicit-pipe");
    sandbox.write_mcp_json(&json!({"asker": sandbox.fixture("asker", |s| s)}));
    let call = sandbox.run(&["call", "mcp_asker_ask", ASK_ARGS, "--no-cache", "--json"]);
    let result = call.assert_code(0).json();
    let reply: Value =
        serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(reply, json!({"action": "decline"}), "{result:#}");
    let notices: Vec<&str> = call
        .stderr
        .lines()
        .filter(|line| line.contains("Who are you?"))
        .collect();
    assert_eq!(notices.len(), 1, "{}", call.stderr);
    assert!(
        notices[0].starts_with("agent-session: ")
            && notices[0].contains("declined, since stdin is not a terminal"),
        "{notices:?}"
    );
}

#[test]
fn on_a_terminal_a_servers_question_is_asked_field_by_field() {
    let sandbox = Sandbox::new("elicit-tty");
    sandbox.write_mcp_json(&json!({"asker": sandbox.fixture("asker", |s| s)}));
    let mut script = on_a_terminal(
        &sandbox,
        &["call", "mcp_asker_ask", ASK_ARGS, "--no-cache", "--json"],
    );
    script.stdin(Stdio::piped());
    // Answer, name it, keep the default age.
    let outcome = run_to_end(script, Some("y\nAda\n\n"));
    sandbox.assert_no_server_left("script");
    let text = outcome.assert_code(0).stdout.replace('\r', "");
    assert!(
        text.contains("MCP server \"asker\" asks: Who are you?"),
        "{text}"
    );
    assert!(text.contains("name (string, required)"), "{text}");
    assert!(text.contains("age (integer) [30]"), "{text}");
    // On a terminal the result is pretty-printed after the last prompt.
    let result_text = text
        .rsplit_once("[30]: ")
        .map(|(_, after)| after.trim())
        .unwrap_or_else(|| panic!("no result after the prompts:\n{text}"));
    let result: Value = serde_json::from_str(result_text).unwrap();
    let reply: Value =
        serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(
        reply,
        json!({"action": "accept", "content": {"name": "Ada", "age": 30}}),
        "{text}"
    );
}

/// The status `list --json` gives `server`.
fn status_in_list(sandbox: &Sandbox, cache: &str, name: &str) -> String {
    let listed = sandbox
        .run(&["list", "--json", "--cache-dir", cache])
        .json();
    let status = server(&listed, name)["status"].as_str().map(str::to_owned);
    status.unwrap_or_else(|| panic!("no status for {name}: {listed:#}"))
}

/// Every file under `dir`, read as text (lossily).
fn texts_under(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return found;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(texts_under(&path));
        } else if let Ok(bytes) = std::fs::read(&path) {
            found.push((path, String::from_utf8_lossy(&bytes).into_owned()));
        }
    }
    found
}

/// What `login` gave, the test having played the browser.
struct Login {
    code: Option<i32>,
    stdout: String,
    stderr_lines: Vec<String>,
}

/// Runs a `login` command and plays the user's browser: opens the authorization URL it prints
/// on stderr (`authorization_server` redirects at once) and follows the redirect to the
/// command's listener.
fn log_in_through_the_browser(
    mut command: Command,
    authorization_server: &testkit::HttpFixture,
) -> Login {
    let origin = authorization_server.origin();
    let mut child = KillOnDrop(command.spawn().unwrap());
    let stdout = reader(child.0.stdout.take().unwrap());
    let stderr = BufReader::new(child.0.stderr.take().unwrap());
    let (lines_out, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in stderr.lines() {
            let Ok(line) = line else { break };
            if lines_out.send(line).is_err() {
                break;
            }
        }
    });
    let mut shown = Vec::new();
    let login_url = loop {
        let line = lines
            .recv_timeout(LIMIT)
            .unwrap_or_else(|_| panic!("no login URL on stderr: {shown:?}"));
        shown.push(line.clone());
        if let Some(url) = line.trim().strip_prefix(&format!("{origin}/authorize?")) {
            break format!("{origin}/authorize?{url}");
        }
    };
    let (status, location, _) = testkit::browser_get(&login_url);
    assert_eq!(status, 302);
    let callback = location.expect("the authorization server redirects");
    assert!(callback.starts_with("http://127.0.0.1:"), "{callback}");
    let (status, _, page) = testkit::browser_get(&callback);
    assert_eq!(status, 200);
    assert!(page.contains("Logged in"), "{page}");
    let deadline = Instant::now() + LIMIT;
    let code = loop {
        if let Some(status) = child.0.try_wait().unwrap() {
            break status.code();
        }
        assert!(Instant::now() < deadline, "login did not finish");
        std::thread::sleep(Duration::from_millis(10));
    };
    let stdout = stdout.recv_timeout(LIMIT).unwrap();
    shown.extend(lines.try_iter());
    Login {
        code,
        stdout,
        stderr_lines: shown,
    }
}

#[test]
fn a_remote_server_needs_a_login_until_login_and_again_after_logout() {
    let sandbox = Sandbox::new("login");
    let web = testkit::HttpFixture::start(testkit::HttpFixtureOptions::default().oauth());
    sandbox.write_mcp_json(&json!({"web": {"type": "http", "url": web.url()}}));
    let cache = sandbox.cache_dir();

    // A server that needs a login makes `list` exit 1.
    let before = sandbox.run(&["list", "--cache-dir", &cache]);
    before.assert_code(1);
    assert!(before.stdout.contains("needs-login"), "{}", before.stdout);
    assert!(
        before.stdout.contains("agent-session login web"),
        "{}",
        before.stdout
    );
    assert_eq!(status_in_list(&sandbox, &cache, "web"), "needs-login");

    // `login` prints the URL; the test is the browser.
    let mut command = sandbox.command(&["login", "web", "--cache-dir", &cache]);
    // Every log line, to be searched for tokens.
    command.env("RUST_LOG", "trace");
    let login = log_in_through_the_browser(command, &web);
    let (login_stdout, shown) = (login.stdout, login.stderr_lines);
    assert_eq!(login.code, Some(0), "{login_stdout}\n{shown:#?}");
    assert!(
        login_stdout.contains("logged in to \"web\": connected, 4 tools"),
        "{login_stdout}"
    );

    let after = sandbox
        .run(&["list", "--json", "--cache-dir", &cache])
        .json();
    assert_eq!(server(&after, "web")["status"], "connected", "{after:#}");
    let call = sandbox.run(&[
        "call",
        "mcp_web_echo",
        r#"{"message":"logged in"}"#,
        "--json",
    ]);
    assert_eq!(
        call.assert_code(0).json()["content"],
        json!([{"type": "text", "text": "logged in"}])
    );

    // The tokens are in the user's credential file only, private, under the server's URL.
    let credentials = sandbox.home.join(".config/agent-session/credentials.json");
    let mode = std::os::unix::fs::PermissionsExt::mode(
        &std::fs::metadata(&credentials).unwrap().permissions(),
    );
    assert_eq!(mode & 0o777, 0o600);
    let kept = std::fs::read_to_string(&credentials).unwrap();
    assert!(kept.contains(&web.url()), "{kept}");
    assert!(kept.contains("fixture-access-"), "the file holds the token");
    let output = format!("{login_stdout}\n{shown:?}\n{after}\n{}", before.stdout);
    for (path, text) in texts_under(&sandbox.root.join("cache"))
        .into_iter()
        .chain([(PathBuf::from("output"), output)])
    {
        for secret in ["fixture-access-", "fixture-refresh-", "fixture-code-"] {
            assert!(!text.contains(secret), "{secret} in {}", path.display());
        }
    }

    let logout = sandbox.run(&["logout", "web", "--cache-dir", &cache]);
    logout.assert_code(0);
    assert!(
        logout.stdout.contains("logged out of \"web\""),
        "{}",
        logout.stdout
    );
    assert_eq!(status_in_list(&sandbox, &cache, "web"), "needs-login");
    assert!(
        !std::fs::read_to_string(&credentials)
            .unwrap()
            .contains("fixture-access-")
    );
}

#[test]
fn a_servers_log_lines_show_on_stderr_at_their_level() {
    let sandbox = Sandbox::new("server-log");
    sandbox.write_mcp_json(&json!({"fx": sandbox.fixture("fx", |server| server)}));
    let call = |level: &str, rust_log: &str| {
        let mut command = sandbox.command(&[
            "call",
            "mcp_fx_log",
            &format!(r#"{{"level":"{level}","message":"a {level} line from the server"}}"#),
            "--no-cache",
        ]);
        command.env("RUST_LOG", rust_log);
        let outcome = run_to_end(command, None);
        assert_eq!(outcome.code, Some(0), "{}", outcome.stderr);
        outcome.stderr
    };
    let shown = call("info", "info");
    let line = shown
        .lines()
        .find(|line| line.contains("a info line from the server"))
        .unwrap_or_else(|| panic!("no server log line: {shown}"));
    assert!(
        line.contains("INFO") && line.contains("server=\"fx\""),
        "{line}"
    );
    // Under the default filter (warn), an info line stays out; a warning does not.
    assert!(!call("info", "warn").contains("a info line"));
    assert!(call("warning", "warn").contains("a warning line from the server"));
    sandbox.assert_no_server_left("server-log");
}

#[test]
fn call_shows_what_the_model_gets_and_full_prints_everything() {
    let sandbox = Sandbox::new("budget");
    sandbox.write_mcp_json(&json!({"fx": sandbox.fixture("fx", |server| server)}));
    let args = r#"{"bytes": 5242880}"#;
    let cut = sandbox.run(&["call", "mcp_fx_huge", args, "--no-cache"]);
    cut.assert_code(0);
    let last = cut
        .stdout
        .trim_end()
        .lines()
        .last()
        .unwrap_or_default()
        .to_owned();
    assert!(
        last.contains("[output cut:") && last.contains("5.0 MiB"),
        "{last}"
    );
    assert!(cut.stdout.len() < 110 * 1024, "{} bytes", cut.stdout.len());

    let smaller = sandbox.run(&[
        "call",
        "mcp_fx_huge",
        args,
        "--no-cache",
        "--output-budget",
        "1KiB",
    ]);
    assert!(
        smaller.stdout.len() < 2048,
        "{} bytes",
        smaller.stdout.len()
    );

    // The cut results are kept whole in files; the whole one printed needs none.
    let results = sandbox.home.join(".cache/agent-session/results");
    let kept = || std::fs::read_dir(&results).map_or(0, Iterator::count);
    let before = kept();
    assert_eq!(before, 2, "{}", results.display());
    let full = sandbox.run(&["call", "mcp_fx_huge", args, "--no-cache", "--full"]);
    full.assert_code(0);
    assert_eq!(full.stdout.trim_end().len(), 5 << 20);
    assert!(!full.stdout.contains("output cut"));
    assert_eq!(kept(), before, "--full kept the result in a file");
}

#[test]
fn a_fifo_or_a_device_named_like_a_config_file_is_reported_at_once_and_never_read() {
    let sandbox = Sandbox::new("hostile-files");
    let fifo = sandbox.project.join(".mcp.json");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    // A cloned repository can bring a symlink to a device, too.
    std::fs::create_dir_all(sandbox.project.join(".cursor")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", sandbox.project.join(".cursor/mcp.json")).unwrap();

    // A config file that could not be read makes `list` exit 1.
    let list = sandbox.run(&["list", "--json", "--no-cache"]);
    list.assert_code(1);
    let errors = list.json()["errors"].to_string();
    assert!(errors.contains("is a FIFO, not a config file"), "{errors}");
    assert!(
        errors.contains("is a device, not a config file"),
        "{errors}"
    );
}

#[test]
fn sigterm_sighup_and_sigquit_stop_the_cli_and_every_server_like_ctrl_c() {
    for (signal, said) in [
        (libc::SIGTERM, "terminated (SIGTERM)"),
        (libc::SIGHUP, "hung up (SIGHUP)"),
        (libc::SIGQUIT, "quit (SIGQUIT)"),
        (libc::SIGINT, "interrupted"),
    ] {
        let sandbox = Sandbox::new("signals");
        // A server that ignores its stdin closing and leaves a grandchild behind.
        let fx = sandbox.fixture("fx", |server| server.ignore_stdin_close().grandchild());
        sandbox.write_mcp_json(&json!({"fx": fx}));
        let mut shell = shell_with_server(sandbox.command(&["shell", "--json", "--no-cache"]));
        let (server, grandchild) = (
            shell.server,
            i32::try_from(shell.pids["grandchild"].as_i64().unwrap()).unwrap(),
        );
        assert!(testkit::process_is_alive(grandchild));

        testkit::signal_process(i32::try_from(shell.child.0.id()).unwrap(), signal);
        let deadline = Instant::now() + LIMIT;
        let status = loop {
            if let Some(status) = shell.child.0.try_wait().unwrap() {
                break status;
            }
            assert!(Instant::now() < deadline, "the CLI did not stop on {said}");
            std::thread::sleep(Duration::from_millis(10));
        };
        assert_eq!(status.code(), Some(130), "{said}");
        let stderr = shell.stderr.recv_timeout(LIMIT).unwrap();
        assert!(
            stderr.contains(&format!("{said}; servers stopped")),
            "{stderr}"
        );
        for pid in [server, grandchild] {
            assert!(
                testkit::wait_until(PROCESS_LIMIT, || !testkit::process_is_alive(pid)),
                "{pid} outlived the CLI after {said}"
            );
        }
        drop(shell.stdin);
    }
}

/// A `shell --json` that has called the `fx` fixture's `pids` tool.
struct ShellWithServer {
    child: KillOnDrop,
    /// Kept open: the shell ends when its input does.
    stdin: ChildStdin,
    /// Everything the shell writes on stderr, once it ended.
    stderr: mpsc::Receiver<String>,
    /// The server's own pid.
    server: i32,
    /// The `pids` answer (`pid`, and `grandchild` when the fixture has one).
    pids: Value,
}

/// Starts `command` (a `shell --json`) with a pipe on stdin and calls `mcp_fx_pids`.
fn shell_with_server(mut command: Command) -> ShellWithServer {
    command.stdin(Stdio::piped());
    let mut child = KillOnDrop(command.spawn().unwrap());
    let mut stdin = child.0.stdin.take().unwrap();
    let stdout = BufReader::new(child.0.stdout.take().unwrap());
    let stderr = reader(child.0.stderr.take().unwrap());
    let (lines_out, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in stdout.lines().map_while(Result::ok) {
            let _ = lines_out.send(line);
        }
    });
    writeln!(stdin, "call mcp_fx_pids {{}}").unwrap();
    let reply: Value = serde_json::from_str(&lines.recv_timeout(LIMIT).unwrap()).unwrap();
    let pids: Value =
        serde_json::from_str(reply["output"]["content"][0]["text"].as_str().unwrap()).unwrap();
    let server = i32::try_from(pids["pid"].as_i64().unwrap()).unwrap();
    ShellWithServer {
        child,
        stdin,
        stderr,
        server,
        pids,
    }
}

#[test]
fn servers_die_with_the_cli_even_when_it_is_killed_with_sigkill() {
    let sandbox = Sandbox::new("sigkill");
    // Deaf to its stdin closing and to SIGTERM: only a signal from the kernel stops it.
    let fx = sandbox.fixture("fx", |server| server.ignore_stdin_close().ignore_sigterm());
    sandbox.write_mcp_json(&json!({"fx": fx}));
    let mut shell = shell_with_server(sandbox.command(&["shell", "--json", "--no-cache"]));
    // The pid is the server's own (the launcher stays as its parent, not in its place).
    assert!(args_of(shell.server).contains(&format!("{}fx", sandbox.marker)));

    testkit::signal_process(i32::try_from(shell.child.0.id()).unwrap(), libc::SIGKILL);
    let _ = shell.child.0.wait();
    assert!(
        testkit::wait_until(PROCESS_LIMIT, || !testkit::process_is_alive(shell.server)),
        "the server outlived the CLI killed with SIGKILL"
    );
}

#[test]
fn servers_get_the_open_files_limit_the_cli_started_with_not_its_raised_one() {
    let sandbox = Sandbox::new("server-nofile");
    let fx = sandbox.fixture("fx", |server| server);
    sandbox.write_mcp_json(&json!({"fx": fx}));
    let mut command = sandbox.command_of("sh", &[]);
    command.args([
        "-c",
        "ulimit -Sn 512 && exec \"$0\" \"$@\"",
        BIN,
        "shell",
        "--json",
        "--no-cache",
    ]);
    let shell = shell_with_server(command);
    let soft_limit = |pid: u32| {
        let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).unwrap();
        let line = limits
            .lines()
            .find(|line| line.starts_with("Max open files"))
            .unwrap()
            .to_owned();
        line.split_whitespace().nth(3).unwrap().to_owned()
    };
    assert_eq!(soft_limit(u32::try_from(shell.server).unwrap()), "512");
    // While the CLI itself runs with more (its hard limit, here above 512).
    assert_ne!(soft_limit(shell.child.0.id()), "512");
}

/// Runs `list --json --no-cache` under an open-files soft limit of `soft_limit` on a project of
/// `count` fixture servers, each scripted by `script` and its entry with `extra` fields added;
/// the number that connected.
fn list_many_servers(
    sandbox: &Sandbox,
    count: usize,
    script: fn(FixtureServer) -> FixtureServer,
    extra: &Value,
    soft_limit: u32,
) -> usize {
    let servers: serde_json::Map<String, Value> = (0..count)
        .map(|n| {
            let mut entry = sandbox.fixture(&format!("s{n}"), script);
            for (key, value) in extra.as_object().unwrap() {
                entry[key] = value.clone();
            }
            (format!("s{n}"), entry)
        })
        .collect();
    sandbox.write_mcp_json(&Value::Object(servers));
    let mut command = sandbox.command_of("sh", &[]);
    command.args([
        "-c",
        &format!("ulimit -Sn {soft_limit} && exec \"$0\" \"$@\""),
        BIN,
        "list",
        "--json",
        "--no-cache",
    ]);
    let outcome = run_to_end(command, None);
    assert_eq!(outcome.code, Some(0), "{}", outcome.stderr);
    let listed = outcome.json();
    let statuses = listed["servers"].as_array().unwrap();
    assert_eq!(statuses.len(), count, "{}", outcome.stderr);
    let connected = statuses
        .iter()
        .filter(|server| server["status"] == "connected")
        .count();
    if connected < count {
        let failed: Vec<&Value> = statuses
            .iter()
            .filter(|server| server["status"] != "connected")
            .take(3)
            .collect();
        eprintln!("not connected, for example: {failed:#?}");
    }
    sandbox.assert_no_server_left(&format!("list with {count} servers"));
    connected
}

#[test]
fn the_cli_raises_its_open_files_limit_so_many_servers_all_start() {
    let sandbox = Sandbox::new("many-fds");
    // 80 servers need more than 200 descriptors (three pipes each, and more).
    assert_eq!(
        list_many_servers(&sandbox, 80, |server| server, &json!({}), 200),
        80
    );
}

#[test]
fn a_thousand_servers_all_connect_under_the_usual_open_files_limit() {
    let sandbox = Sandbox::new("thousand");
    // 1,024 is the soft limit most systems start a shell with; the hard limit is higher.
    assert_eq!(
        list_many_servers(&sandbox, 1_000, |server| server, &json!({}), 1_024),
        1_000
    );
}

#[test]
fn a_hundred_slow_servers_queued_for_their_turn_all_connect_each_within_its_own_timeout() {
    let sandbox = Sandbox::new("hundred");
    // Each server's clock starts when its own start does, and starts are bounded in parallel
    // (eight per core: 16 at a time on two cores). The queue is made long by the servers, not
    // by the machine: each takes 2 s to answer `initialize`, so with up to six cores the
    // hundred need three turns or more (seven on two cores, 14 s), and a clock started with
    // the command would lose every server from the third turn on, past the 5 s each has.
    // Counted from its own turn, a server has 3 s to spare for its start and its listing,
    // however loaded the machine.
    assert_eq!(
        list_many_servers(
            &sandbox,
            100,
            |server| server.delay("initialize", 2_000),
            &json!({"timeout": 5_000}),
            1_024
        ),
        100
    );
}

#[test]
fn a_project_server_runs_only_once_approved_and_asks_again_after_an_edit() {
    let sandbox = Sandbox::new("trust");
    // The server would leave a file behind the moment it starts.
    let witness = sandbox.root.join("it-ran");
    let (program, args) = FixtureServer::new()
        .name(format!("{}fx", sandbox.marker))
        .command();
    let server = |extra: &str| {
        let script = format!("touch '{}'; exec \"$0\" \"$@\"{extra}", witness.display());
        let mut all = vec!["-c".to_owned(), script, program.display().to_string()];
        all.extend(args.iter().cloned());
        json!({"fx": {"command": "sh", "args": all}})
    };
    sandbox.write_unapproved_mcp_json(&server(""));

    for command in [
        vec!["list", "--no-cache"],
        vec!["tools", "--no-cache"],
        vec!["call", "mcp_fx_echo", r#"{"message":"hi"}"#, "--no-cache"],
    ] {
        let outcome = sandbox.run(&command);
        assert!(!witness.exists(), "{command:?} ran the unapproved server");
        if command[0] == "list" {
            assert!(
                outcome.stdout.contains("needs-approval"),
                "{}",
                outcome.stdout
            );
            assert!(
                outcome.stdout.contains("agent-session trust fx"),
                "{}",
                outcome.stdout
            );
        }
    }

    let trusted = sandbox.run(&["trust", "--yes", "--no-cache"]);
    trusted.assert_code(0);
    assert!(trusted.stdout.contains("approved fx"), "{}", trusted.stdout);
    let call = sandbox.run(&[
        "call",
        "mcp_fx_echo",
        r#"{"message":"hi"}"#,
        "--no-cache",
        "--json",
    ]);
    call.assert_code(0);
    assert!(witness.exists(), "the approved server started");
    std::fs::remove_file(&witness).unwrap();

    // An edited definition asks again.
    sandbox.write_unapproved_mcp_json(&server(" --instructions edited-by-a-pull"));
    let list = sandbox.run(&["list", "--json", "--no-cache"]);
    assert_eq!(server_status(&list.json(), "fx"), "needs-approval");
    assert!(!witness.exists(), "the edited server did not run");

    let untrusted = sandbox.run(&["untrust", "--no-cache"]);
    untrusted.assert_code(0);

    // Claude Code's approval counts.
    let claude = json!({"projects": {
        sandbox.project.display().to_string(): {"enabledMcpjsonServers": ["fx"]}
    }});
    std::fs::write(sandbox.home.join(".claude.json"), claude.to_string()).unwrap();
    let list = sandbox.run(&["list", "--json", "--no-cache"]);
    assert_eq!(server_status(&list.json(), "fx"), "connected");
}

fn server_status(list: &Value, name: &str) -> String {
    server(list, name)["status"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn no_secret_reaches_output_logs_or_files_under_trace_logging() {
    let sandbox = Sandbox::new("secret-sweep");
    let web = testkit::HttpFixture::start(
        testkit::HttpFixtureOptions::default().bearer_token("header-secret-2"),
    );
    // Its own authorization server: a registered client secret, and tokens kept in
    // credentials.json once `login` ran, refreshed on the way.
    let authed = testkit::HttpFixture::start(
        testkit::HttpFixtureOptions::default()
            .oauth()
            .client_secrets(),
    );
    let (program, args) = FixtureServer::new()
        .name(format!("{}local", sandbox.marker))
        .command();
    let mut script = format!("exec '{}'", program.display());
    for arg in &args {
        script.push_str(&format!(" '{arg}'"));
    }
    sandbox.write_mcp_json(&json!({
        "local": {
            "command": "sh",
            // The word after the script is sh's $0: a secret in args that the server ignores.
            "args": ["-c", script, "args-secret-5"],
            "env": {"API_KEY": "env-secret-1", "FROM_VAR": "${SWEEP_SECRET}"},
        },
        "web": {
            "type": "http",
            "url": format!("{}?token=url-secret-6", web.url()),
            "headers": {
                "Authorization": "Bearer header-secret-2",
                "X-Api-Key": "!echo command-secret-4",
            },
        },
        "authed": {"type": "http", "url": authed.url()},
    }));
    let configured = [
        "env-secret-1",
        "header-secret-2",
        "var-secret-3",
        "command-secret-4",
        "args-secret-5",
        "url-secret-6",
    ];
    let cache = sandbox.cache_dir();
    let traced = |args: &[&str]| {
        let mut args = args.to_vec();
        args.extend(["--cache-dir", &cache]);
        let mut command = sandbox.command(&args);
        command
            .env("RUST_LOG", "trace")
            .env("SWEEP_SECRET", "var-secret-3");
        command
    };
    let mut shown = String::new();

    let login = log_in_through_the_browser(traced(&["login", "authed"]), &authed);
    assert_eq!(login.code, Some(0), "{}", login.stderr_lines.join("\n"));
    shown.push_str(&login.stdout);
    shown.push_str(&login.stderr_lines.join("\n"));

    let runs: [&[&str]; 8] = [
        &["list"],
        &["list", "--json"],
        &["tools", "--json"],
        &["call", "mcp_local_echo", r#"{"message":"hi"}"#],
        &["call", "mcp_web_echo", r#"{"message":"hi"}"#, "--json"],
        &["call", "mcp_authed_echo", r#"{"message":"hi"}"#, "--json"],
        &[
            "call",
            "mcp_local_environment",
            r#"{"name":"API_KEY"}"#,
            "--json",
        ],
        &["call", "mcp_nothing_here", "{}"],
    ];
    for run in runs {
        if run.get(1) == Some(&"mcp_authed_echo") {
            // The stored access token is refused: the refresh token goes out, new tokens come
            // back and are stored.
            authed.expire_access_tokens();
        }
        let outcome = run_to_end(traced(run), None);
        // The environment tool answers the variable's value by design: that is the server
        // speaking, not the runtime leaking; its answer is left out of the sweep (and shows the
        // secret did reach the server).
        if run.get(1) == Some(&"mcp_local_environment") {
            assert!(
                outcome.stdout.contains("env-secret-1"),
                "{}",
                outcome.stdout
            );
        } else {
            shown.push_str(&outcome.stdout);
        }
        if matches!(run.get(1), Some(&"mcp_web_echo" | &"mcp_authed_echo")) {
            assert_eq!(outcome.code, Some(0), "{}", outcome.stderr);
        }
        shown.push_str(&outcome.stderr);
    }
    // The remote server got its credentials and its URL's query.
    assert!(
        web.requests()
            .iter()
            .any(|request| request.target.contains("token=url-secret-6")
                && request.authorization.as_deref() == Some("Bearer header-secret-2")),
        "the remote server was reached with its secrets"
    );
    assert_eq!(
        authed.token_requests("refresh_token"),
        1,
        "the expired token was refreshed"
    );
    let mut shell = traced(&["shell", "--json"]);
    shell.stdin(Stdio::piped());
    let outcome = run_to_end(
        shell,
        Some("/mcp list\n/mcp test web\n/mcp test authed\n/mcp test local\ntools\n"),
    );
    shown.push_str(&outcome.stdout);
    shown.push_str(&outcome.stderr);

    // The login's tokens, the refreshed ones, the authorization code and the client secret.
    let handed_out = authed.handed_out_secrets();
    assert!(
        handed_out.len() >= 6,
        "two token pairs, a code, a client secret: {}",
        handed_out.len()
    );
    let secrets: Vec<&str> = configured
        .into_iter()
        .chain(handed_out.iter().map(String::as_str))
        .collect();
    // The stored login lives in the user's credential file, private, and only there.
    let credentials = sandbox.home.join(".config/agent-session/credentials.json");
    let mode = std::os::unix::fs::PermissionsExt::mode(
        &std::fs::metadata(&credentials).unwrap().permissions(),
    );
    assert_eq!(mode & 0o777, 0o600);
    let kept = std::fs::read_to_string(&credentials).unwrap();
    let client_secret = handed_out
        .iter()
        .find(|secret| secret.starts_with("fixture-client-secret-"))
        .expect("a client secret was registered");
    let latest_refresh = handed_out
        .iter()
        .rfind(|secret| secret.starts_with("fixture-refresh-"))
        .unwrap();
    let latest_access = handed_out
        .iter()
        .rfind(|secret| secret.starts_with("fixture-access-"))
        .unwrap();
    for stored in [client_secret, latest_access, latest_refresh] {
        assert!(
            kept.contains(stored.as_str()),
            "credentials.json lacks {stored}"
        );
    }

    // Every file we wrote (the cache, anything else), not the user's own config files nor, while
    // it holds the login, the credential file.
    let own = [sandbox.mcp_json(), sandbox.home.join(".claude.json")];
    let sweep_files = |allowed: &dyn Fn(&Path, &str) -> bool| {
        for (path, text) in texts_under(&sandbox.root) {
            if own.contains(&path) {
                continue;
            }
            for secret in &secrets {
                if !allowed(&path, secret) {
                    assert!(!text.contains(secret), "{secret} in {}", path.display());
                }
            }
        }
    };
    sweep_files(&|path, _| path == credentials);

    let logout = run_to_end(traced(&["logout", "authed"]), None);
    assert_eq!(logout.code, Some(0), "{}", logout.stderr);
    shown.push_str(&logout.stdout);
    shown.push_str(&logout.stderr);
    for secret in &secrets {
        assert!(!shown.contains(secret), "{secret} was shown");
    }
    // After the logout the credential file keeps the client's registration, and no token.
    sweep_files(&|path, secret| path == credentials && secret == client_secret.as_str());
    sandbox.assert_no_server_left("the secret sweep");
}

/// Twelve agents started at once on one tool cache (an IDE opening several windows, a script
/// running several sessions): each must offer the cached tools of a server that does not answer
/// before its startup gate, which it can only do by reading the cache within the gate. A first
/// run, with no entry, waits for the server (released by the test) and fills the cache; then
/// three rounds of twelve `tools --json` at once, each process with its own server process,
/// held for good. The gate is five seconds (`--gate-ms`), so a loaded machine has the time to
/// start twelve processes; a process that missed the cache would wait for a server that never
/// answers (and the test's limit fails it), or list no tools, and that is what fails.
#[test]
fn twelve_agents_started_together_all_get_the_cached_tools_within_their_gate() {
    const AGENTS: usize = 12;
    const ROUNDS: usize = 3;
    let sandbox = Sandbox::new("shared-cache");
    let cache = sandbox.cache_dir();
    let hold = hold_pipe(&sandbox, "slow-list");
    let slow = sandbox.fixture("slow", |server| {
        server.tools(30).hold("tools/list", hold.fifo())
    });
    sandbox.write_mcp_json(&json!({"slow": slow}));
    let tools = [
        "tools",
        "--json",
        "--cache-dir",
        &cache,
        "--gate-ms",
        "5000",
    ];
    // The `slow` server's tools in an answer, and whether every one is deferred.
    let slow_tools = |output: &Outcome| {
        let listed = tools_of(&output.json(), "slow").len();
        let deferred = tools_of(&output.json(), "slow")
            .iter()
            .all(|tool| tool["deferred"] == true);
        (listed, deferred)
    };

    hold.release();
    let fill = sandbox.run(&tools);
    let (listed, deferred) = slow_tools(fill.assert_code(0));
    assert!(listed >= 30 && !deferred, "{}", fill.stdout);

    for round in 1..=ROUNDS {
        let agents: Vec<Running> = (0..AGENTS)
            .map(|_| start(sandbox.command(&tools), None))
            .collect();
        let outcomes: Vec<Outcome> = agents.into_iter().map(finish).collect();
        let hits = outcomes
            .iter()
            .filter(|outcome| outcome.code == Some(0) && slow_tools(outcome) == (listed, true))
            .count();
        let report: Vec<String> = outcomes
            .iter()
            .map(|outcome| {
                format!(
                    "{:?} {:?}: {}",
                    outcome.code,
                    slow_tools(outcome),
                    outcome.stderr
                )
            })
            .collect();
        assert_eq!(
            hits, AGENTS,
            "round {round}: {hits} of {AGENTS} hit\n{report:#?}"
        );
        sandbox.assert_no_server_left(&format!("round {round}"));
    }
}

#[test]
fn call_and_tools_start_only_the_servers_they_need_and_report_what_went_wrong() {
    let sandbox = Sandbox::new("needs");
    // `other` leaves a file behind the moment it starts.
    let witness = sandbox.root.join("other-started");
    let (program, args) = FixtureServer::new()
        .name(format!("{}other", sandbox.marker))
        .command();
    let script = format!("touch '{}'; exec \"$0\" \"$@\"", witness.display());
    let mut other_args = vec!["-c".to_owned(), script, program.display().to_string()];
    other_args.extend(args);
    sandbox.write_mcp_json(&json!({
        "fast": sandbox.fixture("fast", |s| s),
        "other": {"command": "sh", "args": other_args},
        "broken": sandbox.fixture("broken", |s| s
            .crash_at("initialize")
            .crash_stderr("database password expired")),
        "off": {"command": "sh", "args": ["-c", "exit 1"], "enabled": false},
    }));

    for args in [
        &["call", "mcp_fast_echo", r#"{"message":"x"}"#, "--no-cache"][..],
        &["call", "fast/echo", r#"{"message":"x"}"#, "--no-cache"],
        &["tools", "--server", "fast", "--no-cache"],
    ] {
        let outcome = sandbox.run(args);
        outcome.assert_code(0);
        assert!(!witness.exists(), "{args:?} started `other`");
        assert!(
            !outcome.stderr.contains("broken"),
            "{args:?} spoke of an unrelated server: {}",
            outcome.stderr
        );
    }

    // A tool of a server that failed: its error (with its stderr), not "unknown tool".
    let failed = sandbox.run(&["call", "mcp_broken_echo", "{}", "--no-cache", "--json"]);
    failed.assert_code(1);
    assert!(
        failed.stderr.contains("database password expired"),
        "{}",
        failed.stderr
    );
    let error = failed.json();
    assert_eq!(error["error"]["kind"], "server", "{error:#}");
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("database password expired"),
        "{error:#}"
    );
    assert!(!witness.exists(), "a call to `broken` started `other`");

    // A tool of a disabled server: what keeps it off and how to turn it on; nothing starts.
    let off = sandbox.run(&["call", "mcp_off_echo", "{}", "--no-cache"]);
    off.assert_code(1);
    assert!(
        off.stderr.contains("agent-session enable off"),
        "{}",
        off.stderr
    );
    assert!(!witness.exists(), "a call to `off` started `other`");

    // A misspelt tool: the nearest names, as JSON too.
    let unknown = sandbox.run(&["call", "mcp_fast_ecoh", "--no-cache", "--json"]);
    unknown.assert_code(2);
    assert!(
        unknown.stderr.contains("did you mean \"mcp_fast_echo\""),
        "{}",
        unknown.stderr
    );
    assert_eq!(unknown.json()["error"]["kind"], "unknown_tool");

    // A usage error with --json is JSON on stdout too.
    let usage = sandbox.run(&["call", "--json", "--no-cache"]);
    usage.assert_code(2);
    assert_eq!(usage.json()["error"]["kind"], "usage");
    let unparsed = sandbox.run(&["call", "mcp_fast_echo", "--timeout-ms", "soon", "--json"]);
    unparsed.assert_code(2);
    assert_eq!(unparsed.json()["error"]["kind"], "usage");

    // `list` starts everything, and exits 1 for the failed server with its report intact.
    let list = sandbox.run(&["list", "--json", "--no-cache"]);
    let report = list.assert_code(1).json();
    assert_eq!(server(&report, "broken")["status"], "failed", "{report:#}");
    assert_eq!(server(&report, "fast")["status"], "connected", "{report:#}");
    assert!(witness.exists(), "list starts every server");
}

#[test]
fn call_arguments_come_inline_from_stdin_from_a_file_or_as_pairs_and_are_checked_first() {
    let sandbox = Sandbox::new("arguments");
    sandbox.write_mcp_json(&json!({"fast": sandbox.fixture("fast", |s| s)}));
    let file = sandbox.root.join("args.json");
    std::fs::write(&file, r#"{"a": 1, "b": 2}"#).unwrap();
    let at_file = format!("@{}", file.display());

    let inline = sandbox.run(&[
        "call",
        "mcp_fast_add",
        r#"{"a":1,"b":2}"#,
        "--json",
        "--no-cache",
    ]);
    let expected = inline.assert_code(0).json();
    assert_eq!(
        expected["structured_content"],
        json!({"sum": 3}),
        "{expected:#}"
    );
    let from_stdin = sandbox.run_with_input(
        &["call", "mcp_fast_add", "-", "--json", "--no-cache"],
        r#"{"a": 1, "b": 2}"#,
    );
    let from_file = sandbox.run(&["call", "mcp_fast_add", &at_file, "--json", "--no-cache"]);
    let from_pairs = sandbox.run(&[
        "call",
        "mcp_fast_add",
        "--arg",
        "a=1",
        "--arg",
        "b=2",
        "--json",
        "--no-cache",
    ]);
    for (how, outcome) in [
        ("-", from_stdin),
        ("@file", from_file),
        ("--arg", from_pairs),
    ] {
        assert_eq!(outcome.assert_code(0).json(), expected, "{how}");
    }

    // `--arg` reads its value by the schema: a string property takes digits as a string.
    let echoed = sandbox.run(&[
        "call",
        "mcp_fast_echo",
        "--arg",
        "message=42",
        "--json",
        "--no-cache",
    ]);
    let echoed = echoed.assert_code(0).json();
    assert!(echoed.to_string().contains("\"42\""), "{echoed:#}");
    // A value a property cannot take is refused before the call (exit 2, not the server's
    // error), with the form it takes.
    let wrong = sandbox.run(&[
        "call",
        "mcp_fast_add",
        "--arg",
        "a=one",
        "--arg",
        "b=2",
        "--json",
        "--no-cache",
    ]);
    wrong.assert_code(2);
    let error = wrong.json();
    assert_eq!(error["error"]["kind"], "arguments", "{error:#}");
    let message = error["error"]["message"].as_str().unwrap();
    assert_eq!(
        message,
        "--arg a=one: \"a\" takes number, so write it as --arg a=2.5"
    );
    let missing = sandbox.run(&["call", "mcp_fast_add", "--arg", "a=1", "--no-cache"]);
    missing.assert_code(2);
    assert!(
        missing.stderr.contains("argument `b` is required"),
        "{}",
        missing.stderr
    );
    let no_file = sandbox.run(&["call", "mcp_fast_add", "@/no/such/args.json", "--no-cache"]);
    no_file.assert_code(2);
    assert!(
        no_file.stderr.contains("/no/such/args.json"),
        "{}",
        no_file.stderr
    );
}
