//! The loader facade: discovery over a temporary project, tools decorated with where they come
//! from, per-server errors, and a fatal discovery failure.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::path::Path;
use std::sync::Arc;

use common::*;
use mcp_config::{
    DiscoveryContext, DiscoveryOptions,
    source::{ConfigSource, SourceFile},
};
use mcp_manager::{
    ConnectionStatus, LoadOptions, LoadResult, ManagerError, Problem, discover_and_load_mcp_tools,
    discover_mcp_servers,
};
use serde_json::json;
use testkit::Hold;

/// A project whose `.mcp.json` holds a working fixture, one that crashes at initialize and an
/// entry that is not a valid server; and an empty home.
struct Project {
    dir: TempDir,
    home: TempDir,
    good: Fixture,
    crashy: Fixture,
}

impl Project {
    fn new() -> Self {
        let dir = TempDir::new("project");
        let home = TempDir::new("home");
        let good = plain("loader-good");
        let crashy = fixture("loader-crashy", |s| s.crash_at("initialize"));
        let entry = |fixture: &Fixture| serde_json::to_value(&fixture.config).unwrap();
        let config = json!({
            "mcpServers": {
                "Good-Server.1": entry(&good),
                "crashy": entry(&crashy),
                "broken": {"command": "nothing", "url": "https://127.0.0.1:9/mcp"},
            }
        });
        std::fs::write(
            dir.path().join(".mcp.json"),
            serde_json::to_string_pretty(&config).unwrap(),
        )
        .unwrap();
        Self {
            dir,
            home,
            good,
            crashy,
        }
    }

    fn cwd(&self) -> &Path {
        self.dir.path()
    }

    fn options(&self) -> LoadOptions {
        LoadOptions::new("testapp")
            .context(DiscoveryContext::new(
                "testapp",
                self.dir.path(),
                self.home.path(),
            ))
            .cache(memory_cache())
            // The project's servers are the user's own here.
            .trust(mcp_config::TrustPolicy::TrustAll)
    }
}

/// A provider that panics, standing for any fatal failure inside discovery.
struct Panicking;

impl ConfigSource for Panicking {
    fn id(&self) -> &str {
        "panicking"
    }

    fn name(&self) -> &str {
        "Panicking"
    }

    fn load(&self, _ctx: &DiscoveryContext) -> Vec<SourceFile> {
        panic!("the provider broke")
    }
}

fn panicking(mut options: LoadOptions) -> LoadOptions {
    options.discovery = DiscoveryOptions::default().with_source_first(Arc::new(Panicking));
    options
}

/// The servers with a problem, sorted.
fn problem_servers(result: &LoadResult) -> Vec<String> {
    let mut servers: Vec<String> = result
        .problems
        .iter()
        .map(|problem| match problem {
            Problem::Server { name, .. } => name.clone(),
            other => panic!("only server problems are expected: {other:?}"),
        })
        .collect();
    servers.sort();
    servers
}

