//! The one credential store of the runtime: [`CredentialStore`], with a file store and an
//! in-memory one.
//!
//! Everything a server is given from a store goes through it, keyed by what the server *is*,
//! never by what a configuration calls it:
//!
//! - a remote server by its canonical URL (`oauth::credential_key`, with the `oauth` feature):
//!   the OAuth authorizer keeps there the tokens it obtains and refreshes, the client
//!   registrations and the DPoP key, and sends the stored token;
//! - a stdio server by the command it runs and its arguments ([`command_key`]): the access token
//!   kept there reaches it in its environment (the manager's `OAUTH_ACCESS_TOKEN`).
//!
//! An embedding agent with a keychain or a login of its own implements the trait over it (or
//! saves into one of the stores here): the tokens it saves are what the runtime sends, and what
//! the runtime obtains by logging in or refreshing is saved back through it. A token saved
//! without a refresh token is used until the server refuses it; then the user logs in again.
//!
//! Several processes (agents, `call`s of a CLI) may share one store and one login. A
//! renewal is therefore a locked read-modify-write ([`CredentialStore::lock`]): the
//! authorizer re-reads the stored login under the lock, uses it when another process renewed
//! it meanwhile, and otherwise renews it and saves the result before letting go, so a
//! single-use (rotating) refresh token is presented once and no process writes an older login
//! over a newer one.
//!
//! The trait is compiled without the `oauth` feature: a stdio-only build reads stdio servers'
//! tokens from it too.

mod file_store;

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

pub use file_store::{DEFAULT_LOCK_WAIT, FileCredentialStore};

/// A credential: shown as `Secret(…)` by `Debug`, never displayed, reachable only through
/// [`expose`](Secret::expose).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Secret(String);

impl Secret {
    /// Wraps a credential.
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The credential itself, to send it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(…)")
    }
}

/// Seconds since the Unix epoch (0 for a clock before it): the unit of
/// [`Tokens::expires_at`].
pub(crate) fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs())
}

/// The store key of a stdio server: the command it runs and its arguments, as a JSON array
/// after `stdio:` (`stdio:["npx","-y","@acme/mcp"]`), so no two different command lines share
/// a key. A project file that reuses the name of a server the user logged in to, but runs
/// something else, does not get its token.
pub fn command_key(command: &str, args: &[String]) -> String {
    let line: Vec<&str> = std::iter::once(command)
        .chain(args.iter().map(String::as_str))
        .collect();
    // A list of strings always serializes.
    format!("stdio:{}", serde_json::to_string(&line).unwrap_or_default())
}

/// A credential store could not be read or written. Messages name the file (or the agent's
/// store) and the cause, never a credential.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CredentialStoreError {
    /// The file could not be read, written or locked.
    #[error("{action}: {source}")]
    Io {
        /// What was being done, naming the file.
        action: String,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The file is not a credential file.
    #[error(
        "reading {}: not a credential file ({problem}); move it away and log in again",
        path.display()
    )]
    NotACredentialFile {
        /// The file.
        path: PathBuf,
        /// What the JSON parser said: a line and column, never the text there.
        problem: String,
    },
    /// Another process held the lock of a server's login ([`CredentialStore::lock`]) for
    /// longer than the store waits: it is renewing the login and is stuck, or slow.
    #[error(
        "another process has held {} for {waited:?} (it is renewing the same login); try again, \
         and if this persists, look for a stuck agent process",
        path.display()
    )]
    Busy {
        /// The lock file.
        path: PathBuf,
        /// How long this process waited.
        waited: Duration,
    },
    /// A store of the embedding agent's own failed.
    #[error("the credential store failed: {0}")]
    Other(#[source] Box<dyn std::error::Error + Send + Sync>),
}

impl CredentialStoreError {
    /// The error of a store of the agent's own (a keychain, a secrets service).
    pub fn other(source: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        Self::Other(source.into())
    }
}

