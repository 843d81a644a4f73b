//! The GitHub Copilot CLI and Qwen Code providers, and VS Code's portable `.mcp.json`, each fed
//! files in the exact shape its tool writes.

#![allow(clippy::expect_used, clippy::unwrap_used)]

mod provider_support;

use std::path::PathBuf;
use std::sync::Arc;

use mcp_config::providers::{COPILOT_CLI, GEMINI, QWEN_CODE, VSCODE, default_sources};
use mcp_config::{
    DiscoveryContext, DiscoveryOptions, Level, SkipReason, TrustPolicy, load_all_configs,
    source::{ConfigSource, SourceFile},
};
use provider_support::{
    Sandbox, config_of, discover_with, file_for, invalid, listing, names, server,
};
use serde_json::{Value, json};

// ------------------------------------------------------------------------------------------
// Helpers
// ------------------------------------------------------------------------------------------

fn one_server(name: &str, entry: &Value) -> String {
    serde_json::to_string_pretty(&json!({ "mcpServers": { name: entry } })).unwrap()
}

// ------------------------------------------------------------------------------------------
// The registry
// ------------------------------------------------------------------------------------------

#[test]
fn copilot_cli_and_qwen_code_come_last_in_that_order() {
    let sources = default_sources();
    let ids: Vec<(&str, &str)> = sources.iter().map(|s| (s.id(), s.name())).collect();
    assert_eq!(
        ids[ids.len() - 3..],
        [
            ("continue", "Continue"),
            ("copilot-cli", "Copilot CLI"),
            ("qwen", "Qwen Code")
        ]
    );
}

// ------------------------------------------------------------------------------------------
// GitHub Copilot CLI
// ------------------------------------------------------------------------------------------

#[test]
fn copilot_cli_reads_both_project_files_of_each_folder_up_to_the_git_root_then_the_users() {
    let sandbox = Sandbox::new("copilot-walk");
    sandbox.repo("project");
    let entry = |name: &str| one_server(name, &json!({"command": name, "tools": ["*"]}));
    // Above the repository: never read.
    sandbox.write(".mcp.json", &entry("above"));
    let root_local = sandbox.write("project/.mcp.json", &entry("root-local"));
    let root_shared = sandbox.write("project/.github/mcp.json", &entry("root-shared"));
    let middle = sandbox.write("project/packages/.mcp.json", &entry("middle"));
    let near_local = sandbox.write("project/packages/app/.mcp.json", &entry("near-local"));
    let near_shared = sandbox.write(
        "project/packages/app/.github/mcp.json",
        &entry("near-shared"),
    );
    let user = sandbox.write("home/.copilot/mcp-config.json", &entry("user"));

    let ctx = sandbox.ctx_in("project/packages/app");
    let files = COPILOT_CLI.load(&ctx);
    assert_eq!(
        listing(&files),
        [
            (near_local, Level::Project),
            (near_shared, Level::Project),
            (middle, Level::Project),
            (root_local, Level::Project),
            (root_shared, Level::Project),
            (user, Level::User),
        ]
    );
    // Copilot CLI walks: no file of its is a note from a subfolder.
    assert!(COPILOT_CLI.unread_project_files(&ctx).is_empty());
}

