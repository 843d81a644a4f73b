//! `agent-session shell`: commands read line by line from a terminal or a pipe.
//!
//! A line is a command of the command line, parsed by the same table and run by the same code
//! ([`super::execute`]) against the live session, with the same messages; `/mcp` before it is
//! optional (`/mcp add …` and `add …` are one command), and the shell adds `reload` and
//! `reconnect`. With `--json` every command prints one JSON line `{"command", "ok",
//! "output"}`. The shell exits 1 when any of its commands failed (a script
//! can trust its status), else 0.
//!
//! On a terminal the shell is an interactive tool: lines are read by a line editor (editing,
//! history kept across sessions, see [`super::editor`]) with the prompt `mcp> `; Ctrl-C while a
//! command runs cancels that command (a tool call is cancelled on the server) and the shell
//! carries on, Ctrl-C at the prompt drops the line, Ctrl-D on an empty line leaves. For that
//! the CLI-wide Ctrl-C handler leaves SIGINT to the shell while it runs
//! ([`super::ctrl_c`]); SIGTERM, SIGHUP and SIGQUIT still end the CLI and stop the
//! servers. From a pipe the lines are read as they come, with no prompt and no editor, and
//! Ctrl-C ends the CLI as elsewhere.

use std::io::{IsTerminal, Write as _};
use std::sync::Arc;

use agent_session::AgentSession;
use serde_json::json;

use super::args::{self, NotRun};
use super::ctrl_c;
use super::editor::{Input, LineEditor};
use super::execute::{self, Context};
use super::outcome::{Outcome, Reply};
use super::stdin::{StdinLines, stdin_lines};
use super::{EXIT_FAILED, EXIT_OK, complain, failure, output};

/// The prompt on a terminal.
const PROMPT: &str = "mcp> ";

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
                    () = ctrl_c::interrupted() => Input::Interrupted,
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
    let _ctrl_c = interactive.then(ctrl_c::Taken::take);
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
                () = ctrl_c::interrupted() => {
                    eprintln!();
                    Outcome::failed(failure::Kind::Command, "cancelled (Ctrl-C)").into_reply()
                }
            }
        } else {
            execute(session, line).await
        };
        failed |= !reply.ok;
        // `--json` on a line, as the command line takes it: that line's reply as JSON.
        let json_line = json_lines
            || split_line(line).is_ok_and(|words| words.iter().any(|word| word == "--json"));
        if json_line {
            output::print_json(
                &json!({"command": line, "ok": reply.ok, "output": reply.json}),
                true,
            );
        } else {
            // What a command shows on stdout, what went wrong on stderr, as on the command line.
            if !reply.shown.is_empty() {
                output::print(&reply.shown);
            }
            for error in &reply.errors {
                eprintln!("{}", agent_session::terminal_text::escape(error));
            }
        }
    }
    if let Source::Editor(editor) = source {
        editor.close();
    }
    if failed { EXIT_FAILED } else { EXIT_OK }
}

/// Runs one line: parsed with the command line's table ([`args::parse_shell_line`]), run by
/// the same code ([`execute`]).
async fn execute(session: &Arc<AgentSession>, line: &str) -> Reply {
    let mut words = match split_line(line) {
        Ok(words) => words,
        Err(message) => return Reply::usage(&message),
    };
    // Asks for this line's reply as JSON (see the loop), not an option of the command.
    words.retain(|word| word != "--json");
    match args::parse_shell_line(&words) {
        Ok(command) => execute::execute(session, command, Context::shell())
            .await
            .into_reply(),
        Err(NotRun::Help(help)) => Reply {
            ok: true,
            json: json!({"help": help}),
            shown: help,
            errors: Vec::new(),
        },
        Err(NotRun::Usage(message)) => Reply::usage(&message),
    }
}

/// A line's words, split as a shell does, without the optional `/mcp` (or `mcp`, as the
/// command line takes it) before the command. `call TOOL {"a": 1}` may give its JSON
/// unquoted: from the first `{` after the tool to the last `}` it is one word.
fn split_line(line: &str) -> Result<Vec<String>, String> {
    let prefixed = |prefix: &str| match line.strip_prefix(prefix) {
        Some(rest) if rest.is_empty() || rest.starts_with(char::is_whitespace) => Some(rest.trim()),
        _ => None,
    };
    let line = prefixed("/mcp").or_else(|| prefixed("mcp")).unwrap_or(line);
    let split = |text: &str| {
        shell_words::split(text).map_err(|_| "the line has an unterminated quote".to_owned())
    };
    if let Some(rest) = line.strip_prefix("call")
        && rest.starts_with(char::is_whitespace)
        && let Some((tool, after)) = rest.trim_start().split_once(char::is_whitespace)
        && let after = after.trim_start()
        && after.starts_with('{')
        && let Some(end) = after.rfind('}')
    {
        let mut words = vec!["call".to_owned()];
        words.extend(split(tool)?);
        words.push(after[..=end].to_owned());
        words.extend(split(&after[end + 1..])?);
        return Ok(words);
    }
    split(line)
}
