//! The fixture as its own OAuth 2.1 authorization server ([`HttpFixtureOptions::oauth`]):
//! protected resource metadata, authorization server metadata, dynamic registration, an
//! authorization endpoint that redirects at once (no user to ask), and a token endpoint that
//! checks PKCE and issues, refreshes (rotating refresh tokens) and forgets tokens as the test
//! says; a login can be made to go wrong ([`LoginFault`]). Tokens, codes and
//! client secrets end in random hex, so a test that searches output for them finds only a
//! real leak.
//!
//! [`HttpFixtureOptions::oauth`]: super::HttpFixtureOptions::oauth

use std::collections::HashMap;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::json;

use super::{Conn, Request, State, lock, respond};

/// How [`HttpFixtureOptions::login_fault`] makes a login go wrong.
///
/// [`HttpFixtureOptions::login_fault`]: super::HttpFixtureOptions::login_fault
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum LoginFault {
    /// The redirect carries the code and this `iss` (RFC 9207), not the fixture's issuer.
    WrongIssuer(String),
    /// The redirect carries `error` and `error_description` instead of a code.
    Error {
        /// The OAuth error code, e.g. `access_denied`.
        error: String,
        /// Its description.
        description: String,
    },
    /// The redirect carries another `state` than the one the client sent.
    WrongState,
    /// The token endpoint refuses the code (`invalid_grant`).
    CodeRefused,
}

/// Tokens the authorization server issued and still honours, each with the login it descends
/// from (its family: an authorization code, or [`Tokens::issue`], starts one; a refresh stays
/// in it).
#[derive(Default)]
pub(super) struct Tokens {
    issued: usize,
    families: usize,
    access: HashMap<String, usize>,
    /// Refresh tokens not used yet, oldest first.
    refresh: Vec<(String, usize)>,
    /// Refresh tokens used once, with their family: presented again, they are refused (and
    /// with `revoke_family_on_reuse` their family is revoked).
    used_refresh: HashMap<String, usize>,
    /// Authorization codes not used yet, with their PKCE challenge.
    codes: HashMap<String, String>,
    /// The secrets of the clients registered (with [`client_secrets`]).
    ///
    /// [`client_secrets`]: super::HttpFixtureOptions::client_secrets
    client_secrets: HashMap<String, String>,
    /// Every token, code and client secret ever handed out.
    handed_out: Vec<String>,
}

impl Tokens {
    /// A new access and refresh token pair, the start of a new login.
    pub(super) fn issue(&mut self) -> (String, String) {
        self.families += 1;
        let family = self.families;
        self.issue_in(family)
    }

    /// A new pair in `family`.
    fn issue_in(&mut self, family: usize) -> (String, String) {
        self.issued += 1;
        let access = self.hand_out(&format!("fixture-access-{}", self.issued));
        let refresh = self.hand_out(&format!("fixture-refresh-{}", self.issued));
        self.access.insert(access.clone(), family);
        self.refresh.push((refresh.clone(), family));
        (access, refresh)
    }

    /// Uses `token` up (it is good for one refresh): the family of the new pair, or `None`
    /// when it is not accepted; a used one presented again revokes its family when `revoke`.
    fn redeem_refresh(&mut self, token: &str, revoke: bool) -> Option<usize> {
        if let Some(position) = self.refresh.iter().position(|(live, _)| live == token) {
            let (used, family) = self.refresh.remove(position);
            self.used_refresh.insert(used, family);
            return Some(family);
        }
        if let Some(family) = self.used_refresh.get(token).copied()
            && revoke
        {
            self.access.retain(|_, of| *of != family);
            self.refresh.retain(|(_, of)| *of != family);
        }
        None
    }

    /// `prefix-<32 random hex digits>`, remembered as handed out.
    fn hand_out(&mut self, prefix: &str) -> String {
        let mut random = [0_u8; 16];
        // The fixture needs unpredictable strings, not secrets: a failing system generator
        // would be a broken test machine, which this panic reports.
        aws_lc_rs::rand::fill(&mut random)
            .unwrap_or_else(|_| panic!("the system random generator failed"));
        let mut value = format!("{prefix}-");
        for byte in random {
            value.push_str(&format!("{byte:02x}"));
        }
        self.handed_out.push(value.clone());
        value
    }

    pub(super) fn handed_out(&self) -> Vec<String> {
        self.handed_out.clone()
    }

    pub(super) fn live_refresh(&self) -> Vec<String> {
        self.refresh
            .iter()
            .map(|(token, _)| token.clone())
            .collect()
    }

