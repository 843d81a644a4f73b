//! The fixture's tools: their definitions for `tools/list` and what `tools/call` does.

use std::io::{self, Write};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use serde_json::{Number, Value, json};

use crate::process;
use crate::server::Server;
use crate::wire::{self, INVALID_PARAMS};

/// The tool `--list-change-after` adds.
pub(crate) const LATE_TOOL: &str = "late_tool";

/// A 1×1 transparent PNG.
const PNG_BASE64: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAAC0lEQVR4nGNgAAIAAAUAAXpeqz8AAAAASUVORK5CYII=";
/// Four samples of 8 kHz mono 8-bit silence.
const WAV_BASE64: &str = "UklGRigAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQQAAACAgICA";

fn object_schema(properties: &Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": properties, "required": required})
}

fn echo_like(name: &str, description: &str) -> Value {
    json!({
        "name": name,
        "description": description,
        "inputSchema": object_schema(&json!({"message": {"type": "string"}}), &[]),
    })
}

/// The built-in tools followed by `generated` echo-like tools `tool_0` .. `tool_{generated-1}`,
/// the echo-like tools `named` (name, description), and the definitions `listed` as they are.
pub(crate) fn definitions(
    generated: usize,
    named: &[(String, String)],
    listed: &[Value],
) -> Vec<Value> {
    let no_arguments = object_schema(&json!({}), &[]);
    let mut tools = vec![
        json!({
            "name": "echo",
            "description": "Answers with the message it is given.",
            "inputSchema": object_schema(&json!({"message": {"type": "string"}}), &["message"]),
            "annotations": {"readOnlyHint": true},
        }),
        json!({
            "name": "add",
            "description": "Adds two numbers.",
            "inputSchema": {
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                "required": ["a", "b"],
                "additionalProperties": false,
            },
            "outputSchema": object_schema(&json!({"sum": {"type": "number"}}), &["sum"]),
            // Not in the MCP schema: proves that clients keep fields they do not know.
            "x-extra": {"kept": true},
        }),
        json!({
            "name": "sleep",
            "description": "Answers after `ms` milliseconds unless cancelled first.",
            "inputSchema": object_schema(&json!({"ms": {"type": "integer", "minimum": 0}}), &["ms"]),
        }),
        json!({
            "name": "progress",
            "description": "Reports `steps` progress notifications `interval_ms` apart, then answers.",
            "inputSchema": object_schema(
                &json!({
                    "steps": {"type": "integer", "minimum": 0},
                    "interval_ms": {"type": "integer", "minimum": 0},
                }),
                &["steps", "interval_ms"],
            ),
        }),
        json!({
            "name": "crash",
            "description": "Writes to stderr and exits without answering.",
            "inputSchema": object_schema(
                &json!({"code": {"type": "integer"}, "stderr": {"type": "string"}}),
                &[],
            ),
        }),
        json!({
            "name": "huge",
            "description": "Answers with a text of `bytes` characters.",
            "inputSchema": object_schema(&json!({"bytes": {"type": "integer", "minimum": 0}}), &["bytes"]),
        }),
        json!({
            "name": "flood_stderr",
            "description": "Writes `bytes` bytes to stderr, then answers.",
            "inputSchema": object_schema(&json!({"bytes": {"type": "integer", "minimum": 0}}), &["bytes"]),
        }),
        json!({
            "name": "error",
            "description": "Always fails with a tool error (isError).",
            "inputSchema": no_arguments,
        }),
        json!({
            "name": "all_content",
            "description": "Answers with every content type, structured content and _meta.",
            "inputSchema": no_arguments,
        }),
        json!({
            "name": "events",
            "description": "Lists the notifications and responses the server received, and the sleep calls it started.",
            "inputSchema": no_arguments,
        }),
        json!({
            "name": "pids",
            "description": "Reports the server's pid, process group and grandchild pid.",
            "inputSchema": no_arguments,
        }),
        json!({
            "name": "change_tools",
            "description": "Adds late_tool and sends notifications/tools/list_changed, then answers.",
            "inputSchema": no_arguments,
        }),
        json!({
            "name": "environment",
            "description": "Reports the working directory and one environment variable.",
            "inputSchema": object_schema(&json!({"name": {"type": "string"}}), &["name"]),
        }),
        json!({
            "name": "ask",
            "description": "Asks the client (elicitation/create) and answers with its reply.",
            "inputSchema": object_schema(
                &json!({"message": {"type": "string"}, "schema": {"type": "object"},
                        "url": {"type": "string"}}),
                &["message"],
            ),
        }),
        json!({
            "name": "roots",
            "description": "Asks the client for its roots (roots/list) and answers with whether it declared the roots capability and its reply.",
            "inputSchema": no_arguments,
        }),
        json!({
            "name": "stderr",
            "description": "Writes a line to stderr.",
            "inputSchema": object_schema(&json!({"text": {"type": "string"}}), &["text"]),
        }),
        json!({
            "name": "log",
            "description": "Sends a log message (notifications/message) at a level.",
            "inputSchema": object_schema(
                &json!({"level": {"type": "string"}, "message": {"type": "string"}}),
                &["level", "message"]
            ),
        }),
    ];
    tools.extend((0..generated).map(|i| echo_like(&format!("tool_{i}"), "Generated echo tool.")));
    tools.extend(
        named
            .iter()
            .map(|(name, description)| echo_like(name, description)),
    );
    tools.extend(listed.iter().cloned());
    tools
}

