//! [`McpClient`]: one connected MCP server and what can be asked of it: its tools, resources
//! and prompts, every list followed to its last page.
//!
//! Where things are: this file holds the client and its operations, `options` the
//! [`ClientOptions`]. Connecting takes one file per way in, `stdio` (a server the client
//! starts) and `http` (Streamable HTTP or legacy HTTP+SSE, and the headers a stateless
//! server's tools designate), and each ends in `handshake`, which also connects a plugin's
//! transport: it starts the [`Peer`], finds the server's protocol era and opens the
//! conversation. `pages` follows a list's cursors to its end, `rounds` the requests a stateless
//! server answers with `input_required`.

mod handshake;
#[cfg(feature = "http")]
mod http;
mod options;
mod pages;
mod rounds;
#[cfg(feature = "skills")]
mod skills;
#[cfg(feature = "stdio")]
mod stdio;
mod tasks;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::broadcast;

use crate::error::Error;
#[cfg(feature = "http")]
use crate::http::ToolHeaders;
use crate::jsonrpc::ServerNotification;
use crate::peer::{Peer, RequestOptions, RpcError};
use crate::protocol::{
    CallToolParams, CallToolResult, GetPromptParams, GetPromptResult, Implementation,
    InitializeResult, JsonObject, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, Prompt, ProtocolVersion, ReadResourceParams,
    ReadResourceResult, Resource, ResourceTemplate, Root, ServerCapabilities, Tool, methods,
};
use crate::stateless::Answer;
use crate::transport::CloseReason;

pub use options::ClientOptions;
#[cfg(feature = "skills")]
pub use skills::{LoadedSkill, MAX_SKILL_BYTES, MAX_SKILL_FILES, SkillContent};
pub use tasks::ToolCallStart;

/// A server's whole tool list ([`McpClient::list_tools_with_ttl`]) and how long it may be
/// considered fresh.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ToolList {
    /// Every tool, in the server's order.
    pub tools: Vec<Tool>,
    /// How long from now the list may be considered fresh (2026-07-28 `ttlMs`): the smallest
    /// `ttlMs` of its pages, each at most a day ([`MAX_TTL`](crate::protocol::MAX_TTL)), less
    /// the time since each page came. `None` when a page carried none or one that cannot be
    /// read (every server of the handshake era carries none), which the specification says to
    /// take as stale at once; a list that changes says so whatever its ttl (`list_changed`).
    pub ttl: Option<Duration>,
}

/// A connected, initialized MCP server.
///
/// Share it with `Arc<McpClient>`: every method takes `&self`, and any number of requests may be
/// in flight at once. Dropping the last handle stops the connection (for stdio, the server's
/// whole process group is killed); [`McpClient::close`] stops it gracefully.
#[derive(Debug)]
pub struct McpClient {
    server: Arc<str>,
    peer: Arc<Peer>,
    initialize: InitializeResult,
    protocol_version: ProtocolVersion,
    /// Streamable HTTP: where the headers the tools designate go (2026-07-28).
    #[cfg(feature = "http")]
    tool_headers: Option<Arc<ToolHeaders>>,
    /// The task keeping the `subscriptions/listen` stream of a stateless server open; aborted
    /// with the client.
    listener: Option<tokio::task::AbortHandle>,
    /// The tasks being followed, cancelled by [`close`](Self::close).
    followed: Arc<tasks::Followed>,
    /// Which tools a 2025-11-25 server runs as tasks.
    task_tools: tasks::TaskTools,
}

impl Drop for McpClient {
    fn drop(&mut self) {
        if let Some(listener) = &self.listener {
            listener.abort();
        }
    }
}

impl McpClient {
    /// The server's name, as given when connecting.
    pub fn server_name(&self) -> &str {
        &self.server
    }

