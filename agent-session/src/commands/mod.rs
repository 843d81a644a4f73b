//! The `/mcp` command controller: `help`, `list`, `reload`, `add`, `add-json`, `remove`, `enable`,
//! `disable`, `test`, `reconnect`, `login`, `logout`, `trust`, `untrust`, `search`, `context`.
//!
//! [`run_mcp_command`] takes what follows `/mcp` on a line, splits it into words like a shell
//! does, runs the command against a session and answers with a [`CommandOutput`]: text for
//! people and a JSON value for programs. Every usage error is one line saying what is wrong and
//! the right form.
//!
//! `add`, `add-json`, `remove`, `enable` and `disable` write only this agent's own config files
//! (through [`mcp_config::writer`]) and then reload the session, so a change applies at once.
//! [`run_config_command`] runs the same commands, with the same parser, without a session (the
//! `agent-session add` … of the command line): nothing is connected. What a
//! command knows about the servers comes from the session (the discovery it keeps, its
//! manager): no command reads a config file itself.
//!
//! | module | holds |
//! |---|---|
//! | `parse` | splitting a line, flags, `--`, one-line usage errors |
//! | `status` | the status view: one row per server, with its [`ServerStatus`] |
//! | `list`, `reload`, `add`, `remove`, `enable`, `test`, `reconnect`, `login` | one handler each (`login` holds logout too) |
//! | `config` | the config-changing commands without a session |
//! | `tool_search` | `search` and `context`: the session's tool search |

mod add;
mod config;
mod enable;
mod list;
#[cfg(feature = "oauth")]
mod login;
mod parse;
mod reconnect;
mod reload;
mod remove;
mod status;
mod test;
mod tool_search;
mod trust;

use std::sync::Arc;
use std::time::Duration;

use mcp_manager::ServerError;
use mcp_transport::McpClient;
use serde_json::{Value, json};

use crate::session::AgentSession;
pub use config::{CONFIG_COMMANDS, run_config_command};
pub use status::ServerStatus;
pub use tool_search::{context_text, mode_line, search_json, search_text, share, thousands};
pub use trust::withdrawn_text;

/// Where a command is typed: a shell's `/mcp` line, or the `agent-session` command line. Every
/// usage line and hint a command gives names its commands as they are typed there, from this one
/// table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Interface {
    /// `agent-session COMMAND …`.
    Cli,
    /// A `/mcp COMMAND …` line (the `agent-session shell`, or an agent's own).
    Shell,
}

/// The command line as hints name it when plain `agent-session` would mean another agent's
/// files (`agent-session --app my-agent `); set once, by the CLI ([`Interface::name_the_command_line`]).
static COMMAND_LINE: std::sync::OnceLock<String> = std::sync::OnceLock::new();

impl Interface {
    /// `/mcp ` or `agent-session ` (with the options [`name_the_command_line`](Self::name_the_command_line) gave).
    pub fn prefix(self) -> &'static str {
        match self {
            Self::Shell => "/mcp ",
            Self::Cli => COMMAND_LINE.get().map_or("agent-session ", String::as_str),
        }
    }

    /// Makes every later command-line hint of this process carry `options` (such as
    /// `--app my-agent`), so a command typed as a hint shows it reads the same files. The
    /// first call wins; the CLI makes it at its start, from its own arguments.
    pub fn name_the_command_line(options: &str) {
        let _ = COMMAND_LINE.set(format!("agent-session {options} "));
    }

    /// `rest` as a command to type here, in backquotes: `` `agent-session list` `` or
    /// `` `/mcp list` ``.
    pub fn command(self, rest: &str) -> String {
        format!("`{}{rest}`", self.prefix())
    }

    /// `rest` as a command to type here, bare: `agent-session list` or `/mcp list`.
    pub fn bare(self, rest: &str) -> String {
        format!("{}{rest}", self.prefix())
    }

    /// The usage line of the command whose form is `form` (`login NAME`).
    pub fn usage(self, form: &str) -> String {
        format!("usage: {}", self.bare(form))
    }

    /// `command SERVER` to type here, bare, the server's name quoted as a shell reads it: a
    /// name from a cloned file (`x; touch f #`) is one word when the hint is pasted.
    pub fn on(self, command: &str, server: &str) -> String {
        self.bare(&format!("{command} {}", shell_words::quote(server)))
    }

    /// [`on`](Self::on) in backquotes.
    pub fn command_on(self, command: &str, server: &str) -> String {
        format!("`{}`", self.on(command, server))
    }

    /// What ends every message about a server that needs a login: `` log in with
    /// `agent-session login NAME` ``.
    pub fn login_hint(self, server: &str) -> String {
        format!("log in with {}", self.command_on("login", server))
    }
}