/// The one problem of a failed discovery, checked to be one.
fn discovery_problem(result: &LoadResult) -> &Problem {
    assert_eq!(result.problems.len(), 1, "{:?}", result.problems);
    let problem = &result.problems[0];
    assert!(matches!(problem, Problem::Discovery(_)), "{problem:?}");
    assert_eq!(problem.path(), Some(Path::new(".mcp.json")));
    problem
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_are_decorated_with_their_source_and_errors_name_their_server() {
    let project = Project::new();

    let result = within(
        "discover_and_load_mcp_tools",
        discover_and_load_mcp_tools(project.cwd(), &project.options()),
    )
    .await;

    assert!(!result.tools.is_empty());
    for tool in &result.tools {
        assert_eq!(tool.server, "Good-Server.1", "{tool:?}");
        assert!(!tool.deferred, "{tool:?}");
    }
    let echo_tool = result
        .tools
        .iter()
        .find(|tool| tool.tool.name() == "mcp_good_server_1_echo")
        .expect("the echo tool");
    let output = echo(echo_tool.tool.as_ref(), "loaded").await;
    assert_eq!(output.to_text(), "loaded");

    assert_eq!(problem_servers(&result), ["broken", "crashy"]);
    let project_file = project.cwd().join(".mcp.json");
    for problem in &result.problems {
        let Problem::Server {
            name,
            source,
            error,
        } = problem
        else {
            unreachable!("checked above");
        };
        assert!(
            error.to_string().contains(&format!("\"{name}\"")),
            "the error names its server: {problem:?}"
        );
        assert_eq!(source.as_ref().map(|meta| &meta.path), Some(&project_file));
        let expected_kind = match name.as_str() {
            "broken" => matches!(&**error, ManagerError::InvalidConfig(_)),
            _ => matches!(&**error, ManagerError::Client(_)),
        };
        assert!(expected_kind, "{error:?}");
    }
    assert!(result.discovery.exa_api_keys.is_empty());
    assert!(result.discovery.servers.contains_key("Good-Server.1"));
    assert_eq!(
        result.manager.get_connection_status("Good-Server.1"),
        ConnectionStatus::Connected
    );
    assert_eq!(
        result
            .manager
            .server_source("Good-Server.1")
            .map(|source| source.provider_name),
        Some("Claude Code".to_owned())
    );

    within("disconnect_all", result.manager.disconnect_all()).await;
    assert_no_process(&project.good.marker).await;
    assert_no_process(&project.crashy.marker).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fatal_discovery_failure_gives_no_tools_and_one_error() {
    let project = Project::new();

    let result = within(
        "discover_and_load_mcp_tools",
        discover_and_load_mcp_tools(project.cwd(), &panicking(project.options())),
    )
    .await;

    assert!(result.tools.is_empty(), "{:?}", result.tools);
    let problem = discovery_problem(&result);
    assert!(
        problem.to_string().contains("the provider broke"),
        "{problem:?}"
    );
    assert!(result.manager.tools().is_empty());
    // Nothing was started.
    assert!(pids_with_marker(&project.good.marker).is_empty());
    within("disconnect_all", result.manager.disconnect_all()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discover_mcp_servers_gives_the_same_shape_without_connecting() {
    let project = Project::new();

    let result = discover_mcp_servers(project.cwd(), &project.options());

    assert!(result.tools.is_empty());
    // Only discovery's own errors: the crashing server is not connected, so it has none.
    assert_eq!(problem_servers(&result), ["broken"]);
    let servers: Vec<&String> = result.discovery.servers.keys().collect();
    assert_eq!(servers, ["Good-Server.1", "crashy"]);
    assert_eq!(
        result.discovery.servers["Good-Server.1"]
            .source
            .meta
            .provider_name,
        "Claude Code"
    );
    assert!(result.manager.tools().is_empty());
    assert_eq!(
        result.manager.get_connection_status("Good-Server.1"),
        ConnectionStatus::Disconnected
    );
    assert!(pids_with_marker(&project.good.marker).is_empty());
    within("disconnect_all", result.manager.disconnect_all()).await;

    let fatal = discover_mcp_servers(project.cwd(), &panicking(project.options()));
    assert!(fatal.tools.is_empty());
    discovery_problem(&fatal);
    within("disconnect_all", fatal.manager.disconnect_all()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn project_servers_the_default_trust_policy_leaves_out_are_problems_the_caller_sees() {
    let project = Project::new();
    // The default policy: approvals, of which this fresh home has none.
    let options = LoadOptions::new("testapp")
        .context(DiscoveryContext::new(
            "testapp",
            project.dir.path(),
            project.home.path(),
        ))
        .cache(memory_cache());

    let result = discover_and_load_mcp_tools(project.cwd(), &options).await;

    assert!(result.tools.is_empty());
    assert!(result.discovery.servers.is_empty());
    let waiting: Vec<(&str, &Path)> = result
        .problems
        .iter()
        .filter_map(|problem| match problem {
            Problem::Unapproved { name, source } => Some((name.as_str(), source.path.as_path())),
            _ => None,
        })
        .collect();
    let file = project.dir.path().join(".mcp.json");
    // The invalid entry is a problem of its own, whatever approval would say of it.
    assert_eq!(
        waiting,
        [
            ("Good-Server.1", file.as_path()),
            ("crashy", file.as_path())
        ]
    );
    let said = result
        .problems
        .iter()
        .find(|problem| problem.server() == Some("crashy"))
        .unwrap()
        .to_string();
    assert!(said.contains("approval"), "{said}");
    assert!(said.contains(&file.display().to_string()), "{said}");
    assert!(pids_with_marker(&project.good.marker).is_empty());
    within("disconnect_all", result.manager.disconnect_all()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cache_key_changes_with_a_variables_value_and_with_the_definition() {
    let dir = TempDir::new("fingerprint-project");
    let home = TempDir::new("fingerprint-home");
    let server = plain("fingerprint");
    let write = |extra_arg: &str| {
        let mcp_config::TransportConfig::Stdio(stdio) = &server.config.transport else {
            unreachable!()
        };
        let mut args = stdio.args.clone();
        args.extend([
            "--instructions".to_owned(),
            format!("${{SECRET}}{extra_arg}"),
        ]);
        let config = json!({"mcpServers": {"fp": {"command": stdio.command, "args": args}}});
        std::fs::write(dir.path().join(".mcp.json"), config.to_string()).unwrap();
    };
    let discover = |secret: &str| {
        let context = DiscoveryContext::new("testapp", dir.path(), home.path())
            .with_env([("SECRET", secret)]);
        let loaded = discover_mcp_servers(
            dir.path(),
            &LoadOptions::new("testapp")
                .context(context)
                .trust(mcp_config::TrustPolicy::TrustAll),
        );
        loaded.discovery.servers["fp"].clone()
    };
    let store = mcp_transport::credentials::MemoryCredentialStore::new();
    let key = async |server: &mcp_config::DiscoveredServer| {
        mcp_manager::cache_fingerprint(server, &store).await
    };
    write("");
    let first = discover("one-secret-value");
    let rotated = discover("another-secret-value");
    assert_ne!(first.config, rotated.config, "the expanded configs differ");
    let fingerprint = key(&first).await;
    assert_eq!(fingerprint, key(&discover("one-secret-value")).await);
    assert_ne!(fingerprint, key(&rotated).await);
    assert!(
        !serde_json::to_string(&first.definition)
            .unwrap()
            .contains("secret-value"),
        "the definition holds the reference, not the value"
    );
    write("-edited");
    assert_ne!(key(&discover("one-secret-value")).await, fingerprint);

    // Connected, the tools are cached under that fingerprint.
    write("");
    let cache = memory_cache();
    let manager = manager(cache.clone());
    let servers = std::collections::BTreeMap::from([("fp".to_owned(), first)]);
    let outcome = connect(&manager, &servers).await;
    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
    use mcp_cache::ToolCache as _;
    assert!(cache.get("fp", &fingerprint).await.is_some());
    within("disconnect_all", manager.disconnect_all()).await;
}

/// A project whose `.mcp.json` (Claude Code's project file) holds a working fixture and one
/// that lists its tools only once the test releases the hold returned (in the home folder),
/// whose tools are in the cache: one live server and one deferred at the gate, on any machine.
/// Returns the project, its home, the two fixtures and the slow one's hold.
fn live_and_deferred_project(label: &str) -> (TempDir, TempDir, Fixture, Fixture, Hold) {
    let dir = TempDir::new(&format!("{label}-project"));
    let home = TempDir::new(&format!("{label}-home"));
    let hold = Hold::in_folder(home.path(), "slow");
    let live = plain(&format!("{label}-live"));
    let slow = fixture(&format!("{label}-slow"), |s| {
        s.hold("tools/list", hold.fifo())
    });
    let entry = |fixture: &Fixture| serde_json::to_value(&fixture.config).unwrap();
    let config = json!({"mcpServers": {"live": entry(&live), "slow": entry(&slow)}});
    std::fs::write(dir.path().join(".mcp.json"), config.to_string()).unwrap();
    (dir, home, live, slow, hold)
}

/// Discovers the project of [`live_and_deferred_project`], fills the cache with the slow
/// server's `echo` under its definition's key, and connects.
async fn load_live_and_deferred(dir: &TempDir, home: &TempDir) -> LoadResult {
    let cache = memory_cache();
    let options = LoadOptions::new("testapp")
        .context(DiscoveryContext::new("testapp", dir.path(), home.path()))
        .cache(cache.clone())
        .trust(mcp_config::TrustPolicy::TrustAll);
    let mut loaded = discover_mcp_servers(dir.path(), &options);
    let slow = &loaded.discovery.servers["slow"];
    let key = mcp_manager::cache_fingerprint(slow, &*options.manager.credentials).await;
    use mcp_cache::ToolCache as _;
    cache.set("slow", &key, &[echo_tool()]).await;
    within("connect", loaded.connect()).await;
    loaded
}

/// SPEC §6, details carry the provider: a call through a tool the manager made (live, deferred
/// from the cache at the gate, and as `tools()` offers them afterwards) names the config
/// provider of its server's definition in its result's details.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tool_results_name_the_provider_of_their_servers_definition() {
    let (dir, home, live, slow, hold) = live_and_deferred_project("provider");
    let loaded = load_live_and_deferred(&dir, &home).await;
    assert!(loaded.problems.is_empty(), "{:?}", loaded.problems);
    let at_the_gate = [
        find_tool(&loaded.tools, "live", "echo"),
        find_tool(&loaded.tools, "slow", "echo"),
    ];
    assert!(!at_the_gate[0].deferred && at_the_gate[1].deferred);
    // The deferred call waits for its server: let it list its tools now.
    hold.release();
    let offered = loaded.manager.tools();
    let afterwards = [
        find_tool(&offered, "live", "echo"),
        find_tool(&offered, "slow", "echo"),
    ];
    for managed in at_the_gate.iter().chain(&afterwards) {
        let output = echo(managed.tool.as_ref(), "hi").await;
        assert_eq!(output.to_text(), "hi", "{managed:?}");
        assert_eq!(output.details["provider"], "claude-code", "{managed:?}");
        assert_eq!(output.details["providerName"], "Claude Code", "{managed:?}");
    }

    within("disconnect_all", loaded.manager.disconnect_all()).await;
    assert_no_process(&live.marker).await;
    assert_no_process(&slow.marker).await;
}

/// The seed's decoration of loaded tools: each carries where its server is defined (provider,
/// file) and shows it as `mcp:<server> via <provider name>` — live and deferred tools at the
/// gate, and as `tools()` offers them afterwards.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn loaded_tools_carry_their_source_as_mcp_server_via_provider() {
    // The slow server stays held: deferred at the gate and in `tools()` alike.
    let (dir, home, live, slow, _hold) = live_and_deferred_project("source");
    let loaded = load_live_and_deferred(&dir, &home).await;
    let file = dir.path().join(".mcp.json");
    let offered = loaded.manager.tools();
    assert!(loaded.tools.iter().any(|tool| tool.deferred));
    assert_eq!(offered.len(), loaded.tools.len());
    for managed in loaded.tools.iter().chain(&offered) {
        let source = managed.source.as_ref();
        assert_eq!(
            source.map(|source| (source.provider.as_str(), source.provider_name.as_str())),
            Some(("claude-code", "Claude Code")),
            "{managed:?}"
        );
        assert_eq!(
            source.map(|source| &source.path),
            Some(&file),
            "{managed:?}"
        );
        assert_eq!(
            managed.path(),
            format!("mcp:{} via Claude Code", managed.server)
        );
    }

    within("disconnect_all", loaded.manager.disconnect_all()).await;
    assert_no_process(&live.marker).await;
    assert_no_process(&slow.marker).await;
}
