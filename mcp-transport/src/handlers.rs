//! What the client answers when a server asks something of it beyond `ping` and `roots/list`:
//! **elicitation** (`elicitation/create`, ask the user) and **sampling**
//! (`sampling/createMessage`, ask the agent's model).
//!
//! Only the embedding agent can do either, so both are traits it may implement and hand over in
//! [`ClientOptions`](crate::ClientOptions). A capability is declared in `initialize` only when
//! its handler is set; without one the server's request gets -32601 (method not found), as any
//! unknown request does. Each request is answered from a task of its own, so a user taking a
//! minute to fill a form holds up nothing else; the task ends with the connection.
//!
//! ```
//! use async_trait::async_trait;
//! use mcp_transport::handlers::{ElicitRequest, ElicitResult, ElicitationHandler};
//! use mcp_transport::ErrorObject;
//!
//! /// Accepts every form with the defaults its schema declares.
//! struct AcceptDefaults;
//!
//! #[async_trait]
//! impl ElicitationHandler for AcceptDefaults {
//!     async fn elicit(&self, _server: &str, request: ElicitRequest) -> Result<ElicitResult, ErrorObject> {
//!         Ok(ElicitResult::accept(request.defaults()))
//!     }
//! }
//! ```

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::jsonrpc::ErrorObject;
use crate::protocol::JsonObject;

/// The parameters of `elicitation/create`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ElicitRequest {
    /// What the server asks, for the user.
    pub message: String,
    /// A form (the default when absent) or a page to open.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<ElicitMode>,
    /// For a form: a flat JSON Schema object of the fields asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requested_schema: Option<Value>,
    /// For `url` mode: the page the user should open.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Members this crate does not model, as sent.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl ElicitRequest {
    /// A form request.
    pub fn form(message: impl Into<String>, requested_schema: Value) -> Self {
        Self {
            message: message.into(),
            mode: None,
            requested_schema: Some(requested_schema),
            url: None,
            extra: JsonObject::new(),
        }
    }

    /// True for a form (no mode, or `form`).
    pub fn is_form(&self) -> bool {
        self.mode.is_none_or(|mode| mode == ElicitMode::Form)
    }

    /// The form's fields, in schema order: name and property schema.
    pub fn fields(&self) -> Vec<(&str, &Value)> {
        self.requested_schema
            .as_ref()
            .and_then(|schema| schema.get("properties"))
            .and_then(Value::as_object)
            .map(|properties| {
                properties
                    .iter()
                    .map(|(name, schema)| (name.as_str(), schema))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// True when the form's schema lists `name` as required.
    pub fn is_required(&self, name: &str) -> bool {
        self.requested_schema
            .as_ref()
            .and_then(|schema| schema.get("required"))
            .and_then(Value::as_array)
            .is_some_and(|required| required.iter().any(|field| field == name))
    }

    /// The `default` of every field that declares one (SEP-1034): what a client fills in for
    /// fields the user leaves alone.
    pub fn defaults(&self) -> JsonObject {
        self.fields()
            .into_iter()
            .filter_map(|(name, schema)| {
                schema
                    .get("default")
                    .map(|default| (name.to_owned(), default.clone()))
            })
            .collect()
    }
}

/// What kind of question an elicitation is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum ElicitMode {
    /// Fields for the user to fill in (`requestedSchema`).
    Form,
    /// A page for the user to open (`url`).
    Url,
    /// A mode of a later protocol version.
    #[serde(other)]
    Unknown,
}

/// Who speaks in a sampled message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Role {
    /// The user.
    User,
    /// The model.
    Assistant,
}

/// Why the model stopped generating.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum StopReason {
    /// The model ended its turn.
    EndTurn,
    /// A stop sequence was generated.
    StopSequence,
    /// `maxTokens` was reached.
    MaxTokens,
    /// A reason of a later protocol version, or a provider's own.
    #[serde(other)]
    Other,
}

/// The user's answer to an elicitation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum ElicitAction {
    /// The user submitted the form.
    Accept,
    /// The user said no.
    Decline,
    /// The user dismissed the question without choosing.
    Cancel,
}

/// The result of `elicitation/create`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ElicitResult {
    /// What the user did.
    pub action: ElicitAction,
    /// The submitted fields, with `accept`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<JsonObject>,
}

