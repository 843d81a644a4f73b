//! Every hint and usage line names commands as they are typed where it is shown: on the command
//! line `agent-session …`, in the shell `/mcp …` (one table, `commands::Interface`), end to end
//! through the binary.
//!
//! Every run gets a temporary project and home (`HOME` set, XDG variables removed, `--no-cache`).

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod cli_support;

use cli_support::Sandbox;
use serde_json::json;

fn sandbox(test: &str) -> Sandbox {
    Sandbox::labelled("hints", test).without_cache()
}

#[test]
fn an_empty_list_names_the_add_command_of_where_it_was_typed() {
    let sandbox = sandbox("empty-list");
    let listed = sandbox.run(&["list"]);
    listed.assert_code(0);
    assert!(
        listed
            .stdout
            .contains("no MCP servers are configured (agent-session add adds one)"),
        "{listed:?}"
    );
    // tools says why there are none, with the same next step.
    let tools = sandbox.run(&["tools"]);
    assert!(
        tools
            .stdout
            .contains("No MCP tools: no MCP servers are configured (agent-session add adds one)."),
        "{tools:?}"
    );
    let shell = sandbox.run_with_input(&["shell"], "/mcp list\n");
    assert!(
        shell
            .stdout
            .contains("no MCP servers are configured (/mcp add adds one)"),
        "{shell:?}"
    );
}

#[test]
fn adding_a_name_already_there_names_the_remove_command_of_where_it_was_typed() {
    let sandbox = sandbox("duplicate-add");
    sandbox.run(&["add", "modern", "--", "true"]).assert_code(0);
    let again = sandbox.run(&["add", "modern", "--", "true"]);
    assert_eq!(again.code, Some(1), "{again:?}");
    assert!(
        again.stderr.contains(
            "remove it first or choose another name (agent-session remove modern --scope project)"
        ),
        "{again:?}"
    );
    assert!(!again.stderr.contains("/mcp remove"), "{again:?}");
    let shell = sandbox.run_with_input(&["shell"], "/mcp add modern -- true\n");
    assert!(
        shell
            .stderr
            .contains("(/mcp remove modern --scope project)"),
        "{shell:?}"
    );
}

#[test]
fn usage_lines_and_hints_of_session_commands_speak_the_command_line() {
    // A remote server that needs a login: `test` says how to log in, as typed here.
    let web = testkit::HttpFixture::start(testkit::HttpFixtureOptions::default().oauth());
    let sandbox = sandbox("session-commands");
    sandbox.write_mcp_json(&json!({"web": {"type": "http", "url": web.url()}}));
    let test = sandbox.run(&["test", "web"]);
    assert_eq!(test.code, Some(1), "{test:?}");
    let said = format!("{}{}", test.stdout, test.stderr);
    assert!(said.contains("agent-session login web"), "{test:?}");
    assert!(!said.contains("/mcp login"), "{test:?}");
    // A project server waiting for approval: the hint is the command line's.
    let waiting = Sandbox::labelled("hints", "approval").without_cache();
    waiting.write_unapproved_mcp_json(&json!({"fx": waiting.fixture("fx", |fixture| fixture)}));
    let listed = waiting.run(&["list"]);
    assert!(
        listed
            .stdout
            .contains("a project server: approve it with agent-session trust fx"),
        "{listed:?}"
    );
    assert!(!listed.stdout.contains("/mcp"), "{listed:?}");
    let shell = waiting.run_with_input(&["shell"], "/mcp list\n");
    assert!(
        shell
            .stdout
            .contains("a project server: approve it with /mcp trust fx"),
        "{shell:?}"
    );
}

#[test]
fn a_mistyped_command_gets_the_nearest_commands_and_a_far_one_none() {
    let sandbox = sandbox("mistyped");
    let near = sandbox.run(&["lst"]);
    assert_eq!(near.code, Some(2), "{near:?}");
    assert!(
        near.stderr
            .contains("unknown command \"lst\" (did you mean \"list\""),
        "{near:?}"
    );
    let far = sandbox.run(&["bogus"]);
    assert_eq!(far.code, Some(2), "{far:?}");
    assert!(
        far.stderr
            .contains("unknown command \"bogus\"; run `agent-session help` for the commands"),
        "{far:?}"
    );
    let shell = sandbox.run_with_input(&["shell"], "lst\nbogus\n");
    assert!(
        shell
            .stderr
            .contains("error: unknown command \"lst\" (did you mean \"list\""),
        "{shell:?}"
    );
    assert!(
        shell
            .stderr
            .contains("error: unknown command \"bogus\"; type `help` for the commands"),
        "{shell:?}"
    );
}

#[test]
fn claude_mcp_words_work_after_mcp() {
    let sandbox = sandbox("mcp-prefix");
    let listed = sandbox.run(&["mcp", "list"]);
    listed.assert_code(0);
    assert_eq!(listed.stdout, sandbox.run(&["list"]).stdout);
    sandbox
        .run(&["mcp", "add", "modern", "--", "true"])
        .assert_code(0);
    let got = sandbox.run(&["--json", "mcp", "get", "modern"]).json();
    assert_eq!(got["command"], "true", "{got}");
}

/// With `--app NAME`, the command line's hints carry it: a command typed as shown reads the
/// same agent's files (without it, `get a1` would be an unknown server).
#[test]
fn hints_carry_the_app_the_command_line_was_given() {
    let sandbox = sandbox("app");
    let added = sandbox.run(&["--app", "my-agent", "add", "a1", "--", "true"]);
    added.assert_code(0);
    assert!(
        added
            .stdout
            .contains("agent-session --app my-agent get a1 connects it"),
        "{added:?}"
    );
    let unknown = sandbox.run(&["--app", "my-agent", "get", "a2"]);
    assert_eq!(unknown.code, Some(2), "{unknown:?}");
    assert!(
        unknown
            .stderr
            .contains("`agent-session --app my-agent list` shows the servers"),
        "{unknown:?}"
    );
    // The hint, typed as shown, finds the server.
    let typed = sandbox.run(&["--app", "my-agent", "get", "a1"]);
    assert!(!typed.stderr.contains("unknown server"), "{typed:?}");
    // The default app is not named.
    let plain = sandbox.run(&["get", "a2"]);
    assert!(
        plain
            .stderr
            .contains("`agent-session list` shows the servers"),
        "{plain:?}"
    );
}

/// With `--cwd DIR`, the hints carry it too: typed as shown from the same folder, a hint reads
/// that project's files.
#[test]
fn hints_carry_the_folder_the_command_line_was_given() {
    let sandbox = sandbox("cwd");
    sandbox.write_unapproved_mcp_json(&json!({"fx": {"command": "true"}}));
    let project = sandbox.project.display().to_string();
    let mut command = sandbox.command(&["--cwd", &project, "list"]);
    command.current_dir(&sandbox.root);
    let listed = cli_support::run_to_end(command, None);
    let hint = format!("approve it with agent-session --cwd {project} trust fx");
    assert!(listed.stdout.contains(&hint), "{listed:?}");
}
