//! `load_all_configs` over real files of several tools: precedence, filters, expansion, errors.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use common::{needing_approval, temp_root, trusting};
use mcp_config::{
    DiscoveryContext, DiscoveryOptions, DiscoveryResult, Level, ServerConfig, SkipReason,
    StdioConfig, TransportConfig, load_all_configs,
    source::{ConfigSource, FileServers, SourceFile},
};
use serde_json::json;

/// A project folder and a home folder under a fresh temporary directory, removed on drop.
struct World {
    root: PathBuf,
}

impl World {
    fn new() -> Self {
        Self {
            root: temp_root("discovery", &["project", "home"]),
        }
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

/// The stdio settings of a server discovery uses.
fn stdio<'a>(found: &'a DiscoveryResult, name: &str) -> &'a StdioConfig {
    match &found.servers[name].config.transport {
        TransportConfig::Stdio(stdio) => stdio,
        other => panic!("{name} is not a stdio server: {other:?}"),
    }
}

/// The command of a stdio server discovery uses.
fn command<'a>(found: &'a DiscoveryResult, name: &str) -> &'a str {
    &stdio(found, name).command
}

/// Why discovery skipped every definition of `name`, and the provider of the one that counts.
fn skip_of(found: &DiscoveryResult, name: &str) -> (SkipReason, String) {
    let skipped = found.skip_of(name).expect("a skipped server");
    (skipped.reason.clone(), skipped.source.provider.clone())
}

/// Every problem discovery met, files and servers, as text.
fn problems(found: &DiscoveryResult) -> Vec<String> {
    let files = found.file_errors.iter().map(|e| e.error.to_string());
    let servers = found
        .invalid()
        .flat_map(|invalid| invalid.problems.iter().map(ToString::to_string));
    files.chain(servers).collect()
}