#[test]
fn copilot_cli_nearer_files_win_a_name_and_the_project_beats_the_user() {
    let sandbox = Sandbox::new("copilot-clash");
    sandbox.repo("project");
    let entry = |command: &str| one_server("tool", &json!({"command": command, "tools": ["*"]}));
    sandbox.write("project/.github/mcp.json", &entry("root-shared"));
    sandbox.write("project/.mcp.json", &entry("root-local"));
    sandbox.write("project/sub/.github/mcp.json", &entry("near-shared"));
    sandbox.write("home/.copilot/mcp-config.json", &entry("user"));

    let found = discover_with(COPILOT_CLI, &sandbox.ctx_in("project/sub"));
    let used = &found.servers["tool"];
    assert_eq!(
        used.config.transport_kind().as_str(),
        "stdio",
        "{:?}",
        used.config
    );
    assert_eq!(
        used.source.meta.path,
        sandbox.path("project/sub/.github/mcp.json")
    );
    // Without the nearer file, the root's `.mcp.json` wins over its `.github/mcp.json`.
    std::fs::remove_file(sandbox.path("project/sub/.github/mcp.json")).unwrap();
    let found = discover_with(COPILOT_CLI, &sandbox.ctx_in("project/sub"));
    assert_eq!(
        found.servers["tool"].source.meta.path,
        sandbox.path("project/.mcp.json")
    );
    // Without project files, the user's.
    let found = discover_with(
        COPILOT_CLI,
        &DiscoveryContext::new("myagent", sandbox.path("elsewhere"), sandbox.home()),
    );
    assert_eq!(
        found.servers["tool"].source.meta.path,
        sandbox.path("home/.copilot/mcp-config.json")
    );
}

