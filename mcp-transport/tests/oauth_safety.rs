//! Nothing an authorization server names is opened or followed blindly: an authorization
//! endpoint that is not `https:` (or `http:` on this machine) is never shown or opened; a
//! request carrying credentials (a token request of any grant, a refresh, a dynamic
//! registration, an identity provider's token exchange) never follows a redirect to another
//! origin, which then receives nothing at all; and a login the client refuses (another
//! issuer, an error, another state, a code the token endpoint refuses) says so, with the
//! reason, on the page the browser comes back to.

#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{guard, object, text};
use mcp_transport::http::{HttpServerParams, Url};
use mcp_transport::oauth::{
    ClientCredential, CredentialStore, Credentials, Grant, IdentityAssertion, LoopbackBrowser,
    MemoryCredentialStore, OAuthAuthorizer, OAuthError, OAuthOptions, PreRegisteredClient, Secret,
    credential_key,
};
use mcp_transport::{ClientOptions, Error, McpClient, TransportError};
use serde_json::json;
use testkit::{HttpFixture, HttpFixtureOptions, LoginFault};
use tokio::io::AsyncWriteExt as _;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

fn authorizer(url: &str, options: OAuthOptions) -> Arc<OAuthAuthorizer> {
    Arc::new(OAuthAuthorizer::new(&Url::parse(url).unwrap(), options).unwrap())
}

async fn try_connect(url: &str, authorizer: Arc<OAuthAuthorizer>) -> Result<McpClient, Error> {
    let params = HttpServerParams::new(url).unwrap().authorizer(authorizer);
    let options = ClientOptions::default().connect_timeout(Duration::from_secs(15));
    guard(McpClient::connect_http("fixture", params, options)).await
}

/// The authorization failure behind a connection error.
fn oauth_error(error: &Error) -> &OAuthError {
    match error.transport_error() {
        Some(TransportError::Authorization(oauth)) => oauth,
        _ => panic!("not an authorization error: {error}"),
    }
}

/// A browser step that records every URL it is asked to show, and never comes back.
fn recording_browser() -> (LoopbackBrowser, Arc<Mutex<Vec<String>>>) {
    let shown = Arc::new(Mutex::new(Vec::new()));
    let recorded = Arc::clone(&shown);
    let browser = LoopbackBrowser::new(move |url| recorded.lock().unwrap().push(url.to_string()))
        .timeout(Duration::from_secs(3));
    (browser, shown)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_authorization_endpoint_that_is_not_https_is_refused_and_never_shown() {
    for endpoint in [
        "file:///tmp/payload.desktop",
        "javascript:alert(1)",
        "http://auth.example.com/authorize",
        "smb://attacker.example/share",
    ] {
        let fixture = HttpFixture::start(
            HttpFixtureOptions::default()
                .oauth()
                .json_answers()
                .authorization_endpoint(endpoint),
        );
        let (browser, shown) = recording_browser();
        let options = OAuthOptions::new(Arc::new(MemoryCredentialStore::new()))
            .interactive(Arc::new(browser));
        let error = try_connect(&fixture.url(), authorizer(&fixture.url(), options))
            .await
            .expect_err("the login cannot go there");
        assert!(
            shown.lock().unwrap().is_empty(),
            "{endpoint} was shown to be opened: {:?}",
            shown.lock().unwrap()
        );
        let said = error.to_string();
        assert!(said.contains(endpoint), "{endpoint}: {said}");
        assert!(said.contains("not opened"), "{endpoint}: {said}");
        assert!(
            matches!(oauth_error(&error), OAuthError::NotOpenable(_)),
            "{endpoint}: {error:?}"
        );
    }
}

/// What the hand-written authorization server of [`redirecting_server`] redirects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Redirects {
    /// `POST /token` (every grant and refresh).
    Token,
    /// `POST /register` (dynamic registration).
    Registration,
    /// `POST /idp-token` (the identity provider's token exchange).
    IdentityProvider,
}

