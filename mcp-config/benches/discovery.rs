//! Discovery benchmark: what finding the user's servers costs an agent at every start.
//!
//! ```text
//! cargo bench -p mcp-config --bench discovery -- [--quick]
//! ```
//!
//! A home and a project (a Git repository, the agent started in its `src/` folder) hold a file
//! of every built-in provider in that tool's own format — user files and project files, about
//! 40 files and 200 servers, stdio and remote, with `${VAR}` references — plus an enterprise
//! policy in the managed folder. Then [`load_all_configs`] runs over them again and again,
//! "warm": the files are in the operating system's page cache, as on any start but the first
//! after a boot. The report gives the median and p90 of one discovery, the files and servers it
//! found, and whether the median is within the target of 5 ms.
//!
//! The timing is reported, never asserted: these machines are shared and noisy. What is
//! asserted is that discovery found every file and server it was given, so the figure is the
//! cost of the whole job.
//!
//! `--quick` repeats less. Without `--bench` (as `cargo test --benches` runs it) it is a smoke
//! run that only proves every step works; with `--list` (as `cargo nextest` asks) it prints
//! nothing. Other flags are ignored.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use mcp_config::{DiscoveryContext, DiscoveryOptions, TrustPolicy, load_all_configs};
use serde_json::{Value, json};

/// The target for the median of one warm discovery.
const TARGET: Duration = Duration::from_millis(5);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scale {
    Full,
    Quick,
    Smoke,
}

impl Scale {
    fn repetitions(self) -> usize {
        match self {
            Self::Full => 400,
            Self::Quick => 60,
            Self::Smoke => 2,
        }
    }
}

fn main() -> ExitCode {
    let (mut list, mut bench, mut quick) = (false, false, false);
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--list" => list = true,
            "--bench" => bench = true,
            "--quick" => quick = true,
            _ => {}
        }
    }
    if list {
        return ExitCode::SUCCESS;
    }
    let scale = match (bench, quick) {
        (_, true) => Scale::Quick,
        (true, false) => Scale::Full,
        (false, false) => Scale::Smoke,
    };
    match run(scale) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("discovery: error: {error}");
            ExitCode::FAILURE
        }
    }
}

/// A home, a repository and a managed folder under the temporary folder, removed on drop.
struct Machine {
    root: PathBuf,
    files: usize,
    servers: usize,
}

