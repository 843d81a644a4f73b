//! [`OAuthAuthorizer`]: the flow itself, behind the HTTP transports' [`Authorizer`] hook.

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
use super::{
    ClientCredential, Dpop, Grant, IdentityAssertion, OAuthError, OAuthOptions,
    PreRegisteredClient, Secret, SecretSource, Url, WorkloadIdentity, read_answer,
};
use crate::credentials::{Credentials, RegisteredClient, TokenAuthMethod, TokenType, Tokens};
use crate::http::display_url;
use crate::http::{Authorizer, Refusal, RequestCredentials, RequestTarget};
use crate::secrets::Secrets;
use crate::transport::TransportError;

/// An access token this close to its expiry is renewed before it is sent.
const EXPIRY_MARGIN: Duration = Duration::from_secs(30);

const TOKEN_EXCHANGE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";
const ID_JAG: &str = "urn:ietf:params:oauth:token-type:id-jag";
const ID_TOKEN: &str = "urn:ietf:params:oauth:token-type:id_token";
const JWT_ASSERTION: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/// What [`SecretSource`] errors call a workload's JWT.
const WORKLOAD_ASSERTION: &str = "workload identity assertion";

/// The form fields of a token request that carry credentials: an authorization server's error
/// answer never shows them back.
const SECRET_FIELDS: &[&str] = &[
    "client_secret",
    "refresh_token",
    "code",
    "code_verifier",
    "client_assertion",
    "subject_token",
    "assertion",
];

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
/// under the server's canonical URL.
pub struct OAuthAuthorizer {
    server: Url,
    key: String,
    options: OAuthOptions,
    http: reqwest::Client,
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

/// What one token request came back with.
enum TokenAnswer {
    Tokens(Tokens),
    /// `use_dpop_nonce` with a nonce: the request is to be made again with it.
    NewNonce {
        nonce: String,
        refusal: OAuthError,
    },
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
        let http = reqwest::Client::builder()
            .connect_timeout(crate::http::DEFAULT_CONNECT_TIMEOUT)
            .timeout(options.request_timeout)
            .build()
            .map_err(|error| OAuthError::http("building the HTTP client", error))?;
        Ok(Self {
            server: server.clone(),
            key: credential_key(server),
            options,
            http,
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
            state.credentials = self
                .options
                .store
                .load(&self.key)
                .await?
                .unwrap_or_default();
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
            let unusable = state.credentials.tokens.as_ref().is_some_and(|tokens| {
                tokens.token_type == TokenType::Dpop && state.dpop_key.is_none()
            });
            if unusable {
                // Bound to a key that is gone: nothing can prove possession of them.
                state.credentials.tokens = None;
            }
            state.loaded = true;
        }
        Ok(())
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

    async fn save(&self, state: &State) -> Result<(), OAuthError> {
        Ok(self
            .options
            .store
            .save(&self.key, &state.credentials)
            .await?)
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

    /// Renews the access token with the refresh token; `LoginRequired` when there is none or
    /// it belongs to another authorization server than the one the server names now.
    async fn refresh(&self, state: &mut State, challenge: &Challenge) -> Result<(), OAuthError> {
        let Some(refresh_token) = state
            .credentials
            .tokens
            .as_ref()
            .and_then(|tokens| tokens.refresh_token.clone())
        else {
            return Err(self.login_required());
        };
        let discovery = self.discovery(state, challenge).await?;
        if state.credentials.issuer.as_deref() != Some(discovery.issuer.as_str()) {
            tracing::info!(server = %self.key, "the stored refresh token is from another authorization server; not using it");
            // Found without the server's challenge, the discovery may have missed metadata that
            // only the challenge names: the next refusal discovers again.
            state.discovery = None;
            return Err(self.login_required());
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
        let mut tokens = self
            .token_request(&discovery, &client, &form, key.as_deref())
            .await?;
        let previous = state.credentials.tokens.take();
        if tokens.refresh_token.is_none() {
            tokens.refresh_token = Some(refresh_token);
        }
        if tokens.scope.is_none() {
            tokens.scope = previous.and_then(|previous| previous.scope);
        }
        state.credentials.tokens = Some(tokens);
        self.save(state).await?;
        tracing::debug!(server = %self.key, "refreshed the access token");
        Ok(())
    }

    fn login_required(&self) -> OAuthError {
        OAuthError::LoginRequired {
            server: self.key.clone(),
        }
    }

    /// Refreshes; true when it did. A refresh token the authorization server refuses is
    /// dropped (the next step is a new login); one that cannot be used here (another
    /// authorization server) is kept but not used; other failures are errors.
    async fn try_refresh(
        &self,
        state: &mut State,
        challenge: &Challenge,
    ) -> Result<bool, OAuthError> {
        match self.refresh(state, challenge).await {
            Ok(()) => Ok(true),
            Err(OAuthError::Rejected { error, .. }) if error == "invalid_grant" => {
                tracing::info!(server = %self.key, "the authorization server no longer accepts the refresh token");
                if let Some(tokens) = &mut state.credentials.tokens {
                    tokens.refresh_token = None;
                }
                self.save(state).await?;
                Ok(false)
            }
            Err(error) if error.needs_login() => Ok(false),
            Err(error) => Err(error),
        }
    }

    /// Runs the grant for new tokens; `previous_scope` is kept in the request (step-up).
    async fn obtain(
        &self,
        state: &mut State,
        challenge: &Challenge,
        previous_scope: Option<&str>,
    ) -> Result<(), OAuthError> {
        if matches!(self.options.grant, Grant::AuthorizationCode { .. })
            && self.options.handler.is_none()
        {
            return Err(self.login_required());
        }
        let discovery = discover(&self.http, &self.server, challenge).await?;
        state.discovery = Some(discovery.clone());
        let key = if self.use_dpop(state, challenge, &discovery)? {
            Some(Self::dpop_key(state)?)
        } else {
            None
        };
        let key = key.as_deref();
        let tokens = match &self.options.grant {
            Grant::AuthorizationCode { client } => {
                let scope = choose_scope(challenge, &discovery, previous_scope, true);
                self.authorization_code(state, &discovery, client.as_ref(), scope, key)
                    .await?
            }
            Grant::ClientCredentials {
                client_id,
                credential,
            } => {
                let scope = choose_scope(challenge, &discovery, previous_scope, false);
                self.client_credentials(&discovery, client_id, credential, scope, key)
                    .await?
            }
            Grant::IdentityAssertion(assertion) => {
                let scope = choose_scope(challenge, &discovery, previous_scope, false);
                self.identity_assertion(&discovery, assertion, scope, key)
                    .await?
            }
            Grant::WorkloadIdentity(identity) => {
                let scope = choose_scope(challenge, &discovery, previous_scope, false);
                self.workload_identity(state, &discovery, identity, scope, key)
                    .await?
            }
        };
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
        self.save(state).await
    }

    async fn authorization_code(
        &self,
        state: &mut State,
        discovery: &Discovery,
        preregistered: Option<&PreRegisteredClient>,
        scope: Option<String>,
        dpop: Option<&DpopKey>,
    ) -> Result<Tokens, OAuthError> {
        let Some(handler) = &self.options.handler else {
            return Err(self.login_required());
        };
        discovery.require_s256()?;
        let pending = handler.prepare().await?;
        let redirect_uri = pending.redirect_uri().to_string();
        let client = self
            .client_identity(state, discovery, &redirect_uri, preregistered)
            .await?;
        let pkce = Pkce::new()?;
        let expected_state = random_token(24)?;
        let mut url = discovery.authorization_endpoint.clone();
        {
            let mut query = url.query_pairs_mut();
            query
                .append_pair("response_type", "code")
                .append_pair("client_id", &client.client_id)
                .append_pair("redirect_uri", &redirect_uri)
                .append_pair("code_challenge", &pkce.challenge)
                .append_pair("code_challenge_method", "S256")
                .append_pair("state", &expected_state)
                .append_pair("resource", &discovery.resource);
            if let Some(scope) = &scope {
                query.append_pair("scope", scope);
            }
            if let Some(key) = dpop {
                // Binds the code to the key (RFC 9449 §10): a stolen code is useless elsewhere.
                query.append_pair("dpop_jkt", &key.thumbprint());
            }
        }
        tracing::info!(server = %self.key, authorization_server = %display_url(&discovery.authorization_endpoint), "asking the user to log in");
        let arrived = pending.complete(&url).await?;
        let code = authorization_code_of(&arrived, &expected_state, discovery)?;
        let form = [
            ("grant_type", "authorization_code"),
            ("code", code.expose()),
            ("redirect_uri", redirect_uri.as_str()),
            ("code_verifier", pkce.verifier.as_str()),
        ];
        let mut tokens = self
            .token_request(
                discovery,
                &TokenClient::Registered(client.clone()),
                &form,
                dpop,
            )
            .await?;
        if tokens.scope.is_none() {
            tokens.scope = scope;
        }
        if preregistered.is_none() {
            state
                .credentials
                .clients
                .insert(discovery.issuer.clone(), client);
        }
        Ok(tokens)
    }

    /// The client's identity at this authorization server, in the order of preference the
    /// specification gives: configured, kept from an earlier registration there (never one
    /// from another authorization server), a client ID metadata document, dynamic
    /// registration.
    async fn client_identity(
        &self,
        state: &State,
        discovery: &Discovery,
        redirect_uri: &str,
        preregistered: Option<&PreRegisteredClient>,
    ) -> Result<RegisteredClient, OAuthError> {
        if let Some(client) = preregistered {
            return Ok(self::preregistered(client, discovery));
        }
        if let Some(kept) = state.credentials.client_at(&discovery.issuer)
            && (kept.redirect_uris.is_empty()
                || kept.redirect_uris.iter().any(|uri| uri == redirect_uri))
        {
            return Ok(kept.clone());
        }
        if discovery.client_id_metadata_document
            && let Some(document) = &self.options.client_metadata_url
        {
            return Ok(RegisteredClient {
                client_id: document.to_string(),
                client_secret: None,
                auth_method: TokenAuthMethod::None,
                redirect_uris: Vec::new(),
            });
        }
        match &discovery.registration_endpoint {
            Some(endpoint) => self.register(discovery, endpoint, redirect_uri).await,
            None => Err(OAuthError::NoClientIdentity {
                issuer: quoted(&discovery.issuer),
            }),
        }
    }

    /// Dynamic client registration (RFC 7591), as a public client whose `application_type`
    /// (OpenID Connect Registration; SEP-837) follows from its redirect URI.
    async fn register(
        &self,
        discovery: &Discovery,
        endpoint: &Url,
        redirect_uri: &str,
    ) -> Result<RegisteredClient, OAuthError> {
        #[derive(Deserialize)]
        struct Registered {
            client_id: String,
            #[serde(default)]
            client_secret: Option<String>,
            #[serde(default)]
            token_endpoint_auth_method: Option<String>,
        }
        let action = format!("registering a client at {}", display_url(endpoint));
        let body = serde_json::json!({
            "client_name": self.options.client_name,
            "redirect_uris": [redirect_uri],
            "application_type": application_type(redirect_uri),
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
        });
        let response = self
            .http
            .post(endpoint.clone())
            .header(ACCEPT, "application/json")
            .json(&body)
            .send()
            .await
            .map_err(|error| OAuthError::http(&action, error))?;
        let registered: Registered = read_json(response, &action, &self.secrets).await?;
        let auth_method = registered
            .token_endpoint_auth_method
            .as_deref()
            .and_then(TokenAuthMethod::parse)
            .unwrap_or_else(|| choose_auth_method(discovery, registered.client_secret.is_some()));
        tracing::info!(server = %self.key, authorization_server = %quoted(&discovery.issuer), "registered a client");
        Ok(RegisteredClient {
            client_id: registered.client_id,
            client_secret: registered.client_secret.map(Secret::new),
            auth_method,
            redirect_uris: vec![redirect_uri.to_owned()],
        })
    }

    async fn client_credentials(
        &self,
        discovery: &Discovery,
        client_id: &str,
        credential: &ClientCredential,
        scope: Option<String>,
        dpop: Option<&DpopKey>,
    ) -> Result<Tokens, OAuthError> {
        let client = credentials_client(client_id, credential, discovery);
        let mut form = vec![("grant_type", "client_credentials")];
        if let Some(scope) = &scope {
            form.push(("scope", scope));
        }
        self.token_request(discovery, &client, &form, dpop).await
    }

    /// Enterprise-managed authorization (SEP-990): the identity provider exchanges the user's
    /// ID token for an identity assertion grant, which the authorization server exchanges for
    /// an access token.
    async fn identity_assertion(
        &self,
        discovery: &Discovery,
        assertion: &IdentityAssertion,
        scope: Option<String>,
        dpop: Option<&DpopKey>,
    ) -> Result<Tokens, OAuthError> {
        let id_token = assertion.id_token.read("ID token").await?;
        let form = [
            ("grant_type", TOKEN_EXCHANGE),
            ("requested_token_type", ID_JAG),
            ("audience", discovery.issuer.as_str()),
            ("resource", discovery.resource.as_str()),
            ("subject_token", id_token.expose()),
            ("subject_token_type", ID_TOKEN),
            ("client_id", assertion.idp_client_id.as_str()),
        ];
        let action = format!(
            "exchanging the ID token at {}",
            display_url(&assertion.idp_token_endpoint)
        );
        let grant = self
            .post_form(&assertion.idp_token_endpoint, &form, None, &action)
            .await?;
        let client = TokenClient::Registered(assertion_client(assertion, discovery));
        let mut form = vec![
            ("grant_type", JWT_BEARER),
            ("assertion", grant.access_token.expose()),
        ];
        if let Some(scope) = &scope {
            form.push(("scope", scope));
        }
        self.token_request(discovery, &client, &form, dpop).await
    }

    /// Workload identity federation (SEP-1933): the workload's JWT, read now from its source,
    /// is the grant (RFC 7523 §2.1). One the authorization server refused is never sent again,
    /// and no other grant is tried.
    async fn workload_identity(
        &self,
        state: &mut State,
        discovery: &Discovery,
        identity: &WorkloadIdentity,
        scope: Option<String>,
        dpop: Option<&DpopKey>,
    ) -> Result<Tokens, OAuthError> {
        let assertion = identity.assertion.read(WORKLOAD_ASSERTION).await?;
        let digest = sha256_base64url(assertion.expose());
        if state.refused_assertion.as_deref() == Some(digest.as_str()) {
            return Err(OAuthError::AssertionRefused {
                what: WORKLOAD_ASSERTION.to_owned(),
            });
        }
        let client = match &identity.client_id {
            Some(client_id) => TokenClient::Registered(RegisteredClient {
                client_id: client_id.clone(),
                client_secret: None,
                auth_method: TokenAuthMethod::None,
                redirect_uris: Vec::new(),
            }),
            None => TokenClient::Anonymous,
        };
        let mut form = vec![
            ("grant_type", JWT_BEARER),
            ("assertion", assertion.expose()),
        ];
        if let Some(scope) = &scope {
            form.push(("scope", scope));
        }
        let answer = self.token_request(discovery, &client, &form, dpop).await;
        if let Err(OAuthError::Rejected { .. }) = &answer {
            state.refused_assertion = Some(digest);
        }
        answer
    }

    /// The client identity refresh requests to this authorization server authenticate with;
    /// a kept registration only if it is from there.
    fn client_for_tokens(
        &self,
        state: &State,
        discovery: &Discovery,
    ) -> Result<TokenClient, OAuthError> {
        match &self.options.grant {
            Grant::AuthorizationCode {
                client: Some(client),
            } => Ok(TokenClient::Registered(preregistered(client, discovery))),
            Grant::ClientCredentials {
                client_id,
                credential,
            } => Ok(credentials_client(client_id, credential, discovery)),
            Grant::IdentityAssertion(assertion) => Ok(TokenClient::Registered(assertion_client(
                assertion, discovery,
            ))),
            Grant::WorkloadIdentity(WorkloadIdentity {
                client_id: Some(client_id),
                ..
            }) => Ok(TokenClient::Registered(RegisteredClient {
                client_id: client_id.clone(),
                client_secret: None,
                auth_method: TokenAuthMethod::None,
                redirect_uris: Vec::new(),
            })),
            Grant::WorkloadIdentity(_) => Ok(TokenClient::Anonymous),
            Grant::AuthorizationCode { client: None } => state
                .credentials
                .client_at(&discovery.issuer)
                .cloned()
                .map(TokenClient::Registered)
                .ok_or_else(|| self.login_required()),
        }
    }

    /// A token request with the client's authentication and the `resource` parameter; with
    /// `dpop`, a proof (with the authorization server's latest nonce), and when the answer is
    /// `use_dpop_nonce` with a new nonce, once more with a new proof (and a new client
    /// assertion: neither is ever sent twice).
    async fn token_request(
        &self,
        discovery: &Discovery,
        client: &TokenClient,
        form: &[(&str, &str)],
        dpop: Option<&DpopKey>,
    ) -> Result<Tokens, OAuthError> {
        let action = format!(
            "token request to {}",
            display_url(&discovery.token_endpoint)
        );
        let mut nonce = self.nonces().authorization_server.clone();
        let mut retried = false;
        loop {
            let (fields, basic) = self.token_fields(discovery, client, form).await?;
            let borrowed: Vec<(&str, &str)> = fields
                .iter()
                .map(|(name, value)| (*name, value.as_str()))
                .collect();
            let proof = match dpop {
                Some(key) => {
                    Some(key.proof("POST", &discovery.token_endpoint, None, nonce.as_deref())?)
                }
                None => None,
            };
            let answer = self
                .post_form_once(&discovery.token_endpoint, &borrowed, basic, &action, proof)
                .await?;
            match answer {
                TokenAnswer::Tokens(tokens) => return Ok(tokens),
                TokenAnswer::NewNonce {
                    nonce: given,
                    refusal,
                } => {
                    if retried || nonce.as_deref() == Some(given.as_str()) {
                        return Err(refusal);
                    }
                    tracing::debug!(server = %self.key, "the authorization server asks for a DPoP nonce; asking again with it");
                    nonce = Some(given);
                    retried = true;
                }
            }
        }
    }

    /// The form of a token request (the grant's fields, `resource`, the client's
    /// authentication in the form) and its `Authorization: Basic` value, if any.
    async fn token_fields<'a>(
        &self,
        discovery: &Discovery,
        client: &TokenClient,
        form: &[(&'a str, &str)],
    ) -> Result<(Vec<(&'a str, String)>, Option<String>), OAuthError> {
        let mut fields: Vec<(&'a str, String)> = form
            .iter()
            .map(|(name, value)| (*name, (*value).to_owned()))
            .collect();
        fields.push(("resource", discovery.resource.clone()));
        let mut basic = None;
        match client {
            TokenClient::Registered(client) => match client.auth_method {
                TokenAuthMethod::ClientSecretBasic => {
                    basic = Some(basic_credentials(
                        &client.client_id,
                        client.client_secret.as_ref().map_or("", Secret::expose),
                    ));
                }
                TokenAuthMethod::ClientSecretPost => {
                    fields.push(("client_id", client.client_id.clone()));
                    if let Some(secret) = &client.client_secret {
                        fields.push(("client_secret", secret.expose().to_owned()));
                    }
                }
                TokenAuthMethod::None | TokenAuthMethod::PrivateKeyJwt => {
                    fields.push(("client_id", client.client_id.clone()));
                }
            },
            TokenClient::Assertion {
                client_id,
                private_key_pem,
            } => {
                let pem = private_key_pem.read("private key").await?;
                let assertion = client_assertion(pem.expose(), client_id, &discovery.issuer)?;
                fields.push(("client_assertion_type", JWT_ASSERTION.to_owned()));
                fields.push(("client_assertion", assertion));
            }
            TokenClient::Anonymous => {}
        }
        Ok((fields, basic))
    }

    /// A form POST whose answer is a token (a token endpoint, an identity provider's token
    /// exchange), without DPoP.
    async fn post_form(
        &self,
        endpoint: &Url,
        form: &[(&str, &str)],
        basic: Option<String>,
        action: &str,
    ) -> Result<Tokens, OAuthError> {
        match self
            .post_form_once(endpoint, form, basic, action, None)
            .await?
        {
            TokenAnswer::Tokens(tokens) => Ok(tokens),
            TokenAnswer::NewNonce { refusal, .. } => Err(refusal),
        }
    }

    /// One form POST with `proof` as its `DPoP` header, if any. A `DPoP-Nonce` the server
    /// sends is kept for the next proof; a `use_dpop_nonce` refusal of a proof comes back as
    /// [`TokenAnswer::NewNonce`].
    async fn post_form_once(
        &self,
        endpoint: &Url,
        form: &[(&str, &str)],
        basic: Option<String>,
        action: &str,
        proof: Option<String>,
    ) -> Result<TokenAnswer, OAuthError> {
        #[derive(Deserialize)]
        struct TokenResponse {
            access_token: String,
            #[serde(default)]
            token_type: Option<String>,
            #[serde(default)]
            expires_in: Option<u64>,
            #[serde(default)]
            refresh_token: Option<String>,
            #[serde(default)]
            scope: Option<String>,
        }
        for (name, value) in form {
            if SECRET_FIELDS.contains(name) {
                self.secrets.add(value);
            }
        }
        let body = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(form)
            .finish();
        let mut request = self
            .http
            .post(endpoint.clone())
            .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
            .header(ACCEPT, "application/json")
            .body(body);
        if let Some(basic) = basic {
            self.secrets.add(&basic);
            request = request.header(AUTHORIZATION, sensitive(&basic, action)?);
        }
        let proved = proof.is_some();
        if let Some(proof) = proof {
            request = request.header(DPOP, sensitive(&proof, action)?);
        }
        let response = request
            .send()
            .await
            .map_err(|error| OAuthError::http(action, error))?;
        let nonce = response
            .headers()
            .get(DPOP_NONCE)
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned);
        if let Some(nonce) = nonce.as_ref().filter(|_| proved) {
            // Only a token endpoint's answer to a proof: an identity provider's nonce is not
            // the authorization server's.
            self.nonces().authorization_server = Some(nonce.clone());
        }
        let answer = read_json::<TokenResponse>(response, action, &self.secrets).await;
        let answer = match (answer, nonce) {
            (Err(refusal @ OAuthError::Rejected { .. }), Some(nonce))
                if proved
                    && matches!(&refusal, OAuthError::Rejected { error, .. } if error == "use_dpop_nonce") =>
            {
                return Ok(TokenAnswer::NewNonce { nonce, refusal });
            }
            (answer, _) => answer?,
        };
        let bound = proved
            && answer
                .token_type
                .as_deref()
                .is_some_and(|kind| kind.eq_ignore_ascii_case("dpop"));
        Ok(TokenAnswer::Tokens(Tokens {
            access_token: Secret::new(answer.access_token),
            token_type: if bound {
                TokenType::Dpop
            } else {
                TokenType::Bearer
            },
            refresh_token: answer.refresh_token.map(Secret::new),
            expires_at: answer
                .expires_in
                .map(|seconds| now().saturating_add(seconds)),
            scope: answer.scope,
        }))
    }
}

/// A header value that never shows in `Debug` output.
fn sensitive(value: &str, action: &str) -> Result<HeaderValue, OAuthError> {
    let mut header = HeaderValue::from_str(value)
        .map_err(|_| OAuthError::invalid(action, "it holds characters a header cannot carry"))?;
    header.set_sensitive(true);
    Ok(header)
}

/// The header that carries a DPoP proof.
const DPOP: &str = "dpop";

/// The header that carries a server's DPoP nonce.
const DPOP_NONCE: &str = "dpop-nonce";

/// How a token request proves the client's identity.
enum TokenClient {
    Registered(RegisteredClient),
    Assertion {
        client_id: String,
        private_key_pem: SecretSource,
    },
    /// Not at all: the grant itself says who asks (a workload's assertion, no client ID).
    Anonymous,
}

fn preregistered(client: &PreRegisteredClient, discovery: &Discovery) -> RegisteredClient {
    RegisteredClient {
        client_id: client.client_id.clone(),
        auth_method: choose_auth_method(discovery, client.client_secret.is_some()),
        client_secret: client.client_secret.clone(),
        redirect_uris: Vec::new(),
    }
}

fn credentials_client(
    client_id: &str,
    credential: &ClientCredential,
    discovery: &Discovery,
) -> TokenClient {
    match credential {
        ClientCredential::Secret(secret) => TokenClient::Registered(RegisteredClient {
            client_id: client_id.to_owned(),
            client_secret: Some(secret.clone()),
            auth_method: choose_auth_method(discovery, true),
            redirect_uris: Vec::new(),
        }),
        ClientCredential::PrivateKeyJwt { private_key_pem } => TokenClient::Assertion {
            client_id: client_id.to_owned(),
            private_key_pem: private_key_pem.clone(),
        },
    }
}

fn assertion_client(assertion: &IdentityAssertion, discovery: &Discovery) -> RegisteredClient {
    RegisteredClient {
        client_id: assertion.client_id.clone(),
        client_secret: Some(assertion.client_secret.clone()),
        auth_method: choose_auth_method(discovery, true),
        redirect_uris: Vec::new(),
    }
}

/// The `application_type` a client registers with (OpenID Connect Registration §2, which
/// MCP requires since 2026-07-28): `native` for a redirect to this machine (`localhost`, a
/// loopback address) or to an app's own scheme, `web` for one to a remote `http(s)` host.
/// Without it an OpenID provider assumes `web`, and may then refuse a loopback redirect URI.
fn application_type(redirect_uri: &str) -> &'static str {
    let Ok(uri) = Url::parse(redirect_uri) else {
        return "native";
    };
    let remote = match uri.host() {
        Some(url::Host::Domain(name)) => {
            let name = name.trim_end_matches('.').to_ascii_lowercase();
            name != "localhost" && !name.ends_with(".localhost")
        }
        Some(url::Host::Ipv4(address)) => !address.is_loopback(),
        Some(url::Host::Ipv6(address)) => !address.is_loopback(),
        None => false,
    };
    if remote && matches!(uri.scheme(), "http" | "https") {
        "web"
    } else {
        "native"
    }
}

/// The code of the redirect, once its `state` is the one sent and its issuer the authorization
/// server's (RFC 9207 §2.4, as the 2026-07-28 revision applies it): an `iss` present is compared
/// with the issuer of the metadata, character for character (no case folding, no trailing slash
/// or default port dropped), whether or not the metadata promises it; a missing one is refused
/// only when the metadata promises it. Both are checked before the redirect's `error` is
/// believed or its code sent anywhere.
fn authorization_code_of(
    arrived: &Url,
    expected_state: &str,
    discovery: &Discovery,
) -> Result<Secret, OAuthError> {
    let mut code = None;
    let mut state = None;
    let mut issuers = Vec::new();
    let mut error = None;
    let mut description = None;
    for (name, value) in arrived.query_pairs() {
        match name.as_ref() {
            "code" => code = Some(value.into_owned()),
            "state" => state = Some(value.into_owned()),
            "iss" => issuers.push(value.into_owned()),
            "error" => error = Some(value.into_owned()),
            "error_description" => description = Some(value.into_owned()),
            _ => {}
        }
    }
    if state.as_deref() != Some(expected_state) {
        return Err(OAuthError::StateMismatch);
    }
    if let Some(other) = issuers.iter().find(|iss| **iss != discovery.issuer) {
        return Err(OAuthError::IssuerMismatch {
            expected: quoted(&discovery.issuer),
            received: quoted(other),
        });
    }
    if issuers.is_empty() && discovery.iss_parameter_supported {
        return Err(OAuthError::IssuerMissing {
            issuer: quoted(&discovery.issuer),
        });
    }
    let action = format!(
        "logging in at {}",
        display_url(&discovery.authorization_endpoint)
    );
    if let Some(error) = error {
        return Err(OAuthError::rejected(action, &error, description.as_deref()));
    }
    code.map(Secret::new)
        .ok_or_else(|| OAuthError::invalid(action, "the redirect carried no code"))
}

/// The scopes to ask for: those of the challenge, else those the protected resource lists,
/// else none (the parameter is left out); plus the ones held before (step-up), and
/// `offline_access` when refresh tokens are wanted and the authorization server offers it.
fn choose_scope(
    challenge: &Challenge,
    discovery: &Discovery,
    previous: Option<&str>,
    want_refresh: bool,
) -> Option<String> {
    fn add(scopes: &mut Vec<String>, scope: &str) {
        if !scope.is_empty() && !scopes.iter().any(|held| held == scope) {
            scopes.push(scope.to_owned());
        }
    }
    let mut scopes: Vec<String> = Vec::new();
    for scope in previous.unwrap_or_default().split_whitespace() {
        add(&mut scopes, scope);
    }
    match &challenge.scope {
        Some(asked) => asked
            .split_whitespace()
            .for_each(|scope| add(&mut scopes, scope)),
        None => discovery
            .resource_scopes
            .iter()
            .flatten()
            .for_each(|scope| add(&mut scopes, scope)),
    }
    if scopes.is_empty() {
        return None;
    }
    let offers_offline_access = discovery
        .server_scopes
        .iter()
        .flatten()
        .any(|scope| scope == "offline_access");
    if want_refresh && offers_offline_access {
        add(&mut scopes, "offline_access");
    }
    Some(scopes.join(" "))
}

/// The token endpoint authentication for a client with or without a secret, among those the
/// authorization server lists (Basic first, as RFC 8414's default).
fn choose_auth_method(discovery: &Discovery, has_secret: bool) -> TokenAuthMethod {
    if !has_secret {
        return TokenAuthMethod::None;
    }
    let offers = |name: &str| {
        discovery
            .token_auth_methods
            .iter()
            .any(|method| method == name)
    };
    if !offers("client_secret_basic") && offers("client_secret_post") {
        TokenAuthMethod::ClientSecretPost
    } else {
        TokenAuthMethod::ClientSecretBasic
    }
}

/// The JSON of a successful answer; an OAuth error answer becomes [`OAuthError::Rejected`].
/// What the server says goes into the error scrubbed of `secrets`.
async fn read_json<T: for<'de> Deserialize<'de>>(
    response: reqwest::Response,
    action: &str,
    secrets: &Secrets,
) -> Result<T, OAuthError> {
    #[derive(Deserialize)]
    struct ErrorAnswer {
        error: String,
        #[serde(default)]
        error_description: Option<String>,
    }
    let status = response.status();
    let body = read_answer(response, action).await?;
    if !status.is_success() {
        return Err(match serde_json::from_slice::<ErrorAnswer>(&body) {
            Ok(answer) => OAuthError::rejected(
                action,
                &secrets.scrub(&answer.error),
                answer
                    .error_description
                    .as_deref()
                    .map(|description| secrets.scrub(description))
                    .as_deref(),
            ),
            Err(_) => OAuthError::invalid(action, format!("HTTP {}", status.as_u16())),
        });
    }
    serde_json::from_slice(&body).map_err(|error| {
        // serde_json names the line and column and what it expected; it quotes a value only
        // where the type is wrong (`"expires_in": "…"`), and that is cut.
        OAuthError::invalid(
            action,
            format!(
                "the answer is not what OAuth describes ({})",
                quoted(&secrets.scrub(&error.to_string()))
            ),
        )
    })
}

#[async_trait]
impl Authorizer for OAuthAuthorizer {
    async fn credentials(
        &self,
        request: RequestTarget<'_>,
    ) -> Result<Option<RequestCredentials>, TransportError> {
        let mut state = self.state.lock().await;
        self.load(&mut state).await?;
        let expiring = state.credentials.tokens.as_ref().is_some_and(|tokens| {
            tokens.refresh_token.is_some()
                && tokens
                    .expires_at
                    .is_some_and(|expires_at| expires_at <= now() + EXPIRY_MARGIN.as_secs())
        });
        if expiring {
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
        let has_refresh_token = state
            .credentials
            .tokens
            .as_ref()
            .is_some_and(|tokens| tokens.refresh_token.is_some());
        if !step_up && has_refresh_token && self.try_refresh(&mut state, &challenge).await? {
            return Ok(true);
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

    const ISSUER: &str = "https://auth.example.com";
    const OTHER_ISSUER: &str = "https://other-auth.example.com";
    const CODE: &str = "the-authorization-code-4f9d";
    const STATE: &str = "the-state";
    const REDIRECT_URI: &str = "http://127.0.0.1:8123/callback";

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap()
    }

    /// What discovery finds for the authorization server `issuer`, which offers neither a
    /// client ID metadata document nor dynamic registration.
    fn discovery(issuer: &str, iss_parameter_supported: bool) -> Discovery {
        Discovery {
            resource: "https://mcp.example.com/mcp".to_owned(),
            issuer: issuer.to_owned(),
            authorization_endpoint: url(&format!("{issuer}/authorize")),
            token_endpoint: url(&format!("{issuer}/token")),
            registration_endpoint: None,
            resource_scopes: None,
            server_scopes: None,
            code_challenge_methods: Some(vec!["S256".to_owned()]),
            token_auth_methods: vec!["none".to_owned()],
            client_id_metadata_document: false,
            iss_parameter_supported,
            dpop_algorithms: None,
            resource_wants_dpop: false,
        }
    }

    /// The redirect back to the client with `query`.
    fn redirect(query: &[(&str, &str)]) -> Url {
        let mut arrived = url(REDIRECT_URI);
        arrived.query_pairs_mut().extend_pairs(query);
        arrived
    }

    fn registered(client_id: &str) -> RegisteredClient {
        RegisteredClient {
            client_id: client_id.to_owned(),
            client_secret: Some(Secret::new(format!("{client_id}-secret"))),
            auth_method: TokenAuthMethod::ClientSecretBasic,
            redirect_uris: vec![REDIRECT_URI.to_owned()],
        }
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

    #[test]
    fn a_redirect_whose_iss_is_the_recorded_issuer_gives_its_code() {
        for advertised in [true, false] {
            let arrived = redirect(&[("code", CODE), ("state", STATE), ("iss", ISSUER)]);
            let code = authorization_code_of(&arrived, STATE, &discovery(ISSUER, advertised))
                .unwrap_or_else(|error| panic!("advertised: {advertised}: {error}"));
            assert_eq!(code.expose(), CODE);
        }
    }

    #[test]
    fn a_redirect_naming_another_issuer_is_refused_whether_or_not_the_metadata_promises_iss() {
        for advertised in [true, false] {
            let arrived = redirect(&[
                ("code", CODE),
                ("state", STATE),
                ("iss", "https://evil.example.com"),
            ]);
            let error = authorization_code_of(&arrived, STATE, &discovery(ISSUER, advertised))
                .expect_err("a code from another authorization server");
            assert!(
                matches!(
                    &error,
                    OAuthError::IssuerMismatch { expected, received }
                        if expected == ISSUER && received == "https://evil.example.com"
                ),
                "advertised: {advertised}: {error:?}"
            );
            let shown = format!("{error} {error:?}");
            assert!(!shown.contains(CODE), "{shown}");
            assert!(shown.contains("https://evil.example.com"), "{shown}");
        }
    }

    #[test]
    fn a_second_iss_naming_another_issuer_is_refused_too() {
        let arrived = redirect(&[
            ("code", CODE),
            ("state", STATE),
            ("iss", ISSUER),
            ("iss", "https://evil.example.com"),
        ]);
        let error = authorization_code_of(&arrived, STATE, &discovery(ISSUER, true)).unwrap_err();
        assert!(
            matches!(error, OAuthError::IssuerMismatch { .. }),
            "{error:?}"
        );
    }

    #[test]
    fn a_redirect_without_iss_is_refused_only_when_the_metadata_promises_one() {
        let arrived = redirect(&[("code", CODE), ("state", STATE)]);
        let error = authorization_code_of(&arrived, STATE, &discovery(ISSUER, true))
            .expect_err("the metadata promises an iss");
        assert!(
            matches!(&error, OAuthError::IssuerMissing { issuer } if issuer == ISSUER),
            "{error:?}"
        );
        assert!(!format!("{error} {error:?}").contains(CODE), "{error}");
        let code = authorization_code_of(&arrived, STATE, &discovery(ISSUER, false)).unwrap();
        assert_eq!(code.expose(), CODE);
    }

    #[test]
    fn iss_is_compared_character_for_character_without_url_normalization() {
        let issuer = "https://auth.example.com/~tenant";
        // Each is the issuer after RFC 3986 normalization (trailing slash, case of scheme and
        // host, default port, percent-encoding), and none is the issuer.
        for variant in [
            "https://auth.example.com/~tenant/",
            "HTTPS://auth.example.com/~tenant",
            "https://AUTH.example.com/~tenant",
            "https://auth.example.com:443/~tenant",
            "https://auth.example.com/%7Etenant",
        ] {
            let arrived = redirect(&[("code", CODE), ("state", STATE), ("iss", variant)]);
            let error = authorization_code_of(&arrived, STATE, &discovery(issuer, true))
                .expect_err(variant);
            assert!(
                matches!(error, OAuthError::IssuerMismatch { .. }),
                "{variant}: {error:?}"
            );
        }
        let arrived = redirect(&[("code", CODE), ("state", STATE), ("iss", issuer)]);
        assert!(authorization_code_of(&arrived, STATE, &discovery(issuer, true)).is_ok());
    }

    #[test]
    fn an_error_redirect_is_not_believed_before_its_issuer_is_checked() {
        let phishing = "log in again at https://evil.example.com/login";
        let arrived = redirect(&[
            ("error", "access_denied"),
            ("error_description", phishing),
            ("state", STATE),
            ("iss", "https://evil.example.com"),
        ]);
        let error = authorization_code_of(&arrived, STATE, &discovery(ISSUER, false)).unwrap_err();
        assert!(
            matches!(error, OAuthError::IssuerMismatch { .. }),
            "{error:?}"
        );
        assert!(!error.to_string().contains(phishing), "{error}");
        let arrived = redirect(&[
            ("error", "access_denied"),
            ("error_description", phishing),
            ("state", STATE),
        ]);
        let error = authorization_code_of(&arrived, STATE, &discovery(ISSUER, true)).unwrap_err();
        assert!(
            matches!(error, OAuthError::IssuerMissing { .. }),
            "{error:?}"
        );
        // From the right authorization server, the error is what it says.
        let arrived = redirect(&[
            ("error", "access_denied"),
            ("state", STATE),
            ("iss", ISSUER),
        ]);
        let error = authorization_code_of(&arrived, STATE, &discovery(ISSUER, true)).unwrap_err();
        assert!(
            matches!(&error, OAuthError::Rejected { error, .. } if error == "access_denied"),
            "{error:?}"
        );
    }

    #[test]
    fn a_client_redirected_to_this_machine_or_its_own_scheme_registers_as_native_others_as_web() {
        for native in [
            "http://127.0.0.1:8123/callback",
            "http://localhost:3000/callback",
            "http://LOCALHOST:3000/callback",
            "http://[::1]:8123/callback",
            "http://agent.localhost/callback",
            "com.example.agent:/callback",
        ] {
            assert_eq!(application_type(native), "native", "{native}");
        }
        for web in [
            "https://agent.example.com/oauth/callback",
            "http://10.0.0.5/callback",
        ] {
            assert_eq!(application_type(web), "web", "{web}");
        }
    }

    #[tokio::test]
    async fn a_registration_is_presented_only_to_the_authorization_server_that_issued_it() {
        let authorizer = authorizer();
        let mut state = State::default();
        // The tokens are from the second authorization server (another grant got them), the
        // registration from the first: the layout with one client would pair the two.
        state.credentials.issuer = Some(OTHER_ISSUER.to_owned());
        state
            .credentials
            .clients
            .insert(ISSUER.to_owned(), registered("first-client"));
        let at_other = authorizer
            .client_identity(&state, &discovery(OTHER_ISSUER, true), REDIRECT_URI, None)
            .await;
        assert!(
            matches!(&at_other, Err(OAuthError::NoClientIdentity { issuer }) if issuer == OTHER_ISSUER),
            "{at_other:?}"
        );
        let refreshing = authorizer.client_for_tokens(&state, &discovery(OTHER_ISSUER, true));
        assert!(
            matches!(refreshing, Err(OAuthError::LoginRequired { .. })),
            "no client to refresh with at the other authorization server"
        );
        let at_first = authorizer
            .client_identity(&state, &discovery(ISSUER, true), REDIRECT_URI, None)
            .await
            .unwrap();
        assert_eq!(at_first.client_id, "first-client");
    }

    #[tokio::test]
    async fn a_server_that_moves_back_to_its_first_authorization_server_finds_its_registration_there()
     {
        let authorizer = authorizer();
        let mut state = State::default();
        state
            .credentials
            .clients
            .insert(ISSUER.to_owned(), registered("first-client"));
        state
            .credentials
            .clients
            .insert(OTHER_ISSUER.to_owned(), registered("second-client"));
        for (issuer, expected) in [(ISSUER, "first-client"), (OTHER_ISSUER, "second-client")] {
            state.credentials.issuer = Some(issuer.to_owned());
            let found = authorizer
                .client_identity(&state, &discovery(issuer, true), REDIRECT_URI, None)
                .await
                .unwrap();
            assert_eq!(found.client_id, expected);
            let Ok(TokenClient::Registered(refreshing)) =
                authorizer.client_for_tokens(&state, &discovery(issuer, true))
            else {
                panic!("a registered client refreshes at {issuer}");
            };
            assert_eq!(refreshing.client_id, expected);
        }
    }

    #[test]
    fn offline_access_is_asked_for_only_when_the_authorization_server_lists_it() {
        let challenge = Challenge {
            scope: Some("mcp:basic".to_owned()),
            ..Challenge::default()
        };
        let mut offering = discovery(ISSUER, true);
        offering.server_scopes = Some(vec!["mcp:basic".to_owned(), "offline_access".to_owned()]);
        assert_eq!(
            choose_scope(&challenge, &offering, None, true).as_deref(),
            Some("mcp:basic offline_access")
        );
        // Not for a grant that gets no refresh token (client credentials).
        assert_eq!(
            choose_scope(&challenge, &offering, None, false).as_deref(),
            Some("mcp:basic")
        );
        let mut silent = discovery(ISSUER, true);
        silent.server_scopes = Some(vec!["mcp:basic".to_owned(), "mcp:read".to_owned()]);
        assert_eq!(
            choose_scope(&challenge, &silent, None, true).as_deref(),
            Some("mcp:basic")
        );
        assert_eq!(
            choose_scope(&challenge, &discovery(ISSUER, true), None, true).as_deref(),
            Some("mcp:basic")
        );
        // Nothing else to ask for: the parameter stays out (the server's default scopes) rather
        // than asking for offline access alone.
        assert_eq!(
            choose_scope(&Challenge::default(), &offering, None, true),
            None
        );
    }
}
