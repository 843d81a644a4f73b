//! The commands that act on a running session, one table for the command line and the shell:
//! both parse with the same clap declaration ([`super::args::Command`]) and come here, so
//! `call … --arg K=V`, `resources`, `read`, `prompts`, `prompt` and the argument check against
//! the tool's schema are the same words with the same messages in both. What differs is only
//! where the [`Outcome`] is shown, and the command a hint names ([`Interface`]).
//!
//! The management commands (`add`, `remove`, `enable`, `disable`, `trust`, `untrust`) run
//! without a session on the command line; in the shell they go to the session's `/mcp`
//! controller, which writes the same files and then reloads (the list of servers changed),
//! except `trust`, which records approvals and starts nothing, and `untrust`, which reloads
//! only when it withdrew an approval (so that server stops).

use std::io::IsTerminal as _;
use std::sync::Arc;
use std::time::Duration;

use agent_session::AgentSession;
use agent_session::commands::{Interface, run_command};
use mcp_bridge::{AgentTool, ToolOutput};
use mcp_manager::ManagedTool;
use mcp_transport::CallToolResult;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::args::{Command, ManageCommand};
use super::call_args::{self, CallArguments};
use super::failure::{self, Kind};
use super::manage;
use super::outcome::Outcome;
use super::{context_view, needs, output, resources, skills, tasks};

/// What a command needs beyond the session.
pub(crate) struct Context {
    /// Where the command was typed.
    pub(crate) interface: Interface,
    /// The tools right after the startup gate, for the command line's `tools`; `None` shows
    /// the session's tools now.
    pub(crate) startup_tools: Option<Vec<ManagedTool>>,
    /// `call`'s arguments, when they were read before the session started (from stdin or a
    /// file, on the command line); `None` reads them from the command.
    pub(crate) call_arguments: Option<CallArguments>,
}

impl Context {
    /// A command typed in the shell.
    pub(crate) fn shell() -> Self {
        Self {
            interface: Interface::Shell,
            startup_tools: None,
            call_arguments: None,
        }
    }
}

