//! The grant of a remote server's `auth` block, as the manager connects it: the workload
//! identity and client credentials grants with their files (relative ones taken from the
//! defining file's folder), and the gate: a definition that is neither the user's own nor an
//! approved project server's never has its files read nor reaches the server.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use common::*;
use mcp_config::{AuthConfig, DiscoveredServer, Level, ServerConfig, SourceMeta, auth::AuthError};
use mcp_manager::{ConnectionStatus, ManagerError};
use mcp_transport::oauth::{AuthorizationHandler, OAuthError, PendingRedirect};
use serde_json::{Value, json};
use testkit::{HttpFixture, HttpFixtureOptions};

const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/// An http server whose `auth` block is `settings`.
fn with_auth(fixture: &HttpFixture, settings: Value) -> ServerConfig {
    let mut config = ServerConfig::http(fixture.url());
    let mut auth = AuthConfig::oauth();
    let Value::Object(settings) = settings else {
        panic!("an object");
    };
    auth.extra = settings;
    config.auth = Some(auth);
    config
}

/// Where a definition is: the user's own file, an approved project file, or a project file
/// that was not approved (which discovery never hands over; an embedder might).
#[derive(Clone, Copy)]
enum Origin {
    UserFile,
    ApprovedProject,
    UnapprovedProject,
}

fn discovered(
    config: ServerConfig,
    folder: &std::path::Path,
    origin: Origin,
) -> BTreeMap<String, DiscoveredServer> {
    let file = folder.join("mcp.json");
    let meta = match origin {
        Origin::UserFile => SourceMeta::new("native", "Native", &file, Level::User),
        Origin::ApprovedProject | Origin::UnapprovedProject => {
            let mut meta = SourceMeta::new("claude-code", "Claude Code", &file, Level::Project);
            meta.in_project_folder = true;
            meta.project_folder = Some(folder.to_path_buf());
            meta.approved = matches!(origin, Origin::ApprovedProject);
            meta
        }
    };
    BTreeMap::from([("secured".to_owned(), DiscoveredServer::new(config, meta))])
}

fn token_grants(fixture: &HttpFixture) -> Vec<String> {
    fixture
        .requests()
        .iter()
        .filter_map(|request| request.grant_type.clone())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_users_workload_identity_server_sends_the_assertion_from_the_file_next_to_its_config() {
    let folder = TempDir::new("wif-user");
    std::fs::write(folder.path().join("workload.jwt"), "header.claims.sig\n").unwrap();
    for origin in [Origin::UserFile, Origin::ApprovedProject] {
        let fixture = HttpFixture::start(HttpFixtureOptions::default().oauth().json_answers());
        let config = with_auth(
            &fixture,
            json!({"grant": "workloadIdentity", "assertionFile": "workload.jwt"}),
        );
        let manager = manager(memory_cache());
        let outcome = connect(&manager, &discovered(config, folder.path(), origin)).await;
        // The fixture's authorization server knows no JWT bearer grant and refuses it: what
        // matters is the grant it was asked for.
        assert_eq!(outcome.errors.len(), 1);
        assert_eq!(token_grants(&fixture), [JWT_BEARER]);
        manager.disconnect_all().await;
    }
}

/// A P-256 key made for this test only (`openssl genpkey -algorithm EC -pkeyopt
/// ec_paramgen_curve:P-256`).
const TEST_KEY: &str = "-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg9e2xaXLdFTiV66nn
OrGlugYhLjdJAVYmodh0QwhLXJWhRANCAATfvRc7/pJDkW3limAoeMNy33nArZRM
6jN1f0wIaCpCBqcRWS0HcxSHvCNyz/kzjU993i1lRR+OrYh+ddyLTU6N
-----END PRIVATE KEY-----
";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_credentials_sign_with_the_private_key_file_and_a_bad_one_is_never_shown() {
    let folder = TempDir::new("cc-key");
    let key = folder.path().join("agent.pem");
    for (contents, signs) in [(TEST_KEY, true), ("not a key", false)] {
        std::fs::write(&key, contents).unwrap();
        let fixture = HttpFixture::start(HttpFixtureOptions::default().oauth().json_answers());
        let config = with_auth(
            &fixture,
            json!({"grant": "clientCredentials", "clientId": "agent", "privateKeyFile": key}),
        );
        let manager = manager(memory_cache());
        let outcome = connect(
            &manager,
            &discovered(config, folder.path(), Origin::UserFile),
        )
        .await;
        // The fixture's authorization server knows no client credentials grant: the grant asked
        // for is what matters (asked again when the client falls back to the handshake).
        let grants = token_grants(&fixture);
        assert_eq!(!grants.is_empty(), signs, "{grants:?}");
        assert!(
            grants.iter().all(|grant| grant == "client_credentials"),
            "{grants:?}"
        );
        let error = outcome.errors[0].to_string();
        assert!(!error.contains(contents.trim()), "{error}");
        if !signs {
            // Read, refused as a key, before any token request went out.
            assert!(error.contains("BEGIN PRIVATE KEY"), "{error}");
        }
        manager.disconnect_all().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unapproved_project_definition_reads_no_file_and_reaches_no_server() {
    let folder = TempDir::new("wif-project");
    let secret_file = folder.path().join("workload.jwt");
    std::fs::write(&secret_file, "header.claims.sig").unwrap();
    let fixture = HttpFixture::start(HttpFixtureOptions::default().oauth().json_answers());
    let config = with_auth(
        &fixture,
        json!({"grant": "workloadIdentity", "assertionFile": secret_file}),
    );
    let manager = manager(memory_cache());
    let outcome = connect(
        &manager,
        &discovered(config, folder.path(), Origin::UnapprovedProject),
    )
    .await;
    assert_eq!(outcome.errors.len(), 1);
    let error = &outcome.errors[0];
    assert!(
        matches!(&**error, ManagerError::Auth(AuthError::NotTrusted { fields, .. }) if fields == "auth.assertionFile"),
        "{error:?}"
    );
    let message = error.to_string();
    assert!(
        message.contains("Server \"secured\": auth.assertionFile is honoured only"),
        "{message}"
    );
    assert!(fixture.requests().is_empty(), "{:?}", fixture.requests());
    assert!(matches!(
        manager.get_connection_status("secured"),
        ConnectionStatus::Failed(_)
    ));
    manager.disconnect_all().await;
}

/// A browser step that is never used: the grant needs none.
struct NoBrowser;

#[async_trait::async_trait]
impl AuthorizationHandler for NoBrowser {
    async fn prepare(&self) -> Result<Box<dyn PendingRedirect>, OAuthError> {
        Err(OAuthError::Redirect("no browser in this test".to_owned()))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_login_for_a_definition_the_manager_never_saw_reads_no_file() {
    let folder = TempDir::new("wif-login");
    let fixture = HttpFixture::start(HttpFixtureOptions::default().oauth().json_answers());
    let config = with_auth(
        &fixture,
        json!({"grant": "workloadIdentity", "assertionFile": folder.path().join("t.jwt")}),
    );
    let manager = manager(memory_cache());
    let error = within(
        "login",
        manager.login(
            "secured",
            &config,
            Arc::new(NoBrowser),
            Duration::from_secs(5),
        ),
    )
    .await
    .unwrap_err();
    assert!(
        matches!(&*error, ManagerError::Auth(AuthError::NotTrusted { .. })),
        "{error:?}"
    );
    assert!(error.to_string().contains("of unknown origin"), "{error}");
    assert!(fixture.requests().is_empty());
}
