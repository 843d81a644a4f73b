//! The command line: global options, the subcommand and its own arguments.
//!
//! Global options may stand anywhere on the line (before or after the subcommand); a `--`
//! ends option parsing, so everything after it is positional. Every mistake is one line that
//! says what is wrong and how to get help.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;

/// The default `--app`: picks the native config files `.agent-session/mcp.json`.
pub(crate) const DEFAULT_APP: &str = "agent-session";

/// The usage text of `agent-session help`.
pub(crate) const USAGE: &str = "\
agent-session: see, test and call the MCP servers your agents use

Usage: agent-session [OPTIONS] <COMMAND> [ARGS]

Commands:
  list                               the configured servers: status, transport, source, tools
  tools [--server NAME]              the tools the session holds right after the startup gate
  call TOOL [ARGS_JSON] [--timeout-ms N]
                                     call a tool (by name, e.g. mcp_github_create_issue, or
                                     server/tool); ARGS_JSON is a JSON object, default {}
  shell                              read commands from stdin: /mcp ..., tools, list,
                                     call TOOL JSON, help, exit
  demo                               a walk through discovery, the startup gate, tool calls,
                                     a reload and the shutdown, with a built-in demo server
  help                               this text

Options (anywhere on the line):
  --cwd DIR                          the project directory (default: the current directory)
  --no-project-config                ignore project-level config files
  --cache-dir DIR                    keep the tool cache in DIR
  --no-cache                         use no tool cache
  --json                             machine-readable output (one JSON line per command in
                                     the shell)
  --app NAME                         the agent's name: its native files are .NAME/mcp.json
                                     and ~/.config/NAME/mcp.json (default agent-session)
  -h, --help                         this text

Exit status: 0 success; 1 a tool or a command failed; 2 a usage error.
Logs go to stderr, filtered by RUST_LOG (default warn).";

/// Where the tool cache lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CacheChoice {
    /// The sled store in the user's cache directory.
    UserDir,
    /// A sled store in this directory.
    Dir(PathBuf),
    /// No cache.
    Off,
}

/// Options every command takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Globals {
    /// `--cwd`, when given.
    pub(crate) cwd: Option<PathBuf>,
    /// False with `--no-project-config`.
    pub(crate) project_config: bool,
    /// `--cache-dir` / `--no-cache`.
    pub(crate) cache: CacheChoice,
    /// `--json`.
    pub(crate) json: bool,
    /// `--app`.
    pub(crate) app: String,
}

impl Default for Globals {
    fn default() -> Self {
        Self {
            cwd: None,
            project_config: true,
            cache: CacheChoice::UserDir,
            json: false,
            app: DEFAULT_APP.to_owned(),
        }
    }
}

/// What to do.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Command {
    /// Print the usage.
    Help,
    /// `list`.
    List,
    /// `tools [--server NAME]`.
    Tools {
        /// Only this server's tools.
        server: Option<String>,
    },
    /// `call TOOL [ARGS_JSON] [--timeout-ms N]`.
    Call {
        /// The tool's name or `server/tool`.
        tool: String,
        /// The arguments, a JSON object.
        args: Value,
        /// Give up after this long.
        timeout: Option<Duration>,
    },
    /// `shell`.
    Shell,
    /// `demo`.
    Demo,
    /// The hidden `demo-server [--name NAME] [--slow-ms N] [--marker TEXT]`.
    DemoServer {
        /// `serverInfo.name`.
        name: String,
        /// Delay of every `tools/list` answer.
        slow_ms: u64,
    },
}

/// A parsed command line.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Cli {
    /// The global options.
    pub(crate) globals: Globals,
    /// The command.
    pub(crate) command: Command,
}

/// Options that belong to one subcommand, with the subcommands that take them.
const COMMAND_OPTIONS: &[(&str, &[&str])] = &[
    ("--server", &["tools"]),
    ("--timeout-ms", &["call"]),
    ("--name", &["demo-server"]),
    ("--slow-ms", &["demo-server"]),
    ("--marker", &["demo-server"]),
];

