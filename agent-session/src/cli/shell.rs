//! `agent-session shell`: commands read line by line from a terminal or a pipe.
//!
//! `/mcp …` goes to the session's `/mcp` controller; `tools`, `list` and `call` are the CLI's
//! commands against the live session. With `--json` every command prints one JSON line
//! `{"command", "ok", "output"}`. The shell exits 1 when any of its commands failed (a script
//! can trust its status), else 0.
//!
//! On a terminal the shell is an interactive tool: lines are read by a line editor (editing,
//! history kept across sessions, see [`super::editor`]) with the prompt `mcp> `; Ctrl-C while a
//! command runs cancels that command (a tool call is cancelled on the server) and the shell
//! carries on, Ctrl-C at the prompt drops the line, Ctrl-D on an empty line leaves. For that
//! the CLI-wide Ctrl-C handler leaves SIGINT to the shell while it runs
//! ([`ctrl_c_is_the_shells`]); SIGTERM, SIGHUP and SIGQUIT still end the CLI and stop the
//! servers. From a pipe the lines are read as they come, with no prompt and no editor, and
//! Ctrl-C ends the CLI as elsewhere.

use std::io::{IsTerminal, Write as _};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use agent_session::{AgentSession, run_mcp_command};
use serde_json::{Value, json};
use tokio::signal::unix::{SignalKind, signal};

use super::editor::{Input, LineEditor};
use super::stdin::{StdinLines, stdin_lines};
use super::{EXIT_FAILED, EXIT_OK, args, call_tool, complain, find_tool, output, unknown_tool};

/// The prompt on a terminal.
const PROMPT: &str = "mcp> ";

/// True while the interactive shell runs: its Ctrl-C cancels a command, not the CLI.
static CTRL_C_IS_THE_SHELLS: AtomicBool = AtomicBool::new(false);

/// Whether SIGINT belongs to the interactive shell now (the CLI-wide handler then ignores it).
pub(crate) fn ctrl_c_is_the_shells() -> bool {
    CTRL_C_IS_THE_SHELLS.load(Ordering::SeqCst)
}

/// Holds SIGINT for the shell until dropped.
struct CtrlCTaken;

impl CtrlCTaken {
    fn take() -> Self {
        CTRL_C_IS_THE_SHELLS.store(true, Ordering::SeqCst);
        Self
    }
}

impl Drop for CtrlCTaken {
    fn drop(&mut self) {
        CTRL_C_IS_THE_SHELLS.store(false, Ordering::SeqCst);
    }
}

/// The shell's help text.
const HELP: &str = "\
Commands:
  /mcp [help|list|reload|add|remove|enable|disable|test|reconnect] ...
                     the session's /mcp commands (`/mcp help` for details)
  tools [--server NAME]
                     the session's MCP tools now
  list               the servers: status, transport, source, tools, error
  call TOOL [JSON]   call a tool with a JSON object of arguments (default {})
  help               this text
  exit, quit         leave (end of input does too)
On a terminal: arrows and the usual editing keys edit the line, up and down go through the
history, Ctrl-C cancels the running command (or drops the line), Ctrl-D leaves.";

/// What one line did.
struct Reply {
    ok: bool,
    text: String,
    json: Value,
}

impl Reply {
    fn ok(text: String, json: Value) -> Self {
        Self {
            ok: true,
            text,
            json,
        }
    }

    fn error(text: String) -> Self {
        Self {
            ok: false,
            json: json!({"error": text}),
            text,
        }
    }
}

/// Where the lines come from.
enum Source {
    /// The line editor, on a terminal.
    Editor(LineEditor),
    /// Stdin's lines: a pipe, or a terminal the editor could not open (then with a prompt).
    Lines {
        lines: &'static StdinLines,
        prompt: bool,
    },
}

impl Source {
    /// The next line, Ctrl-C at the prompt, or the end of input.
    async fn next(&self) -> Input {
        match self {
            Self::Editor(editor) => editor.read_command(PROMPT).await,
            Self::Lines { lines, prompt } => {
                if !prompt {
                    return lines.next().await.map_or(Input::End, Input::Line);
                }
                {
                    let mut stderr = std::io::stderr().lock();
                    let _ = write!(stderr, "{PROMPT}");
                    let _ = stderr.flush();
                }
                let next = tokio::select! {
                    line = lines.next() => line.map_or(Input::End, Input::Line),
                    () = interrupted() => Input::Interrupted,
                };
                // After `^C` or `^D` the next prompt starts on a line of its own.
                if !matches!(next, Input::Line(_)) {
                    eprintln!();
                }
                next
            }
        }
    }
}

