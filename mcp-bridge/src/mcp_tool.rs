//! [`McpTool`] (a live connection) and [`DeferredMcpTool`] (a cached definition whose server is
//! still connecting), and the [`ConnectionProvider`] the deferred one waits through.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use async_trait::async_trait;
use mcp_transport::{
    McpClient, ProgressCallback, ProgressNotificationParams, RequestOptions, Tool,
};
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::arguments::{ArgumentCheck, ArgumentMismatch};
use crate::budget::OutputBudget;
use crate::convert::{Origin, ToolProvider, convert_call_from, error_output_from};
use crate::schema::tool_parameters;
use crate::tool::{AgentTool, ProgressSink, ToolCancelled, ToolOutput, ToolProgress};

/// Why a [`ConnectionProvider`] has no connection to give: the provider's own error (the
/// manager's keeps the transport error, exit status and stderr tail), shared.
pub type ConnectionError = Arc<dyn std::error::Error + Send + Sync>;

/// Gives a server's live connection, waiting for one that is still being made. The manager
/// implements it; the bridge does not know the manager.
#[async_trait]
pub trait ConnectionProvider: Send + Sync {
    /// The server's connection once it is ready, or why there is none (its message is shown to
    /// the model after `MCP error: `).
    async fn wait_for_connection(&self, server: &str) -> Result<Arc<McpClient>, ConnectionError>;
}

impl std::fmt::Debug for dyn ConnectionProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("dyn ConnectionProvider")
    }
}

/// What the model sees of an MCP tool, and the original names behind it.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct McpToolDefinition {
    /// The name the model calls (see [`crate::naming`]).
    pub name: String,
    /// `server/tool`.
    pub label: String,
    /// The tool's description, or `MCP tool from <server>`.
    pub description: String,
    /// The server's configured name.
    pub server: String,
    /// The tool as the server listed it.
    pub tool: Tool,
    /// The config provider the server's definition came from; `None` when unknown. Every
    /// result's details carry it (`provider`, `providerName`). Shared by a server's tools.
    pub provider: Option<Arc<ToolProvider>>,
    /// How long a call may go without an answer or progress (the server's `toolTimeout`);
    /// `None` uses the client's request timeout.
    pub timeout: Option<Duration>,
    /// What a result may cost the model's context; none: results go whole.
    pub budget: Option<Arc<OutputBudget>>,
    /// The parameters (see [`parameters`](Self::parameters)), built at the first call: a start
    /// from the cache makes thousands of definitions whose schemas are still JSON text.
    parameters: OnceLock<Value>,
}

/// Equal when everything but the lazily built parameters is (they follow from the tool).
impl PartialEq for McpToolDefinition {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
            && self.label == other.label
            && self.description == other.description
            && self.server == other.server
            && self.tool == other.tool
            && self.provider == other.provider
            && self.timeout == other.timeout
            && self.budget == other.budget
    }
}

impl McpToolDefinition {
    /// The definition of `tool` of `server`, under the model-facing `name`.
    pub fn new(name: impl Into<String>, server: &str, tool: Tool) -> Self {
        let description = tool
            .description
            .clone()
            .filter(|text| !text.trim().is_empty())
            .or_else(|| tool.title.clone())
            .unwrap_or_else(|| format!("MCP tool from {server}"));
        Self {
            name: name.into(),
            label: format!("{server}/{}", tool.name),
            description,
            server: server.to_owned(),
            tool,
            provider: None,
            timeout: None,
            budget: None,
            parameters: OnceLock::new(),
        }
    }

    /// What the model is given as the tool's parameters: the tool's input schema with two
    /// changes, everything else verbatim and in its order.
    ///
    /// - The top-level `$schema` is removed (a model API takes the schema, not its dialect; a
    ///   `$schema` inside a nested schema is part of it and stays).
    /// - OpenAPI 3.0's `nullable`, which JSON Schema model APIs reject (a strict validator
    ///   refuses the tool) or ignore (the model and [`check_arguments`](crate::check_arguments)
    ///   never learn that null is allowed), is written as JSON Schema 2020-12 says it, with
    ///   the meaning OpenAPI 3.0.3 gives it. In every schema of the tree — the root, and each
    ///   schema under `properties`, `patternProperties`, `additionalProperties`, `items` (one
    ///   or a list), `prefixItems`, `additionalItems`, `unevaluatedItems`,
    ///   `unevaluatedProperties`, `contains`, `propertyNames`, `allOf`, `anyOf`, `oneOf`,
    ///   `not`, `if`, `then`, `else`, `contentSchema`, `$defs`, `definitions`,
    ///   `dependentSchemas` and `dependencies` — a `nullable` whose value is a boolean is
    ///   removed; when it was `true`, "null" first joins the types of the `type` beside it:
    ///   `"type": "string"` becomes `"type": ["string", "null"]`, a list of type names gains
    ///   `"null"` at its end unless it has it. Nothing else changes: an `enum` without `null`
    ///   still refuses it, and a `nullable` without a `type` beside it (next to a `$ref`, an
    ///   `anyOf`, or alone) adds nothing and is only removed.
    ///
    /// Not touched: values that are not schemas (`default`, `examples`, `const`, `enum`,
    /// extensions such as `x-…`) even when they hold the word, a property *named* `nullable`,
    /// and a `nullable` that is not a boolean (not OpenAPI's keyword). A model API that takes
    /// OpenAPI's subset rather than JSON Schema (Gemini's function declarations) must convert
    /// type lists anyway — servers write their own — so its adapter converts these too.
    pub fn parameters(&self) -> &Value {
        self.parameters
            .get_or_init(|| tool_parameters(self.tool.input_schema.to_object()))
    }

