//! [`Secrets`]: the credentials a client sends one server, so that whatever that server sends
//! back into an error or a log line can be cleaned of them first.
//!
//! A server that reflects the request in its error body (many frameworks do, for debugging), or
//! a stdio server that prints its environment when it fails, would otherwise get our own
//! `Authorization` header, API keys and `!command` outputs printed in `list`, `--json` and the
//! logs. Each transport fills a set with everything secret it sends (header values, URL query
//! values and userinfo, configured environment values, the OAuth token of each request) and
//! passes every text a server provides for an error or a log through [`Secrets::scrub`].
//!
//! Scrubbing is for the error path: it costs a scan of the text per secret, which is nothing
//! beside the failed request, and is never applied to the messages themselves.

use std::borrow::Cow;
use std::sync::{Arc, PoisonError, RwLock};

/// What a secret is replaced with.
pub const REDACTED: &str = "<redacted>";

/// Values shorter than this (in bytes) are not treated as secrets. A configuration holds many
/// short values that are no credential (`true`, `1`, `debug`, `en-US`, a port) and that appear
/// in ordinary server text: blanking them would make errors unreadable. A credential that short
/// is guessable anyway; tokens and keys are 16 characters and more.
pub const MIN_SECRET_LEN: usize = 6;

/// Words that begin an `Authorization` value and are no secret themselves: `Bearer abc…` hides
/// `abc…`, not every later mention of "Bearer" in a server's text.
const AUTH_SCHEMES: &[&str] = &["bearer", "basic", "digest", "negotiate", "token"];

/// A shared set of secret values. Clones share the set: a value added through one clone (an
/// OAuth token obtained after the transport was built, say) is scrubbed through all of them.
///
/// `Debug` shows how many values it holds, never the values.
#[derive(Clone, Default)]
pub struct Secrets {
    /// Every form of every secret, longest first (so a secret is replaced before any shorter
    /// one that is part of it), without duplicates.
    values: Arc<RwLock<Vec<String>>>,
}

impl std::fmt::Debug for Secrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Secrets({} forms)", self.read().len())
    }
}

impl Secrets {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a secret value: the value itself, each of its whitespace-separated words (the
    /// token of `Bearer <token>`; the scheme word is kept), and the forms it takes inside a URL
    /// (percent-encoded, form-encoded with `+`, percent-decoded) or a JSON string (escaped).
    /// Values and words shorter than [`MIN_SECRET_LEN`] are ignored.
    pub fn add(&self, value: &str) {
        let mut forms = Vec::new();
        let words = value.split_whitespace();
        for word in std::iter::once(value.trim()).chain(words) {
            if AUTH_SCHEMES.contains(&word.to_ascii_lowercase().as_str()) {
                continue;
            }
            forms.push(word.to_owned());
            forms.push(percent_encoded(word, false));
            forms.push(percent_encoded(word, true));
            if let Some(decoded) = percent_decoded(word) {
                forms.push(decoded);
            }
            if let Ok(json) = serde_json::to_string(word) {
                forms.push(json[1..json.len() - 1].to_owned());
            }
        }
        forms.retain(|form| form.len() >= MIN_SECRET_LEN);
        if forms.is_empty() {
            return;
        }
        let mut values = self.values.write().unwrap_or_else(PoisonError::into_inner);
        for form in forms {
            if !values.contains(&form) {
                values.push(form);
            }
        }
        values.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
    }

    /// Adds every value of `values` (see [`add`](Self::add)).
    pub fn extend<'a>(&self, values: impl IntoIterator<Item = &'a str>) {
        for value in values {
            self.add(value);
        }
    }

    /// True when the set holds nothing to scrub.
    pub fn is_empty(&self) -> bool {
        self.read().is_empty()
    }

    /// `text` with every occurrence of every secret replaced by [`REDACTED`]; borrowed when it
    /// held none.
    pub fn scrub<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let values = self.read();
        let mut scrubbed = Cow::Borrowed(text);
        for value in values.iter() {
            if scrubbed.contains(value.as_str()) {
                scrubbed = Cow::Owned(scrubbed.replace(value.as_str(), REDACTED));
            }
        }
        scrubbed
    }

    /// [`scrub`](Self::scrub) for a piece cut out of a longer text: a secret the cut split in
    /// two leaves only a part of itself, which a whole-value search cannot see. With
    /// `cut_before`, a start of `text` that is the end of a secret is redacted too; with
    /// `cut_after`, an end of `text` that is the start of a secret.
    pub fn scrub_piece<'a>(
        &self,
        text: &'a str,
        cut_before: bool,
        cut_after: bool,
    ) -> Cow<'a, str> {
        let scrubbed = self.scrub(text);
        if !cut_before && !cut_after {
            return scrubbed;
        }
        let values = self.read();
        let mut start = 0;
        let mut end = scrubbed.len();
        for value in values.iter() {
            // Parts shorter than the floor are no more of a secret than a short value.
            for len in (MIN_SECRET_LEN..value.len()).rev() {
                if cut_after
                    && let Some(prefix) = value.get(..len)
                    && scrubbed[start..end].ends_with(prefix)
                {
                    end -= len;
                    break;
                }
            }
            for len in (MIN_SECRET_LEN..value.len()).rev() {
                if cut_before
                    && let Some(suffix) = value.get(value.len() - len..)
                    && scrubbed[start..end].starts_with(suffix)
                {
                    start += len;
                    break;
                }
            }
        }
        if start == 0 && end == scrubbed.len() {
            return scrubbed;
        }
        let mut piece = String::with_capacity(end - start + 2 * REDACTED.len());
        if start > 0 {
            piece.push_str(REDACTED);
        }
        piece.push_str(&scrubbed[start..end]);
        if end < scrubbed.len() {
            piece.push_str(REDACTED);
        }
        Cow::Owned(piece)
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Vec<String>> {
        self.values.read().unwrap_or_else(PoisonError::into_inner)
    }
}

