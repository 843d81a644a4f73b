//! Where a server's authorization server is and what it offers.
//!
//! 1. **Protected resource metadata** (RFC 9728): the `resource_metadata` URL of the server's
//!    challenge, then `/.well-known/oauth-protected-resource/<path>` and
//!    `/.well-known/oauth-protected-resource` on the server's origin. Its `resource` must be the
//!    server (same origin, a prefix of its path), or nothing is authorized.
//! 2. **Authorization server metadata** (RFC 8414, OpenID Connect Discovery) for the first
//!    authorization server it names: for an issuer with a path, the path-inserted OAuth and
//!    OpenID locations and then the path-appended OpenID one; for one without, the two root
//!    locations. The document's `issuer` must be the one asked for.
//! 3. **The 2025-03-26 fallback**, for servers with no resource metadata: the server's origin is
//!    the authorization server, its metadata is looked for at the root, and without any the
//!    default endpoints `/authorize`, `/token` and `/register` are used.

use serde::Deserialize;

use super::challenge::Challenge;
use super::error::quoted;
use super::{OAuthError, Url, read_answer};
use crate::http::display_url;

/// What discovery found: where to send the user and the token requests, and what the
/// authorization server supports.
#[derive(Debug, Clone)]
pub(crate) struct Discovery {
    /// The `resource` parameter: the protected resource's identifier.
    pub(crate) resource: String,
    /// The authorization server's issuer identifier (its URL in the fallback).
    pub(crate) issuer: String,
    pub(crate) authorization_endpoint: Url,
    pub(crate) token_endpoint: Url,
    pub(crate) registration_endpoint: Option<Url>,
    /// The scopes the protected resource lists (`scopes_supported` of its metadata).
    pub(crate) resource_scopes: Option<Vec<String>>,
    /// The scopes the authorization server lists.
    pub(crate) server_scopes: Option<Vec<String>>,
    /// The PKCE methods the authorization server lists; `None` in the fallback, where no
    /// metadata says anything and S256 is used.
    pub(crate) code_challenge_methods: Option<Vec<String>>,
    /// `token_endpoint_auth_methods_supported` (RFC 8414's default: `client_secret_basic`).
    pub(crate) token_auth_methods: Vec<String>,
    /// Whether a client ID metadata document URL may serve as the client ID.
    pub(crate) client_id_metadata_document: bool,
    /// Whether the authorization server promises an `iss` in every authorization response
    /// (`authorization_response_iss_parameter_supported`, RFC 9207): one without is then
    /// refused.
    pub(crate) iss_parameter_supported: bool,
    /// The algorithms the authorization server takes DPoP proofs in
    /// (`dpop_signing_alg_values_supported`, RFC 9449 §5.1); none when its metadata is silent.
    pub(crate) dpop_algorithms: Option<Vec<String>>,
    /// The protected resource metadata asks for DPoP-bound tokens: it lists
    /// `dpop_signing_alg_values_supported` or sets `dpop_bound_access_tokens_required`
    /// (RFC 9728 §2).
    pub(crate) resource_wants_dpop: bool,
}

impl Discovery {
    /// Refuses an authorization server that does not offer S256 (when its metadata says).
    pub(crate) fn require_s256(&self) -> Result<(), OAuthError> {
        match &self.code_challenge_methods {
            Some(methods) if !methods.iter().any(|method| method == "S256") => {
                Err(OAuthError::PkceUnsupported {
                    issuer: quoted(&self.issuer),
                })
            }
            _ => Ok(()),
        }
    }
}

#[derive(Deserialize)]
struct ResourceMetadata {
    #[serde(default)]
    resource: Option<String>,
    #[serde(default)]
    authorization_servers: Vec<String>,
    #[serde(default)]
    scopes_supported: Option<Vec<String>>,
    #[serde(default)]
    dpop_signing_alg_values_supported: Option<Vec<String>>,
    #[serde(default)]
    dpop_bound_access_tokens_required: bool,
}

