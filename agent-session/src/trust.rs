//! Approving the project folder's servers: what `agent-session trust` and `/mcp trust` do
//! (see `mcp_config::TrustPolicy` for what counts as approved).
//!
//! What waits for approval is what `list` shows as `needs-approval`: every project server whose
//! definition as written is not approved, whether or not it could run now (a `${VAR}` that is
//! unset, an Exa server). The approval is of that definition, variables unexpanded, so it never
//! needs their values. Approving records the approval and starts nothing.

use std::collections::BTreeMap;
use std::path::Path;

use mcp_config::writer::{trust_project_servers, untrust_project_servers};
use mcp_config::{
    ChangeProblem, ConfigError, Consent, REDACTED, ServerConfig, SkipReason, SourceMeta,
    TransportConfig, load_all_configs, redact_url_secrets,
};
use mcp_manager::ServerError;

use crate::render::describe_source;
use crate::session::SessionOptions;
use crate::terminal_text::escape_line;

/// Why the approvals could not be changed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TrustError {
    /// The discovery roots are unknown (e.g. `HOME` is not set).
    #[error(transparent)]
    Discovery(ServerError),
    /// A name given is not a server of the project folder's files.
    #[error(
        "\"{name}\" is not a server of this folder's project files (the project's servers: {})",
        if .known.is_empty() { "none".to_owned() } else { .known.join(", ") }
    )]
    NotAProjectServer {
        /// The name given.
        name: String,
        /// The project servers there are.
        known: Vec<String>,
    },
    /// A name given is a project server whose entry could not run even approved: there is
    /// nothing to approve until it is fixed.
    #[error("\"{name}\" cannot be approved: {reason}")]
    Invalid {
        /// The name given.
        name: String,
        /// What is wrong with its entry.
        reason: String,
    },
    /// The user's config file could not be changed.
    #[error(transparent)]
    Config(#[from] ConfigError),
}

/// A project server waiting for approval: its definition as written, where it is, and what
/// approving it lets it do.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct PendingServer {
    /// The server's name.
    pub name: String,
    /// The file that defines it.
    pub source: SourceMeta,
    /// The definition as written (`${VAR}` unexpanded): what is approved.
    pub definition: ServerConfig,
    /// What approving it lets it do, as discovery described it ([`Consent`]): what the user is
    /// shown and approves. A server it cannot state is never approved
    /// ([`Consent::is_approvable`]).
    pub consent: Consent,
}

/// The project folder's servers waiting for approval, as `list` shows them (`needs-approval`);
/// with `names`, only those (each must be a server of the project folder's files).
pub fn pending_project_servers(
    options: &SessionOptions,
    names: Option<&[String]>,
) -> Result<Vec<PendingServer>, TrustError> {
    let ctx = context(options)?;
    let found = load_all_configs(&ctx, &options.load.discovery);
    if let Some(names) = names {
        let mut known: Vec<String> = found
            .servers
            .iter()
            .filter(|(_, server)| server.source.meta.in_project_folder)
            .map(|(name, _)| name.clone())
            .chain(
                found
                    .skipped
                    .iter()
                    .filter(|skipped| skipped.source.in_project_folder)
                    .map(|skipped| skipped.name.clone()),
            )
            .collect();
        known.sort();
        known.dedup();
        if let Some(unknown) = names.iter().find(|name| !known.contains(name)) {
            return Err(TrustError::NotAProjectServer {
                name: unknown.clone(),
                known,
            });
        }
        // Named, an invalid entry is said, not passed over as "nothing new to approve".
        let waiting = |name: &str| {
            found.skipped.iter().any(|skipped| {
                skipped.name == name && matches!(skipped.reason, SkipReason::NeedsApproval)
            })
        };
        let invalid = names.iter().filter(|name| !waiting(name)).find_map(|name| {
            found
                .skipped
                .iter()
                .find_map(|skipped| match &skipped.reason {
                    SkipReason::Invalid(invalid)
                        if skipped.name == *name && skipped.source.in_project_folder =>
                    {
                        Some(TrustError::Invalid {
                            name: name.clone(),
                            reason: invalid.to_string(),
                        })
                    }
                    _ => None,
                })
        });
        if let Some(invalid) = invalid {
            return Err(invalid);
        }
    }
    let mut pending: Vec<PendingServer> = found
        .skipped
        .into_iter()
        .filter(|skipped| matches!(skipped.reason, SkipReason::NeedsApproval))
        .filter(|skipped| names.is_none_or(|names| names.contains(&skipped.name)))
        .filter_map(|skipped| {
            Some(PendingServer {
                consent: skipped.consent?,
                definition: skipped.definition?,
                name: skipped.name,
                source: skipped.source,
            })
        })
        .collect();
    pending.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(pending)
}

