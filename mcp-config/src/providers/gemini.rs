//! Gemini CLI: `mcpServers` in `.gemini/settings.json`. Qwen Code, a fork of Gemini CLI, reads
//! its files and entries through [`load_settings`] too, in its [`Dialect`].
//!
//! Project files, seen from a subfolder: Gemini CLI's rule is `.gemini/settings.json` of the
//! workspace folder (the working folder) only (google-gemini/gemini-cli
//! `packages/cli/src/config/settings.ts`, `loadSettings`, commit
//! 0038e45d372126f57277fad49086b88b4d3efd91). Read here: the working folder; a file above is a
//! note.
//!
//! Format, in brief: JSON with comments, `mcpServers`; `httpUrl` is Streamable HTTP, `url` is HTTP
//! with SSE fallback unless `type` says which; `$VAR` → `${VAR}`; `mcp.allowed` / `mcp.excluded`
//! switch servers off; `includeTools` / `excludeTools` → `enabledTools` / `disabledTools`,
//! `timeout` is also `toolTimeout`.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::builtin::BuiltinSource;
use super::fields::{json_millis, standard_with_disabled};
use super::files::{dedup_paths, name_list, read_parsed};
use super::variables::{dollar_vars, rewrite_fields};
use crate::context::DiscoveryContext;
use crate::error::ConfigError;
use crate::origin::Level;
use crate::problems::EntryProblem;
use crate::server_config::ServerConfig;
use crate::source::{FileServers, SourceFile, parse_jsonc, servers_under_key};

/// Where a tool descended from Gemini CLI reads an entry differently.
#[derive(Clone, Copy)]
pub(super) struct Dialect {
    /// The transport of a `url` without `type`: `http` in Gemini CLI (which tries Streamable
    /// HTTP and falls back to SSE), `sse` in Qwen Code (whose `url` is the SSE endpoint).
    pub(super) bare_url: &'static str,
    /// The key of a connect timeout of its own, in milliseconds (Qwen Code's
    /// `discoveryTimeoutMs`, its `timeout` bounding tool calls only); `None` when `timeout`
    /// bounds every request, the handshake included (Gemini CLI).
    pub(super) connect_timeout_key: Option<&'static str>,
    /// Whether `mcp.allowed` / `mcp.excluded` hold glob patterns (`*`, `?`), as Qwen Code's do,
    /// or plain names, as Gemini CLI's do.
    pub(super) name_patterns: bool,
}

/// Gemini CLI's own reading.
const GEMINI_CLI: Dialect = Dialect {
    bare_url: "http",
    connect_timeout_key: None,
    name_patterns: false,
};

/// Gemini CLI: the working folder's `.gemini/settings.json` (Gemini CLI reads the workspace
/// folder's only; one found above is a note), then `~/.gemini/settings.json` (JSON with
/// comments, as Gemini CLI strips them).
///
/// `mcpServers` entries: `command`, `args`, `env`, `cwd`; `httpUrl` (Streamable HTTP, the older
/// key), or `url` with an optional `type` (`http` / `sse`; without it Gemini CLI tries
/// Streamable HTTP and falls back to SSE, which is what `type = "http"` does here); `headers`;
/// `timeout` in ms; `trust`, `includeTools`, `excludeTools`, `oauth`, … kept in `extra`.
/// Gemini CLI expands `$VAR` as well as `${VAR}`: bare `$VAR` becomes `${VAR}`.
///
/// Servers named in `mcp.excluded`, or missing from `mcp.allowed` when a file sets it, are
/// switched off (`enabled: false`), as Gemini CLI does not start them.
pub const GEMINI: BuiltinSource = BuiltinSource::new("gemini", "Gemini CLI", load)
    .here_only(
        &[".gemini/settings.json"],
        "Gemini CLI reads it only in the folder it starts in",
    )
    .documented(
        "`<cwd>/.gemini/settings.json`; `~/.gemini/settings.json`",
        "google-gemini/gemini-cli `packages/cli/src/config/settings.ts` (0038e45d)",
    );

/// Reads the files: see [`GEMINI`].
fn load(ctx: &DiscoveryContext) -> Vec<SourceFile> {
    let paths = vec![
        (
            ctx.cwd().join(".gemini").join("settings.json"),
            Level::Project,
        ),
        (ctx.home.join(".gemini").join("settings.json"), Level::User),
    ];
    load_settings(paths, None, GEMINI_CLI)
}

