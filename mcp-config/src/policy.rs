//! Enterprise policy: which servers an administrator lets run on this machine, read from the
//! managed settings in [`DiscoveryContext::managed_dir`] and applied by discovery to every
//! server of every provider (a denied one is a [`SkippedServer`](crate::SkippedServer) with
//! [`SkipReason::DeniedByPolicy`](crate::SkipReason::DeniedByPolicy)).
//!
//! Claude Code's managed settings are the first source of this kind, read as Claude Code
//! documents them (code.claude.com/docs/en/managed-mcp and /settings, as copied verbatim in
//! coroboros/archivist `docs/code/code-managed-mcp.md` at 1a9d7b47, August 2026):
//!
//! - `managed-settings.json` in the folder, then each `managed-settings.d/*.json` in name order
//!   (a name starting with `.` is left out); lists from several files are joined;
//! - `deniedMcpServers`: entries of exactly one key, `serverName` (the server's name),
//!   `serverCommand` (the command and every argument, in order, compared whole) or `serverUrl`
//!   (a URL pattern where `*` matches anything, the scheme and host compared without regard to
//!   case, the rest exactly). A server matching any entry is denied, whatever else says;
//! - `allowedMcpServers`, same entries: when no file sets it every server is allowed; an empty
//!   list allows none. A stdio server must match a `serverCommand` entry when the list has
//!   any, else a `serverName` entry; a remote server likewise a `serverUrl` entry, else a
//!   `serverName` one;
//! - `${VAR}` and `${VAR:-default}` in `serverCommand` and `serverUrl` values, and in the
//!   server's own command and URL, are expanded before comparing.
//!
//! What a server reaches is judged, not how its entry spells it:
//!
//! - **URLs** (`policy/url_reading.rs`): a URL rule is compared with every reading of the
//!   server's URL — as parsed (host in lower case, percent-decoded and IDNA-encoded without a
//!   trailing dot, IPv4 in any spelling as a dotted quad, dot segments and `%2e` ones resolved,
//!   the port only when it is not the scheme's default, the path (`/` at least) and the query);
//!   its path with runs of `/` made one; its path percent-decoded (`%2F` included, as Starlette
//!   routes) with the dot segments that decoding made resolved; and its host as the address it
//!   reaches (`[::ffff:127.0.0.1]` is `127.0.0.1`, `0.0.0.0` is `127.0.0.1`, `[::]` is `[::1]`;
//!   a loopback address is also `localhost` to a deny rule). A deny rule matching **any**
//!   reading denies; an allow rule allows only when it matches **every** reading of the path
//!   (with the host as written or as reached). A `*` inside a pattern's host matches host
//!   characters only (`https://*.corp.com/*` never matches `https://evil.org/x.corp.com/`); a
//!   `*` that ends a pattern matches anything (`https://*`). A URL that does not parse, names a
//!   user (`https://corp.com@evil.org/`) or is very long is denied by every URL rule and allowed
//!   by none.
//! - **Addresses** ([`ReachPolicy`], on each remote server discovery lets run): a host name is
//!   judged again when it is connected, on every address it resolves to, as the server's URL
//!   with that address for its host: a deny rule on `127.0.0.1` refuses `localhost`, or any
//!   name resolving there (discovery does not resolve names: such a server fails at connect
//!   time, with the same `denied by policy: …` message). With an allowlist of `serverUrl`
//!   entries, an address must be allowed by one too, unless an entry naming the host by name
//!   (not an address pattern such as `http://10.*`) allowed the server. A redirect is judged
//!   like the server's own URL.
//! - **Commands** (`policy/command_text.rs`): a `serverCommand` rule covers every command an
//!   entry makes run, not only a stdio server's command line: each `!command` value of the
//!   fields the transport uses (`env` for stdio, `headers` for http and sse) and a
//!   `headersHelper`. Such a command is shell text run by `sh -c`, and a rule is a list of
//!   words: the two are compared only when the text is plain — none of `;` `|` `&` `<` `>` `(`
//!   `)` `$` `` ` `` `*` `?` `[` `]` `{` `}` `~` `#` or a newline, through which `sh` would run,
//!   choose or rewrite something its words do not show — and then by the words `sh` splits it
//!   into (quotes and backslashes, with `shell-words`). With an allowlist holding
//!   `serverCommand` entries, each command must be plain and be an entry's words exactly;
//!   otherwise the server is denied, naming the field, and nothing of it runs: no word list can
//!   vouch for shell syntax. A deny entry denies a server with a command whose words are its
//!   own, in a plain text or in one piece of a text cut at its operators
//!   (`true && curl x > /dev/null` is denied by `["curl", "x"]`); a deny list of commands is
//!   a list of spellings, an allowlist the control that holds.
//!
//! Messages show a rule as written: its expanded values may hold secrets; they name the field of
//! a command, never its text.
//!
//! Differences, on purpose: a policy file that exists but cannot be read or parsed, or has an
//! entry of the wrong shape, denies every server (with the file named) rather than letting
//! everything through: an administrator's deny list that silently stops applying is worse than
//! an agent with no servers until the file is fixed. The deny lists of the user's own Claude
//! Code settings, which Claude Code also joins, are not read: they are the user's choice within
//! Claude Code, where the user can switch a server off here with `disable`.

