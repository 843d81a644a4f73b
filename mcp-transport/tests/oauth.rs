//! OAuth against testkit's HTTP fixture acting as its own authorization server: the loopback
//! login driven by the test as a browser would, refresh in the middle of a session (once for
//! many calls), stored tokens bound to the server's URL, a revoked refresh token turning into
//! "log in again", no token, code or secret in logs, errors or `Debug` output, and an
//! authorization server that answers without end or with a huge error text.

#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::{Captured, guard, object, text};
use mcp_transport::http::{HttpServerParams, Url};
use mcp_transport::oauth::{
    ClientCredential, CredentialStore, FileCredentialStore, Grant, LoopbackBrowser,
    MAX_ANSWER_BYTES, MemoryCredentialStore, OAuthAuthorizer, OAuthError, OAuthOptions, Secret,
    credential_key,
};
use mcp_transport::{ClientOptions, Error, McpClient, TransportError};
use serde_json::json;
use testkit::{HttpFixture, HttpFixtureOptions};
use tokio::io::AsyncWriteExt as _;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

fn oauth_fixture() -> HttpFixture {
    HttpFixture::start(HttpFixtureOptions::default().oauth().json_answers())
}

/// Plays the user's browser: asks for each authorization URL the login shows, follows the
/// authorization server's redirect to the loopback listener, and returns the page it answered.
fn browser() -> (LoopbackBrowser, tokio::task::JoinHandle<Vec<String>>) {
    browser_that(false, Duration::from_secs(20))
}

/// [`browser`], optionally opening an idle connection to the listener first (as browsers do
/// to save time later), with the login's timeout.
fn browser_that(
    preconnects: bool,
    timeout: Duration,
) -> (LoopbackBrowser, tokio::task::JoinHandle<Vec<String>>) {
    let (shown, mut urls) = mpsc::unbounded_channel::<Url>();
    let handler = LoopbackBrowser::new(move |url| {
        let _ = shown.send(url.clone());
    })
    .timeout(timeout);
    let driver = tokio::spawn(async move {
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        let mut pages = Vec::new();
        let mut idle = Vec::new();
        while let Some(url) = urls.recv().await {
            let answer = http.get(url).send().await.unwrap();
            assert_eq!(answer.status(), 302, "the authorization server redirects");
            let location = answer.headers()["location"].to_str().unwrap().to_owned();
            assert!(location.starts_with("http://127.0.0.1:"), "{location}");
            if preconnects {
                let address = Url::parse(&location)
                    .unwrap()
                    .socket_addrs(|| None)
                    .unwrap();
                idle.push(tokio::net::TcpStream::connect(address[0]).await.unwrap());
            }
            let page = http.get(location).send().await.unwrap();
            pages.push(page.text().await.unwrap());
        }
        pages
    });
    (handler, driver)
}

fn authorizer(url: &str, options: OAuthOptions) -> Arc<OAuthAuthorizer> {
    Arc::new(OAuthAuthorizer::new(&Url::parse(url).unwrap(), options).unwrap())
}

async fn try_connect(url: &str, authorizer: Arc<OAuthAuthorizer>) -> Result<McpClient, Error> {
    let params = HttpServerParams::new(url).unwrap().authorizer(authorizer);
    let options = ClientOptions::default().connect_timeout(Duration::from_secs(15));
    guard(McpClient::connect_http("fixture", params, options)).await
}

/// Logs in through the browser and connects; the store then holds the tokens.
async fn log_in(fixture: &HttpFixture, store: Arc<dyn CredentialStore>) -> McpClient {
    let (handler, driver) = browser();
    let options = OAuthOptions::new(store).interactive(Arc::new(handler));
    let client = try_connect(&fixture.url(), authorizer(&fixture.url(), options))
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    drop(driver);
    client
}

/// Connects with the stored credentials only: no browser.
async fn reconnect(
    fixture: &HttpFixture,
    store: Arc<dyn CredentialStore>,
) -> Result<McpClient, Error> {
    try_connect(
        &fixture.url(),
        authorizer(&fixture.url(), OAuthOptions::new(store)),
    )
    .await
}

async fn echo(client: &McpClient, message: &str) -> Result<String, Error> {
    let result = guard(client.call_tool("echo", Some(object(json!({"message": message}))))).await?;
    Ok(text(&result).to_owned())
}

