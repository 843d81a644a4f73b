//! MCP protocol types for the handshake-era versions (2024-11-05 … 2025-11-25).
//!
//! Only what a tool-using client needs is modelled field by field; everything else a server sends
//! is kept, not dropped: unknown fields of a [`Tool`] land in [`Tool::extra`], tool schemas are
//! kept verbatim (key order included), and a content block of a type this crate does not know is
//! kept as [`ContentBlock::Unknown`] instead of failing the whole result.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

/// A JSON object, as used for schemas, `_meta` and tool arguments.
pub type JsonObject = Map<String, Value>;

/// A protocol version that uses the `initialize` handshake.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum ProtocolVersion {
    /// `2024-11-05`, the first published version.
    V2024_11_05,
    /// `2025-03-26`: Streamable HTTP, JSON-RPC batches, audio content.
    V2025_03_26,
    /// `2025-06-18`: structured tool output, resource links, no more batches.
    V2025_06_18,
    /// `2025-11-25`: the latest handshake-era version, offered by this client.
    V2025_11_25,
}

impl ProtocolVersion {
    /// The version this client offers in `initialize`.
    pub const LATEST: Self = Self::V2025_11_25;

    /// Every version this client accepts, newest first.
    pub const SUPPORTED: [Self; 4] = [
        Self::V2025_11_25,
        Self::V2025_06_18,
        Self::V2025_03_26,
        Self::V2024_11_05,
    ];

    /// The version's wire form, e.g. `"2025-11-25"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::V2024_11_05 => "2024-11-05",
            Self::V2025_03_26 => "2025-03-26",
            Self::V2025_06_18 => "2025-06-18",
            Self::V2025_11_25 => "2025-11-25",
        }
    }

    /// Parses a wire version; `None` for a version this client does not support.
    pub fn parse(version: &str) -> Option<Self> {
        Self::SUPPORTED.into_iter().find(|v| v.as_str() == version)
    }

    /// The supported versions as a comma-separated list, for error messages.
    pub fn supported_list() -> String {
        Self::SUPPORTED.map(Self::as_str).join(", ")
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Name and version of a client or server implementation.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Implementation {
    /// Programmatic name.
    pub name: String,
    /// Version string.
    #[serde(default)]
    pub version: String,
    /// Human-readable name, when the peer gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Everything else the peer sent (`icons`, `websiteUrl`, …).
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl Implementation {
    /// An implementation description with just a name and a version.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            version: version.into(),
            title: None,
            extra: JsonObject::new(),
        }
    }
}

/// What this client declares in `initialize`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ClientCapabilities {
    /// Present when the client answers `roots/list`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roots: Option<RootsCapability>,
    /// Capabilities this crate does not model, sent as given.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// The `roots` client capability.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct RootsCapability {
    /// Whether the client sends `notifications/roots/list_changed`.
    #[serde(default)]
    pub list_changed: bool,
}

/// What a server declares in its `initialize` result. Unmodelled capabilities are kept.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ServerCapabilities {
    /// Present when the server offers tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<ToolsCapability>,
    /// Present when the server sends log messages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logging: Option<Value>,
    /// Present when the server offers resources.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<Value>,
    /// Present when the server offers prompts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts: Option<Value>,
    /// Everything else (`completions`, `experimental`, `tasks`, …).
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// The `tools` server capability.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolsCapability {
    /// Whether the server sends `notifications/tools/list_changed`.
    #[serde(default)]
    pub list_changed: bool,
}

/// Parameters of the `initialize` request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct InitializeParams {
    /// The version the client offers (its latest).
    pub protocol_version: String,
    /// The client's capabilities.
    pub capabilities: ClientCapabilities,
    /// The client's name and version.
    pub client_info: Implementation,
}

/// The result of `initialize`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct InitializeResult {
    /// The version the server chose; the client must support it.
    pub protocol_version: String,
    /// The server's capabilities.
    #[serde(default)]
    pub capabilities: ServerCapabilities,
    /// The server's name and version (empty when a non-conforming server leaves it out).
    #[serde(default)]
    pub server_info: Implementation,
    /// Optional instructions on how to use the server, meant for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
}