/// Reads and runs commands until `exit`, `quit` or the end of input; 1 when any failed.
pub(crate) async fn run(session: &Arc<AgentSession>, json_lines: bool, app: &str) -> u8 {
    let interactive = std::io::stdin().is_terminal();
    let source = if interactive {
        match LineEditor::open(app) {
            Ok(editor) => Source::Editor(editor),
            Err(message) => {
                complain(&format!("{message}; reading lines without editing"));
                Source::Lines {
                    lines: stdin_lines(),
                    prompt: true,
                }
            }
        }
    } else {
        Source::Lines {
            lines: stdin_lines(),
            prompt: false,
        }
    };
    let _ctrl_c = interactive.then(CtrlCTaken::take);
    if interactive && !json_lines {
        output::print(
            "agent-session shell: type `help` for the commands; Ctrl-C cancels a command, \
             Ctrl-D or `exit` leaves.",
        );
    }
    let mut failed = false;
    loop {
        let line = match source.next().await {
            Input::Line(line) => line,
            Input::Interrupted => continue,
            Input::End => break,
        };
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if matches!(line, "exit" | "quit") {
            break;
        }
        let reply = if interactive {
            tokio::select! {
                reply = execute(session, line) => reply,
                // Dropping the command cancels it: a tool call's server is told.
                () = interrupted() => {
                    eprintln!();
                    Reply::error("cancelled (Ctrl-C)".to_owned())
                }
            }
        } else {
            execute(session, line).await
        };
        failed |= !reply.ok;
        if json_lines {
            output::print_json(
                &json!({"command": line, "ok": reply.ok, "output": reply.json}),
                true,
            );
        } else if reply.ok {
            output::print(&reply.text);
        } else {
            output::print(&format!("error: {}", reply.text));
        }
    }
    if let Source::Editor(editor) = source {
        editor.close();
    }
    if failed { EXIT_FAILED } else { EXIT_OK }
}

/// The next SIGINT from now on; never, if it cannot be listened for.
async fn interrupted() {
    match signal(SignalKind::interrupt()) {
        Ok(mut interrupt) => {
            interrupt.recv().await;
        }
        Err(error) => {
            tracing::debug!(%error, "cannot listen for Ctrl-C");
            std::future::pending::<()>().await;
        }
    }
}

async fn execute(session: &Arc<AgentSession>, line: &str) -> Reply {
    if let Some(rest) = line.strip_prefix("/mcp")
        && (rest.is_empty() || rest.starts_with(char::is_whitespace))
    {
        let result = run_mcp_command(session, rest.trim()).await;
        return Reply {
            ok: result.ok,
            text: result.text,
            json: result.json,
        };
    }
    let (word, rest) = line
        .split_once(char::is_whitespace)
        .map_or((line, ""), |(word, rest)| (word, rest.trim()));
    match word {
        "help" => Reply::ok(HELP.to_owned(), json!({"help": HELP})),
        "tools" => tools(session, rest),
        "list" if rest.is_empty() => {
            let listed = run_mcp_command(session, "list").await;
            Reply::ok(listed.text, listed.json)
        }
        "call" => call(session, rest).await,
        other => Reply::error(format!(
            "unknown command \"{other}\"; type `help` for the commands"
        )),
    }
}

fn tools(session: &AgentSession, rest: &str) -> Reply {
    const USAGE: &str = "usage: tools [--server NAME]";
    let Ok(words) = shell_words::split(rest) else {
        return Reply::error(format!("unterminated quote; {USAGE}"));
    };
    let server = match words.as_slice() {
        [] => None,
        [flag, name] if flag == "--server" => Some(name.as_str()),
        _ => return Reply::error(USAGE.to_owned()),
    };
    let tools: Vec<_> = session
        .manager()
        .tools()
        .into_iter()
        .filter(|tool| server.is_none_or(|server| tool.server == server))
        .collect();
    Reply::ok(output::tools_text(&tools), output::tools_json(&tools))
}

/// `call TOOL [JSON]`: the JSON may be written as is (`{"a": 1}`) or quoted as one shell word
/// (`'{"a": 1}'`).
async fn call(session: &Arc<AgentSession>, rest: &str) -> Reply {
    const USAGE: &str = "usage: call TOOL [JSON]; `tools` lists the tools";
    let (name, arguments) = rest
        .split_once(char::is_whitespace)
        .map_or((rest, ""), |(name, arguments)| (name, arguments.trim()));
    if name.is_empty() {
        return Reply::error(USAGE.to_owned());
    }
    let arguments = if arguments.starts_with(['\'', '"']) {
        match shell_words::split(arguments).as_deref() {
            Ok([word]) => word.clone(),
            _ => return Reply::error(format!("quote the JSON as one word; {USAGE}")),
        }
    } else {
        arguments.to_owned()
    };
    let args = if arguments.is_empty() {
        Value::Object(serde_json::Map::new())
    } else {
        match args::parse_tool_args(&arguments) {
            Ok(args) => args,
            Err(message) => return Reply::error(message),
        }
    };
    let Some(tool) = find_tool(session, name) else {
        return Reply::error(unknown_tool(name));
    };
    let result = call_tool(&tool, args, None).await;
    Reply {
        ok: !result.is_error,
        text: result.to_text(),
        json: output::call_json(&result),
    }
}