/// What a command printed, for people (`text`) and for programs (`json`).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct CommandOutput {
    /// False for a usage error or a failed command.
    pub ok: bool,
    /// True when the command was not run because it was given wrongly (a usage error), not
    /// because it failed: the command line exits 2 for it, 1 for a failure.
    pub usage: bool,
    /// Human-readable text (may span lines). Tables and one-line messages are already escaped
    /// for a terminal; the rest may quote what servers and config files wrote, so write it to a
    /// terminal through [`crate::terminal_text::escape`].
    pub text: String,
    /// The same as a JSON value.
    pub json: Value,
}

impl CommandOutput {
    /// A successful output.
    pub fn ok(text: impl Into<String>, json: Value) -> Self {
        Self {
            ok: true,
            usage: false,
            text: text.into(),
            json,
        }
    }

    /// A failed command's report: one line saying what is wrong and what to do.
    pub fn failed(text: impl Into<String>) -> Self {
        let text = text.into();
        Self {
            ok: false,
            usage: false,
            json: json!({"error": text}),
            text,
        }
    }

    /// A command given wrongly: one line naming the bad piece and the usage.
    pub fn usage(text: impl Into<String>) -> Self {
        Self {
            usage: true,
            ..Self::failed(text)
        }
    }
}

/// The help text of `/mcp`.
pub const HELP: &str = "\
/mcp help                                   this text
/mcp list                                   servers with status, transport, source, tool count, last error
/mcp reload                                 re-read the config files and apply them: restart the
                                            servers whose definition changed, start new ones, retry
                                            failed ones, stop removed or disabled ones; the others
                                            keep their connection. With MCP off it reads no file
                                            and stops every server
/mcp add NAME [--scope project|user] [-e KEY=VALUE]... -- COMMAND [ARGS...]
                                            add a stdio server (everything after -- is its command
                                            line; -e sets a variable of its environment)
