//! The built-in providers, each fed a file in the exact shape its tool writes.

#![allow(clippy::expect_used, clippy::unwrap_used)]

mod provider_support;

use std::path::Path;

use mcp_config::providers::{
    AMP, CLAUDE_CODE, CLAUDE_DESKTOP, CLINE, CODEX, CRUSH, CURSOR, GEMINI, GOOSE, JUNIE, KIRO,
    LM_STUDIO, NATIVE, OPENCODE, ROO_CODE, VSCODE, WARP, WINDSURF, ZED, default_sources,
};
use mcp_config::{
    ConfigError, ConfigProblem, DiscoveryContext, EntryProblem, Level, source::ConfigSource,
};
use provider_support::{
    Sandbox, config_of, file_for, invalid, listing, names, server, servers, the_error,
};
use serde_json::json;

// ------------------------------------------------------------------------------------------
// The registry
// ------------------------------------------------------------------------------------------

#[test]
fn default_sources_are_in_priority_order_with_their_names() {
    let sources = default_sources();
    let ids: Vec<(&str, &str)> = sources.iter().map(|s| (s.id(), s.name())).collect();
    assert_eq!(
        ids,
        [
            ("native", "native config"),
            ("claude-code", "Claude Code"),
            ("codex", "Codex"),
            ("gemini", "Gemini CLI"),
            ("opencode", "OpenCode"),
            ("cursor", "Cursor"),
            ("windsurf", "Windsurf"),
            ("vscode", "VS Code"),
            ("claude-desktop", "Claude Desktop"),
            ("kiro", "Kiro"),
            ("junie", "Junie"),
            ("warp", "Warp"),
            ("lm-studio", "LM Studio"),
            ("roo", "Roo Code"),
            ("cline", "Cline"),
            ("amp", "Amp"),
            ("zed", "Zed"),
            ("crush", "Crush"),
            ("goose", "Goose"),
            ("continue", "Continue"),
            ("copilot-cli", "Copilot CLI"),
            ("qwen", "Qwen Code"),
        ]
    );
}

#[test]
fn no_files_means_no_source_files() {
    let sandbox = Sandbox::new("empty");
    let ctx = sandbox.ctx();
    for source in default_sources() {
        assert!(source.load(&ctx).is_empty(), "{}", source.id());
    }
}

// ------------------------------------------------------------------------------------------
// One test per provider, with the file its tool writes
// ------------------------------------------------------------------------------------------

#[test]
fn native_files_project_first_and_disabled_servers_from_the_user_file() {
    let sandbox = Sandbox::new("native");
    let project = sandbox.write(
        "project/.myagent/mcp.json",
        r#"{
  "mcpServers": {
    "github": {
      "type": "http",
      "url": "https://api.githubcopilot.com/mcp/",
      "headers": {"Authorization": "Bearer ${GITHUB_TOKEN}"},
      "timeout": 5000,
      "auth": {"type": "oauth", "scopes": ["repo"]}
    },
    "old": {"command": "old-server", "disabled": true}
  },
  "disabledServers": ["ignored-in-project-files"]
}"#,
    );
    let user = sandbox.write(
        "home/.config/myagent/mcp.json",
        r#"{
  "mcpServers": {
    "fs": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "${HOME}"],
      "env": {"LOG": "debug"},
      "cwd": "/tmp",
      "enabled": true,
      "alwaysAllow": ["read_file"]
    }
  },
  "disabledServers": ["github", "playwright"]
}"#,
    );
    let files = NATIVE.load(&sandbox.ctx());
    assert_eq!(
        listing(&files),
        [(project, Level::Project), (user, Level::User)]
    );
    assert_eq!(
        server(&files[0], "github"),
        json!({
            "type": "http",
            "url": "https://api.githubcopilot.com/mcp/",
            "headers": {"Authorization": "Bearer ${GITHUB_TOKEN}"},
            "timeout": 5000,
            "auth": {"type": "oauth", "scopes": ["repo"]}
        })
    );
    assert_eq!(
        server(&files[0], "old"),
        json!({"command": "old-server", "enabled": false})
    );
    assert!(
        files[0]
            .contents
            .as_ref()
            .unwrap()
            .disabled_servers
            .is_empty()
    );
    assert_eq!(
        server(&files[1], "fs"),
        json!({
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-filesystem", "${HOME}"],
            "env": {"LOG": "debug"},
            "cwd": "/tmp",
            "enabled": true,
            "alwaysAllow": ["read_file"]
        })
    );
    assert_eq!(
        files[1].contents.as_ref().unwrap().disabled_servers,
        ["github", "playwright"]
    );
}

#[test]
fn native_files_follow_the_app_name_and_config_dir() {
    let sandbox = Sandbox::new("native-app");
    let user = sandbox.write(
        "xdg/other-agent/mcp.json",
        r#"{"mcpServers": {"a": {"command": "a"}}}"#,
    );
    sandbox.write(
        "home/.config/myagent/mcp.json",
        r#"{"mcpServers": {"b": {"command": "b"}}}"#,
    );
    let ctx = DiscoveryContext::new("other-agent", sandbox.project(), sandbox.home())
        .with_config_dir(sandbox.root.join("xdg"));
    let files = NATIVE.load(&ctx);
    assert_eq!(listing(&files), [(user, Level::User)]);
    assert_eq!(names(&files[0]), ["a"]);
}

#[test]
fn native_disabled_servers_of_the_wrong_shape_are_the_files_error() {
    let sandbox = Sandbox::new("native-shape");
    let user = sandbox.write(
        "home/.config/myagent/mcp.json",
        r#"{"mcpServers": {}, "disabledServers": "github"}"#,
    );
    let files = NATIVE.load(&sandbox.ctx());
    let error = the_error(&files[0]);
    assert!(matches!(error, ConfigError::Shape { .. }), "{error}");
    assert!(error.to_string().contains(&user.display().to_string()));
    assert!(error.to_string().contains("disabledServers"));
}

#[test]
fn claude_code_reads_local_project_and_user_scopes() {
    let sandbox = Sandbox::new("claude-code");
    let cwd = sandbox.project();
    let mcp_json = sandbox.write(
        "project/.mcp.json",
        r#"{
  "mcpServers": {
    "api-server": {
      "type": "http",
      "url": "${API_BASE_URL:-https://api.example.com}/mcp",
      "headers": {"Authorization": "Bearer ${API_KEY}"}
    },
    "legacy-events": {
      "type": "sse",
      "url": "https://events.example.com/sse"
    },
    "rejected": {"type": "stdio", "command": "rejected-server", "args": [], "env": {}}
  }
}"#,
    );
    let claude_json = sandbox.write(
        "home/.claude.json",
        &serde_json::to_string_pretty(&json!({
            "numStartups": 42,
            "mcpServers": {
                "playwright": {
                    "type": "stdio",
                    "command": "npx",
                    "args": ["@playwright/mcp@latest"],
                    "env": {}
                },
                "sentry": {"type": "http", "url": "https://mcp.sentry.dev/mcp"}
            },
            "projects": {
                cwd.display().to_string(): {
                    "allowedTools": [],
                    "mcpServers": {
                        "airtable": {
                            "type": "stdio",
                            "command": "npx",
                            "args": ["-y", "airtable-mcp-server"],
                            "env": {"AIRTABLE_API_KEY": "${AIRTABLE_API_KEY}"}
                        }
                    },
                    "disabledMcpServers": ["sentry"],
                    "enabledMcpjsonServers": [],
                    "disabledMcpjsonServers": []
                },
                "/somewhere/else": {
                    "mcpServers": {"elsewhere": {"type": "stdio", "command": "x"}}
                }
            }
        }))
        .unwrap(),
    );
    sandbox.write(
        "project/.claude/settings.local.json",
        r#"{"permissions": {"allow": []}, "disabledMcpjsonServers": ["rejected"]}"#,
    );
    let files = CLAUDE_CODE.load(&sandbox.ctx());
    assert_eq!(
        listing(&files),
        [
            (claude_json.clone(), Level::Project),
            (mcp_json, Level::Project),
            (claude_json, Level::User),
        ]
    );
    assert_eq!(names(&files[0]), ["airtable"]);
    assert_eq!(
        server(&files[0], "airtable"),
        json!({
            "command": "npx",
            "args": ["-y", "airtable-mcp-server"],
            "env": {"AIRTABLE_API_KEY": "${AIRTABLE_API_KEY}"}
        })
    );
    assert_eq!(
        server(&files[1], "api-server"),
        json!({
            "type": "http",
            "url": "${API_BASE_URL:-https://api.example.com}/mcp",
            "headers": {"Authorization": "Bearer ${API_KEY}"}
        })
    );
    assert_eq!(
        server(&files[1], "legacy-events"),
        json!({"type": "sse", "url": "https://events.example.com/sse"})
    );
    assert_eq!(
        server(&files[1], "rejected"),
        json!({"command": "rejected-server", "enabled": false})
    );
    assert_eq!(names(&files[2]), ["playwright", "sentry"]);
    assert_eq!(
        server(&files[2], "playwright"),
        json!({"command": "npx", "args": ["@playwright/mcp@latest"]})
    );
    assert_eq!(
        server(&files[2], "sentry"),
        json!({"type": "http", "url": "https://mcp.sentry.dev/mcp", "enabled": false})
    );
}