mod command_text;
pub(crate) mod reach;
mod rules;
mod url_reading;

use std::cell::Cell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;

use self::command_text::CommandText;
pub use self::reach::ReachPolicy;
pub use self::rules::{DenialRule, Judged, PolicyDenial};
use self::rules::{FiledRule, MATCH_STEPS, Rule, RuleKind, Rules};
use self::url_reading::{Side, UrlReadings};
use crate::context::DiscoveryContext;
use crate::entry_keys::HEADERS_HELPER;
use crate::error::ConfigError;
use crate::expand::expand_value;
use crate::read_pass::read_config_file;
use crate::server_config::{ServerConfig, TransportConfig};
use crate::source::parse_jsonc;

/// The managed settings file, in [`DiscoveryContext::managed_dir`].
const SETTINGS_FILE: &str = "managed-settings.json";
/// The folder of drop-in files merged over it.
const DROP_IN_FOLDER: &str = "managed-settings.d";
/// The most drop-in files read: a managed folder holds a handful.
const MAX_DROP_INS: usize = 256;
impl Rules {
    /// Reads the managed settings of `ctx` (none without a managed folder). Each file that
    /// cannot be used is also returned as an error for the caller to report.
    fn load(ctx: &DiscoveryContext) -> (Self, Vec<ConfigError>) {
        let mut policy = Self::default();
        let mut errors = Vec::new();
        let Some(folder) = &ctx.managed_dir else {
            return (policy, errors);
        };
        let files = match policy_files(folder) {
            Ok(files) => files,
            Err(error) => {
                // A drop-in folder that cannot be listed may hold a deny list: deny all.
                policy.broken = error.path().map(Path::to_path_buf);
                errors.push(error);
                return (policy, errors);
            }
        };
        for path in files {
            let read = read_config_file(&path)
                .and_then(|text| text.map(|text| parse_jsonc(&path, &text)).transpose());
            let outcome = match read {
                Ok(None) => continue,
                Ok(Some(root)) => {
                    policy
                        .add_file(&path, &root, ctx)
                        .map_err(|problem| ConfigError::Policy {
                            path: path.clone(),
                            problem,
                        })
                }
                Err(error) => Err(error),
            };
            if let Err(error) = outcome {
                errors.push(error);
                policy.broken.get_or_insert(path);
            }
        }
        (policy, errors)
    }

    /// Adds the lists of one file; a list of the wrong shape is the file's problem.
    fn add_file(
        &mut self,
        path: &Path,
        root: &Value,
        ctx: &DiscoveryContext,
    ) -> Result<(), String> {
        // `null` is a list not set, as a missing key is.
        let list_of = |key: &str| root.get(key).filter(|list| !list.is_null());
        if let Some(list) = list_of("allowedMcpServers") {
            let rules = rules(path, list, "allowedMcpServers", &ctx.env)?;
            let (_, allowed) = self
                .allowed
                .get_or_insert_with(|| (path.to_owned(), Vec::new()));
            allowed.extend(rules);
        }
        if let Some(list) = list_of("deniedMcpServers") {
            self.denied
                .extend(rules(path, list, "deniedMcpServers", &ctx.env)?);
        }
        Ok(())
    }
}

/// The managed policy of a machine: empty (everything allowed) when there are no managed
/// settings.
#[derive(Debug)]
pub(crate) struct Policy {
    rules: Arc<Rules>,
    /// What is left of [`MATCH_STEPS`] for this discovery.
    steps: Cell<usize>,
}

/// A server as the policy sees it: its name and, expanded, its command line or its URL's
/// readings; and the commands it makes run, as written.
struct Subject<'a> {
    name: &'a str,
    command: Option<Vec<String>>,
    url: Option<UrlReadings>,
    /// Each `!command` value of the fields its transport uses, and its `headersHelper`, by
    /// field.
    runs: Vec<(String, CommandText)>,
}

impl Policy {
    /// Reads the managed settings of `ctx` (none without a managed folder). Each file that
    /// cannot be used is also returned as an error for the caller to report.
    pub(crate) fn load(ctx: &DiscoveryContext) -> (Self, Vec<ConfigError>) {
        let (rules, errors) = Rules::load(ctx);
        let policy = Self {
            rules: Arc::new(rules),
            steps: Cell::new(MATCH_STEPS),
        };
        (policy, errors)
    }

