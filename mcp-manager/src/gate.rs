//! The connect pipeline and the startup gate: [`McpManager::connect_servers`].
//!
//! Each server gets its own task: record the source, skip a server already connected or
//! connecting, then validate, resolve credentials, connect, list tools and write the cache
//! ([`crate::connect`] does the first steps). The gate waits at most the startup timeout, then
//! answers with live tools, one error per failed server, and cached (deferred) tools for the
//! servers still connecting; a pending server with no cache entry, or one whose entry says
//! `required: true`, is awaited, bounded by its own timeout. A pipeline that finishes after the gate replaces only its own server's tools and is
//! reported as an event.
//!
//! The cache lookup comes first, and the connection waits for it (within the gate): the entry
//! remembers the protocol version the server spoke, which the connection is pinned to so that
//! the server's era is not probed again — and probed again once when the server refuses it as
//! a server of the other era would ([`refuses_era`]). An entry whose list is a stateless
//! server's and still fresh is served on demand instead of connecting (see [`crate::manager`]).
//! The ttl is kept with every list written (`ttlMs`, with when it was fetched).

use std::collections::{BTreeMap, HashMap, HashSet, btree_map};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use mcp_bridge::naming::tool_name;
use mcp_cache::{Fingerprint, Listing};
use mcp_config::{DiscoveredServer, ServerConfig};
use mcp_transport::protocol::methods;
use mcp_transport::{
    ClientOptions, McpClient, ProtocolVersion, RpcError, ServerNotification, Tool, TransportError,
};
use tokio::sync::{broadcast, oneshot, watch};
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use crate::connect::{ConnectContext, connect_client};
use crate::error::{ManagerError, ServerError};
use crate::manager::{
    ConnectOutcome, Connection, Inner, ManagedTool, McpManager, OnDemand, Prebuilt, Reach,
    listing_of, lock,
};
use crate::status::{ConnectionStatus, ManagerEvent};

/// What a pipeline ended with: `None` while it runs.
pub(crate) type Outcome = Option<Result<Arc<McpClient>, ServerError>>;

/// A server connected and its tools listed; `notifications` was subscribed before listing.
pub(crate) struct Loaded {
    client: Arc<McpClient>,
    /// `None`: not listed, the tools the manager holds being still fresh.
    tools: Option<Vec<Tool>>,
    /// How `tools` were listed.
    listing: Listing,
    notifications: broadcast::Receiver<ServerNotification>,
}

/// What a connection is made with beyond the server's configuration.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Plan {
    /// The protocol version the cache remembers: the first attempt is pinned to it (unless the
    /// agent pins one), and made again without the pin when the server refuses it.
    pub(crate) remembered: Option<ProtocolVersion>,
    /// Until when the tools the manager holds are fresh: a connection made before then, in the
    /// era remembered, does not list them again.
    pub(crate) fresh_until: Option<SystemTime>,
}

/// What the cache lookup tells a server's pipeline.
enum Remembered {
    /// Connect, pinned to this version if there is one.
    Connect(Option<ProtocolVersion>),
    /// The list is a stateless server's and fresh: serve these tools on demand.
    OnDemand { tools: Vec<Tool>, listing: Listing },
}

/// What `finish` recorded.
enum Published {
    Connected,
    Failed {
        error: ServerError,
        had_tools: bool,
    },
    /// Disconnected meanwhile: the connection, if one was made, is to be closed.
    Unwanted(Option<Arc<McpClient>>),
}

/// A pipeline `connect_servers` started, and the cache lookup for its gate.
struct Started {
    name: String,
    id: u64,
    outcome: watch::Receiver<Outcome>,
    lookup: JoinHandle<Option<Cached>>,
}

/// A server's cached tools, and the deferred tools the gate's answer offers for them.
type Cached = (Vec<Tool>, Vec<ManagedTool>);

/// What a batch's pipelines need to know about its gate.
#[derive(Default)]
pub(crate) struct Gate {
    passed: bool,
    /// Servers the gate waits for past its deadline (pending, no cache): not "late".
    awaited: HashSet<String>,
}

