//! What the managed settings say once read: the rules of `allowedMcpServers` and
//! `deniedMcpServers` with the file each came from ([`Rules`]), and the verdict a server gets
//! when one of them denies it ([`PolicyDenial`]). Discovery (`policy.rs`) and the connect-time
//! [`ReachPolicy`](super::ReachPolicy) judge by them.

use std::cell::Cell;
use std::fmt;
use std::net::IpAddr;
use std::path::PathBuf;

use super::url_reading::{Side, UrlReadings};
use crate::entry_keys::HEADERS_HELPER;

/// How many steps URL matching may take in one discovery (a project file can hold many long
/// URLs, each read in several ways), or in one check at connect time; past it, a URL rule
/// denies, and allows nothing.
pub(super) const MATCH_STEPS: usize = 1 << 26;

/// Why the policy does not let a server run. Shown as `denied by policy: …`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PolicyDenial {
    /// The managed settings file that decided.
    pub file: PathBuf,
    /// What in it decided.
    pub rule: DenialRule,
    /// What of the server the rule judged, when it is not the entry itself: an address it
    /// connects to, a URL a redirect sent it to, a command it makes run.
    pub judged: Option<Judged>,
}

impl std::error::Error for PolicyDenial {}

/// What of a server a rule judged, besides its entry as a whole.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Judged {
    /// An address the connection was about to be made to (the server's host resolved, or its
    /// literal address), judged at connect time.
    Address(IpAddr),
    /// The URL a redirect sent a request to (shown without its query), judged before it is
    /// followed.
    Redirect(String),
    /// A command the entry makes run: a `!command` value or its `headersHelper`.
    Command {
        /// `env.KEY`, `headers.KEY` or `headersHelper`.
        field: String,
        /// The text holds shell syntax, which no `serverCommand` word list can allow.
        shell_syntax: bool,
    },
}

impl Judged {
    /// `its env.TOKEN !command`, `its headersHelper`, `127.0.0.1, an address it connects to`.
    fn describe(&self) -> String {
        match self {
            Self::Address(address) => format!("{address}, an address it connects to"),
            Self::Redirect(url) => format!("{url}, where a redirect sent it"),
            Self::Command { field, .. } if field == HEADERS_HELPER => format!("its {field}"),
            Self::Command { field, .. } => format!("its {field} !command"),
        }
    }
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
        match (&self.rule, &self.judged) {
            (DenialRule::Denied(entry), None) => {
                write!(
                    f,
                    "denied by policy: deniedMcpServers in {file} has {entry}"
                )
            }
            (DenialRule::Denied(entry), Some(judged)) => write!(
                f,
                "denied by policy: deniedMcpServers in {file} has {entry}, which matches {}",
                judged.describe()
            ),
            (
                DenialRule::NotAllowed { .. },
                Some(
                    judged @ Judged::Command {
                        shell_syntax: true, ..
                    },
                ),
            ) => write!(
                f,
                "denied by policy: allowedMcpServers in {file} allows commands by serverCommand \
                 entries, and {} holds shell syntax (; | & $ ` < > globs or newlines) that no \
                 entry can allow; make it a plain command line, or ask your administrator",
                judged.describe()
            ),
            (DenialRule::NotAllowed { what }, judged) => write!(
                f,
                "denied by policy: allowedMcpServers in {file} has no {what}{}; ask your \
                 administrator to allow it",
                judged
                    .as_ref()
                    .map(|judged| format!(" {}", judged.describe()))
                    .unwrap_or_default()
            ),
            (DenialRule::Unreadable, _) => write!(
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
pub(super) struct Rule {
    pub(super) kind: RuleKind,
    pub(super) written: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum RuleKind {
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
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct FiledRule {
    pub(super) rule: Rule,
    pub(super) file: PathBuf,
}

impl FiledRule {
    /// The denial of a `deniedMcpServers` entry that matched.
    pub(super) fn denied(&self, judged: Option<Judged>) -> PolicyDenial {
        PolicyDenial {
            file: self.file.clone(),
            rule: DenialRule::Denied(self.rule.to_string()),
            judged,
        }
    }
}

/// The lists of a machine's managed settings, shared by discovery and by the
/// [`ReachPolicy`](super::ReachPolicy) of every remote server it lets run.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Rules {
    /// `allowedMcpServers` joined from every file; `None` when no file sets it. The path is the
    /// first file that does.
    pub(super) allowed: Option<(PathBuf, Vec<FiledRule>)>,
    pub(super) denied: Vec<FiledRule>,
    /// A file that exists and cannot be used: it denies everything.
    pub(super) broken: Option<PathBuf>,
}

impl Rules {
    /// Whether there are no managed settings at all (the common case).
    pub(super) fn is_empty(&self) -> bool {
        self.broken.is_none() && self.denied.is_empty() && self.allowed.is_none()
    }

    /// The denial of everything, when a policy file cannot be used.
    pub(super) fn unreadable(&self) -> Option<PolicyDenial> {
        self.broken.as_ref().map(|file| PolicyDenial {
            file: file.clone(),
            rule: DenialRule::Unreadable,
            judged: None,
        })
    }

    /// The first `serverUrl` entry of `deniedMcpServers` matching a reading of `readings`.
    pub(super) fn url_denial(
        &self,
        readings: &UrlReadings,
        judged: &Judged,
        steps: &Cell<usize>,
    ) -> Option<PolicyDenial> {
        self.denied
            .iter()
            .find(|filed| {
                matches!(&filed.rule.kind, RuleKind::Url(pattern)
                    if readings.matched_by(pattern, Side::Deny, steps))
            })
            .map(|filed| filed.denied(Some(judged.clone())))
    }

    /// The `serverUrl` patterns of `allowedMcpServers`, with the file that set the list; `None`
    /// when there is no list or it has none (a remote server is then allowed by name).
    pub(super) fn allowed_urls(&self) -> Option<(&PathBuf, Vec<&str>)> {
        let (file, allowed) = self.allowed.as_ref()?;
        let patterns: Vec<&str> = allowed
            .iter()
            .filter_map(|filed| match &filed.rule.kind {
                RuleKind::Url(pattern) => Some(pattern.as_str()),
                _ => None,
            })
            .collect();
        (!patterns.is_empty()).then_some((file, patterns))
    }
}
