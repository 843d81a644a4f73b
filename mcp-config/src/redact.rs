//! Secrets kept out of anything meant for people: the marker that replaces them, URLs with
//! their keys hidden, maps shown by their keys alone.

use std::collections::BTreeMap;
use std::fmt;

/// What replaces a secret in output meant for people.
pub const REDACTED: &str = "<redacted>";

/// The shortest value [`scrub`] hides whole: shorter values (`1`, `true`, `info`) are ordinary
/// words far more often than secrets, and hiding them would blank the text around them.
const MIN_SECRET_CHARS: usize = 6;
/// The shortest part of a value [`scrub`] hides on its own (the token of `Bearer <token>`, a
/// word of a command line): long enough not to be a common word.
const MIN_SECRET_PART_CHARS: usize = 8;

/// `text` with every occurrence of each of `secrets` replaced by [`REDACTED`], and of each
/// whitespace-separated part of one (quotes and `;` around it dropped) long enough to be a
/// secret itself: error text a command or a server wrote may quote what we gave it.
///
/// `mcp_transport::Secrets` does the same for what a transport sends (with URL and JSON forms
/// of each value); it is written again here because this crate depends on no other workspace
/// crate (see DESIGN.md), and a `!command` fails before any transport exists.
pub(crate) fn scrub<'a>(text: &str, secrets: impl IntoIterator<Item = &'a str>) -> String {
    let mut hidden: Vec<&str> = Vec::new();
    for secret in secrets {
        let secret = secret.trim();
        if secret.chars().count() >= MIN_SECRET_CHARS {
            hidden.push(secret);
        }
        for part in secret.split_whitespace() {
            let part = part.trim_matches(|c: char| matches!(c, '\'' | '"' | ';' | ',' | '`'));
            if part.chars().count() >= MIN_SECRET_PART_CHARS {
                hidden.push(part);
            }
        }
    }
    // Longest first, so a secret is hidden whole before a part of it is.
    hidden.sort_by_key(|secret| std::cmp::Reverse(secret.len()));
    let mut scrubbed = text.to_owned();
    for secret in hidden {
        if scrubbed.contains(secret) {
            scrubbed = scrubbed.replace(secret, REDACTED);
        }
    }
    scrubbed
}

/// Hides the values of query parameters and any userinfo of a URL (API keys often sit there).
pub fn redact_url_secrets(url: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((base, query)) => (base, Some(query)),
        None => (url, None),
    };
    let base = match base.split_once("://") {
        Some((scheme, rest)) => match rest.split_once('@') {
            Some((_, host)) if !host.contains('/') || rest.find('@') < rest.find('/') => {
                format!("{scheme}://{REDACTED}@{host}")
            }
            _ => base.to_owned(),
        },
        None => base.to_owned(),
    };
    match query {
        None => base,
        Some(query) => {
            let redacted: Vec<String> = query
                .split('&')
                .map(|pair| match pair.split_once('=') {
                    Some((key, _)) => format!("{key}={REDACTED}"),
                    None => pair.to_owned(),
                })
                .collect();
            format!("{base}?{}", redacted.join("&"))
        }
    }
}

/// Keys shown, values replaced by [`REDACTED`]: env and header values are secrets more often
/// than not, so no `Debug` of this crate shows them.
pub(crate) struct RedactedMap<'a>(pub(crate) &'a BTreeMap<String, String>);

impl fmt::Debug for RedactedMap<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.0.keys().map(|key| (key, REDACTED)))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scrub_hides_secrets_and_their_long_parts_but_not_ordinary_words() {
        let secrets = [
            "Bearer tok-1234567",
            "op read 'op://vault/github-token' --no-newline",
            "1",
        ];
        let text = "denied: Bearer tok-1234567; also tok-1234567 and op://vault/github-token, \
                    --no-newline read 1 vault";
        assert_eq!(
            scrub(text, secrets),
            "denied: <redacted>; also <redacted> and <redacted>, <redacted> read 1 vault"
        );
        assert_eq!(scrub("nothing here", secrets), "nothing here");
    }

    #[test]
    fn url_secrets_are_redacted() {
        assert_eq!(
            redact_url_secrets("https://u:p@mcp.exa.ai/mcp?exaApiKey=abc&x"),
            "https://<redacted>@mcp.exa.ai/mcp?exaApiKey=<redacted>&x"
        );
        assert_eq!(redact_url_secrets("https://h/p"), "https://h/p");
    }
}
