//! `/mcp test`: a ping to a connected (or connecting) server, its latency and its tool count.

use std::time::{Duration, Instant};

use mcp_manager::ConnectionStatus;
use serde_json::json;

use super::{CommandOutput, Interface, parse, usable, wait_connected_within};
use crate::render::{one_line, plural};
use crate::session::AgentSession;

/// What connects `name` again where the command was typed: the shell's `reconnect`; on the
/// command line, where every command connects afresh, `test` itself.
fn retry(interface: Interface, name: &str) -> String {
    match interface {
        Interface::Shell => interface.command_on("reconnect", name),
        Interface::Cli => interface.command_on("test", name),
    }
}

/// How long `test` waits for a ping and a tool listing.
const TEST_REQUEST_TIMEOUT: Duration = Duration::from_secs(15);

pub(super) async fn test(
    session: &AgentSession,
    rest: &[String],
    interface: Interface,
) -> CommandOutput {
    let usage = interface.usage("test NAME [--timeout-ms MS]");
    let parsed = match parse::parse_words(rest, &["--timeout-ms"], false, &usage) {
        Ok(parsed) => parsed,
        Err(message) => return CommandOutput::usage(message),
    };
    let name = match parsed.name(&usage) {
        Ok(name) => name.to_owned(),
        Err(message) => return CommandOutput::usage(message),
    };
    // The timeout asked for, if any: it also caps the wait for the connection.
    let cap = match parsed.flag("--timeout-ms") {
        None => None,
        Some(text) => match text.parse::<u64>() {
            Ok(ms) if ms >= 1 => Some(Duration::from_millis(ms)),
            _ => {
                return CommandOutput::usage(format!(
                    "--timeout-ms takes a number of milliseconds of at least 1, not \"{text}\"; \
                     {usage}"
                ));
            }
        },
    };
    let limit = cap.unwrap_or(TEST_REQUEST_TIMEOUT);
    if let Err(failed) = usable(session, &name, interface) {
        return failed;
    }
    match session.manager().get_connection_status(&name) {
        ConnectionStatus::Connected
        | ConnectionStatus::Connecting
        | ConnectionStatus::Reconnecting { .. } => {}
        ConnectionStatus::Failed(error) => {
            // The error names the server ("MCP server \"x\" …"): it is not named twice.
            return CommandOutput::failed(format!(
                "{}; {} tries again",
                one_line(&error.to_string()),
                retry(interface, &name)
            ));
        }
        ConnectionStatus::NeedsLogin(error) => {
            return CommandOutput::failed(format!(
                "{}; {}",
                one_line(&error.to_string()),
                interface.login_hint(&name)
            ));
        }
        _ => {
            return CommandOutput::failed(format!(
                "\"{name}\" is not connected; {} connects it",
                retry(interface, &name)
            ));
        }
    }
    let client = match wait_connected_within(session, &name, cap).await {
        Some(Ok(client)) => client,
        Some(Err(error)) => {
            return CommandOutput::failed(one_line(&error.to_string()));
        }
        None => {
            return CommandOutput::failed(match cap {
                Some(cap) => format!("\"{name}\" did not connect within {} ms", cap.as_millis()),
                None => format!(
                    "\"{name}\" is still connecting; try {} again later",
                    interface.on("test", &name)
                ),
            });
        }
    };
    let started = Instant::now();
    if let Err(why) = within_limit(client.ping(), limit).await {
        return CommandOutput::failed(format!("\"{name}\" did not answer ping{why}"));
    }
    let latency = started.elapsed();
    let tools = match within_limit(client.list_tools(), limit).await {
        Ok(tools) => tools.len(),
        Err(why) => {
            return CommandOutput::failed(format!(
                "\"{name}\" answered ping but not tools/list{why}"
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

/// Waits up to [`TEST_REQUEST_TIMEOUT`] for `request`; a failure is said as the end of a
/// sentence: `: <why>` or ` within 15 s`.
async fn within_limit<T>(
    request: impl Future<Output = Result<T, mcp_transport::Error>>,
    limit: Duration,
) -> Result<T, String> {
    match tokio::time::timeout(limit, request).await {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(error)) => Err(format!(": {}", one_line(&error.to_string()))),
        Err(_) => Err(format!(" within {} ms", limit.as_millis())),
    }
}