#[test]
fn claude_code_follows_claude_config_dir_and_ignores_mcp_servers_in_settings() {
    let sandbox = Sandbox::new("claude-config-dir");
    let moved = sandbox.write(
        "claude-dir/.claude.json",
        r#"{"mcpServers": {"moved": {"command": "moved"}}}"#,
    );
    sandbox.write(
        "home/.claude.json",
        r#"{"mcpServers": {"unused": {"command": "unused"}}}"#,
    );
    // Claude Code does not read server definitions from .claude/settings.json.
    sandbox.write(
        "project/.claude/settings.json",
        r#"{"mcpServers": {"not-read": {"command": "x"}}}"#,
    );
    let ctx = sandbox.ctx().with_env([(
        "CLAUDE_CONFIG_DIR",
        sandbox.root.join("claude-dir").display().to_string(),
    )]);
    let files = CLAUDE_CODE.load(&ctx);
    assert_eq!(listing(&files), [(moved, Level::User)]);
    assert_eq!(names(&files[0]), ["moved"]);
}

#[test]
fn codex_toml_with_every_field() {
    let sandbox = Sandbox::new("codex");
    let project = sandbox.write(
        "project/.codex/config.toml",
        r#"
model = "gpt-5"

[mcp_servers.docs]
command = "npx"
args = ["-y", "@upstash/context7-mcp"]
env_vars = ["HTTPS_PROXY", "NO_PROXY"]
cwd = "/srv/docs"
startup_timeout_sec = 12.5
startup_timeout_ms = 999
tool_timeout_sec = 45
enabled = false
enabled_tools = ["resolve-library-id", "get-library-docs"]
disabled_tools = ["get-library-docs"]

[mcp_servers.docs.env]
CONTEXT7_API_KEY = "${CONTEXT7_API_KEY}"
LOG_LEVEL = "warn"

[mcp_servers.docs.tools.resolve-library-id]
approval_mode = "approve"

[mcp_servers.figma]
url = "https://mcp.figma.com/mcp"
bearer_token_env_var = "FIGMA_OAUTH_TOKEN"
http_headers = { "X-Figma-Region" = "us-east-1" }
env_http_headers = { "X-Tenant" = "FIGMA_TENANT" }
startup_timeout_ms = 20000
scopes = ["files:read"]
oauth_resource = "https://mcp.figma.com"

[mcp_servers.inline]
url = "https://example.com/mcp"
bearer_token = "sk-inline"

[mcp_servers.wrong]
command = ["not", "a", "string"]
"#,
    );
    let codex_home = sandbox.root.join("codex-home");
    let user = sandbox.write(
        "codex-home/config.toml",
        "[mcp_servers.user-server]\ncommand = \"user-mcp\"\nstartup_timeout_sec = 20\n",
    );
    // Without CODEX_HOME, ~/.codex would be read instead.
    sandbox.write(
        "home/.codex/config.toml",
        "[mcp_servers.unused]\ncommand = \"x\"\n",
    );
    let ctx = sandbox
        .ctx()
        .with_env([("CODEX_HOME", codex_home.display().to_string())]);
    let files = CODEX.load(&ctx);
    assert_eq!(
        listing(&files),
        [(project, Level::Project), (user, Level::User)]
    );
    assert_eq!(names(&files[0]), ["docs", "figma"]);
    assert_eq!(
        server(&files[0], "docs"),
        json!({
            "command": "npx",
            "args": ["-y", "@upstash/context7-mcp"],
            "env": {"CONTEXT7_API_KEY": "${CONTEXT7_API_KEY}", "LOG_LEVEL": "warn"},
            "cwd": "/srv/docs",
            "enabled": false,
            "timeout": 12500,
            "env_vars": ["HTTPS_PROXY", "NO_PROXY"],
            "toolTimeout": 45000,
            "enabledTools": ["resolve-library-id", "get-library-docs"],
            "disabledTools": ["get-library-docs"],
            "tools": {"resolve-library-id": {"approval_mode": "approve"}}
        })
    );
    // Codex's tool lists and tool timeout are obeyed: only resolve-library-id is offered.
    let docs = config_of(&files[0], "docs");
    let filter = docs.tool_filter();
    assert!(filter.allows("resolve-library-id"));
    assert!(!filter.allows("get-library-docs"), "disabled wins");
    assert!(!filter.allows("other-tool"), "not enabled");
    assert_eq!(
        docs.tool_timeout(),
        Some(std::time::Duration::from_secs(45))
    );
    assert_eq!(
        server(&files[0], "figma"),
        json!({
            "type": "http",
            "url": "https://mcp.figma.com/mcp",
            "headers": {
                "Authorization": "Bearer ${FIGMA_OAUTH_TOKEN}",
                "X-Figma-Region": "us-east-1",
                "X-Tenant": "${FIGMA_TENANT}"
            },
            "timeout": 20000,
            "scopes": ["files:read"],
            "oauth_resource": "https://mcp.figma.com"
        })
    );
    let problems = invalid(&files[0]);
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert_eq!(problems[0].0, "inline");
    assert!(
        problems[0].1.starts_with("Server \"inline\": ")
            && problems[0].1.contains("bearer_token_env_var"),
        "{}",
        problems[0].1
    );
    assert_eq!(
        problems[1],
        (
            "wrong".to_owned(),
            "Server \"wrong\": \"command\" must be a string".to_owned()
        )
    );
    assert_eq!(
        server(&files[1], "user-server"),
        json!({"command": "user-mcp", "timeout": 20000})
    );
}

#[test]
fn codex_home_defaults_to_dot_codex() {
    let sandbox = Sandbox::new("codex-default");
    let user = sandbox.write(
        "home/.codex/config.toml",
        "[mcp_servers.ctx7]\ncommand = \"npx\"\nargs = [\"-y\", \"@upstash/context7-mcp\"]\n",
    );
    let files = CODEX.load(&sandbox.ctx());
    assert_eq!(listing(&files), [(user, Level::User)]);
    assert_eq!(
        server(&files[0], "ctx7"),
        json!({"command": "npx", "args": ["-y", "@upstash/context7-mcp"]})
    );
}

#[test]
fn gemini_settings_with_every_transport() {
    let sandbox = Sandbox::new("gemini");
    let project = sandbox.write(
        "project/.gemini/settings.json",
        r#"{
  // Gemini CLI strips comments from settings.json.
  "theme": "GitHub",
  "mcpServers": {
    "pythonTools": {
      "command": "python",
      "args": ["-m", "my_mcp_server", "--port", "8080"],
      "cwd": "./mcp-servers/python",
      "env": {
        "DATABASE_URL": "$DB_CONNECTION_STRING",
        "API_KEY": "${EXTERNAL_API_KEY}"
      },
      "timeout": 15000,
      "trust": true,
      "includeTools": ["safe_tool", "file_reader"],
      "excludeTools": ["dangerous_tool"]
    },
    "httpServerWithAuth": {
      "httpUrl": "http://localhost:3000/mcp",
      "headers": {"Authorization": "Bearer $API_TOKEN"},
      "timeout": 5000
    },
    "sseServer": {"url": "https://api.example.com/sse", "type": "sse"},
    "autoServer": {"url": "https://api.example.com/mcp", "description": "no type"},
    "socket": {"tcp": "ws://localhost:9000"}
  },
  "mcp": {"excluded": ["sseServer"]}
}"#,
    );
    let user = sandbox.write(
        "home/.gemini/settings.json",
        r#"{"mcpServers": {"userTools": {"command": "user-tools"}}}"#,
    );
    let files = GEMINI.load(&sandbox.ctx());
    assert_eq!(
        listing(&files),
        [(project, Level::Project), (user, Level::User)]
    );
    assert_eq!(
        names(&files[0]),
        [
            "pythonTools",
            "httpServerWithAuth",
            "sseServer",
            "autoServer"
        ]
    );
    assert_eq!(
        server(&files[0], "pythonTools"),
        json!({
            "command": "python",
            "args": ["-m", "my_mcp_server", "--port", "8080"],
            "cwd": "./mcp-servers/python",
            "env": {
                "DATABASE_URL": "${DB_CONNECTION_STRING}",
                "API_KEY": "${EXTERNAL_API_KEY}"
            },
            "timeout": 15000,
            "toolTimeout": 15000,
            "trust": true,
            "enabledTools": ["safe_tool", "file_reader"],
            "disabledTools": ["dangerous_tool"]
        })
    );
    // Gemini's includeTools / excludeTools are obeyed.
    let python = config_of(&files[0], "pythonTools");
    let filter = python.tool_filter();
    assert!(filter.allows("safe_tool") && filter.allows("file_reader"));
    assert!(!filter.allows("dangerous_tool") && !filter.allows("other"));
    assert_eq!(
        server(&files[0], "httpServerWithAuth"),
        json!({
            "type": "http",
            "url": "http://localhost:3000/mcp",
            "headers": {"Authorization": "Bearer ${API_TOKEN}"},
            "timeout": 5000,
            "toolTimeout": 5000
        })
    );
    assert_eq!(
        server(&files[0], "sseServer"),
        json!({"type": "sse", "url": "https://api.example.com/sse", "enabled": false})
    );
    assert_eq!(
        server(&files[0], "autoServer"),
        json!({"type": "http", "url": "https://api.example.com/mcp", "description": "no type"})
    );
    assert_eq!(invalid(&files[0]).len(), 1);
    assert!(invalid(&files[0])[0].1.contains("WebSocket"));
    assert_eq!(
        files[0].contents.as_ref().unwrap().invalid[0].problem,
        ConfigProblem::Entry(EntryProblem::WebSocket)
    );
    assert_eq!(
        server(&files[1], "userTools"),
        json!({"command": "user-tools"})
    );
}

#[test]
fn gemini_allowed_list_switches_off_the_others() {
    let sandbox = Sandbox::new("gemini-allowed");
    sandbox.write(
        "home/.gemini/settings.json",
        r#"{"mcp": {"allowed": ["a"]}, "mcpServers": {"a": {"command": "a"}, "b": {"command": "b"}}}"#,
    );
    let files = GEMINI.load(&sandbox.ctx());
    assert_eq!(server(&files[0], "a"), json!({"command": "a"}));
    assert_eq!(
        server(&files[0], "b"),
        json!({"command": "b", "enabled": false})
    );
}