/// What is kept for one server: the client identities it got at authorization servers, each
/// under the issuer of the server that issued it, and the tokens with their issuer.
///
/// A client identity belongs to the authorization server that issued it (MCP 2026-07-28,
/// SEP-2352): it is only ever presented there, and when the server names another
/// authorization server the client registers there anew, keeping the first registration for
/// when the server goes back. Files written before registrations were keyed (one `client`, no
/// `clients`) are read with that client under the stored `issuer`, which is where it was
/// registered: the login and refresh that produced them kept the two together.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "StoredCredentials")]
#[non_exhaustive]
pub struct Credentials {
    /// The issuer identifier of the authorization server that issued the tokens: a refresh
    /// token is only ever sent to it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issuer: Option<String>,
    /// The client identities registered (or found through a client ID metadata document), by
    /// the issuer identifier of the authorization server each belongs to.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub clients: BTreeMap<String, RegisteredClient>,
    /// The tokens, once a login or grant succeeded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<Tokens>,
    /// This client's DPoP key for the server (PKCS #8, base64url), once DPoP was used: the
    /// tokens bound to it are useless without it, so it is kept with them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dpop_key: Option<Secret>,
    /// Which login the tokens come from: a random identifier made each time a grant obtains
    /// tokens afresh (a login, or a client-credentials or assertion grant), kept by every
    /// refresh. Not a secret and says nothing of who logged in; it tells one login from the
    /// next, which may be someone else's (the tool cache keeps a server's list per login).
    /// `None` for tokens saved by someone else (an agent's own login).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub login_id: Option<String>,
}

impl Credentials {
    /// The client identity kept for the authorization server with this issuer identifier;
    /// none for every other one.
    #[cfg(feature = "oauth")]
    pub(crate) fn client_at(&self, issuer: &str) -> Option<&RegisteredClient> {
        self.clients.get(issuer)
    }

    /// The access token to send now: none when there are no tokens, the token is empty, or
    /// its `expires_at` has passed (a token that cannot be refreshed here is not sent to be
    /// refused).
    pub fn current_access_token(&self) -> Option<&Secret> {
        let tokens = self.tokens.as_ref()?;
        let expired = tokens
            .expires_at
            .is_some_and(|expires_at| expires_at <= unix_now());
        (!expired && !tokens.access_token.expose().trim().is_empty())
            .then_some(&tokens.access_token)
    }
}

/// [`Credentials`] as files hold them, the layout before registrations were keyed by issuer
/// included.
#[derive(Deserialize)]
struct StoredCredentials {
    #[serde(default)]
    issuer: Option<String>,
    #[serde(default)]
    clients: BTreeMap<String, RegisteredClient>,
    /// The one client identity of the earlier layout, registered at `issuer`.
    #[serde(default)]
    client: Option<RegisteredClient>,
    #[serde(default)]
    tokens: Option<Tokens>,
    #[serde(default)]
    dpop_key: Option<Secret>,
    #[serde(default)]
    login_id: Option<String>,
}

impl From<StoredCredentials> for Credentials {
    fn from(stored: StoredCredentials) -> Self {
        let mut clients = stored.clients;
        // Without an issuer nothing says where the client belongs: it is not kept.
        if let (Some(client), Some(issuer)) = (stored.client, &stored.issuer) {
            clients.entry(issuer.clone()).or_insert(client);
        }
        Self {
            issuer: stored.issuer,
            clients,
            tokens: stored.tokens,
            dpop_key: stored.dpop_key,
            login_id: stored.login_id,
        }
    }
}

/// A client identity at an authorization server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RegisteredClient {
    /// The client ID (a URL when it is a client ID metadata document).
    pub client_id: String,
    /// The client secret, for confidential clients.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<Secret>,
    /// How the client authenticates at the token endpoint.
    pub auth_method: TokenAuthMethod,
    /// The redirect URIs it was registered with (dynamic registration only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub redirect_uris: Vec<String>,
}

/// How a client proves its identity to the token endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub enum TokenAuthMethod {
    /// HTTP Basic with the client ID and secret.
    #[serde(rename = "client_secret_basic")]
    ClientSecretBasic,
    /// The client ID and secret in the form body.
    #[serde(rename = "client_secret_post")]
    ClientSecretPost,
    /// A signed JWT assertion (RFC 7523).
    #[serde(rename = "private_key_jwt")]
    PrivateKeyJwt,
    /// A public client: the client ID only.
    #[serde(rename = "none")]
    None,
}

