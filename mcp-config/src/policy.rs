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
//! A server's URL is judged as the transport will reach it: parsed, its host in lower case,
//! percent-decoded and IDNA-encoded without a trailing dot, the port only when it is not the
//! scheme's default, the path (`/` at least) and the query. A `*` inside a pattern's host
//! matches host characters only (`https://*.corp.com/*` never matches
//! `https://evil.org/x.corp.com/` or `https://evil.org?.corp.com/`); a `*` that ends a pattern
//! matches anything (`https://*`). A URL that does not parse, names a user
//! (`https://corp.com@evil.org/`) or is very long is denied by every URL rule and allowed by
//! none. Messages show a rule as written: its expanded values may hold secrets.
//!
//! Differences, on purpose: a policy file that exists but cannot be read or parsed, or has an
//! entry of the wrong shape, denies every server (with the file named) rather than letting
//! everything through: an administrator's deny list that silently stops applying is worse than
//! an agent with no servers until the file is fixed. The deny lists of the user's own Claude
//! Code settings, which Claude Code also joins, are not read: they are the user's choice within
//! Claude Code, where the user can switch a server off here with `disable`.

use std::cell::Cell;
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
/// The longest URL URL rules judge; a longer one is denied by any of them.
const MAX_URL_CHARS: usize = 2048;
/// How many steps URL matching may take in one discovery (a project file can hold many long
/// URLs); past it, a URL rule denies, and allows nothing.
const MATCH_STEPS: usize = 1 << 24;

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

/// One entry of `allowedMcpServers` or `deniedMcpServers`: what it is compared by (`${VAR}`
/// expanded), and the entry as written, which is what messages show (an expanded value may
/// hold a secret).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Rule {
    kind: RuleKind,
    written: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum RuleKind {
    Name(String),
    Command(Vec<String>),
    Url(String),
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.written)
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
#[derive(Debug, Clone)]
pub(crate) struct Policy {
    /// `allowedMcpServers` joined from every file; `None` when no file sets it. The path is the
    /// first file that does.
    allowed: Option<(PathBuf, Vec<FiledRule>)>,
    denied: Vec<FiledRule>,
    /// A file that exists and cannot be used: it denies everything.
    broken: Option<PathBuf>,
    /// What is left of [`MATCH_STEPS`].
    steps: Cell<usize>,
}

impl Default for Policy {
    fn default() -> Self {
        Self {
            allowed: None,
            denied: Vec::new(),
            broken: None,
            steps: Cell::new(MATCH_STEPS),
        }
    }
}

/// A server as the policy sees it: its name and, expanded, its command line or its URL.
struct Subject<'a> {
    name: &'a str,
    command: Option<Vec<String>>,
    url: Option<SubjectUrl>,
}

/// A remote server's URL as URL rules see it.
enum SubjectUrl {
    /// Parsed and written out again in one form: scheme and host in lower case (the host as
    /// the transport will reach it: percent-decoded, IDNA, no trailing dot), the port only when
    /// it is not the scheme's default, the path (`/` at least) and the query.
    Normal(String),
    /// Not a URL the policy can judge: it does not parse, names a user (`https://a.com@b.com`),
    /// or is longer than [`MAX_URL_CHARS`]. Every URL rule denies it; no URL rule allows it.
    Unusable,
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
        if self.denied.is_empty() && self.allowed.is_none() {
            // No policy (the common case): nothing to expand or parse for each server.
            return None;
        }
        let subject = Subject::of(name, config, env);
        let steps = &self.steps;
        let denied = self
            .denied
            .iter()
            .find(|filed| subject.matches(&filed.rule.kind, Side::Deny, steps));
        if let Some(denied) = denied {
            return Some(PolicyDenial {
                file: denied.file.clone(),
                rule: DenialRule::Denied(denied.rule.to_string()),
            });
        }
        let (file, allowed) = self.allowed.as_ref()?;
        let has = |kind: fn(&RuleKind) -> bool| allowed.iter().any(|filed| kind(&filed.rule.kind));
        let (kind, what): (fn(&RuleKind) -> bool, _) =
            if subject.command.is_some() && has(|rule| matches!(rule, RuleKind::Command(_))) {
                (
                    |rule| matches!(rule, RuleKind::Command(_)),
                    "serverCommand entry matching its command",
                )
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
        (!allows).then(|| PolicyDenial {
            file: file.clone(),
            rule: DenialRule::NotAllowed { what },
        })
    }
}

