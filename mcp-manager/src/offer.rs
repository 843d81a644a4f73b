//! What the manager offers the agent: [`ManagedTool`]s (live, served on demand, or deferred
//! from the cache) and the startup gate's answer, [`ConnectOutcome`].

use std::sync::Arc;

use mcp_bridge::{
    AgentTool, ConnectionProvider, DeferredMcpTool, McpTool, McpToolDefinition, OutputBudget,
    ToolProvider,
};
use mcp_config::{ServerConfig, SourceMeta};
use mcp_transport::{McpClient, Tool};

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
    /// The tool's title, when the server gives one (the tool itself shows its description).
    pub title: Option<String>,
    /// Never to be deferred behind a session's tool search: its server's entry says
    /// `"alwaysLoad": true`, or the tool's `_meta` carries `"anthropic/alwaysLoad": true`.
    pub always_load: bool,
    /// Where the server is defined (provider, file, level), shared by the server's tools;
    /// `None` when the manager was not told. [`path`](Self::path) shows it as
    /// `mcp:<server> via <provider>`.
    pub source: Option<Arc<SourceMeta>>,
}

/// The key of a tool's `_meta` that keeps it out of a tool search's deferral (Anthropic's).
const ALWAYS_LOAD_META: &str = "anthropic/alwaysLoad";

/// Whether `tool`'s `_meta` says `"anthropic/alwaysLoad": true`.
pub(crate) fn always_loaded(tool: &Tool) -> bool {
    tool.extra
        .get("_meta")
        .and_then(|meta| meta.get(ALWAYS_LOAD_META))
        .is_some_and(|flag| flag.as_bool() == Some(true))
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

/// How one server's tools are offered: what they are defined with and how they reach it.
pub(crate) struct Offer<'a> {
    pub(crate) server: &'a str,
    pub(crate) config: &'a ServerConfig,
    /// Where the server is defined (kept on each tool; its results name the provider).
    pub(crate) source: Option<&'a ToolSource>,
    /// The output budget of its tools (see [`budget_of`]).
    pub(crate) budget: Option<Arc<OutputBudget>>,
    pub(crate) reach: Reach<'a>,
    /// What a tool not connected yet waits through: the manager, which makes the connection
    /// once (and, for a server served on demand, at the first call).
    pub(crate) provider: &'a Arc<dyn ConnectionProvider>,
}

impl Offer<'_> {
    /// `tool` as the manager offers it under `name`.
    pub(crate) fn tool(&self, name: String, tool: &Tool) -> ManagedTool {
        let definition = McpToolDefinition::new(name, self.server, tool.clone())
            .with_provider(self.source.map(|source| Arc::clone(&source.provider)))
            .with_timeout(self.config.tool_timeout())
            .with_budget(self.budget.clone());
        let agent_tool: Arc<dyn AgentTool> = match self.reach {
            Reach::Connected(client) => Arc::new(McpTool::new(definition, Arc::clone(client))),
            Reach::OnDemand | Reach::Deferred => {
                Arc::new(DeferredMcpTool::new(definition, Arc::clone(self.provider)))
            }
        };
        ManagedTool {
            server: self.server.to_owned(),
            original_name: tool.name.clone(),
            deferred: self.reach.is_deferred(),
            tool: agent_tool,
            title: tool.title.clone(),
            always_load: self.config.always_load() || always_loaded(tool),
            source: self.source.map(|source| Arc::clone(&source.meta)),
        }
    }
}

/// The output budget of a server's tools: the manager's, with the size the server's entry
/// sets; `None` when the manager has none.
pub(crate) fn budget_of(
    manager: Option<&OutputBudget>,
    config: &ServerConfig,
) -> Option<Arc<OutputBudget>> {
    let mut budget = manager?.clone();
    if let Some(bytes) = config.output_budget() {
        budget.max_bytes = bytes;
    }
    Some(Arc::new(budget))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool_with_meta(meta: serde_json::Value) -> Tool {
        let mut tool = Tool::new("read", None, mcp_transport::JsonSchema::empty_object());
        tool.extra.insert("_meta".to_owned(), meta);
        tool
    }

    #[test]
    fn a_tool_is_always_loaded_only_when_its_meta_says_true() {
        let plain = Tool::new("read", None, mcp_transport::JsonSchema::empty_object());
        assert!(!always_loaded(&plain));
        assert!(always_loaded(&tool_with_meta(
            serde_json::json!({"anthropic/alwaysLoad": true})
        )));
        for other in [
            serde_json::json!({"anthropic/alwaysLoad": false}),
            serde_json::json!({"anthropic/alwaysLoad": "true"}),
            serde_json::json!({"alwaysLoad": true}),
            serde_json::json!(true),
        ] {
            assert!(!always_loaded(&tool_with_meta(other.clone())), "{other}");
        }
    }
}
