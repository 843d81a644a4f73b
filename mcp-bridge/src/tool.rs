//! The agent-facing tool trait and what a tool returns.

use async_trait::async_trait;
use serde::Serialize;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

#[cfg(doc)]
use crate::arguments::ArgumentCheck;
use crate::arguments::{ArgumentMismatch, check_arguments};

/// A tool in an agent's registry: MCP tools, proxies and the agent's own tools alike.
#[async_trait]
pub trait AgentTool: Send + Sync {
    /// The name the model calls it by (`^[a-zA-Z0-9_-]{1,64}$`).
    fn name(&self) -> &str;

    /// A short human-readable label, e.g. `github/create_issue`.
    fn label(&self) -> &str;

    /// What the tool does, for the model.
    fn description(&self) -> &str;

    /// The JSON Schema of the arguments.
    fn parameters(&self) -> &Value;

    /// Whether `args` are what [`parameters`](Self::parameters) asks for (see
    /// [`check_arguments`]); the first mismatch found. An agent checks a call with it before
    /// [`execute`](Self::execute), to refuse a wrong argument with the field named. The default
    /// reads the schema on every call; a tool called often keeps an [`ArgumentCheck`] prepared
    /// once.
    fn check_arguments(&self, args: &Value) -> Result<(), ArgumentMismatch> {
        check_arguments(self.parameters(), args)
    }

    /// Runs the tool. A failure of the tool is an output with `is_error` set (the model sees
    /// it); only a cancellation through `cancel` is an `Err`.
    ///
    /// `args` is the model's JSON as it came, whatever it is: an MCP tool takes an object (or
    /// `null` for none, as the protocol's `McpClient::call_tool_with` does) and answers any
    /// other value with an error output naming what it got, so the model can correct itself.
    async fn execute(
        &self,
        args: Value,
        cancel: CancellationToken,
    ) -> Result<ToolOutput, ToolCancelled>;

    /// Runs the tool as [`execute`](Self::execute) does, passing each report of its progress
    /// to `progress` as it comes (an MCP tool's: the server's `notifications/progress`), for a
    /// person waiting on a long call. The default reports nothing.
    async fn execute_with_progress(
        &self,
        args: Value,
        cancel: CancellationToken,
        progress: ProgressSink,
    ) -> Result<ToolOutput, ToolCancelled> {
        let _ = progress;
        self.execute(args, cancel).await
    }
}

/// Where a call's progress reports go ([`AgentTool::execute_with_progress`]); called from the
/// connection's task, so it must not block.
pub type ProgressSink = std::sync::Arc<dyn Fn(ToolProgress) + Send + Sync>;

/// One report of a call's progress.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ToolProgress {
    /// Progress so far (it grows with every report).
    pub progress: f64,
    /// The total, when the tool knows it.
    pub total: Option<f64>,
    /// What the tool is doing, in its words (quote it through a terminal escape).
    pub message: Option<String>,
    /// The id of the task the server made of the call (the Tasks extension), on the first
    /// report about it and every one after: for a caller that keeps it, to resume or cancel
    /// the task later. The first such report comes as soon as the task is created.
    pub task_id: Option<String>,
}

impl ToolProgress {
    /// A report.
    pub fn new(progress: f64, total: Option<f64>, message: Option<String>) -> Self {
        Self {
            progress,
            total,
            message,
            task_id: None,
        }
    }

    /// This report, about the task `task_id`.
    #[must_use]
    pub fn of_task(mut self, task_id: impl Into<String>) -> Self {
        self.task_id = Some(task_id.into());
        self
    }
}

impl std::fmt::Debug for dyn AgentTool {
    /// A tool shows as its name: what a registry or an options dump needs to tell tools apart.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("AgentTool").field(&self.name()).finish()
    }
}

/// The call was cancelled by the caller; nothing is reported to the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the tool call was cancelled")]
#[non_exhaustive]
pub struct ToolCancelled;

impl ToolCancelled {
    /// The cancellation.
    pub fn new() -> Self {
        Self
    }
}

impl Default for ToolCancelled {
    fn default() -> Self {
        Self::new()
    }
}

/// What a tool call gives back.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ToolOutput {
    /// The blocks the model sees, in order.
    pub content: Vec<OutputBlock>,
    /// True when the call failed; the content says why.
    pub is_error: bool,
    /// Everything else a UI or log may want: for an MCP tool the server, the tool, the config
    /// provider its server came from, the raw result and the structured content.
    pub details: Value,
}

impl ToolOutput {
    /// A successful output of one text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            content: vec![OutputBlock::Text { text: text.into() }],
            is_error: false,
            details: Value::Null,
        }
    }

    /// A failed output of one text block.
    pub fn error(text: impl Into<String>) -> Self {
        Self {
            is_error: true,
            ..Self::text(text)
        }
    }

    /// The text blocks joined with newlines; images and audio as placeholders, for agents
    /// that take text only.
    pub fn to_text(&self) -> String {
        self.content
            .iter()
            .map(OutputBlock::to_text)
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// One block of a tool's output.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum OutputBlock {
    /// Text.
    Text {
        /// The text.
        text: String,
    },
    /// An image, base64.
    Image {
        /// Base64 bytes.
        data: String,
        /// E.g. `image/png`.
        mime_type: String,
    },
    /// Audio, base64.
    Audio {
        /// Base64 bytes.
        data: String,
        /// E.g. `audio/wav`.
        mime_type: String,
    },
}

impl OutputBlock {
    /// The block as text: images and audio become a placeholder naming their type and size.
    pub fn to_text(&self) -> String {
        match self {
            Self::Text { text } => text.clone(),
            Self::Image { data, mime_type } => {
                format!("[image: {mime_type}, {} bytes]", base64_len(data))
            }
            Self::Audio { data, mime_type } => {
                format!("[audio: {mime_type}, {} bytes]", base64_len(data))
            }
        }
    }
}

/// The decoded size of base64 text, without decoding it.
fn base64_len(data: &str) -> usize {
    let trimmed = data.trim_end_matches('=');
    trimmed.len() * 3 / 4
}
