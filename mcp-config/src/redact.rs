//! Secrets kept out of anything meant for people: the marker that replaces them, URLs with
//! their keys hidden, maps shown by their keys alone.

use std::collections::BTreeMap;
use std::fmt;

/// What replaces a secret in output meant for people.
pub const REDACTED: &str = "<redacted>";

/// Hides the values of query parameters and any userinfo of a URL (API keys often sit there).
pub(crate) fn redact_url_secrets(url: &str) -> String {
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
    fn url_secrets_are_redacted() {
        assert_eq!(
            redact_url_secrets("https://u:p@mcp.exa.ai/mcp?exaApiKey=abc&x"),
            "https://<redacted>@mcp.exa.ai/mcp?exaApiKey=<redacted>&x"
        );
        assert_eq!(redact_url_secrets("https://h/p"), "https://h/p");
    }
}
