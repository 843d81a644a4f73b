//! The JSON-RPC request id. It stands apart from the messages because MCP's own types name it
//! too: a cancellation names the request it cancels
//! ([`CancelledNotificationParams`](crate::protocol::CancelledNotificationParams)).

use std::fmt;

use serde::{Deserialize, Serialize};

/// A request id: a string or an integer. This client only ever issues integers.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum RequestId {
    /// An integer id.
    Number(i64),
    /// A string id.
    String(String),
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Number(id) => write!(f, "{id}"),
            Self::String(id) => write!(f, "{id:?}"),
        }
    }
}
