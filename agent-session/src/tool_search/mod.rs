//! Tool search in a session: instead of every MCP tool's definition, the model may be sent one
//! search tool (`mcp_tool_search`) and the tools that must always be there, and the tools a
//! search finds are loaded into the registry for the rest of the session.
//!
//! | module | holds |
//! |---|---|
//! | this one | [`ToolSearchMode`] and [`ToolSearchOptions`]: when a session defers |
//! | `state` | the session's live index, what each server's definitions cost, the loaded set |
//! | `tools` | the search tool itself, and the wrapper that loads a deferred tool on its call |
//! | `context` | [`ToolContext`]: what the definitions cost the context, server by server |
//!
//! **When.** [`ToolSearchMode::Auto`] (the default) defers when the definitions of every MCP
//! tool would take more than a share of the model's context window (10% of 200,000 tokens
//! unless told otherwise), estimated by [`mcp_tool_search::definition_tokens`]: a token for
//! every four bytes of the JSON a model API receives for a tool (`name`, `description`,
//! `input_schema`). The decision is made again at every refresh of the tools, so a session
//! whose servers grow past the share starts deferring then.
//!
//! **What stays.** A server whose config entry says `"alwaysLoad": true`, and a tool whose
//! `_meta` says `"anthropic/alwaysLoad": true`, are always listed whole. Every other MCP tool
//! stays registered — callable by its `mcp_<server>_<tool>` name — but is not listed until a
//! search finds it or it is called: the registry's listed (active) set and its callable set
//! differ. Loaded tools stay listed for the rest of the session, at most
//! [`ToolSearchOptions::loaded_budget`] of them, the least recently used leaving first.

mod context;
mod state;
mod tools;

use std::sync::Arc;

pub use context::{ServerContext, ToolContext};
/// What an agent implements to rank searches itself, re-exported so that it needs no other
/// crate for it.
pub use mcp_tool_search::{Combine, RankError, Ranker, Semantic, ToolDocument};
pub use tools::{FoundTool, SEARCH_TOOL_NAME};

pub(crate) use state::{Changed, SearchState};
pub(crate) use tools::{OnCallLoader, SearchTool};

/// The context window assumed unless told otherwise, in tokens.
pub const DEFAULT_CONTEXT_WINDOW: usize = 200_000;
/// The share of the context window the definitions may take before `auto` defers them.
pub const DEFAULT_SHARE_PERCENT: u32 = 10;
/// How many tools a search may have loaded at once, unless told otherwise.
pub const DEFAULT_LOADED_BUDGET: usize = 64;
/// How many tools a search returns when the model does not say.
pub const DEFAULT_SEARCH_LIMIT: usize = 5;

/// Whether a session defers its MCP tools' definitions behind a search tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum ToolSearchMode {
    /// Every definition is listed, always (as before tool search).
    Off,
    /// Definitions are always deferred: the search tool and the always-loaded tools are listed.
    On,
    /// Deferred when the definitions would take more than a share of the context window.
    #[default]
    Auto,
}

impl ToolSearchMode {
    /// `off`, `on` or `auto`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Off => "off",
            Self::On => "on",
            Self::Auto => "auto",
        }
    }
}

impl std::fmt::Display for ToolSearchMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for ToolSearchMode {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "off" => Ok(Self::Off),
            "on" => Ok(Self::On),
            "auto" => Ok(Self::Auto),
            other => Err(format!(
                "the tool search mode is off, on or auto, not {other:?}"
            )),
        }
    }
}

