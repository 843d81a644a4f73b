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
//! The trait is compiled without the `oauth` feature: a stdio-only build reads stdio servers'
//! tokens from it too.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

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
            scope: None,
        }
    }

    /// These tokens, expiring at `expires_at` (seconds since the Unix epoch).
    #[must_use]
    pub fn expires_at(mut self, expires_at: u64) -> Self {
        self.expires_at = Some(expires_at);
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
    /// not register the client again.
    async fn forget_tokens(&self, server: &str) -> Result<(), CredentialStoreError> {
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
}

impl std::fmt::Debug for dyn CredentialStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("dyn CredentialStore")
    }
}

/// Credentials for the life of the process only.
#[derive(Debug, Default)]
pub struct MemoryCredentialStore {
    servers: Mutex<BTreeMap<String, Credentials>>,
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
}

/// Credentials in one JSON file, readable by the user only (0600, in a 0700 directory it
/// creates), replaced atomically on every change (a temporary file renamed over it), so a crash
/// or a second process never leaves half a file. Each change holds an exclusive lock on a
/// sibling `.lock` file while it reads the file again and writes it, so two processes (or two
/// servers of one process) that log in or refresh at the same time keep both changes.
#[derive(Debug, Clone)]
pub struct FileCredentialStore {
    path: PathBuf,
}

/// The file's layout.
#[derive(Default, Serialize, Deserialize)]
struct CredentialFile {
    #[serde(default)]
    servers: BTreeMap<String, Credentials>,
}

impl FileCredentialStore {
    /// A store in the file at `path` (created on the first save).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self { path: path.into() }
    }

    /// Where the file is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    async fn with_file<T: Send + 'static>(
        &self,
        change: impl FnOnce(&Path) -> Result<T, CredentialStoreError> + Send + 'static,
    ) -> Result<T, CredentialStoreError> {
        let path = self.path.clone();
        tokio::task::spawn_blocking(move || change(&path))
            .await
            .map_err(|error| CredentialStoreError::Io {
                action: "using the credential file".to_owned(),
                source: std::io::Error::other(error.to_string()),
            })?
    }
}

fn read_file(path: &Path) -> Result<CredentialFile, CredentialStoreError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Ok(CredentialFile::default());
        }
        Err(source) => {
            return Err(CredentialStoreError::Io {
                action: format!("reading {}", path.display()),
                source,
            });
        }
    };
    serde_json::from_str(&text).map_err(|error| CredentialStoreError::NotACredentialFile {
        path: path.to_owned(),
        // serde_json's message names a line and column, never the text there.
        problem: error.to_string(),
    })
}

