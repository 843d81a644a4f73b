//! Enterprise policy: which servers an administrator lets run (documented on [`PolicyDenial`]).

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
