//! OAuth 2.1 for remote servers (feature `oauth`), as the MCP authorization specification
//! (2026-07-28, with the 2025-11-25, 2025-06-18 and 2025-03-26 behaviours) describes it.
//!
//! An [`OAuthAuthorizer`] plugs into the HTTP transports through
//! [`HttpServerParams::authorizer`](crate::http::HttpServerParams::authorizer). When the server
//! answers 401 it finds the authorization server (protected resource metadata, RFC 9728; then
//! RFC 8414 / OpenID discovery; or the 2025-03-26 fallbacks), gets the client an identity there
//! (a configured client, a client ID metadata document, or dynamic registration, RFC 7591), runs
//! the [`Grant`] and retries the request with the token:
//!
//! - **authorization code** with PKCE S256 (servers without S256 are refused), a checked
//!   `state`, the `resource` parameter (RFC 8707) and the scopes of the challenge (else those the
//!   resource lists, else none), with `offline_access` added when there are some and the
//!   authorization server lists it; the browser step is an [`AuthorizationHandler`] —
//!   [`LoopbackBrowser`] by default — and without one the authorizer never asks the user and
//!   fails with [`OAuthError::LoginRequired`] instead, which is what a background connection
//!   wants;
//! - **client credentials** (a secret, or a `private_key_jwt` assertion signed with ES256) for
//!   agents that run unattended;
//! - **identity assertion** (enterprise-managed authorization, SEP-990): an ID token exchanged at
//!   the identity provider for an identity assertion grant (`id-jag`), which the client then
//!   presents to the authorization server as a JWT bearer grant with its own credentials;
//! - **workload identity** (SEP-1933): a JWT the workload's platform issued (a Kubernetes
//!   projected service account token, say) presented as a JWT bearer grant (RFC 7523); an
//!   assertion refused once is never sent again and no other grant is tried.
//!
//! Keys, assertions and ID tokens may be given as values or as files ([`SecretSource`]), read
//! again for every token request so a credential the platform rotates is always the current
//! one.
//!
//! **DPoP** (RFC 9449, SEP-1932) binds tokens to a key of this client's: the token request
//! carries a proof signed with it, and every request to the server `Authorization: DPoP …` and
//! a fresh proof (the request's method and URL, the token's hash, the server's nonce when it
//! asked for one). A stolen token is then useless without the key. It is used when the MCP
//! server asks for it ([`Dpop::Auto`], the default: its challenge offers the `DPoP` scheme or
//! its resource metadata lists DPoP algorithms), never ([`Dpop::Off`]) or always
//! ([`Dpop::Required`]); not merely because the authorization server advertises
//! `dpop_signing_alg_values_supported`, since it advertises that for every resource it serves,
//! and a resource server that takes bearer tokens only would refuse a bound one. Nonces
//! (`use_dpop_nonce`, from the token endpoint or the server) are kept and the request is made
//! again once with a new proof carrying them.
//!
//! Tokens are refreshed before they expire (30 s before, or a quarter of their lifetime when
//! that is shorter) and when a 401 says they did, once for however many requests were refused
//! together; a 403 `insufficient_scope` asks for the scopes it names on top of those held
//! (step-up), a bounded number of times. Credentials are kept in a [`CredentialStore`] under
//! the server's canonical URL ([`credential_key`]), never its configured name: a project file
//! that names another URL under a familiar name gets nothing. A login is shared with every
//! other process using the store: a refresh happens under the store's lock after reading the
//! login again (another process's renewal is used, never repeated, so a single-use refresh
//! token is presented once), a refused token sends the authorizer back to the store first,
//! and a refresh token the authorization server refuses is [`OAuthError::RefreshRefused`].
//!
//! Nothing an authorization server names is opened or followed blindly: its login page is
//! shown and opened only when [`openable`] allows it (`https:`, or `http:` on this machine;
//! else [`OAuthError::NotOpenable`], before any listener or registration), and a request that
//! carries credentials (a token request, a refresh, a registration, an identity provider's
//! exchange) follows redirects only within its own origin ([`OAuthError::CrossOriginRedirect`]
//! otherwise, with nothing sent there). The browser step learns how the login ended
//! ([`PendingRedirect::finish`]) once the redirect was checked and its code exchanged, so a
//! refused login says so, with the reason, where the user is looking.
//! Tokens, secrets and codes never appear in `Debug` output, errors or logs ([`Secret`]). An
//! authorization server's answers are read at most [`MAX_ANSWER_BYTES`] each, and what errors
//! quote of them is cut after 120 characters.
//!
//! The 2026-07-28 revision adds three things for clients, done for every server whatever
//! revision it speaks (they concern its authorization server):
//!
//! - **the issuer of the authorization response** (RFC 9207, SEP-2468): an `iss` in the
//!   redirect must be the `issuer` of the authorization server's metadata, compared character
//!   for character (no case folding, no trailing slash or default port dropped), and a server
//!   whose metadata sets `authorization_response_iss_parameter_supported` must send one;
//!   otherwise the code is never sent to a token endpoint and the redirect's `error` is not
//!   believed ([`OAuthError::IssuerMismatch`], [`OAuthError::IssuerMissing`]);
//! - **`application_type` in dynamic registration** (SEP-837): `native` for a redirect to this
//!   machine (loopback, `localhost`) or to an app's own scheme, `web` for one to a remote host;
//! - **client identities bound to their authorization server** (SEP-2352): kept for each server
//!   under the issuer of the authorization server that issued them ([`Credentials::clients`]),
//!   presented to no other, and when the server's resource metadata names another
//!   authorization server the client registers there anew. Credential files written before
//!   (one client per server) are read with that client under their stored issuer.
//!
//! ```no_run
//! use std::sync::Arc;
//!
//! use mcp_transport::http::{HttpServerParams, Url};
//! use mcp_transport::oauth::{FileCredentialStore, LoopbackBrowser, OAuthAuthorizer, OAuthOptions};
//! use mcp_transport::{ClientOptions, McpClient};
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let url = Url::parse("https://mcp.example.com/mcp")?;
//! let store = Arc::new(FileCredentialStore::new("/home/me/.config/my-agent/credentials.json"));
//! let browser = LoopbackBrowser::new(|url| eprintln!("Log in at {url}")).open_browser(true);
//! let options = OAuthOptions::new(store).interactive(Arc::new(browser));
//! let authorizer = Arc::new(OAuthAuthorizer::new(&url, options)?);
//! let params = HttpServerParams::new(url.as_str())?.authorizer(authorizer);
//! let client = McpClient::connect_http("example", params, ClientOptions::default()).await?;
//! # drop(client); Ok(()) }
//! ```

