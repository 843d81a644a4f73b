//! [`ToolContext`]: what the MCP tools' definitions cost the model's context, server by server,
//! and what the session's tool search sends instead — the numbers behind the CLI's `context`
//! and `/mcp context`.

use serde_json::{Value, json};

use super::ToolSearchMode;

/// One server's tools, in estimated tokens of their definitions.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ServerContext {
    /// The server's name.
    pub server: String,
    /// How many tools it offers.
    pub tools: usize,
    /// The estimated tokens of their definitions.
    pub tokens: usize,
    /// How many of them are always loaded (its `alwaysLoad`, or each tool's `_meta`).
    pub always_loaded_tools: usize,
    /// The estimated tokens of those.
    pub always_loaded_tokens: usize,
}

/// What the MCP tools' definitions cost the context, estimated as
/// [`mcp_tool_search::definition_tokens`] does (a token per four bytes of each definition's
/// JSON), and what the session sends instead when it defers them.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolContext {
    /// The session's tool search mode.
    pub mode: ToolSearchMode,
    /// Whether it defers the definitions now.
    pub deferring: bool,
    /// The context window it measures against, in tokens.
    pub context_window: usize,
    /// The share of it the definitions may take before `auto` defers, in percent.
    pub share_percent: u32,
    /// That share, in tokens.
    pub threshold: usize,
    /// Each server with tools, by name.
    pub servers: Vec<ServerContext>,
    /// Every definition, in tokens: what the model is sent without deferral.
    pub total_tokens: usize,
    /// The search tool's definition (its description names every server).
    pub search_tool_tokens: usize,
    /// The always-loaded tools' definitions.
    pub always_loaded_tokens: usize,
    /// How many tools searches have loaded so far.
    pub loaded_tools: usize,
    /// Their definitions, in tokens.
    pub loaded_tokens: usize,
}

impl ToolContext {
    /// What a deferring session sends at its start: the search tool and the always-loaded
    /// tools.
    pub fn deferred_tokens(&self) -> usize {
        self.search_tool_tokens + self.always_loaded_tokens
    }

    /// What the session sends now: every definition, or, deferring, the search tool, the
    /// always-loaded tools and the tools loaded so far.
    pub fn sent_tokens(&self) -> usize {
        if self.deferring {
            self.deferred_tokens() + self.loaded_tokens
        } else {
            self.total_tokens
        }
    }

    /// How many tools in all.
    pub fn tools(&self) -> usize {
        self.servers.iter().map(|server| server.tools).sum()
    }

    /// `{"mode", "deferring", "context_window", "share_percent", "threshold", "servers":
    /// [{"server", "tools", "tokens", "always_loaded_tools", "always_loaded_tokens"}],
    /// "tools", "total_tokens", "search": {"search_tool_tokens", "always_loaded_tokens",
    /// "tokens"}, "loaded": {"tools", "tokens"}, "sent_tokens"}`.
    pub fn to_json(&self) -> Value {
        json!({
            "mode": self.mode.as_str(),
            "deferring": self.deferring,
            "context_window": self.context_window,
            "share_percent": self.share_percent,
            "threshold": self.threshold,
            "servers": self.servers.iter().map(|server| json!({
                "server": server.server,
                "tools": server.tools,
                "tokens": server.tokens,
                "always_loaded_tools": server.always_loaded_tools,
                "always_loaded_tokens": server.always_loaded_tokens,
            })).collect::<Vec<_>>(),
            "tools": self.tools(),
            "total_tokens": self.total_tokens,
            "search": {
                "search_tool_tokens": self.search_tool_tokens,
                "always_loaded_tokens": self.always_loaded_tokens,
                "tokens": self.deferred_tokens(),
            },
            "loaded": {"tools": self.loaded_tools, "tokens": self.loaded_tokens},
            "sent_tokens": self.sent_tokens(),
        })
    }
}
