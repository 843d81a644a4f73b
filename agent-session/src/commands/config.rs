//! [`run_config_command`]: `add`, `add-json`, `remove`, `enable` and `disable` without a
//! session, as the `agent-session` command line runs them. The parsing and the writing are the
//! shell's own (`/mcp add` …); what differs is that nothing is connected: discovery alone says
//! where each server is defined, and runs again after the write to say what changed.

use std::fmt::Write as _;
use std::sync::Arc;

use mcp_config::{DiscoveryContext, DiscoveryResult, SkipReason, SourceMeta, load_all_configs};
use serde_json::{Value, json};

use super::add::{added_output, parse_add, parse_add_json, write_new_server};
use super::enable::{parse_switch, switch_server, switched_report};
use super::remove::{forget_approval, parse_remove, remove_from_files};
use super::{CommandOutput, Interface, known_server, unknown_server};
use crate::render::{describe_source, one_line, source_json};
use crate::session::SessionOptions;

/// The commands [`run_config_command`] runs.
pub const CONFIG_COMMANDS: [&str; 5] = ["add", "add-json", "remove", "enable", "disable"];

/// The files and what discovery finds in them now, with the session options' roots, project
/// config switch and trust policy (the Exa filter on, as in a session).
struct Files {
    ctx: DiscoveryContext,
    discovery: Arc<DiscoveryResult>,
}

impl Files {
    fn read(options: &SessionOptions) -> Result<Self, String> {
        let ctx = options
            .load
            .discovery_context(&options.cwd)
            .map_err(|error| one_line(&error.to_string()))?;
        let discovery = Arc::new(discover(&ctx, options));
        Ok(Self { ctx, discovery })
    }

    /// Where `name` is defined, for a server the shell's `/mcp list` would show: the
    /// definition in use, else the first one skipped.
    fn source(&self, name: &str) -> Option<SourceMeta> {
        if let Some(server) = self.discovery.servers.get(name) {
            return Some(server.source.meta.clone());
        }
        let shown = self.discovery.skipped.iter().any(|skipped| {
            skipped.name == name
                && matches!(
                    skipped.reason,
                    SkipReason::Disabled
                        | SkipReason::Invalid(_)
                        | SkipReason::NeedsApproval
                        | SkipReason::DeniedByPolicy(_)
                )
        });
        shown
            .then(|| self.discovery.skip_of(name))
            .flatten()
            .map(|skipped| skipped.source.clone())
    }
}

fn discover(ctx: &DiscoveryContext, options: &SessionOptions) -> DiscoveryResult {
    load_all_configs(ctx, &options.load.discovery.clone().filter_exa(true))
}

/// Runs `add`, `add-json`, `remove`, `enable` or `disable` (the first of `words`; the rest are
/// its arguments, split as a shell does) on this agent's config files, with the options' roots,
/// and starts no server. Written files are replaced atomically, mode 0600, their other
/// content kept. Usage errors name the bad piece and end with the command's usage.
pub fn run_config_command(options: &SessionOptions, words: &[String]) -> CommandOutput {
    let Some((command, rest)) = words.split_first() else {
        return CommandOutput::usage(format!(
            "no command given; the commands are {}",
            CONFIG_COMMANDS.join(", ")
        ));
    };
    let files = match Files::read(options) {
        Ok(files) => files,
        Err(error) => return CommandOutput::failed(error),
    };
    let outcome = match command.as_str() {
        "add" | "add-json" => {
            let parsed = if command == "add" {
                parse_add(rest, Interface::Cli)
            } else {
                parse_add_json(rest, Interface::Cli)
            };
            // A definition given wrongly is a usage error, not a failed write.
            match parsed {
                Ok(new) => add(options, &files, &new),
                Err(error) => return CommandOutput::usage(error),
            }
        }
        "remove" => remove(options, &files, rest),
        "enable" => switch(options, &files, rest, true),
        "disable" => switch(options, &files, rest, false),
        other => {
            return CommandOutput::usage(format!(
                "\"{other}\" is not a config command; the commands are {}",
                CONFIG_COMMANDS.join(", ")
            ));
        }
    };
    outcome.unwrap_or_else(CommandOutput::failed)
}

fn add(
    options: &SessionOptions,
    files: &Files,
    new: &super::add::NewServer,
) -> Result<CommandOutput, String> {
    let path = write_new_server(&files.ctx, options, new, Interface::Cli)?;
    let after = discover(&files.ctx, options);
    Ok(added_output(options, new, &path, &after))
}

fn remove(
    options: &SessionOptions,
    files: &Files,
    rest: &[String],
) -> Result<CommandOutput, String> {
    // Words given wrongly (`-s local`) are a usage error, not a failed write.
    let (name, scope) = match parse_remove(rest, Interface::Cli) {
        Ok(parsed) => parsed,
        Err(message) => return Ok(CommandOutput::usage(message)),
    };
    if let Err(message) = known_server(&files.discovery, &name, Interface::Cli) {
        return Ok(CommandOutput::usage(message));
    }
    let source = files.source(&name);
    let (level, path) = remove_from_files(
        &files.ctx,
        &name,
        scope,
        source,
        &files.discovery,
        Interface::Cli,
    )?;
    let withdrawn = forget_approval(options, &name, level);
    let after = discover(&files.ctx, options);
    let mut text = format!(
        "removed \"{name}\" from {} ({level} config)",
        path.display()
    );
    if let Some(note) = &withdrawn {
        let _ = write!(text, "\n{note}");
    }
    let still = after.servers.get(&name).map(|server| &server.source.meta);
    if let Some(meta) = still {
        let _ = write!(
            text,
            "\nnote: \"{name}\" is still defined in {}, which is used now",
            describe_source(meta)
        );
    }
    let json = json!({
        "removed": name,
        "scope": level.as_str(),
        "path": path.display().to_string(),
        "still_defined": still.map_or(Value::Null, |meta| json!({"name": name, "source": source_json(meta)})),
    });
    Ok(CommandOutput::ok(text, json))
}

fn switch(
    options: &SessionOptions,
    files: &Files,
    rest: &[String],
    enabled: bool,
) -> Result<CommandOutput, String> {
    let name = parse_switch(rest, enabled, Interface::Cli)?;
    let Some(source) = files.source(&name) else {
        let known = files.discovery.names();
        return Ok(CommandOutput::usage(unknown_server(
            &name,
            known,
            Interface::Cli,
        )));
    };
    let changes = switch_server(&files.ctx, &name, enabled, Some(&source))?;
    let after = discover(&files.ctx, options);
    let (text, json) = switched_report(&name, enabled, &changes, &after, Interface::Cli)?;
    Ok(CommandOutput::ok(text.trim_end(), json))
}
