//! A cached tool list belongs to the definition that produced it, where it was defined: two
//! clones of one repository (two folders, the same `.mcp.json` text, approved in both) share
//! one tool cache (`--cache-dir`), and what the first one's servers listed is never offered in
//! the second — neither as deferred tools at the gate, nor as a stateless server's fresh list
//! served live without asking the second clone's server.
//!
//! Every run gets a temporary home (`HOME` set, `XDG_*` unset), so the user's own files are
//! never read or written; the servers are the stdio fixture (which lists the tools of a file
//! in its working folder) and testkit's HTTP fixture in its stateless mode, on 127.0.0.1.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod cli_support;

use std::path::{Path, PathBuf};

use cli_support::{Outcome, Sandbox, run_to_end};
use serde_json::{Value, json};
use testkit::{HttpFixture, HttpFixtureOptions};

/// Two clones of one repository beside each other in a sandbox: `project` (the first) and
/// `clone`, both approved the way a Claude Code user approves a folder's `.mcp.json`.
struct Clones {
    sandbox: Sandbox,
    second: PathBuf,
}

impl Clones {
    fn new(test: &str, servers: impl FnOnce(&Sandbox) -> Value) -> Self {
        let sandbox = Sandbox::labelled("cache-scope", test);
        let servers = servers(&sandbox);
        let second = sandbox.root.join("clone");
        std::fs::create_dir_all(&second).unwrap();
        let text = serde_json::to_string_pretty(&json!({ "mcpServers": servers })).unwrap();
        for folder in [&sandbox.project, &second] {
            std::fs::write(folder.join(".mcp.json"), &text).unwrap();
        }
        let approvals = json!({"projects": {
            sandbox.project.display().to_string(): {"enableAllProjectMcpServers": true},
            second.display().to_string(): {"enableAllProjectMcpServers": true},
        }});
        std::fs::write(sandbox.home.join(".claude.json"), approvals.to_string()).unwrap();
        Self { sandbox, second }
    }

    fn folders(&self) -> [&Path; 2] {
        [&self.sandbox.project, &self.second]
    }

    /// `tools --json` in `folder`, with the cache both clones share.
    fn tools_in(&self, folder: &Path) -> Value {
        let cache = self.sandbox.cache_dir();
        let mut command = self
            .sandbox
            .command(&["tools", "--json", "--cache-dir", &cache]);
        command.current_dir(folder);
        let outcome: Outcome = run_to_end(command, None);
        self.sandbox.assert_no_server_left("tools --json");
        outcome.assert_code(0).json()
    }
}

/// (name, description, deferred) of every tool of `server`, sorted.
fn tools_of(output: &Value, server: &str) -> Vec<(String, String, bool)> {
    let mut tools: Vec<_> = output["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|tool| tool["server"] == server)
        .map(|tool| {
            (
                tool["tool"].as_str().unwrap().to_owned(),
                tool["description"].as_str().unwrap_or_default().to_owned(),
                tool["deferred"] == json!(true),
            )
        })
        .collect();
    tools.sort();
    tools
}

#[test]
fn a_tool_list_cached_in_one_clone_is_never_offered_in_another() {
    // The server's tools come from a file in the folder it runs in; it answers `tools/list`
    // after the startup gate, so a cached list would be offered (deferred) at the gate.
    let clones = Clones::new("deferred", |sandbox| {
        json!({"repo": sandbox.fixture("repo", |server| {
            server.tools_file("tools.txt").delay("tools/list", 1500)
        })})
    });
    let [first, second] = clones.folders();
    std::fs::write(
        first.join("tools.txt"),
        "first_only=Only the first clone has this\n",
    )
    .unwrap();
    std::fs::write(
        second.join("tools.txt"),
        "second_only=The second clone's own\n",
    )
    .unwrap();

    let listed = clones.tools_in(first);
    assert!(
        tools_of(&listed, "repo")
            .iter()
            .any(|(name, _, deferred)| name == "first_only" && !deferred),
        "{listed:#}"
    );

    let listed = clones.tools_in(second);
    let tools = tools_of(&listed, "repo");
    assert!(
        tools
            .iter()
            .all(|(name, description, _)| name != "first_only"
                && !description.contains("first clone")),
        "the first clone's tools are offered in the second: {tools:#?}"
    );
    assert!(
        tools
            .iter()
            .any(|(name, _, deferred)| name == "second_only" && !deferred),
        "the second clone's own server answered: {tools:#?}"
    );
}

#[test]
fn a_stateless_servers_fresh_list_from_one_clone_is_not_served_live_in_another() {
    // A stateless server whose list is fresh for ten minutes: within them, a start with the
    // same definition serves the list live, sending nothing. Not from another clone's entry.
    let fixture = HttpFixture::start(HttpFixtureOptions::default().stateless(Some(600_000)));
    let url = fixture.url();
    let clones = Clones::new(
        "stateless",
        |_| json!({"remote": {"type": "http", "url": url}}),
    );
    let [first, second] = clones.folders();

    let listed = clones.tools_in(first);
    assert_eq!(tools_of(&listed, "remote").len(), 4, "{listed:#}");
    // Sanity: the first clone's warm start is served from the cache, without a request.
    let before = fixture.requests().len();
    let warm = clones.tools_in(first);
    assert_eq!(tools_of(&warm, "remote"), tools_of(&listed, "remote"));
    assert_eq!(
        fixture.requests().len(),
        before,
        "{:#?}",
        fixture.requests()
    );

    let listed = clones.tools_in(second);
    let asked: Vec<_> = fixture.requests()[before..]
        .iter()
        .filter_map(|request| request.rpc_method.clone())
        .collect();
    assert!(
        asked.iter().any(|method| method == "server/discover"),
        "the second clone's start did not ask its server: {asked:?}"
    );
    assert!(
        asked.iter().any(|method| method == "tools/list"),
        "{asked:?}"
    );
    assert_eq!(tools_of(&listed, "remote").len(), 4, "{listed:#}");
}
