//! Reads the few members of an outgoing request that the stateless revision's headers mirror
//! ([`super::headers`]): the method, `params.name`, `params.uri`, `params.taskId`,
//! `params.arguments` (as text) and the protocol version in `params._meta`. Everything else is skipped without being decoded.
//!
//! Written by hand because the headers are read from every request a stateless connection
//! sends, and a serde pass must decode or skip every member through its visitor machinery: with
//! the `_meta` each request carries (the client's identity and capabilities, a few hundred
//! bytes) that pass was about a twentieth of a stateless call's client CPU over a kept-alive
//! connection (the `ours-http-2026-*` rows of `cargo xtask bench --peers`). Here a string is
//! skipped by looking for its closing quote, nothing more.
//!
//! A connection's requests all carry the same `_meta`: the one met first is remembered
//! ([`KnownMeta`]) with its protocol version, and a request whose `_meta` is that text byte for
//! byte is not read again (a JSON object's text ends where its braces balance, so a value that
//! starts with the whole text of an object is that object).
//!
//! The scanner reads what it is given as JSON produced by a serializer: it does not validate
//! numbers or literals, and takes the first of duplicated members. Whatever it cannot follow
//! (a string that does not end, a value that is not one) makes it give up (`None`), and the
//! request goes without the headers; the server reads the body itself and refuses what is
//! malformed. It never panics and always ends: each step moves forward or gives up.

use std::borrow::Cow;
use std::sync::OnceLock;

/// The members of a request the headers mirror.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Mirrored<'a> {
    pub(super) method: Option<Cow<'a, str>>,
    pub(super) name: Option<Cow<'a, str>>,
    pub(super) uri: Option<Cow<'a, str>>,
    /// `params.taskId` (the Tasks extension's `tasks/get`, `tasks/update`, `tasks/cancel`).
    pub(super) task_id: Option<Cow<'a, str>>,
    /// The arguments' JSON text.
    pub(super) arguments: Option<&'a str>,
    /// The `io.modelcontextprotocol/protocolVersion` of `params._meta`.
    pub(super) protocol_version: Option<Cow<'a, str>>,
}

const PROTOCOL_VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";

/// The first `_meta` a connection's requests carried that names a protocol version: its JSON
/// text and that version.
#[derive(Debug, Default)]
pub(crate) struct KnownMeta(OnceLock<(String, String)>);

/// The mirrored members of request `message`, or `None` when it is not a JSON object this
/// scanner can follow.
pub(super) fn mirrored<'a>(message: &'a str, known: &'a KnownMeta) -> Option<Mirrored<'a>> {
    let mut cursor = Cursor {
        text: message,
        at: 0,
    };
    let mut found = Mirrored::default();
    cursor.object(|cursor, key| {
        match key.as_ref() {
            "method" if found.method.is_none() => found.method = Some(cursor.string()?),
            "params" => cursor.object(|cursor, key| {
                match key.as_ref() {
                    "name" if found.name.is_none() => found.name = Some(cursor.string()?),
                    "uri" if found.uri.is_none() => found.uri = Some(cursor.string()?),
                    "taskId" if found.task_id.is_none() => {
                        found.task_id = Some(cursor.string()?);
                    }
                    "arguments" if found.arguments.is_none() => {
                        found.arguments = Some(cursor.value()?);
                    }
                    "_meta" => {
                        cursor.skip_space();
                        let start = cursor.at;
                        if let Some((text, version)) = known.0.get()
                            && cursor.text.get(start..)?.starts_with(text.as_str())
                        {
                            cursor.at += text.len();
                            found.protocol_version.get_or_insert(Cow::Borrowed(version));
                            return Some(());
                        }
                        let mut version = None;
                        cursor.object(|cursor, key| {
                            if key == PROTOCOL_VERSION_KEY && version.is_none() {
                                version = Some(cursor.string()?);
                            } else {
                                cursor.value()?;
                            }
                            Some(())
                        })?;
                        if let Some(version) = &version {
                            let text = cursor.text.get(start..cursor.at)?;
                            let _ = known.0.set((text.to_owned(), version.to_string()));
                        }
                        if found.protocol_version.is_none() {
                            found.protocol_version = version;
                        }
                    }
                    _ => {
                        cursor.value()?;
                    }
                }
                Some(())
            })?,
            _ => {
                cursor.value()?;
            }
        }
        Some(())
    })?;
    cursor.skip_space();
    (cursor.at == message.len()).then_some(found)
}

