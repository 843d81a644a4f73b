//! What can go wrong while authorizing, each case with what the user can do about it.
/// Authorizing with a server failed. Messages name the URLs involved (without their query) and
/// what the server said (a long text cut with a marker); never a token, a secret or an
/// authorization code.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OAuthError {
    /// No usable credentials and no way to ask the user for new ones (the connection is not
    /// interactive): the user has to log in. The message does not say how: the interface that
    /// shows it names its own login command.
    #[error("{server} requires a login")]
    LoginRequired {
        /// The server, as its canonical URL.
        server: String,
    },
    /// The authorization server refused the stored refresh token (`invalid_grant`: it
    /// expired, was revoked, or was used already), and the connection cannot ask the user:
    /// the login is over and the user has to log in again. The refresh token was dropped from
    /// the store (its access token kept until the server refuses it).
    #[error(
        "{server} requires a login: its authorization server refused to refresh the login \
         ({error}{})",
        .description.as_deref().map(|d| format!(": {d}")).unwrap_or_default()
    )]
    RefreshRefused {
        /// The server, as its canonical URL.
        server: String,
        /// The OAuth error code, cut after 120 characters.
        error: String,
        /// The authorization server's description, if any, cut after 120 characters.
        description: Option<String>,
    },
    /// A request carrying credentials (a token request, a refresh, a registration, an
    /// identity provider's token exchange) was answered with a redirect to another origin.
    /// Nothing was sent there: a credential meant for one server never goes to another.
    #[error(
        "{action}: the answer redirects to {to}, another origin; a request carrying credentials \
         is not sent there (tell whoever runs the authorization server, or check its URL)"
    )]
    CrossOriginRedirect {
        /// What was being done, naming the endpoint (without its query).
        action: String,
        /// Where the redirect pointed (without its query).
        to: String,
    },
    /// The login page the authorization server names may not be opened for the user (it is
    /// not `https:`, nor `http:` on this machine): nothing was shown or opened, and no
    /// redirect listener was started.
    #[error("refusing the authorization server's login page: {0}")]
    NotOpenable(#[from] crate::open_url::NotOpenable),
    /// A metadata document, registration or token request could not be made or read.
    #[error("{action} failed: {source}")]
    Http {
        /// What was being done, e.g. `GET https://auth.example.com/.well-known/…`.
        action: String,
        /// The HTTP client's error.
        #[source]
        source: reqwest::Error,
    },
    /// A metadata document or an answer was not what the specifications describe.
    #[error("{action}: {problem}")]
    InvalidResponse {
        /// What was being done.
        action: String,
        /// What was wrong with it.
        problem: String,
    },
    /// The protected resource metadata names another resource than the server being connected
    /// to; authorizing there could hand a token meant for this server to another one.
    #[error(
        "the server's protected resource metadata is for {advertised}, not for {server}; \
         refusing to authorize"
    )]
    ResourceMismatch {
        /// The server connected to.
        server: String,
        /// The resource its metadata names.
        advertised: String,
    },
    /// No authorization server metadata was found where the specification says to look.
    #[error("no authorization server metadata for {issuer} (tried {tried})")]
    NoAuthorizationServerMetadata {
        /// The authorization server.
        issuer: String,
        /// The URLs tried, comma separated.
        tried: String,
    },
    /// The authorization server does not offer PKCE with S256, which OAuth 2.1 requires.
    #[error(
        "the authorization server {issuer} does not support PKCE with S256; refusing to use it"
    )]
    PkceUnsupported {
        /// The authorization server.
        issuer: String,
    },
    /// The client has no identity at this authorization server: none configured, no client ID
    /// metadata document, and no dynamic registration offered.
    #[error(
        "the authorization server {issuer} offers no dynamic client registration; configure a \
         client ID (and secret) for this server"
    )]
    NoClientIdentity {
        /// The authorization server.
        issuer: String,
    },
    /// An authorization server's answer (a metadata document, a registration, a token) was
    /// longer than [`MAX_ANSWER_BYTES`](super::MAX_ANSWER_BYTES); the rest was not read.
    #[error(
        "{action}: the answer is larger than {limit} bytes, far more than any OAuth document \
         needs; it was not read further (check that the server's URL is right, or tell whoever \
         runs its authorization server)"
    )]
    AnswerTooLarge {
        /// What was being done, naming the URL (without its query).
        action: String,
        /// The limit, in bytes.
        limit: usize,
    },
    /// The authorization server answered with an OAuth error.
    #[error("{action}: {error}{}", .description.as_deref().map(|d| format!(" ({d})")).unwrap_or_default())]
    Rejected {
        /// What was being done, e.g. `token request to https://auth.example.com/token`.
        action: String,
        /// The OAuth error code (`invalid_grant`, `access_denied`, …), cut after 120 characters.
        error: String,
        /// The server's description, if any, cut after 120 characters.
        description: Option<String>,
    },
    /// The redirect came back with another `state` than the one sent: it does not belong to
    /// this login, so its code was not used.
    #[error("the authorization redirect carried an unexpected state; the login was abandoned")]
    StateMismatch,
    /// The redirect names another authorization server (its `iss`, RFC 9207) than the one the
    /// user was sent to: it may be a mix-up attack, handing one server's code to another, so
    /// its code was not redeemed and its error, if any, not believed.
    #[error(
        "the authorization redirect names the issuer {received}, not {expected} where the login \
         was sent; its code was not used and the login was abandoned"
    )]
    IssuerMismatch {
        /// The issuer of the authorization server the login was sent to (its metadata's).
        expected: String,
        /// The `iss` the redirect carried, cut after 120 characters.
        received: String,
    },
    /// The authorization server's metadata promises an `iss` in every redirect
    /// (`authorization_response_iss_parameter_supported`, RFC 9207) and this one had none: it
    /// may not come from that server, so its code was not redeemed.
    #[error(
        "the authorization redirect names no issuer, though {issuer} says its redirects always \
         do; its code was not used and the login was abandoned"
    )]
    IssuerMissing {
        /// The authorization server the login was sent to.
        issuer: String,
    },
    /// The user did not finish the login in time.
    #[error("no authorization redirect arrived within {waited:?}")]
    TimedOut {
        /// How long the handler waited.
        waited: std::time::Duration,
    },
    /// The browser step could not be done (no listener, no redirect).
    #[error("the browser step failed: {0}")]
    Redirect(String),
    /// The credential store could not be read or written.
    #[error(transparent)]
    Store(#[from] crate::credentials::CredentialStoreError),
    /// A local resource (the redirect listener) failed.
    #[error("{action}: {source}")]
    Io {
        /// What was being done.
        action: String,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// A credential file ([`SecretSource::File`](super::SecretSource::File): a key, a workload
    /// assertion, an ID token) cannot be read or holds nothing usable. The message names the
    /// file, never its contents.
    #[error("the {what} file {} cannot be used: {problem}", .path.display())]
    CredentialFile {
        /// What the file should hold, e.g. `workload identity assertion`.
        what: String,
        /// The file.
        path: std::path::PathBuf,
        /// Why not.
        problem: String,
    },
    /// The authorization server refused this assertion before (a workload identity grant): it
    /// is not sent again. A new assertion (its file rewritten by the platform) is tried.
    #[error(
        "the authorization server refused this {what} before; it is not sent again (a new one is \
         needed: check the workload's identity setup)"
    )]
    AssertionRefused {
        /// What was refused, e.g. `workload identity assertion`.
        what: String,
    },
    /// DPoP is required for this server ([`Dpop::Required`](super::Dpop::Required)) and the
    /// authorization server cannot bind tokens with this client's ES256 key (its metadata
    /// lists other algorithms only, or it issued a bearer token).
    #[error(
        "the authorization server {issuer} does not issue DPoP-bound tokens for ES256 keys ({problem}); this server is configured to require DPoP"
    )]
    DpopUnsupported {
        /// The authorization server.
        issuer: String,
        /// What it did.
        problem: String,
    },
    /// A signing key cannot be used: the one given for a client assertion, or this client's
    /// DPoP key.
    #[error("the signing key cannot be used: {0}")]
    Key(String),
}