mod authorizer;
mod challenge;
mod crypto;
mod discovery;
mod dpop;
// Reached from below: `TransportError::Authorization` carries an `OAuthError`.
pub(crate) mod error;
mod handler;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// The credential store the authorizer keeps its state in lives in [`crate::credentials`]
/// (compiled without this feature too: a stdio server's stored token comes from it).
pub use crate::credentials::{
    CredentialLock, CredentialStore, CredentialStoreError, Credentials, FileCredentialStore,
    MemoryCredentialStore, RegisteredClient, Secret, TokenAuthMethod, TokenType, Tokens,
};
pub use crate::http::Url;
use crate::http::response::{BodyError, read_limited};
/// What may be opened for the user lives in [`crate::open_url`] (a URL elicitation needs it
/// too); the browser step gets its URL as an [`OpenableUrl`].
pub use crate::open_url::{NotOpenable, OpenableUrl, openable};
pub use authorizer::{OAuthAuthorizer, credential_key};
pub use error::OAuthError;
pub use handler::{
    AuthorizationHandler, DEFAULT_LOGIN_TIMEOUT, LoopbackBrowser, PendingRedirect, ShowUrl,
};

/// How long one request to an authorization server may take.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// The most an authorization server's answer (protected resource or authorization server
/// metadata, a registration, a token) may hold. Real ones are a few kilobytes; a hostile or
/// broken server could otherwise send gigabytes into memory before any parsing starts. A
/// longer answer is [`OAuthError::AnswerTooLarge`] and is not read further.
pub const MAX_ANSWER_BYTES: usize = 1024 * 1024;

/// The body of an authorization server's answer, at most [`MAX_ANSWER_BYTES`] of it.
async fn read_answer(
    mut response: reqwest::Response,
    action: &str,
) -> Result<bytes::Bytes, OAuthError> {
    read_limited(&mut response, MAX_ANSWER_BYTES)
        .await
        .map_err(|error| match error {
            BodyError::Read(error) => OAuthError::http(action, error),
            BodyError::TooLarge => OAuthError::AnswerTooLarge {
                action: action.to_owned(),
                limit: MAX_ANSWER_BYTES,
            },
        })
}

/// A client registered with the authorization server beforehand (in the configuration).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PreRegisteredClient {
    /// The client ID.
    pub client_id: String,
    /// The client secret, for a confidential client.
    pub client_secret: Option<Secret>,
}

impl PreRegisteredClient {
    /// A client with this ID and, for a confidential one, secret.
    pub fn new(client_id: impl Into<String>, client_secret: Option<Secret>) -> Self {
        Self {
            client_id: client_id.into(),
            client_secret,
        }
    }
}

/// The most a credential file ([`SecretSource::File`]) may hold: keys, ID tokens and
/// workload assertions are a few kilobytes.
pub const MAX_CREDENTIAL_FILE_BYTES: u64 = 64 * 1024;

