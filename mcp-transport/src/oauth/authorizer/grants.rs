//! The grants: the browser login (authorization code with PKCE, through the
//! [`AuthorizationHandler`](crate::oauth::AuthorizationHandler)), client credentials, the
//! identity assertion of enterprise-managed authorization, workload identity; and the
//! client identity they use (configured, kept, a metadata document, or dynamic
//! registration).

use super::*;

const TOKEN_EXCHANGE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";
const ID_JAG: &str = "urn:ietf:params:oauth:token-type:id-jag";
const ID_TOKEN: &str = "urn:ietf:params:oauth:token-type:id_token";

/// What [`SecretSource`] errors call a workload's JWT.
const WORKLOAD_ASSERTION: &str = "workload identity assertion";

impl OAuthAuthorizer {
    /// The browser login: the user is sent to the authorization endpoint (only when it may be
    /// opened, [`openable`]), the redirect is checked and its code exchanged. The login in
    /// progress comes back with the tokens, for the browser to be told once they are kept;
    /// when the login fails after the redirect, the browser is told here.
    pub(super) async fn authorization_code(
        &self,
        state: &mut State,
        discovery: &Discovery,
        preregistered: Option<&PreRegisteredClient>,
        scope: Option<String>,
        dpop: Option<&DpopKey>,
    ) -> Result<(Tokens, Box<dyn PendingRedirect>), OAuthError> {
        let Some(handler) = &self.options.handler else {
            return Err(self.login_required(state));
        };
        discovery.require_s256()?;
        // Before any listener is opened or any registration made: a page that may not be
        // opened ends the login here.
        openable(discovery.authorization_endpoint.as_str())?;
        let mut pending = handler.prepare().await?;
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
        let url = openable(url.as_str())?;
        tracing::info!(server = %self.key, authorization_server = %display_url(&discovery.authorization_endpoint), "asking the user to log in");
        let arrived = pending.complete(&url).await?;
        let exchanged = async {
            let code = authorization_code_of(&arrived, &expected_state, discovery)?;
            let form = [
                ("grant_type", "authorization_code"),
                ("code", code.expose()),
                ("redirect_uri", redirect_uri.as_str()),
                ("code_verifier", pkce.verifier.as_str()),
            ];
            self.token_request(
                discovery,
                &TokenClient::Registered(client.clone()),
                &form,
                dpop,
            )
            .await
        };
        let mut tokens = match exchanged.await {
            Ok(tokens) => tokens,
            Err(error) => {
                pending.finish(Err(&error)).await;
                return Err(error);
            }
        };
        if tokens.scope.is_none() {
            tokens.scope = scope;
        }
        if preregistered.is_none() {
            state
                .credentials
                .clients
                .insert(discovery.issuer.clone(), client);
        }
        Ok((tokens, pending))
    }

    /// The client's identity at this authorization server, in the order of preference the
    /// specification gives: configured, kept from an earlier registration there (never one
    /// from another authorization server), a client ID metadata document, dynamic
    /// registration.
    pub(super) async fn client_identity(
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
            .credentialed
            .post(endpoint.clone())
            .header(ACCEPT, "application/json")
            .json(&body)
            .send()
            .await
            .map_err(|error| credentialed_failure(&action, error))?;
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

    pub(super) async fn client_credentials(
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
    pub(super) async fn identity_assertion(
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
    pub(super) async fn workload_identity(
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
    pub(super) fn client_for_tokens(
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
                .ok_or_else(|| self.login_required(state)),
        }
    }
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
pub(super) fn choose_scope(
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
