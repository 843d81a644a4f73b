//! The stateless protocol revision (2026-07-28) from the client's side: what is different from
//! the handshake era and how [`McpClient`](crate::McpClient) speaks both.
//!
//! - **No handshake, no session.** Every request carries `_meta` with the protocol version, the
//!   client's identity and its capabilities ([`request_meta`]); the peer adds it to every
//!   request once the era is known ([`Peer::set_request_meta`]).
//! - **Finding the era** (`probe`): the client sends `server/discover` first, as the
//!   specification's backward-compatibility rules say for stdio (and as a modern request on
//!   HTTP, where the transport mirrors it into headers). A [`DiscoverResult`] means a stateless
//!   server; [`UnsupportedProtocolVersion`](error_codes::UNSUPPORTED_PROTOCOL_VERSION) means a
//!   stateless server that wants another version (tried once, or the handshake if it lists only
//!   handshake-era ones); any other answer — an error of another code, an HTTP failure, no
//!   answer within [`PROBE_TIMEOUT`] — means a server of the handshake era, which then gets
//!   `initialize`. The recognised modern errors never fall back.
//! - **Multi round-trip requests** (SEP-2322): `tools/call`,
//!   `prompts/get` and `resources/read` may answer `resultType: "input_required"` with input
//!   requests (elicitation, sampling, roots) and an opaque `requestState`; the client answers
//!   them with the handlers it has and sends the request again under a new id, with
//!   `inputResponses` and the state echoed byte for byte, at most [`MAX_INPUT_ROUNDS`] times.
//! - **Notifications without a session**: list changes come on a `subscriptions/listen`
//!   stream the client opens when the server's capabilities announce them (`listen`), kept open
//!   with backoff and ended with the client.
//! - **Results** carry `resultType` (absent means `complete`); only `input_required` and, with
//!   the Tasks extension, `task` change what the client does (`client::tasks` follows a task). `ping`, `logging/setLevel` and `notifications/roots/list_changed` are
//!   gone from the revision and never sent to a stateless server; `server/discover` answers
//!   [`McpClient::ping`](crate::McpClient::ping) there.

use std::borrow::Cow;
use std::sync::LazyLock;
use std::time::Duration;

use serde::de::{DeserializeOwned, Deserializer};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::jsonrpc::{ErrorObject, error_codes};
use crate::peer::{Peer, RequestOptions, RpcError};
use crate::protocol::{
    ClientCapabilities, Implementation, InitializeResult, JsonObject, ProtocolVersion,
    ServerCapabilities, Task, methods,
};

/// The `_meta` keys of the stateless revision.
pub mod meta_keys {
    /// Request: the protocol version of this request.
    pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
    /// Request: the client's name and version.
    pub const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
    /// Request: the client's capabilities for this request.
    pub const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
    /// Result: the server's name and version.
    pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
    /// Notification on a `subscriptions/listen` stream: the id of the request that opened it.
    pub const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
}

/// How long a server gets to answer the `server/discover` probe before it is taken for one of
/// the handshake era. Such servers answer the unknown method at once (with -32601 or -32602)
/// nearly always; the few that stay silent cost this once per start.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(3);

/// The most times one request is sent again with input the server asked for.
pub const MAX_INPUT_ROUNDS: usize = 16;

/// The `_meta` fields every request of a stateless revision carries.
pub fn request_meta(
    version: ProtocolVersion,
    client_info: &Implementation,
    capabilities: &ClientCapabilities,
) -> JsonObject {
    let mut meta = JsonObject::new();
    meta.insert(meta_keys::PROTOCOL_VERSION.into(), version.as_str().into());
    meta.insert(
        meta_keys::CLIENT_INFO.into(),
        serde_json::to_value(client_info).unwrap_or(Value::Null),
    );
    meta.insert(
        meta_keys::CLIENT_CAPABILITIES.into(),
        serde_json::to_value(capabilities).unwrap_or_else(|_| Value::Object(JsonObject::new())),
    );
    meta
}

