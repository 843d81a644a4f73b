//! The prompt operations: [`Prompt`] and its [`PromptArgument`]s as listed (page by page), and
//! the [`GetPromptResult`] of `prompts/get`, whose messages hold the same [`ContentBlock`]s as
//! tool results.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{ContentBlock, JsonObject};

/// A prompt as listed by `prompts/list`: a template of messages the user picks, e.g. as a slash
/// command.
///
/// Fields this crate does not model (`icons`, `_meta`, vendor extensions) are kept in `extra`
/// and serialized back unchanged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Prompt {
    /// The prompt's programmatic name, what `prompts/get` takes.
    pub name: String,
    /// Human-readable name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the prompt is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The arguments it takes (all strings).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub arguments: Vec<PromptArgument>,
    /// Every other field the server sent.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl Prompt {
    /// A prompt with a name and no arguments.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            title: None,
            description: None,
            arguments: Vec::new(),
            extra: JsonObject::new(),
        }
    }

    /// The names of the arguments the prompt requires.
    pub fn required_arguments(&self) -> impl Iterator<Item = &str> {
        self.arguments
            .iter()
            .filter(|argument| argument.required)
            .map(|argument| argument.name.as_str())
    }
}

/// One argument of a [`Prompt`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PromptArgument {
    /// The argument's name, the key in `prompts/get`'s `arguments`.
    pub name: String,
    /// Human-readable name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What to give.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// True when `prompts/get` fails without it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub required: bool,
    /// Every other field the server sent.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// One page of `prompts/list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListPromptsResult {
    /// The prompts on this page.
    #[serde(default)]
    pub prompts: Vec<Prompt>,
    /// The cursor of the next page; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// Parameters of `prompts/get`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct GetPromptParams {
    /// The prompt's name.
    pub name: String,
    /// The arguments, by name; prompt arguments are strings.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub arguments: BTreeMap<String, String>,
}

impl GetPromptParams {
    /// Parameters that get prompt `name` with `arguments`.
    pub fn new(name: impl Into<String>, arguments: BTreeMap<String, String>) -> Self {
        Self {
            name: name.into(),
            arguments,
        }
    }
}

/// The result of `prompts/get`: the messages, ready to hand to a model.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct GetPromptResult {
    /// What the prompt is for, as the server describes it with these arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The messages.
    #[serde(default)]
    pub messages: Vec<PromptMessage>,
    /// Protocol-level metadata attached by the server.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// One message of a prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PromptMessage {
    /// Who speaks: `user` or `assistant`. Kept as text, so a role a newer protocol adds does
    /// not fail the whole prompt.
    pub role: String,
    /// What is said: text, an image, audio, a resource link or an embedded resource.
    pub content: ContentBlock,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn prompts_keep_unknown_fields_and_know_their_required_arguments() {
        let raw = json!({
            "name": "review",
            "title": "Review",
            "arguments": [
                {"name": "code", "required": true},
                {"name": "style", "description": "house style"}
            ],
            "icons": [{"src": "r.svg"}]
        });
        let prompt: Prompt = serde_json::from_value(raw.clone()).unwrap();
        assert_eq!(prompt.required_arguments().collect::<Vec<_>>(), ["code"]);
        assert_eq!(prompt.extra["icons"], json!([{"src": "r.svg"}]));
        assert_eq!(serde_json::to_value(&prompt).unwrap(), raw);
    }

    #[test]
    fn prompt_messages_hold_content_blocks() {
        let result: GetPromptResult = serde_json::from_value(json!({
            "description": "d",
            "messages": [
                {"role": "user", "content": {"type": "text", "text": "hi"}},
                {"role": "assistant", "content": {"type": "resource",
                    "resource": {"uri": "a://x", "text": "x"}}}
            ]
        }))
        .unwrap();
        assert_eq!(result.messages[0].content.as_text(), Some("hi"));
        assert_eq!(result.messages[1].content.kind(), "resource");
        assert_eq!(
            serde_json::to_value(GetPromptParams::new("p", BTreeMap::new())).unwrap(),
            json!({"name": "p"})
        );
    }
}
