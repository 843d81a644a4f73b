//! The crate's errors: why a server could not be used, connected or kept ([`ManagerError`],
//! shared as a [`ServerError`]), and the problems a load reports ([`Problem`]).
//!
//! Errors stay typed from the bottom up: a failed connection keeps its
//! [`mcp_transport::Error`] (timeout flag, exit status, stderr tail), a bad configuration its
//! [`InvalidServer`], a credential failure its [`AuthError`]. Nothing is turned into text until
//! someone prints it.

use std::fmt;
use std::ops::Deref;
use std::path::Path;
use std::sync::Arc;

use mcp_config::{ConfigError, FileError, InvalidServer, SourceMeta, auth::AuthError};
use mcp_transport::CloseReason;

/// Why a server could not be used, connected or kept connected. Every message names the
/// server.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ManagerError {
    /// The configuration cannot be used (returned before anything is started). Fix the config
    /// file; retrying does not help.
    #[error(transparent)]
    InvalidConfig(#[from] InvalidServer),
    /// A `!command` value or the OAuth token could not be resolved. Retrying helps once the
    /// command works or the user logged in.
    #[error(transparent)]
    Auth(#[from] AuthError),
    /// Starting the server, the handshake or listing its tools failed, or timed out; the error
    /// carries the exit status and stderr tail of a stdio server.
    #[error(transparent)]
    Client(#[from] mcp_transport::Error),
    /// The entry's transport is one this build leaves out (mcp-manager built without its
    /// `stdio` or `http` feature).
    #[error(
        "MCP server \"{server}\": this build has no \"{kind}\" transport (mcp-manager was \
         built without its \"{feature}\" feature)"
    )]
    NotBuilt {
        /// The server.
        server: String,
        /// The type its entry names.
        kind: String,
        /// The feature that brings it.
        feature: &'static str,
    },
    /// A remote server's URL or headers cannot be used (the header's value is not shown).
    #[cfg(feature = "http")]
    #[error("MCP server \"{server}\": {source}; fix the server's url or headers")]
    InvalidRemote {
        /// The server.
        server: String,
        /// What is wrong.
        #[source]
        source: mcp_transport::http::ParamsError,
    },
    /// The entry's `type` is not one this runtime connects (stdio, http, sse) and no transport
    /// plugin's connector is registered for it.
    #[error(
        "MCP server \"{server}\": no transport connects \"type\": \"{kind}\" (this runtime \
         connects stdio, http and sse; a plugin's type needs its connector registered with \
         ManagerOptions::connector)"
    )]
    UnclaimedTransport {
        /// The server.
        server: String,
        /// The type its entry names.
        kind: String,
    },
    /// A transport plugin's connector could not connect the server.
    #[error("MCP server \"{server}\" (type \"{kind}\"): {source}")]
    Plugin {
        /// The server.
        server: String,
        /// The type its entry names.
        kind: String,
        /// What the plugin reported.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The connection died after it was made (the server exited, or its stream ended).
    /// A reconnect may help.
    #[error("MCP server \"{server}\": {reason}")]
    ConnectionLost {
        /// The server.
        server: String,
        /// Why (for stdio, the exit status and the last stderr lines).
        reason: CloseReason,
    },
    /// A login or logout was asked for a server that runs on this machine (stdio): OAuth logins
    /// are for remote servers.
    #[error(
        "MCP server \"{server}\" runs on this machine (stdio); logging in is for remote (http, \
         sse) servers"
    )]
    NotRemote {
        /// The server.
        server: String,
    },
    /// A login or logout was asked for a server connected by a transport plugin: OAuth logins
    /// are for the built-in remote transports.
    #[error(
        "MCP server \"{server}\" is connected by the \"{kind}\" transport plugin; logging in \
         is for remote (http, sse) servers"
    )]
    NotOAuthTransport {
        /// The server.
        server: String,
        /// Its entry's type.
        kind: String,
    },
    /// A login was asked for a server whose configuration brings its own credentials (an
    /// `Authorization` header, or another kind of `auth`): OAuth is not used for it.
    #[error(
        "MCP server \"{server}\" is configured with its own credentials (an Authorization \
         header or another kind of auth); there is no OAuth login to run or forget"
    )]
    OwnCredentials {
        /// The server.
        server: String,
    },
    /// A login was asked for a server that answered without asking for one (no 401, no
    /// authorization flow): there is nothing to log in to.
    #[error("MCP server \"{server}\" needs no login: it answered without asking for one")]
    NoLoginAsked {
        /// The server.
        server: String,
    },
    /// The credential store could not be read or written.
    #[error("MCP server \"{server}\": {source}")]
    Credentials {
        /// The server.
        server: String,
        /// What failed.
        #[source]
        source: mcp_transport::credentials::CredentialStoreError,
    },
    /// The server did not answer the health ping in time; it was stopped (and is reconnected
    /// if the policy allows).
    #[error("MCP server \"{server}\" did not answer a ping within {}ms; it was stopped", .waited.as_millis())]
    Unresponsive {
        /// The server.
        server: String,
        /// How long the ping waited.
        waited: std::time::Duration,
    },
    /// A resource was read or a prompt got from a server that did not declare that capability
    /// in its initialize answer. Ask a server that offers it; retrying does not help.
    #[error(
        "MCP server \"{server}\" does not offer {capability} (it declared no \"{capability}\" \
         capability); ask a server that lists some"
    )]
    NotOffered {
        /// The server.
        server: String,
        /// `resources`, `prompts`, `skills` or `tasks`.
        capability: &'static str,
    },
    /// No skill of the server has this name (or URI).
    #[error("MCP server \"{server}\" offers no skill {skill:?}{}", known_skills(.known))]
    UnknownSkill {
        /// The server.
        server: String,
        /// The name asked for.
        skill: String,
        /// The names it offers.
        known: Vec<String>,
    },
    /// Several skills of the server have this name: ask for one by its URI.
    #[error("MCP server \"{server}\" offers several skills named {skill:?}: {}; name one by its URI", .uris.join(", "))]
    AmbiguousSkill {
        /// The server.
        server: String,
        /// The name asked for.
        skill: String,
        /// The URIs of the skills of that name.
        uris: Vec<String>,
    },
    /// The server is not connected and not connecting (never was, or was disconnected).
    #[error("MCP server not connected: {server}")]
    NotConnected {
        /// The server.
        server: String,
    },
    /// Discovery could not run at all (e.g. the home directory is unknown); no server was
    /// loaded.
    #[error("MCP discovery failed: {0}")]
    Discovery(Arc<ConfigError>),
    /// A configuration provider panicked while reading its files; no server was loaded.
    #[error("MCP discovery failed: a config provider panicked: {0}")]
    ProviderPanicked(ProviderPanic),
}

