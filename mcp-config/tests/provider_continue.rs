//! The Continue provider, fed files in the shapes Continue reads: the user's `config.yaml`, the
//! YAML blocks and JSON files of the `.continue/mcpServers/` folders, and folders a hostile
//! repository could plant.

#![allow(clippy::expect_used, clippy::unwrap_used)]

mod provider_support;

use std::path::Path;

use mcp_config::providers::CONTINUE;
use mcp_config::{
    ConfigError, DiscoveryContext, FolderProblem, Level, ShapeProblem, SkipReason,
    source::{ConfigSource, SourceFile},
};
use provider_support::{Sandbox, discover_with, invalid, listing, names, server, the_error};
use serde_json::json;

// ------------------------------------------------------------------------------------------
// Helpers
// ------------------------------------------------------------------------------------------

/// The file read at `path`.
fn file_at<'a>(files: &'a [SourceFile], path: &Path) -> &'a SourceFile {
    files
        .iter()
        .find(|file| file.path == path)
        .unwrap_or_else(|| panic!("{} was not read", path.display()))
}

/// The folder error a walk reported for `folder`.
fn folder_problems(files: &[SourceFile], folder: &Path) -> Vec<FolderProblem> {
    files
        .iter()
        .filter_map(|file| match &file.contents {
            Err(ConfigError::Folder { path, problem }) if path == folder => Some(*problem),
            _ => None,
        })
        .collect()
}

/// A block file of one stdio server.
fn block(name: &str) -> String {
    format!(
        "name: {name} block\nversion: 0.0.1\nschema: v1\nmcpServers:\n  - name: {name}\n    command: {name}-cmd\n"
    )
}

// ------------------------------------------------------------------------------------------
// config.yaml
// ------------------------------------------------------------------------------------------

/// The user's `config.yaml`, in the shape `docs/reference.mdx` and `mcp.mdx` give it.
const CONFIG_YAML: &str = r#"
name: Local Config
version: 1.0.0
schema: v1
models:
  - name: GPT-4o
    provider: openai
    model: gpt-4o
mcpServers:
  - name: SQLite MCP
    command: npx
    args:
      - "-y"
      - "mcp-sqlite"
      - "/path/to/your/database.db"
    cwd: /Users/NAME/project
    env:
      NODE_ENV: production
      DB_TOKEN: ${DB_TOKEN}
    connectionTimeout: 15000
    faviconUrl: https://example.com/favicon.ico
  - name: remote-http
    type: streamable-http
    url: https://example.com/mcp
    requestOptions:
      headers:
        X-Team: core
      timeout: 30
      verifySsl: false
  - name: remote-sse
    type: sse
    url: https://example.com/sse
    apiKey: ${API_KEY}
    requestOptions:
      headers:
        authorization: Bearer replaced-by-the-api-key
        X-Other: kept
  - name: bare-url
    url: https://example.com/bare
  - name: command-and-url
    command: ./run-locally
    url: https://example.com/unused
  - name: plain-http
    type: http
    url: https://example.com/plain
  - name: file-cwd
    command: tool
    cwd: file:///srv/my%20tools
  - uses: anthropic/github-mcp
    with:
      GITHUB_PERSONAL_ACCESS_TOKEN: ${{ secrets.GITHUB_PERSONAL_ACCESS_TOKEN }}
  - command: nameless
  - name: negative-timeout
    command: x
    connectionTimeout: -5
  - name: sse-without-url
    type: sse
    command: local
"#;

