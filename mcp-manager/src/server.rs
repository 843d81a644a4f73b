//! One record per server ([`Server`]): where it is defined, the configuration it was started
//! with and its cache key, and where it stands — one [`ServerState`], which holds what the
//! server offers in that state (its tools, the protocol version it speaks, its instructions).
//! A server's status, its tools and its version are each a `match` on that state; nothing is
//! derived by looking in several places.
//!
//! The lifecycle, as [`crate::lifecycle`] drives it:
//!
//! ```text
//!              ┌────────────── the cache's list is a stateless server's and fresh ──► OnDemand
//!   start ──► Starting ──► Connected ──(died)──► Reconnecting ──► Connected
//!                │             ▲                      │
//!                └──► Failed ◄─┴──────────────────────┘ (attempts spent, or no reconnect)
//! ```
//!
//! `OnDemand` counts as connected (its tools are live); its first use starts the connection
//! that makes it `Connected`. A server that is disconnected has no record.
//!
//! What each state offers: `Starting`, the cache's tools (deferred) if the cache had them;
//! `OnDemand`, the cache's fresh tools (live); `Connected`, the tools it listed; `Reconnecting`,
//! the tools of the connection that died (deferred, so a call waits for the server). `Failed`
//! offers nothing, however it failed (at its start, with the reconnect attempts spent, or dead
//! with reconnection off): its tools are withdrawn, and a call through one an agent still
//! holds answers with the failure. A server's skill listing (the Skills extension) goes with
//! its tools from state to state the same way.

use std::sync::Arc;

use mcp_cache::Listing;
use mcp_config::ServerConfig;
use mcp_transport::{McpClient, ProtocolVersion, SkillEntry, Tool};
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::cache_key::CacheKey;
use crate::error::ServerError;
use crate::offer::{ManagedTool, ToolSource};
use crate::status::ConnectionStatus;

/// How far an attempt has come. Its task publishes each step on the attempt's watch, and
/// everyone waiting for the server (the startup gate, deferred tools,
/// [`crate::McpManager::wait_for_connection`]) reads it there.
#[derive(Clone, Debug)]
pub(crate) enum Progress {
    /// Looking in the cache for the server's tools (a start waits for this, within its gate).
    LookingUp,
    /// Connecting; `cached` when the cache's tools are offered (deferred) meanwhile.
    Connecting { cached: bool },
    /// Ended without a connection: the cache's list is a stateless server's and fresh, so the
    /// server is served on demand.
    OnDemand,
    /// Ended: the connection, or why none was made.
    Done(Result<Arc<McpClient>, ServerError>),
}

impl Progress {
    /// Whether the attempt has ended (connected, failed, or left the server on demand).
    pub(crate) fn has_ended(&self) -> bool {
        matches!(self, Self::OnDemand | Self::Done(_))
    }

    /// Whether the cache lookup is over.
    pub(crate) fn has_looked_up(&self) -> bool {
        !matches!(self, Self::LookingUp)
    }

    /// The failure the attempt ended with.
    pub(crate) fn error(&self) -> Option<&ServerError> {
        match self {
            Self::Done(Err(error)) => Some(error),
            _ => None,
        }
    }
}

/// Everything the manager knows of one server.
pub(crate) struct Server {
    /// Where its definition came from; `None` for a server built in code.
    pub(crate) source: Option<ToolSource>,
    /// The configuration it was (last) started with.
    pub(crate) config: ServerConfig,
    /// What its cache key is made of (see [`crate::cache_key`]): its definition, its file
    /// and, read when the key is needed, its login.
    pub(crate) cache_key: CacheKey,
    /// Where it stands, and what it offers there.
    pub(crate) state: ServerState,
}

