//! JSON-RPC 2.0 message shapes as MCP uses them.
//!
//! Outgoing messages are serialized straight from borrowed data; incoming ones are first read as
//! an envelope that borrows from the received bytes and leaves `params`, `result` and
//! `error` undecoded, so a response is decoded once, as the type its request expects.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::protocol::{ProgressNotificationParams, methods};

pub(crate) mod id;

pub use id::RequestId;

/// The start of a message written the way this client and most servers write one:
/// `{"jsonrpc":"2.0","id":<digits>,` then the rest. Returns the id (a JSON number without sign,
/// fraction or leading zero that fits a `u64`), its digits as written, and what follows the
/// comma, so the id and the next member can be read from the bytes without a pass over the
/// whole message. `None` for any other start; the caller then parses the message.
pub(crate) fn plain_head(message: &[u8]) -> Option<(u64, &str, &[u8])> {
    const HEAD: &[u8] = br#"{"jsonrpc":"2.0","id":"#;
    let rest = message.strip_prefix(HEAD)?;
    let digits = rest.iter().take_while(|byte| byte.is_ascii_digit()).count();
    if digits == 0 || digits > 20 || (digits > 1 && rest[0] == b'0') {
        return None;
    }
    let (id, rest) = rest.split_at(digits);
    let digits = std::str::from_utf8(id).ok()?;
    Some((digits.parse().ok()?, digits, rest.strip_prefix(b",")?))
}

/// The `error` member of a JSON-RPC error response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ErrorObject {
    /// The error code (see [`error_codes`]).
    pub code: i64,
    /// A short description.
    #[serde(default)]
    pub message: String,
    /// Extra information from the server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<serde_json::Value>,
}

/// The member of an error's `data` that marks it as this client's own note of a request that
/// failed at the HTTP level (its status, its body over the limit), delivered as the request's
/// answer: not the server's answer, and said as such.
pub(crate) const HTTP_FAILURE: &str = "httpFailure";

impl ErrorObject {
    /// Whether this is the client's own note of a request that failed at the HTTP level (its
    /// `data` holds `"httpFailure": true`), not an error the server answered with.
    pub fn is_http_failure(&self) -> bool {
        self.data
            .as_ref()
            .and_then(|data| data.get(HTTP_FAILURE))
            .and_then(serde_json::Value::as_bool)
            .unwrap_or(false)
    }

    /// An error object with a code and a message.
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            data: None,
        }
    }
}

impl fmt::Display for ErrorObject {
    /// The server's message and its code, once: a message that names the code already (as the
    /// TypeScript SDK writes them, `MCP error -32002: …`) is not given it again. Only `error`
    /// and the whole code count as naming it: a number in the message's own text does not.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let named = format!("error {}", self.code);
        let names_code = self.message.match_indices(&named).any(|(at, _)| {
            !self.message[at + named.len()..].starts_with(|next: char| next.is_ascii_digit())
        });
        if names_code {
            f.write_str(&self.message)
        } else {
            write!(f, "{} (JSON-RPC error {})", self.message, self.code)
        }
    }
}

/// Standard JSON-RPC error codes.
pub mod error_codes {
    /// The message was not valid JSON.
    pub const PARSE_ERROR: i64 = -32700;
    /// The message was not a valid request.
    pub const INVALID_REQUEST: i64 = -32600;
    /// The method does not exist or is not offered.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// The parameters were invalid.
    pub const INVALID_PARAMS: i64 = -32602;
    /// An internal error of the answering side.
    pub const INTERNAL_ERROR: i64 = -32603;
    /// 2026-07-28, HTTP: the request's headers do not match its body, or one is missing.
    pub const HEADER_MISMATCH: i64 = -32020;
    /// 2026-07-28: the request needs a client capability the client did not declare.
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i64 = -32021;
    /// 2026-07-28: the server does not speak the requested protocol version; `data.supported`
    /// lists the ones it does.
    pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
}

/// An outgoing request, serialized from borrowed parts.
#[derive(Serialize)]
pub(crate) struct OutgoingRequest<'a, P> {
    pub(crate) jsonrpc: &'static str,
    pub(crate) id: u64,
    pub(crate) method: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) params: Option<P>,
}

/// An outgoing notification.
#[derive(Serialize)]
pub(crate) struct OutgoingNotification<'a, P> {
    pub(crate) jsonrpc: &'static str,
    pub(crate) method: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) params: Option<P>,
}

/// An outgoing response to a server's request; the id is echoed byte for byte.
#[derive(Serialize)]
pub(crate) struct OutgoingResponse<'a, R> {
    pub(crate) jsonrpc: &'static str,
    pub(crate) id: &'a RawValue,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) result: Option<R>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) error: Option<ErrorObject>,
}

