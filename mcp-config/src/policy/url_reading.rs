//! How URL rules read a remote server's URL: every way the server, and the network, may read
//! it, so that a rule matches what the connection reaches rather than how the URL is spelled.
//!
//! A URL is parsed (WHATWG, as the transport parses it: scheme and host in lower case, the host
//! percent-decoded and IDNA-encoded, IPv4 in any of its spellings — `2130706433`, `127.1`,
//! `0x7f.1` — written as dotted quads, dot segments resolved, `%2e` and `%2E` counted as dots,
//! the default port left out), and then read in several ways:
//!
//! - **the path**: as parsed; with runs of `/` made one; percent-decoded (again while a round
//!   changes it, at most [`DECODE_ROUNDS`] times: a `%2561` reaches a server that decodes twice
//!   as `a`), `%2F` included, as Starlette and most server stacks route on the decoded path,
//!   then with its dot segments resolved; and decoded with runs of `/` made one too;
//! - **the host**: as written, and the address it reaches when that differs: an IPv4-mapped
//!   IPv6 address (`[::ffff:127.0.0.1]`) is the IPv4 one, `0.0.0.0` is `127.0.0.1` and `[::]`
//!   is `[::1]` (Linux connects a connection to the unspecified address to the local host). A
//!   loopback address also reads as `localhost` to a deny rule.
//!
//! A deny rule matches when it matches **any** reading; an allow rule only when it matches
//! **every** reading of the path, with the host as written or as reached. The query is kept as
//! written in every reading. Writing this by hand, on `url`'s parse, is deliberate: the readings
//! are the policy's own, no crate has them.

use std::cell::Cell;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use percent_encoding::percent_decode_str;
use url::{Host, Url};

/// The longest URL URL rules judge; a longer one is denied by any of them.
pub(super) const MAX_URL_CHARS: usize = 2048;

/// How many times a path is percent-decoded, at most, for its decoded reading.
const DECODE_ROUNDS: usize = 3;

/// Which list a rule is of: what a URL the policy cannot judge, or a comparison past the step
/// budget, counts as (denied either way).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Side {
    Allow,
    Deny,
}

/// A remote server's URL as URL rules read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum UrlReadings {
    /// Every reading of a URL the policy can judge, each written out as
    /// `scheme://host[:port]path[?query]`.
    Readable {
        /// Every host reading with every path reading: a deny rule matching one denies.
        deny: Vec<String>,
        /// Per host reading (as written, as reached), every path reading: an allow rule allows
        /// when it matches all of one group.
        allow: Vec<Vec<String>>,
    },
    /// Not a URL the policy can judge: it does not parse, has no host, names a user
    /// (`https://a.com@b.com`), or is longer than [`MAX_URL_CHARS`]. Every URL rule denies it;
    /// no URL rule allows it.
    Unusable,
}

impl UrlReadings {
    /// The readings of `url`.
    pub(super) fn of(url: &str) -> Self {
        parsed(url).map_or(Self::Unusable, |parsed| Self::of_parsed(&parsed))
    }

    /// The readings of `url` with its host replaced by `address`: what a connection to that
    /// address, made for this URL, reaches.
    pub(super) fn with_address(url: &str, address: IpAddr) -> Self {
        let Some(mut parsed) = parsed(url) else {
            return Self::Unusable;
        };
        if parsed.set_ip_host(address).is_err() {
            return Self::Unusable;
        }
        Self::of_parsed(&parsed)
    }

    fn of_parsed(parsed: &Url) -> Self {
        let Some(host) = parsed.host() else {
            return Self::Unusable;
        };
        let hosts = HostReadings::of(&host);
        let port = parsed
            .port()
            .map(|port| format!(":{port}"))
            .unwrap_or_default();
        let query = parsed
            .query()
            .map(|query| format!("?{query}"))
            .unwrap_or_default();
        let paths = path_readings(parsed.path());
        let scheme = parsed.scheme();
        let write = |host: &String| -> Vec<String> {
            paths
                .iter()
                .map(|path| format!("{scheme}://{host}{port}{path}{query}"))
                .collect()
        };
        Self::Readable {
            deny: hosts.deny.iter().flat_map(write).collect(),
            allow: hosts.allow.iter().map(write).collect(),
        }
    }