fn providers_of(found: &DiscoveryResult, name: &str) -> (String, Vec<String>) {
    let source = &found.servers[name].source;
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
    let found = world.load(&trusting());
    assert!(problems(&found).is_empty(), "{:?}", problems(&found));
    assert!(found.skipped.is_empty(), "{:?}", found.skipped);
    assert_eq!(command(&found, "github"), "native-gh");
    assert!(
        stdio(&found, "github").args.is_empty(),
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
    let found = world.load(&trusting());
    assert_eq!(command(&found, "fs"), "project-fs");
    let source = &found.servers["fs"].source;
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
    let found = world.load(&trusting().project_config(false));
    assert_eq!(command(&found, "db"), "user-db");
    assert_eq!(found.servers["db"].source.meta.path, user);
    assert!(found.servers["db"].source.shadowed.is_empty());
    assert!(!found.servers.contains_key("project-only"));
    assert_eq!(
        skip_of(&found, "project-only"),
        (SkipReason::ProjectConfigOff, "claude-code".to_owned())
    );
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
    let found = world.load(&trusting());
    assert_eq!(command(&found, "x"), "claude-x");
    assert!(!found.servers.contains_key("off"));
    assert_eq!(
        skip_of(&found, "off"),
        (SkipReason::Disabled, "native".to_owned())
    );
    assert!(found.skip_of("x").is_none(), "x is in use from Claude Code");
    let x_skipped: Vec<_> = found.skipped.iter().filter(|s| s.name == "x").collect();
    assert_eq!(
        x_skipped.len(),
        1,
        "the native definition is listed as switched off"
    );
    assert_eq!(x_skipped[0].reason, SkipReason::Disabled);
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
    let found = world.load(&trusting());
    assert!(!found.servers.contains_key("noisy"));
    assert!(found.servers.contains_key("quiet"));
    assert_eq!(
        skip_of(&found, "noisy"),
        (SkipReason::Disabled, "claude-code".to_owned())
    );
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
    let filtered = load_all_configs(&ctx, &trusting().filter_exa(true));
    assert_eq!(filtered.servers.keys().collect::<Vec<_>>(), ["github"]);
    assert_eq!(
        filtered.exa_api_keys,
        ["key-from-url", "key-from-args", "key-from-env"]
    );
    for name in ["exa", "search", "web"] {
        assert_eq!(
            skip_of(&filtered, name),
            (SkipReason::ExaFiltered, "claude-code".to_owned())
        );
    }

    let unfiltered = load_all_configs(&ctx, &trusting());
    assert_eq!(unfiltered.servers.len(), 4);
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
    let found = load_all_configs(&ctx, &trusting());
    let TransportConfig::Http(api) = &found.servers["api"].config.transport else {
        panic!("api is an http server");
    };
    assert_eq!(api.url, "https://api.example.com/mcp");
    assert_eq!(api.headers["Authorization"], "Bearer t0k3n");
    assert_eq!(api.headers["X-Empty"], "");
    assert_eq!(api.headers["X-Default"], "fallback");
    assert_eq!(
        stdio(&found, "local").args,
        ["--root", "/srv", "--user=ada"]
    );
    assert!(found.servers.contains_key("fine"));
    assert!(!found.servers.contains_key("broken"));
    assert_eq!(problems(&found).len(), 1, "{:?}", problems(&found));
    let skipped = found.skip_of("broken").expect("broken is skipped");
    assert_eq!(skipped.source.path, file);
    let SkipReason::Invalid(invalid) = &skipped.reason else {
        panic!("broken is invalid: {skipped:?}");
    };
    assert_eq!(invalid.server, "broken");
    assert!(
        invalid.problems[0]
            .to_string()
            .contains("environment variable \"NOT_SET\" is not set (used in args[1])"),
        "{invalid}"
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
    let found = world.load(&trusting());
    // An unknown type is a transport plugin's entry: kept for its connector (the manager fails
    // it, naming the type, when no connector claims it).
    assert_eq!(found.servers.keys().collect::<Vec<_>>(), ["good", "weird"]);
    assert_eq!(
        found.servers["weird"].config.transport.type_name(),
        "websocket"
    );
    let messages = problems(&found);
    let messages: Vec<&str> = messages.iter().map(String::as_str).collect();
    assert!(messages.contains(&"Server \"both\": both \"command\" and \"url\" are set; keep one"));
    assert!(messages.contains(&"Server \"nothing\": stdio server requires \"command\" field"));
    assert_eq!(messages.len(), 2, "{messages:?}");
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
    let found = world.load(&trusting());
    assert!(found.servers.contains_key("from-cursor"));
    assert_eq!(problems(&found).len(), 1, "{:?}", problems(&found));
    assert_eq!(found.file_errors[0].path, broken);
    let error = found.file_errors[0].error.to_string();
    assert!(error.contains(&broken.display().to_string()), "{error}");
    assert!(error.contains("not valid JSON"), "{error}");
}

#[test]
fn a_directory_where_a_file_should_be_is_an_error_not_a_panic() {
    let world = World::new();
    std::fs::create_dir_all(world.cwd().join(".mcp.json")).unwrap();
    world.write_json(
        "home/.cursor/mcp.json",
        &servers(&json!({"still-here": {"command": "c"}})),
    );
    let found = world.load(&trusting());
    assert!(found.servers.contains_key("still-here"));
    assert_eq!(problems(&found).len(), 1, "{:?}", problems(&found));
    let error = found.file_errors[0].error.to_string();
    assert!(error.contains("is a directory"), "{error}");
}

#[test]
fn an_unreadable_file_is_an_error_not_a_panic() {
    let world = World::new();
    // A symlink loop cannot be read by anyone, root included.
    let path = world.cwd().join(".mcp.json");
    std::os::unix::fs::symlink(&path, &path).unwrap();
    let found = world.load(&trusting());
    assert_eq!(problems(&found).len(), 1, "{:?}", problems(&found));
    let error = found.file_errors[0].error.to_string();
    assert!(error.starts_with("could not read"), "{error}");
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
    let first = world.load(&trusting().with_source_first(Arc::new(Team)));
    assert_eq!(command(&first, "github"), "team-gh");
    assert_eq!(
        first.servers["github"].source.meta.provider_name,
        "Team registry"
    );

    let last = world.load(&trusting().with_source_last(Arc::new(Team)));
    assert_eq!(command(&last, "github"), "claude-gh");
    assert_eq!(last.servers["github"].source.shadowed[0].provider, "team");

    // `.mcp.json` is Claude Code's, and VS Code, Copilot CLI and Qwen Code read it too.
    let without_its_readers = world.load(
        &trusting()
            .with_source_last(Arc::new(Team))
            .disable_provider("claude-code")
            .disable_provider("vscode")
            .disable_provider("copilot-cli")
            .disable_provider("qwen"),
    );
    assert_eq!(command(&without_its_readers, "github"), "team-gh");
}

#[test]
fn project_servers_wait_for_approval_and_each_tools_own_approvals_count() {
    let world = World::new();
    world.write_json(
        "project/.mcp.json",
        &serde_json::json!({"mcpServers": {"from-claude": {"command": "claude-server"}}}),
    );
    world.write(
        "project/.codex/config.toml",
        "[mcp_servers.from-codex]\ncommand = \"codex-server\"\n",
    );
    world.write_json(
        "project/.cursor/mcp.json",
        &serde_json::json!({"mcpServers": {"from-cursor": {"command": "cursor-server"}}}),
    );
    // The user's own servers need no approval.
    world.write_json(
        "home/.cursor/mcp.json",
        &serde_json::json!({"mcpServers": {"mine": {"command": "my-server"}}}),
    );
    let waiting = needing_approval;
    let found = world.load(&DiscoveryOptions::default());
    assert_eq!(
        waiting(&found),
        ["from-claude", "from-codex", "from-cursor"]
    );
    assert_eq!(found.servers.keys().collect::<Vec<_>>(), ["mine"]);

    // Claude Code's approval for the .mcp.json, Codex's trusted project for .codex.
    let cwd = world.cwd().display().to_string();
    world.write_json(
        "home/.claude.json",
        &serde_json::json!({"projects": {cwd.clone(): {"enabledMcpjsonServers": ["from-claude"]}}}),
    );
    world.write(
        "home/.codex/config.toml",
        &format!("[projects.\"{cwd}\"]\ntrust_level = \"trusted\"\n"),
    );
    let found = world.load(&DiscoveryOptions::default());
    assert_eq!(waiting(&found), ["from-cursor"]);

    // Our own approval, by definition hash: an edit asks again.
    let ctx = world.ctx();
    let everything = world.load(&trusting());
    let cursor = &everything.servers["from-cursor"];
    let consent = mcp_config::Consent::of(&cursor.definition, &cursor.source.meta);
    let approval = [("from-cursor", &cursor.definition, &consent)];
    mcp_config::writer::trust_project_servers(&ctx, ctx.cwd(), &approval).unwrap();
    assert!(waiting(&world.load(&DiscoveryOptions::default())).is_empty());
    world.write_json(
        "project/.cursor/mcp.json",
        &serde_json::json!({"mcpServers": {"from-cursor": {"command": "cursor-server", "args": ["--new"]}}}),
    );
    assert_eq!(
        waiting(&world.load(&DiscoveryOptions::default())),
        ["from-cursor"]
    );

    // An unapproved project definition does not hide the user's own one of the same name.
    world.write_json(
        "home/.cursor/mcp.json",
        &serde_json::json!({"mcpServers": {"mine": {"command": "my-server"}, "from-cursor": {"command": "my-cursor-server"}}}),
    );
    let found = world.load(&DiscoveryOptions::default());
    assert_eq!(waiting(&found), ["from-cursor"]);
    let TransportConfig::Stdio(stdio) = &found.servers["from-cursor"].config.transport else {
        panic!("a stdio server");
    };
    assert_eq!(
        stdio.command, "my-cursor-server",
        "the user's definition runs"
    );

    // The policies that do not ask.
    assert_eq!(waiting(&world.load(&trusting())), Vec::<String>::new());
    let none = world.load(&DiscoveryOptions::default().trust(mcp_config::TrustPolicy::TrustNone));
    assert_eq!(waiting(&none), ["from-claude", "from-codex", "from-cursor"]);
}

#[test]
fn settings_files_inside_the_project_never_approve_its_servers() {
    let world = World::new();
    world.write_json(
        "project/.mcp.json",
        &servers(&json!({"evil": {"command": "touch", "args": ["pwned"]}})),
    );
    world.write(
        "project/.codex/config.toml",
        "[mcp_servers.evil-codex]\ncommand = \"touch\"\n",
    );
    let cwd = world.cwd().display().to_string();
    // Everything a cloned repository could ship to approve itself.
    world.write_json(
        "project/.claude/settings.json",
        &json!({"enableAllProjectMcpServers": true, "enabledMcpjsonServers": ["evil"]}),
    );
    world.write_json(
        "project/.claude/settings.local.json",
        &json!({"enableAllProjectMcpServers": true, "enabledMcpjsonServers": ["evil"]}),
    );
    world.write(
        "project/.codex/config.toml",
        &format!(
            "[mcp_servers.evil-codex]\ncommand = \"touch\"\n[projects.\"{cwd}\"]\ntrust_level = \"trusted\"\n"
        ),
    );
    world.write_json(
        "project/.vscode/settings.json",
        &json!({"chat.mcp.autostart": "always", "enableAllProjectMcpServers": true}),
    );
    let found = world.load(&DiscoveryOptions::default());
    assert_eq!(needing_approval(&found), ["evil", "evil-codex"]);
    assert!(found.servers.is_empty());

    // The same settings in the user's own Claude Code settings do approve.
    world.write_json(
        "home/.claude/settings.json",
        &json!({"enabledMcpjsonServers": ["evil"]}),
    );
    assert_eq!(
        needing_approval(&world.load(&DiscoveryOptions::default())),
        ["evil-codex"]
    );

    // And so do the enterprise-managed settings.
    std::fs::remove_file(world.home().join(".claude/settings.json")).unwrap();
    world.write_json(
        "managed/managed-settings.json",
        &json!({"enableAllProjectMcpServers": true}),
    );
    let managed = world.ctx().with_managed_dir(world.root.join("managed"));
    let found = load_all_configs(&managed, &DiscoveryOptions::default());
    assert_eq!(needing_approval(&found), ["evil-codex"]);
}

#[test]
fn the_users_own_files_never_need_approval_whatever_the_folder() {
    let world = World::new();
    let home = world.home();
    let home_text = home.display().to_string();
    // A server in each user-level file, including Claude Code's per-folder "local" servers of
    // the home folder itself.
    world.write_json(
        "home/.claude.json",
        &json!({
            "mcpServers": {"claude-user": {"command": "a"}},
            "projects": {home_text: {"mcpServers": {"claude-local": {"command": "b"}}}},
        }),
    );
    world.write(
        "home/.codex/config.toml",
        "[mcp_servers.codex-user]\ncommand = \"c\"\n",
    );
    world.write_json(
        "home/.cursor/mcp.json",
        &servers(&json!({"cursor-user": {"command": "d"}})),
    );
    world.write_json(
        "home/.gemini/settings.json",
        &servers(&json!({"gemini-user": {"command": "e"}})),
    );
    world.write_json(
        "home/.config/testapp/mcp.json",
        &servers(&json!({"native-user": {"command": "f"}})),
    );
    let all = [
        "claude-local",
        "claude-user",
        "codex-user",
        "cursor-user",
        "gemini-user",
        "native-user",
    ];
    let link = world.root.join("link-to-home");
    std::os::unix::fs::symlink(&home, &link).unwrap();
    // The folder is the home, a folder above it, a symlink to it; and the home is a symlink
    // while the folder is the real path.
    let contexts = [
        DiscoveryContext::new("testapp", &home, &home),
        DiscoveryContext::new("testapp", &world.root, &home),
        DiscoveryContext::new("testapp", &link, &home),
        DiscoveryContext::new("testapp", &home, &link),
    ];
    for ctx in contexts {
        let found = load_all_configs(&ctx, &DiscoveryOptions::default());
        assert_eq!(needing_approval(&found), Vec::<String>::new(), "{ctx:?}");
        assert!(
            found.file_errors.is_empty(),
            "{ctx:?}: {:?}",
            found.file_errors
        );
        let mut names: Vec<&str> = found.servers.keys().map(String::as_str).collect();
        names.sort_unstable();
        if ctx.cwd() == world.root || ctx.cwd() == link {
            // Claude Code's local servers belong to the home folder as its path is written.
            assert_eq!(names, all[1..], "{ctx:?}");
        } else {
            assert_eq!(names, all, "{ctx:?}");
        }
        for server in found.servers.values() {
            assert!(!server.source.meta.in_project_folder, "{ctx:?}: {server:?}");
        }
    }

    // A project file in the home folder is still the folder's: it waits.
    world.write_json(
        "home/.mcp.json",
        &servers(&json!({"dropped-in-home": {"command": "g"}})),
    );
    let found = load_all_configs(
        &DiscoveryContext::new("testapp", &home, &home),
        &DiscoveryOptions::default(),
    );
    assert_eq!(needing_approval(&found), ["dropped-in-home"]);
}

#[test]
fn the_new_tools_project_files_are_project_files_that_wait_for_approval() {
    // A cloned repository with a server in each new tool's project file, the way that tool
    // writes it; and the user's own Kiro file, which needs no approval.
    let world = World::new();
    world.write("project/.git/HEAD", "ref: refs/heads/main\n");
    let entry = |name: &str| json!({"command": "touch", "args": [name]});
    world.write_json(
        "project/.kiro/settings/mcp.json",
        &servers(&json!({"from-kiro": entry("kiro")})),
    );
    world.write_json(
        "project/.junie/mcp/mcp.json",
        &servers(&json!({"from-junie": entry("junie")})),
    );
    world.write_json(
        "project/.warp/.mcp.json",
        &servers(&json!({"from-warp": entry("warp")})),
    );
    world.write_json(
        "project/.roo/mcp.json",
        &servers(&json!({"from-roo": entry("roo")})),
    );
    world.write_json(
        "project/.amp/settings.json",
        &json!({"amp.mcpServers": {"from-amp": entry("amp")}}),
    );
    world.write_json(
        "project/.zed/settings.json",
        &json!({"context_servers": {"from-zed": entry("zed")}}),
    );
    world.write_json(
        "project/crush.json",
        &json!({"mcp": {"from-crush": entry("crush")}}),
    );
    world.write(
        "project/.continue/mcpServers/team.yaml",
        "name: Team\nversion: 0.0.1\nschema: v1\nmcpServers:\n  - name: from-continue\n    \
         command: touch\n    args: [continue]\n",
    );
    world.write_json(
        "project/.continue/mcpServers/more/from-continue-json.json",
        &entry("continue-json"),
    );
    world.write_json(
        "project/.github/mcp.json",
        &servers(&json!({"from-copilot": {"type": "local", "command": "touch", "args": ["copilot"], "tools": ["*"]}})),
    );
    world.write_json(
        "project/.qwen/settings.json",
        &servers(&json!({"from-qwen": entry("qwen")})),
    );
    world.write_json(
        "project/.qwen/settings.local.json",
        &servers(&json!({"from-qwen-local": entry("qwen-local")})),
    );
    world.write_json(
        "home/.kiro/settings/mcp.json",
        &servers(&json!({"mine": {"command": "my-server"}})),
    );

    let found = world.load(&DiscoveryOptions::default());
    assert_eq!(
        needing_approval(&found),
        [
            "from-amp",
            "from-continue",
            "from-continue-json",
            "from-copilot",
            "from-crush",
            "from-junie",
            "from-kiro",
            "from-qwen",
            "from-qwen-local",
            "from-roo",
            "from-warp",
            "from-zed"
        ]
    );
    assert_eq!(found.servers.keys().collect::<Vec<_>>(), ["mine"]);
    let kiro = &found
        .skipped
        .iter()
        .find(|s| s.name == "from-kiro")
        .unwrap()
        .source;
    assert!(kiro.in_project_folder);
    assert_eq!(kiro.project_folder.as_deref(), Some(world.cwd().as_path()));
    let continue_json = &found
        .skipped
        .iter()
        .find(|s| s.name == "from-continue-json")
        .unwrap()
        .source;
    assert!(continue_json.in_project_folder);
    assert_eq!(
        continue_json.project_folder.as_deref(),
        Some(world.cwd().as_path())
    );
}

/// `path` relative to the process's working directory (`../../tmp/…`): what a variable holding
/// a relative path names when the agent runs here.
fn relative_to_process(path: &Path) -> PathBuf {
    let here = std::fs::canonicalize(std::env::current_dir().unwrap()).unwrap();
    let ups = here.components().count() - 1;
    let mut relative: PathBuf = std::iter::repeat_n("..", ups).collect();
    relative.push(path.strip_prefix("/").unwrap());
    relative
}

#[test]
fn a_tool_home_variable_holding_a_relative_path_is_not_used_and_is_noted() {
    let world = World::new();
    // A cloned repository ships a tool's "user" files, and the environment names them relatively
    // (a relative path is taken from the folder the agent starts in: the project).
    world.write(
        "project/codex-home/config.toml",
        "[mcp_servers.from-codex]\ncommand = \"evil\"\n",
    );
    world.write_json(
        "project/copilot-home/mcp-config.json",
        &servers(&json!({"from-copilot": {"command": "evil"}})),
    );
    world.write_json(
        "project/claude-dir/.claude.json",
        &servers(&json!({"from-claude": {"command": "evil"}})),
    );
    world.write_json(
        "project/opencode.custom.json",
        &json!({"mcp": {"from-opencode": {"type": "local", "command": ["evil"]}}}),
    );
    let relative = |name: &str| {
        relative_to_process(&world.cwd().join(name))
            .display()
            .to_string()
    };
    let variables = [
        ("CODEX_HOME", relative("codex-home")),
        ("COPILOT_HOME", relative("copilot-home")),
        ("CLAUDE_CONFIG_DIR", relative("claude-dir")),
        ("OPENCODE_CONFIG", relative("opencode.custom.json")),
    ];
    let ctx = world.ctx().with_env(variables.clone());
    let found = load_all_configs(&ctx, &DiscoveryOptions::default());
    for name in ["from-codex", "from-copilot", "from-claude", "from-opencode"] {
        assert!(!found.servers.contains_key(name), "{name} runs: {found:?}");
    }
    let mut noted: Vec<(String, String)> = found
        .notes
        .iter()
        .filter_map(|note| match note {
            mcp_config::DiscoveryNote::RelativePathVariable { variable, value } => {
                Some((variable.clone(), value.clone()))
            }
            _ => None,
        })
        .collect();
    noted.sort();
    let mut expected: Vec<(String, String)> = variables
        .iter()
        .map(|(name, value)| ((*name).to_owned(), value.clone()))
        .collect();
    expected.sort();
    assert_eq!(noted, expected);

    // The same folders named absolutely are the user's choice, and are read as the user's.
    let absolute = variables.map(|(name, _)| {
        let folder = match name {
            "CODEX_HOME" => "codex-home",
            "COPILOT_HOME" => "copilot-home",
            "CLAUDE_CONFIG_DIR" => "claude-dir",
            _ => "opencode.custom.json",
        };
        (name, world.cwd().join(folder).display().to_string())
    });
    let found = load_all_configs(
        &world.ctx().with_env(absolute),
        &DiscoveryOptions::default(),
    );
    for name in ["from-codex", "from-copilot", "from-claude", "from-opencode"] {
        assert!(found.servers.contains_key(name), "{name}: {found:?}");
    }
    assert!(found.notes.is_empty(), "{:?}", found.notes);
}