/// How a session's tool search behaves: the [mode](ToolSearchMode), the context window `auto`
/// measures against, the loaded-set budget, and an agent's own ranker.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ToolSearchOptions {
    /// Off, on, or auto (the default).
    pub mode: ToolSearchMode,
    /// The model's context window, in tokens ([`DEFAULT_CONTEXT_WINDOW`]).
    pub context_window: usize,
    /// The percentage of the window the definitions may take before `auto` defers them
    /// ([`DEFAULT_SHARE_PERCENT`]).
    pub share_percent: u32,
    /// How many tools searches (and calls of deferred tools) may have loaded at once; past it
    /// the least recently used one is unlisted again ([`DEFAULT_LOADED_BUDGET`]). It also caps
    /// the `limit` of one search.
    pub loaded_budget: usize,
    /// An agent's own ranking (its model provider's embeddings), used through
    /// [`mcp_tool_search::search_with`]; none uses the built-in one alone.
    pub ranker: Option<Arc<dyn Ranker>>,
    /// How the agent's ranking is used: beside the built-in one, or instead of it.
    pub combine: Combine,
    /// How much the built-in ranking counts the meaning of words (its word vectors; on by
    /// default): [`Semantic::OFF`] ranks by the words alone, and saves the vectors' memory and
    /// time, as an agent whose own ranker is used instead may want.
    pub semantic: Semantic,
}

impl Default for ToolSearchOptions {
    fn default() -> Self {
        Self::new(ToolSearchMode::default())
    }
}

impl ToolSearchOptions {
    /// The defaults, in `mode`.
    pub fn new(mode: ToolSearchMode) -> Self {
        Self {
            mode,
            context_window: DEFAULT_CONTEXT_WINDOW,
            share_percent: DEFAULT_SHARE_PERCENT,
            loaded_budget: DEFAULT_LOADED_BUDGET,
            ranker: None,
            combine: Combine::default(),
            semantic: Semantic::default(),
        }
    }

    /// With this context window, in tokens.
    #[must_use]
    pub fn context_window(mut self, tokens: usize) -> Self {
        self.context_window = tokens;
        self
    }

    /// With this share of the window (a percentage, capped at 100) before `auto` defers.
    #[must_use]
    pub fn share_percent(mut self, percent: u32) -> Self {
        self.share_percent = percent.min(100);
        self
    }

    /// With this loaded-set budget (at least 1).
    #[must_use]
    pub fn loaded_budget(mut self, tools: usize) -> Self {
        self.loaded_budget = tools.max(1);
        self
    }

    /// Ranks searches with `ranker` too, as `combine` says.
    #[must_use]
    pub fn ranker(mut self, ranker: Arc<dyn Ranker>, combine: Combine) -> Self {
        self.ranker = Some(ranker);
        self.combine = combine;
        self
    }

    /// With the built-in ranking's word vectors at this weight ([`Semantic::OFF`]: none).
    #[must_use]
    pub fn semantic(mut self, semantic: Semantic) -> Self {
        self.semantic = semantic;
        self
    }

    /// The most tokens the definitions may take before `auto` defers them: the share of the
    /// window.
    pub fn threshold(&self) -> usize {
        let percent = usize::try_from(self.share_percent.min(100)).unwrap_or(100);
        self.context_window.saturating_mul(percent) / 100
    }

    /// Whether definitions costing `tokens` in all are deferred in this mode.
    pub fn defers(&self, tokens: usize) -> bool {
        match self.mode {
            ToolSearchMode::Off => false,
            ToolSearchMode::On => true,
            ToolSearchMode::Auto => tokens > self.threshold(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_defers_past_the_share_of_the_window_and_the_others_as_they_say() {
        let auto = ToolSearchOptions::default();
        assert_eq!(auto.threshold(), 20_000);
        assert!(!auto.defers(20_000));
        assert!(auto.defers(20_001));
        let small = auto.clone().context_window(8_000).share_percent(50);
        assert_eq!(small.threshold(), 4_000);
        assert!(small.defers(4_001));
        assert!(!ToolSearchOptions::new(ToolSearchMode::Off).defers(usize::MAX));
        assert!(ToolSearchOptions::new(ToolSearchMode::On).defers(0));
        assert_eq!(auto.share_percent(250).share_percent, 100);
    }

    #[test]
    fn modes_read_and_write_as_their_names() {
        for mode in [
            ToolSearchMode::Off,
            ToolSearchMode::On,
            ToolSearchMode::Auto,
        ] {
            assert_eq!(mode.as_str().parse::<ToolSearchMode>(), Ok(mode));
        }
        assert!("always".parse::<ToolSearchMode>().is_err());
    }
}
