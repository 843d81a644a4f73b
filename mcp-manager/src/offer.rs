//! What the manager offers the agent: [`ManagedTool`]s (live, served on demand, or deferred
//! from the cache) and the startup gate's answer, [`ConnectOutcome`].

use std::sync::Arc;

use mcp_bridge::{AgentTool, ToolProvider};
use mcp_config::SourceMeta;
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
