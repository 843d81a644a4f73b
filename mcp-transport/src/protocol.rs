//! MCP protocol types for both eras: the handshake-era versions (2024-11-05 … 2025-11-25) and
//! the stateless revision 2026-07-28 (its own messages are in [`crate::stateless`]).
//!
//! Only what a client of tools, resources and prompts needs is modelled field by field;
//! everything else a server sends is kept, not dropped: unknown fields of a [`Tool`],
//! [`Resource`] or [`Prompt`] land in its `extra`, tool schemas are
//! kept verbatim as JSON text and built into objects only when read ([`JsonSchema`]), and a content block of a type this crate does not know is
//! kept as [`ContentBlock::Unknown`] instead of failing the whole result.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

pub mod cache_hints;
mod content;
mod prompts;
mod resources;
mod schema;
mod skills;
mod tasks;
mod tools;

pub use cache_hints::MAX_TTL;
pub(crate) use cache_hints::lenient_ttl;
pub use content::{
    BinaryContent, ContentBlock, EmbeddedResource, ResourceContents, ResourceLink, TextContent,
};
pub use prompts::{
    GetPromptParams, GetPromptResult, ListPromptsResult, Prompt, PromptArgument, PromptMessage,
};
pub use resources::{
    ListResourceTemplatesResult, ListResourcesResult, ReadResourceParams, ReadResourceResult,
    Resource, ResourceTemplate,
};
pub use schema::JsonSchema;
pub use skills::{
    GetSkillParams, GetSkillResult, ListSkillsResult, SKILLS_EXTENSION, SkillEntry, SkillFile,
    SkillFiles,
};
pub(crate) use tasks::{
    CreateTaskResult2025, ListTasksResult, TaskIdParams, TaskMetadata, UpdateTaskParams,
};
pub use tasks::{TASKS_EXTENSION, Task, TaskStatus, TaskSupport};
pub use tools::{CallToolParams, CallToolResult, ListToolsResult, PaginatedParams, Tool};

/// A JSON object, as used for schemas, `_meta` and tool arguments.
pub type JsonObject = Map<String, Value>;

/// A protocol version this client speaks: one of the handshake era (an `initialize` request
/// opens a session) or the stateless revision 2026-07-28 (every request carries the version,
/// the client's identity and its capabilities in `_meta`; no session).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum ProtocolVersion {
    /// `2024-11-05`, the first published version.
    V2024_11_05,
    /// `2025-03-26`: Streamable HTTP, JSON-RPC batches, audio content.
    V2025_03_26,
    /// `2025-06-18`: structured tool output, resource links, no more batches.
    V2025_06_18,
    /// `2025-11-25`: the latest handshake-era version, offered by this client in `initialize`.
    V2025_11_25,
    /// `2026-07-28`: stateless. No handshake and no session; `server/discover`, per-request
    /// `_meta`, multi round-trip requests, `subscriptions/listen`, cacheable lists.
    V2026_07_28,
}

impl ProtocolVersion {
    /// The newest version this client speaks, tried first with every server.
    pub const LATEST: Self = Self::V2026_07_28;

    /// The version this client offers in `initialize` to a server of the handshake era.
    pub const LATEST_HANDSHAKE: Self = Self::V2025_11_25;

