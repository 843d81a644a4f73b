//! [`OAuthAuthorizer`]: the flow itself, behind the HTTP transports' [`Authorizer`] hook.
//!
//! This file holds the authorizer's state, how its login is read from, renewed in and
//! written to the credential store, and the hook; the grants (the browser login, client
//! credentials, assertions, registration) are in `grants`, and the token requests (with
//! their redirect policy) in `token`.

mod grants;
mod token;

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use async_trait::async_trait;
use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderValue};
use serde::Deserialize;

use super::challenge::Challenge;
use super::crypto::{Pkce, basic_credentials, client_assertion, random_token, sha256_base64url};
use super::discovery::{Discovery, canonical_resource, discover};
use super::dpop::{self, DpopKey};
use super::error::quoted;
use super::handler::PendingRedirect;
use super::{
    ClientCredential, Dpop, Grant, IdentityAssertion, OAuthError, OAuthOptions,
    PreRegisteredClient, Secret, SecretSource, Url, WorkloadIdentity, read_answer,
};
use crate::credentials::{
    CredentialLock, Credentials, RegisteredClient, TokenAuthMethod, TokenType, Tokens,
};
use crate::http::display_url;
use crate::http::{Authorizer, Refusal, RequestCredentials, RequestTarget};
use crate::open_url::openable;
use crate::secrets::Secrets;
use crate::transport::TransportError;
use grants::choose_scope;
use token::{TokenClient, credentialed_failure, read_json, same_origin_only, sensitive};

/// An access token this close to its expiry is renewed before it is sent, or a quarter of its
/// lifetime when that is shorter: a token that lives 10 s is not renewed before every request.
const EXPIRY_MARGIN: Duration = Duration::from_secs(30);

/// OAuth 2.1 for one MCP server, as the MCP authorization specification describes it. Give it
/// to [`HttpServerParams::authorizer`](crate::http::HttpServerParams::authorizer); it then
/// supplies every request's bearer token and, when the server refuses one:
///
/// - a 401 with a refresh token at hand: refreshes, once for however many requests were
///   refused with the same token;
/// - a 401 otherwise: runs the [`Grant`] — the authorization code flow through the
///   [`AuthorizationHandler`](super::AuthorizationHandler) (or [`OAuthError::LoginRequired`]
///   when there is none), client credentials, or an identity assertion;
/// - a 403 with `insufficient_scope`: authorizes again asking for the scopes it already had and
///   the ones the challenge names (step-up);
/// - a 401 whose `DPoP` challenge says `use_dpop_nonce`: keeps the server's nonce and sends the
///   request again with a new proof carrying it (once per nonce: the same nonce refused again
///   stands). A token endpoint's `use_dpop_nonce` is answered the same way, once.
///
/// A request is retried at most
/// [`MAX_AUTHORIZATION_RETRIES`](crate::http::MAX_AUTHORIZATION_RETRIES) times.
///
/// With DPoP ([`Dpop`]) every token request carries a proof signed by the authorizer's own
/// ES256 key, and every request to the server `Authorization: DPoP <token>` with a fresh proof
/// (its method, its URL without query, the token's hash and the server's latest nonce). The
/// key is kept with the credentials, so bound tokens outlive a restart.
///
/// Credentials are loaded from and saved to the [`CredentialStore`](super::CredentialStore)
/// under the server's canonical URL. Other processes may use the same login: a renewal
/// happens under the store's [`lock`](super::CredentialStore::lock), after reading the
/// stored login again (another process may have renewed it: its token is used, and a
/// rotating refresh token is never presented twice), and a token the server refuses sends the
/// authorizer to the store before anything else. A login is never saved over one stored after
/// it was read; client registrations are added to those stored.
///
/// Requests that carry credentials (token requests of every grant, refreshes, dynamic
/// registration, an identity provider's token exchange) follow a redirect only within their
/// own origin (scheme, host and port: the server that was going to receive the credential
/// anyway), at most five; one to another origin is [`OAuthError::CrossOriginRedirect`] and
/// nothing is sent there. Discovery's metadata requests carry none and follow redirects.
pub struct OAuthAuthorizer {
    server: Url,
    key: String,
    options: OAuthOptions,
    /// Discovery's requests, which carry no credential.
    http: reqwest::Client,
    /// Requests that carry credentials: redirects only within their origin.
    credentialed: reqwest::Client,
    state: tokio::sync::Mutex<State>,
    /// The servers' latest DPoP nonces: read while a proof is made, without the state's lock
    /// held across a request.
    nonces: Mutex<Nonces>,
    /// Every credential sent to an authorization server, scrubbed from what its errors say.
    secrets: Secrets,
}