/// Reads `paths` (JSON with comments, highest first, a later duplicate dropped): the servers
/// of each under `mcpServers`, then switches off every server that `mcp.excluded` names, or
/// that an `mcp.allowed` leaves out. The user's lists govern every server, the project's own
/// only the project's servers: a cloned repository's settings never switch off (nor let
/// through) a server of the user's. `servers_only` is a file whose `mcp` key is not a setting
/// of the tool's (Qwen Code's `.mcp.json`, which holds servers only).
pub(super) fn load_settings(
    mut paths: Vec<(PathBuf, Level)>,
    servers_only: Option<&Path>,
    dialect: Dialect,
) -> Vec<SourceFile> {
    dedup_paths(&mut paths);
    let mut user_lists = ServerLists::default();
    let mut project_lists = ServerLists::default();
    let mut files: Vec<SourceFile> = Vec::new();
    for (path, level) in paths {
        let Some(root) = read_parsed(&path, parse_jsonc) else {
            continue;
        };
        let lists = match level {
            Level::Project => Some(&mut project_lists),
            Level::User | Level::Managed => Some(&mut user_lists),
        }
        .filter(|_| servers_only != Some(path.as_path()));
        let contents = root.and_then(|root| {
            // The lists first: a file whose servers cannot be read still switches others off
            // (running a server the user excluded would be worse than not loading the file).
            if let Some(lists) = lists {
                lists.read(&path, &root, dialect)?;
            }
            servers_under_key(&path, &root, "mcpServers", |_, entry| {
                convert(entry, dialect)
            })
        });
        files.push(SourceFile::new(path, level, contents));
    }
    let mut steps = MATCH_STEPS;
    for file in &mut files {
        if let Ok(contents) = file.contents.as_mut() {
            user_lists.apply(contents, &mut steps);
            if file.level == Level::Project {
                project_lists.apply(contents, &mut steps);
            }
        }
    }
    files
}

/// The `mcp.allowed` and `mcp.excluded` lists of every settings file.
#[derive(Default)]
struct ServerLists {
    /// `None` when no file sets `mcp.allowed`.
    allowed: Option<NameSet>,
    excluded: NameSet,
}

/// How many steps of pattern matching one load may take. A project file can hold a pattern
/// and names built to make matching slow (`*a*a*…b` against `aaaa…`); past this budget an
/// undecided server is switched off, never run.
const MATCH_STEPS: usize = 1 << 22;

/// The names of a list: exact ones in a set, patterns (`*`, `?`; Qwen Code's) apart.
#[derive(Default)]
struct NameSet {
    exact: HashSet<String>,
    patterns: Vec<String>,
}

impl NameSet {
    fn extend(&mut self, names: Vec<String>, dialect: Dialect) {
        for name in names {
            if dialect.name_patterns && name.contains(['*', '?']) {
                self.patterns.push(name);
            } else {
                self.exact.insert(name);
            }
        }
    }

    /// Whether `name` is in the list; `None` when the matching ran out of `steps`.
    fn matches(&self, name: &str, steps: &mut usize) -> Option<bool> {
        if self.exact.contains(name) {
            return Some(true);
        }
        for pattern in &self.patterns {
            if glob_matches(pattern, name, steps)? {
                return Some(true);
            }
        }
        Some(false)
    }
}

impl ServerLists {
    fn read(&mut self, path: &Path, root: &Value, dialect: Dialect) -> Result<(), ConfigError> {
        let mcp = root.get("mcp");
        if let Some(names) = mcp.and_then(|mcp| mcp.get("allowed")) {
            let names = name_list(path, Some(names), "mcp.allowed")?;
            self.allowed
                .get_or_insert_with(NameSet::default)
                .extend(names, dialect);
        }
        if let Some(names) = mcp.and_then(|mcp| mcp.get("excluded")) {
            let names = name_list(path, Some(names), "mcp.excluded")?;
            self.excluded.extend(names, dialect);
        }
        Ok(())
    }

