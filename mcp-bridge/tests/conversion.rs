//! From MCP `tools/call` results and failures to agent tool outputs: every content type,
//! structured content, `isError`, the details, `MCP error: …` for failures, and a cancellation
//! that stays a cancellation.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::time::Duration;

use mcp_bridge::convert::{convert_call, convert_owned, convert_result, error_output};
use mcp_bridge::{OutputBlock, ToolCancelled, ToolOutput};
use mcp_transport::transport::TransportError;
use mcp_transport::{CallToolResult, CloseReason, ErrorObject, RpcError};
use serde_json::{Value, json};

/// A result as a server would send it.
fn result(wire: Value) -> CallToolResult {
    serde_json::from_value(wire).expect("a valid CallToolResult")
}

/// The one block of a single-block result.
fn only_block(wire: &Value) -> OutputBlock {
    let output = convert_result(&result(json!({ "content": [wire] })), "srv", "tool");
    assert!(!output.is_error);
    assert_eq!(output.content.len(), 1, "{:?}", output.content);
    output.content.into_iter().next().unwrap()
}

fn text(text: &str) -> OutputBlock {
    OutputBlock::Text {
        text: text.to_owned(),
    }
}

/// A request failure of server `srv` calling `tool`.
fn request_error(source: RpcError) -> mcp_transport::Error {
    mcp_transport::Error::Request {
        server: "srv".to_owned(),
        operation: "tools/call \"tool\"".to_owned(),
        source,
    }
}

#[test]
fn text_is_kept() {
    assert_eq!(
        only_block(&json!({"type": "text", "text": "hello\nworld"})),
        text("hello\nworld")
    );
    // Annotations do not get in the way.
    assert_eq!(
        only_block(&json!({"type": "text", "text": "hi", "annotations": {"priority": 1}})),
        text("hi")
    );
}

#[test]
fn images_and_audio_stay_images_and_audio() {
    assert_eq!(
        only_block(&json!({"type": "image", "data": "AAAA", "mimeType": "image/png"})),
        OutputBlock::Image {
            data: "AAAA".to_owned(),
            mime_type: "image/png".to_owned(),
        }
    );
    assert_eq!(
        only_block(&json!({"type": "audio", "data": "AAA=", "mimeType": "audio/wav"})),
        OutputBlock::Audio {
            data: "AAA=".to_owned(),
            mime_type: "audio/wav".to_owned(),
        }
    );
}

#[test]
fn resource_links_are_rendered_with_their_uri() {
    assert_eq!(
        only_block(&json!({
            "type": "resource_link",
            "uri": "file:///reports/q3.pdf",
            "name": "q3.pdf",
            "mimeType": "application/pdf",
            "description": "The third quarter",
        })),
        text("[Resource link: q3.pdf] file:///reports/q3.pdf (application/pdf)\nThe third quarter")
    );
    assert_eq!(
        only_block(&json!({
            "type": "resource_link",
            "uri": "https://example.com/notes",
            "name": "notes",
        })),
        text("[Resource link: notes] https://example.com/notes")
    );
    assert_eq!(
        only_block(&json!({
            "type": "resource_link",
            "uri": "https://example.com/a",
            "name": "a",
            "description": "No MIME type",
        })),
        text("[Resource link: a] https://example.com/a\nNo MIME type")
    );
}

#[test]
fn embedded_resources_are_rendered_with_their_uri() {
    assert_eq!(
        only_block(&json!({
            "type": "resource",
            "resource": {"uri": "file:///x.txt", "mimeType": "text/plain", "text": "hello"},
        })),
        text("[Resource: file:///x.txt (text/plain)]\nhello")
    );
    assert_eq!(
        only_block(&json!({
            "type": "resource",
            "resource": {"uri": "memo://1", "text": "no type"},
        })),
        text("[Resource: memo://1]\nno type")
    );
    // "AAECAw==" is the four bytes 0 1 2 3.
    assert_eq!(
        only_block(&json!({
            "type": "resource",
            "resource": {
                "uri": "file:///b.bin",
                "mimeType": "application/octet-stream",
                "blob": "AAECAw==",
            },
        })),
        text("[Resource: file:///b.bin (application/octet-stream), 4 bytes of binary data]")
    );
}

