//! [`Fingerprint`]: a stable hash of what a cached tool list belongs to.
//!
//! Values are written as canonical JSON (object keys sorted at every level, no whitespace) and
//! hashed with SHA-256, so reordering keys in a config file does not invalidate the cache while
//! any change of value does. [`Fingerprint::of`] hashes one value; [`Fingerprint::parts`]
//! hashes several labelled parts into one key (each part framed by its length, so no two
//! lists of parts hash alike by running into each other).
//!
//! Only the hash is ever stored or compared: what went into it — a definition with its
//! variables' values, a file name, a login's identity or a token standing for it — is never
//! kept, so a part may hold a secret. The manager's key (`mcp_manager::cache_fingerprint`)
//! is made of the definition as written and as resolved, the file that defines the server and,
//! for a server that logs in, the identity of its login.

use std::fmt::{self, Write as _};

use serde::Serialize;
use serde_json::Value;
use sha2::{Digest as _, Sha256};

/// A stable hash of what a cached tool list belongs to (a configuration, or labelled parts),
/// as lowercase hex.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Fingerprint(String);

impl Fingerprint {
    /// The fingerprint of any serializable configuration. A value that cannot be serialized
    /// gets a fingerprint of its own that matches nothing stored.
    pub fn of<T: Serialize + ?Sized>(config: &T) -> Self {
        match serde_json::to_value(config) {
            Ok(value) => Self::of_json(&value),
            Err(_) => Self("unserializable".to_owned()),
        }
    }

    /// The fingerprint of a JSON value.
    fn of_json(value: &Value) -> Self {
        let mut canonical = String::new();
        write_canonical(value, &mut canonical);
        Self(sha256_hex(canonical.as_bytes()))
    }

    /// Labelled parts to hash into one fingerprint ([`FingerprintParts`]).
    pub fn parts() -> FingerprintParts {
        FingerprintParts {
            hasher: Sha256::new(),
            unserializable: false,
        }
    }

    /// A fingerprint from its hex form (as stored). Feature `internals`: for the fuzz targets
    /// and the tests, not a stable API (a store compares [`as_str`](Self::as_str)).
    #[cfg(any(test, feature = "internals"))]
    pub fn from_hex(hex: impl Into<String>) -> Self {
        Self(hex.into())
    }

    /// The hex form.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A [`Fingerprint`] of labelled parts, hashed as they are added ([`Fingerprint::parts`]).
///
/// ```
/// use mcp_cache::Fingerprint;
///
/// let key = Fingerprint::parts()
///     .value("definition", &serde_json::json!({"command": "npx", "args": ["-y", "srv"]}))
///     .text("file", "/repo/.mcp.json")
///     .finish();
/// let elsewhere = Fingerprint::parts()
///     .value("definition", &serde_json::json!({"args": ["-y", "srv"], "command": "npx"}))
///     .text("file", "/clone/.mcp.json")
///     .finish();
/// assert_ne!(key, elsewhere);
/// ```
#[derive(Clone)]
#[must_use]
pub struct FingerprintParts {
    hasher: Sha256,
    /// A part could not be serialized: the key matches nothing stored.
    unserializable: bool,
}

impl fmt::Debug for FingerprintParts {
    // The parts may hold secrets; nothing of them is shown.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("FingerprintParts(…)")
    }
}

impl FingerprintParts {
    fn frame(&mut self, bytes: &[u8]) {
        self.hasher.update((bytes.len() as u64).to_le_bytes());
        self.hasher.update(bytes);
    }

    /// Adds the text `text` under `label`.
    pub fn text(self, label: &str, text: &str) -> Self {
        self.bytes(label, text.as_bytes())
    }

    /// Adds `bytes` (a file name that may not be UTF-8, say) under `label`.
    pub fn bytes(mut self, label: &str, bytes: &[u8]) -> Self {
        self.frame(label.as_bytes());
        self.frame(bytes);
        self
    }

    /// Adds `value`, as canonical JSON, under `label`.
    pub fn value<T: Serialize + ?Sized>(self, label: &str, value: &T) -> Self {
        match serde_json::to_value(value) {
            Ok(value) => {
                let mut canonical = String::new();
                write_canonical(&value, &mut canonical);
                self.text(label, &canonical)
            }
            Err(_) => Self {
                unserializable: true,
                ..self
            },
        }
    }