impl ElicitResult {
    /// The user submitted `content`.
    pub fn accept(content: JsonObject) -> Self {
        Self {
            action: ElicitAction::Accept,
            content: Some(content),
        }
    }

    /// The user said no.
    pub fn decline() -> Self {
        Self {
            action: ElicitAction::Decline,
            content: None,
        }
    }

    /// The user dismissed the question.
    pub fn cancel() -> Self {
        Self {
            action: ElicitAction::Cancel,
            content: None,
        }
    }
}

/// Asks the user what a server wants to know.
#[async_trait]
pub trait ElicitationHandler: Send + Sync {
    /// The user's answer to `request` from `server`; an error is sent to the server as a
    /// JSON-RPC error.
    async fn elicit(
        &self,
        server: &str,
        request: ElicitRequest,
    ) -> Result<ElicitResult, ErrorObject>;
}

impl std::fmt::Debug for dyn ElicitationHandler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("dyn ElicitationHandler")
    }
}

/// The parameters of `sampling/createMessage`: the conversation and the server's preferences.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CreateMessageRequest {
    /// The conversation so far: `{role, content}` messages.
    pub messages: Vec<Value>,
    /// The most tokens to generate.
    pub max_tokens: u64,
    /// A system prompt the server would like used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// Model preferences, context inclusion, temperature, stop sequences, … as sent.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// The result of `sampling/createMessage`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CreateMessageResult {
    /// Who speaks: the model.
    pub role: Role,
    /// The generated content block (e.g. `{"type": "text", "text": …}`).
    pub content: Value,
    /// The model that generated it.
    pub model: String,
    /// Why generation stopped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<StopReason>,
}

impl CreateMessageResult {
    /// A text answer from `model`.
    pub fn text(model: impl Into<String>, text: impl Into<String>) -> Self {
        Self {
            role: Role::Assistant,
            content: serde_json::json!({"type": "text", "text": text.into()}),
            model: model.into(),
            stop_reason: Some(StopReason::EndTurn),
        }
    }
}

/// Asks the agent's model on a server's behalf.
#[async_trait]
pub trait SamplingHandler: Send + Sync {
    /// The model's answer to `request` from `server`; an error is sent to the server as a
    /// JSON-RPC error (a user who refused is -1, as the specification suggests).
    async fn create_message(
        &self,
        server: &str,
        request: CreateMessageRequest,
    ) -> Result<CreateMessageResult, ErrorObject>;
}

impl std::fmt::Debug for dyn SamplingHandler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("dyn SamplingHandler")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn defaults_come_from_every_field_that_declares_one() {
        let request = ElicitRequest::form(
            "who?",
            json!({"type": "object", "properties": {
                "name": {"type": "string", "default": "Ada"},
                "age": {"type": "integer"},
                "verified": {"type": "boolean", "default": false}
            }}),
        );
        assert!(request.is_form());
        assert!(!request.is_required("name"));
        let defaults = request.defaults();
        assert_eq!(defaults.len(), 2);
        assert_eq!(defaults["name"], json!("Ada"));
        assert_eq!(defaults["verified"], json!(false));
    }

    #[test]
    fn only_a_form_or_no_mode_is_a_form() {
        let parse = |mode: Value| {
            serde_json::from_value::<ElicitRequest>(json!({"message": "m", "mode": mode})).unwrap()
        };
        assert!(parse(json!("form")).is_form());
        assert_eq!(parse(json!("url")).mode, Some(ElicitMode::Url));
        let later = parse(json!("telepathy"));
        assert_eq!(later.mode, Some(ElicitMode::Unknown));
        assert!(!later.is_form());
    }

    #[test]
    fn results_serialize_as_the_specification_spells_them() {
        let accepted = serde_json::to_value(ElicitResult::accept(JsonObject::new())).unwrap();
        assert_eq!(accepted, json!({"action": "accept", "content": {}}));
        let declined = serde_json::to_value(ElicitResult::decline()).unwrap();
        assert_eq!(declined, json!({"action": "decline"}));
        let sampled = serde_json::to_value(CreateMessageResult::text("m", "hi")).unwrap();
        assert_eq!(
            sampled,
            json!({"role": "assistant", "content": {"type": "text", "text": "hi"},
                   "model": "m", "stopReason": "endTurn"})
        );
    }
}
