//! Servers come back by themselves: a connection that dies after it was made (a crash, a kill,
//! a remote server gone, a server that stopped answering the health ping) is made again with
//! bounded exponential backoff and jitter ([`crate::ReconnectPolicy`]). Meanwhile the server's tools
//! stay as deferred tools, so a call waits for the server instead of failing; a call that was
//! in flight when it died has failed with the cause and is never sent again. When the attempts
//! are spent the server is `failed` with the last cause.
//!
//! Here live the manager's transitions when a connection dies on its own (its watcher, in
//! [`crate::watcher`], tells): [`Inner::connection_lost`], and the reconnect loop, an attempt's
//! work (see [`crate::attempt`]), which records its final result through `Inner::finish` like
//! any start.

use std::sync::Arc;

use mcp_config::ServerConfig;
use mcp_transport::{McpClient, Tool};
use tokio::sync::watch;

use crate::attempt::Work;
use crate::error::ServerError;
use crate::inner::Inner;
use crate::pipeline::Plan;
use crate::server::{Offered, Progress, ServerState};
use crate::status::{ConnectionStatus, ManagerEvent};

impl Inner {
    /// The connection `client` of `name` died on its own: it is reconnected if the policy
    /// allows, its tools kept (deferred) meanwhile; otherwise it is failed with `reason` and
    /// its tools are withdrawn.
    pub(crate) fn connection_lost(
        self: &Arc<Self>,
        name: &str,
        config: &ServerConfig,
        client: &Arc<McpClient>,
        reason: ServerError,
    ) {
        let policy = self.options.reconnect;
        let reconnect = policy.enabled
            && policy.max_attempts > 0
            && config.reconnect() != Some(false)
            // Only a login helps a server that wants one.
            && !reason.needs_login();
        {
            let mut state = self.lock();
            let id = reconnect.then(|| state.next_attempt_id());
            let Some(record) = state.servers.get_mut(name).filter(|record| {
                record
                    .state
                    .client()
                    .is_some_and(|c| Arc::ptr_eq(c, client))
            }) else {
                return;
            };
            // Told through the status (and the failed calls): a log line is for tracing.
            tracing::info!(server = name, %reason, "MCP server connection lost");
            let status = match id {
                Some(id) => {
                    let kept = Offered {
                        tools: record
                            .state
                            .tools()
                            .map(<[Tool]>::to_vec)
                            .unwrap_or_default(),
                        protocol: record.state.protocol(),
                        instructions: record.state.instructions().map(str::to_owned),
                        skills: record
                            .state
                            .skills()
                            .map(|(skills, _)| skills.to_vec())
                            .unwrap_or_default(),
                        built: Vec::new(),
                    };
                    let work = Work::Reconnect {
                        cause: reason.clone(),
                    };
                    record.state = ServerState::Reconnecting {
                        attempt: self.begin_attempt(id, name, config, work),
                        number: 1,
                        cause: reason.clone(),
                        kept,
                    };
                    ConnectionStatus::Reconnecting {
                        attempt: 1,
                        cause: reason,
                    }
                }
                None => {
                    record.state = ServerState::Failed(reason.clone());
                    ConnectionStatus::not_connected(reason)
                }
            };
            // Told under the state lock: no step of the attempt is told before it.
            self.emit(ManagerEvent::StatusChanged {
                server: name.to_owned(),
                status,
            });
        }
        self.emit(ManagerEvent::ToolsChanged {
            server: name.to_owned(),
        });
    }

    /// Makes a dead connection again with the policy's backoff, updating the `Reconnecting`
    /// state after each failed attempt; the final result is recorded like a late one.
    pub(crate) async fn reconnect(
        self: &Arc<Self>,
        name: &str,
        config: &ServerConfig,
        id: u64,
        mut cause: ServerError,
        progress: &watch::Sender<Progress>,
    ) {
        let policy = self.options.reconnect;
        let mut number = 1;
        let result = loop {
            let delay = policy.delay(number);
            tracing::info!(attempt = number, delay_ms = delay.as_millis() as u64, %cause, "reconnecting");
            tokio::time::sleep(delay).await;
            match self.connect_and_load(name, config, Plan::default()).await {
                Ok(loaded) => break Ok(loaded),
                Err(error) => {
                    tracing::warn!(attempt = number, %error, "reconnecting failed");
                    cause = error;
                }
            }
            if number >= policy.max_attempts || cause.needs_login() {
                break Err(cause);
            }
            number += 1;
            let still_ours = {
                let mut state = self.lock();
                match state.serving_mut(name, id).map(|record| &mut record.state) {
                    Some(ServerState::Reconnecting {
                        number: shown,
                        cause: shown_cause,
                        ..
                    }) => {
                        *shown = number;
                        shown_cause.clone_from(&cause);
                        true
                    }
                    _ => false,
                }
            };
            if !still_ours {
                return;
            }
            self.emit(ManagerEvent::StatusChanged {
                server: name.to_owned(),
                status: ConnectionStatus::Reconnecting {
                    attempt: number,
                    cause: cause.clone(),
                },
            });
        };
        self.finish(name, config, id, result, None, progress).await;
    }
}
