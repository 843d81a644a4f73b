//! What VS Code and the tools built on it (Cursor, Windsurf, Cline, Roo Code) share: their user
//! folders, the variables they substitute in MCP files, and an entry of theirs as ours.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::fields::standard_with_disabled;
use super::variables::{rewrite_fields, var_ref};
use crate::context::DiscoveryContext;
use crate::placeholder::{Placeholder, is_variable_name, rewrite_braced};
use crate::problems::{EntryProblem, PlaceholderProblem};
use crate::server_config::ServerConfig;

/// VS Code's user folders (`…/Code/User`): the XDG config folder's, macOS's, and `%APPDATA%`'s
/// when that is set. The extensions' global storage is under each (`globalStorage/<id>`).
pub(super) fn vscode_user_dirs(ctx: &DiscoveryContext) -> Vec<PathBuf> {
    let mut dirs = vec![
        ctx.config_dir.join("Code").join("User"),
        ctx.home
            .join("Library")
            .join("Application Support")
            .join("Code")
            .join("User"),
    ];
    if let Some(app_data) = ctx.path_var("APPDATA") {
        dirs.push(app_data.join("Code").join("User"));
    }
    dirs
}

/// An entry of an editor's (VS Code and its forks, the extensions in them), its keys already
/// mapped onto ours, as a [`ServerConfig`]: `disabled: true` honoured, the editor variables
/// translated ([`editor_variable`]); when the tool has `${file:…}` (`file_tool` names it), such
/// a value is refused.
pub(super) fn editor_entry(
    object: Map<String, Value>,
    ctx: &DiscoveryContext,
    file_tool: Option<&'static str>,
) -> Result<ServerConfig, EntryProblem> {
    let mut config = standard_with_disabled(&Value::Object(object))?;
    rewrite_fields(&mut config, &mut |text| {
        rewrite_braced(text, &mut |inner| match file_tool {
            Some(tool) if inner.starts_with("file:") => {
                Placeholder::Reject(PlaceholderProblem::FromFile { tool })
            }
            _ => editor_variable(inner, ctx.cwd(), &ctx.home),
        })
    })?;
    Ok(config)
}

/// The variables VS Code and its forks (Cursor, Windsurf) substitute in MCP files that mean the
/// same here: `${env:VAR}` → `${VAR}`, `${userHome}`, `${workspaceFolder}` (the project root),
/// `${workspaceFolderBasename}`, `${pathSeparator}` / `${/}`. Anything else is kept.
pub(super) fn editor_variable(
    inner: &str,
    cwd: &Path,
    home: &Path,
) -> Placeholder<PlaceholderProblem> {
    if let Some(name) = inner.strip_prefix("env:") {
        return if is_variable_name(name) {
            Placeholder::Replace(var_ref(name))
        } else {
            Placeholder::Keep
        };
    }
    match inner {
        "userHome" => Placeholder::Replace(home.display().to_string()),
        "workspaceFolder" | "workspaceRoot" | "cwd" => {
            Placeholder::Replace(cwd.display().to_string())
        }
        "workspaceFolderBasename" => Placeholder::Replace(
            cwd.file_name()
                .map(|name| name.to_string_lossy().into_owned())
                .unwrap_or_default(),
        ),
        "pathSeparator" | "/" => Placeholder::Replace(std::path::MAIN_SEPARATOR.to_string()),
        _ => Placeholder::Keep,
    }
}
