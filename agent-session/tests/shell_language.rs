//! The shell and the command line are one language (issue 23, points 4, 6 and 7): the shell
//! parses its lines with the command line's own table, so `resources`, `read`, `prompts`,
//! `prompt` and `call … --arg K=V` (with the argument check against the tool's schema) are the
//! same words with the same messages in both; a hint names the command as it is typed where it
//! is shown (`agent-session …` on the command line, `/mcp …` in the shell); `help add` shows
//! `add`'s own options before the global ones; a stdio command given without `--` is shown
//! with it; every typed server name gets a did-you-mean; and a problem is said once.
//!
//! Every run is the real binary in a temporary project and home (see `cli_support`).

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod cli_support;

use cli_support::Sandbox;
use serde_json::{Value, json};

impl Sandbox {
    /// A project labelled `lang` with `catalog` (tools, resources, prompts) configured and
    /// approved, every command run with `--no-cache`.
    fn new(test: &str) -> Self {
        let sandbox = Self::labelled("lang", test).without_cache();
        sandbox.write_mcp_json(&json!({
            "catalog": sandbox.fixture("catalog", |server| server.resources().prompts()),
        }));
        sandbox
    }

    /// A project labelled `lang` with `catalog` and `crashy`, which crashes at `initialize`
    /// saying "boom at init".
    fn with_a_crashing_server(test: &str) -> Self {
        let sandbox = Self::labelled("lang", test).without_cache();
        sandbox.write_mcp_json(&json!({
            "catalog": sandbox.fixture("catalog", |server| server),
            "crashy": sandbox.fixture("crashy", |server| {
                server.crash_at("initialize").crash_stderr("boom at init")
            }),
        }));
        sandbox
    }

    /// The shell's replies, one JSON object per line of `input`.
    fn shell_json(&self, input: &str) -> Vec<Value> {
        let outcome = self.run_with_input(&["shell", "--json"], input);
        outcome
            .stdout
            .lines()
            .map(|line| serde_json::from_str(line).unwrap_or_else(|_| panic!("{outcome:?}")))
            .collect()
    }
}

/// The message of a failed command on the command line (its one stderr line, without the
/// `agent-session:` label).
fn cli_error(outcome: &cli_support::Outcome) -> String {
    outcome
        .stderr
        .lines()
        .find_map(|line| line.strip_prefix("agent-session: "))
        .unwrap_or_else(|| panic!("no error line: {outcome:?}"))
        .to_owned()
}

/// A shell reply's error message.
fn shell_error(reply: &Value) -> String {
    assert_eq!(reply["ok"], false, "{reply}");
    reply["output"]["error"]["message"]
        .as_str()
        .unwrap_or_else(|| panic!("no error message: {reply}"))
        .to_owned()
}

#[test]
fn the_shell_runs_the_command_lines_resource_prompt_and_call_commands_with_the_same_results() {
    let sandbox = Sandbox::new("same");
    let lines = [
        "resources",
        "read catalog fixture://docs/readme",
        "prompts --server catalog",
        "prompt catalog greet --arg name=Ada",
        "call catalog/add --arg a=2 --arg b=3",
        "call mcp_catalog_echo '{\"message\": \"hi\"}' --timeout-ms 10000",
    ];
    let input = lines.join("\n") + "\n";
    let replies = sandbox.shell_json(&input);
    assert_eq!(replies.len(), lines.len(), "{replies:#?}");
    for (line, reply) in lines.iter().zip(&replies) {
        assert_eq!(reply["command"], *line);
        assert_eq!(reply["ok"], true, "{reply}");
        let words = shell_words::split(line).unwrap();
        let mut args: Vec<&str> = vec!["--json"];
        args.extend(words.iter().map(String::as_str));
        let cli = sandbox.run(&args);
        assert_eq!(
            reply["output"],
            cli.assert_code(0).json(),
            "`{line}` in the shell and on the command line"
        );
    }
    assert_eq!(
        replies[4]["output"]["structured_content"],
        json!({"sum": 5})
    );
}

