//! Credentials per request: the [`Authorizer`] hook through which OAuth (or an embedder's own
//! scheme) reaches both HTTP transports, and [`send_authorized`], which sends a request with
//! them and again when a server refuses them and the authorizer finds better ones.

use reqwest::header::HeaderValue;

use super::failure::{read_excerpt, request_failed, www_authenticate};
use super::{Method, Url};
use crate::secrets::Secrets;
use crate::transport::TransportError;

/// How many times one request is sent again after the server refused its credentials (a 401,
/// or a 403 asking for more scopes) and the [`Authorizer`] found better ones: one login and two
/// step-ups. Past that the refusal is the request's error, so a server that never accepts what
/// it asked for cannot keep the client authorizing forever.
pub const MAX_AUTHORIZATION_RETRIES: u32 = 3;

/// The request an [`Authorizer`] is asked to authorize: its method and URL, which a proof of
/// possession names (DPoP, RFC 9449, signs both; other schemes may ignore them).
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct RequestTarget<'a> {
    /// The HTTP method (`POST`, `GET`, `DELETE`).
    pub method: &'a Method,
    /// The URL the request goes to, query included.
    pub url: &'a Url,
}

impl<'a> RequestTarget<'a> {
    /// The request `method url`.
    pub fn new(method: &'a Method, url: &'a Url) -> Self {
        Self { method, url }
    }
}

/// What an [`Authorizer`] adds to one request.
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RequestCredentials {
    /// The `Authorization` value (`Bearer …`, `DPoP …`).
    pub authorization: HeaderValue,
    /// A proof of possession of the token for this request alone, sent as the `DPoP` header
    /// (RFC 9449): made fresh for every request, retries included, and never reused. Unlike
    /// the `Authorization` value it is not added to the secrets errors never show: it names
    /// one request and proves nothing for any other.
    pub dpop: Option<HeaderValue>,
}

impl RequestCredentials {
    /// An `Authorization` value and nothing else (a bearer token).
    pub fn new(authorization: HeaderValue) -> Self {
        Self {
            authorization,
            dpop: None,
        }
    }

    /// These credentials with a DPoP proof.
    #[must_use]
    pub fn dpop(mut self, proof: HeaderValue) -> Self {
        self.dpop = Some(proof);
        self
    }
}

impl std::fmt::Debug for RequestCredentials {
    /// Values stay hidden: they are credentials.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RequestCredentials")
            .field("dpop", &self.dpop.is_some())
            .finish_non_exhaustive()
    }
}

/// What a server said when it refused a request's credentials.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Refusal {
    /// 401 (no or invalid credentials) or 403 (not enough of them).
    pub status: u16,
    /// The server's `WWW-Authenticate` challenge, if it sent one.
    pub www_authenticate: Option<String>,
    /// The server's `DPoP-Nonce` header, if it sent one (RFC 9449 §9: the nonce the next proof
    /// must carry).
    pub dpop_nonce: Option<String>,
    /// The credentials the refused request carried (none: it carried none). They tell an
    /// authorizer whether the refused token is still its current one, so many requests refused
    /// at once renew it once, and which nonce the refused proof carried.
    pub sent: Option<RequestCredentials>,
}

/// Supplies each request's credentials and finds better ones when a server refuses them: the
/// hook through which OAuth (the [`oauth`](crate::oauth) module, feature `oauth`) or an
/// embedder's own scheme reaches both HTTP transports.
///
/// Every request the transports send (the Streamable HTTP POSTs, GET stream and closing DELETE;
/// the legacy transport's GET stream and POSTs) asks [`credentials`](Self::credentials) first,
/// with its method and URL, so an authorizer that binds its tokens to a key can sign a fresh
/// proof for each one. A configured `Authorization` header and an authorizer do not mix: a
/// request the authorizer gives credentials to carries them instead of the configured header.
#[async_trait::async_trait]
pub trait Authorizer: Send + Sync {
    /// The credentials for `request`, if there are some (a token that is about to expire may
    /// be renewed first).
    async fn credentials(
        &self,
        request: RequestTarget<'_>,
    ) -> Result<Option<RequestCredentials>, TransportError>;

    /// The server refused a request's credentials. True when there are new ones (or a new
    /// nonce for the proof) and the request should be sent again; false when the refusal
    /// stands (the request then fails with [`TransportError::Unauthorized`]); an error when
    /// finding credentials failed.
    async fn refused(&self, refusal: &Refusal) -> Result<bool, TransportError>;
}

/// The header that carries a DPoP proof (RFC 9449 §4.1).
pub(super) const DPOP: &str = "dpop";

/// The header that carries a server's DPoP nonce (RFC 9449 §8, §9).
const DPOP_NONCE: &str = "dpop-nonce";

/// Sends the request `build` makes with the authorizer's credentials (if any); when the
/// server answers 401 or 403 and the authorizer finds new credentials, builds and sends it
/// again (with credentials asked for anew: a proof is never sent twice), at most
/// [`MAX_AUTHORIZATION_RETRIES`] times. The last response is returned whatever its status,
/// with what `build` said of the request that got it.
pub(super) async fn send_authorized<T>(
    authorizer: Option<&dyn Authorizer>,
    secrets: &Secrets,
    build: impl Fn() -> (reqwest::RequestBuilder, T),
    action: impl Fn() -> String,
) -> Result<(reqwest::Response, T), TransportError> {
    let mut retries = 0;
    loop {
        let (builder, built) = build();
        let (client, request) = builder.build_split();
        let mut request = request.map_err(|error| request_failed(action(), error))?;
        let credentials = match authorizer {
            Some(authorizer) => {
                authorizer
                    .credentials(RequestTarget::new(request.method(), request.url()))
                    .await?
            }
            None => None,
        };
        if let Some(credentials) = &credentials {
            add_header_secret(secrets, &credentials.authorization);
            let headers = request.headers_mut();
            headers.insert(
                reqwest::header::AUTHORIZATION,
                credentials.authorization.clone(),
            );
            if let Some(proof) = &credentials.dpop {
                headers.insert(DPOP, proof.clone());
            }
        }
        let response = client
            .execute(request)
            .await
            .map_err(|error| request_failed(action(), error))?;
        let status = response.status().as_u16();
        let Some(authorizer) = authorizer.filter(|_| status == 401 || status == 403) else {
            return Ok((response, built));
        };
        if retries == MAX_AUTHORIZATION_RETRIES {
            return Ok((response, built));
        }
        let refusal = Refusal {
            status,
            www_authenticate: www_authenticate(&response),
            dpop_nonce: response
                .headers()
                .get(DPOP_NONCE)
                .and_then(|value| value.to_str().ok())
                .map(str::to_owned),
            sent: credentials,
        };
        // Read the refusal's body so the connection can carry the retry.
        drop(read_excerpt(response, secrets).await);
        if !authorizer.refused(&refusal).await? {
            return Err(TransportError::Unauthorized {
                action: action(),
                status,
                www_authenticate: refusal
                    .www_authenticate
                    .map(|challenge| secrets.scrub(&challenge).into_owned()),
            });
        }
        retries += 1;
    }
}

/// Adds the value an [`Authorizer`] gave a request to the secrets errors never show.
pub(super) fn add_header_secret(secrets: &Secrets, value: &HeaderValue) {
    if let Ok(value) = value.to_str() {
        secrets.add(value);
    }
}
