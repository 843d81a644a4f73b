//! `/…/` queries: a regular expression over the tools' names (their own, and the names a model
//! knows them by: [`ToolDocument::exposed_name`]), titles and descriptions, as
//! Anthropic's regex tool search takes one (`/^github_.*issue/`, `/(create|update)_page/`).
//!
//! Bounded whatever the pattern: the `regex` crate runs in time linear in the text (no
//! backtracking, so no catastrophic pattern), a pattern is at most [`MAX_PATTERN_CHARS`]
//! characters (Anthropic's limit), and its compiled program and lazy DFA are capped in size,
//! so a pattern built to blow up at compile time is refused instead. Matching is
//! case-insensitive. A tool whose name matches ranks above one whose title or description
//! alone does.

use regex::{Regex, RegexBuilder};

use crate::document::ToolDocument;
use crate::error::SearchError;

/// The longest pattern taken.
pub const MAX_PATTERN_CHARS: usize = 200;
/// The most memory a compiled pattern may take.
const COMPILED_LIMIT: usize = 1 << 20;

/// The pattern of a `/…/` query, when `query` is one.
pub(crate) fn of_query(query: &str) -> Option<&str> {
    let query = query.trim();
    let inner = query.strip_prefix('/')?.strip_suffix('/')?;
    (!inner.is_empty()).then_some(inner)
}

/// `pattern` compiled within the bounds of the [module documentation](self).
pub(crate) fn compile(pattern: &str) -> Result<Regex, SearchError> {
    let refuse = |reason: String| SearchError::Pattern {
        pattern: pattern.chars().take(MAX_PATTERN_CHARS).collect(),
        reason,
    };
    if pattern.chars().count() > MAX_PATTERN_CHARS {
        return Err(refuse(format!(
            "it is longer than {MAX_PATTERN_CHARS} characters"
        )));
    }
    RegexBuilder::new(pattern)
        .case_insensitive(true)
        .size_limit(COMPILED_LIMIT)
        .dfa_size_limit(COMPILED_LIMIT)
        .build()
        .map_err(|error| refuse(one_line_reason(&error)))
}

/// What is wrong with a pattern, in one line: the regex crate's syntax errors draw the pattern
/// with a caret under the fault over several lines, then say what it is on the last.
fn one_line_reason(error: &regex::Error) -> String {
    match error {
        regex::Error::Syntax(text) => text
            .lines()
            .last()
            .map(|last| last.strip_prefix("error: ").unwrap_or(last).to_owned())
            .unwrap_or_default(),
        other => other.to_string(),
    }
}

/// How well `document` matches: 2 for its name (or the name a model knows it by), 1 for its
/// title or description alone.
pub(crate) fn score(regex: &Regex, document: &ToolDocument) -> Option<f32> {
    let exposed = document.exposed_name.as_deref();
    if regex.is_match(&document.tool) || exposed.is_some_and(|name| regex.is_match(name)) {
        return Some(2.0);
    }
    let in_title = document
        .title
        .as_deref()
        .is_some_and(|title| regex.is_match(title));
    (in_title || regex.is_match(&document.description)).then_some(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_query_between_slashes_is_a_pattern_and_anything_else_is_words() {
        assert_eq!(of_query("/^github_.*issue/"), Some("^github_.*issue"));
        assert_eq!(of_query(" /a|b/ "), Some("a|b"));
        assert_eq!(of_query("//"), None);
        assert_eq!(of_query("/a"), None);
        assert_eq!(of_query("list issues"), None);
    }

    #[test]
    fn patterns_that_are_too_long_or_too_large_are_refused() {
        assert!(compile(&"a".repeat(MAX_PATTERN_CHARS + 1)).is_err());
        // Small to write, far too large once compiled.
        let error = compile(r"\w{1000}\w{1000}").unwrap_err();
        assert!(error.to_string().contains("cannot be used"), "{error}");
        let unclosed = compile("(unclosed").unwrap_err().to_string();
        assert_eq!(
            unclosed,
            "the pattern /(unclosed/ cannot be used: unclosed group"
        );
        assert!(compile("(a|b)+c").is_ok());
    }
}
