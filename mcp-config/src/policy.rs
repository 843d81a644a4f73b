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
//! Differences, on purpose: a policy file that exists but cannot be read or parsed, or has an
//! entry of the wrong shape, denies every server (with the file named) rather than letting
//! everything through: an administrator's deny list that silently stops applying is worse than
//! an agent with no servers until the file is fixed. The deny lists of the user's own Claude
//! Code settings, which Claude Code also joins, are not read: they are the user's choice within
//! Claude Code, where the user can switch a server off here with `disable`.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::context::DiscoveryContext;
use crate::error::ConfigError;
use crate::expand::expand_value;
use crate::server_config::{ServerConfig, TransportConfig};
use crate::source::{parse_jsonc, read_config_file};

/// The managed settings file, in [`DiscoveryContext::managed_dir`].
const SETTINGS_FILE: &str = "managed-settings.json";
/// The folder of drop-in files merged over it.
const DROP_IN_FOLDER: &str = "managed-settings.d";
/// The most drop-in files read: a managed folder holds a handful.
const MAX_DROP_INS: usize = 256;

/// Why the policy does not let a server run. Shown as `denied by policy: …`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PolicyDenial {
    /// The managed settings file that decided.
    pub file: PathBuf,
    /// What in it decided.
    pub rule: DenialRule,
}

/// What in the managed settings denies a server.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DenialRule {
    /// An entry of `deniedMcpServers` matches it, shown as written (`serverName "x"`).
    Denied(String),
    /// `allowedMcpServers` is set and no entry of the kind this server must match does
    /// (`what` names it: `serverCommand entry matching its command`, …).
    NotAllowed {
        /// What the server would have to match.
        what: &'static str,
    },
    /// The file cannot be read, parsed or understood (its error is one of discovery's file
    /// errors); no server runs until it is fixed.
    Unreadable,
}

impl fmt::Display for PolicyDenial {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let file = self.file.display();
        match &self.rule {
            DenialRule::Denied(entry) => {
                write!(
                    f,
                    "denied by policy: deniedMcpServers in {file} has {entry}"
                )
            }
            DenialRule::NotAllowed { what } => write!(
                f,
                "denied by policy: allowedMcpServers in {file} has no {what}; ask your \
                 administrator to allow it"
            ),
            DenialRule::Unreadable => write!(
                f,
                "denied by policy: the managed settings {file} cannot be used, so no server runs \
                 until the file is fixed"
            ),
        }
    }
}

/// One entry of `allowedMcpServers` or `deniedMcpServers`.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Rule {
    Name(String),
    Command(Vec<String>),
    Url(String),
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Name(name) => write!(f, "serverName {name:?}"),
            Self::Command(command) => write!(f, "serverCommand {command:?}"),
            Self::Url(pattern) => write!(f, "serverUrl {pattern:?}"),
        }
    }
}

/// A rule and the file it is in.
#[derive(Debug, Clone)]
struct FiledRule {
    rule: Rule,
    file: PathBuf,
}

/// The managed policy of a machine: empty (everything allowed) when there are no managed
/// settings.
#[derive(Debug, Clone, Default)]
pub(crate) struct Policy {
    /// `allowedMcpServers` joined from every file; `None` when no file sets it. The path is the
    /// first file that does.
    allowed: Option<(PathBuf, Vec<FiledRule>)>,
    denied: Vec<FiledRule>,
    /// A file that exists and cannot be used: it denies everything.
    broken: Option<PathBuf>,
}

/// A server as the policy sees it: its name and, expanded, its command line or its URL.
struct Subject<'a> {
    name: &'a str,
    command: Option<Vec<String>>,
    url: Option<String>,
}