/// Where a credential the client sends (a key, an assertion, an ID token) comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SecretSource {
    /// Given as it is.
    Value(Secret),
    /// A file, read again for every token request that needs it, so a credential the platform
    /// rotates (a Kubernetes projected service account token, an ID token a login agent keeps
    /// fresh) is always the current one. At most [`MAX_CREDENTIAL_FILE_BYTES`], surrounding
    /// whitespace trimmed, never empty; errors name the file, never what it holds.
    File(PathBuf),
}

impl From<Secret> for SecretSource {
    fn from(secret: Secret) -> Self {
        Self::Value(secret)
    }
}

impl SecretSource {
    /// The credential now; `what` names it in errors (`workload identity assertion`).
    pub(crate) async fn read(&self, what: &str) -> Result<Secret, OAuthError> {
        let path = match self {
            Self::Value(secret) => return Ok(secret.clone()),
            Self::File(path) => path,
        };
        let failed = |problem: String| OAuthError::CredentialFile {
            what: what.to_owned(),
            path: path.clone(),
            problem,
        };
        let file = tokio::fs::File::open(path)
            .await
            .map_err(|error| failed(error.to_string()))?;
        let mut bytes = Vec::new();
        tokio::io::AsyncReadExt::read_to_end(
            &mut tokio::io::AsyncReadExt::take(file, MAX_CREDENTIAL_FILE_BYTES + 1),
            &mut bytes,
        )
        .await
        .map_err(|error| failed(error.to_string()))?;
        if bytes.len() as u64 > MAX_CREDENTIAL_FILE_BYTES {
            return Err(failed(format!(
                "it is larger than {MAX_CREDENTIAL_FILE_BYTES} bytes"
            )));
        }
        let text = String::from_utf8(bytes).map_err(|_| failed("it is not UTF-8 text".into()))?;
        let text = text.trim();
        if text.is_empty() {
            return Err(failed("it is empty".into()));
        }
        Ok(Secret::new(text))
    }
}

/// How a client that acts for itself proves who it is.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ClientCredential {
    /// A client secret (sent as the authorization server prefers: Basic or in the form).
    Secret(Secret),
    /// A `private_key_jwt` assertion signed with this P-256 key (PKCS #8 PEM), ES256.
    PrivateKeyJwt {
        /// The PEM text, or the file holding it (read for every token request).
        private_key_pem: SecretSource,
    },
}

/// Enterprise-managed authorization (SEP-990): what the identity provider and the
/// authorization server need.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct IdentityAssertion {
    /// The client ID at the MCP server's authorization server.
    pub client_id: String,
    /// The client secret there.
    pub client_secret: Secret,
    /// The identity provider's token endpoint.
    pub idp_token_endpoint: Url,
    /// The client ID at the identity provider.
    pub idp_client_id: String,
    /// The user's ID token from the identity provider, or the file holding it (read for every
    /// exchange: ID tokens are short-lived and a login agent keeps the file fresh).
    pub id_token: SecretSource,
}

impl IdentityAssertion {
    /// What [`Grant::IdentityAssertion`] needs: the client at the authorization server, and the
    /// identity provider's token endpoint, client ID and the user's ID token there.
    pub fn new(
        client_id: impl Into<String>,
        client_secret: Secret,
        idp_token_endpoint: Url,
        idp_client_id: impl Into<String>,
        id_token: impl Into<SecretSource>,
    ) -> Self {
        Self {
            client_id: client_id.into(),
            client_secret,
            idp_token_endpoint,
            idp_client_id: idp_client_id.into(),
            id_token: id_token.into(),
        }
    }
}

/// Workload identity federation (SEP-1933): a workload proves who it is with a JWT its
/// platform issued (a Kubernetes service account token, a cloud's identity token), sent as a
/// JWT bearer grant (RFC 7523 §2.1), with no user and no client secret.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct WorkloadIdentity {
    /// The client ID to send with the grant, if the authorization server wants one.
    pub client_id: Option<String>,
    /// The JWT, or the file holding it (read for every token request).
    pub assertion: SecretSource,
}

impl WorkloadIdentity {
    /// The grant with this assertion, and no client ID.
    pub fn new(assertion: impl Into<SecretSource>) -> Self {
        Self {
            client_id: None,
            assertion: assertion.into(),
        }
    }

    /// Sends `client_id` with the grant.
    #[must_use]
    pub fn client_id(mut self, client_id: impl Into<String>) -> Self {
        self.client_id = Some(client_id.into());
        self
    }
}

