//! [`SearchState`]: a session's tool search as it stands — the live index of every MCP tool,
//! what each server's definitions cost in tokens, which tools are always loaded, which ones
//! searches have loaded (least recently used first), and whether the session defers now.
//!
//! Kept live by the session's refreshes ([`Changed`] says what each may have changed). A
//! server looked at is indexed and measured again ([`ToolIndex::set_server`]) only when its
//! tools differ from what the state holds — their names, descriptions, titles, always-load
//! flags, the server's instructions and, where the refresh says so, their input schemas,
//! compared by a hash ([`signature`]) — so a server that connects with the very tools the
//! cache gave, or a reload that changes one server of twenty, does not build the index again.
//!
//! Reading a schema costs more than anything else a refresh does with a tool (it is parsed
//! from the server's JSON on first use, and the parsed tree is freed with the tool at the next
//! refresh), so a reload compares every server without the schemas: the servers a reload
//! changed are disconnected and connected again, and each of them announces its new tools
//! with an event of its own, compared with the schemas then. At 10,340 tools (the
//! `tool_search_refresh` bench) a refresh after a reload that changed nothing stays near the
//! cost of the manager's `tools()` itself.

use std::collections::{BTreeMap, HashMap};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Arc;

use mcp_manager::ManagedTool;
use mcp_tool_search::{Combine, Ranker, ServerTools, ToolDocument, ToolIndex, definition_tokens};
use serde_json::Value;

use super::ToolSearchOptions;
use super::context::{ServerContext, ToolContext};
use super::tools::{NAMED_TOOLS, SEARCH_TOOL_NAME, search_tool_description, search_tool_schema};

/// A tool by its server and its name there.
pub(crate) type Key = (String, String);

/// Which servers' tools a refresh may have changed, and how closely to compare them.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Changed<'a> {
    /// Any of them, in any way (a refresh of the agent's, missed events): every server is
    /// compared, schemas included.
    Any,
    /// A reload: every server is compared without its schemas (those it changed announce
    /// themselves with a [`Server`](Self::Server) refresh of their own).
    Reload,
    /// This one's, in any way, and no other's but those that appeared or went.
    Server(&'a str),
}

/// What the state knows of one tool.
#[derive(Debug, Clone, Copy)]
struct ToolFacts {
    /// The estimated tokens of its definition.
    tokens: usize,
    always_load: bool,
}

/// What the state knows of one server's tools.
#[derive(Debug, Clone, Default)]
struct ServerFacts {
    tools: BTreeMap<String, ToolFacts>,
    /// Its tools' names in the order it lists them (its first ones are named to the model).
    order: Vec<String>,
    /// The first line of its instructions, when it gave some.
    instructions: Option<String>,
    /// The [`signature`]s of its tools and instructions when they were indexed: with their
    /// schemas, and without.
    signature: u64,
    light_signature: u64,
}

impl ServerFacts {
    fn tokens(&self) -> usize {
        self.tools.values().map(|facts| facts.tokens).sum()
    }

    fn always_loaded(&self) -> impl Iterator<Item = &ToolFacts> {
        self.tools.values().filter(|facts| facts.always_load)
    }
}

/// A session's tool search: see the [module documentation](self).
#[derive(Debug)]
pub(crate) struct SearchState {
    options: ToolSearchOptions,
    /// Shared with searches under way, which must not hold the session's lock while an
    /// agent's ranker answers; an update while one runs copies it.
    index: Arc<ToolIndex>,
    servers: BTreeMap<String, ServerFacts>,
    /// The tools searches and calls loaded, least recently used first (at most the budget).
    loaded: Vec<Key>,
    /// The name each MCP tool is registered under, as of the last refresh.
    names: HashMap<Key, String>,
    deferring: bool,
    /// The search tool's description and its estimated tokens, for the servers as they are.
    description: String,
    search_tool_tokens: usize,
}

impl SearchState {
    pub(crate) fn new(options: ToolSearchOptions) -> Self {
        let mut index = ToolIndex::new();
        index.set_semantic(options.semantic);
        let mut state = Self {
            deferring: options.defers(0),
            options,
            index: Arc::new(index),
            servers: BTreeMap::new(),
            loaded: Vec::new(),
            names: HashMap::new(),
            description: String::new(),
            search_tool_tokens: 0,
        };
        state.describe();
        state
    }

    pub(crate) fn options(&self) -> &ToolSearchOptions {
        &self.options
    }