impl TokenAuthMethod {
    /// The method's name in metadata documents.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ClientSecretBasic => "client_secret_basic",
            Self::ClientSecretPost => "client_secret_post",
            Self::PrivateKeyJwt => "private_key_jwt",
            Self::None => "none",
        }
    }

    #[cfg(feature = "oauth")]
    pub(crate) fn parse(name: &str) -> Option<Self> {
        match name {
            "client_secret_basic" => Some(Self::ClientSecretBasic),
            "client_secret_post" => Some(Self::ClientSecretPost),
            "private_key_jwt" => Some(Self::PrivateKeyJwt),
            "none" => Some(Self::None),
            _ => None,
        }
    }
}

/// How an access token is presented to the server.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub enum TokenType {
    /// `Authorization: Bearer …` (RFC 6750).
    #[default]
    Bearer,
    /// `Authorization: DPoP …` with a fresh proof signed by the key it is bound to (RFC 9449).
    #[serde(rename = "DPoP")]
    Dpop,
}

impl Tokens {
    /// A bearer access token with nothing else: no refresh token, no expiry, no scope — what
    /// an agent that logged in by itself saves. It is sent until the server refuses it.
    pub fn bearer(access_token: Secret) -> Self {
        Self {
            access_token,
            token_type: TokenType::Bearer,
            refresh_token: None,
            expires_at: None,
            issued_at: None,
            scope: None,
        }
    }

    /// These tokens, expiring at `expires_at` (seconds since the Unix epoch).
    #[must_use]
    pub fn expires_at(mut self, expires_at: u64) -> Self {
        self.expires_at = Some(expires_at);
        self
    }

    /// These tokens, issued at `issued_at` (seconds since the Unix epoch): with
    /// [`expires_at`](Self::expires_at), how long the access token lives, which sets how long
    /// before its expiry it is renewed.
    #[must_use]
    pub fn issued_at(mut self, issued_at: u64) -> Self {
        self.issued_at = Some(issued_at);
        self
    }
}

impl Credentials {
    /// Credentials holding `tokens` only.
    pub fn with_tokens(tokens: Tokens) -> Self {
        Self {
            tokens: Some(tokens),
            ..Self::default()
        }
    }
}

impl TokenType {
    /// The `Authorization` scheme.
    pub fn scheme(self) -> &'static str {
        match self {
            Self::Bearer => "Bearer",
            Self::Dpop => "DPoP",
        }
    }

    fn is_bearer(&self) -> bool {
        *self == Self::Bearer
    }
}

/// An access token and what comes with it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Tokens {
    /// The access token, sent as `Authorization: <token_type> …`.
    pub access_token: Secret,
    /// How it is presented: as a bearer token, or bound to this client's DPoP key.
    #[serde(default, skip_serializing_if = "TokenType::is_bearer")]
    pub token_type: TokenType,
    /// The refresh token, if the authorization server issued one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<Secret>,
    /// When the access token expires, in seconds since the Unix epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<u64>,
    /// When the tokens were issued, in seconds since the Unix epoch (unknown for tokens saved
    /// before it was kept): the access token's lifetime runs from here to `expires_at`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issued_at: Option<u64>,
    /// The scopes granted (or, when the server did not say, requested), space separated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
}

/// Keeps [`Credentials`] between runs, by the key of what a server is: a remote server's
/// canonical URL (`oauth::credential_key`), a stdio server's command line ([`command_key`]).
/// A server reached at another URL, or running another command, never gets them, whatever it
/// is called in a configuration.
///
/// The OAuth authorizer (`oauth::OAuthAuthorizer`, feature `oauth`) reads and writes a remote
/// server's: the tokens it obtained and refreshes, the client registrations, the DPoP key. A
/// stdio server's token is read, never written: whoever logged in for it saved it. An
/// embedding agent with a keychain or a login of its own implements this trait over it; a
/// read-only one answers `save` with an error, and a login the runtime obtains is then not
/// kept.
///
/// **Several processes.** The authorizer renews a login under [`lock`](Self::lock): it re-reads
/// the stored credentials, uses them if they changed since it read them (another process
/// renewed the login or logged in again), and otherwise renews them and saves the result
/// before the lock is released. The provided `lock` is a lock of this process; a store that
/// several processes share overrides it with one they all see (the file store's is an OS file
/// lock), or concurrent renewals of a single-use refresh token log all but one of them out.
#[async_trait]
pub trait CredentialStore: Send + Sync {
    /// The credentials kept for `server`, if any.
    async fn load(&self, server: &str) -> Result<Option<Credentials>, CredentialStoreError>;
    /// Keeps `credentials` for `server`, replacing what was there.
    async fn save(
        &self,
        server: &str,
        credentials: &Credentials,
    ) -> Result<(), CredentialStoreError>;
    /// Forgets `server`'s credentials; true when there were some.
    async fn remove(&self, server: &str) -> Result<bool, CredentialStoreError>;

