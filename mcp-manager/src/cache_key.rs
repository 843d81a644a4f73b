//! The key a server's tool list is cached under ([`cache_fingerprint`]): what the list belongs
//! to, so that it is offered again only where that same server, as defined there, for that same
//! login, would answer it.
//!
//! The key is one [`Fingerprint`] (SHA-256; only the hash is stored) of:
//!
//! - the definition **as written** (`${VAR}` references unexpanded) and **as resolved** (their
//!   values): a variable with another value is another key, while no value reaches the cache
//!   but through the hash. `!command` values count by their text (they run at connect time,
//!   not for a key);
//! - the **file** that defines the server, as an absolute path: a repository cloned twice, the
//!   same `.mcp.json` text in both, never shares an entry — which is also what keeps a
//!   stateless server's fresh list, served without asking the server, inside the clone that
//!   fetched it. A server of a user-level file is defined in one file whichever folder the
//!   agent runs in, so its entry is shared across folders;
//! - for a server that takes stored credentials, the **credential store key** (a remote
//!   server's canonical URL, a stdio server's command line) and the **identity of the login**
//!   kept there: the issuer of the authorization server, the client id there and the login's
//!   id ([`Credentials::login_id`], new at every login, kept by refreshes; for tokens someone
//!   else saved, the access token stands for the login, hashed like the rest). A logout, or a
//!   login as someone else, is another key: the earlier account's list is never offered as the
//!   new one's.
//!
//! The first two are hashed once per start ([`CacheKey::of`]). The login is read from the
//! store at each lookup and each write ([`CacheKey::fingerprint`]) — a connection may log in or
//! obtain new tokens between the two — and only for servers that take stored credentials; a
//! store that cannot be read counts as no login (the server then starts without one).

use std::path::Path;

use mcp_cache::{Fingerprint, FingerprintParts};
use mcp_config::{DiscoveredServer, ServerConfig, TransportConfig};
use mcp_transport::credentials::{CredentialStore, Credentials, command_key};

/// What a server's cache key is made of, its login left to read ([`Self::fingerprint`]).
#[derive(Debug, Clone)]
pub(crate) struct CacheKey {
    /// The definition as written and resolved, and its file.
    defined: FingerprintParts,
    /// The credential store key, for a server that takes stored credentials.
    credentials: Option<String>,
}

impl CacheKey {
    /// The key of `server` as discovery found it.
    pub(crate) fn of(server: &DiscoveredServer) -> Self {
        let file = &server.source.meta.path;
        let file = std::path::absolute(file).unwrap_or_else(|_| file.clone());
        let credentials = credential_key(&server.config);
        let defined = Fingerprint::parts()
            .value("definition", &server.definition)
            .value("resolved", &server.config)
            .bytes("file", file_bytes(&file));
        let defined = match &credentials {
            Some(key) => defined.text("credentials", key),
            None => defined,
        };
        Self {
            defined,
            credentials,
        }
    }

    /// The key now: with the identity of the login `store` keeps for the server, if it takes
    /// stored credentials.
    pub(crate) async fn fingerprint(&self, store: &dyn CredentialStore) -> Fingerprint {
        let Some(key) = &self.credentials else {
            return self.defined.clone().finish();
        };
        let kept = match store.load(key).await {
            Ok(kept) => kept,
            Err(error) => {
                tracing::debug!(%error, "the credential store cannot be read; the tool cache key has no login");
                None
            }
        };
        with_login(self.defined.clone(), kept.as_ref()).finish()
    }
}

/// `parts` with the identity of the login in `kept`: none without tokens.
fn with_login(parts: FingerprintParts, kept: Option<&Credentials>) -> FingerprintParts {
    let Some((kept, tokens)) = kept.and_then(|kept| Some((kept, kept.tokens.as_ref()?))) else {
        return parts.text("login", "");
    };
    let issuer = kept.issuer.as_deref().unwrap_or_default();
    let client = kept
        .clients
        .get(issuer)
        .map(|client| client.client_id.as_str())
        .unwrap_or_default();
    let parts = parts.text("issuer", issuer).text("client", client);
    match &kept.login_id {
        Some(login) => parts.text("login", login),
        None => parts.text("access token", tokens.access_token.expose()),
    }
}

/// The key the credential store keeps `config`'s credentials under, when it takes some: the
/// command line of a stdio server, the canonical URL of a remote one (with OAuth built in).
fn credential_key(config: &ServerConfig) -> Option<String> {
    if !config.takes_stored_credentials() {
        return None;
    }
    match &config.transport {
        TransportConfig::Stdio(stdio) => Some(command_key(&stdio.command, &stdio.args)),
        #[cfg(feature = "oauth")]
        TransportConfig::Http(remote) | TransportConfig::Sse(remote) => {
            let url = mcp_transport::http::Url::parse(&remote.url).ok()?;
            Some(mcp_transport::oauth::credential_key(&url))
        }
        // Without OAuth no stored credential reaches a remote server.
        #[cfg(not(feature = "oauth"))]
        TransportConfig::Http(_) | TransportConfig::Sse(_) => None,
        TransportConfig::Custom(_) => None,
    }
}