impl Policy {
    /// Reads the managed settings of `ctx` (none without a managed folder). Each file that
    /// cannot be used is also returned as an error for the caller to report.
    pub(crate) fn load(ctx: &DiscoveryContext) -> (Self, Vec<ConfigError>) {
        let mut policy = Self::default();
        let mut errors = Vec::new();
        let Some(folder) = &ctx.managed_dir else {
            return (policy, errors);
        };
        for path in policy_files(folder) {
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

    /// Why `config` (named `name`) may not run, if it may not.
    pub(crate) fn denial(
        &self,
        name: &str,
        config: &ServerConfig,
        env: &BTreeMap<String, String>,
    ) -> Option<PolicyDenial> {
        if let Some(file) = &self.broken {
            return Some(PolicyDenial {
                file: file.clone(),
                rule: DenialRule::Unreadable,
            });
        }
        let subject = Subject::of(name, config, env);
        if let Some(denied) = self.denied.iter().find(|rule| subject.matches(&rule.rule)) {
            return Some(PolicyDenial {
                file: denied.file.clone(),
                rule: DenialRule::Denied(denied.rule.to_string()),
            });
        }
        let (file, allowed) = self.allowed.as_ref()?;
        let has = |kind: fn(&Rule) -> bool| allowed.iter().any(|filed| kind(&filed.rule));
        let (kind, what): (fn(&Rule) -> bool, _) =
            if subject.command.is_some() && has(|rule| matches!(rule, Rule::Command(_))) {
                (
                    |rule| matches!(rule, Rule::Command(_)),
                    "serverCommand entry matching its command",
                )
            } else if subject.url.is_some() && has(|rule| matches!(rule, Rule::Url(_))) {
                (
                    |rule| matches!(rule, Rule::Url(_)),
                    "serverUrl entry matching its URL",
                )
            } else {
                (
                    |rule| matches!(rule, Rule::Name(_)),
                    "serverName entry for it",
                )
            };
        let allows = allowed
            .iter()
            .any(|filed| kind(&filed.rule) && subject.matches(&filed.rule));
        (!allows).then(|| PolicyDenial {
            file: file.clone(),
            rule: DenialRule::NotAllowed { what },
        })
    }
}

impl<'a> Subject<'a> {
    /// The server's name, command line and URL, `${VAR}` expanded where it can be (a value
    /// that cannot be is compared as written).
    fn of(name: &'a str, config: &ServerConfig, env: &BTreeMap<String, String>) -> Self {
        let expand = |text: &str| expand_value(text, env).unwrap_or_else(|_| text.to_owned());
        let (command, url) = match &config.transport {
            TransportConfig::Stdio(stdio) => {
                let line = std::iter::once(&stdio.command).chain(&stdio.args);
                (Some(line.map(|part| expand(part)).collect()), None)
            }
            TransportConfig::Http(remote) | TransportConfig::Sse(remote) => {
                (None, Some(expand(&remote.url)))
            }
            TransportConfig::Custom(custom) => {
                let url = custom.fields.get("url").and_then(Value::as_str);
                (None, url.map(expand))
            }
        };
        Self { name, command, url }
    }

    fn matches(&self, rule: &Rule) -> bool {
        match rule {
            Rule::Name(name) => name == self.name,
            Rule::Command(command) => self.command.as_ref() == Some(command),
            Rule::Url(pattern) => self
                .url
                .as_deref()
                .is_some_and(|url| url_matches(pattern, url)),
        }
    }
}

/// `managed-settings.json`, then the drop-ins in name order.
fn policy_files(folder: &Path) -> Vec<PathBuf> {
    let mut files = vec![folder.join(SETTINGS_FILE)];
    let mut drop_ins: Vec<PathBuf> = std::fs::read_dir(folder.join(DROP_IN_FOLDER))
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| {
            let name = path.file_name().and_then(|name| name.to_str());
            name.is_some_and(|name| !name.starts_with('.') && name.ends_with(".json"))
        })
        .take(MAX_DROP_INS)
        .collect();
    drop_ins.sort();
    files.extend(drop_ins);
    files
}

/// The entries of one list: each an object with exactly one of `serverName`, `serverCommand`
/// (a non-empty list of strings) and `serverUrl`; command and URL values `${VAR}` expanded.
fn rules(
    path: &Path,
    list: &Value,
    key: &str,
    env: &BTreeMap<String, String>,
) -> Result<Vec<FiledRule>, String> {
    let expand = |text: &str| expand_value(text, env).unwrap_or_else(|_| text.to_owned());
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
            let rule = match (field.as_str(), value) {
                ("serverName", Value::String(name)) => Rule::Name(name.clone()),
                ("serverUrl", Value::String(pattern)) => Rule::Url(expand(pattern)),
                ("serverCommand", Value::Array(parts)) if !parts.is_empty() => Rule::Command(
                    parts
                        .iter()
                        .map(|part| part.as_str().map(expand).ok_or_else(bad))
                        .collect::<Result<_, _>>()?,
                ),
                _ => return Err(bad()),
            };
            Ok(FiledRule {
                rule,
                file: path.to_owned(),
            })
        })
        .collect()
}

