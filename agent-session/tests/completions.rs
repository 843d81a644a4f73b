//! `agent-session completions bash|zsh|fish`: each prints a script on stdout that completes the
//! subcommands, and an unknown shell is a usage error.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod cli_support;

use cli_support::Sandbox;

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

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
        for subcommand in [
            "list",
            "call",
            "shell",
            "tools",
            "search",
            "context",
            "completions",
        ] {
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

/// What bash offers for the last of `words`, asked of the script `completions bash` prints,
/// sourced in a real bash.
fn bash_offers(words: &[&str]) -> Vec<String> {
    bash_offers_in(None, words)
}

/// [`bash_offers`], in `sandbox`'s project and home (with the binary on `PATH`, as an
/// installed one is) when given.
fn bash_offers_in(sandbox: Option<&Sandbox>, words: &[&str]) -> Vec<String> {
    bash_offers_at(sandbox, None, words)
}

/// [`bash_offers_in`], the shell in `folder` when given (the sandbox's project otherwise).
fn bash_offers_at(sandbox: Option<&Sandbox>, folder: Option<&Path>, words: &[&str]) -> Vec<String> {
    let script = run(&["completions", "bash"]);
    assert!(script.status.success(), "{script:?}");
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "agent-session-completions-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("script.bash");
    std::fs::write(&path, &script.stdout).unwrap();
    let quoted: Vec<String> = words.iter().map(|word| format!("'{word}'")).collect();
    let asked = format!(
        "source '{}'\nCOMP_WORDS=({})\nCOMP_CWORD=$(( ${{#COMP_WORDS[@]}} - 1 ))\nCOMPREPLY=()\n\
         _agent__session agent-session \"${{COMP_WORDS[COMP_CWORD]}}\" \"${{COMP_WORDS[COMP_CWORD-1]}}\"\n\
         printf '%s\\n' \"${{COMPREPLY[@]}}\"\n",
        path.display(),
        quoted.join(" ")
    );
    // An empty folder: a script that falls back to file names offers none of ours.
    let args = ["--norc", "--noprofile", "-c", &asked];
    let mut bash = in_sandbox(sandbox, "bash", &args, &dir);
    if let Some(folder) = folder {
        bash.current_dir(folder);
    }
    let output = bash.output().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(output.status.success(), "{output:?}");
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .filter(|line| !line.is_empty())
        .map(str::to_owned)
        .collect()
}

#[test]
fn bash_completes_past_the_first_word() {
    let offered = bash_offers(&["agent-session", "list", "--"]);
    for option in ["--json", "--cwd", "--no-cache"] {
        assert!(offered.iter().any(|o| o == option), "{option}: {offered:?}");
    }
    let offered = bash_offers(&["agent-session", "call", "--ti"]);
    assert_eq!(offered, ["--timeout-ms"]);
    let offered = bash_offers(&["agent-session", "completions", ""]);
    for shell in ["bash", "zsh", "fish"] {
        assert!(offered.iter().any(|o| o == shell), "{shell}: {offered:?}");
    }
    assert_eq!(bash_offers(&["agent-session", "completions", "z"]), ["zsh"]);
    let offered = bash_offers(&["agent-session", "add-json", "--"]);
    assert!(offered.iter().any(|o| o == "--scope"), "{offered:?}");
}

#[test]
fn the_hidden_demo_server_is_never_offered() {
    assert_eq!(bash_offers(&["agent-session", "dem"]), ["demo"]);
    for shell in ["bash", "zsh", "fish"] {
        let script = String::from_utf8(run(&["completions", shell]).stdout).unwrap();
        assert!(!script.contains("demo-server"), "{shell}:\n{script}");
    }
}

#[test]
fn bash_offers_the_values_of_scope_and_transport() {
    let mut scopes = bash_offers(&["agent-session", "add", "x", "--scope", ""]);
    scopes.sort();
    assert_eq!(scopes, ["project", "user"]);
    assert_eq!(
        bash_offers(&["agent-session", "remove", "x", "-s", "u"]),
        ["user"]
    );
    let mut transports = bash_offers(&["agent-session", "add", "x", "--transport", "s"]);
    transports.sort();
    assert_eq!(transports, ["sse", "stdio"]);
    let mut modes = bash_offers(&["agent-session", "context", "--tool-search", ""]);
    modes.sort();
    assert_eq!(modes, ["auto", "off", "on"]);
    let offered = bash_offers(&["agent-session", "search", "--"]);
    for option in [
        "--limit",
        "--server",
        "--context-window",
        "--tool-search-share",
    ] {
        assert!(offered.iter().any(|o| o == option), "{option}: {offered:?}");
    }
}

/// What fish offers for `line` (its last word, empty after a space), asked with `complete -C`
/// of the script `completions fish` prints, sourced in a real fish.
fn fish_offers(line: &str) -> Vec<String> {
    fish_offers_in(None, line)
}

/// [`fish_offers`], in `sandbox`'s project and home (with the binary on `PATH`, as an
/// installed one is) when given.
fn fish_offers_in(sandbox: Option<&Sandbox>, line: &str) -> Vec<String> {
    fish_offers_at(sandbox, None, line)
}

/// [`fish_offers_in`], the shell in `folder` when given (the sandbox's project otherwise).
fn fish_offers_at(sandbox: Option<&Sandbox>, folder: Option<&Path>, line: &str) -> Vec<String> {
    let script = run(&["completions", "fish"]);
    assert!(script.status.success(), "{script:?}");
    let dir = std::env::temp_dir().join(format!("agent-session-fish-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("script-{}.fish", line.len()));
    std::fs::write(&path, &script.stdout).unwrap();
    let asked = format!(
        "source '{}'; complete --do-complete '{}'",
        path.display(),
        line.replace('\'', "\\'")
    );
    let mut fish = in_sandbox(sandbox, "fish", &["--no-config", "-c", &asked], &dir);
    if let Some(folder) = folder {
        fish.current_dir(folder);
    }
    let output = fish
        .output()
        .expect("fish is installed (cargo xtask ci installs it)");
    let _ = std::fs::remove_file(&path);
    assert!(output.status.success(), "{output:?}");
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| line.split('\t').next().unwrap_or_default().to_owned())
        .filter(|candidate| !candidate.is_empty())
        .collect()
}

/// `PATH` with the binary's folder first, as an installed binary is found.
fn path_with_the_binary() -> String {
    let bin = std::path::Path::new(BIN).parent().unwrap();
    let path = std::env::var("PATH").unwrap_or_default();
    format!("{}:{path}", bin.display())
}

/// `shell args` in `sandbox` (its project, its home, nothing of the user's; the binary on
/// `PATH`) when given, else in the empty folder `dir`.
fn in_sandbox(
    sandbox: Option<&Sandbox>,
    shell: &str,
    args: &[&str],
    dir: &std::path::Path,
) -> Command {
    let Some(sandbox) = sandbox else {
        let mut command = Command::new(shell);
        command.args(args).current_dir(dir).stdin(Stdio::null());
        return command;
    };
    let mut command = sandbox.command_of(shell, args);
    command.env("PATH", path_with_the_binary());
    command
}

#[test]
#[ignore = "needs fish, which `cargo xtask ci` installs; run it with --include-ignored"]
fn fish_completes_subcommands_options_and_their_values() {
    let commands = fish_offers("agent-session ");
    for command in [
        "list",
        "call",
        "tools",
        "search",
        "context",
        "completions",
        "add",
    ] {
        assert!(
            commands.iter().any(|c| c == command),
            "{command}: {commands:?}"
        );
    }
    assert!(!commands.iter().any(|c| c == "demo-server"), "{commands:?}");
    let options = fish_offers("agent-session list --");
    for option in ["--json", "--cwd", "--timeout-ms"] {
        assert!(options.iter().any(|o| o == option), "{option}: {options:?}");
    }
    let mut scopes = fish_offers("agent-session add x --scope ");
    scopes.sort();
    assert_eq!(scopes, ["project", "user"]);
    let mut shells = fish_offers("agent-session completions ");
    shells.sort();
    assert_eq!(shells, ["bash", "fish", "zsh"]);
}

/// A sandbox whose project's `.mcp.json` names `github` and `gitlab` (not approved).
fn project_with_servers(test: &str) -> Sandbox {
    let sandbox = Sandbox::labelled("completions", test);
    sandbox.write_unapproved_mcp_json(&serde_json::json!({
        "github": {"command": "true"},
        "gitlab": {"command": "true"},
    }));
    sandbox
}

#[test]
fn bash_completes_server_names_from_the_config_files() {
    let sandbox = project_with_servers("names-bash");
    for words in [
        &["agent-session", "get", "git"][..],
        &["agent-session", "test", ""],
        &["agent-session", "tools", "--server", "g"],
        &["agent-session", "disable", "gi"],
    ] {
        let mut offered = bash_offers_in(Some(&sandbox), words);
        offered.sort();
        assert_eq!(offered, ["github", "gitlab"], "{words:?}");
    }
}

/// Zsh's server-name function, run by a real zsh as its completion system would inside a
/// subcommand (`words` holds the subcommand's words, `service` the command completed), with
/// `compadd` printing what it is given.
#[test]
#[ignore = "needs zsh, which .ci/run installs; run it with --include-ignored"]
fn zsh_completes_server_names_inside_a_subcommand() {
    let sandbox = project_with_servers("names-zsh");
    let script = run(&["completions", "zsh"]);
    assert!(script.status.success(), "{script:?}");
    // Every argument that is a server's name asks that function, `trust NAME…` and
    // `untrust NAME…` included; none offers file names.
    let text = String::from_utf8_lossy(&script.stdout);
    let server_arguments: Vec<&str> = text
        .lines()
        .filter(|line| {
            [
                "':name -- The server'\\''s name:",
                "':server -- The server'\\''s name:",
                "'*::names -- The servers",
                "'--server=[",
            ]
            .iter()
            .any(|start| line.starts_with(start))
        })
        .collect();
    assert!(server_arguments.len() >= 10, "{server_arguments:#?}");
    for line in &server_arguments {
        assert!(line.ends_with(":_agent_session_servers' \\"), "{line}");
    }
    let path = sandbox.root.join("script.zsh");
    std::fs::write(&path, &script.stdout).unwrap();
    let asked = format!(
        "compdef() {{ :; }}\nsource '{}'\ncompadd() {{ [[ $1 == -a ]] && print -l -- ${{(P)2}}; }}\n\
         words=(get gi)\nCURRENT=2\nservice=agent-session\n_agent_session_servers\n",
        path.display()
    );
    let mut zsh = in_sandbox(Some(&sandbox), "zsh", &["-f", "-c", &asked], &sandbox.root);
    let output = zsh.output().unwrap();
    assert!(output.status.success(), "{output:?}");
    let mut offered: Vec<String> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(str::to_owned)
        .collect();
    offered.sort();
    assert_eq!(offered, ["github", "gitlab"], "{output:?}");
}

#[test]
fn the_completion_install_lines_work_in_a_fresh_home() {
    let home =
        std::env::temp_dir().join(format!("agent-session-fresh-home-{}", std::process::id()));
    std::fs::create_dir_all(&home).unwrap();
    let help = String::from_utf8(run(&["completions", "--help"]).stdout).unwrap();
    let lines: Vec<&str> = help
        .lines()
        .map(str::trim)
        .filter(|line| line.starts_with("mkdir") || line.starts_with("agent-session completions"))
        .map(|line| line.split("    #").next().unwrap().trim())
        .collect();
    assert!(lines.len() >= 4, "{help}");
    for line in lines {
        let output = Command::new("sh")
            .args(["-c", line])
            .env("HOME", &home)
            .env("PATH", path_with_the_binary())
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(output.status.success(), "{line}: {output:?}");
    }
    assert!(
        home.join(".local/share/bash-completion/completions/agent-session")
            .exists()
    );
    let _ = std::fs::remove_dir_all(&home);
}

#[test]
fn bash_completes_the_cached_tools_after_call_without_starting_a_server() {
    let sandbox = Sandbox::labelled("completions", "tools");
    sandbox.write_mcp_json(&serde_json::json!({"fx": sandbox.fixture("fx", |server| server)}));
    // A command fills the cache (in the sandbox's home).
    sandbox.run(&["tools"]).assert_code(0);
    let offered = bash_offers_in(Some(&sandbox), &["agent-session", "call", "fx/e"]);
    assert!(offered.iter().any(|tool| tool == "fx/echo"), "{offered:?}");
    assert!(
        offered.iter().all(|tool| tool.starts_with("fx/e")),
        "{offered:?}"
    );
    assert!(
        cli_support::pids_with_prefix(&sandbox.marker).is_empty(),
        "completing a tool name started its server"
    );
}

#[test]
#[ignore = "needs fish, which `cargo xtask ci` installs; run it with --include-ignored"]
fn fish_completes_server_names_from_the_config_files() {
    let sandbox = project_with_servers("names-fish");
    for line in ["agent-session get git", "agent-session tools --server g"] {
        let mut offered = fish_offers_in(Some(&sandbox), line);
        offered.sort();
        assert_eq!(offered, ["github", "gitlab"], "{line}");
    }
}

/// The names offered are those the command being typed would use: its `--cwd` (and `--app`,
/// `--cache-dir`, `--no-project-config`, `--no-cache`) are passed on, in bash, fish and zsh
/// alike.
#[test]
#[ignore = "needs fish and zsh, which .ci/run installs; run it with --include-ignored"]
fn completions_read_the_files_the_line_names() {
    let sandbox = project_with_servers("names-cwd");
    let project = sandbox.project.display().to_string();
    let elsewhere = sandbox.root.as_path();
    let mut bash = bash_offers_at(
        Some(&sandbox),
        Some(elsewhere),
        &["agent-session", "--cwd", &project, "get", "g"],
    );
    bash.sort();
    assert_eq!(bash, ["github", "gitlab"]);
    // From the project, a line naming a folder without servers gets none of its names.
    let root = elsewhere.display().to_string();
    let none = bash_offers_at(
        Some(&sandbox),
        None,
        &["agent-session", "--cwd", &root, "get", "g"],
    );
    assert!(none.is_empty(), "{none:?}");
    let mut fish = fish_offers_at(
        Some(&sandbox),
        Some(elsewhere),
        &format!("agent-session --cwd {project} get g"),
    );
    fish.sort();
    assert_eq!(fish, ["github", "gitlab"]);
    let script = run(&["completions", "zsh"]);
    let path = sandbox.root.join("names-cwd.zsh");
    std::fs::write(&path, &script.stdout).unwrap();
    let asked = format!(
        "compdef() {{ :; }}\nsource '{}'\ncompadd() {{ [[ $1 == -a ]] && print -l -- ${{(P)2}}; }}\n\
         BUFFER='agent-session --cwd {project} get gi'\nwords=(get gi)\nCURRENT=2\n\
         service=agent-session\n_agent_session_servers\n",
        path.display()
    );
    let mut zsh = in_sandbox(Some(&sandbox), "zsh", &["-f", "-c", &asked], elsewhere);
    zsh.current_dir(elsewhere);
    let output = zsh.output().unwrap();
    let mut zsh: Vec<String> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(str::to_owned)
        .collect();
    zsh.sort();
    assert_eq!(zsh, ["github", "gitlab"], "{output:?}");
}