#[test]
fn copilot_cli_entries_with_every_field() {
    let sandbox = Sandbox::new("copilot-fields");
    let user = sandbox.write(
        "home/.copilot/mcp-config.json",
        r#"{
  "mcpServers": {
    "playwright": {
      "type": "local",
      "command": "npx",
      "args": ["@playwright/mcp@latest", "--profile", "$HOME/pw"],
      "env": {"PW_TOKEN": "$PW_TOKEN", "MODE": "${PW_MODE:-headless}", "PLAIN": "x"},
      "cwd": "/srv/pw",
      "tools": ["browser_navigate", "browser_click"],
      "timeout": 120000,
      "deferTools": "never",
      "disableToolCache": true
    },
    "stdio-all": {"type": "stdio", "command": "srv", "args": [], "tools": ["*"], "timeout": 5000},
    "context7": {
      "type": "http",
      "url": "https://mcp.context7.com/mcp",
      "headers": {"CONTEXT7_API_KEY": "$CONTEXT7_KEY", "X-Plain": "v"},
      "tools": ["*"]
    },
    "events": {"type": "sse", "url": "https://events.example.com/sse", "tools": ["*"]},
    "alias": {"type": "streamable-http", "url": "https://alias.example.com/mcp", "tools": ["t", "*"]},
    "untyped": {"url": "https://untyped.example.com/mcp", "tools": ["*"]},
    "no-tools-key": {"command": "legacy"},
    "none": {"command": "quiet", "args": [], "tools": []},
    "oauth": {
      "type": "http",
      "url": "https://api.example.com/mcp",
      "tools": ["*"],
      "oauthClientId": "my-client",
      "oauthScopes": ["read", "write"],
      "oauthPublicClient": true
    },
    "headless-api": {
      "type": "http",
      "url": "https://headless.example.com/mcp",
      "tools": ["*"],
      "oauthClientId": "YOUR-CLIENT-ID",
      "oauthPublicClient": false,
      "oauthGrantType": "client_credentials"
    },
    "socket": {"type": "ws", "url": "wss://ws.example.com/mcp", "tools": ["*"]},
    "off": {"command": "off", "tools": ["*"], "disabled": true},
    "bad-tools": {"command": "x", "tools": "*"},
    "bad-timeout": {"command": "x", "tools": ["*"], "timeout": "30s"},
    "no-command": {"type": "local", "args": ["x"], "tools": ["*"]}
  }
}"#,
    );
    let files = COPILOT_CLI.load(&sandbox.ctx());
    assert_eq!(listing(&files), [(user, Level::User)]);
    let file = &files[0];
    assert_eq!(
        server(file, "playwright"),
        json!({
            "command": "npx",
            // Copilot expands variables in env and headers only.
            "args": ["@playwright/mcp@latest", "--profile", "$HOME/pw"],
            "env": {"PW_TOKEN": "${PW_TOKEN}", "MODE": "${PW_MODE:-headless}", "PLAIN": "x"},
            "cwd": "/srv/pw",
            "enabledTools": ["browser_navigate", "browser_click"],
            "timeout": 120000,
            "toolTimeout": 120000,
            "deferTools": "never",
            "disableToolCache": true
        })
    );
    let playwright = config_of(file, "playwright");
    assert!(playwright.tool_filter().allows("browser_click"));
    assert!(!playwright.tool_filter().allows("browser_close"));
    assert_eq!(
        playwright.tool_timeout(),
        Some(std::time::Duration::from_secs(120))
    );
    // A timeout below Copilot's connection floor bounds tool calls; connecting gets 60 s.
    assert_eq!(
        server(file, "stdio-all"),
        json!({"command": "srv", "timeout": 60000, "toolTimeout": 5000})
    );
    assert!(config_of(file, "stdio-all").tool_filter().allows_all());
    assert_eq!(
        server(file, "context7"),
        json!({
            "type": "http",
            "url": "https://mcp.context7.com/mcp",
            "headers": {"CONTEXT7_API_KEY": "${CONTEXT7_KEY}", "X-Plain": "v"},
            // No `timeout` written: Copilot still gives the connection 60 s.
            "timeout": 60000
        })
    );
    assert_eq!(
        server(file, "events"),
        json!({"type": "sse", "url": "https://events.example.com/sse", "timeout": 60000})
    );
    // `*` anywhere in the list is every tool.
    assert_eq!(
        server(file, "alias"),
        json!({"type": "http", "url": "https://alias.example.com/mcp", "timeout": 60000})
    );
    assert_eq!(
        server(file, "untyped"),
        json!({"type": "http", "url": "https://untyped.example.com/mcp", "timeout": 60000})
    );
    assert_eq!(
        server(file, "no-tools-key"),
        json!({"command": "legacy", "timeout": 60000})
    );
    assert!(config_of(file, "no-tools-key").tool_filter().allows_all());
    // An empty list offers no tool.
    assert_eq!(
        server(file, "none"),
        json!({"command": "quiet", "enabledTools": [],
            "timeout": 60000
        })
    );
    assert!(!config_of(file, "none").tool_filter().allows("anything"));
    assert_eq!(
        server(file, "oauth"),
        json!({
            "type": "http",
            "url": "https://api.example.com/mcp",
            "auth": {"type": "oauth", "clientId": "my-client"},
            "oauthScopes": ["read", "write"],
            "oauthPublicClient": true,
            "timeout": 60000
        })
    );
    let client = config_of(file, "oauth")
        .auth
        .as_ref()
        .unwrap()
        .oauth_client()
        .unwrap();
    assert_eq!(client.client_id, "my-client");
    assert_eq!(
        server(file, "headless-api"),
        json!({
            "type": "http",
            "url": "https://headless.example.com/mcp",
            "auth": {"type": "oauth", "clientId": "YOUR-CLIENT-ID", "grant": "clientCredentials"},
            "oauthPublicClient": false,
            "timeout": 60000
        })
    );
    // The secret Copilot keeps in the keychain is not here: the grant says what it needs.
    let problems = config_of(file, "headless-api")
        .auth
        .as_ref()
        .unwrap()
        .oauth_settings()
        .unwrap_err();
    assert!(
        problems[0].to_string().contains("clientSecret"),
        "{problems:?}"
    );
    let socket = config_of(file, "socket");
    assert_eq!(socket.transport.type_name(), "ws");
    assert_eq!(
        server(file, "off"),
        json!({"command": "off", "enabled": false, "timeout": 60000})
    );
    let problems = invalid(file);
    let names_of: Vec<&str> = problems.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(
        names_of,
        ["bad-tools", "bad-timeout", "no-command"],
        "{problems:?}"
    );
    assert!(
        problems[0]
            .1
            .contains("\"tools\" must be a list of strings")
    );
    assert!(
        problems[1]
            .1
            .contains("\"timeout\" must be a non-negative number of milliseconds")
    );
    assert!(problems[2].1.contains("\"command\""), "{}", problems[2].1);
}

