//! Input generators the targets share: raw bytes, byte-level mutations of near-valid inputs,
//! and JSON that looks like what MCP peers and config files hold.
//!
//! Random bytes alone rarely get past a parser's first check (`{`, a field name, a line end), so
//! every target also draws inputs from a grammar of its format and then damages some of them
//! with a few [`Mutation`]s: a flipped bit, a token spliced in (`"`, `\`, `}`, `\r`, `${`), a
//! piece cut out or doubled, a cut. Proptest shrinks the mutations and the structure, so a
//! failure ends as a small input.

use std::fmt;

use proptest::prelude::*;
use proptest::sample::{Index, select};
use serde_json::{Map, Number, Value};

/// Bytes, shown as an escaped byte string (non-ASCII as `\xNN`) with their length.
#[derive(Clone, PartialEq, Eq)]
pub struct Blob(pub Vec<u8>);

/// Past this many bytes a blob is shown as its start and its end.
const SHOWN_BYTES: usize = 16 * 1024;

impl fmt::Debug for Blob {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let bytes = &self.0;
        if bytes.len() <= SHOWN_BYTES {
            write!(f, "b\"{}\" ({} bytes)", bytes.escape_ascii(), bytes.len())
        } else {
            let head = &bytes[..SHOWN_BYTES / 2];
            let tail = &bytes[bytes.len() - SHOWN_BYTES / 2..];
            write!(
                f,
                "b\"{}\" … {} bytes not shown … b\"{}\" ({} bytes)",
                head.escape_ascii(),
                bytes.len() - SHOWN_BYTES,
                tail.escape_ascii(),
                bytes.len()
            )
        }
    }
}

/// Tokens that break parsers when they land in the wrong place.
const TOKENS: &[&[u8]] = &[
    b"\"",
    b"\\",
    b"{",
    b"}",
    b"[",
    b"]",
    b",",
    b":",
    b"\n",
    b"\r",
    b"\r\n",
    b"\0",
    b"null",
    b"-",
    b"1e999",
    b"\\u0000",
    b"\\ud800",
    "\u{FEFF}".as_bytes(),
    "\u{2028}".as_bytes(),
    b"${",
    b"${A:-",
    b":-",
    b"$",
    b"//",
    b"/*",
    b"*/",
    b"#",
    b"=",
    b"'",
    b"\"\"\"",
    b"data:",
    b"id:",
    b"\xff",
    b"\xc3",
];

/// One damage done to a near-valid input.
#[derive(Debug, Clone)]
pub enum Mutation {
    /// Flips one bit of one byte.
    FlipBit {
        /// Where.
        at: Index,
        /// Which bit (0–7).
        bit: u8,
    },
    /// Puts a parser-breaking token at a position.
    Splice {
        /// Where.
        at: Index,
        /// What.
        token: &'static [u8],
    },
    /// Puts arbitrary bytes at a position.
    Insert {
        /// Where.
        at: Index,
        /// What.
        bytes: Vec<u8>,
    },
    /// Cuts a piece out.
    Delete {
        /// From where.
        at: Index,
        /// How many bytes.
        len: u8,
    },
    /// Repeats a piece right after itself.
    Duplicate {
        /// From where.
        at: Index,
        /// How many bytes.
        len: u8,
    },
    /// Drops everything from a position on.
    Truncate {
        /// From where.
        at: Index,
    },
}

impl Mutation {
    /// Does the damage to `bytes`.
    pub fn apply(&self, bytes: &mut Vec<u8>) {
        // A position between bytes: 0 to len, both ends included.
        let position = |at: &Index, len: usize| at.index(len + 1);
        match self {
            Self::FlipBit { at, bit } => {
                if !bytes.is_empty() {
                    let index = at.index(bytes.len());
                    bytes[index] ^= 1 << (bit % 8);
                }
            }
            Self::Splice { at, token } => {
                let index = position(at, bytes.len());
                bytes.splice(index..index, token.iter().copied());
            }
            Self::Insert { at, bytes: new } => {
                let index = position(at, bytes.len());
                bytes.splice(index..index, new.iter().copied());
            }
            Self::Delete { at, len } => {
                let start = position(at, bytes.len());
                let end = (start + usize::from(*len)).min(bytes.len());
                bytes.drain(start..end);
            }
            Self::Duplicate { at, len } => {
                let start = position(at, bytes.len());
                let end = (start + usize::from(*len)).min(bytes.len());
                let piece = bytes[start..end].to_vec();
                bytes.splice(end..end, piece);
            }
            Self::Truncate { at } => {
                let index = position(at, bytes.len());
                bytes.truncate(index);
            }
        }
    }
}