/// Runs `command` against `session`.
pub(crate) async fn execute(
    session: &Arc<AgentSession>,
    command: Command,
    ctx: Context,
) -> Outcome {
    let interface = ctx.interface;
    if let Some(server) = named_server(&command) {
        // On the command line an unknown name was refused before anything started.
        if let Err(message) = needs::for_server(server, &session.discovery(), interface) {
            return Outcome::usage(Kind::Usage, message);
        }
    }
    if let Some(server) = scoped_server(&command)
        && let Some(reason) = needs::scoped_failure(session, server, interface)
    {
        return Outcome::failed(Kind::Server, reason);
    }
    let manager = session.manager();
    match command {
        Command::List { .. } => list(session, interface).await,
        Command::Tools { server } => {
            let tools: Vec<ManagedTool> = ctx
                .startup_tools
                .unwrap_or_else(|| manager.tools())
                .into_iter()
                .filter(|tool| server.as_deref().is_none_or(|server| tool.server == server))
                .collect();
            let discovery = session.discovery();
            let configured = !discovery.servers.is_empty() || !discovery.skipped.is_empty();
            Outcome::ok(
                output::tools_text(&tools, configured, interface),
                output::tools_json(&tools),
            )
        }
        Command::Search {
            query,
            limit,
            server,
        } => {
            let limit = limit.unwrap_or(agent_session::tool_search::DEFAULT_SEARCH_LIMIT);
            search_command(
                session,
                &query.join(" "),
                limit,
                server.as_deref(),
                interface,
            )
            .await
        }
        Command::Context => {
            let context = session.tool_context();
            // A bar per server on a terminal; numbers a script can read elsewhere.
            let text = if std::io::stdout().is_terminal() {
                context_view::bars(&context)
            } else {
                agent_session::commands::context_text(&context)
            };
            Outcome::ok(text, context.to_json())
        }
        Command::Resources { server } => {
            resources::resources_command(manager, server.as_deref(), interface).await
        }
        Command::Read { server, uri } => {
            resources::read_command(manager, &server, &uri, interface).await
        }
        Command::Prompts { server } => {
            resources::prompts_command(manager, server.as_deref(), interface).await
        }
        Command::Prompt { server, name, arg } => {
            resources::prompt_command(manager, &server, &name, arg, interface).await
        }
        Command::Skills { server } => {
            skills::skills_command(manager, server.as_deref(), interface).await
        }
        Command::Skill { server, name, file } => {
            skills::skill_command(session, &server, &name, file.as_deref(), interface).await
        }
        Command::Call {
            tool,
            args,
            arg,
            timeout_ms,
            full,
        } => {
            let Some(tool) = tool else {
                return Outcome::usage(Kind::Usage, call_without_a_tool(interface));
            };
            let arguments = match ctx.call_arguments {
                Some(arguments) => arguments,
                None => match call_arguments(args.as_deref(), &arg, interface) {
                    Ok(arguments) => arguments,
                    Err(message) => return Outcome::usage(Kind::Usage, message),
                },
            };
            let call = Call {
                timeout: timeout_ms.map(Duration::from_millis),
                shown: if full {
                    Shown::Whole
                } else {
                    Shown::AsTheModelGetsIt
                },
                interface,
            };
            call_command(session, &tool, arguments, call).await
        }
        Command::Tasks { server } => {
            tasks::tasks_command(manager, server.as_deref(), interface).await
        }
        Command::Task { server, id } => tasks::task_command(manager, &server, &id, interface).await,
        Command::Cancel { server, id } => {
            tasks::cancel_command(manager, &server, &id, interface).await
        }
        Command::Login { name } => session_command(session, interface, "login", &[name]).await,
        Command::Logout { name } => session_command(session, interface, "logout", &[name]).await,
        Command::Untrust { names } => session_command(session, interface, "untrust", &names).await,
        Command::Trust { mut names, yes } => {
            if yes {
                names.insert(0, "--yes".to_owned());
            }
            session_command(session, interface, "trust", &names).await
        }
        Command::Test { name, timeout_ms } => {
            let mut words = vec![name];
            if let Some(ms) = timeout_ms {
                words.extend(["--timeout-ms".to_owned(), ms.to_string()]);
            }
            // A test that fails is its server's failure.
            session_command(session, interface, "test", &words)
                .await
                .failing_as(Kind::Server)
        }
        Command::Reconnect { name } => {
            session_command(session, interface, "reconnect", &[name]).await
        }
        Command::Reload => session_command(session, interface, "reload", &[]).await,
        Command::Providers { all } => super::providers::report(session.options(), all, interface),
        Command::Manage(ManageCommand::Get { name }) => {
            manage::get_in_session(session, &name, interface)
        }
        Command::Manage(change) => {
            let line = shell_words::join(change.config_words());
            Outcome::of_command(run_command(session, &line, interface).await)
        }
        // Both callers keep these from a session: the command line runs them before one
        // starts, and the shell refuses them as it parses (`args::parse_shell_line`).
        Command::Shell
        | Command::Completions { .. }
        | Command::CompleteNames { .. }
        | Command::Demo
        | Command::DemoServer { .. } => Outcome::usage(
            Kind::Usage,
            "not a command of a running session; type `help` for the commands",
        ),
    }
}

/// `search`: the tools the session's index finds, best first; a pattern that cannot be used is
/// a usage error saying why.
async fn search_command(
    session: &AgentSession,
    query: &str,
    limit: usize,
    server: Option<&str>,
    interface: Interface,
) -> Outcome {
    match session.search_tools(query, limit, server).await {
        Ok(found) => Outcome::ok(
            agent_session::commands::search_text(query, &found),
            agent_session::commands::search_json(query, &found),
        ),
        Err(error) => Outcome::usage(
            Kind::Usage,
            format!(
                "{}; write the pattern again, or search with words: {}",
                agent_session::render::one_line(&error.to_string()),
                interface.command("search QUERY")
            ),
        ),
    }
}

/// The usage error of `call` without a tool name.
pub(crate) fn call_without_a_tool(interface: Interface) -> String {
    format!(
        "`call` needs a tool name: {}; run {} to see the tools",
        interface.command("call TOOL [ARGS_JSON]"),
        interface.command("tools")
    )
}

/// `command NAME…` on the session's `/mcp` controller, each word quoted as a shell would.
async fn session_command(
    session: &Arc<AgentSession>,
    interface: Interface,
    command: &str,
    words: &[String],
) -> Outcome {
    let line = std::iter::once(command.to_owned())
        .chain(
            words
                .iter()
                .map(|word| shell_words::quote(word).into_owned()),
        )
        .collect::<Vec<_>>()
        .join(" ");
    Outcome::of_command(run_command(session, &line, interface).await)
}

