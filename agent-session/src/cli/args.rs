//! The command line, declared with clap: global options (accepted anywhere on the line), the
//! subcommands and their own arguments, `--version`, `help CMD` and `CMD --help`.
//!
//! A usage error is printed on one line (clap's message, its did-you-mean tip, and where to get
//! help) and exits with status 2.

mod manage;

use std::path::PathBuf;

use agent_session::commands::Interface;
use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{Args, Parser, Subcommand};

use super::call_args::{parse_pair, parse_tool_args};

pub(crate) use manage::ManageCommand;

/// Exit status and logs, under every help text.
const AFTER_HELP: &str = "\
Exit status: 0 success; 1 a tool or a command failed; 2 a usage error.
Logs go to stderr, filtered by RUST_LOG (default warn). Colour goes only to a terminal, and
never when NO_COLOR is set.";

const CALL_EXAMPLES: &str = "\
Examples:
  agent-session call mcp_github_search_repositories '{\"query\": \"mcp\"}'
  agent-session call github/search_repositories '{\"query\": \"mcp\"}' --timeout-ms 30000 --json
A deferred tool (its server still connecting) waits for its server. The result is what the model
would get: cut to the output budget (--output-budget, default 100KiB) with a marker saying how
much was left out; --full prints it whole. Exit status 1 when the tool answers with an error.";

const SHELL_EXAMPLES: &str = "\
Examples:
  agent-session shell
  printf '/mcp list\\ntools\\n' | agent-session shell --json    # one JSON line per command
The prompt `mcp> ` shows only when stdin is a terminal: there the line can be edited, the history
(kept in ~/.local/state/<app>/shell_history) comes back with the up arrow, Ctrl-C cancels the
running command and Ctrl-D leaves. `/mcp help` lists the /mcp commands. Exit status 1 when any
command failed.";

const SEARCH_EXAMPLES: &str = "\
Examples:
  agent-session search open an issue           # words: what the tool should do
  agent-session search '/^create_/' --limit 20 # a regular expression over names and descriptions
  agent-session search screenshot --server playwright --json
The tools a model would find with the session's search tool (mcp_tool_search), best first, from
the same start as `tools` (cached tools first). Nothing is loaded or called. A pattern that cannot
be used is a usage error (exit 2) with the reason.";

const CONTEXT_EXAMPLES: &str = "\
Examples:
  agent-session context
  agent-session context --context-window 128000 --tool-search-share 5
  agent-session context --json
Tokens are estimated from the JSON a model API receives for each tool (name, description, input
schema): a token per 4 bytes. On a terminal each server is a bar scaled to the context window;
in a pipe, plain numbers.";

const TASKS_EXAMPLES: &str = "\
Examples:
  agent-session tasks
  agent-session task github 786512e2-9e0d-44bd-8f29-789f320fe840
  agent-session cancel github 786512e2-9e0d-44bd-8f29-789f320fe840
A call the server runs as a task (the Tasks extension) is followed to its end by `call`; its id
is kept in ~/.local/state/<app>/tasks.json until a command sees the task end, so a call cut short
leaves a task `tasks` still finds. A task seen ended is forgotten.";

const SKILL_EXAMPLES: &str = "\
Examples:
  agent-session skill docs pdf-processing
  agent-session skill docs pdf-processing --file references/FORMS.md
  agent-session skill docs pdf-processing --json     # {\"server\", \"skill\", \"uri\", \"instructions\", \"files\"}
Every file the server lists for the skill is read and checked (its size, its SHA-256 and, for
SKILL.md, its frontmatter) before anything is shown; a file the listing does not name is never
read. A file that differs is an error naming the skill, the file and what differed (exit 1),
and nothing of it is printed.";

const LOGIN_EXAMPLES: &str = "\
Examples:
  agent-session login linear      # a server whose `list` status is needs-login
  agent-session logout linear