#[test]
fn a_block_of_an_unknown_type_is_rendered_as_its_json() {
    assert_eq!(
        only_block(&json!({"type": "x-custom", "payload": {"a": 1}})),
        text(r#"[x-custom content] {"type":"x-custom","payload":{"a":1}}"#)
    );
}

#[test]
fn blocks_keep_their_order() {
    let output = convert_result(
        &result(json!({"content": [
            {"type": "text", "text": "one"},
            {"type": "image", "data": "AAAA", "mimeType": "image/png"},
            {"type": "text", "text": "two"},
        ]})),
        "srv",
        "tool",
    );
    assert_eq!(
        output.content,
        [
            text("one"),
            OutputBlock::Image {
                data: "AAAA".to_owned(),
                mime_type: "image/png".to_owned(),
            },
            text("two"),
        ]
    );
    assert_eq!(output.to_text(), "one\n[image: image/png, 3 bytes]\ntwo");
}

#[test]
fn structured_content_is_rendered_only_without_text() {
    // With text of its own: the text is what the model sees.
    let with_text = convert_result(
        &result(json!({
            "content": [{"type": "text", "text": "{\"sum\": 3}"}],
            "structuredContent": {"sum": 3},
        })),
        "srv",
        "add",
    );
    assert_eq!(with_text.content, [text("{\"sum\": 3}")]);
    assert_eq!(with_text.details["structuredContent"], json!({"sum": 3}));

    // Without any content: the JSON.
    let alone = convert_result(
        &result(json!({"content": [], "structuredContent": {"sum": 3, "ok": true}})),
        "srv",
        "add",
    );
    assert_eq!(alone.content, [text(r#"{"sum":3,"ok":true}"#)]);
    assert!(!alone.is_error);

    // Next to an image: the image, then the JSON.
    let with_image = convert_result(
        &result(json!({
            "content": [{"type": "image", "data": "AAAA", "mimeType": "image/png"}],
            "structuredContent": {"width": 1},
        })),
        "srv",
        "draw",
    );
    assert_eq!(with_image.content.len(), 2);
    assert_eq!(with_image.content[1], text(r#"{"width":1}"#));

    // A resource link is rendered as text, but it is not text of the result's own: the
    // structured content is still shown.
    let with_link = convert_result(
        &result(json!({
            "content": [{"type": "resource_link", "uri": "file:///a", "name": "a"}],
            "structuredContent": {"rows": 2},
        })),
        "srv",
        "query",
    );
    assert_eq!(
        with_link.content,
        [text("[Resource link: a] file:///a"), text(r#"{"rows":2}"#)]
    );

    // No structured content and no content: nothing to show, not an error.
    let empty = convert_result(&result(json!({"content": []})), "srv", "noop");
    assert!(empty.content.is_empty());
    assert!(!empty.is_error);
    assert_eq!(empty.details["structuredContent"], Value::Null);
}

#[test]
fn is_error_makes_an_error_output_the_model_sees() {
    let output = convert_result(
        &result(json!({
            "content": [{"type": "text", "text": "no such issue"}],
            "isError": true,
        })),
        "github",
        "get_issue",
    );
    assert!(output.is_error);
    assert_eq!(output.content, [text("no such issue")]);
    assert_eq!(output.details["isError"], json!(true));
}

#[test]
fn details_carry_server_tool_and_the_raw_result() {
    let wire = json!({
        "content": [
            {"type": "text", "text": "plain"},
            {"type": "x-custom", "payload": [1, 2]},
        ],
        "structuredContent": {"ok": true},
        "_meta": {"trace": "abc"},
    });
    let output = convert_result(&result(wire.clone()), "my-server", "My Tool");
    assert_eq!(
        output.details,
        json!({
            "server": "my-server",
            "tool": "My Tool",
            "content": wire["content"],
            "structuredContent": {"ok": true},
            "isError": false,
            "_meta": {"trace": "abc"},
        })
    );
}

/// The details' content is what serializing the result's blocks gives, every kind of block
/// (text with extra fields too), whether the result is lent or given away.
#[test]
fn details_content_is_the_blocks_as_serialized_lent_or_given() {
    let wire = json!({
        "content": [
            {"type": "text", "text": "plain"},
            {"type": "text", "text": "hinted", "annotations": {"audience": ["user"]}, "_meta": {"k": 1}},
            {"type": "image", "data": "aGk=", "mimeType": "image/png"},
            {"type": "audio", "data": "aGk=", "mimeType": "audio/wav"},
            {"type": "resource_link", "uri": "file:///a", "name": "a", "mimeType": "text/plain"},
            {"type": "resource", "resource": {"uri": "file:///b", "text": "body"}},
            {"type": "x-custom", "payload": [1, 2]},
        ],
        "structuredContent": {"ok": true},
        "isError": true,
        "_meta": {"trace": "abc"},
    });
    let result = result(wire);
    let lent = convert_result(&result, "srv", "tool");
    assert_eq!(
        lent.details["content"],
        serde_json::to_value(&result.content).unwrap()
    );
    let keys: Vec<&str> = lent.details["content"][1]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["type", "text", "annotations", "_meta"]);
    assert_eq!(convert_owned(result, "srv", "tool"), lent);
}

#[test]
fn error_output_is_mcp_error_with_the_flag() {
    let output = error_output("the server is gone", "srv", "tool");
    assert!(output.is_error);
    assert_eq!(output.content, [text("MCP error: the server is gone")]);
    assert_eq!(output.to_text(), "MCP error: the server is gone");
    assert_eq!(
        output.details,
        json!({"server": "srv", "tool": "tool", "error": "the server is gone"})
    );
}

#[test]
fn convert_call_keeps_a_cancellation_a_cancellation() {
    assert_eq!(
        convert_call(Err(request_error(RpcError::Cancelled)), "srv", "tool"),
        Err(ToolCancelled::new())
    );
}

#[test]
fn convert_call_turns_other_failures_into_error_outputs() {
    let failures = [
        request_error(RpcError::Server(ErrorObject::new(-32602, "bad arguments"))),
        request_error(RpcError::Timeout(Duration::from_millis(1500))),
        request_error(RpcError::ConnectionClosed(CloseReason::new(
            TransportError::ServerExited {
                status: "status 3".to_owned(),
                stderr_tail: vec!["fatal: out of memory".to_owned()],
            },
        ))),
        request_error(RpcError::InvalidResponse("missing `content`".to_owned())),
        mcp_transport::Error::ConnectTimeout {
            server: "srv".to_owned(),
            after: Duration::from_secs(30),
        },
    ];
    for failure in failures {
        let message = failure.to_string();
        let output = convert_call(Err(failure), "srv", "tool").expect("not a cancellation");
        assert!(output.is_error, "{message}");
        assert_eq!(output.content, [text(&format!("MCP error: {message}"))]);
        assert_eq!(output.details["error"], json!(message));
    }
    // The exit status and stderr of a dead server reach the model.
    let dead = request_error(RpcError::ConnectionClosed(CloseReason::new(
        TransportError::ServerExited {
            status: "status 3".to_owned(),
            stderr_tail: vec!["fatal: out of memory".to_owned()],
        },
    )));
    let output = convert_call(Err(dead), "srv", "tool").unwrap();
    assert_eq!(
        output.to_text(),
        "MCP error: MCP server \"srv\": tools/call \"tool\" failed: server exited with status 3: \
         fatal: out of memory"
    );
    // A timeout is a failure the model sees, not a cancellation.
    let timeout = request_error(RpcError::Timeout(Duration::from_millis(10)));
    assert!(convert_call(Err(timeout), "srv", "tool").is_ok());
}

#[test]
fn convert_call_converts_a_result() {
    let wire = json!({"content": [{"type": "text", "text": "ok"}], "isError": true});
    assert_eq!(
        convert_call(Ok(result(wire.clone())), "srv", "tool"),
        Ok(convert_result(&result(wire), "srv", "tool"))
    );
}

#[test]
fn to_text_shows_placeholders_for_images_and_audio() {
    let output = convert_result(
        &result(json!({"content": [
            {"type": "text", "text": "look:"},
            // 8 base64 characters without padding: 6 bytes.
            {"type": "image", "data": "AAAAAAAA", "mimeType": "image/jpeg"},
            // One padding character: 2 bytes.
            {"type": "audio", "data": "AAA=", "mimeType": "audio/mpeg"},
            // Two padding characters: 1 byte.
            {"type": "image", "data": "AA==", "mimeType": "image/gif"},
        ]})),
        "srv",
        "tool",
    );
    assert_eq!(
        output.to_text(),
        "look:\n[image: image/jpeg, 6 bytes]\n[audio: audio/mpeg, 2 bytes]\n[image: image/gif, 1 bytes]"
    );
    assert_eq!(
        OutputBlock::Audio {
            data: String::new(),
            mime_type: "audio/wav".to_owned(),
        }
        .to_text(),
        "[audio: audio/wav, 0 bytes]"
    );
}

#[test]
fn tool_output_constructors_and_serialization() {
    let ok = ToolOutput::text("fine");
    assert!(!ok.is_error);
    assert_eq!(ok.content, [text("fine")]);
    assert_eq!(ok.details, Value::Null);
    let failed = ToolOutput::error("broken");
    assert!(failed.is_error);
    assert_eq!(failed.to_text(), "broken");
    let image = OutputBlock::Image {
        data: "AAAA".to_owned(),
        mime_type: "image/png".to_owned(),
    };
    assert_eq!(
        serde_json::to_value(&image).unwrap(),
        json!({"type": "image", "data": "AAAA", "mime_type": "image/png"})
    );
    assert_eq!(
        serde_json::to_value(text("x")).unwrap(),
        json!({"type": "text", "text": "x"})
    );
}