    /// Why `config` (named `name`) may not run, if it may not.
    pub(crate) fn denial(
        &self,
        name: &str,
        config: &ServerConfig,
        env: &BTreeMap<String, String>,
    ) -> Option<PolicyDenial> {
        let rules = &*self.rules;
        if let Some(unreadable) = rules.unreadable() {
            return Some(unreadable);
        }
        if rules.is_empty() {
            // No policy (the common case): nothing to expand or parse for each server.
            return None;
        }
        let subject = Subject::of(name, config, env);
        let steps = &self.steps;
        for filed in &rules.denied {
            if subject.matches(&filed.rule.kind, Side::Deny, steps) {
                return Some(filed.denied(None));
            }
            if let RuleKind::Command(words) = &filed.rule.kind
                && let Some((field, text)) =
                    subject.runs.iter().find(|(_, text)| text.denied_by(words))
            {
                return Some(filed.denied(Some(Judged::Command {
                    field: field.clone(),
                    shell_syntax: !text.is_plain(),
                })));
            }
        }
        let (file, allowed) = rules.allowed.as_ref()?;
        let not_allowed = |what, judged| PolicyDenial {
            file: file.clone(),
            rule: DenialRule::NotAllowed { what },
            judged,
        };
        let has = |kind: fn(&RuleKind) -> bool| allowed.iter().any(|filed| kind(&filed.rule.kind));
        let is_command: fn(&RuleKind) -> bool = |rule| matches!(rule, RuleKind::Command(_));
        let (kind, what): (fn(&RuleKind) -> bool, _) =
            if subject.command.is_some() && has(is_command) {
                (is_command, "serverCommand entry matching its command")
            } else if subject.url.is_some() && has(|rule| matches!(rule, RuleKind::Url(_))) {
                (
                    |rule| matches!(rule, RuleKind::Url(_)),
                    "serverUrl entry matching its URL",
                )
            } else {
                (
                    |rule| matches!(rule, RuleKind::Name(_)),
                    "serverName entry for it",
                )
            };
        let allows = allowed.iter().any(|filed| {
            kind(&filed.rule.kind) && subject.matches(&filed.rule.kind, Side::Allow, steps)
        });
        if !allows {
            return Some(not_allowed(what, None));
        }
        if !has(is_command) {
            return None;
        }
        // An allowlist of commands covers every command the entry makes run.
        subject.runs.iter().find_map(|(field, text)| {
            let vouched = allowed.iter().any(|filed| {
                matches!(&filed.rule.kind, RuleKind::Command(words) if text.allowed_by(words))
            });
            (!vouched).then(|| {
                let judged = Judged::Command {
                    field: field.clone(),
                    shell_syntax: !text.is_plain(),
                };
                not_allowed("serverCommand entry matching", Some(judged))
            })
        })
    }

    /// What the policy says, at connect time, about where the remote server `name` (its
    /// configuration expanded) connects: `None` without a policy, or for a server that is not
    /// an http or sse one.
    pub(crate) fn reach(&self, name: &str, config: &ServerConfig) -> Option<ReachPolicy> {
        if self.rules.is_empty() {
            return None;
        }
        match &config.transport {
            TransportConfig::Http(remote) | TransportConfig::Sse(remote) => {
                Some(ReachPolicy::new(name, &remote.url, Arc::clone(&self.rules)))
            }
            TransportConfig::Stdio(_) | TransportConfig::Custom(_) => None,
        }
    }
}

impl<'a> Subject<'a> {
    /// The server's name, command line, URL and the commands it makes run, `${VAR}` expanded
    /// where it can be (a value that cannot be is compared as written). The commands are
    /// compared as written: `sh` expands what is in them.
    fn of(name: &'a str, config: &ServerConfig, env: &BTreeMap<String, String>) -> Self {
        let expand = |text: &str| expanded(text, env);
        let commands = |prefix: &str, values: &BTreeMap<String, String>| {
            values
                .iter()
                .filter_map(|(key, value)| {
                    let text = value.strip_prefix('!')?;
                    // An empty one runs nothing (it is an error at connect time).
                    (!text.trim().is_empty())
                        .then(|| (format!("{prefix}.{key}"), CommandText::of(text)))
                })
                .collect::<Vec<_>>()
        };
        let (command, url, mut runs) = match &config.transport {
            TransportConfig::Stdio(stdio) => {
                let line = std::iter::once(&stdio.command).chain(&stdio.args);
                let line = line.map(|part| expand(part)).collect();
                (Some(line), None, commands("env", &stdio.env))
            }
            TransportConfig::Http(remote) | TransportConfig::Sse(remote) => (
                None,
                Some(UrlReadings::of(&expand(&remote.url))),
                commands("headers", &remote.headers),
            ),
            TransportConfig::Custom(custom) => {
                // A plugin's fields are its own: no command of them is run.
                let url = custom.fields.get("url").and_then(Value::as_str);
                (
                    None,
                    url.map(|url| UrlReadings::of(&expand(url))),
                    Vec::new(),
                )
            }
        };
        if let (Some(helper), TransportConfig::Http(_) | TransportConfig::Sse(_)) =
            (config.headers_helper(), &config.transport)
            && !helper.trim().is_empty()
        {
            runs.push((HEADERS_HELPER.to_owned(), CommandText::of(helper)));
        }
        Self {
            name,
            command,
            url,
            runs,
        }
    }