The login URL is printed on stderr (and opened in the browser on a desktop); the browser comes
back to a listener on 127.0.0.1. Tokens are kept in <config dir>/<app>/credentials.json (mode
0600) under the server's URL, refreshed when they expire, and never printed.";

/// Where to put each script, under `completions --help` (the folders made first: a fresh home
/// has none of them).
const COMPLETIONS_EXAMPLES: &str = "\
Examples:
  mkdir -p ~/.local/share/bash-completion/completions
  agent-session completions bash > ~/.local/share/bash-completion/completions/agent-session
  mkdir -p ~/.zfunc && agent-session completions zsh > ~/.zfunc/_agent-session    # fpath+=(~/.zfunc) before compinit
  mkdir -p ~/.config/fish/completions
  agent-session completions fish > ~/.config/fish/completions/agent-session.fish";

/// See, test and call the MCP servers your agents use.
#[derive(Debug, Parser)]
#[command(
    name = "agent-session",
    version,
    about = "agent-session: see, test and call the MCP servers your agents use",
    after_help = AFTER_HELP,
    subcommand_required = true,
    propagate_version = true
)]
pub(crate) struct Cli {
    /// Options every command takes.
    #[command(flatten)]
    pub(crate) globals: Globals,
    /// What to do.
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// Options every command takes, before or after the command's name; a command's help shows
/// them after its own.
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Global options")]
pub(crate) struct Globals {
    /// The project directory (default: the current directory)
    #[arg(long, global = true, value_name = "DIR")]
    pub(crate) cwd: Option<PathBuf>,
    /// Ignore project-level config files
    #[arg(long = "no-project-config", global = true)]
    no_project_config: bool,
    /// Keep the tool cache in DIR (default: ~/.cache/<app>/tool-cache)
    #[arg(long, global = true, value_name = "DIR")]
    cache_dir: Option<PathBuf>,
    /// Use no tool cache
    #[arg(long, global = true, conflicts_with = "cache_dir")]
    no_cache: bool,
    /// Machine-readable output (one JSON line per command in the shell)
    #[arg(long, global = true)]
    pub(crate) json: bool,
    /// How long a command waits for its servers before it goes on with the cached tools of
    /// those still connecting (default 250); a server with no cached tools is waited for
    #[arg(long = "gate-ms", global = true, value_name = "MS")]
    pub(crate) gate_ms: Option<u64>,
    /// The longest message a server may send (default 32MiB; a server's maxMessageBytes wins);
    /// a longer answer fails its own call
    #[arg(long = "max-message-bytes", global = true, value_name = "SIZE", value_parser = parse_size)]
    pub(crate) max_message_bytes: Option<usize>,
    /// The most of one tool result the model gets (default 100KiB; a server's outputBudget
    /// wins); a longer result is cut with a marker, and `call --full` shows it whole
    #[arg(long = "output-budget", global = true, value_name = "SIZE", value_parser = parse_size)]
    pub(crate) output_budget: Option<usize>,
    /// No output budget at all, a server's own included (`call --full`: the whole result is
    /// printed, so none is cut and no file keeps one); not an option of its own.
    #[arg(skip)]
    pub(crate) whole_results: bool,
    /// Offer the servers DIR as a root (repeatable); without it a server is offered no roots
    /// unless its config sets `roots`, which wins
    #[arg(long = "root", global = true, value_name = "DIR", value_parser = parse_root,
          value_hint = clap::ValueHint::DirPath)]
    pub(crate) roots: Vec<PathBuf>,
    /// The agent's name: its native files are .NAME/mcp.json and ~/.config/NAME/mcp.json
    #[arg(long, global = true, value_name = "NAME", default_value = DEFAULT_APP, value_parser = parse_app)]
    pub(crate) app: String,
    /// Send the model a search tool instead of every MCP tool's definition: off, on, or auto
    /// (when the definitions would take more than --tool-search-share of --context-window)
    #[arg(long = "tool-search", global = true, value_name = "MODE", value_enum,
          default_value_t = ToolSearchArg::Auto)]
    pub(crate) tool_search: ToolSearchArg,
    /// The model's context window, in tokens, that --tool-search auto and `context` measure
    /// against (default 200000)
    #[arg(long = "context-window", global = true, value_name = "TOKENS", value_parser = parse_tokens)]
    pub(crate) context_window: Option<usize>,
    /// The percentage of the context window the definitions may take before --tool-search
    /// auto defers them (default 10)
    #[arg(long = "tool-search-share", global = true, value_name = "PERCENT",
          value_parser = parse_percent)]
    pub(crate) tool_search_share: Option<u32>,
}