/// `list`: the status report; a failure when a server does not work or a file could not be
/// read, so a script can trust the status. On the command line, what each server came to, not
/// where it was at the startup gate: a server still connecting (its cached tools offered
/// meanwhile) is waited for, within its own timeout (or `--timeout-ms`, which then fails it as
/// timed out). The shell shows the session as it is now.
async fn list(session: &Arc<AgentSession>, interface: Interface) -> Outcome {
    // In the shell as on the command line (where the startup waited already): the servers
    // still connecting are waited for, so the table says how each went.
    super::wait_for_connections(session).await;
    let listed = run_command(session, "list", interface).await;
    let failing = failure::list_failed(&listed.json);
    Outcome::of_command(listed).or_failing(failing)
}

/// The one server a command names (its [`scoped_server`], `login NAME`, `logout NAME`, or the
/// server part of `call SERVER/TOOL`): a name no file defines is refused before anything
/// starts.
pub(crate) fn named_server(command: &Command) -> Option<&str> {
    match command {
        Command::Login { name } | Command::Logout { name } => Some(name),
        Command::Call {
            tool: Some(tool), ..
        } => tool.split_once('/').map(|(server, _)| server),
        command => scoped_server(command),
    }
}

/// The one server a command is scoped to, whose connection it uses (`tools --server NAME`,
/// `resources --server NAME`, `prompts --server NAME`, `skills --server NAME`, `read NAME …`,
/// `prompt NAME …`, `skill NAME …`, `test NAME`): only it is started, and the command fails at
/// once with its reason when it cannot serve.
pub(crate) fn scoped_server(command: &Command) -> Option<&str> {
    match command {
        Command::Tools { server }
        | Command::Resources { server }
        | Command::Prompts { server }
        | Command::Skills { server }
        | Command::Search { server, .. } => server.as_deref(),
        Command::Read { server, .. }
        | Command::Prompt { server, .. }
        | Command::Skill { server, .. }
        | Command::Task { server, .. }
        | Command::Cancel { server, .. } => Some(server),
        Command::Tasks { server } => server.as_deref(),
        Command::Test { name, .. } => Some(name),
        _ => None,
    }
}