impl OAuthError {
    pub(crate) fn http(action: impl Into<String>, source: reqwest::Error) -> Self {
        Self::Http {
            action: action.into(),
            source: source.without_url(),
        }
    }

    /// An OAuth error answer; the server's texts are cut (see [`quoted`]).
    pub(crate) fn rejected(
        action: impl Into<String>,
        error: &str,
        description: Option<&str>,
    ) -> Self {
        Self::Rejected {
            action: action.into(),
            error: quoted(error),
            description: description.map(quoted),
        }
    }

    pub(crate) fn invalid(action: impl Into<String>, problem: impl Into<String>) -> Self {
        Self::InvalidResponse {
            action: action.into(),
            problem: problem.into(),
        }
    }

    /// True when the user logging in (again) is what fixes this: no credentials, or the
    /// authorization server no longer accepts the ones stored.
    pub fn needs_login(&self) -> bool {
        match self {
            Self::LoginRequired { .. } | Self::RefreshRefused { .. } => true,
            Self::Rejected { error, .. } => error == "invalid_grant",
            _ => false,
        }
    }
}

/// The longest piece of a server's value an error quotes.
const QUOTED_CHARS: usize = 120;

/// `text`, cut to [`QUOTED_CHARS`] with the marker configuration messages use too: an error
/// never quotes what a server sent whole (an `error_description` may be a megabyte).
pub(crate) fn quoted(text: &str) -> String {
    match text.char_indices().nth(QUOTED_CHARS) {
        Some((end, _)) => format!("{}… ({} bytes in all)", &text[..end], text.len()),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_server_text_is_cut_with_a_marker_and_a_short_one_kept_whole() {
        let huge = "é".repeat(10 * 1024 * 1024);
        let error = OAuthError::rejected(
            "token request to https://a.example/token",
            "invalid_grant",
            Some(&huge),
        );
        let shown = error.to_string();
        assert!(shown.len() < 400, "{shown}");
        assert!(
            shown.contains(&format!("… ({} bytes in all)", huge.len())),
            "{shown}"
        );
        assert!(error.needs_login(), "the code still counts");
        assert_eq!(quoted("invalid_grant"), "invalid_grant");
        assert_eq!(quoted(&"x".repeat(QUOTED_CHARS)), "x".repeat(QUOTED_CHARS));
    }
}
