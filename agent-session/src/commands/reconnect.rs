//! `/mcp reconnect`: one server disconnected and connected again with its current definition.

use mcp_manager::ConnectionStatus;
use serde_json::{Value, json};

use super::parse::one_name;
use super::status::Servers;
use super::{CommandOutput, connect_wait};
use crate::render::{one_line, plural};
use crate::session::AgentSession;

const RECONNECT_USAGE: &str = "usage: /mcp reconnect NAME";

pub(super) async fn reconnect(session: &AgentSession, rest: &[String]) -> CommandOutput {
    let name = match one_name(rest, RECONNECT_USAGE) {
        Ok(name) => name,
        Err(error) => return CommandOutput::failed(error),
    };
    let servers = Servers::collect(session);
    if let Some(error) = servers.not_usable(&name, RECONNECT_USAGE) {
        return CommandOutput::failed(error);
    }
    if let Err(error) = session.reconnect(&name).await {
        return CommandOutput::failed(format!(
            "could not reconnect \"{name}\": {}",
            one_line(&error.to_string())
        ));
    }
    // A server with cached tools may still be connecting after the gate: wait for it, so the
    // answer says how it went.
    let manager = session.manager();
    if manager.get_connection_status(&name) == ConnectionStatus::Connecting {
        let waited = tokio::time::timeout(
            connect_wait(session, &name),
            manager.wait_for_connection(&name),
        )
        .await;
        if let Ok(Err(error)) = waited {
            return CommandOutput::failed(format!(
                "could not reconnect \"{name}\": {}",
                one_line(&error.to_string())
            ));
        }
    }
    let servers = Servers::collect(session);
    let Some(row) = servers.row(&name) else {
        return CommandOutput::failed(format!(
            "could not reconnect \"{name}\": it is not configured any more"
        ));
    };
    let (status, tools) = (row.status.as_str(), row.tools);
    if let Some(error) = &row.error {
        return CommandOutput::failed(format!(
            "could not reconnect \"{name}\": {}",
            one_line(&error.to_string())
        ));
    }
    CommandOutput::ok(
        format!(
            "reconnected \"{name}\": {status}, {tools} tool{}",
            plural(tools)
        ),
        json!({"reconnected": name, "status": status, "tools": tools, "error": Value::Null}),
    )
}