/// A tool as listed by `tools/list`.
///
/// `input_schema` and `output_schema` are kept verbatim, key order included; fields this crate
/// does not model (`icons`, `execution`, `_meta`, vendor extensions) are kept in `extra` and
/// serialized back unchanged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Tool {
    /// The tool's programmatic name, unique within its server.
    pub name: String,
    /// Human-readable name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the tool does, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// JSON Schema of the arguments.
    #[serde(default = "empty_object_schema")]
    pub input_schema: JsonObject,
    /// JSON Schema of `structuredContent`, when the tool declares one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<JsonObject>,
    /// Behaviour hints (`readOnlyHint`, `destructiveHint`, …), kept as sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Value>,
    /// Every other field the server sent.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl Tool {
    /// A tool with a name, a description and an input schema.
    pub fn new(
        name: impl Into<String>,
        description: Option<String>,
        input_schema: JsonObject,
    ) -> Self {
        Self {
            name: name.into(),
            title: None,
            description,
            input_schema,
            output_schema: None,
            annotations: None,
            extra: JsonObject::new(),
        }
    }
}

fn empty_object_schema() -> JsonObject {
    let mut schema = JsonObject::new();
    schema.insert("type".to_owned(), Value::String("object".to_owned()));
    schema
}

/// Parameters of a paginated list request.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PaginatedParams {
    /// The cursor from the previous page, absent for the first page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
}

/// One page of `tools/list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListToolsResult {
    /// The tools on this page.
    #[serde(default)]
    pub tools: Vec<Tool>,
    /// The cursor of the next page; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// Parameters of `tools/call`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CallToolParams {
    /// The tool to call.
    pub name: String,
    /// The arguments, an object matching the tool's input schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<JsonObject>,
}

/// The result of `tools/call`, kept whole.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CallToolResult {
    /// The unstructured result: text, images, audio, resource links and embedded resources.
    #[serde(default)]
    pub content: Vec<ContentBlock>,
    /// The structured result, when the tool gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// True when the tool ran and failed; the content says why.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub is_error: bool,
    /// Protocol-level metadata attached by the server.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl CallToolResult {
    /// A successful result holding one text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            content: vec![ContentBlock::Text(TextContent::new(text))],
            ..Self::default()
        }
    }
}

/// One block of a tool result.
///
/// A block whose `type` this crate does not know is kept whole as [`ContentBlock::Unknown`], so a
/// newer server never breaks an older client.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ContentBlock {
    /// `type: "text"`.
    Text(TextContent),
    /// `type: "image"`: base64 data with a MIME type.
    Image(BinaryContent),
    /// `type: "audio"`: base64 data with a MIME type.
    Audio(BinaryContent),
    /// `type: "resource_link"`: a link to a resource the client may read.
    ResourceLink(ResourceLink),
    /// `type: "resource"`: a resource embedded in the result.
    Resource(EmbeddedResource),
    /// Any other block, kept as sent (including its `type`).
    Unknown(Value),
}

impl ContentBlock {
    /// The block's wire `type`.
    pub fn kind(&self) -> &str {
        match self {
            Self::Text(_) => "text",
            Self::Image(_) => "image",
            Self::Audio(_) => "audio",
            Self::ResourceLink(_) => "resource_link",
            Self::Resource(_) => "resource",
            Self::Unknown(value) => value.get("type").and_then(Value::as_str).unwrap_or(""),
        }
    }

    /// The text of a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Self::Text(text) => Some(&text.text),
            _ => None,
        }
    }
}

impl<'de> Deserialize<'de> for ContentBlock {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(ContentBlockVisitor)
    }
}

/// Reads a content block in one pass, without first building a `Value` of it (tool results are
/// the hot path): the fields the known block types use are read typed, the rest collected, and
/// the block is assembled once its `type` is known, wherever that key appears.
struct ContentBlockVisitor;

#[derive(Default)]
struct ContentFields {
    kind: Option<String>,
    text: Option<String>,
    data: Option<String>,
    mime_type: Option<String>,
    uri: Option<String>,
    name: Option<String>,
    description: Option<String>,
    resource: Option<Value>,
    rest: JsonObject,
}

