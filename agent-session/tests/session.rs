//! The session's registry follows the manager: refreshes, late connections, list changes.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::sync::Arc;
use std::time::Duration;

use agent_session::{AgentSession, ToolOrigin, create_agent_session};
use async_trait::async_trait;
use common::{World, guard, memory_cache, tool_names as names};
use mcp_bridge::{AgentTool, ToolCancelled, ToolOutput};
use mcp_cache::{Fingerprint, ToolCache};
use serde_json::{Value, json};
use testkit::FixtureServer;
use tokio_util::sync::CancellationToken;

/// The key the tool cache keeps the list of `server` (of the world's files) under.
async fn key_of(world: &World, server: &str) -> Fingerprint {
    let options = mcp_manager::LoadOptions::new(common::APP)
        .context(world.context())
        .trust(mcp_config::TrustPolicy::TrustAll);
    let found = mcp_manager::discover_mcp_servers(world.project(), &options);
    let credentials = &*options.manager.credentials;
    mcp_manager::cache_fingerprint(&found.discovery.servers[server], credentials).await
}

/// Waits until the registry holds a tool named `name`.
async fn wait_for_tool(session: &AgentSession, name: &str) {
    let mut refreshes = session.refreshes();
    guard(async {
        while !names(session).iter().any(|tool| tool == name) {
            refreshes.changed().await.expect("the session is alive");
        }
    })
    .await;
}