/// Where a redirect of [`redirecting_server`] points: another origin that records every
/// connection and answers as a token endpoint would, so a client that followed would succeed.
struct Elsewhere {
    origin: String,
    connections: Arc<AtomicUsize>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Elsewhere {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn elsewhere() -> Elsewhere {
    let listener = TcpListener::bind(("127.0.0.1", 0)).await.unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    let connections = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&connections);
    let task = tokio::spawn(async move {
        loop {
            let (mut stream, _) = listener.accept().await.unwrap();
            counted.fetch_add(1, Ordering::SeqCst);
            tokio::spawn(async move {
                if common::read_request(&mut stream).await.is_some() {
                    let body = json!({"access_token": "stolen", "token_type": "Bearer",
                        "client_id": "stolen"})
                    .to_string();
                    let answer = format!(
                        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\
                         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                        body.len()
                    );
                    let _ = stream.write_all(answer.as_bytes()).await;
                }
            });
        }
    });
    Elsewhere {
        origin,
        connections,
        task,
    }
}

/// An MCP server that is its own authorization server and answers `redirects` with a 307 to
/// `to` (same path), or to `/moved<path>` on its own origin when `to` is `None`, where it
/// answers as it would have. Returns the MCP endpoint's URL.
async fn redirecting_server(
    redirects: Redirects,
    to: Option<String>,
) -> (String, tokio::task::JoinHandle<()>) {
    let listener = TcpListener::bind(("127.0.0.1", 0)).await.unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    let url = format!("{origin}/mcp");
    let server = tokio::spawn(async move {
        loop {
            let (stream, _) = listener.accept().await.unwrap();
            let origin = origin.clone();
            let to = to.clone();
            tokio::spawn(async move { redirect(stream, &origin, redirects, to.as_deref()).await });
        }
    });
    (url, server)
}

async fn redirect(mut stream: TcpStream, origin: &str, redirects: Redirects, to: Option<&str>) {
    let Some((method, path)) = common::read_request(&mut stream).await else {
        return;
    };
    let json = |status: &str, body: String| {
        format!(
            "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
             Connection: close\r\n\r\n{body}",
            body.len()
        )
    };
    let redirected = match redirects {
        Redirects::Token => "/token",
        Redirects::Registration => "/register",
        Redirects::IdentityProvider => "/idp-token",
    };
    let answer = match (method.as_str(), path.as_str()) {
        ("POST", "/mcp") => format!(
            "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer \
             resource_metadata=\"{origin}/.well-known/oauth-protected-resource\"\r\n\
             Content-Length: 0\r\nConnection: close\r\n\r\n"
        ),
        ("GET", "/.well-known/oauth-protected-resource") => json(
            "200 OK",
            json!({"resource": format!("{origin}/mcp"), "authorization_servers": [origin]})
                .to_string(),
        ),
        ("GET", "/.well-known/oauth-authorization-server") => json(
            "200 OK",
            json!({
                "issuer": origin,
                "authorization_endpoint": format!("{origin}/authorize"),
                "token_endpoint": format!("{origin}/token"),
                "registration_endpoint": format!("{origin}/register"),
                "code_challenge_methods_supported": ["S256"],
                "token_endpoint_auth_methods_supported": ["client_secret_post"],
            })
            .to_string(),
        ),
        ("POST", path) if path == redirected => {
            let location = match to {
                Some(elsewhere) => format!("{elsewhere}{path}"),
                None => format!("{origin}/moved{path}"),
            };
            format!(
                "HTTP/1.1 307 Temporary Redirect\r\nLocation: {location}\r\n\
                 Content-Length: 0\r\nConnection: close\r\n\r\n"
            )
        }
        ("POST", "/moved/token" | "/token" | "/idp-token" | "/moved/idp-token") => json(
            "200 OK",
            json!({"access_token": "a-token", "token_type": "Bearer",
                "issued_token_type": "urn:ietf:params:oauth:token-type:id-jag"})
            .to_string(),
        ),
        _ => "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".to_owned(),
    };
    let _ = stream.write_all(answer.as_bytes()).await;
    let _ = stream.shutdown().await;
}

/// Each way a credential is sent to an authorization server.
#[derive(Debug, Clone, Copy)]
enum Case {
    /// The client credentials grant: the client secret in the form.
    ClientCredentials,
    /// A refresh of a stored login whose access token has expired: the refresh token and the
    /// client secret in the form.
    Refresh,
    /// Dynamic registration, before a browser login.
    Registration,
    /// Enterprise-managed authorization: the user's ID token to the identity provider.
    IdentityProvider,
}

impl Case {
    const ALL: [Self; 4] = [
        Self::ClientCredentials,
        Self::Refresh,
        Self::Registration,
        Self::IdentityProvider,
    ];

