//! Target `content`: the protocol types' decoding on their own — `CallToolResult` and its
//! content blocks (decoded in one pass by a hand-written visitor), `Tool`, `ListToolsResult`,
//! `InitializeResult` — and the bridge's conversion of a result for the model.
//!
//! The `jsonrpc` target reaches these through the client; here each input is decoded as every
//! type at once, which is much faster and allows a stronger property. For arbitrary bytes and
//! for mutated results, tools and handshakes drawn from the protocol's shapes:
//!
//! - decoding gives a value or a `serde_json` error, never a panic;
//! - what decodes survives a round trip: encoded and decoded again, it is the same value (what
//!   the client forwards, re-serializes or caches means what the server sent), floats up to
//!   serde_json's parsing precision, for JSON that names no key twice in one object (which
//!   value such JSON means is left open by RFC 8259; see [`crate::json_eq`]);
//! - `mcp_bridge::convert::convert_result` of a decoded result gives one output block per
//!   content block (plus one for structured content without text), never a panic;
//! - decoding and converting each hold at most `64 × input + 16 KiB` at once.

use mcp_transport::protocol::ListToolsResult;
use mcp_transport::{CallToolResult, ContentBlock, InitializeResult, Tool};
use proptest::prelude::*;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::grammar::{self, Blob};
use crate::json_eq::{has_repeated_keys, same_json};
use crate::runner::{Report, Settings, fuzz};

/// Runs the target.
pub fn run(settings: &Settings) -> Report {
    fuzz("content", settings, input(), check)
}

fn input() -> impl Strategy<Value = Blob> {
    let shaped = prop_oneof![
        4 => grammar::call_tool_result(),
        1 => prop::collection::vec(grammar::content_block(), 0..4)
            .prop_map(serde_json::Value::Array)
            .boxed(),
        1 => grammar::content_block(),
        2 => grammar::list_tools_result(),
        1 => grammar::tool(),
        1 => grammar::initialize_result(),
    ];
    prop_oneof![
        1 => grammar::raw_bytes(256),
        5 => grammar::mutated(shaped.prop_map(|value| value.to_string().into_bytes())),
    ]
}

fn check(input: &Blob) -> Result<(), String> {
    let bytes = &input.0;
    // Only the decoding and the conversion are measured, each on its own, not the checks.
    let mut peak = 0;
    round_trips::<CallToolResult>(bytes, &mut peak)?;
    round_trips::<Vec<ContentBlock>>(bytes, &mut peak)?;
    round_trips::<ContentBlock>(bytes, &mut peak)?;
    round_trips::<Tool>(bytes, &mut peak)?;
    round_trips::<ListToolsResult>(bytes, &mut peak)?;
    round_trips::<InitializeResult>(bytes, &mut peak)?;
    if let Ok(result) = serde_json::from_slice::<CallToolResult>(bytes) {
        let (output, used) = crate::alloc_meter::peak_during(|| {
            mcp_bridge::convert::convert_result(&result, "fuzz-server", "fuzz-tool")
        });
        peak = peak.max(used);
        let has_text = result
            .content
            .iter()
            .any(|block| matches!(block, ContentBlock::Text(_)));
        let extra = usize::from(result.structured_content.is_some() && !has_text);
        if output.content.len() != result.content.len() + extra {
            return Err(format!(
                "{} content blocks became {} output blocks",
                result.content.len(),
                output.content.len()
            ));
        }
        if output.is_error != result.is_error {
            return Err("the conversion changed isError".to_owned());
        }
    }
    let bound = 64 * bytes.len() + 16 * 1024;
    if peak > bound {
        return Err(format!(
            "decoding or converting {} bytes held {peak} bytes at once, over the bound of {bound}",
            bytes.len()
        ));
    }
    Ok(())
}

/// Whether two values encode as the same JSON, floats compared as [`same_json`] does.
fn same<T: Serialize>(a: &T, b: &T) -> bool {
    match (serde_json::to_value(a), serde_json::to_value(b)) {
        (Ok(a), Ok(b)) => same_json(&a, &b),
        _ => false,
    }
}

/// Decodes `bytes` as `T`; a value must come back the same from its own encoding (floats up to
/// serde_json's parsing precision, see [`crate::json_eq`]).
/// `peak` becomes the most the decoding held at once, if that is more.
fn round_trips<T>(bytes: &[u8], peak: &mut usize) -> Result<(), String>
where
    T: DeserializeOwned + Serialize + PartialEq + std::fmt::Debug,
{
    let (decoded, used) = crate::alloc_meter::peak_during(|| serde_json::from_slice::<T>(bytes));
    *peak = (*peak).max(used);
    let Ok(value) = decoded else {
        return Ok(());
    };
    if has_repeated_keys(bytes) {
        return Ok(());
    }
    let type_name = std::any::type_name::<T>();
    let encoded = serde_json::to_vec(&value)
        .map_err(|error| format!("a decoded {type_name} does not encode: {error}"))?;
    match serde_json::from_slice::<T>(&encoded) {
        Ok(again) if again == value || same(&again, &value) => Ok(()),
        Ok(again) => Err(format!(
            "a {type_name} changed in a round trip:\n  decoded  {value:?}\n  encoded  {}\n  decoded again {again:?}",
            String::from_utf8_lossy(&encoded)
        )),
        Err(error) => Err(format!(
            "a decoded {type_name} encodes as {} which does not decode: {error}",
            String::from_utf8_lossy(&encoded)
        )),
    }
}
