//! Which servers a command needs, decided from discovery alone, before anything is started:
//! `call mcp_github_create_issue` starts `github` (and any other server whose name could have
//! given that tool name), `call github/create_issue` and `tools --server github` start
//! `github`; everything else starts every server. A tool name that maps back to no server
//! (a name the agent made up, or a typo) starts every server, so that the nearest names can
//! be suggested; `SERVER/TOOL` whose server no file defines starts nothing (the nearest server
//! names are suggested).

use std::collections::BTreeSet;

use agent_session::AgentSession;
use agent_session::commands::{Interface, known_server};
use agent_session::suggest::{did_you_mean, nearest};

use mcp_config::{DiscoveryResult, SkipReason, SkippedServer};
use mcp_manager::{ConnectionStatus, Problem};

/// The servers `call TOOL` needs; `None` for all of them. An error, before anything is
/// started, for `SERVER/TOOL` whose server part no file defines.
pub(crate) fn for_tool(
    tool: &str,
    discovery: &DiscoveryResult,
    interface: Interface,
) -> Result<Option<BTreeSet<String>>, String> {
    if let Some((server, _)) = tool.split_once('/') {
        if discovery.servers.contains_key(server) {
            return Ok(Some(BTreeSet::from([server.to_owned()])));
        }
        known_server(discovery, server, interface)?;
    }
    // Skipped servers count too: a tool of a disabled or unapproved server starts nothing, and
    // the call says why the server is off.
    let skipped = discovery.skipped.iter().map(|skipped| &skipped.name);
    let names: Vec<&String> = discovery.servers.keys().chain(skipped).collect();
    let candidates: BTreeSet<String> = names
        .iter()
        .filter(|server| mcp_bridge::naming::may_name_a_tool_of(tool, server))
        .map(|server| (*server).clone())
        .collect();
    if !candidates.is_empty() {
        return Ok(Some(candidates));
    }
    // A model-facing name no server can own: its server part is mistyped. Only the servers
    // it is one slip away from start, for the tool's nearest names; none when it is near
    // none (a bare tool name, which any server may have, starts them all).
    if let Some(rest) = tool.strip_prefix("mcp_") {
        let near = names
            .iter()
            .filter(|server| server_part_near(rest, server))
            .map(|server| (*server).clone())
            .collect();
        return Ok(Some(near));
    }
    Ok(None)
}

/// Whether `rest` (a model-facing name after `mcp_`) begins with a part one or two edits from
/// `server`'s part of its tools' names (two for a part of eight characters or more).
fn server_part_near(rest: &str, server: &str) -> bool {
    let named = mcp_bridge::naming::tool_name(server, "t");
    let Some(part) = named
        .strip_prefix("mcp_")
        .and_then(|named| named.strip_suffix("_t"))
    else {
        return false;
    };
    let allowed = if part.chars().count() >= 8 { 2 } else { 1 };
    rest.match_indices('_')
        .any(|(at, _)| strsim::levenshtein(&rest[..at], part) <= allowed)
}

/// The servers a command scoped to `server` (`tools --server NAME`, `read NAME …`) needs:
/// that one, or none when discovery skipped it (disabled, not approved, invalid: the command
/// then says why). An error, before anything is started, when no file names it, with the
/// nearest names discovery found.
pub(crate) fn for_server(
    server: &str,
    discovery: &DiscoveryResult,
    interface: Interface,
) -> Result<Option<BTreeSet<String>>, String> {
    if discovery.servers.contains_key(server) {
        return Ok(Some(BTreeSet::from([server.to_owned()])));
    }
    known_server(discovery, server, interface)?;
    Ok(Some(BTreeSet::new()))
}

/// `N project servers wait for approval, so what they offer is not shown: a, b; approve them
/// with `agent-session trust``, or `None` when none waits.
pub(crate) fn waiting_for_approval(discovery: &DiscoveryResult) -> Option<String> {
    let waiting: Vec<&str> = discovery
        .skipped
        .iter()
        .filter(|skipped| {
            skipped.reason == SkipReason::NeedsApproval
                && !discovery.servers.contains_key(&skipped.name)
        })
        .map(|skipped| skipped.name.as_str())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let (first, count) = (waiting.first()?, waiting.len());
    let names = if count == 1 {
        format!("project server \"{first}\" waits for approval, so what it offers is not shown")
    } else {
        format!(
            "{count} project servers wait for approval, so what they offer is not shown: {}",
            waiting.join(", ")
        )
    };
    Some(format!(
        "{names}; see and approve {} with {}",
        if count == 1 { "it" } else { "them" },
        Interface::Cli.command("trust")
    ))
}

/// Why `server`, the one server a command is scoped to, cannot serve it: its error (it failed,
/// or it needs a login) or what keeps it off (disabled, not approved, invalid). `None` while
/// it is connected, connecting or reconnecting.
pub(crate) fn scoped_failure(
    session: &AgentSession,
    server: &str,
    interface: Interface,
) -> Option<String> {
    match session.manager().get_connection_status(server) {
        ConnectionStatus::Connected
        | ConnectionStatus::Connecting
        | ConnectionStatus::Reconnecting { .. } => None,
        ConnectionStatus::Failed(error) => Some(error.to_string()),
        ConnectionStatus::NeedsLogin(error) => {
            Some(format!("{error}; {}", interface.login_hint(server)))
        }
        _ => {
            let discovery = session.discovery();
            let off = discovery
                .skipped
                .iter()
                .filter(|skipped| skipped.name == server)
                .find_map(|skipped| why_off(skipped, interface));
            Some(off.unwrap_or_else(|| format!("MCP server \"{server}\" is not connected")))
        }
    }
}