#[test]
fn a_mistake_gets_the_same_message_in_the_shell_with_the_hint_spoken_there() {
    let sandbox = Sandbox::new("mistakes");
    let cases: [&[&str]; 5] = [
        // The argument check against the tool's schema.
        &["call", "catalog/add", "--arg", "a=2"],
        // A bare tool name that one server has.
        &["call", "ech"],
        // A misspelt server in a server/tool form.
        &["call", "catalg/echo"],
        // Scoped commands with a misspelt server.
        &["tools", "--server", "catalgo"],
        &["prompt", "catalog", "greet"],
    ];
    for words in cases {
        let cli = sandbox.run(words);
        assert_eq!(cli.code, Some(2), "{words:?}: {cli:?}");
        let on_the_command_line = cli_error(&cli);
        let line = shell_words::join(words);
        let replies = sandbox.shell_json(&format!("{line}\n"));
        let in_the_shell = shell_error(&replies[0]);
        assert_eq!(
            in_the_shell,
            on_the_command_line.replace("`agent-session ", "`/mcp "),
            "{line}"
        );
    }
    let unknown_tool = cli_error(&sandbox.run(&["call", "ech"]));
    assert!(
        unknown_tool.contains("did you mean \"catalog/echo\"")
            && unknown_tool.contains("run `agent-session tools`"),
        "{unknown_tool}"
    );
    let in_the_shell = shell_error(&sandbox.shell_json("call ech\n")[0]);
    assert!(in_the_shell.contains("run `/mcp tools`"), "{in_the_shell}");
    assert!(!in_the_shell.contains("agent-session"), "{in_the_shell}");
}

#[test]
fn mcp_before_a_shell_command_is_optional() {
    let sandbox = Sandbox::new("prefix");
    let replies = sandbox.shell_json(
        "/mcp tools\ntools\n/mcp list\nlist\n/mcp call catalog/add --arg a=1 --arg b=1\n",
    );
    assert!(
        replies.iter().all(|reply| reply["ok"] == true),
        "{replies:#?}"
    );
    assert_eq!(replies[0]["output"], replies[1]["output"]);
    assert_eq!(
        replies[2]["output"]["servers"],
        replies[3]["output"]["servers"]
    );
    assert_eq!(
        replies[4]["output"]["structured_content"],
        json!({"sum": 2})
    );
}

#[test]
fn a_stdio_command_without_a_separator_is_shown_with_one_and_nothing_is_written() {
    let sandbox = Sandbox::new("separator");
    let cli = sandbox.run(&["add", "foo", "npx", "-y", "pkg"]);
    let message = cli_error(cli.assert_code(2));
    assert!(
        message.contains("`agent-session add foo -- npx -y pkg`"),
        "{message}"
    );
    let bare = cli_error(sandbox.run(&["add", "foo", "npx"]).assert_code(2));
    assert!(
        bare.contains("\"npx\" is not a URL") && bare.contains("`agent-session add foo -- npx`"),
        "{bare}"
    );
    let with_scope = cli_error(&sandbox.run(&["add", "-s", "user", "foo", "npx", "pkg"]));
    assert!(
        with_scope.contains("`agent-session add -s user foo -- npx pkg`"),
        "{with_scope}"
    );
    let in_the_shell = shell_error(&sandbox.shell_json("/mcp add foo npx -y pkg\n")[0]);
    assert!(
        in_the_shell.contains("`/mcp add foo -- npx -y pkg`"),
        "{in_the_shell}"
    );
    let native = sandbox.project.join(".agent-session/mcp.json");
    assert!(!native.exists(), "a refused add wrote {}", native.display());
    // A URL and a command after `--` are not mistakes.
    sandbox
        .run(&["add", "web", "https://example.invalid/mcp"])
        .assert_code(0);
    sandbox
        .run(&["add", "local", "--", "npx", "-y", "pkg"])
        .assert_code(0);
}

#[test]
fn help_of_a_command_shows_its_own_options_before_the_global_ones() {
    let sandbox = Sandbox::new("help");
    for help in [
        sandbox.run(&["help", "add"]).assert_code(0).stdout.clone(),
        sandbox
            .run(&["add", "--help"])
            .assert_code(0)
            .stdout
            .clone(),
    ] {
        let own = help.find("--transport").expect("add's own option");
        let heading = help
            .find("Global options:")
            .expect("a global options section");
        let global = help.find("--cache-dir").expect("a global option");
        assert!(own < heading && heading < global, "{help}");
        assert!(help.contains("Usage: agent-session add"), "{help}");
    }
    let replies = sandbox.shell_json("help add\nhelp\n");
    let shell_help = replies[0]["output"]["help"].as_str().unwrap();
    assert!(shell_help.contains("Usage: /mcp add"), "{shell_help}");
    assert!(!shell_help.contains("--cache-dir"), "{shell_help}");
    let commands = replies[1]["output"]["help"].as_str().unwrap();
    for command in [
        "resources",
        "read",
        "prompts",
        "prompt",
        "call",
        "reload",
        "reconnect",
    ] {
        assert!(commands.contains(command), "{command}: {commands}");
    }
    assert!(!commands.contains("completions"), "{commands}");
}

