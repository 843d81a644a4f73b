//! OpenCode: the `mcp` key of `opencode.json` / `opencode.jsonc`, in the working folder and each
//! parent up to the repository root (and in their `.opencode/` folders), then the user's.
//!
//! Project files, seen from a subfolder: OpenCode's rule is `opencode.json(c)` found up to the Git
//! worktree root and merged farthest first (the nearer wins), then the `.opencode/` folders found
//! on the way up, merged nearest first (anomalyco/opencode
//! `packages/opencode/src/config/config.ts`, `Filesystem.findUp` / `Filesystem.up`, commit
//! 002d98228613564f11f641b36448ba629669281f). Read here: every folder of the walk, in that order.
//!
//! Format, in brief: JSON with comments, key `mcp` (or `mcp.servers`); `local` with a `command`
//! array and `environment`, `remote` with `url`/`headers`; `{env:VAR}` → `${VAR}`.

use std::path::Path;

use serde_json::Value;

use super::builtin::BuiltinSource;
use super::fields::{apply_disabled_flag, json_millis, string_list, string_map};
use super::files::{dedup_paths, load_file, walked};
use super::variables::{rewrite_fields, var_ref};
use crate::context::DiscoveryContext;
use crate::error::ConfigError;
use crate::origin::Level;
use crate::placeholder::Rejected;
use crate::placeholder::is_variable_name;
use crate::problems::{EntryProblem, PlaceholderProblem};
use crate::raw_entry::RawServerConfig;
use crate::server_config::{AuthConfig, ServerConfig};
use crate::source::{FileServers, SourceFile, parse_jsonc, servers_under_key};

/// OpenCode, highest first: `.opencode/opencode.json` and `.opencode/opencode.jsonc` of each
/// folder from the repository root down to the working folder, then `opencode.json` and
/// `opencode.jsonc` of each folder from the working folder up to the repository root (OpenCode
/// looks up to the Git worktree root); then the file named by `$OPENCODE_CONFIG`; then
/// `<config dir>/opencode/opencode.jsonc`, `opencode.json` and the legacy `config.json` (OpenCode
/// merges them in the reverse order, the last one winning). All are JSON with comments.
///
/// Entries under `mcp` (or `mcp.servers` in the newer layout):
///
/// - `{"type": "local", "command": ["bin", "arg", …], "environment": {…}}`: the first element of
///   `command` is the program, the rest its arguments; `environment` becomes `env`;
/// - `{"type": "remote", "url": …, "headers": {…}}`: Streamable HTTP with SSE fallback
///   (`type = "http"`); an `oauth` object becomes OAuth settings, `oauth: false` stays in
///   `extra`;
/// - `enabled` (or the newer `disabled`), `timeout` in ms, `cwd`; anything else is kept in
///   `extra`.
///
/// OpenCode's `{env:VAR}` becomes `${VAR}`; a `{file:path}` value makes the server invalid (the
/// runtime does not read values from files).
pub const OPENCODE: BuiltinSource = BuiltinSource::new("opencode", "OpenCode", load)
    .documented(
        "`.opencode/opencode.json(c)`, `opencode.json(c)` of each walked folder; `$OPENCODE_CONFIG`; `<config dir>/opencode/opencode.json(c)`",
        "anomalyco/opencode `packages/opencode/src/config/config.ts` (002d9822)",
    );

/// Reads the files: see [`OPENCODE`].
fn load(ctx: &DiscoveryContext) -> Vec<SourceFile> {
    // OpenCode merges, lowest first: `opencode.jsonc` then `opencode.json` of each folder from
    // the repository root down to the working folder, then the `.opencode/` folders from the
    // working folder up to the root. Here, highest first, that order reversed.
    let mut paths = Vec::new();
    let mut dot_dirs = walked(ctx, ".opencode/opencode.json");
    dot_dirs.reverse();
    for (json, level) in dot_dirs {
        paths.push((json.clone(), level));
        paths.push((json.with_file_name("opencode.jsonc"), level));
    }
    for (json, level) in walked(ctx, "opencode.json") {
        paths.push((json.clone(), level));
        paths.push((json.with_file_name("opencode.jsonc"), level));
    }
    if let Some(custom) = ctx.path_var("OPENCODE_CONFIG") {
        paths.push((custom, Level::User));
    }
    let global = ctx.config_dir.join("opencode");
    for name in ["opencode.jsonc", "opencode.json", "config.json"] {
        paths.push((global.join(name), Level::User));
    }
    dedup_paths(&mut paths);
    paths
        .into_iter()
        .filter_map(|(path, level)| load_file(&path, level, parse_jsonc, convert_file))
        .collect()
}

