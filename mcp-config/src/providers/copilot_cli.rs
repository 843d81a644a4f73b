//! GitHub Copilot CLI: `mcpServers` in `.mcp.json` and `.github/mcp.json` of every folder from
//! the working folder up to the repository root, and in the user's `~/.copilot/mcp-config.json`.
//!
//! Written from GitHub's documentation, github/docs
//! `content/copilot/how-tos/copilot-cli/customize-copilot/add-mcp-servers.md` (commit
//! 091100a4315b125650e65f6567256fce35d0d605) and
//! `content/copilot/reference/copilot-cli-reference/cli-command-reference.md` (commit
//! 046d26799c8dcf0ce012cb6f2151e1edd62e30d9), sections "MCP server configuration", "MCP server
//! loading priority" and "Headless OAuth":
//!
//! - the user file is `~/.copilot/mcp-config.json`; the `~/.copilot` folder is the one
//!   `$COPILOT_HOME` names when that is set;
//! - the project files are `.mcp.json` and `.github/mcp.json`: "the CLI walks from your current
//!   working directory up to the repository root, loading every `.mcp.json` it finds along the
//!   way", a file closer to the working folder wins a name, and the project's files win over the
//!   user's. They are listed here nearest folder first, then the user file;
//! - an entry's `type` is `local` or `stdio` (the default: `local`), `http` (Streamable HTTP;
//!   `streamable-http` is accepted for it) or `sse`; `command`, `args`, `env`, `cwd`; `url`,
//!   `headers`;
//! - `tools` lists the tools offered: `["*"]` is every tool (no filter here), a list of names is
//!   our `enabledTools` allow-list, `[]` offers none;
//! - `timeout`, in milliseconds, bounds "tool discovery and tool calls" (our `toolTimeout`);
//!   it is also the connection budget, "floored at 60000 ms" (our `timeout` is that: the value,
//!   or 60 000 when it is smaller or not written);
//! - `oauthClientId` is a static OAuth client (our OAuth settings with that `clientId`);
//!   `oauthGrantType: "client_credentials"` is the headless grant (our `clientCredentials`,
//!   which needs the client's secret: Copilot keeps it in the system keychain, so here it must
//!   be added to the entry's `auth` as `clientSecret`, or the server fails saying so);
//!   `oauthScopes`, `oauthPublicClient`, `oidc`, `deferTools`, `disableToolCache`,
//!   `slowConnectionThresholdMs`, `filterMapping` and any other key are kept in `extra`;
//! - `env` supports `$VAR`, `${VAR}` and `${VAR:-default}`, and headers "support variable
//!   expansion": a bare `$VAR` in an `env` or header value becomes `${VAR}`. Other fields are
//!   kept as written.
//!
//! Decided where the documentation is silent or contradicts itself:
//!
//! - the reference marks `tools` required, yet the project file example of the how-to omits
//!   it; Copilot CLI treats a missing `tools` as every tool (older releases refused the entry,
//!   github/copilot-cli#192; CooperAgent/cooper#352 matched the CLI's later default of all
//!   tools). Here a missing `tools` is every tool, as a list holding `"*"` anywhere is (as the
//!   reference says of an agent's `tools`);
//! - the reference also marks `args` required for a local server; an entry without it is read
//!   with no arguments (the same `.mcp.json` is Claude Code's, where `args` is optional);
//! - a `url` without `type` is read as `http` (Streamable HTTP, falling back to legacy SSE),
//!   where Copilot CLI would take the default `local` type and refuse the entry;
//! - in one folder `.mcp.json` ("local or per-checkout configuration") is listed before
//!   `.github/mcp.json` ("shared configuration that is committed"), the local file winning;
//! - `disabled: true` switches a server off (Copilot CLI's `copilot mcp disable` writes the
//!   user's configuration, in a field the documentation does not name).
//!
//! `.mcp.json` is also the project file of Claude Code, Qwen Code and VS Code. Discovery reads
//! it once, under the highest-priority of them that is on (Claude Code, by default), naming
//! the others in the servers' source; this reading of it counts when that is Copilot CLI.
//!
//! Project files, seen from a subfolder: Copilot CLI's rule is `.mcp.json` and `.github/mcp.json`
//! in every folder from the working folder up to the repository root, the closer file winning
//! (github/docs `add-mcp-servers.md`, commit 091100a4315b125650e65f6567256fce35d0d605). Read here:
//! every folder of the walk, nearer first.
//!
//! Format, in brief: strict JSON, `mcpServers`; `type` `local`/`stdio`/`http`/`sse`; `tools`
//! (`["*"]` all) → `enabledTools`; `timeout` in ms → `toolTimeout` (and `timeout`, at least 60 s);
//! `oauthClientId` → OAuth settings; `$VAR` in `env` and headers → `${VAR}`.

use std::path::PathBuf;

use serde_json::{Map, Value};

use super::builtin::BuiltinSource;
use super::fields::{
    json_millis, normalize_transport_name, standard_with_disabled, string, string_list,
};
use super::files::{load_servers, walked};
use super::variables::dollar_vars;
use crate::context::DiscoveryContext;
use crate::origin::Level;
use crate::problems::EntryProblem;
use crate::server_config::{DEFAULT_TIMEOUT_MS, ServerConfig};
use crate::source::{SourceFile, parse_json};

/// The least time Copilot CLI gives a server to connect, whatever its `timeout`.
const CONNECT_FLOOR_MS: u64 = 60_000;