/// The answer to `server/discover`: the versions the server speaks, its capabilities and who it
/// is.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct DiscoverResult {
    /// The protocol versions the server speaks.
    #[serde(default)]
    pub supported_versions: Vec<String>,
    /// The server's capabilities.
    #[serde(default)]
    pub capabilities: ServerCapabilities,
    /// Instructions for the model, if the server gives any.
    #[serde(default)]
    pub instructions: Option<String>,
    /// How long the answer may be cached, in milliseconds, at most a day
    /// ([`MAX_TTL`](crate::protocol::MAX_TTL)); `None` when the server gave none or one that
    /// cannot be read, which never fails the answer (the same reader as every list's).
    #[serde(default, deserialize_with = "crate::protocol::lenient_ttl")]
    pub ttl_ms: Option<u64>,
    /// The result's `_meta` (the server's identity is under [`meta_keys::SERVER_INFO`]).
    #[serde(default, rename = "_meta")]
    pub meta: Option<JsonObject>,
    /// The server's identity where drafts of the revision put it, beside the other fields.
    #[serde(default)]
    server_info: Option<Implementation>,
}

impl DiscoverResult {
    /// The server's name and version: from `_meta`, else from a top-level `serverInfo`, else
    /// empty.
    pub fn server_info(&self) -> Implementation {
        self.meta
            .as_ref()
            .and_then(|meta| meta.get(meta_keys::SERVER_INFO))
            .and_then(|info| serde_json::from_value(info.clone()).ok())
            .or_else(|| self.server_info.clone())
            .unwrap_or_default()
    }

    /// The answer in the shape of a handshake's, for callers that read either
    /// ([`McpClient::initialize_result`](crate::McpClient::initialize_result)).
    pub(crate) fn into_initialize_result(
        self: Box<Self>,
        version: ProtocolVersion,
    ) -> InitializeResult {
        InitializeResult {
            protocol_version: version.as_str().to_owned(),
            server_info: self.server_info(),
            capabilities: self.capabilities,
            instructions: self.instructions,
        }
    }
}

/// `data` of an [`UnsupportedProtocolVersion`](error_codes::UNSUPPORTED_PROTOCOL_VERSION) error.
#[derive(Deserialize)]
struct UnsupportedVersionData {
    #[serde(default)]
    supported: Vec<String>,
}

/// What the era probe found.
#[derive(Debug)]
pub(crate) enum Era {
    /// A server of the stateless revision, speaking `version`.
    Stateless {
        version: ProtocolVersion,
        discovered: Box<DiscoverResult>,
    },
    /// A server of the handshake era (or one that lists only handshake-era versions):
    /// `initialize` offering `version`. `silent`: it did not answer the probe in time, so it
    /// may also be a stateless server that was slow to start. `refusal`: the error it answered
    /// the probe with, if that is how it showed its era.
    Handshake {
        version: ProtocolVersion,
        silent: bool,
        refusal: Option<ErrorObject>,
    },
}

impl Era {
    fn handshake(version: ProtocolVersion, refusal: Option<ErrorObject>) -> Self {
        Self::Handshake {
            version,
            silent: false,
            refusal,
        }
    }
}

/// Why the probe could not tell the era.
#[derive(Debug)]
pub(crate) enum ProbeFailure {
    /// The request failed in a way that says nothing of the era (the connection closed,
    /// credentials are needed): the connection fails with this.
    Request(RpcError),
    /// A stateless server none of whose versions this client speaks.
    NoCommonVersion(Vec<String>),
    /// A stateless server refused the probe with an error of its revision (a header or a
    /// capability it wants): no fallback, the connection fails with it.
    Refused(ErrorObject),
}

/// True for the JSON-RPC errors only a server of the stateless revision sends: proof of its
/// era whatever else the answer says.
pub(crate) fn is_stateless_error(error: &ErrorObject) -> bool {
    matches!(
        error.code,
        error_codes::UNSUPPORTED_PROTOCOL_VERSION
            | error_codes::MISSING_REQUIRED_CLIENT_CAPABILITY
            | error_codes::HEADER_MISMATCH
    )
}

/// The newest version of `offered` (wire strings) this client speaks.
fn newest_common(offered: &[String]) -> Option<ProtocolVersion> {
    offered
        .iter()
        .filter_map(|version| ProtocolVersion::parse(version))
        .max()
}

