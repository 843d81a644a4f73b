//! How a message shows a value from a config file: cut short, with every character that could
//! hide what it holds or drive a terminal ([`hidden_char`]) written out as `\u{…}`.

/// The longest piece of a config value a message quotes.
const QUOTED_CHARS: usize = 120;

/// `text` cut to [`QUOTED_CHARS`] characters with a marker (a message never quotes a value
/// whole: it may be huge), every [`hidden_char`] written as `\u{…}`: a quoted name or key shows
/// what it holds and never drives a terminal.
pub(crate) fn quoted(text: &str) -> std::borrow::Cow<'_, str> {
    let end = text.char_indices().nth(QUOTED_CHARS).map(|(end, _)| end);
    let shown = &text[..end.unwrap_or(text.len())];
    let mut quoted = if shown.chars().any(|c| hidden_char(c).is_some()) {
        let mut escaped = String::with_capacity(shown.len() + 16);
        for c in shown.chars() {
            if hidden_char(c).is_some() {
                escaped.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
            } else {
                escaped.push(c);
            }
        }
        std::borrow::Cow::Owned(escaped)
    } else {
        std::borrow::Cow::Borrowed(shown)
    };
    if end.is_some() {
        quoted = format!("{quoted}… ({} bytes in all)", text.len()).into();
    }
    quoted
}

/// What kind of character `c` is, when it is one a server name must not hold: a control
/// character (C0, DEL, C1), a bidirectional override, embedding, isolate or mark, or a
/// character that shows as nothing (zero-width spaces and joiners, the word joiner and
/// invisible operators, the byte-order mark, soft hyphen, variation selectors, tags, fillers).
/// Such a name can print exactly like another (`git\u{200b}hub` as `github`) or rewrite the
/// line it is printed on.
pub fn hidden_char(c: char) -> Option<&'static str> {
    match u32::from(c) {
        0x00..=0x1F | 0x7F..=0x9F => Some("a control character"),
        0x061C | 0x200E | 0x200F | 0x202A..=0x202E | 0x2066..=0x2069 => {
            Some("a bidirectional control")
        }
        0x00AD
        | 0x034F
        | 0x115F
        | 0x1160
        | 0x17B4
        | 0x17B5
        | 0x180B..=0x180F
        | 0x200B..=0x200D
        | 0x2060..=0x2065
        | 0x206A..=0x206F
        | 0x3164
        | 0xFE00..=0xFE0F
        | 0xFEFF
        | 0xFFA0
        | 0xFFF9..=0xFFFB
        | 0xE0000..=0xE0FFF => Some("an invisible character"),
        _ => None,
    }
}
