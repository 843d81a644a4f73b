//! [`McpManager`], what an agent holds: the tools it offers, each server's status, protocol
//! version and source, the connection of a server once made, the agent's roots, and
//! disconnecting. Its state is one map of server records ([`crate::server`]) kept by
//! [`crate::lifecycle`]; connecting is [`McpManager::connect_servers`] ([`crate::startup`]).

use std::collections::BTreeMap;
use std::sync::Arc;

use mcp_bridge::ConnectionProvider;
use mcp_bridge::naming::{Precedence, assign_names_with_precedence};
use mcp_cache::ToolCache;
use mcp_config::{DiscoveredServer, SourceMeta};
use mcp_transport::{McpClient, ProtocolVersion, Root};
use tokio::sync::broadcast;

use crate::error::ServerError;
use crate::inner::Inner;
use crate::offer::{ManagedTool, Offer, Reach, budget_of};
use crate::options::ManagerOptions;
use crate::server::ServerState;
use crate::status::{ConnectionStatus, ManagerEvent};

/// Connects MCP servers and keeps their tools. Share it as `Arc<McpManager>`.
pub struct McpManager {
    pub(crate) inner: Arc<Inner>,
}

impl McpManager {
    /// A manager with its options (the credential store among them) and a tool cache.
    pub fn new(options: ManagerOptions, cache: Arc<dyn ToolCache>) -> Self {
        Self {
            inner: Inner::new(options, cache),
        }
    }