#[derive(Default)]
struct State {
    loaded: bool,
    credentials: Credentials,
    /// The tokens as the store held them when last read or written: a stored login that
    /// differs from them was written by someone else since.
    stored_tokens: Option<Tokens>,
    /// The authorization server refused the stored refresh token (its error and description):
    /// the login is over, and the error that says so names the refusal.
    refresh_refusal: Option<(String, Option<String>)>,
    discovery: Option<Discovery>,
    /// The DPoP key of `credentials.dpop_key`, parsed.
    dpop_key: Option<Arc<DpopKey>>,
    /// A challenge of the server offered the `DPoP` scheme: it takes bound tokens.
    resource_wants_dpop: bool,
    /// The hash of the last workload assertion the authorization server refused: it is never
    /// sent again.
    refused_assertion: Option<String>,
}

/// The last nonce each server gave for DPoP proofs (RFC 9449 §8, §9).
#[derive(Default)]
struct Nonces {
    authorization_server: Option<String>,
    resource_server: Option<String>,
}

impl std::fmt::Debug for OAuthAuthorizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthAuthorizer")
            .field("server", &self.key)
            .field("interactive", &self.options.handler.is_some())
            .finish_non_exhaustive()
    }
}

/// The store key of the server at `server`: its canonical URL — lowercase scheme and host, the
/// default port dropped, the path kept (without a trailing slash at the root), no userinfo,
/// query or fragment. Tokens kept under it never reach a server at another URL.
///
/// The runtime's one computation of that key: the [`CredentialStore`](super::CredentialStore)
/// is keyed by it, and a caller that looks a server up in a credential store of its own (an
/// embedding agent's) uses it too, so every store names a server alike. It is the server's
/// resource identifier (RFC 8707), too.
pub fn credential_key(server: &Url) -> String {
    canonical_resource(server)
}

/// Seconds since the Unix epoch: the clock of the stored tokens' expiry.
pub(crate) use crate::credentials::unix_now as now;

impl OAuthAuthorizer {
    /// An authorizer for the MCP server at `server`.
    pub fn new(server: &Url, options: OAuthOptions) -> Result<Self, OAuthError> {
        let builder = || {
            reqwest::Client::builder()
                .connect_timeout(crate::http::DEFAULT_CONNECT_TIMEOUT)
                .timeout(options.request_timeout)
        };
        let http = builder()
            .build()
            .map_err(|error| OAuthError::http("building the HTTP client", error))?;
        let credentialed = builder()
            .redirect(reqwest::redirect::Policy::custom(same_origin_only))
            .build()
            .map_err(|error| OAuthError::http("building the HTTP client", error))?;
        Ok(Self {
            server: server.clone(),
            key: credential_key(server),
            options,
            http,
            credentialed,
            state: tokio::sync::Mutex::new(State::default()),
            nonces: Mutex::new(Nonces::default()),
            secrets: Secrets::new(),
        })
    }

    /// The key its credentials are stored under (see [`credential_key`]).
    pub fn credential_key(&self) -> &str {
        &self.key
    }

    async fn load(&self, state: &mut State) -> Result<(), OAuthError> {
        if !state.loaded {
            let stored = self.options.store.load(&self.key).await?;
            self.adopt(state, stored.unwrap_or_default());
            state.loaded = true;
        }
        Ok(())
    }

    /// Reads the store again and takes what it holds when its login differs from the one this
    /// authorizer last read or wrote: another process renewed it, logged in again or out.
    /// True when it did.
    async fn reload(&self, state: &mut State) -> Result<bool, OAuthError> {
        let stored = self
            .options
            .store
            .load(&self.key)
            .await?
            .unwrap_or_default();
        if stored.tokens == state.stored_tokens {
            return Ok(false);
        }
        tracing::debug!(server = %self.key, "the stored login changed (another process renewed it or logged in); using it");
        self.adopt(state, stored);
        Ok(true)
    }