/// Probes the server's era with `server/discover` (see the module documentation); `version` is
/// the stateless version asked for first, `timeout` how long the server has to answer.
pub(crate) async fn probe(
    peer: &Peer,
    version: ProtocolVersion,
    client_info: &Implementation,
    capabilities: &ClientCapabilities,
    timeout: Duration,
) -> Result<Era, ProbeFailure> {
    let mut version = version;
    // One more try when the server names another stateless version it speaks.
    for _ in 0..2 {
        let params = DiscoverParams {
            meta: request_meta(version, client_info, capabilities),
        };
        let answer = peer
            .request::<_, DiscoverResult>(
                methods::SERVER_DISCOVER,
                Some(&params),
                &RequestOptions::with_timeout(timeout),
            )
            .await;
        let error = match answer {
            Ok(discovered) => {
                return match newest_common(&discovered.supported_versions) {
                    // A server that leaves its versions out speaks the one it was asked in.
                    None if discovered.supported_versions.is_empty() => Ok(Era::Stateless {
                        version,
                        discovered: Box::new(discovered),
                    }),
                    None => Err(ProbeFailure::NoCommonVersion(discovered.supported_versions)),
                    Some(chosen) if !chosen.is_stateless() => Ok(Era::handshake(chosen, None)),
                    Some(chosen) => Ok(Era::Stateless {
                        // The version the answer came in, when the server speaks it.
                        version: if discovered
                            .supported_versions
                            .iter()
                            .any(|offered| offered == version.as_str())
                        {
                            version
                        } else {
                            chosen
                        },
                        discovered: Box::new(discovered),
                    }),
                };
            }
            Err(RpcError::Server(error)) => error,
            // No answer in time: a server of the handshake era that ignores requests before
            // `initialize`.
            Err(RpcError::Timeout(_)) => {
                return Ok(Era::Handshake {
                    version: ProtocolVersion::LATEST_HANDSHAKE,
                    silent: true,
                    refusal: None,
                });
            }
            Err(other) => return Err(ProbeFailure::Request(other)),
        };
        if error.code == error_codes::UNSUPPORTED_PROTOCOL_VERSION {
            let supported = error
                .data
                .clone()
                .and_then(|data| serde_json::from_value::<UnsupportedVersionData>(data).ok())
                .map(|data| data.supported)
                .unwrap_or_default();
            match newest_common(&supported) {
                // Another version, or (once more) the same one the server lists after all.
                Some(chosen) if chosen.is_stateless() => {
                    version = chosen;
                    continue;
                }
                Some(chosen) if !chosen.is_stateless() => {
                    return Ok(Era::handshake(chosen, None));
                }
                _ => return Err(ProbeFailure::NoCommonVersion(supported)),
            }
        }
        if is_stateless_error(&error) {
            return Err(ProbeFailure::Refused(error));
        }
        // Any other error: the server does not know `server/discover`.
        return Ok(Era::handshake(
            ProtocolVersion::LATEST_HANDSHAKE,
            Some(error),
        ));
    }
    Err(ProbeFailure::NoCommonVersion(vec![
        version.as_str().to_owned(),
    ]))
}

/// `server/discover`'s params: nothing but the request `_meta`, set explicitly because the peer
/// adds none until the era is known.
#[derive(Serialize)]
struct DiscoverParams {
    #[serde(rename = "_meta")]
    meta: JsonObject,
}

/// The answer to a request that may ask for input first.
#[derive(Debug)]
pub(crate) enum Reply<R> {
    /// The final result.
    Complete(R),
    /// The server needs input before it can finish (`resultType: "input_required"`).
    InputRequired(InputRequired),
    /// The server runs the request as a task (`resultType: "task"`, the Tasks extension).
    Task(Box<Task>),
}

/// What a request that may become a task ended with: its result, or the task it became.
#[derive(Debug)]
pub(crate) enum Answer<R> {
    /// The final result.
    Complete(R),
    /// The task the server made of the request, to be followed (`client::tasks`).
    Task(Box<Task>),
}