impl Gate {
    /// A gate that has answered already: whatever finishes now is late.
    pub(crate) fn passed() -> Self {
        Self {
            passed: true,
            awaited: HashSet::new(),
        }
    }
}

impl McpManager {
    /// Connects every server in parallel and answers at the startup gate: live tools of the
    /// servers that finished, an error per server that failed, deferred tools (from the cache)
    /// for servers still connecting; a pending server without a cache entry is awaited (bounded
    /// by its own timeouts). Servers already connected or connecting are left alone. The rest
    /// finishes in the background, replacing only that server's tools.
    pub async fn connect_servers(
        &self,
        servers: &BTreeMap<String, DiscoveredServer>,
    ) -> ConnectOutcome {
        let inner = &self.inner;
        let gate = Arc::new(Mutex::new(Gate::default()));
        let deadline = Instant::now() + inner.options.startup_timeout;
        let mut started = Vec::new();
        for (name, server) in servers {
            let config = &server.config;
            inner
                .lock()
                .sources
                .insert(name.clone(), server.source.meta.clone());
            // The cache entry is keyed by the definition as written: no secret in it, and a
            // rotated variable keeps it.
            let fingerprint = Fingerprint::of(&server.definition);
            let (remembered_tx, remembered_rx) = oneshot::channel();
            let remembered = Some((remembered_rx, deadline));
            if let Some((id, outcome)) = inner.start(name, config, &fingerprint, &gate, remembered)
            {
                let (inner, key, config) = (Arc::clone(inner), name.clone(), config.clone());
                let source = server.source.meta.clone();
                let lookup = tokio::spawn(async move {
                    // A miss drops the sender: the pipeline connects as if nothing was known.
                    let entry = inner.cache.lookup_entry(&key, &fingerprint).await.ok()?;
                    let listing = entry.listing;
                    let on_demand = inner.serves_on_demand(&config, &listing, SystemTime::now());
                    let remembered_tx = if on_demand {
                        Some(remembered_tx)
                    } else {
                        // Told before the tools are built: the connection waits for it.
                        let _ = remembered_tx.send(Remembered::Connect(listing.protocol_version));
                        None
                    };
                    inner.remember_protocol(&key, listing.protocol_version);
                    // Built now, while the gate waits, rather than at its answer.
                    let budget = inner.budget_of(Some(&config));
                    let reach = if on_demand {
                        Reach::OnDemand
                    } else {
                        Reach::Deferred
                    };
                    let offered = entry
                        .tools
                        .iter()
                        .map(|tool| {
                            let name = tool_name(&key, &tool.name);
                            let budget = budget.clone();
                            inner.managed_tool(
                                &key,
                                name,
                                tool,
                                Some(&config),
                                Some(&source),
                                budget,
                                reach,
                            )
                        })
                        .collect();
                    if let Some(remembered_tx) = remembered_tx {
                        let tools = entry.tools.clone();
                        let _ = remembered_tx.send(Remembered::OnDemand { tools, listing });
                    }
                    Some((entry.tools, offered))
                });
                started.push(Started {
                    name: name.clone(),
                    id,
                    outcome,
                    lookup,
                });
            }
        }

        for server in &mut started {
            let _ =
                tokio::time::timeout_at(deadline, server.outcome.wait_for(Option::is_some)).await;
        }
        // The cache had the whole gate to answer; a store that is still busy counts as a miss.
        // Servers that already finished need no cached tools: their lookup is not waited for.
        let mut cached = HashMap::new();
        let mut prebuilt = Prebuilt::new();
        for server in &mut started {
            if server.outcome.borrow().is_some() {
                server.lookup.abort();
                continue;
            }
            let grace = deadline.max(Instant::now()) + Duration::from_millis(50);
            match tokio::time::timeout_at(grace, &mut server.lookup).await {
                Ok(Ok(Some(found))) => {
                    cached.insert(server.name.clone(), found);
                }
                Ok(_) => {}
                // Not left running past the gate.
                Err(_) => server.lookup.abort(),
            }
        }
        {
            let mut gate = lock(&gate);
            let mut state = inner.lock();
            for server in &started {
                if server.outcome.borrow().is_some() {
                    continue;
                }
                // Served on demand: its live tools were built with the lookup.
                let served = state
                    .on_demand
                    .get(&server.name)
                    .is_some_and(|served| served.id == server.id);
                if served {
                    if let Some((_, offered)) = cached.remove(&server.name) {
                        prebuilt.insert(server.name.clone(), (server.id, offered));
                    }
                    continue;
                }
                // Disconnected meanwhile (or replaced by a newer attempt): nothing to offer.
                let still_pending = state
                    .pending
                    .get(&server.name)
                    .is_some_and(|pending| pending.id == server.id);
                if !still_pending {
                    continue;
                }
                let required = servers
                    .get(&server.name)
                    .is_some_and(|server| server.config.required());
                match cached.remove(&server.name).filter(|_| !required) {
                    Some((tools, offered)) => {
                        // Deferred tools: the server finishes in the background.
                        if let btree_map::Entry::Vacant(entry) =
                            state.tools.entry(server.name.clone())
                        {
                            entry.insert(tools);
                            prebuilt.insert(server.name.clone(), (server.id, offered));
                        }
                    }
                    None => {
                        gate.awaited.insert(server.name.clone());
                    }
                }
            }
            gate.passed = true;
        }

        let mut errors = Vec::new();
        for Started {
            name, mut outcome, ..
        } in started
        {
            let awaited = lock(&gate).awaited.contains(&name);
            if awaited {
                let _ = outcome.wait_for(Option::is_some).await;
            }
            if let Some(Err(error)) = outcome.borrow().clone() {
                errors.push(error);
            }
        }
        ConnectOutcome {
            tools: self.tools_with(prebuilt),
            errors,
        }
    }
}

