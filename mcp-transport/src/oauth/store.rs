//! Where credentials live between runs: [`CredentialStore`], keyed by the server's canonical
//! URL (never by a configured name), with a file store and an in-memory one.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use super::{OAuthError, Secret};

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
}

impl Credentials {
    /// The client identity kept for the authorization server with this issuer identifier;
    /// none for every other one.
    pub(crate) fn client_at(&self, issuer: &str) -> Option<&RegisteredClient> {
        self.clients.get(issuer)
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

/// Keeps [`Credentials`] between runs, keyed by the server's canonical URL
/// ([`credential_key`](super::credential_key)): a server reached at another URL never gets
/// them, whatever it is called in a configuration.
///
/// It holds the OAuth client's own state, which the [`OAuthAuthorizer`](super::OAuthAuthorizer)
/// writes: the tokens it obtained and refreshes, the client registrations, the DPoP key.
/// Tokens an embedding agent holds itself, and the runtime only reads, are not kept here: a
/// caller with such a store asks it first, under the same key, and a server it has a token for
/// gets that token as it is, and no authorizer.
#[async_trait]
pub trait CredentialStore: Send + Sync {
    /// The credentials kept for `server`, if any.
    async fn load(&self, server: &str) -> Result<Option<Credentials>, OAuthError>;
    /// Keeps `credentials` for `server`, replacing what was there.
    async fn save(&self, server: &str, credentials: &Credentials) -> Result<(), OAuthError>;
    /// Forgets `server`'s credentials; true when there were some.
    async fn remove(&self, server: &str) -> Result<bool, OAuthError>;

    /// Forgets `server`'s tokens but keeps its client registrations, so the next login does
    /// not register the client again.
    async fn forget_tokens(&self, server: &str) -> Result<(), OAuthError> {
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
    async fn load(&self, server: &str) -> Result<Option<Credentials>, OAuthError> {
        Ok(self.servers().get(server).cloned())
    }

    async fn save(&self, server: &str, credentials: &Credentials) -> Result<(), OAuthError> {
        self.servers()
            .insert(server.to_owned(), credentials.clone());
        Ok(())
    }

    async fn remove(&self, server: &str) -> Result<bool, OAuthError> {
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
        change: impl FnOnce(&Path) -> Result<T, OAuthError> + Send + 'static,
    ) -> Result<T, OAuthError> {
        let path = self.path.clone();
        tokio::task::spawn_blocking(move || change(&path))
            .await
            .map_err(|error| OAuthError::Io {
                action: "using the credential file".to_owned(),
                source: std::io::Error::other(error.to_string()),
            })?
    }
}

fn read_file(path: &Path) -> Result<CredentialFile, OAuthError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Ok(CredentialFile::default());
        }
        Err(source) => {
            return Err(OAuthError::Io {
                action: format!("reading {}", path.display()),
                source,
            });
        }
    };
    serde_json::from_str(&text).map_err(|error| {
        OAuthError::invalid(
            format!("reading {}", path.display()),
            // serde_json's message names a line and column, never the text there.
            format!("not a credential file ({error}); move it away and log in again"),
        )
    })
}

fn write_file(path: &Path, file: &CredentialFile) -> Result<(), OAuthError> {
    use std::io::Write as _;
    let io = |action: String| move |source| OAuthError::Io { action, source };
    let directory = path.parent().unwrap_or_else(|| Path::new("."));
    create_private_dir(directory).map_err(io(format!("creating {}", directory.display())))?;
    let text = serde_json::to_vec_pretty(file)
        .map_err(|error| OAuthError::invalid("writing the credential file", error.to_string()))?;
    let name = path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_else(|| "credentials".to_owned());
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
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
fn lock_file(path: &Path) -> Result<std::fs::File, OAuthError> {
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
    locked.map_err(|source| OAuthError::Io {
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
    async fn load(&self, server: &str) -> Result<Option<Credentials>, OAuthError> {
        let server = server.to_owned();
        self.with_file(move |path| Ok(read_file(path)?.servers.remove(&server)))
            .await
    }

    async fn save(&self, server: &str, credentials: &Credentials) -> Result<(), OAuthError> {
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

    async fn remove(&self, server: &str) -> Result<bool, OAuthError> {
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
