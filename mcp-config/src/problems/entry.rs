//! Why a provider could not turn an entry of its file into a server definition
//! ([`EntryProblem`]), and why a placeholder of another tool's cannot stand in this runtime
//! ([`PlaceholderProblem`]): the problems of reading other agents' files, apart from those of
//! a definition itself (the parent module's).

use std::error::Error;
use std::sync::Arc;

use super::shared::Shared;
use crate::quoting::quoted;
use crate::server_config::TransportKind;

/// Why a provider could not turn an entry of its file into a definition. A provider outside
/// this crate (a [`ConfigSource`](crate::source::ConfigSource) of the agent's) says why with its own
/// error type: [`EntryProblem::other`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EntryProblem {
    /// The entry is not a JSON object.
    #[error("the entry must be an object")]
    NotAnObject,
    /// A Codex entry is not a TOML table.
    #[error("the entry must be a table ([mcp_servers.<name>])")]
    NotATable,
    /// The entry does not have the runtime's shape (a field of the wrong type).
    #[error("invalid settings: {0}")]
    Settings(Shared<serde_json::Error>),
    /// Both `command` and `url` are set.
    #[error("both \"command\" and \"url\" are set; keep one")]
    CommandAndUrl,
    /// A stdio entry has no `command`.
    #[error("stdio server requires \"command\" field")]
    NoCommand,
    /// A remote entry has no `url`.
    #[error("{kind} server requires \"url\" field")]
    NoUrl {
        /// Its transport.
        kind: TransportKind,
    },
    /// A setting is not a string.
    #[error("\"{}\" must be a string", quoted(.key))]
    NotString {
        /// The setting as the tool names it.
        key: String,
    },
    /// A setting is not a list of strings.
    #[error("\"{}\" must be a list of strings", quoted(.key))]
    NotStringList {
        /// The setting as the tool names it.
        key: String,
    },
    /// A setting is not a map of strings.
    #[error("\"{}\" must be {noun} of strings", quoted(.key))]
    NotStringMap {
        /// The setting as the tool names it.
        key: String,
        /// What the tool's format calls a map: `a table`, `an object`.
        noun: &'static str,
    },
    /// A setting is not a boolean.
    #[error("\"{key}\" must be true or false")]
    NotBoolean {
        /// The setting.
        key: &'static str,
    },
    /// A timeout is not a non-negative number of milliseconds.
    #[error("\"{key}\" must be a non-negative number of milliseconds")]
    NotMilliseconds {
        /// The setting.
        key: &'static str,
    },
    /// A Codex timeout is not a non-negative number of seconds.
    #[error("\"{}\" must be a non-negative number of seconds", quoted(.key))]
    NotSeconds {
        /// The setting.
        key: String,
    },
    /// A Codex timeout is not a non-negative whole number of milliseconds.
    #[error("\"{}\" must be a non-negative whole number of milliseconds", quoted(.key))]
    NotWholeMilliseconds {
        /// The setting.
        key: String,
    },
    /// A Codex entry holds its bearer token inline.
    #[error(
        "Codex does not accept an inline \"bearer_token\"; put the token in an environment \
         variable and name it in \"bearer_token_env_var\""
    )]
    InlineBearerToken,
    /// A Gemini CLI entry is a WebSocket server.
    #[error("WebSocket servers (\"tcp\") are not supported; use a stdio or HTTP server")]
    WebSocket,
    /// An OpenCode local server's `command` list is empty.
    #[error("\"command\" must list the program and its arguments, e.g. [\"npx\", \"-y\", \"pkg\"]")]
    NoProgram,
    /// An OpenCode remote server has no `url` string.
    #[error("a remote server needs a \"url\" string")]
    RemoteWithoutUrl,
    /// A Goose extension that is not an MCP server this runtime can start (`builtin`,
    /// `platform`, `frontend`, `inline_python`): it runs inside Goose.
    #[error(
        "a {tool} \"{kind}\" extension runs inside {tool}; it is not an MCP server this runtime can start"
    )]
    InsideTheTool {
        /// The tool, e.g. `Goose`.
        tool: &'static str,
        /// The extension's type, e.g. `builtin`.
        kind: String,
    },
    /// A Zed entry with neither `command` nor `url`: a server a Zed extension provides, whose
    /// command only that extension knows.
    #[error(
        "a {tool} extension provides this server and supplies its command, which this runtime \
         cannot know; give the entry a \"command\" (or a \"url\") to use it here"
    )]
    ExtensionProvided {
        /// The tool, e.g. `Zed`.
        tool: &'static str,
    },
    /// An entry of a servers list (Continue's `mcpServers`) has no `name`; it is shown under
    /// its place in the list (`mcpServers[2]`).
    #[error("the entry has no \"name\"; give it one")]
    Unnamed,
    /// A Continue `uses:` entry: the server's settings are in a block the tool fetches (from
    /// its hub, or another file), which this runtime does not follow.
    #[error(
        "the entry is the {tool} block \"{}\" (\"uses\"), whose settings {tool} fetches from \
         its hub or another file; this runtime does not follow it: write the server's settings \
         in the entry instead",
        quoted(.reference)
    )]
    BlockReference {
        /// The tool, e.g. `Continue`.
        tool: &'static str,
        /// The block as `uses` names it, e.g. `anthropic/github-mcp`.
        reference: String,
    },
    /// An OpenCode entry's `type` is neither `local` nor `remote`.
    #[error("\"type\" must be \"local\" or \"remote\"")]
    LocalOrRemote,
    /// A field uses a placeholder of the tool's that this runtime cannot resolve.
    #[error("{} uses {}: {reason}", quoted(.field), quoted(.placeholder))]
    Placeholder {
        /// The field, e.g. `env.TOKEN`.
        field: String,
        /// The placeholder as written, e.g. `${input:token}`.
        placeholder: String,
        /// Why it cannot be resolved.
        reason: PlaceholderProblem,
    },
    /// A provider outside this crate refused the entry, for a reason of its own.
    #[error("{0}")]
    Other(Shared<dyn Error + Send + Sync>),
}