/// Which list a rule is of: what a URL the policy cannot judge, or a comparison past the step
/// budget, counts as (denied either way).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Allow,
    Deny,
}

impl<'a> Subject<'a> {
    /// The server's name, command line and URL, `${VAR}` expanded where it can be (a value
    /// that cannot be is compared as written).
    fn of(name: &'a str, config: &ServerConfig, env: &BTreeMap<String, String>) -> Self {
        let expand = |text: &str| expanded(text, env);
        let (command, url) = match &config.transport {
            TransportConfig::Stdio(stdio) => {
                let line = std::iter::once(&stdio.command).chain(&stdio.args);
                (Some(line.map(|part| expand(part)).collect()), None)
            }
            TransportConfig::Http(remote) | TransportConfig::Sse(remote) => {
                (None, Some(SubjectUrl::of(&expand(&remote.url))))
            }
            TransportConfig::Custom(custom) => {
                let url = custom.fields.get("url").and_then(Value::as_str);
                (None, url.map(|url| SubjectUrl::of(&expand(url))))
            }
        };
        Self { name, command, url }
    }

    /// Whether `rule` (of the `side` list) matches this server.
    fn matches(&self, rule: &RuleKind, side: Side, steps: &Cell<usize>) -> bool {
        match rule {
            RuleKind::Name(name) => name == self.name,
            RuleKind::Command(command) => self.command.as_ref() == Some(command),
            RuleKind::Url(pattern) => match &self.url {
                None => false,
                Some(SubjectUrl::Unusable) => side == Side::Deny,
                Some(SubjectUrl::Normal(url)) => {
                    url_matches(pattern, url, steps).unwrap_or(side == Side::Deny)
                }
            },
        }
    }
}

impl SubjectUrl {
    fn of(url: &str) -> Self {
        if url.chars().count() > MAX_URL_CHARS {
            return Self::Unusable;
        }
        let Ok(parsed) = url::Url::parse(url) else {
            return Self::Unusable;
        };
        if !parsed.username().is_empty() || parsed.password().is_some() {
            return Self::Unusable;
        }
        let Some(host) = parsed.host_str() else {
            return Self::Unusable;
        };
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        let port = parsed
            .port()
            .map(|port| format!(":{port}"))
            .unwrap_or_default();
        let query = parsed
            .query()
            .map(|query| format!("?{query}"))
            .unwrap_or_default();
        let path = match parsed.path() {
            "" => "/",
            path => path,
        };
        Self::Normal(format!("{}://{host}{port}{path}{query}", parsed.scheme()))
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

/// Whether `url` (a [`SubjectUrl::Normal`]) matches `pattern`, where `*` matches any run of
/// characters (none included). The scheme and host (up to the first `/` after `://`) are
/// compared without regard to ASCII case, the rest exactly. A `*` in the pattern's host matches
/// host characters only (letters, digits, `.`, `-`, `:`), so `https://*.corp.com/*` never
/// matches `https://evil.org/x.corp.com/`; a `*` that ends the pattern matches anything, so
/// `https://*` is every https URL. `None` when `steps` ran out first.
fn url_matches(pattern: &str, url: &str, steps: &Cell<usize>) -> Option<bool> {
    let pattern_host_end = pattern[..authority_end(pattern)].chars().count();
    let url_host_end = url[..authority_end(url)].chars().count();
    let pattern: Vec<char> = pattern.chars().collect();
    let url: Vec<char> = url.chars().collect();
    // `matched[j]`: the pattern so far matches the first `j` characters of the URL.
    let mut matched = vec![false; url.len() + 1];
    matched[0] = true;
    for (index, &wanted) in pattern.iter().enumerate() {
        steps.set(steps.get().checked_sub(url.len() + 1)?);
        let mut next = vec![false; url.len() + 1];
        if wanted == '*' {
            let confined = index < pattern_host_end && index + 1 < pattern.len();
            for j in 0..=url.len() {
                next[j] =
                    matched[j] || (j > 0 && next[j - 1] && (!confined || is_host_char(url[j - 1])));
            }
        } else {
            for j in 1..=url.len() {
                let got = url[j - 1];
                let same = if j - 1 < url_host_end {
                    wanted.eq_ignore_ascii_case(&got)
                } else {
                    wanted == got
                };
                next[j] = matched[j - 1] && same;
            }
        }
        matched = next;
    }
    Some(matched[url.len()])
}

/// A character of a host, a port, or a scheme.
fn is_host_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':')
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
    use std::cell::Cell;