#[test]
fn the_users_config_yaml_lists_stdio_and_remote_servers_by_name() {
    let sandbox = Sandbox::new("config-yaml");
    let path = sandbox.write("home/.continue/config.yaml", CONFIG_YAML);
    let files = CONTINUE.load(&sandbox.ctx());
    assert_eq!(listing(&files), [(path, Level::User)]);
    let file = &files[0];
    assert_eq!(
        names(file),
        [
            "SQLite MCP",
            "remote-http",
            "remote-sse",
            "bare-url",
            "command-and-url",
            "plain-http",
            "file-cwd"
        ]
    );
    // `connectionTimeout` is in milliseconds and bounds the start and each tool call;
    // `${VAR}` stays for discovery to expand.
    assert_eq!(
        server(file, "SQLite MCP"),
        json!({
            "command": "npx",
            "args": ["-y", "mcp-sqlite", "/path/to/your/database.db"],
            "cwd": "/Users/NAME/project",
            "env": {"NODE_ENV": "production", "DB_TOKEN": "${DB_TOKEN}"},
            "timeout": 15000, "toolTimeout": 15000,
            "faviconUrl": "https://example.com/favicon.ico"
        })
    );
    // `requestOptions.timeout` is a model request's timeout, which Continue's MCP code never
    // reads: kept as written, not our timeout.
    assert_eq!(
        server(file, "remote-http"),
        json!({
            "type": "http", "url": "https://example.com/mcp",
            "headers": {"X-Team": "core"},
            "requestOptions": {"timeout": 30, "verifySsl": false}
        })
    );
    assert_eq!(
        server(file, "remote-http").get("timeout"),
        None,
        "requestOptions.timeout is not the connect timeout"
    );
    // The API key wins over any Authorization header, whatever its case.
    assert_eq!(
        server(file, "remote-sse"),
        json!({
            "type": "sse", "url": "https://example.com/sse",
            "headers": {"Authorization": "Bearer ${API_KEY}", "X-Other": "kept"}
        })
    );
    // Continue tries Streamable HTTP, then SSE: our `http` does the same.
    assert_eq!(
        server(file, "bare-url"),
        json!({"type": "http", "url": "https://example.com/bare"})
    );
    // Continue's YAML schema tries the stdio form first: the URL is not read.
    assert_eq!(
        server(file, "command-and-url"),
        json!({"command": "./run-locally"})
    );
    assert_eq!(
        server(file, "plain-http"),
        json!({"type": "http", "url": "https://example.com/plain"})
    );
    #[cfg(unix)]
    assert_eq!(
        server(file, "file-cwd"),
        json!({"command": "tool", "cwd": "/srv/my tools"})
    );

    let problems = invalid(file);
    assert_eq!(problems.len(), 4, "{problems:?}");
    assert_eq!(problems[0].0, "anthropic/github-mcp");
    assert!(
        problems[0]
            .1
            .contains("is the Continue block \"anthropic/github-mcp\" (\"uses\")"),
        "{problems:?}"
    );
    assert_eq!(
        problems[1],
        (
            "mcpServers[8]".to_owned(),
            "Server \"mcpServers[8]\": the entry has no \"name\"; give it one".to_owned()
        )
    );
    assert_eq!(problems[2].0, "negative-timeout");
    assert!(
        problems[2]
            .1
            .ends_with("\"connectionTimeout\" must be a non-negative number of milliseconds"),
        "{problems:?}"
    );
    assert_eq!(problems[3].0, "sse-without-url");
    assert!(
        problems[3].1.ends_with("sse server requires \"url\" field"),
        "{problems:?}"
    );
}

#[test]
fn config_yaml_of_the_wrong_shape_is_that_files_error() {
    let sandbox = Sandbox::new("config-shape");
    let path = sandbox.write(
        "home/.continue/config.yaml",
        "name: c\nversion: 1.0.0\nmcpServers:\n  github:\n    command: npx\n",
    );
    let files = CONTINUE.load(&sandbox.ctx());
    let error = the_error(file_at(&files, &path));
    assert!(
        matches!(
            error,
            ConfigError::Shape {
                problem: ShapeProblem::NotAServerList { .. },
                ..
            }
        ),
        "{error}"
    );
    assert_eq!(
        error.to_string(),
        format!(
            "{}: \"mcpServers\" must be a list of servers, each with a \"name\"",
            path.display()
        )
    );

    // A file without servers holds none; so does an empty one.
    sandbox.write("home/.continue/config.yaml", "name: c\nversion: 1.0.0\n");
    let files = CONTINUE.load(&sandbox.ctx());
    assert!(names(&files[0]).is_empty());
    sandbox.write("home/.continue/config.yaml", "");
    let files = CONTINUE.load(&sandbox.ctx());
    assert!(names(&files[0]).is_empty());
}

// ------------------------------------------------------------------------------------------
// The servers folders
// ------------------------------------------------------------------------------------------