impl Inner {
    /// Registers a pending connection and starts its pipeline; `None` when the server is
    /// already connected or connecting. `remembered` brings what the cache lookup found, waited
    /// for until the instant given at most.
    fn start(
        self: &Arc<Self>,
        name: &str,
        config: &ServerConfig,
        fingerprint: &Fingerprint,
        gate: &Arc<Mutex<Gate>>,
        remembered: Option<(oneshot::Receiver<Remembered>, Instant)>,
    ) -> Option<(u64, watch::Receiver<Outcome>)> {
        let (outcome_tx, outcome_rx) = watch::channel(None);
        let cancel = CancellationToken::new();
        let id = {
            let mut state = self.lock();
            // Served on demand counts as connected.
            if state.connections.contains_key(name)
                || state.pending.contains_key(name)
                || state.on_demand.contains_key(name)
            {
                return None;
            }
            state.failures.remove(name);
            state.configs.insert(name.to_owned(), config.clone());
            state
                .fingerprints
                .insert(name.to_owned(), fingerprint.clone());
            state.add_pending(name, &cancel, &outcome_rx)
        };
        self.emit(ManagerEvent::StatusChanged {
            server: name.to_owned(),
            status: ConnectionStatus::Connecting,
        });
        let inner = Arc::clone(self);
        let (server, config, gate) = (name.to_owned(), config.clone(), Arc::clone(gate));
        let span = tracing::info_span!("mcp_server", server = %name);
        let task = tokio::spawn(
            async move {
                let remembered = tokio::select! {
                    remembered = Self::remembered(remembered) => remembered,
                    () = cancel.cancelled() => return,
                };
                let plan = match remembered {
                    Remembered::OnDemand { tools, listing } => {
                        inner.serve_on_demand(&server, id, tools, listing, &gate);
                        return;
                    }
                    Remembered::Connect(version) => Plan {
                        remembered: version,
                        fresh_until: None,
                    },
                };
                let result = tokio::select! {
                    result = inner.connect_and_load(&server, &config, plan) => result,
                    () = cancel.cancelled() => return,
                };
                inner
                    .finish(&server, &config, id, result, &gate, &outcome_tx)
                    .await;
            }
            .instrument(span),
        );
        if let Some(pending) = self.lock().pending.get_mut(name).filter(|p| p.id == id) {
            pending.task = Some(task);
        }
        Some((id, outcome_rx))
    }