    /// Switches off every server `mcp.excluded` names or `mcp.allowed` leaves out; one the
    /// step budget leaves undecided too.
    fn apply(&self, contents: &mut FileServers, steps: &mut usize) {
        for (name, config) in &mut contents.servers {
            let allowed = self
                .allowed
                .as_ref()
                .map_or(Some(true), |list| list.matches(name, steps));
            let excluded = self.excluded.matches(name, steps);
            if allowed != Some(true) || excluded != Some(false) {
                config.enabled = Some(false);
            }
        }
    }
}

/// Whether `name` matches `pattern`, where `*` is any run of characters and `?` any one;
/// `None` when `steps` ran out first.
fn glob_matches(pattern: &str, name: &str, steps: &mut usize) -> Option<bool> {
    let pattern: Vec<char> = pattern.chars().collect();
    let name: Vec<char> = name.chars().collect();
    let (mut p, mut n) = (0, 0);
    // The last `*` seen, and where in the name its run would end next.
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        *steps = steps.checked_sub(1)?;
        match pattern.get(p) {
            Some('*') => {
                star = Some((p, n));
                p += 1;
            }
            Some(&c) if c == '?' || c == name[n] => {
                p += 1;
                n += 1;
            }
            _ => match star {
                Some((star_p, star_n)) => {
                    p = star_p + 1;
                    n = star_n + 1;
                    star = Some((star_p, star_n + 1));
                }
                None => return Some(false),
            },
        }
    }
    Some(pattern[p..].iter().all(|c| *c == '*'))
}

/// Converts one `mcpServers` entry, as Gemini CLI (or a tool of its `dialect`) reads it.
fn convert(entry: &Value, dialect: Dialect) -> Result<ServerConfig, EntryProblem> {
    let Some(object) = entry.as_object() else {
        return Err(EntryProblem::NotAnObject);
    };
    let mut object = object.clone();
    let tool_timeout = object
        .remove("timeout")
        .map(|value| json_millis(&value, "timeout"))
        .transpose()?;
    let connect_timeout = match dialect.connect_timeout_key {
        None => tool_timeout,
        Some(key) => object
            .remove(key)
            .map(|value| json_millis(&value, key))
            .transpose()?,
    };
    // The request timeout bounds tool calls too; the tool lists are the native ones.
    if let Some(millis) = tool_timeout {
        object.insert("toolTimeout".to_owned(), Value::from(millis));
    }
    for (gemini, native) in [
        ("includeTools", "enabledTools"),
        ("excludeTools", "disabledTools"),
    ] {
        if let Some(names) = object.remove(gemini) {
            object.insert(native.to_owned(), names);
        }
    }
    if let Some(http_url) = object.remove("httpUrl") {
        object.insert("url".to_owned(), http_url);
        object.insert("type".to_owned(), Value::from("http"));
    } else if object.contains_key("url") && !object.contains_key("type") {
        object.insert("type".to_owned(), Value::from(dialect.bare_url));
    }
    if object.contains_key("tcp") && !object.contains_key("command") && !object.contains_key("url")
    {
        return Err(EntryProblem::WebSocket);
    }
    let mut config = standard_with_disabled(&Value::Object(object))?;
    config.timeout = connect_timeout;
    rewrite_fields(&mut config, &mut |text| Ok(dollar_vars(text)))?;
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::{MATCH_STEPS, glob_matches};

    fn matches(pattern: &str, name: &str) -> bool {
        glob_matches(pattern, name, &mut MATCH_STEPS.clone()).expect("within the budget")
    }

    #[test]
    fn glob_patterns_match_runs_and_single_characters() {
        assert!(matches("*puppeteer*", "my-puppeteer-server"));
        assert!(matches("*-internal", "tools-internal"));
        assert!(matches("db?", "db1"));
        assert!(matches("exact", "exact"));
        assert!(matches("*", ""));
        assert!(matches("a*b*c", "axxbyyc"));
        assert!(!matches("a*b*c", "axxbyy"));
        assert!(!matches("db?", "db"));
        assert!(!matches("*-internal", "internal-tools"));
        assert!(!matches("exact", "exactly"));
        assert!(matches("ünï?", "ünïx"));
    }

    #[test]
    fn a_pattern_built_to_be_slow_runs_out_of_steps_instead_of_hanging() {
        let pattern = format!("*{}b", "a".repeat(2_000));
        let name = "a".repeat(20_000);
        let mut steps = 1_000_000;
        assert_eq!(glob_matches(&pattern, &name, &mut steps), None);
        assert_eq!(steps, 0);
    }
}
