//! The management commands at the top level (`add`, `add-json`, `get`, `remove`, `enable`,
//! `disable`), end to end through the binary: their JSON output, the files they write (mode
//! 0600, other content kept), `get` with secrets hidden and shadowed definitions shown, and
//! that none of them starts a server it does not need.
//!
//! Every run gets a temporary project and home (`HOME` set, XDG variables removed, `--no-cache`),
//! so the user's own files are never read or written. The project's Claude Code file holds a
//! `sentinel` server whose command leaves a file behind when it starts: no command here may
//! start it.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod cli_support;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use cli_support::{BIN, Sandbox};
use serde_json::{Value, json};
use testkit::FixtureServer;

impl Sandbox {
    /// A project and home labelled `manage`, every command run with `--no-cache`, whose
    /// project file holds only the sentinel.
    fn new(test: &str) -> Self {
        let sandbox = Self::labelled("manage", test).without_cache();
        sandbox.write_claude_project_file(&json!({}));
        sandbox
    }

    /// Writes the project's `.mcp.json` (Claude Code's project file) with `servers` and the
    /// `sentinel`, approved the way a Claude Code user would have.
    fn write_claude_project_file(&self, servers: &Value) {
        let mut servers = servers.clone();
        let started = self.started_file().display().to_string();
        let (program, args) = FixtureServer::new().command();
        let mut line = format!("echo started >> '{started}'; exec '{}'", program.display());
        for arg in args {
            line.push_str(&format!(" '{arg}'"));
        }
        servers["sentinel"] = json!({"command": "sh", "args": ["-c", line]});
        self.write_mcp_json(&servers);
    }

    /// Where the sentinel notes that it was started.
    fn started_file(&self) -> PathBuf {
        self.root.join("sentinel-started")
    }

    fn assert_sentinel_never_started(&self) {
        assert!(
            !self.started_file().exists(),
            "a command started the sentinel server, which it did not need"
        );
    }

