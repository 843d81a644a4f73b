//! The resource operations: [`Resource`] and [`ResourceTemplate`] as listed (page by page), and
//! the [`ReadResourceResult`] of `resources/read`. The contents reuse [`ResourceContents`], the
//! type embedded resources in tool results use.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{JsonObject, ResourceContents};

/// A resource as listed by `resources/list`.
///
/// Fields this crate does not model (`icons`, `_meta`, vendor extensions) are kept in `extra`
/// and serialized back unchanged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Resource {
    /// The resource's URI, what `resources/read` takes.
    pub uri: String,
    /// The resource's programmatic name.
    #[serde(default)]
    pub name: String,
    /// Human-readable name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the resource holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// MIME type, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Size in bytes, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Audience, priority and last-modified hints, kept as sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Value>,
    /// Every other field the server sent.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl Resource {
    /// A resource with a URI and a name.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            size: None,
            annotations: None,
            extra: JsonObject::new(),
        }
    }
}

/// A family of resources named by an RFC 6570 URI template, as listed by
/// `resources/templates/list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourceTemplate {
    /// The URI template, e.g. `file:///{path}`.
    pub uri_template: String,
    /// The template's programmatic name.
    #[serde(default)]
    pub name: String,
    /// Human-readable name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the resources hold.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// MIME type of every matching resource, when they share one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Audience, priority and last-modified hints, kept as sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Value>,
    /// Every other field the server sent.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// One page of `resources/list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListResourcesResult {
    /// The resources on this page.
    #[serde(default)]
    pub resources: Vec<Resource>,
    /// The cursor of the next page; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// One page of `resources/templates/list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListResourceTemplatesResult {
    /// The templates on this page.
    #[serde(default)]
    pub resource_templates: Vec<ResourceTemplate>,
    /// The cursor of the next page; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// Parameters of `resources/read`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ReadResourceParams {
    /// The URI to read: a listed resource's, or one a template expands to.
    pub uri: String,
}

impl ReadResourceParams {
    /// Parameters that read `uri`.
    pub fn new(uri: impl Into<String>) -> Self {
        Self { uri: uri.into() }
    }
}

/// The result of `resources/read`: one or more contents (a directory-like resource may answer
/// with several).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ReadResourceResult {
    /// The contents, text or base64 blob each.
    #[serde(default)]
    pub contents: Vec<ResourceContents>,
    /// Protocol-level metadata attached by the server.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn resources_and_templates_keep_unknown_fields() {
        let raw = json!({
            "uri": "file:///a.md",
            "name": "a.md",
            "mimeType": "text/markdown",
            "size": 12,
            "icons": [{"src": "x.png"}],
            "annotations": {"priority": 0.5}
        });
        let resource: Resource = serde_json::from_value(raw.clone()).unwrap();
        assert_eq!(resource.size, Some(12));
        assert_eq!(resource.extra["icons"], json!([{"src": "x.png"}]));
        assert_eq!(serde_json::to_value(&resource).unwrap(), raw);

        let page: ListResourceTemplatesResult = serde_json::from_value(json!({
            "resourceTemplates": [{"uriTemplate": "file:///{path}", "name": "files", "x": 1}],
            "nextCursor": "2"
        }))
        .unwrap();
        assert_eq!(page.resource_templates[0].uri_template, "file:///{path}");
        assert_eq!(page.resource_templates[0].extra["x"], json!(1));
        assert_eq!(page.next_cursor.as_deref(), Some("2"));
    }

    #[test]
    fn read_results_hold_text_and_blob_contents() {
        let read: ReadResourceResult = serde_json::from_value(json!({
            "contents": [
                {"uri": "a://t", "mimeType": "text/plain", "text": "hi"},
                {"uri": "a://b", "blob": "AAE="}
            ]
        }))
        .unwrap();
        assert_eq!(read.contents[0].text.as_deref(), Some("hi"));
        assert_eq!(read.contents[1].blob.as_deref(), Some("AAE="));
    }
}
