//! `/mcp trust [--yes] [NAME…]` and `/mcp untrust [NAME…]`: approving the project folder's
//! servers waiting for approval, as they are written now, and withdrawing approvals. Naming
//! the servers is the consent; bare `/mcp trust` shows what approving each lets it do (the
//! consent description every interface shows) and approves only with `--yes`; a server whose
//! description cannot state what it allows is never approved. An approval is recorded and
//! nothing is started (`/mcp reload` starts the approved servers); a withdrawal stops the
//! servers it withdrew, and starts nothing.

use serde_json::{Value, json};

use super::{CommandOutput, Interface};
use crate::render::one_line;
use crate::session::AgentSession;
use crate::trust::{
    PendingServer, approve_pending, describe_pending, not_approved_text, pending_json,
    pending_project_servers, withdraw_project_servers,
};

/// The next step for a project server waiting for approval: what to run to approve `name`,
/// where the command was typed; for a server whose description cannot state what approving
/// it allows (`consent`), why it cannot be approved instead: no command would do it.
pub(super) fn approval_step(
    name: &str,
    consent: Option<&mcp_config::Consent>,
    interface: Interface,
) -> String {
    match consent.and_then(|consent| consent.refused.first()) {
        Some(refused) => format!(
            "it cannot be approved ({refused}); fix its entry, or ask the project's authors to"
        ),
        None => format!("approve it with {}", interface.on("trust", name)),
    }
}

pub(super) async fn trust(
    session: &AgentSession,
    rest: &[String],
    interface: Interface,
) -> CommandOutput {
    let yes = rest.iter().any(|word| word == "--yes" || word == "-y");
    let names: Vec<String> = rest
        .iter()
        .filter(|word| *word != "--yes" && *word != "-y")
        .cloned()
        .collect();
    if let Some(unknown) = unknown_among(session, &names, interface) {
        return unknown;
    }
    let named = (!names.is_empty()).then_some(names.as_slice());
    let pending = match pending_project_servers(session.options(), named) {
        Ok(pending) => pending,
        Err(error) => {
            return CommandOutput::failed(format!(
                "could not approve: {}",
                one_line(&error.to_string())
            ));
        }
    };
    if pending.is_empty() {
        return CommandOutput::ok(
            "nothing new to approve: the project's servers are approved as they are",
            json!({"approved": [], "refused": []}),
        );
    }
    // Naming the servers is the consent; all of them, unnamed, are shown first.
    if named.is_none() && !yes {
        let lines = [
            "these project servers wait for approval:".to_owned(),
            describe_pending(&pending),
            format!(
                "approve them with {}, or name them: {}",
                interface.bare("trust --yes"),
                interface.bare("trust NAME…")
            ),
        ];
        let waiting: Vec<Value> = pending.iter().map(pending_json).collect();
        return CommandOutput::ok(lines.join("\n"), json!({"waiting": waiting}));
    }
    let refused: Vec<PendingServer> = pending
        .iter()
        .filter(|server| !server.consent.is_approvable())
        .cloned()
        .collect();
    match approve_pending(session.options(), &pending) {
        Ok(approved) => {
            // What the session says of them (list, get) follows the approval at once.
            session.reread_files();
            let mut text = Vec::new();
            if !approved.is_empty() {
                text.push(format!(
                    "approved {}; nothing was started: {} starts {}",
                    approved.join(", "),
                    interface.bare("reload"),
                    if approved.len() == 1 { "it" } else { "them" }
                ));
            }
            if !refused.is_empty() {
                text.push(not_approved_text(&refused));
            }
            // As the command line gives them: each server with its source and consent.
            let approved_json: Vec<Value> = pending
                .iter()
                .filter(|server| approved.contains(&server.name))
                .map(pending_json)
                .collect();
            let refused_json: Vec<Value> = refused.iter().map(pending_json).collect();
            let json = json!({"approved": approved_json, "refused": refused_json});
            if refused.is_empty() {
                CommandOutput::ok(text.join("\n"), json)
            } else {
                CommandOutput {
                    ok: false,
                    usage: false,
                    text: text.join("\n"),
                    json,
                }
            }
        }
        Err(error) => CommandOutput::failed(format!(
            "could not approve: {}",
            one_line(&error.to_string())
        )),
    }
}

/// The usage error for the first of `names` no file defines (the one rule for unknown names,
/// as on the command line), if there is one.
fn unknown_among(
    session: &AgentSession,
    names: &[String],
    interface: Interface,
) -> Option<CommandOutput> {
    let discovery = session.discovery();
    names
        .iter()
        .find_map(|name| super::known_server(&discovery, name, interface).err())
        .map(CommandOutput::usage)
}

/// What `untrust` says of the approvals it withdrew.
pub fn withdrawn_text(withdrawn: &[String]) -> String {
    match withdrawn {
        [] => "no approval to withdraw".to_owned(),
        names => format!("withdrew the approval of {}", names.join(", ")),
    }
}

pub(super) async fn untrust(
    session: &AgentSession,
    rest: &[String],
    interface: Interface,
) -> CommandOutput {
    if let Some(unknown) = unknown_among(session, rest, interface) {
        return unknown;
    }
    let names = (!rest.is_empty()).then_some(rest);
    match withdraw_project_servers(session.options(), names) {
        // Nothing changed: nothing to stop.
        Ok(withdrawn) if withdrawn.is_empty() => {
            CommandOutput::ok(withdrawn_text(&withdrawn), json!({"withdrawn": withdrawn}))
        }
        // Those servers stop; nothing starts, and no other server is touched.
        Ok(withdrawn) => {
            session.stop_withdrawn(&withdrawn).await;
            CommandOutput::ok(withdrawn_text(&withdrawn), json!({"withdrawn": withdrawn}))
        }
        Err(error) => CommandOutput::failed(format!(
            "could not withdraw approvals: {}",
            one_line(&error.to_string())
        )),
    }
}