    /// Makes `stored` this authorizer's credentials.
    fn adopt(&self, state: &mut State, stored: Credentials) {
        state.stored_tokens = stored.tokens.clone();
        state.credentials = stored;
        state.refresh_refusal = None;
        state.dpop_key = match &state.credentials.dpop_key {
            Some(stored) => match DpopKey::from_stored(stored) {
                Ok(key) => Some(Arc::new(key)),
                Err(error) => {
                    tracing::info!(server = %self.key, %error, "the stored DPoP key cannot be used; a new one is made when needed");
                    state.credentials.dpop_key = None;
                    None
                }
            },
            None => None,
        };
        let unusable =
            state.credentials.tokens.as_ref().is_some_and(|tokens| {
                tokens.token_type == TokenType::Dpop && state.dpop_key.is_none()
            });
        if unusable {
            // Bound to a key that is gone: nothing can prove possession of them.
            state.credentials.tokens = None;
        }
    }

    fn nonces(&self) -> std::sync::MutexGuard<'_, Nonces> {
        self.nonces.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The DPoP key, made (and kept with the credentials) when there is none yet.
    fn dpop_key(state: &mut State) -> Result<Arc<DpopKey>, OAuthError> {
        if let Some(key) = &state.dpop_key {
            return Ok(Arc::clone(key));
        }
        let key = Arc::new(DpopKey::generate()?);
        state.credentials.dpop_key = Some(key.stored().clone());
        state.dpop_key = Some(Arc::clone(&key));
        Ok(key)
    }

    /// Whether new tokens are asked for bound to the DPoP key (see [`Dpop`]).
    fn use_dpop(
        &self,
        state: &State,
        challenge: &Challenge,
        discovery: &Discovery,
    ) -> Result<bool, OAuthError> {
        let es256 = discovery
            .dpop_algorithms
            .as_ref()
            .is_none_or(|algorithms| algorithms.iter().any(|alg| alg == dpop::ALGORITHM));
        match self.options.dpop {
            Dpop::Off => Ok(false),
            Dpop::Required if es256 => Ok(true),
            Dpop::Required => Err(OAuthError::DpopUnsupported {
                issuer: quoted(&discovery.issuer),
                problem: "its metadata lists other proof algorithms only".to_owned(),
            }),
            Dpop::Auto => {
                let asked =
                    state.resource_wants_dpop || challenge.dpop || discovery.resource_wants_dpop;
                if asked && !es256 {
                    tracing::debug!(server = %self.key, "the server asks for DPoP but its authorization server takes no ES256 proofs; using bearer tokens");
                }
                Ok(asked && es256)
            }
        }
    }

    /// Saves this authorizer's login — its tokens, their issuer and its DPoP key — over the
    /// stored one, and its client registrations beside the stored ones (a registration
    /// another process made at another authorization server is kept). The caller holds the
    /// store's lock for this server (`_held`) and has decided that its login is the newer:
    /// it is a new login, or a renewal of the very login stored.
    async fn write_login(
        &self,
        state: &mut State,
        _held: &CredentialLock,
    ) -> Result<(), OAuthError> {
        let store = &self.options.store;
        let mut merged = store.load(&self.key).await?.unwrap_or_default();
        for (issuer, client) in &state.credentials.clients {
            merged.clients.insert(issuer.clone(), client.clone());
        }
        merged.issuer.clone_from(&state.credentials.issuer);
        merged.tokens.clone_from(&state.credentials.tokens);
        merged.dpop_key.clone_from(&state.credentials.dpop_key);
        merged.login_id.clone_from(&state.credentials.login_id);
        store.save(&self.key, &merged).await?;
        state.stored_tokens = merged.tokens.clone();
        state.credentials = merged;
        Ok(())
    }

    /// Whether the access token is close enough to its expiry to be renewed before it is sent
    /// (see [`EXPIRY_MARGIN`]); only one that can be renewed is.
    fn expiring(state: &State) -> bool {
        let Some(tokens) = &state.credentials.tokens else {
            return false;
        };
        let Some(expires_at) = tokens.expires_at.filter(|_| tokens.refresh_token.is_some()) else {
            return false;
        };
        let margin = match tokens.issued_at {
            Some(issued_at) if expires_at > issued_at => {
                ((expires_at - issued_at) / 4).min(EXPIRY_MARGIN.as_secs())
            }
            _ => EXPIRY_MARGIN.as_secs(),
        };
        expires_at <= now().saturating_add(margin)
    }