fn write_file(path: &Path, file: &CredentialFile) -> Result<(), CredentialStoreError> {
    use std::io::Write as _;
    let io = |action: String| move |source| CredentialStoreError::Io { action, source };
    let directory = path.parent().unwrap_or_else(|| Path::new("."));
    create_private_dir(directory).map_err(io(format!("creating {}", directory.display())))?;
    let text = serde_json::to_vec_pretty(file)
        .map_err(|error| io(format!("writing {}", path.display()))(error.into()))?;
    let name = path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_else(|| "credentials".to_owned());
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|elapsed| elapsed.subsec_nanos())
        .unwrap_or_default();
    let temporary = directory.join(format!(".{name}.{}.{nanos}.tmp", std::process::id()));
    let written = (|| {
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let mut out = options.open(&temporary)?;
        out.write_all(&text)?;
        out.sync_all()?;
        std::fs::rename(&temporary, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    written.map_err(io(format!("writing {}", path.display())))
}

/// Holds an exclusive advisory lock on `<path>.lock` until dropped (the lock file stays, empty).
fn lock_file(path: &Path) -> Result<std::fs::File, CredentialStoreError> {
    let directory = path.parent().unwrap_or_else(|| Path::new("."));
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".lock");
    let lock_path = directory.join(name);
    let locked = (|| {
        create_private_dir(directory)?;
        let mut options = std::fs::OpenOptions::new();
        options.create(true).truncate(false).write(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let file = options.open(&lock_path)?;
        file.lock()?;
        Ok(file)
    })();
    locked.map_err(|source| CredentialStoreError::Io {
        action: format!("locking {}", lock_path.display()),
        source,
    })
}

fn create_private_dir(directory: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(directory)
}

#[async_trait]
impl CredentialStore for FileCredentialStore {
    async fn load(&self, server: &str) -> Result<Option<Credentials>, CredentialStoreError> {
        let server = server.to_owned();
        self.with_file(move |path| Ok(read_file(path)?.servers.remove(&server)))
            .await
    }

    async fn save(
        &self,
        server: &str,
        credentials: &Credentials,
    ) -> Result<(), CredentialStoreError> {
        let server = server.to_owned();
        let credentials = credentials.clone();
        self.with_file(move |path| {
            let _locked = lock_file(path)?;
            let mut file = read_file(path)?;
            file.servers.insert(server, credentials);
            write_file(path, &file)
        })
        .await
    }

    async fn remove(&self, server: &str) -> Result<bool, CredentialStoreError> {
        let server = server.to_owned();
        self.with_file(move |path| {
            let _locked = lock_file(path)?;
            let mut file = read_file(path)?;
            let removed = file.servers.remove(&server).is_some();
            if removed {
                write_file(path, &file)?;
            }
            Ok(removed)
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ISSUER: &str = "https://auth.example.com";
    const OTHER_ISSUER: &str = "https://other-auth.example.com";
    const SERVER: &str = "https://mcp.example.com/mcp";

    fn registered(client_id: &str) -> RegisteredClient {
        RegisteredClient {
            client_id: client_id.to_owned(),
            client_secret: None,
            auth_method: TokenAuthMethod::None,
            redirect_uris: vec!["http://127.0.0.1:8123/callback".to_owned()],
        }
    }

    /// A credential file as the store wrote it before registrations were keyed by issuer.
    const EARLIER_FILE: &str = r#"{
  "servers": {
    "https://mcp.example.com/mcp": {
      "issuer": "https://auth.example.com",
      "client": {
        "client_id": "kept-client",
        "auth_method": "none",
        "redirect_uris": ["http://127.0.0.1:8123/callback"]
      },
      "tokens": {
        "access_token": "access",
        "refresh_token": "refresh",
        "expires_at": 1700000000,
        "scope": "mcp:basic offline_access"
      }
    }
  }
}"#;

    #[test]
    fn a_file_from_before_keyed_registrations_reads_its_client_under_its_issuer() {
        let file: CredentialFile = serde_json::from_str(EARLIER_FILE).unwrap();
        let kept = &file.servers[SERVER];
        assert_eq!(kept.issuer.as_deref(), Some(ISSUER));
        assert_eq!(kept.client_at(ISSUER), Some(&registered("kept-client")));
        assert_eq!(kept.client_at(OTHER_ISSUER), None);
        let tokens = kept.tokens.as_ref().unwrap();
        assert_eq!(
            tokens.refresh_token.as_ref().map(Secret::expose),
            Some("refresh")
        );
        // Written again, it is in the keyed layout.
        let written = serde_json::to_value(kept).unwrap();
        assert_eq!(written["clients"][ISSUER]["client_id"], "kept-client");
        assert!(written.get("client").is_none(), "{written}");
    }

    #[test]
    fn a_client_kept_without_an_issuer_is_not_attributed_to_any_authorization_server() {
        let kept: Credentials =
            serde_json::from_str(r#"{"client": {"client_id": "orphan", "auth_method": "none"}}"#)
                .unwrap();
        assert!(kept.clients.is_empty(), "{kept:?}");
    }

    #[tokio::test]
    async fn registrations_at_two_authorization_servers_are_both_kept_in_the_file() {
        let directory =
            std::env::temp_dir().join(format!("oauth-store-unit-{}", std::process::id()));
        let store = FileCredentialStore::new(directory.join("credentials.json"));
        let mut credentials = Credentials {
            issuer: Some(OTHER_ISSUER.to_owned()),
            ..Credentials::default()
        };
        credentials
            .clients
            .insert(ISSUER.to_owned(), registered("first-client"));
        credentials
            .clients
            .insert(OTHER_ISSUER.to_owned(), registered("second-client"));
        store.save(SERVER, &credentials).await.unwrap();
        let loaded = store.load(SERVER).await.unwrap();
        let _ = std::fs::remove_dir_all(&directory);
        let loaded = loaded.unwrap();
        assert_eq!(loaded, credentials);
        assert_eq!(loaded.client_at(ISSUER).unwrap().client_id, "first-client");
        assert_eq!(
            loaded.client_at(OTHER_ISSUER).unwrap().client_id,
            "second-client"
        );
    }
}