    /// Whose outputs this tool's are: its server, its tool and its provider, for the details.
    fn origin(&self) -> Origin<'_> {
        Origin::of_mcp_tool(&self.server, &self.tool.name, self.provider.as_deref())
    }

    /// This definition with the config provider its server's definition came from.
    #[must_use]
    pub fn with_provider(mut self, provider: Option<Arc<ToolProvider>>) -> Self {
        self.provider = provider;
        self
    }

    /// This definition with results cut to `budget`.
    #[must_use]
    pub fn with_budget(mut self, budget: Option<Arc<OutputBudget>>) -> Self {
        self.budget = budget;
        self
    }

    /// This definition with calls timing out after `timeout` without an answer or progress.
    #[must_use]
    pub fn with_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.timeout = timeout;
        self
    }
}

/// However much progress a call reports, it ends after this long (or its own timeout, if that
/// is longer).
pub const MAX_CALL_DURATION: Duration = Duration::from_secs(600);

/// The progress callback every call carries, so that the server is asked for progress (and
/// progress can extend the call's timeout): the caller's sink, or one shared callback that
/// drops the reports. With a sink, the task a call becomes is reported too: at once, with its
/// id and no message, then its id on every report after (its changes of status among them).
fn progress_requested(sink: Option<ProgressSink>, options: &mut RequestOptions) {
    static DROPPED: std::sync::OnceLock<ProgressCallback> = std::sync::OnceLock::new();
    let Some(sink) = sink else {
        options.on_progress =
            Some(Arc::clone(DROPPED.get_or_init(|| {
                Arc::new(|_: ProgressNotificationParams| {})
            })));
        return;
    };
    let task = Arc::new(std::sync::OnceLock::<String>::new());
    options.on_task = Some({
        let (sink, task) = (Arc::clone(&sink), Arc::clone(&task));
        Arc::new(move |created: &mcp_transport::Task| {
            // Its status follows at once, as the first of the task's reports.
            let _ = task.set(created.task_id.clone());
            sink(ToolProgress::new(0.0, None, None).of_task(created.task_id.clone()));
        })
    });
    options.on_progress = Some(Arc::new(move |report: ProgressNotificationParams| {
        let mut progress = ToolProgress::new(report.progress, report.total, report.message);
        progress.task_id = task.get().cloned();
        sink(progress);
    }));
}

/// Model arguments as MCP tool arguments: an object, or nothing.
fn arguments(args: Value) -> Result<Option<Map<String, Value>>, String> {
    match args {
        Value::Object(object) => Ok(Some(object)),
        Value::Null => Ok(None),
        other => Err(format!(
            "the arguments must be a JSON object, not {}",
            match other {
                Value::Array(_) => "an array",
                Value::String(_) => "a string",
                Value::Number(_) => "a number",
                _ => "a boolean",
            }
        )),
    }
}

async fn call(
    client: &McpClient,
    definition: &McpToolDefinition,
    args: Value,
    cancel: CancellationToken,
    progress: Option<ProgressSink>,
) -> Result<ToolOutput, ToolCancelled> {
    // Cancelled before it started: the server must not see the call at all (the peer would send
    // the request and cancel it right after, too late for a tool that acts at once).
    if cancel.is_cancelled() {
        return Err(ToolCancelled::new());
    }
    let (server, tool) = (&definition.server, &definition.tool.name);
    let origin = definition.origin();
    let arguments = match arguments(args) {
        Ok(arguments) => arguments,
        Err(message) => return Ok(error_output_from(&message, origin)),
    };
    // Progress is asked for, and each report restarts the timeout, up to a maximum.
    let limit = definition
        .timeout
        .map_or(MAX_CALL_DURATION, |timeout| timeout.max(MAX_CALL_DURATION));
    let mut options = RequestOptions::default()
        .cancel_with(cancel)
        .reset_timeout_on_progress(limit);
    progress_requested(progress, &mut options);
    if let Some(timeout) = definition.timeout {
        options = options.timeout(timeout);
    }
    let output = convert_call_from(
        client
            .call_tool_with(tool, arguments.as_ref(), &options)
            .await,
        origin,
    )?;
    Ok(match &definition.budget {
        Some(budget) => budget.apply(output, server, tool),
        None => output,
    })
}

