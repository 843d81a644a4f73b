//! A login shared by many connections and processes survives refresh token rotation: against
//! testkit's authorization server, whose refresh tokens are good for one refresh (and, in a
//! variant, whose reuse of a spent one revokes the whole login), connections that find the
//! access token expired at once renew it once between them and all work; a connection whose
//! token is refused after another one renewed the login takes the stored one instead of
//! presenting its spent refresh token; a short-lived token is not renewed before every
//! request; and a refresh the authorization server refuses says so.
//!
//! Each connection has an authorizer and a store object of its own, as separate processes
//! would; the file store's objects share one file (its lock is an OS file lock, which also
//! excludes two holders within one process).

#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use common::{guard, object, text};
use mcp_transport::http::{HttpServerParams, Url};
use mcp_transport::oauth::{
    CredentialStore, Credentials, FileCredentialStore, MemoryCredentialStore, OAuthAuthorizer,
    OAuthOptions, credential_key,
};
use mcp_transport::{ClientOptions, Error, McpClient};
use serde_json::json;
use testkit::{HttpFixture, HttpFixtureOptions};

/// An authorization server whose refresh tokens rotate; with `revoke_family`, presenting a
/// spent one revokes every token of its login.
fn rotating_fixture(revoke_family: bool) -> HttpFixture {
    let options = HttpFixtureOptions::default().oauth().json_answers();
    HttpFixture::start(if revoke_family {
        options.revoke_family_on_reuse()
    } else {
        options
    })
}

/// Seconds since the Unix epoch.
fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

fn key(fixture: &HttpFixture) -> String {
    credential_key(&Url::parse(&fixture.url()).unwrap())
}

/// A login as `login` would have kept it: the fixture's client, a token pair it issued, and
/// the access token's expiry and issue time.
fn stored_login(fixture: &HttpFixture, expires_at: u64, issued_at: u64) -> Credentials {
    let (access, refresh) = fixture.issue_tokens();
    serde_json::from_value(json!({
        "issuer": fixture.origin(),
        "clients": {fixture.origin(): {"client_id": "fixture-client", "auth_method": "none"}},
        "tokens": {"access_token": access, "refresh_token": refresh,
                   "expires_at": expires_at, "issued_at": issued_at},
    }))
    .unwrap()
}

/// A login whose access token the server no longer takes and whose expiry has passed.
async fn expired_login(fixture: &HttpFixture, store: &dyn CredentialStore) {
    let now = unix_now();
    store
        .save(&key(fixture), &stored_login(fixture, now - 10, now - 3610))
        .await
        .unwrap();
    fixture.expire_access_tokens();
}

async fn connect(
    fixture: &HttpFixture,
    store: Arc<dyn CredentialStore>,
) -> Result<McpClient, Error> {
    let url = Url::parse(&fixture.url()).unwrap();
    let authorizer = Arc::new(OAuthAuthorizer::new(&url, OAuthOptions::new(store)).unwrap());
    let params = HttpServerParams::new(url.as_str())
        .unwrap()
        .authorizer(authorizer);
    let options = ClientOptions::default().connect_timeout(Duration::from_secs(30));
    guard(McpClient::connect_http("fixture", params, options)).await
}

async fn echo(client: &McpClient, message: &str) -> Result<String, Error> {
    let result = guard(client.call_tool("echo", Some(object(json!({"message": message}))))).await?;
    Ok(text(&result).to_owned())
}

/// Connects `count` clients at once, each with the store `store_for` gives it, and has each
/// echo; every outcome.
async fn connect_at_once(
    fixture: &Arc<HttpFixture>,
    count: usize,
    store_for: impl Fn() -> Arc<dyn CredentialStore>,
) -> Vec<Result<String, String>> {
    let tasks: Vec<_> = (0..count)
        .map(|n| {
            let fixture = Arc::clone(fixture);
            let store = store_for();
            tokio::spawn(async move {
                let client = connect(&fixture, store)
                    .await
                    .map_err(|error| format!("connect {n}: {error}"))?;
                let said = echo(&client, &format!("call {n}"))
                    .await
                    .map_err(|error| format!("call {n}: {error}"));
                let _ = guard(client.close()).await;
                said
            })
        })
        .collect();
    let mut outcomes = Vec::new();
    for task in tasks {
        outcomes.push(guard(task).await.unwrap());
    }
    outcomes
}

/// The stored refresh token is the one live refresh token of the server's: the login stays
/// usable.
async fn assert_stored_login_is_the_live_one(fixture: &HttpFixture, store: &dyn CredentialStore) {
    let kept = store
        .load(&key(fixture))
        .await
        .unwrap()
        .expect("a login is kept");
    let refresh = kept
        .tokens
        .and_then(|tokens| tokens.refresh_token)
        .expect("the refresh token is kept");
    assert_eq!(
        fixture.live_refresh_tokens(),
        [refresh.expose().to_owned()],
        "the stored refresh token is the latest the server issued"
    );
}