    /// What the cache lookup found, if it answers by `deadline`; else nothing is remembered.
    async fn remembered(from: Option<(oneshot::Receiver<Remembered>, Instant)>) -> Remembered {
        let Some((receiver, deadline)) = from else {
            return Remembered::Connect(None);
        };
        match tokio::time::timeout_at(deadline, receiver).await {
            Ok(Ok(remembered)) => remembered,
            _ => Remembered::Connect(None),
        }
    }

    /// Whether a server whose cache entry was listed as `listing` is served on demand: a
    /// stateless server whose list is fresh at `now`, that is not `required` and that the agent
    /// does not pin to another version.
    pub(crate) fn serves_on_demand(
        &self,
        config: &ServerConfig,
        listing: &Listing,
        now: SystemTime,
    ) -> bool {
        let Some(version) = listing.protocol_version else {
            return false;
        };
        version.is_stateless()
            && listing.is_fresh_at(now)
            && !config.required()
            && self
                .options
                .client
                .protocol_version
                .is_none_or(|pinned| pinned == version)
    }

    /// Keeps the protocol version the cache remembers for a server not connected yet.
    fn remember_protocol(&self, name: &str, version: Option<ProtocolVersion>) {
        if let Some(version) = version {
            let mut state = self.lock();
            if !state.connections.contains_key(name) {
                state.protocols.insert(name.to_owned(), version);
            }
        }
    }

    /// The cache found a stateless server's list fresh: its tools are served on demand (live,
    /// and no request sent) instead of connecting now. Late (after the gate answered), it is
    /// told as a change of tools.
    fn serve_on_demand(
        &self,
        name: &str,
        id: u64,
        tools: Vec<Tool>,
        listing: Listing,
        gate: &Mutex<Gate>,
    ) {
        let late = {
            let gate = lock(gate);
            let late = gate.passed && !gate.awaited.contains(name);
            let mut state = self.lock();
            if state
                .pending
                .get(name)
                .is_none_or(|pending| pending.id != id)
            {
                // Disconnected meanwhile.
                return;
            }
            state.pending.remove(name);
            state.tool_loads.remove(name);
            state.failures.remove(name);
            state.tools.insert(name.to_owned(), tools);
            state
                .on_demand
                .insert(name.to_owned(), OnDemand { id, listing });
            if let Some(version) = listing.protocol_version {
                state.protocols.insert(name.to_owned(), version);
            }
            self.emit(ManagerEvent::StatusChanged {
                server: name.to_owned(),
                status: ConnectionStatus::Connected,
            });
            late
        };
        tracing::debug!(
            server = name,
            fresh_for_ms = listing
                .fresh_until()
                .and_then(|until| until.duration_since(SystemTime::now()).ok())
                .map_or(0, |left| left.as_millis()),
            "the cached tool list is fresh: served on demand, connected at first use"
        );
        if late {
            self.emit(ManagerEvent::ToolsChanged {
                server: name.to_owned(),
            });
        }
    }

    /// Connects a server served on demand, at its first use: pinned to the version the cache
    /// remembers, without listing its tools again while they are fresh. `None` when it is not
    /// served on demand any more; the outcome of an attempt already under way if there is one.
    pub(crate) fn connect_on_demand(
        self: &Arc<Self>,
        name: &str,
    ) -> Option<watch::Receiver<Outcome>> {
        let (outcome_tx, outcome_rx) = watch::channel(None);
        let cancel = CancellationToken::new();
        let (id, config, listing) = {
            let mut state = self.lock();
            if let Some(pending) = state.pending.get(name) {
                return Some(pending.outcome.clone());
            }
            let listing = state.on_demand.get(name)?.listing;
            let config = state.configs.get(name)?.clone();
            (
                state.add_pending(name, &cancel, &outcome_rx),
                config,
                listing,
            )
        };
        tracing::debug!(
            server = name,
            "connecting a server served on demand, at its first use"
        );
        let inner = Arc::clone(self);
        let server = name.to_owned();
        let span = tracing::info_span!("mcp_server", server = %name);
        let task = tokio::spawn(
            async move {
                let plan = Plan {
                    remembered: listing.protocol_version,
                    fresh_until: listing.fresh_until(),
                };
                let result = tokio::select! {
                    result = inner.connect_and_load(&server, &config, plan) => result,
                    () = cancel.cancelled() => return,
                };
                let gate = Mutex::new(Gate::passed());
                inner
                    .finish(&server, &config, id, result, &gate, &outcome_tx)
                    .await;
            }
            .instrument(span),
        );
        if let Some(pending) = self.lock().pending.get_mut(name).filter(|p| p.id == id) {
            pending.task = Some(task);
        }
        Some(outcome_rx)
    }