#[test]
fn opencode_local_and_remote_servers() {
    let sandbox = Sandbox::new("opencode");
    let project = sandbox.write(
        "project/opencode.jsonc",
        r#"{
  "$schema": "https://opencode.ai/config.json",
  // MCP servers, JSONC with trailing commas as OpenCode writes them.
  "mcp": {
    "my-local-mcp-server": {
      "type": "local",
      // Or ["bun", "x", "my-mcp-command"]
      "command": ["npx", "-y", "my-mcp-command", "--token={env:MY_TOKEN}"],
      "enabled": false,
      "environment": {
        "MY_ENV_VAR": "my_env_var_value",
        "API_KEY": "{env:MY_API_KEY}",
      },
      "timeout": 10000,
    },
    "sentry": {
      "type": "remote",
      "url": "https://mcp.sentry.dev/mcp",
      "headers": {"Authorization": "Bearer {env:SENTRY_TOKEN}"},
      "oauth": {"clientId": "{env:CLIENT_ID}", "scope": "tools:read"},
      "enabled": true,
    },
    "keyed": {
      "type": "remote",
      "url": "https://mcp.example.com/mcp",
      "oauth": false,
      "headers": {"X-Key": "{file:~/.secrets/key}"},
    },
    "bad": {"type": "process", "command": ["x"]},
    "empty": {"type": "local", "command": []},
  },
}"#,
    );
    let user = sandbox.write(
        "home/.config/opencode/opencode.json",
        r#"{"mcp": {"gh_grep": {"type": "remote", "url": "https://mcp.grep.app"}}}"#,
    );
    let files = OPENCODE.load(&sandbox.ctx());
    assert_eq!(
        listing(&files),
        [(project, Level::Project), (user, Level::User)]
    );
    assert_eq!(names(&files[0]), ["my-local-mcp-server", "sentry"]);
    assert_eq!(
        server(&files[0], "my-local-mcp-server"),
        json!({
            "command": "npx",
            "args": ["-y", "my-mcp-command", "--token=${MY_TOKEN}"],
            "env": {"MY_ENV_VAR": "my_env_var_value", "API_KEY": "${MY_API_KEY}"},
            "enabled": false,
            "timeout": 10000
        })
    );
    assert_eq!(
        server(&files[0], "sentry"),
        json!({
            "type": "http",
            "url": "https://mcp.sentry.dev/mcp",
            "headers": {"Authorization": "Bearer ${SENTRY_TOKEN}"},
            "enabled": true,
            "auth": {"type": "oauth", "clientId": "{env:CLIENT_ID}", "scope": "tools:read"}
        })
    );
    let problems = invalid(&files[0]);
    let problem = |name: &str| {
        problems
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, message)| message.as_str())
            .unwrap()
    };
    assert!(
        problem("keyed").starts_with("Server \"keyed\": headers.X-Key uses {file:~/.secrets/key}"),
        "{}",
        problem("keyed")
    );
    assert_eq!(
        problem("bad"),
        "Server \"bad\": \"type\" must be \"local\" or \"remote\""
    );
    assert!(problem("empty").contains("\"command\" must list the program"));
    assert_eq!(
        server(&files[1], "gh_grep"),
        json!({"type": "http", "url": "https://mcp.grep.app"})
    );
}

#[test]
fn opencode_servers_layout_and_file_order() {
    let sandbox = Sandbox::new("opencode-v2");
    let dot = sandbox.write(
        "project/.opencode/opencode.json",
        r#"{"mcp": {"servers": {"everything": {"type": "local", "command": ["npx", "-y", "@modelcontextprotocol/server-everything"], "cwd": "/work", "disabled": true}}}}"#,
    );
    let json_file = sandbox.write(
        "project/opencode.json",
        r#"{"mcp": {"servers": {"type": "local", "command": ["named-servers"]}}}"#,
    );
    let custom = sandbox.write("custom/opencode.json", r#"{"mcp": {}}"#);
    let legacy = sandbox.write("home/.config/opencode/config.json", r#"{"theme": "x"}"#);
    let ctx = sandbox
        .ctx()
        .with_env([("OPENCODE_CONFIG", custom.display().to_string())]);
    let files = OPENCODE.load(&ctx);
    assert_eq!(
        listing(&files),
        [
            (dot, Level::Project),
            (json_file, Level::Project),
            (custom, Level::User),
            (legacy, Level::User),
        ]
    );
    assert_eq!(
        server(&files[0], "everything"),
        json!({
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-everything"],
            "cwd": "/work",
            "enabled": false
        })
    );
    // An older-layout server that happens to be called "servers".
    assert_eq!(
        server(&files[1], "servers"),
        json!({"command": "named-servers"})
    );
    assert!(servers(&files[2]).is_empty() && servers(&files[3]).is_empty());
}

#[test]
fn cursor_project_and_global_files_with_interpolation() {
    let sandbox = Sandbox::new("cursor");
    let project = sandbox.write(
        "project/.cursor/mcp.json",
        r#"{
  "mcpServers": {
    "local-tools": {
      "type": "stdio",
      "command": "${workspaceFolder}/bin/tools",
      "args": ["--home", "${userHome}/data", "--name", "${workspaceFolderBasename}"],
      "env": {"API_KEY": "${env:TOOLS_API_KEY}"},
      "envFile": "${workspaceFolder}/.env"
    },
    "linear": {
      "url": "https://mcp.linear.app/sse",
      "type": "sse",
      "headers": {"Authorization": "Bearer ${env:LINEAR_TOKEN}"},
      "auth": {"CLIENT_ID": "abc", "scopes": ["read"]}
    }
  }
}"#,
    );
    let user = sandbox.write(
        "home/.cursor/mcp.json",
        r#"{"mcpServers": {"playwright": {"command": "npx", "args": ["@playwright/mcp@latest"], "disabled": true}}}"#,
    );
    let files = CURSOR.load(&sandbox.ctx());
    assert_eq!(
        listing(&files),
        [(project, Level::Project), (user, Level::User)]
    );
    let root = sandbox.project().display().to_string();
    let home = sandbox.home().display().to_string();
    assert_eq!(
        server(&files[0], "local-tools"),
        json!({
            "command": format!("{root}/bin/tools"),
            "args": ["--home", format!("{home}/data"), "--name", "project"],
            "env": {"API_KEY": "${TOOLS_API_KEY}"},
            "envFile": "${workspaceFolder}/.env"
        })
    );
    assert_eq!(
        server(&files[0], "linear"),
        json!({
            "type": "sse",
            "url": "https://mcp.linear.app/sse",
            "headers": {"Authorization": "Bearer ${LINEAR_TOKEN}"},
            "auth": {"type": "oauth", "CLIENT_ID": "abc", "scopes": ["read"]}
        })
    );
    assert_eq!(
        server(&files[1], "playwright"),
        json!({"command": "npx", "args": ["@playwright/mcp@latest"], "enabled": false})
    );
}

#[test]
fn windsurf_server_url_and_disabled_entries() {
    let sandbox = Sandbox::new("windsurf");
    let path = sandbox.write(
        "home/.codeium/windsurf/mcp_config.json",
        r#"{
  "mcpServers": {
    "userjot": {
      "serverUrl": "https://api.userjot.com/v1/mcp",
      "headers": {"Authorization": "Bearer ${env:USERJOT_API_TOKEN}"}
    },
    "cursor-style": {"url": "https://mcp.example.com/mcp"},
    "git": {
      "command": "py",
      "args": ["-m", "mcp_server_git"],
      "disabled": true,
      "disabledTools": ["git_push"],
      "env": {}
    },
    "ollama": {"command": "py", "args": ["-m", "mcp_ollama_python"], "disabled": false},
    "secret": {"serverUrl": "https://x.example.com/mcp", "headers": {"X-Key": "${file:/run/key}"}}
  }
}"#,
    );
    let files = WINDSURF.load(&sandbox.ctx());
    assert_eq!(listing(&files), [(path, Level::User)]);
    assert_eq!(
        server(&files[0], "userjot"),
        json!({
            "type": "http",
            "url": "https://api.userjot.com/v1/mcp",
            "headers": {"Authorization": "Bearer ${USERJOT_API_TOKEN}"}
        })
    );
    assert_eq!(
        server(&files[0], "cursor-style"),
        json!({"type": "http", "url": "https://mcp.example.com/mcp"})
    );
    assert_eq!(
        server(&files[0], "git"),
        json!({
            "command": "py",
            "args": ["-m", "mcp_server_git"],
            "enabled": false,
            "disabledTools": ["git_push"]
        })
    );
    assert_eq!(
        server(&files[0], "ollama"),
        json!({"command": "py", "args": ["-m", "mcp_ollama_python"]})
    );
    let problems = invalid(&files[0]);
    assert_eq!(problems.len(), 1);
    assert!(
        problems[0]
            .1
            .starts_with("Server \"secret\": headers.X-Key uses ${file:/run/key}: "),
        "{}",
        problems[0].1
    );
}

