//! The arguments of the management commands at the top level, spelled as in `claude mcp`:
//! `add`, `add-json`, `get`, `remove`, `enable` and `disable` ([`ManageCommand`]), and the
//! words they become for the shell's own `/mcp` parser ([`ManageCommand::config_words`]).
//! `cli::manage` runs them.

use clap::Subcommand;
use clap::builder::{PossibleValue, TypedValueParser};

const ADD_EXAMPLES: &str = "\
Examples:
  agent-session add github -e GITHUB_TOKEN='${GITHUB_TOKEN}' -- npx -y @modelcontextprotocol/server-github
  agent-session add sentry --transport http https://mcp.sentry.dev/mcp
  agent-session add linear -s user -t sse -H 'Authorization: Bearer ${LINEAR_TOKEN}' https://mcp.linear.app/sse
The server is written to <project>/.<app>/mcp.json (--scope project, the default; approved, as
you added it) or <config dir>/<app>/mcp.json (--scope user), mode 0600, the rest of the file
kept. The command line starts nothing (`get NAME` connects it and shows its tools); in the
shell, the session connects it at once.";

const GET_EXAMPLES: &str = "\
Examples:
  agent-session get github
  agent-session get github --json
Shows the definition in use (env and header values hidden), its file, the definitions it
shadows, and connects that one server for its status and tools. Exit status 1 when the server
is not connected (failed, needs a login or approval, disabled, invalid).";

/// A value whose choices are offered (to shell completion, in help) but checked by the
/// command itself, whose message says what is wrong and the command's usage.
#[derive(Debug, Clone, Copy)]
struct Offered(&'static [&'static str]);

impl TypedValueParser for Offered {
    type Value = String;

    fn parse_ref(
        &self,
        _command: &clap::Command,
        _argument: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        Ok(value.to_string_lossy().into_owned())
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(
            self.0.iter().map(|value| PossibleValue::new(*value)),
        ))
    }
}

/// The management commands, flattened into the top-level commands.
#[derive(Debug, Clone, PartialEq, Eq, Subcommand)]
pub(crate) enum ManageCommand {
    /// Add a server to this agent's config: a stdio server (-- COMMAND ARGS...) or a remote one
    /// (URL); nothing is started
    #[command(after_help = ADD_EXAMPLES)]
    Add {
        /// The server's name (letters, digits, -, _ and .)
        #[arg(value_name = "NAME")]
        name: String,
        /// A remote server's URL (leave out for a stdio server: give -- COMMAND ARGS...)
        #[arg(value_name = "URL")]
        url: Option<String>,
        /// Which file: project (this folder, the default) or user (every folder)
        #[arg(short = 's', long, value_name = "project|user", value_parser = Offered(&["project", "user"]))]
        scope: Option<String>,
        /// stdio (the default with a command), http (the default with a URL) or sse
        #[arg(short = 't', long, value_name = "stdio|http|sse", value_parser = Offered(&["stdio", "http", "sse"]))]
        transport: Option<String>,
        /// A variable of a stdio server's environment; repeat for more (${VAR} is read from
        /// your environment when the server starts)
        #[arg(short = 'e', long = "env", value_name = "KEY=VALUE")]
        env: Vec<String>,
        /// A header sent to a remote server; repeat for more
        #[arg(short = 'H', long = "header", value_name = "'Name: value'")]
        header: Vec<String>,
        /// A remote server's URL, as an option (the same as the URL word)
        #[arg(long = "url", value_name = "URL")]
        url_flag: Option<String>,
        /// Send "Authorization: Bearer TOKEN" to a remote server (${VAR} is read from your
        /// environment when it connects)
        #[arg(long, value_name = "TOKEN")]
        token: Option<String>,
        /// A stdio server's command line, after --
        #[arg(last = true, value_name = "COMMAND")]
        command: Vec<String>,
    },
    /// Add a server from its JSON entry, as config files write it:
    /// '{"command": "npx", "args": [...]}' or '{"type": "http", "url": "https://..."}'
    AddJson {
        /// The server's name
        #[arg(value_name = "NAME")]
        name: String,
        /// The entry, one JSON object
        #[arg(value_name = "JSON")]
        entry: String,
        /// Which file: project (this folder, the default) or user (every folder)
        #[arg(short = 's', long, value_name = "project|user", value_parser = Offered(&["project", "user"]))]
        scope: Option<String>,
    },
    /// One server: its definition (secrets hidden), file, shadowed definitions, and its status
    /// and tools after connecting it (no other server is started)
    #[command(after_help = GET_EXAMPLES)]
    Get {
        /// The server's name
        #[arg(value_name = "NAME")]
        name: String,
    },
    /// Remove a server from this agent's config (another tool's file is never edited: use
    /// disable)
    Remove {
        /// The server's name
        #[arg(value_name = "NAME")]
        name: String,
        /// Only from this file: project or user (default: where it is defined)
        #[arg(short = 's', long, value_name = "project|user", value_parser = Offered(&["project", "user"]))]
        scope: Option<String>,
    },
    /// Turn a server back on
    Enable {
        /// The server's name
        #[arg(value_name = "NAME")]
        name: String,
    },
    /// Turn a server off (one of another tool's file too, through this agent's user file)
    Disable {
        /// The server's name
        #[arg(value_name = "NAME")]
        name: String,
    },
}

