//! `remove`, in the shell (`/mcp remove`, then a reload) and on the command line
//! (`agent-session remove`, nothing started): a server out of this agent's own config file,
//! never another tool's.

use std::fmt::Write as _;
use std::path::PathBuf;

use mcp_config::writer::{native_config_path, remove_server};
use mcp_config::{
    ChangeProblem, ConfigError, DiscoveryContext, DiscoveryResult, Level, SourceMeta,
};
use serde_json::json;

use super::parse::{parse_scope, parse_words};
use super::reload::Reloaded;
use super::status::Servers;
use super::{CommandOutput, Interface, known_server, unknown_server};
use crate::render::{describe_source, one_line};
use crate::session::{AgentSession, SessionOptions};

fn remove_usage(interface: Interface) -> String {
    interface.usage("remove NAME [--scope project|user]")
}

/// The words of `remove`: the name, and the scope when one is given.
pub(super) fn parse_remove(
    rest: &[String],
    interface: Interface,
) -> Result<(String, Option<Level>), String> {
    let usage = remove_usage(interface);
    let parsed = parse_words(rest, &["--scope"], false, &usage)?;
    let name = parsed.name(&usage)?.to_owned();
    Ok((name, parse_scope(&parsed, &usage)?))
}

/// Removes `name` from this agent's own file of `scope`, or (without one) from the file
/// discovery found it in first, then the other. `source` is where discovery found the
/// definition in use. The level and file it was removed from, or one line saying why not.
pub(super) fn remove_from_files(
    ctx: &DiscoveryContext,
    name: &str,
    scope: Option<Level>,
    source: Option<SourceMeta>,
    discovery: &DiscoveryResult,
    interface: Interface,
) -> Result<(Level, PathBuf), String> {
    let native_level = source
        .as_ref()
        .filter(|meta| is_native(ctx, meta))
        .map(|meta| meta.level);
    let levels = match (scope, native_level) {
        (Some(level), _) => vec![level],
        (None, Some(Level::User)) => vec![Level::User, Level::Project],
        (None, _) => vec![Level::Project, Level::User],
    };
    let mut failure = None;
    for level in &levels {
        match remove_server(ctx, *level, name) {
            Ok(path) => return Ok((*level, path)),
            // Not in this file: try the next one.
            Err(ConfigError::Change(ChangeProblem::NotThere { .. })) => {}
            // A file that cannot be read or parsed: try the next one, report it if nothing
            // else explains better.
            Err(error) => {
                failure.get_or_insert(error);
            }
        }
    }
    let foreign = source.as_ref().is_some_and(|meta| !is_native(ctx, meta));
    if let (Some(error), false) = (failure, foreign) {
        return Err(one_line(&error.to_string()));
    }
    let files: Vec<String> = levels
        .iter()
        .filter_map(|level| native_config_path(ctx, *level))
        .map(|path| path.display().to_string())
        .collect();
    let files = files.join(" or ");
    let prefix = interface.prefix();
    let usage = remove_usage(interface);
    Err(match source {
        Some(meta) if !is_native(ctx, &meta) => format!(
            "\"{name}\" is not in this agent's config ({files}); it is defined in {}'s {} \
             config {}, which {prefix}remove does not edit; {} turns it off instead",
            meta.provider_name,
            meta.level,
            meta.path.display(),
            interface.on("disable", name)
        ),
        Some(meta) => format!(
            "\"{name}\" is not in {files}; it is defined in {}; {usage}",
            meta.path.display()
        ),
        None => unknown_server(name, discovery.names(), interface),
    })
}

pub(super) async fn remove(
    session: &AgentSession,
    rest: &[String],
    interface: Interface,
) -> CommandOutput {
    let (name, scope) = match parse_remove(rest, interface) {
        Ok(found) => found,
        Err(error) => return CommandOutput::usage(error),
    };
    let discovery = session.discovery();
    if let Err(message) = known_server(&discovery, &name, interface) {
        return CommandOutput::usage(message);
    }
    let ctx = match session.context() {
        Ok(ctx) => ctx,
        Err(error) => return CommandOutput::failed(one_line(&error.to_string())),
    };
    let source = Servers::collect(session).source(&name);
    let (level, path) =
        match remove_from_files(&ctx, &name, scope, source, &session.discovery(), interface) {
            Ok(removed) => removed,
            Err(error) => return CommandOutput::failed(error),
        };
    let withdrawn = forget_approval(session.options(), &name, level);
    let reloaded = Reloaded::run(session).await;
    let mut text = format!(
        "removed \"{name}\" from {} ({level} config)\n",
        path.display()
    );
    if let Some(note) = &withdrawn {
        let _ = writeln!(text, "{note}");
    }
    let still = reloaded.servers.row(&name).cloned();
    if let Some(row) = &still {
        let _ = writeln!(
            text,
            "note: \"{name}\" is still defined in {}, which is used now",
            row.source
                .as_ref()
                .map_or_else(|| "another file".to_owned(), describe_source)
        );
    }
    text.push_str(&reloaded.short_text(interface));
    let json = json!({
        "removed": name,
        "scope": level.as_str(),
        "path": path.display().to_string(),
        "still_defined": still.map(|row| row.to_json()),
        "reload": reloaded.json(),
    });
    CommandOutput::ok(text, json)
}

/// Withdraws the approval of `name`, a project server just removed from `level` (approving it
/// again would be a new decision); the line that says so, or why it could not be. Nothing for
/// a user server, or a project server that had no approval of this agent's.
pub(super) fn forget_approval(
    options: &SessionOptions,
    name: &str,
    level: Level,
) -> Option<String> {
    if level != Level::Project {
        return None;
    }
    match crate::trust::withdraw_project_servers(options, Some(&[name.to_owned()])) {
        Ok(withdrawn) if withdrawn.is_empty() => None,
        Ok(_) => Some("its approval is withdrawn too".to_owned()),
        Err(error) => Some(format!(
            "note: its approval could not be withdrawn: {}",
            one_line(&error.to_string())
        )),
    }
}

/// Whether a definition is in one of this agent's own files.
pub(super) fn is_native(ctx: &DiscoveryContext, meta: &SourceMeta) -> bool {
    meta.path == ctx.native_project_file() || meta.path == ctx.native_user_file()
}