/// `--tool-search`: when the MCP tools' definitions are deferred behind a search tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ToolSearchArg {
    /// Every definition, always
    Off,
    /// The search tool and the always-loaded tools, always
    On,
    /// Deferred when the definitions take more than the share of the window
    Auto,
}

impl ToolSearchArg {
    /// The session's mode.
    pub(crate) fn mode(self) -> agent_session::ToolSearchMode {
        match self {
            Self::Off => agent_session::ToolSearchMode::Off,
            Self::On => agent_session::ToolSearchMode::On,
            Self::Auto => agent_session::ToolSearchMode::Auto,
        }
    }
}

/// The default `--app`: picks the native config files `.agent-session/mcp.json`.
pub(crate) const DEFAULT_APP: &str = "agent-session";

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

impl Globals {
    /// Whether project-level config files count.
    pub(crate) fn project_config(&self) -> bool {
        !self.no_project_config
    }

    /// `--cache-dir` / `--no-cache`.
    pub(crate) fn cache(&self) -> CacheChoice {
        match (&self.cache_dir, self.no_cache) {
            (Some(dir), _) => CacheChoice::Dir(dir.clone()),
            (None, true) => CacheChoice::Off,
            (None, false) => CacheChoice::UserDir,
        }
    }
}

/// What to do.
#[derive(Debug, Clone, PartialEq, Subcommand)]
pub(crate) enum Command {
    /// The configured servers: status, transport, source file, tool count, error
    List {
        /// Wait at most this many milliseconds for each server (its own `timeout` when
        /// shorter); one not connected by then is reported as timed out, and the exit is 1
        #[arg(long = "timeout-ms", value_name = "MS", value_parser = parse_ms)]
        timeout_ms: Option<u64>,
    },
    /// The tools whose config files are read, highest priority first: the files each looked
    /// for here, which exist, and how many servers each gave; nothing is started
    Providers {
        /// Every file looked for, missing ones too (without it, the tools none of whose files
        /// exist here are one line)
        #[arg(long)]
        all: bool,
    },
    /// The tools the session holds right after the startup gate, live or deferred
    Tools {
        /// Only this server's tools
        #[arg(long, value_name = "NAME")]
        server: Option<String>,
    },
    /// Search the tools: words (what the tool should do) or a /regular expression/ over names
    /// and descriptions, best first
    #[command(after_help = SEARCH_EXAMPLES)]
    Search {
        /// The query: words, or /PATTERN/
        #[arg(value_name = "QUERY", required = true, num_args = 1..)]
        query: Vec<String>,
        /// How many tools to show (default 5)
        #[arg(long, value_name = "N", value_parser = parse_limit)]
        limit: Option<usize>,
        /// Only this server's tools
        #[arg(long, value_name = "NAME")]
        server: Option<String>,
    },
    /// What the tool definitions cost the model's context: each server's estimated tokens, the
    /// total, and what tool search sends instead
    #[command(after_help = CONTEXT_EXAMPLES)]
    Context,
    /// Call a tool by its name (mcp_github_create_issue) or as server/tool
    #[command(after_help = CALL_EXAMPLES)]
    Call {
        /// The tool: its model-facing name, or server/tool
        #[arg(value_name = "TOOL")]
        tool: Option<String>,
        /// The arguments: a JSON object inline, `-` to read it from stdin, or @FILE (default {})
        #[arg(value_name = "ARGS", value_parser = parse_args_source)]
        args: Option<String>,
        /// An argument KEY=VALUE (repeatable; VALUE is read by the tool's schema: a string
        /// property takes it as written, a number or boolean parses it, an array or object
        /// takes JSON)
        #[arg(long = "arg", value_name = "KEY=VALUE", value_parser = parse_pair)]
        arg: Vec<(String, String)>,
        /// Give up (and cancel the call) after this many milliseconds
        #[arg(long = "timeout-ms", value_name = "MS", value_parser = parse_ms)]
        timeout_ms: Option<u64>,
        /// Print the whole result, not what the model gets within the output budget
        #[arg(long)]
        full: bool,
    },
    /// The servers' resources and resource templates (servers without them are skipped)
    Resources {
        /// Only this server's resources
        #[arg(long, value_name = "NAME")]
        server: Option<String>,
    },
    /// Read a resource of a server by its URI (a listed one, or one a template expands to)
    Read {
        /// The server's name
        #[arg(value_name = "SERVER")]
        server: String,
        /// The resource's URI
        #[arg(value_name = "URI")]
        uri: String,
    },
    /// The servers' prompts and their arguments (servers without them are skipped)
    Prompts {
        /// Only this server's prompts
        #[arg(long, value_name = "NAME")]
        server: Option<String>,
    },
    /// Get a prompt's messages from a server
    Prompt {
        /// The server's name
        #[arg(value_name = "SERVER")]
        server: String,
        /// The prompt's name
        #[arg(value_name = "NAME")]
        name: String,
        /// A prompt argument KEY=VALUE (repeatable; values are strings)
        #[arg(long = "arg", value_name = "KEY=VALUE", value_parser = super::resources::parse_prompt_arg)]
        arg: Vec<(String, String)>,
    },
    /// The tasks this CLI's calls became and has not seen end, each with its status now
    #[command(after_help = TASKS_EXAMPLES)]
    Tasks {
        /// Only this server's tasks
        #[arg(long, value_name = "NAME")]
        server: Option<String>,
    },
    /// A task's status, and its result once it has ended (any task id the server knows)
    Task {
        /// The server's name
        #[arg(value_name = "SERVER")]
        server: String,
        /// The task's id
        #[arg(value_name = "ID")]
        id: String,
    },
    /// Ask a server to cancel a task, then show its status
    Cancel {
        /// The server's name
        #[arg(value_name = "SERVER")]
        server: String,
        /// The task's id
        #[arg(value_name = "ID")]
        id: String,
    },
    /// The servers' skills: name, description, files and size (servers without them are
    /// skipped); no file of a skill is read
    Skills {
        /// Only this server's skills
        #[arg(long, value_name = "NAME")]
        server: Option<String>,
    },
    /// Show a skill's SKILL.md (or one of its files), every file checked against the server's
    /// listing: a file that differs is refused, naming what differed
    #[command(after_help = SKILL_EXAMPLES)]
    Skill {
        /// The server's name
        #[arg(value_name = "SERVER")]
        server: String,
        /// The skill's name (or its skill:// URI)
        #[arg(value_name = "NAME")]
        name: String,
        /// Show this file of the skill instead of its SKILL.md: its path in the skill
        /// (references/FORMS.md) or its URI
        #[arg(long, value_name = "PATH")]
        file: Option<String>,
    },
    /// Log in to a remote server (OAuth): opens the login page, waits for the browser
    #[command(after_help = LOGIN_EXAMPLES)]
    Login {
        /// The server's name
        #[arg(value_name = "NAME")]
        name: String,
    },
    /// Forget a remote server's login (its tokens and client registration)
    Logout {
        /// The server's name
        #[arg(value_name = "NAME")]
        name: String,
    },
    /// Approve this folder's project servers as they are written now (all, or the named
    /// ones); nothing is started
    Trust {
        /// The servers (default: every one waiting for approval, shown first and asked about)
        #[arg(value_name = "NAME")]
        names: Vec<String>,
        /// Approve every waiting server without asking (for scripts)
        #[arg(short = 'y', long)]
        yes: bool,
    },
    /// Withdraw approvals of this folder's project servers (all, or the named ones)
    Untrust {
        /// The servers (default: every approval of this folder)
        #[arg(value_name = "NAME")]
        names: Vec<String>,
    },
    /// Connect one server and ping it: its latency and tool count
    Test {
        /// The server's name
        #[arg(value_name = "NAME")]
        name: String,
        /// Wait at most this many milliseconds for it to connect, and as long for each
        /// answer; a server not connected by then fails the test (exit 1)
        #[arg(long = "timeout-ms", value_name = "MS", value_parser = parse_ms)]
        timeout_ms: Option<u64>,
    },
    /// Disconnect one server and connect it again (in the shell)
    #[command(hide = true)]
    Reconnect {
        /// The server's name
        #[arg(value_name = "NAME")]
        name: String,
    },
    /// Read the config files again and restart only what changed: new, changed, failed and
    /// removed servers (in the shell)
    #[command(hide = true)]
    Reload,
    /// Read commands from stdin, the commands of this command line (`/mcp` before them is
    /// optional), help and exit
    #[command(after_help = SHELL_EXAMPLES)]
    Shell,
    /// Print the completion script for bash, zsh or fish
    #[command(after_help = COMPLETIONS_EXAMPLES)]
    Completions {
        /// The shell
        #[arg(value_name = "SHELL")]
        shell: CompletionShell,
    },
    /// add, add-json, get, remove, enable, disable: the management commands of `claude mcp`
    #[command(flatten)]
    Manage(ManageCommand),
    /// A guided tour with a built-in demo server: discovery, the gate, calls, reload, shutdown
    Demo,
    /// The names a completion script offers, one per line (used by the scripts `completions`
    /// prints): the servers the config files define, or the cached tools as `server/tool`;
    /// nothing is started
    #[command(hide = true)]
    CompleteNames {
        /// What to list
        #[arg(value_name = "KIND")]
        kind: NameKind,
    },
    /// The demo's MCP server on stdio (used by `demo`)
    #[command(hide = true)]
    DemoServer {
        /// serverInfo.name
        #[arg(long, default_value = "demo")]
        name: String,
        /// Delay of every tools/list answer, in milliseconds
        #[arg(long = "slow-ms", value_name = "MS", default_value_t = 0, value_parser = parse_ms)]
        slow_ms: u64,
        /// A word on the command line that tests and the demo find the process by
        #[arg(long)]
        marker: Option<String>,
    },
}