#[test]
fn vscode_commented_workspace_file_with_inputs() {
    let sandbox = Sandbox::new("vscode");
    let project = sandbox.write(
        "project/.vscode/mcp.json",
        r#"{
  // 💡 Inputs are prompted on first server start, then stored securely by VS Code.
  "inputs": [
    {
      "type": "promptString",
      "id": "perplexity-key",
      "description": "Perplexity API Key",
      "password": true,
    },
  ],
  "servers": {
    /* A local server started from the workspace. */
    "memory": {
      "type": "stdio",
      "command": "node",
      "args": ["${workspaceFolder}/server/index.js", "--store=${userHome}/.memory"],
      "env": {"LOG_LEVEL": "debug", "TOKEN": "${env:MEMORY_TOKEN}"},
      "envFile": "${workspaceFolder}/.env",
      "cwd": "${workspaceFolder}",
      "dev": {"watch": "server/**/*.js"},
    },
    "github": {
      "type": "http",
      "url": "https://api.githubcopilot.com/mcp/",
      "headers": {"Authorization": "Bearer ${env:GITHUB_TOKEN}"},
    },
    "events": {"type": "sse", "url": "http://localhost:3001/sse"},
    "perplexity": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "server-perplexity-ask"],
      "env": {"PERPLEXITY_API_KEY": "${input:perplexity-key}"},
    },
    "setting": {"type": "stdio", "command": "${config:python.defaultInterpreterPath}"},
  },
}"#,
    );
    let user_mcp = sandbox.write(
        "home/.config/Code/User/mcp.json",
        r#"{"mcp": {"servers": {"older-shape": {"type": "stdio", "command": "older"}}}}"#,
    );
    let user_settings = sandbox.write(
        "home/.config/Code/User/settings.json",
        r#"{
  "editor.fontSize": 14,
  // MCP servers used to live in settings.json.
  "mcp": {
    "inputs": [],
    "servers": {"fetch": {"command": "uvx", "args": ["mcp-server-fetch"]}},
  },
}"#,
    );
    let files = VSCODE.load(&sandbox.ctx());
    assert_eq!(
        listing(&files),
        [
            (project, Level::Project),
            (user_mcp, Level::User),
            (user_settings, Level::User),
        ]
    );
    let root = sandbox.project().display().to_string();
    let home = sandbox.home().display().to_string();
    assert_eq!(names(&files[0]), ["memory", "github", "events"]);
    assert_eq!(
        server(&files[0], "memory"),
        json!({
            "command": "node",
            "args": [format!("{root}/server/index.js"), format!("--store={home}/.memory")],
            "env": {"LOG_LEVEL": "debug", "TOKEN": "${MEMORY_TOKEN}"},
            "cwd": root,
            "envFile": "${workspaceFolder}/.env",
            "dev": {"watch": "server/**/*.js"}
        })
    );
    assert_eq!(
        server(&files[0], "github"),
        json!({
            "type": "http",
            "url": "https://api.githubcopilot.com/mcp/",
            "headers": {"Authorization": "Bearer ${GITHUB_TOKEN}"}
        })
    );
    assert_eq!(
        server(&files[0], "events"),
        json!({"type": "sse", "url": "http://localhost:3001/sse"})
    );
    let problems = invalid(&files[0]);
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert_eq!(problems[0].0, "perplexity");
    assert_eq!(
        problems[0].1,
        "Server \"perplexity\": env.PERPLEXITY_API_KEY uses ${input:perplexity-key}: the value \
         comes from a VS Code input prompt (\"Perplexity API Key\"), which this runtime cannot \
         show; set the value in the config, or put it in an environment variable and write \
         ${VAR}, instead"
    );
    assert_eq!(problems[1].0, "setting");
    assert!(problems[1].1.contains("only VS Code can resolve"));
    assert_eq!(
        server(&files[1], "older-shape"),
        json!({"command": "older"})
    );
    assert_eq!(
        server(&files[2], "fetch"),
        json!({"command": "uvx", "args": ["mcp-server-fetch"]})
    );
}

#[test]
fn vscode_settings_without_mcp_hold_no_servers() {
    let sandbox = Sandbox::new("vscode-settings");
    sandbox.write(
        "home/.config/Code/User/settings.json",
        "{\n  // just editor settings\n  \"editor.tabSize\": 2,\n}\n",
    );
    let files = VSCODE.load(&sandbox.ctx());
    assert_eq!(files.len(), 1);
    assert!(servers(&files[0]).is_empty());
}

#[test]
fn claude_desktop_linux_macos_and_windows_locations() {
    let sandbox = Sandbox::new("claude-desktop");
    let linux = sandbox.write(
        "home/.config/Claude/claude_desktop_config.json",
        r#"{
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop"],
      "env": {"DEBUG": "1"}
    }
  },
  "globalShortcut": ""
}"#,
    );
    let mac = sandbox.write(
        "home/Library/Application Support/Claude/claude_desktop_config.json",
        r#"{"mcpServers": {"weather": {"command": "uv", "args": ["run", "weather.py"]}}}"#,
    );
    let windows = sandbox.write(
        "appdata/Claude/claude_desktop_config.json",
        r#"{"mcpServers": {}}"#,
    );
    let ctx = sandbox.ctx().with_env([(
        "APPDATA",
        sandbox.root.join("appdata").display().to_string(),
    )]);
    let files = CLAUDE_DESKTOP.load(&ctx);
    assert_eq!(
        listing(&files),
        [
            (linux, Level::User),
            (mac, Level::User),
            (windows, Level::User)
        ]
    );
    assert_eq!(
        server(&files[0], "filesystem"),
        json!({
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop"],
            "env": {"DEBUG": "1"}
        })
    );
    assert_eq!(
        server(&files[1], "weather"),
        json!({"command": "uv", "args": ["run", "weather.py"]})
    );
}

// ------------------------------------------------------------------------------------------
// Broken, misplaced and unreadable files
// ------------------------------------------------------------------------------------------

/// One file per provider (relative to the sandbox root), its format and the provider reading it.
fn one_file_per_provider() -> Vec<(&'static str, &'static str, Box<dyn ConfigSource>)> {
    const JSON: &str = "JSON";
    const JSONC: &str = "JSON with comments";
    vec![
        ("project/.myagent/mcp.json", JSON, Box::new(NATIVE)),
        ("project/.mcp.json", JSON, Box::new(CLAUDE_CODE)),
        ("home/.claude.json", JSON, Box::new(CLAUDE_CODE)),
        ("project/.codex/config.toml", "TOML", Box::new(CODEX)),
        ("project/.gemini/settings.json", JSONC, Box::new(GEMINI)),
        ("project/opencode.jsonc", JSONC, Box::new(OPENCODE)),
        ("project/.cursor/mcp.json", JSONC, Box::new(CURSOR)),
        (
            "home/.codeium/windsurf/mcp_config.json",
            JSONC,
            Box::new(WINDSURF),
        ),
        ("project/.vscode/mcp.json", JSONC, Box::new(VSCODE)),
        (
            "home/.config/Claude/claude_desktop_config.json",
            JSON,
            Box::new(CLAUDE_DESKTOP),
        ),
    ]
}

#[test]
fn a_broken_file_of_each_format_is_an_error_naming_it() {
    for (relative, expected_format, source) in one_file_per_provider() {
        let sandbox = Sandbox::new("broken");
        let text = if expected_format == "TOML" {
            "[mcp_servers.x]\ncommand = \"unterminated\n"
        } else {
            "{\n  \"mcpServers\": {\n    \"x\": {\"command\": \"a\",, }\n"
        };
        let path = sandbox.write(relative, text);
        let files = source.load(&sandbox.ctx());
        let error = the_error(file_for(&files, &path));
        match error {
            ConfigError::Parse {
                format, path: at, ..
            } => {
                assert_eq!(*format, expected_format, "{relative}");
                assert_eq!(at, &path);
            }
            other => panic!("{relative}: {other}"),
        }
        let shown = error.to_string();
        assert!(shown.contains(&path.display().to_string()), "{shown}");
        assert!(shown.contains("line "), "{shown}");
    }
}

