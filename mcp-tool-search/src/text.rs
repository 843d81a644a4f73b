//! Words out of a tool's text: [`words`] splits names and prose alike — on anything that is not
//! a letter or a digit (`_`, `-`, `.`, `/`, spaces, punctuation) and where camelCase turns
//! (`getHTTPResponse` → `get`, `http`, `response`), lower-cased, with the commonest English
//! words left out (they are in every description and say nothing about a tool). A run split at
//! its case turns is also kept whole (`GitHub` → `github`, `git`, `hub`), so a query may name
//! it either way.
//!
//! [`stem`] reduces a word to its stem with Snowball's English stemmer (Porter2, through the
//! `rust-stemmers` crate): `issues`, `issue` → `issu`; `listing`, `lists` → `list`. The index
//! matches a query's word by its stem, so a query need not use the inflection a tool's text
//! does, and the word tables ([`crate::lexicon`]) are keyed by stems made by this same function.

use std::borrow::Cow;
use std::sync::LazyLock;

use rust_stemmers::{Algorithm, Stemmer};

/// The words of `text`, lower-cased, in order, without stop words.
pub fn words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    for_each_word(text, |word| words.push(word.to_owned()));
    words
}

/// The Snowball English stem of `word` (a lower-case word from [`words`]). Words with a digit
/// (`v2`, `utf8`, `id3`) are names and stay as they are.
pub fn stem(word: &str) -> Cow<'_, str> {
    if word.chars().any(|c| c.is_numeric()) {
        return Cow::Borrowed(word);
    }
    Stemmer::create(Algorithm::English).stem(word)
}

/// Each word of `text`, as [`words`] gives them, without allocating one string per word: the
/// index reads every word of every tool at each start, and looks most of them up only. Text
/// that is all ASCII (most tool text) is split byte by byte, without decoding characters.
pub(crate) fn for_each_word(text: &str, visit: impl FnMut(&str)) {
    if text.is_ascii() {
        ascii_words(text, visit);
    } else {
        unicode_words(text, visit);
    }
}

/// [`for_each_word`] for ASCII text: the same words, found on bytes.
fn ascii_words(text: &str, mut visit: impl FnMut(&str)) {
    let bytes = text.as_bytes();
    let mut lower = String::new();
    let mut cuts = Vec::new();
    let mut emit = |piece: &str| {
        lower.clear();
        lower.push_str(piece);
        lower.make_ascii_lowercase();
        if !is_stop_word(&lower) {
            visit(&lower);
        }
    };
    let mut at = 0;
    while at < bytes.len() {
        if !bytes[at].is_ascii_alphanumeric() {
            at += 1;
            continue;
        }
        let start = at;
        while at < bytes.len() && bytes[at].is_ascii_alphanumeric() {
            at += 1;
        }
        let run = &text[start..at];
        cuts.clear();
        ascii_case_turns(run.as_bytes(), &mut cuts);
        if !cuts.is_empty() {
            emit(run);
        }
        let mut from = 0;
        for cut in cuts.iter().copied().chain([run.len()]) {
            emit(&run[from..cut]);
            from = cut;
        }
    }
}

/// [`case_turns`] on ASCII bytes.
fn ascii_case_turns(run: &[u8], cuts: &mut Vec<usize>) {
    for index in 1..run.len() {
        let (before, here) = (run[index - 1], run[index]);
        let next_is_lower = run.get(index + 1).is_some_and(u8::is_ascii_lowercase);
        let turns = (before.is_ascii_lowercase() && here.is_ascii_uppercase())
            || (before.is_ascii_uppercase() && here.is_ascii_uppercase() && next_is_lower)
            || (before.is_ascii_digit() && here.is_ascii_alphabetic());
        if turns {
            cuts.push(index);
        }
    }
}

