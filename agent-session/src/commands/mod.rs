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

/// Who runs a command: the shell's `/mcp`, or the `agent-session` command line. Usage lines
/// and hints name the form the user typed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Caller {
    Shell,
    Cli,
}

impl Caller {
    /// `/mcp ` or `agent-session `.
    const fn prefix(self) -> &'static str {
        match self {
            Self::Shell => "/mcp ",
            Self::Cli => "agent-session ",
        }
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
other tools' files are never edited: disable lists them in the user file's \"disabledServers\".
Short flags as in `claude mcp`: -s (--scope), -t (--transport), -e (--env), -H (--header).
Quote words with spaces: -H 'Authorization: Bearer TOKEN'.";

const HELP_USAGE: &str = "usage: /mcp help";
const LIST_USAGE: &str = "usage: /mcp list";
const RELOAD_USAGE: &str = "usage: /mcp reload";

/// Runs one `/mcp` command; `args` is what follows `/mcp` on the line.
pub async fn run_mcp_command(session: &Arc<AgentSession>, args: &str) -> CommandOutput {
    let words = match parse::split_words(args) {
        Ok(words) => words,
        Err(error) => {
            return CommandOutput::failed(format!("{error}; run /mcp help for the forms"));
        }
    };
    let Some((command, rest)) = words.split_first() else {
        return help();
    };
    let no_arguments = |usage| parse::no_arguments(rest, usage).map_err(CommandOutput::failed);
    let outcome = match command.as_str() {
        "help" => no_arguments(HELP_USAGE).map(|()| help()),
        "list" => no_arguments(LIST_USAGE).map(|()| list::list(session)),
        "reload" => match no_arguments(RELOAD_USAGE) {
            Ok(()) => Ok(reload::reload(session).await),
            Err(error) => Err(error),
        },
        "add" => Ok(add::add(session, rest, false).await),
        "add-json" => Ok(add::add(session, rest, true).await),
        "remove" => Ok(remove::remove(session, rest).await),
        "enable" => Ok(enable::set_enabled(session, rest, true).await),
        "disable" => Ok(enable::set_enabled(session, rest, false).await),
        "test" => Ok(test::test(session, rest).await),
        "reconnect" => Ok(reconnect::reconnect(session, rest).await),
        "login" => Ok(login::login(session, rest).await),
        "logout" => Ok(login::logout(session, rest).await),
        "trust" => Ok(trust::trust(session, rest).await),
        "untrust" => Ok(trust::untrust(session, rest).await),
        "search" => Ok(tool_search::search(session, rest).await),
        "context" => Ok(tool_search::context(session, rest)),
        other => Err(CommandOutput::failed(format!(
            "unknown /mcp command \"{other}\"; the commands are help, list, reload, add, add-json, \
             remove, enable, disable, test, reconnect, login, logout, trust, untrust, search and \
             context (/mcp help)"
        ))),
    };
    outcome.unwrap_or_else(|error| error)
}

fn help() -> CommandOutput {
    CommandOutput::ok(HELP, json!({"help": HELP}))
}

/// The one-line message for a name no server has, with the nearest of `known`.
fn unknown_server<'a>(name: &str, known: impl IntoIterator<Item = &'a str>, usage: &str) -> String {
    unknown_name(name, known, Caller::Shell, usage)
}

/// The one-line message for a name no server has: the nearest of the `known` names, and the
/// caller's `list`.
fn unknown_name<'a>(
    name: &str,
    known: impl IntoIterator<Item = &'a str>,
    caller: Caller,
    usage: &str,
) -> String {
    let prefix = caller.prefix();
    let suggestion = crate::suggest::suggest(name, known);
    format!("unknown server \"{name}\"{suggestion} ({prefix}list shows the servers); {usage}")
}

/// The NAME of a command about one server that must be usable now (configured, not disabled
/// or invalid), or the one-line failure saying why it is not.
fn usable_server(
    session: &AgentSession,
    rest: &[String],
    usage: &str,
) -> Result<String, CommandOutput> {
    let name = parse::one_name(rest, usage).map_err(CommandOutput::failed)?;
    match status::Servers::collect(session).not_usable(&name, usage) {
        Some(error) => Err(CommandOutput::failed(error)),
        None => Ok(name),
    }
}

/// Waits for a server's connection as long as its connect timeout (and a margin) allows: the
/// connection or why there is none, or `None` when it is still connecting after that.
async fn wait_connected(
    session: &AgentSession,
    name: &str,
) -> Option<Result<Arc<McpClient>, ServerError>> {
    let timeout_ms = session
        .discovery()
        .servers
        .get(name)
        .map_or(mcp_config::DEFAULT_TIMEOUT_MS, |server| {
            server.config.timeout_ms()
        });
    let limit = Duration::from_millis(timeout_ms) + Duration::from_secs(1);
    tokio::time::timeout(limit, session.manager().wait_for_connection(name))
        .await
        .ok()
}
