//! From an MCP `tools/call` result (or failure) to a [`ToolOutput`].
//!
//! Text stays text; images and audio stay images and audio (agents that take text only use
//! [`ToolOutput::to_text`], which shows placeholders); resource links and embedded resources are
//! rendered as text with their URI; a block of an unknown type is rendered as its JSON.
//! `structuredContent` is kept in the details, and rendered as JSON text when the result has no
//! text of its own. `isError` makes an error output. A transport or protocol failure becomes
//! `MCP error: <message>` with the error flag; a cancellation stays a cancellation.
//!
//! The details name the server and the tool; the outputs of an MCP tool
//! ([`McpTool`](crate::McpTool), [`DeferredMcpTool`](crate::DeferredMcpTool)) also name the
//! config provider of its definition (`provider`, `providerName`, null when unknown), put in
//! place as the details are built.

use mcp_transport::protocol::TextContent;
use mcp_transport::{CallToolResult, ContentBlock};
use serde_json::{Map, Value};

use crate::tool::{OutputBlock, ToolCancelled, ToolOutput};

/// The config provider a server's definition came from: the agent or tool whose config file
/// defines it (`claude-code` / `Claude Code`, `cursor` / `Cursor`, …). The bridge knows no
/// config format: the manager sets it from where discovery found the server.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct ToolProvider {
    /// The provider's id, e.g. `claude-code`.
    pub id: String,
    /// The provider's display name, e.g. `Claude Code`.
    pub name: String,
}

impl ToolProvider {
    /// The provider `id`, shown as `name`.
    pub fn new(id: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
        }
    }
}

/// Whose output is being made: the server and tool the details name and, for an MCP tool, the
/// provider they name after them.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Origin<'a> {
    server: &'a str,
    tool: &'a str,
    /// `None`: the details have no provider keys (the public functions below); `Some(None)`:
    /// an MCP tool whose provider is unknown (the keys are null).
    provider: Option<Option<&'a ToolProvider>>,
}

impl<'a> Origin<'a> {
    fn plain(server: &'a str, tool: &'a str) -> Self {
        Self {
            server,
            tool,
            provider: None,
        }
    }

    /// An MCP tool's outputs: named with the config provider of its definition.
    pub(crate) fn of_mcp_tool(
        server: &'a str,
        tool: &'a str,
        provider: Option<&'a ToolProvider>,
    ) -> Self {
        Self {
            server,
            tool,
            provider: Some(provider),
        }
    }

    /// The details' first keys, in order: `server`, `tool`, then the provider's (`provider`,
    /// `providerName`) for an MCP tool; room for `more` keys after them.
    fn details(self, more: usize) -> Map<String, Value> {
        let mut details = Map::with_capacity(4 + more);
        details.insert("server".to_owned(), Value::from(self.server));
        details.insert("tool".to_owned(), Value::from(self.tool));
        if let Some(provider) = self.provider {
            let (id, name) = provider.map_or((Value::Null, Value::Null), |provider| {
                (
                    Value::from(provider.id.as_str()),
                    Value::from(provider.name.as_str()),
                )
            });
            details.insert("provider".to_owned(), id);
            details.insert("providerName".to_owned(), name);
        }
        details
    }
}

/// Converts a successful `tools/call` result.
pub fn convert_result(result: &CallToolResult, server: &str, tool: &str) -> ToolOutput {
    convert_owned(result.clone(), server, tool)
}

/// [`convert_result`] of a result the caller gives away: each block is copied once (for the
/// model's content) and moved into the details, instead of copied twice.
pub fn convert_owned(result: CallToolResult, server: &str, tool: &str) -> ToolOutput {
    convert_owned_from(result, Origin::plain(server, tool))
}

fn convert_owned_from(result: CallToolResult, origin: Origin<'_>) -> ToolOutput {
    let CallToolResult {
        content: blocks,
        structured_content,
        is_error,
        meta,
        ..
    } = result;
    let mut content: Vec<OutputBlock> = Vec::with_capacity(blocks.len() + 1);
    let mut raw = Vec::with_capacity(blocks.len());
    // Text of the result's own: what resource links and unknown blocks are rendered as does not
    // say what the structured content says.
    let mut has_text = false;
    for block in blocks {
        has_text |= matches!(block, ContentBlock::Text(_));
        content.push(convert_block(&block));
        raw.push(block_json(block));
    }
    if let Some(structured) = structured_content.as_ref().filter(|_| !has_text) {
        content.push(OutputBlock::Text {
            text: structured.to_string(),
        });
    }
    // The details are built by hand, not through `json!`: that would serialize every block
    // into a new tree (the hot path of every call); the keys and values are the same.
    let mut details = origin.details(4);
    details.insert("content".to_owned(), Value::Array(raw));
    details.insert(
        "structuredContent".to_owned(),
        structured_content.unwrap_or(Value::Null),
    );
    details.insert("isError".to_owned(), Value::Bool(is_error));
    details.insert("_meta".to_owned(), meta.map_or(Value::Null, Value::Object));
    ToolOutput {
        content,
        is_error,
        details: Value::Object(details),
    }
}

