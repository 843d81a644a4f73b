//! [`ToolRegistry`]: the session's tools by name, and which of them are active.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use mcp_bridge::AgentTool;

/// The prefix of every MCP tool name.
pub const MCP_TOOL_PREFIX: &str = "mcp_";

/// Tools by name (the agent's own and MCP tools side by side) and the active set the model
/// is offered.
#[derive(Default, Clone)]
pub struct ToolRegistry {
    tools: BTreeMap<String, Arc<dyn AgentTool>>,
    active: BTreeSet<String>,
}

impl ToolRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or replaces) a tool under its name; it is not active until activated.
    pub fn register(&mut self, tool: Arc<dyn AgentTool>) {
        self.tools.insert(tool.name().to_owned(), tool);
    }

    /// Removes a tool; true if it was there.
    pub fn unregister(&mut self, name: &str) -> bool {
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

    /// Stops offering a tool (it stays registered).
    pub fn deactivate(&mut self, name: &str) {
        self.active.remove(name);
    }

    /// A tool by name, active or not.
    pub fn get(&self, name: &str) -> Option<Arc<dyn AgentTool>> {
        self.tools.get(name).cloned()
    }

    /// Whether the tool is offered to the model.
    pub fn is_active(&self, name: &str) -> bool {
        self.active.contains(name)
    }

    /// The active tools, by name.
    pub fn active_tools(&self) -> Vec<Arc<dyn AgentTool>> {
        self.active
            .iter()
            .filter_map(|name| self.tools.get(name).cloned())
            .collect()
    }

    /// Every registered tool's name.
    pub fn names(&self) -> Vec<String> {
        self.tools.keys().cloned().collect()
    }

    /// Replaces every `mcp_` tool with `tools`, all active; the agent's own tools are kept.
    pub fn replace_mcp_tools(&mut self, tools: Vec<Arc<dyn AgentTool>>) {
        let stale: Vec<String> = self
            .tools
            .keys()
            .filter(|name| name.starts_with(MCP_TOOL_PREFIX))
            .cloned()
            .collect();
        for name in stale {
            self.unregister(&name);
        }
        for tool in tools {
            let name = tool.name().to_owned();
            self.register(tool);
            self.activate(&name);
        }
    }
}

impl std::fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolRegistry")
            .field("tools", &self.tools.keys().collect::<Vec<_>>())
            .field("active", &self.active)
            .finish()
    }
}
