//! The management commands at the top level, spelled as in `claude mcp`: `add`, `add-json`,
//! `get`, `remove`, `enable` and `disable`.
//!
//! They start no session. `add`, `add-json`, `remove`, `enable` and `disable` go through
//! [`run_config_command`], the shell's own `/mcp` parser and writer, and connect nothing;
//! `get NAME` reads the config files and connects that one server alone, to show its status and
//! tools. Secrets stay hidden: `get` shows env and header names, never their values.

use std::collections::BTreeMap;
use std::sync::Arc;

use agent_session::commands::{known_server, unknown_server};
use agent_session::render::{also_used_by, describe_source, one_line, plural, source_json};
use agent_session::terminal_text::escape_line;
use agent_session::{
    AgentSession, ServerStatus, SessionOptions, definition_lines, run_config_command,
};
use clap::Subcommand;
use clap::builder::{PossibleValue, TypedValueParser};
use mcp_cache::NoopToolCache;
use mcp_config::{
    Consent, DiscoveredServer, DiscoveryResult, REDACTED, ServerConfig, SkipReason, SourceMeta,
    TransportConfig, TransportKind, load_all_configs,
};
use mcp_manager::{ConnectionStatus, McpManager};
use mcp_transport::ProtocolVersion;
use mcp_transport::oauth::FileCredentialStore;
use serde_json::{Value, json};

use super::args::Globals;
use super::failure::Kind;
use super::outcome::{Interface, Outcome};
use super::{Running, Wait, needs};
use super::{launcher, project_dir};

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

/// Runs a management command; its exit status.
pub(crate) async fn run(globals: &Globals, command: ManageCommand) -> u8 {
    if let ManageCommand::Get { name } = &command {
        // The session it starts makes its own options.
        return get_command(globals, name).await;
    }
    let options = match options(globals) {
        Ok(options) => options,
        Err(message) => return Outcome::usage(Kind::Usage, message).emit(globals.json),
    };
    Outcome::of_command(run_config_command(&options, &command.config_words())).emit(globals.json)
}

/// What the config files define, as a command that starts no session reads them; why they
/// could not be read.
pub(crate) fn discover(options: &SessionOptions) -> Result<DiscoveryResult, String> {
    let ctx = options
        .load
        .discovery_context(&options.cwd)
        .map_err(|error| error.to_string())?;
    Ok(load_all_configs(&ctx, &options.load.discovery))
}

/// A usage error for each of `names` that no config file defines (`trust NAME`, `untrust
/// NAME`): the one unknown-name rule, before anything is done.
pub(crate) fn refuse_unknown(options: &SessionOptions, names: &[String]) -> Option<Outcome> {
    if names.is_empty() {
        return None;
    }
    let discovery = match discover(options) {
        Ok(discovery) => discovery,
        Err(message) => return Some(Outcome::failed(Kind::Command, message)),
    };
    let message = names
        .iter()
        .find_map(|name| known_server(&discovery, name, Interface::Cli).err())?;
    Some(Outcome::usage(Kind::Usage, message))
}

/// `agent-session get NAME`: a session of that one server (started as `tools --server NAME`
/// starts it, so it connects, and counts its tools, as every other command sees it), waited
/// for, described, and stopped. Its exit status.
async fn get_command(globals: &Globals, name: &str) -> u8 {
    let needs = |discovery: &DiscoveryResult| needs::for_server(name, discovery, Interface::Cli);
    // Waited for as `list` and `test` wait, the progress line naming it while it connects.
    let running = match Running::start_needing(globals, needs, None, Wait::Connected).await {
        Ok(running) => running,
        Err(message) => return Outcome::usage(Kind::Usage, message).emit(globals.json),
    };
    let outcome = get_in_session(&running.session, name, Interface::Cli);
    running.stop().await;
    outcome.emit(globals.json)
}

