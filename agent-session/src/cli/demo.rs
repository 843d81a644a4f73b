//! `agent-session demo`: the runtime's life cycle, step by step, with the demo server built into
//! this binary (`agent-session demo-server`), so it needs no network, Node or Python.
//!
//! It writes a throw-away project whose `.mcp.json` holds a fast server and a slow one (its
//! `tools/list` answers after 1.5 s), with a home folder of its own so that none of the user's
//! servers join in, and then shows discovery, the startup gate without and with the tool cache,
//! a live and a deferred tool call, `/mcp reload` and the shutdown, checking in `/proc` that no
//! server process is left.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use agent_session::{
    AgentSession, SessionOptions, create_agent_session, prepare_agent_session, run_mcp_command,
};
use mcp_cache::{CacheOptions, SledToolCache};
use mcp_config::DiscoveryContext;
use mcp_manager::{ConnectionStatus, ManagedTool, discovery_problems};
use serde_json::{Value, json};

use super::args::Globals;
use super::execute::{call_tool, find_tool};
use super::{EXIT_FAILED, EXIT_OK, output};

/// How long the slow server takes to answer `tools/list`.
const SLOW_MS: u64 = 1500;
/// How long the demo waits for something that should happen at once (a process to go away,
/// a background connection).
const PATIENCE: Duration = Duration::from_secs(10);

fn say(text: &str) {
    output::print(text);
}

fn step(number: usize, title: &str) {
    say(&format!("\n{number}. {title}"));
}

/// A folder removed when dropped.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs the demo; exit status 0 when every step did what it should.
pub(crate) async fn run(globals: &Globals) -> u8 {
    let stamp = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_nanos());
    let marker = format!("agent-session-demo-{}-{stamp}", std::process::id());
    let root = TempDir(std::env::temp_dir().join(&marker));
    let outcome = demo(globals, &root.0, &marker).await;
    // Whatever happened, no demo server may outlive the demo.
    let left = wait_for_no_process(&marker).await;
    let outcome = outcome.and_then(|()| match left.as_slice() {
        [] => Ok(()),
        pids => Err(format!("demo server processes still running: {pids:?}")),
    });
    match outcome {
        Ok(()) => {
            say("\nThe demo is over: every step worked and no server process is left.");
            say(
                "Next: `agent-session list`, `tools`, `call` and `shell` on your own configs \
                 (see README.md).",
            );
            EXIT_OK
        }
        Err(message) => {
            eprintln!(
                "agent-session demo: {}",
                agent_session::terminal_text::escape(&message)
            );
            EXIT_FAILED
        }
    }
}

async fn demo(globals: &Globals, root: &Path, marker: &str) -> Result<(), String> {
    say("agent-session demo: discovery, the startup gate, tool calls, a reload and the shutdown,");
    say("with the demo MCP server built into this program (no network needed).");

    // 1. Discovery.
    step(1, "Discovery");
    let project = root.join("project");
    let home = root.join("home");
    for dir in [&project, &home] {
        std::fs::create_dir_all(dir)
            .map_err(|error| format!("cannot create {}: {error}", dir.display()))?;
    }
    let exe = std::env::current_exe()
        .map_err(|error| format!("cannot find this program's path: {error}"))?;
    let exe = exe.display().to_string();
    let server = |name: &str, slow: bool| {
        let mut args = vec!["demo-server", "--name", name, "--marker", marker];
        let slow_ms = SLOW_MS.to_string();
        if slow {
            args.extend(["--slow-ms", slow_ms.as_str()]);
        }
        json!({"command": exe, "args": args})
    };
    let config =
        json!({"mcpServers": {"fast": server("fast", false), "slow": server("slow", true)}});
    let config_path = project.join(".mcp.json");
    let text = serde_json::to_string_pretty(&config).map_err(|error| error.to_string())?;
    std::fs::write(&config_path, text)
        .map_err(|error| format!("cannot write {}: {error}", config_path.display()))?;
    say(&format!("   a throw-away project: {}", project.display()));
    say("   its .mcp.json (the Claude Code project file) names two servers, both this program's");
    say(&format!(
        "   hidden `demo-server` command; \"slow\" answers tools/list after {SLOW_MS} ms."
    ));
    // A home of its own: none of the user's servers join the demo.
    let context =
        DiscoveryContext::new(globals.app.clone(), &project, &home)
            .with_env(Vec::<(String, String)>::new());
    let cache = SledToolCache::open_at(root.join("cache"), CacheOptions::default());
    let mut options = SessionOptions::new(globals.app.clone(), &project)
        .context(context)
        .cache(Arc::new(cache.clone()));
    options.load.manager.launcher = super::launcher::for_this_process();
    // Servers of a project's files run only once approved: the demo approves its own.
    agent_session::approve_project_servers(&options, None)
        .map_err(|error| format!("cannot approve the demo's servers: {error}"))?;
    // The session's own discovery, before anything is started.
    let prepared = prepare_agent_session(options.clone());
    let found = prepared.discovery().cloned().unwrap_or_default();
    drop(prepared);
    say(&format!(
        "   discovery read every provider's files and found {} servers:",
        found.servers.len()
    ));
    for (name, server) in &found.servers {
        let source = &server.source.meta;
        say(&format!(
            "     {name:<5} {:<5} from {} ({} level) {}",
            server.config.transport_kind().as_str(),
            source.provider_name,
            source.level,
            source.path.display()
        ));
    }
    for problem in discovery_problems(&found) {
        say(&format!("     problem: {problem}"));
    }
    if found.servers.len() != 2 {
        cache.close().await;
        return Err("discovery should have found the two demo servers".to_owned());
    }

    let result = gates_calls_reload(&options, marker).await;
    cache.close().await;
    result
}

