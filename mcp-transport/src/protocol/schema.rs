//! [`JsonSchema`]: a tool's schema kept as the JSON text the server sent, built into an object
//! only when something reads it.
//!
//! A start from the cache takes hundreds of tools before any of their schemas is read: the
//! agent asks for a tool's parameters when it builds the model's tool list, an argument check
//! at the tool's first call, and a tool the agent never offers is never read. Building every
//! schema as a tree was most of a cache read: one entry of 200 tools decodes in ~130 µs with
//! the schemas kept as text, ~550 µs when every one is built. Written here rather than taken
//! from a crate: it is serde_json's `RawValue` plus a lazily built object.

use std::sync::OnceLock;

use serde::de::{Error as _, Unexpected};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;

use super::JsonObject;

/// How deeply objects and arrays may nest in a schema read as text: serde_json builds a tree
/// of at most this depth, so a deeper schema is refused when it is read, not when it is first
/// used.
const MAX_DEPTH: usize = 127;

/// A JSON Schema object (a tool's `inputSchema` or `outputSchema`), kept verbatim.
///
/// Read from JSON, it holds the text (key order, number spelling and all) and serializes it
/// back unchanged; [`as_object`](Self::as_object) builds the object the first time it is asked
/// for. Made with [`from_object`](Self::from_object), it holds the object.
///
/// Its serde impls are serde_json's raw values: it reads from serde_json (text or a
/// `serde_json::Value`), not from other formats nor from serde's buffered content (a [`Tool`]
/// inside an `#[serde(untagged)]` enum or a `#[serde(flatten)]` field of your own).
///
/// [`Tool`]: crate::Tool
pub struct JsonSchema {
    /// The JSON text as read; `None` for a schema made from an object.
    text: Option<Box<RawValue>>,
    /// The object, built from `text` on first use (always set when `text` is `None`).
    object: OnceLock<JsonObject>,
}

impl JsonSchema {
    /// A schema holding `object`.
    pub fn from_object(object: JsonObject) -> Self {
        Self {
            text: None,
            object: OnceLock::from(object),
        }
    }

    /// `{"type": "object"}`: the schema of a tool that declares none.
    pub fn empty_object() -> Self {
        let mut object = JsonObject::new();
        object.insert("type".to_owned(), "object".into());
        Self::from_object(object)
    }

    /// The schema as an object, built from its text on the first call.
    pub fn as_object(&self) -> &JsonObject {
        self.object
            .get_or_init(|| self.text.as_deref().map(built).unwrap_or_default())
    }

    /// A copy of the object, built from the text when it was not built yet (and then not
    /// kept): for a caller that changes it, without a second tree left behind in the schema.
    pub fn to_object(&self) -> JsonObject {
        match (self.object.get(), self.text.as_deref()) {
            (None, Some(text)) => built(text),
            _ => self.as_object().clone(),
        }
    }

    /// The schema as an object, owned.
    pub fn into_object(self) -> JsonObject {
        let Self { text, object } = self;
        object
            .into_inner()
            .unwrap_or_else(|| text.as_deref().map(built).unwrap_or_default())
    }

    /// Whether the object has `key` at its top level.
    pub fn contains_key(&self, key: &str) -> bool {
        self.as_object().contains_key(key)
    }

    /// The schema's JSON text when it was read from JSON (verbatim), `None` when it was made
    /// from an object.
    pub fn json_text(&self) -> Option<&str> {
        self.text.as_deref().map(RawValue::get)
    }
}

impl From<JsonObject> for JsonSchema {
    fn from(object: JsonObject) -> Self {
        Self::from_object(object)
    }
}

impl Clone for JsonSchema {
    fn clone(&self) -> Self {
        Self {
            text: self.text.clone(),
            object: self.object.clone(),
        }
    }
}

/// Equal when they are the same object (key order aside, as for [`JsonObject`]); the same
/// text is known equal without building either.
impl PartialEq for JsonSchema {
    fn eq(&self, other: &Self) -> bool {
        match (self.json_text(), other.json_text()) {
            (Some(mine), Some(theirs)) if mine == theirs => true,
            _ => self.as_object() == other.as_object(),
        }
    }
}

impl std::fmt::Debug for JsonSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.json_text() {
            Some(text) => f.debug_tuple("JsonSchema").field(&text).finish(),
            None => f.debug_tuple("JsonSchema").field(self.as_object()).finish(),
        }
    }
}

