//! Target `jsonrpc`: a server's JSON-RPC messages as the client reads them — framing, the
//! peer's dispatch (responses, server requests, notifications, batches, garbage) and the typed
//! decoding of `initialize`, `tools/list` and `tools/call` answers — through the public API an
//! agent uses: `McpClient::connect` over a `LineTransport` on an in-memory duplex pipe.
//!
//! A scripted server answers the handshake properly (except when the handshake itself is
//! fuzzed), then answers the operation with the fuzzed bytes and ends its output. Whatever those
//! bytes are:
//!
//! - the operation ends with a value or an `mcp_transport::Error` that names the server — never
//!   a panic (in the caller or in the peer's tasks), and never a wait: once the server's output
//!   has ended, a request still waiting is a bug (a timeout error counts as a failure);
//! - a well-formed answer among harmless noise (pings, log messages, list-changed
//!   notifications) gives exactly the tools or content it holds (a well-formed handshake may
//!   instead end with the connection found closed by `notifications/initialized`: the
//!   scripted server has ended its output by then);
//! - the client holds at most `16 × min(answer, limit) + 8 × answer + 256 KiB` at once
//!   (limit: the `maxMessageBytes` of the transport; only messages within it are decoded, and
//!   256 KiB covers the runtime, the pipe and the reader's buffer).

use std::time::Duration;

use mcp_transport::{ClientOptions, Error, LineTransport, McpClient, ProtocolVersion, RpcError};
use proptest::prelude::*;
use proptest::sample::select;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};

use crate::grammar::{self, Blob};
use crate::runner::{Report, Settings, fuzz};

/// The server's name, which every error must carry.
const SERVER: &str = "fuzz-server";

/// Longer than any case takes; only a client that waits for an answer after the end of the
/// stream gets there.
const CASE_DEADLINE: Duration = Duration::from_secs(20);

/// What the client does whose answer is fuzzed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
    /// `initialize` (request id 1).
    Handshake,
    /// `tools/list` (request id 2, then more pages).
    ListTools,
    /// `tools/call` (request id 2).
    CallTool,
}

impl Operation {
    fn request_id(self) -> i64 {
        match self {
            Self::Handshake => 1,
            Self::ListTools | Self::CallTool => 2,
        }
    }
}

/// One input: the operation, the transport's message limit, the server's answer (lines) and,
/// for a well-formed answer, how many tools or content blocks it holds.
#[derive(Debug, Clone)]
pub struct RpcInput {
    operation: Operation,
    limit: usize,
    answer: Blob,
    expected: Option<usize>,
}

/// Runs the target.
pub fn run(settings: &Settings) -> Report {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            return Report {
                cases: 0,
                failure: Some(crate::runner::Failure {
                    reason: format!("could not start a tokio runtime: {error}"),
                    input: String::new(),
                }),
            };
        }
    };
    fuzz("jsonrpc", settings, input(), |input| check(&runtime, input))
}

fn input() -> impl Strategy<Value = RpcInput> {
    let operation = select(
        &[
            Operation::Handshake,
            Operation::ListTools,
            Operation::CallTool,
        ][..],
    );
    let limit = prop_oneof![1 => 16usize..4096, 2 => Just(64 * 1024)];
    (operation, limit).prop_flat_map(|(operation, limit)| {
        // The scripted server's own `initialize` answer (137 bytes) must fit.
        let limit = if operation == Operation::Handshake {
            limit
        } else {
            limit.max(160)
        };
        let id = operation.request_id();
        prop_oneof![
            1 => grammar::raw_bytes(400).prop_map(|blob| (blob, None)),
            4 => grammar::mutated(
                prop::collection::vec(message(operation, id), 0..5).prop_map(lines)
            )
            .prop_map(|blob| (blob, None)),
            2 => well_formed(operation, id, limit),
        ]
        .prop_map(move |(answer, expected)| RpcInput {
            operation,
            limit,
            answer,
            expected,
        })
    })
}

/// Messages as lines, each ended by `\n`.
fn lines(messages: Vec<Value>) -> Vec<u8> {
    let mut bytes = Vec::new();
    for message in messages {
        bytes.extend_from_slice(message.to_string().as_bytes());
        bytes.push(b'\n');
    }
    bytes
}

/// The result the operation expects, shaped by the grammar.
fn result(operation: Operation) -> BoxedStrategy<Value> {
    match operation {
        Operation::Handshake => grammar::initialize_result(),
        Operation::ListTools => grammar::list_tools_result(),
        Operation::CallTool => grammar::call_tool_result(),
    }
}

