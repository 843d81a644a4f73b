//! What the managed settings say once read: the rules of `allowedMcpServers` and
//! `deniedMcpServers` with the file each came from ([`Rules`]), and the verdict a server gets
//! when one of them denies it ([`PolicyDenial`]). Discovery (`policy.rs`) and the connect-time
//! [`ReachPolicy`](crate::ReachPolicy)(super::ReachPolicy) judge by them.

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
///
/// Enterprise policy: which servers an administrator lets run on this machine, read from the
/// managed settings in [`DiscoveryContext::managed_dir`](crate::DiscoveryContext::managed_dir) and applied by discovery to every
/// server of every provider (a denied one is a [`SkippedServer`](crate::SkippedServer) with
/// [`SkipReason::DeniedByPolicy`](crate::SkipReason::DeniedByPolicy)).
///
/// Claude Code's managed settings are the first source of this kind, read as Claude Code
/// documents them (code.claude.com/docs/en/managed-mcp and /settings, as copied verbatim in
/// coroboros/archivist `docs/code/code-managed-mcp.md` at 1a9d7b47, August 2026):
///
/// - `managed-settings.json` in the folder, then each `managed-settings.d/*.json` in name order
///   (a name starting with `.` is left out); lists from several files are joined;
/// - `deniedMcpServers`: entries of exactly one key, `serverName` (the server's name),
///   `serverCommand` (the command and every argument, in order, compared whole) or `serverUrl`
///   (a URL pattern where `*` matches anything, the scheme and host compared without regard to
///   case, the rest exactly). A server matching any entry is denied, whatever else says;
/// - `allowedMcpServers`, same entries: when no file sets it every server is allowed; an empty
///   list allows none. A stdio server must match a `serverCommand` entry when the list has
///   any, else a `serverName` entry; a remote server likewise a `serverUrl` entry, else a
///   `serverName` one;
/// - `${VAR}` and `${VAR:-default}` in `serverCommand` and `serverUrl` values, and in the
///   server's own command and URL, are expanded before comparing.
///
/// What a server reaches is judged, not how its entry spells it:
///
/// - **URLs** (`policy/url_reading.rs`): a URL rule is compared with every reading of the
///   server's URL — as parsed (host in lower case, percent-decoded and IDNA-encoded without a
///   trailing dot, IPv4 in any spelling as a dotted quad, dot segments and `%2e` ones resolved,
///   the port only when it is not the scheme's default, the path (`/` at least) and the query);
///   its path with runs of `/` made one; its path percent-decoded (`%2F` included, as Starlette
///   routes) with the dot segments that decoding made resolved; and its host as the address it
///   reaches (`[::ffff:127.0.0.1]` is `127.0.0.1`, `0.0.0.0` is `127.0.0.1`, `[::]` is `[::1]`;
///   a loopback address is also `localhost` to a deny rule). A deny rule matching **any**
///   reading denies; an allow rule allows only when it matches **every** reading of the path
///   (with the host as written or as reached). A `*` inside a pattern's host matches host
///   characters only (`https://*.corp.com/*` never matches `https://evil.org/x.corp.com/`); a
///   `*` that ends a pattern matches anything (`https://*`). A URL that does not parse, names a
///   user (`https://corp.com@evil.org/`) or is very long is denied by every URL rule and allowed
///   by none.
/// - **Addresses** ([`ReachPolicy`](crate::ReachPolicy), on each remote server discovery lets run): a host name is
///   judged again when it is connected, on every address it resolves to, as the server's URL
///   with that address for its host: a deny rule on `127.0.0.1` refuses `localhost`, or any
///   name resolving there (discovery does not resolve names: such a server fails at connect
///   time, with the same `denied by policy: …` message). With an allowlist of `serverUrl`
///   entries, an address must be allowed by one too, unless an entry naming the host by name
///   (not an address pattern such as `http://10.*`) allowed the server. A redirect is judged
///   like the server's own URL.
/// - **Commands** (`policy/command_text.rs`): a `serverCommand` rule covers every command an
///   entry makes run, not only a stdio server's command line: each `!command` value of the
///   fields the transport uses (`env` for stdio, `headers` for http and sse) and a
///   `headersHelper`. Such a command is shell text run by `sh -c`, and a rule is a list of
///   words: the two are compared only when the text is plain — none of `;` `|` `&` `<` `>` `(`
///   `)` `$` `` ` `` `*` `?` `[` `]` `{` `}` `~` `#` or a newline, through which `sh` would run,
///   choose or rewrite something its words do not show — and then by the words `sh` splits it
///   into (quotes and backslashes, with `shell-words`). With an allowlist holding
///   `serverCommand` entries, each command must be plain and be an entry's words exactly;
///   otherwise the server is denied, naming the field, and nothing of it runs: no word list can
///   vouch for shell syntax. A deny entry denies a server with a command whose words are its
///   own, in a plain text or in one piece of a text cut at its operators
///   (`true && curl x > /dev/null` is denied by `["curl", "x"]`); a deny list of commands is
///   a list of spellings, an allowlist the control that holds.
///
/// Messages show a rule as written: its expanded values may hold secrets; they name the field of
/// a command, never its text.
///
/// Differences, on purpose: a policy file that exists but cannot be read or parsed, or has an
/// entry of the wrong shape, denies every server (with the file named) rather than letting
/// everything through: an administrator's deny list that silently stops applying is worse than
/// an agent with no servers until the file is fixed. The deny lists of the user's own Claude
/// Code settings, which Claude Code also joins, are not read: they are the user's choice within
/// Claude Code, where the user can switch a server off here with `disable`.
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
/// [`ReachPolicy`](crate::ReachPolicy)(super::ReachPolicy) of every remote server it lets run.
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
