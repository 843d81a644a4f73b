//! The `agent-session` command line: starting a session the way an agent would, the
//! commands, and the guarantee that every server is disconnected before the process exits.

mod args;
mod demo;
mod demo_server;
mod output;
mod shell;

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use agent_session::{AgentSession, SessionOptions, create_agent_session, run_mcp_command};
use mcp_bridge::{AgentTool, ToolOutput};
use mcp_cache::{CacheOptions, NoopToolCache, SledToolCache, ToolCache};
use mcp_config::{DiscoveryContext, DiscoveryOptions, load_all_configs};
use mcp_manager::{ConnectionStatus, ManagedTool};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use args::{CacheChoice, Cli, Command, Globals, USAGE};

/// Exit status: success.
pub(crate) const EXIT_OK: u8 = 0;
/// Exit status: a tool or a command failed.
pub(crate) const EXIT_FAILED: u8 = 1;
/// Exit status: a usage error.
pub(crate) const EXIT_USAGE: u8 = 2;
/// Exit status after Ctrl-C (128 + SIGINT, as shells report it).
pub(crate) const EXIT_INTERRUPTED: u8 = 130;

/// Runs the command line of this process.
pub(crate) fn main() -> ExitCode {
    let cli = match args::parse(std::env::args_os().skip(1)) {
        Ok(cli) => cli,
        Err(message) => {
            eprintln!("agent-session: {message}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    match cli.command {
        Command::Help => {
            output::print(USAGE);
            return ExitCode::SUCCESS;
        }
        Command::DemoServer { ref name, slow_ms } => {
            return ExitCode::from(demo_server::run(name, slow_ms));
        }
        _ => {}
    }
    init_tracing();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("agent-session: cannot start the async runtime: {error}");
            return ExitCode::from(EXIT_FAILED);
        }
    };
    let code = runtime.block_on(async {
        tokio::select! {
            code = run(cli) => code,
            // Ctrl-C: dropping the command drops its session, whose transports kill every
            // server's process group on the spot.
            _ = tokio::signal::ctrl_c() => {
                eprintln!("agent-session: interrupted; servers stopped");
                EXIT_INTERRUPTED
            }
        }
    });
    // Servers are already disconnected; nothing that is still running deserves a wait.
    runtime.shutdown_timeout(Duration::from_secs(1));
    ExitCode::from(code)
}

/// Logs to stderr (never stdout), filtered by `RUST_LOG`, `warn` by default.
fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .without_time()
        .with_target(false)
        .try_init();
}

async fn run(cli: Cli) -> u8 {
    let Cli { globals, command } = cli;
    if command == Command::Demo {
        return demo::run(&globals).await;
    }
    let running = match Running::start(&globals).await {
        Ok(running) => running,
        Err(message) => {
            eprintln!("agent-session: {message}");
            return EXIT_USAGE;
        }
    };
    let code = match command {
        Command::List => {
            // The same report as `/mcp list` in the shell.
            let listed = run_mcp_command(&running.session, "list").await;
            if globals.json {
                output::print_json(&listed.json, false);
            } else {
                output::print(&listed.text);
            }
            if listed.ok { EXIT_OK } else { EXIT_FAILED }
        }
        Command::Tools { server } => tools_command(&running, server.as_deref(), globals.json),
        Command::Call {
            tool,
            args,
            timeout,
        } => call_command(&running.session, &tool, args, timeout, globals.json).await,
        Command::Shell => shell::run(&running.session, globals.json).await,
        Command::Help | Command::Demo | Command::DemoServer { .. } => EXIT_OK,
    };
    running.stop().await;
    code
}

/// A started session, and what is needed to stop it cleanly.
pub(crate) struct Running {
    /// The session.
    pub(crate) session: Arc<AgentSession>,
    /// The tools it held right after the startup gate.
    pub(crate) startup_tools: Vec<ManagedTool>,
    /// The sled store, flushed and released at the end.
    sled: Option<SledToolCache>,
}