/// `get NAME` in a running session: the session's own view of the server, which is connected
/// already (or why not); nothing more is started.
pub(crate) fn get_in_session(session: &AgentSession, name: &str, interface: Interface) -> Outcome {
    get(&session.discovery(), session.manager(), name, interface)
}

/// The session options of the command line, for discovery and for connecting one server:
/// servers die with the CLI, logins come from the user's credentials file, no tool cache.
pub(crate) fn options(globals: &Globals) -> Result<SessionOptions, String> {
    let cwd = project_dir(globals.cwd.as_deref())?;
    let mut options = SessionOptions::new(globals.app.clone(), cwd)
        .project_config(globals.project_config())
        .cache(Arc::new(NoopToolCache::new()));
    options.load.manager.launcher = launcher::for_this_process();
    if let Some(bytes) = globals.max_message_bytes {
        options.load.manager.max_message_bytes = bytes;
    }
    if let Ok(context) = options.load.discovery_context(&options.cwd) {
        let store = FileCredentialStore::new(context.credentials_file());
        options.load.manager.credentials = Arc::new(store);
    }
    Ok(options)
}

/// A server's state after connecting it alone.
struct Live {
    status: ServerStatus,
    tools: Vec<String>,
    error: Option<String>,
    /// The protocol version it negotiated; `None` when unknown (not connected).
    protocol: Option<ProtocolVersion>,
}