impl ContentFields {
    /// Puts fields the chosen block type does not use back among the others.
    fn keep_unused(&mut self, keys: &[&str]) {
        let Self {
            text,
            data,
            mime_type,
            uri,
            name,
            description,
            rest,
            ..
        } = self;
        let string_fields = [
            ("text", text),
            ("data", data),
            ("mimeType", mime_type),
            ("uri", uri),
            ("name", name),
            ("description", description),
        ];
        for (key, field) in string_fields {
            if !keys.contains(&key)
                && let Some(value) = field.take()
            {
                rest.insert(key.to_owned(), Value::String(value));
            }
        }
        if !keys.contains(&"resource")
            && let Some(resource) = self.resource.take()
        {
            self.rest.insert("resource".to_owned(), resource);
        }
    }

    fn into_block<E: serde::de::Error>(mut self) -> Result<ContentBlock, E> {
        let missing = |field: &'static str| E::missing_field(field);
        let kind = self.kind.take().ok_or_else(|| missing("type"))?;
        let block = match kind.as_str() {
            "text" => {
                self.keep_unused(&["text"]);
                ContentBlock::Text(TextContent {
                    text: self.text.ok_or_else(|| missing("text"))?,
                    extra: self.rest,
                })
            }
            "image" | "audio" => {
                self.keep_unused(&["data", "mimeType"]);
                let content = BinaryContent {
                    data: self.data.ok_or_else(|| missing("data"))?,
                    mime_type: self.mime_type.ok_or_else(|| missing("mimeType"))?,
                    extra: self.rest,
                };
                if kind == "image" {
                    ContentBlock::Image(content)
                } else {
                    ContentBlock::Audio(content)
                }
            }
            "resource_link" => {
                self.keep_unused(&["uri", "name", "description", "mimeType"]);
                ContentBlock::ResourceLink(ResourceLink {
                    uri: self.uri.ok_or_else(|| missing("uri"))?,
                    name: self.name.unwrap_or_default(),
                    description: self.description,
                    mime_type: self.mime_type,
                    extra: self.rest,
                })
            }
            "resource" => {
                self.keep_unused(&["resource"]);
                let resource = self.resource.ok_or_else(|| missing("resource"))?;
                ContentBlock::Resource(EmbeddedResource {
                    resource: ResourceContents::deserialize(resource).map_err(E::custom)?,
                    extra: self.rest,
                })
            }
            _ => {
                self.keep_unused(&[]);
                let mut object = JsonObject::new();
                object.insert("type".to_owned(), Value::String(kind));
                object.append(&mut self.rest);
                ContentBlock::Unknown(Value::Object(object))
            }
        };
        Ok(block)
    }
}

impl<'de> serde::de::Visitor<'de> for ContentBlockVisitor {
    type Value = ContentBlock;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a content block object")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<ContentBlock, A::Error> {
        let mut fields = ContentFields::default();
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            // A string field of an unexpected JSON type is kept as it is, among the others.
            let slot = match &*key {
                "type" => &mut fields.kind,
                "text" => &mut fields.text,
                "data" => &mut fields.data,
                "mimeType" => &mut fields.mime_type,
                "uri" => &mut fields.uri,
                "name" => &mut fields.name,
                "description" => &mut fields.description,
                "resource" => {
                    fields.resource = Some(map.next_value()?);
                    continue;
                }
                _ => {
                    let value = map.next_value()?;
                    fields.rest.insert(key.into_owned(), value);
                    continue;
                }
            };
            match map.next_value::<Value>()? {
                Value::String(text) => *slot = Some(text),
                other => {
                    fields.rest.insert(key.into_owned(), other);
                }
            }
        }
        if fields.kind.is_none() {
            // Without a string `type` the block cannot be interpreted: keep it as it came.
            fields.keep_unused(&[]);
            return Ok(ContentBlock::Unknown(Value::Object(fields.rest)));
        }
        fields.into_block()
    }
}

impl Serialize for ContentBlock {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Tagged<'a, T> {
            #[serde(rename = "type")]
            kind: &'static str,
            #[serde(flatten)]
            block: &'a T,
        }
        match self {
            Self::Text(block) => Tagged {
                kind: "text",
                block,
            }
            .serialize(serializer),
            Self::Image(block) => Tagged {
                kind: "image",
                block,
            }
            .serialize(serializer),
            Self::Audio(block) => Tagged {
                kind: "audio",
                block,
            }
            .serialize(serializer),
            Self::ResourceLink(block) => Tagged {
                kind: "resource_link",
                block,
            }
            .serialize(serializer),
            Self::Resource(block) => Tagged {
                kind: "resource",
                block,
            }
            .serialize(serializer),
            Self::Unknown(value) => value.serialize(serializer),
        }
    }
}

