//! The request headers of the stateless revision (2026-07-28) over Streamable HTTP (SEP-2243),
//! so that gateways can route a request without reading its body:
//!
//! - `MCP-Protocol-Version`: the `io.modelcontextprotocol/protocolVersion` of the body's `_meta`;
//! - `Mcp-Method`: the method; `Mcp-Name`: `params.name` of `tools/call` and `prompts/get`,
//!   `params.uri` of `resources/read`, `params.taskId` of `tasks/get`, `tasks/update` and
//!   `tasks/cancel` (the Tasks extension: it routes a task's requests to the instance that
//!   holds it);
//! - `Mcp-Param-{Name}`: for `tools/call`, each argument the tool's input schema designates with
//!   `"x-mcp-header": "{Name}"`, read at that property's path; omitted when the argument is
//!   absent or null.
//!
//! A value that is not plain visible ASCII (non-ASCII, control characters, leading or trailing
//! white space, or the sentinel itself) goes as `=?base64?{UTF-8, Base64}?=` ([`encode`]).
//!
//! The transport reads these from each message it sends, so the peer and the client stay
//! unaware of HTTP; the designations come from the client, which learns them when it lists the
//! tools ([`ToolHeaders`]) and leaves out of the list a tool whose designations break the rules
//! ([`designations`]). Handshake-era messages (no protocol version in `_meta`) get none of this.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use base64::Engine as _;
use reqwest::header::{HeaderName, HeaderValue};
use serde_json::Value;

pub(crate) use super::scan::KnownMeta;
use crate::protocol::{JsonObject, methods};

/// The `MCP-Protocol-Version` header.
pub(crate) static PROTOCOL_VERSION: HeaderName = HeaderName::from_static("mcp-protocol-version");
static MCP_METHOD: HeaderName = HeaderName::from_static("mcp-method");
static MCP_NAME: HeaderName = HeaderName::from_static("mcp-name");
/// The prefix of the headers a tool designates.
const PARAM_PREFIX: &str = "Mcp-Param-";
/// The schema keyword that designates a header.
const DESIGNATION: &str = "x-mcp-header";
const SENTINEL_START: &str = "=?base64?";
const SENTINEL_END: &str = "?=";
/// The largest integer JavaScript holds exactly: designated integers stay within ±this.
const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

/// One header a tool designates: its name and the property path of the argument it mirrors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Designation {
    header: HeaderName,
    path: Vec<String>,
}

impl Designation {
    /// The header's name, `Mcp-Param-{Name}`.
    pub fn header(&self) -> &HeaderName {
        &self.header
    }

    /// The chain of `properties` keys that leads to the argument.
    pub fn path(&self) -> &[String] {
        &self.path
    }
}

/// The headers each tool of a server designates, by tool name: filled by the client when it
/// lists the tools, read by the transport when it sends `tools/call`.
#[derive(Debug, Default)]
pub struct ToolHeaders {
    tools: RwLock<HashMap<String, Arc<[Designation]>>>,
}

impl ToolHeaders {
    /// Replaces what is known with the designations of the tools just listed (tools without
    /// any are left out).
    pub fn replace(&self, tools: impl IntoIterator<Item = (String, Vec<Designation>)>) {
        let tools = tools
            .into_iter()
            .filter(|(_, designations)| !designations.is_empty())
            .map(|(name, designations)| (name, Arc::from(designations)))
            .collect();
        *self
            .tools
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = tools;
    }

    fn of(&self, tool: &str) -> Option<Arc<[Designation]>> {
        let tools = self
            .tools
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if tools.is_empty() {
            return None;
        }
        tools.get(tool).cloned()
    }
}

/// Why a tool's header designations break the revision's rules, so that the tool is left out.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum InvalidDesignation {
    /// The designation of the parameter at `at` (its property path, dotted) is not a string.
    #[error("x-mcp-header of {at:?} is not a string")]
    NotAString {
        /// The parameter's property path.
        at: String,
    },
    /// The designated name is empty or not an HTTP header-name token.
    #[error("x-mcp-header {name:?} of {at:?} is not an HTTP header-name token")]
    NotAToken {
        /// The designated name.
        name: String,
        /// The parameter's property path.
        at: String,
    },
    /// The parameter's type is not string, integer or boolean.
    #[error("x-mcp-header {name:?} is on {at:?}, whose type is not string, integer or boolean")]
    NotPrimitive {
        /// The designated name.
        name: String,
        /// The parameter's property path.
        at: String,
    },
    /// A designation sits where `properties` alone do not reach it.
    #[error(
        "x-mcp-header is only allowed on properties reached through `properties` alone (not \
         inside items, composition, conditionals or $ref)"
    )]
    Unreachable,
    /// Two parameters designate the same header.
    #[error("two parameters designate the header {header} (names are compared without case)")]
    Duplicate {
        /// The header, lowercase.
        header: String,
    },
}