    /// Every version this client accepts, newest first.
    pub const SUPPORTED: [Self; 5] = [
        Self::V2026_07_28,
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
            Self::V2026_07_28 => "2026-07-28",
        }
    }

    /// True for the stateless revisions (2026-07-28 and later): no `initialize`, per-request
    /// `_meta`; false for the handshake era.
    pub const fn is_stateless(self) -> bool {
        matches!(self, Self::V2026_07_28)
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
    /// Present when the client answers `elicitation/create`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<JsonObject>,
    /// Present when the client answers `sampling/createMessage`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<JsonObject>,
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

impl ServerCapabilities {
    /// True when the server declared the `resources` capability (`resources/list`,
    /// `resources/templates/list`, `resources/read`).
    pub fn offers_resources(&self) -> bool {
        self.resources.is_some()
    }

    /// True when the server declared the `prompts` capability (`prompts/list`, `prompts/get`).
    pub fn offers_prompts(&self) -> bool {
        self.prompts.is_some()
    }

    /// True when the server declared the Skills extension (`skills/list`, `skills/get`) under
    /// `capabilities.extensions`.
    pub fn offers_skills(&self) -> bool {
        self.extra
            .get("extensions")
            .and_then(|extensions| extensions.get(SKILLS_EXTENSION))
            .is_some()
    }

    /// True when the server may answer a `tools/call` with a task: it declared the Tasks
    /// extension under `capabilities.extensions` (2026-07-28), or `tasks.requests.tools.call`
    /// (2025-11-25).
    pub fn offers_tasks(&self) -> bool {
        self.extra
            .get("extensions")
            .and_then(|extensions| extensions.get(TASKS_EXTENSION))
            .is_some()
            || self.offers_2025_tool_tasks()
    }

    /// True when the server declared `tasks.requests.tools.call` (the 2025-11-25 form).
    pub(crate) fn offers_2025_tool_tasks(&self) -> bool {
        self.extra
            .get("tasks")
            .and_then(|tasks| tasks.get("requests"))
            .and_then(|requests| requests.get("tools"))
            .and_then(|tools| tools.get("call"))
            .is_some()
    }

    /// True when the server declared `tasks.list` (the 2025-11-25 `tasks/list`).
    pub(crate) fn offers_task_list(&self) -> bool {
        self.extra
            .get("tasks")
            .and_then(|tasks| tasks.get("list"))
            .is_some()
    }
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
    pub request_id: crate::jsonrpc::id::RequestId,
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
    /// Lists a server's resources, page by page.
    pub const RESOURCES_LIST: &str = "resources/list";
    /// Lists a server's resource templates, page by page.
    pub const RESOURCES_TEMPLATES_LIST: &str = "resources/templates/list";
    /// Reads a resource.
    pub const RESOURCES_READ: &str = "resources/read";
    /// Server → client: the resource list changed.
    pub const RESOURCES_LIST_CHANGED: &str = "notifications/resources/list_changed";
    /// Lists a server's prompts, page by page.
    pub const PROMPTS_LIST: &str = "prompts/list";
    /// Gets a prompt's messages.
    pub const PROMPTS_GET: &str = "prompts/get";
    /// Lists a server's skills, page by page (the Skills extension).
    pub const SKILLS_LIST: &str = "skills/list";
    /// Gets one skill's listing by its URI (the Skills extension).
    pub const SKILLS_GET: &str = "skills/get";
    /// Server → client: the prompt list changed.
    pub const PROMPTS_LIST_CHANGED: &str = "notifications/prompts/list_changed";
    /// Server → client: asks for the client's roots.
    pub const ROOTS_LIST: &str = "roots/list";
    /// Client → server: the client's roots changed.
    pub const ROOTS_LIST_CHANGED: &str = "notifications/roots/list_changed";
    /// Either direction: progress of a request.
    pub const PROGRESS: &str = "notifications/progress";
    /// Either direction: a request was cancelled.
    pub const CANCELLED: &str = "notifications/cancelled";
    /// Server → client: a log message.
    pub const MESSAGE: &str = "notifications/message";
    /// Server → client: asks the user for information.
    pub const ELICITATION_CREATE: &str = "elicitation/create";
    /// Server → client: asks the client's model for a message.
    pub const SAMPLING_CREATE_MESSAGE: &str = "sampling/createMessage";
    /// 2026-07-28: the server's versions, capabilities and identity (also the era probe).
    pub const SERVER_DISCOVER: &str = "server/discover";
    /// 2026-07-28: opens the long-lived stream of change notifications.
    pub const SUBSCRIPTIONS_LISTEN: &str = "subscriptions/listen";
    /// 2026-07-28: the first message of a `subscriptions/listen` stream.
    pub const SUBSCRIPTIONS_ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";
    /// Server → client: a subscribed resource changed.
    pub const RESOURCES_UPDATED: &str = "notifications/resources/updated";
    /// Tasks: a task's state (2025-11-25 and 2026-07-28).
    pub const TASKS_GET: &str = "tasks/get";
    /// Tasks, 2026-07-28: answers to a task's input requests.
    pub const TASKS_UPDATE: &str = "tasks/update";
    /// Tasks: asks the server to stop a task.
    pub const TASKS_CANCEL: &str = "tasks/cancel";
    /// Tasks, 2025-11-25: a task's result, waited for.
    pub const TASKS_RESULT: &str = "tasks/result";
    /// Tasks, 2025-11-25: the tasks the server keeps for this client.
    pub const TASKS_LIST: &str = "tasks/list";
    /// Tasks, 2026-07-28: a task's state, on a `subscriptions/listen` stream.
    pub const TASKS_NOTIFICATION: &str = "notifications/tasks";
    /// Tasks, 2025-11-25: a task's status changed.
    pub const TASKS_STATUS: &str = "notifications/tasks/status";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protocol_versions_parse_and_refuse_unknown() {
        assert_eq!(
            ProtocolVersion::parse("2025-06-18"),
            Some(ProtocolVersion::V2025_06_18)
        );
        assert_eq!(ProtocolVersion::parse("1999-01-01"), None);
        assert_eq!(ProtocolVersion::LATEST.as_str(), "2026-07-28");
        assert!(ProtocolVersion::LATEST.is_stateless());
        assert_eq!(ProtocolVersion::LATEST_HANDSHAKE.as_str(), "2025-11-25");
        assert!(!ProtocolVersion::LATEST_HANDSHAKE.is_stateless());
    }

    #[test]
    fn root_from_path_percent_encodes() {
        let root = Root::from_path(std::path::Path::new("/tmp/a b"));
        assert_eq!(root.uri, "file:///tmp/a%20b");
        assert_eq!(root.name.as_deref(), Some("a b"));
    }
}
