//! `agent-session completions bash|zsh|fish`: each prints a script on stdout that completes the
//! subcommands, and an unknown shell is a usage error.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::process::{Command, Output, Stdio};

/// The binary under test.
const BIN: &str = env!("CARGO_BIN_EXE_agent-session");

fn run(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

#[test]
fn each_shell_gets_a_script_that_completes_the_subcommands() {
    for (shell, marker) in [
        ("bash", "complete -F"),
        ("zsh", "#compdef agent-session"),
        ("fish", "complete -c agent-session"),
    ] {
        let output = run(&["completions", shell]);
        assert!(output.status.success(), "{shell}: {output:?}");
        assert!(output.stderr.is_empty(), "{shell}: {output:?}");
        let script = String::from_utf8(output.stdout).unwrap();
        assert!(
            script.contains(marker),
            "{shell} lacks {marker:?}:\n{script}"
        );
        for subcommand in ["list", "call", "shell", "tools", "completions"] {
            assert!(
                script.contains(subcommand),
                "{shell} lacks {subcommand}:\n{script}"
            );
        }
    }
}

#[test]
fn an_unknown_shell_is_a_usage_error_naming_the_choices() {
    let output = run(&["completions", "tcsh"]);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let stderr = String::from_utf8(output.stderr).unwrap();
    for shell in ["bash", "zsh", "fish"] {
        assert!(stderr.contains(shell), "{stderr}");
    }
}
