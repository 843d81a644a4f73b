//! Project files found from a subfolder, end to end through the binary: `list` run in
//! `repo/src/deep` uses the repository root's `.mcp.json` and native file (Claude Code and this
//! agent look in parent folders up to the repository root), says in one note line per file why a
//! VS Code `.vscode/mcp.json` at the root is not used from there, and `trust` given from the
//! subfolder approves the root's server for the whole project.
//!
//! Every run gets a temporary project (the repository root, marked by a `.git` folder) and home.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod cli_support;

use std::path::{Path, PathBuf};

use cli_support::{Outcome, Sandbox, run_to_end, server};
use serde_json::{Value, json};

impl Sandbox {
    /// A sandbox whose project folder is a repository root, with the subfolder `src/deep`.
    fn new(test: &str) -> Self {
        let sandbox = Self::labelled("walk", test).without_cache();
        std::fs::create_dir_all(sandbox.project.join(".git")).unwrap();
        std::fs::create_dir_all(sandbox.deep()).unwrap();
        sandbox
    }

    fn deep(&self) -> PathBuf {
        self.project.join("src").join("deep")
    }

    /// The binary run with `folder` as its current directory.
    fn run_in(&self, folder: &Path, args: &[&str]) -> Outcome {
        let mut command = self.command(args);
        command.current_dir(folder);
        let outcome = run_to_end(command, None);
        self.assert_no_server_left(&format!("{args:?} in {}", folder.display()));
        outcome
    }

    /// Writes `value` as JSON at `relative` in the project.
    fn write_project_json(&self, relative: &str, value: &Value) -> PathBuf {
        let path = self.project.join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, value.to_string()).unwrap();
        path
    }
}

#[test]
fn list_in_a_subfolder_uses_the_repository_roots_files() {
    let sandbox = Sandbox::new("root-files");
    // Claude Code's `.mcp.json`, approved the way a Claude Code user approves it.
    sandbox.write_mcp_json(&json!({"from-claude": sandbox.fixture("claude", |f| f)}));
    sandbox.write_project_json(
        ".agent-session/mcp.json",
        &json!({"mcpServers": {"from-native": sandbox.fixture("native", |f| f)}}),
    );

    let listed = sandbox.run_in(&sandbox.deep(), &["list", "--json"]);
    // Exit 1: the native server waits for approval.
    listed.assert_code(1);
    let list = listed.json();
    let claude = server(&list, "from-claude");
    assert_eq!(claude["status"], "connected", "{claude:#}");
    assert_eq!(
        claude["source"]["path"],
        sandbox.mcp_json().display().to_string()
    );
    // The native file of the root is the project's too: it waits for approval from anywhere in it.
    let native = server(&list, "from-native");
    assert_eq!(native["status"], "needs-approval", "{native:#}");
    assert_eq!(list["notes"], json!([]));

    // The table says the same.
    let text = sandbox.run_in(&sandbox.deep(), &["list"]);
    assert!(
        text.stdout.contains("from-claude") && text.stdout.contains("from-native"),
        "{}",
        text.stdout
    );
}

#[test]
fn list_in_a_subfolder_notes_a_vscode_file_at_the_root_that_vscode_would_not_read() {
    let sandbox = Sandbox::new("vscode-note");
    let vscode = sandbox.write_project_json(
        ".vscode/mcp.json",
        &json!({"servers": {"from-vscode": sandbox.fixture("vscode", |f| f)}}),
    );

    let listed = sandbox.run_in(&sandbox.deep(), &["list"]);
    listed.assert_code(0);
    let root = sandbox.project.display();
    let expected = format!(
        "note: {} is not read from {} (VS Code reads it only in the workspace folder); run \
         from {root} or pass --cwd {root}",
        vscode.display(),
        sandbox.deep().display(),
    );
    let notes: Vec<&str> = listed
        .stdout
        .lines()
        .filter(|line| line.starts_with("note: "))
        .collect();
    assert_eq!(notes, [expected.as_str()], "{}", listed.stdout);
    assert!(!listed.stdout.contains("from-vscode"), "{}", listed.stdout);

    let json = sandbox.run_in(&sandbox.deep(), &["list", "--json"]).json();
    assert_eq!(json["notes"].as_array().unwrap().len(), 1, "{json:#}");
    let note = &json["notes"][0];
    assert_eq!(note["provider"], "vscode");
    assert_eq!(note["path"], vscode.display().to_string());
    assert_eq!(note["folder"], sandbox.project.display().to_string());
    assert_eq!(
        note["message"],
        expected.strip_prefix("note: ").unwrap(),
        "{note:#}"
    );

    // As the note says: from the root (or with --cwd) VS Code's file is read, and not noted.
    let from_root = sandbox
        .run_in(
            &sandbox.deep(),
            &[
                "--cwd",
                &sandbox.project.display().to_string(),
                "list",
                "--json",
            ],
        )
        .json();
    assert_eq!(from_root["notes"], json!([]));
    assert_eq!(
        server(&from_root, "from-vscode")["status"],
        "needs-approval"
    );
}

#[test]
fn trust_given_in_a_subfolder_approves_the_roots_server_for_the_whole_project() {
    let sandbox = Sandbox::new("trust-above");
    sandbox.write_unapproved_mcp_json(&json!({"root-server": sandbox.fixture("root", |f| f)}));

    let trusted = sandbox.run_in(&sandbox.deep(), &["trust", "root-server"]);
    trusted.assert_code(0);
    for folder in [sandbox.deep(), sandbox.project.clone()] {
        let list = sandbox.run_in(&folder, &["list", "--json"]).json();
        assert_eq!(
            server(&list, "root-server")["status"],
            "connected",
            "from {}: {list:#}",
            folder.display()
        );
    }
}