#[test]
fn a_file_with_the_wrong_shape_is_an_error_naming_it() {
    let sandbox = Sandbox::new("shape");
    let path = sandbox.write("project/.cursor/mcp.json", r#"{"mcpServers": ["a", "b"]}"#);
    let toml = sandbox.write("project/.codex/config.toml", "mcp_servers = [1, 2]\n");
    let files = CURSOR.load(&sandbox.ctx());
    let error = the_error(file_for(&files, &path));
    assert!(matches!(error, ConfigError::Shape { .. }), "{error}");
    assert!(
        error
            .to_string()
            .contains("\"mcpServers\" must be an object")
    );
    let files = CODEX.load(&sandbox.ctx());
    let error = the_error(file_for(&files, &toml));
    assert!(error.to_string().contains("mcp_servers"), "{error}");
}

#[test]
fn a_broken_file_does_not_cost_the_other_files() {
    let sandbox = Sandbox::new("broken-one");
    let broken = sandbox.write("project/.cursor/mcp.json", "{ not json");
    let good = sandbox.write(
        "home/.cursor/mcp.json",
        r#"{"mcpServers": {"ok": {"command": "ok"}}}"#,
    );
    let files = CURSOR.load(&sandbox.ctx());
    assert_eq!(
        listing(&files),
        [(broken, Level::Project), (good, Level::User)]
    );
    assert!(files[0].contents.is_err());
    assert_eq!(names(&files[1]), ["ok"]);
}

#[test]
fn a_bad_entry_does_not_cost_the_other_entries() {
    let sandbox = Sandbox::new("bad-entry");
    sandbox.write(
        "project/.mcp.json",
        r#"{"mcpServers": {"bad": {"command": "x", "args": "not-a-list"}, "list": [1], "good": {"command": "y"}}}"#,
    );
    let files = CLAUDE_CODE.load(&sandbox.ctx());
    assert_eq!(names(&files[0]), ["good"]);
    let problems = invalid(&files[0]);
    assert_eq!(problems.len(), 2);
    assert_eq!(problems[0].0, "bad");
    assert!(
        problems[0]
            .1
            .starts_with("Server \"bad\": invalid settings")
    );
    assert_eq!(
        problems[1],
        (
            "list".to_owned(),
            "Server \"list\": the entry must be an object".to_owned()
        )
    );
}

#[test]
fn a_directory_where_the_file_should_be_is_an_error() {
    for (relative, _, source) in one_file_per_provider() {
        let sandbox = Sandbox::new("dir");
        let path = sandbox.root.join(relative);
        std::fs::create_dir_all(&path).unwrap();
        let files = source.load(&sandbox.ctx());
        let error = the_error(file_for(&files, &path));
        assert!(
            matches!(error, ConfigError::NotAFile { .. }),
            "{relative}: {error}"
        );
        assert!(error.to_string().contains(&path.display().to_string()));
    }
}

#[cfg(unix)]
#[test]
fn an_unreadable_file_is_an_error() {
    // A symlink loop cannot be read even by root.
    for (relative, _, source) in one_file_per_provider() {
        let sandbox = Sandbox::new("loop");
        let path = sandbox.root.join(relative);
        let other = path.with_extension("loop");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(&other, &path).unwrap();
        std::os::unix::fs::symlink(&path, &other).unwrap();
        let files = source.load(&sandbox.ctx());
        let error = the_error(file_for(&files, &path));
        assert!(
            matches!(error, ConfigError::Read { .. }),
            "{relative}: {error}"
        );
        assert!(error.to_string().contains(&path.display().to_string()));
    }
}

#[cfg(unix)]
#[test]
fn a_file_without_read_permission_is_an_error_unless_running_as_root() {
    use std::os::unix::fs::PermissionsExt;

    let sandbox = Sandbox::new("chmod");
    let path = sandbox.write(
        "project/.mcp.json",
        r#"{"mcpServers": {"x": {"command": "x"}}}"#,
    );
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o000)).unwrap();
    // Root (and CAP_DAC_OVERRIDE) reads it anyway: assert what actually applies here.
    let readable = std::fs::read(&path).is_ok();
    let files = CLAUDE_CODE.load(&sandbox.ctx());
    let file = file_for(&files, &path);
    if readable {
        assert_eq!(names(file), ["x"]);
    } else {
        let error = the_error(file);
        assert!(matches!(error, ConfigError::Read { .. }), "{error}");
        assert!(error.to_string().contains(&path.display().to_string()));
    }
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
}

#[test]
fn a_non_utf8_file_is_an_error() {
    let sandbox = Sandbox::new("utf8");
    let path = sandbox.root.join("project/.vscode/mcp.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, b"{\"servers\": {\"\xff\": {}}}").unwrap();
    let files = VSCODE.load(&sandbox.ctx());
    let error = the_error(file_for(&files, &path));
    assert!(matches!(error, ConfigError::Read { .. }), "{error}");
}

#[test]
fn the_project_file_is_read_once_when_the_project_is_home() {
    let sandbox = Sandbox::new("home-project");
    let path = sandbox.write(
        "home/.gemini/settings.json",
        r#"{"mcpServers": {"a": {"command": "a"}}}"#,
    );
    let ctx = DiscoveryContext::new("myagent", sandbox.home(), sandbox.home());
    let files = GEMINI.load(&ctx);
    assert_eq!(listing(&files), [(path, Level::User)]);
}

#[test]
fn discovery_over_the_default_sources_keeps_priority_and_names_broken_files() {
    use mcp_config::{DiscoveryOptions, load_all_configs};

    let sandbox = Sandbox::new("discovery");
    sandbox.write(
        "project/.mcp.json",
        r#"{"mcpServers": {"github": {"type": "http", "url": "https://claude.example.com/mcp"}}}"#,
    );
    let codex = sandbox.write(
        "home/.codex/config.toml",
        "[mcp_servers.github]\nurl = \"https://codex.example.com/mcp\"\n\n[mcp_servers.docs]\ncommand = \"docs-mcp\"\n",
    );
    let vscode = sandbox.write(
        "project/.vscode/mcp.json",
        "{\n  // shadowed by Claude Code and Codex\n  \"servers\": {\"github\": {\"type\": \"http\", \"url\": \"https://vscode.example.com/mcp\"},},\n}",
    );
    let broken = sandbox.write("home/.cursor/mcp.json", "{ broken");
    let found = load_all_configs(
        &sandbox.ctx(),
        &DiscoveryOptions::default().trust(mcp_config::TrustPolicy::TrustAll),
    );
    assert_eq!(
        found.servers["github"].config,
        mcp_config::ServerConfig::http("https://claude.example.com/mcp")
    );
    let source = &found.servers["github"].source;
    assert_eq!(source.meta.provider, "claude-code");
    let shadowed: Vec<(&str, &Path)> = source
        .shadowed
        .iter()
        .map(|meta| (meta.provider.as_str(), meta.path.as_path()))
        .collect();
    assert_eq!(
        shadowed,
        [("codex", codex.as_path()), ("vscode", vscode.as_path())]
    );
    assert_eq!(found.servers["docs"].source.meta.provider_name, "Codex");
    assert_eq!(found.file_errors.len(), 1, "{:?}", found.file_errors);
    assert_eq!(found.file_errors[0].path, broken);
    assert!(found.skipped.is_empty(), "{:?}", found.skipped);
}

// ------------------------------------------------------------------------------------------
// Kiro, Junie, Warp, LM Studio: the common `mcpServers` shape
// ------------------------------------------------------------------------------------------

/// A Kiro file as kiro.dev/docs/mcp/configuration shows one: a local server with env, auto
/// approval and hidden tools, a remote one with headers and an OAuth client, a disabled one.
const KIRO_FILE: &str = r#"{
  "mcpServers": {
    "web-search": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-bravesearch"],
      "env": {"BRAVE_API_KEY": "${BRAVE_API_KEY}"},
      "disabled": false,
      "autoApprove": ["brave_web_search"],
      "disabledTools": ["brave_local_search"]
    },
    "api-server": {
      "url": "https://api.example.com/mcp",
      "headers": {"Authorization": "Bearer ${API_TOKEN}"},
      "oauth": {"clientId": "kiro-client"},
      "oauthScopes": ["read"]
    },
    "off": {"command": "uvx", "args": ["mcp-server-fetch"], "disabled": true}
  }
}"#;

#[test]
fn kiro_reads_the_workspace_file_over_the_users_with_its_fields_mapped() {
    let sandbox = Sandbox::new("kiro");
    let project = sandbox.write("project/.kiro/settings/mcp.json", KIRO_FILE);
    let user = sandbox.write(
        "home/.kiro/settings/mcp.json",
        r#"{"mcpServers": {"web-search": {"command": "user-copy"}}}"#,
    );
    let files = KIRO.load(&sandbox.ctx());
    assert_eq!(
        listing(&files),
        [(project, Level::Project), (user, Level::User)]
    );
    assert_eq!(
        server(&files[0], "web-search"),
        json!({
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-bravesearch"],
            "env": {"BRAVE_API_KEY": "${BRAVE_API_KEY}"},
            "autoApprove": ["brave_web_search"],
            "disabledTools": ["brave_local_search"]
        })
    );
    let filter = config_of(&files[0], "web-search").tool_filter();
    assert!(!filter.allows("brave_local_search"));
    assert!(filter.allows("brave_web_search"));
    assert_eq!(
        server(&files[0], "api-server"),
        json!({
            "type": "http",
            "url": "https://api.example.com/mcp",
            "headers": {"Authorization": "Bearer ${API_TOKEN}"},
            "auth": {"type": "oauth", "clientId": "kiro-client"},
            "oauthScopes": ["read"]
        })
    );
    assert_eq!(config_of(&files[0], "off").enabled, Some(false));
    assert_eq!(names(&files[1]), ["web-search"]);
}

#[test]
fn kiro_reads_the_workspace_file_of_the_working_folder_only() {
    let sandbox = Sandbox::new("kiro-above");
    sandbox.write("project/.git/HEAD", "ref: refs/heads/main\n");
    sandbox.write("project/.kiro/settings/mcp.json", KIRO_FILE);
    let ctx = DiscoveryContext::new("myagent", sandbox.project().join("src"), sandbox.home());
    std::fs::create_dir_all(ctx.cwd()).unwrap();
    assert!(KIRO.load(&ctx).is_empty());
    let unread = KIRO.unread_project_files(&ctx);
    assert_eq!(unread.len(), 1, "{unread:?}");
    assert_eq!(
        unread[0].path,
        sandbox
            .project()
            .join(".kiro")
            .join("settings")
            .join("mcp.json")
    );
}

#[test]
fn junie_and_warp_read_the_project_root_and_the_users_home() {
    let sandbox = Sandbox::new("junie-warp");
    sandbox.write("project/.git/HEAD", "ref: refs/heads/main\n");
    let ctx = DiscoveryContext::new("myagent", sandbox.project().join("src"), sandbox.home());
    std::fs::create_dir_all(ctx.cwd()).unwrap();
    for (provider, project_file, user_file) in [
        (
            JUNIE,
            "project/.junie/mcp/mcp.json",
            "home/.junie/mcp/mcp.json",
        ),
        (WARP, "project/.warp/.mcp.json", "home/.warp/.mcp.json"),
    ] {
        let project = sandbox.write(
            project_file,
            r#"{"mcpServers": {
                "fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "${HOME}"]},
                "remote": {"url": "https://mcp.example.com/sse", "headers": {"X-Key": "${env:KEY}"}},
                "legacy": {"type": "sse", "url": "https://old.example.com/sse"},
                "off": {"command": "x", "disabled": true}
            }}"#,
        );
        let user = sandbox.write(
            user_file,
            r#"{"mcpServers": {"mine": {"command": "mine"}}}"#,
        );
        let files = provider.load(&ctx);
        assert_eq!(
            listing(&files),
            [(project, Level::Project), (user, Level::User)],
            "{}",
            provider.id()
        );
        assert_eq!(
            server(&files[0], "fs"),
            json!({"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "${HOME}"]})
        );
        assert_eq!(
            server(&files[0], "remote"),
            json!({"type": "http", "url": "https://mcp.example.com/sse", "headers": {"X-Key": "${KEY}"}})
        );
        assert_eq!(
            server(&files[0], "legacy"),
            json!({"type": "sse", "url": "https://old.example.com/sse"})
        );
        assert_eq!(config_of(&files[0], "off").enabled, Some(false));
        assert_eq!(names(&files[1]), ["mine"]);
    }
}

