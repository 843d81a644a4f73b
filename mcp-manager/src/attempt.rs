//! An attempt to connect a server, begun one way for a start, a first use and a reconnect
//! ([`Inner::begin_attempt`]): its task does the attempt's [`Work`] and publishes its
//! [`Progress`] on the watch the attempt owns, then records the result
//! ([`Inner::finish`]).
//!
//! A start looks in the cache first, within the startup gate: an entry's protocol version is
//! what the connection is pinned to and its tools are offered (deferred) while the server
//! connects. A stateless server (2026-07-28) whose cached tool list is still fresh (within the
//! `ttlMs` it came with) is served **on demand**: at startup no request goes to it (for stdio,
//! no process is started), its tools are offered as live ones and it counts as connected. Its
//! connection is made at the first need — a tool call, its resources or prompts, a
//! [`crate::McpManager::wait_for_connection`] — pinned to the protocol version the cache
//! remembers; the list is not fetched again unless it went stale meanwhile (or the server's era
//! changed). Chosen over connecting in the background right after startup because that sends a
//! request (`server/discover`) the fresh list makes needless, and starts processes nobody may
//! use.

use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use mcp_bridge::ConnectionProvider;
use mcp_bridge::naming::tool_name;
use mcp_cache::{CacheEntry, Listing};
use mcp_config::ServerConfig;
use mcp_transport::Tool;
use tokio::sync::watch;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use crate::cache_key::CacheKey;
use crate::error::ServerError;
use crate::gate::Gate;
use crate::inner::{Inner, lock};
use crate::offer::{ManagedTool, Offer, Reach, budget_of};
use crate::pipeline::{Loaded, Plan};
use crate::server::{Attempt, Offered, Progress, ServerState};
use crate::status::{ConnectionStatus, ManagerEvent};

/// What an attempt's task does to make its connection.
pub(crate) enum Work {
    /// A start: look in the cache first (within the gate's `deadline`), offering its tools
    /// while the connection is made, or serving the server on demand from them; `gate` is the
    /// startup gate waiting for the result.
    Start {
        cache_key: CacheKey,
        gate: Arc<Mutex<Gate>>,
        deadline: Instant,
    },
    /// The first use of a server served on demand: connect as its cached listing says.
    FirstUse(Plan),
    /// A connection that died: made again with the policy's backoff (see
    /// [`crate::reconnect`]); `cause` is why it died.
    Reconnect { cause: ServerError },
}

impl Inner {
    /// The one way an attempt to connect `name` begins, for a start, a first use and a
    /// reconnect alike: its task is spawned (the caller holds the state and records the
    /// attempt before the task can look at it) and does `work`, publishing its [`Progress`]
    /// on the attempt's watch, and records its result through [`Inner::finish`].
    pub(crate) fn begin_attempt(
        self: &Arc<Self>,
        id: u64,
        name: &str,
        config: &ServerConfig,
        work: Work,
    ) -> Attempt {
        let first = match work {
            Work::Start { .. } => Progress::LookingUp,
            Work::FirstUse(_) | Work::Reconnect { .. } => Progress::Connecting { cached: false },
        };
        let (progress_tx, progress) = watch::channel(first);
        let cancel = CancellationToken::new();
        let inner = Arc::clone(self);
        let (server, config, cancelled) = (name.to_owned(), config.clone(), cancel.clone());
        let span = tracing::info_span!("mcp_server", server = %name);
        let task = tokio::spawn(
            async move {
                inner
                    .run_attempt(&server, &config, id, work, &cancelled, &progress_tx)
                    .await;
            }
            .instrument(span),
        );
        Attempt {
            id,
            cancel,
            progress,
            task,
        }
    }