    pub(super) fn expire_access(&mut self) {
        self.access.clear();
    }

    pub(super) fn revoke_refresh(&mut self) {
        self.refresh.clear();
    }

    pub(super) fn accepts(&self, authorization: Option<&str>) -> bool {
        authorization
            .and_then(|value| value.strip_prefix("Bearer "))
            .is_some_and(|token| self.access.contains_key(token))
    }
}

impl State {
    /// The `WWW-Authenticate` of a refused MCP request.
    pub(super) fn oauth_challenge(&self, origin: &str) -> String {
        format!(
            "Bearer error=\"invalid_token\", resource_metadata=\"{origin}/.well-known/oauth-protected-resource/mcp\""
        )
    }

    /// Answers the authorization server's endpoints; none when `request` is for another path.
    pub(super) fn route_oauth(&self, conn: &Conn, request: &Request, origin: &str) -> Option<u16> {
        let (path, query) = request
            .target
            .split_once('?')
            .unwrap_or((request.target.as_str(), ""));
        let json_headers = [("Content-Type", "application/json".to_owned())];
        let status = match (request.method.as_str(), path) {
            ("GET", "/.well-known/oauth-protected-resource/mcp") => {
                let metadata = json!({
                    "resource": format!("{origin}/mcp"),
                    "authorization_servers": [origin],
                });
                respond(conn, 200, &json_headers, &metadata.to_string());
                200
            }
            ("GET", "/.well-known/oauth-authorization-server") => {
                let auth_method = if self.options.client_secrets {
                    "client_secret_post"
                } else {
                    "none"
                };
                let authorization_endpoint = self
                    .options
                    .authorization_endpoint
                    .clone()
                    .unwrap_or_else(|| format!("{origin}/authorize"));
                let metadata = json!({
                    "issuer": origin,
                    "authorization_endpoint": authorization_endpoint,
                    "token_endpoint": format!("{origin}/token"),
                    "registration_endpoint": format!("{origin}/register"),
                    "response_types_supported": ["code"],
                    "grant_types_supported": ["authorization_code", "refresh_token"],
                    "code_challenge_methods_supported": ["S256"],
                    "token_endpoint_auth_methods_supported": [auth_method],
                });
                respond(conn, 200, &json_headers, &metadata.to_string());
                200
            }
            ("POST", "/register") => {
                let client = if self.options.client_secrets {
                    let mut tokens = lock(&self.tokens);
                    let client_id = format!("fixture-client-{}", tokens.client_secrets.len() + 1);
                    let secret = tokens.hand_out("fixture-client-secret");
                    tokens
                        .client_secrets
                        .insert(client_id.clone(), secret.clone());
                    json!({
                        "client_id": client_id,
                        "client_secret": secret,
                        "token_endpoint_auth_method": "client_secret_post",
                    })
                } else {
                    json!({"client_id": "fixture-client", "token_endpoint_auth_method": "none"})
                };
                respond(conn, 201, &json_headers, &client.to_string());
                201
            }
            ("GET", "/authorize") => self.authorize(conn, query),
            ("POST", "/token") => self.token(conn, request),
            _ => return None,
        };
        Some(status)
    }

    /// Redirects to the redirect URI at once with a code (and the state).
    fn authorize(&self, conn: &Conn, query: &str) -> u16 {
        let params: HashMap<String, String> = url::form_urlencoded::parse(query.as_bytes())
            .into_owned()
            .collect();
        let (Some(redirect_uri), Some(challenge)) =
            (params.get("redirect_uri"), params.get("code_challenge"))
        else {
            respond(
                conn,
                400,
                &[],
                "redirect_uri and code_challenge are required",
            );
            return 400;
        };
        let code = {
            let mut tokens = lock(&self.tokens);
            let prefix = format!("fixture-code-{}", tokens.codes.len() + 1);
            let code = tokens.hand_out(&prefix);
            tokens.codes.insert(code.clone(), challenge.clone());
            code
        };
        let encode = |value: &str| {
            url::form_urlencoded::byte_serialize(value.as_bytes()).collect::<String>()
        };
        let mut location = match &self.options.login_fault {
            Some(LoginFault::Error { error, description }) => format!(
                "{redirect_uri}?error={}&error_description={}",
                encode(error),
                encode(description)
            ),
            _ => format!("{redirect_uri}?code={code}"),
        };
        if let Some(state) = params.get("state") {
            let state = match self.options.login_fault {
                Some(LoginFault::WrongState) => "not-the-state-sent",
                _ => state,
            };
            location.push_str("&state=");
            location.push_str(&encode(state));
        }
        if let Some(LoginFault::WrongIssuer(issuer)) = &self.options.login_fault {
            location.push_str("&iss=");
            location.push_str(&encode(issuer));
        }
        respond(conn, 302, &[("Location", location)], "");
        302
    }