    /// Takes in the tools the manager offers now: the servers `changed` names are indexed and
    /// measured again, servers that appeared are added and servers that went are dropped;
    /// loaded tools that went are forgotten; whether to defer is decided again.
    /// `instructions` gives a server's instructions.
    pub(crate) fn update(
        &mut self,
        tools: &[ManagedTool],
        changed: Changed<'_>,
        instructions: impl Fn(&str) -> Option<String>,
    ) {
        let mut by_server: BTreeMap<&str, Vec<&ManagedTool>> = BTreeMap::new();
        for managed in tools {
            by_server.entry(&managed.server).or_default().push(managed);
        }
        let gone: Vec<String> = self
            .servers
            .keys()
            .filter(|server| !by_server.contains_key(server.as_str()))
            .cloned()
            .collect();
        let index = Arc::make_mut(&mut self.index);
        for server in gone {
            index.remove_server(&server);
            self.servers.remove(&server);
        }
        // Every server to index again, read at once (at a start, every server's, from the
        // cache: the index reads them on as many threads as pay off).
        let mut indexing = Vec::new();
        for (server, tools) in by_server {
            let known = self.servers.get(server);
            let schemas = match changed {
                Changed::Any => true,
                Changed::Reload => false,
                Changed::Server(name) if name == server => true,
                // Another server's: left as it is, unless it is new.
                Changed::Server(_) if known.is_some() => continue,
                Changed::Server(_) => true,
            };
            let instructions = instructions(server);
            let light_signature = signature(&tools, instructions.as_deref(), false);
            let unchanged = known.is_some_and(|facts| {
                facts.light_signature == light_signature
                    && (!schemas
                        || facts.signature == signature(&tools, instructions.as_deref(), true))
            });
            if unchanged {
                continue;
            }
            let mut facts = ServerFacts {
                tools: BTreeMap::new(),
                order: Vec::with_capacity(tools.len()),
                instructions: instructions.as_deref().and_then(first_line),
                signature: signature(&tools, instructions.as_deref(), true),
                light_signature,
            };
            let mut documents = Vec::with_capacity(tools.len());
            for managed in tools {
                let (name, description) = (managed.tool.name(), managed.tool.description());
                let parameters = managed.tool.parameters();
                facts.order.push(managed.original_name.clone());
                facts.tools.insert(
                    managed.original_name.clone(),
                    ToolFacts {
                        tokens: definition_tokens(name, description, parameters),
                        always_load: managed.always_load,
                    },
                );
                let mut document =
                    ToolDocument::new(server, managed.original_name.as_str(), description)
                        .exposed_name(name)
                        .parameters_from_schema(parameters);
                if let Some(title) = &managed.title {
                    document = document.title(title.as_str());
                }
                documents.push(document);
            }
            indexing.push(ServerTools::new(server, instructions, documents));
            self.servers.insert(server.to_owned(), facts);
        }
        index.set_servers(indexing);
        let servers = &self.servers;
        self.loaded.retain(|(server, tool)| {
            servers
                .get(server)
                .and_then(|facts| facts.tools.get(tool))
                .is_some_and(|facts| !facts.always_load)
        });
        self.deferring = self.options.defers(self.total_tokens());
        self.describe();
    }

    /// Remembers the names the tools are registered under.
    pub(crate) fn set_names(&mut self, names: HashMap<Key, String>) {
        self.names = names;
    }

    /// The name `tool` of `server` is registered under.
    pub(crate) fn name_of(&self, server: &str, tool: &str) -> Option<&str> {
        self.names
            .get(&(server.to_owned(), tool.to_owned()))
            .map(String::as_str)
    }

    /// Whether definitions are deferred now.
    pub(crate) fn deferring(&self) -> bool {
        self.deferring
    }

    /// Whether `tool` of `server` is listed to the model now.
    pub(crate) fn is_listed(&self, server: &str, tool: &str) -> bool {
        if !self.deferring {
            return true;
        }
        let always = self
            .servers
            .get(server)
            .and_then(|facts| facts.tools.get(tool))
            .is_some_and(|facts| facts.always_load);
        always || self.is_loaded(server, tool)
    }

    fn is_loaded(&self, server: &str, tool: &str) -> bool {
        self.loaded.iter().any(|(s, t)| s == server && t == tool)
    }

    /// Whether `tool` of `server` is one a search may load (known, not always loaded).
    fn loadable(&self, server: &str, tool: &str) -> bool {
        self.servers
            .get(server)
            .and_then(|facts| facts.tools.get(tool))
            .is_some_and(|facts| !facts.always_load)
    }

    /// Marks `keys` used now, loading those not loaded yet and unloading the least recently
    /// used past the budget; true when the listed set changed. Nothing changes while the
    /// session does not defer.
    pub(crate) fn touch(&mut self, keys: &[Key]) -> bool {
        if !self.deferring {
            return false;
        }
        let mut changed = false;
        for key in keys {
            if !self.loadable(&key.0, &key.1) {
                continue;
            }
            match self.loaded.iter().position(|loaded| loaded == key) {
                Some(at) => {
                    let key = self.loaded.remove(at);
                    self.loaded.push(key);
                }
                None => {
                    self.loaded.push(key.clone());
                    changed = true;
                }
            }
        }
        let budget = self.options.loaded_budget.max(1);
        if self.loaded.len() > budget {
            let over = self.loaded.len() - budget;
            self.loaded.drain(..over);
            changed = true;
        }
        changed
    }