/// What an `input_required` result asks for.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct InputRequired {
    /// Key → request (`elicitation/create`, `sampling/createMessage`, `roots/list`).
    #[serde(default)]
    pub(crate) input_requests: Option<serde_json::Map<String, Value>>,
    /// Opaque; echoed exactly on the retry.
    #[serde(default)]
    pub(crate) request_state: Option<Box<RawValue>>,
}

/// One input request: a method and its params.
#[derive(Deserialize)]
struct InputRequest {
    method: String,
    #[serde(default)]
    params: Option<Box<RawValue>>,
}

#[derive(Deserialize)]
struct ResultKind<'a> {
    #[serde(default, borrow, rename = "resultType")]
    result_type: Option<Cow<'a, str>>,
}

const INPUT_REQUIRED: &str = "input_required";
const TASK: &str = "task";

/// Whether a response's bytes may hold an `input_required` or a `task` result: only such a
/// response is read as a [`Reply`] (a cheap scan, against a second decoding of every result).
fn may_ask_for_input(response: &[u8]) -> bool {
    // The searchers are built once: building one costs more than scanning a typical response.
    static INPUT: LazyLock<memchr::memmem::Finder<'static>> =
        LazyLock::new(|| memchr::memmem::Finder::new(INPUT_REQUIRED.as_bytes()));
    static QUOTED_TASK: LazyLock<memchr::memmem::Finder<'static>> =
        LazyLock::new(|| memchr::memmem::Finder::new(b"\"task\""));
    INPUT.find(response).is_some() || QUOTED_TASK.find(response).is_some()
}

impl<'de, R: DeserializeOwned> Deserialize<'de> for Reply<R> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error as _;
        let raw = Box::<RawValue>::deserialize(deserializer)?;
        let text = raw.get();
        // A result of the common kind is read once; only one that names the other kind (or
        // quotes it in its content) is looked at twice.
        if may_ask_for_input(text.as_bytes()) {
            let kind: ResultKind<'_> = serde_json::from_str(text).map_err(D::Error::custom)?;
            match kind.result_type.as_deref() {
                Some(INPUT_REQUIRED) => {
                    return serde_json::from_str(text)
                        .map(Reply::InputRequired)
                        .map_err(D::Error::custom);
                }
                Some(TASK) => {
                    return serde_json::from_str(text)
                        .map(Reply::Task)
                        .map_err(D::Error::custom);
                }
                _ => {}
            }
        }
        serde_json::from_str(text)
            .map(Reply::Complete)
            .map_err(D::Error::custom)
    }
}

/// Sends a request a stateless server may answer with `input_required` or a task. The answer is
/// read in one pass as `R` unless its bytes name one of those result types (a result that
/// merely quotes the words is then read twice).
pub(crate) async fn request_reply<P, R>(
    peer: &Peer,
    method: &str,
    params: Option<P>,
    options: &RequestOptions,
) -> Result<Reply<R>, RpcError>
where
    P: Serialize,
    R: DeserializeOwned,
{
    let bytes = peer.request_bytes(method, params, options).await?;
    if may_ask_for_input(&bytes) {
        peer.decode(&bytes)
    } else {
        peer.decode(&bytes).map(Reply::Complete)
    }
}

/// A request's params with the answers to the server's input requests and its state, for the
/// next round of a multi round-trip request.
#[derive(Serialize)]
pub(crate) struct WithInput<'a, P> {
    #[serde(flatten)]
    pub(crate) params: &'a P,
    #[serde(rename = "inputResponses", skip_serializing_if = "Option::is_none")]
    pub(crate) input_responses: Option<&'a serde_json::Map<String, Value>>,
    #[serde(rename = "requestState", skip_serializing_if = "Option::is_none")]
    pub(crate) request_state: Option<&'a RawValue>,
}