/// Parses the arguments after the program name. `Err` is a one-line usage error.
pub(crate) fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Cli, String> {
    let mut args: std::collections::VecDeque<String> = args
        .into_iter()
        .map(|arg| {
            arg.into_string()
                .map_err(|arg| format!("argument {arg:?} is not valid UTF-8"))
        })
        .collect::<Result<_, _>>()?;
    let mut globals = Globals::default();
    let mut positional = Vec::new();
    let mut command_options: Vec<(String, String)> = Vec::new();
    let mut cache_dir = None;
    let mut no_cache = false;
    let mut help = false;
    while let Some(arg) = args.pop_front() {
        if arg == "--" {
            positional.extend(args.drain(..));
            break;
        }
        if !arg.starts_with('-') || arg == "-" {
            positional.push(arg);
            continue;
        }
        let (flag, inline) = match arg.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => {
                (flag.to_owned(), Some(value.to_owned()))
            }
            _ => (arg.clone(), None),
        };
        let value = |args: &mut std::collections::VecDeque<String>| -> Result<String, String> {
            match inline.clone().or_else(|| args.pop_front()) {
                Some(value) => Ok(value),
                None => Err(format!("{flag} needs a value")),
            }
        };
        match flag.as_str() {
            "-h" | "--help" => help = true,
            "--cwd" => globals.cwd = Some(PathBuf::from(value(&mut args)?)),
            "--no-project-config" => globals.project_config = false,
            "--cache-dir" => cache_dir = Some(PathBuf::from(value(&mut args)?)),
            "--no-cache" => no_cache = true,
            "--json" => globals.json = true,
            "--app" => {
                let app = value(&mut args)?;
                if app.is_empty() || app.contains(['/', '\\']) || app.starts_with('.') {
                    return Err(format!(
                        "--app {app:?}: use a plain name such as \"my-agent\""
                    ));
                }
                globals.app = app;
            }
            other if COMMAND_OPTIONS.iter().any(|(name, _)| *name == other) => {
                command_options.push((other.to_owned(), value(&mut args)?));
            }
            other => {
                return Err(format!(
                    "unknown option {other}; run `agent-session help` for the options"
                ));
            }
        }
    }
    if no_cache && cache_dir.is_some() {
        return Err("--cache-dir and --no-cache exclude each other; keep one".to_owned());
    }
    globals.cache = match (cache_dir, no_cache) {
        (Some(dir), _) => CacheChoice::Dir(dir),
        (None, true) => CacheChoice::Off,
        (None, false) => CacheChoice::UserDir,
    };
    let mut positional = positional.into_iter();
    let name = positional.next();
    if help || matches!(name.as_deref(), Some("help")) {
        return Ok(Cli {
            globals,
            command: Command::Help,
        });
    }
    let Some(name) = name else {
        return Err("no command given; run `agent-session help` for the commands".to_owned());
    };
    for (option, _) in &command_options {
        let accepted = COMMAND_OPTIONS
            .iter()
            .any(|(flag, commands)| flag == option && commands.contains(&name.as_str()));
        if !accepted {
            return Err(format!(
                "{option} is not an option of `{name}`; run `agent-session help` for the options"
            ));
        }
    }
    let option = |flag: &str| {
        command_options
            .iter()
            .rev()
            .find(|(name, _)| name == flag)
            .map(|(_, value)| value.clone())
    };
    let rest: Vec<String> = positional.collect();
    let no_more = |rest: &[String]| match rest.first() {
        Some(extra) => Err(format!(
            "unexpected argument {extra:?} for `{name}`; run `agent-session help` for usage"
        )),
        None => Ok(()),
    };
    let command = match name.as_str() {
        "list" => {
            no_more(&rest)?;
            Command::List
        }
        "tools" => {
            no_more(&rest)?;
            Command::Tools {
                server: option("--server"),
            }
        }
        "call" => {
            let mut rest = rest.into_iter();
            let Some(tool) = rest.next() else {
                return Err(
                    "`call` needs a tool name: agent-session call TOOL [ARGS_JSON]; run \
                     `agent-session tools` to see the tools"
                        .to_owned(),
                );
            };
            let args = match rest.next() {
                Some(text) => parse_tool_args(&text)?,
                None => Value::Object(serde_json::Map::new()),
            };
            no_more(&rest.collect::<Vec<_>>())?;
            let timeout = option("--timeout-ms")
                .map(|text| parse_ms("--timeout-ms", &text))
                .transpose()?
                .map(Duration::from_millis);
            Command::Call {
                tool,
                args,
                timeout,
            }
        }
        "shell" => {
            no_more(&rest)?;
            Command::Shell
        }
        "demo" => {
            no_more(&rest)?;
            Command::Demo
        }
        "demo-server" => {
            no_more(&rest)?;
            Command::DemoServer {
                name: option("--name").unwrap_or_else(|| "demo".to_owned()),
                slow_ms: option("--slow-ms")
                    .map(|text| parse_ms("--slow-ms", &text))
                    .transpose()?
                    .unwrap_or(0),
            }
        }
        other => {
            return Err(format!(
                "unknown command \"{other}\"; run `agent-session help` for the commands"
            ));
        }
    };
    Ok(Cli { globals, command })
}

