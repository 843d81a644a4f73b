//! How a `serverCommand` rule, a list of words, is compared with a command an entry makes run
//! as shell text: a `!command` value (run as `sh -c TEXT`) or a `headersHelper`.
//!
//! A text is **plain** when it holds none of the characters through which `sh` runs, chooses or
//! rewrites something the words do not show: `;` `|` `&` `<` `>` `(` `)` `$` `` ` `` newlines,
//! the glob and expansion characters `*` `?` `[` `]` `{` `}` `~`, and `#`. A plain text is split
//! into words as `sh` splits it (quotes and backslashes, with `shell-words`), and those words
//! are what runs: `op read 'op://vault/token'` is `["op", "read", "op://vault/token"]`.
//!
//! - An **allow** rule vouches for a plain text whose words are exactly its own. A text that is
//!   not plain is vouched for by no word list, so an allowlist never allows it.
//! - A **deny** rule matches a plain text whose words are its own, and a text that is not plain
//!   when one of its pieces (cut at `;` `|` `&` `<` `>` `(` `)` `$` `` ` `` and newlines, with
//!   leading `NAME=value` assignments left out) has its words: `true && curl x > /dev/null`
//!   is denied by `["curl", "x"]`. A deny list is a blocklist of spellings and cannot be
//!   complete; an allowlist is the control that holds.

/// The characters that make a text not plain (see the module doc).
const SHELL_SYNTAX: &[char] = &[
    ';', '|', '&', '<', '>', '(', ')', '$', '`', '\n', '\r', '*', '?', '[', ']', '{', '}', '~', '#',
];

/// Where a text that is not plain is cut into the pieces deny rules are compared with.
const PIECE_ENDS: &[char] = &[';', '|', '&', '<', '>', '(', ')', '$', '`', '\n', '\r'];

/// A command text as `serverCommand` rules see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum CommandText {
    /// A plain text: the words that run.
    Plain(Vec<String>),
    /// Shell syntax: the words of each piece, as far as they can be told.
    Shell(Vec<Vec<String>>),
}

impl CommandText {
    /// How `text` is compared (see the module doc).
    pub(super) fn of(text: &str) -> Self {
        if !text.contains(SHELL_SYNTAX)
            && let Ok(words) = shell_words::split(text)
        {
            return Self::Plain(words);
        }
        let pieces = text
            .split(PIECE_ENDS)
            .map(|piece| {
                let words = shell_words::split(piece)
                    .unwrap_or_else(|_| piece.split_whitespace().map(str::to_owned).collect());
                let assignments = words.iter().take_while(|word| is_assignment(word)).count();
                words[assignments..].to_vec()
            })
            .filter(|words| !words.is_empty())
            .collect();
        Self::Shell(pieces)
    }

    /// Whether it is plain.
    pub(super) fn is_plain(&self) -> bool {
        matches!(self, Self::Plain(_))
    }

    /// Whether an allow rule of these words vouches for it.
    pub(super) fn allowed_by(&self, rule: &[String]) -> bool {
        matches!(self, Self::Plain(words) if words == rule)
    }

    /// Whether a deny rule of these words matches it.
    pub(super) fn denied_by(&self, rule: &[String]) -> bool {
        match self {
            Self::Plain(words) => words == rule,
            Self::Shell(pieces) => pieces.iter().any(|words| words == rule),
        }
    }
}

/// `NAME=value`, a variable assignment before a command.
fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

#[cfg(test)]
mod tests {
    use super::CommandText;

    fn words(list: &[&str]) -> Vec<String> {
        list.iter().map(|word| (*word).to_owned()).collect()
    }

    #[test]
    fn a_plain_text_is_its_words_as_sh_splits_them() {
        let rule = words(&["op", "read", "op://vault/a token"]);
        for text in [
            "op read 'op://vault/a token'",
            "op read \"op://vault/a token\"",
            "op  read op://vault/a\\ token",
        ] {
            let command = CommandText::of(text);
            assert!(command.is_plain(), "{text}");
            assert!(command.allowed_by(&rule), "{text}");
            assert!(command.denied_by(&rule), "{text}");
        }
        assert!(!CommandText::of("op read op://vault/a").allowed_by(&rule));
    }

    #[test]
    fn shell_syntax_is_allowed_by_no_word_list() {
        for text in [
            "op read x; curl evil",
            "op read $(curl evil)",
            "op read `curl evil`",
            "op read x | sh",
            "op read x > /tmp/y",
            "op read x\ncurl evil",
            "op read $HOME",
            "op read *",
            "op read ~/x",
            "op read x # note",
            "op read 'x;y'",
        ] {
            let command = CommandText::of(text);
            assert!(!command.is_plain(), "{text}");
            assert!(!command.allowed_by(&words(&["op", "read", "x"])), "{text}");
        }
    }

    #[test]
    fn a_deny_rule_finds_its_command_among_the_pieces() {
        let rule = words(&["curl", "evil"]);
        for text in [
            "true && curl evil > /dev/null",
            "x=$(curl evil)",
            "echo `curl evil`",
            "true; TOKEN=1 curl evil",
            "true\ncurl 'evil'",
        ] {
            assert!(CommandText::of(text).denied_by(&rule), "{text}");
        }
        assert!(!CommandText::of("true; curl good").denied_by(&rule));
    }
}
