//! The `agent-session` command line: starting a session the way an agent would, the
//! commands, and the guarantee that every server is disconnected before the process exits.

mod approve;
mod args;
mod call_args;
mod completions;
mod context_view;
mod ctrl_c;
mod demo;
mod demo_server;
mod editor;
mod elicit;
mod execute;
mod failure;
mod history;
mod launcher;
mod log_fields;
mod manage;
mod needs;
mod outcome;
mod output;
mod progress;
mod providers;
mod resources;
mod shell;
mod skills;
mod stdin;
mod style;
mod tasks;

use std::collections::BTreeSet;
use std::io::{IsTerminal, Write as _};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use agent_session::commands::{Interface, connect_limit};
use agent_session::{
    AgentSession, PreparedSession, SessionOptions, ToolSearchOptions, prepare_agent_session,
    terminal_text,
};
use mcp_cache::{CacheOptions, NoopToolCache, SledToolCache, ToolCache};
use mcp_manager::{ConnectionStatus, ManagedTool};
use mcp_transport::oauth::{FileCredentialStore, LoopbackBrowser};

use args::{CacheChoice, Cli, Command, Globals, Parsed};
use outcome::Outcome;
use progress::{LogOutput, ProgressLine};

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
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if let Some(code) = launcher::run_if_asked(&args) {
        return code;
    }
    let cli = match args::parse(args.clone()) {
        Parsed::Run(cli) => cli,
        Parsed::Print(text) => {
            output::print(&text);
            return ExitCode::SUCCESS;
        }
        Parsed::Usage(message) => {
            // The line did not parse, so `--json` is looked for by hand.
            let json = args.iter().any(|arg| arg == "--json");
            failure::report(json, failure::Kind::Usage, &message);
            return ExitCode::from(EXIT_USAGE);
        }
    };
    if let Command::DemoServer {
        ref name, slow_ms, ..
    } = cli.command
    {
        return ExitCode::from(demo_server::run(name, slow_ms));
    }
    if let Command::Completions { shell } = cli.command {
        completions::print(shell);
        return ExitCode::SUCCESS;
    }
    init_tracing();
    raise_open_files_limit();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            complain(&format!("cannot start the async runtime: {error}"));
            return ExitCode::from(EXIT_FAILED);
        }
    };
    let code = runtime.block_on(async {
        tokio::select! {
            code = run(*cli) => code,
            // Ctrl-C, and what `timeout`, IDEs, systemd and a closed terminal send: dropping
            // the command drops its session, whose transports kill every server's process group
            // on the spot.
            signal = stop_signal() => {
                if SESSION_STARTED.load(std::sync::atomic::Ordering::Relaxed) {
                    complain(&format!("{signal}; servers stopped"));
                } else {
                    complain(signal);
                }
                EXIT_INTERRUPTED
            }
        }
    });
    // Servers are already disconnected; nothing that is still running deserves a wait.
    runtime.shutdown_timeout(Duration::from_secs(1));
    ExitCode::from(code)
}

/// Raises the soft limit on open files to the hard limit: every stdio server takes a few
/// descriptors, and the usual soft limit of 1,024 would make the 300th server fail with "Too
/// many open files". Failing to raise it only leaves the limit as it was. The servers get the
/// old limit back from the launcher: programs that use `select` expect descriptors below 1,024.
fn raise_open_files_limit() {
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    match getrlimit(Resource::RLIMIT_NOFILE) {
        Ok((soft, hard)) if soft < hard => match setrlimit(Resource::RLIMIT_NOFILE, hard, hard) {
            Ok(()) => launcher::give_servers_open_files_limit(soft),
            Err(error) => {
                tracing::debug!(%error, soft, hard, "could not raise the open-files limit");
            }
        },
        Ok(_) => {}
        Err(error) => tracing::debug!(%error, "could not read the open-files limit"),
    }
}

