//! [`ManagerOptions`]: how the manager connects its servers — the startup gate, the client
//! options, the credential store, how many servers start at once, reconnection, the
//! health ping, the output budget, and the [`Connector`]s that turn a configuration into a
//! connected client.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use mcp_bridge::OutputBudget;
use mcp_transport::ClientOptions;
#[cfg(feature = "stdio")]
use mcp_transport::Launcher;
use mcp_transport::credentials::{CredentialStore, MemoryCredentialStore};
use mcp_transport::framing::DEFAULT_MAX_MESSAGE_BYTES;

use crate::connector::{ConnectContext, Connector, Connectors};
use crate::policies::{HealthCheck, ReconnectPolicy};
use mcp_config::SourceMeta;

/// How the manager connects.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ManagerOptions {
    /// How long `connect_servers` waits before answering with what is ready (and cached tools
    /// for the rest). Default 250 ms.
    pub startup_timeout: Duration,
    /// Whether `connect_servers` waits past the startup timeout for a server still connecting
    /// that has no cached tools to offer (each bounded by its own timeout), so its tools are in
    /// the answer. Off, the answer comes at the startup timeout whatever is pending: such a
    /// server's tools arrive later, told by [`ManagerEvent::ToolsChanged`](crate::ManagerEvent),
    /// and its failure by `ManagerEvent::LateError`. A server whose entry says
    /// `"required": true` is awaited either way. Default: on.
    pub wait_for_uncached: bool,
    /// How every server is connected: the client name and version sent, the agent's roots
    /// (none by default; a server's own `roots` setting wins, see [`McpManager::set_roots`](crate::McpManager::set_roots)),
    /// the timeout of `tools/list` and of tool calls without their own (60 s by default). The
    /// connect timeout is each server's own (its `timeout`, 30 s by default).
    pub client: ClientOptions,
    /// The one credential store (the session's is a file in the user's config directory):
    /// OAuth logins to remote servers, kept and refreshed by server URL, and the tokens of stdio
    /// servers, by the command they run (see [`mcp_transport::credentials`]). An agent with a
    /// keychain of its own implements [`CredentialStore`] over it. Default: in memory, so a
    /// server that wants a login shows as needing one.
    pub credentials: Arc<dyn CredentialStore>,
    /// The longest message accepted from a server whose entry sets no `maxMessageBytes`
    /// (32 MiB by default). A longer answer fails its own call; the connection lives on.
    pub max_message_bytes: usize,
    /// How a connection that died is made again (on by default: 5 attempts, 0.5 s doubling to
    /// at most 30 s, 20% jitter).
    pub reconnect: ReconnectPolicy,
    /// The health ping, off by default.
    pub health_check: Option<HealthCheck>,
    /// How many servers are started (spawned or dialled, handshake and tool listing) at once;
    /// the others wait their turn, and a server's timeout starts with its turn. Default: eight
    /// per CPU core, at least eight.
    pub max_parallel_starts: usize,
    /// What one tool result may cost the model's context (a server's `outputBudget` overrides
    /// the size); `None` lets results through whole. Default: 100 KiB, cut results not kept
    /// (a session keeps them in its own directory).
    pub output_budget: Option<OutputBudget>,
    /// The program stdio servers are started through (see [`Launcher`]); `None`, the default,
    /// starts them directly. The `agent-session` CLI uses its own, so that its servers, and
    /// whatever they start, however it detaches, die with it even when it is killed with
    /// SIGKILL.
    #[cfg(feature = "stdio")]
    pub launcher: Option<Launcher>,
    /// The longest any server may take to connect and list its tools, whatever its own
    /// `timeout` says (a shorter one still applies); `None`, the default, leaves each server's
    /// own. A one-shot command that must answer in time (`list --timeout-ms`) sets it.
    pub connect_timeout_cap: Option<Duration>,
    /// The connectors of transport plugins, by the `type` their config entries name (see
    /// [`Connector`]); stdio, `http` and `sse` are always connected by the built-in one.
    pub connectors: Connectors,
    /// The agent's working folder: where a stdio server of the user's own files starts, and
    /// what a relative `cwd` of its entry is taken from. A project server starts in its own
    /// project folder instead (the folder its approval is recorded under), so the code an
    /// approval ran is the same from every subfolder. `None`, the default: this process's
    /// folder. The loader and the session set it to the folder they discover from.
    pub working_dir: Option<PathBuf>,
}

