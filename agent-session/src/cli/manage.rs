//! The management commands at the top level, spelled as in `claude mcp`: `add`, `add-json`,
//! `get`, `remove`, `enable` and `disable` (declared with the other commands, in `args::manage`).
//!
//! They start no session. `add`, `add-json`, `remove`, `enable` and `disable` go through
//! [`run_config_command`], the shell's own `/mcp` parser and writer, and connect nothing;
//! `get NAME` reads the config files and connects that one server alone, to show its status and
//! tools. Secrets stay hidden: `get` shows env and header names, never their values.

use std::collections::BTreeMap;
use std::sync::Arc;

use agent_session::commands::{Interface, known_server, unknown_server};
use agent_session::render::{also_used_by, describe_source, one_line, plural, source_json};
use agent_session::terminal_text::escape_line;
use agent_session::{
    AgentSession, ServerStatus, SessionOptions, definition_lines, run_config_command,
};
use mcp_cache::NoopToolCache;
use mcp_config::{
    Consent, DiscoveredServer, DiscoveryResult, REDACTED, ServerConfig, SkipReason, SourceMeta,
    TransportConfig, TransportKind, load_all_configs,
};
use mcp_manager::{ConnectionStatus, McpManager};
use mcp_transport::ProtocolVersion;
use mcp_transport::oauth::FileCredentialStore;
use serde_json::{Value, json};

use super::args::{Globals, ManageCommand};
use super::failure::Kind;
use super::outcome::Outcome;
use super::{Running, Wait, needs};
use super::{launcher, project_dir};

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