impl EntryProblem {
    /// A problem of a provider outside this crate, with its own error type.
    pub fn other(error: impl Error + Send + Sync + 'static) -> Self {
        Self::Other(Shared::new(Arc::new(error)))
    }
}

/// Why a placeholder of another tool's cannot be resolved here ([`EntryProblem::Placeholder`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PlaceholderProblem {
    /// VS Code's `${input:…}`: the value comes from a prompt only VS Code shows.
    #[error(
        "the value comes from a VS Code input prompt{}, which this runtime cannot show; set the \
         value in the config, or put it in an environment variable and write ${{VAR}}, instead",
        described(.description.as_deref())
    )]
    InputPrompt {
        /// The input's description, when the file gives one.
        description: Option<String>,
    },
    /// VS Code's `${command:…}` or `${config:…}`.
    #[error(
        "only VS Code can resolve that variable; set the value in the config, or put it in an \
         environment variable and write ${{VAR}}, instead"
    )]
    EditorOnly,
    /// A `file:` placeholder (Windsurf's `${file:…}`, OpenCode's `{file:…}`): the tool reads
    /// the value from a file.
    #[error(
        "{tool} reads that value from a file, which this runtime does not do; put the value in an \
         environment variable and write ${{VAR}} instead"
    )]
    FromFile {
        /// The tool, e.g. `Windsurf`.
        tool: &'static str,
    },
    /// A shell command substitution (Crush's `$(…)`): the tool runs the command when it loads
    /// the file.
    #[error(
        "{tool} runs that command when it loads the file; this runtime never runs a command \
         from another tool's config value: put the value in an environment variable and write \
         ${{VAR}} instead"
    )]
    CommandSubstitution {
        /// The tool, e.g. `Crush`.
        tool: &'static str,
    },
    /// Continue's `${{ secrets.NAME }}` or `${{ inputs.NAME }}` (or another `${{ … }}`):
    /// Continue fills it from its own secrets (the Continue Hub, or a `.env` file it reads),
    /// which this runtime does not read. Only the secret's name is kept, never a value.
    #[error(
        "Continue fills that from its secrets (the Continue Hub or a .env file), which this \
         runtime does not read; {}",
        secret_advice(.name)
    )]
    ContinueSecret {
        /// The secret's name as written, e.g. `GITHUB_TOKEN` (the whole variable, e.g.
        /// `continue.x`, when it is not a secret or an input).
        name: String,
    },
}