/// Why the servers `tool` may belong to offer no such tool: the errors of those that failed,
/// and what keeps the skipped ones off (with what to run).
pub(crate) fn failures_behind(
    session: &AgentSession,
    tool: &str,
    interface: Interface,
) -> Vec<String> {
    let named_server = tool.split_once('/').map(|(server, _)| server);
    let owns = |server: &str| {
        named_server == Some(server) || mcp_bridge::naming::may_name_a_tool_of(tool, server)
    };
    let discovery = session.discovery();
    let problems: Vec<Problem> = agent_session::commands::problems_to_say(session.problems())
        .into_iter()
        .filter(|problem| problem.server().is_some_and(owns))
        .collect();
    // A server that failed after the start (its listing refused, say) may not be among the
    // problems yet when its tools are already gone: its status says why.
    let told = |server: &str| {
        problems
            .iter()
            .any(|problem| problem.server() == Some(server))
    };
    let failed_since = discovery
        .servers
        .keys()
        .filter(|server| owns(server) && !told(server))
        .filter_map(
            |server| match session.manager().get_connection_status(server) {
                ConnectionStatus::Failed(error) => Some(error.to_string()),
                ConnectionStatus::NeedsLogin(error) => {
                    Some(format!("{error}; {}", interface.login_hint(server)))
                }
                _ => None,
            },
        );
    let off = discovery
        .skipped
        .iter()
        .filter(|skipped| owns(&skipped.name) && !discovery.servers.contains_key(&skipped.name))
        .filter_map(|skipped| why_off(skipped, interface));
    problems
        .iter()
        .map(|problem| problem_text(problem, interface))
        .chain(failed_since)
        .chain(off)
        .collect()
}

/// A problem of the last load, for people: with the command to run when a login is what
/// fixes it (the transport and the manager do not know this command's name).
pub(crate) fn problem_text(problem: &Problem, interface: Interface) -> String {
    match problem {
        Problem::Server { name, error, .. } if error.needs_login() => {
            format!("{problem}; {}", interface.login_hint(name))
        }
        _ => problem.to_string(),
    }
}

/// What keeps a skipped server off, and how to turn it on; `None` when that is not the user's
/// to change (a filtered server).
fn why_off(skipped: &SkippedServer, interface: Interface) -> Option<String> {
    let server = skipped.name.as_str();
    let refused = skipped
        .consent
        .as_ref()
        .and_then(|consent| consent.refused.first());
    Some(match &skipped.reason {
        SkipReason::Disabled => format!(
            "MCP server \"{server}\" is disabled; enable it with {}",
            interface.command_on("enable", server)
        ),
        SkipReason::NeedsApproval => match refused {
            Some(refused) => format!(
                "MCP server \"{server}\" is defined in this project and cannot be approved \
                 ({refused})"
            ),
            None => format!(
                "MCP server \"{server}\" is defined in this project and not approved; approve \
                 it with {}",
                interface.command_on("trust", server)
            ),
        },
        SkipReason::Invalid(invalid) => invalid.to_string(),
        SkipReason::DeniedByPolicy(denial) => format!("MCP server \"{server}\" is {denial}"),
        SkipReason::ProjectConfigOff => format!(
            "MCP server \"{server}\" is defined in this project, and project config is off \
             (--no-project-config)"
        ),
        _ => return None,
    })
}

/// ` (did you mean "a", "b"?)` with the names nearest to `tool` in the form it was typed, or
/// nothing: `mcp_server_tool` names for a name of that form, `server/tool` for a name with a
/// `/` (`everything/ecco` → `everything/echo`), and for a bare tool name the `server/tool`
/// of every server's tool of that name or near it (`get_current_time` →
/// `time/get_current_time`).
/// `server/tool` of every server's tool whose own name is `tool` (a bare name, neither
/// `server/tool` nor `mcp_…`), sorted; none for another form.
pub(crate) fn servers_with_a_tool_named(session: &AgentSession, tool: &str) -> Vec<String> {
    if tool.contains('/') || tool.starts_with("mcp_") {
        return Vec::new();
    }
    let mut found: Vec<String> = session
        .manager()
        .tools()
        .iter()
        .filter(|managed| managed.original_name == tool)
        .map(|managed| format!("{}/{}", managed.server, managed.original_name))
        .collect();
    found.sort();
    found.dedup();
    found
}

pub(crate) fn suggestions(session: &AgentSession, tool: &str) -> String {
    let tools = session.manager().tools();
    let registered = tools.iter().map(|managed| managed.tool.name().to_owned());
    let qualified = tools
        .iter()
        .map(|managed| format!("{}/{}", managed.server, managed.original_name));
    let names: Vec<String> = if tool.contains('/') {
        qualified.collect()
    } else {
        // A bare tool name: the servers' own tool names, shown as `server/tool`.
        let limit = (tool.chars().count() / 3).max(2);
        let mut bare: Vec<(usize, String)> = tools
            .iter()
            .map(|managed| {
                let distance = strsim::levenshtein(tool, &managed.original_name);
                (
                    distance,
                    format!("{}/{}", managed.server, managed.original_name),
                )
            })
            .filter(|(distance, _)| *distance <= limit)
            .collect();
        bare.sort();
        if bare.is_empty() || tool.starts_with("mcp_") {
            registered.collect()
        } else {
            let names: Vec<&str> = bare.iter().take(3).map(|(_, name)| name.as_str()).collect();
            return did_you_mean(&names);
        }
    };
    did_you_mean(&nearest(tool, names.iter().map(String::as_str)))
}
