//! `/mcp trust [NAME…]` and `/mcp untrust [NAME…]`: approving the project folder's servers as
//! they are defined now (all, or the named ones), and withdrawing approvals; then a reload, so
//! the change applies at once.

use serde_json::json;

use super::CommandOutput;
use super::reload::reload;
use crate::render::one_line;
use crate::session::AgentSession;
use crate::trust::{approve_project_servers, withdraw_project_servers};

/// What to run to approve `name`.
pub(super) fn approval_hint(name: &str) -> String {
    format!(
        "a project server: approve it with agent-session trust {name} (in the shell: /mcp trust \
         {name})"
    )
}

pub(super) async fn trust(session: &AgentSession, rest: &[String]) -> CommandOutput {
    let names = (!rest.is_empty()).then_some(rest);
    match approve_project_servers(session.options(), names) {
        Ok(approved) => {
            let text = match approved.as_slice() {
                [] => "nothing new to approve: the project's servers are approved as they are"
                    .to_owned(),
                names => format!("approved {}", names.join(", ")),
            };
            reloaded(session, text, json!({"approved": approved})).await
        }
        Err(error) => CommandOutput::failed(format!(
            "could not approve: {}",
            one_line(&error.to_string())
        )),
    }
}

pub(super) async fn untrust(session: &AgentSession, rest: &[String]) -> CommandOutput {
    let names = (!rest.is_empty()).then_some(rest);
    match withdraw_project_servers(session.options(), names) {
        Ok(withdrawn) => {
            let text = match withdrawn.as_slice() {
                [] => "no approval to withdraw".to_owned(),
                names => format!("withdrew the approval of {}", names.join(", ")),
            };
            reloaded(session, text, json!({"withdrawn": withdrawn})).await
        }
        Err(error) => CommandOutput::failed(format!(
            "could not withdraw approvals: {}",
            one_line(&error.to_string())
        )),
    }
}

/// Reloads so the change applies; the message, then what the reload said.
async fn reloaded(session: &AgentSession, text: String, json: serde_json::Value) -> CommandOutput {
    let after = reload(session).await;
    CommandOutput {
        ok: after.ok,
        usage: false,
        text: format!("{text}\n{}", after.text),
        json: json!({"change": json, "reload": after.json}),
    }
}
