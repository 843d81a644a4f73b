//! The manager's insides, what every transition works on: one map of server records under one
//! lock ([`State`]), the event channel, the options and the tool cache, and the client options
//! a server is connected with. The transitions themselves are in [`crate::lifecycle`] (start,
//! wait, record a result), [`crate::attempt`] (an attempt's task), [`crate::reconnect`] and
//! [`crate::watcher`].

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};

use async_trait::async_trait;
use mcp_bridge::{ConnectionError, ConnectionProvider};
use mcp_cache::ToolCache;
use mcp_config::ServerConfig;
use mcp_transport::{ClientOptions, McpClient, Root};
use tokio::sync::{Semaphore, broadcast};

use crate::options::ManagerOptions;
use crate::pipeline::Pipeline;
use crate::roots::roots_for;
use crate::server::Server;
use crate::status::ManagerEvent;

/// What [`crate::McpManager`] shares with its tasks and deferred tools.
pub(crate) struct Inner {
    /// Itself, for the connection a call to a server served on demand starts.
    me: Weak<Inner>,
    pub(crate) options: ManagerOptions,
    pub(crate) cache: Arc<dyn ToolCache>,
    /// One permit per server being started ([`ManagerOptions::max_parallel_starts`]).
    connect_permits: Semaphore,
    state: Mutex<State>,
    events: broadcast::Sender<ManagerEvent>,
}

/// The manager's state.
#[derive(Default)]
pub(crate) struct State {
    /// Numbers attempts, so a result of an attempt that was replaced is told apart.
    next_id: u64,
    /// One record per server, by name.
    pub(crate) servers: BTreeMap<String, Server>,
    /// The roots set since the manager started, replacing those of the client options.
    pub(crate) roots: Option<Vec<Root>>,
}

impl State {
    /// The number of the next attempt.
    pub(crate) fn next_attempt_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    /// The record of `name` while it still serves attempt `id` (a step or a result of an
    /// attempt that was replaced, or of a server disconnected meanwhile, finds none).
    pub(crate) fn serving(&self, name: &str, id: u64) -> Option<&Server> {
        self.servers
            .get(name)
            .filter(|record| record.state.serves(id))
    }

    /// [`serving`](Self::serving), to change the record.
    pub(crate) fn serving_mut(&mut self, name: &str, id: u64) -> Option<&mut Server> {
        self.servers
            .get_mut(name)
            .filter(|record| record.state.serves(id))
    }
}

/// `mutex`'s guard, also after a panic elsewhere held it (the state stays usable).
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Inner {
    pub(crate) fn new(options: ManagerOptions, cache: Arc<dyn ToolCache>) -> Arc<Self> {
        Arc::new_cyclic(|me| Self {
            me: me.clone(),
            connect_permits: Semaphore::new(options.max_parallel_starts.max(1)),
            options,
            cache,
            state: Mutex::new(State::default()),
            events: broadcast::Sender::new(1024),
        })
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
        lock(&self.state)
    }

    pub(crate) fn emit(&self, event: ManagerEvent) {
        let _ = self.events.send(event);
    }

    pub(crate) fn subscribe(&self) -> broadcast::Receiver<ManagerEvent> {
        self.events.subscribe()
    }

    /// The manager's own handle on itself, while the manager lives.
    pub(crate) fn shared(&self) -> Option<Arc<Self>> {
        self.me.upgrade()
    }

    /// How one server is connected: the manager's options, cache and start permits.
    pub(crate) fn pipeline(&self) -> Pipeline<'_> {
        Pipeline {
            options: &self.options,
            cache: &*self.cache,
            permits: &self.connect_permits,
        }
    }

    /// The client options the server `name`, defined by `config`, is connected with: the
    /// manager's, with the roots chosen for this server (see [`crate::roots`]).
    pub(crate) fn client_options(&self, name: &str, config: &ServerConfig) -> ClientOptions {
        let mut options = self.options.client.clone();
        let (agent, base) = {
            let state = self.lock();
            let agent = state.roots.clone().or_else(|| options.roots.clone());
            let base = state
                .servers
                .get(name)
                .and_then(|server| server.source.as_ref())
                .and_then(|source| source.meta.path.parent())
                .map(Path::to_path_buf);
            (agent, base)
        };
        // Every server comes with the file it is defined in; one built in code without it has
        // its relative folders taken from this process's folder.
        let base = base.unwrap_or_else(|| std::env::current_dir().unwrap_or_default());
        options.roots = roots_for(config.roots(), agent, &base);
        options
    }
}

#[async_trait]
impl ConnectionProvider for Inner {
    async fn wait_for_connection(&self, server: &str) -> Result<Arc<McpClient>, ConnectionError> {
        self.wait(server)
            .await
            .map_err(|error| Arc::new(error) as ConnectionError)
    }
}
