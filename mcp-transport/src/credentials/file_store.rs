//! [`FileCredentialStore`]: credentials in one private JSON file that every process of the
//! user shares, and the per-server locks that serialize renewals across those processes.
//!
//! The file is written, and locked, as every private file of the runtime is
//! ([`mcp_private_files`]: `0600` in a `0700` folder, written aside, synced, renamed; a lock file
//! that is there only while it is held).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use mcp_private_files::{FileLock, LockError};
use serde::{Deserialize, Serialize};

use super::{CredentialLock, CredentialStore, CredentialStoreError, Credentials};

/// How long [`FileCredentialStore::lock`] waits for another process by default: longer than
/// one renewal takes (a token request is bounded by the authorizer's request timeout, 30 s by
/// default), short enough that a process stuck while holding it does not hang the others.
pub const DEFAULT_LOCK_WAIT: Duration = Duration::from_secs(60);

/// How often a held lock is tried again.
const LOCK_POLL: Duration = Duration::from_millis(20);
/// How long a change of the file waits for another process's change: each holds the file's
/// lock only to read it and write it back.
const FILE_LOCK_WAIT: Duration = Duration::from_secs(30);

/// Credentials in one JSON file, readable by the user only (0600, in a 0700 directory it
/// creates), replaced atomically on every change (a file written aside, synced and renamed
/// over it), so a crash or a second process never leaves half a file. Each change holds an
/// exclusive lock of the file (`.credentials.json.lock` beside it while held) while it reads
/// the file again and writes it, so two processes (or two servers of one process) that log in
/// or refresh at the same time keep both changes.
///
/// [`lock`](CredentialStore::lock) is an OS file lock (`flock`) of the server's own beside the
/// file (`.credentials.json.<16 hex digits>.lock` while held), which every process of the user
/// sees: the authorizer holds it while it re-reads the login, renews it at the authorization
/// server if no other process did, and saves it. A process that cannot have it within
/// [`lock_wait`](Self::lock_wait) gets [`CredentialStoreError::Busy`]; the OS releases it when
/// its holder exits, however it exits.
#[derive(Debug, Clone)]
pub struct FileCredentialStore {
    path: PathBuf,
    lock_wait: Duration,
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
        Self {
            path: path.into(),
            lock_wait: DEFAULT_LOCK_WAIT,
        }
    }

    /// How long [`lock`](CredentialStore::lock) waits for another holder; default
    /// [`DEFAULT_LOCK_WAIT`].
    #[must_use]
    pub fn lock_wait(mut self, wait: Duration) -> Self {
        self.lock_wait = wait;
        self
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
    let io = |source| CredentialStoreError::Io {
        action: format!("writing {}", path.display()),
        source,
    };
    let text = serde_json::to_vec_pretty(file).map_err(|error| io(error.into()))?;
    mcp_private_files::write_atomically(path, &text).map_err(io)
}

/// The lock of every read-modify-write of the file ([`FileLock`]: `.<name>.lock` beside it,
/// removed when released), waited for at most [`FILE_LOCK_WAIT`].
fn lock_file(path: &Path) -> Result<FileLock, CredentialStoreError> {
    FileLock::acquire(path, FILE_LOCK_WAIT).map_err(|error| lock_error(error, FILE_LOCK_WAIT))
}

/// What `server`'s renewals lock, beside the credential file: `<file name>.<16 hex digits>`
/// (its lock file `.<that>.lock`, there only while held), the digits a hash of the server's
/// key (a URL is no file name). One per server, so a slow authorization server holds up only
/// its own server.
fn server_lock_target(path: &Path, server: &str) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".{:016x}", fnv1a(server)));
    path.with_file_name(name)
}

/// FNV-1a, 64 bits: a name for a key that every build of every program finds alike. Written
/// here (a loop of two lines) because std's hasher may change between Rust releases, and two
/// programs built with different ones must lock the same file.
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The store's error for a lock that could not be taken.
fn lock_error(error: LockError, waited: Duration) -> CredentialStoreError {
    match error {
        LockError::Busy { lock, .. } => CredentialStoreError::Busy { path: lock, waited },
        LockError::Io { lock, source } => CredentialStoreError::Io {
            action: format!("locking {}", lock.display()),
            source,
        },
        other => CredentialStoreError::Io {
            action: "locking the credential file".to_owned(),
            source: std::io::Error::other(other.to_string()),
        },
    }
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

    /// An OS lock on the server's own lock file (see [`FileCredentialStore`]), tried every
    /// 20 ms (never a thread parked in the kernel) until [`lock_wait`](Self::lock_wait) has
    /// passed.
    async fn lock(&self, server: &str) -> Result<CredentialLock, CredentialStoreError> {
        let target = server_lock_target(&self.path, server);
        let deadline = Instant::now() + self.lock_wait;
        loop {
            let trying = target.clone();
            let tried = self
                .with_file(move |_| {
                    FileLock::try_acquire(&trying)
                        .map_err(|error| lock_error(error, Duration::ZERO))
                })
                .await?;
            match tried {
                Some(held) => return Ok(CredentialLock::new(held)),
                None if Instant::now() < deadline => tokio::time::sleep(LOCK_POLL).await,
                None => {
                    let busy = LockError::Busy {
                        lock: FileLock::lock_file_of(&target),
                        waited: self.lock_wait,
                    };
                    return Err(lock_error(busy, self.lock_wait));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::credentials::{RegisteredClient, Secret, TokenAuthMethod};

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

    #[tokio::test]
    async fn a_servers_lock_holds_off_other_stores_of_the_file_until_it_is_dropped() {
        use std::os::unix::fs::PermissionsExt as _;

        let directory =
            std::env::temp_dir().join(format!("oauth-store-lock-{}", std::process::id()));
        let path = directory.join("credentials.json");
        let first = FileCredentialStore::new(&path);
        let second = FileCredentialStore::new(&path).lock_wait(Duration::from_millis(100));
        let held = first.lock(SERVER).await.unwrap();
        let lock_path = FileLock::lock_file_of(&server_lock_target(&path, SERVER));
        let mode = std::fs::metadata(&lock_path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let busy = second
            .lock(SERVER)
            .await
            .expect_err("the first store holds it");
        assert!(
            matches!(&busy, CredentialStoreError::Busy { path, .. } if *path == lock_path),
            "{busy}"
        );
        assert!(busy.to_string().contains("another process"), "{busy}");
        // Another server's lock, and the file itself, are free meanwhile.
        drop(second.lock("https://other.example/mcp").await.unwrap());
        second.save(SERVER, &Credentials::default()).await.unwrap();
        drop(held);
        drop(second.lock(SERVER).await.unwrap());
        // No lock file is left beside the credentials.
        let mut names: Vec<String> = std::fs::read_dir(&directory)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        std::fs::remove_dir_all(&directory).unwrap();
        assert_eq!(names, ["credentials.json"]);
    }

    #[test]
    fn each_server_has_a_lock_of_its_own_beside_the_file() {
        let path = Path::new("/home/me/.config/agent/credentials.json");
        let one = server_lock_target(path, "https://a.example/mcp");
        let other = server_lock_target(path, "https://b.example/mcp");
        assert_ne!(one, other);
        assert_eq!(one, server_lock_target(path, "https://a.example/mcp"));
        assert_eq!(one.parent(), path.parent());
        let name = one.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            name.starts_with("credentials.json.") && name.len() == 33,
            "{name}"
        );
        // FNV-1a's published test vector: the name must not change between builds.
        assert_eq!(fnv1a("a"), 0xaf63_dc4c_8601_ec8c);
    }
}
