//! Tools for subagents that call through the parent session's MCP connections.
//!
//! A subagent started by a session must not start a second set of server processes: each
//! [`SubagentProxyTool`] looks like one of the parent's MCP tools (same name, label,
//! description and parameters) and, when called, asks the parent's manager for that tool as it
//! is *now* — so a server that connected late, was reconnected or reloaded is picked up — and
//! calls it on the parent's connection.
//!
//! A proxy call has its own timeout ([`DEFAULT_CALL_TIMEOUT`] unless told otherwise). The inner
//! call runs under a child of the subagent's cancellation token, so both a timeout and the
//! subagent's cancellation cancel it on the server (`notifications/cancelled`). The proxy holds
//! its parent weakly: once the parent session is gone a call answers
//! `MCP error: the parent session has ended` instead of keeping the servers alive.
//!
//! ```no_run
//! use std::time::Duration;
//!
//! use agent_session::{SessionOptions, create_agent_session, subagent_tools};
//!
//! # async fn run() {
//! let cwd = std::env::current_dir().unwrap_or_default();
//! let started = create_agent_session(SessionOptions::new("my-agent", cwd)).await;
//! let tools = subagent_tools(&started.session, Duration::from_secs(60));
//! // ... hand `tools` to the subagent; they reach the parent's servers.
//! started.session.shutdown().await;
//! # }
//! ```

use std::sync::{Arc, Weak};
use std::time::Duration;

use async_trait::async_trait;
use mcp_bridge::convert::error_output;
use mcp_bridge::{AgentTool, ArgumentMismatch, ToolCancelled, ToolOutput};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::registry::ToolOrigin;
use crate::session::AgentSession;

/// The call timeout of a proxy made without one: two minutes.
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(120);

/// How long a cancelled inner call gets to wind down (and tell its server) before it is
/// dropped; dropping an MCP call tells the server too.
const WIND_DOWN: Duration = Duration::from_secs(2);

/// Where a tool of the parent comes from: its server and its name there.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Origin {
    server: String,
    tool: String,
}

/// Why a proxy call stopped before the inner call answered.
enum Stop {
    Cancelled,
    TimedOut,
}

/// One of the parent session's MCP tools, for a subagent: it calls through the parent's
/// manager, with a call timeout, and passes the subagent's cancellation on to the server.
pub struct SubagentProxyTool {
    name: String,
    label: String,
    description: String,
    /// The server and original tool name, when the parent's manager offered the tool.
    origin: Option<Origin>,
    /// The parent's tool when the proxy was made, used when the manager no longer offers one
    /// that matches.
    captured: Arc<dyn AgentTool>,
    parent: Weak<AgentSession>,
    call_timeout: Duration,
}

impl SubagentProxyTool {
    /// A proxy for `tool`, one of `parent`'s tools, whose calls give up after `call_timeout`.
    ///
    /// If the parent's manager offers the tool, the proxy follows it by server and original
    /// name (so a renamed tool still reaches the same server tool); otherwise by name.
    pub fn new(
        parent: &Arc<AgentSession>,
        tool: Arc<dyn AgentTool>,
        call_timeout: Duration,
    ) -> Self {
        let origin = parent.registry().origin(tool.name()).cloned();
        Self::with_origin(parent, tool, call_timeout, origin)
    }

    fn with_origin(
        parent: &Arc<AgentSession>,
        tool: Arc<dyn AgentTool>,
        call_timeout: Duration,
        origin: Option<ToolOrigin>,
    ) -> Self {
        let origin = match origin {
            Some(ToolOrigin::Mcp { server, tool }) => Some(Origin { server, tool }),
            Some(_) | None => None,
        };
        Self {
            name: tool.name().to_owned(),
            label: tool.label().to_owned(),
            description: tool.description().to_owned(),
            origin,
            captured: tool,
            parent: Arc::downgrade(parent),
            call_timeout,
        }
    }

    /// How long a call may take before it is cancelled and answered with an error.
    pub fn call_timeout(&self) -> Duration {
        self.call_timeout
    }