    /// What an attempt's task does: `work`, then the result recorded. Cancelled, it stops
    /// before a connection is made; a connection made is recorded (or closed, if the attempt
    /// is no longer the server's).
    async fn run_attempt(
        self: &Arc<Self>,
        name: &str,
        config: &ServerConfig,
        id: u64,
        work: Work,
        cancel: &CancellationToken,
        progress: &watch::Sender<Progress>,
    ) {
        match work {
            Work::Start {
                cache_key,
                gate,
                deadline,
            } => {
                let looked_up = tokio::select! {
                    found = self.look_up(name, &cache_key, deadline) => found,
                    () = cancel.cancelled() => return,
                };
                let plan = match looked_up {
                    None => {
                        progress.send_replace(Progress::Connecting { cached: false });
                        Plan::default()
                    }
                    Some(entry)
                        if self.serves_on_demand(config, &entry.listing, SystemTime::now()) =>
                    {
                        self.serve_on_demand(name, config, id, entry, &gate, progress);
                        return;
                    }
                    Some(entry) => self.offer_cached(name, config, id, entry, &gate, progress),
                };
                let result = tokio::select! {
                    result = self.connect_and_load(name, config, plan) => result,
                    () = cancel.cancelled() => return,
                };
                self.finish(name, config, id, result, Some(&gate), progress)
                    .await;
            }
            Work::FirstUse(plan) => {
                let result = tokio::select! {
                    result = self.connect_and_load(name, config, plan) => result,
                    () = cancel.cancelled() => return,
                };
                self.finish(name, config, id, result, None, progress).await;
            }
            Work::Reconnect { cause } => {
                tokio::select! {
                    () = self.reconnect(name, config, id, cause, progress) => {}
                    () = cancel.cancelled() => {}
                }
            }
        }
    }

    /// The cache's entry for `name` under its key, if the store answers by `deadline` (a
    /// store still busy then counts as a miss).
    async fn look_up(&self, name: &str, key: &CacheKey, deadline: Instant) -> Option<CacheEntry> {
        let lookup = async {
            let fingerprint = key.fingerprint(&*self.options.credentials).await;
            self.cache.lookup_entry(name, &fingerprint).await.ok()
        };
        tokio::time::timeout_at(deadline, lookup)
            .await
            .ok()
            .flatten()
    }

    /// Runs the pipeline for `name` with its source and client options.
    pub(crate) async fn connect_and_load(
        &self,
        name: &str,
        config: &ServerConfig,
        plan: Plan,
    ) -> Result<Loaded, ServerError> {
        let source = self.lock().servers.get(name).and_then(|record| {
            record
                .source
                .as_ref()
                .map(|source| Arc::clone(&source.meta))
        });
        let options = self.client_options(name, config);
        self.pipeline()
            .connect_and_load(name, config, source.as_deref(), options, plan)
            .await
    }