/// The shells a script is made for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum CompletionShell {
    /// Bash (with the bash-completion package).
    Bash,
    /// Zsh (its compsys).
    Zsh,
    /// Fish.
    Fish,
}

/// What `complete-names` lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum NameKind {
    /// The servers the config files define (any state).
    Servers,
    /// The tools the cache holds for them, as `server/tool`.
    Tools,
}

/// What parsing the command line gave: a command to run, text to print (help, version), or a
/// usage error on one line.
#[derive(Debug)]
pub(crate) enum Parsed {
    /// Run this.
    Run(Box<Cli>),
    /// Print this on stdout and exit 0.
    Print(String),
    /// Print this on stderr and exit 2.
    Usage(String),
}

/// Parses the arguments of this process (the program name first).
pub(crate) fn parse(args: impl IntoIterator<Item = std::ffi::OsString>) -> Parsed {
    let args: Vec<std::ffi::OsString> = args.into_iter().collect();
    let words: Vec<String> = args
        .iter()
        .skip(1)
        .map(|arg| arg.to_string_lossy().into_owned())
        .collect();
    if let Some(message) = stdio_command_without_separator(&words, Interface::Cli) {
        return Parsed::Usage(message);
    }
    // `agent-session mcp list`, as a `claude mcp list` user types it: `mcp` is the same
    // commands' prefix there.
    let args: Vec<std::ffi::OsString> = match words.iter().position(|word| !word.starts_with('-')) {
        // Alone, it is the bare command: the usage line.
        Some(at) if words[at] == "mcp" => {
            let mut args = args;
            args.remove(at + 1);
            args
        }
        _ => args,
    };
    match Cli::try_parse_from(args) {
        Ok(cli) => Parsed::Run(Box::new(cli)),
        Err(error) => match error.kind() {
            ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
                Parsed::Print(error.render().to_string().trim_end().to_owned())
            }
            ErrorKind::InvalidSubcommand => Parsed::Usage(unknown_command(
                &error,
                &<Cli as clap::CommandFactory>::command(),
                "run `agent-session help` for the commands",
            )),
            // Bare (clap shows help) or with options only (`--json`): the same line.
            ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand | ErrorKind::MissingSubcommand => {
                Parsed::Usage(
                    "no command given; run `agent-session help` for the commands".to_owned(),
                )
            }
            _ => Parsed::Usage(one_line(
                &error.render().to_string(),
                "run `agent-session help` for usage",
            )),
        },
    }
}