    /// Whether a URL rule of the `side` list, `pattern`, matches this URL.
    pub(super) fn matched_by(&self, pattern: &str, side: Side, steps: &Cell<usize>) -> bool {
        match (self, side) {
            (Self::Unusable, _) => side == Side::Deny,
            (Self::Readable { deny, .. }, Side::Deny) => deny
                .iter()
                .any(|reading| url_matches(pattern, reading, steps).unwrap_or(true)),
            (Self::Readable { allow, .. }, Side::Allow) => allow.iter().any(|group| {
                group
                    .iter()
                    .all(|reading| url_matches(pattern, reading, steps).unwrap_or(false))
            }),
        }
    }
}

/// `url` parsed, when the policy can judge it (see [`UrlReadings::Unusable`]).
fn parsed(url: &str) -> Option<Url> {
    if url.chars().count() > MAX_URL_CHARS {
        return None;
    }
    let parsed = Url::parse(url).ok()?;
    let names_user = !parsed.username().is_empty() || parsed.password().is_some();
    (!names_user).then_some(parsed)
}

/// The spellings of one host a rule is compared with.
struct HostReadings {
    /// As written and as reached, plus `localhost` for a loopback address.
    deny: Vec<String>,
    /// As written and as reached.
    allow: Vec<String>,
}

impl HostReadings {
    fn of(host: &Host<&str>) -> Self {
        let address = match *host {
            Host::Domain(name) => {
                // `url` has lower-cased and IDNA-encoded it; a trailing dot names the same host.
                let name = name.trim_end_matches('.').to_ascii_lowercase();
                return Self {
                    deny: vec![name.clone()],
                    allow: vec![name],
                };
            }
            Host::Ipv4(address) => IpAddr::V4(address),
            Host::Ipv6(address) => IpAddr::V6(address),
        };
        let written = host_text(address);
        let reached = reached(address);
        let mut allow = vec![written];
        if reached != address {
            allow.push(host_text(reached));
        }
        let mut deny = allow.clone();
        if reached.is_loopback() {
            deny.push("localhost".to_owned());
        }
        Self { deny, allow }
    }
}

/// The address a connection to `address` reaches: an IPv4-mapped IPv6 address is its IPv4
/// address, and the unspecified addresses are the local host's loopback (as Linux connects
/// them).
pub(super) fn reached(address: IpAddr) -> IpAddr {
    match address.to_canonical() {
        IpAddr::V4(v4) if v4.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(v6) if v6.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
        other => other,
    }
}

/// An address as a URL's host: `127.0.0.1`, `[::1]`.
fn host_text(address: IpAddr) -> String {
    match address {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => format!("[{v6}]"),
    }
}

/// The readings of a parsed path (see the module doc), without repeats.
fn path_readings(path: &str) -> Vec<String> {
    let written = if path.is_empty() { "/" } else { path };
    let decoded = decoded(written);
    let mut readings = vec![
        written.to_owned(),
        one_slash(written),
        without_dot_segments(&decoded),
        without_dot_segments(&one_slash(&decoded)),
    ];
    readings.sort();
    readings.dedup();
    readings
}

/// `path` percent-decoded, again while a round changes it (at most [`DECODE_ROUNDS`] rounds);
/// bytes that are not UTF-8 become U+FFFD.
fn decoded(path: &str) -> String {
    let mut text = path.to_owned();
    for _ in 0..DECODE_ROUNDS {
        let next = percent_decode_str(&text).decode_utf8_lossy().into_owned();
        if next == text {
            break;
        }
        text = next;
    }
    text
}

