//! The `/mcp` commands against real fixture servers in a temporary project and home.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::os::unix::fs::PermissionsExt;
use std::sync::Arc;

use agent_session::commands::HELP;
use agent_session::{AgentSession, CommandOutput, run_mcp_command};
use mcp_manager::ConnectionStatus;
use serde_json::{Value, json};
use testkit::FixtureServer;

use common::{
    World, fixture_program, guard, read_json, server_tool_count, tool_names, wait_for, write_json,
};

/// Runs one `/mcp` command under the hang guard.
async fn run(session: &Arc<AgentSession>, line: &str) -> CommandOutput {
    guard(run_mcp_command(session, line)).await
}

/// Runs a command that must succeed.
async fn ok(session: &Arc<AgentSession>, line: &str) -> CommandOutput {
    let out = run(session, line).await;
    assert!(out.ok, "/mcp {line} failed: {}", out.text);
    out
}

/// Runs a command that must fail with one line containing `expected`.
async fn fails(session: &Arc<AgentSession>, line: &str, expected: &str) -> String {
    let out = run(session, line).await;
    assert!(!out.ok, "/mcp {line} should fail, gave: {}", out.text);
    assert!(
        !out.text.contains('\n'),
        "/mcp {line}: not one line: {}",
        out.text
    );
    assert!(
        out.text.contains(expected),
        "/mcp {line}: {:?} does not contain {expected:?}",
        out.text
    );
    assert_eq!(out.json, json!({"error": out.text}));
    out.text
}

