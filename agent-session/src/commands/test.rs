//! `/mcp test`: a ping to a connected (or connecting) server, its latency and its tool count.

use std::time::{Duration, Instant};

use mcp_manager::ConnectionStatus;
use serde_json::json;

use super::parse::one_name;
use super::status::Servers;
use super::{CommandOutput, connect_wait};
use crate::render::{one_line, plural};
use crate::session::AgentSession;

const TEST_USAGE: &str = "usage: /mcp test NAME";

/// How long `test` waits for a ping and a tool listing.
const TEST_REQUEST_TIMEOUT: Duration = Duration::from_secs(15);

pub(super) async fn test(session: &AgentSession, rest: &[String]) -> CommandOutput {
    let name = match one_name(rest, TEST_USAGE) {
        Ok(name) => name,
        Err(error) => return CommandOutput::failed(error),
    };
    let servers = Servers::collect(session);
    if let Some(error) = servers.not_usable(&name, TEST_USAGE) {
        return CommandOutput::failed(error);
    }
    let manager = session.manager();
    match manager.get_connection_status(&name) {
        ConnectionStatus::Connected | ConnectionStatus::Connecting => {}
        ConnectionStatus::Failed(error) => {
            return CommandOutput::failed(format!(
                "\"{name}\" failed: {}; /mcp reconnect {name} tries again",
                one_line(&error.to_string())
            ));
        }
        _ => {
            return CommandOutput::failed(format!(
                "\"{name}\" is not connected; /mcp reconnect {name} connects it"
            ));
        }
    }
    let waited = tokio::time::timeout(
        connect_wait(session, &name),
        manager.wait_for_connection(&name),
    )
    .await;
    let client = match waited {
        Ok(Ok(client)) => client,
        Ok(Err(error)) => {
            return CommandOutput::failed(format!("\"{name}\": {}", one_line(&error.to_string())));
        }
        Err(_) => {
            return CommandOutput::failed(format!(
                "\"{name}\" is still connecting; try /mcp test {name} again later"
            ));
        }
    };
    let started = Instant::now();
    match tokio::time::timeout(TEST_REQUEST_TIMEOUT, client.ping()).await {
        Ok(Ok(())) => {}
        Ok(Err(error)) => {
            return CommandOutput::failed(format!(
                "\"{name}\" did not answer ping: {}",
                one_line(&error.to_string())
            ));
        }
        Err(_) => {
            return CommandOutput::failed(format!(
                "\"{name}\" did not answer ping within {} s",
                TEST_REQUEST_TIMEOUT.as_secs()
            ));
        }
    }
    let latency = started.elapsed();
    let tools = match tokio::time::timeout(TEST_REQUEST_TIMEOUT, client.list_tools()).await {
        Ok(Ok(tools)) => tools.len(),
        Ok(Err(error)) => {
            return CommandOutput::failed(format!(
                "\"{name}\" answered ping but not tools/list: {}",
                one_line(&error.to_string())
            ));
        }
        Err(_) => {
            return CommandOutput::failed(format!(
                "\"{name}\" answered ping but not tools/list within {} s",
                TEST_REQUEST_TIMEOUT.as_secs()
            ));
        }
    };
    let latency_ms = (latency.as_secs_f64() * 10_000.0).round() / 10.0;
    let text = format!(
        "\"{name}\" is connected: ping {latency_ms} ms, {tools} tool{}",
        plural(tools)
    );
    CommandOutput::ok(
        text,
        json!({
            "server": name,
            "status": "connected",
            "latency_ms": latency_ms,
            "tools": tools,
        }),
    )
}
