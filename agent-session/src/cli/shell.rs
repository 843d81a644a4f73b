//! `agent-session shell`: commands read line by line from a terminal or a pipe.
//!
//! `/mcp …` goes to the session's `/mcp` controller; `tools`, `list` and `call` are the CLI's
//! commands against the live session. With `--json` every command prints one JSON line
//! `{"command", "ok", "output"}`. The prompt `mcp> ` (on stderr) appears only when stdin is a
//! terminal.

use std::io::{IsTerminal, Write};
use std::sync::Arc;

use agent_session::{AgentSession, run_mcp_command};
use serde_json::{Value, json};

use super::stdin::stdin_lines;
use super::{EXIT_OK, args, call_tool, find_tool, output, unknown_tool};

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
  exit, quit         leave (end of input does too)";

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

/// Reads and runs commands until `exit`, `quit` or the end of input.
pub(crate) async fn run(session: &Arc<AgentSession>, json_lines: bool) -> u8 {
    let interactive = std::io::stdin().is_terminal();
    let lines = stdin_lines();
    if interactive && !json_lines {
        output::print("agent-session shell: type `help` for the commands, `exit` to leave.");
    }
    loop {
        if interactive {
            let mut stderr = std::io::stderr().lock();
            let _ = write!(stderr, "mcp> ");
            let _ = stderr.flush();
        }
        let Some(line) = lines.next().await else {
            if interactive {
                eprintln!();
            }
            break;
        };
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if matches!(line, "exit" | "quit") {
            break;
        }
        let reply = execute(session, line).await;
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
    EXIT_OK
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