/// Any incoming message, with its members left undecoded.
///
/// A message with a `method` is a request (with an `id`) or a notification (without); a message
/// with an `id` and no `method` is a response.
#[derive(Deserialize)]
pub(crate) struct IncomingEnvelope<'a> {
    #[serde(borrow, default)]
    pub(crate) jsonrpc: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow, default)]
    pub(crate) id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub(crate) method: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow, default)]
    pub(crate) params: Option<&'a RawValue>,
    /// Whether a `result` member is there (`null` included); its value is not decoded here.
    #[serde(default)]
    pub(crate) result: Present,
    /// Whether an `error` member is there.
    #[serde(default)]
    pub(crate) error: Present,
}

impl IncomingEnvelope<'_> {
    /// What keeps this message from being a response, if anything: a response says
    /// `"jsonrpc": "2.0"` and carries a `result` or an `error`.
    pub(crate) fn not_a_response(&self) -> Option<&'static str> {
        if self.jsonrpc.as_deref() != Some("2.0") {
            Some("a message with an id but no \"jsonrpc\": \"2.0\"")
        } else if !self.result.0 && !self.error.0 {
            Some("a message with an id but neither a result nor an error")
        } else {
            None
        }
    }
}

/// A member that is there (whatever its value, `null` included) or not; its value is skipped.
#[derive(Default)]
pub(crate) struct Present(pub(crate) bool);

impl<'de> Deserialize<'de> for Present {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        serde::de::IgnoredAny::deserialize(deserializer)?;
        Ok(Self(true))
    }
}

/// A response decoded as the type its request expects; other members are ignored.
#[derive(Deserialize)]
pub(crate) struct TypedResponse<R> {
    #[serde(default = "Option::default")]
    pub(crate) result: Option<R>,
    #[serde(default)]
    pub(crate) error: Option<ErrorObject>,
}

/// A notification received from the server, for subscribers: its method and parameters as they
/// came. [`kind`](Self::kind) tells what it is about, to `match` on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ServerNotification {
    /// The method, e.g. `notifications/tools/list_changed`.
    pub method: String,
    /// The parameters, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<Value>,
}

impl ServerNotification {
    /// A notification of `method` with `params` (as a test or a relay would make one).
    pub fn new(method: impl Into<String>, params: Option<Value>) -> Self {
        Self {
            method: method.into(),
            params,
        }
    }

    /// What the notification is about, read from its method and parameters when asked: the
    /// peer broadcasts the notification as it came, so a subscriber that never asks pays
    /// nothing, and one that does compares the method and borrows what it needs (only
    /// [`Progress`](NotificationKind::Progress) and
    /// [`Cancelled`](NotificationKind::Cancelled) read their parameters into values of their
    /// own).
    ///
    /// ```
    /// use mcp_transport::{NotificationKind, ServerNotification};
    /// use serde_json::json;
    ///
    /// let updated = ServerNotification::new(
    ///     "notifications/resources/updated",
    ///     Some(json!({"uri": "file:///notes.md"})),
    /// );
    /// match updated.kind() {
    ///     NotificationKind::ToolsListChanged => println!("list the tools again"),
    ///     NotificationKind::ResourceUpdated { uri, .. } => assert_eq!(uri, "file:///notes.md"),
    ///     _ => {}
    /// }
    /// ```
    pub fn kind(&self) -> NotificationKind<'_> {
        let params = self.params.as_ref();
        let member = |name: &str| params.and_then(|params| params.get(name));
        let text = |name: &str| member(name).and_then(Value::as_str);
        let known = match self.method.as_str() {
            methods::TOOLS_LIST_CHANGED => Some(NotificationKind::ToolsListChanged),
            methods::RESOURCES_LIST_CHANGED => Some(NotificationKind::ResourcesListChanged),
            methods::PROMPTS_LIST_CHANGED => Some(NotificationKind::PromptsListChanged),
            methods::RESOURCES_UPDATED => {
                text("uri").map(|uri| NotificationKind::ResourceUpdated { uri })
            }
            methods::PROGRESS => params
                .and_then(|params| ProgressNotificationParams::deserialize(params).ok())
                .map(NotificationKind::Progress),
            methods::MESSAGE => match (text("level"), member("data")) {
                (Some(level), Some(data)) => Some(NotificationKind::LogMessage {
                    level,
                    logger: text("logger"),
                    data,
                }),
                _ => None,
            },
            methods::CANCELLED => match member("requestId").map(RequestId::deserialize) {
                Some(Err(_)) => None,
                request_id => Some(NotificationKind::Cancelled {
                    request_id: request_id.and_then(Result::ok),
                    reason: text("reason"),
                }),
            },
            _ => None,
        };
        known.unwrap_or(NotificationKind::Other {
            method: &self.method,
            params,
        })
    }
}