#[test]
fn a_copilot_client_credentials_entry_takes_the_secret_the_user_adds_in_its_auth() {
    let sandbox = Sandbox::new("copilot-secret");
    let entry = json!({
        "type": "http",
        "url": "https://headless.example.com/mcp",
        "tools": ["*"],
        "oauthClientId": "svc-client",
        "oauthGrantType": "client_credentials",
        "auth": {"clientSecret": "${SVC_SECRET}"},
    });
    sandbox.write("home/.copilot/mcp-config.json", &one_server("svc", &entry));
    let files = COPILOT_CLI.load(&sandbox.ctx());
    assert_eq!(
        server(&files[0], "svc")["auth"],
        json!({
            "type": "oauth",
            "clientId": "svc-client",
            "grant": "clientCredentials",
            "clientSecret": "${SVC_SECRET}"
        })
    );
    let auth = config_of(&files[0], "svc").auth.as_ref().unwrap();
    assert!(auth.oauth_settings().is_ok(), "{:?}", auth.oauth_settings());
}

#[test]
fn copilot_home_moves_the_user_file_and_an_empty_one_does_not() {
    let sandbox = Sandbox::new("copilot-home");
    let entry = one_server("mine", &json!({"command": "mine", "tools": ["*"]}));
    let moved = sandbox.write("elsewhere/copilot/mcp-config.json", &entry);
    let default = sandbox.write("home/.copilot/mcp-config.json", &entry);
    let ctx = sandbox.ctx().with_env([(
        "COPILOT_HOME",
        sandbox.path("elsewhere/copilot").display().to_string(),
    )]);
    assert_eq!(listing(&COPILOT_CLI.load(&ctx)), [(moved, Level::User)]);
    let ctx = sandbox.ctx().with_env([("COPILOT_HOME", "")]);
    assert_eq!(listing(&COPILOT_CLI.load(&ctx)), [(default, Level::User)]);
}

#[test]
fn copilot_cli_files_are_strict_json_and_a_broken_one_names_itself() {
    let sandbox = Sandbox::new("copilot-broken");
    let path = sandbox.write(
        "project/.github/mcp.json",
        "{\n  // a comment\n  \"mcpServers\": {}\n}\n",
    );
    let files = COPILOT_CLI.load(&sandbox.ctx());
    let error = match &file_for(&files, &path).contents {
        Ok(_) => panic!("a comment was accepted"),
        Err(error) => error.to_string(),
    };
    assert!(error.contains(&path.display().to_string()), "{error}");
}

// ------------------------------------------------------------------------------------------
// VS Code's portable `.mcp.json`
// ------------------------------------------------------------------------------------------

#[test]
fn vscode_reads_the_workspace_mcp_json_after_its_own_file_in_copilots_format() {
    let sandbox = Sandbox::new("vscode-portable");
    sandbox.repo("project");
    let own = sandbox.write(
        "project/.vscode/mcp.json",
        r#"{"servers": {"memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"]}}}"#,
    );
    let portable = sandbox.write(
        "project/.mcp.json",
        r#"{"mcpServers": {
  "playwright": {"type": "local", "command": "npx", "args": ["@playwright/mcp@latest"], "env": {"T": "$TOKEN"}, "tools": ["browser_click"]},
  "context7": {"type": "http", "url": "https://mcp.context7.com/mcp", "tools": ["*"], "timeout": 90000}
}}"#,
    );
    let files = VSCODE.load(&sandbox.ctx());
    assert_eq!(
        listing(&files),
        [(own, Level::Project), (portable.clone(), Level::Project)]
    );
    assert_eq!(names(&files[0]), ["memory"]);
    assert_eq!(
        server(&files[1], "playwright"),
        json!({
            "command": "npx",
            "args": ["@playwright/mcp@latest"],
            "env": {"T": "${TOKEN}"},
            "timeout": 60000,
            "enabledTools": ["browser_click"]
        })
    );
    assert_eq!(
        server(&files[1], "context7"),
        json!({
            "type": "http",
            "url": "https://mcp.context7.com/mcp",
            "timeout": 90000,
            "toolTimeout": 90000
        })
    );

    // From a subfolder VS Code reads neither; the root's files are notes.
    let ctx = sandbox.ctx_in("project/src");
    assert!(VSCODE.load(&ctx).is_empty());
    let notes: Vec<PathBuf> = VSCODE
        .unread_project_files(&ctx)
        .into_iter()
        .map(|note| note.path)
        .collect();
    assert_eq!(notes, [sandbox.path("project/.vscode/mcp.json"), portable]);
}