fn convert_file(path: &Path, root: &Value) -> Result<FileServers, ConfigError> {
    let servers_layout = root
        .get("mcp")
        .and_then(|mcp| mcp.get("servers"))
        .is_some_and(|servers| servers.is_object() && !looks_like_server(servers));
    if servers_layout {
        let mcp = root.get("mcp").unwrap_or(&Value::Null);
        servers_under_key(path, mcp, "servers", |_, entry| convert(entry))
    } else {
        servers_under_key(path, root, "mcp", |_, entry| convert(entry))
    }
}

/// An object that is a server definition (so `mcp.servers` is a server named "servers").
fn looks_like_server(value: &Value) -> bool {
    matches!(
        value.get("type").and_then(Value::as_str),
        Some("local" | "remote")
    )
}

/// Converts one OpenCode server.
fn convert(entry: &Value) -> Result<ServerConfig, EntryProblem> {
    let Some(object) = entry.as_object() else {
        return Err(EntryProblem::NotAnObject);
    };
    let mut config = RawServerConfig::default();
    match object.get("type").and_then(Value::as_str) {
        Some("local") => {
            let command = string_list("command", object.get("command"))?;
            let Some((program, args)) = command.split_first() else {
                return Err(EntryProblem::NoProgram);
            };
            config.command = Some(program.clone());
            config.args = args.to_vec();
            config.transport = Some("stdio".to_owned());
        }
        Some("remote") => {
            let url = object.get("url").and_then(Value::as_str);
            config.url = Some(url.ok_or(EntryProblem::RemoteWithoutUrl)?.to_owned());
            config.transport = Some("http".to_owned());
        }
        _ => return Err(EntryProblem::LocalOrRemote),
    }
    for (key, value) in object {
        match key.as_str() {
            "type" | "command" | "url" => {}
            "environment" | "env" => config.env.extend(string_map(key, value, "an object")?),
            "headers" => config.headers = string_map(key, value, "an object")?,
            "cwd" => {
                config.cwd = Some(
                    value
                        .as_str()
                        .ok_or_else(|| EntryProblem::NotString {
                            key: "cwd".to_owned(),
                        })?
                        .to_owned(),
                );
            }
            "enabled" => {
                config.enabled = Some(
                    value
                        .as_bool()
                        .ok_or(EntryProblem::NotBoolean { key: "enabled" })?,
                );
            }
            "timeout" => config.timeout = Some(json_millis(value, "timeout")?),
            "oauth" if value.is_object() => {
                let mut auth = AuthConfig::oauth();
                auth.extra = value.as_object().cloned().unwrap_or_default();
                config.auth = Some(auth);
            }
            _ => {
                config.extra.insert(key.clone(), value.clone());
            }
        }
    }
    let mut config = config.into_config()?;
    apply_disabled_flag(&mut config);
    rewrite_fields(&mut config, &mut opencode_vars)?;
    Ok(config)
}

/// `{env:VAR}` → `${VAR}`; `{file:…}` cannot be carried over.
fn opencode_vars(text: &str) -> Result<String, Rejected<PlaceholderProblem>> {
    if !text.contains("{env:") && !text.contains("{file:") {
        return Ok(text.to_owned());
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find('{') {
        out.push_str(&rest[..start]);
        let after = &rest[start..];
        let end = after.find('}');
        match end {
            Some(end) if after.starts_with("{env:") && is_variable_name(&after[5..end]) => {
                out.push_str(&var_ref(&after[5..end]));
                rest = &after[end + 1..];
            }
            Some(end) if after.starts_with("{file:") => {
                return Err(Rejected {
                    placeholder: after[..=end].to_owned(),
                    reason: PlaceholderProblem::FromFile { tool: "OpenCode" },
                });
            }
            _ => {
                out.push('{');
                rest = &after[1..];
            }
        }
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_placeholders_are_translated_and_file_ones_refused() {
        assert_eq!(
            opencode_vars("Bearer {env:TOKEN}").unwrap(),
            "Bearer ${TOKEN}"
        );
        assert_eq!(
            opencode_vars("{a} {env:} {env:X").unwrap(),
            "{a} {env:} {env:X"
        );
        assert_eq!(opencode_vars("${KEEP}").unwrap(), "${KEEP}");
        let error = opencode_vars("{file:~/.secrets/key}")
            .unwrap_err()
            .to_string();
        assert!(error.starts_with("uses {file:~/.secrets/key}:"), "{error}");
    }
}