/// An agent tool with any name, answering with its own name.
struct Named(&'static str);

#[async_trait]
impl AgentTool for Named {
    fn name(&self) -> &str {
        self.0
    }
    fn label(&self) -> &str {
        self.0
    }
    fn description(&self) -> &str {
        "One of the agent's own tools."
    }
    fn parameters(&self) -> &Value {
        static SCHEMA: std::sync::OnceLock<Value> = std::sync::OnceLock::new();
        SCHEMA.get_or_init(|| json!({"type": "object"}))
    }
    async fn execute(
        &self,
        _args: Value,
        _cancel: CancellationToken,
    ) -> Result<ToolOutput, ToolCancelled> {
        Ok(ToolOutput::text(format!("the agent's {}", self.0)))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refresh_replaces_only_mcp_tools_and_keeps_the_agents_own() {
    let world = World::new();
    world.write_mcp_json(&[("fx", FixtureServer::new())]);
    let options = world.options().own_tool(Arc::new(Named("clock")));
    let started = guard(create_agent_session(options)).await;
    let session = started.session;
    let before = names(&session);
    assert!(before.contains(&"clock".to_owned()));
    assert!(before.contains(&"mcp_fx_echo".to_owned()), "{before:?}");

    session.refresh_mcp_tools(Vec::new());
    assert_eq!(names(&session), ["clock"]);

    session.refresh_mcp_tools(session.manager().tools());
    assert_eq!(names(&session), before);
    assert!(session.registry().is_active("mcp_fx_echo"));
    guard(session.shutdown()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_tool_named_mcp_notes_survives_every_refresh() {
    let world = World::new();
    world.write_mcp_json(&[("fx", FixtureServer::new())]);
    // `mcp_fx_echo` is also the name the fixture's echo tool gets: the agent's tool wins.
    let options = world
        .options()
        .own_tool(Arc::new(Named("mcp_notes")))
        .own_tool(Arc::new(Named("mcp_fx_echo")));
    let started = guard(create_agent_session(options)).await;
    let session = started.session;
    let is_agents = |session: &AgentSession, name: &str| {
        session.registry().origin(name) == Some(&ToolOrigin::Agent)
            && session.registry().is_active(name)
    };
    let check = |session: &AgentSession, when: &str| {
        assert!(
            is_agents(session, "mcp_notes"),
            "{when}: {:?}",
            session.registry()
        );
        assert!(
            is_agents(session, "mcp_fx_echo"),
            "{when}: {:?}",
            session.registry()
        );
    };
    check(&session, "at start");
    assert!(
        names(&session).contains(&"mcp_fx_add".to_owned()),
        "the server's other tools are there: {:?}",
        names(&session)
    );
    let echo = session.tool("mcp_fx_echo").expect("the agent's tool");
    let output = guard(echo.execute(json!({"message": "x"}), CancellationToken::new()))
        .await
        .unwrap();
    assert_eq!(output.to_text(), "the agent's mcp_fx_echo");

    session.refresh_mcp_tools(Vec::new());
    check(&session, "after an empty refresh");
    assert!(!names(&session).contains(&"mcp_fx_add".to_owned()));
    session.refresh_mcp_tools(session.manager().tools());
    check(&session, "after a refresh from the manager");
    guard(session.reload()).await;
    check(&session, "after a reload");
    assert!(names(&session).contains(&"mcp_fx_add".to_owned()));
    guard(session.shutdown()).await;
    check(&session, "after the shutdown");
    assert_eq!(names(&session), ["mcp_fx_echo", "mcp_notes"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_late_connection_refreshes_the_registry_on_its_own() {
    let world = World::new();
    // Lists its tools only when the test lets it: after the gate, on any machine.
    let hold = testkit::Hold::in_folder(world.home(), "slow");
    let slow = FixtureServer::new().hold("tools/list", hold.fifo());
    world.write_mcp_json(&[("fast", FixtureServer::new()), ("slow", slow.clone())]);
    // A stale cache entry: the slow server's real list differs, so the refresh is visible.
    let cache = memory_cache();
    let stale: Vec<mcp_transport::Tool> =
        serde_json::from_value(json!([{"name": "old_tool", "inputSchema": {"type": "object"}}]))
            .unwrap();
    cache
        .set("slow", &key_of(&world, "slow").await, &stale)
        .await;

    let started = guard(create_agent_session(world.options_with_cache(cache))).await;
    let session = started.session;
    let at_the_gate = names(&session);
    assert!(
        at_the_gate.contains(&"mcp_slow_old_tool".to_owned()),
        "{at_the_gate:?}"
    );
    assert!(at_the_gate.contains(&"mcp_fast_echo".to_owned()));

    hold.release();
    wait_for_tool(&session, "mcp_slow_echo").await;
    let after = names(&session);
    assert!(
        !after.contains(&"mcp_slow_old_tool".to_owned()),
        "{after:?}"
    );
    assert!(after.contains(&"mcp_fast_echo".to_owned()));
    guard(session.shutdown()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_list_change_on_the_server_reaches_the_registry_without_any_call() {
    let world = World::new();
    world.write_mcp_json(&[("fx", FixtureServer::new())]);
    let started = guard(create_agent_session(world.options())).await;
    let session = started.session;
    assert!(!names(&session).contains(&"mcp_fx_late_tool".to_owned()));
    // The server changes its list (and says so) when its `change_tools` tool is called.
    let change = session.tool("mcp_fx_change_tools").expect("change_tools");
    let changed = guard(change.execute(json!({}), CancellationToken::new()))
        .await
        .unwrap();
    assert_eq!(changed.to_text(), "changed");
    wait_for_tool(&session, "mcp_fx_late_tool").await;
    guard(session.shutdown()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_mcp_off_nothing_is_discovered_or_started() {
    let world = World::new();
    world.write_mcp_json(&[("fx", FixtureServer::new())]);
    let options = world
        .options()
        .mcp(false)
        .own_tool(Arc::new(Named("clock")));
    let started = guard(create_agent_session(options)).await;
    assert_eq!(names(&started.session), ["clock"]);
    assert!(started.session.discovery().servers.is_empty());
    assert!(started.session.manager().server_names().is_empty());
    guard(started.session.shutdown()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_mcp_off_a_reload_discovers_nothing_and_reconnect_or_login_start_nothing() {
    let world = World::new();
    world.write_mcp_json(&[("fx", FixtureServer::new())]);
    let started = guard(create_agent_session(world.options().mcp(false))).await;
    let session = started.session;
    let problems = guard(session.reload()).await;
    assert!(problems.is_empty(), "{problems:?}");
    assert!(session.discovery().servers.is_empty());
    for outcome in [
        guard(session.reconnect("fx")).await.map(|()| 0),
        guard(session.login("fx")).await,
        guard(session.logout("fx")).await.map(usize::from),
    ] {
        let error = outcome.expect_err("MCP is off");
        assert!(error.to_string().contains("MCP is off"), "{error}");
    }
    assert!(session.manager().server_names().is_empty());
    assert!(names(&session).is_empty());
    guard(session.shutdown()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reload_rereads_the_files_and_shutdown_stops_every_server() {
    let world = World::new();
    world.write_mcp_json(&[("one", FixtureServer::new())]);
    let started = guard(create_agent_session(world.options())).await;
    let session = started.session;
    assert!(names(&session).contains(&"mcp_one_echo".to_owned()));

    world.write_mcp_json(&[("two", FixtureServer::new())]);
    let errors = guard(session.reload()).await;
    assert!(errors.is_empty(), "{errors:?}");
    let reloaded = names(&session);
    assert!(
        reloaded.contains(&"mcp_two_echo".to_owned()),
        "{reloaded:?}"
    );
    assert!(!reloaded.iter().any(|name| name.starts_with("mcp_one_")));

    let pid: Value = {
        let pids = session.tool("mcp_two_pids").expect("pids tool");
        let output = guard(pids.execute(json!({}), CancellationToken::new()))
            .await
            .expect("not cancelled");
        serde_json::from_str(&output.to_text()).unwrap()
    };
    let pgid = i32::try_from(pid["pgid"].as_i64().unwrap()).unwrap();
    guard(session.shutdown()).await;
    assert!(names(&session).is_empty());
    let gone = tokio::task::spawn_blocking(move || {
        testkit::wait_until(Duration::from_secs(10), || {
            testkit::process_group_members(pgid).is_empty()
        })
    })
    .await
    .unwrap();
    assert!(gone, "the server outlived shutdown");
}

/// The response the fixture recorded to its request `id`, once it has one.
async fn response_to(session: &AgentSession, server: &str, id: &str) -> Value {
    let events = session
        .tool(&format!("mcp_{server}_events"))
        .expect("the events tool");
    for _ in 0..500 {
        let output = guard(events.execute(json!({}), CancellationToken::new()))
            .await
            .expect("events");
        let recorded: Value = serde_json::from_str(&output.to_text()).unwrap();
        if let Some(found) = recorded
            .as_array()
            .into_iter()
            .flatten()
            .find(|event| event["response"]["id"] == id)
        {
            return found["response"].clone();
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("no response to {id}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn servers_get_the_sessions_roots_and_the_agents_new_folder_unless_they_set_their_own() {
    let world = World::new();
    let fixture = FixtureServer::new().server_requests();
    let mut own = common::fixture_entry(&fixture);
    own["roots"] = json!(["/srv/fixed"]);
    world.write_mcp_json_entries(&[("fx", common::fixture_entry(&fixture)), ("own", own)]);
    let options = world.options().roots([world.project()]);
    let session = guard(create_agent_session(options)).await.session;
    let first = response_to(&session, "fx", "srv-roots").await;
    let project = mcp_transport::Root::from_path(world.project());
    assert_eq!(first["result"]["roots"][0]["uri"], project.uri);
    let fixed = response_to(&session, "own", "srv-roots").await;
    assert_eq!(
        fixed["result"]["roots"],
        json!([{"uri": "file:///srv/fixed", "name": "fixed"}])
    );

    let elsewhere = world.home().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    session.change_directory(&elsewhere);
    let changed = response_to(&session, "fx", "srv-roots-changed").await;
    let moved = mcp_transport::Root::from_path(&elsewhere);
    assert_eq!(
        changed["result"]["roots"],
        json!([{"uri": moved.uri, "name": "elsewhere"}]),
        "{changed:#}"
    );
    // The notification would have been queued before this call on the same pipe.
    let events = session.tool("mcp_own_events").expect("the events tool");
    let output = guard(events.execute(json!({}), CancellationToken::new()))
        .await
        .expect("events");
    assert!(
        !output
            .to_text()
            .contains("notifications/roots/list_changed"),
        "a server with its own roots is not told the agent moved: {}",
        output.to_text()
    );
    guard(session.shutdown()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_offers_no_roots_unless_the_agent_names_them() {
    let world = World::new();
    world.write_mcp_json(&[("fx", FixtureServer::new().server_requests())]);
    let session = world.start().await.session;
    let refused = response_to(&session, "fx", "srv-roots").await;
    assert_eq!(refused["error"]["code"], json!(-32601), "{refused:#}");
    session.change_directory(world.home());
    guard(session.shutdown()).await;
}

/// The names of the session's tools of `server`, sorted, without the `mcp_<server>_` prefix.
fn offered(session: &AgentSession, server: &str) -> Vec<String> {
    let prefix = format!("mcp_{server}_");
    let mut tools: Vec<String> = names(session)
        .into_iter()
        .filter_map(|name| name.strip_prefix(&prefix).map(str::to_owned))
        .collect();
    tools.sort();
    tools
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_and_gemini_tool_filters_hide_exactly_the_named_tools() {
    let world = World::new();
    let (program, args) = FixtureServer::new().command();
    let quoted: Vec<String> = args.iter().map(|arg| format!("{arg:?}")).collect();
    let codex = format!(
        "[mcp_servers.cx]\ncommand = {:?}\nargs = [{}]\nenabled_tools = [\"echo\", \"add\", \"pids\"]\ndisabled_tools = [\"pids\"]\n",
        program.display().to_string(),
        quoted.join(", ")
    );
    std::fs::create_dir_all(world.project().join(".codex")).unwrap();
    std::fs::write(world.project().join(".codex/config.toml"), codex).unwrap();
    let gemini = json!({"mcpServers": {"gm": {
        "command": program.display().to_string(),
        "args": args,
        "includeTools": ["echo", "sleep", "huge"],
        "excludeTools": ["huge"],
    }}});
    std::fs::create_dir_all(world.project().join(".gemini")).unwrap();
    std::fs::write(
        world.project().join(".gemini/settings.json"),
        gemini.to_string(),
    )
    .unwrap();

    let session = world.start().await.session;
    assert_eq!(offered(&session, "cx"), ["add", "echo"]);
    assert_eq!(offered(&session, "gm"), ["echo", "sleep"]);
    guard(session.shutdown()).await;
}

async fn pid_of(session: &AgentSession, server: &str) -> i64 {
    let tool = session
        .tool(&format!("mcp_{server}_pids"))
        .unwrap_or_else(|| panic!("no pids tool for {server}"));
    let output = guard(tool.execute(json!({}), CancellationToken::new()))
        .await
        .expect("pids");
    let pids: Value = serde_json::from_str(&output.to_text()).unwrap();
    pids["pid"].as_i64().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reload_restarts_only_the_server_whose_definition_changed() {
    let world = World::new();
    let servers = |c_instructions: &str| {
        [
            ("a", FixtureServer::new()),
            ("b", FixtureServer::new()),
            ("c", FixtureServer::new().instructions(c_instructions)),
        ]
    };
    world.write_mcp_json(&servers("first"));
    let session = world.start().await.session;
    let before: Vec<i64> = vec![
        pid_of(&session, "a").await,
        pid_of(&session, "b").await,
        pid_of(&session, "c").await,
    ];

    // A call in flight on an unchanged server lives through the reload.
    let sleeper = session.tool("mcp_b_sleep").expect("sleep");
    let in_flight = tokio::spawn(async move {
        sleeper
            .execute(json!({"ms": 1500}), CancellationToken::new())
            .await
    });
    world.write_mcp_json(&servers("second"));
    let problems = guard(session.reload()).await;
    assert!(problems.is_empty(), "{problems:?}");

    assert_eq!(pid_of(&session, "a").await, before[0], "a was left alone");
    assert_eq!(pid_of(&session, "b").await, before[1], "b was left alone");
    assert_ne!(pid_of(&session, "c").await, before[2], "c was restarted");
    let slept = guard(in_flight).await.unwrap().expect("not cancelled");
    assert!(!slept.is_error, "{slept:?}");
    assert_eq!(slept.to_text(), "slept 1500ms");
    guard(session.shutdown()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_5_mib_result_reaches_the_model_within_the_budget_and_is_kept_whole_in_a_file() {
    use std::os::unix::fs::PermissionsExt;

    let world = World::new();
    world.write_mcp_json(&[("fx", FixtureServer::new())]);
    let session = world.start().await.session;
    let huge = session.tool("mcp_fx_huge").expect("huge");
    let output = guard(huge.execute(json!({"bytes": 5 << 20}), CancellationToken::new()))
        .await
        .expect("not cancelled");
    assert!(!output.is_error);
    let text = output.to_text();
    let budget = mcp_bridge::DEFAULT_OUTPUT_BUDGET;
    let marker = text.lines().last().unwrap();
    assert!(
        text.len() <= budget + marker.len() + 1,
        "{} bytes",
        text.len()
    );
    assert!(marker.contains("5.0 MiB"), "{marker}");
    let file = output.details["truncated"]["file"].as_str().expect("kept");
    assert!(marker.contains(file), "{marker}");
    let dir = session
        .output_dir()
        .expect("the session's directory")
        .to_path_buf();
    assert!(std::path::Path::new(file).starts_with(&dir));
    let kept = std::fs::read_to_string(file).unwrap();
    assert_eq!(kept.len(), 5 << 20);
    assert!(kept.bytes().all(|byte| byte == b'x'));
    let mode =
        |path: &std::path::Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(std::path::Path::new(file)), 0o600);
    assert_eq!(mode(&dir), 0o700);

    guard(session.shutdown()).await;
    drop(session);
    assert!(!dir.exists(), "the directory goes with the session");
}