#[test]
fn workspace_and_user_folders_are_walked_down_in_name_order_project_first() {
    let sandbox = Sandbox::new("folders");
    // The documentation's Quick Start block.
    let playwright = sandbox.write(
        "project/.continue/mcpServers/playwright-mcp.yaml",
        "name: Playwright mcpServer\nversion: 0.0.1\nschema: v1\nmcpServers:\n  - name: Browser search\n    command: npx\n    args:\n      - \"@playwright/mcp@latest\"\n",
    );
    let nested = sandbox.write(
        "project/.continue/mcpServers/team/db/sqlite.yml",
        &block("sqlite"),
    );
    let json = sandbox.write(
        "project/.continue/mcpServers/team/mcp.json",
        r#"{"mcpServers": {"ctx7": {"type": "http", "url": "https://mcp.context7.com/mcp"}}}"#,
    );
    sandbox.write(
        "project/.continue/mcpServers/README.md",
        "# not a server file",
    );
    sandbox.write("project/.continue/mcpServers/notes.txt", "mcpServers: [");
    sandbox.write("project/.continue/mcpServers/Upper.YAML", "not: [read");
    let config = sandbox.write(
        "home/.continue/config.yaml",
        "name: c\nversion: 1.0.0\nmcpServers:\n  - name: from-config\n    command: c\n",
    );
    let user = sandbox.write("home/.continue/mcpServers/mine.yaml", &block("mine"));
    // Another tool's folder of the same name, and Continue's other block folders, are not read.
    sandbox.write("project/mcpServers/stray.yaml", &block("stray"));
    sandbox.write(
        "project/.continue/models/models.yaml",
        &block("model-folder"),
    );

    let files = CONTINUE.load(&sandbox.ctx());
    assert_eq!(
        listing(&files),
        [
            (playwright, Level::Project),
            (nested, Level::Project),
            (json, Level::Project),
            (config.clone(), Level::User),
            (user.clone(), Level::User),
        ]
    );
    assert_eq!(names(&files[0]), ["Browser search"]);
    assert_eq!(
        server(&files[0], "Browser search"),
        json!({"command": "npx", "args": ["@playwright/mcp@latest"]})
    );
    assert_eq!(names(&files[1]), ["sqlite"]);
    assert_eq!(
        server(&files[2], "ctx7"),
        json!({"type": "http", "url": "https://mcp.context7.com/mcp"})
    );
    assert_eq!(names(&files[3]), ["from-config"]);
    assert_eq!(names(&files[4]), ["mine"]);

    // Seen from a subfolder of a repository, the root's folder is not read (Continue reads
    // each workspace folder's only), and a note says so.
    sandbox.write("project/.git/HEAD", "ref: refs/heads/main\n");
    std::fs::create_dir_all(sandbox.path("project/src")).unwrap();
    let ctx = DiscoveryContext::new("myagent", sandbox.path("project/src"), sandbox.home());
    let files = CONTINUE.load(&ctx);
    assert_eq!(
        listing(&files),
        [(config, Level::User), (user, Level::User)]
    );
    let notes = CONTINUE.unread_project_files(&ctx);
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert_eq!(notes[0].path, sandbox.path("project/.continue/mcpServers"));
    assert_eq!(notes[0].folder, sandbox.project());
    assert!(
        notes[0]
            .to_string()
            .ends_with("(Continue reads it only in the workspace folder)"),
        "{}",
        notes[0]
    );
}

#[test]
fn the_folder_is_read_once_at_user_level_when_working_in_the_home_folder() {
    let sandbox = Sandbox::new("home-cwd");
    let path = sandbox.write("home/.continue/mcpServers/mine.yaml", &block("mine"));
    let ctx = DiscoveryContext::new("myagent", sandbox.home(), sandbox.home());
    let files = CONTINUE.load(&ctx);
    assert_eq!(listing(&files), [(path, Level::User)]);
}