#[derive(Deserialize)]
struct ServerMetadata {
    issuer: String,
    #[serde(default)]
    authorization_endpoint: Option<String>,
    token_endpoint: String,
    #[serde(default)]
    registration_endpoint: Option<String>,
    #[serde(default)]
    scopes_supported: Option<Vec<String>>,
    #[serde(default)]
    code_challenge_methods_supported: Option<Vec<String>>,
    #[serde(default)]
    token_endpoint_auth_methods_supported: Option<Vec<String>>,
    #[serde(default)]
    client_id_metadata_document_supported: bool,
    #[serde(default)]
    authorization_response_iss_parameter_supported: bool,
    #[serde(default)]
    dpop_signing_alg_values_supported: Option<Vec<String>>,
}

/// Finds the authorization server of the MCP server at `server`, starting from its challenge.
pub(crate) async fn discover(
    http: &reqwest::Client,
    server: &Url,
    challenge: &Challenge,
) -> Result<Discovery, OAuthError> {
    let Some((metadata_url, metadata)) = resource_metadata(http, server, challenge).await? else {
        return legacy_discovery(http, server).await;
    };
    let resource = match &metadata.resource {
        Some(advertised) => {
            let parsed = Url::parse(advertised).map_err(|_| {
                OAuthError::invalid(
                    format!("reading {}", display_url(&metadata_url)),
                    format!("\"resource\" is not a URL: {}", quoted(advertised)),
                )
            })?;
            if !resource_covers(&parsed, server) {
                return Err(OAuthError::ResourceMismatch {
                    server: display_url(server),
                    advertised: quoted(&display_url(&parsed)),
                });
            }
            advertised.clone()
        }
        None => canonical_resource(server),
    };
    let Some(issuer_text) = metadata.authorization_servers.first() else {
        return Err(OAuthError::invalid(
            format!("reading {}", display_url(&metadata_url)),
            "it names no authorization server",
        ));
    };
    let issuer = Url::parse(issuer_text).map_err(|_| {
        OAuthError::invalid(
            format!("reading {}", display_url(&metadata_url)),
            format!(
                "the authorization server is not a URL: {}",
                quoted(issuer_text)
            ),
        )
    })?;
    let candidates = server_metadata_urls(&issuer);
    let Some((found_at, found)) = first_document::<ServerMetadata>(http, &candidates).await? else {
        return Err(OAuthError::NoAuthorizationServerMetadata {
            issuer: quoted(&display_url(&issuer)),
            tried: candidates
                .iter()
                .map(|url| quoted(&display_url(url)))
                .collect::<Vec<_>>()
                .join(", "),
        });
    };
    if found.issuer.trim_end_matches('/') != issuer_text.trim_end_matches('/') {
        return Err(OAuthError::invalid(
            format!("reading {}", display_url(&found_at)),
            format!(
                "its issuer is {}, not the authorization server asked for ({})",
                quoted(&found.issuer),
                quoted(issuer_text)
            ),
        ));
    }
    let mut discovery = from_server_metadata(&found_at, found, resource)?;
    discovery.resource_scopes = metadata.scopes_supported;
    discovery.resource_wants_dpop = metadata.dpop_bound_access_tokens_required
        || metadata
            .dpop_signing_alg_values_supported
            .is_some_and(|algorithms| !algorithms.is_empty());
    Ok(discovery)
}

/// The protected resource metadata and where it was found; none when no location has it.
async fn resource_metadata(
    http: &reqwest::Client,
    server: &Url,
    challenge: &Challenge,
) -> Result<Option<(Url, ResourceMetadata)>, OAuthError> {
    let mut candidates = Vec::new();
    if let Some(advertised) = &challenge.resource_metadata {
        match server.join(advertised) {
            Ok(url) => candidates.push(url),
            Err(_) => tracing::debug!("the challenge's resource_metadata is not a URL; ignored"),
        }
    }
    let path = server.path().trim_end_matches('/');
    if !path.is_empty() {
        candidates.push(well_known(server, "oauth-protected-resource", path));
    }
    candidates.push(well_known(server, "oauth-protected-resource", ""));
    candidates.dedup();
    first_document(http, &candidates).await
}