    /// Whether a server whose cache entry was listed as `listing` is served on demand: a
    /// stateless server whose list is fresh at `now`, that is not `required` and that the agent
    /// does not pin to another version.
    fn serves_on_demand(&self, config: &ServerConfig, listing: &Listing, now: SystemTime) -> bool {
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

    /// The cache has tools for a server being started: they are offered (deferred) while it
    /// connects, with what the cache remembers of it (its version, its instructions, its
    /// skills), unless it is `required` (the gate waits for it). The plan of the connection: pinned to the version
    /// the cache remembers.
    fn offer_cached(
        self: &Arc<Self>,
        name: &str,
        config: &ServerConfig,
        id: u64,
        entry: CacheEntry,
        gate: &Mutex<Gate>,
        progress: &watch::Sender<Progress>,
    ) -> Plan {
        let CacheEntry {
            tools, mut listing, ..
        } = entry;
        let plan = Plan {
            remembered: listing.protocol_version,
            fresh_until: None,
        };
        let cached = !config.required();
        // Built now, while the gate waits, rather than at its answer.
        let built = if cached {
            self.build_offer(name, config, &tools, Reach::Deferred)
        } else {
            Vec::new()
        };
        let late = {
            // As a result is, under the gate's lock: the gate sees the lookup over or not.
            let gate = lock(gate);
            let mut state = self.lock();
            let Some(ServerState::Starting { cached: slot, .. }) =
                state.serving_mut(name, id).map(|record| &mut record.state)
            else {
                return plan;
            };
            if cached {
                *slot = Some(Offered::cached(tools, &mut listing, built));
            }
            progress.send_replace(Progress::Connecting { cached });
            cached && gate.is_late(name)
        };
        if late {
            self.emit(ManagerEvent::ToolsChanged {
                server: name.to_owned(),
            });
        }
        plan
    }

    /// The cache found a stateless server's list fresh: its tools are served on demand (live,
    /// and no request sent) instead of connecting now. Late (after the gate answered), it is
    /// told as a change of tools.
    fn serve_on_demand(
        self: &Arc<Self>,
        name: &str,
        config: &ServerConfig,
        id: u64,
        entry: CacheEntry,
        gate: &Mutex<Gate>,
        progress: &watch::Sender<Progress>,
    ) {
        let CacheEntry {
            tools, mut listing, ..
        } = entry;
        let fresh_until = listing.fresh_until();
        let built = self.build_offer(name, config, &tools, Reach::OnDemand);
        let late = {
            let gate = lock(gate);
            let mut state = self.lock();
            let Some(record) = state.serving_mut(name, id) else {
                // Disconnected meanwhile.
                return;
            };
            record.state = ServerState::OnDemand {
                offered: Offered::cached(tools, &mut listing, built),
                listing,
                connecting: None,
            };
            self.emit(ManagerEvent::StatusChanged {
                server: name.to_owned(),
                status: ConnectionStatus::Connected,
            });
            progress.send_replace(Progress::OnDemand);
            gate.is_late(name)
        };
        tracing::debug!(
            server = name,
            fresh_for_ms = fresh_until
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

    /// `tools` of `name` as the manager offers them, reaching the server as `reach` says, each
    /// under the name it has when no other server's tool takes it (see [`Offered::built`]).
    fn build_offer(
        self: &Arc<Self>,
        name: &str,
        config: &ServerConfig,
        tools: &[Tool],
        reach: Reach<'_>,
    ) -> Vec<ManagedTool> {
        let source = self
            .lock()
            .servers
            .get(name)
            .and_then(|record| record.source.clone());
        let provider = Arc::clone(self) as Arc<dyn ConnectionProvider>;
        let offer = Offer {
            server: name,
            config,
            source: source.as_ref(),
            budget: budget_of(self.options.output_budget.as_ref(), config),
            reach,
            provider: &provider,
        };
        tools
            .iter()
            .map(|tool| offer.tool(tool_name(name, &tool.name), tool))
            .collect()
    }

    /// Connects a server served on demand, at its first use: pinned to the version the cache
    /// remembers, without listing its tools again while they are fresh. The progress of the
    /// attempt under way (this one, or one already started); `None` when the server is neither
    /// served on demand nor connecting any more.
    pub(crate) fn connect_on_demand(
        self: &Arc<Self>,
        name: &str,
    ) -> Option<watch::Receiver<Progress>> {
        let mut state = self.lock();
        let record = state.servers.get(name)?;
        if let Some(attempt) = record.state.attempt() {
            return Some(attempt.progress.clone());
        }
        let ServerState::OnDemand { listing, .. } = &record.state else {
            return None;
        };
        let plan = Plan {
            remembered: listing.protocol_version,
            fresh_until: listing.fresh_until(),
        };
        let config = record.config.clone();
        let id = state.next_attempt_id();
        tracing::debug!(
            server = name,
            "connecting a server served on demand, at its first use"
        );
        let attempt = self.begin_attempt(id, name, &config, Work::FirstUse(plan));
        let progress = attempt.progress.clone();
        if let Some(ServerState::OnDemand { connecting, .. }) =
            state.servers.get_mut(name).map(|record| &mut record.state)
        {
            *connecting = Some(attempt);
        }
        Some(progress)
    }
}