/// Steps 2 to 6; every session is shut down before this returns, whatever happened.
async fn gates_calls_reload(options: &SessionOptions, marker: &str) -> Result<(), String> {
    // 2. The startup gate, first run.
    step(2, "The startup gate, first run (empty tool cache)");
    say("   The gate answers after 250 ms with what is ready. \"slow\" is not ready and has no");
    say("   cache entry, so the session waits for it: correctness over speed.");
    let (session, tools) = start(options).await;
    let first = expect_tools(&tools, &["fast", "slow"]);
    session.shutdown().await;
    first?;
    say("   session closed; both tool lists are now in the cache.");
    let left = wait_for_no_process(marker).await;
    if !left.is_empty() {
        return Err(format!(
            "servers still running after the shutdown: {left:?}"
        ));
    }

    // 3. The startup gate, second run.
    step(3, "The startup gate, second run (same tool cache)");
    say("   \"slow\" still needs 1.5 s, but its tools come from the cache as deferred tools:");
    say("   the session starts within the gate and the server finishes in the background.");
    let (session, tools) = start(options).await;
    let deferred = tools
        .iter()
        .any(|tool| tool.server == "slow" && tool.deferred);
    if !deferred {
        say("   (this machine is busy: the cache did not answer within the gate, so \"slow\" was");
        say("   awaited again; the rest of the demo works the same)");
    }
    let result = match expect_tools(&tools, &["fast", "slow"]) {
        Ok(()) => calls_and_reload(&session).await,
        Err(error) => Err(error),
    };

    // 6. Shutdown.
    step(6, "Shutdown");
    let began = Instant::now();
    session.shutdown().await;
    say(&format!(
        "   session.shutdown() disconnected every server in {} ms:",
        began.elapsed().as_millis()
    ));
    for server in ["fast", "slow"] {
        say(&format!(
            "     {server:<5} {}",
            session.manager().get_connection_status(server).as_str()
        ));
    }
    let left = wait_for_no_process(marker).await;
    say(&format!(
        "   demo server processes left (looked for the marker in /proc): {}",
        left.len()
    ));
    result?;
    if left.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "servers still running after the shutdown: {left:?}"
        ))
    }
}