impl Running {
    /// Starts a session with the command line's options (a line on stderr while servers
    /// connect, when stderr is a terminal).
    pub(crate) async fn start(globals: &Globals) -> Result<Self, String> {
        let cwd = project_dir(globals.cwd.as_deref())?;
        let (cache, sled) = open_cache(&globals.cache, &globals.app);
        let options = SessionOptions::new(globals.app.clone(), cwd.clone())
            .project_config(globals.project_config)
            .cache(cache);
        let progress = std::io::stderr().is_terminal();
        let announced = progress.then(|| announce(globals, &cwd)).flatten();
        let began = Instant::now();
        let started = create_agent_session(options).await;
        let session = started.session;
        let startup_tools = session.manager().tools();
        if let Some(announced) = announced {
            finish_announcement(&session, &announced, &startup_tools, began.elapsed());
        }
        Ok(Self {
            session,
            startup_tools,
            sled,
        })
    }

    /// Disconnects every server and releases the cache.
    pub(crate) async fn stop(self) {
        self.session.shutdown().await;
        if let Some(sled) = self.sled {
            sled.close().await;
        }
    }
}

/// `--cwd` as an absolute directory, or the current directory.
fn project_dir(cwd: Option<&Path>) -> Result<PathBuf, String> {
    let current = std::env::current_dir()
        .map_err(|error| format!("cannot read the current directory: {error}"));
    match cwd {
        None => current,
        Some(dir) => {
            let absolute = if dir.is_absolute() {
                dir.to_path_buf()
            } else {
                current?.join(dir)
            };
            if !absolute.is_dir() {
                return Err(format!(
                    "--cwd {}: no such directory; give the project folder",
                    dir.display()
                ));
            }
            Ok(std::fs::canonicalize(&absolute).unwrap_or(absolute))
        }
    }
}

/// The cache of `--cache-dir` / `--no-cache`, and the sled store to close at the end.
pub(crate) fn open_cache(
    choice: &CacheChoice,
    app: &str,
) -> (Arc<dyn ToolCache>, Option<SledToolCache>) {
    let sled = match choice {
        CacheChoice::Off => return (Arc::new(NoopToolCache::new()), None),
        CacheChoice::UserDir => SledToolCache::in_user_cache_dir(app, CacheOptions::default()),
        CacheChoice::Dir(dir) => SledToolCache::open_at(dir.clone(), CacheOptions::default()),
    };
    (Arc::new(sled.clone()), Some(sled))
}

/// What the look-ahead of the stderr line found.
struct Announced {
    /// The servers being connected.
    names: Vec<String>,
    /// Entries skipped as invalid.
    invalid: usize,
}

/// Writes `connecting N MCP servers (a, b, …)… ` on stderr; what it announced, if anything.
fn announce(globals: &Globals, cwd: &Path) -> Option<Announced> {
    let context = DiscoveryContext::from_process(globals.app.clone(), cwd).ok()?;
    let options = DiscoveryOptions::default()
        .project_config(globals.project_config)
        .filter_exa(true);
    // The session's own discovery reports the problems; this look-ahead stays quiet.
    let found =
        tracing::subscriber::with_default(tracing::subscriber::NoSubscriber::default(), || {
            load_all_configs(&context, &options)
        });
    let names: Vec<String> = found.configs.into_keys().collect();
    let mut invalid: Vec<&str> = found
        .errors
        .iter()
        .filter_map(|error| error.server.as_deref())
        .collect();
    invalid.sort_unstable();
    invalid.dedup();
    if names.is_empty() {
        return None;
    }
    let plural = if names.len() == 1 { "" } else { "s" };
    let mut stderr = std::io::stderr().lock();
    let _ = write!(
        stderr,
        "connecting {} MCP server{plural} ({})… ",
        names.len(),
        names.join(", ")
    );
    let _ = stderr.flush();
    Some(Announced {
        names,
        invalid: invalid.len(),
    })
}