/// A line of the shell: the command line's commands (no global options: the session has
/// them already), with the shell's own `reload` and `reconnect`, and without the commands
/// that make no sense inside a session.
#[derive(Debug, Parser)]
#[command(
    name = "/mcp",
    bin_name = "/mcp",
    about = "agent-session shell: the command line's commands, run against this session",
    long_about = None,
    no_binary_name = true,
    disable_version_flag = true,
    after_help = SHELL_LINE_HELP
)]
struct ShellLine {
    #[command(subcommand)]
    command: Command,
}

/// Under the shell's `help`.
const SHELL_LINE_HELP: &str = "\
`/mcp` before a command is optional: `/mcp list` and `list` are the same. `help COMMAND` shows a
command's options. `exit`, `quit` or the end of input leave.
On a terminal: arrows and the usual editing keys edit the line, up and down go through the
history, Ctrl-C cancels the running command (or drops the line), Ctrl-D leaves.";

/// Commands of the command line that a running session has no use for.
const NOT_IN_THE_SHELL: [&str; 5] = [
    "shell",
    "completions",
    "complete-names",
    "demo",
    "demo-server",
];

/// Commands that act on a running session, hidden from the command line's help.
const SHELL_ONLY: [&str; 2] = ["reload", "reconnect"];

/// A shell line that runs no command.
#[derive(Debug)]
pub(crate) enum NotRun {
    /// Help asked for: print it.
    Help(String),
    /// A usage error on one line.
    Usage(String),
}

