//! What the session knows about its servers right now, one [`ServerRow`] per name: from the
//! discovery the session keeps (servers in use, definitions skipped and why) and the manager
//! (status, failures, tools). Nothing here reads a config file.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::Arc;

use mcp_config::{
    Consent, DiscoveryResult, InvalidServer, PolicyDenial, SkipReason, SourceMeta, TransportKind,
};
use mcp_manager::{ConnectionStatus, Problem, ServerError};
use mcp_transport::ProtocolVersion;
use serde_json::{Value, json};

use super::Interface;
use crate::render::{one_line, problem_json, source_json};
use crate::session::AgentSession;

/// A server's state as `/mcp list` shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ServerStatus {
    /// Connected, tools listed.
    Connected,
    /// Handshake or tool listing in progress.
    Connecting,
    /// The connection died and is being made again; its tools wait for it.
    Reconnecting,
    /// The last attempt failed or the connection died.
    Failed,
    /// The server wants the user to log in (`agent-session login NAME`, `/mcp login NAME`).
    NeedsLogin,
    /// A server of the project folder's files that the user has not approved: it does not run
    /// (`agent-session trust NAME`, `/mcp trust NAME`).
    NeedsApproval,
    /// Configured but not connected (disconnected, or never connected).
    Disconnected,
    /// Switched off in a config file.
    Disabled,
    /// The definition cannot be used; it never connects.
    Invalid,
    /// The machine's enterprise policy does not let it run.
    DeniedByPolicy,
}

impl ServerStatus {
    /// The word shown: `connected`, `connecting`, `reconnecting`, `failed`, `needs-login`,
    /// `needs-approval`, `disconnected`, `disabled`, `invalid`, `denied-by-policy`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Connected => "connected",
            Self::Connecting => "connecting",
            Self::Reconnecting => "reconnecting",
            Self::Failed => "failed",
            Self::NeedsLogin => "needs-login",
            Self::NeedsApproval => "needs-approval",
            Self::Disconnected => "disconnected",
            Self::Disabled => "disabled",
            Self::Invalid => "invalid",
            Self::DeniedByPolicy => "denied-by-policy",
        }
    }
}

/// Why a row's server is not usable.
#[derive(Debug, Clone)]
pub(super) enum RowError {
    /// Its last connection failed, or died.
    Failed(ServerError),
    /// Its definition cannot be used.
    Invalid(InvalidServer),
    /// The enterprise policy denies it.
    Denied(PolicyDenial),
}

impl fmt::Display for RowError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Failed(error) => fmt::Display::fmt(error, f),
            Self::Invalid(invalid) => fmt::Display::fmt(invalid, f),
            Self::Denied(denial) => fmt::Display::fmt(denial, f),
        }
    }
}

/// One server as `/mcp list` shows it.
#[derive(Debug, Clone)]
pub(super) struct ServerRow {
    pub(super) name: String,
    pub(super) status: ServerStatus,
    pub(super) transport: Option<TransportKind>,
    pub(super) source: Option<SourceMeta>,
    pub(super) tools: usize,
    pub(super) error: Option<RowError>,
    /// The protocol version it speaks (or, while its tools come from the cache, the one the
    /// cache remembers); `None` when unknown.
    pub(super) protocol: Option<ProtocolVersion>,
    /// For a server waiting for approval, what approving it lets it do.
    pub(super) consent: Option<Consent>,
}

impl ServerRow {
    pub(super) fn to_json(&self) -> Value {
        json!({
            "name": self.name,
            "status": self.status.as_str(),
            "transport": self.transport.map(TransportKind::as_str),
            "source": self.source.as_ref().map(source_json),
            "tools": self.tools,
            "error": self.error.as_ref().map(ToString::to_string),
            "protocol": self.protocol.map(ProtocolVersion::as_str),
            "consent": self.consent.as_ref().map(Consent::to_json),
        })
    }
}

/// Every server the session knows of, and the problems of its last load.
pub(super) struct Servers {
    pub(super) discovery: Arc<DiscoveryResult>,
    pub(super) problems: Vec<Problem>,
    pub(super) rows: Vec<ServerRow>,
}