/// What a [`ServerNotification`] is about: the notifications a client acts on, and every other
/// one as it came ([`ServerNotification::kind`]).
///
/// [`McpClient::subscribe`](crate::McpClient::subscribe) hands out every notification but two:
/// progress goes to the callback of the request it belongs to
/// ([`RequestOptions::on_progress`](crate::RequestOptions::on_progress)), and the server's
/// cancellation of one of its own requests is logged. Their variants classify such a
/// notification wherever else it is met.
///
/// A notification of a known method whose parameters lack what the protocol gives it (a
/// `resources/updated` without a `uri` string, say) is [`Other`](Self::Other), so nothing is
/// lost and nothing is made up.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum NotificationKind<'a> {
    /// `notifications/tools/list_changed`: the server's tools changed; list them again.
    ToolsListChanged,
    /// `notifications/resources/list_changed`: the server's resources (or resource templates)
    /// changed.
    ResourcesListChanged,
    /// `notifications/prompts/list_changed`: the server's prompts changed.
    PromptsListChanged,
    /// `notifications/resources/updated`: a resource the client subscribed to changed; read it
    /// again.
    #[non_exhaustive]
    ResourceUpdated {
        /// The resource's URI.
        uri: &'a str,
    },
    /// `notifications/progress`: how far a request has come.
    Progress(ProgressNotificationParams),
    /// `notifications/message`: a log message from the server.
    #[non_exhaustive]
    LogMessage {
        /// Its level (RFC 5424 names: `debug`, `info`, `notice`, `warning`, `error`,
        /// `critical`, `alert`, `emergency`).
        level: &'a str,
        /// The logger that wrote it, when the server names one.
        logger: Option<&'a str>,
        /// What was logged: a string or any JSON value.
        data: &'a Value,
    },
    /// `notifications/cancelled`: the server gave up one of its own requests (an elicitation,
    /// say); its answer is no longer wanted.
    #[non_exhaustive]
    Cancelled {
        /// The request given up, when the notification names one.
        request_id: Option<RequestId>,
        /// Why, for logs.
        reason: Option<&'a str>,
    },
    /// Any other notification, with its method and parameters as they came.
    Other {
        /// The method.
        method: &'a str,
        /// The parameters, if any.
        params: Option<&'a Value>,
    },
}

/// The `id` (as JSON text) of a response that was too long to read whole, from what was kept of
/// it: its start and its end. SDKs put the id before the result (Python) or after it
/// (TypeScript), so the start is read key by key at the top level, and the end is matched as
/// the last top-level members. `None` for a request or notification (it has a `method`), or
/// when neither end shows the id.
pub(crate) fn skipped_response_id(head: &[u8], tail: &[u8]) -> Option<String> {
    match top_level_id(head) {
        Scan::Request => None,
        Scan::Id(id) => Some(id),
        Scan::Unknown => trailing_id(tail),
    }
}

enum Scan {
    /// The start names a `method`: not a response.
    Request,
    Id(String),
    Unknown,
}

/// Reads the top-level members of a (truncated) JSON object until the `id`, a `method`, or
/// the end of what was kept.
fn top_level_id(head: &[u8]) -> Scan {
    let text = String::from_utf8_lossy(head);
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut index = 0;
    let mut expecting_key = false;
    while index < bytes.len() {
        match bytes[index] {
            b'"' => {
                let Some(end) = string_end(bytes, index) else {
                    return Scan::Unknown;
                };
                if depth == 1 && expecting_key {
                    let key = &text[index + 1..end];
                    let after = text[end + 1..].trim_start();
                    let Some(value) = after.strip_prefix(':') else {
                        return Scan::Unknown;
                    };
                    match key {
                        "method" => return Scan::Request,
                        "id" => {
                            return scalar(value.trim_start())
                                .map_or(Scan::Unknown, |id| Scan::Id(id.to_owned()));
                        }
                        _ => {}
                    }
                    expecting_key = false;
                }
                index = end + 1;
                continue;
            }
            b'{' | b'[' => {
                depth += 1;
                expecting_key = depth == 1;
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            b',' => expecting_key = depth == 1,
            _ => {}
        }
        index += 1;
    }
    Scan::Unknown
}

/// The index of the quote that ends the string starting at `start`.
fn string_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut index = start + 1;
    while index < bytes.len() {
        match bytes[index] {
            b'\\' => index += 2,
            b'"' => return Some(index),
            _ => index += 1,
        }
    }
    None
}

