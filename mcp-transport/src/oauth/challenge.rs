//! The `Bearer` and `DPoP` challenges of a `WWW-Authenticate` header (RFC 6750 §3, RFC 9449
//! §7.1, RFC 9728 §5.1).
//!
//! Written by hand: the header's grammar (comma-separated `name=value` pairs whose values may
//! be quoted strings with backslash escapes, possibly after other schemes' challenges) is small,
//! and no well-kept crate parses just this without pulling in a web framework.

/// What a server's `Bearer` or `DPoP` challenge asks for. A server that takes both may send
/// both; a parameter is taken from the first of them that has it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Challenge {
    /// Where its protected resource metadata is (`resource_metadata`).
    pub(crate) resource_metadata: Option<String>,
    /// The scopes the request needs (`scope`, space separated).
    pub(crate) scope: Option<String>,
    /// The error code (`invalid_token`, `insufficient_scope`, …).
    pub(crate) error: Option<String>,
    /// The server offered the `DPoP` scheme: it takes DPoP-bound tokens (RFC 9449 §7.1).
    pub(crate) dpop: bool,
    /// The error code of the `DPoP` challenge (`use_dpop_nonce`, `invalid_dpop_proof`, …).
    pub(crate) dpop_error: Option<String>,
}

/// The scheme whose parameters are being read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Scheme {
    Bearer,
    Dpop,
    Other,
}

impl Challenge {
    /// The `Bearer` and `DPoP` challenges of a `WWW-Authenticate` value; an empty one when
    /// there is neither.
    pub(crate) fn parse(header: &str) -> Self {
        let mut challenge = Self::default();
        let mut scheme = Scheme::Other;
        let mut rest = header.trim();
        while !rest.is_empty() {
            rest = rest.trim_start_matches([',', ' ', '\t']);
            let name_end = rest
                .find(|c: char| c == '=' || c == ',' || c.is_whitespace())
                .unwrap_or(rest.len());
            let name = &rest[..name_end];
            let after = rest[name_end..].trim_start();
            if let Some(value_text) = after.strip_prefix('=') {
                let (value, remaining) = parameter_value(value_text.trim_start());
                if scheme != Scheme::Other {
                    let name = name.to_ascii_lowercase();
                    if scheme == Scheme::Dpop && name == "error" {
                        challenge.dpop_error.get_or_insert_with(|| value.clone());
                    }
                    let slot = match name.as_str() {
                        "resource_metadata" => Some(&mut challenge.resource_metadata),
                        "scope" => Some(&mut challenge.scope),
                        "error" => Some(&mut challenge.error),
                        _ => None,
                    };
                    if let Some(slot) = slot {
                        slot.get_or_insert(value);
                    }
                }
                rest = remaining;
            } else {
                // A scheme name starts a new challenge.
                if !name.is_empty() {
                    scheme = if name.eq_ignore_ascii_case("bearer") {
                        Scheme::Bearer
                    } else if name.eq_ignore_ascii_case("dpop") {
                        challenge.dpop = true;
                        Scheme::Dpop
                    } else {
                        Scheme::Other
                    };
                }
                rest = after;
                if name.is_empty() && !rest.is_empty() {
                    rest = &rest[1..];
                }
            }
        }
        challenge
    }

    /// True for a 403 that asks for more scopes (step-up authorization).
    pub(crate) fn insufficient_scope(&self) -> bool {
        self.error.as_deref() == Some("insufficient_scope")
    }

    /// True when the server wants a proof carrying its nonce (RFC 9449 §9).
    pub(crate) fn wants_dpop_nonce(&self) -> bool {
        self.dpop_error.as_deref() == Some("use_dpop_nonce")
    }
}

/// A parameter's value (a quoted string or a token) and what follows it.
fn parameter_value(text: &str) -> (String, &str) {
    if let Some(quoted) = text.strip_prefix('"') {
        let mut value = String::new();
        let mut chars = quoted.char_indices();
        while let Some((index, c)) = chars.next() {
            match c {
                '\\' => {
                    if let Some((_, escaped)) = chars.next() {
                        value.push(escaped);
                    }
                }
                '"' => return (value, &quoted[index + 1..]),
                c => value.push(c),
            }
        }
        (value, "")
    } else {
        let end = text.find(',').unwrap_or(text.len());
        (text[..end].trim().to_owned(), &text[end..])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bearer_challenge_gives_its_metadata_url_scope_and_error() {
        let challenge = Challenge::parse(
            r#"Bearer error="insufficient_scope", scope="mcp:basic mcp:write", resource_metadata="http://127.0.0.1:5/.well-known/oauth-protected-resource/mcp""#,
        );
        assert_eq!(challenge.scope.as_deref(), Some("mcp:basic mcp:write"));
        assert!(challenge.insufficient_scope());
        assert_eq!(
            challenge.resource_metadata.as_deref(),
            Some("http://127.0.0.1:5/.well-known/oauth-protected-resource/mcp")
        );
    }

    #[test]
    fn other_schemes_parameters_and_escapes_are_handled() {
        let challenge = Challenge::parse(
            r#"Basic realm="a, b", Bearer realm="x\"y", scope=read, error="invalid_token""#,
        );
        assert_eq!(challenge.scope.as_deref(), Some("read"));
        assert_eq!(challenge.error.as_deref(), Some("invalid_token"));
        assert_eq!(challenge.resource_metadata, None);
        assert_eq!(
            Challenge::parse("Basic realm=\"scope\""),
            Challenge::default()
        );
        assert_eq!(Challenge::parse("Bearer"), Challenge::default());
    }

    #[test]
    fn a_dpop_challenge_is_read_like_a_bearer_one_and_says_so() {
        let challenge = Challenge::parse(
            r#"DPoP error="use_dpop_nonce", resource_metadata="http://127.0.0.1:5/.well-known/oauth-protected-resource/mcp""#,
        );
        assert!(challenge.dpop);
        assert!(challenge.wants_dpop_nonce());
        assert_eq!(
            challenge.resource_metadata.as_deref(),
            Some("http://127.0.0.1:5/.well-known/oauth-protected-resource/mcp")
        );
        let plain = Challenge::parse(r#"DPoP resource_metadata="http://a/prm""#);
        assert!(plain.dpop && !plain.wants_dpop_nonce());
        assert_eq!(plain.resource_metadata.as_deref(), Some("http://a/prm"));
        // Both schemes: each parameter from the first that has it; the nonce error is the DPoP
        // challenge's own.
        let both = Challenge::parse(
            r#"Bearer error="invalid_token", scope="a", DPoP algs="ES256", error="use_dpop_nonce""#,
        );
        assert!(both.dpop && both.wants_dpop_nonce());
        assert_eq!(both.error.as_deref(), Some("invalid_token"));
        assert_eq!(both.scope.as_deref(), Some("a"));
        let bearer = Challenge::parse(r#"Bearer error="use_dpop_nonce""#);
        assert!(!bearer.dpop && !bearer.wants_dpop_nonce());
    }
}