/// The row of `name` in `/mcp list --json`.
async fn list_row(session: &Arc<AgentSession>, name: &str) -> Option<Value> {
    let out = ok(session, "list").await;
    out.json["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|row| row["name"] == name)
        .cloned()
}

fn mcp_tools_of(session: &AgentSession, server: &str) -> Vec<String> {
    let prefix = format!("mcp_{server}_");
    tool_names(session)
        .into_iter()
        .filter(|name| name.starts_with(&prefix))
        .collect()
}

fn mode(path: &std::path::Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

async fn wait_connected(session: &AgentSession, server: &str) {
    wait_for(&format!("{server} to connect"), || {
        session.manager().get_connection_status(server) == ConnectionStatus::Connected
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn help_is_the_default_and_unknown_commands_are_one_line() {
    let world = World::new();
    let session = world.start().await.session;
    for line in ["", "help", "  help  "] {
        let out = ok(&session, line).await;
        assert_eq!(out.text, HELP);
        assert_eq!(out.json, json!({"help": HELP}));
    }
    assert!(HELP.contains("--token"));
    assert!(HELP.contains("reload"));
    fails(
        &session,
        "frobnicate",
        "unknown /mcp command \"frobnicate\"",
    )
    .await;
    fails(&session, "help me", "unexpected argument \"me\"").await;
    fails(&session, "add x --token \"open", "unterminated quote").await;
    guard(session.shutdown()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_shows_status_transport_source_tools_and_errors() {
    let world = World::new();
    world.write_mcp_json_entries(&[
        (
            "fast",
            common::fixture_entry(&FixtureServer::new().tools(2)),
        ),
        (
            "failing",
            common::fixture_entry(
                &FixtureServer::new()
                    .crash_at("initialize")
                    .crash_stderr("boom at init"),
            ),
        ),
        ("off", common::fixture_entry(&FixtureServer::new())),
        ("broken", json!({"args": ["no-command"]})),
    ]);
    write_json(
        &world.native_user_file(),
        &json!({"disabledServers": ["off"]}),
    );
    // A broken native project file: a problem of a file, not of one server.
    let bad_file = world.native_project_file();
    std::fs::create_dir_all(bad_file.parent().unwrap()).unwrap();
    std::fs::write(&bad_file, "{ not json").unwrap();

    let session = world.start().await.session;
    let out = ok(&session, "list").await;
    let servers = out.json["servers"].as_array().unwrap();
    let names: Vec<&str> = servers
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["broken", "failing", "fast", "off"]);
    let row = |name: &str| servers.iter().find(|s| s["name"] == name).unwrap();
    let mcp_json = world.mcp_json().display().to_string();
    let claude_source = json!({
        "provider": "claude-code",
        "provider_name": "Claude Code",
        "path": mcp_json,
        "level": "project",
        // Copilot CLI, Qwen Code and VS Code read the project's `.mcp.json` too.
        "also_used_by": ["vscode", "copilot-cli", "qwen"],
    });

    let fast = row("fast");
    assert_eq!(fast["status"], "connected");
    assert_eq!(fast["transport"], "stdio");
    assert_eq!(fast["source"], claude_source);
    // The fixture's own tools and the two `--tools 2` adds.
    assert_eq!(fast["tools"], testkit::BUILT_IN_TOOLS + 2);
    assert_eq!(
        server_tool_count(&session, "fast"),
        testkit::BUILT_IN_TOOLS + 2
    );
    assert!(fast["tools"].as_u64().unwrap() >= 2);
    assert_eq!(fast["error"], Value::Null);

    let failing = row("failing");
    assert_eq!(failing["status"], "failed");
    assert_eq!(failing["tools"], 0);
    assert_eq!(failing["source"], claude_source);
    let error = failing["error"].as_str().unwrap();
    assert!(error.contains("failing"), "{error}");

    let off = row("off");
    assert_eq!(off["status"], "disabled");
    assert_eq!(off["source"], claude_source);
    assert_eq!(off["transport"], "stdio");
    assert_eq!(off["error"], Value::Null);

    let broken = row("broken");
    assert_eq!(broken["status"], "invalid");
    assert_eq!(broken["source"]["path"], mcp_json);
    assert!(
        broken["error"].as_str().unwrap().contains("command"),
        "{broken}"
    );

    let errors = out.json["errors"].as_array().unwrap();
    let bad_path = bad_file.display().to_string();
    assert!(errors.iter().any(|e| e["path"] == bad_path), "{errors:?}");
    // A server's problem names the server and points at the file that defines it.
    for server in ["broken", "failing"] {
        assert!(
            errors
                .iter()
                .any(|e| e["server"] == server && e["path"] == mcp_json && e["error"].is_string()),
            "{errors:?}"
        );
    }
    assert!(
        errors
            .iter()
            .any(|e| e["path"] == bad_path && e["server"].is_null()),
        "{errors:?}"
    );

    // The text is an aligned table, errors under their server, file problems at the end.
    let lines: Vec<&str> = out.text.lines().collect();
    assert!(lines[0].starts_with("NAME"), "{}", out.text);
    let status_column = lines[0].find("STATUS").unwrap();
    let source_column = lines[0].find("SOURCE").unwrap();
    for (name, status) in [
        ("broken", "invalid"),
        ("failing", "failed"),
        ("fast", "connected"),
        ("off", "disabled"),
    ] {
        let line = lines
            .iter()
            .find(|line| line.starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("no row for {name}:\n{}", out.text));
        assert_eq!(
            line[status_column..].split_whitespace().next(),
            Some(status)
        );
        assert!(
            line[source_column..].starts_with("Claude Code +3 (project) "),
            "{line}"
        );
    }
    assert!(out.text.contains("  error: "), "{}", out.text);
    assert!(out.text.contains("problems:"), "{}", out.text);
    assert!(out.text.contains(&bad_path), "{}", out.text);

    // Removing a server of another tool's file points at that file, even while one of this
    // agent's own files is broken.
    let error = fails(
        &session,
        "remove fast",
        "/mcp disable fast turns it off instead",
    )
    .await;
    assert!(
        error.contains(&format!("Claude Code's project config {mcp_json}")),
        "{error}"
    );
    guard(session.shutdown()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_shows_a_server_the_enterprise_policy_denies_and_the_rule_that_did() {
    let world = World::new();
    world.write_mcp_json_entries(&[
        (
            "allowed",
            common::fixture_entry(&FixtureServer::new().tools(1)),
        ),
        (
            "banned",
            common::fixture_entry(&FixtureServer::new().tools(1)),
        ),
    ]);
    let managed = world.home().join("managed-policy");
    write_json(
        &managed.join("managed-settings.json"),
        &json!({"deniedMcpServers": [{"serverName": "banned"}]}),
    );
    let options = world
        .options()
        .context(world.context().with_managed_dir(&managed));
    let start = common::guard(agent_session::create_agent_session(options)).await;
    let session = start.session;
    wait_connected(&session, "allowed").await;
    let row = list_row(&session, "banned")
        .await
        .expect("the denied server is listed");
    assert_eq!(row["status"], "denied-by-policy", "{row:#}");
    let error = row["error"].as_str().unwrap();
    assert!(
        error.starts_with("denied by policy: deniedMcpServers in "),
        "{error}"
    );
    assert!(error.contains("serverName \"banned\""), "{error}");
    let text = ok(&session, "list").await.text;
    assert!(text.contains("  error: denied by policy"), "{text}");
    assert_eq!(mcp_tools_of(&session, "banned"), Vec::<String>::new());
    guard(session.shutdown()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reload_rereads_the_files() {
    let world = World::new();
    world.write_mcp_json(&[("one", FixtureServer::new())]);
    let session = world.start().await.session;
    let out = ok(&session, "reload").await;
    assert_eq!(out.json["reloaded"], true);
    assert_eq!(out.json["servers"], 1);
    assert_eq!(out.json["connected"], 1);
    let one_tools = out.json["tools"].as_u64().unwrap();
    assert!(
        out.text.starts_with("reloaded: 1 of 1 server connected"),
        "{}",
        out.text
    );

    world.write_mcp_json(&[
        ("one", FixtureServer::new()),
        ("two", FixtureServer::new().tools(1)),
    ]);
    let out = ok(&session, "reload").await;
    assert_eq!(out.json["servers"], 2);
    assert!(
        out.json["tools"].as_u64().unwrap() > one_tools,
        "{}",
        out.json
    );
    assert!(!mcp_tools_of(&session, "two").is_empty());
    fails(&session, "reload now", "unexpected argument \"now\"").await;
    guard(session.shutdown()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn add_stdio_writes_a_private_file_and_connects_after_the_automatic_reload() {
    let world = World::new();
    world.write_mcp_json(&[("fast", FixtureServer::new())]);
    let session = world.start().await.session;
    let base_tools = testkit::BUILT_IN_TOOLS;
    let program = fixture_program();

    // Flags after `--` belong to the server's command line.
    let out = ok(
        &session,
        &format!("add extra -- \"{program}\" --tools 3 --name 'x y'"),
    )
    .await;
    let path = world.native_project_file();
    assert_eq!(out.json["added"], "extra");
    assert_eq!(out.json["scope"], "project");
    assert_eq!(out.json["path"], path.display().to_string());
    assert_eq!(out.json["status"], "connected");
    assert_eq!(out.json["tools"], base_tools + 3);
    assert!(out.text.contains("added \"extra\" to"), "{}", out.text);
    assert_eq!(mode(&path), 0o600);
    let written = read_json(&path);
    assert_eq!(
        written["mcpServers"]["extra"],
        json!({"command": program, "args": ["--tools", "3", "--name", "x y"]})
    );
    assert!(mcp_tools_of(&session, "extra").len() == base_tools + 3);
    let row = list_row(&session, "extra").await.unwrap();
    assert_eq!(row["status"], "connected");
    assert_eq!(row["source"]["provider"], "native");
    assert_eq!(row["source"]["path"], path.display().to_string());

    // User scope goes to the user file.
    let out = ok(&session, &format!("add wide --scope user -- {program}")).await;
    let user = world.native_user_file();
    assert_eq!(out.json["path"], user.display().to_string());
    assert_eq!(out.json["scope"], "user");
    assert_eq!(mode(&user), 0o600);
    assert!(read_json(&user)["mcpServers"]["wide"].is_object());
    assert_eq!(
        list_row(&session, "wide").await.unwrap()["status"],
        "connected"
    );

    // The same name twice in one file is refused, in one line.
    fails(&session, &format!("add extra -- {program}"), "already").await;
    guard(session.shutdown()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn add_url_writes_the_bearer_header_and_the_transport() {
    let world = World::new();
    let session = world.start().await.session;
    let out = ok(
        &session,
        "add remote --url http://127.0.0.1:9/mcp --token \"secret value\"",
    )
    .await;
    let path = world.native_project_file();
    assert_eq!(out.json["added"], "remote");
    assert_eq!(out.json["transport"], "http");
    assert_eq!(mode(&path), 0o600);
    assert_eq!(
        read_json(&path)["mcpServers"]["remote"],
        json!({
            "type": "http",
            "url": "http://127.0.0.1:9/mcp",
            "headers": {"Authorization": "Bearer secret value"},
        })
    );
    // This runtime connects stdio servers only: the server is listed with its error.
    let row = list_row(&session, "remote").await.unwrap();
    assert_eq!(row["transport"], "http");
    assert_eq!(row["status"], "failed");
    assert!(row["error"].is_string(), "{row}");

    let out = ok(
        &session,
        "add legacy --url=http://127.0.0.1:9/sse --transport sse --scope user",
    )
    .await;
    assert_eq!(out.json["transport"], "sse");
    let user = read_json(&world.native_user_file());
    assert_eq!(
        user["mcpServers"]["legacy"],
        json!({"type": "sse", "url": "http://127.0.0.1:9/sse"})
    );
    guard(session.shutdown()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn remove_deletes_native_servers_and_points_elsewhere_for_the_others() {
    let world = World::new();
    world.write_mcp_json(&[("fast", FixtureServer::new())]);
    let session = world.start().await.session;
    let program = fixture_program();
    ok(&session, &format!("add extra -- {program}")).await;
    assert!(!mcp_tools_of(&session, "extra").is_empty());

    // Not in the user file: the error says where it is.
    let user = world.native_user_file().display().to_string();
    let project = world.native_project_file().display().to_string();
    let error = fails(&session, "remove extra --scope user", "is not in").await;
    assert!(error.contains(&user) && error.contains(&project), "{error}");

    let out = ok(&session, "remove extra").await;
    assert_eq!(out.json["removed"], "extra");
    assert_eq!(out.json["path"], project);
    assert_eq!(out.json["still_defined"], Value::Null);
    assert!(
        read_json(&world.native_project_file())["mcpServers"]
            .as_object()
            .unwrap()
            .is_empty()
    );
    assert!(mcp_tools_of(&session, "extra").is_empty());
    assert!(list_row(&session, "extra").await.is_none());
    assert!(!mcp_tools_of(&session, "fast").is_empty());

    // A server of another tool's file is never edited: disable is the way.
    let before = std::fs::read(world.mcp_json()).unwrap();
    let error = fails(&session, "remove fast", "/mcp disable fast").await;
    assert!(
        error.contains(&world.mcp_json().display().to_string()),
        "{error}"
    );
    assert!(error.contains("Claude Code"), "{error}");
    assert_eq!(std::fs::read(world.mcp_json()).unwrap(), before);

    fails(&session, "remove nosuch", "unknown server \"nosuch\"").await;
    guard(session.shutdown()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn disable_and_enable_a_server_of_another_tool() {
    let world = World::new();
    let mut gamma = common::fixture_entry(&FixtureServer::new());
    // Switched off in Claude Code's own way: only that file can turn it on.
    gamma["disabled"] = json!(true);
    world.write_mcp_json_entries(&[
        (
            "alpha",
            common::fixture_entry(&FixtureServer::new().tools(2)),
        ),
        ("beta", common::fixture_entry(&FixtureServer::new())),
        ("gamma", gamma),
    ]);
    let session = world.start().await.session;
    let all = tool_names(&session).len();
    let alpha = mcp_tools_of(&session, "alpha").len();
    assert!(alpha > 0);
    let mcp_json = std::fs::read(world.mcp_json()).unwrap();
    let user = world.native_user_file();

    let out = ok(&session, "disable alpha").await;
    assert_eq!(out.json["disabled"], "alpha");
    // A project server is switched off for its project, not by its name everywhere.
    assert_eq!(
        out.json["changes"][0]["action"],
        "added_to_disabled_project_servers"
    );
    assert_eq!(out.json["changes"][0]["path"], user.display().to_string());
    assert!(out.text.contains("disabledProjectServers"), "{}", out.text);
    let project = world.project().display().to_string();
    assert_eq!(
        read_json(&user)["disabledProjectServers"][&project],
        json!(["alpha"])
    );
    assert_eq!(read_json(&user)["disabledServers"], Value::Null);
    assert_eq!(mode(&user), 0o600);
    assert_eq!(std::fs::read(world.mcp_json()).unwrap(), mcp_json);
    assert!(mcp_tools_of(&session, "alpha").is_empty());
    assert_eq!(tool_names(&session).len(), all - alpha);
    assert_eq!(out.json["tools"], all - alpha);
    assert_eq!(
        list_row(&session, "alpha").await.unwrap()["status"],
        "disabled"
    );
    fails(&session, "test alpha", "/mcp enable alpha").await;
    fails(&session, "reconnect alpha", "is disabled").await;

    // Again: nothing to write.
    let out = ok(&session, "disable alpha").await;
    assert_eq!(out.json["changes"], json!([]));
    assert!(out.text.contains("already disabled"), "{}", out.text);

    let out = ok(&session, "enable alpha").await;
    assert_eq!(out.json["enabled"], "alpha");
    assert_eq!(
        out.json["changes"][0]["action"],
        "removed_from_disabled_project_servers"
    );
    // Emptied, the list goes.
    assert_eq!(read_json(&user)["disabledProjectServers"], Value::Null);
    assert_eq!(std::fs::read(world.mcp_json()).unwrap(), mcp_json);
    assert_eq!(mcp_tools_of(&session, "alpha").len(), alpha);
    assert_eq!(tool_names(&session).len(), all);
    wait_connected(&session, "alpha").await;
    assert_eq!(
        list_row(&session, "alpha").await.unwrap()["status"],
        "connected"
    );

    // Another tool's own switch-off is not ours to undo: said in one line, nothing written.
    assert_eq!(
        list_row(&session, "gamma").await.unwrap()["status"],
        "disabled"
    );
    let user_before = std::fs::read(&user).unwrap();
    let error = fails(&session, "enable gamma", "which /mcp does not edit").await;
    assert!(
        error.contains(&world.mcp_json().display().to_string()),
        "{error}"
    );
    assert_eq!(std::fs::read(&user).unwrap(), user_before);
    assert_eq!(std::fs::read(world.mcp_json()).unwrap(), mcp_json);
    guard(session.shutdown()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn test_pings_connected_servers_and_explains_the_others() {
    let world = World::new();
    world.write_mcp_json(&[
        ("fast", FixtureServer::new().tools(1)),
        ("failing", FixtureServer::new().crash_at("initialize")),
        ("off", FixtureServer::new()),
    ]);
    write_json(
        &world.native_user_file(),
        &json!({"disabledServers": ["off"]}),
    );
    let session = world.start().await.session;

    let out = ok(&session, "test fast").await;
    assert_eq!(out.json["server"], "fast");
    assert_eq!(out.json["status"], "connected");
    assert_eq!(out.json["tools"], testkit::BUILT_IN_TOOLS + 1);
    assert!(out.json["latency_ms"].as_f64().unwrap() >= 0.0);
    assert!(out.text.contains("ping"), "{}", out.text);

    // Named once, by the server's own error, with what to run next.
    fails(&session, "test failing", "MCP server \"failing\"").await;
    let said = fails(
        &session,
        "test failing",
        "`/mcp reconnect failing` tries again",
    )
    .await;
    assert!(!said.contains("\"failing\": MCP server"), "{said}");
    fails(&session, "test off", "is disabled").await;
    fails(&session, "test nosuch", "unknown server \"nosuch\"").await;
    guard(session.shutdown()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reconnect_makes_a_new_connection() {
    let world = World::new();
    world.write_mcp_json(&[
        ("fast", FixtureServer::new()),
        ("failing", FixtureServer::new().crash_at("initialize")),
    ]);
    let session = world.start().await.session;
    let before = guard(session.manager().wait_for_connection("fast"))
        .await
        .unwrap();
    let tools = mcp_tools_of(&session, "fast");

    let out = ok(&session, "reconnect fast").await;
    assert_eq!(out.json["reconnected"], "fast");
    assert_eq!(out.json["status"], "connected");
    assert_eq!(out.json["tools"], tools.len());
    let after = guard(session.manager().wait_for_connection("fast"))
        .await
        .unwrap();
    assert!(!Arc::ptr_eq(&before, &after));
    wait_for("the registry to hold fast's tools", || {
        mcp_tools_of(&session, "fast") == tools
    })
    .await;

    fails(
        &session,
        "reconnect failing",
        "could not reconnect \"failing\"",
    )
    .await;
    fails(&session, "reconnect nosuch", "unknown server \"nosuch\"").await;
    guard(session.shutdown()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_usage_error_is_one_clear_line() {
    let world = World::new();
    world.write_mcp_json(&[("fast", FixtureServer::new())]);
    let session = world.start().await.session;
    let add = "usage: /mcp add NAME [--scope project|user] [-e KEY=VALUE]... -- COMMAND \
               [ARGS...]  or  /mcp add NAME [--transport http|sse] [--scope project|user] \
               [-H 'Name: value']... URL";
    let cases: &[(&str, &str)] = &[
        ("add", "missing NAME"),
        ("add x", "missing \"-- COMMAND\" or a URL"),
        ("add x --", "missing COMMAND after \"--\""),
        ("add x --bogus 1 -- cmd", "unknown flag \"--bogus\""),
        (
            "add x --scope team -- cmd",
            "--scope must be project or user, not \"team\"",
        ),
        (
            "add x --url http://h/mcp --transport ws",
            "--transport must be stdio, http or sse, not \"ws\"",
        ),
        (
            "add x --url http://h/mcp -- cmd",
            "either a URL or -- COMMAND, not both",
        ),
        ("add x y -- cmd", "\"y\" is not a URL"),
        ("add 'bad name' -- cmd", "invalid server name \"bad name\""),
        ("add x --url", "--url needs a value"),
        (
            "add x --transport sse -- cmd",
            "--transport sse takes the server's URL",
        ),
        (
            "add x --token t -- cmd",
            "--token only applies to a remote server",
        ),
        (
            "add x --scope user --scope project -- cmd",
            "--scope is given twice",
        ),
    ];
    for (line, expected) in cases {
        let error = fails(&session, line, expected).await;
        assert!(error.ends_with(add), "{line}: {error}");
    }
    let cases: &[(&str, &str, &str)] = &[
        (
            "remove",
            "missing NAME",
            "usage: /mcp remove NAME [--scope project|user]",
        ),
        (
            "remove a b",
            "unexpected argument \"b\"",
            "usage: /mcp remove NAME",
        ),
        (
            "remove fast --scope team",
            "--scope must be project or user",
            "usage: /mcp remove",
        ),
        (
            "remove fast --force",
            "unknown flag \"--force\"",
            "usage: /mcp remove",
        ),
        (
            "remove nosuch",
            "unknown server \"nosuch\"",
            "`/mcp list` shows the servers",
        ),
        ("enable", "missing NAME", "usage: /mcp enable NAME"),
        (
            "enable nosuch",
            "unknown server \"nosuch\"",
            "`/mcp list` shows the servers",
        ),
        ("disable", "missing NAME", "usage: /mcp disable NAME"),
        (
            "disable fast extra",
            "unexpected argument \"extra\"",
            "usage: /mcp disable NAME",
        ),
        (
            "disable nosuch",
            "unknown server \"nosuch\"",
            "`/mcp list` shows the servers",
        ),
        ("test", "missing NAME", "usage: /mcp test NAME"),
        (
            "test nosuch",
            "unknown server \"nosuch\"",
            "`/mcp list` shows the servers",
        ),
        ("reconnect", "missing NAME", "usage: /mcp reconnect NAME"),
        (
            "reconnect nosuch",
            "unknown server \"nosuch\"",
            "`/mcp list` shows the servers",
        ),
        (
            "list all",
            "unexpected argument \"all\"",
            "usage: /mcp list",
        ),
    ];
    for (line, expected, usage) in cases {
        let error = fails(&session, line, expected).await;
        assert!(error.contains(usage), "{line}: {error}");
    }
    // Nothing was written by any of them.
    assert!(!world.native_project_file().exists());
    assert!(!world.native_user_file().exists());
    assert!(!mcp_tools_of(&session, "fast").is_empty());
    guard(session.shutdown()).await;
}