#[test]
fn lm_studio_reads_the_users_file_in_cursors_notation() {
    let sandbox = Sandbox::new("lm-studio");
    // The file as LM Studio's documentation shows it, plus a stdio server and a file secret.
    let path = sandbox.write(
        "home/.lmstudio/mcp.json",
        r#"{
  "mcpServers": {
    "hf-mcp-server": {
      "url": "https://huggingface.co/mcp",
      "headers": {"Authorization": "Bearer ${env:HF_TOKEN}"}
    },
    "fetch": {"command": "uvx", "args": ["mcp-server-fetch"], "env": {"HOME_DIR": "${userHome}"}},
    "secret": {"url": "https://x.example.com/mcp", "headers": {"X-Key": "${file:/run/key}"}}
  }
}"#,
    );
    // A project folder never holds LM Studio's servers.
    sandbox.write(
        "project/.lmstudio/mcp.json",
        r#"{"mcpServers": {"p": {"command": "p"}}}"#,
    );
    let files = LM_STUDIO.load(&sandbox.ctx());
    assert_eq!(listing(&files), [(path, Level::User)]);
    assert_eq!(
        server(&files[0], "hf-mcp-server"),
        json!({
            "type": "http",
            "url": "https://huggingface.co/mcp",
            "headers": {"Authorization": "Bearer ${HF_TOKEN}"}
        })
    );
    let home = sandbox.home().display().to_string();
    assert_eq!(
        server(&files[0], "fetch"),
        json!({"command": "uvx", "args": ["mcp-server-fetch"], "env": {"HOME_DIR": home}})
    );
    let problems = invalid(&files[0]);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].0, "secret");
    assert!(
        problems[0]
            .1
            .contains("LM Studio reads that value from a file"),
        "{problems:?}"
    );
}

// ------------------------------------------------------------------------------------------
// Roo Code, Cline, Amp
// ------------------------------------------------------------------------------------------

#[test]
fn roo_code_reads_the_workspace_and_global_files_with_its_transports_and_variables() {
    let sandbox = Sandbox::new("roo");
    // The documentation's example (without its comments: Roo Code parses strict JSON).
    let project = sandbox.write(
        "project/.roo/mcp.json",
        r#"{"mcpServers": {
            "local-server": {
                "command": "node", "args": ["server.js"], "cwd": "${workspaceFolder}",
                "env": {"API_KEY": "${env:API_KEY}"}, "alwaysAllow": ["tool1"],
                "disabledTools": ["dangerous"], "watchPaths": ["dist/**"], "timeout": 60,
                "disabled": false
            },
            "remote": {
                "type": "streamable-http", "url": "https://example.com/mcp",
                "headers": {"X-API-Key": "${env:KEY}"}, "alwaysAllow": [], "disabled": true
            },
            "bare": {"url": "https://old.example.com/sse"}
        }}"#,
    );
    let global = sandbox.write(
        "home/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json",
        r#"{"mcpServers": {"local-server": {"command": "global-copy"}}}"#,
    );
    let files = ROO_CODE.load(&sandbox.ctx());
    assert_eq!(
        listing(&files),
        [(project, Level::Project), (global, Level::User)]
    );
    let cwd = sandbox.project().display().to_string();
    assert_eq!(
        server(&files[0], "local-server"),
        json!({
            "command": "node", "args": ["server.js"], "cwd": cwd,
            "env": {"API_KEY": "${API_KEY}"},
            "timeout": 60000, "toolTimeout": 60000,
            "alwaysAllow": ["tool1"], "disabledTools": ["dangerous"], "watchPaths": ["dist/**"]
        })
    );
    assert!(
        !config_of(&files[0], "local-server")
            .tool_filter()
            .allows("dangerous")
    );
    assert_eq!(
        server(&files[0], "remote"),
        json!({
            "type": "http", "url": "https://example.com/mcp",
            "headers": {"X-API-Key": "${KEY}"}, "enabled": false, "alwaysAllow": []
        })
    );
    assert_eq!(
        server(&files[0], "bare"),
        json!({"type": "sse", "url": "https://old.example.com/sse"})
    );
    assert_eq!(names(&files[1]), ["local-server"]);

    // Strict JSON: a comment is the file's error, as in Roo Code.
    sandbox.write("project/.roo/mcp.json", "{\"mcpServers\": {} // no\n}");
    let files = ROO_CODE.load(&sandbox.ctx());
    assert!(matches!(the_error(&files[0]), ConfigError::Parse { .. }));
}

#[test]
fn cline_reads_its_new_file_in_both_forms_and_drops_the_tokens_it_keeps() {
    let sandbox = Sandbox::new("cline");
    let path = sandbox.write(
        "home/.cline/data/settings/cline_mcp_settings.json",
        r#"{"mcpServers": {
            "local-server": {
                "command": "node", "args": ["/path/to/server.js"],
                "env": {"API_KEY": "${env:API_KEY}"}, "disabled": false,
                "autoApprove": [], "timeout": 60
            },
            "remote-server": {
                "type": "streamableHttp", "url": "https://example.com/mcp",
                "headers": {"Authorization": "Bearer ${env:TOKEN}"}, "disabled": true
            },
            "old-sse": {"url": "https://old.example.com/sse"},
            "flat-http": {"transportType": "http", "url": "https://flat.example.com/mcp"},
            "nested": {
                "transport": {"type": "streamableHttp", "url": "https://nested.example.com/mcp"},
                "timeout": 2.5,
                "oauthClient": {"clientId": "cline-app"},
                "oauth": {"tokens": {"access_token": "cline-kept-secret"}},
                "metadata": {"lastRefresh": 1}
            },
            "nested-stdio": {"transport": {"type": "stdio", "command": "uvx", "args": ["x"]}}
        }}"#,
    );
    // A legacy file is not read while the new one exists.
    sandbox.write(
        "home/Documents/Cline/MCP/cline_mcp_settings.json",
        r#"{"mcpServers": {"legacy": {"command": "old"}}}"#,
    );
    let files = CLINE.load(&sandbox.ctx());
    assert_eq!(listing(&files), [(path.clone(), Level::User)]);
    assert_eq!(
        server(&files[0], "local-server"),
        json!({
            "command": "node", "args": ["/path/to/server.js"],
            "env": {"API_KEY": "${API_KEY}"},
            "timeout": 60000, "toolTimeout": 60000, "autoApprove": []
        })
    );
    assert_eq!(
        server(&files[0], "remote-server"),
        json!({
            "type": "http", "url": "https://example.com/mcp",
            "headers": {"Authorization": "Bearer ${TOKEN}"}, "enabled": false
        })
    );
    assert_eq!(
        server(&files[0], "old-sse"),
        json!({"type": "sse", "url": "https://old.example.com/sse"})
    );
    assert_eq!(
        server(&files[0], "flat-http"),
        json!({"type": "http", "url": "https://flat.example.com/mcp"})
    );
    let nested = server(&files[0], "nested");
    assert_eq!(
        nested,
        json!({
            "type": "http", "url": "https://nested.example.com/mcp",
            "timeout": 2500, "toolTimeout": 2500,
            "auth": {"type": "oauth", "clientId": "cline-app"}
        })
    );
    assert!(!nested.to_string().contains("cline-kept-secret"));
    assert_eq!(
        server(&files[0], "nested-stdio"),
        json!({"command": "uvx", "args": ["x"]})
    );

    // Without the new file, the legacy ones are read; CLINE_DIR moves the new one.
    std::fs::remove_file(&path).unwrap();
    let files = CLINE.load(&sandbox.ctx());
    assert_eq!(names(&files[0]), ["legacy"]);
    let moved = sandbox.write(
        "elsewhere/data/settings/cline_mcp_settings.json",
        r#"{"mcpServers": {"moved": {"command": "m"}}}"#,
    );
    let ctx = sandbox.ctx().with_env([(
        "CLINE_DIR",
        sandbox.root.join("elsewhere").display().to_string(),
    )]);
    let files = CLINE.load(&ctx);
    assert_eq!(listing(&files), [(moved, Level::User)]);
}

