//! Goose: the `extensions` of Goose's YAML configuration, merged as Goose merges its files.
//!
//! Written from Goose's source and documentation, aaif-goose/goose:
//! `crates/goose/src/config/base.rs` (commit 001a90f2: `system_config_path`,
//! `additional_config_paths_from_env`, `merge_extensions`),
//! `crates/goose/src/config/extensions.rs` (05a3515c), `crates/goose/src/agents/extension.rs`
//! (20f87d19: `ExtensionConfig`) and `documentation/docs/guides/config-files.md` (1c220d75):
//!
//! - the files, later ones winning: `/etc/goose/config.yaml`, then each file named in
//!   `$GOOSE_ADDITIONAL_CONFIG_FILES` (a path list), then the user's
//!   `<XDG config dir>/goose/config.yaml` (`~/.config/goose/config.yaml`, macOS included); an
//!   extension defined in several is merged field by field, the later file's fields winning.
//!   Goose has no project file;
//! - `extensions` maps a key (the server's name here) to an entry with `enabled` and a `type`:
//!   `stdio` (`cmd`, `args`, `envs`, `env_keys`, `cwd`), `streamable_http` (`uri`, `headers`,
//!   `envs`, `env_keys`), the older `sse` (`uri`), and the kinds that run inside Goose
//!   (`builtin`, `platform`, `frontend`, `inline_python`), which are listed here as invalid,
//!   saying so;
//! - `env_keys` names variables Goose takes from its secrets: here each is forwarded from the
//!   environment (`NAME: ${NAME}`); `timeout` is in seconds; `available_tools`, when not
//!   empty, lists the only tools offered (our `enabledTools`);
//! - a header's `${VAR}` / `$VAR` is filled from the extension's own `envs` first (as Goose
//!   does), else from the environment.
//!
//! Every file is reported where it is; a merged server is listed in the highest file that
//! defines it, with the fields the lower ones gave it.
//!
//! Project files: none; the tool has user files only.
//!
//! Format, in brief: YAML, `extensions`; `cmd`/`uri`/`envs`/`env_keys`; `timeout` in seconds;
//! `available_tools` → `enabledTools`; in-Goose kinds invalid.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::builtin::BuiltinSource;
use super::fields::{normalize_transport_name, single_timeout_in_seconds};
use super::files::{dedup_paths, read_parsed};
use super::variables::dollar_vars;
use crate::context::DiscoveryContext;
use crate::error::{ConfigError, ShapeProblem};
use crate::origin::Level;
use crate::problems::EntryProblem;
use crate::server_config::ServerConfig;
use crate::source::{FileServers, SourceFile, parse_yaml};

/// Goose: `extensions` in `<config dir>/goose/config.yaml`, merged over the files of
/// `$GOOSE_ADDITIONAL_CONFIG_FILES` and `<system dir>/goose/config.yaml` field by field, as
/// Goose merges them (a server is listed in the highest file defining it). User level only;
/// YAML.
///
/// `stdio` entries: `cmd` → `command`, `args`, `envs` → `env`, `cwd`; `streamable_http` (→
/// `http`) and the older `sse`: `uri` → `url`, `headers` (their variables filled from the
/// entry's `envs` first); `env_keys` are forwarded from the environment; `enabled`; `timeout`
/// in seconds → `timeout` and `toolTimeout`; a non-empty `available_tools` → `enabledTools`.
/// `builtin`, `platform`, `frontend` and `inline_python` extensions run inside Goose and are
/// listed as invalid, saying so. `$VAR` → `${VAR}`.
pub const GOOSE: BuiltinSource = BuiltinSource::new("goose", "Goose", load)
    .documented(
        "`<config dir>/goose/config.yaml` over `$GOOSE_ADDITIONAL_CONFIG_FILES` and `<system dir>/goose/config.yaml`",
        "aaif-goose/goose `crates/goose/src/config/base.rs` (001a90f2)",
    );