    /// Forgets `server`'s tokens but keeps its client registrations, so the next login does
    /// not register the client again (under [`lock`](Self::lock), so that no renewal in
    /// progress writes them back).
    async fn forget_tokens(&self, server: &str) -> Result<(), CredentialStoreError> {
        let _held = self.lock(server).await?;
        if let Some(mut kept) = self
            .load(server)
            .await?
            .filter(|kept| kept.tokens.is_some())
        {
            kept.tokens = None;
            self.save(server, &kept).await?;
        }
        Ok(())
    }

    /// Waits until no one else holds `server`'s lock, and holds it until the returned guard is
    /// dropped: the lock of a read-modify-write of `server`'s credentials (see the trait's
    /// documentation). While it is held, [`load`](Self::load), [`save`](Self::save) and
    /// [`remove`](Self::remove) work as usual — they never wait for it — and other servers'
    /// locks are free. An implementation bounds the wait and answers an error when it runs out
    /// rather than hang.
    ///
    /// The provided implementation is a lock of this process, one per `server` (shared by
    /// every store object): right for a store no other process writes, such as a keychain
    /// only this agent process uses. A store that other processes write too overrides it.
    async fn lock(&self, server: &str) -> Result<CredentialLock, CredentialStoreError> {
        static LOCKS: OnceLock<KeyedLocks> = OnceLock::new();
        Ok(LOCKS.get_or_init(KeyedLocks::default).lock(server).await)
    }
}

impl std::fmt::Debug for dyn CredentialStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("dyn CredentialStore")
    }
}

/// A held [`CredentialStore::lock`]: the lock is released when this is dropped.
#[must_use = "the lock is released as soon as this is dropped"]
pub struct CredentialLock {
    _held: Box<dyn Send + Sync>,
}

impl CredentialLock {
    /// A lock held for as long as `held` lives: a store's own guard (a mutex guard, a locked
    /// file, a keychain transaction), released when it is dropped.
    pub fn new(held: impl Send + Sync + 'static) -> Self {
        Self {
            _held: Box::new(held),
        }
    }
}

impl std::fmt::Debug for CredentialLock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CredentialLock")
    }
}

/// One async mutex per key, made when first asked for and kept (a process logs in to a
/// handful of servers): the lock of a store that only this process uses.
#[derive(Debug, Default)]
struct KeyedLocks {
    locks: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
}

impl KeyedLocks {
    async fn lock(&self, key: &str) -> CredentialLock {
        let mutex = {
            let mut locks = self
                .locks
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            Arc::clone(locks.entry(key.to_owned()).or_default())
        };
        CredentialLock::new(mutex.lock_owned().await)
    }
}

/// Credentials for the life of the process only; its [`lock`](CredentialStore::lock) is an
/// async mutex per server of its own.
#[derive(Debug, Default)]
pub struct MemoryCredentialStore {
    servers: Mutex<BTreeMap<String, Credentials>>,
    locks: KeyedLocks,
}

impl MemoryCredentialStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn servers(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Credentials>> {
        self.servers
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[async_trait]
impl CredentialStore for MemoryCredentialStore {
    async fn load(&self, server: &str) -> Result<Option<Credentials>, CredentialStoreError> {
        Ok(self.servers().get(server).cloned())
    }

    async fn save(
        &self,
        server: &str,
        credentials: &Credentials,
    ) -> Result<(), CredentialStoreError> {
        self.servers()
            .insert(server.to_owned(), credentials.clone());
        Ok(())
    }

    async fn remove(&self, server: &str) -> Result<bool, CredentialStoreError> {
        Ok(self.servers().remove(server).is_some())
    }

    async fn lock(&self, server: &str) -> Result<CredentialLock, CredentialStoreError> {
        Ok(self.locks.lock(server).await)
    }
}
