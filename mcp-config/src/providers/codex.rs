//! Codex: `[mcp_servers.<name>]` tables in `config.toml`: `.codex/config.toml` in the working
//! folder and each parent up to the project root (nearest first), then `$CODEX_HOME`'s.
//!
//! Project files, seen from a subfolder: Codex's rule is `.codex/config.toml` in every folder from
//! the project root (the nearest folder with a `.git`, else the working folder) down to the working
//! folder, the nearer one winning; trust looked up for the folder, then the project root
//! (openai/codex `codex-rs/core/src/config_loader/mod.rs`, `find_project_root` and
//! `load_project_layers`, commit b98130406aed032a794707309afc14219fee5991). Read here: every folder
//! of the walk, nearer first.
//!
//! Format, in brief: TOML `[mcp_servers.<name>]`; `url` is Streamable HTTP; `bearer_token_env_var`,
//! `env_http_headers` become `${VAR}` headers; `startup_timeout_sec` (float) / `_ms` → `timeout`;
//! `enabled_tools` / `disabled_tools` / `tool_timeout_sec` → `enabledTools` / `disabledTools` /
//! `toolTimeout`.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Map, Value};

use super::builtin::BuiltinSource;
use super::fields::{seconds, string, string_list, string_map};
use super::files::{dedup_paths, walked};
use super::variables::var_ref;
use crate::context::DiscoveryContext;
use crate::error::{ConfigError, ShapeProblem};
use crate::origin::Level;
use crate::problems::EntryProblem;
use crate::raw_entry::RawServerConfig;
use crate::read_pass::read_config_file;
use crate::server_config::ServerConfig;
use crate::source::{FileServers, SourceFile, parse_toml};

/// Codex (CLI, IDE extension and app share one configuration): `.codex/config.toml` in the
/// working folder and each parent up to the repository root (the nearer first, as Codex layers
/// them), then `$CODEX_HOME/config.toml` (`~/.codex/config.toml` by default).
///
/// Each `[mcp_servers.<name>]` table converts as follows:
///
/// | Codex key | here |
/// |---|---|
/// | `command`, `args`, `env` (table), `cwd` | the same fields |
/// | `url` | `url`, `type = "http"` (Codex speaks Streamable HTTP) |
/// | `http_headers` (table) | `headers` |
/// | `env_http_headers` (header → variable name) | `headers`, value `${VAR}` |
/// | `bearer_token_env_var` | `Authorization: Bearer ${VAR}` |
/// | `startup_timeout_sec` (may be fractional; wins) / `startup_timeout_ms` | `timeout` in ms |
/// | `enabled` | `enabled` |
/// | `enabled_tools` / `disabled_tools` (lists) | `enabledTools` / `disabledTools` |
/// | `tool_timeout_sec` (may be fractional) | `toolTimeout` in ms |
/// | `env_vars`, … | `extra`, as written |
///
/// An inline `bearer_token` makes the entry invalid, as it does in Codex. A TOML syntax error is
/// the file's [`ConfigError::Parse`] with format `TOML`.
pub const CODEX: BuiltinSource = BuiltinSource::new("codex", "Codex", load).documented(
    "`.codex/config.toml` of each walked folder; `$CODEX_HOME/config.toml`",
    "openai/codex `codex-rs/core/src/config_loader/mod.rs` (b9813040)",
);

/// Reads the files: see [`CODEX`].
fn load(ctx: &DiscoveryContext) -> Vec<SourceFile> {
    let codex_home = ctx
        .path_var("CODEX_HOME")
        .unwrap_or_else(|| ctx.home.join(".codex"));
    let mut paths = walked(ctx, ".codex/config.toml");
    paths.push((codex_home.join("config.toml"), Level::User));
    dedup_paths(&mut paths);
    paths
        .into_iter()
        .filter_map(|(path, level)| {
            let contents = match read_config_file(&path) {
                Ok(None) => return None,
                Ok(Some(text)) => parse_file(&path, &text),
                Err(error) => Err(error),
            };
            Some(SourceFile::new(path, level, contents))
        })
        .collect()
}