/// Approves these definitions, with the consent descriptions the user was shown (not as found
/// again); the names newly approved. A server whose description cannot state what it allows is
/// left out, never approved (its [`Consent::refused`] says why). Each is recorded under the
/// folder its file belongs to (the working folder, or the parent up to the repository root that
/// holds it), so approving from a subfolder holds in the whole project. Nothing is started.
pub fn approve_pending(
    options: &SessionOptions,
    pending: &[PendingServer],
) -> Result<Vec<String>, TrustError> {
    let ctx = context(options)?;
    let mut by_folder: BTreeMap<&Path, Vec<(&str, &ServerConfig, &Consent)>> = BTreeMap::new();
    for server in pending
        .iter()
        .filter(|server| server.consent.is_approvable())
    {
        let folder = server.source.project_folder.as_deref().unwrap_or(ctx.cwd());
        by_folder.entry(folder).or_default().push((
            server.name.as_str(),
            &server.definition,
            &server.consent,
        ));
    }
    let mut approved = Vec::new();
    for (folder, chosen) in by_folder {
        for name in trust_project_servers(&ctx, folder, &chosen)? {
            if !approved.contains(&name) {
                approved.push(name);
            }
        }
    }
    Ok(approved)
}

/// Approves the project folder's servers waiting for approval: those named, or all of them.
/// The names newly approved (an approved, unchanged definition is left as it is). A server
/// named here whose consent description cannot state what it allows is an error, and nothing
/// is approved; unnamed, such a server is left waiting.
pub fn approve_project_servers(
    options: &SessionOptions,
    names: Option<&[String]>,
) -> Result<Vec<String>, TrustError> {
    let pending = pending_project_servers(options, names)?;
    if names.is_some()
        && let Some(refused) = pending
            .iter()
            .find(|server| !server.consent.is_approvable())
    {
        let problem = ChangeProblem::NotApprovable {
            name: refused.name.clone(),
            refused: refused.consent.refused.clone(),
        };
        return Err(TrustError::Config(problem.into()));
    }
    approve_pending(options, &pending)
}

/// Withdraws approvals of the project folder's servers: those named, or all. The names whose
/// approval was withdrawn, sorted (as `trust` lists them).
pub fn withdraw_project_servers(
    options: &SessionOptions,
    names: Option<&[String]>,
) -> Result<Vec<String>, TrustError> {
    let mut withdrawn = untrust_project_servers(&context(options)?, names)?;
    withdrawn.sort();
    withdrawn.dedup();
    Ok(withdrawn)
}

/// The approval prompt's listing of `servers`, the same in every interface: each server, its
/// file, and what approving it lets it do ([`Consent::lines`]: the commands it runs, the files it
/// reads, the values of yours it sends and where, the hosts it contacts, the roots it is
/// offered, and what keeps it from being approved), one line each, every value escaped for a
/// terminal.
pub fn describe_pending(servers: &[PendingServer]) -> String {
    let mut lines = Vec::new();
    for server in servers {
        lines.push(format!("  {}", escape_line(&server.name)));
        let source = describe_source(&server.source);
        lines.push(format!("    {:<9} {}", "source:", escape_line(&source)));
        for (label, value) in server.consent.lines() {
            lines.push(format!("    {label:<9} {}", escape_line(&value)));
        }
    }
    lines.join("\n")
}

/// What is said of the servers an approval left out, since their description cannot state what
/// approving them would allow: their names, then each one's description with the reason.
pub fn not_approved_text(refused: &[PendingServer]) -> String {
    let names: Vec<&str> = refused.iter().map(|server| server.name.as_str()).collect();
    format!(
        "not approved, since what approving would allow cannot be stated: {}:\n{}",
        names.join(", "),
        describe_pending(refused)
    )
}

/// One server of an approval as JSON: `{"name", "source", "consent"}` (the consent as
/// [`Consent::to_json`] writes it).
pub fn pending_json(server: &PendingServer) -> serde_json::Value {
    serde_json::json!({
        "name": server.name,
        "source": describe_source(&server.source),
        "consent": server.consent.to_json(),
    })
}

