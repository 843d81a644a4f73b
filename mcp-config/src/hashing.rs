//! The one hash approvals are made of: SHA-256 over a JSON value written canonically.

use std::fmt::Write as _;

use serde_json::Value;
use sha2::{Digest as _, Sha256};

/// The SHA-256 (hex) of a JSON value written canonically (keys sorted, no whitespace).
///
/// `mcp_cache::Fingerprint` hashes the same way; it is written again here because this crate
/// depends on no other workspace crate (see DESIGN.md), and an approval must not change when
/// the cache's key format does.
pub(crate) fn sha256_canonical(value: &Value) -> String {
    let mut canonical = String::new();
    write_canonical(value, &mut canonical);
    let mut hex = String::with_capacity(64);
    for byte in Sha256::digest(canonical.as_bytes()) {
        let _ = write!(hex, "{byte:02x}");
    }
    hex
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (index, key) in keys.into_iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                write_canonical(&map[key.as_str()], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}