/// `path` with every run of `/` made one.
fn one_slash(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for c in path.chars() {
        if !(c == '/' && out.ends_with('/')) {
            out.push(c);
        }
    }
    out
}

/// `path` with its `.` and `..` segments resolved (RFC 3986 §5.2.4), as a server that routes on
/// the decoded path may resolve the ones decoding made.
fn without_dot_segments(path: &str) -> String {
    let segments: Vec<&str> = path.strip_prefix('/').unwrap_or(path).split('/').collect();
    let mut out: Vec<&str> = Vec::with_capacity(segments.len());
    for (index, segment) in segments.iter().enumerate() {
        let last = index + 1 == segments.len();
        match *segment {
            "." => {}
            ".." => {
                out.pop();
            }
            other => {
                out.push(other);
                continue;
            }
        }
        if last {
            // `/a/..` is the folder `/`, with its slash.
            out.push("");
        }
    }
    format!("/{}", out.join("/"))
}

/// Whether the host of URL `pattern` names an address rather than a name: an IPv6 literal, or
/// only digits, dots and `*` (`10.*`, `*`). A pattern without `://` counts as one.
pub(super) fn names_an_address(pattern: &str) -> bool {
    let Some(start) = pattern.find("://").map(|start| start + 3) else {
        return true;
    };
    let authority = &pattern[start..authority_end(pattern)];
    if authority.starts_with('[') {
        return true;
    }
    let host = authority
        .rsplit_once(':')
        .map_or(authority, |(host, _)| host);
    host.chars()
        .all(|c| c.is_ascii_digit() || c == '.' || c == '*')
}