fn authorizations(fixture: &HttpFixture) -> usize {
    fixture
        .requests()
        .iter()
        .filter(|request| request.target.starts_with("/authorize"))
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_login_through_the_loopback_browser_connects_and_keeps_the_tokens_under_the_server_url() {
    let fixture = oauth_fixture();
    let store = Arc::new(MemoryCredentialStore::new());
    let (handler, driver) = browser();
    let options = OAuthOptions::new(store.clone()).interactive(Arc::new(handler));
    let client = try_connect(&fixture.url(), authorizer(&fixture.url(), options))
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(echo(&client, "hi").await.unwrap(), "hi");
    guard(client.close()).await.unwrap();

    drop(client);
    let pages = {
        // The handler (and with it the channel) is gone once the client is.
        guard(driver).await.unwrap()
    };
    assert_eq!(pages.len(), 1, "one login");
    assert!(pages[0].contains("Logged in"), "{}", pages[0]);
    let requests = fixture.requests();
    assert_eq!(
        requests.iter().filter(|r| r.target == "/register").count(),
        1,
        "one dynamic registration"
    );
    assert_eq!(fixture.token_requests("authorization_code"), 1);
    let mcp_posts: Vec<_> = requests
        .iter()
        .filter(|request| request.target == "/mcp" && request.status == 200)
        .collect();
    assert!(!mcp_posts.is_empty());
    let key = credential_key(&Url::parse(&fixture.url()).unwrap());
    let kept = store.load(&key).await.unwrap().expect("credentials kept");
    let access_token = kept.tokens.unwrap().access_token.expose().to_owned();
    assert!(
        access_token.starts_with("fixture-access-1-"),
        "the first token issued"
    );
    let bearer = format!("Bearer {access_token}");
    assert!(
        mcp_posts
            .iter()
            .all(|request| request.authorization.as_deref() == Some(bearer.as_str()))
    );
    assert_eq!(kept.issuer.as_deref(), Some(fixture.origin().as_str()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_401_in_the_middle_of_a_session_refreshes_the_token_and_the_call_succeeds() {
    let fixture = oauth_fixture();
    let client = log_in(&fixture, Arc::new(MemoryCredentialStore::new())).await;
    assert_eq!(echo(&client, "before").await.unwrap(), "before");
    fixture.expire_access_tokens();
    assert_eq!(echo(&client, "after").await.unwrap(), "after");
    assert_eq!(fixture.token_requests("refresh_token"), 1);
    assert_eq!(authorizations(&fixture), 1, "the user was not asked again");
    guard(client.close()).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_calls_refused_at_once_refresh_the_token_once() {
    let fixture = oauth_fixture();
    let client = Arc::new(log_in(&fixture, Arc::new(MemoryCredentialStore::new())).await);
    fixture.expire_access_tokens();
    let calls: Vec<_> = (0..8)
        .map(|n| {
            let client = Arc::clone(&client);
            tokio::spawn(async move { echo(&client, &format!("call {n}")).await })
        })
        .collect();
    for (n, call) in calls.into_iter().enumerate() {
        assert_eq!(guard(call).await.unwrap().unwrap(), format!("call {n}"));
    }
    assert_eq!(fixture.token_requests("refresh_token"), 1);
    guard(client.close()).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stored_tokens_connect_without_asking_and_a_revoked_refresh_token_means_log_in_again() {
    let fixture = oauth_fixture();
    let store: Arc<dyn CredentialStore> = Arc::new(MemoryCredentialStore::new());

    let never_logged_in = reconnect(&fixture, Arc::new(MemoryCredentialStore::new()))
        .await
        .expect_err("no tokens, no browser");
    assert!(never_logged_in.needs_login(), "{never_logged_in}");
    assert!(
        never_logged_in.to_string().contains("requires a login"),
        "{never_logged_in}"
    );

    guard(log_in(&fixture, store.clone()).await.close())
        .await
        .unwrap();
    let client = reconnect(&fixture, store.clone())
        .await
        .expect("stored tokens");
    assert_eq!(echo(&client, "stored").await.unwrap(), "stored");
    assert_eq!(authorizations(&fixture), 1);

    fixture.expire_access_tokens();
    fixture.revoke_refresh_tokens();
    let refused = echo(&client, "revoked").await.expect_err("log in again");
    assert!(refused.needs_login(), "{refused}");
    assert_eq!(authorizations(&fixture), 1, "nobody was asked");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_kept_for_one_url_is_never_sent_to_a_server_at_another() {
    let logged_in = oauth_fixture();
    let other = oauth_fixture();
    let store: Arc<dyn CredentialStore> = Arc::new(MemoryCredentialStore::new());
    guard(log_in(&logged_in, store.clone()).await.close())
        .await
        .unwrap();

    // The same name ("fixture"), the same store, another URL.
    let refused = reconnect(&other, store)
        .await
        .expect_err("no tokens for this URL");
    assert!(refused.needs_login(), "{refused}");
    assert!(
        other
            .requests()
            .iter()
            .all(|request| request.authorization.is_none()),
        "{:?}",
        other.requests()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_codes_and_secrets_appear_in_no_log_line_error_or_debug_output() {
    let captured = Captured::default();
    let _logs = captured.install();
    let fixture = oauth_fixture();
    let store = Arc::new(MemoryCredentialStore::new());
    let client = log_in(&fixture, store.clone()).await;
    fixture.expire_access_tokens();
    echo(&client, "refreshed").await.unwrap();
    guard(client.close()).await.unwrap();
    fixture.expire_access_tokens();
    fixture.revoke_refresh_tokens();
    let error = reconnect(&fixture, store.clone())
        .await
        .expect_err("revoked");

    let key = credential_key(&Url::parse(&fixture.url()).unwrap());
    let shown = format!(
        "{}\n{error}\n{error:?}\n{:?}",
        captured.text(),
        store.load(&key).await.unwrap()
    );
    for secret in ["fixture-access-", "fixture-refresh-", "fixture-code-"] {
        assert!(!shown.contains(secret), "{secret} was shown:\n{shown}");
    }
    assert!(shown.contains("Secret(…)"), "{shown}");
}

#[tokio::test(flavor = "current_thread")]
async fn the_credential_file_is_private_replaced_whole_and_keeps_every_server() {
    use std::os::unix::fs::PermissionsExt;

    let directory = std::env::temp_dir().join(format!("oauth-store-{}", std::process::id()));
    let path = directory.join("nested").join("credentials.json");
    let store = FileCredentialStore::new(&path);
    let fixture = oauth_fixture();
    let memory = Arc::new(MemoryCredentialStore::new());
    guard(log_in(&fixture, memory.clone()).await.close())
        .await
        .unwrap();
    let key = credential_key(&Url::parse(&fixture.url()).unwrap());
    let credentials = memory.load(&key).await.unwrap().unwrap();

    store.save(&key, &credentials).await.unwrap();
    store
        .save("https://b.example/mcp", &credentials)
        .await
        .unwrap();
    assert_eq!(store.load(&key).await.unwrap(), Some(credentials.clone()));
    let mode =
        |path: &std::path::Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&path), 0o600);
    assert_eq!(mode(path.parent().unwrap()), 0o700);
    assert!(store.remove("https://b.example/mcp").await.unwrap());
    assert!(!store.remove("https://b.example/mcp").await.unwrap());
    assert_eq!(store.load(&key).await.unwrap(), Some(credentials));
    let mut leftovers: Vec<String> = std::fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    leftovers.sort();
    assert_eq!(
        leftovers,
        ["credentials.json"],
        "no temporary file and no lock file left behind"
    );

    std::fs::write(&path, "not json").unwrap();
    let broken = store
        .load(&key)
        .await
        .expect_err("a broken file is an error");
    assert!(broken.to_string().contains("log in again"), "{broken}");
    std::fs::remove_dir_all(directory).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_browser_connection_does_not_hold_up_the_login() {
    let fixture = oauth_fixture();
    // The idle connection never sends a request; the login must not wait on it (a listener
    // that served connections one by one would wait past this timeout).
    let (handler, _driver) = browser_that(true, Duration::from_secs(5));
    let options =
        OAuthOptions::new(Arc::new(MemoryCredentialStore::new())).interactive(Arc::new(handler));
    let client = try_connect(&fixture.url(), authorizer(&fixture.url(), options))
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(echo(&client, "in time").await.unwrap(), "in time");
    guard(client.close()).await.unwrap();
}

/// What the hand-written server of [`misbehaving_server`] does wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fault {
    /// Its protected resource metadata never ends.
    EndlessMetadata,
    /// The answer of its token endpoint never ends.
    EndlessTokenAnswer,
    /// Its token endpoint refuses with an `error_description` of this many bytes.
    LongDescription(usize),
}

/// An MCP server that is its own authorization server and misbehaves as `fault` says; written
/// here, not in testkit, because no fixture meant to be well behaved should stream forever.
/// Every answer closes its connection. Returns the MCP endpoint's URL.
async fn misbehaving_server(fault: Fault) -> (String, tokio::task::JoinHandle<()>) {
    let listener = TcpListener::bind(("127.0.0.1", 0)).await.unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    let url = format!("{origin}/mcp");
    let server = tokio::spawn(async move {
        loop {
            let (stream, _) = listener.accept().await.unwrap();
            let origin = origin.clone();
            tokio::spawn(async move { misbehave(stream, &origin, fault).await });
        }
    });
    (url, server)
}

async fn misbehave(mut stream: TcpStream, origin: &str, fault: Fault) {
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
    let answer = match (method.as_str(), path.as_str()) {
        ("POST", "/mcp") => format!(
            "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer \
             resource_metadata=\"{origin}/.well-known/oauth-protected-resource\"\r\n\
             Content-Length: 0\r\nConnection: close\r\n\r\n"
        ),
        ("GET", "/.well-known/oauth-protected-resource") if fault == Fault::EndlessMetadata => {
            return stream_forever(stream).await;
        }
        ("GET", "/.well-known/oauth-protected-resource") => json(
            "200 OK",
            json!({"resource": format!("{origin}/mcp"), "authorization_servers": [origin]})
                .to_string(),
        ),
        ("GET", "/.well-known/oauth-authorization-server") => json(
            "200 OK",
            json!({
                "issuer": origin,
                "token_endpoint": format!("{origin}/token"),
                "grant_types_supported": ["client_credentials"],
                "token_endpoint_auth_methods_supported": ["client_secret_post"],
            })
            .to_string(),
        ),
        ("POST", "/token") => match fault {
            Fault::EndlessTokenAnswer => return stream_forever(stream).await,
            Fault::LongDescription(bytes) => json(
                "400 Bad Request",
                json!({"error": "invalid_client", "error_description": "d".repeat(bytes)})
                    .to_string(),
            ),
            Fault::EndlessMetadata => json(
                "200 OK",
                json!({"access_token": "never-used", "token_type": "Bearer"}).to_string(),
            ),
        },
        _ => "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".to_owned(),
    };
    let _ = stream.write_all(answer.as_bytes()).await;
    let _ = stream.shutdown().await;
}

/// A 200 JSON answer without a length whose body (blanks) goes on until the client hangs up.
async fn stream_forever(mut stream: TcpStream) {
    let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n";
    if stream.write_all(head.as_bytes()).await.is_err() {
        return;
    }
    let blanks = vec![b' '; 64 * 1024];
    while stream.write_all(&blanks).await.is_ok() {}
}

/// Connects to a misbehaving server with the client credentials grant (discovery, then a token
/// request, no browser); the connection's error and the server's origin.
async fn connect_to_misbehaving(fault: Fault) -> (Error, String) {
    let (url, server) = misbehaving_server(fault).await;
    let grant = Grant::ClientCredentials {
        client_id: "agent".to_owned(),
        credential: ClientCredential::Secret(Secret::new("client-secret")),
    };
    let options = OAuthOptions::new(Arc::new(MemoryCredentialStore::new()))
        .grant(grant)
        // Far longer than the test may take: the size limit must end it, not a timeout.
        .request_timeout(Duration::from_secs(600));
    let error = try_connect(&url, authorizer(&url, options))
        .await
        .expect_err("the authorization server misbehaves");
    server.abort();
    (error, url.trim_end_matches("/mcp").to_owned())
}

/// The authorization failure behind a connection error.
fn oauth_error(error: &Error) -> &OAuthError {
    match error.transport_error() {
        Some(TransportError::Authorization(oauth)) => oauth,
        _ => panic!("not an authorization error: {error}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn endless_protected_resource_metadata_fails_the_login_at_the_size_limit() {
    let (error, origin) = connect_to_misbehaving(Fault::EndlessMetadata).await;
    let OAuthError::AnswerTooLarge { action, limit } = oauth_error(&error) else {
        panic!("not the size error: {error}");
    };
    assert_eq!(*limit, MAX_ANSWER_BYTES);
    assert_eq!(
        action,
        &format!("GET {origin}/.well-known/oauth-protected-resource")
    );
    let shown = error.to_string();
    assert!(
        shown.contains(&format!("larger than {MAX_ANSWER_BYTES} bytes")),
        "{shown}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_endless_token_answer_fails_the_grant_at_the_size_limit() {
    let (error, origin) = connect_to_misbehaving(Fault::EndlessTokenAnswer).await;
    let OAuthError::AnswerTooLarge { action, limit } = oauth_error(&error) else {
        panic!("not the size error: {error}");
    };
    assert_eq!(*limit, MAX_ANSWER_BYTES);
    assert_eq!(action, &format!("token request to {origin}/token"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_huge_error_description_is_cut_in_the_error() {
    let bytes = 512 * 1024;
    let (error, _) = connect_to_misbehaving(Fault::LongDescription(bytes)).await;
    let OAuthError::Rejected {
        error: code,
        description: Some(description),
        ..
    } = oauth_error(&error)
    else {
        panic!("not a refusal: {error}");
    };
    assert_eq!(code, "invalid_client");
    assert_eq!(
        description,
        &format!("{}… ({bytes} bytes in all)", "d".repeat(120))
    );
    assert!(error.to_string().len() < 1000, "{error}");
}
