//! The hidden `demo-server` command: a small synchronous MCP server over stdio, so that the
//! demo runs on a fresh clone with no network, Node or Python.
//!
//! It speaks newline-delimited JSON-RPC 2.0: `initialize`, `ping`, `tools/list` (delayed by
//! `--slow-ms`), `tools/call` with the tools `echo`, `add` and `word_count`; other requests get
//! "method not found", notifications and responses are ignored. It exits as soon as stdin
//! reaches end of file, even in the middle of a delay.
//!
//! Method names, protocol revisions and JSON-RPC error codes are the ones `mcp-transport`
//! exports (`protocol::methods`, [`ProtocolVersion`], `jsonrpc::error_codes`), so the demo
//! server and the client cannot drift apart.

use std::io::{BufRead, Write};
use std::sync::mpsc;
use std::time::Duration;

use mcp_transport::ProtocolVersion;
use mcp_transport::jsonrpc::error_codes::{
    INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR,
};
use mcp_transport::protocol::methods;
use serde_json::{Value, json};

/// The version answered to a client that asks for one this server does not speak.
const FALLBACK_VERSION: ProtocolVersion = ProtocolVersion::V2025_06_18;

/// The version this server answers a client asking for `asked`: that one when it is a revision
/// with the `initialize` handshake (this server speaks every one of those), else the fallback.
fn answered_version(asked: Option<&str>) -> ProtocolVersion {
    asked
        .and_then(ProtocolVersion::parse)
        .filter(|version| !version.is_stateless())
        .unwrap_or(FALLBACK_VERSION)
}

/// Runs the server until stdin closes; returns the process exit code.
pub(crate) fn run(name: &str, slow_ms: u64) -> u8 {
    let (lines, incoming) = mpsc::channel::<String>();
    // A reader of its own, so that end of input is noticed at once, even during a delay.
    let reader = std::thread::Builder::new()
        .name("demo-server-stdin".to_owned())
        .spawn(move || {
            for line in std::io::stdin().lock().lines() {
                let Ok(line) = line else { break };
                if lines.send(line).is_err() {
                    break;
                }
            }
            // stdin is closed: the client is gone.
            std::process::exit(0);
        });
    if reader.is_err() {
        eprintln!("demo-server: cannot start the stdin reader");
        return 1;
    }
    let mut stdout = std::io::stdout().lock();
    for line in incoming {
        if line.trim().is_empty() {
            continue;
        }
        let Some(answer) = handle(name, slow_ms, &line) else {
            continue;
        };
        let written = serde_json::to_string(&answer)
            .map_err(std::io::Error::other)
            .and_then(|text| writeln!(stdout, "{text}"))
            .and_then(|()| stdout.flush());
        if written.is_err() {
            return 0;
        }
    }
    0
}

/// The answer to one line, if it needs one.
fn handle(name: &str, slow_ms: u64, line: &str) -> Option<Value> {
    let message: Value = match serde_json::from_str(line) {
        Ok(message) => message,
        Err(error) => {
            return Some(error_response(
                &Value::Null,
                PARSE_ERROR,
                &error.to_string(),
            ));
        }
    };
    let Some(method) = message.get("method").and_then(Value::as_str) else {
        // A response to a request of ours (there are none) or something that is not a request.
        return message
            .get("id")
            .is_none()
            .then(|| error_response(&Value::Null, INVALID_REQUEST, "not a JSON-RPC request"));
    };
    // Notifications (`notifications/initialized`, `notifications/cancelled`) need no answer.
    let id = message.get("id")?.clone();
    let params = message.get("params").cloned().unwrap_or(Value::Null);
    Some(match method {
        methods::INITIALIZE => {
            let version = answered_version(params.get("protocolVersion").and_then(Value::as_str));
            result(
                &id,
                json!({
                    "protocolVersion": version.as_str(),
                    "capabilities": {"tools": {"listChanged": false}},
                    "serverInfo": {"name": name, "version": env!("CARGO_PKG_VERSION")},
                    "instructions": "The agent-session demo server: echo, add, word_count.",
                }),
            )
        }
        methods::PING => result(&id, json!({})),
        methods::TOOLS_LIST => {
            if slow_ms > 0 {
                std::thread::sleep(Duration::from_millis(slow_ms));
            }
            result(&id, json!({"tools": definitions()}))
        }
        methods::TOOLS_CALL => call(&id, &params),
        other => error_response(&id, METHOD_NOT_FOUND, &format!("unknown method {other}")),
    })
}

fn definitions() -> Value {
    json!([
        {
            "name": "echo",
            "description": "Answers with the message it is given.",
            "inputSchema": {
                "type": "object",
                "properties": {"message": {"type": "string"}},
                "required": ["message"],
            },
        },
        {
            "name": "add",
            "description": "Adds two numbers.",
            "inputSchema": {
                "type": "object",
                "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                "required": ["a", "b"],
            },
            "outputSchema": {
                "type": "object",
                "properties": {"sum": {"type": "number"}},
                "required": ["sum"],
            },
        },
        {
            "name": "word_count",
            "description": "Counts the words of a text.",
            "inputSchema": {
                "type": "object",
                "properties": {"text": {"type": "string"}},
                "required": ["text"],
            },
            "outputSchema": {
                "type": "object",
                "properties": {"words": {"type": "integer"}},
                "required": ["words"],
            },
        },
    ])
}