    /// Events from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<ManagerEvent> {
        self.inner.subscribe()
    }

    /// Every tool the manager offers now, named across all servers.
    pub fn tools(&self) -> Vec<ManagedTool> {
        let state = self.inner.lock();
        let offering = || {
            state
                .servers
                .iter()
                .filter_map(|(name, record)| Some((name, record, record.state.tools()?)))
        };
        let pairs: Vec<(&str, &str)> = offering()
            .flat_map(|(server, _, tools)| {
                tools
                    .iter()
                    .map(move |tool| (server.as_str(), tool.name.as_str()))
            })
            .collect();
        // The user's own servers keep their names before a project folder's servers.
        let precedence: Vec<Precedence> = offering()
            .flat_map(|(_, record, tools)| {
                let from_project = record
                    .source
                    .as_ref()
                    .is_some_and(|source| source.meta.in_project_folder);
                let precedence = if from_project {
                    Precedence::Project
                } else {
                    Precedence::User
                };
                std::iter::repeat_n(precedence, tools.len())
            })
            .collect();
        // In the order of `pairs`: server by server, each server's tools in order.
        let mut names = assign_names_with_precedence(&pairs, &precedence).into_iter();
        let mut offered = Vec::with_capacity(pairs.len());
        let provider = Arc::clone(&self.inner) as Arc<dyn ConnectionProvider>;
        for (server, record, tools) in offering() {
            let reach = match &record.state {
                ServerState::Connected { connection, .. } => Reach::Connected(&connection.client),
                ServerState::OnDemand { .. } => Reach::OnDemand,
                _ => Reach::Deferred,
            };
            let offer = Offer {
                server,
                config: &record.config,
                source: record.source.as_ref(),
                budget: budget_of(self.inner.options.output_budget.as_ref(), &record.config),
                reach,
                provider: &provider,
            };
            // Built ahead (in the order of the server's tools) where each keeps its name.
            let mut built = record.state.built().iter();
            for (tool, name) in tools.iter().zip(names.by_ref()) {
                match built.next() {
                    Some(ready)
                        if ready.tool.name() == name && ready.deferred == reach.is_deferred() =>
                    {
                        offered.push(ready.clone());
                    }
                    _ => offered.push(offer.tool(name, tool)),
                }
            }
        }
        offered
    }

    /// Where a server stands. A stateless server served on demand (see the crate documentation)
    /// is connected: its tools are live and a call needs no session.
    pub fn get_connection_status(&self, server: &str) -> ConnectionStatus {
        self.inner
            .lock()
            .servers
            .get(server)
            .map_or(ConnectionStatus::Disconnected, |record| {
                record.state.status()
            })
    }

    /// The protocol version `server` speaks: its connection's; for a server whose tools come from
    /// the cache without a connection (still connecting, reconnecting, or served on demand), the
    /// one the cache remembers (or its last connection's); `None` when neither is known.
    pub fn protocol_version(&self, server: &str) -> Option<ProtocolVersion> {
        self.inner.lock().servers.get(server)?.state.protocol()
    }

    /// The servers the manager knows of (connected, connecting, failed or with tools), sorted.
    pub fn server_names(&self) -> Vec<String> {
        self.inner.lock().servers.keys().cloned().collect()
    }

    /// The instructions `server` gave for the model (the `instructions` of its initialize or
    /// discover answer): its connection's, or, while its tools come from the cache or are kept
    /// while it reconnects, those it gave with them; `None` when it gave none, when it failed,
    /// or before anything is known of it.
    pub fn server_instructions(&self, server: &str) -> Option<String> {
        self.inner
            .lock()
            .servers
            .get(server)?
            .state
            .instructions()
            .map(str::to_owned)
    }

    /// Where a server's configuration came from.
    pub fn server_source(&self, server: &str) -> Option<SourceMeta> {
        let state = self.inner.lock();
        Some(SourceMeta::clone(
            &state.servers.get(server)?.source.as_ref()?.meta,
        ))
    }

    /// The live connection, the pending one once it is made, or
    /// `MCP server not connected: <name>`.
    pub async fn wait_for_connection(&self, server: &str) -> Result<Arc<McpClient>, ServerError> {
        self.inner.wait(server).await
    }

    /// Disconnects one server: its pending connection is cancelled, its connection closed, its
    /// tools and source forgotten. Other servers are untouched.
    pub async fn disconnect_server(&self, server: &str) {
        let removed = self.inner.lock().servers.remove(server);
        let Some(record) = removed else { return };
        record.state.stop().await;
        self.inner.emit(ManagerEvent::StatusChanged {
            server: server.to_owned(),
            status: ConnectionStatus::Disconnected,
        });
        self.inner.emit(ManagerEvent::ToolsChanged {
            server: server.to_owned(),
        });
    }

    /// Prepares a reload to `servers`: disconnects every server that is gone from them, whose
    /// configuration changed, or that is not connected (failed, needing a login, disconnected),
    /// and keeps the others — their connection, process and calls in flight — untouched. The
    /// servers disconnected, sorted; `connect_servers` with the same map then starts them (and
    /// leaves the kept ones alone).
    pub async fn disconnect_changed(
        &self,
        servers: &BTreeMap<String, DiscoveredServer>,
    ) -> Vec<String> {
        let changed: Vec<String> = {
            let state = self.inner.lock();
            state
                .servers
                .iter()
                .filter(|(name, record)| {
                    let same = servers
                        .get(*name)
                        .is_some_and(|server| server.config == record.config);
                    !(record.state.is_running() && same)
                })
                .map(|(name, _)| name.clone())
                .collect()
        };
        for name in &changed {
            self.disconnect_server(name).await;
        }
        changed
    }

    /// Disconnects everything: in-flight connections are cancelled (their processes killed),
    /// every connection is closed concurrently, every record dropped. When this returns no
    /// server process and no task of the manager is left.
    pub async fn disconnect_all(&self) {
        let servers = std::mem::take(&mut self.inner.lock().servers);
        let mut closing = tokio::task::JoinSet::new();
        let mut names = Vec::with_capacity(servers.len());
        for (name, record) in servers {
            names.push(name);
            closing.spawn(record.state.stop());
        }
        while closing.join_next().await.is_some() {}
        for server in names {
            self.inner.emit(ManagerEvent::StatusChanged {
                server: server.clone(),
                status: ConnectionStatus::Disconnected,
            });
            self.inner.emit(ManagerEvent::ToolsChanged { server });
        }
    }

    /// Changes the agent's roots (when the client options declare roots): connected servers
    /// that follow them get `notifications/roots/list_changed` and the new list when they ask,
    /// servers connected later get it from the start. A server whose config sets its own
    /// `roots` keeps them.
    pub fn set_roots(&self, roots: Vec<Root>) {
        if self.inner.options.client.roots.is_none() {
            return;
        }
        let (clients, roots): (Vec<(String, Arc<McpClient>)>, Vec<Root>) = {
            let mut state = self.inner.lock();
            let clients = state
                .servers
                .iter()
                .filter(|(_, record)| record.config.roots().is_none())
                .filter_map(|(name, record)| {
                    Some((name.clone(), Arc::clone(record.state.client()?)))
                })
                .collect();
            (clients, state.roots.insert(roots).clone())
        };
        for (name, client) in clients {
            if !client.set_roots(roots.clone()) {
                tracing::debug!(server = %name, "could not tell the server its roots changed");
            }
        }
    }
}

impl Drop for McpManager {
    fn drop(&mut self) {
        // Tools handed out (`McpTool`) hold their client: without a close, their servers would
        // live as long as those tools.
        let servers = std::mem::take(&mut self.inner.lock().servers);
        for (_, record) in servers {
            record.state.abort();
        }
    }
}

impl std::fmt::Debug for McpManager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpManager")
            .field("servers", &self.server_names())
            .finish_non_exhaustive()
    }
}