/// `value` with every byte outside RFC 3986's unreserved set written `%XX`; with `plus`, a
/// space is `+` (HTML form encoding, as query strings often are).
fn percent_encoded(value: &str, plus: bool) -> String {
    let mut encoded = String::with_capacity(value.len());
    for byte in value.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                encoded.push(char::from(byte));
            }
            b' ' if plus => encoded.push('+'),
            _ => encoded.push_str(&format!("%{byte:02X}")),
        }
    }
    encoded
}

/// `value` with its `%XX` escapes decoded, when it has any and they decode to UTF-8.
pub(crate) fn percent_decoded(value: &str) -> Option<String> {
    if !value.contains('%') {
        return None;
    }
    let bytes = value.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        let escaped = bytes
            .get(index + 1..index + 3)
            .filter(|_| bytes[index] == b'%')
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match escaped {
            Some(byte) => {
                decoded.push(byte);
                index += 3;
            }
            None => {
                decoded.push(bytes[index]);
                index += 1;
            }
        }
    }
    String::from_utf8(decoded).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_occurrence_of_a_secret_is_redacted() {
        let secrets = Secrets::new();
        secrets.add("sk-live-123456");
        assert_eq!(
            secrets.scrub("key sk-live-123456, again:sk-live-123456!"),
            "key <redacted>, again:<redacted>!"
        );
    }

    #[test]
    fn text_without_secrets_is_borrowed_unchanged() {
        let secrets = Secrets::new();
        secrets.add("sk-live-123456");
        assert!(matches!(secrets.scrub("HTTP 500: boom"), Cow::Borrowed(_)));
    }

    #[test]
    fn the_token_of_an_authorization_value_is_redacted_but_not_its_scheme() {
        let secrets = Secrets::new();
        secrets.add("Bearer abcdef123456");
        assert_eq!(
            secrets.scrub("got Authorization: Bearer abcdef123456; token abcdef123456 alone"),
            "got Authorization: <redacted>; token <redacted> alone"
        );
        assert_eq!(
            secrets.scrub("WWW-Authenticate: Bearer realm=x"),
            "WWW-Authenticate: Bearer realm=x"
        );
    }

    #[test]
    fn url_encoded_decoded_and_json_forms_are_redacted() {
        let secrets = Secrets::new();
        secrets.add("p@ss word/42");
        assert_eq!(
            secrets.scrub("query p%40ss%20word%2F42 form p%40ss+word%2F42 raw p@ss word/42"),
            "query <redacted> form <redacted> raw <redacted>"
        );
        let from_url = Secrets::new();
        from_url.add("a%2Bb%3Dsecret");
        assert_eq!(from_url.scrub("echo a+b=secret"), "echo <redacted>");
        let quoted = Secrets::new();
        quoted.add(r#"say"hi"now"#);
        assert_eq!(
            quoted.scrub(r#"{"header":"say\"hi\"now"}"#),
            r#"{"header":"<redacted>"}"#
        );
    }

    #[test]
    fn short_values_are_not_secrets() {
        let secrets = Secrets::new();
        secrets.extend(["true", "1", "debug", "en-US"]);
        assert!(secrets.is_empty());
        assert_eq!(secrets.scrub("debug: true en-US"), "debug: true en-US");
    }

    #[test]
    fn a_longer_secret_is_replaced_before_a_shorter_one_inside_it() {
        let secrets = Secrets::new();
        secrets.extend(["secret", "secret-and-more"]);
        assert_eq!(
            secrets.scrub("secret-and-more secret"),
            "<redacted> <redacted>"
        );
    }

    #[test]
    fn clones_share_values_added_later() {
        let secrets = Secrets::new();
        let clone = secrets.clone();
        secrets.add("late-oauth-token");
        assert_eq!(clone.scrub("late-oauth-token"), REDACTED);
    }

    #[test]
    fn a_secret_cut_in_two_is_redacted_in_both_pieces() {
        let secrets = Secrets::new();
        secrets.add("0123456789abcdef");
        assert_eq!(
            secrets.scrub_piece("line ends 0123456789", false, true),
            "line ends <redacted>"
        );
        assert_eq!(
            secrets.scrub_piece("456789abcdef and more", true, false),
            "<redacted> and more"
        );
        // A piece that was not cut keeps text that only looks like part of a secret.
        assert_eq!(
            secrets.scrub_piece("ends 0123456789", false, false),
            "ends 0123456789"
        );
    }

    #[test]
    fn debug_shows_no_value() {
        let secrets = Secrets::new();
        secrets.add("very-secret-value");
        assert!(!format!("{secrets:?}").contains("very"));
    }
}