#[test]
fn continue_global_dir_moves_the_users_folder_but_a_relative_one_is_not_used() {
    let sandbox = Sandbox::new("global-dir");
    let default = sandbox.write(
        "home/.continue/config.yaml",
        "mcpServers:\n  - name: default\n    command: d\n",
    );
    // Resolved against the project folder, these would be "the user's own" files of a cloned
    // repository, run without approval.
    sandbox.write(
        "project/conf/continue/config.yaml",
        "mcpServers:\n  - name: relative\n    command: r\n",
    );
    sandbox.write("project/conf/continue/mcpServers/b.yaml", &block("rb"));
    let absolute = sandbox.write(
        "elsewhere/config.yaml",
        "mcpServers:\n  - name: absolute\n    command: a\n",
    );

    let ctx = sandbox
        .ctx()
        .with_env([("CONTINUE_GLOBAL_DIR", "conf/continue")]);
    let files = CONTINUE.load(&ctx);
    assert_eq!(listing(&files), [(default, Level::User)]);

    let dir = sandbox.path("elsewhere").display().to_string();
    let ctx = sandbox.ctx().with_env([("CONTINUE_GLOBAL_DIR", dir)]);
    let files = CONTINUE.load(&ctx);
    assert_eq!(listing(&files), [(absolute, Level::User)]);

    // Empty is unset, as in Continue.
    let ctx = sandbox.ctx().with_env([("CONTINUE_GLOBAL_DIR", "")]);
    let files = CONTINUE.load(&ctx);
    assert_eq!(names(&files[0]), ["default"]);
}

// ------------------------------------------------------------------------------------------
// JSON files
// ------------------------------------------------------------------------------------------

#[test]
fn json_files_in_each_of_continues_three_shapes() {
    let sandbox = Sandbox::new("json-shapes");
    // (1) A copy of ~/.claude.json: the top-level servers and every project's.
    let claude_code = sandbox.write(
        "project/.continue/mcpServers/claude.json",
        r#"{
            "numStartups": 12,
            "mcpServers": {"user-level": {"type": "stdio", "command": "u", "args": ["1"]}},
            "projects": {
                "/home/me/a": {"mcpServers": {"in-a": {"type": "sse", "url": "https://a.example/sse"}}},
                "/home/me/b": {"allowedTools": [], "mcpServers": {"in-b": {"command": "b"}}},
                "/home/me/c": {}
            }
        }"#,
    );
    // (2) A Claude Desktop / Cursor file dropped in as-is, with comments.
    let desktop = sandbox.write(
        "project/.continue/mcpServers/desktop.json",
        r#"// copied from Claude Desktop
        {
          "mcpServers": {
            "github": {
              "command": "npx",
              "args": ["-y", "@modelcontextprotocol/server-github"],
              "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"},
              "envFile": ".env",
              "cwd": "/ignored",
              "disabled": true,
              "timeout": 60,
            },
            "ctx7": {"url": "https://mcp.context7.com/mcp", "headers": {"X-Key": "${CTX7_KEY}"}},
            "both": {"command": "local", "url": "https://remote.example/mcp"},
            "stdio-typed": {"type": "stdio", "command": "s", "url": "https://unused.example"},
            "not-an-object": 3
          }
        }"#,
    );
    // (3) A single server, named after the file.
    let single = sandbox.write(
        "project/.continue/mcpServers/servers/fetch.json",
        r#"{"command": "uvx", "args": ["mcp-server-fetch"]}"#,
    );
    let doubled = sandbox.write(
        "project/.continue/mcpServers/servers/remote.json.json",
        r#"{"type": "sse", "url": "https://sse.example/sse"}"#,
    );

    let files = CONTINUE.load(&sandbox.ctx());
    assert_eq!(
        listing(&files),
        [
            (claude_code.clone(), Level::Project),
            (desktop.clone(), Level::Project),
            (single.clone(), Level::Project),
            (doubled.clone(), Level::Project),
        ]
    );

    let file = file_at(&files, &claude_code);
    assert_eq!(names(file), ["user-level", "in-a", "in-b"]);
    assert_eq!(
        server(file, "user-level"),
        json!({"command": "u", "args": ["1"]})
    );
    assert_eq!(
        server(file, "in-a"),
        json!({"type": "sse", "url": "https://a.example/sse"})
    );

    let file = file_at(&files, &desktop);
    assert_eq!(names(file), ["github", "ctx7", "both", "stdio-typed"]);
    // Continue's JSON schema reads only these keys: `envFile` is ignored (Continue warns), and
    // `cwd`, `disabled`, `timeout` are not read, as Continue drops them.
    assert_eq!(
        server(file, "github"),
        json!({
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-github"],
            "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}
        })
    );
    assert_eq!(
        server(file, "ctx7"),
        json!({"type": "http", "url": "https://mcp.context7.com/mcp", "headers": {"X-Key": "${CTX7_KEY}"}})
    );
    // The JSON schema tries the remote form first; a `type` decides when there is one.
    assert_eq!(
        server(file, "both"),
        json!({"type": "http", "url": "https://remote.example/mcp"})
    );
    assert_eq!(server(file, "stdio-typed"), json!({"command": "s"}));
    let problems = invalid(file);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(
        problems[0],
        (
            "not-an-object".to_owned(),
            "Server \"not-an-object\": the entry must be an object".to_owned()
        )
    );

    assert_eq!(names(file_at(&files, &single)), ["fetch"]);
    assert_eq!(
        server(file_at(&files, &single), "fetch"),
        json!({"command": "uvx", "args": ["mcp-server-fetch"]})
    );
    // Continue removes the first `.json` of the name.
    assert_eq!(names(file_at(&files, &doubled)), ["remote.json"]);
}

