//! `/mcp login` and `/mcp logout`: the OAuth login of a remote server (the browser step the
//! session was given), and forgetting it.

use serde_json::json;

use super::{CommandOutput, Interface, usable_server};
use mcp_manager::ManagerError;

use crate::error::SessionError;
use crate::render::{one_line, plural};
use crate::session::AgentSession;

pub(super) async fn login(
    session: &AgentSession,
    rest: &[String],
    interface: Interface,
) -> CommandOutput {
    let name = match usable_server(session, rest, "login NAME", interface) {
        Ok(name) => name,
        Err(failed) => return failed,
    };
    match session.login(&name).await {
        Ok(tools) => CommandOutput::ok(
            format!(
                "logged in to \"{name}\": connected, {tools} tool{}",
                plural(tools)
            ),
            json!({"logged_in": name, "status": "connected", "tools": tools}),
        ),
        Err(SessionError::Server(error)) if matches!(*error, ManagerError::NoLoginAsked { .. }) => {
            CommandOutput::failed(format!(
                "\"{name}\" needs no login: it answered without asking for one"
            ))
        }
        Err(error) => CommandOutput::failed(format!(
            "could not log in to \"{name}\": {}",
            one_line(&error.to_string())
        )),
    }
}

pub(super) async fn logout(
    session: &AgentSession,
    rest: &[String],
    interface: Interface,
) -> CommandOutput {
    let name = match usable_server(session, rest, "logout NAME", interface) {
        Ok(name) => name,
        Err(failed) => return failed,
    };
    match session.logout(&name).await {
        Ok(forgotten) => {
            let status = session.manager().get_connection_status(&name);
            let text = if forgotten {
                format!(
                    "logged out of \"{name}\": its tokens are forgotten (now {})",
                    status.as_str()
                )
            } else {
                format!(
                    "\"{name}\" had no login to forget (now {})",
                    status.as_str()
                )
            };
            CommandOutput::ok(
                text,
                json!({"logged_out": name, "forgotten": forgotten, "status": status.as_str()}),
            )
        }
        Err(error) => CommandOutput::failed(format!(
            "could not log out of \"{name}\": {}",
            one_line(&error.to_string())
        )),
    }
}
