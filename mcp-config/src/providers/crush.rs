//! Crush (Charm): `mcp` in `crush.json` files — the project's, found up to the repository
//! root, and the user's.
//!
//! Written from Crush's source, charmbracelet/crush at commit 37f36e93 (2026-08-21):
//! `internal/config/load.go` (`lookupConfigs`, `projectBoundary`, `GlobalConfig`,
//! `GlobalConfigData`), `internal/config/config.go` (`MCPConfig`), `internal/home/home.go`,
//! and its `docs/config/README.md`:
//!
//! - project files are looked for in every folder from the working folder up to the Git
//!   work-tree root (the working folder alone outside one), the deeper folder winning; in each
//!   folder `.crushrc` > `crushrc` > `.crush.json` > `crush.json`;
//! - user files: the data file `$CRUSH_GLOBAL_DATA/crush.json` (default
//!   `${XDG_DATA_HOME:-~/.local/share}/crush/crush.json`, which Crush writes itself), over the
//!   config file `$CRUSH_GLOBAL_CONFIG/crush.json` (default `<XDG config dir>/crush/crush.json`)
//!   and the `crushrc` beside it;
//! - `crushrc` files are Bash scripts Crush runs with its own interpreter to produce its
//!   configuration. **They are never run here**: each one found is listed as a file whose
//!   servers cannot be read ([`ConfigError::Script`]), naming it;
//! - JSON files are strict JSON (`encoding/json`);
//! - an entry has `type` (`stdio`, `sse`, `http`; stdio by default), `command`, `args`, `env`,
//!   `url`, `headers`, `disabled`, `disabled_tools`, `enabled_tools` (the only tools offered),
//!   `timeout` (seconds, for the start and each request), `oauth_client_id`,
//!   `oauth_client_secret`; Crush writes the tokens it obtained into the entry
//!   (`oauth_token`): they are dropped here, never carried along;
//! - values are shell-expanded by Crush: `$VAR` and `${VAR}` are the environment here too, but
//!   a command substitution `$(…)` makes the entry invalid — Crush would run it, and a config
//!   value never runs anything here.
//!
//! - the system-wide `/etc/crush/crush.json` (on Unix) is the lowest of all: read here as
//!   `<system dir>/crush/crush.json` ([`DiscoveryContext::system_dir`]), at user level, since
//!   no project wrote it.
//!
//! Project files, seen from a subfolder: Crush's rule is `.crushrc`, `crushrc`, `.crush.json`,
//! `crush.json` in every folder from the working folder up to the Git work-tree root, the deeper
//! winning (`internal/config/load.go` `lookupConfigs`, charmbracelet/crush 37f36e93). Read here:
//! every folder of the walk, nearer first.
//!
//! Format, in brief: strict JSON, `mcp`; snake_case `disabled_tools` / `enabled_tools`; `timeout`
//! in seconds; `$VAR`; `$(…)` refused; stored tokens dropped.

use serde_json::Value;

use super::builtin::BuiltinSource;
use super::fields::{normalize_transport_name, single_timeout_in_seconds, standard_with_disabled};
use super::files::{dedup_paths, load_file};
use super::variables::{dollar_vars, rewrite_fields};
use crate::context::DiscoveryContext;
use crate::error::ConfigError;
use crate::origin::Level;
use crate::placeholder::Rejected;
use crate::problems::{EntryProblem, PlaceholderProblem};
use crate::server_config::ServerConfig;
use crate::source::{SourceFile, parse_json, servers_under_key};

/// Crush: in every folder from the working folder up to the repository root (the nearer
/// first) `.crushrc`, `crushrc`, `.crush.json`, `crush.json`; then the data file
/// (`$CRUSH_GLOBAL_DATA` or `${XDG_DATA_HOME:-~/.local/share}/crush/crush.json`), the config
/// folder's `crushrc` and `crush.json` (`$CRUSH_GLOBAL_CONFIG` or `<config dir>/crush/`), then `<system dir>/crush/crush.json`.
///
/// JSON files are strict JSON with the servers under `mcp`: `type` `stdio` / `sse` / `http`,
/// `command`, `args`, `env`, `url`, `headers`; `disabled: true` → `enabled: false`;
/// `disabled_tools` / `enabled_tools` → `disabledTools` / `enabledTools`; `timeout` in seconds
/// → `timeout` and `toolTimeout`; `oauth_client_id` / `oauth_client_secret` → OAuth settings;
/// the `oauth_token` Crush writes is dropped. `$VAR` → `${VAR}`; a `$(…)` makes the entry
/// invalid. A `crushrc` is a Bash script and is never run: each one found is a file error
/// naming it ([`ConfigError::Script`]).
pub const CRUSH: BuiltinSource = BuiltinSource::new("crush", "Crush", load)
    .documented(
        "`.crush.json`, `crush.json` (`crushrc` never run) of each walked folder; `<data dir>/crush/crush.json`; `<config dir>/crush/crush.json`; `<system dir>/crush/crush.json`",
        "charmbracelet/crush `internal/config/load.go` (37f36e93)",
    );