#[test]
fn amp_reads_its_dotted_key_up_to_the_repository_root_nearest_first() {
    let sandbox = Sandbox::new("amp");
    sandbox.write("project/.git/HEAD", "ref: refs/heads/main\n");
    let root = sandbox.write(
        "project/.amp/settings.json",
        r#"{
  // Amp writes JSON with comments too.
  "amp.mcpServers": {
    "playwright": {"command": "npx", "args": ["-y", "@playwright/mcp@latest"]},
    "remote": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}},
    "picky": {"command": "p", "includeTools": ["only_this"], "disabled": true}
  },
  "amp.mcpPermissions": [{"matches": {"command": "npx *"}, "action": "allow"}]
}"#,
    );
    let near = sandbox.write(
        "project/src/.amp/settings.jsonc",
        r#"{"amp.mcpServers": {"playwright": {"command": "nearer"}}}"#,
    );
    let user = sandbox.write(
        "home/.config/amp/settings.json",
        r#"{"amp.mcpServers": {"mine": {"command": "mine"}}, "amp.other": 1}"#,
    );
    // The nested form some tools write is not Amp's.
    sandbox.write(
        "home/.config/amp/settings.jsonc",
        r#"{"amp": {"mcpServers": {"not-read": {"command": "x"}}}}"#,
    );
    let ctx = DiscoveryContext::new("myagent", sandbox.project().join("src"), sandbox.home());
    let files = AMP.load(&ctx);
    let user_jsonc = sandbox.home().join(".config/amp/settings.jsonc");
    assert_eq!(
        listing(&files),
        [
            (near, Level::Project),
            (root, Level::Project),
            (user, Level::User),
            (user_jsonc, Level::User)
        ]
    );
    assert_eq!(names(&files[0]), ["playwright"]);
    assert_eq!(
        server(&files[1], "remote"),
        json!({"type": "http", "url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}})
    );
    let picky = config_of(&files[1], "picky");
    assert_eq!(picky.enabled, Some(false));
    assert!(picky.tool_filter().allows("only_this"));
    assert!(!picky.tool_filter().allows("anything_else"));
    assert_eq!(names(&files[2]), ["mine"]);
    assert!(names(&files[3]).is_empty());
}

// ------------------------------------------------------------------------------------------
// Zed
// ------------------------------------------------------------------------------------------

#[test]
fn zed_reads_context_servers_of_every_form_with_timeouts_in_seconds() {
    let sandbox = Sandbox::new("zed");
    // As Zed's documentation and settings types write them, with comments.
    let user = sandbox.write(
        "home/.config/zed/settings.json",
        r#"{
  // Zed's settings hold much else.
  "theme": "One Dark",
  "context_server_timeout": 90,
  "context_servers": {
    "local-mcp-server": {"command": "some-command", "args": ["arg-1", "arg-2"], "env": {}},
    "remote-mcp-server": {
      "url": "https://example.com/mcp",
      "headers": {"Authorization": "Bearer ${ZED_TOKEN}"},
      "timeout": 5
    },
    "remote-with-oauth": {"url": "https://mcp.example.com/mcp", "oauth": {"client_id": "abc"}},
    "postgres-ext": {"settings": {"database_url": "postgres://localhost/db"}},
    "older": {"source": "custom", "command": {"path": "uvx", "args": ["mcp-server-git"], "env": {"A": "1"}}},
    "off": {"command": "x", "enabled": false, "timeout": 9000},
  }
}"#,
    );
    let files = ZED.load(&sandbox.ctx());
    assert_eq!(listing(&files), [(user, Level::User)]);
    assert_eq!(
        server(&files[0], "local-mcp-server"),
        json!({
            "command": "some-command", "args": ["arg-1", "arg-2"],
            "timeout": 90000, "toolTimeout": 90000
        })
    );
    assert_eq!(
        server(&files[0], "remote-mcp-server"),
        json!({
            "type": "http", "url": "https://example.com/mcp",
            "headers": {"Authorization": "Bearer ${ZED_TOKEN}"},
            "timeout": 5000, "toolTimeout": 5000
        })
    );
    assert_eq!(
        server(&files[0], "remote-with-oauth")["auth"],
        json!({"type": "oauth", "clientId": "abc"})
    );
    assert_eq!(
        server(&files[0], "older"),
        json!({
            "command": "uvx", "args": ["mcp-server-git"], "env": {"A": "1"},
            "timeout": 90000, "toolTimeout": 90000
        })
    );
    let off = config_of(&files[0], "off");
    assert_eq!(off.enabled, Some(false));
    assert_eq!(
        server(&files[0], "off")["timeout"],
        600_000,
        "capped at Zed's 600 s"
    );
    let problems = invalid(&files[0]);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].0, "postgres-ext");
    assert!(
        problems[0]
            .1
            .contains("a Zed extension provides this server"),
        "{problems:?}"
    );
}

#[test]
fn zed_reads_the_worktree_roots_file_only_and_flatpaks_folder() {
    let sandbox = Sandbox::new("zed-project");
    sandbox.write("project/.git/HEAD", "ref: refs/heads/main\n");
    let project = sandbox.write(
        "project/.zed/settings.json",
        r#"{"context_servers": {"p": {"command": "p"}}}"#,
    );
    sandbox.write(
        "project/src/.zed/settings.json",
        r#"{"context_servers": {"nested": {"command": "n"}}}"#,
    );
    let files = ZED.load(&sandbox.ctx());
    assert_eq!(listing(&files), [(project.clone(), Level::Project)]);
    assert_eq!(names(&files[0]), ["p"]);
    // From a subfolder the root's file is a note, and the nested one is not Zed's.
    let ctx = DiscoveryContext::new("myagent", sandbox.project().join("src"), sandbox.home());
    let files = ZED.load(&ctx);
    assert_eq!(
        listing(&files),
        [(
            sandbox.project().join("src/.zed/settings.json"),
            Level::Project
        )]
    );
    let unread = ZED.unread_project_files(&ctx);
    assert_eq!(unread.len(), 1, "{unread:?}");
    assert_eq!(unread[0].path, project);

    let flatpak = sandbox.write(
        "flatpak-config/zed/settings.json",
        r#"{"context_servers": {"f": {"command": "f"}}}"#,
    );
    let ctx = sandbox.ctx().with_env([(
        "FLATPAK_XDG_CONFIG_HOME",
        sandbox.root.join("flatpak-config").display().to_string(),
    )]);
    let files = ZED.load(&ctx);
    assert_eq!(listing(&files).last(), Some(&(flatpak, Level::User)));
}

#[test]
fn vscode_reads_every_named_profiles_mcp_file_after_the_default_profiles() {
    let sandbox = Sandbox::new("vscode-profiles");
    let default = sandbox.write(
        "home/.config/Code/User/mcp.json",
        r#"{"servers": {"shared": {"command": "default-profile"}}}"#,
    );
    let work = sandbox.write(
        "home/.config/Code/User/profiles/5a1b2c/mcp.json",
        r#"{"servers": {"shared": {"command": "work-profile"}, "work-only": {"type": "http", "url": "https://work.example.com/mcp"}}}"#,
    );
    let other = sandbox.write(
        "home/.config/Code/User/profiles/-7f00aa/mcp.json",
        r#"{"servers": {"other": {"command": "o"}}}"#,
    );
    // A file where a profile folder would be is not a profile.
    sandbox.write("home/.config/Code/User/profiles/stray.json", "{}");
    let files = VSCODE.load(&sandbox.ctx());
    assert_eq!(
        listing(&files),
        [
            (default, Level::User),
            (other, Level::User),
            (work, Level::User)
        ]
    );
    assert_eq!(names(&files[2]), ["shared", "work-only"]);
    assert_eq!(
        server(&files[2], "work-only"),
        json!({"type": "http", "url": "https://work.example.com/mcp"})
    );
}

// ------------------------------------------------------------------------------------------
// Crush
// ------------------------------------------------------------------------------------------

#[test]
fn crush_reads_json_up_to_the_repository_root_and_never_runs_a_crushrc() {
    let sandbox = Sandbox::new("crush");
    sandbox.write("project/.git/HEAD", "ref: refs/heads/main\n");
    // The README's example, as Crush parses it (strict JSON).
    let root = sandbox.write(
        "project/crush.json",
        r#"{
  "$schema": "https://charm.land/crush.json",
  "mcp": {
    "filesystem": {
      "type": "stdio", "command": "node", "args": ["/path/to/mcp-server.js"],
      "env": {"NODE_ENV": "production"}, "timeout": 10, "disabled_tools": ["some-tool-name"]
    },
    "github": {
      "type": "http", "url": "https://api.githubcopilot.com/mcp/",
      "headers": {"Authorization": "Bearer $GH_PAT"}, "enabled_tools": ["get_issue"],
      "oauth_client_id": "crush-app", "oauth_token": {"access_token": "crush-kept-secret"}
    },
    "stream": {"type": "sse", "url": "https://example.com/mcp/sse", "headers": {"API-Key": "${API_KEY}"}},
    "sneaky": {"command": "node", "env": {"TOKEN": "$(cat ~/.ssh/id_ed25519)"}},
    "off": {"command": "x", "disabled": true}
  }
}"#,
    );
    let witness = sandbox.root.join("crushrc-ran");
    let script = sandbox.write(
        "project/src/crushrc",
        &format!(
            "touch {}\nmcp add only-in-script --command evil\n",
            witness.display()
        ),
    );
    let near = sandbox.write(
        "project/src/.crush.json",
        r#"{"mcp": {"filesystem": {"command": "nearer"}}}"#,
    );
    let data = sandbox.write(
        "home/.local/share/crush/crush.json",
        r#"{"mcp": {"written-by-crush": {"type": "http", "url": "https://d.example.com/mcp"}}}"#,
    );
    let user = sandbox.write(
        "home/.config/crush/crush.json",
        r#"{"mcp": {"mine": {"command": "mine"}}}"#,
    );
    let ctx = DiscoveryContext::new("myagent", sandbox.project().join("src"), sandbox.home());
    let files = CRUSH.load(&ctx);
    assert_eq!(
        listing(&files),
        [
            (script.clone(), Level::Project),
            (near, Level::Project),
            (root, Level::Project),
            (data, Level::User),
            (user, Level::User)
        ]
    );
    // The script is named and not run.
    let error = the_error(&files[0]);
    assert!(
        matches!(error, ConfigError::Script { tool: "Crush", .. }),
        "{error}"
    );
    assert!(error.to_string().contains("never run here"), "{error}");
    assert_eq!(error.path(), Some(script.as_path()));
    assert!(!witness.exists());

    assert_eq!(names(&files[1]), ["filesystem"]);
    assert_eq!(
        server(&files[2], "filesystem"),
        json!({
            "command": "node", "args": ["/path/to/mcp-server.js"],
            "env": {"NODE_ENV": "production"},
            "timeout": 10000, "toolTimeout": 10000, "disabledTools": ["some-tool-name"]
        })
    );
    let github = server(&files[2], "github");
    assert_eq!(
        github,
        json!({
            "type": "http", "url": "https://api.githubcopilot.com/mcp/",
            "headers": {"Authorization": "Bearer ${GH_PAT}"},
            "enabledTools": ["get_issue"],
            "auth": {"type": "oauth", "clientId": "crush-app"}
        })
    );
    assert!(!github.to_string().contains("crush-kept-secret"));
    let filter = config_of(&files[2], "github").tool_filter();
    assert!(filter.allows("get_issue") && !filter.allows("create_issue"));
    assert_eq!(
        server(&files[2], "stream"),
        json!({"type": "sse", "url": "https://example.com/mcp/sse", "headers": {"API-Key": "${API_KEY}"}})
    );
    assert_eq!(config_of(&files[2], "off").enabled, Some(false));
    let problems = invalid(&files[2]);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].0, "sneaky");
    assert!(
        problems[0].1.contains("Crush runs that command"),
        "{problems:?}"
    );
    assert_eq!(names(&files[3]), ["written-by-crush"]);
    assert_eq!(names(&files[4]), ["mine"]);
}