/// Reads the files: see [`GOOSE`].
fn load(ctx: &DiscoveryContext) -> Vec<SourceFile> {
    // Lowest first, as Goose merges them.
    let mut paths: Vec<PathBuf> = Vec::new();
    if let Some(system) = &ctx.system_dir {
        paths.push(system.join("goose").join("config.yaml"));
    }
    if let Some(list) = ctx.var("GOOSE_ADDITIONAL_CONFIG_FILES") {
        paths.extend(std::env::split_paths(list).filter(|path| !path.as_os_str().is_empty()));
    }
    paths.push(ctx.config_dir.join("goose").join("config.yaml"));
    // A file named twice is read once, where it is first named.
    let mut listed: Vec<(PathBuf, Level)> =
        paths.into_iter().map(|path| (path, Level::User)).collect();
    dedup_paths(&mut listed);

    // Each file's extensions (or its error), then the merge: for every name, the fields of
    // every file that defines it, the later winning, kept by the last of them.
    let read: Vec<(PathBuf, Result<Extensions, ConfigError>)> = listed
        .into_iter()
        .filter_map(|(path, _)| {
            let parsed = read_parsed(&path, parse_yaml)?;
            let extensions = parsed.and_then(|root| extensions(&path, &root));
            Some((path, extensions))
        })
        .collect();
    let mut merged: Map<String, Value> = Map::new();
    let mut owner: BTreeMap<String, usize> = BTreeMap::new();
    for (index, (_, extensions)) in read.iter().enumerate() {
        let Ok(extensions) = extensions else { continue };
        for (name, entry) in extensions {
            match (merged.get_mut(name), entry) {
                (Some(Value::Object(kept)), Value::Object(fields)) => {
                    for (key, value) in fields {
                        kept.insert(key.clone(), value.clone());
                    }
                }
                _ => {
                    merged.insert(name.clone(), entry.clone());
                }
            }
            owner.insert(name.clone(), index);
        }
    }

    // Highest first, each with the servers it is the last to define.
    read.into_iter()
        .enumerate()
        .rev()
        .map(|(index, (path, extensions))| {
            let contents = extensions.map(|_| {
                let mut file = FileServers::default();
                for (name, entry) in &merged {
                    if owner.get(name) == Some(&index) {
                        file.push(name, convert(entry));
                    }
                }
                file
            });
            SourceFile::new(&path, Level::User, contents)
        })
        .collect()
}

/// A file's `extensions`: entries by name.
type Extensions = Map<String, Value>;

/// The `extensions` map of a file (none when it has no such key).
fn extensions(path: &Path, root: &Value) -> Result<Extensions, ConfigError> {
    let Some(root) = root.as_object() else {
        return Err(ConfigError::shape(path, ShapeProblem::NotAnObject));
    };
    match root.get("extensions") {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(extensions)) => Ok(extensions.clone()),
        Some(_) => Err(ConfigError::shape(
            path,
            ShapeProblem::NotAServerMap {
                key: "extensions".to_owned(),
            },
        )),
    }
}

fn convert(entry: &Value) -> Result<ServerConfig, EntryProblem> {
    let Some(object) = entry.as_object() else {
        return Err(EntryProblem::NotAnObject);
    };
    let mut object = object.clone();
    let kind = object
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("stdio")
        .to_owned();
    match kind.as_str() {
        "stdio" => {
            rename(&mut object, "cmd", "command");
        }
        "streamable_http" | "sse" => {
            rename(&mut object, "uri", "url");
        }
        other => {
            return Err(EntryProblem::InsideTheTool {
                tool: "Goose",
                kind: other.to_owned(),
            });
        }
    }
    normalize_transport_name(&mut object, "type");
    let mut env = match object.remove("envs") {
        Some(Value::Object(envs)) => envs,
        _ => Map::new(),
    };
    if let Some(Value::Array(keys)) = object.remove("env_keys") {
        for key in keys.iter().filter_map(Value::as_str) {
            env.entry(key.to_owned())
                .or_insert_with(|| Value::from(format!("${{{key}}}")));
        }
    }
    if kind == "stdio" {
        if !env.is_empty() {
            object.insert("env".to_owned(), Value::Object(env));
        }
    } else if let Some(Value::Object(headers)) = object.get_mut("headers") {
        // Goose fills a header's variables from the extension's own values first.
        for value in headers.values_mut() {
            if let Value::String(text) = value {
                *text = fill_from(&dollar_vars(text), &env);
            }
        }
    }
    match object.remove("available_tools") {
        Some(Value::Array(tools)) if !tools.is_empty() => {
            object.insert("enabledTools".to_owned(), Value::Array(tools));
        }
        _ => {}
    }
    single_timeout_in_seconds(&mut object, "timeout")?;
    let mut config = crate::source::standard_entry(&Value::Object(object))?;
    super::variables::rewrite_fields(&mut config, &mut |text| Ok(dollar_vars(text)))?;
    Ok(config)
}

/// Moves `from` to `to` unless `to` is set.
fn rename(object: &mut Map<String, Value>, from: &str, to: &str) {
    if let Some(value) = object.remove(from)
        && !object.contains_key(to)
    {
        object.insert(to.to_owned(), value);
    }
}

/// `${NAME}` of `text` replaced by the literal value `env` gives `NAME`, where it gives one
/// that is not itself a reference to the environment.
fn fill_from(text: &str, env: &Map<String, Value>) -> String {
    let mut filled = text.to_owned();
    for (name, value) in env {
        if let Some(value) = value.as_str()
            && value != format!("${{{name}}}")
        {
            filled = filled.replace(&format!("${{{name}}}"), value);
        }
    }
    filled
}