impl ManageCommand {
    /// The words of the shared `/mcp` parser (`get` is not one of its commands: its words are
    /// only for completeness). Flags are written `--flag=value`, so a value starting with `-`
    /// stays a value.
    pub(crate) fn config_words(&self) -> Vec<String> {
        let flag = |name: &str, value: &str| format!("--{name}={value}");
        let mut words = Vec::new();
        match self {
            Self::Add {
                name,
                url,
                scope,
                transport,
                env,
                header,
                url_flag,
                token,
                command,
            } => {
                words.extend(["add".to_owned(), name.clone()]);
                words.extend(scope.iter().map(|scope| flag("scope", scope)));
                words.extend(transport.iter().map(|kind| flag("transport", kind)));
                words.extend(env.iter().map(|pair| flag("env", pair)));
                words.extend(header.iter().map(|header| flag("header", header)));
                words.extend(url_flag.iter().map(|url| flag("url", url)));
                words.extend(token.iter().map(|token| flag("token", token)));
                words.extend(url.iter().cloned());
                if !command.is_empty() {
                    words.push("--".to_owned());
                    words.extend(command.iter().cloned());
                }
            }
            Self::AddJson { name, entry, scope } => {
                words.extend(["add-json".to_owned(), name.clone(), entry.clone()]);
                words.extend(scope.iter().map(|scope| flag("scope", scope)));
            }
            Self::Remove { name, scope } => {
                words.extend(["remove".to_owned(), name.clone()]);
                words.extend(scope.iter().map(|scope| flag("scope", scope)));
            }
            Self::Enable { name } => words.extend(["enable".to_owned(), name.clone()]),
            Self::Disable { name } => words.extend(["disable".to_owned(), name.clone()]),
            Self::Get { name } => words.extend(["get".to_owned(), name.clone()]),
        }
        words
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::args::{Command, Parsed, parse};

    fn manage(line: &[&str]) -> ManageCommand {
        let words = std::iter::once("agent-session").chain(line.iter().copied());
        match parse(words.map(std::ffi::OsString::from)) {
            Parsed::Run(cli) => match cli.command {
                Command::Manage(command) => command,
                other => panic!("{line:?}: {other:?}"),
            },
            other => panic!("{line:?}: {other:?}"),
        }
    }

    #[test]
    fn the_command_line_takes_claude_mcp_spellings_in_any_order() {
        let add = manage(&[
            "add",
            "--transport",
            "http",
            "sentry",
            "https://h/mcp",
            "-H",
            "A: 1",
            "--json",
        ]);
        assert_eq!(
            add.config_words(),
            [
                "add",
                "sentry",
                "--transport=http",
                "--header=A: 1",
                "https://h/mcp"
            ]
        );
        let add = manage(&[
            "add", "gh", "-s", "user", "-e", "T=1", "--", "npx", "-y", "--x",
        ]);
        assert_eq!(
            add.config_words(),
            [
                "add",
                "gh",
                "--scope=user",
                "--env=T=1",
                "--",
                "npx",
                "-y",
                "--x"
            ]
        );
        let add_json = manage(&["add-json", "j", r#"{"command": "c"}"#, "-s", "user"]);
        assert_eq!(
            add_json.config_words(),
            ["add-json", "j", r#"{"command": "c"}"#, "--scope=user"]
        );
        for (line, expected) in [
            (&["get", "gh"][..], vec!["get", "gh"]),
            (&["enable", "gh"], vec!["enable", "gh"]),
            (&["disable", "gh"], vec!["disable", "gh"]),
            (
                &["remove", "gh", "-s", "project"],
                vec!["remove", "gh", "--scope=project"],
            ),
        ] {
            assert_eq!(manage(line).config_words(), expected, "{line:?}");
        }
    }

    #[test]
    fn add_becomes_the_words_of_the_shared_parser_with_values_kept_whole() {
        let add = ManageCommand::Add {
            name: "gh".to_owned(),
            url: None,
            scope: Some("user".to_owned()),
            transport: None,
            env: vec!["A=-x".to_owned()],
            header: Vec::new(),
            url_flag: None,
            token: None,
            command: vec!["npx".to_owned(), "-y".to_owned()],
        };
        assert_eq!(
            add.config_words(),
            ["add", "gh", "--scope=user", "--env=A=-x", "--", "npx", "-y"]
        );
        let remove = ManageCommand::Remove {
            name: "gh".to_owned(),
            scope: Some("project".to_owned()),
        };
        assert_eq!(remove.config_words(), ["remove", "gh", "--scope=project"]);
    }
}