    fn project_file(&self) -> PathBuf {
        self.project.join(".agent-session/mcp.json")
    }
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn mode_of(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

/// A fixture server's command line as `add` words: `-- PROGRAM ARGS…`.
fn fixture_words(fixture: &FixtureServer) -> Vec<String> {
    let (program, args) = fixture.command();
    std::iter::once("--".to_owned())
        .chain(std::iter::once(program.display().to_string()))
        .chain(args)
        .collect()
}

fn with_words<'a>(head: &[&'a str], tail: &'a [String]) -> Vec<&'a str> {
    head.iter()
        .copied()
        .chain(tail.iter().map(String::as_str))
        .collect()
}

#[test]
fn add_and_add_json_write_private_files_keep_other_content_and_start_nothing() {
    let sandbox = Sandbox::new("add");
    let project_file = sandbox.project_file();
    std::fs::create_dir_all(project_file.parent().unwrap()).unwrap();
    std::fs::write(
        &project_file,
        r#"{"note": "mine", "mcpServers": {"keep": {"command": "keep-me", "custom": 1}}}"#,
    )
    .unwrap();
    std::fs::set_permissions(&project_file, std::fs::Permissions::from_mode(0o644)).unwrap();

    let fixture = fixture_words(&FixtureServer::new());
    let added = sandbox
        .run(&with_words(
            &[
                "--json",
                "add",
                "gh",
                "-s",
                "project",
                "-e",
                "TOKEN=abc",
                "--env",
                "MODE=x=y",
            ],
            &fixture,
        ))
        .assert_code(0)
        .json();
    assert_eq!(
        added,
        json!({
            "added": "gh",
            "scope": "project",
            "path": project_file.display().to_string(),
            "transport": "stdio",
        })
    );
    let added = sandbox
        .run(&[
            "--json",
            "add",
            "web",
            "--transport",
            "sse",
            "-H",
            "Authorization: Bearer sk-1",
            "--header",
            "X-Team:core",
            "http://127.0.0.1:9/sse",
        ])
        .assert_code(0)
        .json();
    assert_eq!(added["transport"], "sse");
    let added = sandbox
        .run(&[
            "--json",
            "add-json",
            "j",
            r#"{"command": "cat", "args": ["-u"], "timeout": 5000}"#,
            "--scope",
            "user",
        ])
        .assert_code(0)
        .json();
    assert_eq!(added["scope"], "user");
    assert_eq!(added["path"], sandbox.user_file().display().to_string());
    // The plain text says where it went and what to run next.
    let text = sandbox.run(&["add", "h", "https://h.example/mcp"]);
    text.assert_code(0);
    assert!(
        text.stdout.contains("added \"h\" to") && text.stdout.contains("agent-session get h"),
        "{}",
        text.stdout
    );

    let written = read_json(&project_file);
    assert_eq!(mode_of(&project_file), 0o600);
    assert_eq!(written["note"], "mine");
    assert_eq!(
        written["mcpServers"]["keep"],
        json!({"command": "keep-me", "custom": 1})
    );
    let names: Vec<&String> = written["mcpServers"].as_object().unwrap().keys().collect();
    assert_eq!(names, ["keep", "gh", "web", "h"]);
    assert_eq!(
        written["mcpServers"]["gh"]["env"],
        json!({"TOKEN": "abc", "MODE": "x=y"})
    );
    assert_eq!(
        written["mcpServers"]["web"],
        json!({
            "type": "sse",
            "url": "http://127.0.0.1:9/sse",
            "headers": {"Authorization": "Bearer sk-1", "X-Team": "core"},
        })
    );
    assert_eq!(mode_of(&sandbox.user_file()), 0o600);
    assert_eq!(
        read_json(&sandbox.user_file())["mcpServers"]["j"],
        json!({"command": "cat", "args": ["-u"], "timeout": 5000})
    );

    // The servers added to the project file are approved: the user added them.
    let listed = sandbox.run(&["--json", "get", "gh"]).assert_code(0).json();
    assert_eq!(listed["status"], "connected");
    sandbox.assert_sentinel_never_started();
}

#[test]
fn add_refuses_each_bad_piece_by_name_and_writes_nothing() {
    let sandbox = Sandbox::new("add-errors");
    for (args, expected) in [
        (
            &["add", "x", "-e", "FOO", "--", "cat"][..],
            "-e \"FOO\" is not KEY=VALUE",
        ),
        (
            &[
                "add",
                "x",
                "-H",
                "Authorization Bearer sk-2",
                "http://h.example/mcp",
            ],
            "-H \"Authorization…\" is not 'Name: value'",
        ),
        (
            &["add", "x", "--transport", "http"],
            "--transport http needs the server's URL",
        ),
        (
            &["add", "x", "http://h.example/mcp", "--", "cat"],
            "give either a URL or -- COMMAND, not both",
        ),
        (
            &["add", "x", "-e", "A=1", "http://h.example/mcp"],
            "-e/--env sets a stdio server's environment",
        ),
        (
            &["add", "x", "--scope", "team", "--", "cat"],
            "--scope must be project or user, not \"team\"",
        ),
        (
            &["add-json", "x", "{bad"],
            "the JSON for \"x\" does not parse",
        ),
        (
            &["add-json", "x", r#"{"url": "http://h", "command": "c"}"#],
            "both \"command\" and \"url\" are set",
        ),
    ] {
        // A definition given wrongly is a usage error: exit 2.
        let outcome = sandbox.run(args);
        outcome.assert_code(2);
        assert!(
            outcome.stderr.contains(expected),
            "{args:?}: {}",
            outcome.stderr
        );
        assert!(
            outcome.stderr.contains("usage: agent-session add"),
            "{args:?}: {}",
            outcome.stderr
        );
        assert!(!outcome.stderr.contains("sk-2"), "{}", outcome.stderr);
        assert!(!sandbox.project_file().exists(), "{args:?} wrote a file");
    }
    // A name already there is refused, and the file stays as it was.
    sandbox.run(&["add", "x", "--", "cat"]).assert_code(0);
    let before = std::fs::read_to_string(sandbox.project_file()).unwrap();
    let again = sandbox.run(&["add", "x", "--", "other"]);
    again.assert_code(1);
    assert!(
        again.stderr.contains("already in") && again.stderr.contains("remove it first"),
        "{}",
        again.stderr
    );
    assert_eq!(
        std::fs::read_to_string(sandbox.project_file()).unwrap(),
        before
    );
    sandbox.assert_sentinel_never_started();
}

#[test]
fn get_shows_secrets_hidden_the_source_and_shadowed_definitions_after_connecting_only_that_server()
{
    let sandbox = Sandbox::new("get");
    // Claude Code's file defines `gh` too: this agent's own project file comes first.
    sandbox.write_claude_project_file(&json!({"gh": {"command": "other-gh", "env": {"T": "x"}}}));
    let fixture = fixture_words(&FixtureServer::new().tools(3));
    sandbox
        .run(&with_words(
            &["add", "gh", "-e", "TOKEN=sk-env-secret"],
            &fixture,
        ))
        .assert_code(0);
    // And a switched-off definition in the user's own file.
    sandbox
        .run(&["add", "gh", "--scope", "user", "--", "user-gh"])
        .assert_code(0);
    let mut user = read_json(&sandbox.user_file());
    user["mcpServers"]["gh"]["enabled"] = json!(false);
    std::fs::write(sandbox.user_file(), user.to_string()).unwrap();

    let got = sandbox.run(&["--json", "get", "gh"]);
    got.assert_code(0);
    assert!(!got.stdout.contains("sk-env-secret"), "{}", got.stdout);
    let got = got.json();
    assert_eq!(got["name"], "gh");
    assert_eq!(got["status"], "connected");
    // The fixture's own tools and the three more it was asked for.
    let tools = got["tool_names"].as_array().unwrap().len();
    assert!(tools > 3, "{got}");
    assert_eq!(got["tools"], tools);
    assert_eq!(got["transport"], "stdio");
    assert_eq!(got["protocol"], "2025-11-25");
    assert_eq!(got["env"], json!({"TOKEN": "<redacted>"}));
    assert_eq!(got["error"], Value::Null);
    assert_eq!(
        got["source"]["path"],
        sandbox.project_file().display().to_string()
    );
    assert_eq!(got["source"]["level"], "project");
    let shadowed: Vec<(String, String)> = got["shadowed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| {
            (
                entry["path"].as_str().unwrap().to_owned(),
                entry["reason"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert!(
        shadowed.contains(&(
            sandbox.mcp_json().display().to_string(),
            "shadowed".to_owned()
        )),
        "{shadowed:?}"
    );
    assert!(
        shadowed.contains(&(
            sandbox.user_file().display().to_string(),
            "disabled".to_owned()
        )),
        "{shadowed:?}"
    );

    let text = sandbox.run(&["get", "gh"]);
    text.assert_code(0);
    for expected in [
        &format!("connected ({tools} tools)")[..],
        "protocol:  2025-11-25",
        "TOKEN=<redacted>",
        "shadows:",
        "(shadowed)",
        "(disabled)",
        // The project's `.mcp.json`, which three other tools read too.
        "Claude Code +3 (project)",
    ] {
        assert!(
            text.stdout.contains(expected),
            "{expected}: {}",
            text.stdout
        );
    }
    assert!(!text.stdout.contains("sk-env-secret"), "{}", text.stdout);

    // A remote server that does not answer: its error, its header names, exit status 1.
    sandbox
        .run(&[
            "add",
            "web",
            "-H",
            "Authorization: Bearer sk-header-secret",
            "http://127.0.0.1:9/mcp?key=sk-url-secret",
        ])
        .assert_code(0);
    let web = sandbox.run(&["--json", "get", "web"]);
    web.assert_code(1);
    for secret in ["sk-header-secret", "sk-url-secret"] {
        assert!(!web.stdout.contains(secret), "{}", web.stdout);
        assert!(!web.stderr.contains(secret), "{}", web.stderr);
    }
    let web = web.json();
    assert_eq!(web["status"], "failed");
    assert_eq!(web["protocol"], Value::Null);
    assert_eq!(web["transport"], "http");
    assert_eq!(web["headers"], json!({"Authorization": "<redacted>"}));
    assert!(web["error"].as_str().unwrap().contains("web"), "{web}");

    let unknown = sandbox.run(&["get", "nosuch"]);
    unknown.assert_code(2);
    assert!(
        unknown.stderr.contains("unknown server \"nosuch\""),
        "{}",
        unknown.stderr
    );
    sandbox.assert_sentinel_never_started();
}

#[test]
fn remove_enable_and_disable_change_only_this_agents_files_and_start_nothing() {
    let sandbox = Sandbox::new("switch");
    let claude_before = std::fs::read_to_string(sandbox.mcp_json()).unwrap();

    // A server of another tool's project file is switched for this project, in the user
    // file's disabledProjectServers.
    let disabled = sandbox
        .run(&["--json", "disable", "sentinel"])
        .assert_code(0)
        .json();
    assert_eq!(disabled["disabled"], "sentinel");
    assert_eq!(disabled["on"], false);
    assert_eq!(
        disabled["changes"][0]["action"],
        "added_to_disabled_project_servers"
    );
    assert_eq!(
        disabled["changes"][0]["path"],
        sandbox.user_file().display().to_string()
    );
    assert_eq!(mode_of(&sandbox.user_file()), 0o600);
    assert_eq!(
        read_json(&sandbox.user_file())["disabledProjectServers"]
            [sandbox.project.display().to_string()],
        json!(["sentinel"])
    );
    let got = sandbox.run(&["--json", "get", "sentinel"]);
    got.assert_code(1);
    assert_eq!(got.json()["status"], "disabled");
    let enabled = sandbox
        .run(&["--json", "enable", "sentinel"])
        .assert_code(0)
        .json();
    assert_eq!(enabled["enabled"], "sentinel");
    assert_eq!(enabled["on"], true);
    assert_eq!(
        enabled["changes"][0]["action"],
        "removed_from_disabled_project_servers"
    );
    let again = sandbox.run(&["enable", "sentinel"]);
    again.assert_code(0);
    assert!(
        again
            .stdout
            .contains("was already enabled; nothing was written"),
        "{}",
        again.stdout
    );
    // Removing it points at disable: another tool's file is never edited.
    let refused = sandbox.run(&["remove", "sentinel"]);
    refused.assert_code(1);
    assert!(
        refused
            .stderr
            .contains("agent-session disable sentinel turns it off instead"),
        "{}",
        refused.stderr
    );
    assert_eq!(
        std::fs::read_to_string(sandbox.mcp_json()).unwrap(),
        claude_before
    );

    // This agent's own server is switched in its entry, and removed from its file.
    sandbox
        .run(&["add", "gh", "-e", "A=1", "--", "gh-server"])
        .assert_code(0);
    let mut project = read_json(&sandbox.project_file());
    project["custom"] = json!({"kept": true});
    std::fs::write(sandbox.project_file(), project.to_string()).unwrap();
    let disabled = sandbox
        .run(&["--json", "disable", "gh"])
        .assert_code(0)
        .json();
    assert_eq!(disabled["changes"][0]["action"], "set_enabled_false");
    assert_eq!(
        read_json(&sandbox.project_file())["mcpServers"]["gh"]["enabled"],
        false
    );
    let enabled = sandbox
        .run(&["--json", "enable", "gh"])
        .assert_code(0)
        .json();
    assert_eq!(enabled["changes"][0]["action"], "removed_enabled_flag");
    let removed = sandbox
        .run(&["--json", "remove", "gh", "--scope", "project"])
        .assert_code(0)
        .json();
    assert_eq!(
        removed,
        json!({
            "removed": "gh",
            "scope": "project",
            "path": sandbox.project_file().display().to_string(),
            "still_defined": null,
        })
    );
    let project = read_json(&sandbox.project_file());
    assert_eq!(mode_of(&sandbox.project_file()), 0o600);
    assert_eq!(project["custom"], json!({"kept": true}));
    assert_eq!(project["mcpServers"], json!({}));

    for (args, expected, code) in [
        (
            &["remove", "gh"][..],
            "unknown server \"gh\"; `agent-session list` shows the servers",
            2,
        ),
        (&["enable", "nosuch"], "unknown server \"nosuch\"", 2),
        (&["disable", "nosuch"], "unknown server \"nosuch\"", 2),
        // Words given wrongly are a usage error, as add's are.
        (&["remove", "x", "--scope", "local"], "--scope local", 2),
        (&["remove", "x", "-s", "bogus"], "bogus", 2),
    ] {
        let outcome = sandbox.run(args);
        outcome.assert_code(code);
        assert!(
            outcome.stderr.contains(expected),
            "{args:?}: {}",
            outcome.stderr
        );
    }
    sandbox.assert_sentinel_never_started();
}

#[test]
fn json_failures_are_json_on_stdout_with_the_message_naming_the_bad_piece() {
    let sandbox = Sandbox::new("json-errors");
    let outcome = sandbox.run(&[
        "--json",
        "add",
        "x",
        "-H",
        "no colon",
        "http://h.example/mcp",
    ]);
    outcome.assert_code(2);
    let error = outcome.json();
    assert_eq!(error["error"]["kind"], "usage", "{error}");
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("is not 'Name: value'"),
        "{error}"
    );
    assert!(!sandbox.project_file().exists());
}

#[test]
fn the_shell_takes_the_same_add_options_as_the_command_line() {
    let sandbox = Sandbox::new("shell");
    let mut command = Command::new(BIN);
    command
        .args(["--no-cache", "--json", "shell"])
        .current_dir(&sandbox.project)
        .env("HOME", &sandbox.home)
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_CACHE_HOME")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().unwrap();
    let input = "/mcp add web -t sse -H 'X-Key: k' -s user http://127.0.0.1:9/sse\n\
                 /mcp add-json j '{\"command\": \"cat\"}' --scope user\n\
                 /mcp add bad -e NOEQUALS -- cat\n";
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), input.as_bytes()).unwrap();
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let lines: Vec<Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines.len(), 3, "{stdout}");
    assert_eq!(lines[0]["ok"], true, "{}", lines[0]);
    assert_eq!(lines[1]["ok"], true, "{}", lines[1]);
    assert_eq!(lines[2]["ok"], false, "{}", lines[2]);
    assert!(
        lines[2]
            .to_string()
            .contains("-e \\\"NOEQUALS\\\" is not KEY=VALUE"),
        "{}",
        lines[2]
    );
    let user = read_json(&sandbox.user_file());
    assert_eq!(mode_of(&sandbox.user_file()), 0o600);
    assert_eq!(
        user["mcpServers"]["web"],
        json!({"type": "sse", "url": "http://127.0.0.1:9/sse", "headers": {"X-Key": "k"}})
    );
    assert_eq!(user["mcpServers"]["j"], json!({"command": "cat"}));
    assert!(user["mcpServers"].get("bad").is_none());
}

#[test]
fn providers_lists_every_tool_with_the_files_it_looked_for_and_starts_nothing() {
    let sandbox = Sandbox::new("providers");
    std::fs::create_dir_all(sandbox.home.join(".cursor")).unwrap();
    std::fs::write(
        sandbox.home.join(".cursor/mcp.json"),
        json!({"mcpServers": {"a": {"command": "a"}, "b": {"url": "https://b.example/mcp"}}})
            .to_string(),
    )
    .unwrap();
    let listed = sandbox.run(&["--json", "providers"]).assert_code(0).json();
    let providers = listed["providers"].as_array().unwrap();
    assert_eq!(providers[0]["id"], "native");
    let cursor = providers.iter().find(|p| p["id"] == "cursor").unwrap();
    let files: Vec<(String, bool, u64)> = cursor["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|file| {
            (
                file["path"].as_str().unwrap().to_owned(),
                file["exists"].as_bool().unwrap(),
                file["servers"].as_u64().unwrap(),
            )
        })
        .collect();
    let project_file = sandbox.project.join(".cursor/mcp.json");
    let user_file = sandbox.home.join(".cursor/mcp.json");
    assert_eq!(
        files,
        [
            (project_file.display().to_string(), false, 0),
            (user_file.display().to_string(), true, 2),
        ]
    );
    let claude = providers.iter().find(|p| p["id"] == "claude-code").unwrap();
    assert!(
        claude["files"]
            .as_array()
            .unwrap()
            .iter()
            .any(
                |file| file["path"] == sandbox.mcp_json().display().to_string()
                    && file["servers"] == 1
            ),
        "{claude:#}"
    );

