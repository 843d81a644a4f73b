//! Finding and reading a tool's files: paths in each walked folder, a file read and parsed
//! (missing is no error), the same path listed once, and a file's servers under one key.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::context::DiscoveryContext;
use crate::error::{ConfigError, ShapeProblem};
use crate::origin::Level;
use crate::problems::EntryProblem;
use crate::read_pass::read_config_file;
use crate::server_config::ServerConfig;
use crate::source::{FileServers, SourceFile, servers_under_key};

/// A parser of one file format (`parse_json` or `parse_jsonc`).
pub(super) type Parser = fn(&Path, &str) -> Result<Value, ConfigError>;

/// A `/`-separated relative path as a path of this platform.
pub(super) fn relative(path: &str) -> PathBuf {
    path.split('/').collect()
}

/// `relative` in each folder of the walk ([`DiscoveryContext::project_folders`]), nearest
/// first, at project level: the files of a tool that looks for them in parent folders and lets
/// the nearer one win.
pub(super) fn walked(ctx: &DiscoveryContext, relative_path: &str) -> Vec<(PathBuf, Level)> {
    let relative_path = relative(relative_path);
    ctx.project_folders()
        .into_iter()
        .map(|folder| (folder.join(&relative_path), Level::Project))
        .collect()
}

/// Reads and parses a file. `None` when it does not exist.
pub(super) fn read_parsed(path: &Path, parse: Parser) -> Option<Result<Value, ConfigError>> {
    match read_config_file(path) {
        Ok(None) => None,
        Ok(Some(text)) => Some(parse(path, &text)),
        Err(error) => Some(Err(error)),
    }
}

/// Reads, parses and converts one file. `None` when it does not exist.
pub(super) fn load_file(
    path: &Path,
    level: Level,
    parse: Parser,
    convert: impl FnOnce(&Path, &Value) -> Result<FileServers, ConfigError>,
) -> Option<SourceFile> {
    let contents = read_parsed(path, parse)?.and_then(|root| convert(path, &root));
    Some(SourceFile::new(path, level, contents))
}

/// Drops later duplicates of a path (the project file is the user file when the project is
/// the home directory). The first, higher-priority listing stays, at user level if any listing
/// is: a user's own file stays in use when project config is turned off.
pub(super) fn dedup_paths(paths: &mut Vec<(PathBuf, Level)>) {
    let mut kept: Vec<(PathBuf, Level)> = Vec::with_capacity(paths.len());
    for (path, level) in paths.drain(..) {
        match kept.iter_mut().find(|(seen, _)| *seen == path) {
            Some((_, seen_level)) if level == Level::User => *seen_level = Level::User,
            Some(_) => {}
            None => kept.push((path, level)),
        }
    }
    *paths = kept;
}

/// Reads each of `paths` that exists (a later duplicate of a path dropped) with `parse`, its
/// servers under `key`, each entry converted by `convert`.
pub(super) fn load_servers(
    mut paths: Vec<(PathBuf, Level)>,
    parse: Parser,
    key: &str,
    convert: impl Fn(&Value) -> Result<ServerConfig, EntryProblem>,
) -> Vec<SourceFile> {
    dedup_paths(&mut paths);
    paths
        .into_iter()
        .filter_map(|(path, level)| {
            load_file(&path, level, parse, |path, root| {
                servers_under_key(path, root, key, |_, entry| convert(entry))
            })
        })
        .collect()
}

/// The server names of a list such as `disabledServers` (`value` is the key's value, if the key
/// is there: missing or `null` is no name). Anything but a list of strings is the file's error,
/// naming the key (`label`): running a server the user meant to switch off would be worse than
/// not loading the file.
pub(super) fn name_list(
    path: &Path,
    value: Option<&Value>,
    label: &str,
) -> Result<Vec<String>, ConfigError> {
    let shape_error = || {
        ConfigError::shape(
            path,
            ShapeProblem::NotANameList {
                key: label.to_owned(),
            },
        )
    };
    match value {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(names)) => names
            .iter()
            .map(|name| name.as_str().map(str::to_owned).ok_or_else(shape_error))
            .collect(),
        Some(_) => Err(shape_error()),
    }
}