/// A position in the message.
struct Cursor<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Cursor<'a> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    fn skip_space(&mut self) {
        while self.peek().is_some_and(|byte| byte.is_ascii_whitespace()) {
            self.at += 1;
        }
    }

    /// Consumes `byte` after any white space.
    fn expect(&mut self, byte: u8) -> Option<()> {
        self.skip_space();
        (self.peek()? == byte).then(|| self.at += 1)
    }

    /// Reads an object, calling `member` with the cursor on each member's value; `member` must
    /// consume the value.
    fn object(
        &mut self,
        mut member: impl FnMut(&mut Self, Cow<'a, str>) -> Option<()>,
    ) -> Option<()> {
        self.expect(b'{')?;
        self.skip_space();
        if self.peek()? == b'}' {
            self.at += 1;
            return Some(());
        }
        loop {
            let key = self.string()?;
            self.expect(b':')?;
            member(self, key)?;
            self.skip_space();
            match self.peek()? {
                b',' => self.at += 1,
                b'}' => {
                    self.at += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// Reads a string; its escapes, if any, are decoded by serde_json.
    fn string(&mut self) -> Option<Cow<'a, str>> {
        let (start, escaped) = self.skip_string()?;
        let quoted = self.text.get(start..self.at)?;
        if escaped {
            serde_json::from_str::<String>(quoted).ok().map(Cow::Owned)
        } else {
            quoted.get(1..quoted.len() - 1).map(Cow::Borrowed)
        }
    }

    /// Moves past the string at the cursor: where it started and whether it has escapes.
    fn skip_string(&mut self) -> Option<(usize, bool)> {
        self.skip_space();
        if self.peek()? != b'"' {
            return None;
        }
        let start = self.at;
        let bytes = self.text.as_bytes();
        let mut escaped = false;
        let mut at = start + 1;
        loop {
            // Strings here are short (keys, names, versions): a plain loop beats a vectorized
            // search's set-up.
            at += bytes
                .get(at..)?
                .iter()
                .position(|&byte| byte == b'"' || byte == b'\\')?;
            if bytes[at] == b'"' {
                self.at = at + 1;
                return Some((start, escaped));
            }
            // A backslash and the character it escapes.
            escaped = true;
            at += 2;
        }
    }

    /// Moves past the value at the cursor and gives its text.
    fn value(&mut self) -> Option<&'a str> {
        self.skip_space();
        let start = self.at;
        match self.peek()? {
            b'"' => {
                self.skip_string()?;
            }
            b'{' | b'[' => {
                let mut depth = 0_usize;
                loop {
                    match self.peek()? {
                        b'"' => {
                            self.skip_string()?;
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth -= 1;
                            if depth == 0 {
                                self.at += 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                    self.at += 1;
                }
            }
            // A number or a literal: up to what ends it.
            _ => {
                while self.peek().is_some_and(|byte| {
                    !matches!(byte, b',' | b'}' | b']') && !byte.is_ascii_whitespace()
                }) {
                    self.at += 1;
                }
                if self.at == start {
                    return None;
                }
            }
        }
        self.text.get(start..self.at)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn the_mirrored_members_are_found_wherever_they_are_and_the_rest_skipped() {
        let message = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"arguments":{"a":[1,{"b":"}]\"{"}],"c":null},"_meta":{"x":{"y":["z"]},"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"deploy","extra":-1.5e3}}"#;
        let known = KnownMeta::default();
        let found = mirrored(message, &known).expect("followed");
        assert_eq!(found.method.as_deref(), Some("tools/call"));
        assert_eq!(found.name.as_deref(), Some("deploy"));
        assert_eq!(found.uri, None);
        assert_eq!(found.arguments, Some(r#"{"a":[1,{"b":"}]\"{"}],"c":null}"#));
        assert_eq!(found.protocol_version.as_deref(), Some("2026-07-28"));
    }

    #[test]
    fn escapes_are_decoded_and_white_space_allowed() {
        let message = " { \"method\" : \"resources\\/read\" , \"params\" : { \"uri\" : \"file:///a\\u00e9\" } } ";
        let known = KnownMeta::default();
        let found = mirrored(message, &known).expect("followed");
        assert_eq!(found.method.as_deref(), Some("resources/read"));
        assert_eq!(found.uri.as_deref(), Some("file:///a\u{e9}"));
        assert_eq!(found.protocol_version, None);
    }

    /// What serde reads from a message that parses: the scanner's oracle. As for the scanner, a
    /// mirrored member of another type than its own (a method that is not a string, params that
    /// are not an object, …) means nothing is mirrored.
    fn read_by_serde(message: &str) -> Option<Mirrored<'static>> {
        use serde_json::Value;
        fn text(value: Option<&Value>) -> Result<Option<Cow<'static, str>>, ()> {
            match value {
                None => Ok(None),
                Some(Value::String(text)) => Ok(Some(Cow::Owned(text.clone()))),
                Some(_) => Err(()),
            }
        }
        fn object(value: Option<&Value>) -> Result<Option<&serde_json::Map<String, Value>>, ()> {
            match value {
                None => Ok(None),
                Some(Value::Object(members)) => Ok(Some(members)),
                Some(_) => Err(()),
            }
        }
        let value: Value = serde_json::from_str(message).expect("parses");
        let root = value.as_object()?;
        let params = object(root.get("params")).ok()?;
        let member = |name: &str| params.and_then(|params| params.get(name));
        let meta = object(member("_meta")).ok()?;
        Some(Mirrored {
            method: text(root.get("method")).ok()?,
            name: text(member("name")).ok()?,
            uri: text(member("uri")).ok()?,
            task_id: text(member("taskId")).ok()?,
            arguments: None,
            protocol_version: text(meta.and_then(|meta| meta.get(PROTOCOL_VERSION_KEY))).ok()?,
        })
    }

    fn json_value() -> impl Strategy<Value = serde_json::Value> {
        use serde_json::Value;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(Value::from),
            ".{0,12}".prop_map(Value::String),
            r#"[{}\[\]",:\\ ]{0,8}"#.prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 32, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
                prop::collection::vec((key(), inner), 0..5)
                    .prop_map(|members| Value::Object(members.into_iter().collect())),
            ]
        })
    }

    /// A `_meta` with or without a protocol version, among other members.
    fn request_meta() -> impl Strategy<Value = serde_json::Value> {
        let version = prop_oneof![
            Just(None),
            "[0-9-]{1,10}".prop_map(|version| Some(serde_json::Value::String(version))),
            Just(Some(serde_json::Value::from(7))),
        ];
        (prop::collection::vec((key(), json_value()), 0..3), version).prop_map(
            |(members, version)| {
                let mut meta: serde_json::Map<String, serde_json::Value> =
                    members.into_iter().collect();
                if let Some(version) = version {
                    meta.insert(PROTOCOL_VERSION_KEY.to_owned(), version);
                }
                serde_json::Value::Object(meta)
            },
        )
    }

    /// Keys, the mirrored ones among them, so that they turn up at every depth.
    fn key() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("method".to_owned()),
            Just("params".to_owned()),
            Just("name".to_owned()),
            Just("uri".to_owned()),
            Just("taskId".to_owned()),
            Just("arguments".to_owned()),
            Just("_meta".to_owned()),
            Just(PROTOCOL_VERSION_KEY.to_owned()),
            ".{0,6}",
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2048))]

        #[test]
        fn the_scanner_reads_what_serde_reads(value in json_value(), pretty in any::<bool>()) {
            let message = if pretty {
                serde_json::to_string_pretty(&value)
            } else {
                serde_json::to_string(&value)
            }
            .expect("serializes");
            let known = KnownMeta::default();
            let mut scanned = mirrored(&message, &known);
            if let Some(arguments) = scanned.as_mut().and_then(|found| found.arguments.take()) {
                let read: serde_json::Value = serde_json::from_str(arguments).expect("parses");
                // Against serde's reading of the same text, not the generated value: a float
                // does not always survive serde_json's text and back (no `float_roundtrip`).
                let whole: serde_json::Value = serde_json::from_str(&message).expect("parses");
                prop_assert_eq!(Some(&read), whole["params"].get("arguments"));
            }
            prop_assert_eq!(scanned, read_by_serde(&message));
        }

        #[test]
        fn a_remembered_meta_reads_as_it_would_be_read_afresh(
            metas in prop::collection::vec(request_meta(), 1..4),
            picks in prop::collection::vec(any::<prop::sample::Index>(), 1..6),
            rest in json_value(),
        ) {
            let known = KnownMeta::default();
            for pick in picks {
                let meta = pick.get(&metas);
                let value = serde_json::json!({
                    "jsonrpc": "2.0", "id": 1, "method": "tools/call",
                    "params": {"name": "t", "arguments": rest, "_meta": meta},
                });
                let message = serde_json::to_string(&value).expect("serializes");
                let mut scanned = mirrored(&message, &known);
                if let Some(found) = scanned.as_mut() {
                    found.arguments = None;
                }
                prop_assert_eq!(scanned, read_by_serde(&message));
            }
        }

        #[test]
        fn any_text_gives_an_answer(text in ".{0,64}", cut in any::<prop::sample::Index>()) {
            let _ = mirrored(&text, &KnownMeta::default());
            let message = format!(r#"{{"method":"m","params":{{"_meta":{text}}}}}"#);
            let end = cut.index(message.len() + 1);
            if let Some(prefix) = message.get(..end) {
                let _ = mirrored(prefix, &KnownMeta::default());
            }
        }
    }

    #[test]
    fn what_the_scanner_cannot_follow_gives_nothing_and_never_panics() {
        let cut = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"a"#;
        for end in 0..cut.len() {
            assert_eq!(
                mirrored(&cut[..end], &KnownMeta::default()),
                None,
                "{}",
                &cut[..end]
            );
        }
        for broken in [
            r#"{"method":"a"} trailing"#,
            r#"{"method":"a\"}"#,
            r#"{"method" "a"}"#,
            r#"{"params":{"name":}}"#,
            r#"{"params":[}"#,
            r#"["method"]"#,
            r#"{"method":"\"#,
            "",
        ] {
            assert_eq!(mirrored(broken, &KnownMeta::default()), None, "{broken}");
        }
    }
}
