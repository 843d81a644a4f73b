//! [`ToolRegistry`]: the session's tools by name, where each came from, and which of them are
//! active.
//!
//! Registered and active are two sets: every registered tool can be called by its name
//! ([`ToolRegistry::get`]), and the active ones are those listed to the model. A session that
//! defers its MCP tools behind tool search keeps them all registered and lists only the search
//! tool, the always-loaded tools and the ones searches loaded.

use std::collections::{BTreeMap, BTreeSet, HashMap};
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
    /// The session's tool search (`mcp_tool_search`), there while it defers MCP tools.
    ToolSearch,
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
        self.replace_mcp_tools_listing(
            tools
                .into_iter()
                .map(|managed| (managed.tool, managed.server, managed.original_name)),
            |_, _| true,
        );
    }

    /// Replaces every MCP tool with `tools` (each with its server and its name there, and the
    /// tool search's tool with them); those `listed` says are active, the others registered
    /// only, callable by name. The agent's own tools are kept and win a name.
    pub(crate) fn replace_mcp_tools_listing(
        &mut self,
        tools: impl IntoIterator<Item = (Arc<dyn AgentTool>, String, String)>,
        listed: impl Fn(&str, &str) -> bool,
    ) {
        // Kept in one pass each (thousands of tools at a warm start), not removed one by one.
        self.tools
            .retain(|_, entry| entry.origin == ToolOrigin::Agent);
        let tools_left = &self.tools;
        self.active.retain(|name| tools_left.contains_key(name));
        for (tool, server, original) in tools {
            let name = tool.name().to_owned();
            if self.tools.contains_key(&name) {
                tracing::debug!(
                    tool = name,
                    server,
                    "an agent tool has this name; the MCP tool is left out"
                );
                continue;
            }
            let active = listed(&server, &original);
            let origin = ToolOrigin::Mcp {
                server,
                tool: original,
            };
            self.register(tool, origin);
            if active {
                self.activate(&name);
            }
        }
    }

    /// Lists (activates) exactly the MCP tools `listed` says, leaving the rest registered.
    pub(crate) fn relist_mcp_tools(&mut self, listed: impl Fn(&str, &str) -> bool) {
        for (name, entry) in &self.tools {
            if let ToolOrigin::Mcp { server, tool } = &entry.origin {
                if listed(server, tool) {
                    self.active.insert(name.clone());
                } else {
                    self.active.remove(name);
                }
            }
        }
    }

    /// Registers and lists the tool search's tool (in place of an MCP tool of its name, not of
    /// an agent's own); none removes it.
    pub(crate) fn set_search_tool(&mut self, search: Option<Arc<dyn AgentTool>>) {
        let current: Vec<String> = self
            .tools
            .iter()
            .filter(|(_, entry)| entry.origin == ToolOrigin::ToolSearch)
            .map(|(name, _)| name.clone())
            .collect();
        for name in current {
            self.unregister(&name);
        }
        let Some(search) = search else { return };
        let name = search.name().to_owned();
        match self.origin(&name) {
            Some(ToolOrigin::Agent) => {
                tracing::debug!(tool = name, "an agent tool has this name; no tool search");
            }
            origin => {
                if let Some(ToolOrigin::Mcp { server, tool }) = origin {
                    tracing::debug!(
                        name,
                        server,
                        tool,
                        "the tool search takes this name; the MCP tool is left out"
                    );
                }
                self.register(search, ToolOrigin::ToolSearch);
                self.activate(&name);
            }
        }
    }

    /// The name each registered MCP tool has, by its server and its name there.
    pub(crate) fn mcp_names(&self) -> HashMap<(String, String), String> {
        self.tools
            .iter()
            .filter_map(|(name, entry)| match &entry.origin {
                ToolOrigin::Mcp { server, tool } => {
                    Some(((server.clone(), tool.clone()), name.clone()))
                }
                _ => None,
            })
            .collect()
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