/// Any message a server may send while the client waits: the answer (right or wrong id,
/// result or error), a request of its own, a notification, a batch of these.
fn message(operation: Operation, id: i64) -> BoxedStrategy<Value> {
    let ids = prop_oneof![
        6 => Just(json!(id)),
        1 => Just(json!(id.to_string())),
        1 => Just(json!(f64::from(u8::try_from(id).unwrap_or(0)))),
        1 => grammar::scalar(),
    ]
    .boxed();
    let version = prop_oneof![
        6 => Just(json!("2.0")),
        1 => grammar::scalar(),
    ]
    .boxed();
    let error = grammar::shaped(vec![
        ("code", grammar::number().boxed()),
        ("message", grammar::mostly_text(8)),
        ("data", grammar::json().boxed()),
    ]);
    let response = grammar::shaped(vec![
        ("jsonrpc", version.clone()),
        ("id", ids.clone()),
        ("result", result(operation)),
        ("error", error),
    ]);
    let method = select(
        &[
            "ping",
            "roots/list",
            "elicitation/create",
            "sampling/createMessage",
            "tools/list",
            "notifications/progress",
            "notifications/message",
            "notifications/cancelled",
            "notifications/tools/list_changed",
            "x/unknown",
        ][..],
    )
    .prop_map(|method| json!(method));
    let params = grammar::shaped(vec![
        ("progressToken", ids),
        ("progress", grammar::number().boxed()),
        (
            "level",
            select(&["debug", "info", "warning", "error", "x"][..])
                .prop_map(|level| json!(level))
                .boxed(),
        ),
        ("logger", grammar::mostly_text(4)),
        ("data", grammar::json().boxed()),
        ("message", grammar::mostly_text(8)),
    ]);
    let request = grammar::shaped(vec![
        ("jsonrpc", version),
        ("id", grammar::scalar().boxed()),
        (
            "method",
            prop_oneof![4 => method, 1 => grammar::json()].boxed(),
        ),
        (
            "params",
            prop_oneof![3 => params, 1 => grammar::json()].boxed(),
        ),
    ]);
    let single = prop_oneof![3 => response, 2 => request, 1 => grammar::json()].boxed();
    prop_oneof![
        5 => single.clone(),
        1 => prop::collection::vec(single, 0..3).prop_map(Value::Array),
    ]
    .boxed()
}

/// A well-formed answer with noise around it, and how many items it holds; `None` for the
/// count when a line is over the limit (the answer is then dropped, which is an error).
fn well_formed(
    operation: Operation,
    id: i64,
    limit: usize,
) -> impl Strategy<Value = (Blob, Option<usize>)> {
    let noise = prop_oneof![
        Just(json!({"jsonrpc": "2.0", "id": "srv-1", "method": "ping"})),
        Just(json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})),
        grammar::text(12).prop_map(|text| json!({
            "jsonrpc": "2.0",
            "method": "notifications/message",
            "params": {"level": "info", "data": text}
        })),
    ];
    let items = prop::collection::vec(grammar::text(10), 0..4);
    (
        prop::collection::vec(noise.clone(), 0..3),
        items,
        prop::collection::vec(noise, 0..3),
    )
        .prop_map(move |(before, items, after)| {
            let result = match operation {
                Operation::Handshake => json!({
                    "protocolVersion": "2025-06-18",
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "fuzz", "version": "1"}
                }),
                Operation::ListTools => json!({
                    "tools": items.iter().map(|name| json!({
                        "name": name,
                        "inputSchema": {"type": "object"}
                    })).collect::<Vec<_>>()
                }),
                Operation::CallTool => json!({
                    "content": items.iter().map(|text| json!({"type": "text", "text": text}))
                        .collect::<Vec<_>>()
                }),
            };
            let count = match operation {
                Operation::Handshake => 0,
                Operation::ListTools | Operation::CallTool => items.len(),
            };
            let mut messages = before;
            messages.push(json!({"jsonrpc": "2.0", "id": id, "result": result}));
            messages.extend(after);
            let fits = messages
                .iter()
                .all(|message| message.to_string().len() <= limit);
            (Blob(lines(messages)), fits.then_some(count))
        })
}

