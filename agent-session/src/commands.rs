//! The `/mcp` command controller: `help`, `list`, `reload`, `add`, `remove`, `enable`,
//! `disable`, `test`, `reconnect`.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::session::AgentSession;

/// What a command printed, for people (`text`) and for programs (`json`).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct CommandOutput {
    /// False for a usage error or a failed command.
    pub ok: bool,
    /// Human-readable text (may span lines).
    pub text: String,
    /// The same as a JSON value.
    pub json: Value,
}

impl CommandOutput {
    /// A successful output.
    pub fn ok(text: impl Into<String>, json: Value) -> Self {
        Self {
            ok: true,
            text: text.into(),
            json,
        }
    }

    /// A failed output: one line saying what is wrong and what to do.
    pub fn error(text: impl Into<String>) -> Self {
        let text = text.into();
        Self {
            ok: false,
            json: json!({"error": text}),
            text,
        }
    }
}

/// The help text of `/mcp`.
pub const HELP: &str = "\
/mcp help                                   this text
/mcp list                                   servers with status, source, tool count, last error
/mcp reload                                 re-read the config files and reconnect everything
/mcp add NAME [--scope project|user] -- COMMAND [ARGS...]
/mcp add NAME --url URL [--transport http|sse] [--scope project|user] [--token TOKEN]
/mcp remove NAME [--scope project|user]     delete a server from this agent's config
/mcp enable NAME                            turn a server back on
/mcp disable NAME                           turn a server off (also servers of other tools)
/mcp test NAME                              check that a server answers
/mcp reconnect NAME                         disconnect and connect one server again";

/// Runs one `/mcp` command; `args` is what follows `/mcp` on the line.
pub async fn run_mcp_command(session: &Arc<AgentSession>, args: &str) -> CommandOutput {
    let _ = session;
    match args.split_whitespace().next() {
        None | Some("help") => CommandOutput::ok(HELP, json!({"help": HELP})),
        Some(other) => CommandOutput::error(format!(
            "unknown /mcp command \"{other}\"; run /mcp help for the list"
        )),
    }
}