/// A mutation, the cheap and telling ones more often.
pub fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        3 => (any::<Index>(), select(TOKENS))
            .prop_map(|(at, token)| Mutation::Splice { at, token }),
        2 => (any::<Index>(), 0u8..8).prop_map(|(at, bit)| Mutation::FlipBit { at, bit }),
        2 => (any::<Index>(), any::<u8>()).prop_map(|(at, len)| Mutation::Delete { at, len }),
        1 => (any::<Index>(), prop::collection::vec(any::<u8>(), 1..8))
            .prop_map(|(at, bytes)| Mutation::Insert { at, bytes }),
        1 => (any::<Index>(), any::<u8>()).prop_map(|(at, len)| Mutation::Duplicate { at, len }),
        1 => any::<Index>().prop_map(|at| Mutation::Truncate { at }),
    ]
}

/// `base` as bytes, left whole about a third of the time and otherwise damaged by one to four
/// mutations.
pub fn mutated(base: impl Strategy<Value = Vec<u8>>) -> impl Strategy<Value = Blob> {
    (
        base,
        prop_oneof![
            1 => Just(Vec::new()),
            2 => prop::collection::vec(mutation(), 1..5),
        ],
    )
        .prop_map(|(mut bytes, mutations)| {
            for mutation in &mutations {
                mutation.apply(&mut bytes);
            }
            Blob(bytes)
        })
}

/// Arbitrary bytes, up to `max` of them, with newlines and JSON punctuation more often than
/// chance would give them.
pub fn raw_bytes(max: usize) -> impl Strategy<Value = Blob> {
    let byte = prop_oneof![
        4 => any::<u8>(),
        1 => select(&b"\n\r{}[]\":,\\ "[..]),
    ];
    prop::collection::vec(byte, 0..max).prop_map(Blob)
}

/// Characters strings are made of: plain ones, JSON escapes, control characters, non-ASCII
/// (two, three and four bytes), a byte-order mark, line separators, and `${…}` pieces.
const STRING_PIECES: &[&str] = &[
    "a",
    "b",
    "x",
    "Z",
    "0",
    "7",
    "_",
    "-",
    " ",
    ".",
    "/",
    ":",
    "\"",
    "\\",
    "\n",
    "\r",
    "\t",
    "\0",
    "\u{1}",
    "\u{7f}",
    "é",
    "ß",
    "工",
    "🚀",
    "\u{FEFF}",
    "\u{2028}",
    "\u{10FFFF}",
    "${",
    "}",
    "$",
    "${HOME}",
    "${UNSET}",
    "${A:-b}",
    ":-",
    "{",
    "=",
    "#",
    "'",
];

/// A string of up to `max` pieces: plain characters, escapes, control characters, non-ASCII,
/// `${…}` pieces.
pub fn text(max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(select(STRING_PIECES), 0..max).prop_map(|pieces| pieces.concat())
}

/// Keys MCP messages and config entries use, for objects that look like the real ones.
const KEYS: &[&str] = &[
    "jsonrpc",
    "id",
    "method",
    "params",
    "result",
    "error",
    "code",
    "message",
    "data",
    "content",
    "type",
    "text",
    "tools",
    "name",
    "title",
    "description",
    "inputSchema",
    "outputSchema",
    "annotations",
    "nextCursor",
    "cursor",
    "structuredContent",
    "isError",
    "_meta",
    "mimeType",
    "uri",
    "resource",
    "blob",
    "protocolVersion",
    "capabilities",
    "serverInfo",
    "instructions",
    "progressToken",
    "progress",
    "total",
    "level",
    "logger",
    "command",
    "args",
    "env",
    "url",
    "headers",
    "enabled",
    "disabled",
    "timeout",
];

/// A key: a known one mostly, any string sometimes.
pub fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => select(KEYS).prop_map(str::to_owned),
        1 => text(6),
    ]
}

/// A JSON number: small and huge integers, negative ones, fractions, exponents.
pub fn number() -> impl Strategy<Value = Value> {
    prop_oneof![
        (-3i64..300).prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(|float| Number::from_f64(float).map_or(Value::Null, Value::Number)),
    ]
}

/// A scalar JSON value.
pub fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        1 => Just(Value::Null),
        1 => any::<bool>().prop_map(Value::Bool),
        2 => number(),
        4 => text(12).prop_map(Value::String),
    ]
}

/// Any JSON value, nested a few levels.
pub fn json() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((key(), inner), 0..6)
                .prop_map(|entries| Value::Object(entries.into_iter().collect())),
        ]
    })
}

