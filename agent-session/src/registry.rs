//! [`ToolRegistry`]: the session's tools by name, where each came from, and which of them are
//! active.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use mcp_bridge::AgentTool;
use mcp_manager::ManagedTool;

/// Where a tool in the registry came from. The registry never guesses it from a name: an
/// agent's own tool may be called `mcp_notes` and still survive every MCP refresh.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ToolOrigin {
    /// One of the agent's own tools.
    Agent,
    /// A tool of an MCP server.
    Mcp {
        /// The server's configured name.
        server: String,
        /// The tool's name on the server.
        tool: String,
    },
}

/// A registered tool and its origin.
#[derive(Clone)]
struct Entry {
    tool: Arc<dyn AgentTool>,
    origin: ToolOrigin,
}

/// Tools by name (the agent's own and MCP tools side by side), where each came from, and the
/// active set the model is offered.
#[derive(Default, Clone)]
pub struct ToolRegistry {
    tools: BTreeMap<String, Entry>,
    active: BTreeSet<String>,
}

impl ToolRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or replaces) a tool under its name; it is not active until activated.
    pub fn register(&mut self, tool: Arc<dyn AgentTool>, origin: ToolOrigin) {
        let name = tool.name().to_owned();
        self.tools.insert(name, Entry { tool, origin });
    }

    /// Removes a tool; true if it was there.
    fn unregister(&mut self, name: &str) -> bool {
        self.active.remove(name);
        self.tools.remove(name).is_some()
    }

    /// Offers a registered tool to the model; false if no such tool.
    pub fn activate(&mut self, name: &str) -> bool {
        let known = self.tools.contains_key(name);
        if known {
            self.active.insert(name.to_owned());
        }
        known
    }

    /// A tool by name, active or not.
    pub fn get(&self, name: &str) -> Option<Arc<dyn AgentTool>> {
        self.tools.get(name).map(|entry| Arc::clone(&entry.tool))
    }

    /// Where the tool of that name came from.
    pub fn origin(&self, name: &str) -> Option<&ToolOrigin> {
        self.tools.get(name).map(|entry| &entry.origin)
    }

    /// Whether the tool is offered to the model.
    pub fn is_active(&self, name: &str) -> bool {
        self.active.contains(name)
    }

    /// The active tools, by name.
    pub fn active_tools(&self) -> Vec<Arc<dyn AgentTool>> {
        self.active_entries()
            .map(|entry| Arc::clone(&entry.tool))
            .collect()
    }

    /// The active MCP tools, by name, with their origin.
    pub fn active_mcp_tools(&self) -> Vec<(Arc<dyn AgentTool>, ToolOrigin)> {
        self.active_entries()
            .filter(|entry| matches!(entry.origin, ToolOrigin::Mcp { .. }))
            .map(|entry| (Arc::clone(&entry.tool), entry.origin.clone()))
            .collect()
    }

    /// Every registered tool's name.
    pub fn names(&self) -> Vec<String> {
        self.tools.keys().cloned().collect()
    }

    /// Replaces every MCP tool with `tools`, all active; the agent's own tools are kept, and an
    /// MCP tool whose name one of them already has is left out (the agent's tool wins).
    pub fn replace_mcp_tools(&mut self, tools: Vec<ManagedTool>) {
        let stale: Vec<String> = self
            .tools
            .iter()
            .filter(|(_, entry)| matches!(entry.origin, ToolOrigin::Mcp { .. }))
            .map(|(name, _)| name.clone())
            .collect();
        for name in stale {
            self.unregister(&name);
        }
        for managed in tools {
            let name = managed.tool.name().to_owned();
            if self.tools.contains_key(&name) {
                tracing::debug!(
                    tool = name,
                    server = managed.server,
                    "an agent tool has this name; the MCP tool is left out"
                );
                continue;
            }
            let origin = ToolOrigin::Mcp {
                server: managed.server,
                tool: managed.original_name,
            };
            self.register(managed.tool, origin);
            self.activate(&name);
        }
    }

    fn active_entries(&self) -> impl Iterator<Item = &Entry> {
        self.active.iter().filter_map(|name| self.tools.get(name))
    }
}

impl std::fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolRegistry")
            .field(
                "tools",
                &self
                    .tools
                    .iter()
                    .map(|(name, entry)| (name, &entry.origin))
                    .collect::<Vec<_>>(),
            )
            .field("active", &self.active)
            .finish()
    }
}