    /// Whether `rule` (of the `side` list) matches this server.
    fn matches(&self, rule: &RuleKind, side: Side, steps: &Cell<usize>) -> bool {
        match rule {
            RuleKind::Name(name) => name == self.name,
            RuleKind::Command(command) => self.command.as_ref() == Some(command),
            RuleKind::Url(pattern) => self
                .url
                .as_ref()
                .is_some_and(|url| url.matched_by(pattern, side, steps)),
        }
    }
}

/// `text` with its `${VAR}` references filled, or as written when one cannot be (rule and
/// server are then compared as written).
fn expanded(text: &str, env: &BTreeMap<String, String>) -> String {
    expand_value(text, env).unwrap_or_else(|_| text.to_owned())
}

/// `managed-settings.json`, then the drop-ins in name order. A drop-in folder that exists but
/// cannot be listed whole, or holds more than [`MAX_DROP_INS`] drop-ins, is an error: what it
/// leaves out could be a deny list.
fn policy_files(folder: &Path) -> Result<Vec<PathBuf>, ConfigError> {
    let mut files = vec![folder.join(SETTINGS_FILE)];
    let drop_in_folder = folder.join(DROP_IN_FOLDER);
    let listing_error = |source| ConfigError::Read {
        path: drop_in_folder.clone(),
        source,
    };
    let entries = match std::fs::read_dir(&drop_in_folder) {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(files),
        Err(error) => return Err(listing_error(error)),
        Ok(entries) => entries,
    };
    let mut drop_ins = Vec::new();
    for entry in entries {
        let path = entry.map_err(listing_error)?.path();
        let name = path.file_name().and_then(|name| name.to_str());
        if name.is_some_and(|name| !name.starts_with('.') && name.ends_with(".json")) {
            if drop_ins.len() == MAX_DROP_INS {
                return Err(ConfigError::Policy {
                    path: drop_in_folder,
                    problem: format!("more than {MAX_DROP_INS} drop-in files"),
                });
            }
            drop_ins.push(path);
        }
    }
    drop_ins.sort();
    files.extend(drop_ins);
    Ok(files)
}

/// The entries of one list: each an object with exactly one of `serverName`, `serverCommand`
/// (a non-empty list of strings) and `serverUrl`; command and URL values `${VAR}` expanded.
fn rules(
    path: &Path,
    list: &Value,
    key: &str,
    env: &BTreeMap<String, String>,
) -> Result<Vec<FiledRule>, String> {
    let expand = |text: &str| expanded(text, env);
    let Some(entries) = list.as_array() else {
        return Err(format!("\"{key}\" is not a list"));
    };
    entries
        .iter()
        .enumerate()
        .map(|(index, entry)| {
            let bad = || {
                format!(
                    "entry {index} of \"{key}\" is not an object with exactly one of \
                     \"serverName\", \"serverCommand\" (a list of strings) or \"serverUrl\""
                )
            };
            let object = entry.as_object().filter(|object| object.len() == 1);
            let (field, value) = object
                .and_then(|object| object.iter().next())
                .ok_or_else(bad)?;
            let kind = match (field.as_str(), value) {
                ("serverName", Value::String(name)) => RuleKind::Name(name.clone()),
                ("serverUrl", Value::String(pattern)) => RuleKind::Url(expand(pattern)),
                ("serverCommand", Value::Array(parts)) if !parts.is_empty() => RuleKind::Command(
                    parts
                        .iter()
                        .map(|part| part.as_str().map(expand).ok_or_else(bad))
                        .collect::<Result<_, _>>()?,
                ),
                _ => return Err(bad()),
            };
            let rule = Rule {
                kind,
                written: format!("{field} {value}"),
            };
            Ok(FiledRule {
                rule,
                file: path.to_owned(),
            })
        })
        .collect()
}