/// Whether `url` (one reading) matches `pattern`, where `*` matches any run of characters (none
/// included). The scheme and host (up to the first `/` after `://`) are compared without regard
/// to ASCII case, the rest exactly. A `*` in the pattern's host matches host characters only
/// (letters, digits, `.`, `-`, `:`), so `https://*.corp.com/*` never matches
/// `https://evil.org/x.corp.com/`; a `*` that ends the pattern matches anything, so `https://*`
/// is every https URL. `None` when `steps` ran out first.
pub(super) fn url_matches(pattern: &str, url: &str, steps: &Cell<usize>) -> Option<bool> {
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

    use super::*;

    const BUDGET: usize = 1 << 24;

    /// Whether a deny rule `pattern` matches a server at `url`.
    fn denies(pattern: &str, url: &str) -> bool {
        UrlReadings::of(url).matched_by(pattern, Side::Deny, &Cell::new(BUDGET))
    }

    /// Whether an allow rule `pattern` allows a server at `url`.
    fn allows(pattern: &str, url: &str) -> bool {
        UrlReadings::of(url).matched_by(pattern, Side::Allow, &Cell::new(BUDGET))
    }

    #[test]
    fn url_patterns_match_with_wildcards_and_a_case_blind_host() {
        for (pattern, url) in [
            ("https://mcp.example.com/*", "https://MCP.Example.com/v1"),
            ("https://*.example.com/*", "https://a.b.example.com/mcp"),
            ("*", "http://anything"),
            ("https://*", "https://any.where/with/a/path?and=query"),
            ("https://x.com/mcp", "https://x.com/mcp"),
            ("*://internal.corp/*", "HTTP://INTERNAL.CORP/a"),
            ("http://localhost:*/*", "http://localhost:8123/mcp"),
        ] {
            assert!(denies(pattern, url), "{pattern} {url}");
            assert!(allows(pattern, url), "{pattern} {url}");
        }
        for (pattern, url) in [
            ("https://x.com/mcp", "https://x.com/MCP"),
            ("https://x.com/mcp", "https://x.com/mcp/more"),
            ("https://*.example.com/*", "https://example.org/mcp"),
            ("https://a.com/*", "https://a.com.evil.org/x"),
        ] {
            assert!(!denies(pattern, url), "{pattern} {url}");
            assert!(!allows(pattern, url), "{pattern} {url}");
        }
    }

    #[test]
    fn a_host_wildcard_never_reaches_past_the_host() {
        for url in [
            "https://evil.org/x.corp.com/y",
            "https://evil.org?.corp.com/",
            "https://evil.org#.corp.com/",
            "https://evil.org\\.corp.com/",
        ] {
            assert!(!allows("https://*.corp.com/*", url), "{url}");
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
            assert!(denies("https://evil.com/*", url), "{url}");
        }
        assert!(!denies("https://evil.com/*", "https://evil.com:8443/"));
    }

    #[test]
    fn a_url_naming_a_user_or_not_parsing_or_too_long_cannot_be_judged() {
        let long = format!("https://a.com/{}", "x".repeat(4096));
        for url in [
            "https://allowed.com@evil.com/",
            "https://u:p@evil.com/",
            "not a url",
            long.as_str(),
        ] {
            assert_eq!(UrlReadings::of(url), UrlReadings::Unusable, "{url}");
            assert!(denies("https://nothing.example/", url), "{url}");
            assert!(!allows("*", url), "{url}");
        }
    }

    #[test]
    fn matching_past_its_budget_is_undecided() {
        let steps = Cell::new(100);
        let url = format!("https://a.com/{}", "x".repeat(500));
        assert_eq!(url_matches("https://a.com/*y", &url, &steps), None);
    }

    #[test]
    fn a_path_reads_as_written_with_one_slash_and_decoded() {
        assert_eq!(
            path_readings("/public/..%2Fadmin//mcp"),
            [
                "/admin//mcp",
                "/admin/mcp",
                "/public/..%2Fadmin//mcp",
                "/public/..%2Fadmin/mcp"
            ]
        );
        assert_eq!(path_readings("/%2561dmin/mcp")[0], "/%2561dmin/mcp");
        assert!(path_readings("/%2561dmin/mcp").contains(&"/admin/mcp".to_owned()));
        assert_eq!(path_readings(""), ["/"]);
        assert_eq!(without_dot_segments("/a/b/.."), "/a/");
        assert_eq!(without_dot_segments("/../../x"), "/x");
        assert_eq!(without_dot_segments("/a/./b/."), "/a/b/");
    }

    #[test]
    fn an_address_reads_as_the_address_it_reaches() {
        for (url, reached) in [
            ("http://[::ffff:127.0.0.1]/", "http://127.0.0.1/"),
            ("http://0.0.0.0/", "http://127.0.0.1/"),
            ("http://[::]/", "http://[::1]/"),
            ("http://0x7f.1/", "http://127.0.0.1/"),
        ] {
            assert!(denies(reached, url), "{url}");
            assert!(allows(reached, url), "{url}");
        }
        assert!(denies("http://localhost/", "http://127.0.0.1/"));
        assert!(!allows("http://localhost/", "http://127.0.0.1/"));
        assert!(denies(
            "http://127.0.0.1:8000/*",
            "http://localhost:8000/mcp"
                .replace("localhost", "[::ffff:7f00:1]")
                .as_str()
        ));
    }

    #[test]
    fn a_host_replaced_by_an_address_keeps_the_rest_of_the_url() {
        let readings = UrlReadings::with_address(
            "http://localhost:8000/mcp?x=1",
            IpAddr::V4(Ipv4Addr::LOCALHOST),
        );
        assert!(readings.matched_by(
            "http://127.0.0.1:8000/mcp?x=1",
            Side::Allow,
            &Cell::new(BUDGET)
        ));
    }

    #[test]
    fn patterns_naming_addresses_are_told_from_patterns_naming_hosts() {
        for pattern in [
            "http://10.*",
            "http://127.0.0.1:8000/*",
            "http://[::1]/*",
            "*",
            "https://*/x",
        ] {
            assert!(names_an_address(pattern), "{pattern}");
        }
        for pattern in [
            "https://*.corp.com/*",
            "http://localhost:*/*",
            "https://a.b",
        ] {
            assert!(!names_an_address(pattern), "{pattern}");
        }
    }
}