/// Waits for a signal that asks the CLI to stop (SIGINT, SIGTERM, SIGHUP, SIGQUIT); what
/// came, for the message. A signal that cannot be listened for is left to its default action.
/// While the interactive shell runs, SIGINT (Ctrl-C) is its own: it cancels the running command
/// and the CLI goes on.
/// Whether this command has started its servers: what a stop signal's line may claim.
static SESSION_STARTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

async fn stop_signal() -> &'static str {
    use tokio::signal::unix::{SignalKind, signal};
    let listen = |kind: SignalKind| signal(kind).ok();
    let (mut interrupt, mut terminate, mut hangup, mut quit) = (
        listen(SignalKind::interrupt()),
        listen(SignalKind::terminate()),
        listen(SignalKind::hangup()),
        listen(SignalKind::quit()),
    );
    loop {
        tokio::select! {
            _ = received(interrupt.as_mut()) => {
                if !ctrl_c::is_taken() {
                    return "interrupted";
                }
            }
            _ = received(terminate.as_mut()) => return "terminated (SIGTERM)",
            _ = received(hangup.as_mut()) => return "hung up (SIGHUP)",
            _ = received(quit.as_mut()) => return "quit (SIGQUIT)",
        }
    }
}

/// The next signal of `stream`; never, without one.
async fn received(stream: Option<&mut tokio::signal::unix::Signal>) {
    match stream {
        Some(stream) => {
            stream.recv().await;
        }
        None => std::future::pending().await,
    }
}

/// One line on stderr: `agent-session: <message>` (the label in red on a colour terminal; the
/// message, which may quote a server, shown through [`terminal_text::escape`]).
pub(crate) fn complain(message: &str) {
    let label = style::error_label("agent-session:", style::stderr_colour());
    eprintln!("{label} {}", terminal_text::escape(message));
}

/// Logs to stderr (never stdout), filtered by `RUST_LOG` (`warn` by default), in colour only on
/// a terminal without `NO_COLOR`, held back while a progress line is open, and with every
/// message and field escaped as one line ([`log_fields`]).
fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(|| LogOutput)
        .with_ansi(style::stderr_colour())
        .without_time()
        .with_target(false)
        .fmt_fields(log_fields::EscapedFields)
        .try_init();
}