/// `get NAME`: the definition in use (or the one skipped, and why), where it is, what it
/// shadows, and its status and tools as `manager` has them. A failure (exit status 1) when the
/// server is not connected.
fn get(
    discovery: &DiscoveryResult,
    manager: &McpManager,
    name: &str,
    interface: Interface,
) -> Outcome {
    let skipped = discovery
        .skipped
        .iter()
        .filter(|skipped| skipped.name == name);
    let Some(shown) = describe(discovery, name, interface) else {
        let known = discovery.names();
        return Outcome::usage(Kind::Usage, unknown_server(name, known, interface));
    };
    // Lower-priority definitions of the name, and every definition not used (switched off,
    // waiting for approval, invalid) but the one shown.
    let mut shadowed: Vec<(SourceMeta, &'static str)> = discovery
        .servers
        .get(name)
        .map(|server| {
            server
                .source
                .shadowed
                .iter()
                .map(|meta| (meta.clone(), "shadowed"))
                .collect()
        })
        .unwrap_or_default();
    shadowed.extend(
        skipped
            .filter(|skipped| skipped.source != shown.source)
            .map(|skipped| (skipped.source.clone(), reason_word(&skipped.reason))),
    );
    let live = match discovery.servers.get(name) {
        Some(_) => live(manager, name, interface),
        None => Live {
            status: shown.status,
            tools: Vec::new(),
            error: shown.problem.clone(),
            protocol: None,
        },
    };
    let connected = live.status == ServerStatus::Connected;
    Outcome::ok(
        get_text(name, &shown, &shadowed, &live),
        get_json(name, &shown, &shadowed, &live),
    )
    .or_failing(!connected)
}

/// The definition `get` shows.
struct Shown {
    source: SourceMeta,
    transport: Option<TransportKind>,
    /// The definition as written, secrets hidden; `None` when it could not be read.
    definition: Option<ServerConfig>,
    /// The status without connecting: connecting for a server in use, else why it is not.
    status: ServerStatus,
    /// Why it is not used, when that has a message.
    problem: Option<String>,
    /// For a project server, what approving it lets it do (the description `trust` shows).
    consent: Option<Consent>,
}

/// The consent description of an approved project server's definition (as written), with the
/// user's own definition it took the place of (the first of the shadowed ones that is not the
/// project's); `None` for the user's own servers, which need no approval.
fn project_consent(server: &DiscoveredServer) -> Option<Consent> {
    let source = &server.source;
    let replaced = source
        .shadowed
        .iter()
        .find(|meta| !meta.in_project_folder)
        .cloned();
    source
        .meta
        .in_project_folder
        .then(|| Consent::of(&server.definition, &source.meta).replacing(replaced))
}

/// The definition in use, as written (`${VAR}` unexpanded) with secrets hidden; else the
/// first one skipped, and why.
fn describe(discovery: &DiscoveryResult, name: &str, interface: Interface) -> Option<Shown> {
    if let Some(server) = discovery.servers.get(name) {
        return Some(Shown {
            source: server.source.meta.clone(),
            transport: Some(server.definition.transport_kind()),
            definition: Some(server.definition.redacted()),
            status: ServerStatus::Connecting,
            problem: None,
            consent: project_consent(server),
        });
    }
    let skipped = discovery.skip_of(name)?;
    let (status, problem) = match &skipped.reason {
        SkipReason::Disabled => (ServerStatus::Disabled, None),
        SkipReason::NeedsApproval => {
            let refused = skipped
                .consent
                .as_ref()
                .and_then(|consent| consent.refused.first());
            let problem = match refused {
                Some(refused) => format!(
                    "a project server waiting for approval, which it cannot be given \
                     ({refused})"
                ),
                None => format!(
                    "a project server waiting for approval: {}",
                    interface.command_on("trust", name)
                ),
            };
            (ServerStatus::NeedsApproval, Some(problem))
        }
        SkipReason::Invalid(invalid) => (ServerStatus::Invalid, Some(invalid.to_string())),
        SkipReason::DeniedByPolicy(denial) => {
            (ServerStatus::DeniedByPolicy, Some(denial.to_string()))
        }
        SkipReason::ProjectConfigOff => (
            ServerStatus::Disconnected,
            Some("in a project file while project config is off".to_owned()),
        ),
        SkipReason::ExaFiltered => (
            ServerStatus::Disconnected,
            Some("an Exa server, which sessions leave out".to_owned()),
        ),
        _ => (ServerStatus::Disconnected, None),
    };
    Some(Shown {
        source: skipped.source.clone(),
        transport: skipped.transport,
        definition: skipped.definition.as_ref().map(ServerConfig::redacted),
        status,
        problem,
        // Waiting: the description discovery asked about; else (approved but unusable) the
        // definition's own.
        consent: skipped.consent.clone().or_else(|| {
            let definition = skipped.definition.as_ref()?;
            let source = &skipped.source;
            source
                .in_project_folder
                .then(|| Consent::of(definition, source))
        }),
    })
}

/// Why a definition is not used, as one word.
fn reason_word(reason: &SkipReason) -> &'static str {
    match reason {
        SkipReason::Disabled => "disabled",
        SkipReason::Invalid(_) => "invalid",
        SkipReason::ProjectConfigOff => "project-config-off",
        SkipReason::ExaFiltered => "exa-filtered",
        SkipReason::NeedsApproval => "needs-approval",
        SkipReason::DeniedByPolicy(_) => "denied-by-policy",
        _ => "skipped",
    }
}

/// What `manager` says of `name` now: its status, why it is not connected, its tools.
fn live(manager: &McpManager, name: &str, interface: Interface) -> Live {
    let (status, error) = match manager.get_connection_status(name) {
        ConnectionStatus::Connected => (ServerStatus::Connected, None),
        ConnectionStatus::Connecting => (
            ServerStatus::Connecting,
            Some("still connecting after its connect timeout".to_owned()),
        ),
        ConnectionStatus::NeedsLogin(error) => (
            ServerStatus::NeedsLogin,
            Some(format!(
                "{error}; run {}",
                interface.command_on("login", name)
            )),
        ),
        ConnectionStatus::Failed(error) => (ServerStatus::Failed, Some(error.to_string())),
        ConnectionStatus::Reconnecting { cause, .. } => {
            (ServerStatus::Reconnecting, Some(cause.to_string()))
        }
        _ => (ServerStatus::Disconnected, None),
    };
    let mut tools: Vec<String> = manager
        .tools()
        .into_iter()
        .filter(|tool| tool.server == name)
        .map(|tool| tool.original_name)
        .collect();
    tools.sort();
    Live {
        status,
        tools,
        error,
        protocol: manager.protocol_version(name),
    }
}