fn file_bytes(file: &Path) -> &[u8] {
    file.as_os_str().as_encoded_bytes()
}

/// The key the tool cache keeps `server`'s list under, with the login `credentials` holds for
/// it now: a hash of its definition as written and as resolved (variables' values included),
/// the absolute path of the file that defines it, and, for a server that takes stored
/// credentials, the store's key for it and the identity of the login kept there (issuer,
/// client id, the login's id). Nothing of it is stored but the hash. The manager looks its
/// servers up and writes their lists under this key; an agent that fills or reads the cache
/// itself uses it too, with the manager's credential store.
pub async fn cache_fingerprint(
    server: &DiscoveredServer,
    credentials: &dyn CredentialStore,
) -> Fingerprint {
    CacheKey::of(server).fingerprint(credentials).await
}

#[cfg(test)]
mod tests {
    #![allow(clippy::expect_used, clippy::unwrap_used)]

    use mcp_config::{Level, SourceMeta};
    use mcp_transport::credentials::{MemoryCredentialStore, Secret, Tokens};

    use super::*;

    fn server(config: ServerConfig, file: &str) -> DiscoveredServer {
        DiscoveredServer::new(config, SourceMeta::new("t", "T", file, Level::Project))
    }

    fn stdio() -> ServerConfig {
        ServerConfig::stdio("npx", ["-y", "@acme/mcp"])
    }

    fn tokens(access: &str) -> Credentials {
        Credentials::with_tokens(Tokens::bearer(Secret::new(access)))
    }

    #[tokio::test]
    async fn the_file_defining_a_server_is_part_of_its_key() {
        let store = MemoryCredentialStore::new();
        let key = async |file| cache_fingerprint(&server(stdio(), file), &store).await;
        assert_eq!(key("/a/.mcp.json").await, key("/a/.mcp.json").await);
        assert_ne!(key("/a/.mcp.json").await, key("/b/.mcp.json").await);
        // A relative name is taken from this process's folder, not kept as written.
        let here = std::env::current_dir().unwrap().join(".mcp.json");
        assert_eq!(key(".mcp.json").await, key(here.to_str().unwrap()).await);
    }

    #[tokio::test]
    async fn the_login_kept_for_a_server_is_part_of_its_key() {
        let store = MemoryCredentialStore::new();
        let defined = server(stdio(), "/a/.mcp.json");
        let store_key = command_key("npx", &["-y".to_owned(), "@acme/mcp".to_owned()]);
        let key = async || cache_fingerprint(&defined, &store).await;
        let logged_out = key().await;

        store.save(&store_key, &tokens("first")).await.unwrap();
        let first = key().await;
        assert_ne!(first, logged_out);
        store.save(&store_key, &tokens("second")).await.unwrap();
        let second = key().await;
        assert_ne!(
            second, first,
            "tokens someone else saved stand for their login"
        );

        // A login made here: its id is the login, whatever tokens refreshes bring.
        let mut login = tokens("third");
        login.issuer = Some("https://as.example".to_owned());
        login.login_id = Some("login-1".to_owned());
        store.save(&store_key, &login).await.unwrap();
        let third = key().await;
        login.tokens = Some(Tokens::bearer(Secret::new("refreshed")));
        store.save(&store_key, &login).await.unwrap();
        assert_eq!(key().await, third);
        login.login_id = Some("login-2".to_owned());
        store.save(&store_key, &login).await.unwrap();
        assert_ne!(key().await, third, "another login");
        login.issuer = Some("https://other.example".to_owned());
        login.login_id = Some("login-1".to_owned());
        store.save(&store_key, &login).await.unwrap();
        assert_ne!(key().await, third, "another authorization server");

        // Logged out (tokens forgotten, the registration kept): as before any login.
        store.forget_tokens(&store_key).await.unwrap();
        assert_eq!(key().await, logged_out);
    }

    #[tokio::test]
    async fn a_server_that_brings_its_own_credentials_is_keyed_without_the_store() {
        let mut config = stdio();
        let TransportConfig::Stdio(line) = &mut config.transport else {
            unreachable!()
        };
        line.env
            .insert("OAUTH_ACCESS_TOKEN".to_owned(), "${TOKEN}".to_owned());
        let defined = server(config, "/a/.mcp.json");
        assert_eq!(CacheKey::of(&defined).credentials, None);
        assert!(
            CacheKey::of(&server(stdio(), "/a/.mcp.json"))
                .credentials
                .is_some()
        );
    }

    #[cfg(feature = "oauth")]
    #[tokio::test]
    async fn a_remote_servers_login_is_looked_up_under_its_canonical_url() {
        let store = MemoryCredentialStore::new();
        let defined = server(ServerConfig::http("HTTPS://Example.COM:443/mcp"), "/a/f");
        let logged_out = cache_fingerprint(&defined, &store).await;
        store
            .save("https://example.com/mcp", &tokens("t"))
            .await
            .unwrap();
        assert_ne!(cache_fingerprint(&defined, &store).await, logged_out);
    }
}