    /// The `Authorization` value of the current token (`Bearer …` or `DPoP …`).
    fn authorization_value(state: &State) -> Result<Option<HeaderValue>, OAuthError> {
        let Some(tokens) = &state.credentials.tokens else {
            return Ok(None);
        };
        let value = format!(
            "{} {}",
            tokens.token_type.scheme(),
            tokens.access_token.expose()
        );
        Ok(Some(sensitive(&value, "using the access token")?))
    }

    /// The credentials of a request to the server: the token and, for a DPoP-bound one, a new
    /// proof for this request carrying the server's latest nonce.
    fn request_credentials(
        &self,
        state: &State,
        request: RequestTarget<'_>,
    ) -> Result<Option<RequestCredentials>, OAuthError> {
        let (Some(tokens), Some(authorization)) =
            (&state.credentials.tokens, Self::authorization_value(state)?)
        else {
            return Ok(None);
        };
        let credentials = RequestCredentials::new(authorization);
        if tokens.token_type != TokenType::Dpop {
            return Ok(Some(credentials));
        }
        let Some(key) = &state.dpop_key else {
            return Err(OAuthError::Key(
                "the token is bound to a DPoP key this client no longer has".to_owned(),
            ));
        };
        let nonce = self.nonces().resource_server.clone();
        let proof = key.proof(
            request.method.as_str(),
            request.url,
            Some(tokens.access_token.expose()),
            nonce.as_deref(),
        )?;
        Ok(Some(
            credentials.dpop(sensitive(&proof, "making a DPoP proof")?),
        ))
    }

    /// The discovery made earlier in this process, or a new one from `challenge` (the
    /// resource metadata may be only where the server's challenge says).
    async fn discovery(
        &self,
        state: &mut State,
        challenge: &Challenge,
    ) -> Result<Discovery, OAuthError> {
        if let Some(discovery) = &state.discovery {
            return Ok(discovery.clone());
        }
        let discovery = discover(&self.http, &self.server, challenge).await?;
        state.discovery = Some(discovery.clone());
        Ok(discovery)
    }

    /// Renews the access token with the refresh token, coordinated with every other user of
    /// the store: under the store's lock for this server, the stored login is read again; if
    /// it changed (another process renewed it or logged in), it is used as it is; otherwise
    /// the refresh token is presented and the answer saved before the lock is released. A
    /// refresh token the authorization server refuses is dropped (under the same lock, so it
    /// is the stored one) and the error is [`OAuthError::RefreshRefused`]. `LoginRequired`
    /// when there is none, or it belongs to another authorization server than the one the
    /// server names now.
    async fn refresh(&self, state: &mut State, challenge: &Challenge) -> Result<(), OAuthError> {
        if !Self::has_refresh_token(state) {
            return Err(self.login_required(state));
        }
        let discovery = self.discovery(state, challenge).await?;
        let held = self.options.store.lock(&self.key).await?;
        if self.reload(state).await? {
            return match state.credentials.tokens {
                Some(_) => Ok(()),
                None => Err(self.login_required(state)),
            };
        }
        let Some(refresh_token) = state
            .credentials
            .tokens
            .as_ref()
            .and_then(|tokens| tokens.refresh_token.clone())
        else {
            return Err(self.login_required(state));
        };
        if state.credentials.issuer.as_deref() != Some(discovery.issuer.as_str()) {
            tracing::info!(server = %self.key, "the stored refresh token is from another authorization server; not using it");
            // Found without the server's challenge, the discovery may have missed metadata that
            // only the challenge names: the next refusal discovers again.
            state.discovery = None;
            return Err(self.login_required(state));
        }
        let client = self.client_for_tokens(state, &discovery)?;
        let form = [
            ("grant_type", "refresh_token"),
            ("refresh_token", refresh_token.expose()),
        ];
        // A bound token's refresh token is bound too (RFC 9449 §5): the same key proves it.
        let bound = state
            .credentials
            .tokens
            .as_ref()
            .is_some_and(|tokens| tokens.token_type == TokenType::Dpop);
        let key = if bound {
            Some(Self::dpop_key(state)?)
        } else {
            None
        };
        let answer = self
            .token_request(&discovery, &client, &form, key.as_deref())
            .await;
        let mut tokens = match answer {
            Ok(tokens) => tokens,
            Err(OAuthError::Rejected {
                error, description, ..
            }) if error == "invalid_grant" => {
                tracing::info!(server = %self.key, "the authorization server no longer accepts the refresh token");
                if let Some(tokens) = &mut state.credentials.tokens {
                    tokens.refresh_token = None;
                }
                self.write_login(state, &held).await?;
                state.refresh_refusal = Some((error, description));
                return Err(self.login_required(state));
            }
            Err(error) => return Err(error),
        };
        let previous = state.credentials.tokens.take();
        if tokens.refresh_token.is_none() {
            tokens.refresh_token = Some(refresh_token);
        }
        if tokens.scope.is_none() {
            tokens.scope = previous.and_then(|previous| previous.scope);
        }
        state.credentials.tokens = Some(tokens);
        self.write_login(state, &held).await?;
        tracing::debug!(server = %self.key, "refreshed the access token");
        Ok(())
    }