impl Serialize for JsonSchema {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.text {
            Some(text) => text.serialize(serializer),
            None => self.as_object().serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for JsonSchema {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = Box::<RawValue>::deserialize(deserializer)?;
        if !text.get().starts_with('{') {
            return Err(D::Error::invalid_type(
                unexpected(text.get()),
                &"a JSON Schema object",
            ));
        }
        if deeper_than(text.get(), MAX_DEPTH) {
            return Err(D::Error::custom(format_args!(
                "a schema nested more than {MAX_DEPTH} levels deep"
            )));
        }
        if may_not_build(text.get())
            && let Err(error) = serde_json::from_str::<Buildable>(text.get())
        {
            return Err(D::Error::custom(format_args!(
                "a schema serde_json cannot build: {error}"
            )));
        }
        Ok(Self {
            text: Some(text),
            object: OnceLock::new(),
        })
    }
}

/// The object of a schema's text. The text was checked when it was read (one JSON object,
/// nested no deeper than serde_json builds), so this cannot fail; if it ever did, the schema
/// would read as `{}`, said loudly.
fn built(text: &RawValue) -> JsonObject {
    serde_json::from_str(text.get()).unwrap_or_else(|error| {
        debug_assert!(false, "a schema checked when read does not parse: {error}");
        tracing::error!(%error, "a tool schema checked when read does not parse; taken as {{}}");
        JsonObject::default()
    })
}

/// Whether valid JSON `text` may hold what serde_json refuses to build though a raw value
/// holds it: a `\u` escape of a surrogate (an unpaired one is refused), or a number too large
/// for an `f64` (one needs an exponent of three digits or more, or 200 digits before its
/// exponent). A superset, found without parsing; a text it flags is checked in full
/// ([`Buildable`]), and most schemas have neither.
fn may_not_build(text: &str) -> bool {
    let bytes = text.as_bytes();
    // Digits in a row up to `at`; blocks and pieces without a digit or a backslash (most of a
    // schema) are passed over with a few vector compares.
    let (mut run, mut at) = (0_usize, 0_usize);
    for block in bytes.chunks(64) {
        if let Ok(whole) = <&[u8; 64]>::try_from(block)
            && is_plain(whole)
        {
            (run, at) = (0, at + block.len());
            continue;
        }
        for piece in block.chunks(16) {
            if let Ok(whole) = <&[u8; 16]>::try_from(piece)
                && is_plain(whole)
            {
                (run, at) = (0, at + piece.len());
                continue;
            }
            for &byte in piece {
                match byte {
                    b'0'..=b'9' => {
                        run += 1;
                        if run == 200 || (run == 3 && follows_an_exponent_mark(bytes, at - 2)) {
                            return true;
                        }
                    }
                    // In valid JSON every backslash starts an escape.
                    b'\\' => {
                        run = 0;
                        if bytes.get(at + 1) == Some(&b'u')
                            && matches!(bytes.get(at + 2), Some(b'd' | b'D'))
                        {
                            return true;
                        }
                    }
                    _ => run = 0,
                }
                at += 1;
            }
        }
    }
    false
}

/// Whether a block has neither a digit nor a backslash; written without an early exit so that
/// it compiles to vector compares.
fn is_plain<const N: usize>(block: &[u8; N]) -> bool {
    block.iter().fold(0_u8, |found, &byte| {
        found | u8::from(byte.wrapping_sub(b'0') < 10) | u8::from(byte == b'\\')
    }) == 0
}

/// Whether the digits starting at `start` are an exponent's: right after `e` or `E`, or after
/// its sign.
fn follows_an_exponent_mark(bytes: &[u8], start: usize) -> bool {
    let before = |back: usize| start.checked_sub(back).map(|at| bytes[at]);
    match before(1) {
        Some(b'e' | b'E') => true,
        Some(b'+' | b'-') => matches!(before(2), Some(b'e' | b'E')),
        _ => false,
    }
}

/// A JSON value that serde_json would build, checked without building it: its strings decode
/// (serde_json refuses an unpaired surrogate escape such as `"\\ud800"`) and its numbers are
/// finite (`1e400` is refused), which a raw value, read as text, does not check.
struct Buildable;

impl<'de> Deserialize<'de> for Buildable {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(Buildable)
    }
}