    /// The server this tool calls, when known.
    pub fn server(&self) -> Option<&str> {
        self.origin.as_ref().map(|origin| origin.server.as_str())
    }

    /// The parent's tool as it is now: the manager's current tool for the same server tool (or,
    /// without an origin, the same name), else the tool captured when the proxy was made.
    fn resolve(&self, parent: &AgentSession) -> Arc<dyn AgentTool> {
        let current = parent
            .manager()
            .tools()
            .into_iter()
            .find(|managed| match &self.origin {
                Some(origin) => {
                    managed.server == origin.server && managed.original_name == origin.tool
                }
                None => managed.tool.name() == self.name,
            });
        match current {
            Some(managed) => managed.tool,
            None => Arc::clone(&self.captured),
        }
    }

    /// An error output the model sees: `MCP error: <message>`.
    fn error(&self, message: &str) -> ToolOutput {
        match &self.origin {
            Some(origin) => error_output(message, &origin.server, &origin.tool),
            None => ToolOutput::error(format!("MCP error: {message}")),
        }
    }
}

#[async_trait]
impl AgentTool for SubagentProxyTool {
    fn name(&self) -> &str {
        &self.name
    }

    fn label(&self) -> &str {
        &self.label
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn parameters(&self) -> &Value {
        // The captured tool's, as the argument check is: a copy made for every tool at each
        // subagent's start would build schemas nobody may read.
        self.captured.parameters()
    }

    /// The parent's tool checks them: the proxy shows its schema, and an MCP tool has its check
    /// prepared.
    fn check_arguments(&self, args: &Value) -> Result<(), ArgumentMismatch> {
        self.captured.check_arguments(args)
    }

    async fn execute(
        &self,
        args: Value,
        cancel: CancellationToken,
    ) -> Result<ToolOutput, ToolCancelled> {
        if cancel.is_cancelled() {
            return Err(ToolCancelled::new());
        }
        // The parent is only borrowed to find the tool: a proxy call must not keep an ended
        // session (and its servers) alive.
        let tool = match self.parent.upgrade() {
            Some(parent) => self.resolve(&parent),
            None => return Ok(self.error("the parent session has ended")),
        };

        let inner = cancel.child_token();
        let call = tool.execute(args, inner.clone());
        tokio::pin!(call);
        let stop = tokio::select! {
            // The subagent's cancellation wins over an answer that arrived at the same time.
            biased;
            () = cancel.cancelled() => Stop::Cancelled,
            outcome = &mut call => return outcome,
            () = tokio::time::sleep(self.call_timeout) => Stop::TimedOut,
        };
        // The child token tells the inner call (and so the server); give it a moment to finish.
        inner.cancel();
        let _ = tokio::time::timeout(WIND_DOWN, &mut call).await;
        match stop {
            Stop::Cancelled => Err(ToolCancelled::new()),
            Stop::TimedOut => Ok(self.error(&format!(
                "the call timed out after {}ms",
                self.call_timeout.as_millis()
            ))),
        }
    }
}

impl std::fmt::Debug for SubagentProxyTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SubagentProxyTool")
            .field("name", &self.name)
            .field("origin", &self.origin)
            .field("call_timeout", &self.call_timeout)
            .field("parent_alive", &(self.parent.strong_count() > 0))
            .finish_non_exhaustive()
    }
}

/// Proxies for the parent's active MCP tools (by their recorded origin, never by name), for a
/// subagent.
///
/// They call through the parent's manager: no server process is started for the subagent.
/// Each call gives up after `call_timeout` (see [`DEFAULT_CALL_TIMEOUT`]).
pub fn subagent_tools(
    parent: &Arc<AgentSession>,
    call_timeout: Duration,
) -> Vec<Arc<dyn AgentTool>> {
    parent
        .registry()
        .active_mcp_tools()
        .into_iter()
        .map(|(tool, origin)| {
            let proxy = SubagentProxyTool::with_origin(parent, tool, call_timeout, Some(origin));
            Arc::new(proxy) as Arc<dyn AgentTool>
        })
        .collect()
}