#[test]
fn a_bad_file_is_that_files_error_and_the_other_files_still_load() {
    let sandbox = Sandbox::new("bad-files");
    let good = sandbox.write("project/.continue/mcpServers/a-good.yaml", &block("good"));
    let no_shape = sandbox.write(
        "project/.continue/mcpServers/b-servers.json",
        r#"{"servers": {"x": {"command": "x"}}}"#,
    );
    let list = sandbox.write("project/.continue/mcpServers/c-list.json", "[1, 2]");
    let broken_json = sandbox.write(
        "project/.continue/mcpServers/d-broken.json",
        "{\"mcpServers\": {\"gh\": {\"env\": {\"TOKEN\": \"ghp_in_a_broken_line\" \"x\"}}}}",
    );
    let broken_yaml = sandbox.write(
        "project/.continue/mcpServers/e-broken.yaml",
        "mcpServers:\n  - name: x\n    env: {TOKEN: \"ghp_yaml_broken\", X: [\n",
    );
    let bad_projects = sandbox.write(
        "project/.continue/mcpServers/f-projects.json",
        r#"{"projects": {"/a": 3}}"#,
    );
    let json_good = sandbox.write(
        "project/.continue/mcpServers/z.json",
        r#"{"mcpServers": {"json-good": {"command": "j"}}}"#,
    );

    let files = CONTINUE.load(&sandbox.ctx());
    assert_eq!(files.len(), 7);
    assert_eq!(names(file_at(&files, &good)), ["good"]);
    assert_eq!(names(file_at(&files, &json_good)), ["json-good"]);
    for path in [&no_shape, &list] {
        let error = the_error(file_at(&files, path));
        assert!(
            matches!(
                error,
                ConfigError::Shape {
                    problem: ShapeProblem::NoServerShape { tool: "Continue" },
                    ..
                }
            ),
            "{error}"
        );
        assert_eq!(
            error.to_string(),
            format!(
                "{}: the file has none of the shapes Continue reads from a JSON file there: a \
                 copy of ~/.claude.json (\"projects\"), a Claude Desktop file (\"mcpServers\") \
                 or a single server (\"command\" or \"url\"); rewrite it as one of them",
                path.display()
            )
        );
    }
    let error = the_error(file_at(&files, &broken_json));
    assert!(
        matches!(
            error,
            ConfigError::Parse {
                format: "JSON with comments",
                ..
            }
        ),
        "{error}"
    );
    assert!(
        !error.to_string().contains("ghp_in_a_broken_line"),
        "{error}"
    );
    let error = the_error(file_at(&files, &broken_yaml));
    assert!(
        matches!(error, ConfigError::Parse { format: "YAML", .. }),
        "{error}"
    );
    assert!(!error.to_string().contains("ghp_yaml_broken"), "{error}");
    let error = the_error(file_at(&files, &bad_projects));
    assert!(
        error
            .to_string()
            .ends_with("\"projects\" must map folders to objects"),
        "{error}"
    );

    // Through discovery: the broken files are errors naming them, the good servers load.
    let found = discover_with(CONTINUE, &sandbox.ctx());
    assert_eq!(
        found.servers.keys().collect::<Vec<_>>(),
        ["good", "json-good"]
    );
    let mut broken: Vec<&Path> = found.file_errors.iter().map(|e| e.path.as_path()).collect();
    broken.sort();
    assert_eq!(
        broken,
        [
            no_shape.as_path(),
            list.as_path(),
            broken_json.as_path(),
            broken_yaml.as_path(),
            bad_projects.as_path()
        ]
    );
}