/// The [`AgentTool`] impl of an MCP tool type: the four accessors answer from
/// `self.definition`, the argument check from `self.arguments` (prepared from the schema at
/// the first check: making a tool, thousands at a start, stays cheap), and `execute` and
/// `execute_with_progress` run the body with the tool, the arguments, the cancellation token
/// and the progress sink (none for `execute`) bound to the names given.
macro_rules! mcp_agent_tool {
    ($type:ty, |$tool:ident, $args:ident, $cancel:ident, $progress:ident| $body:block) => {
        #[async_trait]
        impl AgentTool for $type {
            fn name(&self) -> &str {
                &self.definition.name
            }

            fn label(&self) -> &str {
                &self.definition.label
            }

            fn description(&self) -> &str {
                &self.definition.description
            }

            fn parameters(&self) -> &Value {
                self.definition.parameters()
            }

            fn check_arguments(&self, args: &Value) -> Result<(), ArgumentMismatch> {
                self.arguments
                    .get_or_init(|| ArgumentCheck::new(self.definition.parameters()))
                    .check(args)
            }

            async fn execute(
                &self,
                args: Value,
                cancel: CancellationToken,
            ) -> Result<ToolOutput, ToolCancelled> {
                self.run(args, cancel, None).await
            }

            async fn execute_with_progress(
                &self,
                args: Value,
                cancel: CancellationToken,
                progress: ProgressSink,
            ) -> Result<ToolOutput, ToolCancelled> {
                self.run(args, cancel, Some(progress)).await
            }
        }

        impl $type {
            async fn run(
                &self,
                $args: Value,
                $cancel: CancellationToken,
                $progress: Option<ProgressSink>,
            ) -> Result<ToolOutput, ToolCancelled> {
                let $tool = self;
                $body
            }
        }
    };
}

/// An MCP tool on a live connection.
#[derive(Debug)]
pub struct McpTool {
    definition: McpToolDefinition,
    /// The check of the arguments, prepared at the first call that is checked.
    arguments: OnceLock<ArgumentCheck>,
    client: Arc<McpClient>,
}

impl McpTool {
    /// A tool calling through `client`.
    pub fn new(definition: McpToolDefinition, client: Arc<McpClient>) -> Self {
        Self {
            arguments: OnceLock::new(),
            definition,
            client,
        }
    }

    /// The definition, with the original server and tool names.
    pub fn definition(&self) -> &McpToolDefinition {
        &self.definition
    }
}

mcp_agent_tool!(McpTool, |tool, args, cancel, progress| {
    call(&tool.client, &tool.definition, args, cancel, progress).await
});

/// An MCP tool from the cache whose server is still connecting: a call waits for the
/// connection (or the caller's cancellation), then calls.
#[derive(Debug)]
pub struct DeferredMcpTool {
    definition: McpToolDefinition,
    /// The check of the arguments, prepared at the first call that is checked.
    arguments: OnceLock<ArgumentCheck>,
    provider: Arc<dyn ConnectionProvider>,
}

impl DeferredMcpTool {
    /// A tool that reaches its server through `provider`.
    pub fn new(definition: McpToolDefinition, provider: Arc<dyn ConnectionProvider>) -> Self {
        Self {
            arguments: OnceLock::new(),
            definition,
            provider,
        }
    }

    /// The definition, with the original server and tool names.
    pub fn definition(&self) -> &McpToolDefinition {
        &self.definition
    }
}

mcp_agent_tool!(DeferredMcpTool, |tool, args, cancel, progress| {
    let server = &tool.definition.server;
    let connection = tokio::select! {
        // A cancellation wins over a connection that became ready at the same time.
        biased;
        () = cancel.cancelled() => return Err(ToolCancelled::new()),
        connection = tool.provider.wait_for_connection(server) => connection,
    };
    match connection {
        Ok(client) => call(&client, &tool.definition, args, cancel, progress).await,
        Err(error) => Ok(error_output_from(&error, tool.definition.origin())),
    }
});