    /// Connects with the protocol version the cache remembers (unless the options pin one), and
    /// once more without it when the server refuses it as a server of the other era would. A
    /// pinned attempt that times out cannot tell: the entry is dropped, so that the next start
    /// probes instead of believing it again.
    async fn connect_remembering(
        &self,
        name: &str,
        config: &ServerConfig,
        context: ConnectContext<'_>,
        options: ClientOptions,
        remembered: Option<ProtocolVersion>,
        deadline: Instant,
    ) -> Result<McpClient, ServerError> {
        let Some(version) = remembered.filter(|_| options.protocol_version.is_none()) else {
            return Ok(connect_client(name, config, context, options).await?);
        };
        let pinned = options.clone().protocol_version(version);
        match connect_client(name, config, context, pinned).await {
            Err(ManagerError::Client(error)) if refuses_era(&error) => {
                tracing::info!(
                    server = name,
                    remembered = %version,
                    %error,
                    "the server refused the protocol version the cache remembers; probing its era again"
                );
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return Err(ManagerError::Client(error).into());
                }
                let unpinned = options.connect_timeout(left);
                Ok(connect_client(name, config, context, unpinned).await?)
            }
            Err(ManagerError::Client(error)) if error.is_timeout() => {
                self.cache.remove(name).await;
                Err(ManagerError::Client(error).into())
            }
            connected => Ok(connected?),
        }
    }

    /// Validate, resolve, connect, list tools: all within the server's own timeout.
    pub(crate) async fn connect_and_load(
        self: &Arc<Self>,
        name: &str,
        config: &ServerConfig,
        plan: Plan,
    ) -> Result<Loaded, ServerError> {
        // At most so many servers start at once: on a small machine a hundred processes
        // spawned together would not finish their handshakes within their timeouts. The
        // permit is held until the tools are listed.
        let _starting = self.connect_permits.acquire().await.ok();
        // The server's timeout bounds the whole connection, tool listing included, from its
        // start (not from when it was queued): a server the gate awaits (no cache entry) holds
        // the session up no longer than that once it starts.
        let own = Duration::from_millis(config.timeout_ms());
        let connect_timeout = self
            .options
            .connect_timeout_cap
            .map_or(own, |cap| own.min(cap));
        let deadline = Instant::now() + connect_timeout;
        let options = self
            .client_options(name, config)
            .connect_timeout(connect_timeout);
        let source = self.lock().sources.get(name).cloned();
        let context = ConnectContext {
            storage: self.auth.as_deref(),
            oauth: &self.options.credentials,
            login: None,
            max_message_bytes: self.options.max_message_bytes,
            launcher: self.options.launcher.as_ref(),
            source: source.as_ref(),
        };
        let client = self
            .connect_remembering(name, config, context, options, plan.remembered, deadline)
            .await?;
        let client = Arc::new(client);
        // Subscribed before listing: a list change from now on is not missed, even one that
        // comes while the list is being cached and the connection registered.
        let notifications = client.subscribe();
        {
            let mut state = self.lock();
            // Not for a server disconnected meanwhile: its status would stay "connecting".
            if state.pending.contains_key(name) {
                state.tool_loads.insert(name.to_owned());
            }
        }
        // Served on demand until now, in the era remembered, with the list still fresh.
        let still_fresh = plan
            .fresh_until
            .is_some_and(|until| SystemTime::now() < until)
            && plan.remembered == Some(client.protocol_version());
        if still_fresh {
            return Ok(Loaded {
                listing: Listing::new(client.protocol_version()),
                client,
                tools: None,
                notifications,
            });
        }
        // A server without the tools capability (prompts or resources only) has no tools to
        // list: it is connected with none.
        let offers_tools = client.capabilities().tools.is_some();
        let listing = async {
            if offers_tools {
                let list = client.list_tools_with_ttl().await?;
                Ok((list.tools, list.ttl))
            } else {
                Ok((Vec::new(), None))
            }
        };
        let listed = match tokio::time::timeout_at(deadline, listing).await {
            Ok(listed) => listed,
            Err(_) => Err(mcp_transport::Error::ConnectTimeout {
                server: name.to_owned(),
                after: connect_timeout,
            }),
        };
        match listed {
            Ok((tools, ttl)) => Ok(Loaded {
                listing: listing_of(&client, ttl),
                client,
                tools: Some(crate::manager::offered(config, tools)),
                notifications,
            }),
            Err(error) => {
                let _ = client.close().await;
                Err(error.into())
            }
        }
    }

    /// Records a pipeline's result: the connection and its tools (written to the cache), or
    /// the failure; late ones (after the gate answered) are also events.
    pub(crate) async fn finish(
        self: &Arc<Self>,
        name: &str,
        config: &ServerConfig,
        id: u64,
        result: Result<Loaded, ServerError>,
        gate: &Mutex<Gate>,
        outcome: &watch::Sender<Outcome>,
    ) {
        if let Ok(Loaded {
            tools: Some(tools),
            listing,
            ..
        }) = &result
        {
            self.cache_tools(name, config, tools, listing).await;
        }
        // The gate's lock is held until the result is recorded and published, so the gate
        // sees either a pending server or its outcome: a result the gate did not see is late.
        let (late, published) = {
            let gate = lock(gate);
            let late = gate.passed && !gate.awaited.contains(name);
            let mut state = self.lock();
            let published = if state
                .pending
                .get(name)
                .is_none_or(|pending| pending.id != id)
            {
                // Disconnected meanwhile: the result is not wanted.
                Published::Unwanted(result.ok().map(|loaded| loaded.client))
            } else {
                state.pending.remove(name);
                state.tool_loads.remove(name);
                match result {
                    Ok(loaded) => {
                        state.failures.remove(name);
                        state.on_demand.remove(name);
                        state
                            .protocols
                            .insert(name.to_owned(), loaded.client.protocol_version());
                        // Not listed: the tools held (served on demand) are still fresh.
                        if let Some(tools) = loaded.tools {
                            state.tools.insert(name.to_owned(), tools);
                        }
                        let watcher = tokio::spawn(crate::manager::watch_connection(
                            Arc::downgrade(self),
                            name.to_owned(),
                            config.clone(),
                            Arc::clone(&loaded.client),
                            loaded.notifications,
                        ));
                        state.connections.insert(
                            name.to_owned(),
                            Connection {
                                client: Arc::clone(&loaded.client),
                                watcher,
                            },
                        );
                        // The status event comes before the outcome: a caller of the gate has
                        // it by the time `connect_servers` returns.
                        self.emit(ManagerEvent::StatusChanged {
                            server: name.to_owned(),
                            status: ConnectionStatus::Connected,
                        });
                        outcome.send_replace(Some(Ok(loaded.client)));
                        Published::Connected
                    }
                    Err(error) => {
                        state.failures.insert(name.to_owned(), error.clone());
                        state.on_demand.remove(name);
                        let had_tools = state.tools.remove(name).is_some();
                        self.emit(ManagerEvent::StatusChanged {
                            server: name.to_owned(),
                            status: ConnectionStatus::not_connected(error.clone()),
                        });
                        outcome.send_replace(Some(Err(error.clone())));
                        Published::Failed { error, had_tools }
                    }
                }
            };
            (late, published)
        };
        match published {
            Published::Unwanted(unwanted) => {
                if let Some(client) = unwanted {
                    let _ = client.close().await;
                }
            }
            Published::Connected => {
                if late {
                    self.emit(ManagerEvent::ToolsChanged {
                        server: name.to_owned(),
                    });
                }
            }
            Published::Failed { error, had_tools } => {
                if late {
                    // Told through `ManagerEvent::LateError` and the status: a log line is for
                    // tracing, not for the user.
                    tracing::info!(server = name, %error, "MCP server failed after startup");
                    if had_tools {
                        self.emit(ManagerEvent::ToolsChanged {
                            server: name.to_owned(),
                        });
                    }
                    self.emit(ManagerEvent::LateError {
                        server: name.to_owned(),
                        error,
                    });
                }
            }
        }
    }
}