/// Parses a line of the shell, split into words, with the command line's table.
pub(crate) fn parse_shell_line(words: &[String]) -> Result<Command, NotRun> {
    use clap::{CommandFactory as _, FromArgMatches as _};
    if let Some(message) = stdio_command_without_separator(words, Interface::Shell) {
        return Err(NotRun::Usage(message));
    }
    if let Some(word) = words.first()
        && NOT_IN_THE_SHELL.contains(&word.as_str())
    {
        return Err(NotRun::Usage(format!(
            "`{word}` is a command of `agent-session` itself, not of a running session; type \
             `help` for the commands"
        )));
    }
    let mut table = ShellLine::command();
    for name in SHELL_ONLY {
        table = table.mut_subcommand(name, |command| command.hide(false));
    }
    for name in NOT_IN_THE_SHELL {
        table = table.mut_subcommand(name, |command| command.hide(true));
    }
    let parsed = table
        .try_get_matches_from_mut(words)
        .and_then(|mut matches| ShellLine::from_arg_matches_mut(&mut matches));
    match parsed {
        Ok(line) => Ok(line.command),
        Err(error) => Err(match error.kind() {
            ErrorKind::DisplayHelp | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
                NotRun::Help(in_the_shells_words(error.render().to_string().trim_end()))
            }
            ErrorKind::InvalidSubcommand => NotRun::Usage(unknown_command(
                &error,
                &table,
                "type `help` for the commands",
            )),
            _ => NotRun::Usage(one_line(
                &error.render().to_string(),
                "type `help COMMAND` for usage",
            )),
        }),
    }
}