/// What a server offers while no live connection speaks for it: tools from the cache, or
/// kept from its last connection, and what it said of itself with them.
#[derive(Debug, Clone)]
pub(crate) struct Offered {
    pub(crate) tools: Vec<Tool>,
    /// The protocol version it speaks: as the cache remembers, or its last connection's.
    pub(crate) protocol: Option<ProtocolVersion>,
    /// What it said of itself for the model (its `instructions`).
    pub(crate) instructions: Option<String>,
    /// The skills it offered (their listing; empty for a server without skills).
    pub(crate) skills: Vec<SkillEntry>,
    /// `tools` as the manager offers them, built by the attempt's task while the startup gate
    /// waits (building 10,000 at the gate's answer took milliseconds), each under the name it
    /// has when no other server's tool takes it; empty when not built. The offer
    /// ([`crate::McpManager::tools`]) takes a built tool whose name is still the one it gives.
    pub(crate) built: Vec<ManagedTool>,
}

impl Offered {
    /// What the cache remembers of a server: its tools, as `listing` says they were listed,
    /// and those tools as they are offered; the listing's skills are taken from it.
    pub(crate) fn cached(tools: Vec<Tool>, listing: &mut Listing, built: Vec<ManagedTool>) -> Self {
        Self {
            tools,
            protocol: listing.protocol_version,
            instructions: listing.instructions.clone(),
            skills: std::mem::take(&mut listing.skills),
            built,
        }
    }
}

/// Where a server stands (see the module documentation for what each state offers).
pub(crate) enum ServerState {
    /// Being connected (and its tools listed) for the first time since it was started.
    Starting {
        attempt: Attempt,
        /// The cache's tools, offered (deferred) meanwhile.
        cached: Option<Offered>,
    },
    /// A stateless server whose cached list is fresh: its tools are live without a connection,
    /// which its first use makes (`connecting`).
    OnDemand {
        /// How the cached list was listed: the version to connect with, until when it is fresh.
        listing: Listing,
        /// The cached list's tools, served live.
        offered: Offered,
        /// The connection of its first use, once one is under way.
        connecting: Option<Attempt>,
    },
    /// Connected, tools listed.
    Connected {
        connection: Connection,
        tools: Vec<Tool>,
        /// The skills it listed when it connected (or, when that listing failed, those it
        /// offered before).
        skills: Vec<SkillEntry>,
    },
    /// Its connection died and is being made again.
    Reconnecting {
        /// The attempts' task.
        attempt: Attempt,
        /// Which attempt is next or under way (1 for the first).
        number: u32,
        /// Why the connection died, or why the last attempt failed.
        cause: ServerError,
        /// What the connection that died offered, deferred meanwhile.
        kept: Offered,
    },
    /// Not connected, because of this error; it offers nothing.
    Failed(ServerError),
}

/// A connection being made: the task making it, which publishes its [`Progress`].
pub(crate) struct Attempt {
    /// Tells this attempt from a later one of the same server.
    pub(crate) id: u64,
    pub(crate) cancel: CancellationToken,
    pub(crate) progress: watch::Receiver<Progress>,
    pub(crate) task: JoinHandle<()>,
}

impl Attempt {
    /// Cancels the attempt and waits for its task (a process it started is then killed).
    async fn stop(self) {
        self.cancel.cancel();
        let _ = self.task.await;
    }

    fn abort(self) {
        self.cancel.cancel();
        self.task.abort();
    }
}

/// A live connection and the task following it (list changes, death, health).
pub(crate) struct Connection {
    pub(crate) client: Arc<McpClient>,
    pub(crate) watcher: JoinHandle<()>,
}

impl Connection {
    async fn close(self) {
        self.watcher.abort();
        if let Err(error) = self.client.close().await {
            tracing::warn!(%error, "closing an MCP server failed");
        }
    }
}

impl ServerState {
    /// The status the state stands for.
    pub(crate) fn status(&self) -> ConnectionStatus {
        match self {
            // Served on demand counts as connected: its tools are live.
            Self::Connected { .. } | Self::OnDemand { .. } => ConnectionStatus::Connected,
            Self::Starting { .. } => ConnectionStatus::Connecting,
            Self::Reconnecting { number, cause, .. } => ConnectionStatus::Reconnecting {
                attempt: *number,
                cause: cause.clone(),
            },
            Self::Failed(error) => ConnectionStatus::not_connected(error.clone()),
        }
    }

    /// What the server offers without a live connection, in the states that offer it.
    fn offered(&self) -> Option<&Offered> {
        match self {
            Self::Starting { cached, .. } => cached.as_ref(),
            Self::OnDemand { offered, .. } => Some(offered),
            Self::Reconnecting { kept, .. } => Some(kept),
            Self::Connected { .. } | Self::Failed(_) => None,
        }
    }

