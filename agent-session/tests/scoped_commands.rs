//! Commands scoped to one server (`tools --server`, `resources --server`, `prompts --server`,
//! `read`, `prompt`) through the binary: an unknown name fails at once with the nearest names and
//! starts nothing; a server that failed, is switched off or waits for approval makes the
//! command exit 1 with that server's reason, in text and in `--json`.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod cli_support;

use cli_support::Sandbox;
use serde_json::json;

impl Sandbox {
    /// A project with a working server `github` whose start leaves a file behind, a server
    /// `broken` that cannot start, a disabled one and an unapproved project one.
    fn new(test: &str) -> Self {
        let sandbox = Self::labelled("scoped", test).without_cache();
        let (program, args) = testkit::FixtureServer::new()
            .name(format!("{}github", sandbox.marker))
            .command();
        let mut line = format!(
            "touch '{}'; exec '{}'",
            sandbox.started_file().display(),
            program.display()
        );
        for arg in args {
            line.push_str(&format!(" '{arg}'"));
        }
        let user = json!({"mcpServers": {
            "github": {"command": "sh", "args": ["-c", line]},
            "broken": {"command": "/nonexistent/server-binary"},
            "off": {"command": "cat", "enabled": false},
        }});
        let path = sandbox.user_file();
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, user.to_string()).unwrap();
        sandbox.write_unapproved_mcp_json(&json!({"unapproved": {"command": "cat"}}));
        sandbox
    }

    fn started_file(&self) -> std::path::PathBuf {
        self.root.join("github-started")
    }
}

#[test]
fn an_unknown_server_name_fails_at_once_with_the_nearest_names_and_starts_nothing() {
    let sandbox = Sandbox::new("unknown");
    for args in [
        &["tools", "--server", "githb"][..],
        &["resources", "--server", "githb"],
        &["prompts", "--server", "githb"],
        &["read", "githb", "file:///x"],
        &["prompt", "githb", "p"],
    ] {
        let outcome = sandbox.run(args);
        outcome.assert_code(2);
        assert!(
            outcome
                .stderr
                .contains("unknown server \"githb\" (did you mean \"github\"?)"),
            "{args:?}: {}",
            outcome.stderr
        );
        assert!(
            !sandbox.started_file().exists(),
            "{args:?} started a server"
        );
    }
}

#[test]
fn a_server_that_cannot_serve_makes_the_scoped_command_exit_1_with_its_reason() {
    let sandbox = Sandbox::new("reasons");
    for (server, reason) in [
        ("broken", "/nonexistent/server-binary"),
        ("off", "disabled; enable it with `agent-session enable off`"),
        (
            "unapproved",
            "approve it with `agent-session trust unapproved`",
        ),
    ] {
        for args in [
            vec!["tools", "--server", server],
            vec!["resources", "--server", server],
            vec!["prompts", "--server", server],
            vec!["read", server, "file:///x"],
        ] {
            let outcome = sandbox.run(&args);
            outcome.assert_code(1);
            assert!(
                outcome.stderr.contains(reason),
                "{args:?}: {}",
                outcome.stderr
            );
            assert!(
                !outcome.stdout.contains("No MCP tools"),
                "{args:?}: {}",
                outcome.stdout
            );
        }
        let outcome = sandbox.run(&["tools", "--server", server, "--json"]);
        outcome.assert_code(1);
        let error = &outcome.json()["error"];
        assert_eq!(error["kind"], "server", "{error}");
        assert!(
            error["message"].as_str().unwrap().contains(reason),
            "{error}"
        );
    }
    assert!(!sandbox.started_file().exists(), "github was never needed");

    let outcome = sandbox.run(&["tools", "--server", "github", "--json"]);
    outcome.assert_code(0);
    assert!(!outcome.json()["tools"].as_array().unwrap().is_empty());
}

#[test]
fn an_unknown_tool_is_answered_with_the_nearest_names_in_the_form_typed() {
    let sandbox = Sandbox::new("did-you-mean");
    for (typed, suggested) in [
        ("github/ecco", "\"github/echo\""),
        ("mcp_github_ecoh", "\"mcp_github_echo\""),
        ("ecco", "\"github/echo\""),
    ] {
        let outcome = sandbox.run(&["call", typed, "{}"]);
        outcome.assert_code(2);
        assert!(
            outcome
                .stderr
                .contains(&format!("(did you mean {suggested}")),
            "{typed}: {}",
            outcome.stderr
        );
    }
    // A tool's own name is no mistake: it names the tool only with its server.
    let outcome = sandbox.run(&["call", "echo", "{}"]);
    outcome.assert_code(2);
    assert!(
        outcome
            .stderr
            .contains("\"echo\" names a tool only with its server: call github/echo"),
        "{}",
        outcome.stderr
    );
}