/// Names with their values hidden.
fn redacted_names(map: &BTreeMap<String, String>) -> Value {
    Value::Object(
        map.keys()
            .map(|key| (key.clone(), Value::from(REDACTED)))
            .collect(),
    )
}

fn get_json(
    name: &str,
    shown: &Shown,
    shadowed: &[(SourceMeta, &'static str)],
    live: &Live,
) -> Value {
    let mut json = json!({
        "name": name,
        "status": live.status.as_str(),
        "tools": live.tools.len(),
        "tool_names": live.tools,
        "error": live.error,
        "protocol": live.protocol.map(ProtocolVersion::as_str),
        "transport": shown.transport.map(TransportKind::as_str),
        "source": source_json(&shown.source),
        "shadowed": shadowed.iter().map(|(meta, reason)| {
            let mut entry = source_json(meta);
            entry["reason"] = Value::from(*reason);
            entry
        }).collect::<Vec<_>>(),
        "consent": shown.consent.as_ref().map(Consent::to_json),
    });
    match shown
        .definition
        .as_ref()
        .map(|definition| &definition.transport)
    {
        Some(TransportConfig::Stdio(stdio)) => {
            json["command"] = Value::from(stdio.command.clone());
            json["args"] = Value::from(stdio.args.clone());
            json["env"] = redacted_names(&stdio.env);
            json["cwd"] = stdio.cwd.clone().map_or(Value::Null, Value::from);
        }
        Some(TransportConfig::Http(remote) | TransportConfig::Sse(remote)) => {
            json["url"] = Value::from(remote.url.clone());
            json["headers"] = redacted_names(&remote.headers);
        }
        Some(TransportConfig::Custom(custom)) => {
            // A plugin's fields may hold anything: their names, not their values.
            json["type"] = Value::from(custom.kind.clone());
            json["fields"] = Value::from(custom.fields.keys().cloned().collect::<Vec<_>>());
        }
        None => {}
    }
    json
}

fn get_text(
    name: &str,
    shown: &Shown,
    shadowed: &[(SourceMeta, &'static str)],
    live: &Live,
) -> String {
    // One line per field: a value (a name, a path, a server's error) cannot add lines.
    let mut lines = vec![format!("{}:", escape_line(name))];
    let mut line =
        |label: &str, value: String| lines.push(format!("  {label:<10} {}", escape_line(&value)));
    let status = match (live.status, live.tools.len()) {
        (ServerStatus::Connected, count) => format!("connected ({count} tool{})", plural(count)),
        (status, _) => status.as_str().to_owned(),
    };
    line("status:", status);
    if let Some(error) = &live.error {
        line("error:", one_line(error));
    }
    if let Some(kind) = shown.transport {
        line("transport:", kind.as_str().to_owned());
    }
    if let Some(version) = live.protocol {
        line("protocol:", version.as_str().to_owned());
    }
    for (label, value) in shown.definition.iter().flat_map(definition_lines) {
        line(label, value);
    }
    line("source:", describe_source(&shown.source));
    if let Some(consent) = &shown.consent {
        let what = if shown.status == ServerStatus::NeedsApproval {
            "what approving it lets it do:"
        } else {
            "what its approval lets it do:"
        };
        line("consent:", what.to_owned());
        for (label, value) in consent.lines() {
            line(label, value);
        }
    }
    if let Some(names) = also_used_by(&shown.source) {
        line("shared:", format!("the same file is read by {names}"));
    }
    for (meta, reason) in shadowed {
        line("shadows:", format!("{} ({reason})", describe_source(meta)));
    }
    if !live.tools.is_empty() {
        line("tools:", live.tools.join(", "));
    }
    lines.join("\n")
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