/// Parses one `config.toml` and converts its `mcp_servers`.
fn parse_file(path: &Path, text: &str) -> Result<FileServers, ConfigError> {
    let root = parse_toml(path, text)?;
    let mut file = FileServers::default();
    match root.get("mcp_servers") {
        None => {}
        Some(toml::Value::Table(servers)) => {
            for (name, entry) in servers {
                file.push(name, convert(entry));
            }
        }
        Some(_) => {
            return Err(ConfigError::shape(
                path,
                ShapeProblem::NotATableOfServers {
                    key: "mcp_servers".to_owned(),
                },
            ));
        }
    }
    Ok(file)
}

/// Converts one `[mcp_servers.<name>]` table.
fn convert(entry: &toml::Value) -> Result<ServerConfig, EntryProblem> {
    let toml::Value::Table(table) = entry else {
        return Err(EntryProblem::NotATable);
    };
    let mut config = RawServerConfig::default();
    let mut startup_sec = None;
    let mut startup_ms = None;
    let mut bearer_var = None;
    let mut env_headers = BTreeMap::new();
    for (key, value) in table {
        let value = &to_json(value);
        match key.as_str() {
            "command" => config.command = Some(string(key, value)?),
            "args" => config.args = string_list(key, Some(value))?,
            "env" => config.env = string_map(key, value, "a table")?,
            "cwd" => config.cwd = Some(string(key, value)?),
            "url" => config.url = Some(string(key, value)?),
            "http_headers" => config.headers.extend(string_map(key, value, "a table")?),
            "env_http_headers" => env_headers = string_map(key, value, "a table")?,
            "bearer_token_env_var" => bearer_var = Some(string(key, value)?),
            "bearer_token" => return Err(EntryProblem::InlineBearerToken),
            "enabled_tools" => {
                let names = string_list(key, Some(value))?;
                config
                    .extra
                    .insert("enabledTools".to_owned(), Value::from(names));
            }
            "disabled_tools" => {
                let names = string_list(key, Some(value))?;
                config
                    .extra
                    .insert("disabledTools".to_owned(), Value::from(names));
            }
            "tool_timeout_sec" => {
                let millis = seconds(key, value)?;
                config
                    .extra
                    .insert("toolTimeout".to_owned(), Value::from(millis));
            }
            "startup_timeout_sec" => startup_sec = Some(seconds(key, value)?),
            "startup_timeout_ms" => startup_ms = Some(whole(key, value)?),
            "enabled" => {
                config.enabled = Some(
                    value
                        .as_bool()
                        .ok_or(EntryProblem::NotBoolean { key: "enabled" })?,
                );
            }
            _ => {
                config.extra.insert(key.clone(), value.clone());
            }
        }
    }
    for (header, variable) in env_headers {
        config.headers.insert(header, var_ref(&variable));
    }
    if let Some(variable) = bearer_var {
        config.headers.insert(
            "Authorization".to_owned(),
            format!("Bearer {}", var_ref(&variable)),
        );
    }
    config.timeout = startup_sec.or(startup_ms);
    if config.url.is_some() && config.command.is_none() {
        config.transport = Some("http".to_owned());
    }
    config.into_config()
}

fn whole(key: &str, value: &Value) -> Result<u64, EntryProblem> {
    value
        .as_u64()
        .ok_or_else(|| EntryProblem::NotWholeMilliseconds {
            key: key.to_owned(),
        })
}

/// A TOML value as JSON, for `extra`; dates become their TOML text.
fn to_json(value: &toml::Value) -> Value {
    match value {
        toml::Value::String(text) => Value::String(text.clone()),
        toml::Value::Integer(number) => Value::from(*number),
        toml::Value::Float(number) => serde_json::Number::from_f64(*number)
            .map_or_else(|| Value::String(number.to_string()), Value::Number),
        toml::Value::Boolean(flag) => Value::Bool(*flag),
        toml::Value::Datetime(date) => Value::String(date.to_string()),
        toml::Value::Array(items) => Value::Array(items.iter().map(to_json).collect()),
        toml::Value::Table(table) => Value::Object(
            table
                .iter()
                .map(|(key, item)| (key.clone(), to_json(item)))
                .collect::<Map<String, Value>>(),
        ),
    }
}