/// A block as the JSON it was sent as (what serializing it gives). Text blocks, nearly every
/// block there is, are taken apart without a serializer; their fields are moved, not copied.
fn block_json(block: ContentBlock) -> Value {
    match block {
        ContentBlock::Text(text) => {
            let TextContent { text, extra, .. } = text;
            let mut object = Map::with_capacity(2 + extra.len());
            object.insert("type".to_owned(), Value::from("text"));
            object.insert("text".to_owned(), Value::String(text));
            // The fields kept as sent follow, as serializing the flattened map puts them.
            object.extend(extra);
            Value::Object(object)
        }
        ContentBlock::Unknown(value) => value,
        // Serializing a content block into a JSON value cannot fail: its keys are strings.
        other => serde_json::to_value(&other).unwrap_or(Value::Null),
    }
}

/// The output for a call that could not be made or answered.
pub fn error_output(message: impl std::fmt::Display, server: &str, tool: &str) -> ToolOutput {
    error_output_from(message, Origin::plain(server, tool))
}

/// [`error_output`] of `origin`.
pub(crate) fn error_output_from(message: impl std::fmt::Display, origin: Origin<'_>) -> ToolOutput {
    let message = message.to_string();
    let content = vec![OutputBlock::Text {
        text: format!("MCP error: {message}"),
    }];
    let mut details = origin.details(1);
    details.insert("error".to_owned(), Value::String(message));
    ToolOutput {
        content,
        is_error: true,
        details: Value::Object(details),
    }
}

/// Converts the outcome of `McpClient::call_tool*`: a cancellation stays a cancellation,
/// every other failure becomes an error output.
pub fn convert_call(
    outcome: Result<CallToolResult, mcp_transport::Error>,
    server: &str,
    tool: &str,
) -> Result<ToolOutput, ToolCancelled> {
    convert_call_from(outcome, Origin::plain(server, tool))
}

/// [`convert_call`] of `origin`.
pub(crate) fn convert_call_from(
    outcome: Result<CallToolResult, mcp_transport::Error>,
    origin: Origin<'_>,
) -> Result<ToolOutput, ToolCancelled> {
    match outcome {
        Ok(result) => Ok(convert_owned_from(result, origin)),
        Err(error) if error.is_cancelled() => Err(ToolCancelled::new()),
        Err(error) => Ok(error_output_from(&error, origin)),
    }
}

fn convert_block(block: &ContentBlock) -> OutputBlock {
    let text = |text: String| OutputBlock::Text { text };
    match block {
        ContentBlock::Text(content) => text(content.text.clone()),
        ContentBlock::Image(image) => OutputBlock::Image {
            data: image.data.clone(),
            mime_type: image.mime_type.clone(),
        },
        ContentBlock::Audio(audio) => OutputBlock::Audio {
            data: audio.data.clone(),
            mime_type: audio.mime_type.clone(),
        },
        ContentBlock::ResourceLink(link) => {
            let mut rendered = format!("[Resource link: {}] {}", link.name, link.uri);
            if let Some(mime) = &link.mime_type {
                rendered.push_str(&format!(" ({mime})"));
            }
            if let Some(description) = &link.description {
                rendered.push_str(&format!("\n{description}"));
            }
            text(rendered)
        }
        ContentBlock::Resource(embedded) => {
            let resource = &embedded.resource;
            let mime = resource
                .mime_type
                .as_deref()
                .map(|mime| format!(" ({mime})"))
                .unwrap_or_default();
            match (&resource.text, &resource.blob) {
                (Some(body), _) => text(format!("[Resource: {}{mime}]\n{body}", resource.uri)),
                (None, Some(blob)) => text(format!(
                    "[Resource: {}{mime}, {} bytes of binary data]",
                    resource.uri,
                    blob.trim_end_matches('=').len() * 3 / 4
                )),
                (None, None) => text(format!("[Resource: {}{mime}]", resource.uri)),
            }
        }
        ContentBlock::Unknown(value) => {
            let kind = value
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or("unknown");
            text(format!("[{kind} content] {value}"))
        }
        other => text(format!("[{} content]", other.kind())),
    }
}