impl Default for ManagerOptions {
    fn default() -> Self {
        Self {
            startup_timeout: DEFAULT_STARTUP_TIMEOUT,
            wait_for_uncached: true,
            client: ClientOptions::default(),
            credentials: Arc::new(MemoryCredentialStore::new()),
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            reconnect: ReconnectPolicy::default(),
            health_check: None,
            max_parallel_starts: std::thread::available_parallelism()
                .map_or(8, |cores| cores.get() * 8)
                .max(8),
            output_budget: Some(OutputBudget::default()),
            #[cfg(feature = "stdio")]
            launcher: None,
            connect_timeout_cap: None,
            connectors: Connectors::default(),
            working_dir: None,
        }
    }
}

/// How long the startup gate waits by default.
const DEFAULT_STARTUP_TIMEOUT: Duration = Duration::from_millis(250);

impl ManagerOptions {
    /// Sets the startup gate.
    #[must_use]
    pub fn startup_timeout(mut self, timeout: Duration) -> Self {
        self.startup_timeout = timeout;
        self
    }

    /// Sets whether the startup gate waits for servers without cached tools (see
    /// [`wait_for_uncached`](Self::wait_for_uncached)).
    #[must_use]
    pub fn wait_for_uncached(mut self, wait: bool) -> Self {
        self.wait_for_uncached = wait;
        self
    }

    /// Sets how servers are connected.
    #[must_use]
    pub fn client(mut self, options: ClientOptions) -> Self {
        self.client = options;
        self
    }

    /// Starts stdio servers through `launcher`.
    #[must_use]
    #[cfg(feature = "stdio")]
    pub fn launcher(mut self, launcher: Option<Launcher>) -> Self {
        self.launcher = launcher;
        self
    }

    /// Starts at most `count` servers at once.
    #[must_use]
    pub fn max_parallel_starts(mut self, count: usize) -> Self {
        self.max_parallel_starts = count;
        self
    }

    /// How dead connections are made again.
    #[must_use]
    pub fn reconnect(mut self, policy: ReconnectPolicy) -> Self {
        self.reconnect = policy;
        self
    }

    /// Pings every connected server as `check` says; one that does not answer is restarted.
    #[must_use]
    pub fn health_check(mut self, check: HealthCheck) -> Self {
        self.health_check = Some(check);
        self
    }

    /// The longest message accepted from servers that do not set their own limit.
    #[must_use]
    pub fn max_message_bytes(mut self, bytes: usize) -> Self {
        self.max_message_bytes = bytes;
        self
    }

    /// Connects the config entries whose `type` is `kind` (one no built-in transport knows,
    /// e.g. `"unix"`) through `connector`, replacing any connector registered for it before.
    #[must_use]
    pub fn connector(mut self, kind: impl Into<String>, connector: Arc<dyn Connector>) -> Self {
        self.connectors.register(kind, connector);
        self
    }

    /// Starts stdio servers of the user's own files in `folder` (see
    /// [`working_dir`](Self::working_dir)).
    #[must_use]
    pub fn working_dir(mut self, folder: impl Into<PathBuf>) -> Self {
        self.working_dir = Some(folder.into());
        self
    }

    /// Reads and keeps credentials in `store`.
    #[must_use]
    pub fn credentials(mut self, store: Arc<dyn CredentialStore>) -> Self {
        self.credentials = store;
        self
    }
}

impl ManagerOptions {
    /// What a connection made in the background is made with: nobody to ask for a login.
    pub(crate) fn connect_context<'a>(
        &'a self,
        source: Option<&'a SourceMeta>,
    ) -> ConnectContext<'a> {
        ConnectContext {
            credentials: &self.credentials,
            #[cfg(feature = "oauth")]
            login: None,
            max_message_bytes: self.max_message_bytes,
            #[cfg(feature = "stdio")]
            launcher: self.launcher.as_ref(),
            source,
            connectors: &self.connectors,
            working_dir: self.working_dir.as_deref(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_are_a_250_ms_gate_and_the_clients_own() {
        let options = ManagerOptions::default();
        assert_eq!(options.startup_timeout, Duration::from_millis(250));
        assert_eq!(options.client.connect_timeout, Duration::from_secs(30));
        assert_eq!(
            options.client.request_timeout,
            Some(Duration::from_secs(60))
        );
    }
}
