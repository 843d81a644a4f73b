//! Where a server stands ([`ConnectionStatus`]) and what happened to it ([`ManagerEvent`]).

use crate::error::ServerError;

/// Where a server stands.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConnectionStatus {
    /// Connected, tools listed.
    Connected,
    /// Handshake or tool listing in progress.
    Connecting,
    /// Not connected (never was, or disconnected).
    Disconnected,
    /// The last attempt failed, or the connection died; the error says why.
    Failed(ServerError),
    /// The server wants the user to log in (again): it answered 401 and there are no tokens
    /// for it, or its authorization server no longer takes the refresh token.
    NeedsLogin(ServerError),
    /// The connection died and is being made again; its tools are deferred meanwhile.
    Reconnecting {
        /// Which attempt is next or under way (1 for the first).
        attempt: u32,
        /// Why the connection died, or why the last attempt failed.
        cause: ServerError,
    },
}

impl ConnectionStatus {
    /// The status of a server that is not connected because of `error`: needing a login when
    /// that is what the error says, failed otherwise.
    pub fn not_connected(error: ServerError) -> Self {
        if error.needs_login() {
            Self::NeedsLogin(error)
        } else {
            Self::Failed(error)
        }
    }

    /// `connected`, `connecting`, `reconnecting`, `disconnected`, `failed` or `needs-login`.
    pub const fn as_str(&self) -> &'static str {
        match self {
            Self::Connected => "connected",
            Self::Connecting => "connecting",
            Self::Disconnected => "disconnected",
            Self::Failed(_) => "failed",
            Self::NeedsLogin(_) => "needs-login",
            Self::Reconnecting { .. } => "reconnecting",
        }
    }

    /// Why the server is not connected, for a failed server, one that needs a login, or one
    /// being reconnected.
    pub fn error(&self) -> Option<&ServerError> {
        match self {
            Self::Failed(error)
            | Self::NeedsLogin(error)
            | Self::Reconnecting { cause: error, .. } => Some(error),
            Self::Connected | Self::Connecting | Self::Disconnected => None,
        }
    }
}

/// Something that happened to a server, for sessions that follow without polling.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ManagerEvent {
    /// A server's status changed.
    StatusChanged {
        /// The server.
        server: String,
        /// Its new status.
        status: ConnectionStatus,
    },
    /// A server's tools changed (late connection, list change, disconnect, failure).
    ToolsChanged {
        /// The server.
        server: String,
    },
    /// A server said its resource list changed (`notifications/resources/list_changed`):
    /// list its resources again to see them.
    ResourcesChanged {
        /// The server.
        server: String,
    },
    /// A server said its prompt list changed (`notifications/prompts/list_changed`): list its
    /// prompts again to see them.
    PromptsChanged {
        /// The server.
        server: String,
    },
    /// A server failed after the startup gate had already answered.
    LateError {
        /// The server.
        server: String,
        /// Why.
        error: ServerError,
    },
}