/// The headers a tool's input schema designates, or why the tool must be left out: a
/// designation that is not a valid header-name token, that repeats another (case-insensitively),
/// that sits on a parameter whose type is not string, integer or boolean, or that is not
/// reachable from the root through `properties` alone.
pub fn designations(schema: &JsonObject) -> Result<Vec<Designation>, InvalidDesignation> {
    let mut found = Vec::new();
    collect(schema, &mut Vec::new(), &mut found)?;
    let reachable = found.len();
    let anywhere = count_in_object(schema, false);
    if anywhere != reachable {
        return Err(InvalidDesignation::Unreachable);
    }
    let mut seen = std::collections::HashSet::new();
    for designation in &found {
        if !seen.insert(designation.header.as_str()) {
            return Err(InvalidDesignation::Duplicate {
                header: designation.header.as_str().to_owned(),
            });
        }
    }
    Ok(found)
}

/// The designations reachable from `schema` through `properties`, with their paths.
fn collect(
    schema: &JsonObject,
    path: &mut Vec<String>,
    found: &mut Vec<Designation>,
) -> Result<(), InvalidDesignation> {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Ok(());
    };
    for (name, property) in properties {
        let Some(property) = property.as_object() else {
            continue;
        };
        path.push(name.clone());
        if let Some(designated) = property.get(DESIGNATION) {
            found.push(designation(designated, property, path)?);
        }
        collect(property, path, found)?;
        path.pop();
    }
    Ok(())
}

fn designation(
    designated: &Value,
    property: &JsonObject,
    path: &[String],
) -> Result<Designation, InvalidDesignation> {
    let at = || path.join(".");
    let Some(name) = designated.as_str() else {
        return Err(InvalidDesignation::NotAString { at: at() });
    };
    let not_a_token = || InvalidDesignation::NotAToken {
        name: name.to_owned(),
        at: at(),
    };
    if name.is_empty() || !name.bytes().all(is_token_char) {
        return Err(not_a_token());
    }
    let primitive = |kind: &str| matches!(kind, "string" | "integer" | "boolean");
    let typed = match property.get("type") {
        Some(Value::String(kind)) => primitive(kind),
        // `["string", "null"]`: one primitive type, possibly nullable.
        Some(Value::Array(kinds)) => {
            let kinds: Vec<_> = kinds.iter().filter_map(Value::as_str).collect();
            kinds.iter().filter(|kind| **kind != "null").count() == 1
                && kinds.iter().all(|kind| *kind == "null" || primitive(kind))
        }
        _ => false,
    };
    if !typed {
        return Err(InvalidDesignation::NotPrimitive {
            name: name.to_owned(),
            at: at(),
        });
    }
    let header = HeaderName::from_bytes(format!("{PARAM_PREFIX}{name}").as_bytes())
        .map_err(|_| not_a_token())?;
    Ok(Designation {
        header,
        path: path.to_vec(),
    })
}

/// `tchar` of RFC 9110 §5.6.2.
fn is_token_char(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&byte)
}

/// How many schema objects anywhere in `schema` carry the designation keyword. `in_names`: the
/// object is a `properties` map, whose keys are parameter names, not keywords. Literal data
/// (`const`, `enum`, `default`, `examples`) is not a schema and is not looked into.
fn count_designations(schema: &Value, in_names: bool) -> usize {
    match schema {
        Value::Object(object) => count_in_object(object, in_names),
        Value::Array(items) => items
            .iter()
            .map(|item| count_designations(item, false))
            .sum(),
        _ => 0,
    }
}

fn count_in_object(object: &JsonObject, in_names: bool) -> usize {
    object
        .iter()
        .map(|(key, value)| {
            let own = usize::from(!in_names && key == DESIGNATION);
            let nested = match key.as_str() {
                _ if in_names => count_designations(value, false),
                "const" | "enum" | "default" | "examples" => 0,
                "properties" | "patternProperties" | "$defs" | "definitions"
                | "dependentSchemas" => count_designations(value, true),
                _ => count_designations(value, false),
            };
            own + nested
        })
        .sum()
}

