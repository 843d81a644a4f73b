//! `enable` and `disable`, in the shell (`/mcp enable`, then a reload) and on the command line
//! (`agent-session enable`, nothing started): a server switched in this agent's own files (its
//! entry, or the user file's `disabledServers` for a server of another tool's file).

use std::fmt::Write as _;

use mcp_config::writer::{ChangeAction, ConfigChange, set_server_enabled};
use mcp_config::{DiscoveryContext, DiscoveryResult, SkipReason, SourceMeta};
use serde_json::{Value, json};

use super::parse::one_name;
use super::reload::Reloaded;
use super::status::Servers;
use super::{CommandOutput, Interface, unknown_server};
use crate::render::{describe_source, one_line};
use crate::session::AgentSession;

/// The verb and the usage line of `enable` or `disable`.
fn verb_and_usage(enabled: bool, interface: Interface) -> (&'static str, String) {
    let verb = if enabled { "enable" } else { "disable" };
    (verb, interface.usage(&format!("{verb} NAME")))
}

/// The NAME of `enable` or `disable`.
pub(super) fn parse_switch(
    rest: &[String],
    enabled: bool,
    interface: Interface,
) -> Result<String, String> {
    one_name(rest, &verb_and_usage(enabled, interface).1)
}

/// Switches `name` on or off in this agent's files (`source` is where discovery found it):
/// the changes written, none when it already was.
pub(super) fn switch_server(
    ctx: &DiscoveryContext,
    name: &str,
    enabled: bool,
    source: Option<&SourceMeta>,
) -> Result<Vec<ConfigChange>, String> {
    set_server_enabled(ctx, name, enabled, source).map_err(|error| one_line(&error.to_string()))
}

/// What a switch did, as discovery sees the files after it: the lines and the JSON both the
/// shell and the command line print. An `enable` that cannot take effect (the server is
/// switched off in a file this agent does not edit) is an error.
pub(super) fn switched_report(
    name: &str,
    enabled: bool,
    changes: &[ConfigChange],
    after: &DiscoveryResult,
    interface: Interface,
) -> Result<(String, Value), String> {
    let (verb, _) = verb_and_usage(enabled, interface);
    let prefix = interface.prefix();
    let switched_off = after
        .skip_of(name)
        .filter(|skipped| skipped.reason == SkipReason::Disabled);
    let now_disabled = switched_off.is_some();
    let now_configured = after.servers.contains_key(name);
    if enabled
        && changes.is_empty()
        && let Some(skipped) = switched_off
    {
        let place = describe_source(&skipped.source);
        return Err(format!(
            "\"{name}\" is switched off in {place}, which {} does not edit; turn it on there",
            prefix.trim_end()
        ));
    }
    let mut text = String::new();
    if changes.is_empty() {
        let _ = writeln!(text, "\"{name}\" was already {verb}d; nothing was written");
    }
    for change in changes {
        let _ = writeln!(text, "{change}");
    }
    if !enabled && now_configured {
        let place = after.servers.get(name).map_or_else(
            || "another file".to_owned(),
            |server| describe_source(&server.source.meta),
        );
        let _ = writeln!(
            text,
            "note: \"{name}\" is still on: its definition in {place} is used now; run \
             {} again to switch that one off too",
            interface.on("disable", name)
        );
    }
    if enabled && now_disabled {
        let _ = writeln!(
            text,
            "note: \"{name}\" is still switched off elsewhere (see {prefix}list)"
        );
    }
    let mut json = json!({
        "server": name,
        "changes": changes.iter().map(change_json).collect::<Vec<_>>(),
        "on": now_configured,
    });
    // `{"enabled": name}` or `{"disabled": name}`.
    json[format!("{verb}d")] = Value::String(name.to_owned());
    Ok((text, json))
}

fn action_name(action: ChangeAction) -> &'static str {
    match action {
        ChangeAction::Added => "added",
        ChangeAction::Removed => "removed",
        ChangeAction::SetEnabledFalse => "set_enabled_false",
        ChangeAction::RemovedEnabledFlag => "removed_enabled_flag",
        ChangeAction::AddedToDisabledServers => "added_to_disabled_servers",
        ChangeAction::RemovedFromDisabledServers => "removed_from_disabled_servers",
        ChangeAction::AddedToDisabledProjectServers => "added_to_disabled_project_servers",
        ChangeAction::RemovedFromDisabledProjectServers => "removed_from_disabled_project_servers",
        _ => "changed",
    }
}

fn change_json(change: &ConfigChange) -> Value {
    json!({
        "path": change.path.display().to_string(),
        "server": change.server,
        "action": action_name(change.action),
        "text": change.to_string(),
    })
}

pub(super) async fn set_enabled(
    session: &AgentSession,
    rest: &[String],
    enabled: bool,
    interface: Interface,
) -> CommandOutput {
    let name = match parse_switch(rest, enabled, interface) {
        Ok(name) => name,
        Err(error) => return CommandOutput::failed(error),
    };
    let servers = Servers::collect(session);
    let Some(row) = servers.row(&name) else {
        let known = servers.discovery.names();
        return CommandOutput::usage(unknown_server(&name, known, interface));
    };
    let source = row.source.clone();
    let ctx = match session.context() {
        Ok(ctx) => ctx,
        Err(error) => return CommandOutput::failed(one_line(&error.to_string())),
    };
    let changes = match switch_server(&ctx, &name, enabled, source.as_ref()) {
        Ok(changes) => changes,
        Err(error) => return CommandOutput::failed(error),
    };
    let reloaded = Reloaded::run(session).await;
    let (mut text, mut json) = match switched_report(
        &name,
        enabled,
        &changes,
        &reloaded.servers.discovery,
        interface,
    ) {
        Ok(report) => report,
        Err(error) => return CommandOutput::failed(error),
    };
    let after = reloaded.server(&name);
    text.push_str(&after.line(&name));
    text.push('\n');
    text.push_str(&reloaded.short_text(interface));
    json["status"] = Value::from(after.status_word());
    json["tools"] = Value::from(reloaded.tools());
    json["reload"] = reloaded.json();
    CommandOutput::ok(text, json)
}