/// What a panicking configuration provider said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderPanic {
    message: String,
}

impl ProviderPanic {
    /// The panic's payload, when it was text.
    pub fn from_payload(payload: &(dyn std::any::Any + Send)) -> Self {
        let message = payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| {
                payload
                    .downcast_ref::<&str>()
                    .map(|text| (*text).to_owned())
            })
            .unwrap_or_else(|| "no message".to_owned());
        Self { message }
    }

    /// What the panic said.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for ProviderPanic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl ManagerError {
    /// The server the error is about (`None` for a failure of discovery as a whole).
    pub fn server(&self) -> Option<&str> {
        match self {
            Self::InvalidConfig(invalid) => Some(&invalid.server),
            Self::Auth(error) => Some(error.server()),
            Self::Client(error) => Some(error.server()),
            #[cfg(feature = "http")]
            Self::InvalidRemote { server, .. } => Some(server),
            Self::Credentials { server, .. } => Some(server),
            Self::ConnectionLost { server, .. }
            | Self::NotRemote { server }
            | Self::Unresponsive { server, .. }
            | Self::OwnCredentials { server }
            | Self::NoLoginAsked { server }
            | Self::NotConnected { server }
            | Self::NotOffered { server, .. }
            | Self::UnknownSkill { server, .. }
            | Self::AmbiguousSkill { server, .. }
            | Self::UnclaimedTransport { server, .. }
            | Self::NotOAuthTransport { server, .. }
            | Self::NotBuilt { server, .. }
            | Self::Plugin { server, .. } => Some(server),
            Self::Discovery(_) | Self::ProviderPanicked(_) => None,
        }
    }

    /// True when the user logging in (again) is what fixes this: a stdio OAuth server without
    /// a token, or a remote server that wants a login it does not have (at connect time or
    /// later, when its refresh token stopped working).
    pub fn needs_login(&self) -> bool {
        match self {
            Self::Auth(AuthError::LoginRequired { .. }) => true,
            Self::Client(error) => error.needs_login(),
            Self::ConnectionLost { reason, .. } => reason.error().needs_credentials(),
            _ => false,
        }
    }

    /// The client error behind a failed connection, with its timeout flag, exit status and
    /// stderr tail.
    pub fn client_error(&self) -> Option<&mcp_transport::Error> {
        match self {
            Self::Client(error) => Some(error),
            _ => None,
        }
    }

    /// True when connecting (or listing tools) took longer than the server's timeout.
    pub fn is_timeout(&self) -> bool {
        self.client_error()
            .is_some_and(mcp_transport::Error::is_timeout)
    }

    /// The enterprise policy's denial of an address the connection was about to reach, or of a
    /// redirect it was about to follow (the server then is failed: its state could not be
    /// known before it was connected). Retrying does not help; the rule and its file are named.
    #[cfg(feature = "http")]
    pub fn policy_denial(&self) -> Option<&mcp_config::PolicyDenial> {
        match self.client_error()?.transport_error()? {
            mcp_transport::TransportError::Refused { refused, .. } => refused.reason.downcast_ref(),
            _ => None,
        }
    }
}

