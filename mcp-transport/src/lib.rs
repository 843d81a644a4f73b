#![doc = include_str!("../README.md")]

mod client;
pub mod credentials;
mod error;
mod fast_path;
pub mod framing;
pub mod handlers;
#[cfg(feature = "http")]
pub mod http;
pub mod jsonrpc;
#[cfg(feature = "oauth")]
pub mod oauth;
#[cfg(feature = "http")]
pub mod open_url;
mod peer;
#[cfg(feature = "stdio")]
mod process;
pub mod protocol;
pub mod secrets;
#[cfg(feature = "http")]
pub mod sse;
pub mod stateless;
#[cfg(feature = "stdio")]
pub mod stdio;
pub mod transport;

pub use client::{ClientOptions, McpClient, ToolCallStart, ToolList};
#[cfg(feature = "skills")]
pub use client::{LoadedSkill, MAX_SKILL_BYTES, MAX_SKILL_FILES, SkillContent};
pub use error::{Error, FieldDifference, SkillProblem};
pub use framing::LineTransport;
pub use jsonrpc::{ErrorObject, NotificationKind, RequestId, ServerNotification};
pub use peer::{Peer, PeerOptions, ProgressCallback, RequestOptions, RpcError, TaskCallback};
pub use protocol::{
    CallToolParams, CallToolResult, ContentBlock, GetPromptResult, Implementation,
    InitializeResult, JsonObject, JsonSchema, ProgressNotificationParams, Prompt, PromptArgument,
    PromptMessage, ProtocolVersion, ReadResourceResult, Resource, ResourceContents,
    ResourceTemplate, Root, SKILLS_EXTENSION, ServerCapabilities, SkillEntry, SkillFile,
    SkillFiles, TASKS_EXTENSION, Task, TaskStatus, TaskSupport, Tool,
};
pub use secrets::Secrets;
#[cfg(feature = "stdio")]
pub use stdio::{Launcher, StdioServerParams, StdioTransport};
pub use tokio_util::sync::CancellationToken;
pub use transport::{CloseReason, ProtocolViolation, Transport, TransportError};
