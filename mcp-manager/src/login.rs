//! Logging in to a remote server and out of it: the one time the user is asked (through the
//! embedding agent's [`AuthorizationHandler`]), and dropping what was kept.
//!
//! A login forgets the server's tokens (the client registration stays, so the authorization
//! server is not asked to register the client again), connects with the browser step allowed —
//! the server's 401 starts the flow, with the scopes it asks for — lists the tools to prove the
//! tokens work, and closes that connection. The session then reconnects the server as usual,
//! with the tokens now kept by URL. A server that answers without a 401 asked for no login:
//! that is an error ([`ManagerError::NoLoginAsked`]), not a login.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use async_trait::async_trait;

use mcp_config::{ServerConfig, TransportConfig};
use mcp_transport::credentials::CredentialStoreError;
use mcp_transport::http::Url;
use mcp_transport::oauth::{AuthorizationHandler, OAuthError, PendingRedirect, credential_key};

use crate::connector::connect_client;
use crate::error::{ManagerError, ServerError};
use crate::manager::McpManager;

impl McpManager {
    /// Logs in to the remote server `name` (defined by `config`) through `handler`, waiting at
    /// most `timeout` for the user; the number of tools the server lists with the new tokens.
    /// The server's live connection, if any, is left alone: reconnect it afterwards.
    pub async fn login(
        &self,
        name: &str,
        config: &ServerConfig,
        handler: Arc<dyn AuthorizationHandler>,
        timeout: Duration,
    ) -> Result<usize, ServerError> {
        let key = remote_key(name, config)?;
        let store = &self.inner.options.credentials;
        store
            .forget_tokens(&key)
            .await
            .map_err(|source| credentials(name, source))?;
        // Where the definition came from, as the manager recorded it when it connected the
        // server: unknown for one it never saw, whose `auth` may then read no local file.
        let source = self.inner.lock().servers.get(name).and_then(|record| {
            record
                .source
                .as_ref()
                .map(|source| Arc::clone(&source.meta))
        });
        let asked = Arc::new(AtomicBool::new(false));
        let handler: Arc<dyn AuthorizationHandler> = Arc::new(Watched {
            handler,
            asked: Arc::clone(&asked),
        });
        let context = self
            .inner
            .options
            .connect_context(source.as_deref())
            .with_login(&handler);
        let options = self
            .inner
            .client_options(name, config)
            .connect_timeout(timeout + Duration::from_millis(config.timeout_ms()));
        let client = connect_client(name, config, context, options)
            .await
            .map_err(ServerError::new)?;
        let listed = client.list_tools().await;
        let _ = client.close().await;
        let listed = listed.map_err(|error| ServerError::new(ManagerError::Client(error)))?;
        // A login asks the user, or (a grant without a browser) keeps the tokens it obtained.
        let logged_in = asked.load(Ordering::Relaxed)
            || store
                .load(&key)
                .await
                .map_err(|source| credentials(name, source))?
                .is_some_and(|kept| kept.tokens.is_some());
        if !logged_in {
            return Err(ServerError::new(ManagerError::NoLoginAsked {
                server: name.to_owned(),
            }));
        }
        Ok(listed.len())
    }

    /// Forgets what was kept for the remote server `name` (defined by `config`): tokens and
    /// client registration. True when there was something to forget.
    pub async fn logout(&self, name: &str, config: &ServerConfig) -> Result<bool, ServerError> {
        let key = remote_key(name, config)?;
        self.inner
            .options
            .credentials
            .remove(&key)
            .await
            .map_err(|source| credentials(name, source))
    }
}

/// An [`AuthorizationHandler`] that notes whether the login asked it for the browser step.
struct Watched {
    handler: Arc<dyn AuthorizationHandler>,
    asked: Arc<AtomicBool>,
}

#[async_trait]
impl AuthorizationHandler for Watched {
    async fn prepare(&self) -> Result<Box<dyn PendingRedirect>, OAuthError> {
        self.asked.store(true, Ordering::Relaxed);
        self.handler.prepare().await
    }
}

/// The credential key of a remote server that logs in with OAuth; an error for a stdio one,
/// or one whose configuration brings its own credentials.
fn remote_key(name: &str, config: &ServerConfig) -> Result<String, ServerError> {
    let refuse = |error| Err(ServerError::new(error));
    let remote = match &config.transport {
        TransportConfig::Http(remote) | TransportConfig::Sse(remote) => remote,
        TransportConfig::Custom(custom) => {
            return refuse(ManagerError::NotOAuthTransport {
                server: name.to_owned(),
                kind: custom.kind.clone(),
            });
        }
        TransportConfig::Stdio(_) => {
            return refuse(ManagerError::NotRemote {
                server: name.to_owned(),
            });
        }
    };
    if !config.takes_stored_credentials() {
        return refuse(ManagerError::OwnCredentials {
            server: name.to_owned(),
        });
    }
    let url = &remote.url;
    let parsed = Url::parse(url).map_err(|source| {
        ServerError::new(ManagerError::InvalidRemote {
            server: name.to_owned(),
            source: source.into(),
        })
    })?;
    Ok(credential_key(&parsed))
}

fn credentials(name: &str, source: CredentialStoreError) -> ServerError {
    ServerError::new(ManagerError::Credentials {
        server: name.to_owned(),
        source,
    })
}