    /// The negotiated protocol version.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.protocol_version
    }

    /// The server's name and version from `initialize`.
    pub fn server_info(&self) -> &Implementation {
        &self.initialize.server_info
    }

    /// The server's capabilities from `initialize`.
    pub fn capabilities(&self) -> &ServerCapabilities {
        &self.initialize.capabilities
    }

    /// The server's instructions for the model, if it gave any.
    pub fn instructions(&self) -> Option<&str> {
        self.initialize.instructions.as_deref()
    }

    /// The whole `initialize` result.
    pub fn initialize_result(&self) -> &InitializeResult {
        &self.initialize
    }

    /// The JSON-RPC peer, for requests this client has no method for.
    pub fn peer(&self) -> &Peer {
        &self.peer
    }

    /// Lists every tool, following `nextCursor` to the last page.
    ///
    /// Over Streamable HTTP with a stateless server, a tool whose input schema designates
    /// headers against the revision's rules (`x-mcp-header`) is left out with a warning naming
    /// it and why, and the others' designations are kept for their calls.
    pub async fn list_tools(&self) -> Result<Vec<Tool>, Error> {
        Ok(self.list_tools_with_ttl().await?.tools)
    }

    /// [`list_tools`](Self::list_tools), with how long the list may be considered fresh (a
    /// stateless server's `ttlMs`), for a caller that keeps the list.
    pub async fn list_tools_with_ttl(&self) -> Result<ToolList, Error> {
        let (tools, ttl) = self
            .list_pages::<ListToolsResult>(methods::TOOLS_LIST)
            .await?;
        #[cfg(feature = "http")]
        if let Some(registry) = &self.tool_headers
            && self.protocol_version.is_stateless()
        {
            let tools = self.keep_tool_headers(registry, tools);
            return Ok(ToolList { tools, ttl });
        }
        if !self.protocol_version.is_stateless() && self.capabilities().offers_2025_tool_tasks() {
            self.task_tools.remember(&tools);
        }
        Ok(ToolList { tools, ttl })
    }

    /// Lists every resource, following `nextCursor` to the last page. Ask only a server whose
    /// capabilities [offer resources](ServerCapabilities::offers_resources); others answer
    /// with an error (usually "method not found").
    pub async fn list_resources(&self) -> Result<Vec<Resource>, Error> {
        self.list_all::<ListResourcesResult>(methods::RESOURCES_LIST)
            .await
    }

    /// Lists every resource template, following `nextCursor` to the last page.
    pub async fn list_resource_templates(&self) -> Result<Vec<ResourceTemplate>, Error> {
        self.list_all::<ListResourceTemplatesResult>(methods::RESOURCES_TEMPLATES_LIST)
            .await
    }

    /// Reads one resource: a listed resource's URI, or one a template expands to.
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, Error> {
        self.request_complete(
            methods::RESOURCES_READ,
            &ReadResourceParams::new(uri),
            &RequestOptions::default(),
        )
        .await
        .map_err(|source| self.request_error(format!("resources/read {uri:?}"), source))
    }

    /// Lists every prompt, following `nextCursor` to the last page. Ask only a server whose
    /// capabilities [offer prompts](ServerCapabilities::offers_prompts).
    pub async fn list_prompts(&self) -> Result<Vec<Prompt>, Error> {
        self.list_all::<ListPromptsResult>(methods::PROMPTS_LIST)
            .await
    }

    /// Gets a prompt's messages, with its (string) arguments.
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: BTreeMap<String, String>,
    ) -> Result<GetPromptResult, Error> {
        self.request_complete(
            methods::PROMPTS_GET,
            &GetPromptParams::new(name, arguments),
            &RequestOptions::default(),
        )
        .await
        .map_err(|source| self.request_error(format!("prompts/get {name:?}"), source))
    }

    /// Calls a tool with the default request timeout.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Option<JsonObject>,
    ) -> Result<CallToolResult, Error> {
        self.call_tool_with(name, arguments.as_ref(), &RequestOptions::default())
            .await
    }

    /// Calls a tool with per-call options: timeout, progress, cancellation. A call without a
    /// timeout of its own uses the client's default ([`ClientOptions::request_timeout`]). The
    /// arguments are lent, and only serialized: a caller that keeps them (an agent's tool call, a
    /// retry, a log) makes no copy.
    ///
    /// The arguments are the protocol's: an object, or none. An agent's model gives any JSON
    /// value; `mcp_bridge`'s `AgentTool::execute` takes that, and refuses a value that is not an
    /// object with a message the model reads, before a call is made.
    ///
    /// A call the server answers with a task (the Tasks extension) is followed to the task's
    /// end and returns its result: the timeout then runs from the task's last sign of life,
    /// its changes of status reach `on_progress`, and cancelling (or dropping the call) sends
    /// `tasks/cancel` (see [`follow_task`](Self::follow_task)), and
    /// [`RequestOptions::on_task`] learns the task's id as the following begins. A 2025-11-25
    /// server's tool that requires a task is called as one.
    pub async fn call_tool_with(
        &self,
        name: &str,
        arguments: Option<&JsonObject>,
        options: &RequestOptions,
    ) -> Result<CallToolResult, Error> {
        let called = match self
            .start_call(name, arguments, options, tasks::AskForTask::WhenRequired)
            .await
        {
            Ok(Answer::Complete(result)) => Ok(result),
            Ok(Answer::Task(task)) => {
                // Rare and long: a future of its own, boxed, so a call answered at once
                // neither builds nor carries the following's state.
                Box::pin(self.follow(*task, options)).await
            }
            Err(error) => Err(error),
        };
        called.map_err(|source| self.request_error(format!("tools/call {name:?}"), source))
    }

    /// Calls a tool from ready-made parameters.
    pub async fn call(&self, params: CallToolParams) -> Result<CallToolResult, Error> {
        self.call_tool(&params.name, params.arguments).await
    }

    /// Changes the roots answered to the server's `roots/list` and, in the handshake era, tells
    /// the server with `notifications/roots/list_changed` (a stateless server asks for them in
    /// each request that needs them); true when the roots were taken. Nothing happens for a
    /// client connected without roots (it did not declare the capability), and a closed
    /// connection has no one left to tell: false then.
    pub fn set_roots(&self, roots: Vec<Root>) -> bool {
        self.peer.set_roots(roots)
            && (self.protocol_version.is_stateless()
                || self
                    .peer
                    .notify(methods::ROOTS_LIST_CHANGED, None::<()>)
                    .is_ok())
    }

    /// Checks that the server answers: `ping` in the handshake era, `server/discover` for a
    /// stateless server (the revision has no `ping`).
    pub async fn ping(&self) -> Result<(), Error> {
        let method = if self.protocol_version.is_stateless() {
            methods::SERVER_DISCOVER
        } else {
            methods::PING
        };
        self.peer
            .request::<_, serde::de::IgnoredAny>(method, None::<()>, &RequestOptions::default())
            .await
            .map(|_| ())
            .map_err(|source| self.request_error(method.to_owned(), source))
    }

    /// Receives the server's notifications (`notifications/tools/list_changed`,
    /// `notifications/resources/list_changed`, `notifications/prompts/list_changed`, …) from
    /// now on; [`ServerNotification::kind`] tells which, to `match` on.
    pub fn subscribe(&self) -> broadcast::Receiver<ServerNotification> {
        self.peer.subscribe()
    }

    /// Why the connection is closed, or `None` while it is open.
    pub fn close_reason(&self) -> Option<CloseReason> {
        self.peer.close_reason()
    }

    /// Resolves as soon as the connection is closed (the server died, or `close` was called).
    pub async fn closed(&self) -> CloseReason {
        self.peer.closed().await
    }

    /// Closes the connection and stops the server (stdio: stdin closed, grace period, SIGTERM,
    /// SIGKILL to the whole process group). Pending requests fail at once.
    pub async fn close(&self) -> Result<(), Error> {
        if let Some(listener) = &self.listener {
            listener.abort();
        }
        let followed = self.followed.take_all();
        if !followed.is_empty() {
            // The tasks this client was following are cancelled before it goes: nobody is
            // left to read their results.
            let cancels = followed.iter().map(|task_id| {
                let peer = Arc::clone(&self.peer);
                let task_id = task_id.clone();
                tokio::spawn(async move { tasks::send_cancel(&peer, &task_id).await })
            });
            for cancel in cancels.collect::<Vec<_>>() {
                let _ = cancel.await;
            }
        }
        self.peer.close().await.map_err(|source| Error::Stop {
            server: self.server.to_string(),
            source,
        })
    }

    fn request_error(&self, operation: String, source: RpcError) -> Error {
        Error::Request {
            server: self.server.to_string(),
            operation,
            source,
        }
    }
}