#[test]
fn crush_follows_its_global_folder_variables() {
    let sandbox = Sandbox::new("crush-env");
    let config = sandbox.write(
        "custom-config/crush.json",
        r#"{"mcp": {"c": {"command": "c"}}}"#,
    );
    let data = sandbox.write(
        "custom-data/crush.json",
        r#"{"mcp": {"d": {"command": "d"}}}"#,
    );
    let system = sandbox.write(
        "etc/crush/crush.json",
        r#"{"mcp": {"s": {"command": "s"}}}"#,
    );
    let ctx = sandbox
        .ctx()
        .with_env([
            (
                "CRUSH_GLOBAL_CONFIG",
                sandbox.root.join("custom-config").display().to_string(),
            ),
            (
                "CRUSH_GLOBAL_DATA",
                sandbox.root.join("custom-data").display().to_string(),
            ),
        ])
        .with_system_dir(sandbox.root.join("etc"));
    let files = CRUSH.load(&ctx);
    assert_eq!(
        listing(&files),
        [
            (data, Level::User),
            (config, Level::User),
            (system, Level::User)
        ]
    );
    assert_eq!(names(&files[2]), ["s"]);
}

#[test]
fn a_claude_code_ws_entry_is_kept_for_a_connector_with_its_fields() {
    let sandbox = Sandbox::new("claude-code-ws");
    sandbox.write(
        "project/.mcp.json",
        r#"{"mcpServers": {"live": {"type": "ws", "url": "wss://mcp.example.com/ws", "headers": {"X-Key": "${KEY}"}}}}"#,
    );
    let files = CLAUDE_CODE.load(&sandbox.ctx());
    let config = config_of(&files[0], "live");
    let mcp_config::TransportConfig::Custom(custom) = &config.transport else {
        panic!("{config:?}");
    };
    assert_eq!(custom.kind, "ws");
    assert_eq!(config.transport.type_name(), "ws");
    assert_eq!(
        server(&files[0], "live"),
        json!({"type": "ws", "url": "wss://mcp.example.com/ws", "headers": {"X-Key": "${KEY}"}})
    );
}

// ------------------------------------------------------------------------------------------
// Goose
// ------------------------------------------------------------------------------------------

/// The documentation's example, with a builtin extension and a disabled one.
const GOOSE_FILE: &str = r#"
GOOSE_PROVIDER: anthropic
extensions:
  developer:
    type: builtin
    name: developer
    enabled: true
    timeout: 300
  filesystem:
    type: stdio
    name: filesystem
    enabled: true
    cmd: npx
    args: ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]
    envs: {LOG_LEVEL: debug}
    env_keys: [FS_TOKEN]
    timeout: 300
  remote-tools:
    type: streamable_http
    name: remote-tools
    enabled: true
    uri: "https://example.com/mcp"
    headers: {Authorization: "Bearer ${REMOTE_TOKEN}", X-Region: "$REGION", X-Org: "${ORG}"}
    envs: {REGION: eu-west-1}
    env_keys: [REMOTE_TOKEN]
    timeout: 300
    available_tools: [search, fetch]
  old-sse:
    type: sse
    name: old-sse
    enabled: false
    uri: "https://old.example.com/sse"
"#;

#[test]
fn goose_reads_extensions_with_its_fields_mapped_and_inside_goose_kinds_refused() {
    let sandbox = Sandbox::new("goose");
    let path = sandbox.write("home/.config/goose/config.yaml", GOOSE_FILE);
    let files = GOOSE.load(&sandbox.ctx());
    assert_eq!(listing(&files), [(path, Level::User)]);
    assert_eq!(
        server(&files[0], "filesystem"),
        json!({
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"],
            "env": {"LOG_LEVEL": "debug", "FS_TOKEN": "${FS_TOKEN}"},
            "enabled": true,
            "timeout": 300000, "toolTimeout": 300000,
            "name": "filesystem"
        })
    );
    let remote = config_of(&files[0], "remote-tools");
    assert_eq!(
        server(&files[0], "remote-tools"),
        json!({
            "type": "http",
            "url": "https://example.com/mcp",
            "headers": {
                "Authorization": "Bearer ${REMOTE_TOKEN}",
                "X-Region": "eu-west-1",
                "X-Org": "${ORG}"
            },
            "enabled": true,
            "timeout": 300000, "toolTimeout": 300000,
            "name": "remote-tools",
            "enabledTools": ["search", "fetch"]
        })
    );
    assert!(remote.tool_filter().allows("fetch") && !remote.tool_filter().allows("delete"));
    assert_eq!(
        server(&files[0], "old-sse"),
        json!({"type": "sse", "url": "https://old.example.com/sse", "enabled": false, "name": "old-sse"})
    );
    let problems = invalid(&files[0]);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].0, "developer");
    assert!(
        problems[0]
            .1
            .contains("\"builtin\" extension runs inside Goose"),
        "{problems:?}"
    );
}

#[test]
fn goose_merges_the_system_the_additional_and_the_users_files_field_by_field() {
    let sandbox = Sandbox::new("goose-merge");
    let system = sandbox.write(
        "etc/goose/config.yaml",
        "extensions:\n  shared:\n    type: stdio\n    enabled: true\n    cmd: system-cmd\n    args: [a]\n    timeout: 30\n  system-only:\n    type: stdio\n    enabled: true\n    cmd: s\n    args: []\n",
    );
    let extra = sandbox.write(
        "extra/more.yaml",
        "extensions:\n  shared:\n    cmd: extra-cmd\n",
    );
    let user = sandbox.write(
        "home/.config/goose/config.yaml",
        "extensions:\n  shared:\n    enabled: false\n  mine:\n    type: stdio\n    enabled: true\n    cmd: m\n    args: []\n",
    );
    let broken = sandbox.write("extra/broken.yaml", "extensions: [\n");
    let list = std::env::join_paths([&extra, &broken]).unwrap();
    let ctx = sandbox
        .ctx()
        .with_system_dir(sandbox.root.join("etc"))
        .with_env([(
            "GOOSE_ADDITIONAL_CONFIG_FILES",
            list.to_string_lossy().into_owned(),
        )]);
    let files = GOOSE.load(&ctx);
    assert_eq!(
        listing(&files),
        [
            (user, Level::User),
            (broken, Level::User),
            (extra, Level::User),
            (system, Level::User)
        ]
    );
    // The user's file has the last word on `shared`, with the fields the others gave it.
    assert_eq!(names(&files[0]), ["shared", "mine"]);
    assert_eq!(
        server(&files[0], "shared"),
        json!({"command": "extra-cmd", "args": ["a"], "enabled": false, "timeout": 30000, "toolTimeout": 30000})
    );
    let error = the_error(&files[1]);
    assert!(
        matches!(error, ConfigError::Parse { format: "YAML", .. }),
        "{error}"
    );
    assert!(names(&files[2]).is_empty());
    assert_eq!(names(&files[3]), ["system-only"]);
}

#[test]
fn a_yaml_alias_bomb_is_refused_and_a_yaml_error_never_quotes_its_line() {
    let sandbox = Sandbox::new("goose-hostile");
    let mut bomb = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for level in 1..8 {
        let refs = vec![format!("*a{}", level - 1); 10].join(", ");
        bomb.push_str(&format!("a{level}: &a{level} [{refs}]\n"));
    }
    bomb.push_str("extensions: {boom: {type: stdio, enabled: true, cmd: x, args: *a7}}\n");
    sandbox.write("home/.config/goose/config.yaml", &bomb);
    let files = GOOSE.load(&sandbox.ctx());
    let message = the_error(&files[0]).to_string();
    assert!(
        message.contains("not valid YAML") && message.contains("budget"),
        "{message}"
    );

    sandbox.write(
        "home/.config/goose/config.yaml",
        "extensions:\n  gh:\n    envs: {GITHUB_TOKEN: \"ghp_secret_in_line\", X: [\n",
    );
    let files = GOOSE.load(&sandbox.ctx());
    let message = the_error(&files[0]).to_string();
    assert!(!message.contains("ghp_secret_in_line"), "{message}");
    assert!(message.contains("line"), "{message}");
}