/// The definition of [`LATE_TOOL`].
pub(crate) fn late_tool_definition() -> Value {
    echo_like(
        LATE_TOOL,
        "Added after initialization by --list-change-after or the change_tools tool.",
    )
}

/// How a call was answered.
enum Answer {
    /// This line is the answer.
    Line(Vec<u8>),
    /// A thread of its own answers later (or never).
    Later,
}

/// Handles `tools/call`; bad arguments and unknown tools are JSON-RPC errors.
pub(crate) fn call(server: &Arc<Server>, id: Value, mut params: Value) {
    let Some(Value::String(name)) = params.get_mut("name").map(Value::take) else {
        server.send_error(&id, INVALID_PARAMS, "tools/call needs a string `name`");
        return;
    };
    let args = params
        .get_mut("arguments")
        .map(Value::take)
        .unwrap_or(Value::Null);
    match run(server, id, &name, args, &params) {
        Ok(Answer::Line(line)) => server.out.send(&line),
        Ok(Answer::Later) => {}
        Err((id, message)) => server.send_error(&id, INVALID_PARAMS, &message),
    }
}

type Failure = (Value, String);

fn run(
    server: &Arc<Server>,
    id: Value,
    name: &str,
    mut args: Value,
    params: &Value,
) -> Result<Answer, Failure> {
    let bad = |id: Value, why: &str| -> Result<Answer, Failure> {
        Err((id, format!("Invalid arguments for tool {name}: {why}")))
    };
    let text = |id: &Value, text: &str| Ok(Answer::Line(wire::text_result_line(id, text)));
    match name {
        "echo" => match args.get_mut("message").map(Value::take) {
            Some(Value::String(message)) => text(&id, &message),
            _ => bad(id, "`message` must be a string"),
        },
        "add" => {
            let (Some(a), Some(b)) = (args.get("a"), args.get("b")) else {
                return bad(id, "`a` and `b` are required");
            };
            let Some(sum) = add(a, b) else {
                return bad(id, "`a` and `b` must be numbers with a finite sum");
            };
            let result = json!({
                "content": [{"type": "text", "text": sum.to_string()}],
                "structuredContent": {"sum": sum},
            });
            Ok(Answer::Line(wire::result_line(&id, &result)))
        }
        "sleep" => {
            let Some(ms) = args.get("ms").and_then(Value::as_u64) else {
                return bad(id, "`ms` must be a non-negative integer");
            };
            // A test waits for this before it cancels: the request is in the server's hands.
            server.record(json!({"started": name, "id": &id}));
            let server = Arc::clone(server);
            thread::spawn(move || {
                if !server.wait_unless_cancelled(&id, Duration::from_millis(ms)) {
                    server
                        .out
                        .send(&wire::text_result_line(&id, &format!("slept {ms}ms")));
                }
                server.forget_request(&id);
            });
            Ok(Answer::Later)
        }
        "progress" => {
            let (Some(steps), Some(interval)) = (
                args.get("steps").and_then(Value::as_u64),
                args.get("interval_ms").and_then(Value::as_u64),
            ) else {
                return bad(
                    id,
                    "`steps` and `interval_ms` must be non-negative integers",
                );
            };
            let token = params
                .get("_meta")
                .and_then(|meta| meta.get("progressToken"))
                .cloned();
            let server = Arc::clone(server);
            thread::spawn(move || {
                report_progress(&server, &id, steps, interval, token.as_ref());
                server.forget_request(&id);
            });
            Ok(Answer::Later)
        }
        "crash" => {
            let code = match args.get("code") {
                None => 3,
                Some(code) => match code.as_i64().and_then(|c| i32::try_from(c).ok()) {
                    Some(code) => code,
                    None => return bad(id, "`code` must be an integer"),
                },
            };
            let message = args
                .get("stderr")
                .and_then(Value::as_str)
                .unwrap_or("fixture: crashing as asked");
            eprintln!("{message}");
            std::process::exit(code)
        }
        "huge" => match args.get("bytes").and_then(Value::as_u64) {
            Some(bytes) => match usize::try_from(bytes) {
                Ok(bytes) => text(&id, &"x".repeat(bytes)),
                Err(_) => bad(id, "`bytes` is too large"),
            },
            None => bad(id, "`bytes` must be a non-negative integer"),
        },
        "flood_stderr" => match args
            .get("bytes")
            .and_then(Value::as_u64)
            .and_then(|b| usize::try_from(b).ok())
        {
            Some(bytes) => {
                flood_stderr(bytes);
                text(&id, "flooded")
            }
            None => bad(id, "`bytes` must be a non-negative integer"),
        },
        "error" => {
            let result = json!({
                "content": [{"type": "text", "text": "this tool failed"}],
                "isError": true,
            });
            Ok(Answer::Line(wire::result_line(&id, &result)))
        }
        "all_content" => Ok(Answer::Line(wire::result_line(&id, &all_content()))),
        "events" => text(&id, &server.events().to_string()),
        "ask" => {
            let message = args
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            let schema = args
                .get("schema")
                .cloned()
                .unwrap_or_else(|| json!({"type": "object", "properties": {}}));
            let url = args.get("url").and_then(Value::as_str).map(str::to_owned);
            let server = Arc::clone(server);
            thread::spawn(move || {
                let reply = match url {
                    Some(url) => server.ask_to_open(&message, &url),
                    None => server.ask(&message, &schema),
                };
                server
                    .out
                    .send(&wire::text_result_line(&id, &reply.to_string()));
            });
            Ok(Answer::Later)
        }
        "roots" => {
            let server = Arc::clone(server);
            thread::spawn(move || {
                let reply = server.request_client("srv-roots-asked", "roots/list", None);
                let report = json!({
                    "declared": server.client_declared("roots"),
                    "reply": reply,
                });
                server
                    .out
                    .send(&wire::text_result_line(&id, &report.to_string()));
            });
            Ok(Answer::Later)
        }
        "change_tools" => {
            server.add_late_tool();
            text(&id, "changed")
        }
        "pids" => {
            let pids = json!({
                "pid": std::process::id(),
                "pgid": process::process_group(),
                "grandchild": server.grandchild,
            });
            text(&id, &pids.to_string())
        }
        "environment" => match args.get("name").and_then(Value::as_str) {
            Some(variable) => {
                let report = json!({
                    "cwd": std::env::current_dir()
                        .map(|dir| dir.to_string_lossy().into_owned())
                        .ok(),
                    "value": std::env::var(variable).ok(),
                });
                text(&id, &report.to_string())
            }
            None => bad(id, "`name` must be a string"),
        },
        "log" => match (
            args.get("level").and_then(Value::as_str),
            args.get("message").and_then(Value::as_str),
        ) {
            (Some(level), Some(message)) => {
                server.notify(&json!({
                    "jsonrpc": "2.0",
                    "method": "notifications/message",
                    "params": {"level": level, "logger": "fixture", "data": message},
                }));
                text(&id, "logged")
            }
            _ => bad(id, "`level` and `message` must be strings"),
        },
        "stderr" => match args.get("text").and_then(Value::as_str) {
            Some(line) => {
                eprintln!("{line}");
                text(&id, "ok")
            }
            None => bad(id, "`text` must be a string"),
        },
        _ if is_generated(name, server.opts.tools)
            || server.has_late_tool(name)
            || server
                .opts
                .named_tools
                .iter()
                .any(|(named, _)| named == name) =>
        {
            match args.get_mut("message").map(Value::take) {
                Some(Value::String(message)) => text(&id, &message),
                _ => text(&id, name),
            }
        }
        // Which server answered, so a test sees a call reach the right one.
        _ if server.has_json_tool(name) => {
            text(&id, &format!("{name} on {} with {args}", server.opts.name))
        }
        _ => Err((id, format!("Unknown tool: {name}"))),
    }
}