/// The 2025-03-26 way: the server's origin is the authorization server.
async fn legacy_discovery(http: &reqwest::Client, server: &Url) -> Result<Discovery, OAuthError> {
    let origin = origin_of(server);
    let resource = canonical_resource(server);
    let candidates = server_metadata_urls(&origin);
    if let Some((found_at, found)) = first_document::<ServerMetadata>(http, &candidates).await? {
        return from_server_metadata(&found_at, found, resource);
    }
    let endpoint = |path: &str| {
        let mut url = origin.clone();
        url.set_path(path);
        url
    };
    Ok(Discovery {
        resource,
        issuer: origin.as_str().trim_end_matches('/').to_owned(),
        authorization_endpoint: endpoint("/authorize"),
        token_endpoint: endpoint("/token"),
        registration_endpoint: Some(endpoint("/register")),
        resource_scopes: None,
        server_scopes: None,
        code_challenge_methods: None,
        token_auth_methods: vec!["client_secret_basic".to_owned()],
        client_id_metadata_document: false,
        iss_parameter_supported: false,
        dpop_algorithms: None,
        resource_wants_dpop: false,
    })
}

fn from_server_metadata(
    found_at: &Url,
    metadata: ServerMetadata,
    resource: String,
) -> Result<Discovery, OAuthError> {
    let endpoint = |name: &str, value: &str| {
        found_at.join(value).map_err(|_| {
            OAuthError::invalid(
                format!("reading {}", display_url(found_at)),
                format!("{name} is not a URL: {}", quoted(value)),
            )
        })
    };
    // Without an authorization endpoint only grants that need none (client credentials) work;
    // the token endpoint stands in so such servers are still usable.
    let authorization_endpoint = match &metadata.authorization_endpoint {
        Some(value) => endpoint("authorization_endpoint", value)?,
        None => endpoint("token_endpoint", &metadata.token_endpoint)?,
    };
    Ok(Discovery {
        resource,
        issuer: metadata.issuer.clone(),
        authorization_endpoint,
        token_endpoint: endpoint("token_endpoint", &metadata.token_endpoint)?,
        registration_endpoint: match &metadata.registration_endpoint {
            Some(value) => Some(endpoint("registration_endpoint", value)?),
            None => None,
        },
        resource_scopes: None,
        server_scopes: metadata.scopes_supported,
        code_challenge_methods: Some(
            metadata
                .code_challenge_methods_supported
                .unwrap_or_default(),
        ),
        token_auth_methods: metadata
            .token_endpoint_auth_methods_supported
            .unwrap_or_else(|| vec!["client_secret_basic".to_owned()]),
        client_id_metadata_document: metadata.client_id_metadata_document_supported,
        iss_parameter_supported: metadata.authorization_response_iss_parameter_supported,
        dpop_algorithms: metadata.dpop_signing_alg_values_supported,
        resource_wants_dpop: false,
    })
}

/// The locations of an authorization server's metadata, in the order the MCP specification
/// gives.
fn server_metadata_urls(issuer: &Url) -> Vec<Url> {
    let path = issuer.path().trim_end_matches('/');
    if path.is_empty() {
        vec![
            well_known(issuer, "oauth-authorization-server", ""),
            well_known(issuer, "openid-configuration", ""),
        ]
    } else {
        let mut appended = origin_of(issuer);
        appended.set_path(&format!("{path}/.well-known/openid-configuration"));
        vec![
            well_known(issuer, "oauth-authorization-server", path),
            well_known(issuer, "openid-configuration", path),
            appended,
        ]
    }
}

/// `origin/.well-known/<name><path>`.
fn well_known(base: &Url, name: &str, path: &str) -> Url {
    let mut url = origin_of(base);
    url.set_path(&format!("/.well-known/{name}{path}"));
    url
}