/// A text block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TextContent {
    /// The text.
    pub text: String,
    /// Audience and priority hints, and any other fields, kept as sent.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl TextContent {
    /// A text block without annotations.
    pub fn new(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            extra: JsonObject::new(),
        }
    }
}

/// An image or audio block: base64 `data` with its MIME type.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct BinaryContent {
    /// Base64-encoded bytes.
    pub data: String,
    /// E.g. `image/png`, `audio/wav`.
    pub mime_type: String,
    /// Annotations and any other fields, kept as sent.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// A `resource_link` block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourceLink {
    /// The resource's URI.
    pub uri: String,
    /// The resource's name.
    #[serde(default)]
    pub name: String,
    /// Human-readable description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// MIME type, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// `title`, `size`, annotations and any other fields, kept as sent.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// A `resource` block: a resource embedded in the result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct EmbeddedResource {
    /// The resource's contents.
    pub resource: ResourceContents,
    /// Annotations and any other fields, kept as sent.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// The contents of a resource: text or base64 blob.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourceContents {
    /// The resource's URI.
    pub uri: String,
    /// MIME type, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Text contents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Base64-encoded binary contents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blob: Option<String>,
    /// Any other fields, kept as sent.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// A progress token: a string or an integer chosen by the requester.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum ProgressToken {
    /// An integer token (this client uses the request id).
    Number(i64),
    /// A string token.
    String(String),
}

/// `notifications/progress` parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ProgressNotificationParams {
    /// The token of the request this progress belongs to.
    pub progress_token: ProgressToken,
    /// Progress so far; increases with every notification.
    pub progress: f64,
    /// The total, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<f64>,
    /// A human-readable status message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// `notifications/cancelled` parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CancelledNotificationParams {
    /// The id of the request being cancelled.
    pub request_id: crate::jsonrpc::RequestId,
    /// Why, for logs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// A filesystem root the client exposes through `roots/list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Root {
    /// A `file://` URI.
    pub uri: String,
    /// A display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

impl Root {
    /// A root for a local directory; the path is percent-encoded into a `file://` URI.
    pub fn from_path(path: &std::path::Path) -> Self {
        let mut uri = String::from("file://");
        for byte in path.to_string_lossy().bytes() {
            if byte.is_ascii_alphanumeric() || b"/-._~".contains(&byte) {
                uri.push(char::from(byte));
            } else {
                uri.push_str(&format!("%{byte:02X}"));
            }
        }
        Self {
            uri,
            name: path
                .file_name()
                .map(|name| name.to_string_lossy().into_owned()),
        }
    }
}

/// The result of `roots/list`, which a server may ask the client for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ListRootsResult {
    /// The roots.
    pub roots: Vec<Root>,
}

/// The empty result of `ping` and similar requests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct EmptyResult {}

/// Method names used by this crate.
pub mod methods {
    /// The handshake request.
    pub const INITIALIZE: &str = "initialize";
    /// Sent by the client once the handshake succeeded.
    pub const INITIALIZED: &str = "notifications/initialized";
    /// Liveness check, either direction.
    pub const PING: &str = "ping";
    /// Lists a server's tools, page by page.
    pub const TOOLS_LIST: &str = "tools/list";
    /// Calls a tool.
    pub const TOOLS_CALL: &str = "tools/call";
    /// Server → client: the tool list changed.
    pub const TOOLS_LIST_CHANGED: &str = "notifications/tools/list_changed";
    /// Server → client: asks for the client's roots.
    pub const ROOTS_LIST: &str = "roots/list";
    /// Either direction: progress of a request.
    pub const PROGRESS: &str = "notifications/progress";
    /// Either direction: a request was cancelled.
    pub const CANCELLED: &str = "notifications/cancelled";
    /// Server → client: a log message.
    pub const MESSAGE: &str = "notifications/message";
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn unknown_content_type_is_kept_not_an_error() {
        let result: CallToolResult = serde_json::from_value(json!({
            "content": [
                {"type": "text", "text": "hi", "annotations": {"priority": 1}},
                {"type": "x-custom", "payload": {"a": 1}},
                {"type": "image", "data": "AAAA", "mimeType": "image/png"},
                {"type": "audio", "data": "BBBB", "mimeType": "audio/wav"},
                {"type": "resource_link", "uri": "file:///a", "name": "a", "size": 3},
                {"type": "resource", "resource": {"uri": "file:///b", "text": "b"}}
            ],
            "structuredContent": {"ok": true},
            "isError": true,
            "_meta": {"k": 1}
        }))
        .unwrap();
        let kinds: Vec<&str> = result.content.iter().map(ContentBlock::kind).collect();
        assert_eq!(
            kinds,
            [
                "text",
                "x-custom",
                "image",
                "audio",
                "resource_link",
                "resource"
            ]
        );
        assert!(result.is_error);
        assert_eq!(result.structured_content, Some(json!({"ok": true})));
        let back = serde_json::to_value(&result).unwrap();
        assert_eq!(
            back["content"][1],
            json!({"type": "x-custom", "payload": {"a": 1}})
        );
        assert_eq!(back["content"][0]["annotations"], json!({"priority": 1}));
        assert_eq!(back["content"][4]["size"], json!(3));
    }