fn call(id: &Value, params: &Value) -> Value {
    let Some(tool) = params.get("name").and_then(Value::as_str) else {
        let message = format!("{} needs a string `name`", methods::TOOLS_CALL);
        return error_response(id, INVALID_PARAMS, &message);
    };
    let args = params.get("arguments").cloned().unwrap_or(Value::Null);
    match tool {
        "echo" => match args.get("message").and_then(Value::as_str) {
            Some(message) => text_result(id, message, None),
            None => tool_error(id, "echo needs a string `message`"),
        },
        "add" => {
            let numbers = (
                args.get("a").and_then(Value::as_f64),
                args.get("b").and_then(Value::as_f64),
            );
            match numbers {
                (Some(a), Some(b)) if (a + b).is_finite() => {
                    let sum = a + b;
                    let sum_json = if sum.fract() == 0.0 && sum.abs() < 9.0e15 {
                        // Whole numbers print without a fraction.
                        json!(sum as i64)
                    } else {
                        json!(sum)
                    };
                    text_result(id, &sum_json.to_string(), Some(json!({"sum": sum_json})))
                }
                _ => tool_error(id, "add needs two numbers `a` and `b`"),
            }
        }
        "word_count" => match args.get("text").and_then(Value::as_str) {
            Some(text) => {
                let words = text.split_whitespace().count();
                let noun = if words == 1 { "word" } else { "words" };
                text_result(
                    id,
                    &format!("{words} {noun}"),
                    Some(json!({"words": words})),
                )
            }
            None => tool_error(id, "word_count needs a string `text`"),
        },
        other => error_response(
            id,
            INVALID_PARAMS,
            &format!(
                "unknown tool {other}; {} shows echo, add and word_count",
                methods::TOOLS_LIST
            ),
        ),
    }
}

fn result(id: &Value, result: Value) -> Value {
    let mut response = json!({"jsonrpc": "2.0", "id": id});
    if let Some(object) = response.as_object_mut() {
        object.insert("result".to_owned(), result);
    }
    response
}

fn text_result(id: &Value, text: &str, structured: Option<Value>) -> Value {
    let mut body = json!({"content": [{"type": "text", "text": text}]});
    if let (Some(structured), Some(object)) = (structured, body.as_object_mut()) {
        object.insert("structuredContent".to_owned(), structured);
    }
    result(id, body)
}

fn tool_error(id: &Value, text: &str) -> Value {
    result(
        id,
        json!({"content": [{"type": "text", "text": text}], "isError": true}),
    )
}

fn error_response(id: &Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_the_handshake_and_the_tools() {
        let init = handle(
            "d",
            0,
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}"#,
        )
        .unwrap();
        assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
        assert_eq!(init["result"]["serverInfo"]["name"], "d");
        assert!(
            handle(
                "d",
                0,
                r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#
            )
            .is_none()
        );
        let list = handle("d", 0, r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#).unwrap();
        assert_eq!(list["result"]["tools"].as_array().unwrap().len(), 3);
        let add = handle(
            "d",
            0,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3}}}"#,
        )
        .unwrap();
        assert_eq!(add["result"]["structuredContent"], json!({"sum": 5}));
        assert_eq!(add["result"]["content"][0]["text"], "5");
        let words = handle(
            "d",
            0,
            r#"{"jsonrpc":"2.0","id":"w","method":"tools/call","params":{"name":"word_count","arguments":{"text":"one two  three"}}}"#,
        )
        .unwrap();
        assert_eq!(words["id"], "w");
        assert_eq!(words["result"]["content"][0]["text"], "3 words");
        let bad = handle(
            "d",
            0,
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{}}}"#,
        )
        .unwrap();
        assert_eq!(bad["result"]["isError"], true);
        let unknown = handle(
            "d",
            0,
            r#"{"jsonrpc":"2.0","id":5,"method":"resources/list"}"#,
        )
        .unwrap();
        assert_eq!(unknown["error"]["code"], METHOD_NOT_FOUND);
        let garbage = handle("d", 0, "{nope").unwrap();
        assert_eq!(garbage["error"]["code"], PARSE_ERROR);
    }

    #[test]
    fn answers_every_handshake_revision_as_asked_and_falls_back_otherwise() {
        let answered = |asked: &str| {
            let request = json!({
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {"protocolVersion": asked},
            });
            handle("d", 0, &request.to_string()).unwrap()["result"]["protocolVersion"].clone()
        };
        for asked in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
            assert_eq!(answered(asked), asked);
        }
        // 2026-07-28 has no `initialize`; an unknown revision is not spoken.
        for asked in ["2026-07-28", "1999-01-01", "latest"] {
            assert_eq!(answered(asked), "2025-06-18", "{asked}");
        }
        let without = handle("d", 0, r#"{"jsonrpc":"2.0","id":1,"method":"initialize"}"#).unwrap();
        assert_eq!(without["result"]["protocolVersion"], "2025-06-18");
    }
}
