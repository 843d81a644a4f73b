//! The tools tool search adds to a session's registry: [`SearchTool`] (`mcp_tool_search`,
//! listed while the session defers) and [`OnCallLoader`], which stands in the registry for
//! each deferrable MCP tool so that calling it by name — found by a search or not — loads it.

use std::fmt::Write as _;
use std::sync::{Arc, Weak};

use async_trait::async_trait;
use mcp_bridge::{AgentTool, ArgumentMismatch, ProgressSink, ToolCancelled, ToolOutput};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::DEFAULT_SEARCH_LIMIT;
use crate::session::AgentSession;

/// The search tool's name.
pub const SEARCH_TOOL_NAME: &str = "mcp_tool_search";

/// At most this many servers are named in the search tool's description (each on a line).
const NAMED_SERVERS: usize = 100;
/// Without instructions, a server's line names this many of its tools.
pub(crate) const NAMED_TOOLS: usize = 4;

/// A tool a search found, with its full definition.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct FoundTool {
    /// The name the model calls it by (`mcp_github_create_issue`).
    pub name: String,
    /// Its server.
    pub server: String,
    /// Its name on the server.
    pub tool: String,
    /// How well it matched (higher is better; comparable within one search only).
    pub score: f32,
    /// Its description.
    pub description: String,
    /// Its input schema, as the model is given it.
    pub input_schema: Value,
}

/// The search tool's input schema: `query`, and `limit` up to `budget`.
pub(crate) fn search_tool_schema(budget: usize) -> Value {
    json!({
        "type": "object",
        "properties": {
            "query": {
                "type": "string",
                "description": "What you want to do, in a few words (\"open an issue\", \"take a \
                    screenshot of the page\"), or a /regular expression/ over the tools' names \
                    (as you call them, or as their servers name them) and their descriptions \
                    (\"/create_.*issue/\")."
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": budget.max(1),
                "description": format!(
                    "How many tools to return and load (default {DEFAULT_SEARCH_LIMIT})."
                ),
            },
        },
        "required": ["query"],
    })
}

/// The search tool's description: what it does, then each server (up to [`NAMED_SERVERS`])
/// on a line with its tool count and the first line of its instructions, or the first of its
/// tools' names (up to [`NAMED_TOOLS`] are given) when it gave none.
pub(crate) fn search_tool_description(
    servers: &[(&str, usize, Option<&str>, Vec<&str>)],
    budget: usize,
) -> String {
    let total: usize = servers.iter().map(|(_, tools, _, _)| tools).sum();
    let mut text = format!(
        "Finds tools of the connected MCP servers and loads them: their definitions are not \
         listed until a search finds them. Returns the best matches (default \
         {DEFAULT_SEARCH_LIMIT}, at most {budget}) with their full definitions; they stay \
         loaded and are called by their names from then on. Search whenever a task may need a \
         tool you do not see.\nServers ({} with {total} tools):",
        servers.len()
    );
    for (server, tools, instructions, names) in servers.iter().take(NAMED_SERVERS) {
        let _ = write!(text, "\n- {server}: {tools} tool{}", plural(*tools));
        match instructions {
            Some(line) => {
                let _ = write!(text, ". {line}");
            }
            None if !names.is_empty() => {
                let shown: Vec<&str> = names.iter().take(NAMED_TOOLS).copied().collect();
                let more = if names.len() > NAMED_TOOLS {
                    ", …"
                } else {
                    ""
                };
                let _ = write!(text, " ({}{more})", shown.join(", "));
            }
            None => {}
        }
    }
    if servers.len() > NAMED_SERVERS {
        let _ = write!(text, "\n- and {} more", servers.len() - NAMED_SERVERS);
    }
    text
}

fn plural(count: usize) -> &'static str {
    if count == 1 { "" } else { "s" }
}

/// `mcp_tool_search`: searches the session's index and loads what it finds.
pub(crate) struct SearchTool {
    description: String,
    parameters: Value,
    budget: usize,
    session: Weak<AgentSession>,
}

impl SearchTool {
    pub(crate) fn new(description: String, budget: usize, session: Weak<AgentSession>) -> Self {
        Self {
            description,
            parameters: search_tool_schema(budget),
            budget: budget.max(1),
            session,
        }
    }

    /// The query and the limit of a call, or what is wrong with them.
    fn arguments(&self, args: &Value) -> Result<(String, usize), String> {
        let query = args
            .get("query")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|query| !query.is_empty())
            .ok_or("`query` must be a non-empty string: what you want to do, in a few words")?;
        let limit = match args.get("limit") {
            None | Some(Value::Null) => DEFAULT_SEARCH_LIMIT,
            Some(limit) => limit
                .as_u64()
                .and_then(|limit| usize::try_from(limit).ok())
                .filter(|limit| *limit >= 1)
                .ok_or("`limit` must be a whole number of at least 1")?,
        };
        Ok((query.to_owned(), limit.min(self.budget)))
    }
}

#[async_trait]
impl AgentTool for SearchTool {
    fn name(&self) -> &str {
        SEARCH_TOOL_NAME
    }