impl<'de> serde::de::Visitor<'de> for Buildable {
    type Value = Buildable;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Self, E> {
        Ok(self)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Self, E> {
        Ok(self)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Self, E> {
        Ok(self)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Self, E> {
        Ok(self)
    }

    fn visit_str<E>(self, _: &str) -> Result<Self, E> {
        Ok(self)
    }

    fn visit_unit<E>(self) -> Result<Self, E> {
        Ok(self)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self, A::Error> {
        while seq.next_element::<Buildable>()?.is_some() {}
        Ok(self)
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self, A::Error> {
        while map.next_key::<Buildable>()?.is_some() {
            map.next_value::<Buildable>()?;
        }
        Ok(self)
    }
}

/// What a JSON value that is not an object is, for the error.
fn unexpected(text: &str) -> Unexpected<'_> {
    match text.as_bytes().first() {
        Some(b'[') => Unexpected::Seq,
        Some(b'"') => Unexpected::Other("a string"),
        Some(b't' | b'f') => Unexpected::Other("a boolean"),
        Some(b'n') => Unexpected::Other("null"),
        _ => Unexpected::Other("a number"),
    }
}

/// Whether objects and arrays nest more than `depth` levels deep in valid JSON `text`.
fn deeper_than(text: &str, depth: usize) -> bool {
    // Every level opens with a bracket: a text with few of them (found by memchr's vector
    // search, inside strings too) cannot be deep, and most schemas have a handful.
    memchr::memchr2_iter(b'{', b'[', text.as_bytes())
        .nth(depth)
        .is_some()
        && nesting_depth(text) > depth
}

/// The deepest nesting of objects and arrays in valid JSON `text` (brackets inside strings do
/// not count).
fn nesting_depth(text: &str) -> usize {
    let (mut depth, mut deepest) = (0_usize, 0_usize);
    let (mut in_string, mut escaped) = (false, false);
    for byte in text.bytes() {
        if in_string {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'{' | b'[' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    fn nested(depth: usize) -> String {
        format!(
            "{}{}{}",
            r#"{"a":"#.repeat(depth - 1) + "{",
            r#""k":"[{\"}""#,
            "}".repeat(depth)
        )
    }

    #[test]
    fn read_schema_serializes_back_verbatim_and_builds_its_object_on_demand() {
        let text = r#"{"type":"object","zeta":1.50,"alpha":{"b":2,"a":1}}"#;
        let schema: JsonSchema = serde_json::from_str(text).unwrap();
        assert_eq!(schema.json_text(), Some(text));
        assert!(schema.object.get().is_none(), "nothing built by reading");
        assert_eq!(serde_json::to_string(&schema).unwrap(), text);
        let keys: Vec<&String> = schema.as_object().keys().collect();
        assert_eq!(keys, ["type", "zeta", "alpha"]);
        assert_eq!(schema.as_object()["alpha"], json!({"b": 2, "a": 1}));

        // Owned or copied, built or not, it is the same object.
        let unbuilt: JsonSchema = serde_json::from_str(text).unwrap();
        assert_eq!(&unbuilt.to_object(), schema.as_object());
        assert!(
            unbuilt.object.get().is_none(),
            "a copy leaves nothing built behind"
        );
        assert_eq!(&unbuilt.into_object(), schema.as_object());
        assert_eq!(&schema.clone().into_object(), schema.as_object());
    }

    #[test]
    fn schema_made_from_an_object_serializes_that_object() {
        let object = json!({"type": "object", "required": ["x"]});
        let Value::Object(object) = object else {
            unreachable!()
        };
        let schema = JsonSchema::from_object(object.clone());
        assert_eq!(schema.json_text(), None);
        assert_eq!(schema.as_object(), &object);
        assert_eq!(
            serde_json::to_value(&schema).unwrap(),
            Value::Object(object)
        );
    }

    #[test]
    fn schemas_are_equal_as_objects_whatever_their_spacing_or_origin() {
        let spaced: JsonSchema = serde_json::from_str(r#"{ "type" : "object" }"#).unwrap();
        let tight: JsonSchema = serde_json::from_str(r#"{"type":"object"}"#).unwrap();
        assert_eq!(spaced, tight);
        assert_eq!(spaced, JsonSchema::empty_object());
        let other: JsonSchema = serde_json::from_str(r#"{"type":"string"}"#).unwrap();
        assert_ne!(other, tight);
    }

    #[test]
    fn a_schema_that_is_not_an_object_is_refused_with_what_it_is() {
        for (text, what) in [
            ("[1]", "sequence"),
            (r#""s""#, "a string"),
            ("true", "a boolean"),
            ("null", "null"),
            ("3", "a number"),
        ] {
            let error = serde_json::from_str::<JsonSchema>(text).unwrap_err();
            assert!(
                error.to_string().contains(what) && error.to_string().contains("JSON Schema"),
                "{text}: {error}"
            );
        }
    }

    #[test]
    fn schema_as_deep_as_serde_json_builds_is_read_and_a_deeper_one_refused() {
        let deepest: JsonSchema = serde_json::from_str(&nested(MAX_DEPTH)).unwrap();
        assert!(!deepest.as_object().is_empty(), "built whole");
        let error = serde_json::from_str::<JsonSchema>(&nested(MAX_DEPTH + 1)).unwrap_err();
        assert!(error.to_string().contains("levels deep"), "{error}");
    }

    #[test]
    fn schema_serde_json_cannot_build_is_refused_when_read() {
        let refused = [
            r#"{"\ud800type":"object"}"#.to_owned(),
            r#"{"description":"a \uDC00 alone"}"#.to_owned(),
            r#"{"maximum":1e400}"#.to_owned(),
            r#"{"minimum":-2.5E+0308}"#.to_owned(),
            format!(r#"{{"maximum":{}}}"#, "9".repeat(400)),
        ];
        for text in &refused {
            let error = serde_json::from_str::<JsonSchema>(text).unwrap_err();
            assert!(
                error.to_string().contains("cannot build"),
                "{text}: {error}"
            );
            assert!(serde_json::from_str::<JsonObject>(text).is_err(), "{text}");
        }
        let read = [
            r#"{"description":"a smile: \ud83d\ude00","x":"\\ud800 is text"}"#.to_owned(),
            r#"{"maximum":1e300,"minimum":-1.7976931348623157e308,"tiny":1e-400}"#.to_owned(),
            format!(r#"{{"maximum":{}}}"#, "9".repeat(300)),
        ];
        for text in &read {
            let schema: JsonSchema = serde_json::from_str(text).unwrap();
            let object: JsonObject = serde_json::from_str(text).unwrap();
            assert_eq!(schema.as_object(), &object, "{text}");
        }
    }

    #[test]
    fn only_texts_with_a_surrogate_escape_or_a_huge_number_are_checked_in_full() {
        let plain = r#"{"type":"object","properties":{"limit":{"type":"integer","maximum":1000,"description":"At most 1000; see RFC 9110 \"limits\"."}}}"#;
        assert!(!may_not_build(plain));
        assert!(!may_not_build(r#"{"a":"e1","b":1e99,"c":1.5e-07}"#));
        assert!(may_not_build(r#"{"a":"\ud83d\ude00"}"#));
        assert!(may_not_build(r#"{"a":1e100}"#));
        assert!(may_not_build(r#"{"a":1E-300}"#));
        // A long run of digits is found wherever it falls against the scan's 64-byte blocks.
        for padding in 0..64 {
            let long = format!(r#"{{"{}":{}}}"#, "k".repeat(padding), "1".repeat(200));
            assert!(may_not_build(&long), "padding {padding}");
            let short = format!(r#"{{"{}":{}}}"#, "k".repeat(padding), "1".repeat(199));
            assert!(!may_not_build(&short), "padding {padding}");
        }
    }

    #[test]
    fn brackets_inside_strings_do_not_count_as_nesting() {
        assert_eq!(nesting_depth(r#"{"a":"{[{[\"{"}"#), 1);
        assert_eq!(nesting_depth(r#"{"a":[{"b":[]}]}"#), 4);
        let many_shallow = format!("{{\"a\":[{}0]}}", "{},".repeat(300));
        assert!(!deeper_than(&many_shallow, 3));
        assert!(deeper_than(&many_shallow, 2));
    }

    #[test]
    fn schema_does_not_read_from_serdes_buffered_content() {
        #[derive(Debug, Deserialize)]
        #[serde(untagged)]
        enum Buffered {
            Schema {
                #[allow(dead_code)]
                schema: JsonSchema,
            },
        }
        let read = serde_json::from_str::<Buffered>(r#"{"schema":{"type":"object"}}"#);
        assert!(read.is_err(), "{read:?}");
    }

    #[test]
    fn schema_reads_from_a_json_value_too() {
        let schema: JsonSchema = serde_json::from_value(json!({"type": "object"})).unwrap();
        assert_eq!(schema, JsonSchema::empty_object());
    }
}