/// What to do instead of a Continue secret ([`PlaceholderProblem::ContinueSecret`]): name the
/// variable to set when the secret's name can be one.
fn secret_advice(name: &str) -> String {
    if crate::placeholder::is_variable_name(name) {
        format!("set {name} in the environment and write ${{{name}}} instead")
    } else {
        "put the value in an environment variable and write ${VAR} instead".to_owned()
    }
}

/// An input's description as [`PlaceholderProblem::InputPrompt`] shows it.
fn described(description: Option<&str>) -> String {
    description
        .map(|text| format!(" (\"{}\")", quoted(text)))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problems::ServerProblem;

    /// Every entry problem reads as the message its provider printed before.
    #[test]
    fn each_entry_problem_reads_as_the_message_its_provider_printed() {
        let settings = serde_json::from_str::<Vec<String>>("{}").unwrap_err();
        let settings_text = format!("invalid settings: {settings}");
        let placeholder = |placeholder: &str, reason| EntryProblem::Placeholder {
            field: "env.TOKEN".to_owned(),
            placeholder: placeholder.to_owned(),
            reason,
        };
        for (problem, message) in [
            (EntryProblem::NotAnObject, "the entry must be an object"),
            (
                EntryProblem::NotATable,
                "the entry must be a table ([mcp_servers.<name>])",
            ),
            (
                EntryProblem::Settings(Shared::new(Arc::new(settings))),
                settings_text.as_str(),
            ),
            (
                EntryProblem::CommandAndUrl,
                "both \"command\" and \"url\" are set; keep one",
            ),
            (
                EntryProblem::NoCommand,
                "stdio server requires \"command\" field",
            ),
            (
                EntryProblem::NoUrl {
                    kind: TransportKind::Sse,
                },
                "sse server requires \"url\" field",
            ),
            (
                EntryProblem::NotString { key: "cwd".into() },
                "\"cwd\" must be a string",
            ),
            (
                EntryProblem::NotStringList { key: "args".into() },
                "\"args\" must be a list of strings",
            ),
            (
                EntryProblem::NotStringMap {
                    key: "env".into(),
                    noun: "a table",
                },
                "\"env\" must be a table of strings",
            ),
            (
                EntryProblem::NotBoolean { key: "enabled" },
                "\"enabled\" must be true or false",
            ),
            (
                EntryProblem::NotMilliseconds { key: "timeout" },
                "\"timeout\" must be a non-negative number of milliseconds",
            ),
            (
                EntryProblem::NotSeconds {
                    key: "tool_timeout_sec".into(),
                },
                "\"tool_timeout_sec\" must be a non-negative number of seconds",
            ),
            (
                EntryProblem::NotWholeMilliseconds {
                    key: "startup_timeout_ms".into(),
                },
                "\"startup_timeout_ms\" must be a non-negative whole number of milliseconds",
            ),
            (
                EntryProblem::InlineBearerToken,
                "Codex does not accept an inline \"bearer_token\"; put the token in an environment variable and name it in \"bearer_token_env_var\"",
            ),
            (
                EntryProblem::WebSocket,
                "WebSocket servers (\"tcp\") are not supported; use a stdio or HTTP server",
            ),
            (
                EntryProblem::InsideTheTool {
                    tool: "Goose",
                    kind: "builtin".to_owned(),
                },
                "a Goose \"builtin\" extension runs inside Goose; it is not an MCP server this runtime can start",
            ),
            (
                EntryProblem::ExtensionProvided { tool: "Zed" },
                "a Zed extension provides this server and supplies its command, which this runtime cannot know; give the entry a \"command\" (or a \"url\") to use it here",
            ),
            (
                EntryProblem::NoProgram,
                "\"command\" must list the program and its arguments, e.g. [\"npx\", \"-y\", \"pkg\"]",
            ),
            (
                EntryProblem::RemoteWithoutUrl,
                "a remote server needs a \"url\" string",
            ),
            (
                EntryProblem::LocalOrRemote,
                "\"type\" must be \"local\" or \"remote\"",
            ),
            (
                placeholder(
                    "${input:token}",
                    PlaceholderProblem::InputPrompt {
                        description: Some("Your API key".into()),
                    },
                ),
                "env.TOKEN uses ${input:token}: the value comes from a VS Code input prompt (\"Your API key\"), which this runtime cannot show; set the value in the config, or put it in an environment variable and write ${VAR}, instead",
            ),
            (
                placeholder(
                    "${input:token}",
                    PlaceholderProblem::InputPrompt { description: None },
                ),
                "env.TOKEN uses ${input:token}: the value comes from a VS Code input prompt, which this runtime cannot show; set the value in the config, or put it in an environment variable and write ${VAR}, instead",
            ),
            (
                placeholder("${config:x}", PlaceholderProblem::EditorOnly),
                "env.TOKEN uses ${config:x}: only VS Code can resolve that variable; set the value in the config, or put it in an environment variable and write ${VAR}, instead",
            ),
            (
                placeholder(
                    "${file:/k}",
                    PlaceholderProblem::FromFile { tool: "Windsurf" },
                ),
                "env.TOKEN uses ${file:/k}: Windsurf reads that value from a file, which this runtime does not do; put the value in an environment variable and write ${VAR} instead",
            ),
            (
                placeholder(
                    "{file:~/k}",
                    PlaceholderProblem::FromFile { tool: "OpenCode" },
                ),
                "env.TOKEN uses {file:~/k}: OpenCode reads that value from a file, which this runtime does not do; put the value in an environment variable and write ${VAR} instead",
            ),
            (
                placeholder(
                    "$(pass show gh)",
                    PlaceholderProblem::CommandSubstitution { tool: "Crush" },
                ),
                "env.TOKEN uses $(pass show gh): Crush runs that command when it loads the file; this runtime never runs a command from another tool's config value: put the value in an environment variable and write ${VAR} instead",
            ),
            (
                placeholder(
                    "${{ secrets.GH_TOKEN }}",
                    PlaceholderProblem::ContinueSecret {
                        name: "GH_TOKEN".into(),
                    },
                ),
                "env.TOKEN uses ${{ secrets.GH_TOKEN }}: Continue fills that from its secrets (the Continue Hub or a .env file), which this runtime does not read; set GH_TOKEN in the environment and write ${GH_TOKEN} instead",
            ),
            (
                placeholder(
                    "${{ secrets.acme/tools/KEY-1 }}",
                    PlaceholderProblem::ContinueSecret {
                        name: "acme/tools/KEY-1".into(),
                    },
                ),
                "env.TOKEN uses ${{ secrets.acme/tools/KEY-1 }}: Continue fills that from its secrets (the Continue Hub or a .env file), which this runtime does not read; put the value in an environment variable and write ${VAR} instead",
            ),
            (
                EntryProblem::Unnamed,
                "the entry has no \"name\"; give it one",
            ),
            (
                EntryProblem::BlockReference {
                    tool: "Continue",
                    reference: "anthropic/github-mcp".into(),
                },
                "the entry is the Continue block \"anthropic/github-mcp\" (\"uses\"), whose settings Continue fetches from its hub or another file; this runtime does not follow it: write the server's settings in the entry instead",
            ),
        ] {
            assert_eq!(problem.to_string(), message);
            assert_eq!(
                ServerProblem::new("x", problem.into()).to_string(),
                format!("Server \"x\": {message}")
            );
        }
    }

    #[test]
    fn a_provider_of_the_agents_gives_its_own_error_and_it_stays_that_error() {
        #[derive(Debug, thiserror::Error)]
        #[error("the entry needs a \"region\"")]
        struct NoRegion;

        let problem = EntryProblem::other(NoRegion);
        assert_eq!(problem.to_string(), "the entry needs a \"region\"");
        let EntryProblem::Other(error) = &problem else {
            panic!("{problem:?}");
        };
        assert!(error.get().downcast_ref::<NoRegion>().is_some());
        // Equal to itself shared, not to another error that reads the same.
        assert_eq!(problem.clone(), problem);
        assert_ne!(problem, EntryProblem::other(NoRegion));
    }
}
