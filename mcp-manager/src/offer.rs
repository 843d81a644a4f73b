//! What the manager offers the agent: [`ManagedTool`]s (live, served on demand, or deferred
//! from the cache) and the startup gate's answer, [`ConnectOutcome`].

use std::collections::HashMap;
use std::sync::Arc;

use mcp_bridge::{AgentTool, ToolProvider};
use mcp_config::SourceMeta;
use mcp_transport::McpClient;

use crate::error::ServerError;

/// A tool the manager offers, with where it comes from.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ManagedTool {
    /// The server's configured name.
    pub server: String,
    /// The tool's name on the server.
    pub original_name: String,
    /// True while the tool comes from the cache and its server is not connected yet (a
    /// stateless server's tools served on demand from a fresh cached list are live: false).
    pub deferred: bool,
    /// The tool itself.
    pub tool: Arc<dyn AgentTool>,
    /// Where the server is defined (provider, file, level), shared by the server's tools;
    /// `None` when the manager was not told. [`path`](Self::path) shows it as
    /// `mcp:<server> via <provider>`.
    pub source: Option<Arc<SourceMeta>>,
}

/// Where a server's definition came from, as its tools carry it: made once per server and
/// shared by every tool (thousands, at a warm start), not copied into each.
#[derive(Clone, Debug)]
pub(crate) struct ToolSource {
    /// The definition's source, for [`ManagedTool::source`].
    pub(crate) meta: Arc<SourceMeta>,
    /// Its provider, for the details of every result.
    pub(crate) provider: Arc<ToolProvider>,
}

impl ToolSource {
    pub(crate) fn of(meta: &SourceMeta) -> Self {
        Self {
            provider: Arc::new(ToolProvider::new(&meta.provider, &meta.provider_name)),
            meta: Arc::new(meta.clone()),
        }
    }
}

/// Deferred tools built ahead, by server: the attempt they were built for, and the tools in
/// the order of the server's cached tools, each under the name it has when no other server's
/// tool takes it.
pub(crate) type Prebuilt = HashMap<String, (u64, Vec<ManagedTool>)>;

/// What `connect_servers` answers at the startup gate.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct ConnectOutcome {
    /// Every tool the manager offers now: live tools, and deferred ones from the cache.
    pub tools: Vec<ManagedTool>,
    /// The servers of this call that failed before the answer.
    pub errors: Vec<ServerError>,
}

/// How a tool the manager offers reaches its server.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Reach<'a> {
    /// Through its server's live connection.
    Connected(&'a Arc<McpClient>),
    /// Through the connection its first call makes: a stateless server served on demand from a
    /// fresh cached list. A live tool.
    OnDemand,
    /// Once its server is connected: a deferred tool from the cache.
    Deferred,
}

impl Reach<'_> {
    pub(crate) fn is_deferred(self) -> bool {
        matches!(self, Self::Deferred)
    }
}
