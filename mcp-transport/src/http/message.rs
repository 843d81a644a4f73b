//! What a transport reads of the JSON-RPC messages it carries: whether an outgoing one is a
//! request (its id and method) or a notification, and whether an incoming one answers a request.

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::jsonrpc::IncomingEnvelope;

/// What a transport needs to know of a JSON-RPC message: its id and method.
#[derive(Deserialize)]
struct MessageHead<'a> {
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(default)]
    method: Option<String>,
}

/// An outgoing message, classified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Outgoing {
    /// A request: its id (as JSON text) and method.
    Request { id: String, method: String },
    /// A notification.
    Notification { method: String },
    /// A response to the server, or anything else.
    Other,
}

impl Outgoing {
    pub(super) fn of(message: &str) -> Self {
        if let Some(request) = Self::plain_request(message) {
            return request;
        }
        match serde_json::from_str::<MessageHead<'_>>(message) {
            Ok(MessageHead {
                id: Some(id),
                method: Some(method),
            }) => Self::Request {
                id: id.get().to_owned(),
                method,
            },
            Ok(MessageHead {
                id: None,
                method: Some(method),
            }) => Self::Notification { method },
            _ => Self::Other,
        }
    }

    /// A request that starts `{"jsonrpc":"2.0","id":<digits>,"method":"<name>"`, as the peer
    /// writes every request: its id and method read from those bytes, without a pass over its
    /// params (the stateless revision's `_meta` alone is a few hundred bytes). A method name with
    /// an escape or a control character, or any other start, is left to the parser.
    fn plain_request(message: &str) -> Option<Self> {
        let (_, id, rest) = crate::jsonrpc::plain_head(message.as_bytes())?;
        let rest = rest.strip_prefix(br#""method":""#)?;
        let end = rest
            .iter()
            .position(|&byte| byte == b'"' || byte == b'\\' || byte < 0x20)?;
        let after = &rest[end..];
        if !(after.starts_with(b"\",") || after.starts_with(b"\"}")) {
            return None;
        }
        let method = std::str::from_utf8(&rest[..end]).ok()?;
        Some(Self::Request {
            id: id.to_owned(),
            method: method.to_owned(),
        })
    }

    pub(super) fn method(&self) -> &str {
        match self {
            Self::Request { method, .. } | Self::Notification { method } => method,
            Self::Other => "response",
        }
    }
}

/// True when `message` is the response to request `id`: an id and no method, as the peer's
/// reader takes responses (`"jsonrpc": "2.0"`, a result or an error); anything less is passed
/// on and the answer still awaited.
pub(super) fn answers(message: &[u8], id: &str) -> bool {
    matches!(
        serde_json::from_slice::<IncomingEnvelope<'_>>(message),
        Ok(envelope) if envelope.method.is_none()
            && envelope.id.is_some_and(|got| got.get() == id)
            && envelope.not_a_response().is_none()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outgoing_messages_are_told_apart_by_id_and_method() {
        assert_eq!(
            Outgoing::of(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{}}"#),
            Outgoing::Request {
                id: "7".to_owned(),
                method: "tools/call".to_owned()
            }
        );
        assert_eq!(
            Outgoing::of(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            Outgoing::Notification {
                method: "notifications/initialized".to_owned()
            }
        );
        assert_eq!(
            Outgoing::of(r#"{"jsonrpc":"2.0","id":"s-1","result":{}}"#),
            Outgoing::Other
        );
    }

    #[test]
    fn a_request_read_from_its_start_is_the_request_the_parser_reads() {
        let request = |id: &str, method: &str| Outgoing::Request {
            id: id.to_owned(),
            method: method.to_owned(),
        };
        // Read from the start: the params are never looked at (these do not even parse).
        let cut = r#"{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"na"#;
        assert_eq!(Outgoing::of(cut), request("12", "tools/call"));
        let bare = r#"{"jsonrpc":"2.0","id":0,"method":"ping"}"#;
        assert_eq!(Outgoing::of(bare), request("0", "ping"));
        // Left to the parser, with the same answer where the message is whole.
        let escaped = r#"{"jsonrpc":"2.0","id":3,"method":"tools\/call","params":{}}"#;
        assert_eq!(Outgoing::of(escaped), request("3", "tools/call"));
        let spaced = r#"{"jsonrpc":"2.0","id":3, "method":"ping"}"#;
        assert_eq!(Outgoing::of(spaced), request("3", "ping"));
        let string_id = r#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#;
        assert_eq!(Outgoing::of(string_id), request(r#""a""#, "ping"));
        let leading_zero = r#"{"jsonrpc":"2.0","id":03,"method":"ping"}"#;
        assert_eq!(Outgoing::of(leading_zero), Outgoing::Other);
        let response = r#"{"jsonrpc":"2.0","id":3,"result":{"method":"x"}}"#;
        assert_eq!(Outgoing::of(response), Outgoing::Other);
    }

    #[test]
    fn a_response_answers_only_its_own_request() {
        assert!(answers(br#"{"jsonrpc":"2.0","id":3,"result":{}}"#, "3"));
        assert!(!answers(br#"{"jsonrpc":"2.0","id":4,"result":{}}"#, "3"));
        assert!(!answers(
            br#"{"jsonrpc":"2.0","id":3,"method":"sampling/createMessage"}"#,
            "3"
        ));
        assert!(!answers(
            br#"{"jsonrpc":"2.0","method":"notifications/progress"}"#,
            "3"
        ));
        // What the peer's reader would skip is not the answer either.
        assert!(!answers(br#"{"id":3,"result":{}}"#, "3"));
        assert!(!answers(br#"{"jsonrpc":"2.0","id":3}"#, "3"));
        assert!(answers(
            br#"{"jsonrpc":"2.0","id":3,"error":{"code":1,"message":"m"}}"#,
            "3"
        ));
    }
}