impl Servers {
    pub(super) fn collect(session: &AgentSession) -> Self {
        let discovery = session.discovery();
        let manager = session.manager();
        let mut tool_counts: BTreeMap<String, usize> = BTreeMap::new();
        for tool in manager.tools() {
            *tool_counts.entry(tool.server).or_default() += 1;
        }
        // Servers in use, servers switched off or invalid, and any the manager still knows.
        let mut names: BTreeSet<String> = discovery.servers.keys().cloned().collect();
        names.extend(discovery.skipped.iter().filter_map(|skipped| {
            let shown = matches!(
                skipped.reason,
                SkipReason::Disabled
                    | SkipReason::Invalid(_)
                    | SkipReason::NeedsApproval
                    | SkipReason::DeniedByPolicy(_)
            );
            shown.then(|| skipped.name.clone())
        }));
        names.extend(manager.server_names());

        let rows = names
            .into_iter()
            .map(|name| {
                let status = manager.get_connection_status(&name);
                let in_use = discovery.servers.get(&name);
                let skipped = discovery.skip_of(&name);
                let (status, error) = match (&status, skipped.map(|s| &s.reason)) {
                    (ConnectionStatus::Connected, _) => (ServerStatus::Connected, None),
                    (ConnectionStatus::Connecting, _) => (ServerStatus::Connecting, None),
                    (ConnectionStatus::Failed(error), _) => {
                        (ServerStatus::Failed, Some(RowError::Failed(error.clone())))
                    }
                    (ConnectionStatus::NeedsLogin(error), _) => (
                        ServerStatus::NeedsLogin,
                        Some(RowError::Failed(error.clone())),
                    ),
                    (ConnectionStatus::Reconnecting { cause, .. }, _) => (
                        ServerStatus::Reconnecting,
                        Some(RowError::Failed(cause.clone())),
                    ),
                    (_, Some(SkipReason::Disabled)) => (ServerStatus::Disabled, None),
                    (_, Some(SkipReason::NeedsApproval)) => (ServerStatus::NeedsApproval, None),
                    (_, Some(SkipReason::DeniedByPolicy(denial))) => (
                        ServerStatus::DeniedByPolicy,
                        Some(RowError::Denied(denial.clone())),
                    ),
                    // An entry discovery rejected: it never gets to connect.
                    (_, Some(SkipReason::Invalid(invalid))) => (
                        ServerStatus::Invalid,
                        Some(RowError::Invalid(invalid.clone())),
                    ),
                    _ => (ServerStatus::Disconnected, None),
                };
                let consent = skipped
                    .filter(|_| status == ServerStatus::NeedsApproval)
                    .and_then(|skipped| skipped.consent.clone());
                ServerRow {
                    consent,
                    transport: in_use
                        .map(|server| server.config.transport_kind())
                        .or_else(|| skipped.and_then(|skipped| skipped.transport)),
                    source: in_use
                        .map(|server| server.source.meta.clone())
                        .or_else(|| skipped.map(|skipped| skipped.source.clone()))
                        .or_else(|| manager.server_source(&name)),
                    tools: tool_counts.get(&name).copied().unwrap_or(0),
                    protocol: manager.protocol_version(&name),
                    status,
                    error,
                    name,
                }
            })
            .collect();
        Self {
            problems: super::problems_to_say(session.problems()),
            discovery,
            rows,
        }
    }

    pub(super) fn row(&self, name: &str) -> Option<&ServerRow> {
        self.rows.iter().find(|row| row.name == name)
    }

    /// Whether discovery uses a definition of `name`.
    pub(super) fn is_configured(&self, name: &str) -> bool {
        self.discovery.servers.contains_key(name)
    }

    /// How many rows have this status.
    pub(super) fn count(&self, status: ServerStatus) -> usize {
        self.rows.iter().filter(|row| row.status == status).count()
    }

    /// The last load's problems and, after them, failures the manager saw since, as JSON.
    pub(super) fn problems_json(&self) -> Value {
        let mut problems: Vec<Value> = self.problems.iter().map(problem_json).collect();
        for row in &self.rows {
            // Invalid definitions are among the load's problems already.
            let Some(RowError::Failed(failure)) = &row.error else {
                continue;
            };
            let reported = self.problems.iter().any(
                |problem| matches!(problem, Problem::Server { error, .. } if error == failure),
            );
            if !reported {
                problems.push(json!({
                    "path": row.source.as_ref().map(|meta| meta.path.display().to_string()),
                    "server": row.name,
                    "error": failure.to_string(),
                }));
            }
        }
        Value::Array(problems)
    }

    /// The one-line error for a known server that cannot be used now (disabled, invalid), or
    /// `None` when discovery uses a definition of it (or it is unknown: see
    /// [`super::unknown_server`]).
    pub(super) fn not_usable(&self, name: &str, interface: Interface) -> Option<String> {
        let row = self.row(name)?;
        if row.status == ServerStatus::Disabled {
            return Some(format!(
                "\"{name}\" is disabled; {} turns it on",
                interface.on("enable", name)
            ));
        }
        if row.status == ServerStatus::NeedsApproval {
            return Some(format!(
                "\"{name}\" is a project server waiting for approval; {}",
                super::trust::approval_step(name, row.consent.as_ref(), interface)
            ));
        }
        if !self.is_configured(name) {
            return Some(match &row.error {
                Some(error) => {
                    format!(
                        "\"{name}\" cannot be used: {}",
                        one_line(&error.to_string())
                    )
                }
                None => format!(
                    "\"{name}\" is not configured any more; {}",
                    rereads(interface)
                ),
            });
        }
        None
    }

    /// Where a server is defined, for the config writer.
    pub(super) fn source(&self, name: &str) -> Option<SourceMeta> {
        self.row(name).and_then(|row| row.source.clone())
    }
}

/// How the config files are read again where a command is typed: the shell reloads them, a
/// command of its own reads them afresh.
fn rereads(interface: Interface) -> String {
    match interface {
        Interface::Shell => format!("{} re-reads the config files", interface.bare("reload")),
        Interface::Cli => "run the command again: it reads the config files afresh".to_owned(),
    }
}
