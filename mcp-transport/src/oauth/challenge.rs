//! The `Bearer` challenge of a `WWW-Authenticate` header (RFC 6750 §3, RFC 9728 §5.1).
//!
//! Written by hand: the header's grammar (comma-separated `name=value` pairs whose values may
//! be quoted strings with backslash escapes, possibly after other schemes' challenges) is small,
//! and no well-kept crate parses just this without pulling in a web framework.

/// What a server's `Bearer` challenge asks for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Challenge {
    /// Where its protected resource metadata is (`resource_metadata`).
    pub(crate) resource_metadata: Option<String>,
    /// The scopes the request needs (`scope`, space separated).
    pub(crate) scope: Option<String>,
    /// The error code (`invalid_token`, `insufficient_scope`, …).
    pub(crate) error: Option<String>,
}

impl Challenge {
    /// The `Bearer` challenge of a `WWW-Authenticate` value; an empty one when there is none.
    pub(crate) fn parse(header: &str) -> Self {
        let mut challenge = Self::default();
        let mut in_bearer = false;
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
                if in_bearer {
                    match name.to_ascii_lowercase().as_str() {
                        "resource_metadata" => challenge.resource_metadata = Some(value),
                        "scope" => challenge.scope = Some(value),
                        "error" => challenge.error = Some(value),
                        _ => {}
                    }
                }
                rest = remaining;
            } else {
                // A scheme name starts a new challenge.
                if !name.is_empty() {
                    in_bearer = name.eq_ignore_ascii_case("bearer");
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
}