fn origin_of(url: &Url) -> Url {
    let mut origin = url.clone();
    origin.set_path("/");
    origin.set_query(None);
    origin.set_fragment(None);
    let _ = origin.set_username("");
    let _ = origin.set_password(None);
    origin
}

/// The server's URL as a resource identifier (RFC 8707): scheme, host, port and path, without
/// query or fragment and without a trailing slash.
pub(crate) fn canonical_resource(server: &Url) -> String {
    let mut url = origin_of(server);
    url.set_path(server.path());
    let text = url.as_str();
    if server.path() == "/" {
        text.trim_end_matches('/').to_owned()
    } else {
        text.to_owned()
    }
}

/// True when the advertised resource is the server: the same origin, and a path that is the
/// server's or one of its parents.
fn resource_covers(advertised: &Url, server: &Url) -> bool {
    if advertised.origin() != server.origin() {
        return false;
    }
    let advertised_path = advertised.path().trim_end_matches('/');
    let server_path = server.path().trim_end_matches('/');
    server_path == advertised_path
        || server_path
            .strip_prefix(advertised_path)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// The first of `urls` that serves a JSON document of type `T`, and where; none when every one
/// answered with a client error (404, typically) or something other than that document.
async fn first_document<T: for<'de> Deserialize<'de>>(
    http: &reqwest::Client,
    urls: &[Url],
) -> Result<Option<(Url, T)>, OAuthError> {
    for url in urls {
        let action = format!("GET {}", display_url(url));
        let response = http
            .get(url.clone())
            .header(reqwest::header::ACCEPT, "application/json")
            .send()
            .await
            .map_err(|error| OAuthError::http(&action, error))?;
        let status = response.status();
        if !status.is_success() {
            tracing::debug!(url = %display_url(url), status = status.as_u16(), "no metadata here");
            continue;
        }
        let body = read_answer(response, &action).await?;
        match serde_json::from_slice::<T>(&body) {
            Ok(document) => return Ok(Some((url.clone(), document))),
            Err(error) => {
                let error = quoted(&error.to_string());
                tracing::debug!(url = %display_url(url), %error, "not a metadata document");
            }
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap()
    }

    #[test]
    fn authorization_server_metadata_is_looked_for_in_the_specified_order() {
        let with_path: Vec<String> =
            server_metadata_urls(&url("https://auth.example.com/tenant1/"))
                .iter()
                .map(Url::to_string)
                .collect();
        assert_eq!(
            with_path,
            [
                "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
                "https://auth.example.com/.well-known/openid-configuration/tenant1",
                "https://auth.example.com/tenant1/.well-known/openid-configuration",
            ]
        );
        let at_root: Vec<String> = server_metadata_urls(&url("https://auth.example.com"))
            .iter()
            .map(Url::to_string)
            .collect();
        assert_eq!(
            at_root,
            [
                "https://auth.example.com/.well-known/oauth-authorization-server",
                "https://auth.example.com/.well-known/openid-configuration",
            ]
        );
    }

    #[test]
    fn a_resource_covers_its_own_path_and_the_paths_below_it_only() {
        let server = url("https://a.example/mcp");
        assert!(resource_covers(&url("https://a.example/mcp"), &server));
        assert!(resource_covers(&url("https://a.example/"), &server));
        assert!(resource_covers(&url("https://a.example/mcp/"), &server));
        assert!(!resource_covers(&url("https://a.example/mc"), &server));
        assert!(!resource_covers(&url("https://evil.example/mcp"), &server));
        assert!(!resource_covers(&url("http://a.example/mcp"), &server));
    }

    #[test]
    fn the_canonical_resource_drops_query_fragment_and_case() {
        assert_eq!(
            canonical_resource(&url("HTTPS://A.Example:443/mcp?key=secret#x")),
            "https://a.example/mcp"
        );
        assert_eq!(
            canonical_resource(&url("https://a.example/")),
            "https://a.example"
        );
    }
}