    fn label(&self) -> &str {
        "tool search"
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn parameters(&self) -> &Value {
        &self.parameters
    }

    async fn execute(
        &self,
        args: Value,
        cancel: CancellationToken,
    ) -> Result<ToolOutput, ToolCancelled> {
        let (query, limit) = match self.arguments(&args) {
            Ok(arguments) => arguments,
            Err(message) => return Ok(ToolOutput::error(message)),
        };
        let Some(session) = self.session.upgrade() else {
            return Ok(ToolOutput::error("MCP error: the session has ended"));
        };
        let found = tokio::select! {
            found = session.search_and_load_tools(&query, limit) => found,
            () = cancel.cancelled() => return Err(ToolCancelled::new()),
        };
        Ok(match found {
            Ok(found) => found_output(&query, &found),
            Err(error) => ToolOutput::error(format!(
                "{error}; write the pattern again, or search with words"
            )),
        })
    }
}

/// What the model gets from a search: the definitions found, as JSON, after a line saying
/// they are loaded; the details carry the query, names and scores.
fn found_output(query: &str, found: &[FoundTool]) -> ToolOutput {
    if found.is_empty() {
        let mut output = ToolOutput::text(format!(
            "No tool matches {query:?}. Search again with other words (what the tool does, the \
             service it works on), or with a /regular expression/ over tool names."
        ));
        output.details = json!({"query": query, "tools": []});
        return output;
    }
    let definitions: Vec<Value> = found
        .iter()
        .map(|tool| {
            json!({
                "name": tool.name,
                "description": tool.description,
                "input_schema": tool.input_schema,
            })
        })
        .collect();
    let mut output = ToolOutput::text(format!(
        "{} tool{} found and loaded; call {} by name:\n{}",
        found.len(),
        plural(found.len()),
        if found.len() == 1 { "it" } else { "them" },
        json!({"tools": definitions})
    ));
    output.details = json!({
        "query": query,
        "tools": found.iter().map(|tool| json!({
            "name": tool.name,
            "server": tool.server,
            "tool": tool.tool,
            "score": tool.score,
        })).collect::<Vec<_>>(),
    });
    output
}

/// An MCP tool a deferring session may not list: the same tool, whose call first tells the
/// session it is used (loading it when it was not listed, or making it the most recently used).
pub(crate) struct OnCallLoader {
    inner: Arc<dyn AgentTool>,
    server: String,
    tool: String,
    session: Weak<AgentSession>,
}

impl OnCallLoader {
    pub(crate) fn new(
        inner: Arc<dyn AgentTool>,
        server: String,
        tool: String,
        session: Weak<AgentSession>,
    ) -> Self {
        Self {
            inner,
            server,
            tool,
            session,
        }
    }
}

#[async_trait]
impl AgentTool for OnCallLoader {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn label(&self) -> &str {
        self.inner.label()
    }

    fn description(&self) -> &str {
        self.inner.description()
    }

    fn parameters(&self) -> &Value {
        self.inner.parameters()
    }

    fn check_arguments(&self, args: &Value) -> Result<(), ArgumentMismatch> {
        self.inner.check_arguments(args)
    }

    async fn execute(
        &self,
        args: Value,
        cancel: CancellationToken,
    ) -> Result<ToolOutput, ToolCancelled> {
        self.load();
        self.inner.execute(args, cancel).await
    }

    async fn execute_with_progress(
        &self,
        args: Value,
        cancel: CancellationToken,
        progress: ProgressSink,
    ) -> Result<ToolOutput, ToolCancelled> {
        self.load();
        self.inner
            .execute_with_progress(args, cancel, progress)
            .await
    }
}

impl OnCallLoader {
    /// Loads the tool into the session's registry, as a search that found it would.
    fn load(&self) {
        if let Some(session) = self.session.upgrade() {
            session.use_tools(&[(self.server.clone(), self.tool.clone())]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_description_names_each_server_with_its_count_and_a_line() {
        let text = search_tool_description(
            &[
                (
                    "files",
                    6,
                    None,
                    vec!["read_file", "write_file", "move", "list", "stat"],
                ),
                (
                    "github",
                    1,
                    Some("GitHub: issues and pull requests."),
                    vec!["x"],
                ),
                ("quiet", 0, None, vec![]),
            ],
            64,
        );
        assert!(text.contains("Servers (3 with 7 tools):"), "{text}");
        assert!(
            text.contains("\n- files: 6 tools (read_file, write_file, move, list, …)"),
            "{text}"
        );
        assert!(
            text.contains("\n- github: 1 tool. GitHub: issues and pull requests."),
            "{text}"
        );
        assert!(text.ends_with("\n- quiet: 0 tools"), "{text}");
        assert!(text.contains("at most 64"), "{text}");
    }

    fn tool(budget: usize) -> SearchTool {
        SearchTool::new(String::new(), budget, Weak::new())
    }

    #[test]
    fn a_search_takes_a_query_and_a_limit_capped_at_the_budget() {
        let search = tool(8);
        assert_eq!(
            search.arguments(&json!({"query": " open an issue "})),
            Ok(("open an issue".to_owned(), DEFAULT_SEARCH_LIMIT))
        );
        assert_eq!(
            search.arguments(&json!({"query": "x", "limit": 50})),
            Ok(("x".to_owned(), 8))
        );
        for bad in [
            json!({}),
            json!({"query": "  "}),
            json!({"query": 3}),
            json!({"query": "x", "limit": 0}),
            json!({"query": "x", "limit": "5"}),
        ] {
            assert!(search.arguments(&bad).is_err(), "{bad}");
        }
    }

    #[tokio::test]
    async fn a_search_without_its_session_says_so() {
        let output = tool(4)
            .execute(json!({"query": "x"}), CancellationToken::new())
            .await
            .unwrap();
        assert!(output.is_error);
        assert!(output.to_text().contains("session has ended"), "{output:?}");
    }
}