/// `call`'s arguments from the command: inline JSON, `@FILE`, `--arg` pairs; `-` (stdin) only
/// on the command line, as the shell's stdin holds its commands.
pub(crate) fn call_arguments(
    raw: Option<&str>,
    pairs: &[(String, String)],
    interface: Interface,
) -> Result<CallArguments, String> {
    if interface == Interface::Shell && raw == Some("-") {
        return Err(
            "the shell reads its commands from stdin, so `-` cannot give the arguments here; \
             write them inline, as @FILE, or with --arg KEY=VALUE"
                .to_owned(),
        );
    }
    call_args::resolve(raw, pairs)
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

/// Runs a tool (a deferred one first waits for its server); a timeout cancels the call.
pub(crate) async fn call_tool(
    tool: &Arc<dyn AgentTool>,
    args: Value,
    timeout: Option<Duration>,
) -> ToolOutput {
    call_tool_keeping_tasks(tool, args, timeout, None)
        .await
        .output
}

/// How long a cancelled call (Ctrl-C, `--timeout-ms`) may take to tell its server: a task's
/// `tasks/cancel` is given 5 s by the client.
const CANCEL_GRACE: Duration = Duration::from_secs(10);

/// What a call of `call` did.
pub(crate) struct Called {
    pub(crate) output: ToolOutput,
    /// The task the call became (the Tasks extension), if it did.
    pub(crate) task_id: Option<String>,
    /// Ctrl-C cancelled the call (on the command line).
    pub(crate) interrupted: bool,
}

/// [`call_tool`], keeping the task the call becomes in the CLI's ledger while it runs (under
/// the `server` given) and, on the command line, taking Ctrl-C: it cancels the call (a task
/// with `tasks/cancel`) and waits for the server to be told before the CLI exits.
pub(crate) async fn call_tool_keeping_tasks(
    tool: &Arc<dyn AgentTool>,
    args: Value,
    timeout: Option<Duration>,
    keep: Option<(String, Interface)>,
) -> Called {
    let cancel = CancellationToken::new();
    // On a terminal, the server's progress reports show on a line of their own while the
    // call runs (`calling mcp_x_y… 3 of 10: indexing`, a task's `task working: step 2`).
    let shown = std::io::stderr()
        .is_terminal()
        .then(|| super::progress::CallProgress::new(tool.name()));
    let display = shown.as_ref().map(super::progress::CallProgress::sink);
    let task_id = Arc::new(std::sync::OnceLock::<String>::new());
    let kept = Arc::new(std::sync::Mutex::new(None::<tokio::task::JoinHandle<()>>));
    let sink: Option<mcp_bridge::ProgressSink> = match (&keep, display) {
        (None, display) => display,
        (Some((server, _)), display) => {
            let (task_id, kept) = (Arc::clone(&task_id), Arc::clone(&kept));
            let (server, name) = (server.clone(), tool.name().to_owned());
            Some(Arc::new(move |report: mcp_bridge::ToolProgress| {
                if let Some(id) = &report.task_id
                    && task_id.set(id.clone()).is_ok()
                {
                    // The ledger is a locked file: written away from the connection's task.
                    let entry = tasks::Kept {
                        server: server.clone(),
                        task_id: id.clone(),
                        tool: name.clone(),
                        started: tasks::now_seconds(),
                    };
                    let writing = tokio::task::spawn_blocking(move || {
                        tasks::Ledger::of_this_cli().keep(entry);
                    });
                    *kept
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(writing);
                }
                if let Some(display) = &display
                    && (report.task_id.is_none() || report.message.is_some())
                {
                    display(report);
                }
            }))
        }
    };
    let call = match sink {
        Some(sink) => tool.execute_with_progress(args, cancel.clone(), sink),
        None => tool.execute(args, cancel.clone()),
    };
    let timed_out = std::sync::atomic::AtomicBool::new(false);
    let limited = async {
        let Some(limit) = timeout else {
            return call.await;
        };
        tokio::pin!(call);
        match tokio::time::timeout(limit, &mut call).await {
            Ok(result) => result,
            Err(_) => {
                timed_out.store(true, std::sync::atomic::Ordering::Relaxed);
                // Cancelled, not dropped: the call ends once its server was told (a task's
                // tasks/cancel is waited for, a few seconds at most).
                cancel.cancel();
                let _ = tokio::time::timeout(CANCEL_GRACE, &mut call).await;
                Ok(ToolOutput::error(format!(
                    "the call of {} timed out after {} ms and was cancelled",
                    tool.name(),
                    limit.as_millis()
                )))
            }
        }
    };
    tokio::pin!(limited);
    let mut interrupted = false;
    let result = if matches!(&keep, Some((_, Interface::Cli))) {
        let _taken = super::ctrl_c::Taken::take();
        tokio::select! {
            result = &mut limited => result,
            () = super::ctrl_c::interrupted() => {
                interrupted = true;
                cancel.cancel();
                // The call ends once the server was told (a task's tasks/cancel is waited for,
                // a few seconds at most).
                match tokio::time::timeout(CANCEL_GRACE, &mut limited).await {
                    Ok(result) => result,
                    Err(_) => Ok(ToolOutput::error("the server did not take the cancellation")),
                }
            }
        }
    } else {
        limited.await
    };
    drop(shown);
    let output = result.unwrap_or_else(|cancelled| ToolOutput::error(cancelled.to_string()));
    let task_id = task_id.get().cloned();
    // A call that failed without being cancelled (its connection broke) may leave its task
    // running: it stays in the ledger, for `tasks` to find.
    let call_failed = output.is_error && output.details.get("isError").is_none();
    let cancelled = interrupted || timed_out.load(std::sync::atomic::Ordering::Relaxed);
    if let (Some(id), Some((server, _)), true) = (&task_id, &keep, cancelled || !call_failed) {
        let writing = kept
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        if let Some(writing) = writing {
            let _ = writing.await;
        }
        // The call saw its task end, or cancelled it: nothing is left to find.
        let (server, id) = (server.clone(), id.clone());
        let _ = tokio::task::spawn_blocking(move || {
            tasks::Ledger::of_this_cli().forget(&server, &id);
        })
        .await;
    }
    Called {
        output,
        task_id,
        interrupted,
    }
}

/// How much of a tool's result `call` shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shown {
    /// What the model gets: within the output budget.
    AsTheModelGetsIt,
    /// The whole result (`--full`).
    Whole,
}