    fn has_refresh_token(state: &State) -> bool {
        state
            .credentials
            .tokens
            .as_ref()
            .is_some_and(|tokens| tokens.refresh_token.is_some())
    }

    /// The error of a login that is needed and cannot be asked for here: the refusal of the
    /// refresh token when that is what ended it.
    fn login_required(&self, state: &State) -> OAuthError {
        match &state.refresh_refusal {
            Some((error, description)) => OAuthError::RefreshRefused {
                server: self.key.clone(),
                error: error.clone(),
                description: description.clone(),
            },
            None => OAuthError::LoginRequired {
                server: self.key.clone(),
            },
        }
    }

    /// Refreshes; true when it did. A refresh token that cannot be used (refused, or from
    /// another authorization server) is false when the user can be asked to log in instead,
    /// and its error otherwise; other failures are errors.
    async fn try_refresh(
        &self,
        state: &mut State,
        challenge: &Challenge,
    ) -> Result<bool, OAuthError> {
        match self.refresh(state, challenge).await {
            Ok(()) => Ok(true),
            Err(error) if error.needs_login() && self.asks_the_user() => Ok(false),
            Err(error) => Err(error),
        }
    }

    /// Whether a new grant may be run when the login is over: any grant but the
    /// authorization code, which needs the browser step.
    fn asks_the_user(&self) -> bool {
        !matches!(self.options.grant, Grant::AuthorizationCode { .. })
            || self.options.handler.is_some()
    }

    /// Runs the grant for new tokens; `previous_scope` is kept in the request (step-up).
    async fn obtain(
        &self,
        state: &mut State,
        challenge: &Challenge,
        previous_scope: Option<&str>,
    ) -> Result<(), OAuthError> {
        if !self.asks_the_user() {
            return Err(self.login_required(state));
        }
        let discovery = discover(&self.http, &self.server, challenge).await?;
        state.discovery = Some(discovery.clone());
        let key = if self.use_dpop(state, challenge, &discovery)? {
            Some(Self::dpop_key(state)?)
        } else {
            None
        };
        let key = key.as_deref();
        let (tokens, pending) = match &self.options.grant {
            Grant::AuthorizationCode { client } => {
                let scope = choose_scope(challenge, &discovery, previous_scope, true);
                let (tokens, pending) = self
                    .authorization_code(state, &discovery, client.as_ref(), scope, key)
                    .await?;
                (tokens, Some(pending))
            }
            Grant::ClientCredentials {
                client_id,
                credential,
            } => {
                let scope = choose_scope(challenge, &discovery, previous_scope, false);
                let tokens = self
                    .client_credentials(&discovery, client_id, credential, scope, key)
                    .await?;
                (tokens, None)
            }
            Grant::IdentityAssertion(assertion) => {
                let scope = choose_scope(challenge, &discovery, previous_scope, false);
                let tokens = self
                    .identity_assertion(&discovery, assertion, scope, key)
                    .await?;
                (tokens, None)
            }
            Grant::WorkloadIdentity(identity) => {
                let scope = choose_scope(challenge, &discovery, previous_scope, false);
                let tokens = self
                    .workload_identity(state, &discovery, identity, scope, key)
                    .await?;
                (tokens, None)
            }
        };
        let kept = self.keep_new_login(state, &discovery, tokens).await;
        if let Some(pending) = pending {
            // The browser is answered now, with how the login ended.
            pending.finish(kept.as_ref().map(|_| ())).await;
        }
        kept
    }

