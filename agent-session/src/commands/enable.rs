//! `/mcp enable` and `/mcp disable`: a server switched in this agent's own files (its entry, or
//! the user file's `disabledServers` for a server of another tool's file), then a reload.

use std::fmt::Write as _;

use mcp_config::SkipReason;
use mcp_config::writer::{ChangeAction, ConfigChange, set_server_enabled};
use serde_json::{Value, json};

use super::parse::one_name;
use super::reload::Reloaded;
use super::status::Servers;
use super::{CommandOutput, unknown_server};
use crate::render::{describe_source, one_line};
use crate::session::AgentSession;

const ENABLE_USAGE: &str = "usage: /mcp enable NAME";
const DISABLE_USAGE: &str = "usage: /mcp disable NAME";

fn action_name(action: ChangeAction) -> &'static str {
    match action {
        ChangeAction::Added => "added",
        ChangeAction::Removed => "removed",
        ChangeAction::SetEnabledFalse => "set_enabled_false",
        ChangeAction::RemovedEnabledFlag => "removed_enabled_flag",
        ChangeAction::AddedToDisabledServers => "added_to_disabled_servers",
        ChangeAction::RemovedFromDisabledServers => "removed_from_disabled_servers",
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
) -> CommandOutput {
    let (verb, usage) = if enabled {
        ("enable", ENABLE_USAGE)
    } else {
        ("disable", DISABLE_USAGE)
    };
    let name = match one_name(rest, usage) {
        Ok(name) => name,
        Err(error) => return CommandOutput::failed(error),
    };
    let servers = Servers::collect(session);
    let Some(row) = servers.row(&name) else {
        return CommandOutput::failed(unknown_server(&name, usage));
    };
    let source = row.source.clone();
    let ctx = match session.context() {
        Ok(ctx) => ctx,
        Err(error) => return CommandOutput::failed(one_line(&error.to_string())),
    };
    let changes = match set_server_enabled(&ctx, &name, enabled, source.as_ref()) {
        Ok(changes) => changes,
        Err(error) => return CommandOutput::failed(one_line(&error.to_string())),
    };
    let reloaded = Reloaded::run(session).await;
    let switched_off = reloaded
        .servers
        .discovery
        .skip_of(&name)
        .filter(|skipped| skipped.reason == SkipReason::Disabled);
    let now_disabled = switched_off.is_some();
    let now_configured = reloaded.servers.is_configured(&name);
    if enabled
        && changes.is_empty()
        && let Some(skipped) = switched_off
    {
        let place = describe_source(&skipped.source);
        return CommandOutput::failed(format!(
            "\"{name}\" is switched off in {place}, which /mcp does not edit; turn it on there"
        ));
    }
    let mut text = String::new();
    if changes.is_empty() {
        let _ = writeln!(text, "\"{name}\" was already {verb}d; nothing was written");
    }
    for change in &changes {
        let _ = writeln!(text, "{change}");
    }
    if !enabled && now_configured {
        let place = reloaded
            .servers
            .row(&name)
            .and_then(|row| row.source.as_ref())
            .map_or_else(|| "another file".to_owned(), describe_source);
        let _ = writeln!(
            text,
            "note: \"{name}\" is still on: its definition in {place} is used now; run \
             /mcp disable {name} again to switch that one off too"
        );
    }
    if enabled && now_disabled {
        let _ = writeln!(
            text,
            "note: \"{name}\" is still switched off elsewhere (see /mcp list)"
        );
    }
    let after = reloaded.server(&name);
    text.push_str(&after.line(&name));
    text.push('\n');
    text.push_str(&reloaded.short_text());
    let mut json = json!({
        "server": name,
        "changes": changes.iter().map(change_json).collect::<Vec<_>>(),
        "status": after.status_word(),
        "tools": reloaded.tools(),
        "reload": reloaded.json(),
    });
    // `{"enabled": name}` or `{"disabled": name}`.
    json[format!("{verb}d")] = Value::String(name);
    CommandOutput::ok(text, json)
}