/// An object with some of `fields` (each present three times in four), a few other members,
/// in a shuffled order.
pub fn shaped(fields: Vec<(&'static str, BoxedStrategy<Value>)>) -> BoxedStrategy<Value> {
    let present: Vec<BoxedStrategy<Option<(String, Value)>>> = fields
        .into_iter()
        .map(|(name, value)| {
            prop::option::weighted(0.75, value)
                .prop_map(move |value| value.map(|value| (name.to_owned(), value)))
                .boxed()
        })
        .collect();
    (
        present,
        prop::collection::vec((key(), json()), 0..2),
        any::<u64>(),
    )
        .prop_map(|(present, extra, order)| {
            let mut members: Vec<(String, Value)> = present.into_iter().flatten().collect();
            members.extend(extra);
            // A cheap deterministic shuffle: rotate by a drawn amount, reverse on a drawn bit.
            if !members.is_empty() {
                let shift = usize::try_from(order % 64).unwrap_or(0) % members.len();
                members.rotate_left(shift);
                if order & 64 != 0 {
                    members.reverse();
                }
            }
            Value::Object(members.into_iter().collect::<Map<String, Value>>())
        })
        .boxed()
}

/// A string value mostly, any JSON value sometimes (a field of the wrong type).
pub fn mostly_text(max: usize) -> BoxedStrategy<Value> {
    prop_oneof![
        5 => text(max).prop_map(Value::String),
        1 => json(),
    ]
    .boxed()
}

/// A content block of a tool result: each known type with some of its fields, unknown types,
/// and blocks without a type.
pub fn content_block() -> BoxedStrategy<Value> {
    let kind = prop_oneof![
        select(&["text", "image", "audio", "resource_link", "resource"][..])
            .prop_map(|kind| Value::String(kind.to_owned())),
        text(4).prop_map(Value::String),
        json(),
    ]
    .boxed();
    let resource = shaped(vec![
        ("uri", mostly_text(8)),
        ("mimeType", mostly_text(4)),
        ("text", mostly_text(12)),
        ("blob", mostly_text(12)),
    ]);
    shaped(vec![
        ("type", kind),
        ("text", mostly_text(16)),
        ("data", mostly_text(12)),
        ("mimeType", mostly_text(4)),
        ("uri", mostly_text(8)),
        ("name", mostly_text(6)),
        ("description", mostly_text(8)),
        ("resource", resource),
        ("annotations", json().boxed()),
    ])
}

/// A `tools/call` result.
pub fn call_tool_result() -> BoxedStrategy<Value> {
    shaped(vec![
        (
            "content",
            prop::collection::vec(content_block(), 0..5)
                .prop_map(Value::Array)
                .boxed(),
        ),
        ("structuredContent", json().boxed()),
        (
            "isError",
            prop_oneof![any::<bool>().prop_map(Value::Bool), json()].boxed(),
        ),
        ("_meta", json().boxed()),
    ])
}

/// A tool as `tools/list` lists it.
pub fn tool() -> BoxedStrategy<Value> {
    let schema = prop_oneof![
        3 => shaped(vec![
            ("type", Just(Value::String("object".to_owned())).boxed()),
            ("properties", json().boxed()),
            ("required", json().boxed()),
        ]),
        1 => json(),
    ]
    .boxed();
    shaped(vec![
        ("name", mostly_text(8)),
        ("title", mostly_text(8)),
        ("description", mostly_text(16)),
        ("inputSchema", schema),
        ("outputSchema", json().boxed()),
        ("annotations", json().boxed()),
    ])
}

/// A skill as `skills/list` lists it (the Skills extension): its `SKILL.md` URI, a frontmatter,
/// and its files (each with a URI, a digest and a size) or `"dynamic"`, any field sometimes of
/// the wrong type.
pub fn skill_entry() -> BoxedStrategy<Value> {
    let file = shaped(vec![
        ("uri", mostly_text(8)),
        ("digest", mostly_text(12)),
        (
            "size",
            prop_oneof![3 => any::<u32>().prop_map(Value::from), 1 => json()].boxed(),
        ),
    ]);
    let files = prop_oneof![
        4 => prop::collection::vec(file, 0..4).prop_map(Value::Array),
        1 => Just(Value::String("dynamic".to_owned())),
        1 => json(),
    ]
    .boxed();
    let frontmatter = prop_oneof![
        3 => shaped(vec![("name", mostly_text(6)), ("description", mostly_text(12))]),
        1 => json(),
    ]
    .boxed();
    shaped(vec![
        ("uri", mostly_text(8)),
        ("frontmatter", frontmatter),
        ("resources", files),
        ("_meta", json().boxed()),
    ])
}

/// A `tools/list` page.
pub fn list_tools_result() -> BoxedStrategy<Value> {
    shaped(vec![
        (
            "tools",
            prop::collection::vec(tool(), 0..5)
                .prop_map(Value::Array)
                .boxed(),
        ),
        ("nextCursor", mostly_text(4)),
    ])
}

/// An `initialize` result, with a supported protocol version most of the time.
pub fn initialize_result() -> BoxedStrategy<Value> {
    let version = prop_oneof![
        3 => select(&["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"][..])
            .prop_map(|version| Value::String(version.to_owned())),
        1 => mostly_text(6),
    ]
    .boxed();
    let info = shaped(vec![("name", mostly_text(6)), ("version", mostly_text(4))]);
    shaped(vec![
        ("protocolVersion", version),
        ("capabilities", json().boxed()),
        ("serverInfo", info),
        ("instructions", mostly_text(12)),
    ])
}