// ------------------------------------------------------------------------------------------
// Secrets
// ------------------------------------------------------------------------------------------

#[test]
fn a_continue_secret_makes_its_server_invalid_naming_the_secret_and_never_a_value() {
    let sandbox = Sandbox::new("secrets");
    // Continue would fill these from its .env files: this runtime reads none of them.
    sandbox.write(
        "home/.continue/.env",
        "GITHUB_TOKEN=ghp_value_in_user_dotenv\n",
    );
    sandbox.write(
        "project/.continue/.env",
        "API_TOKEN=value_in_workspace_dotenv\n",
    );
    sandbox.write("project/.env", "KEY=value_in_project_dotenv\nX=x_value\n");
    let path = sandbox.write(
        "home/.continue/config.yaml",
        r#"
name: Secrets
version: 1.0.0
schema: v1
mcpServers:
  - name: GitHub
    command: npx
    args: ["-y", "@modelcontextprotocol/server-github"]
    env:
      GITHUB_PERSONAL_ACCESS_TOKEN: ${{ secrets.GITHUB_TOKEN }}
  - name: remote
    type: streamable-http
    url: https://example.com/mcp
    requestOptions:
      headers:
        Authorization: Bearer ${{ secrets.API_TOKEN }}
  - name: keyed
    url: https://example.com/keyed
    apiKey: ${{ inputs.KEY }}
  - name: arg
    command: tool
    args: ["--token=${{secrets.X}}"]
  - name: plain
    command: tool
    env:
      TOKEN: ${PLAIN_TOKEN}
"#,
    );
    let json = sandbox.write(
        "project/.continue/mcpServers/mcp.json",
        r#"{"mcpServers": {"from-json": {"url": "https://j.example/mcp", "headers": {"Authorization": "Bearer ${{ secrets.GITHUB_TOKEN }}"}}}}"#,
    );
    let ctx = sandbox.ctx().with_env([("PLAIN_TOKEN", "env-value")]);
    let files = CONTINUE.load(&ctx);
    let shown = format!("{files:?}");
    for value in [
        "ghp_value_in_user_dotenv",
        "value_in_workspace_dotenv",
        "value_in_project_dotenv",
        "x_value",
    ] {
        assert!(!shown.contains(value), "{value} in {shown}");
    }

    let file = file_at(&files, &path);
    assert_eq!(names(file), ["plain"]);
    assert_eq!(
        server(file, "plain"),
        json!({"command": "tool", "env": {"TOKEN": "${PLAIN_TOKEN}"}})
    );
    let advice = "Continue fills that from its secrets (the Continue Hub or a .env file), which \
                  this runtime does not read;";
    assert_eq!(
        invalid(file),
        [
            (
                "GitHub".to_owned(),
                format!(
                    "Server \"GitHub\": env.GITHUB_PERSONAL_ACCESS_TOKEN uses ${{{{ secrets.GITHUB_TOKEN }}}}: \
                     {advice} set GITHUB_TOKEN in the environment and write ${{GITHUB_TOKEN}} instead"
                )
            ),
            (
                "remote".to_owned(),
                format!(
                    "Server \"remote\": requestOptions.headers.Authorization uses ${{{{ secrets.API_TOKEN }}}}: \
                     {advice} set API_TOKEN in the environment and write ${{API_TOKEN}} instead"
                )
            ),
            (
                "keyed".to_owned(),
                format!(
                    "Server \"keyed\": apiKey uses ${{{{ inputs.KEY }}}}: {advice} set KEY in the \
                     environment and write ${{KEY}} instead"
                )
            ),
            (
                "arg".to_owned(),
                format!(
                    "Server \"arg\": args[0] uses ${{{{secrets.X}}}}: {advice} set X in the \
                     environment and write ${{X}} instead"
                )
            ),
        ]
    );
    let problems = invalid(file_at(&files, &json));
    assert_eq!(problems.len(), 1);
    assert!(
        problems[0].1.starts_with(
            "Server \"from-json\": headers.Authorization uses ${{ secrets.GITHUB_TOKEN }}"
        ),
        "{problems:?}"
    );

    // Through discovery: skipped as invalid with the same words, the plain one loaded.
    let found = discover_with(CONTINUE, &ctx);
    assert_eq!(found.servers.keys().collect::<Vec<_>>(), ["plain"]);
    let github = found.skipped.iter().find(|s| s.name == "GitHub").unwrap();
    let SkipReason::Invalid(invalid) = &github.reason else {
        panic!("{:?}", github.reason);
    };
    let message = invalid.problems[0].to_string();
    assert!(message.contains("secrets.GITHUB_TOKEN"), "{message}");
    assert!(!message.contains("ghp_value_in_user_dotenv"), "{message}");
}