fn temporary_file(test: &str) -> PathBuf {
    std::env::temp_dir()
        .join(format!("oauth-rotation-{test}-{}", std::process::id()))
        .join("credentials.json")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn eight_connections_sharing_an_expired_login_renew_it_once_and_all_work() {
    for revoke_family in [false, true] {
        let fixture = Arc::new(rotating_fixture(revoke_family));
        let store: Arc<dyn CredentialStore> = Arc::new(MemoryCredentialStore::new());
        expired_login(&fixture, store.as_ref()).await;
        let outcomes = connect_at_once(&fixture, 8, || Arc::clone(&store)).await;
        let expected: Vec<Result<String, String>> =
            (0..8).map(|n| Ok(format!("call {n}"))).collect();
        assert_eq!(outcomes, expected, "revoke_family: {revoke_family}");
        assert_eq!(fixture.token_requests("refresh_token"), 1, "one renewal");
        assert_stored_login_is_the_live_one(&fixture, store.as_ref()).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn eight_file_stores_on_one_file_renew_an_expired_login_once_and_all_work() {
    for revoke_family in [false, true] {
        let path = temporary_file(&format!("eight-{revoke_family}"));
        let fixture = Arc::new(rotating_fixture(revoke_family));
        expired_login(&fixture, &FileCredentialStore::new(&path)).await;
        let outcomes = connect_at_once(&fixture, 8, || {
            Arc::new(FileCredentialStore::new(&path)) as Arc<dyn CredentialStore>
        })
        .await;
        let expected: Vec<Result<String, String>> =
            (0..8).map(|n| Ok(format!("call {n}"))).collect();
        assert_eq!(outcomes, expected, "revoke_family: {revoke_family}");
        assert_eq!(fixture.token_requests("refresh_token"), 1, "one renewal");
        assert_stored_login_is_the_live_one(&fixture, &FileCredentialStore::new(&path)).await;
        std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_running_connection_takes_the_login_another_renewed_when_its_token_is_refused() {
    for revoke_family in [false, true] {
        let path = temporary_file(&format!("running-{revoke_family}"));
        let fixture = rotating_fixture(revoke_family);
        let now = unix_now();
        FileCredentialStore::new(&path)
            .save(&key(&fixture), &stored_login(&fixture, now + 3600, now))
            .await
            .unwrap();
        let running = connect(&fixture, Arc::new(FileCredentialStore::new(&path)))
            .await
            .unwrap();
        assert_eq!(echo(&running, "before").await.unwrap(), "before");

        // The access token dies; another process renews the login (its own connection).
        fixture.expire_access_tokens();
        let other = connect(&fixture, Arc::new(FileCredentialStore::new(&path)))
            .await
            .unwrap();
        assert_eq!(echo(&other, "other").await.unwrap(), "other");
        guard(other.close()).await.unwrap();
        assert_eq!(fixture.token_requests("refresh_token"), 1);

        // The running connection's token is refused: it takes the stored login.
        assert_eq!(
            echo(&running, "after")
                .await
                .unwrap_or_else(|error| panic!("revoke_family: {revoke_family}: {error}")),
            "after"
        );
        assert_eq!(
            fixture.token_requests("refresh_token"),
            1,
            "no second renewal, no spent refresh token presented"
        );
        guard(running.close()).await.unwrap();
        assert_stored_login_is_the_live_one(&fixture, &FileCredentialStore::new(&path)).await;
        std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_that_lives_ten_seconds_is_not_renewed_before_every_request() {
    let fixture = HttpFixture::start(
        HttpFixtureOptions::default()
            .oauth()
            .token_lifetime(10)
            .json_answers(),
    );
    let store: Arc<dyn CredentialStore> = Arc::new(MemoryCredentialStore::new());
    let now = unix_now();
    store
        .save(&key(&fixture), &stored_login(&fixture, now + 3600, now))
        .await
        .unwrap();
    // The first renewal gives a token that lives 10 s.
    fixture.expire_access_tokens();
    let client = connect(&fixture, store).await.unwrap();
    for n in 0..8 {
        assert_eq!(
            echo(&client, &format!("{n}")).await.unwrap(),
            format!("{n}")
        );
    }
    guard(client.close()).await.unwrap();
    let renewals = fixture.token_requests("refresh_token");
    // One renewal made the short-lived token; at most one more if this machine is slow enough
    // for it to come within a quarter of its lifetime of its expiry. Before the margin scaled
    // with the lifetime, every one of the requests renewed it.
    assert!(renewals <= 2, "{renewals} renewals for 8 calls");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_about_to_expire_is_renewed_before_it_is_sent() {
    let fixture = rotating_fixture(false);
    let store: Arc<dyn CredentialStore> = Arc::new(MemoryCredentialStore::new());
    let now = unix_now();
    // A token that lives an hour and has 10 s left: within 30 s of its expiry.
    store
        .save(
            &key(&fixture),
            &stored_login(&fixture, now + 10, now - 3590),
        )
        .await
        .unwrap();
    let client = connect(&fixture, store).await.unwrap();
    assert_eq!(echo(&client, "renewed").await.unwrap(), "renewed");
    guard(client.close()).await.unwrap();
    assert_eq!(fixture.token_requests("refresh_token"), 1);
    let refused = fixture
        .requests()
        .iter()
        .filter(|request| request.status == 401)
        .count();
    assert_eq!(refused, 0, "no request was refused");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refresh_the_authorization_server_refuses_is_a_login_needed_that_says_so() {
    let fixture = rotating_fixture(false);
    let store: Arc<dyn CredentialStore> = Arc::new(MemoryCredentialStore::new());
    expired_login(&fixture, store.as_ref()).await;
    fixture.revoke_refresh_tokens();
    let error = connect(&fixture, store)
        .await
        .expect_err("the login is over");
    assert!(error.needs_login(), "{error}");
    let said = error.to_string();
    assert!(said.contains("refused to refresh the login"), "{said}");
    assert!(said.contains("invalid_grant"), "{said}");
    assert!(!said.contains("fixture-refresh-"), "{said}");
}