// ------------------------------------------------------------------------------------------
// Qwen Code
// ------------------------------------------------------------------------------------------

#[test]
fn qwen_code_reads_local_portable_legacy_and_user_files_in_that_order() {
    let sandbox = Sandbox::new("qwen-files");
    let local = sandbox.write(
        "project/.qwen/settings.local.json",
        r#"{
  // qwen mcp add writes here by default
  "mcpServers": {"mine": {"command": "my-tools", "args": ["--local"]}},
}"#,
    );
    let portable = sandbox.write(
        "project/.mcp.json",
        r#"{"mcpServers": {
  "shared": {"command": "from-mcp-json"},
  "claude-http": {"type": "http", "url": "https://api.example.com/mcp", "headers": {"Authorization": "Bearer ${API_KEY}"}},
  "claude-sse": {"type": "sse", "url": "https://events.example.com/sse"},
  "socket": {"type": "ws", "url": "ws://localhost:9000/mcp"}
},
"mcp": {"excluded": ["shared"]}}"#,
    );
    let legacy = sandbox.write(
        "project/.qwen/settings.json",
        r#"{"mcpServers": {"shared": {"command": "from-settings"}, "old": {"command": "old"}}}"#,
    );
    let user = sandbox.write(
        "home/.qwen/settings.json",
        r#"{"mcpServers": {"shared": {"command": "from-user"}, "user-only": {"command": "u"}}}"#,
    );
    let ctx = sandbox.ctx().with_env([("API_KEY", "key")]);
    let files = QWEN_CODE.load(&ctx);
    assert_eq!(
        listing(&files),
        [
            (local, Level::Project),
            (portable.clone(), Level::Project),
            (legacy, Level::Project),
            (user, Level::User),
        ]
    );
    // `.mcp.json` holds servers only: its `mcp` key switches nothing off.
    assert_eq!(
        server(&files[1], "shared"),
        json!({"command": "from-mcp-json"})
    );
    // Claude Code's shape in `.mcp.json`: `type: "http"` is Streamable HTTP, `ws` is kept.
    assert_eq!(
        server(&files[1], "claude-http"),
        json!({
            "type": "http",
            "url": "https://api.example.com/mcp",
            "headers": {"Authorization": "Bearer ${API_KEY}"}
        })
    );
    assert_eq!(
        server(&files[1], "claude-sse"),
        json!({"type": "sse", "url": "https://events.example.com/sse"})
    );
    assert_eq!(config_of(&files[1], "socket").transport.type_name(), "ws");

    // On a name clash `.mcp.json` wins over `.qwen/settings.json` and the user's file.
    let found = discover_with(QWEN_CODE, &ctx);
    assert_eq!(found.servers["shared"].source.meta.path, portable);
    let names: Vec<&str> = found.servers.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        [
            "claude-http",
            "claude-sse",
            "mine",
            "old",
            "shared",
            "socket",
            "user-only"
        ],
        "{:?}",
        found.skipped
    );
}