/// `a + b`, kept an integer when both are integers and the sum fits.
fn add(a: &Value, b: &Value) -> Option<Value> {
    if let (Some(a), Some(b)) = (a.as_i64(), b.as_i64())
        && let Some(sum) = a.checked_add(b)
    {
        return Some(Value::from(sum));
    }
    let sum = a.as_f64()? + b.as_f64()?;
    Number::from_f64(sum).map(Value::Number)
}

fn is_generated(name: &str, count: usize) -> bool {
    name.strip_prefix("tool_")
        .and_then(|n| {
            n.parse::<usize>()
                .ok()
                .filter(|i| *i < count && i.to_string() == n)
        })
        .is_some()
}

fn report_progress(
    server: &Server,
    id: &Value,
    steps: u64,
    interval_ms: u64,
    token: Option<&Value>,
) {
    for step in 1..=steps {
        if server.wait_unless_cancelled(id, Duration::from_millis(interval_ms)) {
            return;
        }
        if let Some(token) = token {
            server.out.send(&wire::message_line(&json!({
                "jsonrpc": "2.0",
                "method": "notifications/progress",
                "params": {
                    "progressToken": token,
                    "progress": step,
                    "total": steps,
                    "message": format!("step {step}"),
                },
            })));
        }
    }
    server.out.send(&wire::text_result_line(id, "done"));
}