/// Answers every input request of `required` through the peer's handlers, in the server's
/// order. A request the client cannot answer fails the whole request with that error.
pub(crate) async fn answer_inputs(
    peer: &Peer,
    required: &InputRequired,
) -> Result<Option<serde_json::Map<String, Value>>, ErrorObject> {
    let Some(requests) = &required.input_requests else {
        return Ok(None);
    };
    let mut responses = serde_json::Map::new();
    for (key, request) in requests {
        let request: InputRequest = serde_json::from_value(request.clone()).map_err(|error| {
            ErrorObject::new(
                error_codes::INVALID_PARAMS,
                format!("the server's input request {key:?} is malformed: {error}"),
            )
        })?;
        let answer = peer
            .fulfil(&request.method, request.params.as_deref())
            .await
            .map_err(|error| {
                ErrorObject::new(
                    error.code,
                    format!("{} (input {key:?}): {}", request.method, error.message),
                )
            })?;
        responses.insert(key.clone(), answer);
    }
    Ok(Some(responses))
}

/// The notification types a `subscriptions/listen` stream asks for.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SubscriptionFilter {
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    tools_list_changed: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    prompts_list_changed: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    resources_list_changed: bool,
}

impl SubscriptionFilter {
    /// The list changes `capabilities` says the server announces; `None` when it announces
    /// none, so that no stream is opened.
    pub(crate) fn announced_by(capabilities: &ServerCapabilities) -> Option<Self> {
        let list_changed = |capability: Option<&Value>| {
            capability
                .and_then(|capability| capability.get("listChanged"))
                .and_then(Value::as_bool)
                .unwrap_or(false)
        };
        let filter = Self {
            tools_list_changed: capabilities
                .tools
                .as_ref()
                .is_some_and(|tools| tools.list_changed),
            prompts_list_changed: list_changed(capabilities.prompts.as_ref()),
            resources_list_changed: list_changed(capabilities.resources.as_ref()),
        };
        (filter != Self::default()).then_some(filter)
    }
}

#[derive(Serialize)]
struct ListenParams<'a> {
    notifications: &'a SubscriptionFilter,
}

/// The first wait before a dropped stream is opened again; doubled after each drop, up to
/// [`LISTEN_BACKOFF_MAX`], and back to this after a stream that lived [`LISTEN_STEADY`].
const LISTEN_BACKOFF_START: Duration = Duration::from_secs(1);
const LISTEN_BACKOFF_MAX: Duration = Duration::from_secs(60);
const LISTEN_STEADY: Duration = Duration::from_secs(60);
/// The stream is a request that is never answered while it lives: no timeout of its own.
const LISTEN_TIMEOUT: Duration = Duration::from_secs(100 * 365 * 24 * 60 * 60);

