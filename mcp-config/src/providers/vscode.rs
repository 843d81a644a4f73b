//! VS Code: `.vscode/mcp.json` (top-level `servers` and `inputs`), the workspace's `.mcp.json`
//! (Copilot's portable format, top-level `mcpServers`) and the user's `mcp.json` /
//! `settings.json`.
//!
//! Project files, seen from a subfolder: VS Code's rule is `.vscode/mcp.json` and the portable
//! `.mcp.json` of the workspace folder only
//! (code.visualstudio.com/docs/copilot/customization/mcp-servers;
//! code.visualstudio.com/docs/agents/reference/mcp-configuration, DateApproved 11/25/2026). Read
//! here: the working folder; a file above is a note.
//!
//! Format, in brief: JSON with comments; top-level `servers` (or the older `mcp.servers`) and
//! `inputs`; `${env:VAR}`, `${workspaceFolder}`, `${userHome}` translated; `${input:…}` makes that
//! server invalid; `.mcp.json`: strict JSON, `mcpServers`, read as Copilot CLI reads it.

use std::path::Path;

use serde_json::Value;

use super::builtin::BuiltinSource;
use super::copilot_cli;
use super::editor::{editor_variable, vscode_user_dirs};
use super::fields::standard_with_disabled;
use super::files::{dedup_paths, load_file};
use super::variables::rewrite_fields;
use crate::context::DiscoveryContext;
use crate::error::{ConfigError, ShapeProblem};
use crate::origin::Level;
use crate::placeholder::{Placeholder, rewrite_braced};
use crate::problems::{EntryProblem, PlaceholderProblem};
use crate::server_config::ServerConfig;
use crate::source::{FileServers, SourceFile, parse_json, parse_jsonc, servers_under_key};

/// The portable file's name at the workspace root.
const PORTABLE: &str = ".mcp.json";

/// VS Code: the workspace folder's `.vscode/mcp.json` and `.mcp.json` (the working folder's only;
/// one found above is a note), then the default profile's `mcp.json` and `settings.json` in
/// `<config dir>/Code/User/`, then each named profile's in `Code/User/profiles/<id>/` (by
/// folder name; VS Code keeps a profile's `mcp.json` in its folder), and the same under
/// `~/Library/Application Support/Code/User/` and `%APPDATA%/Code/User/` when they exist. All
/// but `.mcp.json` (strict JSON, as Copilot reads it) are JSON with comments and trailing commas.
///
/// `mcp.json` holds a top-level `servers` object (`type` `stdio` / `http` / `sse`, `command`,
/// `args`, `env`, `envFile`, `cwd`, `url`, `headers`) and an `inputs` list; the older shape
/// nests both under `mcp`, which is also how `settings.json` holds them. `envFile`, `dev` and
/// other keys are kept in `extra`.
///
/// Variables: `${env:VAR}` → `${VAR}`; `${workspaceFolder}` → the absolute project root;
/// `${userHome}`, `${workspaceFolderBasename}`, `${pathSeparator}` likewise. A value using
/// `${input:…}` (an interactive VS Code prompt) or `${command:…}` / `${config:…}` makes that
/// server invalid ([`PlaceholderProblem`]: set the value in the config or the environment).
///
/// The root `.mcp.json` is Copilot's portable format, which VS Code's Copilot harness reads too
/// (code.visualstudio.com/docs/agents/reference/mcp-configuration, DateApproved 11/25/2026): a
/// top-level `mcpServers` object whose entries are read as [`COPILOT_CLI`](super::COPILOT_CLI)
/// reads them. The portable user file, `$COPILOT_HOME/mcp-config.json`, is Copilot CLI's, read by
/// that provider.
pub const VSCODE: BuiltinSource = BuiltinSource::new("vscode", "VS Code", load).here_only(
    &[".vscode/mcp.json", ".mcp.json"],
    "VS Code reads it only in the workspace folder",
)
    .documented(
        "`<cwd>/.vscode/mcp.json`, `<cwd>/.mcp.json`; `<config dir>/Code/User/mcp.json`, `settings.json`, `profiles/<id>/mcp.json`",
        "code.visualstudio.com/docs/agents/reference/mcp-configuration (microsoft/vscode-docs 08868fe5)",
    );