/// A header value as the revision encodes it: as is when it is plain visible ASCII (spaces and
/// tabs inside), else `=?base64?…?=` of its UTF-8.
pub fn encode(value: &str) -> Cow<'_, str> {
    let plain = value
        .bytes()
        .all(|byte| byte == b'\t' || (0x20..=0x7e).contains(&byte));
    let padded = value.starts_with([' ', '\t']) || value.ends_with([' ', '\t']);
    let looks_encoded = value.starts_with(SENTINEL_START) && value.ends_with(SENTINEL_END);
    if plain && !padded && !looks_encoded {
        Cow::Borrowed(value)
    } else {
        let encoded = base64::engine::general_purpose::STANDARD.encode(value.as_bytes());
        Cow::Owned(format!("{SENTINEL_START}{encoded}{SENTINEL_END}"))
    }
}

/// The headers of request `message`, or `None` for a message of the handshake era (no protocol
/// version in its `_meta`), which the session's headers serve instead.
pub(crate) fn of_request(
    message: &str,
    tools: &ToolHeaders,
    known: &KnownMeta,
) -> Option<Vec<(HeaderName, HeaderValue)>> {
    let mirrored = super::scan::mirrored(message, known)?;
    let version = mirrored.protocol_version.as_deref()?;
    let method = mirrored.method.as_deref()?;
    let mut headers = Vec::with_capacity(3);
    let mut add = |name: HeaderName, value: &str| {
        if let Ok(value) = HeaderValue::from_str(&encode(value)) {
            headers.push((name, value));
        }
    };
    add(PROTOCOL_VERSION.clone(), version);
    add(MCP_METHOD.clone(), method);
    let named = match method {
        methods::TOOLS_CALL | methods::PROMPTS_GET => mirrored.name.as_deref(),
        methods::RESOURCES_READ => mirrored.uri.as_deref(),
        methods::TASKS_GET | methods::TASKS_UPDATE | methods::TASKS_CANCEL => {
            mirrored.task_id.as_deref()
        }
        _ => None,
    };
    if let Some(name) = named {
        add(MCP_NAME.clone(), name);
    }
    if method == methods::TOOLS_CALL
        && let (Some(tool), Some(arguments)) = (mirrored.name.as_deref(), mirrored.arguments)
        && let Some(designations) = tools.of(tool)
        && let Ok(arguments) = serde_json::from_str::<Value>(arguments)
    {
        for designation in designations.iter() {
            if let Some(value) = argument_text(&arguments, &designation.path) {
                add(designation.header.clone(), &value);
            }
        }
    }
    Some(headers)
}

