//! The content blocks of a tool result: text, images, audio, resource links, embedded resources,
//! and any type this crate does not know, kept whole. Decoded in one pass (the hot path of every
//! tool call).

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use super::JsonObject;

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
        match self {
            Self::Text(block) => tagged("text", block, serializer),
            Self::Image(block) => tagged("image", block, serializer),
            Self::Audio(block) => tagged("audio", block, serializer),
            Self::ResourceLink(block) => tagged("resource_link", block, serializer),
            Self::Resource(block) => tagged("resource", block, serializer),
            Self::Unknown(value) => value.serialize(serializer),
        }
    }
}

/// A block's fields with its `type` beside them.
fn tagged<T: Serialize, S: Serializer>(
    kind: &'static str,
    block: &T,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    struct Tagged<'a, T> {
        #[serde(rename = "type")]
        kind: &'static str,
        #[serde(flatten)]
        block: &'a T,
    }
    Tagged { kind, block }.serialize(serializer)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::CallToolResult;
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
}