/// [`for_each_word`] for any text.
fn unicode_words(text: &str, mut visit: impl FnMut(&str)) {
    let mut lower = String::new();
    let mut cuts = Vec::new();
    let mut emit = |piece: &str| {
        lower.clear();
        if piece.is_ascii() {
            lower.push_str(piece);
            lower.make_ascii_lowercase();
        } else {
            lower.extend(piece.chars().flat_map(char::to_lowercase));
        }
        if !is_stop_word(&lower) {
            visit(&lower);
        }
    };
    for run in text.split(|c: char| !c.is_alphanumeric()) {
        if run.is_empty() {
            continue;
        }
        cuts.clear();
        case_turns(run, &mut cuts);
        if !cuts.is_empty() {
            emit(run);
        }
        let mut start = 0;
        for cut in cuts.iter().copied().chain([run.len()]) {
            emit(&run[start..cut]);
            start = cut;
        }
    }
}

/// Where one run of letters and digits turns case, as byte offsets: `lowerUpper`,
/// `UPPERLower` (`HTTPResponse` → `http`, `response`), and between letters and digits (`v2`
/// stays whole: a digit after a letter does not split, so version names keep their shape).
fn case_turns(run: &str, cuts: &mut Vec<usize>) {
    let mut chars = run.char_indices().peekable();
    let Some((_, mut before)) = chars.next() else {
        return;
    };
    while let Some((index, here)) = chars.next() {
        let next_is_lower = chars.peek().is_some_and(|(_, c)| c.is_lowercase());
        let turns = (before.is_lowercase() && here.is_uppercase())
            || (before.is_uppercase() && here.is_uppercase() && next_is_lower)
            || (before.is_numeric() && here.is_alphabetic());
        if turns {
            cuts.push(index);
        }
        before = here;
    }
}

/// Words too common in any English text to tell tools apart: articles, pronouns, auxiliary
/// verbs, prepositions, conjunctions and question words. An agent writes its queries in
/// sentences (`what is in the src folder`), and a function word that happens to be rare in
/// the tools' text would otherwise weigh as much as the words that say what it wants.
const STOP_WORDS: [&str; 137] = [
    "a",
    "about",
    "above",
    "after",
    "again",
    "against",
    "all",
    "am",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "because",
    "been",
    "before",
    "being",
    "below",
    "between",
    "both",
    "but",
    "by",
    "can",
    "could",
    "did",
    "do",
    "does",
    "doing",
    "down",
    "during",
    "each",
    "few",
    "for",
    "from",
    "further",
    "had",
    "has",
    "have",
    "having",
    "he",
    "her",
    "here",
    "hers",
    "herself",
    "him",
    "himself",
    "his",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "itself",
    "just",
    "let",
    "lets",
    "may",
    "me",
    "might",
    "more",
    "most",
    "must",
    "my",
    "myself",
    "no",
    "nor",
    "not",
    "of",
    "off",
    "on",
    "once",
    "only",
    "or",
    "other",
    "ought",
    "our",
    "ours",
    "ourselves",
    "out",
    "over",
    "own",
    "same",
    "shall",
    "she",
    "should",
    "so",
    "some",
    "such",
    "than",
    "that",
    "the",
    "their",
    "theirs",
    "them",
    "themselves",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "through",
    "to",
    "too",
    "under",
    "until",
    "up",
    "upon",
    "us",
    "very",
    "was",
    "we",
    "were",
    "what",
    "when",
    "where",
    "whether",
    "which",
    "while",
    "who",
    "whom",
    "whose",
    "why",
    "will",
    "with",
    "would",
    "yet",
    "you",
    "your",
    "yours",
    "yourself",
    "yourselves",
];

/// [`STOP_WORDS`] of at most eight bytes, each packed into a number ([`packed`]), sorted:
/// every word of every tool is checked, and comparing numbers is much cheaper than comparing
/// strings.
static PACKED_STOP_WORDS: LazyLock<Vec<u64>> = LazyLock::new(|| {
    let mut packed: Vec<u64> = STOP_WORDS.iter().filter_map(|word| packed(word)).collect();
    packed.sort_unstable();
    packed
});

