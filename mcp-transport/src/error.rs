//! The crate's error type: every error names the server, what was being done, and the cause.

use std::time::Duration;

use crate::peer::RpcError;
use crate::transport::TransportError;

/// A failure talking to one MCP server.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Starting the transport and the handshake together took longer than the connect timeout.
    /// The server was stopped. Retrying helps only if the server was slow, not stuck.
    #[error("Connection to MCP server \"{server}\" timed out after {}ms", .after.as_millis())]
    ConnectTimeout {
        /// The server's name.
        server: String,
        /// The connect timeout.
        after: Duration,
    },
    /// The transport could not be created (for stdio: the command could not be started).
    /// Check the command, its arguments and the working directory.
    #[error("MCP server \"{server}\" could not be started: {source}")]
    Start {
        /// The server's name.
        server: String,
        /// Why.
        #[source]
        source: TransportError,
    },
    /// The server speaks no protocol version this client speaks (or none it was pinned to).
    /// The server was stopped.
    #[error(
        "MCP server \"{server}\" speaks protocol version {version}, and this client speaks \
         {supported}; use a server release that supports one of these, or change the server's \
         protocolVersion pin"
    )]
    UnsupportedProtocolVersion {
        /// The server's name.
        server: String,
        /// What the server speaks: the version it chose in `initialize`, or the ones it named.
        version: String,
        /// The versions this client supports.
        supported: String,
    },
    /// A request failed: the server answered with an error, did not answer in time, the call
    /// was cancelled, or the connection died (then the source carries the exit status and the
    /// server's last stderr lines).
    #[error("MCP server \"{server}\": {operation} failed: {source}")]
    Request {
        /// The server's name.
        server: String,
        /// What was being done, e.g. `initialize` or `tools/call "echo"`.
        operation: String,
        /// Why.
        #[source]
        source: RpcError,
    },
    /// The server could not be stopped cleanly (it survived SIGKILL, or stopping it failed).
    #[error("MCP server \"{server}\" could not be stopped: {source}")]
    Stop {
        /// The server's name.
        server: String,
        /// Why.
        #[source]
        source: TransportError,
    },
    /// A paginated list (`tools/list`, `resources/list`, `prompts/list`, …) handed out a cursor
    /// it had handed out before; following it would loop forever. The server is broken; that
    /// list is not available from it.
    #[error(
        "MCP server \"{server}\": {method} returned the cursor {cursor:?} a second time; \
         stopped instead of looping forever"
    )]
    RepeatedCursor {
        /// The server's name.
        server: String,
        /// The list request, e.g. `tools/list`.
        method: &'static str,
        /// The repeated cursor.
        cursor: String,
    },
    /// A paginated list kept returning pages past a sane bound.
    #[error("MCP server \"{server}\": {method} returned more than {pages} pages; stopped")]
    TooManyPages {
        /// The server's name.
        server: String,
        /// The list request, e.g. `tools/list`.
        method: &'static str,
        /// The bound.
        pages: usize,
    },
    /// A skill's file is not what the server's listing says (SEP-2640): its content was not
    /// used, and no file after it was read.
    #[error("MCP server \"{server}\": skill \"{skill}\" refused: {file}: {problem}")]
    Skill {
        /// The server's name.
        server: String,
        /// The skill's name.
        skill: String,
        /// The file's URI.
        file: String,
        /// What differed.
        problem: SkillProblem,
    },
}

/// How a skill's file differed from its listing, or why it could not be checked.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SkillProblem {
    /// The listing does not name the file: it is never read.
    #[error("the skill's listing does not name this file")]
    NotListed,
    /// The listing's digest is not `sha256:` and 64 lowercase hex digits.
    #[error("the listing's digest {listed:?} is not `sha256:` and 64 lowercase hex digits")]
    ListedDigest {
        /// The digest as listed.
        listed: String,
    },
    /// The file's length is not the listed size.
    #[error("it is {got} bytes, the listing says {listed}")]
    Size {
        /// The size listed.
        listed: u64,
        /// The bytes read.
        got: u64,
    },
    /// The file's SHA-256 is not the listed digest.
    #[error("its digest is {got}, the listing says {listed}")]
    Digest {
        /// The digest listed.
        listed: String,
        /// The digest of the bytes read.
        got: String,
    },
    /// `SKILL.md`'s frontmatter is not the listing's.
    #[error("its frontmatter differs from the listing's: {}", differences_text(.differences))]
    Frontmatter {
        /// The fields that differ, by name.
        differences: Vec<FieldDifference>,
    },
    /// `SKILL.md` does not start with a `---` block.
    #[error("it has no frontmatter (a block between `---` lines at its start)")]
    NoFrontmatter,
    /// The frontmatter is not a YAML mapping.
    #[error("its frontmatter cannot be read: {0}")]
    BadFrontmatter(String),
    /// `SKILL.md` is not UTF-8 text.
    #[error("it is not UTF-8 text")]
    NotText,
    /// The answer held no contents for the file.
    #[error("the server's answer holds no contents for it")]
    NoContents,
    /// Binary contents that are not base64.
    #[error("its binary contents are not base64")]
    NotBase64,
    /// The listed files hold more together than a skill may.
    #[error("its files hold {listed} bytes together, more than the {limit} a skill may")]
    TooLarge {
        /// The listed sizes summed.
        listed: u64,
        /// The bound.
        limit: u64,
    },
    /// The listing names more files than a skill may have.
    #[error("it lists {listed} files, more than the {limit} a skill may have")]
    TooManyFiles {
        /// The files listed.
        listed: usize,
        /// The bound.
        limit: usize,
    },
}