// ------------------------------------------------------------------------------------------
// Folders a repository could plant
// ------------------------------------------------------------------------------------------

#[test]
fn a_folder_nested_too_deep_is_read_down_to_the_limit_and_says_so() {
    let sandbox = Sandbox::new("deep");
    let folder = sandbox.path("project/.continue/mcpServers");
    // Eight folders below the servers folder are read; the ninth is not entered.
    let eight = "a/b/c/d/e/f/g/h";
    let deepest_read = sandbox.write(
        &format!("project/.continue/mcpServers/{eight}/deep.yaml"),
        &block("eight-deep"),
    );
    sandbox.write(
        &format!("project/.continue/mcpServers/{eight}/i/deeper.yaml"),
        &block("nine-deep"),
    );
    let files = CONTINUE.load(&sandbox.ctx());
    assert_eq!(names(file_at(&files, &deepest_read)), ["eight-deep"]);
    assert!(
        !files.iter().any(|f| f.path.ends_with("i/deeper.yaml")),
        "{:?}",
        listing(&files)
    );
    assert_eq!(
        folder_problems(&files, &folder),
        [FolderProblem::TooDeep { limit: 8 }]
    );
    let error = the_error(files.last().unwrap());
    assert_eq!(
        error.to_string(),
        format!(
            "{}: it holds folders nested more than 8 deep; the files below that depth were not \
             read (move them up)",
            folder.display()
        )
    );
    assert_eq!(error.path(), Some(folder.as_path()));
}

