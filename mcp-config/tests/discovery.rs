//! `load_all_configs` over real files of several tools: precedence, filters, expansion, errors.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use mcp_config::{
    ConfigSource, DiscoveryContext, DiscoveryOptions, DiscoveryResult, FileServers, Level,
    ServerConfig, SourceFile, load_all_configs,
};
use serde_json::json;

/// A project folder and a home folder under a fresh temporary directory, removed on drop.
struct World {
    root: PathBuf,
}

impl World {
    fn new() -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let root = std::env::temp_dir().join(format!(
            "mcp-config-discovery-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(root.join("project")).unwrap();
        std::fs::create_dir_all(root.join("home")).unwrap();
        Self { root }
    }

    fn cwd(&self) -> PathBuf {
        self.root.join("project")
    }

    fn home(&self) -> PathBuf {
        self.root.join("home")
    }

    /// Writes `text` at `path` relative to the root (`project/…` or `home/…`).
    fn write(&self, path: &str, text: &str) -> PathBuf {
        let path = self.root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    fn write_json(&self, path: &str, value: &serde_json::Value) -> PathBuf {
        self.write(path, &serde_json::to_string_pretty(value).unwrap())
    }

    fn ctx(&self) -> DiscoveryContext {
        DiscoveryContext::new("testapp", self.cwd(), self.home())
    }

    fn load(&self, options: &DiscoveryOptions) -> DiscoveryResult {
        load_all_configs(&self.ctx(), options)
    }
}

impl Drop for World {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

fn servers(entries: &serde_json::Value) -> serde_json::Value {
    json!({ "mcpServers": entries })
}

fn providers_of(found: &DiscoveryResult, name: &str) -> (String, Vec<String>) {
    let source = &found.sources[name];
    (
        source.meta.provider.clone(),
        source
            .shadowed
            .iter()
            .map(|meta| meta.provider.clone())
            .collect(),
    )
}

#[test]
fn the_highest_priority_provider_wins_whole_and_the_others_are_listed_as_shadowed() {
    let world = World::new();
    world.write_json(
        "home/.config/testapp/mcp.json",
        &servers(&json!({"github": {"command": "native-gh"}})),
    );
    world.write_json(
        "project/.mcp.json",
        &servers(&json!({"github": {"command": "claude-gh", "args": ["--x"]}})),
    );
    world.write_json(
        "home/.cursor/mcp.json",
        &servers(&json!({"github": {"command": "cursor-gh"}, "only-cursor": {"command": "c"}})),
    );
    let found = world.load(&DiscoveryOptions::default());
    assert!(found.errors.is_empty(), "{:?}", found.errors);
    let github = &found.configs["github"];
    assert_eq!(github.command.as_deref(), Some("native-gh"));
    assert!(
        github.args.is_empty(),
        "no field merge from shadowed definitions"
    );
    assert_eq!(
        providers_of(&found, "github"),
        (
            "native".to_owned(),
            vec!["claude-code".to_owned(), "cursor".to_owned()]
        )
    );
    assert_eq!(providers_of(&found, "only-cursor").0, "cursor");
}

#[test]
fn inside_one_provider_the_project_definition_beats_the_user_one() {
    let world = World::new();
    let project = world.write_json(
        "project/.cursor/mcp.json",
        &servers(&json!({"fs": {"command": "project-fs"}})),
    );
    let user = world.write_json(
        "home/.cursor/mcp.json",
        &servers(&json!({"fs": {"command": "user-fs"}})),
    );
    let found = world.load(&DiscoveryOptions::default());
    assert_eq!(found.configs["fs"].command.as_deref(), Some("project-fs"));
    let source = &found.sources["fs"];
    assert_eq!(source.meta.path, project);
    assert_eq!(source.meta.level, Level::Project);
    assert_eq!(source.shadowed.len(), 1);
    assert_eq!(source.shadowed[0].path, user);
    assert_eq!(source.shadowed[0].level, Level::User);
}

#[test]
fn with_project_config_off_a_project_entry_no_longer_hides_the_users() {
    let world = World::new();
    world.write_json(
        "project/.mcp.json",
        &servers(&json!({"db": {"command": "project-db"}, "project-only": {"command": "p"}})),
    );
    let user = world.write_json(
        "home/.cursor/mcp.json",
        &servers(&json!({"db": {"command": "user-db"}})),
    );
    let found = world.load(&DiscoveryOptions::default().project_config(false));
    assert_eq!(found.configs["db"].command.as_deref(), Some("user-db"));
    assert_eq!(found.sources["db"].meta.path, user);
    assert!(found.sources["db"].shadowed.is_empty());
    assert!(!found.configs.contains_key("project-only"));
}

#[test]
fn a_disabled_entry_is_skipped_before_the_merge() {
    let world = World::new();
    world.write_json(
        "project/.testapp/mcp.json",
        &servers(&json!({"x": {"command": "native-x", "enabled": false}, "off": {"command": "o", "enabled": false}})),
    );
    world.write_json(
        "home/.claude.json",
        &servers(&json!({"x": {"command": "claude-x"}})),
    );
    let found = world.load(&DiscoveryOptions::default());
    assert_eq!(found.configs["x"].command.as_deref(), Some("claude-x"));
    assert!(!found.configs.contains_key("off"));
    assert_eq!(found.disabled["off"].provider, "native");
    assert!(
        !found.disabled.contains_key("x"),
        "x is in use from Claude Code"
    );
}

#[test]
fn names_in_the_user_files_disabled_servers_are_skipped_everywhere() {
    let world = World::new();
    world.write_json(
        "home/.config/testapp/mcp.json",
        &json!({"mcpServers": {}, "disabledServers": ["noisy"]}),
    );
    world.write_json(
        "project/.mcp.json",
        &servers(&json!({"noisy": {"command": "n"}, "quiet": {"command": "q"}})),
    );
    world.write_json(
        "home/.cursor/mcp.json",
        &servers(&json!({"noisy": {"command": "n2"}})),
    );
    let found = world.load(&DiscoveryOptions::default());
    assert!(!found.configs.contains_key("noisy"));
    assert!(found.configs.contains_key("quiet"));
    assert_eq!(found.disabled["noisy"].provider, "claude-code");
}

#[test]
fn exa_servers_are_removed_and_their_keys_returned() {
    let world = World::new();
    world.write_json(
        "project/.mcp.json",
        &servers(&json!({
            "exa": {"type": "http", "url": "https://mcp.exa.ai/mcp?exaApiKey=key-from-url"},
            "search": {"command": "npx", "args": ["-y", "mcp-remote", "https://mcp.exa.ai/mcp?exaApiKey=key-from-args"]},
            "web": {"command": "npx", "args": ["-y", "exa-mcp-server", "--host", "mcp.exa.ai"], "env": {"EXA_API_KEY": "${EXA_KEY}"}},
            "github": {"command": "gh-mcp"}
        })),
    );
    let ctx = world.ctx().with_env([("EXA_KEY", "key-from-env")]);
    let filtered = load_all_configs(&ctx, &DiscoveryOptions::default().filter_exa(true));
    assert_eq!(filtered.configs.keys().collect::<Vec<_>>(), ["github"]);
    assert_eq!(
        filtered.exa_api_keys,
        ["key-from-url", "key-from-args", "key-from-env"]
    );

    let unfiltered = load_all_configs(&ctx, &DiscoveryOptions::default());
    assert_eq!(unfiltered.configs.len(), 4);
    assert!(unfiltered.exa_api_keys.is_empty());
}

#[test]
fn variables_are_expanded_and_an_unset_one_is_that_servers_error() {
    let world = World::new();
    let file = world.write_json(
        "project/.mcp.json",
        &servers(&json!({
            "api": {
                "type": "http",
                "url": "https://${API_HOST}/mcp",
                "headers": {"Authorization": "Bearer ${API_TOKEN}", "X-Empty": "${EMPTY}", "X-Default": "${MISSING:-fallback}"}
            },
            "local": {"command": "srv", "args": ["--root", "${ROOT:-/srv}", "--user=${USER_NAME}"]},
            "broken": {"command": "srv", "args": ["--key", "${NOT_SET}"]},
            "fine": {"command": "ok"}
        })),
    );
    let ctx = world.ctx().with_env([
        ("API_HOST", "api.example.com"),
        ("API_TOKEN", "t0k3n"),
        ("EMPTY", ""),
        ("USER_NAME", "ada"),
    ]);
    let found = load_all_configs(&ctx, &DiscoveryOptions::default());
    let api = &found.configs["api"];
    assert_eq!(api.url.as_deref(), Some("https://api.example.com/mcp"));
    assert_eq!(api.headers["Authorization"], "Bearer t0k3n");
    assert_eq!(api.headers["X-Empty"], "");
    assert_eq!(api.headers["X-Default"], "fallback");
    assert_eq!(
        found.configs["local"].args,
        ["--root", "/srv", "--user=ada"]
    );
    assert!(found.configs.contains_key("fine"));
    assert!(!found.configs.contains_key("broken"));
    assert_eq!(found.errors.len(), 1, "{:?}", found.errors);
    let error = &found.errors[0];
    assert_eq!(error.path, file.display().to_string());
    assert_eq!(error.server.as_deref(), Some("broken"));
    assert!(
        error
            .error
            .contains("environment variable \"NOT_SET\" is not set (used in args[1])"),
        "{}",
        error.error
    );
}

#[test]
fn an_invalid_server_is_skipped_with_its_message_and_the_others_load() {
    let world = World::new();
    world.write_json(
        "project/.mcp.json",
        &servers(&json!({
            "both": {"command": "x", "url": "https://h/mcp"},
            "nothing": {},
            "weird": {"type": "websocket", "url": "wss://h"},
            "good": {"command": "g"}
        })),
    );
    let found = world.load(&DiscoveryOptions::default());
    assert_eq!(found.configs.keys().collect::<Vec<_>>(), ["good"]);
    let messages: Vec<&str> = found.errors.iter().map(|e| e.error.as_str()).collect();
    assert!(messages.contains(&"Server \"both\": both \"command\" and \"url\" are set; keep one"));
    assert!(messages.contains(&"Server \"nothing\": stdio server requires \"command\" field"));
    assert!(
        messages
            .iter()
            .any(|m| m.starts_with("Server \"weird\": unknown transport type \"websocket\""))
    );
}

#[test]
fn a_broken_file_is_an_error_naming_it_and_the_other_files_still_load() {
    let world = World::new();
    let broken = world.write(
        "project/.mcp.json",
        "{\"mcpServers\": {\"a\": {\"command\": \"x\",}}",
    );
    world.write_json(
        "home/.cursor/mcp.json",
        &servers(&json!({"from-cursor": {"command": "c"}})),
    );
    let found = world.load(&DiscoveryOptions::default());
    assert!(found.configs.contains_key("from-cursor"));
    assert_eq!(found.errors.len(), 1, "{:?}", found.errors);
    assert_eq!(found.errors[0].path, broken.display().to_string());
    assert!(
        found.errors[0]
            .error
            .contains(&broken.display().to_string())
    );
    assert!(
        found.errors[0].error.contains("not valid JSON"),
        "{}",
        found.errors[0].error
    );
}

#[test]
fn a_directory_where_a_file_should_be_is_an_error_not_a_panic() {
    let world = World::new();
    std::fs::create_dir_all(world.cwd().join(".mcp.json")).unwrap();
    world.write_json(
        "home/.cursor/mcp.json",
        &servers(&json!({"still-here": {"command": "c"}})),
    );
    let found = world.load(&DiscoveryOptions::default());
    assert!(found.configs.contains_key("still-here"));
    assert_eq!(found.errors.len(), 1, "{:?}", found.errors);
    assert!(
        found.errors[0].error.contains("is a directory"),
        "{}",
        found.errors[0].error
    );
}

#[test]
fn an_unreadable_file_is_an_error_not_a_panic() {
    let world = World::new();
    // A symlink loop cannot be read by anyone, root included.
    let path = world.cwd().join(".mcp.json");
    std::os::unix::fs::symlink(&path, &path).unwrap();
    let found = world.load(&DiscoveryOptions::default());
    assert_eq!(found.errors.len(), 1, "{:?}", found.errors);
    assert!(
        found.errors[0].error.starts_with("could not read"),
        "{}",
        found.errors[0].error
    );
}

/// A provider an agent adds: one server from memory.
struct Team;

impl ConfigSource for Team {
    fn id(&self) -> &str {
        "team"
    }

    fn name(&self) -> &str {
        "Team registry"
    }

    fn load(&self, _ctx: &DiscoveryContext) -> Vec<SourceFile> {
        let mut servers = FileServers::default();
        servers.servers.push((
            "github".to_owned(),
            ServerConfig::stdio("team-gh", Vec::<String>::new()),
        ));
        vec![SourceFile::new(
            Path::new("team://registry"),
            Level::User,
            Ok(servers),
        )]
    }
}

#[test]
fn callers_can_add_providers_and_disable_built_in_ones() {
    let world = World::new();
    world.write_json(
        "project/.mcp.json",
        &servers(&json!({"github": {"command": "claude-gh"}})),
    );
    let first = world.load(&DiscoveryOptions::default().with_source_first(Arc::new(Team)));
    assert_eq!(first.configs["github"].command.as_deref(), Some("team-gh"));
    assert_eq!(first.sources["github"].meta.provider_name, "Team registry");

    let last = world.load(&DiscoveryOptions::default().with_source_last(Arc::new(Team)));
    assert_eq!(last.configs["github"].command.as_deref(), Some("claude-gh"));
    assert_eq!(last.sources["github"].shadowed[0].provider, "team");

    let without_claude = world.load(
        &DiscoveryOptions::default()
            .with_source_last(Arc::new(Team))
            .disable_provider("claude-code"),
    );
    assert_eq!(
        without_claude.configs["github"].command.as_deref(),
        Some("team-gh")
    );
}