/// The argument at `path` as header text: strings as they are, integers in decimal, booleans as
/// `true`/`false`; nothing for an absent or null argument (or one of another type, which the
/// server's validation will name).
fn argument_text(arguments: &Value, path: &[String]) -> Option<String> {
    let value = path
        .iter()
        .try_fold(arguments, |value, key| value.get(key))?;
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Bool(flag) => Some(flag.to_string()),
        Value::Number(number) => number
            .as_i64()
            .filter(|integer| integer.abs() <= MAX_SAFE_INTEGER)
            .map(|integer| integer.to_string())
            .or_else(|| {
                // 42.0 is the integer 42.
                number
                    .as_f64()
                    .filter(|float| float.fract() == 0.0 && float.abs() <= MAX_SAFE_INTEGER as f64)
                    .map(|float| (float as i64).to_string())
            }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn names(schema: Value) -> Result<Vec<(String, Vec<String>)>, InvalidDesignation> {
        let Value::Object(schema) = schema else {
            panic!("not an object")
        };
        designations(&schema).map(|found| {
            found
                .into_iter()
                .map(|d| (d.header.as_str().to_owned(), d.path))
                .collect()
        })
    }

    #[test]
    fn values_are_encoded_as_the_revision_says() {
        assert_eq!(encode("us-west1"), "us-west1");
        assert_eq!(encode("Hello, 世界"), "=?base64?SGVsbG8sIOS4lueVjA==?=");
        assert_eq!(encode(" padded "), "=?base64?IHBhZGRlZCA=?=");
        assert_eq!(encode("line1\nline2"), "=?base64?bGluZTEKbGluZTI=?=");
        assert_eq!(
            encode("=?base64?literal?="),
            "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="
        );
        assert_eq!(encode("a b\tc"), "a b\tc");
    }

    #[test]
    fn designations_are_found_through_nested_properties() {
        let schema = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "query": {"type": "string"},
            "opts": {"type": "object", "properties": {
                "dry": {"type": "boolean", "x-mcp-header": "Dry-Run"}
            }}
        }});
        assert_eq!(
            names(schema).unwrap(),
            [
                ("mcp-param-region".to_owned(), vec!["region".to_owned()]),
                (
                    "mcp-param-dry-run".to_owned(),
                    vec!["opts".to_owned(), "dry".to_owned()]
                ),
            ]
        );
    }

    #[test]
    fn invalid_designations_reject_the_tool() {
        let on = |property: Value| json!({"type": "object", "properties": {"p": property}});
        assert!(names(on(json!({"type": "number", "x-mcp-header": "P"}))).is_err());
        assert!(names(on(json!({"type": "object", "x-mcp-header": "P"}))).is_err());
        assert!(names(on(json!({"type": "string", "x-mcp-header": ""}))).is_err());
        assert!(names(on(json!({"type": "string", "x-mcp-header": "a b"}))).is_err());
        assert!(names(on(json!({"type": "string", "x-mcp-header": "a\r\nb"}))).is_err());
        let duplicate = json!({"type": "object", "properties": {
            "a": {"type": "string", "x-mcp-header": "Same"},
            "b": {"type": "string", "x-mcp-header": "same"}
        }});
        assert!(names(duplicate).is_err());
        let in_items = json!({"type": "object", "properties": {"list": {"type": "array",
            "items": {"type": "string", "x-mcp-header": "Item"}}}});
        assert!(names(in_items).is_err());
        let in_any_of = json!({"type": "object", "anyOf": [{"properties": {
            "a": {"type": "string", "x-mcp-header": "A"}}}]});
        assert!(names(in_any_of).is_err());
    }

    #[test]
    fn a_parameter_named_like_the_keyword_or_data_quoting_it_is_no_designation() {
        let schema = json!({"type": "object", "properties": {
            "x-mcp-header": {"type": "string", "default": {"x-mcp-header": "no"}}
        }});
        assert_eq!(names(schema).unwrap(), []);
    }

    #[test]
    fn a_stateless_tool_call_gets_every_header() {
        let tools = ToolHeaders::default();
        tools.replace([(
            "execute_sql".to_owned(),
            designations(
                json!({"properties": {
                    "region": {"type": "string", "x-mcp-header": "Region"},
                    "limit": {"type": "integer", "x-mcp-header": "Limit"},
                    "note": {"type": "string", "x-mcp-header": "Note"}
                }})
                .as_object()
                .unwrap(),
            )
            .unwrap(),
        )]);
        let message = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute_sql","arguments":{"region":"us-west1","limit":42.0,"note":null},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
        let headers: Vec<(String, String)> = of_request(message, &tools, &KnownMeta::default())
            .unwrap()
            .into_iter()
            .map(|(name, value)| (name.to_string(), value.to_str().unwrap().to_owned()))
            .collect();
        let expected = [
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "execute_sql"),
            ("mcp-param-region", "us-west1"),
            ("mcp-param-limit", "42"),
        ];
        assert_eq!(
            headers,
            expected.map(|(name, value)| (name.to_owned(), value.to_owned()))
        );
    }

    #[test]
    fn a_handshake_era_message_gets_none_and_a_resource_uri_is_encoded() {
        let tools = ToolHeaders::default();
        assert!(
            of_request(
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#,
                &tools,
                &KnownMeta::default()
            )
            .is_none()
        );
        let read = r#"{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"file:///ç","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
        let headers = of_request(read, &tools, &KnownMeta::default()).unwrap();
        assert_eq!(headers[2].0, "mcp-name");
        assert_eq!(headers[2].1, "=?base64?ZmlsZTovLy/Dpw==?=");
    }

    #[test]
    fn a_tasks_request_names_its_task_and_no_other_method_does() {
        let tools = ToolHeaders::default();
        let names = |method: &str| {
            let message = format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"{method}","params":{{"taskId":"786512e2","_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}}}}"#
            );
            of_request(&message, &tools, &KnownMeta::default())
                .unwrap()
                .into_iter()
                .find(|(name, _)| name == "mcp-name")
                .map(|(_, value)| value.to_str().unwrap().to_owned())
        };
        for method in ["tasks/get", "tasks/update", "tasks/cancel"] {
            assert_eq!(names(method).as_deref(), Some("786512e2"), "{method}");
        }
        assert_eq!(names("tools/list"), None);
    }
}