#[test]
fn qwen_code_entries_with_every_transport_and_its_timeouts() {
    let sandbox = Sandbox::new("qwen-entries");
    let user = sandbox.write(
        "home/.qwen/settings.json",
        r#"{
  "mcpServers": {
    "pythonTools": {
      "command": "python",
      "args": ["-m", "my_mcp_server", "--port", "8080"],
      "cwd": "./mcp-servers/python",
      "env": {"DATABASE_URL": "$DB_CONNECTION_STRING", "API_KEY": "${EXTERNAL_API_KEY}"},
      "timeout": 15000,
      "discoveryTimeoutMs": 60000,
      "trust": false,
      "includeTools": ["safe_tool", "file_reader"],
      "excludeTools": ["file_reader"]
    },
    "httpServerWithAuth": {
      "httpUrl": "http://localhost:3000/mcp",
      "headers": {"Authorization": "Bearer $API_TOKEN"},
      "timeout": 5000
    },
    "sseServer": {"url": "http://localhost:8080/sse", "timeout": 30000},
    "oauthServer": {
      "url": "https://api.example.com/sse/",
      "oauth": {"enabled": true, "clientId": "your-client-id", "scopes": ["read"]}
    },
    "socket": {"tcp": "ws://localhost:9000"},
    "slow": {"command": "x", "discoveryTimeoutMs": "soon"}
  }
}"#,
    );
    let files = QWEN_CODE.load(&sandbox.ctx());
    assert_eq!(listing(&files), [(user, Level::User)]);
    let file = &files[0];
    assert_eq!(
        server(file, "pythonTools"),
        json!({
            "command": "python",
            "args": ["-m", "my_mcp_server", "--port", "8080"],
            "cwd": "./mcp-servers/python",
            "env": {
                "DATABASE_URL": "${DB_CONNECTION_STRING}",
                "API_KEY": "${EXTERNAL_API_KEY}"
            },
            // `timeout` bounds tool calls; `discoveryTimeoutMs` the handshake.
            "timeout": 60000,
            "toolTimeout": 15000,
            "trust": false,
            "enabledTools": ["safe_tool", "file_reader"],
            "disabledTools": ["file_reader"]
        })
    );
    let filter = config_of(file, "pythonTools").tool_filter();
    assert!(filter.allows("safe_tool"));
    assert!(!filter.allows("file_reader"), "exclusion wins");
    assert!(!filter.allows("other"));
    assert_eq!(
        server(file, "httpServerWithAuth"),
        json!({
            "type": "http",
            "url": "http://localhost:3000/mcp",
            "headers": {"Authorization": "Bearer ${API_TOKEN}"},
            "toolTimeout": 5000
        })
    );
    // Qwen Code's `url` is the SSE endpoint.
    assert_eq!(
        server(file, "sseServer"),
        json!({"type": "sse", "url": "http://localhost:8080/sse", "toolTimeout": 30000})
    );
    assert_eq!(
        server(file, "oauthServer"),
        json!({
            "type": "sse",
            "url": "https://api.example.com/sse/",
            "oauth": {"enabled": true, "clientId": "your-client-id", "scopes": ["read"]}
        })
    );
    let problems = invalid(file);
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert_eq!(problems[0].0, "socket");
    assert!(problems[0].1.contains("WebSocket"));
    assert_eq!(problems[1].0, "slow");
    assert!(
        problems[1].1.contains("\"discoveryTimeoutMs\""),
        "{}",
        problems[1].1
    );
}

#[test]
fn qwen_code_allowed_and_excluded_lists_take_glob_patterns() {
    let sandbox = Sandbox::new("qwen-lists");
    sandbox.write(
        "project/.qwen/settings.json",
        r#"{"mcp": {"excluded": ["*-experimental"]},
  "mcpServers": {"db-experimental": {"command": "db"}, "db-internal": {"command": "db"}}}"#,
    );
    sandbox.write(
        "home/.qwen/settings.json",
        r#"{"mcp": {"allowed": ["db-*", "tool?"]},
  "mcpServers": {"tool1": {"command": "t"}, "tool10": {"command": "t"}, "other": {"command": "o"}}}"#,
    );
    let files = QWEN_CODE.load(&sandbox.ctx());
    let enabled = |file: &SourceFile, name: &str| config_of(file, name).enabled;
    // Excluded by a pattern of the project's, whichever file defines it.
    assert_eq!(enabled(&files[0], "db-experimental"), Some(false));
    assert_eq!(enabled(&files[0], "db-internal"), None);
    assert_eq!(enabled(&files[1], "tool1"), None);
    // `tool?` is one character; `other` matches no allowed pattern.
    assert_eq!(enabled(&files[1], "tool10"), Some(false));
    assert_eq!(enabled(&files[1], "other"), Some(false));

    let found = discover_with(QWEN_CODE, &sandbox.ctx());
    let off: Vec<&str> = found
        .skipped
        .iter()
        .filter(|skipped| skipped.reason == SkipReason::Disabled)
        .map(|skipped| skipped.name.as_str())
        .collect();
    assert_eq!(off, ["db-experimental", "tool10", "other"]);
}