/// Parses a tool's arguments: a JSON object.
pub(crate) fn parse_tool_args(text: &str) -> Result<Value, String> {
    match serde_json::from_str::<Value>(text) {
        Ok(value @ Value::Object(_)) => Ok(value),
        Ok(_) => Err(format!(
            "the tool arguments must be a JSON object such as '{{\"message\": \"hi\"}}', not {text}"
        )),
        Err(error) => Err(format!(
            "the tool arguments are not valid JSON ({error}); pass an object such as \
             '{{\"message\": \"hi\"}}'"
        )),
    }
}

fn parse_ms(flag: &str, text: &str) -> Result<u64, String> {
    text.parse::<u64>()
        .map_err(|_| format!("{flag} takes a number of milliseconds, not {text:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_line(line: &str) -> Result<Cli, String> {
        parse(line.split_whitespace().map(OsString::from))
    }

    #[test]
    fn global_options_go_anywhere() {
        let cli = parse_line("--json tools --server fast --no-cache --cwd /p").unwrap();
        assert!(cli.globals.json);
        assert_eq!(cli.globals.cache, CacheChoice::Off);
        assert_eq!(cli.globals.cwd, Some(PathBuf::from("/p")));
        assert_eq!(
            cli.command,
            Command::Tools {
                server: Some("fast".to_owned())
            }
        );
    }

    #[test]
    fn call_takes_a_json_object_and_a_timeout() {
        let cli = parse(
            [
                "call",
                "mcp_a_echo",
                r#"{"message": "hi"}"#,
                "--timeout-ms=50",
            ]
            .map(OsString::from),
        )
        .unwrap();
        assert_eq!(
            cli.command,
            Command::Call {
                tool: "mcp_a_echo".to_owned(),
                args: serde_json::json!({"message": "hi"}),
                timeout: Some(Duration::from_millis(50)),
            }
        );
        assert!(parse_line("call x {bad").is_err());
        assert!(parse_line("call x [1]").is_err());
        assert!(parse_line("call").is_err());
    }

    #[test]
    fn mistakes_are_usage_errors() {
        assert!(parse_line("").is_err());
        assert!(parse_line("lst").is_err());
        assert!(parse_line("list --bogus").is_err());
        assert!(parse_line("list --server x").is_err());
        assert!(parse_line("list --cache-dir /c --no-cache").is_err());
        assert!(parse_line("list extra").is_err());
        assert!(parse_line("tools --server").is_err());
        assert_eq!(parse_line("list --help").unwrap().command, Command::Help);
        assert_eq!(parse_line("help").unwrap().command, Command::Help);
    }
}