    #[test]
    fn content_blocks_decode_in_any_key_order_and_keep_what_they_do_not_use() {
        let blocks: Vec<ContentBlock> = serde_json::from_str(
            r#"[
                {"text": "type comes last", "annotations": {"priority": 1}, "type": "text"},
                {"mimeType": "image/png", "type": "image", "data": "AA=="},
                {"no": "type"},
                {"type": 42, "x": 1},
                {"type": "text", "text": "t", "uri": "file:///kept"}
            ]"#,
        )
        .unwrap();
        let ContentBlock::Text(first) = &blocks[0] else {
            panic!("{:?}", blocks[0]);
        };
        assert_eq!(first.text, "type comes last");
        assert_eq!(first.extra["annotations"], json!({"priority": 1}));
        assert!(matches!(&blocks[1], ContentBlock::Image(image) if image.data == "AA=="));
        assert_eq!(blocks[2], ContentBlock::Unknown(json!({"no": "type"})));
        assert_eq!(
            blocks[3],
            ContentBlock::Unknown(json!({"type": 42, "x": 1}))
        );
        let ContentBlock::Text(last) = &blocks[4] else {
            panic!("{:?}", blocks[4]);
        };
        assert_eq!(last.extra["uri"], json!("file:///kept"));
        let round_trip = serde_json::to_value(&blocks[4]).unwrap();
        assert_eq!(
            round_trip,
            json!({"type": "text", "text": "t", "uri": "file:///kept"})
        );
    }

    #[test]
    fn a_known_block_missing_its_field_is_an_error() {
        let error = serde_json::from_str::<ContentBlock>(r#"{"type": "text"}"#).unwrap_err();
        assert!(
            error.to_string().contains("missing field `text`"),
            "{error}"
        );
    }

    #[test]
    fn tool_keeps_schema_order_and_unknown_fields() {
        let raw = r#"{"name":"t","inputSchema":{"type":"object","zeta":1,"alpha":2,"$schema":"x"},"icons":[{"src":"a"}],"x-vendor":true}"#;
        let tool: Tool = serde_json::from_str(raw).unwrap();
        let keys: Vec<&String> = tool.input_schema.keys().collect();
        assert_eq!(keys, ["type", "zeta", "alpha", "$schema"]);
        assert_eq!(tool.extra["x-vendor"], json!(true));
        assert_eq!(serde_json::to_string(&tool).unwrap(), raw);
    }

    #[test]
    fn protocol_versions_parse_and_refuse_unknown() {
        assert_eq!(
            ProtocolVersion::parse("2025-06-18"),
            Some(ProtocolVersion::V2025_06_18)
        );
        assert_eq!(ProtocolVersion::parse("1999-01-01"), None);
        assert_eq!(ProtocolVersion::LATEST.as_str(), "2025-11-25");
    }

    #[test]
    fn root_from_path_percent_encodes() {
        let root = Root::from_path(std::path::Path::new("/tmp/a b"));
        assert_eq!(root.uri, "file:///tmp/a%20b");
        assert_eq!(root.name.as_deref(), Some("a b"));
    }
}