/// A command's help as the shell shows it: its examples, written for the command line
/// (`  agent-session call …`), as they are typed there.
fn in_the_shells_words(help: &str) -> String {
    help.lines()
        .map(|line| match line.strip_prefix("  agent-session ") {
            Some(rest) => format!("  /mcp {rest}"),
            None => line.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `unknown command "WORD" (did you mean "list"?); HELP`: the nearest of `table`'s visible
/// commands by edit distance (clap's own suggestion, by a similarity of letters in common,
/// offered `logout` for `bogus` and `test` before `list` for `lst`).
fn unknown_command(error: &clap::Error, table: &clap::Command, help: &str) -> String {
    let word = match error.get(ContextKind::InvalidSubcommand) {
        Some(ContextValue::String(word)) => word.as_str(),
        _ => "",
    };
    let names: Vec<&str> = table
        .get_subcommands()
        .filter(|command| !command.is_hide_set())
        .flat_map(|command| {
            std::iter::once(command.get_name()).chain(command.get_visible_aliases())
        })
        .collect();
    let suggestion = agent_session::suggest::suggest(word, names);
    format!("unknown command \"{word}\"{suggestion}; {help}")
}

/// `add NAME npx -y pkg`: a stdio server's command line given without `--` before it (the
/// first word after the name is not a URL). The message shows the line with `--` put in.
fn stdio_command_without_separator(words: &[String], interface: Interface) -> Option<String> {
    if !words.iter().any(|word| word == "add") {
        return None;
    }
    // The options that take a value, as the table declares them: the global ones, and `add`'s.
    let table = <Cli as clap::CommandFactory>::command();
    let global_values = options_taking_a_value(&table);
    let mut add_values = global_values.clone();
    if let Some(add) = table.find_subcommand("add") {
        add_values.extend(options_taking_a_value(add));
    }
    let mut index = 0;
    while let Some(word) = words.get(index) {
        if global_values.contains(word) {
            index += 2;
        } else if word.starts_with('-') {
            index += 1;
        } else {
            break;
        }
    }
    if words.get(index).map(String::as_str) != Some("add") {
        return None;
    }
    let rest = &words[index + 1..];
    if rest.iter().any(|word| word == "--") {
        return None;
    }
    let mut positionals = 0;
    let mut at = 0;
    while let Some(word) = rest.get(at) {
        if add_values.contains(word) {
            at += 2;
            continue;
        }
        if !word.starts_with('-') {
            positionals += 1;
            if positionals == 2 {
                break;
            }
        }
        at += 1;
    }
    let first = rest.get(at)?;
    let url_given = rest
        .iter()
        .any(|word| word == "--url" || word.starts_with("--url="));
    if first.contains("://") || first.starts_with("${") || url_given {
        return None;
    }
    let mut fixed = vec!["add".to_owned()];
    fixed.extend(rest[..at].iter().cloned());
    fixed.push("--".to_owned());
    fixed.extend(rest[at..].iter().cloned());
    Some(format!(
        "\"{first}\" is not a URL; a stdio server's command line goes after `--`: {}",
        interface.command(&shell_words::join(fixed))
    ))
}

/// How `command`'s options that take a value are spelled (`--scope`, `-s`).
fn options_taking_a_value(command: &clap::Command) -> Vec<String> {
    command
        .get_arguments()
        .filter(|argument| !argument.is_positional() && argument.get_action().takes_values())
        .flat_map(|argument| {
            let long = argument.get_long().map(|long| format!("--{long}"));
            let short = argument.get_short().map(|short| format!("-{short}"));
            long.into_iter().chain(short)
        })
        .collect()
}

/// clap's error on one line: the message, its tips, and where to get help (`help`).
fn one_line(rendered: &str, help: &str) -> String {
    let mut message = String::new();
    let mut tips = Vec::new();
    for line in rendered.lines().map(str::trim) {
        if line.is_empty() || line.starts_with("Usage:") || line.starts_with("For more information")
        {
            continue;
        }
        if let Some(tip) = line.strip_prefix("tip: ") {
            tips.push(tip.to_owned());
        } else if message.is_empty() {
            message = line.strip_prefix("error: ").unwrap_or(line).to_owned();
        } else {
            message.push(' ');
            message.push_str(line);
        }
    }
    for tip in tips {
        message.push_str(&format!(" ({tip})"));
    }
    if !help.is_empty() {
        message.push_str("; ");
        message.push_str(help);
    }
    message
}

/// `--app`: a plain name, as it becomes a directory name.
fn parse_app(app: &str) -> Result<String, String> {
    if app.is_empty() || app.contains(['/', '\\']) || app.starts_with('.') {
        return Err("use a plain name such as \"my-agent\"".to_owned());
    }
    Ok(app.to_owned())
}

/// `call`'s ARGS: `-` and `@FILE` are read later; inline JSON is checked now, so a mistake is
/// a usage error before anything starts.
fn parse_args_source(text: &str) -> Result<String, String> {
    if text != "-" && !text.starts_with('@') {
        parse_tool_args(text)?;
    }
    Ok(text.to_owned())
}

/// A size in bytes: `1048576`, `64KiB`, `32MiB`, `1GiB` (`K`, `M`, `G` and `KB`, `MB`, `GB`
/// mean the same binary units).
fn parse_size(text: &str) -> Result<usize, String> {
    let digits = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(digits);
    let shift = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        _ => {
            return Err(format!(
                "takes a size such as 33554432 or 32MiB, not {text:?}"
            ));
        }
    };
    number
        .parse::<usize>()
        .ok()
        .and_then(|number| number.checked_mul(1 << shift))
        .filter(|bytes| *bytes > 0)
        .ok_or_else(|| format!("takes a size such as 33554432 or 32MiB, not {text:?}"))
}

/// `--root DIR`: an existing folder, made absolute (from the current directory) with its
/// symlinks resolved, since a root is a `file://` URI, which has no relative form.
fn parse_root(text: &str) -> Result<PathBuf, String> {
    let folder = std::fs::canonicalize(text)
        .map_err(|error| format!("takes an existing folder; {text:?}: {error}"))?;
    if !folder.is_dir() {
        return Err(format!("takes a folder; {text:?} is not one"));
    }
    Ok(folder)
}

/// `search --limit N`: a number of tools, at least 1.
fn parse_limit(text: &str) -> Result<usize, String> {
    text.parse::<usize>()
        .ok()
        .filter(|limit| *limit >= 1)
        .ok_or_else(|| format!("takes a number of tools of at least 1, not {text:?}"))
}

/// `--context-window TOKENS`: a positive number of tokens (`200000`, `200k`, `1m`).
fn parse_tokens(text: &str) -> Result<usize, String> {
    let lower = text.to_ascii_lowercase();
    let (digits, scale) = match lower.strip_suffix('k') {
        Some(digits) => (digits, 1_000),
        None => match lower.strip_suffix('m') {
            Some(digits) => (digits, 1_000_000),
            None => (lower.as_str(), 1),
        },
    };
    digits
        .parse::<usize>()
        .ok()
        .and_then(|number| number.checked_mul(scale))
        .filter(|tokens| *tokens > 0)
        .ok_or_else(|| format!("takes a number of tokens such as 200000 or 200k, not {text:?}"))
}

fn parse_percent(text: &str) -> Result<u32, String> {
    text.parse::<u32>()
        .ok()
        .filter(|percent| (1..=100).contains(percent))
        .ok_or_else(|| format!("takes a whole percentage from 1 to 100, such as 10, not {text:?}"))
}

fn parse_ms(text: &str) -> Result<u64, String> {
    text.parse::<u64>()
        .map_err(|_| format!("takes a number of milliseconds, not {text:?}"))
}

#[cfg(test)]
mod tests;