/// How tokens are obtained.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Grant {
    /// The user logs in in a browser (authorization code with PKCE); the client is the
    /// configured one, else one the authorization server knows through a client ID metadata
    /// document or dynamic registration.
    AuthorizationCode {
        /// A client registered beforehand, if the configuration names one.
        client: Option<PreRegisteredClient>,
    },
    /// The client acts for itself (client credentials), with no user involved.
    ClientCredentials {
        /// The client ID.
        client_id: String,
        /// Its credential.
        credential: ClientCredential,
    },
    /// An identity provider's assertion is exchanged for a token (SEP-990).
    IdentityAssertion(IdentityAssertion),
    /// The workload's platform-issued JWT is the grant (RFC 7523 JWT bearer, SEP-1933). An
    /// assertion the authorization server refuses is never sent again, and no other grant is
    /// tried instead ([`OAuthError::AssertionRefused`] until the source gives a new one).
    WorkloadIdentity(WorkloadIdentity),
}

/// When tokens are bound to this client's key with DPoP (RFC 9449, SEP-1932).
///
/// The default, [`Auto`](Self::Auto), follows the resource server, not the authorization
/// server: an authorization server that advertises `dpop_signing_alg_values_supported`
/// usually does so for every resource it serves, and a resource server that takes only bearer
/// tokens refuses a DPoP-bound one. The server that has to accept the token says whether it
/// can.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Dpop {
    /// When the MCP server asks for it: its challenge offers the `DPoP` scheme, or its
    /// protected resource metadata lists `dpop_signing_alg_values_supported` or sets
    /// `dpop_bound_access_tokens_required`; and the authorization server does not list only
    /// algorithms other than ES256. A token the authorization server issues unbound is then
    /// used as a bearer token.
    #[default]
    Auto,
    /// Always: every token request carries a proof, and an authorization server that lists
    /// algorithms without ES256, or issues the token unbound, is refused
    /// ([`OAuthError::DpopUnsupported`]).
    Required,
    /// Never: bearer tokens only.
    Off,
}

/// Settings of an [`OAuthAuthorizer`].
#[derive(Clone)]
#[non_exhaustive]
pub struct OAuthOptions {
    /// How tokens are obtained; default: the authorization code flow with a client found or
    /// registered automatically.
    pub grant: Grant,
    /// The name dynamic registration gives the client.
    pub client_name: String,
    /// The URL of this client's client ID metadata document, used as its client ID where the
    /// authorization server accepts that; none by default (the document must be published by
    /// whoever ships the client).
    pub client_metadata_url: Option<Url>,
    /// The browser step; none (the default) means the user is never asked and a missing or
    /// dead login is [`OAuthError::LoginRequired`].
    pub handler: Option<Arc<dyn AuthorizationHandler>>,
    /// Where credentials are kept.
    pub store: Arc<dyn CredentialStore>,
    /// How long one request to an authorization server may take; default
    /// [`DEFAULT_REQUEST_TIMEOUT`].
    pub request_timeout: Duration,
    /// When tokens are DPoP-bound; default [`Dpop::Auto`].
    pub dpop: Dpop,
}

impl std::fmt::Debug for OAuthOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthOptions")
            .field("grant", &self.grant)
            .field("client_name", &self.client_name)
            .field("client_metadata_url", &self.client_metadata_url)
            .field("interactive", &self.handler.is_some())
            .field("request_timeout", &self.request_timeout)
            .field("dpop", &self.dpop)
            .finish_non_exhaustive()
    }
}

impl OAuthOptions {
    /// Authorization code with automatic client identity, credentials kept in `store`, no
    /// browser step.
    pub fn new(store: Arc<dyn CredentialStore>) -> Self {
        Self {
            grant: Grant::AuthorizationCode { client: None },
            client_name: env!("CARGO_PKG_NAME").to_owned(),
            client_metadata_url: None,
            handler: None,
            store,
            request_timeout: DEFAULT_REQUEST_TIMEOUT,
            dpop: Dpop::Auto,
        }
    }

    /// Obtains tokens with `grant`.
    #[must_use]
    pub fn grant(mut self, grant: Grant) -> Self {
        self.grant = grant;
        self
    }

    /// The client's name in dynamic registrations.
    #[must_use]
    pub fn client_name(mut self, name: impl Into<String>) -> Self {
        self.client_name = name.into();
        self
    }

    /// The client ID metadata document to use as client ID where it is accepted.
    #[must_use]
    pub fn client_metadata_url(mut self, url: Url) -> Self {
        self.client_metadata_url = Some(url);
        self
    }

    /// Lets the authorizer ask the user to log in through `handler`.
    #[must_use]
    pub fn interactive(mut self, handler: Arc<dyn AuthorizationHandler>) -> Self {
        self.handler = Some(handler);
        self
    }

    /// How long one request to an authorization server may take.
    #[must_use]
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// When tokens are DPoP-bound.
    #[must_use]
    pub fn dpop(mut self, dpop: Dpop) -> Self {
        self.dpop = dpop;
        self
    }
}