/// Reads the files: see [`VSCODE`].
fn load(ctx: &DiscoveryContext) -> Vec<SourceFile> {
    let user_dirs = vscode_user_dirs(ctx);
    let mut paths = vec![
        (ctx.cwd().join(".vscode").join("mcp.json"), Level::Project),
        (ctx.cwd().join(PORTABLE), Level::Project),
    ];
    for dir in user_dirs {
        // The default profile, then the named ones (`profiles/<id>/`), by folder name.
        for profile in std::iter::once(dir.clone()).chain(named_profiles(&dir)) {
            paths.push((profile.join("mcp.json"), Level::User));
            paths.push((profile.join("settings.json"), Level::User));
        }
    }
    dedup_paths(&mut paths);
    paths
        .into_iter()
        .filter_map(|(path, level)| {
            let named = |wanted: &str| path.file_name().is_some_and(|name| name == wanted);
            if named(PORTABLE) {
                // Copilot's portable format, read as Copilot reads it.
                return load_file(&path, level, parse_json, |path, root| {
                    servers_under_key(path, root, "mcpServers", |_, entry| {
                        copilot_cli::convert(entry)
                    })
                });
            }
            let is_settings = named("settings.json");
            load_file(&path, level, parse_jsonc, |path, root| {
                convert_file(path, root, is_settings, ctx)
            })
        })
        .collect()
}

/// The folders of VS Code's named profiles under a user folder, sorted; none when there are
/// none (or the folder cannot be listed).
fn named_profiles(user_dir: &Path) -> Vec<std::path::PathBuf> {
    let Ok(entries) = std::fs::read_dir(user_dir.join("profiles")) else {
        return Vec::new();
    };
    let mut profiles: Vec<_> = entries
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_ok_and(|kind| kind.is_dir()))
        .map(|entry| entry.path())
        .collect();
    profiles.sort();
    profiles
}

fn convert_file(
    path: &Path,
    root: &Value,
    is_settings: bool,
    ctx: &DiscoveryContext,
) -> Result<FileServers, ConfigError> {
    if !root.is_object() {
        return Err(ConfigError::shape(path, ShapeProblem::NotAnObject));
    }
    // `{"servers": …, "inputs": …}`, or the older `{"mcp": {"servers": …, "inputs": …}}`.
    let holder = if !is_settings && root.get("servers").is_some() {
        root
    } else {
        match root.get("mcp") {
            Some(mcp) if mcp.is_object() => mcp,
            Some(Value::Null) | None => return Ok(FileServers::default()),
            Some(_) => {
                return Err(ConfigError::shape(
                    path,
                    ShapeProblem::NotAGroup {
                        key: "mcp".to_owned(),
                        inner: "servers".to_owned(),
                    },
                ));
            }
        }
    };
    let inputs = holder.get("inputs").and_then(Value::as_array);
    servers_under_key(path, holder, "servers", |_, entry| {
        convert(entry, inputs.map_or(&[][..], Vec::as_slice), ctx)
    })
}

fn convert(
    entry: &Value,
    inputs: &[Value],
    ctx: &DiscoveryContext,
) -> Result<ServerConfig, EntryProblem> {
    let mut config = standard_with_disabled(entry)?;
    rewrite_fields(&mut config, &mut |text| {
        rewrite_braced(text, &mut |inner| variable(inner, inputs, ctx))
    })?;
    Ok(config)
}

fn variable(
    inner: &str,
    inputs: &[Value],
    ctx: &DiscoveryContext,
) -> Placeholder<PlaceholderProblem> {
    if let Some(id) = inner.strip_prefix("input:") {
        let description = inputs
            .iter()
            .find(|input| input.get("id").and_then(Value::as_str) == Some(id))
            .and_then(|input| input.get("description").and_then(Value::as_str))
            .map(str::to_owned);
        return Placeholder::Reject(PlaceholderProblem::InputPrompt { description });
    }
    if inner.starts_with("command:") || inner.starts_with("config:") {
        return Placeholder::Reject(PlaceholderProblem::EditorOnly);
    }
    editor_variable(inner, ctx.cwd(), &ctx.home)
}