/// One frontmatter field whose value differs between `SKILL.md` and the listing (`null` where
/// a side has no such field).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct FieldDifference {
    /// The field.
    pub field: String,
    /// Its value in the file.
    pub in_file: serde_json::Value,
    /// Its value in the listing.
    pub in_listing: serde_json::Value,
}

/// `description: file "x", listing "y"; …`, each value cut to 60 characters.
fn differences_text(differences: &[FieldDifference]) -> String {
    fn short(value: &serde_json::Value) -> String {
        let text = value.to_string();
        match text.char_indices().nth(60) {
            Some((end, _)) => format!("{}…", &text[..end]),
            None => text,
        }
    }
    differences
        .iter()
        .map(|difference| {
            format!(
                "{}: file {}, listing {}",
                difference.field,
                short(&difference.in_file),
                short(&difference.in_listing)
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

impl Error {
    /// The name of the server the error is about.
    pub fn server(&self) -> &str {
        match self {
            Self::ConnectTimeout { server, .. }
            | Self::Start { server, .. }
            | Self::Stop { server, .. }
            | Self::UnsupportedProtocolVersion { server, .. }
            | Self::Request { server, .. }
            | Self::RepeatedCursor { server, .. }
            | Self::TooManyPages { server, .. }
            | Self::Skill { server, .. } => server,
        }
    }

    /// The JSON-RPC failure behind a request error.
    pub fn rpc_error(&self) -> Option<&RpcError> {
        match self {
            Self::Request { source, .. } => Some(source),
            _ => None,
        }
    }

    /// True when the caller cancelled the request: a cancellation, not a failure.
    pub fn is_cancelled(&self) -> bool {
        matches!(self.rpc_error(), Some(RpcError::Cancelled))
    }

    /// True for a connect timeout, a request that was not answered in time, or a task that
    /// showed no sign of life for as long.
    pub fn is_timeout(&self) -> bool {
        matches!(self, Self::ConnectTimeout { .. })
            || matches!(
                self.rpc_error(),
                Some(RpcError::Timeout(_) | RpcError::TaskSilent { .. })
            )
    }

    /// The transport's failure behind the error: it could not be set up, could not be stopped,
    /// or ended the connection (for stdio, with the exit status and stderr tail).
    pub fn transport_error(&self) -> Option<&TransportError> {
        match self {
            Self::Start { source, .. } | Self::Stop { source, .. } => Some(source),
            Self::Request {
                source: RpcError::ConnectionClosed(reason),
                ..
            } => Some(reason.error()),
            _ => None,
        }
    }

    /// True when the server wants the user to log in (again): it refused the credentials, or
    /// (feature `oauth`) there are none and no way to ask for them, or the authorization server
    /// no longer accepts the refresh token. A session shows such a server as needing a login
    /// rather than as failed.
    pub fn needs_login(&self) -> bool {
        self.transport_error()
            .is_some_and(TransportError::needs_credentials)
    }

    /// True when a Streamable HTTP initialize was refused in a way that means "this server
    /// speaks the legacy HTTP+SSE transport": HTTP 400, 404 or 405.
    pub fn suggests_legacy_sse(&self) -> bool {
        matches!(
            self.transport_error(),
            Some(TransportError::HttpStatus {
                status: 400 | 404 | 405,
                ..
            })
        )
    }

    /// True when a legacy HTTP+SSE connect was refused at its first GET: the URL serves
    /// something else.
    pub fn is_not_legacy_sse(&self) -> bool {
        matches!(
            self.transport_error(),
            Some(TransportError::NotLegacySse { .. })
        )
    }

    /// True when the connection is gone (the server exited or the client closed it).
    pub fn is_connection_closed(&self) -> bool {
        matches!(self.rpc_error(), Some(RpcError::ConnectionClosed(_)))
    }
}