    fn redirects(self) -> Redirects {
        match self {
            Self::ClientCredentials | Self::Refresh => Redirects::Token,
            Self::Registration => Redirects::Registration,
            Self::IdentityProvider => Redirects::IdentityProvider,
        }
    }

    /// The options that make the client send it to the server at `url` (which is its own
    /// identity provider too).
    async fn options(self, url: &str) -> OAuthOptions {
        let secret = || Secret::new("the-client-secret-5d1e");
        let origin = url.trim_end_matches("/mcp");
        let fresh = || OAuthOptions::new(Arc::new(MemoryCredentialStore::new()));
        match self {
            Self::ClientCredentials => fresh().grant(Grant::ClientCredentials {
                client_id: "agent".to_owned(),
                credential: ClientCredential::Secret(secret()),
            }),
            Self::Refresh => {
                let store = Arc::new(MemoryCredentialStore::new());
                let stored: Credentials = serde_json::from_value(json!({
                    "issuer": origin,
                    "tokens": {"access_token": "expired",
                               "refresh_token": "the-refresh-token-77aa", "expires_at": 1},
                }))
                .unwrap();
                store
                    .save(&credential_key(&Url::parse(url).unwrap()), &stored)
                    .await
                    .unwrap();
                OAuthOptions::new(store).grant(Grant::AuthorizationCode {
                    client: Some(PreRegisteredClient::new("agent", Some(secret()))),
                })
            }
            Self::Registration => fresh().interactive(Arc::new(recording_browser().0)),
            Self::IdentityProvider => {
                fresh().grant(Grant::IdentityAssertion(IdentityAssertion::new(
                    "agent",
                    secret(),
                    Url::parse(&format!("{origin}/idp-token")).unwrap(),
                    "agent-at-idp",
                    Secret::new("the-id-token-19fc"),
                )))
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_carrying_credentials_never_follows_a_redirect_to_another_origin() {
    for case in Case::ALL {
        let elsewhere = elsewhere().await;
        let (url, server) =
            redirecting_server(case.redirects(), Some(elsewhere.origin.clone())).await;
        let options = case.options(&url).await;
        let error = try_connect(&url, authorizer(&url, options))
            .await
            .expect_err("the redirect is not followed");
        server.abort();
        assert_eq!(
            elsewhere.connections.load(Ordering::SeqCst),
            0,
            "{case:?}: the other origin was contacted ({error})"
        );
        let said = error.to_string();
        assert!(said.contains(&elsewhere.origin), "{case:?}: {said}");
        assert!(said.contains("another origin"), "{case:?}: {said}");
        assert!(
            matches!(
                oauth_error(&error),
                OAuthError::CrossOriginRedirect { to, .. } if to.starts_with(&elsewhere.origin)
            ),
            "{case:?}: {error:?}"
        );
        for secret in ["the-client-secret", "the-refresh-token", "the-id-token"] {
            assert!(!said.contains(secret), "{case:?}: {said}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_request_redirected_within_its_own_origin_is_followed() {
    let (url, server) = redirecting_server(Redirects::Token, None).await;
    let options =
        OAuthOptions::new(Arc::new(MemoryCredentialStore::new())).grant(Grant::ClientCredentials {
            client_id: "agent".to_owned(),
            credential: ClientCredential::Secret(Secret::new("the-client-secret-5d1e")),
        });
    // The token is got at the moved endpoint; the server (which takes no token) then refuses
    // the connection's request, which is the error.
    let error = try_connect(&url, authorizer(&url, options))
        .await
        .expect_err("the scripted server refuses every MCP request");
    server.abort();
    assert!(
        matches!(
            error.transport_error(),
            Some(TransportError::Unauthorized { .. })
        ),
        "the token was obtained through the redirect: {error:?}"
    );
}

/// Plays the user's browser for a login that goes wrong: asks for the authorization URL,
/// follows the redirect to the loopback listener, and returns the page it got.
fn browser() -> (LoopbackBrowser, tokio::task::JoinHandle<Vec<(u16, String)>>) {
    let (shown, mut urls) = mpsc::unbounded_channel::<Url>();
    let handler = LoopbackBrowser::new(move |url| {
        let _ = shown.send(url.clone());
    })
    .timeout(Duration::from_secs(20));
    let driver = tokio::spawn(async move {
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        let mut pages = Vec::new();
        while let Some(url) = urls.recv().await {
            let answer = http.get(url).send().await.unwrap();
            let location = answer.headers()["location"].to_str().unwrap().to_owned();
            let page = http.get(location).send().await.unwrap();
            let status = page.status().as_u16();
            pages.push((status, page.text().await.unwrap()));
        }
        pages
    });
    (handler, driver)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_login_says_so_with_the_reason_on_the_page_the_browser_comes_back_to() {
    let planted = "https://evil.example/<script>alert(1)</script>";
    for (fault, reason) in [
        (
            LoginFault::WrongIssuer(planted.to_owned()),
            "https://evil.example/&lt;script&gt;",
        ),
        (
            LoginFault::Error {
                error: "access_denied".to_owned(),
                description: "the user said <no>".to_owned(),
            },
            "access_denied (the user said &lt;no&gt;)",
        ),
        (LoginFault::WrongState, "unexpected state"),
        (LoginFault::CodeRefused, "invalid_grant"),
    ] {
        let fixture = HttpFixture::start(
            HttpFixtureOptions::default()
                .oauth()
                .json_answers()
                .login_fault(fault.clone()),
        );
        let (handler, driver) = browser();
        let options = OAuthOptions::new(Arc::new(MemoryCredentialStore::new()))
            .interactive(Arc::new(handler));
        let authorizer = authorizer(&fixture.url(), options);
        let error = try_connect(&fixture.url(), Arc::clone(&authorizer))
            .await
            .expect_err("the login is refused");
        drop(authorizer);
        let pages = guard(driver).await.unwrap();
        assert_eq!(pages.len(), 1, "{fault:?}: one login: {pages:?}");
        let (status, page) = &pages[0];
        assert!(!page.contains("Logged in"), "{fault:?}: {page}");
        assert!(page.contains("did not succeed"), "{fault:?}: {page}");
        assert!(page.contains(reason), "{fault:?}: {page}");
        assert!(!page.contains("<script>"), "{fault:?}: not escaped: {page}");
        assert_eq!(*status, 200, "{fault:?}");
        for secret in fixture.handed_out_secrets() {
            assert!(!page.contains(&secret), "{fault:?}: {page}");
            assert!(!error.to_string().contains(&secret), "{fault:?}: {error}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_login_that_worked_says_so_only_once_its_tokens_are_in_hand() {
    let fixture = HttpFixture::start(HttpFixtureOptions::default().oauth().json_answers());
    let (handler, driver) = browser();
    let store = Arc::new(MemoryCredentialStore::new());
    let options = OAuthOptions::new(store.clone()).interactive(Arc::new(handler));
    let authorizer = authorizer(&fixture.url(), options);
    let client = try_connect(&fixture.url(), Arc::clone(&authorizer))
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let result = guard(client.call_tool("echo", Some(object(json!({"message": "in"})))))
        .await
        .unwrap();
    assert_eq!(text(&result), "in");
    guard(client.close()).await.unwrap();
    drop((client, authorizer));
    let pages = guard(driver).await.unwrap();
    assert_eq!(pages.len(), 1);
    assert!(pages[0].1.contains("Logged in"), "{:?}", pages[0]);
    let key = credential_key(&Url::parse(&fixture.url()).unwrap());
    assert!(store.load(&key).await.unwrap().unwrap().tokens.is_some());
}
