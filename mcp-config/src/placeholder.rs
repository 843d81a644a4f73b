//! The `${…}` placeholder syntax, shared by `${VAR}` expansion and by the providers that read a
//! tool's own spellings (`${env:X}`, `${input:id}`): finding each placeholder of a value and
//! rewriting it ([`rewrite_braced`]), what a variable name is, which variables a value refers
//! to, and how deep defaults may nest ([`MAX_NESTING`]). It knows nothing of servers or
//! environments: [`expand_value`](crate::expand_value) gives the placeholders their values.

/// How deep defaults may nest (`${A:-${B:-${C}}}` is three).
pub const MAX_NESTING: usize = 8;

/// What to do with one `${…}` placeholder.
pub(crate) enum Placeholder<E> {
    /// Leave it as written.
    Keep,
    /// Replace the whole `${…}` with this text.
    Replace(String),
    /// The value cannot be used, for this reason.
    Reject(E),
}

/// A placeholder that made a value unusable, and why. Shown as `uses <placeholder>: <reason>`.
#[derive(Debug)]
pub(crate) struct Rejected<E> {
    /// The placeholder as written, e.g. `${input:token}`.
    pub(crate) placeholder: String,
    /// Why.
    pub(crate) reason: E,
}

impl<E: std::fmt::Display> std::fmt::Display for Rejected<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "uses {}: {}", self.placeholder, self.reason)
    }
}

/// Rewrites every `${…}` of `text` through `map`, which sees what is between the braces. An
/// unclosed `${` is kept as text.
pub(crate) fn rewrite_braced<E>(
    text: &str,
    map: &mut dyn FnMut(&str) -> Placeholder<E>,
) -> Result<String, Rejected<E>> {
    if !text.contains("${") {
        return Ok(text.to_owned());
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = closing_brace(after) else {
            out.push_str(&rest[start..]);
            return Ok(out);
        };
        let inner = &after[..end];
        match map(inner) {
            Placeholder::Keep => out.push_str(&rest[start..start + 2 + end + 1]),
            Placeholder::Replace(text) => out.push_str(&text),
            Placeholder::Reject(reason) => {
                return Err(Rejected {
                    placeholder: format!("${{{inner}}}"),
                    reason,
                });
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Where the `}` that closes a `${` is in `after` (the text following it), nested `${…}`
/// counted.
fn closing_brace(after: &str) -> Option<usize> {
    let bytes = after.as_bytes();
    let mut depth = 1usize;
    let mut index = 0;
    while index < bytes.len() {
        match bytes[index] {
            b'$' if bytes.get(index + 1) == Some(&b'{') => {
                depth += 1;
                index += 2;
                continue;
            }
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(index);
                }
            }
            _ => {}
        }
        index += 1;
    }
    None
}

/// The variables `text` refers to (`${VAR}`, and those of a `${VAR:-default}`'s default, which
/// may be used), each once, in the order written.
pub(crate) fn referenced_variables(text: &str) -> Vec<String> {
    let mut names = Vec::new();
    collect_variables(text, &mut names, 0);
    names
}

fn collect_variables(text: &str, names: &mut Vec<String>, depth: usize) {
    if depth > MAX_NESTING {
        return;
    }
    let _ = rewrite_braced::<()>(text, &mut |inner| {
        let (name, default) = match inner.split_once(":-") {
            Some((name, default)) => (name, Some(default)),
            None => (inner, None),
        };
        if is_variable_name(name) {
            if !names.iter().any(|seen| seen == name) {
                names.push(name.to_owned());
            }
            if let Some(default) = default {
                collect_variables(default, names, depth + 1);
            }
        }
        Placeholder::Keep
    });
}

/// True for a name `${VAR}` expansion accepts: a letter or `_`, then letters, digits or `_`.
pub(crate) fn is_variable_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}