    /// The tools loaded now, least recently used first.
    pub(crate) fn loaded(&self) -> &[Key] {
        &self.loaded
    }

    /// What a search needs, taken out so that no lock is held while it runs.
    pub(crate) fn searcher(&self) -> (Arc<ToolIndex>, Option<Arc<dyn Ranker>>, Combine) {
        (
            Arc::clone(&self.index),
            self.options.ranker.clone(),
            self.options.combine,
        )
    }

    /// The search tool's description, for the servers as they are now.
    pub(crate) fn description(&self) -> &str {
        &self.description
    }

    /// The estimated tokens of every MCP tool's definition.
    pub(crate) fn total_tokens(&self) -> usize {
        self.servers.values().map(ServerFacts::tokens).sum()
    }

    /// The servers with their tool counts and first lines of instructions, for the search
    /// tool's description; then its tokens.
    fn describe(&mut self) {
        let servers: Vec<(&str, usize, Option<&str>, Vec<&str>)> = self
            .servers
            .iter()
            .map(|(server, facts)| {
                (
                    server.as_str(),
                    facts.tools.len(),
                    facts.instructions.as_deref(),
                    facts
                        .order
                        .iter()
                        .take(NAMED_TOOLS)
                        .map(String::as_str)
                        .collect(),
                )
            })
            .collect();
        self.description = search_tool_description(&servers, self.options.loaded_budget);
        self.search_tool_tokens = definition_tokens(
            SEARCH_TOOL_NAME,
            &self.description,
            &search_tool_schema(self.options.loaded_budget),
        );
    }

    /// What the definitions cost the context, server by server.
    pub(crate) fn context(&self) -> ToolContext {
        let servers: Vec<ServerContext> = self
            .servers
            .iter()
            .map(|(server, facts)| ServerContext {
                server: server.clone(),
                tools: facts.tools.len(),
                tokens: facts.tokens(),
                always_loaded_tools: facts.always_loaded().count(),
                always_loaded_tokens: facts.always_loaded().map(|facts| facts.tokens).sum(),
            })
            .collect();
        let loaded_tokens = self
            .loaded
            .iter()
            .filter_map(|(server, tool)| self.servers.get(server)?.tools.get(tool))
            .map(|facts| facts.tokens)
            .sum();
        ToolContext {
            mode: self.options.mode,
            deferring: self.deferring,
            context_window: self.options.context_window,
            share_percent: self.options.share_percent,
            threshold: self.options.threshold(),
            total_tokens: servers.iter().map(|server| server.tokens).sum(),
            always_loaded_tokens: servers
                .iter()
                .map(|server| server.always_loaded_tokens)
                .sum(),
            servers,
            search_tool_tokens: self.search_tool_tokens,
            loaded_tools: self.loaded.len(),
            loaded_tokens,
        }
    }
}

/// A hash of what the state takes from a server's `tools` and `instructions`: each tool's
/// names, description, title, always-load flag and (with `schemas`) input schema, in order.
/// Equal hashes are taken for equal tools (64 bits: a collision between two lists of one
/// server is not a risk worth the cost of keeping every schema to compare).
fn signature(tools: &[&ManagedTool], instructions: Option<&str>, schemas: bool) -> u64 {
    let mut hasher = DefaultHasher::new();
    instructions.hash(&mut hasher);
    tools.len().hash(&mut hasher);
    for managed in tools {
        managed.original_name.hash(&mut hasher);
        managed.tool.name().hash(&mut hasher);
        managed.tool.description().hash(&mut hasher);
        managed.title.hash(&mut hasher);
        managed.always_load.hash(&mut hasher);
        if schemas {
            hash_value(managed.tool.parameters(), &mut hasher);
        }
    }
    hasher.finish()
}

/// Feeds a JSON value to `hasher`, kinds and lengths included (so `["a", "b"]` and `["ab"]`
/// differ).
fn hash_value(value: &Value, hasher: &mut impl Hasher) {
    match value {
        Value::Null => 0u8.hash(hasher),
        Value::Bool(flag) => (1u8, flag).hash(hasher),
        Value::Number(number) => (2u8, number).hash(hasher),
        Value::String(text) => (3u8, text).hash(hasher),
        Value::Array(items) => {
            (4u8, items.len()).hash(hasher);
            for item in items {
                hash_value(item, hasher);
            }
        }
        Value::Object(fields) => {
            (5u8, fields.len()).hash(hasher);
            for (key, field) in fields {
                key.hash(hasher);
                hash_value(field, hasher);
            }
        }
    }
}

/// The first line of `text`, trimmed and cut to 100 characters; none when blank.
fn first_line(text: &str) -> Option<String> {
    const MAX: usize = 100;
    let line = text.lines().map(str::trim).find(|line| !line.is_empty())?;
    if line.chars().count() <= MAX {
        return Some(line.to_owned());
    }
    let cut: String = line.chars().take(MAX - 1).collect();
    Some(format!("{cut}…"))
}