fn check(runtime: &tokio::runtime::Runtime, input: &RpcInput) -> Result<(), String> {
    let (outcome, peak) = crate::alloc_meter::peak_during(|| {
        runtime.block_on(async {
            tokio::time::timeout(CASE_DEADLINE, exchange(input))
                .await
                .unwrap_or_else(|_| {
                    Err(format!(
                        "no outcome within {}s although the server ended its output",
                        CASE_DEADLINE.as_secs()
                    ))
                })
        })
    });
    match (outcome?, input.expected) {
        (Ok(count), Some(expected)) if count != expected => {
            return Err(format!(
                "a well-formed answer holding {expected} items gave {count}"
            ));
        }
        (Ok(_), _) => {}
        (Err(error), expected) => {
            let message = error.to_string();
            if error.server() != SERVER || !message.contains(&format!("\"{SERVER}\"")) {
                return Err(format!("the error does not name the server: {message}"));
            }
            let waited = match &error {
                Error::ConnectTimeout { .. } => true,
                Error::Request { source, .. } => matches!(source, RpcError::Timeout(_)),
                _ => false,
            };
            if waited {
                return Err(format!(
                    "the client waited for an answer after the server's output ended: {message}"
                ));
            }
            if expected.is_some() && !closed_after_handshake(input.operation, &error) {
                return Err(format!("a well-formed answer failed: {message}"));
            }
        }
    }
    let answer = input.answer.0.len();
    let bound = 16 * answer.min(input.limit) + 8 * answer + 256 * 1024;
    if peak > bound {
        return Err(format!(
            "the client held {peak} bytes at once, over the bound of {bound} (limit {}, \
             answer of {answer} bytes)",
            input.limit
        ));
    }
    Ok(())
}

/// Whether the handshake succeeded and only the `notifications/initialized` that follows it
/// found the connection closed: the scripted server ends its output right after answering, so
/// a client may well find it gone by then (a server that exits after `initialize` is not
/// connected, and saying so is right).
fn closed_after_handshake(operation: Operation, error: &Error) -> bool {
    operation == Operation::Handshake
        && matches!(
            error,
            Error::Request { operation, source: RpcError::ConnectionClosed(_), .. }
                if operation == "notifications/initialized"
        )
}

/// Connects over a duplex pipe to the scripted server and runs the operation: the number of
/// tools or content blocks, or the client's error; `Err(String)` when the script itself broke.
async fn exchange(input: &RpcInput) -> Result<Result<usize, Error>, String> {
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    let server = tokio::spawn(serve(server_end, input.operation, input.answer.0.clone()));
    let (read, write) = tokio::io::split(client_end);
    let transport = LineTransport::new(read, write).max_message_bytes(input.limit);
    // The scripted server speaks the handshake era and numbers its answers from `initialize`:
    // the client is pinned to that era, so no era probe goes first.
    let options = ClientOptions::default()
        .protocol_version(ProtocolVersion::LATEST_HANDSHAKE)
        .connect_timeout(Duration::from_secs(5))
        .request_timeout(Some(Duration::from_secs(5)));
    let outcome = async {
        let client = McpClient::connect(SERVER, Box::new(transport), options).await?;
        let count = match input.operation {
            Operation::Handshake => 0,
            Operation::ListTools => client.list_tools().await?.len(),
            Operation::CallTool => client.call_tool("echo", None).await?.content.len(),
        };
        client.close().await?;
        Ok(count)
    }
    .await;
    match server.await {
        Ok(Ok(())) => Ok(outcome),
        Ok(Err(error)) => Err(format!("the scripted server failed: {error}")),
        Err(error) => Err(format!("the scripted server's task failed: {error}")),
    }
}

/// The scripted server: answers `initialize` properly (unless the handshake is what is
/// fuzzed), answers the awaited request with `answer`, ends its output, and reads whatever the
/// client still writes until the client closes.
///
/// Its writes may fail once the client is done (an answer followed by more bytes: the client
/// may close before reading them), so only reading the client's lines can fail it.
async fn serve(end: DuplexStream, operation: Operation, answer: Vec<u8>) -> std::io::Result<()> {
    const INITIALIZED: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\
        \"2025-11-25\",\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"fuzz\",\
        \"version\":\"1\"}}}\n";
    let (read, mut write) = tokio::io::split(end);
    let mut lines = BufReader::new(read).lines();
    let awaited = format!("\"id\":{},\"method\":", operation.request_id());
    while let Some(line) = lines.next_line().await? {
        if line.contains(&awaited) {
            let _ = write.write_all(&answer).await;
            break;
        }
        if line.contains("\"id\":1,\"method\":\"initialize\"") {
            let _ = write.write_all(INITIALIZED).await;
        }
    }
    let _ = write.shutdown().await;
    while lines.next_line().await?.is_some() {}
    Ok(())
}