    /// Keeps the tokens a grant gave: a new login, saved over whatever is stored.
    async fn keep_new_login(
        &self,
        state: &mut State,
        discovery: &Discovery,
        tokens: Tokens,
    ) -> Result<(), OAuthError> {
        if self.options.dpop == Dpop::Required && tokens.token_type != TokenType::Dpop {
            return Err(OAuthError::DpopUnsupported {
                issuer: quoted(&discovery.issuer),
                problem: "it issued a bearer token".to_owned(),
            });
        }
        state.credentials.issuer = Some(discovery.issuer.clone());
        state.credentials.tokens = Some(tokens);
        // A new login, perhaps someone else's: what was kept for the last one is not its.
        state.credentials.login_id = Some(random_token(16)?);
        state.refresh_refusal = None;
        let held = self.options.store.lock(&self.key).await?;
        self.write_login(state, &held).await
    }
}

#[async_trait]
impl Authorizer for OAuthAuthorizer {
    async fn credentials(
        &self,
        request: RequestTarget<'_>,
    ) -> Result<Option<RequestCredentials>, TransportError> {
        let mut state = self.state.lock().await;
        self.load(&mut state).await?;
        if Self::expiring(&state) {
            // Best effort: if the token cannot be renewed now, it goes as it is and a refusal
            // (with the server's challenge) tries again.
            if let Err(error) = self.try_refresh(&mut state, &Challenge::default()).await {
                tracing::debug!(server = %self.key, %error, "could not renew the access token before it expires");
            }
        }
        Ok(self.request_credentials(&state, request)?)
    }

    async fn refused(&self, refusal: &Refusal) -> Result<bool, TransportError> {
        let challenge = refusal
            .www_authenticate
            .as_deref()
            .map(Challenge::parse)
            .unwrap_or_default();
        let mut state = self.state.lock().await;
        self.load(&mut state).await?;
        if challenge.dpop {
            state.resource_wants_dpop = true;
        }
        let current = Self::authorization_value(&state)?;
        let sent = refusal.sent.as_ref();
        if current.is_some() && current.as_ref() != sent.map(|sent| &sent.authorization) {
            // Another request renewed the token while this one was out.
            return Ok(true);
        }
        if let Some(proof) = sent.and_then(|sent| sent.dpop.as_ref())
            && challenge.wants_dpop_nonce()
        {
            // RFC 9449 §9: the same token, with a proof carrying the server's nonce. Once per
            // nonce: a refusal of the very nonce the proof carried stands.
            let carried = proof.to_str().ok().and_then(dpop::proof_nonce);
            return Ok(match &refusal.dpop_nonce {
                Some(nonce) if carried.as_deref() != Some(nonce.as_str()) => {
                    self.nonces().resource_server = Some(nonce.clone());
                    true
                }
                _ => false,
            });
        }
        let step_up = refusal.status == 403;
        if step_up && !challenge.insufficient_scope() {
            return Ok(false);
        }
        if !step_up {
            // Another process may have renewed the login, or logged in again, since this one
            // read it: its token is tried before anything else.
            if self.reload(&mut state).await? && state.credentials.tokens.is_some() {
                return Ok(true);
            }
            if Self::has_refresh_token(&state) && self.try_refresh(&mut state, &challenge).await? {
                return Ok(true);
            }
        }
        let previous_scope = if step_up {
            state
                .credentials
                .tokens
                .as_ref()
                .and_then(|tokens| tokens.scope.clone())
        } else {
            None
        };
        self.obtain(&mut state, &challenge, previous_scope.as_deref())
            .await?;
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::oauth::MemoryCredentialStore;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap()
    }

