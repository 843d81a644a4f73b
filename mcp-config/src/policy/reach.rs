//! [`ReachPolicy`]: what the enterprise policy says, at connect time, about where a remote
//! server's connection goes. Discovery can only judge what an entry says; the addresses a host
//! name resolves to and the URL a redirect leads to are known when the connection is made, by
//! the transport, which knows nothing of this crate: the caller that builds the transport (the
//! manager) asks this value about each address and each redirect, and refuses the connection
//! with the [`PolicyDenial`] it gives.

use std::cell::Cell;
use std::fmt;
use std::net::IpAddr;
use std::sync::Arc;

use super::rules::{DenialRule, Judged, MATCH_STEPS, PolicyDenial, Rules};
use super::url_reading::{Side, UrlReadings, names_an_address};

/// The enterprise policy of one remote server that discovery let run, for the checks made when
/// it is connected: set on its expanded configuration
/// ([`ServerConfig::reach_policy`](crate::ServerConfig::reach_policy)) when the machine has a
/// managed policy.
///
/// - [`denies_address`](Self::denies_address): the server's URL with its host replaced by an
///   address the connection is about to be made to, judged by the `serverUrl` entries of
///   `deniedMcpServers`, read as every URL is (an IPv4-mapped IPv6 address is its IPv4 one,
///   `0.0.0.0` and `[::]` the loopback they reach). With an allowlist of `serverUrl` entries,
///   the address must be allowed by one too, unless an entry naming hosts by name (not an
///   address pattern such as `http://10.*/*`) allowed the server's URL: that entry vouches for
///   what the name resolves to.
/// - [`denies_redirect`](Self::denies_redirect): a URL a redirect sends a request to, judged as
///   the server's own URL is by `serverUrl` entries (deny any reading, allow every one).
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ReachPolicy {
    server: String,
    /// The server's URL, expanded.
    url: String,
    rules: Arc<Rules>,
}

impl ReachPolicy {
    pub(super) fn new(server: &str, url: &str, rules: Arc<Rules>) -> Self {
        Self {
            server: server.to_owned(),
            url: url.to_owned(),
            rules,
        }
    }

    /// Why the server may not be connected to `address`, if it may not: a `serverUrl` entry of
    /// `deniedMcpServers` matches its URL with `address` for its host, or an allowlist of
    /// `serverUrl` entries does not allow it (see the type's doc).
    pub fn denies_address(&self, address: IpAddr) -> Option<PolicyDenial> {
        if let Some(unreadable) = self.rules.unreadable() {
            return Some(unreadable);
        }
        let steps = Cell::new(MATCH_STEPS);
        let judged = Judged::Address(address);
        let readings = UrlReadings::with_address(&self.url, address);
        if let Some(denied) = self.rules.url_denial(&readings, &judged, &steps) {
            return Some(denied);
        }
        let (file, patterns) = self.rules.allowed_urls()?;
        let configured = UrlReadings::of(&self.url);
        let by_name = patterns.iter().any(|pattern| {
            !names_an_address(pattern) && configured.matched_by(pattern, Side::Allow, &steps)
        });
        let by_address = || {
            patterns
                .iter()
                .any(|pattern| readings.matched_by(pattern, Side::Allow, &steps))
        };
        if by_name || by_address() {
            return None;
        }
        Some(PolicyDenial {
            file: file.clone(),
            rule: DenialRule::NotAllowed {
                what: "serverUrl entry matching",
            },
            judged: Some(judged),
        })
    }

    /// Why a request may not follow a redirect to `url`, if it may not: the `serverUrl` entries
    /// judge it as they judge the server's own URL.
    pub fn denies_redirect(&self, url: &str) -> Option<PolicyDenial> {
        if let Some(unreadable) = self.rules.unreadable() {
            return Some(unreadable);
        }
        let steps = Cell::new(MATCH_STEPS);
        let judged = Judged::Redirect(shown(url));
        let readings = UrlReadings::of(url);
        if let Some(denied) = self.rules.url_denial(&readings, &judged, &steps) {
            return Some(denied);
        }
        let (file, patterns) = self.rules.allowed_urls()?;
        let allowed = patterns
            .iter()
            .any(|pattern| readings.matched_by(pattern, Side::Allow, &steps));
        (!allowed).then(|| PolicyDenial {
            file: file.clone(),
            rule: DenialRule::NotAllowed {
                what: "serverUrl entry matching",
            },
            judged: Some(judged),
        })
    }
}

impl fmt::Debug for ReachPolicy {
    /// The server's name only: the URL and the rules' expanded values may hold secrets.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReachPolicy")
            .field("server", &self.server)
            .finish_non_exhaustive()
    }
}

/// `url` as a message shows it: without userinfo, query and fragment, where secrets live.
fn shown(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut parsed) => {
            parsed.set_query(None);
            parsed.set_fragment(None);
            let _ = parsed.set_password(None);
            let _ = parsed.set_username("");
            parsed.to_string()
        }
        Err(_) => "a URL that does not parse".to_owned(),
    }
}