#[test]
fn a_settings_file_whose_servers_cannot_be_read_still_switches_others_off() {
    let sandbox = Sandbox::new("lists-first");
    for (source, folder) in [(GEMINI, ".gemini"), (QWEN_CODE, ".qwen")] {
        sandbox.write(
            &format!("home/{folder}/settings.json"),
            r#"{"mcpServers": ["not", "a", "map"], "mcp": {"excluded": ["evil"]}}"#,
        );
        sandbox.write(
            &format!("project/{folder}/settings.json"),
            r#"{"mcpServers": {"evil": {"command": "evil"}, "fine": {"command": "fine"}}}"#,
        );
        let files = source.load(&sandbox.ctx());
        let user = files.last().unwrap();
        assert!(user.contents.is_err(), "{}", source.id());
        let project = &files[0];
        assert_eq!(
            config_of(project, "evil").enabled,
            Some(false),
            "{}",
            source.id()
        );
        assert_eq!(config_of(project, "fine").enabled, None, "{}", source.id());
    }
}

#[test]
fn a_projects_settings_switch_off_only_the_projects_own_servers() {
    let sandbox = Sandbox::new("project-lists");
    for (source, folder, lists) in [
        (GEMINI, ".gemini", r#"{"allowed": []}"#),
        (GEMINI, ".gemini", r#"{"excluded": ["mine", "theirs"]}"#),
        (QWEN_CODE, ".qwen", r#"{"excluded": ["*"]}"#),
        (QWEN_CODE, ".qwen", r#"{"allowed": ["nothing-*"]}"#),
    ] {
        sandbox.write(
            &format!("project/{folder}/settings.json"),
            &format!(r#"{{"mcp": {lists}, "mcpServers": {{"theirs": {{"command": "t"}}}}}}"#),
        );
        sandbox.write(
            &format!("home/{folder}/settings.json"),
            r#"{"mcpServers": {"mine": {"command": "m"}}}"#,
        );
        for project_config in [true, false] {
            let mut options = DiscoveryOptions::default()
                .trust(TrustPolicy::TrustAll)
                .project_config(project_config);
            options.sources = vec![Arc::new(source)];
            let found = load_all_configs(&sandbox.ctx(), &options);
            let context = format!("{} {lists} project config {project_config}", source.id());
            // The user's own server runs whatever the project's file says ...
            assert!(found.servers.contains_key("mine"), "{context}: {found:?}");
            // ... and the project's file governs the project's server.
            let theirs = found.skip_of("theirs").map(|skipped| &skipped.reason);
            let expected = if project_config {
                SkipReason::Disabled
            } else {
                SkipReason::ProjectConfigOff
            };
            assert_eq!(theirs, Some(&expected), "{context}");
        }
    }
}

#[test]
fn qwen_code_reads_the_working_folder_only_and_notes_the_files_above() {
    let sandbox = Sandbox::new("qwen-walk");
    sandbox.repo("project");
    let entry = one_server("x", &json!({"command": "x"}));
    let root_portable = sandbox.write("project/.mcp.json", &entry);
    let root_local = sandbox.write("project/.qwen/settings.local.json", &entry);
    let here = sandbox.write("project/src/.qwen/settings.json", &entry);
    let ctx = sandbox.ctx_in("project/src");
    assert_eq!(listing(&QWEN_CODE.load(&ctx)), [(here, Level::Project)]);
    let mut notes: Vec<(PathBuf, String)> = QWEN_CODE
        .unread_project_files(&ctx)
        .into_iter()
        .map(|note| (note.path, note.rule))
        .collect();
    notes.sort();
    let rule = "Qwen Code reads it only in the folder it starts in".to_owned();
    assert_eq!(notes, [(root_portable, rule.clone()), (root_local, rule)]);
}