    /// The fingerprint of the parts added.
    pub fn finish(self) -> Fingerprint {
        if self.unserializable {
            return Fingerprint("unserializable".to_owned());
        }
        Fingerprint(hex(&self.hasher.finalize()))
    }
}

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Canonical JSON: keys sorted, no whitespace, strings and numbers as serde_json writes them.
fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            write_separated('{', '}', keys, out, |key, out| {
                write_string(key, out);
                out.push(':');
                write_canonical(&map[key.as_str()], out);
            });
        }
        Value::Array(items) => write_separated('[', ']', items, out, write_canonical),
        Value::String(text) => write_string(text, out),
        scalar => {
            let _ = write!(out, "{scalar}");
        }
    }
}

/// `open`, the items written by `write` with commas between them, `close`.
fn write_separated<T>(
    open: char,
    close: char,
    items: impl IntoIterator<Item = T>,
    out: &mut String,
    mut write: impl FnMut(T, &mut String),
) {
    out.push(open);
    for (index, item) in items.into_iter().enumerate() {
        if index > 0 {
            out.push(',');
        }
        write(item, out);
    }
    out.push(close);
}

fn write_string(text: &str, out: &mut String) {
    out.push_str(&Value::String(text.to_owned()).to_string());
}

/// SHA-256 of `bytes` as 64 lowercase hex digits: the fingerprint, and the file names of the
/// sled store's entry files.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// `digest` as lowercase hex.
fn hex(digest: &[u8]) -> String {
    let mut hex = String::with_capacity(2 * digest.len());
    for byte in digest {
        let _ = write!(hex, "{byte:02x}");
    }
    hex
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn key_order_does_not_change_the_fingerprint() {
        let a: Value = serde_json::from_str(
            r#"{"command":"npx","args":["-y","x"],"env":{"B":"2","A":"1"},"nested":{"z":[{"q":1,"p":2}],"a":null}}"#,
        )
        .unwrap();
        let b: Value = serde_json::from_str(
            r#"{"nested":{"a":null,"z":[{"p":2,"q":1}]},"env":{"A":"1","B":"2"},"args":["-y","x"],"command":"npx"}"#,
        )
        .unwrap();
        assert_eq!(Fingerprint::of_json(&a), Fingerprint::of_json(&b));
    }

    #[test]
    fn any_change_of_value_changes_it() {
        let base = json!({"command": "npx", "args": ["-y", "x"]});
        let fp = Fingerprint::of_json(&base);
        for changed in [
            json!({"command": "npx", "args": ["x", "-y"]}),
            json!({"command": "npx", "args": ["-y", "x"], "env": {}}),
            json!({"command": "uvx", "args": ["-y", "x"]}),
            json!({"command": "npx", "args": ["-y", "x "]}),
        ] {
            assert_ne!(Fingerprint::of_json(&changed), fp, "{changed}");
        }
    }

    #[test]
    fn parts_are_told_apart_by_label_value_and_framing() {
        let base = Fingerprint::parts().text("a", "bc").text("d", "e").finish();
        assert_eq!(
            base,
            Fingerprint::parts().text("a", "bc").text("d", "e").finish()
        );
        for other in [
            Fingerprint::parts().text("a", "b").text("cd", "e").finish(),
            Fingerprint::parts().text("ab", "c").text("d", "e").finish(),
            Fingerprint::parts().text("a", "bc").finish(),
            Fingerprint::parts().text("d", "e").text("a", "bc").finish(),
            Fingerprint::parts().text("a", "bcde").finish(),
        ] {
            assert_ne!(other, base);
        }
        // A value part is its canonical JSON: key order does not count.
        assert_eq!(
            Fingerprint::parts()
                .value("v", &json!({"b": 1, "a": 2}))
                .finish(),
            Fingerprint::parts().text("v", r#"{"a":2,"b":1}"#).finish()
        );
        assert_eq!(base.as_str().len(), 64);
    }

    #[test]
    fn the_fingerprint_is_stable_across_builds() {
        // Pinned (computed independently): a change here would invalidate every cache on
        // every machine, so it must be deliberate.
        assert_eq!(
            Fingerprint::of_json(&json!({"command": "npx"})).as_str(),
            // sha256 of `{"command":"npx"}`
            "084a7d16667072b79aaf40cda4063e5e5471278ca8f765d6b897a6ef9883c11b"
        );
    }
}