#[test]
fn every_typed_server_name_gets_a_did_you_mean() {
    let sandbox = Sandbox::new("names");
    for words in [
        ["get", "catalgo"],
        ["enable", "catalgo"],
        ["disable", "catalgo"],
        ["remove", "catalgo"],
    ] {
        let outcome = sandbox.run(&words);
        assert_ne!(outcome.code, Some(0), "{words:?}");
        let message = cli_error(&outcome);
        assert!(
            message.contains("did you mean \"catalog\"?"),
            "{words:?}: {message}"
        );
    }
    let in_the_shell = sandbox.shell_json("disable catalgo\nget catalgo\n");
    for reply in &in_the_shell {
        assert!(
            shell_error(reply).contains("did you mean \"catalog\"?"),
            "{reply}"
        );
    }
}

#[test]
fn a_failed_server_is_said_once_by_list_and_once_as_a_warning_by_tools() {
    let sandbox = Sandbox::with_a_crashing_server("once");
    let list = sandbox.run(&["list"]);
    list.assert_code(1);
    assert!(list.stdout.contains("crashy"), "{list:?}");
    assert!(
        !list.stderr.contains("WARN") && !list.stderr.contains("crashy"),
        "list shows the failure in its table, and only there: {list:?}"
    );
    let tools = sandbox.run(&["tools"]);
    tools.assert_code(0);
    let mentions: Vec<&str> = tools
        .stderr
        .lines()
        .filter(|line| line.contains("crashy"))
        .collect();
    assert_eq!(mentions.len(), 1, "{tools:?}");
    assert!(
        mentions[0].starts_with("agent-session: warning: "),
        "{tools:?}"
    );
    assert!(!tools.stderr.contains("WARN"), "{tools:?}");
}

#[test]
fn the_shell_does_not_repeat_old_warnings_after_a_change() {
    let sandbox = Sandbox::with_a_crashing_server("repeat");
    let outcome = sandbox.run_with_input(&["shell"], "/mcp disable catalog\n/mcp enable catalog\n");
    let said = outcome.stderr.matches("crashy").count();
    assert!(
        said <= 1,
        "the startup problem was said {said} times: {outcome:?}"
    );
    assert!(!outcome.stderr.contains("WARN"), "{outcome:?}");
}

#[test]
fn test_connects_one_server_and_says_why_when_it_cannot() {
    let sandbox = Sandbox::with_a_crashing_server("test");
    let ok = sandbox.run(&["test", "catalog"]);
    assert!(
        ok.assert_code(0)
            .stdout
            .contains("\"catalog\" is connected: ping"),
        "{ok:?}"
    );
    let failed = sandbox.run(&["test", "crashy"]);
    assert!(
        cli_error(failed.assert_code(1)).contains("boom at init"),
        "{failed:?}"
    );
    assert!(
        !failed.stderr.contains("/mcp"),
        "a command-line hint only: {failed:?}"
    );
    let unknown = sandbox.run(&["test", "catalgo"]);
    assert!(
        cli_error(unknown.assert_code(2)).contains("did you mean \"catalog\"?"),
        "{unknown:?}"
    );
    let reload = sandbox.run(&["reload"]);
    assert!(
        cli_error(reload.assert_code(2)).contains("agent-session shell"),
        "{reload:?}"
    );
}

/// `mcp` before a command, as a `claude mcp` user types it on the command line, is taken in
/// the shell too, like `/mcp`.
#[test]
fn the_shell_takes_mcp_before_a_command_as_the_command_line_does() {
    let sandbox = Sandbox::labelled("shell-language", "mcp-word").without_cache();
    let outcome = sandbox.run_with_input(&["--json", "shell"], "list\n/mcp list\nmcp list\n");
    outcome.assert_code(0);
    let outputs: Vec<Value> = outcome
        .stdout
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap()["output"].clone())
        .collect();
    assert_eq!(outputs.len(), 3, "{outcome:?}");
    assert!(
        outputs.iter().all(|output| output == &outputs[0]),
        "{outcome:?}"
    );
}

/// `--json` on a shell line, as the command line takes it, gives that line's reply as JSON,
/// where it was refused as an option the command does not have.
#[test]
fn json_on_a_shell_line_gives_that_reply_as_json() {
    let sandbox = Sandbox::labelled("shell-language", "json-line").without_cache();
    let outcome = sandbox.run_with_input(&["shell"], "list --json\nlist\n");
    outcome.assert_code(0);
    let mut lines = outcome.stdout.lines();
    let first: Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    assert_eq!(first["command"], "list --json", "{outcome:?}");
    assert_eq!(first["ok"], true, "{outcome:?}");
    assert!(first["output"]["servers"].is_array(), "{outcome:?}");
    // The next line is text again.
    assert!(
        lines
            .next()
            .is_some_and(|line| serde_json::from_str::<Value>(line).is_err()),
        "{outcome:?}"
    );
}