#[test]
fn a_folder_with_too_many_files_is_read_up_to_the_limit_in_name_order() {
    let sandbox = Sandbox::new("many-files");
    let folder = sandbox.path("home/.continue/mcpServers");
    for index in 0..257 {
        sandbox.write(
            &format!("home/.continue/mcpServers/s{index:03}.json"),
            &format!(r#"{{"command": "c{index}"}}"#),
        );
    }
    let files = CONTINUE.load(&sandbox.ctx());
    let read: Vec<&SourceFile> = files.iter().filter(|f| f.contents.is_ok()).collect();
    assert_eq!(read.len(), 256);
    assert_eq!(names(read[0]), ["s000"]);
    assert_eq!(names(read[255]), ["s255"]);
    assert_eq!(
        folder_problems(&files, &folder),
        [FolderProblem::TooManyFiles { limit: 256 }]
    );
    assert_eq!(files.last().unwrap().level, Level::User);
}

#[test]
fn a_folder_with_too_many_entries_is_not_listed_past_the_limit() {
    let sandbox = Sandbox::new("many-entries");
    let folder = sandbox.path("project/.continue/mcpServers");
    std::fs::create_dir_all(&folder).unwrap();
    for index in 0..4097 {
        std::fs::write(folder.join(format!("n{index}.txt")), "").unwrap();
    }
    let files = CONTINUE.load(&sandbox.ctx());
    assert_eq!(
        folder_problems(&files, &folder),
        [FolderProblem::TooManyEntries { limit: 4096 }]
    );
    assert_eq!(files.len(), 1);
    assert_eq!(files[0].level, Level::Project);
}

#[test]
fn a_folder_holding_more_bytes_than_one_config_file_may_stops_reading_there() {
    let sandbox = Sandbox::new("many-bytes");
    let folder = sandbox.path("project/.continue/mcpServers");
    // Four files of 6 MiB each: the third passes the 16 MiB budget, so the fourth is not read.
    let padding = " ".repeat(6 * 1024 * 1024);
    for name in ["a", "b", "c", "d"] {
        sandbox.write(
            &format!("project/.continue/mcpServers/{name}.json"),
            &format!(r#"{{"command": "{name}"}}{padding}"#),
        );
    }
    let files = CONTINUE.load(&sandbox.ctx());
    let read: Vec<Vec<&str>> = files
        .iter()
        .filter(|f| f.contents.is_ok())
        .map(names)
        .collect();
    assert_eq!(read, [["a"], ["b"], ["c"]]);
    assert_eq!(
        folder_problems(&files, &folder),
        [FolderProblem::TooManyBytes {
            limit: 16 * 1024 * 1024
        }]
    );
}

#[test]
fn something_other_than_a_folder_where_the_folder_goes_is_an_error() {
    let sandbox = Sandbox::new("not-a-folder");
    let path = sandbox.write("project/.continue/mcpServers", "mcpServers: []");
    let files = CONTINUE.load(&sandbox.ctx());
    assert_eq!(listing(&files), [(path.clone(), Level::Project)]);
    assert_eq!(
        the_error(&files[0]).to_string(),
        format!(
            "{}: it is not a folder; the server files go in a folder of that name",
            path.display()
        )
    );
}

#[cfg(unix)]
#[test]
fn symlinked_folders_are_never_entered_and_only_regular_files_are_read() {
    use std::os::unix::fs::symlink;

    let sandbox = Sandbox::new("symlinks");
    let folder = sandbox.path("project/.continue/mcpServers");
    let real = sandbox.write("project/.continue/mcpServers/real.yaml", &block("real"));
    // A link back up (a loop), and one out of the folder.
    symlink(&folder, folder.join("loop")).unwrap();
    sandbox.write("outside/secret-servers.yaml", &block("outside"));
    symlink(sandbox.path("outside"), folder.join("out")).unwrap();
    // A link to a file is read like the file.
    let target = sandbox.write("shared/shared.yaml", &block("shared"));
    let linked = folder.join("linked.yaml");
    symlink(&target, &linked).unwrap();
    // A link named like a server file that points at a folder is not read either.
    symlink(sandbox.path("outside"), folder.join("folder.yaml")).unwrap();
    // A FIFO would block a reader forever: it is refused, not opened.
    let fifo = folder.join("pipe.json");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|status| status.success());

    let files = CONTINUE.load(&sandbox.ctx());
    let mut expected = vec![(linked.clone(), Level::Project)];
    if made {
        expected.push((fifo.clone(), Level::Project));
    }
    expected.push((real, Level::Project));
    assert_eq!(listing(&files), expected);
    assert_eq!(names(file_at(&files, &linked)), ["shared"]);
    if made {
        let error = the_error(file_at(&files, &fifo));
        assert!(
            matches!(error, ConfigError::NotAFile { kind: "FIFO", .. }),
            "{error}"
        );
    }
    assert!(folder_problems(&files, &folder).is_empty());

    // A project's servers folder that is a link, or sits in one, is not followed: it could
    // point at the user's own files.
    let project_two = sandbox.path("project-two");
    std::fs::create_dir_all(project_two.join(".continue")).unwrap();
    let link = project_two.join(".continue/mcpServers");
    symlink(sandbox.path("outside"), &link).unwrap();
    let project_three = sandbox.path("project-three");
    std::fs::create_dir_all(&project_three).unwrap();
    symlink(sandbox.home(), project_three.join(".continue")).unwrap();
    for (project, link) in [
        (&project_two, link),
        (&project_three, project_three.join(".continue")),
    ] {
        let ctx = DiscoveryContext::new("myagent", project, sandbox.home());
        let files = CONTINUE.load(&ctx);
        assert_eq!(files.len(), 1, "{files:?}");
        assert!(matches!(
            &files[0].contents,
            Err(ConfigError::Folder {
                path,
                problem: FolderProblem::SymlinkInProject
            }) if *path == link
        ));
    }
    // The user's own folder may be a link.
    std::fs::create_dir_all(sandbox.path("home-two")).unwrap();
    symlink(sandbox.path("outside"), sandbox.path("home-two/mcpServers")).unwrap();
    let ctx =
        DiscoveryContext::new("myagent", sandbox.path("project"), sandbox.home()).with_env([(
            "CONTINUE_GLOBAL_DIR",
            sandbox.path("home-two").display().to_string(),
        )]);
    let files = CONTINUE.load(&ctx);
    assert!(
        files.iter().any(|file| file.path
            == sandbox.path("home-two/mcpServers/secret-servers.yaml")
            && file.level == Level::User),
        "{files:?}"
    );
}
