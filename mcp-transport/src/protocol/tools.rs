//! The tool operations: [`Tool`] as listed, the pages of `tools/list`, and `tools/call` with its
//! whole result.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{ContentBlock, JsonObject, JsonSchema, TextContent};

/// A tool as listed by `tools/list`.
///
/// `input_schema` and `output_schema` are kept verbatim as JSON text, built into objects only
/// when read ([`JsonSchema`]); fields this crate does not model (`icons`, `execution`, `_meta`,
/// vendor extensions) are kept in `extra` and serialized back unchanged.
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
    #[serde(default = "JsonSchema::empty_object")]
    pub input_schema: JsonSchema,
    /// JSON Schema of `structuredContent`, when the tool declares one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<JsonSchema>,
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
        input_schema: impl Into<JsonSchema>,
    ) -> Self {
        Self {
            name: name.into(),
            title: None,
            description,
            input_schema: input_schema.into(),
            output_schema: None,
            annotations: None,
            extra: JsonObject::new(),
        }
    }
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
    /// How long the page may be considered fresh after it was received, in milliseconds
    /// (`ttlMs`, 2026-07-28), at most a day ([`MAX_TTL`](super::MAX_TTL)). `None` when the
    /// server gave none (the handshake era) or one that cannot be read (see
    /// [`cache_hints`](super::cache_hints)).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "super::lenient_ttl"
    )]
    pub ttl_ms: Option<u64>,
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tool_keeps_schema_order_and_unknown_fields() {
        let raw = r#"{"name":"t","inputSchema":{"type":"object","zeta":1,"alpha":2,"$schema":"x"},"icons":[{"src":"a"}],"x-vendor":true}"#;
        let tool: Tool = serde_json::from_str(raw).unwrap();
        let keys: Vec<&String> = tool.input_schema.as_object().keys().collect();
        assert_eq!(keys, ["type", "zeta", "alpha", "$schema"]);
        assert_eq!(tool.extra["x-vendor"], json!(true));
        assert_eq!(serde_json::to_string(&tool).unwrap(), raw);
    }

    #[test]
    fn a_pages_ttl_is_read_leniently() {
        let ttl = |page: &str| {
            serde_json::from_str::<ListToolsResult>(page)
                .map(|page| page.ttl_ms)
                .map_err(|error| error.to_string())
        };
        assert_eq!(ttl(r#"{"tools":[],"ttlMs":60000}"#), Ok(Some(60_000)));
        assert_eq!(ttl(r#"{"tools":[]}"#), Ok(None));
        assert_eq!(ttl(r#"{"tools":[],"ttlMs":1e13}"#), Ok(Some(86_400_000)));
        for unreadable in ["-5", r#""60""#, "1.5", "1e300", "null", "{}"] {
            assert_eq!(
                ttl(&format!(r#"{{"tools":[],"ttlMs":{unreadable}}}"#)),
                Ok(None)
            );
        }
    }
}