/// Ends the stderr line: how long the gate took and how the servers stand.
fn finish_announcement(
    session: &AgentSession,
    announced: &Announced,
    tools: &[ManagedTool],
    took: Duration,
) {
    let (mut live, mut deferred, mut failed) = (0, 0, 0);
    for name in &announced.names {
        match session.manager().get_connection_status(name) {
            ConnectionStatus::Connected => live += 1,
            ConnectionStatus::Connecting => {
                if tools.iter().any(|tool| tool.server == *name) {
                    deferred += 1;
                } else {
                    failed += 1;
                }
            }
            _ => failed += 1,
        }
    }
    let mut stderr = std::io::stderr().lock();
    let invalid = match announced.invalid {
        0 => String::new(),
        1 => "; 1 invalid entry skipped, see `agent-session list`".to_owned(),
        count => format!("; {count} invalid entries skipped, see `agent-session list`"),
    };
    let _ = writeln!(
        stderr,
        "ready in {} ms ({live} live, {deferred} deferred, {failed} failed){invalid}",
        took.as_millis()
    );
}

fn tools_command(running: &Running, server: Option<&str>, json: bool) -> u8 {
    let tools: Vec<ManagedTool> = running
        .startup_tools
        .iter()
        .filter(|tool| server.is_none_or(|server| tool.server == server))
        .cloned()
        .collect();
    if let Some(server) = server {
        let snapshot = running.session.discovery();
        let known = snapshot.configs.contains_key(server)
            || snapshot.disabled.contains_key(server)
            || tools.iter().any(|tool| tool.server == server);
        if !known {
            eprintln!(
                "agent-session: no MCP server named \"{server}\"; run `agent-session list` to \
                 see the servers"
            );
            return EXIT_USAGE;
        }
    }
    if json {
        output::print_json(&output::tools_json(&tools), false);
    } else {
        output::print(&output::tools_text(&tools));
    }
    EXIT_OK
}

/// A tool by its registered name, or by `server/tool`.
pub(crate) fn find_tool(session: &AgentSession, name: &str) -> Option<Arc<dyn AgentTool>> {
    session.tool(name).or_else(|| {
        session
            .manager()
            .tools()
            .into_iter()
            .find(|managed| {
                managed.tool.name() == name
                    || format!("{}/{}", managed.server, managed.original_name) == name
            })
            .map(|managed| managed.tool)
    })
}

/// The one-line message for a tool that does not exist.
pub(crate) fn unknown_tool(name: &str) -> String {
    format!(
        "unknown tool \"{name}\"; run `agent-session tools` (or `tools` in the shell) to see the \
         tools"
    )
}

/// Runs a tool (a deferred one first waits for its server); a timeout cancels the call.
pub(crate) async fn call_tool(
    tool: &Arc<dyn AgentTool>,
    args: Value,
    timeout: Option<Duration>,
) -> ToolOutput {
    let cancel = CancellationToken::new();
    let call = tool.execute(args, cancel.clone());
    let result = match timeout {
        None => call.await,
        Some(limit) => match tokio::time::timeout(limit, call).await {
            Ok(result) => result,
            Err(_) => {
                cancel.cancel();
                return ToolOutput::error(format!(
                    "the call of {} timed out after {} ms and was cancelled",
                    tool.name(),
                    limit.as_millis()
                ));
            }
        },
    };
    result.unwrap_or_else(|cancelled| ToolOutput::error(cancelled.to_string()))
}

async fn call_command(
    session: &Arc<AgentSession>,
    name: &str,
    args: Value,
    timeout: Option<Duration>,
    json: bool,
) -> u8 {
    let Some(tool) = find_tool(session, name) else {
        eprintln!("agent-session: {}", unknown_tool(name));
        return EXIT_USAGE;
    };
    let result = call_tool(&tool, args, timeout).await;
    if json {
        output::print_json(&output::call_json(&result), false);
    } else {
        output::print(&result.to_text());
    }
    if result.is_error {
        EXIT_FAILED
    } else {
        EXIT_OK
    }
}
