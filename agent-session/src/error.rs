//! The crate's error type: what a session could not do, keeping the manager's typed error.

use mcp_manager::ServerError;

/// A session operation that could not be done.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum SessionError {
    /// No MCP server of that name is configured (`/mcp list` shows the servers).
    #[error("no MCP server named \"{name}\" is configured")]
    UnknownServer {
        /// The name asked for.
        name: String,
    },
    /// A command that would start a server, in a session with MCP off
    /// ([`SessionOptions::mcp`](crate::SessionOptions::mcp)): nothing starts then.
    #[error(
        "MCP is off in this session, so \"{name}\" is not started; start the session with MCP on to use its servers"
    )]
    McpOff {
        /// The server.
        name: String,
    },
    /// A login was asked of a session that has no way to ask the user
    /// ([`SessionOptions::authorization`](crate::SessionOptions::authorization)).
    #[cfg(feature = "oauth")]
    #[error("cannot log in to \"{name}\": this session has no browser step to ask the user")]
    NoBrowserStep {
        /// The server.
        name: String,
    },
    /// Connecting (or discovering) failed; the manager's error says why, with the server's
    /// exit status and stderr tail when it died.
    #[error(transparent)]
    Server(#[from] ServerError),
}