    use super::{MATCH_STEPS, SubjectUrl, url_matches};

    /// Whether a server at `url` is matched by `pattern`, as the policy compares them.
    fn matched(pattern: &str, url: &str) -> bool {
        match SubjectUrl::of(url) {
            SubjectUrl::Normal(url) => {
                url_matches(pattern, &url, &Cell::new(MATCH_STEPS)).expect("within the budget")
            }
            SubjectUrl::Unusable => panic!("{url} should be judged"),
        }
    }

    #[test]
    fn url_patterns_match_with_wildcards_and_a_case_blind_host() {
        assert!(matched(
            "https://mcp.example.com/*",
            "https://MCP.Example.com/v1"
        ));
        assert!(matched(
            "https://*.example.com/*",
            "https://a.b.example.com/mcp"
        ));
        assert!(matched("*", "http://anything"));
        assert!(matched(
            "https://*",
            "https://any.where/with/a/path?and=query"
        ));
        assert!(matched("https://x.com/mcp", "https://x.com/mcp"));
        assert!(!matched("https://x.com/mcp", "https://x.com/MCP"));
        assert!(!matched("https://x.com/mcp", "https://x.com/mcp/more"));
        assert!(!matched(
            "https://*.example.com/*",
            "https://example.org/mcp"
        ));
        assert!(matched("*://internal.corp/*", "HTTP://INTERNAL.CORP/a"));
        assert!(matched("http://localhost:*/*", "http://localhost:8123/mcp"));
        assert!(!matched("https://a.com/*", "https://a.com.evil.org/x"));
    }

    #[test]
    fn a_host_wildcard_never_reaches_past_the_host() {
        for url in [
            "https://evil.org/x.corp.com/y",
            "https://evil.org?.corp.com/",
            "https://evil.org#.corp.com/",
            "https://evil.org\\.corp.com/",
        ] {
            assert!(!matched("https://*.corp.com/*", url), "{url}");
        }
    }

    #[test]
    fn the_forms_of_one_host_are_one_host() {
        for url in [
            "https://evil.com",
            "https://evil.com:443/",
            "https://evil.com./",
            "https://%65vil.com/",
            "https://EVIL.com/mcp",
        ] {
            assert!(matched("https://evil.com/*", url), "{url}");
        }
        assert!(!matched("https://evil.com/*", "https://evil.com:8443/"));
    }

    #[test]
    fn a_url_naming_a_user_or_not_parsing_or_too_long_cannot_be_judged() {
        for url in [
            "https://allowed.com@evil.com/",
            "https://u:p@evil.com/",
            "not a url",
        ] {
            assert!(matches!(SubjectUrl::of(url), SubjectUrl::Unusable), "{url}");
        }
        let long = format!("https://a.com/{}", "x".repeat(4096));
        assert!(matches!(SubjectUrl::of(&long), SubjectUrl::Unusable));
    }

    #[test]
    fn matching_past_its_budget_is_undecided() {
        let steps = Cell::new(100);
        let url = format!("https://a.com/{}", "x".repeat(500));
        assert_eq!(url_matches("https://a.com/*y", &url, &steps), None);
    }
}
