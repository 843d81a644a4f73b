//! OAuth in the manager: a remote server without a login shows `needs-login` (never `failed`),
//! a login through the agent's browser step makes it connect, an expired token is refreshed
//! without a sound, a revoked refresh token turns it back to `needs-login`, a login kept
//! for one URL is never used for another server that happens to have the same name, an
//! agent's own store is asked under the server's key, and a stdio server gets the token kept
//! under the command it runs, and no other.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use common::*;
use mcp_config::{AuthConfig, ServerConfig, TransportConfig};
use mcp_manager::{ConnectionStatus, ManagerOptions, McpManager};
use mcp_transport::credentials::{CredentialStoreError, Credentials, Secret, Tokens, command_key};
use mcp_transport::http::Url;
use mcp_transport::oauth::{CredentialStore, MemoryCredentialStore, credential_key};
use testkit::{HttpFixture, HttpFixtureOptions};

fn oauth_server(fixture: &HttpFixture) -> Fixture {
    Fixture {
        config: ServerConfig::http(fixture.url()),
        marker: String::new(),
    }
}

fn oauth_manager(store: &Arc<dyn CredentialStore>) -> Arc<McpManager> {
    manager_with(
        ManagerOptions::default().credentials(Arc::clone(store)),
        memory_cache(),
    )
}