async fn run(cli: Cli) -> u8 {
    let Cli {
        mut globals,
        command,
    } = cli;
    // Hints name the command line as this one was typed, with the options that choose which
    // files are read (another agent's, another folder's), so a hint pasted here does the same.
    let mut reading = Vec::new();
    if globals.app != args::DEFAULT_APP {
        reading.push(format!("--app {}", shell_words::quote(&globals.app)));
    }
    if let Some(cwd) = &globals.cwd {
        reading.push(format!(
            "--cwd {}",
            shell_words::quote(&cwd.to_string_lossy())
        ));
    }
    if !reading.is_empty() {
        Interface::name_the_command_line(&reading.join(" "));
    }
    // `call --full` prints the whole result: nothing is cut, so no file keeps it.
    globals.whole_results = matches!(command, Command::Call { full: true, .. });
    if command == Command::Demo {
        return demo::run(&globals).await;
    }
    if let Command::CompleteNames { kind } = command {
        return completions::names(&globals, kind).await;
    }
    // The management commands start no session (`get` connects its one server itself).
    let command = match command {
        Command::Manage(manage) => return manage::run(&globals, manage).await,
        // Record or withdraw approvals, and start nothing.
        Command::Trust { names, yes } => return approve::run(&globals, &names, yes).await,
        Command::Untrust { names } => return approve::withdraw(&globals, &names),
        // Reads the config files and starts nothing.
        Command::Providers { all } => return providers::run(&globals, all),
        Command::Reload | Command::Reconnect { .. } => {
            let word = if command == Command::Reload {
                "reload"
            } else {
                "reconnect"
            };
            let message = format!(
                "`{word}` acts on a running session: type it in `agent-session shell`; a \
                 command of its own reads the config files afresh every time"
            );
            return Outcome::usage(failure::Kind::Usage, message).emit(globals.json);
        }
        command => command,
    };
    let mut ctx = execute::Context {
        interface: Interface::Cli,
        startup_tools: None,
        call_arguments: None,
    };
    // A call's arguments are read (from stdin or a file) before anything is started; a call
    // without a tool is a usage error before anything is started.
    if let Command::Call {
        tool, args, arg, ..
    } = &command
    {
        let arguments = match tool {
            Some(_) => execute::call_arguments(args.as_deref(), arg, Interface::Cli),
            None => Err(execute::call_without_a_tool(Interface::Cli)),
        };
        match arguments {
            Ok(arguments) => ctx.call_arguments = Some(arguments),
            Err(message) => {
                return Outcome::usage(failure::Kind::Usage, message).emit(globals.json);
            }
        }
    }
    // The task ledger is the state folder's of this app.
    tasks::set_app(&globals.app);
    // Only the servers the command needs are started: `login` and `logout` connect their
    // server themselves, once the login is done or forgotten; `tasks` those of its tasks.
    let named = execute::named_server(&command).map(str::to_owned);
    let needs = |discovery: &mcp_config::DiscoveryResult| match (&command, &named) {
        (
            Command::Call {
                tool: Some(tool), ..
            },
            _,
        ) => needs::for_tool(tool, discovery, Interface::Cli),
        (Command::Login { .. } | Command::Logout { .. }, Some(server)) => {
            needs::for_server(server, discovery, Interface::Cli).map(|_| Some(BTreeSet::new()))
        }
        (_, Some(server)) => needs::for_server(server, discovery, Interface::Cli),
        (Command::Tasks { server: None }, None) => Ok(Some(
            tasks::Ledger::of_this_cli()
                .kept()
                .into_iter()
                .map(|kept| kept.server)
                .filter(|server| discovery.servers.contains_key(server))
                .collect(),
        )),
        _ => Ok(None),
    };
    // `list --timeout-ms`, `test --timeout-ms`: no server is waited for longer, at the gate or
    // after it.
    let cap = match command {
        Command::List { timeout_ms } | Command::Test { timeout_ms, .. } => {
            timeout_ms.map(Duration::from_millis)
        }
        _ => None,
    };
    // The commands that report servers' state wait for them all, the line saying so; so does
    // `context`, whose search tool names each server with what it says of itself once connected.
    let wait = match command {
        Command::List { .. } | Command::Test { .. } | Command::Context => Wait::Connected,
        _ => Wait::Gate,
    };
    let mut running = match Running::start_needing(&globals, needs, cap, wait).await {
        Ok(running) => running,
        Err(message) => {
            return Outcome::usage(failure::Kind::Usage, message).emit(globals.json);
        }
    };
    // Problems are said once: by the command that reports them (`list`, a scoped command, a
    // call), else here, as warnings, before the command's output.
    if !reports_server_problems(&command) {
        // `login NAME` is the answer to NAME needing a login: that is not said first.
        let logging_in = match &command {
            Command::Login { name } => Some(name.as_str()),
            _ => None,
        };
        for problem in agent_session::commands::problems_to_say(running.session.problems()) {
            let answered = matches!(
                &problem,
                mcp_manager::Problem::Server { name, error, .. }
                    if Some(name.as_str()) == logging_in && error.needs_login()
            );
            if !answered {
                complain(&format!(
                    "warning: {}",
                    needs::problem_text(&problem, Interface::Cli)
                ));
            }
        }
    }
    // A listing of every server's tools (or resources, prompts, a search) leaves out those of
    // the servers waiting for approval: said, so that a freshly cloned project's missing tools
    // have a reason.
    if shows_every_server(&command)
        && let Some(waiting) = needs::waiting_for_approval(&running.session.discovery())
    {
        complain(&format!("warning: {waiting}"));
    }
    let code = if command == Command::Shell {
        shell::run(&running.session, globals.json, &globals.app).await
    } else {
        ctx.startup_tools = Some(std::mem::take(&mut running.startup_tools));
        execute::execute(&running.session, command, ctx)
            .await
            .emit(globals.json)
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
    /// Only the servers `needs` picks from what discovery found are started (all of them for
    /// `None`); `connect_cap` bounds how long any of them may take to connect.
    pub(crate) async fn start_needing(
        globals: &Globals,
        needs: impl FnOnce(&mcp_config::DiscoveryResult) -> Result<Option<BTreeSet<String>>, String>,
        connect_cap: Option<Duration>,
        wait: Wait,
    ) -> Result<Self, String> {
        let cwd = project_dir(globals.cwd.as_deref())?;
        let (cache, sled) = open_cache(&globals.cache(), &globals.app);
        let mut options = SessionOptions::new(globals.app.clone(), cwd)
            .project_config(globals.project_config())
            .cache(cache);
        // `--root DIR`: the folders servers are offered as roots (none without it).
        if !globals.roots.is_empty() {
            options = options.roots(&globals.roots);
        }
        // `--tool-search`, `--context-window`, `--tool-search-share`.
        let mut search = ToolSearchOptions::new(globals.tool_search.mode());
        if let Some(tokens) = globals.context_window {
            search = search.context_window(tokens);
        }
        if let Some(percent) = globals.tool_search_share {
            search = search.share_percent(percent);
        }
        options = options.tool_search(search);
        // A server's questions are asked on the terminal (and declined without one).
        options.load.manager.client.elicitation = Some(Arc::new(elicit::TerminalElicitation));
        // Servers die with the CLI, even when it is killed with SIGKILL.
        options.load.manager.launcher = launcher::for_this_process();
        if let Some(bytes) = globals.max_message_bytes {
            options.load.manager.max_message_bytes = bytes;
        }
        options.load.manager.connect_timeout_cap = connect_cap;
        if let Some(ms) = globals.gate_ms {
            options.load.manager.startup_timeout = Duration::from_millis(ms);
        }
        let gate = options.load.manager.startup_timeout;
        if globals.whole_results {
            options.load.manager.output_budget = None;
        }
        if let Some(budget) = &mut options.load.manager.output_budget {
            if let Some(bytes) = globals.output_budget {
                budget.max_bytes = bytes;
            }
            // The command ends right after it prints: a cut result's file must outlive it.
            budget.spill_dir = Some(agent_session::user_results_dir(&globals.app));
        }
        // Logins are kept in the user's config directory, and `login` asks in the browser.
        if let Ok(context) = options.load.discovery_context(&options.cwd) {
            let store = FileCredentialStore::new(context.credentials_file());
            options.load.manager.credentials = Arc::new(store);
        }
        options = options.authorization(Arc::new(browser_login()));
        let began = Instant::now();
        let mut prepared = prepare_agent_session(options);
        let mut only = None;
        if let Some(discovery) = prepared.discovery()
            && let Some(names) = needs(discovery)?
        {
            only = Some(names.clone());
            prepared = prepared.only_servers(names);
        }
        let mut progress = std::io::stderr()
            .is_terminal()
            .then(|| announce(&prepared, only.as_ref()))
            .flatten();
        let manager = prepared.manager().cloned();
        SESSION_STARTED.store(true, std::sync::atomic::Ordering::Relaxed);
        let session = match (progress.as_mut(), manager) {
            // Past the gate, the line names the servers it still waits for.
            (Some((line, names)), Some(manager)) => {
                let past_gate = tokio::time::Instant::now() + gate;
                let started = prepared.start();
                tail_while(started, line, &manager, names, false, past_gate)
                    .await
                    .session
            }
            _ => prepared.start().await.session,
        };
        if wait == Wait::Connected {
            // Every server started waited for (each within its own timeout), the line naming
            // those still connecting: it says "ready" only once they are.
            let waited = wait_for_connections(&session);
            match progress.as_mut() {
                Some((line, names)) => {
                    let now = tokio::time::Instant::now();
                    tail_while(waited, line, session.manager(), names, true, now).await;
                }
                None => waited.await,
            }
        }
        let startup_tools = session.manager().tools();
        if wait == Wait::Connected {
            // What the servers said of themselves once connected (their instructions) is in
            // the session now, not when its follower gets to it.
            session.refresh_mcp_tools(startup_tools.clone());
        }
        if let Some((line, names)) = progress {
            line.finish(&summary(&session, &names, &startup_tools, began.elapsed()));
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

/// The browser step of `login`: the URL on stderr, and in the browser when there is a terminal
/// (and so, likely, a user at a desktop).
fn browser_login() -> LoopbackBrowser {
    LoopbackBrowser::new(|url| {
        let _ = writeln!(
            std::io::stderr(),
            "To log in, open this page in your browser (waiting for it to come back):\n  {}",
            // The address is made of what the server's metadata says.
            terminal_text::escape_line(url.as_str())
        );
    })
    .open_browser(std::io::stderr().is_terminal())
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
        CacheChoice::UserDir => SledToolCache::in_app_cache_dir(
            mcp_config::app_cache_dir(app, |var| std::env::var_os(var)),
            CacheOptions::default(),
        ),
        CacheChoice::Dir(dir) => SledToolCache::open_at(dir.clone(), CacheOptions::default()),
    };
    (Arc::new(sled.clone()), Some(sled))
}

/// Opens `connecting 3 MCP servers (a, b, c)… ` on stderr, from what the session's own
/// discovery found and the command starts (`only`, when it starts some); `None` when there is
/// nothing to connect.
fn announce(
    prepared: &PreparedSession,
    only: Option<&BTreeSet<String>>,
) -> Option<(ProgressLine, Vec<String>)> {
    let names: Vec<String> = prepared
        .discovery()?
        .servers
        .keys()
        .filter(|name| only.is_none_or(|only| only.contains(*name)))
        .cloned()
        .collect();
    if names.is_empty() {
        return None;
    }
    let line = ProgressLine::start(&format!(
        "connecting {} MCP server{} ({})… ",
        names.len(),
        if names.len() == 1 { "" } else { "s" },
        names.join(", ")
    ));
    Some((line, names))
}

/// `waiting for slow, big`: the servers of `names` still connecting — those with no cached
/// tools only, past the startup gate (the others are deferred: the command can use them), or
/// every one when a command waits for them all (`all`); nothing when none is.
/// Awaits `work`, the progress line's tail naming the servers still [`connecting`] every
/// 100 ms from `first`.
async fn tail_while<T>(
    work: impl std::future::Future<Output = T>,
    line: &mut ProgressLine,
    manager: &mcp_manager::McpManager,
    names: &[String],
    all: bool,
    first: tokio::time::Instant,
) -> T {
    tokio::pin!(work);
    let mut tick = tokio::time::interval_at(first, Duration::from_millis(100));
    loop {
        tokio::select! {
            done = &mut work => return done,
            _ = tick.tick() => line.tail(&connecting(manager, names, all)),
        }
    }
}

fn connecting(manager: &mcp_manager::McpManager, names: &[String], all: bool) -> String {
    let offered: BTreeSet<String> = manager
        .tools()
        .into_iter()
        .map(|tool| tool.server)
        .collect();
    let waiting: Vec<&str> = names
        .iter()
        .filter(|name| {
            manager.get_connection_status(name) == ConnectionStatus::Connecting
                && (all || !offered.contains(*name))
        })
        .map(String::as_str)
        .collect();
    if waiting.is_empty() {
        String::new()
    } else {
        format!("waiting for {}", waiting.join(", "))
    }
}

/// How long a command waits for the servers it started, past the startup gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wait {
    /// Not past the gate: deferred servers (cached tools) connect while the command runs.
    Gate,
    /// Until every server started has connected or failed, each within its own timeout: the
    /// commands that report servers' state (`list`, `get`, `test`).
    Connected,
}

/// Waits until no server of `session` is still connecting, each for at most its own connect
/// timeout (and a second).
pub(crate) async fn wait_for_connections(session: &AgentSession) {
    let manager = session.manager();
    let discovery = session.discovery();
    // One after another: they all connect at once meanwhile, so this takes as long as the
    // slowest, and a wait for a server already connected returns at once.
    for name in manager.server_names() {
        if manager.get_connection_status(&name) != ConnectionStatus::Connecting {
            continue;
        }
        let limit = connect_limit(&discovery, &name);
        let _ = tokio::time::timeout(limit, manager.wait_for_connection(&name)).await;
    }
}

/// `ready in 254 ms (2 live, 1 deferred, 0 failed)`, which servers need a login, and how many
/// entries were skipped as invalid.
fn summary(
    session: &AgentSession,
    names: &[String],
    tools: &[ManagedTool],
    took: Duration,
) -> String {
    let (mut live, mut deferred, mut failed) = (0, 0, 0);
    let mut logins = Vec::new();
    for name in names {
        match session.manager().get_connection_status(name) {
            ConnectionStatus::Connected => live += 1,
            ConnectionStatus::Connecting if tools.iter().any(|tool| tool.server == *name) => {
                deferred += 1;
            }
            ConnectionStatus::NeedsLogin(_) => logins.push(name.as_str()),
            _ => failed += 1,
        }
    }
    let logins = match logins.as_slice() {
        [] => String::new(),
        [one] => format!("; {one} needs a login: {}", Interface::Cli.on("login", one)),
        many => format!(
            "; {} need a login ({}): {}",
            many.len(),
            Interface::Cli.bare("login NAME"),
            many.join(", ")
        ),
    };
    let waiting: Vec<String> = session
        .discovery()
        .skipped
        .iter()
        .filter(|skipped| matches!(skipped.reason, mcp_config::SkipReason::NeedsApproval))
        .map(|skipped| skipped.name.clone())
        .collect();
    let approvals = match waiting.as_slice() {
        [] => String::new(),
        [one] => format!(
            "; project server {one} needs approval: {}",
            Interface::Cli.on("trust", one)
        ),
        many => format!(
            "; {} project servers need approval ({}): {}",
            many.len(),
            Interface::Cli.bare("trust"),
            many.join(", ")
        ),
    };
    let invalid = match session.discovery().invalid().count() {
        0 => String::new(),
        1 => format!(
            "; 1 invalid entry skipped, see {}",
            Interface::Cli.command("list")
        ),
        count => format!(
            "; {count} invalid entries skipped, see {}",
            Interface::Cli.command("list")
        ),
    };
    format!(
        "ready in {} ms ({live} live, {deferred} deferred, {failed} failed){logins}{approvals}{invalid}",
        took.as_millis()
    )
}

/// Whether `command` shows what every server offers (no `--server`): the tools, resources,
/// prompts, skills, a search, the context.
fn shows_every_server(command: &Command) -> bool {
    match command {
        Command::Tools { server }
        | Command::Resources { server }
        | Command::Prompts { server }
        | Command::Skills { server }
        | Command::Search { server, .. } => server.is_none(),
        Command::Context => true,
        _ => false,
    }
}

/// Whether `command` reports what went wrong with the servers it started itself: `list` (its
/// table), a command scoped to one server (its reason), `call` (the reason its tool is
/// missing). The others say nothing of a server that failed.
fn reports_server_problems(command: &Command) -> bool {
    match command {
        Command::List { .. } | Command::Call { .. } => true,
        command => execute::scoped_server(command).is_some(),
    }
}