/// A [`ManagerError`] shared by everyone who sees it (the status, events, the gate's answer,
/// deferred tools): cheap to clone; two are equal when they are the same failure.
#[derive(Debug, Clone)]
pub struct ServerError(Arc<ManagerError>);

impl ServerError {
    /// Shares an error.
    pub fn new(error: impl Into<ManagerError>) -> Self {
        Self(Arc::new(error.into()))
    }
}

impl Deref for ServerError {
    type Target = ManagerError;

    fn deref(&self) -> &ManagerError {
        &self.0
    }
}

impl PartialEq for ServerError {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for ServerError {}

impl fmt::Display for ServerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&*self.0, f)
    }
}

impl std::error::Error for ServerError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&*self.0)
    }
}

impl<E: Into<ManagerError>> From<E> for ServerError {
    fn from(error: E) -> Self {
        Self::new(error)
    }
}

/// A problem a load (or reload) met, for the user: about a config file, about one server, or
/// about discovery as a whole.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Problem {
    /// A config file could not be read or parsed; the other files were used.
    File(FileError),
    /// A server could not be used or connected.
    Server {
        /// The server's name.
        name: String,
        /// Where it is defined, when that is known.
        source: Option<SourceMeta>,
        /// Why.
        error: ServerError,
    },
    /// Discovery failed as a whole: no server was loaded.
    Discovery(ServerError),
    /// A server defined in a project file that the trust policy did not let run
    /// ([`SkipReason::NeedsApproval`](mcp_config::SkipReason::NeedsApproval)): it is not
    /// started and offers no tools until the user approves it.
    Unapproved {
        /// The server's name.
        name: String,
        /// The project file that defines it.
        source: SourceMeta,
    },
}

/// Where the one problem of a failed discovery points, as the described system reports it (a
/// file name, not a path that was read).
const DISCOVERY_PROBLEM_PATH: &str = ".mcp.json";

impl Problem {
    /// The server the problem is about, if it is about one.
    pub fn server(&self) -> Option<&str> {
        match self {
            Self::Server { name, .. } | Self::Unapproved { name, .. } => Some(name),
            Self::File(_) | Self::Discovery(_) => None,
        }
    }

    /// The file the problem points at: the broken file, the server's config file, or
    /// `.mcp.json` for a failed discovery.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Self::File(file) => Some(&file.path),
            Self::Server { source, .. } => source.as_ref().map(|meta| meta.path.as_path()),
            Self::Unapproved { source, .. } => Some(&source.path),
            Self::Discovery(_) => Some(Path::new(DISCOVERY_PROBLEM_PATH)),
        }
    }
}

impl fmt::Display for Problem {
    /// The message alone; each names its file or server already.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::File(file) => fmt::Display::fmt(&file.error, f),
            Self::Server { error, .. } | Self::Discovery(error) => fmt::Display::fmt(error, f),
            Self::Unapproved { name, source } => write!(
                f,
                "{name}: defined in the project file {}, it waits for the user's approval and is not started",
                source.path.display()
            ),
        }
    }
}

/// `; it offers a, b` (or `; it offers none`).
fn known_skills(known: &[String]) -> String {
    if known.is_empty() {
        "; it offers none".to_owned()
    } else {
        format!("; it offers {}", known.join(", "))
    }
}