/// The bytes of a word of at most eight bytes as one number (none for a longer word).
fn packed(word: &str) -> Option<u64> {
    let bytes = word.as_bytes();
    let mut buffer = [0u8; 8];
    buffer.get_mut(..bytes.len())?.copy_from_slice(bytes);
    Some(u64::from_le_bytes(buffer))
}

/// For each first letter, the lengths (as bits) of the stop words that start with it: most
/// words are rejected by this alone.
const LENGTHS_BY_FIRST_LETTER: [u16; 26] = {
    let mut masks = [0u16; 26];
    let mut index = 0;
    while index < STOP_WORDS.len() {
        let word = STOP_WORDS[index].as_bytes();
        masks[(word[0] - b'a') as usize] |= 1 << word.len();
        index += 1;
    }
    masks
};

fn is_stop_word(word: &str) -> bool {
    let bytes = word.as_bytes();
    let Some(first) = bytes.first().filter(|first| first.is_ascii_lowercase()) else {
        return false;
    };
    let lengths = LENGTHS_BY_FIRST_LETTER[usize::from(first - b'a')];
    if bytes.len() > 15 || lengths & (1 << bytes.len()) == 0 {
        return false;
    }
    match packed(word) {
        Some(key) => PACKED_STOP_WORDS.binary_search(&key).is_ok(),
        None => word.len() <= 10 && STOP_WORDS.binary_search(&word).is_ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_split_on_separators_and_case_turns() {
        assert_eq!(
            words("browser_navigate-back.page/getHTTPResponse"),
            [
                "browser",
                "navigate",
                "back",
                "page",
                "gethttpresponse",
                "get",
                "http",
                "response"
            ]
        );
        assert_eq!(words("listIssues"), ["listissues", "list", "issues"]);
        assert_eq!(
            words("ID3tags v2 utf8"),
            ["id3tags", "id3", "tags", "v2", "utf8"]
        );
    }

    #[test]
    fn prose_is_lower_cased_without_its_commonest_words() {
        assert_eq!(
            words("Search the repositories of a GitHub user, by name."),
            [
                "search",
                "repositories",
                "github",
                "git",
                "hub",
                "user",
                "name"
            ]
        );
        assert!(words("").is_empty());
        assert_eq!(words("Größe ändern"), ["größe", "ändern"]);
    }

    #[test]
    fn every_stop_word_and_only_those_is_left_out() {
        assert!(
            STOP_WORDS.windows(2).all(|pair| pair[0] < pair[1]),
            "sorted"
        );
        for word in STOP_WORDS {
            assert!(is_stop_word(word), "{word}");
        }
        for word in [
            "",
            "file",
            "whatever",
            "themselvesx",
            "ourselve",
            "github",
            "me2",
            "w",
        ] {
            assert!(!is_stop_word(word), "{word}");
        }
    }

    #[test]
    fn ascii_text_splits_as_any_text_does() {
        for text in [
            "browser_navigate-back.page/getHTTPResponse",
            "ID3tags v2 utf8 ABC aB Ab ABc a1b2C3 x",
            "Search the repositories of a GitHub user, by name. It's the_end!",
            "  __--..  ",
            "",
            "HTTPServer2Go listIssues XMLHttpRequest",
        ] {
            let (mut ascii, mut unicode) = (Vec::new(), Vec::new());
            ascii_words(text, |word| ascii.push(word.to_owned()));
            unicode_words(text, |word| unicode.push(word.to_owned()));
            assert_eq!(ascii, unicode, "{text}");
        }
    }

    #[test]
    fn inflections_share_a_stem_and_names_with_digits_keep_theirs() {
        for (word, expected) in [
            ("issues", "issu"),
            ("issue", "issu"),
            ("screenshots", "screenshot"),
            ("listing", "list"),
            ("lists", "list"),
            ("repositories", "repositori"),
            ("repository", "repositori"),
            ("created", "creat"),
            ("v2", "v2"),
            ("utf8", "utf8"),
        ] {
            assert_eq!(stem(word), expected, "{word}");
        }
    }
}
