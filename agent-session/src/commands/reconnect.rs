//! `/mcp reconnect`: one server disconnected and connected again with its current definition.

use mcp_manager::ConnectionStatus;
use serde_json::{Value, json};

use super::status::Servers;
use super::{CommandOutput, Interface, usable_server, wait_connected};
use crate::render::{one_line, plural};
use crate::session::AgentSession;

pub(super) async fn reconnect(
    session: &AgentSession,
    rest: &[String],
    interface: Interface,
) -> CommandOutput {
    let name = match usable_server(session, rest, "reconnect NAME", interface) {
        Ok(name) => name,
        Err(failed) => return failed,
    };
    if let Err(error) = session.reconnect(&name).await {
        return CommandOutput::failed(format!(
            "could not reconnect \"{name}\": {}",
            one_line(&error.to_string())
        ));
    }
    // A server with cached tools may still be connecting after the gate: wait for it, so the
    // answer says how it went.
    if session.manager().get_connection_status(&name) == ConnectionStatus::Connecting
        && let Some(Err(error)) = wait_connected(session, &name).await
    {
        return CommandOutput::failed(format!(
            "could not reconnect \"{name}\": {}",
            one_line(&error.to_string())
        ));
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
