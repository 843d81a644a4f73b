//! `/mcp remove`: a server out of this agent's own config file (never another tool's), then a
//! reload.

use std::fmt::Write as _;

use mcp_config::writer::{native_config_path, remove_server};
use mcp_config::{ConfigError, DiscoveryContext, Level, SourceMeta};
use serde_json::json;

use super::parse::{parse_scope, parse_words};
use super::reload::Reloaded;
use super::status::Servers;
use super::{CommandOutput, unknown_server};
use crate::render::{describe_source, one_line};
use crate::session::AgentSession;

const REMOVE_USAGE: &str = "usage: /mcp remove NAME [--scope project|user]";

pub(super) async fn remove(session: &AgentSession, rest: &[String]) -> CommandOutput {
    let parsed = match parse_words(rest, &["--scope"], false, REMOVE_USAGE) {
        Ok(parsed) => parsed,
        Err(error) => return CommandOutput::failed(error),
    };
    let (name, scope) = match parsed
        .name(REMOVE_USAGE)
        .and_then(|name| Ok((name.to_owned(), parse_scope(&parsed, REMOVE_USAGE)?)))
    {
        Ok(found) => found,
        Err(error) => return CommandOutput::failed(error),
    };
    let ctx = match session.context() {
        Ok(ctx) => ctx,
        Err(error) => return CommandOutput::failed(one_line(&error.to_string())),
    };
    let servers = Servers::collect(session);
    let source = servers.source(&name);
    let native_level = source
        .as_ref()
        .filter(|meta| is_native(&ctx, meta))
        .map(|meta| meta.level);
    let levels = match (scope, native_level) {
        (Some(level), _) => vec![level],
        (None, Some(Level::User)) => vec![Level::User, Level::Project],
        (None, _) => vec![Level::Project, Level::User],
    };
    let mut removed = None;
    let mut failure = None;
    for level in &levels {
        match remove_server(&ctx, *level, &name) {
            Ok(path) => {
                removed = Some((*level, path));
                break;
            }
            // Not in this file: try the next one.
            Err(ConfigError::Invalid(_)) => {}
            // A file that cannot be read or parsed: try the next one, report it if nothing
            // else explains better.
            Err(error) => {
                failure.get_or_insert(error);
            }
        }
    }
    let foreign = source.as_ref().is_some_and(|meta| !is_native(&ctx, meta));
    if let (None, Some(error), false) = (&removed, failure, foreign) {
        return CommandOutput::failed(one_line(&error.to_string()));
    }
    let Some((level, path)) = removed else {
        let files: Vec<String> = levels
            .iter()
            .map(|level| native_config_path(&ctx, *level).display().to_string())
            .collect();
        let files = files.join(" or ");
        return CommandOutput::failed(match source {
            Some(meta) if !is_native(&ctx, &meta) => format!(
                "\"{name}\" is not in this agent's config ({files}); it is defined in {}'s {} \
                 config {}, which /mcp does not edit; /mcp disable {name} turns it off instead",
                meta.provider_name,
                meta.level,
                meta.path.display()
            ),
            Some(meta) => format!(
                "\"{name}\" is not in {files}; it is defined in {}; {REMOVE_USAGE}",
                meta.path.display()
            ),
            None => unknown_server(&name, REMOVE_USAGE),
        });
    };
    let reloaded = Reloaded::run(session).await;
    let mut text = format!(
        "removed \"{name}\" from {} ({level} config)\n",
        path.display()
    );
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
    text.push_str(&reloaded.short_text());
    let json = json!({
        "removed": name,
        "scope": level.as_str(),
        "path": path.display().to_string(),
        "still_defined": still.map(|row| row.to_json()),
        "reload": reloaded.json(),
    });
    CommandOutput::ok(text, json)
}

/// Whether a definition is in one of this agent's own files.
fn is_native(ctx: &DiscoveryContext, meta: &SourceMeta) -> bool {
    meta.path == ctx.native_project_file() || meta.path == ctx.native_user_file()
}
