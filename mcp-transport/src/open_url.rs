//! Which URLs a server names may be opened for the user: [`openable`], the one check every
//! place that shows a server's URL as something to open goes through (the login's
//! authorization page, a URL elicitation).
//!
//! A server (or its authorization server's metadata) chooses these URLs, and a desktop's
//! opener (`xdg-open`, `open`) does whatever the scheme says: a `file:` URL naming a
//! `.desktop` file or an application bundle runs a program, `smb:` mounts a share, a custom
//! scheme starts whichever application claims it. That is how a malicious authorization
//! endpoint ran commands on the machines of mcp-remote's users (CVE-2025-6514). So only the
//! web is opened: `https:`, or plain `http:` to this machine (`localhost`, 127.0.0.0/8, `::1`),
//! where a development server runs without TLS. Everything else is refused with an error
//! that shows the URL, for the user to judge (an interface escapes it for its terminal).
//!
//! The check is a few lines over the `url` parser rather than a crate: what it allows is this
//! project's policy, not a standard one.

use std::net::{IpAddr, Ipv6Addr};

use url::{Host, Url};

/// The longest part of a refused URL an error quotes; a URL can be megabytes long.
const SHOWN_CHARS: usize = 300;

/// A URL that [`openable`] allows to be opened for the user: `https:`, or `http:` on a
/// loopback host. Only this type is handed to a browser opener.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenableUrl(Url);

impl OpenableUrl {
    /// The URL.
    pub fn url(&self) -> &Url {
        &self.0
    }

    /// The URL as text: what is shown, and what an opener gets as its one argument.
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }
}

impl std::fmt::Display for OpenableUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0.as_str())
    }
}

/// A URL that is not opened for the user, and why. Its message shows the URL as given (cut
/// after 300 characters): an interface that prints it escapes it for its terminal.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{url} is not opened: {problem}; only https: pages, or http: ones on this machine \
     (localhost, 127.0.0.1, ::1), are opened for you"
)]
#[non_exhaustive]
pub struct NotOpenable {
    /// The URL as given, cut after 300 characters.
    pub url: String,
    /// What is wrong with it.
    pub problem: String,
}

/// Whether `url` may be opened for the user (see the module documentation): the URL when it
/// is `https:`, or `http:` on a loopback host (`localhost`, 127.0.0.0/8, `::1`, an
/// IPv4-mapped loopback address); a [`NotOpenable`] naming it otherwise, a text that is not a
/// URL included.
pub fn openable(url: &str) -> Result<OpenableUrl, NotOpenable> {
    let refuse = |problem: String| NotOpenable {
        url: shown(url),
        problem,
    };
    let parsed =
        Url::parse(url.trim()).map_err(|error| refuse(format!("it is not a URL ({error})")))?;
    match parsed.scheme() {
        "https" if parsed.host().is_some() => Ok(OpenableUrl(parsed)),
        "http" if parsed.host().is_some_and(|host| is_loopback(&host)) => Ok(OpenableUrl(parsed)),
        "http" => Err(refuse(
            "it is plain http: to another machine, which anyone on the way can read and change"
                .to_owned(),
        )),
        "https" => Err(refuse("it names no host".to_owned())),
        scheme => Err(refuse(format!(
            "its scheme is {scheme}:, which a desktop may hand to a program or the file system"
        ))),
    }
}

/// This machine: `localhost` (any case, the parser lowers it), or a loopback address.
fn is_loopback(host: &Host<&str>) -> bool {
    match host {
        Host::Domain(name) => name.trim_end_matches('.') == "localhost",
        Host::Ipv4(address) => address.is_loopback(),
        Host::Ipv6(address) => {
            *address == Ipv6Addr::LOCALHOST
                || address
                    .to_ipv4_mapped()
                    .is_some_and(|mapped| IpAddr::V4(mapped).is_loopback())
        }
    }
}

fn shown(url: &str) -> String {
    match url.char_indices().nth(SHOWN_CHARS) {
        Some((end, _)) => format!("{}… ({} bytes in all)", &url[..end], url.len()),
        None => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn https_pages_and_plain_http_on_this_machine_are_opened() {
        for url in [
            "https://auth.example.com/authorize?client_id=a&state=b",
            "HTTPS://Auth.Example.com:8443/authorize",
            "http://127.0.0.1:8080/authorize",
            "http://127.8.9.10/authorize",
            "http://localhost:3000/authorize",
            "http://LOCALHOST./authorize",
            "http://[::1]:8123/authorize",
            "http://[::ffff:127.0.0.1]/authorize",
        ] {
            let opened = openable(url).unwrap_or_else(|error| panic!("{url}: {error}"));
            assert!(opened.as_str().starts_with("http"), "{opened}");
        }
    }

    #[test]
    fn every_other_url_is_refused_with_the_url_and_the_reason() {
        for (url, reason) in [
            ("file:///tmp/payload.desktop", "scheme is file:"),
            ("file:///Applications/Calculator.app", "scheme is file:"),
            ("javascript:alert(1)", "scheme is javascript:"),
            ("smb://attacker.example/share", "scheme is smb:"),
            ("vscode://extension/install?id=evil", "scheme is vscode:"),
            ("data:text/html,<script>x</script>", "scheme is data:"),
            ("http://auth.example.com/authorize", "plain http:"),
            ("http://10.0.0.5/authorize", "plain http:"),
            ("http://0.0.0.0/authorize", "plain http:"),
            ("http://localhost.evil.example/authorize", "plain http:"),
            ("http://127.0.0.1.evil.example/authorize", "plain http:"),
            ("-oProxyCommand=evil", "not a URL"),
            ("", "not a URL"),
        ] {
            let refused = openable(url).expect_err(url);
            assert_eq!(refused.url, url);
            let said = refused.to_string();
            assert!(said.contains(reason), "{url}: {said}");
            assert!(said.starts_with(&format!("{url} is not opened")), "{said}");
        }
    }

    #[test]
    fn a_huge_url_is_cut_in_the_error() {
        let url = format!("file:///{}", "a".repeat(100_000));
        let refused = openable(&url).unwrap_err();
        assert!(refused.to_string().len() < 600, "{refused}");
        assert!(
            refused
                .url
                .ends_with(&format!("({} bytes in all)", url.len()))
        );
    }
}