fn all_content() -> Value {
    json!({
        "content": [
            {"type": "text", "text": "plain text"},
            {"type": "image", "data": PNG_BASE64, "mimeType": "image/png"},
            {"type": "audio", "data": WAV_BASE64, "mimeType": "audio/wav"},
            {
                "type": "resource_link",
                "uri": "file:///linked.txt",
                "name": "linked.txt",
                "mimeType": "text/plain",
            },
            {
                "type": "resource",
                "resource": {"uri": "file:///x.txt", "mimeType": "text/plain", "text": "hello"},
            },
            {"type": "x-custom", "payload": {"a": 1}},
        ],
        "structuredContent": {"ok": true},
        "_meta": {"fixture": true},
    })
}

/// Writes exactly `bytes` bytes to stderr in lines of 100 characters (the last may be shorter).
pub(crate) fn flood_stderr(bytes: usize) {
    const LINE: usize = 100;
    const LINES_PER_WRITE: usize = 80;
    let mut line = b"fixture: stderr flood ".to_vec();
    line.resize(LINE - 1, b'.');
    line.push(b'\n');
    let block = line.repeat(LINES_PER_WRITE);
    let mut stderr = io::stderr().lock();
    let mut write = || -> io::Result<()> {
        let mut left = bytes;
        while left >= block.len() {
            stderr.write_all(&block)?;
            left -= block.len();
        }
        if left > 0 {
            let mut tail = block[..left].to_vec();
            if let Some(last) = tail.last_mut() {
                *last = b'\n';
            }
            stderr.write_all(&tail)?;
        }
        stderr.flush()
    };
    // Nobody to tell when stderr itself is gone.
    let _ = write();
}
