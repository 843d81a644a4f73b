//! Zed: `context_servers` in Zed's settings, the user's and the worktree's.
//!
//! Written from Zed's source, zed-industries/zed: `crates/paths/src/paths.rs` (commit 010c9b6f:
//! `config_dir`, `settings_file`, `local_settings_file_relative_path`),
//! `crates/settings_content/src/project.rs` (commit 006ce515: `ContextServerSettingsContent`,
//! `context_server_timeout`), `crates/project/src/context_server_store.rs`
//! (`resolve_project_settings`, `MAX_TIMEOUT_SECS`) and the migrations
//! `m_2025_06_27::flatten_context_server_command` and `m_2025_11_25::remove_context_server_source`:
//!
//! - the user file is `$FLATPAK_XDG_CONFIG_HOME/zed/settings.json` when that is set, else
//!   `<XDG config dir>/zed/settings.json` (`~/.config/zed/settings.json`, macOS included), and
//!   `%APPDATA%\Zed\settings.json` on Windows; the project file is `.zed/settings.json` at the
//!   root of the worktree Zed opened, and only there (no walk, no nested files);
//! - JSON with comments;
//! - an entry is, in the order serde tries them: stdio (`command`, `args`, `env`, `enabled`,
//!   `remote`, `timeout`), remote (`url`, `headers`, `timeout`, `oauth: {client_id,
//!   client_secret}`; Streamable HTTP, Zed running the OAuth flow when there is no
//!   `Authorization` header), or one a Zed extension provides (`settings` only), whose command
//!   the extension supplies: that one is listed as invalid here, saying why;
//! - the older nested `"command": {"path", "args", "env"}` and the removed `"source"` key are
//!   still read, as Zed's migrations read them;
//! - `timeout` is in seconds (at most 600), with `context_server_timeout` at the top of the file
//!   as every entry's default; `enabled: false` switches a server off.
//!
//! Zed expands no variables in these values; a `${VAR}` written there is expanded by discovery
//! here as everywhere. Zed's per-profile tool switches (`agent.profiles.<p>.context_servers`)
//! are not a per-server setting and are not read.
//!
//! Project files, seen from a subfolder: Zed's rule is `.zed/settings.json` at the root of the
//! first visible worktree (`context_server_store.rs` `resolve_project_settings`). Read here: the
//! working folder; a file above is a note.
//!
//! Format, in brief: JSON with comments, `context_servers`; `command` (or nested `{path,args,env}`)
//! → stdio, `url` → Streamable HTTP, neither → extension-provided (invalid here); `timeout` in
//! seconds.

use serde_json::{Map, Value};

use super::builtin::BuiltinSource;
use super::fields::{single_timeout_in_seconds, standard_with_disabled};
use super::files::{dedup_paths, load_file};
use crate::context::DiscoveryContext;
use crate::origin::Level;
use crate::problems::EntryProblem;
use crate::server_config::ServerConfig;
use crate::source::{SourceFile, parse_jsonc, servers_under_key};

/// The longest timeout Zed allows, in seconds.
const MAX_TIMEOUT_SECS: u64 = 600;

/// Zed: the working folder's `.zed/settings.json` (Zed reads the worktree root's only; one found
/// above is a note), then `$FLATPAK_XDG_CONFIG_HOME` or `<config dir>/zed/settings.json` (and
/// `%APPDATA%/Zed/settings.json`). JSON with comments, key `context_servers`.
///
/// An entry with `command` (a string, or the older `{path, args, env}` object) is stdio; one
/// with `url` and `headers` is Streamable HTTP, its `oauth: {client_id, client_secret}` the
/// OAuth client; one with neither is provided by a Zed extension and is invalid here, saying
/// so. `enabled`; `timeout` in seconds (at most 600; `context_server_timeout` is the file's
/// default) → `timeout` and `toolTimeout`; `remote` and `settings` kept in `extra`.
pub const ZED: BuiltinSource = BuiltinSource::new("zed", "Zed", load)
    .here_only(
        &[".zed/settings.json"],
        "Zed reads it only at the root of the worktree it opens",
    )
    .documented(
        "`<cwd>/.zed/settings.json`; `<config dir>/zed/settings.json`",
        "zed-industries/zed `crates/settings_content/src/project.rs` (006ce515)",
    );

/// Reads the files: see [`ZED`].
fn load(ctx: &DiscoveryContext) -> Vec<SourceFile> {
    let user_dir = ctx
        .path_var("FLATPAK_XDG_CONFIG_HOME")
        .unwrap_or_else(|| ctx.config_dir.clone());
    let mut paths = vec![
        (ctx.cwd().join(".zed").join("settings.json"), Level::Project),
        (user_dir.join("zed").join("settings.json"), Level::User),
    ];
    if let Some(app_data) = ctx.path_var("APPDATA") {
        let file = app_data.join("Zed").join("settings.json");
        paths.push((file, Level::User));
    }
    dedup_paths(&mut paths);
    paths
        .into_iter()
        .filter_map(|(path, level)| {
            load_file(&path, level, parse_jsonc, |path, root| {
                let default_timeout = root.get("context_server_timeout").cloned();
                servers_under_key(path, root, "context_servers", |_, entry| {
                    convert(entry, default_timeout.as_ref())
                })
            })
        })
        .collect()
}

fn convert(entry: &Value, default_timeout: Option<&Value>) -> Result<ServerConfig, EntryProblem> {
    let Some(object) = entry.as_object() else {
        return Err(EntryProblem::NotAnObject);
    };
    let mut object = object.clone();
    object.remove("source");
    flatten_nested_command(&mut object);
    if !object.contains_key("command") {
        if !object.contains_key("url") {
            return Err(EntryProblem::ExtensionProvided { tool: "Zed" });
        }
        object.insert("type".to_owned(), Value::from("http"));
        if let Some(Value::Object(oauth)) = object.remove("oauth") {
            let mut auth = Map::new();
            auth.insert("type".to_owned(), Value::from("oauth"));
            for (zed, ours) in [("client_id", "clientId"), ("client_secret", "clientSecret")] {
                if let Some(value) = oauth.get(zed) {
                    auth.insert(ours.to_owned(), value.clone());
                }
            }
            object.insert("auth".to_owned(), Value::Object(auth));
        }
    }
    if !object.contains_key("timeout")
        && let Some(default) = default_timeout
    {
        object.insert("timeout".to_owned(), default.clone());
    }
    if let Some(seconds) = object.get("timeout").and_then(Value::as_f64)
        && seconds > MAX_TIMEOUT_SECS as f64
    {
        object.insert("timeout".to_owned(), Value::from(MAX_TIMEOUT_SECS));
    }
    single_timeout_in_seconds(&mut object, "timeout")?;
    standard_with_disabled(&Value::Object(object))
}

/// The older `"command": {"path", "args", "env"}` as the flat `command`, `args`, `env`.
fn flatten_nested_command(object: &mut Map<String, Value>) {
    let Some(Value::Object(nested)) = object.get("command") else {
        return;
    };
    let nested = nested.clone();
    object.remove("command");
    if let Some(path) = nested.get("path") {
        object.insert("command".to_owned(), path.clone());
    }
    for key in ["args", "env"] {
        if let Some(value) = nested.get(key)
            && !object.contains_key(key)
        {
            object.insert(key.to_owned(), value.clone());
        }
    }
}