    fn token(&self, conn: &Conn, request: &Request) -> u16 {
        let form: HashMap<String, String> = url::form_urlencoded::parse(&request.body)
            .into_owned()
            .collect();
        let json_headers = [("Content-Type", "application/json".to_owned())];
        let refuse = |error: &str| {
            respond(
                conn,
                400,
                &json_headers,
                &json!({"error": error}).to_string(),
            );
            400
        };
        let mut tokens = lock(&self.tokens);
        if self.options.client_secrets {
            let known = form
                .get("client_id")
                .and_then(|client_id| tokens.client_secrets.get(client_id));
            if known.is_none() || known != form.get("client_secret") {
                return refuse("invalid_client");
            }
        }
        let (access, refresh) = match form.get("grant_type").map(String::as_str) {
            Some("authorization_code") => {
                let challenge = form.get("code").and_then(|code| tokens.codes.remove(code));
                let verified = challenge.zip(form.get("code_verifier")).is_some_and(
                    |(challenge, verifier)| {
                        let digest = aws_lc_rs::digest::digest(
                            &aws_lc_rs::digest::SHA256,
                            verifier.as_bytes(),
                        );
                        URL_SAFE_NO_PAD.encode(digest.as_ref()) == challenge
                    },
                );
                if !verified || self.options.login_fault == Some(LoginFault::CodeRefused) {
                    return refuse("invalid_grant");
                }
                tokens.issue()
            }
            Some("refresh_token") => {
                let revoke = self.options.revoke_family_on_reuse;
                let family = form
                    .get("refresh_token")
                    .and_then(|token| tokens.redeem_refresh(token, revoke));
                let Some(family) = family else {
                    return refuse("invalid_grant");
                };
                tokens.issue_in(family)
            }
            _ => return refuse("unsupported_grant_type"),
        };
        let answer = json!({
            "access_token": access,
            "refresh_token": refresh,
            "token_type": "Bearer",
            "expires_in": self.options.token_lifetime_secs,
        });
        respond(conn, 200, &json_headers, &answer.to_string());
        200
    }
}

/// A GET as a browser makes it, on a fresh connection to a loopback `http://` URL: the status,
/// the `Location` header and the body. Tests play the user's browser in a login with it: the
/// authorization URL (the fixture redirects), then the redirect (the client's listener).
///
/// # Panics
///
/// If the URL is not `http://`, nothing listens there, or no answer comes within 20 s.
pub fn browser_get(url: &str) -> (u16, Option<String>, String) {
    use std::io::{Read as _, Write as _};

    let fail =
        |what: &str, error: &dyn std::fmt::Display| -> ! { panic!("GET {url}: {what}: {error}") };
    let Some(rest) = url.strip_prefix("http://") else {
        panic!("GET {url}: not a loopback http URL");
    };
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let mut stream =
        std::net::TcpStream::connect(authority).unwrap_or_else(|error| fail("connecting", &error));
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(20)))
        .unwrap_or_else(|error| fail("setting a timeout", &error));
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n"
    )
    .unwrap_or_else(|error| fail("sending", &error));
    // The head, then as much body as it announces: the server may keep the connection.
    let mut bytes = Vec::new();
    let mut buffer = [0; 4096];
    let answer = loop {
        let read = stream
            .read(&mut buffer)
            .unwrap_or_else(|error| fail("reading", &error));
        bytes.extend_from_slice(&buffer[..read]);
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let Some((head, body)) = text.split_once("\r\n\r\n") else {
            if read == 0 {
                fail("the connection closed before the head ended", &text);
            }
            continue;
        };
        let length = header(head, "content-length").and_then(|value| value.parse::<usize>().ok());
        if read == 0 || length.is_some_and(|length| body.len() >= length) {
            break text;
        }
    };
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0);
    (status, header(head, "location"), body.to_owned())
}

fn header(head: &str, name: &str) -> Option<String> {
    head.lines().find_map(|line| {
        let (found, value) = line.split_once(':')?;
        found
            .eq_ignore_ascii_case(name)
            .then(|| value.trim().to_owned())
    })
}