/mcp add NAME [--transport http|sse] [--scope project|user] [-H 'Name: value']... URL
                                            add a remote server (default http; -H sends a header;
                                            --token TOKEN sends \"Authorization: Bearer TOKEN\")
/mcp add-json NAME JSON [--scope project|user]
                                            add a server from its JSON entry, as config files write
                                            it: '{\"command\": \"npx\", \"args\": [\"-y\", \"pkg\"]}'
                                            or '{\"type\": \"http\", \"url\": \"https://...\"}'
/mcp remove NAME [--scope project|user]     delete a server from this agent's own config
/mcp enable NAME                            turn a server back on
/mcp disable NAME                           turn a server off (also one from another tool's file)
/mcp test NAME                              ping a server: latency and tool count
/mcp reconnect NAME                         disconnect and connect one server again
/mcp login NAME                             log in to a remote server (OAuth, in the browser)
/mcp logout NAME                            forget a remote server's tokens
/mcp trust NAME...                          approve these project servers as they are written now
                                            (nothing is started: /mcp reload starts them)
/mcp trust [--yes]                          show the project servers waiting for approval (and
                                            with --yes, approve them all)
/mcp untrust [NAME...]                      withdraw approvals of this folder's project servers
/mcp search QUERY [--limit N] [--server NAME]
                                            the MCP tools QUERY finds, best first (words, or a
                                            /regular expression/ over names and descriptions);
                                            nothing is loaded
/mcp context                                what the tool definitions cost the model's context,
                                            server by server, and what tool search sends instead

add, add-json, remove, enable and disable write this agent's own config files (mode 0600) and then
reload the session automatically, so the change applies at once. --scope project (the default)
is <project>/.<agent>/mcp.json, --scope user is <config dir>/<agent>/mcp.json. Servers from
other tools' files are never edited: disable lists them in the user file, a project's server for
that project only (\"disabledProjectServers\"), a user-level one by name (\"disabledServers\").
Short flags as in `claude mcp`: -s (--scope), -t (--transport), -e (--env), -H (--header).
Quote words with spaces: -H 'Authorization: Bearer TOKEN'.";

/// Runs one `/mcp` command; `args` is what follows `/mcp` on the line.
pub async fn run_mcp_command(session: &Arc<AgentSession>, args: &str) -> CommandOutput {
    run_command(session, args, Interface::Shell).await
}

/// Runs one command typed in `interface`; `args` is the command and its words (what follows
/// `/mcp`, or `agent-session`). Its usage lines and hints name commands as `interface` types
/// them.
pub async fn run_command(
    session: &Arc<AgentSession>,
    args: &str,
    interface: Interface,
) -> CommandOutput {
    let words = match parse::split_words(args) {
        Ok(words) => words,
        Err(error) => {
            return CommandOutput::failed(format!(
                "{error}; run {} for the forms",
                interface.bare("help")
            ));
        }
    };
    let Some((command, rest)) = words.split_first() else {
        return help();
    };
    let no_arguments = |form: &str| {
        parse::no_arguments(rest, &interface.usage(form)).map_err(CommandOutput::failed)
    };
    // Each command's future is boxed: inline, the largest of them all would be this one's size,
    // on every caller's stack.
    let outcome = match command.as_str() {
        "help" => no_arguments("help").map(|()| help()),
        "list" => no_arguments("list").map(|()| list::list(session, interface)),
        "reload" => match no_arguments("reload") {
            Ok(()) => Ok(Box::pin(reload::reload(session, interface)).await),
            Err(error) => Err(error),
        },
        "add" => Ok(Box::pin(add::add(session, rest, false, interface)).await),
        "add-json" => Ok(Box::pin(add::add(session, rest, true, interface)).await),
        "remove" => Ok(Box::pin(remove::remove(session, rest, interface)).await),
        "enable" => Ok(Box::pin(enable::set_enabled(session, rest, true, interface)).await),
        "disable" => Ok(Box::pin(enable::set_enabled(session, rest, false, interface)).await),
        "test" => Ok(Box::pin(test::test(session, rest, interface)).await),
        "reconnect" => Ok(Box::pin(reconnect::reconnect(session, rest, interface)).await),
        #[cfg(feature = "oauth")]
        "login" => Ok(Box::pin(login::login(session, rest, interface)).await),
        #[cfg(feature = "oauth")]
        "logout" => Ok(Box::pin(login::logout(session, rest, interface)).await),
        #[cfg(not(feature = "oauth"))]
        "login" | "logout" => Err(CommandOutput::failed(format!(
            "{}{command} is not built into this session (agent-session was built without its \
             \"oauth\" feature)",
            interface.prefix()
        ))),
        "trust" => Ok(Box::pin(trust::trust(session, rest, interface)).await),
        "untrust" => Ok(Box::pin(trust::untrust(session, rest, interface)).await),
        "search" => Ok(Box::pin(tool_search::search(session, rest, interface)).await),
        "context" => Ok(tool_search::context(session, rest, interface)),
        other => Err(CommandOutput::failed(format!(
            "unknown {}command \"{other}\"; the commands are help, list, reload, add, add-json, \
             remove, enable, disable, test, reconnect, login, logout, trust, untrust, search and \
             context ({})",
            interface.prefix(),
            interface.bare("help")
        ))),
    };
    outcome.unwrap_or_else(|error| error)
}

fn help() -> CommandOutput {
    CommandOutput::ok(HELP, json!({"help": HELP}))
}

/// The one message for a server name no config file defines, in every command and interface:
/// the nearest of the `known` names, and the command that lists the servers. A command given
/// such a name starts nothing and is a usage error (the command line exits 2).
pub fn unknown_server<'a>(
    name: &str,
    known: impl IntoIterator<Item = &'a str>,
    interface: Interface,
) -> String {
    let suggestion = crate::suggest::suggest(name, known);
    format!(
        "unknown server \"{name}\"{suggestion}; {} shows the servers",
        interface.command("list")
    )
}

/// [`unknown_server`]'s message when no config file defines `name` (neither in use nor
/// skipped).
pub fn known_server(
    discovery: &mcp_config::DiscoveryResult,
    name: &str,
    interface: Interface,
) -> Result<(), String> {
    let known = discovery.names();
    if known.contains(name) {
        return Ok(());
    }
    Err(unknown_server(name, known.iter().copied(), interface))
}

/// The NAME of a command about one server that must be usable now (configured, not disabled
/// or invalid), or the one-line failure saying why it is not.
fn usable_server(
    session: &AgentSession,
    rest: &[String],
    form: &str,
    interface: Interface,
) -> Result<String, CommandOutput> {
    let usage = interface.usage(form);
    let name = parse::one_name(rest, &usage).map_err(CommandOutput::failed)?;
    usable(session, &name, interface)?;
    Ok(name)
}

/// Whether the server `name` is usable now (configured, not disabled or invalid), or the
/// one-line failure saying why it is not (a usage error for a name no file defines).
fn usable(session: &AgentSession, name: &str, interface: Interface) -> Result<(), CommandOutput> {
    let servers = status::Servers::collect(session);
    if servers.row(name).is_none() {
        let known = servers.discovery.names();
        return Err(CommandOutput::usage(unknown_server(name, known, interface)));
    }
    match servers.not_usable(name, interface) {
        Some(error) => Err(CommandOutput::failed(error)),
        None => Ok(()),
    }
}

/// Waits for a server's connection as long as its connect timeout (and a margin) allows: the
/// connection or why there is none, or `None` when it is still connecting after that.
async fn wait_connected(
    session: &AgentSession,
    name: &str,
) -> Option<Result<Arc<McpClient>, ServerError>> {
    wait_connected_within(session, name, None).await
}

/// The problems the `/mcp` commands and the CLI say as problems: all but a project server
/// waiting for approval, which they say in their own words (its status in `list`, the note of
/// `tools`, `trust`), so that it is never said twice.
pub fn problems_to_say(problems: Vec<mcp_manager::Problem>) -> Vec<mcp_manager::Problem> {
    problems
        .into_iter()
        .filter(|problem| !matches!(problem, mcp_manager::Problem::Unapproved { .. }))
        .collect()
}

/// How long a wait for `name` to connect lasts: its own connect timeout (the default one for a
/// name discovery did not keep) and a second more, so the manager's own timeout ends a slow
/// attempt, with its reason, before the wait gives up.
pub fn connect_limit(discovery: &mcp_config::DiscoveryResult, name: &str) -> Duration {
    let timeout_ms = discovery
        .servers
        .get(name)
        .map_or(mcp_config::DEFAULT_TIMEOUT_MS, |server| {
            server.config.timeout_ms()
        });
    Duration::from_millis(timeout_ms) + Duration::from_secs(1)
}

/// [`wait_connected`], waiting no longer than `cap` when one is given.
async fn wait_connected_within(
    session: &AgentSession,
    name: &str,
    cap: Option<Duration>,
) -> Option<Result<Arc<McpClient>, ServerError>> {
    let own = connect_limit(&session.discovery(), name);
    let limit = cap.map_or(own, |cap| cap.min(own));
    tokio::time::timeout(limit, session.manager().wait_for_connection(name))
        .await
        .ok()
}