impl Machine {
    fn new() -> Result<Self, String> {
        let root = std::env::temp_dir().join(format!("mcp-config-bench-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        for folder in ["home", "repo/.git", "repo/src", "managed"] {
            std::fs::create_dir_all(root.join(folder)).map_err(|e| e.to_string())?;
        }
        Ok(Self {
            root,
            files: 0,
            servers: 0,
        })
    }

    fn ctx(&self) -> DiscoveryContext {
        DiscoveryContext::new(
            "myagent",
            self.root.join("repo/src"),
            self.root.join("home"),
        )
        .with_managed_dir(self.root.join("managed"))
        .with_env([("HOME", "/home/u"), ("TOKEN", "t0k3n"), ("API_KEY", "k")])
    }

    /// Writes `text` at `path` (relative to the root), counting `servers` servers in it.
    fn write(&mut self, path: &str, servers: usize, text: &str) -> Result<(), String> {
        let path = self.root.join(path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
        }
        std::fs::write(&path, text).map_err(|e| e.to_string())?;
        self.files += 1;
        self.servers += servers;
        Ok(())
    }

    /// Writes a JSON file whose servers are `count` common-shape entries under `key` (a path
    /// of keys, `a.b`), named `<prefix>-<n>`.
    fn json_servers(
        &mut self,
        path: &str,
        key: &str,
        prefix: &str,
        count: usize,
    ) -> Result<(), String> {
        let servers: serde_json::Map<String, Value> = (0..count)
            .map(|n| (format!("{prefix}-{n}"), entry(n)))
            .collect();
        let mut root = Value::Object(servers);
        for part in key.rsplit('.') {
            root = json!({ part: root });
        }
        if key == "amp.mcpServers" {
            root = json!({ "amp.mcpServers": root["amp"]["mcpServers"] });
        }
        self.write(
            path,
            count,
            &serde_json::to_string_pretty(&root).map_err(|e| e.to_string())?,
        )
    }
}

impl Drop for Machine {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// A common-shape entry: every third one remote, the others stdio with an argument list and a
/// `${VAR}` in their environment.
fn entry(n: usize) -> Value {
    if n % 3 == 2 {
        json!({"url": format!("https://mcp{n}.example.com/mcp"), "headers": {"Authorization": "Bearer ${TOKEN}"}})
    } else {
        json!({
            "command": "npx",
            "args": ["-y", format!("@example/server-{n}"), "--root", "${HOME}/work"],
            "env": {"API_KEY": "${API_KEY}", "LOG_LEVEL": "info"},
        })
    }
}

/// Every provider's files, in each tool's own format.
fn fill(machine: &mut Machine) -> Result<(), String> {
    // This agent's own, Claude Code's, Cursor's, Windsurf's, Claude Desktop's, Kiro's, Junie's,
    // Warp's, LM Studio's, Roo Code's, Cline's and Gemini CLI's common `mcpServers` shape.
    for (path, prefix, count) in [
        ("repo/.myagent/mcp.json", "native-project", 5),
        ("home/.config/myagent/mcp.json", "native-user", 10),
        ("repo/.mcp.json", "claude-project", 10),
        ("repo/src/.cursor/mcp.json", "cursor-project", 5),
        ("home/.cursor/mcp.json", "cursor-user", 10),
        ("home/.codeium/windsurf/mcp_config.json", "windsurf", 10),
        (
            "home/.config/Claude/claude_desktop_config.json",
            "desktop",
            10,
        ),
        ("repo/src/.kiro/settings/mcp.json", "kiro-project", 5),
        ("home/.kiro/settings/mcp.json", "kiro-user", 5),
        ("home/.junie/mcp/mcp.json", "junie", 5),
        ("repo/.warp/.mcp.json", "warp-project", 3),
        ("home/.warp/.mcp.json", "warp-user", 5),
        ("home/.lmstudio/mcp.json", "lmstudio", 5),
        ("repo/src/.roo/mcp.json", "roo-project", 3),
        (
            "home/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json",
            "roo-user",
            5,
        ),
        (
            "home/.cline/data/settings/cline_mcp_settings.json",
            "cline",
            5,
        ),
        ("repo/src/.gemini/settings.json", "gemini-project", 5),
        ("home/.gemini/settings.json", "gemini-user", 10),
        ("managed/managed-mcp.json", "managed", 3),
        ("repo/.github/mcp.json", "copilot-project", 3),
        ("home/.copilot/mcp-config.json", "copilot-user", 5),
        ("repo/src/.qwen/settings.json", "qwen-project", 3),
        ("home/.qwen/settings.json", "qwen-user", 5),
    ] {
        machine.json_servers(path, "mcpServers", prefix, count)?;
    }
    // ~/.claude.json: user servers and the repository's "local" ones.
    let user: serde_json::Map<String, Value> = (0..10)
        .map(|n| (format!("claude-user-{n}"), entry(n)))
        .collect();
    let local: serde_json::Map<String, Value> = (0..5)
        .map(|n| (format!("claude-local-{n}"), entry(n)))
        .collect();
    let repo = machine.root.join("repo").display().to_string();
    let claude = json!({"mcpServers": user, "projects": {repo: {"mcpServers": local}}});
    machine.write("home/.claude.json", 15, &claude.to_string())?;
    // VS Code: `servers`; Amp: the literal key "amp.mcpServers".
    machine.json_servers("repo/src/.vscode/mcp.json", "servers", "vscode-project", 5)?;
    machine.json_servers(
        "home/.config/Code/User/mcp.json",
        "servers",
        "vscode-user",
        10,
    )?;
    machine.json_servers(
        "repo/.amp/settings.json",
        "amp.mcpServers",
        "amp-project",
        3,
    )?;
    machine.json_servers(
        "home/.config/amp/settings.json",
        "amp.mcpServers",
        "amp-user",
        5,
    )?;
    // Zed: `context_servers`; Crush: `mcp`.
    machine.json_servers(
        "repo/src/.zed/settings.json",
        "context_servers",
        "zed-project",
        3,
    )?;
    machine.json_servers(
        "home/.config/zed/settings.json",
        "context_servers",
        "zed-user",
        5,
    )?;
    machine.json_servers("repo/crush.json", "mcp", "crush-project", 3)?;
    machine.json_servers("home/.config/crush/crush.json", "mcp", "crush-user", 5)?;
    // OpenCode: `mcp` with local command arrays and remote entries.
    for (path, prefix, count) in [
        ("repo/opencode.json", "opencode-project", 5),
        ("home/.config/opencode/opencode.json", "opencode-user", 10),
    ] {
        let servers: serde_json::Map<String, Value> = (0..count)
            .map(|n| {
                let entry = if n % 3 == 2 {
                    json!({"type": "remote", "url": format!("https://oc{n}.example.com/mcp")})
                } else {
                    json!({"type": "local", "command": ["npx", "-y", format!("@example/oc-{n}")],
                           "environment": {"API_KEY": "{env:API_KEY}"}})
                };
                (format!("{prefix}-{n}"), entry)
            })
            .collect();
        machine.write(path, count, &json!({ "mcp": servers }).to_string())?;
    }
    // Codex: TOML tables.
    for (path, prefix, count) in [
        ("repo/.codex/config.toml", "codex-project", 5),
        ("home/.codex/config.toml", "codex-user", 10),
    ] {
        let mut text = String::from("model = \"o4\"\n");
        for n in 0..count {
            if n % 3 == 2 {
                text.push_str(&format!(
                    "\n[mcp_servers.{prefix}-{n}]\nurl = \"https://cx{n}.example.com/mcp\"\nbearer_token_env_var = \"TOKEN\"\n"
                ));
            } else {
                text.push_str(&format!(
                    "\n[mcp_servers.{prefix}-{n}]\ncommand = \"npx\"\nargs = [\"-y\", \"@example/cx-{n}\"]\nenv = {{ API_KEY = \"${{API_KEY}}\" }}\n"
                ));
            }
        }
        machine.write(path, count, &text)?;
    }
    // Goose: YAML extensions.
    let mut goose = String::from("GOOSE_PROVIDER: openai\nextensions:\n");
    for n in 0..5 {
        goose.push_str(&format!(
            "  goose-{n}:\n    name: goose-{n}\n    type: stdio\n    enabled: true\n    cmd: npx\n    args: [\"-y\", \"@example/goose-{n}\"]\n    envs: {{ API_KEY: \"$API_KEY\" }}\n    timeout: 300\n"
        ));
    }
    machine.write("home/.config/goose/config.yaml", 5, &goose)?;
    // Continue: a YAML list in config.yaml and a block in the workspace's servers folder.
    for (path, prefix, count) in [
        ("home/.continue/config.yaml", "continue-user", 5),
        (
            "repo/src/.continue/mcpServers/team.yaml",
            "continue-project",
            3,
        ),
    ] {
        let mut yaml = String::from("name: Bench\nversion: 0.0.1\nschema: v1\nmcpServers:\n");
        for n in 0..count {
            yaml.push_str(&format!(
                "  - name: {prefix}-{n}\n    command: npx\n    args: [\"-y\", \"@example/continue-{n}\"]\n    env: {{ API_KEY: \"${{API_KEY}}\" }}\n"
            ));
        }
        machine.write(path, count, &yaml)?;
    }
    // The administrator's policy, which discovery checks every server against.
    machine.write(
        "managed/managed-settings.json",
        0,
        &json!({"deniedMcpServers": [{"serverName": "banned"}, {"serverUrl": "https://*.evil.example/*"}]})
            .to_string(),
    )?;
    Ok(())
}

fn run(scale: Scale) -> Result<(), String> {
    let mut machine = Machine::new()?;
    fill(&mut machine)?;
    let ctx = machine.ctx();
    // Every project server approved, so every definition goes all the way through.
    let options = DiscoveryOptions::default().trust(TrustPolicy::TrustAll);

    // Warm the page cache, and check the job is whole: every file read, every server found.
    let found = load_all_configs(&ctx, &options);
    if !found.file_errors.is_empty() {
        let errors: Vec<String> = found
            .file_errors
            .iter()
            .map(|e| e.error.to_string())
            .collect();
        return Err(format!("a file did not load: {errors:?}"));
    }
    let seen = found.servers.len() + found.skipped.len();
    if seen != machine.servers {
        let mut names: Vec<&str> = found.names().into_iter().collect();
        names.sort_unstable();
        return Err(format!(
            "discovery saw {seen} definitions of the {} written: {names:?}",
            machine.servers
        ));
    }

    let mut samples: Vec<Duration> = (0..scale.repetitions())
        .map(|_| {
            let started = Instant::now();
            let found = load_all_configs(&ctx, &options);
            let elapsed = started.elapsed();
            std::hint::black_box(found);
            elapsed
        })
        .collect();
    samples.sort_unstable();
    let at = |fraction: f64| samples[((samples.len() - 1) as f64 * fraction).round() as usize];
    let (median, p90) = (at(0.5), at(0.9));
    let within = if median <= TARGET { "met" } else { "NOT met" };
    println!(
        "discovery of {} files, {} servers ({} in use), warm: median {:.2} ms, p90 {:.2} ms \
         over {} runs; target ≤ {} ms: {within}",
        machine.files,
        machine.servers,
        found.servers.len(),
        median.as_secs_f64() * 1000.0,
        p90.as_secs_f64() * 1000.0,
        samples.len(),
        TARGET.as_millis(),
    );
    println!(
        "{}",
        json!({
            "bench": "discovery",
            "scale": format!("{scale:?}").to_lowercase(),
            "files": machine.files,
            "servers": machine.servers,
            "median_ms": median.as_secs_f64() * 1000.0,
            "p90_ms": p90.as_secs_f64() * 1000.0,
            "target_ms": TARGET.as_millis(),
        })
    );
    Ok(())
}