async fn login(manager: &McpManager, name: &str, server: &Fixture) -> usize {
    within(
        "login",
        manager.login(
            name,
            &server.config,
            Arc::new(Browser),
            Duration::from_secs(20),
        ),
    )
    .await
    .unwrap_or_else(|error| panic!("{error}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remote_server_needs_a_login_gets_one_and_works_until_its_refresh_token_is_revoked() {
    let fixture = HttpFixture::start(HttpFixtureOptions::default().oauth().json_answers());
    let web = oauth_server(&fixture);
    let store: Arc<dyn CredentialStore> = Arc::new(MemoryCredentialStore::new());
    let manager = oauth_manager(&store);

    let outcome = connect(&manager, &configs(&[("web", &web)])).await;
    assert_eq!(outcome.errors.len(), 1);
    let ConnectionStatus::NeedsLogin(error) = manager.get_connection_status("web") else {
        panic!("{:?}", manager.get_connection_status("web"));
    };
    assert!(error.to_string().contains("requires a login"), "{error}");
    assert_eq!(manager.get_connection_status("web").as_str(), "needs-login");

    assert_eq!(login(&manager, "web", &web).await, 4);
    let outcome = connect(&manager, &configs(&[("web", &web)])).await;
    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
    assert_eq!(
        manager.get_connection_status("web"),
        ConnectionStatus::Connected
    );
    let tool = find_tool(&outcome.tools, "web", "echo");
    assert_eq!(
        echo(tool.tool.as_ref(), "logged in").await.to_text(),
        "logged in"
    );

    // Expired: refreshed, and the call goes through.
    fixture.expire_access_tokens();
    let output = echo(tool.tool.as_ref(), "refreshed").await;
    assert!(!output.is_error, "{output:?}");
    assert_eq!(fixture.token_requests("refresh_token"), 1);
    assert_eq!(
        manager.get_connection_status("web"),
        ConnectionStatus::Connected
    );

    // Revoked: the call fails and the server needs a login again.
    let mut events = manager.subscribe();
    fixture.expire_access_tokens();
    fixture.revoke_refresh_tokens();
    let output = echo(tool.tool.as_ref(), "revoked").await;
    assert!(output.is_error, "{output:?}");
    wait_for_event(&mut events, "needs-login", |event| {
        matches!(
            event,
            mcp_manager::ManagerEvent::StatusChanged {
                status: ConnectionStatus::NeedsLogin(_),
                ..
            }
        )
    })
    .await;
    assert_eq!(manager.get_connection_status("web").as_str(), "needs-login");
    within("disconnect_all", manager.disconnect_all()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_login_kept_for_one_url_is_not_used_for_a_same_named_server_elsewhere() {
    let trusted = HttpFixture::start(HttpFixtureOptions::default().oauth());
    let elsewhere = HttpFixture::start(HttpFixtureOptions::default().oauth());
    let store: Arc<dyn CredentialStore> = Arc::new(MemoryCredentialStore::new());
    let user = oauth_manager(&store);
    login(&user, "github", &oauth_server(&trusted)).await;

    // A project file defines "github" at another URL.
    let project = oauth_manager(&store);
    connect(&project, &configs(&[("github", &oauth_server(&elsewhere))])).await;
    assert_eq!(
        project.get_connection_status("github").as_str(),
        "needs-login"
    );
    assert!(
        elsewhere
            .requests()
            .iter()
            .all(|request| request.authorization.is_none()),
        "{:?}",
        elsewhere.requests()
    );
    let logged_in = oauth_manager(&store);
    connect(&logged_in, &configs(&[("github", &oauth_server(&trusted))])).await;
    assert_eq!(
        logged_in.get_connection_status("github"),
        ConnectionStatus::Connected
    );
    within("disconnect_all", logged_in.disconnect_all()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_login_is_refused_for_stdio_servers_and_servers_with_their_own_credentials() {
    let store: Arc<dyn CredentialStore> = Arc::new(MemoryCredentialStore::new());
    let manager = oauth_manager(&store);
    let local = plain("local");
    let error = manager
        .login(
            "local",
            &local.config,
            Arc::new(Browser),
            Duration::from_secs(5),
        )
        .await
        .unwrap_err();
    assert!(
        error.to_string().contains("runs on this machine (stdio)"),
        "{error}"
    );

    let mut keyed = ServerConfig::http("https://example.com/mcp");
    if let mcp_config::TransportConfig::Http(remote) = &mut keyed.transport {
        remote
            .headers
            .insert("Authorization".into(), "Bearer configured".into());
    }
    for error in [
        manager
            .login("keyed", &keyed, Arc::new(Browser), Duration::from_secs(5))
            .await
            .unwrap_err(),
        manager.logout("keyed", &keyed).await.unwrap_err(),
    ] {
        assert!(error.to_string().contains("its own credentials"), "{error}");
        assert!(!error.to_string().contains("Bearer configured"), "{error}");
    }
}

/// An agent's own keychain behind the credential store: one token, under one key, saved
/// without a refresh token; it records every key it is asked for.
struct AgentKeychain {
    key: String,
    token: String,
    asked: std::sync::Mutex<Vec<String>>,
}

#[async_trait]
impl CredentialStore for AgentKeychain {
    async fn load(&self, server: &str) -> Result<Option<Credentials>, CredentialStoreError> {
        self.asked.lock().unwrap().push(server.to_owned());
        Ok((server == self.key)
            .then(|| Credentials::with_tokens(Tokens::bearer(Secret::new(&self.token)))))
    }

    async fn save(&self, _: &str, _: &Credentials) -> Result<(), CredentialStoreError> {
        Err(CredentialStoreError::other(
            "the keychain is read-only here",
        ))
    }

    async fn remove(&self, _: &str) -> Result<bool, CredentialStoreError> {
        Ok(false)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agents_own_store_is_asked_under_the_servers_key_and_its_token_sent_as_it_is() {
    let fixture = HttpFixture::start(HttpFixtureOptions::default().oauth());
    let store: Arc<dyn CredentialStore> = Arc::new(MemoryCredentialStore::new());
    login(&oauth_manager(&store), "web", &oauth_server(&fixture)).await;
    let key = credential_key(&Url::parse(&fixture.url()).unwrap());
    let kept = store.load(&key).await.unwrap().unwrap();
    let token = kept.tokens.unwrap().access_token.expose().to_owned();

    // The agent keeps that token in its own keychain, which is the manager's credential store
    // now, and the server's URL is written otherwise (same key).
    let agent = Arc::new(AgentKeychain {
        key: key.clone(),
        token: token.clone(),
        asked: std::sync::Mutex::new(Vec::new()),
    });
    let manager = manager_with(
        ManagerOptions::default().credentials(Arc::clone(&agent) as Arc<dyn CredentialStore>),
        memory_cache(),
    );
    let written = format!(
        "{}?via=agent",
        fixture.url().replacen("http://", "HTTP://", 1)
    );
    let server = Fixture {
        config: ServerConfig::http(&written),
        marker: String::new(),
    };
    let before = fixture.requests().len();
    connect(&manager, &configs(&[("web", &server)])).await;
    assert_eq!(
        manager.get_connection_status("web"),
        ConnectionStatus::Connected
    );
    let asked = agent.asked.lock().unwrap().clone();
    assert!(!asked.is_empty());
    assert!(
        asked.iter().all(|asked| *asked == key),
        "{asked:?} vs {key}"
    );
    let bearer = format!("Bearer {token}");
    let to_the_server: Vec<_> = fixture.requests()[before..]
        .iter()
        .filter(|request| request.target.starts_with("/mcp"))
        .cloned()
        .collect();
    assert!(!to_the_server.is_empty());
    assert!(
        to_the_server
            .iter()
            .all(|request| request.authorization.as_deref() == Some(bearer.as_str())),
        "{to_the_server:?}"
    );
    // No second login, no refresh: the agent's token went as it is.
    assert_eq!(fixture.token_requests("authorization_code"), 1);
    assert_eq!(fixture.token_requests("refresh_token"), 0);
    within("disconnect_all", manager.disconnect_all()).await;
}

/// A stdio server that starts only when `OAUTH_ACCESS_TOKEN` is `token`: `sh` checks it and
/// then runs the fixture server in its place.
fn stdio_server_wanting(token: &str) -> Fixture {
    let fixture = plain("stdio-oauth");
    let TransportConfig::Stdio(stdio) = &fixture.config.transport else {
        unreachable!("the fixture is a stdio server");
    };
    let mut args = vec![
        "-c".to_owned(),
        format!(r#"[ "$OAUTH_ACCESS_TOKEN" = '{token}' ] && exec "$0" "$@"; exit 3"#),
        stdio.command.clone(),
    ];
    args.extend(stdio.args.iter().cloned());
    let mut config = ServerConfig::stdio("sh", args);
    config.auth = Some(AuthConfig::oauth());
    Fixture {
        config,
        marker: fixture.marker,
    }
}

/// The store key of a stdio fixture: the command line it runs.
fn key_of(server: &Fixture) -> String {
    let TransportConfig::Stdio(stdio) = &server.config.transport else {
        unreachable!("a stdio server");
    };
    command_key(&stdio.command, &stdio.args)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stdio_server_gets_the_token_kept_under_its_command_line_and_no_other() {
    let server = stdio_server_wanting("stdio-token");
    let store: Arc<dyn CredentialStore> = Arc::new(MemoryCredentialStore::new());
    let manager = oauth_manager(&store);

    // Nothing kept: it needs a login, and nothing was started.
    connect(&manager, &configs(&[("local", &server)])).await;
    assert_eq!(
        manager.get_connection_status("local").as_str(),
        "needs-login"
    );

    // A token kept under the name, or under another command line, is not its token.
    let bearer = |token: &str| Credentials::with_tokens(Tokens::bearer(Secret::new(token)));
    store.save("local", &bearer("stdio-token")).await.unwrap();
    let mut other = key_of(&server);
    other.push(' ');
    store.save(&other, &bearer("stdio-token")).await.unwrap();
    connect(&manager, &configs(&[("local", &server)])).await;
    assert_eq!(
        manager.get_connection_status("local").as_str(),
        "needs-login"
    );

    // An expired token is not sent.
    let expired =
        Credentials::with_tokens(Tokens::bearer(Secret::new("stdio-token")).expires_at(1));
    store.save(&key_of(&server), &expired).await.unwrap();
    connect(&manager, &configs(&[("local", &server)])).await;
    assert_eq!(
        manager.get_connection_status("local").as_str(),
        "needs-login"
    );

    // Kept under its command line: it reaches the server, which starts and answers.
    store
        .save(&key_of(&server), &bearer("stdio-token"))
        .await
        .unwrap();
    let outcome = connect(&manager, &configs(&[("local", &server)])).await;
    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
    assert_eq!(
        manager.get_connection_status("local"),
        ConnectionStatus::Connected
    );
    let tool = find_tool(&outcome.tools, "local", "echo");
    assert_eq!(
        echo(tool.tool.as_ref(), "with a token").await.to_text(),
        "with a token"
    );
    within("disconnect_all", manager.disconnect_all()).await;
    assert_no_process(&server.marker).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_credential_store_that_fails_stops_an_oauth_server_with_the_cause_and_no_other() {
    let server = stdio_server_wanting("stdio-token");
    let agent: Arc<dyn CredentialStore> = Arc::new(BrokenKeychain);
    let manager = manager_with(ManagerOptions::default().credentials(agent), memory_cache());
    // A server without `auth`, which only might have a token, starts without one.
    let plain = plain("no-auth");
    let outcome = connect(&manager, &configs(&[("local", &server), ("plain", &plain)])).await;
    assert_eq!(outcome.errors.len(), 1, "{:?}", outcome.errors);
    let message = outcome.errors[0].to_string();
    assert!(message.contains("\"local\""), "{message}");
    assert!(message.contains("the keychain is locked"), "{message}");
    assert_eq!(
        manager.get_connection_status("plain"),
        ConnectionStatus::Connected
    );
    within("disconnect_all", manager.disconnect_all()).await;
}

/// A keychain that cannot be read.
struct BrokenKeychain;

#[async_trait]
impl CredentialStore for BrokenKeychain {
    async fn load(&self, _: &str) -> Result<Option<Credentials>, CredentialStoreError> {
        Err(CredentialStoreError::other("the keychain is locked"))
    }

    async fn save(&self, _: &str, _: &Credentials) -> Result<(), CredentialStoreError> {
        Err(CredentialStoreError::other("the keychain is locked"))
    }

    async fn remove(&self, _: &str) -> Result<bool, CredentialStoreError> {
        Err(CredentialStoreError::other("the keychain is locked"))
    }
}
