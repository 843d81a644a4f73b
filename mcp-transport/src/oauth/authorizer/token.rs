//! Token requests: the form with the client's authentication and `resource`, a DPoP proof
//! (and one retry with the server's nonce), the answer read within its size limit, and the
//! redirect policy of every request that carries credentials.

use super::*;

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

/// How many redirects within its own origin a request carrying credentials follows.
const MAX_SAME_ORIGIN_REDIRECTS: usize = 5;

const JWT_ASSERTION: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/// What one token request came back with.
enum TokenAnswer {
    Tokens(Tokens),
    /// `use_dpop_nonce` with a nonce: the request is to be made again with it.
    NewNonce {
        nonce: String,
        refusal: OAuthError,
    },
}

impl OAuthAuthorizer {
    /// A token request with the client's authentication and the `resource` parameter; with
    /// `dpop`, a proof (with the authorization server's latest nonce), and when the answer is
    /// `use_dpop_nonce` with a new nonce, once more with a new proof (and a new client
    /// assertion: neither is ever sent twice).
    pub(super) async fn token_request(
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
    pub(super) async fn post_form(
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
            .credentialed
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
            .map_err(|error| credentialed_failure(action, error))?;
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
        let issued_at = now();
        Ok(TokenAnswer::Tokens(Tokens {
            issued_at: Some(issued_at),
            access_token: Secret::new(answer.access_token),
            token_type: if bound {
                TokenType::Dpop
            } else {
                TokenType::Bearer
            },
            refresh_token: answer.refresh_token.map(Secret::new),
            expires_at: answer
                .expires_in
                .map(|seconds| issued_at.saturating_add(seconds)),
            scope: answer.scope,
        }))
    }
}

/// The redirect policy of requests that carry credentials: a redirect within the origin of
/// the first request (scheme, host and port: the server that was to get the credential
/// anyway) is followed, at most [`MAX_SAME_ORIGIN_REDIRECTS`] times; one to another origin
/// fails the request before anything is sent there.
pub(super) fn same_origin_only(
    attempt: reqwest::redirect::Attempt<'_>,
) -> reqwest::redirect::Action {
    let Some(first) = attempt.previous().first() else {
        return attempt.stop();
    };
    if attempt.url().origin() != first.origin() {
        let to = display_url(attempt.url());
        return attempt.error(CrossOrigin { to });
    }
    if attempt.previous().len() > MAX_SAME_ORIGIN_REDIRECTS {
        return attempt.error(TooManyRedirects);
    }
    attempt.follow()
}

/// A redirect to another origin, refused by [`same_origin_only`]: the URL it pointed to
/// (without its query).
#[derive(Debug)]
struct CrossOrigin {
    to: String,
}

impl std::fmt::Display for CrossOrigin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "redirected to another origin: {}", self.to)
    }
}

impl std::error::Error for CrossOrigin {}

#[derive(Debug)]
struct TooManyRedirects;

impl std::fmt::Display for TooManyRedirects {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "more than {MAX_SAME_ORIGIN_REDIRECTS} redirects within the endpoint's origin"
        )
    }
}

impl std::error::Error for TooManyRedirects {}

/// The error of a request that carried credentials: [`OAuthError::CrossOriginRedirect`] when
/// the redirect policy refused another origin.
pub(super) fn credentialed_failure(action: &str, error: reqwest::Error) -> OAuthError {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(&error);
    while let Some(current) = cause {
        if let Some(refused) = current.downcast_ref::<CrossOrigin>() {
            return OAuthError::CrossOriginRedirect {
                action: action.to_owned(),
                to: refused.to.clone(),
            };
        }
        cause = current.source();
    }
    OAuthError::http(action, error)
}

/// A header value that never shows in `Debug` output.
pub(super) fn sensitive(value: &str, action: &str) -> Result<HeaderValue, OAuthError> {
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
pub(super) enum TokenClient {
    Registered(RegisteredClient),
    Assertion {
        client_id: String,
        private_key_pem: SecretSource,
    },
    /// Not at all: the grant itself says who asks (a workload's assertion, no client ID).
    Anonymous,
}

/// The JSON of a successful answer; an OAuth error answer becomes [`OAuthError::Rejected`].
/// What the server says goes into the error scrubbed of `secrets`.
pub(super) async fn read_json<T: for<'de> Deserialize<'de>>(
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