/// A script at `path` that notes `witness` and then runs the fixture server as `name`.
fn server_script(sandbox: &Sandbox, path: &Path, name: &str, witness: &Path) {
    let (program, args) = testkit::FixtureServer::new()
        .name(format!("{}{name}", sandbox.marker))
        .command();
    let mut line = format!(
        "#!/bin/sh\ntouch '{}'\nexec '{}'",
        witness.display(),
        program.display()
    );
    for arg in args {
        line.push_str(&format!(" '{arg}'"));
    }
    line.push('\n');
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, line).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// An approval of `./scripts/server.sh` runs the project's script, from wherever the command
/// runs: from a subfolder, and from another folder through `--cwd`, which holds a script of
/// the same name that nobody approved. A project server starts in its project folder.
#[test]
fn a_project_servers_relative_command_runs_from_its_project_folder() {
    let sandbox = Sandbox::new("relative-command");
    let approved = sandbox.root.join("approved-ran");
    let stranger = sandbox.root.join("stranger-ran");
    server_script(
        &sandbox,
        &sandbox.project.join("scripts/server.sh"),
        "approved",
        &approved,
    );
    let elsewhere = sandbox.root.join("elsewhere");
    server_script(
        &sandbox,
        &elsewhere.join("scripts/server.sh"),
        "stranger",
        &stranger,
    );
    sandbox.write_mcp_json(&json!({"local": {"command": "./scripts/server.sh"}}));
    let project = sandbox.project.display().to_string();
    for (folder, args) in [
        (sandbox.deep(), vec!["--json", "list"]),
        (elsewhere, vec!["--json", "--cwd", project.as_str(), "list"]),
    ] {
        let outcome = sandbox.run_in(&folder, &args);
        let list = outcome.assert_code(0).json();
        assert_eq!(server(&list, "local")["status"], "connected", "{outcome:?}");
        assert!(approved.exists(), "{outcome:?}");
        assert!(!stranger.exists(), "an unapproved script ran: {outcome:?}");
        std::fs::remove_file(&approved).unwrap();
    }
}

/// A server of the user's own files starts in the working folder: `--cwd DIR` is DIR, as if
/// the command ran there, and a relative `cwd` of its entry is taken from it.
#[test]
fn a_user_server_starts_in_the_working_folder_given_by_cwd() {
    let sandbox = Sandbox::new("user-cwd");
    let (program, args) = testkit::FixtureServer::new()
        .name(format!("{}mine", sandbox.marker))
        .command();
    let program = program.display().to_string();
    std::fs::create_dir_all(sandbox.project.join("tools")).unwrap();
    let user_file = sandbox.user_file();
    std::fs::create_dir_all(user_file.parent().unwrap()).unwrap();
    std::fs::write(
        &user_file,
        json!({"mcpServers": {
            "mine": {"command": program, "args": args},
            "tooled": {"command": program, "args": args, "cwd": "tools"},
        }})
        .to_string(),
    )
    .unwrap();
    let project = sandbox.project.display().to_string();
    for (server, folder) in [
        ("mine", sandbox.project.clone()),
        ("tooled", sandbox.project.join("tools")),
    ] {
        let tool = format!("{server}/environment");
        let outcome = sandbox.run_in(
            &sandbox.root,
            &[
                "--json",
                "--cwd",
                project.as_str(),
                "call",
                &tool,
                "--arg",
                "name=HOME",
            ],
        );
        let result = outcome.assert_code(0).json();
        let report: Value =
            serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(
            report["cwd"].as_str().map(Path::new),
            Some(folder.as_path()),
            "{outcome:?}"
        );
    }
}

/// A script at `path` that prints `value` (a `!command`'s output).
fn printing_script(path: &Path, value: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, format!("#!/bin/sh\necho {value}\n")).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A project server's `!./scripts/token.sh` runs the project's script, from a subfolder and
/// from another folder (through `--cwd`) holding a script of the same name.
#[test]
fn a_project_servers_relative_command_value_runs_from_its_project_folder() {
    let sandbox = Sandbox::new("relative-command-value");
    printing_script(
        &sandbox.project.join("scripts/token.sh"),
        "from-the-project",
    );
    let elsewhere = sandbox.root.join("elsewhere");
    printing_script(&elsewhere.join("scripts/token.sh"), "from-elsewhere");
    printing_script(
        &sandbox.deep().join("scripts/token.sh"),
        "from-the-subfolder",
    );
    let mut entry = sandbox.fixture("tokened", |server| server);
    entry["env"] = json!({"TOKEN": "!./scripts/token.sh"});
    sandbox.write_mcp_json(&json!({ "tokened": entry }));
    let project = sandbox.project.display().to_string();
    for (folder, args) in [
        (sandbox.deep(), vec!["--json"]),
        (elsewhere, vec!["--json", "--cwd", project.as_str()]),
    ] {
        let mut args = args;
        args.extend(["call", "tokened/environment", "--arg", "name=TOKEN"]);
        let outcome = sandbox.run_in(&folder, &args);
        let result = outcome.assert_code(0).json();
        let report: Value =
            serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(report["value"], "from-the-project", "{outcome:?}");
    }
}
