//! The `discover` example, run the way a user runs it, with `HOME` pointed at a folder that holds
//! the config files of four different tools.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Builds the example with the real environment (cargo and rustup live in the real home) and
/// returns its path.
fn discover_binary() -> PathBuf {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(cargo)
        .current_dir(workspace_root())
        .args([
            "build",
            "--quiet",
            "-p",
            "mcp-config",
            "--example",
            "discover",
        ])
        .args(["--message-format", "json"])
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
        .stdout
        .split(|byte| *byte == b'\n')
        .filter_map(|line| serde_json::from_slice::<Value>(line).ok())
        .filter(|message| message["target"]["name"] == json!("discover"))
        .find_map(|message| message["executable"].as_str().map(PathBuf::from))
        .expect("cargo reports the example's executable")
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn discover_prints_each_server_once_with_its_source_and_the_shadowed_ones() {
    let root = std::env::temp_dir().join(format!("mcp-config-discover-{}", std::process::id()));
    let home = root.join("home");
    let project = root.join("project");
    std::fs::create_dir_all(&project).unwrap();
    let project = project.canonicalize().unwrap();

    // Claude Code (user scope), Codex, Cursor and Gemini CLI.
    write(
        &home.join(".claude.json"),
        &json!({"mcpServers": {
            "github": {"type": "stdio", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"], "env": {"GITHUB_TOKEN": "ghp_secret"}}
        }})
        .to_string(),
    );
    write(
        &home.join(".codex/config.toml"),
        "[mcp_servers.github]\ncommand = \"codex-github\"\n\n[mcp_servers.docs]\nurl = \"https://docs.example.com/mcp\"\nbearer_token_env_var = \"DOCS_TOKEN\"\n",
    );
    write(
        &home.join(".cursor/mcp.json"),
        &json!({"mcpServers": {
            "linear": {"url": "https://mcp.linear.app/sse", "type": "sse"},
            "github": {"command": "cursor-github"}
        }})
        .to_string(),
    );
    write(
        &home.join(".gemini/settings.json"),
        &json!({"theme": "dark", "mcpServers": {
            "fs": {"command": "mcp-fs", "args": ["/tmp"], "timeout": 5000}
        }})
        .to_string(),
    );

    let output = Command::new(discover_binary())
        .args(["--cwd"])
        .arg(&project)
        .args(["--app", "discover-test"])
        .env("HOME", &home)
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("CODEX_HOME")
        .env("DOCS_TOKEN", "docs-secret")
        .output()
        .expect("the example runs");
    let _ = std::fs::remove_dir_all(&root);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8(output.stdout).unwrap();
    for secret in ["ghp_secret", "docs-secret"] {
        assert!(!stdout.contains(secret), "a secret leaked: {stdout}");
    }
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["errors"], json!([]), "{report}");

    let servers = report["servers"].as_array().unwrap();
    let names: Vec<&str> = servers
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["docs", "fs", "github", "linear"],
        "each server once"
    );
    let by_name = |name: &str| servers.iter().find(|s| s["name"] == json!(name)).unwrap();

    let github = by_name("github");
    assert_eq!(github["source"]["provider"], json!("claude-code"));
    assert_eq!(github["source"]["provider_name"], json!("Claude Code"));
    assert_eq!(github["source"]["level"], json!("user"));
    assert_eq!(
        github["source"]["path"],
        json!(home.join(".claude.json").display().to_string())
    );
    let shadowed: Vec<&str> = github["shadowed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["provider"].as_str().unwrap())
        .collect();
    assert_eq!(shadowed, ["codex", "cursor"]);
    assert_eq!(github["transport"], json!("stdio"));

    assert_eq!(by_name("docs")["source"]["provider"], json!("codex"));
    assert_eq!(by_name("docs")["transport"], json!("http"));
    assert_eq!(by_name("linear")["source"]["provider"], json!("cursor"));
    assert_eq!(by_name("linear")["transport"], json!("sse"));
    assert_eq!(by_name("fs")["source"]["provider"], json!("gemini"));
    assert_eq!(by_name("fs")["config"]["timeout"], json!(5000));
}