/// How a call is made and shown.
struct Call {
    timeout: Option<Duration>,
    shown: Shown,
    interface: Interface,
}

async fn call_command(
    session: &Arc<AgentSession>,
    name: &str,
    arguments: CallArguments,
    call: Call,
) -> Outcome {
    let interface = call.interface;
    let Some(tool) = find_tool(session, name) else {
        // A tool of a server that could not start: that server's error, not "unknown tool".
        let failures = needs::failures_behind(session, name, interface);
        if !failures.is_empty() {
            return Outcome::failed(Kind::Server, failures.join("\n"));
        }
        let message = match needs::servers_with_a_tool_named(session, name).as_slice() {
            // A tool's own name is no name alone: the servers that have it say which to call.
            [] => format!(
                "unknown tool \"{name}\"{}; run {} to see the tools",
                needs::suggestions(session, name),
                interface.command("tools")
            ),
            found => format!(
                "\"{name}\" names a tool only with its server: call {}",
                found.join(" or ")
            ),
        };
        return Outcome::usage(Kind::UnknownTool, message);
    };
    // `--arg` values read by the schema; then refused before the call, with the field named,
    // rather than by the server.
    let args = match arguments.for_schema(tool.parameters()) {
        Ok(args) => args,
        Err(message) => return Outcome::usage(Kind::Arguments, message),
    };
    if let Err(mismatch) = mcp_bridge::check_arguments(tool.parameters(), &args) {
        let message = format!(
            "{mismatch} (tool {}); {} shows its input schema",
            tool.name(),
            interface.command("tools --json")
        );
        return Outcome::usage(Kind::Arguments, message);
    }
    // The server whose tool it is: the task a call becomes is kept under its name.
    let server = session
        .manager()
        .tools()
        .into_iter()
        .find(|managed| managed.tool.name() == tool.name())
        .map(|managed| managed.server);
    let called = call_tool_keeping_tasks(
        &tool,
        args,
        call.timeout,
        server.clone().map(|server| (server, interface)),
    )
    .await;
    let task = called
        .task_id
        .as_ref()
        .map(|task_id| (server.clone().unwrap_or_default(), task_id.clone()));
    if called.interrupted {
        let message = match &task {
            Some((server, task_id)) => format!(
                "interrupted; the call of {} was cancelled (task {task_id}: {server} was asked to \
                 cancel it)",
                tool.name()
            ),
            None => format!("interrupted; the call of {} was cancelled", tool.name()),
        };
        return Outcome::interrupted(message);
    }
    let mut result = called.output;
    // The call itself failed (the server died, the timeout passed, the connection broke): an
    // error, said once. A result the tool gave (`isError` included) is a result.
    if result.is_error && result.details.get("isError").is_none() {
        // The error itself, as every other is said: the model's `MCP error: ` is not ours.
        let error = result.details.get("error").and_then(Value::as_str);
        let message = error.map_or_else(|| result.to_text(), str::to_owned);
        return Outcome::failed(Kind::Server, message);
    }
    if call.shown == Shown::Whole {
        result = whole(result);
    }
    let (text, mut json) = (result.to_text(), output::call_json(&result));
    if let Some((server, task_id)) = &task {
        // A task that failed is a failed call (above): this one completed, an `isError`
        // result included.
        json["task"] =
            serde_json::json!({"server": server, "taskId": task_id, "status": "completed"});
    }
    if result.is_error {
        Outcome::failing(text, json)
    } else {
        Outcome::ok(text, json)
    }
}

/// The whole result behind an output the budget cut: its raw MCP result, kept in the details,
/// converted again without the budget.
fn whole(output: ToolOutput) -> ToolOutput {
    if output.details.get("truncated").is_none() {
        return output;
    }
    let text = |key: &str| {
        output
            .details
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let (server, tool) = (text("server"), text("tool"));
    match serde_json::from_value::<CallToolResult>(output.details.clone()) {
        Ok(raw) => mcp_bridge::convert::convert_result(&raw, &server, &tool),
        Err(_) => output,
    }
}