/// Steps 4 and 5, on a running session.
async fn calls_and_reload(session: &Arc<AgentSession>) -> Result<(), String> {
    // 4. Tool calls.
    step(4, "Tool calls");
    call(
        session,
        "mcp_fast_echo",
        json!({"message": "hello from the demo"}),
    )
    .await?;
    call(session, "mcp_fast_add", json!({"a": 2, "b": 40})).await?;
    let slow_deferred =
        session.manager().get_connection_status("slow") != ConnectionStatus::Connected;
    if slow_deferred {
        say(
            "   mcp_slow_word_count is deferred: the call waits for \"slow\" to connect, then runs.",
        );
    }
    call(
        session,
        "mcp_slow_word_count",
        json!({"text": "the quick brown fox jumps"}),
    )
    .await?;

    // 5. Reload.
    step(5, "/mcp reload");
    say("   Re-reads the config files from disk, restarts only the servers whose definition");
    say("   changed (none here: the others stay connected) and refreshes the session's tools,");
    say("   without restarting the session.");
    let began = Instant::now();
    let reloaded = run_mcp_command(session, "reload").await;
    say(&format!(
        "   /mcp reload ({} ms):",
        began.elapsed().as_millis()
    ));
    for line in reloaded.text.lines() {
        say(&format!("     {line}"));
    }
    if !reloaded.ok {
        return Err(format!("/mcp reload failed: {}", reloaded.text));
    }
    let tools = session.manager().tools();
    show_tools(&tools);
    expect_tools(&tools, &["fast", "slow"])?;
    if session.manager().get_connection_status("slow") != ConnectionStatus::Connected {
        let began = Instant::now();
        let mut refreshes = session.refreshes();
        refreshes.mark_unchanged();
        let connected = tokio::time::timeout(PATIENCE, async {
            while session.manager().get_connection_status("slow") != ConnectionStatus::Connected {
                if refreshes.changed().await.is_err() {
                    break;
                }
            }
        })
        .await;
        if connected.is_err() {
            return Err("\"slow\" did not connect in the background".to_owned());
        }
        let live = session
            .manager()
            .tools()
            .iter()
            .filter(|tool| !tool.deferred)
            .count();
        say(&format!(
            "   \"slow\" connected in the background {} ms later; the session refreshed its tools \
             on its own: {live} live tools now.",
            began.elapsed().as_millis()
        ));
    }
    Ok(())
}

/// Starts a session: how long the gate took and the tools it answered with.
/// Starts a session, and shows how long the startup gate took and the tools it answered with.
async fn start(options: &SessionOptions) -> (Arc<AgentSession>, Vec<ManagedTool>) {
    let began = Instant::now();
    let started = create_agent_session(options.clone()).await;
    let took = began.elapsed();
    for problem in &agent_session::commands::problems_to_say(started.problems.clone()) {
        say(&format!("   problem: {problem}"));
    }
    let tools = started.session.manager().tools();
    say(&format!(
        "   ready in {} ms with {} tools:",
        took.as_millis(),
        tools.len()
    ));
    show_tools(&tools);
    (started.session, tools)
}

fn show_tools(tools: &[ManagedTool]) {
    for tool in tools {
        let state = if tool.deferred {
            "deferred (from the cache; its server is still connecting)"
        } else {
            "live"
        };
        say(&format!("     {:<20} {state}", tool.tool.name()));
    }
}

fn expect_tools(tools: &[ManagedTool], servers: &[&str]) -> Result<(), String> {
    for server in servers {
        if !tools.iter().any(|tool| tool.server == *server) {
            return Err(format!("the session has no tools of \"{server}\""));
        }
    }
    Ok(())
}

async fn call(session: &Arc<AgentSession>, name: &str, args: Value) -> Result<(), String> {
    let Some(tool) = find_tool(session, name) else {
        return Err(format!("the session has no tool {name}"));
    };
    let began = Instant::now();
    let result = call_tool(&tool, args.clone(), Some(PATIENCE)).await;
    let structured = result
        .details
        .get("structuredContent")
        .filter(|value| !value.is_null())
        .map(|value| format!(", structured {value}"))
        .unwrap_or_default();
    say(&format!(
        "   {name} {args} → {:?}{structured} ({} ms)",
        result.to_text(),
        began.elapsed().as_millis()
    ));
    if result.is_error {
        return Err(format!("{name} failed: {}", result.to_text()));
    }
    Ok(())
}

/// Waits (a little) until no process carries `marker` on its command line; the pids left.
async fn wait_for_no_process(marker: &str) -> Vec<i32> {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let pids = processes_with(marker);
        if pids.is_empty() || Instant::now() >= deadline {
            return pids;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Live (not zombie) processes other than this one with `marker` as an argument, from `/proc`.
fn processes_with(marker: &str) -> Vec<i32> {
    let own = std::process::id();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| {
            let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
            if pid == own {
                return None;
            }
            let cmdline = std::fs::read(entry.path().join("cmdline")).ok()?;
            if !cmdline
                .split(|byte| *byte == 0)
                .any(|arg| arg == marker.as_bytes())
            {
                return None;
            }
            let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
            let state = stat
                .get(stat.rfind(')')? + 1..)?
                .split_whitespace()
                .next()?;
            (!matches!(state, "Z" | "X"))
                .then(|| i32::try_from(pid).ok())
                .flatten()
        })
        .collect()
}