/// A number or a string at the start of `text`, as JSON text.
fn scalar(text: &str) -> Option<&str> {
    if text.starts_with('"') {
        let end = string_end(text.as_bytes(), 0)?;
        return Some(&text[..=end]);
    }
    let end = text
        .find(|c: char| !(c.is_ascii_digit() || c == '-'))
        .unwrap_or(text.len());
    (end > 0).then(|| &text[..end])
}

/// The id of `…,"id":7}` (optionally followed by `"jsonrpc":"2.0"`) at the end of a message.
fn trailing_id(tail: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(tail);
    let mut search = text.as_ref();
    while let Some(at) = search.rfind("\"id\"") {
        let after = search[at + 4..].trim_start();
        if let Some(value) = after.strip_prefix(':').map(str::trim_start)
            && let Some(id) = scalar(value)
        {
            let rest: String = value[id.len()..]
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect();
            if rest == "}" || rest == ",\"jsonrpc\":\"2.0\"}" {
                return Some(id.to_owned());
            }
        }
        search = &search[..at];
    }
    None
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn an_error_names_its_code_once() {
        let plain = ErrorObject::new(-32002, "Resource not found");
        assert_eq!(
            plain.to_string(),
            "Resource not found (JSON-RPC error -32002)"
        );
        let named = ErrorObject::new(-32002, "MCP error -32002: Resource not found");
        assert_eq!(named.to_string(), "MCP error -32002: Resource not found");
        // A number of the message's own is not the code.
        let counted = ErrorObject::new(1, "expected 1 argument");
        assert_eq!(
            counted.to_string(),
            "expected 1 argument (JSON-RPC error 1)"
        );
        let longer = ErrorObject::new(-3200, "MCP error -32002: Resource not found");
        assert_eq!(
            longer.to_string(),
            "MCP error -32002: Resource not found (JSON-RPC error -3200)"
        );
    }
    use crate::protocol::ProgressToken;

    fn kind_of(method: &str, params: Option<Value>) -> String {
        format!("{:?}", ServerNotification::new(method, params).kind())
    }

    #[test]
    fn each_notification_a_client_acts_on_is_classified_by_its_method() {
        let list_changes = [
            (
                methods::TOOLS_LIST_CHANGED,
                NotificationKind::ToolsListChanged,
            ),
            (
                methods::RESOURCES_LIST_CHANGED,
                NotificationKind::ResourcesListChanged,
            ),
            (
                methods::PROMPTS_LIST_CHANGED,
                NotificationKind::PromptsListChanged,
            ),
        ];
        for (method, expected) in list_changes {
            // Whatever the parameters: none, empty, or carrying `_meta`.
            for params in [None, Some(json!({})), Some(json!({"_meta": {"k": 1}}))] {
                let notification = ServerNotification::new(method, params);
                assert_eq!(notification.kind(), expected, "{method}");
            }
        }

        let updated = ServerNotification::new(
            methods::RESOURCES_UPDATED,
            Some(json!({"uri": "file:///notes.md", "title": "Notes"})),
        );
        assert_eq!(
            updated.kind(),
            NotificationKind::ResourceUpdated {
                uri: "file:///notes.md"
            }
        );

        let progress = ServerNotification::new(
            methods::PROGRESS,
            Some(json!({"progressToken": 7, "progress": 2.0, "total": 4.0, "message": "half"})),
        );
        let NotificationKind::Progress(params) = progress.kind() else {
            panic!("{:?}", progress.kind());
        };
        assert_eq!(params.progress_token, ProgressToken::Number(7));
        assert_eq!((params.progress, params.total), (2.0, Some(4.0)));
        assert_eq!(params.message.as_deref(), Some("half"));

        let data = json!({"disk": "almost full"});
        let log = ServerNotification::new(
            methods::MESSAGE,
            Some(json!({"level": "warning", "logger": "fs", "data": data})),
        );
        assert_eq!(
            log.kind(),
            NotificationKind::LogMessage {
                level: "warning",
                logger: Some("fs"),
                data: &data,
            }
        );
        let anonymous = ServerNotification::new(
            methods::MESSAGE,
            Some(json!({"level": "info", "data": "hello"})),
        );
        assert!(
            matches!(
                anonymous.kind(),
                NotificationKind::LogMessage {
                    level: "info",
                    logger: None,
                    ..
                }
            ),
            "{:?}",
            anonymous.kind()
        );

        let cancelled = ServerNotification::new(
            methods::CANCELLED,
            Some(json!({"requestId": "elicit-1", "reason": "no longer needed"})),
        );
        assert_eq!(
            cancelled.kind(),
            NotificationKind::Cancelled {
                request_id: Some(RequestId::String("elicit-1".to_owned())),
                reason: Some("no longer needed"),
            }
        );
        let unnamed = ServerNotification::new(methods::CANCELLED, Some(json!({})));
        assert_eq!(
            unnamed.kind(),
            NotificationKind::Cancelled {
                request_id: None,
                reason: None
            }
        );
    }

    #[test]
    fn any_other_notification_keeps_its_method_and_params() {
        let params = json!({"anything": [1, 2]});
        let custom = ServerNotification::new("notifications/custom/thing", Some(params.clone()));
        assert_eq!(
            custom.kind(),
            NotificationKind::Other {
                method: "notifications/custom/thing",
                params: Some(&params),
            }
        );
        let bare = ServerNotification::new(methods::SUBSCRIPTIONS_ACKNOWLEDGED, None);
        assert_eq!(
            bare.kind(),
            NotificationKind::Other {
                method: methods::SUBSCRIPTIONS_ACKNOWLEDGED,
                params: None,
            }
        );
    }

    #[test]
    fn a_known_method_without_the_parameters_it_needs_is_other() {
        for (method, params) in [
            (methods::RESOURCES_UPDATED, None),
            (methods::RESOURCES_UPDATED, Some(json!({"uri": 7}))),
            (methods::PROGRESS, Some(json!({"progressToken": 1}))),
            (methods::PROGRESS, None),
            (methods::MESSAGE, Some(json!({"level": "info"}))),
            (methods::MESSAGE, Some(json!({"data": "no level"}))),
            (methods::CANCELLED, Some(json!({"requestId": 1.5}))),
        ] {
            let kind = kind_of(method, params.clone());
            assert!(kind.starts_with("Other {"), "{method} {params:?}: {kind}");
            assert!(kind.contains(method), "{kind}");
        }
    }

    #[test]
    fn envelope_tells_requests_notifications_and_responses_apart() {
        let request: IncomingEnvelope<'_> =
            serde_json::from_str(r#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#).unwrap();
        assert_eq!(request.id.map(RawValue::get), Some(r#""a""#));
        assert_eq!(request.method.as_deref(), Some("ping"));

        let response: IncomingEnvelope<'_> =
            serde_json::from_str(r#"{"jsonrpc":"2.0","id":7,"result":{"x":[1,2]}}"#).unwrap();
        assert_eq!(response.id.map(RawValue::get), Some("7"));
        assert!(response.method.is_none());

        let escaped: IncomingEnvelope<'_> =
            serde_json::from_str(r#"{"method":"notifications/x\u0041","params":{}}"#).unwrap();
        assert_eq!(escaped.method.as_deref(), Some("notifications/xA"));
    }

    #[test]
    fn typed_response_reads_result_or_error() {
        let ok: TypedResponse<Vec<u8>> =
            serde_json::from_str(r#"{"jsonrpc":"2.0","id":1,"result":[1,2]}"#).unwrap();
        assert_eq!(ok.result, Some(vec![1, 2]));
        let err: TypedResponse<Vec<u8>> = serde_json::from_str(
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"nope"}}"#,
        )
        .unwrap();
        assert_eq!(err.error.map(|e| e.code), Some(-32601));
    }

    #[test]
    fn a_skipped_responses_id_is_found_at_either_end() {
        let python =
            br#"{"jsonrpc":"2.0","id":12,"result":{"content":[{"type":"text","text":"xxxx"#;
        assert_eq!(
            skipped_response_id(python, b"xxx\"}]}}").as_deref(),
            Some("12")
        );
        let typescript_tail = br#"xx"}],"isError":false},"jsonrpc":"2.0","id":"req-3"}"#;
        assert_eq!(
            skipped_response_id(
                br#"{"result":{"content":[{"type":"text","text":"xx"#,
                typescript_tail
            )
            .as_deref(),
            Some("\"req-3\"")
        );
        // An id inside the result is not the response's.
        assert_eq!(
            skipped_response_id(
                br#"{"result":{"id":99,"text":"xx"#,
                br#"xx"},"jsonrpc":"2.0","id":4}"#
            )
            .as_deref(),
            Some("4")
        );
        assert_eq!(
            skipped_response_id(
                br#"{"jsonrpc":"2.0","method":"sampling/createMessage","id":5,"#,
                b"}"
            ),
            None
        );
        assert_eq!(skipped_response_id(b"xxxx", b"xxxx"), None);
    }
}