/// Reads the files: see [`CRUSH`].
fn load(ctx: &DiscoveryContext) -> Vec<SourceFile> {
    let mut paths = Vec::new();
    for folder in ctx.project_folders() {
        for name in [".crushrc", "crushrc", ".crush.json", "crush.json"] {
            paths.push((folder.join(name), Level::Project));
        }
    }
    let set = |name: &str| ctx.path_var(name);
    let data = set("CRUSH_GLOBAL_DATA").unwrap_or_else(|| {
        set("XDG_DATA_HOME")
            .unwrap_or_else(|| ctx.home.join(".local").join("share"))
            .join("crush")
    });
    let config = set("CRUSH_GLOBAL_CONFIG").unwrap_or_else(|| ctx.config_dir.join("crush"));
    paths.push((data.join("crush.json"), Level::User));
    paths.push((config.join("crushrc"), Level::User));
    paths.push((config.join("crush.json"), Level::User));
    if let Some(system) = &ctx.system_dir {
        paths.push((system.join("crush").join("crush.json"), Level::User));
    }
    dedup_paths(&mut paths);
    paths
        .into_iter()
        .filter_map(|(path, level)| {
            let is_script = path
                .file_name()
                .is_some_and(|name| name == "crushrc" || name == ".crushrc");
            if is_script {
                script(&path, level)
            } else {
                load_file(&path, level, parse_json, |path, root| {
                    servers_under_key(path, root, "mcp", |_, entry| convert(entry))
                })
            }
        })
        .collect()
}

/// A `crushrc` that exists: a file whose servers are not read, saying why.
fn script(path: &std::path::Path, level: Level) -> Option<SourceFile> {
    let exists = std::fs::symlink_metadata(path).is_ok();
    exists.then(|| {
        SourceFile::new(
            path,
            level,
            Err(ConfigError::Script {
                path: path.to_owned(),
                tool: "Crush",
            }),
        )
    })
}

fn convert(entry: &Value) -> Result<ServerConfig, EntryProblem> {
    let Some(object) = entry.as_object() else {
        return Err(EntryProblem::NotAnObject);
    };
    let mut object = object.clone();
    // Tokens Crush keeps in its own files are Crush's.
    object.remove("oauth_token");
    normalize_transport_name(&mut object, "type");
    for (crush, ours) in [
        ("disabled_tools", "disabledTools"),
        ("enabled_tools", "enabledTools"),
    ] {
        if let Some(names) = object.remove(crush) {
            object.insert(ours.to_owned(), names);
        }
    }
    let client_id = object.remove("oauth_client_id");
    let client_secret = object.remove("oauth_client_secret");
    if (client_id.is_some() || client_secret.is_some()) && !object.contains_key("auth") {
        let mut auth = serde_json::Map::new();
        auth.insert("type".to_owned(), Value::from("oauth"));
        if let Some(id) = client_id {
            auth.insert("clientId".to_owned(), id);
        }
        if let Some(secret) = client_secret {
            auth.insert("clientSecret".to_owned(), secret);
        }
        object.insert("auth".to_owned(), Value::Object(auth));
    }
    single_timeout_in_seconds(&mut object, "timeout")?;
    let mut config = standard_with_disabled(&Value::Object(object))?;
    rewrite_fields(&mut config, &mut |text| {
        if let Some(start) = text.find("$(") {
            let end = text[start..]
                .find(')')
                .map_or(text.len(), |end| start + end + 1);
            return Err(Rejected {
                placeholder: text[start..end].to_owned(),
                reason: PlaceholderProblem::CommandSubstitution { tool: "Crush" },
            });
        }
        Ok(dollar_vars(text))
    })?;
    Ok(config)
}