/// Whether `url` matches `pattern`, where `*` matches any run of characters (none included);
/// the scheme and host (up to the first `/` after `://`) are compared without regard to ASCII
/// case, the rest exactly.
fn url_matches(pattern: &str, url: &str) -> bool {
    let pattern_authority_end = pattern[..authority_end(pattern)].chars().count();
    let authority_end = authority_end(url);
    let pattern: Vec<char> = pattern.chars().collect();
    let url: Vec<(usize, char)> = url.char_indices().collect();
    let same = |p: char, (at, u): (usize, char)| {
        if at < authority_end {
            p.eq_ignore_ascii_case(&u)
        } else {
            p == u
        }
    };
    // The classic greedy wildcard match: remember the last `*` and where it restarted.
    let (mut p, mut u) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while u < url.len() {
        if p < pattern.len() && pattern[p] != '*' && same(pattern[p], url[u]) {
            p += 1;
            u += 1;
        } else if p < pattern.len() && pattern[p] == '*' {
            star = Some((p, u));
            p += 1;
        } else if let Some((star_p, star_u)) = star
            // A `*` in the host stays in the host: `https://*.corp.com/*` must not match
            // `https://evil.org/x.corp.com/`.
            && !(star_p < pattern_authority_end && url[star_u].1 == '/')
        {
            p = star_p + 1;
            u = star_u + 1;
            star = Some((star_p, star_u + 1));
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|c| *c == '*')
}

/// The byte offset where the scheme and host of `url` end: the first `/` after `://` (the
/// end when there is none); 0 without `://`.
fn authority_end(url: &str) -> usize {
    url.find("://").map_or(0, |start| {
        let after = start + 3;
        url[after..]
            .find('/')
            .map_or(url.len(), |slash| after + slash)
    })
}

#[cfg(test)]
mod tests {
    use super::url_matches;

    #[test]
    fn url_patterns_match_with_wildcards_and_a_case_blind_host() {
        assert!(url_matches(
            "https://mcp.example.com/*",
            "https://MCP.Example.com/v1"
        ));
        assert!(url_matches(
            "https://*.example.com/*",
            "https://a.b.example.com/mcp"
        ));
        assert!(url_matches("*", "http://anything"));
        assert!(url_matches("https://x.com/mcp", "https://x.com/mcp"));
        assert!(!url_matches("https://x.com/mcp", "https://x.com/MCP"));
        assert!(!url_matches("https://x.com/mcp", "https://x.com/mcp/more"));
        assert!(!url_matches(
            "https://*.example.com/*",
            "https://example.org/mcp"
        ));
        assert!(url_matches("*://internal.corp/*", "HTTP://INTERNAL.CORP/a"));
        assert!(!url_matches("https://a.com/*", "https://a.com.evil.org/x"));
        assert!(!url_matches(
            "https://*.corp.com/*",
            "https://evil.org/x.corp.com/y"
        ));
    }
}