    let text = sandbox.run(&["providers"]).assert_code(0).stdout.clone();
    assert!(
        text.contains("Cursor (cursor): 1 of 2 files found, 2 servers"),
        "{text}"
    );
    assert!(text.contains(&format!(
        "  found   {}: 2 servers (user)",
        user_file.display()
    )));
    assert!(text.contains(&format!("  missing {}", project_file.display())));
    // The tools with no file here are one line, not a block of missing files each.
    let windsurf = sandbox.home.join(".codeium/windsurf/mcp_config.json");
    assert!(!text.contains(&windsurf.display().to_string()), "{text}");
    let none_here = text
        .lines()
        .find(|line| line.starts_with("no file here of: "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        none_here.contains("Windsurf")
            && !none_here.contains("Cursor")
            && none_here.ends_with("(`agent-session providers --all` lists the files looked for)"),
        "{none_here}"
    );
    assert!(text.lines().count() < 30, "{text}");
    let all = sandbox
        .run(&["providers", "--all"])
        .assert_code(0)
        .stdout
        .clone();
    assert!(
        all.contains(&format!("  missing {}", windsurf.display())),
        "{all}"
    );
    assert!(!all.contains("no file here of"), "{all}");
    sandbox.assert_sentinel_never_started();
}

#[test]
fn adding_a_server_another_tool_defines_says_which_one_is_used() {
    let sandbox = Sandbox::new("shadowing");
    let claude_user = json!({"mcpServers": {"memory": {"command": "claude-memory"}}});
    std::fs::write(sandbox.home.join(".claude.json"), claude_user.to_string()).unwrap();
    let added = sandbox.run(&["add", "memory", "--scope", "user", "--", "mine"]);
    added.assert_code(0);
    assert!(
        added
            .stdout
            .contains("note: this \"memory\" is used instead of the one in"),
        "{added:?}"
    );
    assert!(added.stdout.contains(".claude.json"), "{added:?}");
    sandbox.assert_sentinel_never_started();
}

#[test]
fn disabling_a_project_server_leaves_the_same_name_in_another_project_on() {
    let sandbox = Sandbox::new("per-project");
    let other = sandbox.root.join("other-project");
    std::fs::create_dir_all(&other).unwrap();
    let memory = json!({"mcpServers": {"memory": {"command": "true"}}});
    std::fs::write(other.join(".mcp.json"), memory.to_string()).unwrap();
    sandbox.write_claude_project_file(&json!({"memory": {"command": "true"}}));
    let approvals = json!({"projects": {
        sandbox.project.display().to_string(): {"enableAllProjectMcpServers": true},
        other.display().to_string(): {"enableAllProjectMcpServers": true},
    }});
    std::fs::write(sandbox.home.join(".claude.json"), approvals.to_string()).unwrap();

    let disabled = sandbox
        .run(&["--json", "disable", "memory"])
        .assert_code(0)
        .json();
    assert_eq!(disabled["on"], false, "{disabled}");
    let status = |cwd: &Path| {
        let listed = sandbox
            .run(&[
                "--json",
                "--cwd",
                cwd.to_str().unwrap(),
                "list",
                "--timeout-ms",
                "1",
            ])
            .json();
        listed["servers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|server| server["name"] == "memory")
            .map(|server| server["status"].as_str().unwrap().to_owned())
            .unwrap()
    };
    assert_eq!(status(&sandbox.project), "disabled");
    assert_ne!(
        status(&other),
        "disabled",
        "disabled in a project it was not asked for"
    );
    sandbox.run(&["enable", "memory"]).assert_code(0);
    assert_ne!(status(&sandbox.project), "disabled");
    // Emptied, the list goes: the user file keeps nothing that means nothing.
    let user = read_json(&sandbox.user_file());
    assert!(user.get("disabledProjectServers").is_none(), "{user:#}");
}