/// What a definition runs or reaches, one `(label, value)` per line: the command, its
/// arguments and folder, the names of its env vars; or the URL and the names of its headers,
/// and a `runs:` line when a `headersHelper` command makes headers at connect time.
/// Values of env vars and headers, and secrets in a URL, are never shown; a value that is a
/// `!command` says so (`TOKEN=<output of a command>`), since approving it lets it run.
pub fn definition_lines(definition: &ServerConfig) -> Vec<(&'static str, String)> {
    let mut lines = Vec::new();
    let shown_value = |field: &str, value: &str| {
        if definition.is_command(field, value) {
            "<output of a command>".to_owned()
        } else {
            REDACTED.to_owned()
        }
    };
    match &definition.transport {
        TransportConfig::Stdio(stdio) => {
            for (key, value) in &stdio.env {
                lines.push((
                    "env:",
                    format!("{key}={}", shown_value(&format!("env.{key}"), value)),
                ));
            }
        }
        TransportConfig::Http(remote) | TransportConfig::Sse(remote) => {
            for (key, value) in &remote.headers {
                let value = shown_value(&format!("headers.{key}"), value);
                lines.push(("header:", format!("{key}: {value}")));
            }
            if definition.headers_helper().is_some() {
                lines.push((
                    "runs:",
                    "headersHelper, a command making its headers at every connection".to_owned(),
                ));
            }
        }
        TransportConfig::Custom(_) => {}
    }
    let named = std::mem::take(&mut lines);
    match &definition.redacted().transport {
        TransportConfig::Stdio(stdio) => {
            lines.push(("command:", stdio.command.clone()));
            if !stdio.args.is_empty() {
                let args: Vec<String> = stdio
                    .args
                    .iter()
                    .map(|arg| shell_words::quote(arg).into_owned())
                    .collect();
                lines.push(("args:", args.join(" ")));
            }
            if let Some(cwd) = &stdio.cwd {
                lines.push(("cwd:", cwd.clone()));
            }
        }
        TransportConfig::Http(remote) | TransportConfig::Sse(remote) => {
            lines.push(("url:", remote.url.clone()));
        }
        TransportConfig::Custom(_) => custom_lines(definition, &mut lines),
    }
    lines.extend(named);
    lines
}

/// A transport plugin's entry: its type, and each field as written where it is text (a path, an
/// address, like a command line), the names alone inside objects (`env`, `headers`: values).
fn custom_lines(definition: &ServerConfig, lines: &mut Vec<(&'static str, String)>) {
    let TransportConfig::Custom(custom) = &definition.transport else {
        return;
    };
    lines.push(("type:", custom.kind.clone()));
    for (key, value) in &custom.fields {
        let shown = match value {
            serde_json::Value::String(text) => redact_url_secrets(text),
            serde_json::Value::Array(items) => items
                .iter()
                .map(|item| match item {
                    serde_json::Value::String(text) => shell_words::quote(text).into_owned(),
                    other => other.to_string(),
                })
                .collect::<Vec<_>>()
                .join(" "),
            serde_json::Value::Object(fields) => fields
                .keys()
                .map(|name| format!("{name}={REDACTED}"))
                .collect::<Vec<_>>()
                .join(" "),
            other => other.to_string(),
        };
        lines.push(("field:", format!("{key}: {shown}")));
    }
}

fn context(options: &SessionOptions) -> Result<mcp_config::DiscoveryContext, TrustError> {
    options
        .load
        .discovery_context(&options.cwd)
        .map_err(TrustError::Discovery)
}

#[cfg(test)]
mod tests {
    use mcp_config::ServerConfig;

    use super::definition_lines;

    #[test]
    fn what_a_definition_runs_is_shown_without_its_values() {
        let remote: ServerConfig = serde_json::from_value(serde_json::json!({
            "type": "http",
            "url": "https://api.example.com/mcp?key=secret-in-url",
            "headers": {"X-Team": "core-secret", "X-Token": "!op read op://vault/token"},
            "headersHelper": "print-headers --secret-flag",
        }))
        .unwrap();
        let lines = definition_lines(&remote);
        let shown: Vec<String> = lines
            .iter()
            .map(|(label, value)| format!("{label} {value}"))
            .collect();
        assert_eq!(
            shown,
            [
                "url: https://api.example.com/mcp?key=<redacted>",
                "header: X-Team: <redacted>",
                "header: X-Token: <output of a command>",
                "runs: headersHelper, a command making its headers at every connection",
            ]
        );
        let local: ServerConfig = serde_json::from_value(serde_json::json!({
            "command": "npx",
            "args": ["-y", "server"],
            "env": {"A": "plain-secret", "B": "!pass show b"},
        }))
        .unwrap();
        let shown: Vec<String> = definition_lines(&local)
            .iter()
            .map(|(label, value)| format!("{label} {value}"))
            .collect();
        assert_eq!(
            shown,
            [
                "command: npx",
                "args: -y server",
                "env: A=<redacted>",
                "env: B=<output of a command>",
            ]
        );
    }
}