/// GitHub Copilot CLI: `.mcp.json` and `.github/mcp.json` of each folder from the working folder
/// up to the repository root (the nearer first, `.mcp.json` before `.github/mcp.json` in one
/// folder), then `$COPILOT_HOME/mcp-config.json` (`~/.copilot/mcp-config.json` by default).
/// Strict JSON, servers under `mcpServers`.
///
/// `type` `local` (the default) or `stdio` → `stdio`, `http` or `streamable-http` → `http`,
/// `sse`; `command`, `args`, `env`, `cwd`, `url`, `headers`; a `url` without `type` is `http`.
/// `tools`: a list of names → `enabledTools`, `["*"]` (or no `tools`) → every tool. `timeout`
/// in ms → `toolTimeout`, and `timeout` raised to at least 60 000 (Copilot's floor for
/// connecting). `oauthClientId` → OAuth settings with that client (`oauthGrantType`
/// `client_credentials` → the `clientCredentials` grant); `oauthScopes`, `deferTools`, … kept
/// in `extra`; `disabled: true` → `enabled: false`. A bare `$VAR` in an `env` or header value
/// becomes `${VAR}`.
pub const COPILOT_CLI: BuiltinSource =
    BuiltinSource::new("copilot-cli", "Copilot CLI", load).documented(
        "`.mcp.json`, `.github/mcp.json` of each walked folder; `$COPILOT_HOME/mcp-config.json` (default `~/.copilot`)",
        "github/docs `add-mcp-servers.md` (091100a4), `cli-command-reference.md` (046d2679)",
    );

/// Reads the files: see [`COPILOT_CLI`].
fn load(ctx: &DiscoveryContext) -> Vec<SourceFile> {
    // Folder by folder, nearest first; in each, `.mcp.json` before `.github/mcp.json`.
    let mut paths: Vec<(PathBuf, Level)> = walked(ctx, ".mcp.json")
        .into_iter()
        .zip(walked(ctx, ".github/mcp.json"))
        .flat_map(|(local, shared)| [local, shared])
        .collect();
    paths.push((user_file(ctx), Level::User));
    load_servers(paths, parse_json, "mcpServers", convert)
}

/// `$COPILOT_HOME/mcp-config.json`, else `~/.copilot/mcp-config.json`.
fn user_file(ctx: &DiscoveryContext) -> PathBuf {
    ctx.path_var("COPILOT_HOME")
        .unwrap_or_else(|| ctx.home.join(".copilot"))
        .join("mcp-config.json")
}

/// One `mcpServers` entry of Copilot's portable format (also VS Code's root `.mcp.json`).
pub(super) fn convert(entry: &Value) -> Result<ServerConfig, EntryProblem> {
    let Some(object) = entry.as_object() else {
        return Err(EntryProblem::NotAnObject);
    };
    let mut object = object.clone();
    if object.get("type").and_then(Value::as_str) == Some("local") {
        object.insert("type".to_owned(), Value::from("stdio"));
    }
    normalize_transport_name(&mut object, "type");
    if object.contains_key("url") && !object.contains_key("type") {
        object.insert("type".to_owned(), Value::from("http"));
    }
    if let Some(tools) = object.remove("tools") {
        let names = string_list("tools", Some(&tools))?;
        if !names.iter().any(|name| name == "*") {
            object.insert("enabledTools".to_owned(), Value::from(names));
        }
    }
    let written = object
        .remove("timeout")
        .map(|value| json_millis(&value, "timeout"))
        .transpose()?;
    if let Some(millis) = written {
        object.insert("toolTimeout".to_owned(), Value::from(millis));
    }
    oauth_client(&mut object)?;
    let mut config = standard_with_disabled(&Value::Object(object))?;
    // The connection budget is floored whether or not `timeout` is written.
    config.timeout = Some(written.unwrap_or(DEFAULT_TIMEOUT_MS).max(CONNECT_FLOOR_MS));
    for (field, value) in config.transport.expandable_values_mut() {
        if field.starts_with("env.") || field.starts_with("headers.") {
            *value = dollar_vars(value);
        }
    }
    Ok(config)
}

/// `oauthClientId` (and `oauthGrantType`) as our `auth` block: a new one, or the entry's own
/// `auth` object (where a user adds the `clientSecret` Copilot keeps in the keychain) with
/// what it does not set itself.
fn oauth_client(object: &mut Map<String, Value>) -> Result<(), EntryProblem> {
    let Some(client_id) = object.remove("oauthClientId") else {
        return Ok(());
    };
    let client_id = string("oauthClientId", &client_id)?;
    let grant = match object.remove("oauthGrantType") {
        None | Some(Value::Null) => None,
        Some(Value::String(grant)) if grant == "authorization_code" => None,
        Some(Value::String(grant)) if grant == "client_credentials" => {
            Some(Value::from("clientCredentials"))
        }
        // Any other grant is passed on as written: the OAuth settings name it when refusing it.
        Some(other) => Some(other),
    };
    let mut auth = match object.remove("auth") {
        None => Map::new(),
        Some(Value::Object(auth)) => auth,
        // Not an object: left for the entry's own error.
        Some(other) => {
            object.insert("auth".to_owned(), other);
            return Ok(());
        }
    };
    auth.entry("type").or_insert_with(|| Value::from("oauth"));
    auth.entry("clientId")
        .or_insert_with(|| Value::from(client_id));
    if let Some(grant) = grant {
        auth.entry("grant").or_insert(grant);
    }
    object.insert("auth".to_owned(), Value::Object(auth));
    Ok(())
}
