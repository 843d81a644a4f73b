//! One rule for a server name no config file defines, in every command: a usage error (exit 2)
//! with the nearest names and the command that lists the servers, and nothing started; and
//! `test --timeout-ms` bounds the wait for a server that never answers. End to end through the
//! binary.
//!
//! Every run gets a temporary project and home (`HOME` set, XDG variables removed, `--no-cache`).
//! The project's one server, `everything`, leaves a witness file the moment it starts.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod cli_support;

use std::path::PathBuf;

use cli_support::Sandbox;
use serde_json::json;

/// A project whose one server, `everything`, notes in a file that it was started.
fn sandbox(test: &str) -> (Sandbox, PathBuf) {
    let sandbox = Sandbox::labelled("unknown", test).without_cache();
    let server = sandbox.witnessed("everything", &json!({}));
    sandbox.write_mcp_json(&json!({ "everything": server }));
    let witness = sandbox.witness("everything");
    (sandbox, witness)
}

#[test]
fn every_command_refuses_an_unknown_server_the_same_way_and_starts_nothing() {
    let (sandbox, witness) = sandbox("every-command");
    let commands: [&[&str]; 16] = [
        &["get", "evrything"],
        &["test", "evrything"],
        &["tools", "--server", "evrything"],
        &["resources", "--server", "evrything"],
        &["prompts", "--server", "evrything"],
        &["read", "evrything", "file:///x"],
        &["search", "echo", "--server", "evrything"],
        &["enable", "evrything"],
        &["disable", "evrything"],
        &["remove", "evrything"],
        &["login", "evrything"],
        &["logout", "evrything"],
        &["trust", "evrything"],
        &["untrust", "evrything"],
        &["call", "evrything/echo", "{}"],
        &["prompt", "evrything", "greet"],
    ];
    for command in commands {
        let outcome = sandbox.run(command);
        assert_eq!(outcome.code, Some(2), "{command:?}: {outcome:?}");
        assert!(
            outcome.stderr.contains(
                "unknown server \"evrything\" (did you mean \"everything\"?); \
                 `agent-session list` shows the servers"
            ),
            "{command:?}: {outcome:?}"
        );
        assert!(!witness.exists(), "{command:?} started a server");
        let json = sandbox.run(&[&["--json"], command].concat()).json();
        assert_eq!(json["error"]["kind"], "usage", "{command:?}: {json}");
    }
}

#[test]
fn test_with_a_timeout_gives_up_on_a_server_that_never_answers() {
    let sandbox = Sandbox::labelled("unknown", "test-timeout").without_cache();
    sandbox.write_mcp_json(&json!({
        "stuck": sandbox.fixture("stuck", |fixture| fixture.hang_at("initialize")),
    }));
    let outcome = sandbox.run(&["test", "stuck", "--timeout-ms", "300"]);
    assert_eq!(outcome.code, Some(1), "{outcome:?}");
    assert!(
        outcome.stderr.contains("\"stuck\"") && outcome.stderr.contains("timed out after 300ms"),
        "{outcome:?}"
    );
}

/// The shell speaks the same rule: every command naming an unknown server is refused with the
/// same message (in the shell's own words) and fails the shell.
#[test]
fn the_shell_refuses_an_unknown_server_in_every_command_the_same_way() {
    let (sandbox, _) = sandbox("shell");
    let lines = [
        "get evrything",
        "test evrything",
        "tools --server evrything",
        "enable evrything",
        "disable evrything",
        "remove evrything",
        "login evrything",
        "logout evrything",
        "trust evrything",
        "untrust evrything",
        "prompt evrything greet",
    ];
    let outcome = sandbox.run_with_input(&["shell", "--json"], &(lines.join("\n") + "\n"));
    assert_eq!(outcome.code, Some(1), "{outcome:?}");
    let replies: Vec<serde_json::Value> = outcome
        .stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(replies.len(), lines.len(), "{outcome:?}");
    for (line, reply) in lines.iter().zip(&replies) {
        assert_eq!(reply["ok"], false, "{line}: {reply}");
        assert!(
            reply.to_string().contains(
                "unknown server \\\"evrything\\\" (did you mean \\\"everything\\\"?); \
                 `/mcp list` shows the servers"
            ),
            "{line}: {reply}"
        );
    }
}

/// A model-facing name whose server part is mistyped starts only the servers it is a slip
/// away from (for the nearest tool names), and one near no server starts none.
#[test]
fn a_mistyped_model_facing_name_starts_only_the_nearest_server() {
    let (sandbox, witness) = sandbox("model-facing");
    let other = sandbox.witnessed("other", &json!({}));
    let everything = sandbox.witnessed("everything", &json!({}));
    sandbox.write_mcp_json(&json!({"everything": everything, "other": other}));
    let other_witness = sandbox.witness("other");
    let typo = sandbox.run(&["call", "mcp_evrything_echo", "{}"]);
    assert_eq!(typo.code, Some(2), "{typo:?}");
    assert!(
        typo.stderr
            .contains("unknown tool \"mcp_evrything_echo\" (did you mean \"mcp_everything_echo\""),
        "{typo:?}"
    );
    assert!(witness.exists(), "the nearest server was not asked");
    assert!(
        !other_witness.exists(),
        "a server the name is far from started"
    );
    std::fs::remove_file(&witness).unwrap();
    let far = sandbox.run(&["call", "mcp_zzzzzz_echo", "{}"]);
    assert_eq!(far.code, Some(2), "{far:?}");
    assert!(
        far.stderr.contains("unknown tool \"mcp_zzzzzz_echo\""),
        "{far:?}"
    );
    assert!(!witness.exists() && !other_witness.exists(), "{far:?}");
}

/// A tool's own name, which two servers have, is not "unknown": the message names the
/// `server/tool` forms to call.
#[test]
fn a_bare_tool_name_two_servers_have_names_both() {
    let sandbox = Sandbox::labelled("unknown", "bare-two").without_cache();
    sandbox.write_mcp_json(&json!({
        "alpha": sandbox.fixture("alpha", |server| server),
        "beta": sandbox.fixture("beta", |server| server),
    }));
    let outcome = sandbox.run(&["call", "echo", "{}"]);
    assert_eq!(outcome.code, Some(2), "{outcome:?}");
    assert!(
        outcome
            .stderr
            .contains("\"echo\" names a tool only with its server: call alpha/echo or beta/echo"),
        "{outcome:?}"
    );
    assert!(!outcome.stderr.contains("unknown tool"), "{outcome:?}");
}