/// Keeps a `subscriptions/listen` stream open for the change notifications in `filter`, which
/// the peer hands to its subscribers like any other notification: opened again after a backoff
/// when it ends (the server closed it, the connection to it broke), given up when the server
/// does not know the method, and ended with the connection.
pub(crate) async fn listen(peer: std::sync::Weak<Peer>, filter: SubscriptionFilter) {
    let mut backoff = LISTEN_BACKOFF_START;
    loop {
        let Some(strong) = peer.upgrade() else {
            return;
        };
        let opened = tokio::time::Instant::now();
        let outcome = strong
            .request::<_, serde::de::IgnoredAny>(
                methods::SUBSCRIPTIONS_LISTEN,
                Some(ListenParams {
                    notifications: &filter,
                }),
                &RequestOptions::with_timeout(LISTEN_TIMEOUT),
            )
            .await;
        let server = strong.server_name().to_owned();
        drop(strong);
        match outcome {
            Ok(_) => tracing::debug!(server, "the server ended the notification stream"),
            Err(RpcError::ConnectionClosed(_)) => return,
            Err(RpcError::Server(error)) if error.code == error_codes::METHOD_NOT_FOUND => {
                tracing::debug!(server, "the server has no subscriptions/listen");
                return;
            }
            Err(error) => {
                tracing::debug!(server, %error, "the notification stream broke");
            }
        }
        if opened.elapsed() >= LISTEN_STEADY {
            backoff = LISTEN_BACKOFF_START;
        }
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(LISTEN_BACKOFF_MAX);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_without_result_type_is_complete() {
        let reply: Reply<Value> = serde_json::from_str(r#"{"content":[]}"#).unwrap();
        assert!(matches!(reply, Reply::Complete(_)));
    }

    #[test]
    fn quoting_input_required_in_content_does_not_make_a_result_ask_for_input() {
        let reply: Reply<Value> = serde_json::from_str(
            r#"{"resultType":"complete","content":[{"type":"text","text":"input_required"}]}"#,
        )
        .unwrap();
        assert!(matches!(reply, Reply::Complete(_)));
    }

    #[test]
    fn an_input_required_result_keeps_its_requests_and_its_state_verbatim() {
        let reply: Reply<Value> = serde_json::from_str(
            r#"{"resultType":"input_required","inputRequests":{"a":{"method":"roots/list"}},"requestState":"x\u0041y"}"#,
        )
        .unwrap();
        let Reply::InputRequired(required) = reply else {
            panic!("not input_required");
        };
        assert_eq!(required.request_state.unwrap().get(), r#""x\u0041y""#);
        assert!(required.input_requests.unwrap().contains_key("a"));
    }

    #[test]
    fn a_task_result_is_read_as_the_task_and_quoting_task_changes_nothing() {
        let reply: Reply<Value> = serde_json::from_str(
            r#"{"resultType":"task","taskId":"t-1","status":"working","ttlMs":null}"#,
        )
        .unwrap();
        let Reply::Task(task) = reply else {
            panic!("not a task");
        };
        assert_eq!(task.task_id, "t-1");
        let quoted: Reply<Value> = serde_json::from_str(
            r#"{"content":[{"type":"text","text":"\"task\""}],"resultType":"complete"}"#,
        )
        .unwrap();
        assert!(matches!(quoted, Reply::Complete(_)));
    }

    #[test]
    fn the_retry_carries_the_responses_and_the_state_beside_the_params() {
        let params = serde_json::json!({"name": "t"});
        let state = RawValue::from_string(r#""opaque""#.to_owned()).unwrap();
        let mut responses = serde_json::Map::new();
        responses.insert("a".into(), serde_json::json!({"roots": []}));
        let retry = WithInput {
            params: &params,
            input_responses: Some(&responses),
            request_state: Some(&state),
        };
        assert_eq!(
            serde_json::to_value(&retry).unwrap(),
            serde_json::json!({"name": "t", "inputResponses": {"a": {"roots": []}}, "requestState": "opaque"})
        );
    }

    #[test]
    fn server_info_is_read_from_meta_or_beside_the_fields() {
        let in_meta: DiscoverResult = serde_json::from_str(
            r#"{"supportedVersions":["2026-07-28"],"capabilities":{},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"a","version":"1"}}}"#,
        )
        .unwrap();
        assert_eq!(in_meta.server_info().name, "a");
        let beside: DiscoverResult =
            serde_json::from_str(r#"{"serverInfo":{"name":"b","version":"2"}}"#).unwrap();
        assert_eq!(beside.server_info().name, "b");
    }

    #[test]
    fn the_stream_asks_for_the_list_changes_the_server_announces_and_none_opens_without() {
        let capabilities: ServerCapabilities = serde_json::from_value(serde_json::json!({
            "tools": {"listChanged": true}, "prompts": {}, "resources": {"listChanged": true}
        }))
        .unwrap();
        let filter = SubscriptionFilter::announced_by(&capabilities).unwrap();
        assert_eq!(
            serde_json::to_value(&filter).unwrap(),
            serde_json::json!({"toolsListChanged": true, "resourcesListChanged": true})
        );
        let quiet: ServerCapabilities =
            serde_json::from_value(serde_json::json!({"tools": {}})).unwrap();
        assert_eq!(SubscriptionFilter::announced_by(&quiet), None);
    }

    #[test]
    fn the_newest_common_version_is_chosen() {
        let offered = [
            "1999-01-01".to_owned(),
            "2025-06-18".to_owned(),
            "2026-07-28".to_owned(),
        ];
        assert_eq!(newest_common(&offered), Some(ProtocolVersion::V2026_07_28));
        assert_eq!(
            newest_common(&offered[..2]),
            Some(ProtocolVersion::V2025_06_18)
        );
        assert_eq!(newest_common(&offered[..1]), None);
    }
}