    fn authorizer() -> OAuthAuthorizer {
        let options = OAuthOptions::new(Arc::new(MemoryCredentialStore::new()));
        OAuthAuthorizer::new(&url("https://mcp.example.com/mcp"), options).unwrap()
    }

    /// Each URL with its key: the one the second computation the runtime used to have (in the
    /// configuration crate) gave too, for every one of them.
    #[test]
    fn the_credential_key_drops_case_default_port_root_slash_userinfo_query_and_fragment() {
        for (server, key) in [
            ("https://mcp.example.com/mcp", "https://mcp.example.com/mcp"),
            // A trailing slash is kept below the root, dropped at the root.
            (
                "https://mcp.example.com/mcp/",
                "https://mcp.example.com/mcp/",
            ),
            ("https://mcp.example.com/", "https://mcp.example.com"),
            ("https://mcp.example.com", "https://mcp.example.com"),
            // Scheme and host are case-insensitive, the path is not.
            (
                "HTTPS://Mcp.Example.COM/Path/MCP",
                "https://mcp.example.com/Path/MCP",
            ),
            (
                "https://mcp.example.com:443/mcp",
                "https://mcp.example.com/mcp",
            ),
            (
                "http://mcp.example.com:80/mcp",
                "http://mcp.example.com/mcp",
            ),
            (
                "https://mcp.example.com:8443/mcp",
                "https://mcp.example.com:8443/mcp",
            ),
            ("http://127.0.0.1:8080/", "http://127.0.0.1:8080"),
            (
                "https://mcp.example.com/mcp?key=secret",
                "https://mcp.example.com/mcp",
            ),
            (
                "https://mcp.example.com/mcp#part",
                "https://mcp.example.com/mcp",
            ),
            ("https://mcp.example.com/?q=1#f", "https://mcp.example.com"),
            (
                "https://user:pass@mcp.example.com/mcp",
                "https://mcp.example.com/mcp",
            ),
            ("http://[::1]:3000/mcp", "http://[::1]:3000/mcp"),
            (
                "https://mcp.example.com/a%20b/./c/../mcp",
                "https://mcp.example.com/a%20b/mcp",
            ),
            (
                "https://bücher.example/mcp",
                "https://xn--bcher-kva.example/mcp",
            ),
            (
                "HTTPS://Mcp.Example.com:443/v1/mcp?key=secret#x",
                "https://mcp.example.com/v1/mcp",
            ),
            (
                "HTTPS://Example.com:443/mcp?key=1#top",
                "https://example.com/mcp",
            ),
        ] {
            assert_eq!(credential_key(&url(server)), key, "{server}");
        }
        assert_eq!(authorizer().credential_key(), "https://mcp.example.com/mcp");
    }

    fn state_with(refresh: bool, expires_in: u64, lifetime: Option<u64>) -> State {
        let now = now();
        let expires_at = now + expires_in;
        let mut tokens = Tokens::bearer(Secret::new("access")).expires_at(expires_at);
        if let Some(lifetime) = lifetime {
            tokens = tokens.issued_at(expires_at - lifetime);
        }
        tokens.refresh_token = refresh.then(|| Secret::new("refresh"));
        let mut state = State::default();
        state.credentials.tokens = Some(tokens);
        state
    }

    #[test]
    fn a_token_is_renewed_30_s_before_it_expires_or_a_quarter_of_its_lifetime_when_shorter() {
        for (expires_in, lifetime, renewed) in [
            // An hour's token: 30 s before.
            (10, Some(3600), true),
            (29, Some(3600), true),
            (60, Some(3600), false),
            // A 10 s token, just issued: not yet; a quarter (2 s) before its end: yes.
            (10, Some(10), false),
            (2, Some(10), true),
            // A minute's token: 15 s before.
            (20, Some(60), false),
            (15, Some(60), true),
            // Saved without its issue time: 30 s.
            (10, None, true),
            (60, None, false),
        ] {
            assert_eq!(
                OAuthAuthorizer::expiring(&state_with(true, expires_in, lifetime)),
                renewed,
                "expires in {expires_in} s, lives {lifetime:?}"
            );
        }
        assert!(
            !OAuthAuthorizer::expiring(&state_with(false, 1, Some(3600))),
            "without a refresh token it is sent until refused"
        );
    }
}