    /// The tools the server offers now, as built ahead (see [`Offered::built`]).
    pub(crate) fn built(&self) -> &[ManagedTool] {
        self.offered()
            .map_or(&[], |offered| offered.built.as_slice())
    }

    /// The tools the server offers now; `None` when it offers none (yet).
    pub(crate) fn tools(&self) -> Option<&[Tool]> {
        match self {
            Self::Connected { tools, .. } => Some(tools),
            other => other.offered().map(|offered| offered.tools.as_slice()),
        }
    }

    /// The skills the server offers now, and whether they come from an earlier connection (the
    /// cache's, or one that died) rather than the live one; `None` when it offers none (yet).
    pub(crate) fn skills(&self) -> Option<(&[SkillEntry], bool)> {
        match self {
            Self::Connected { skills, .. } => Some((skills, false)),
            other => other
                .offered()
                .map(|offered| (offered.skills.as_slice(), true)),
        }
    }

    /// The protocol version the server speaks: its connection's; while it offers tools
    /// without one, the version they came with.
    pub(crate) fn protocol(&self) -> Option<ProtocolVersion> {
        match self {
            Self::Connected { connection, .. } => Some(connection.client.protocol_version()),
            other => other.offered()?.protocol,
        }
    }

    /// What the server said of itself for the model: its connection's `instructions`; while
    /// it offers tools without one, those that came with them.
    pub(crate) fn instructions(&self) -> Option<&str> {
        match self {
            Self::Connected { connection, .. } => connection.client.instructions(),
            other => other.offered()?.instructions.as_deref(),
        }
    }

    /// The attempt under way, if any.
    pub(crate) fn attempt(&self) -> Option<&Attempt> {
        match self {
            Self::Starting { attempt, .. } | Self::Reconnecting { attempt, .. } => Some(attempt),
            Self::OnDemand { connecting, .. } => connecting.as_ref(),
            Self::Connected { .. } | Self::Failed(_) => None,
        }
    }

    /// Whether the record still serves attempt `id`: it is the attempt under way (a result or
    /// a step of another attempt is not wanted).
    pub(crate) fn serves(&self, id: u64) -> bool {
        self.attempt().is_some_and(|attempt| attempt.id == id)
    }

    /// The live connection's client.
    pub(crate) fn client(&self) -> Option<&Arc<McpClient>> {
        match self {
            Self::Connected { connection, .. } => Some(&connection.client),
            _ => None,
        }
    }

    /// Connected, connecting, served on demand or being reconnected: not failed.
    pub(crate) fn is_running(&self) -> bool {
        !matches!(self, Self::Failed(_))
    }

    /// Stops what the state runs: the attempt under way is cancelled and awaited, the
    /// connection closed.
    pub(crate) async fn stop(self) {
        match self {
            Self::Starting { attempt, .. } | Self::Reconnecting { attempt, .. } => {
                attempt.stop().await;
            }
            Self::OnDemand {
                connecting: Some(attempt),
                ..
            } => attempt.stop().await,
            Self::Connected { connection, .. } => connection.close().await,
            Self::OnDemand {
                connecting: None, ..
            }
            | Self::Failed(_) => {}
        }
    }

    /// [`stop`](Self::stop) without waiting, for a manager dropped: the attempt is aborted,
    /// the connection closed on the runtime if there is one (without, the client's last
    /// handle's drop kills the server).
    pub(crate) fn abort(self) {
        match self {
            Self::Starting { attempt, .. } | Self::Reconnecting { attempt, .. } => attempt.abort(),
            Self::OnDemand {
                connecting: Some(attempt),
                ..
            } => attempt.abort(),
            Self::Connected { connection, .. } => match tokio::runtime::Handle::try_current() {
                Ok(runtime) => {
                    runtime.spawn(connection.close());
                }
                Err(_) => connection.watcher.abort(),
            },
            Self::OnDemand {
                connecting: None, ..
            }
            | Self::Failed(_) => {}
        }
    }
}