/// Whether `error`, from a connection pinned to the protocol version the cache remembers, is
/// how a server of the other era fails it: it named the versions it speaks, refused the opening
/// request (`initialize`, `server/discover`) with an error, or refused it at the HTTP level (a
/// 4xx other than one asking for a login). Not a timeout, a login, a server that could not be
/// started or that died: connecting again without the pin would fail the same way.
fn refuses_era(error: &mcp_transport::Error) -> bool {
    match error {
        mcp_transport::Error::UnsupportedProtocolVersion { .. } => true,
        mcp_transport::Error::Request {
            operation,
            source: RpcError::Server(_),
            ..
        } => operation == methods::INITIALIZE || operation == methods::SERVER_DISCOVER,
        _ => {
            !error.needs_login()
                && matches!(
                    error.transport_error(),
                    Some(TransportError::HttpStatus {
                        status: 400..=499,
                        ..
                    })
                )
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::expect_used, clippy::unwrap_used)]

    use mcp_cache::{MemoryToolCache, ToolCache};
    use mcp_config::{Level, SourceMeta};
    use serde_json::json;
    use testkit::FixtureServer;

    use super::*;
    use crate::manager::ManagerOptions;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn cached_tools_at_the_gate_are_defined_as_a_later_listing_defines_them() {
        let (program, args) = FixtureServer::new().delay("tools/list", 3000).command();
        let config = ServerConfig::stdio(program.to_string_lossy(), args);
        let source = SourceMeta::new("test", "Test", "test.json", Level::User);
        let server = DiscoveredServer::new(config, source);
        let tools: Vec<Tool> = serde_json::from_value(json!([
            {"name": "echo", "description": "Echoes.",
             "inputSchema": {"$schema": "x", "type": "object", "zeta": 1, "alpha": 2}},
            {"name": "titled", "title": "Only a title", "description": " ",
             "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}}}},
            {"name": "echo_", "x-vendor": true},
            // The same name once sanitized: one of them is named with a hash at the answer.
            {"name": "a.b"},
            {"name": "a-b"},
        ]))
        .unwrap();
        let cache = Arc::new(MemoryToolCache::default());
        cache
            .set("slow.server", &Fingerprint::of(&server.definition), &tools)
            .await;
        let manager = McpManager::new(ManagerOptions::default(), cache, None);
        let servers = BTreeMap::from([("slow.server".to_owned(), server)]);

        let at_gate =
            tokio::time::timeout(Duration::from_secs(30), manager.connect_servers(&servers))
                .await
                .expect("the gate answers")
                .tools;
        // The answer took the tools built while the gate waited; the server is still listing,
        // so this call builds every one afresh.
        let later = manager.tools();

        assert_eq!(at_gate.len(), tools.len());
        assert_eq!(later.len(), tools.len());
        for (gate, fresh) in at_gate.iter().zip(&later) {
            assert!(gate.deferred && fresh.deferred);
            assert_eq!(gate.server, fresh.server);
            assert_eq!(gate.original_name, fresh.original_name);
            assert_eq!(gate.tool.name(), fresh.tool.name());
            assert_eq!(gate.tool.label(), fresh.tool.label());
            assert_eq!(gate.tool.description(), fresh.tool.description());
            assert_eq!(gate.tool.parameters(), fresh.tool.parameters());
        }
        let mut names: Vec<&str> = at_gate.iter().map(|tool| tool.tool.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), tools.len(), "{names:?}");
        manager.disconnect_all().await;
    }
}
