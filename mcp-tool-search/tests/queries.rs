//! The tool search corpus and queries keep their promises: every file carries its provenance,
//! every query's expected tools exist, a query marked `paraphrase` shares no word with the
//! tools it wants (and one marked `plain` does), and the set has the size and split the
//! benchmarks report on.
//!
//! "The same word" is defined here, by hand, and not by the crate's own text processing: the
//! check must not get looser when the ranker learns stemming or synonyms. Two words are the
//! same when they are equal after lower-casing and taking off a plural (`-s`, `-ies`) and up to
//! two simple inflections (`-ed`, `-ied`, `-ing`, `-er`, `-est`), then a doubled final
//! consonant and a final `e`: `screenshots` is `screenshot`, `creating` is `create`, `entries`
//! is `entry`, `watchers` is `watching`. Names
//! and text are split on anything that is not an ASCII letter or digit and where camelCase
//! turns, each run kept whole as well (`GitHub` gives `github`, `git`, `hub`). The function
//! words of English (articles, pronouns, prepositions, conjunctions, auxiliary verbs: the
//! list below) are left out on both sides: they carry no meaning a search could match.
//! The conflation errs on the strict side (`browse` and `browser` are the same word), so a
//! paraphrase is never one by accident.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

#[path = "../benches/support/corpus.rs"]
mod corpus;

use std::collections::{BTreeMap, BTreeSet, HashSet};

use corpus::{Kind, Split, description, title, tool_name};
use serde_json::Value;

/// English function words: never counted as shared.
const FUNCTION_WORDS: &[&str] = &[
    "a", "about", "above", "after", "again", "against", "all", "an", "and", "any", "are", "as",
    "at", "be", "been", "before", "being", "below", "between", "both", "but", "by", "can", "could",
    "did", "do", "does", "doing", "done", "down", "during", "each", "few", "for", "from",
    "further", "had", "has", "have", "having", "he", "her", "here", "hers", "him", "his", "how",
    "i", "if", "in", "into", "is", "it", "its", "itself", "just", "may", "me", "might", "more",
    "most", "must", "my", "no", "nor", "not", "of", "off", "on", "once", "only", "or", "other",
    "our", "ours", "out", "over", "own", "s", "same", "shall", "she", "should", "so", "some",
    "such", "t", "than", "that", "the", "their", "theirs", "them", "then", "there", "these",
    "they", "this", "those", "through", "to", "too", "under", "until", "up", "very", "was", "we",
    "were", "what", "when", "where", "which", "while", "who", "whom", "whose", "why", "will",
    "with", "would", "you", "your", "yours",
];

/// Lower-cased words of `text`: each run of ASCII letters and digits whole, and its camelCase
/// parts (`HTTPResponse` → `httpresponse`, `http`, `response`; `ID3tags` → `id3tags`, `id`,
/// `3`, `tags`).
fn split_words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    for run in text
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|run| !run.is_empty())
    {
        let whole = run.to_ascii_lowercase();
        for part in camel_parts(run) {
            let part = part.to_ascii_lowercase();
            if part != whole {
                words.push(part);
            }
        }
        words.push(whole);
    }
    words
}

/// The parts of one run: an upper-case run not followed by a lower-case letter, an optional
/// capital with its lower-case letters, or digits.
fn camel_parts(run: &str) -> Vec<&str> {
    let bytes = run.as_bytes();
    let mut parts = Vec::new();
    let mut start = 0;
    while start < bytes.len() {
        let mut end = start;
        if bytes[start].is_ascii_digit() {
            while end < bytes.len() && bytes[end].is_ascii_digit() {
                end += 1;
            }
        } else if bytes[start].is_ascii_uppercase() {
            while end < bytes.len() && bytes[end].is_ascii_uppercase() {
                end += 1;
            }
            let capitals = end - start;
            if end < bytes.len() && bytes[end].is_ascii_lowercase() {
                if capitals > 1 {
                    // `HTTPResponse`: the last capital starts the next word.
                    end -= 1;
                } else {
                    while end < bytes.len() && bytes[end].is_ascii_lowercase() {
                        end += 1;
                    }
                }
            }
        } else {
            while end < bytes.len() && bytes[end].is_ascii_lowercase() {
                end += 1;
            }
        }
        parts.push(&run[start..end]);
        start = end;
    }
    parts
}

/// `word` without a plural and up to two simple inflections (see the module's doc).
fn base(word: &str) -> String {
    let mut word = word.to_owned();
    let strip = |word: &mut String, suffix: &str, replacement: &str| {
        word.truncate(word.len() - suffix.len());
        word.push_str(replacement);
    };
    if word.len() > 4 && word.ends_with("ies") {
        strip(&mut word, "ies", "y");
    } else if word.len() > 3
        && word.ends_with('s')
        && !word.ends_with("ss")
        && !word.ends_with("us")
    {
        strip(&mut word, "s", "");
    }
    for _ in 0..2 {
        let length = word.len();
        if length > 4 && word.ends_with("ied") {
            strip(&mut word, "ied", "y");
        } else if length > 4 && word.ends_with("ing") {
            strip(&mut word, "ing", "");
        } else if length > 5 && word.ends_with("est") {
            strip(&mut word, "est", "");
        } else if length > 3 && word.ends_with("ed") {
            strip(&mut word, "ed", "");
        } else if length > 4 && word.ends_with("er") {
            strip(&mut word, "er", "");
        } else {
            break;
        }
    }
    let bytes = word.as_bytes();
    if bytes.len() > 2 {
        let (last, before) = (bytes[bytes.len() - 1], bytes[bytes.len() - 2]);
        if last == before && !b"aeiouls".contains(&last) {
            word.pop();
        }
    }
    if word.len() > 2 && word.ends_with('e') {
        word.pop();
    }
    word
}

/// The words of `text` that count, each as its base.
fn words(text: &str) -> BTreeSet<String> {
    split_words(text)
        .into_iter()
        .filter(|word| !FUNCTION_WORDS.contains(&word.as_str()))
        .map(|word| base(&word))
        .collect()
}

/// The words of a tool's name, title (or `annotations.title`) and description.
fn tool_words(tool: &Value) -> BTreeSet<String> {
    let mut text = String::from(tool_name(tool));
    for part in [
        tool.get("title").and_then(Value::as_str),
        tool.pointer("/annotations/title").and_then(Value::as_str),
        Some(description(tool)),
    ]
    .into_iter()
    .flatten()
    {
        text.push(' ');
        text.push_str(part);
    }
    words(&text)
}

#[test]
fn inflections_and_plurals_are_the_same_word_and_other_words_are_not() {
    let same = [
        ("screenshots", "screenshot"),
        ("creating", "create"),
        ("created", "creates"),
        ("entries", "entry"),
        ("pages", "page"),
        ("running", "run"),
        ("stopped", "stop"),
        ("files", "file"),
        ("browser", "browse"),
        ("watchers", "watching"),
        ("used", "using"),
        ("ordered", "orders"),
        ("statuses", "status"),
    ];
    for (one, other) in same {
        assert_eq!(base(one), base(other), "{one} and {other}");
    }
    let different = [
        ("picture", "screenshot"),
        ("ticket", "issue"),
        ("repo", "repository"),
        ("folder", "directory"),
    ];
    for (one, other) in different {
        assert_ne!(base(one), base(other), "{one} and {other}");
    }
    assert_eq!(
        split_words("browser_take-screenshot getHTTPResponse GitHub ID3tags"),
        [
            "browser",
            "take",
            "screenshot",
            "get",
            "http",
            "response",
            "gethttpresponse",
            "git",
            "hub",
            "github",
            "id",
            "3",
            "tags",
            "id3tags"
        ]
    );
    assert!(words("the page of a tab").contains("pag"));
    assert!(!words("the page of a tab").contains("the"));
}

#[test]
fn every_corpus_file_carries_its_provenance_and_distinct_tool_names() {
    let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/corpus");
    let mut files = 0;
    for entry in std::fs::read_dir(&folder).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|extension| extension != "json") {
            continue;
        }
        files += 1;
        let file: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        for key in [
            "server",
            "package",
            "version",
            "registry",
            "licence",
            "captured_at",
        ] {
            assert!(
                file.get(key)
                    .and_then(Value::as_str)
                    .is_some_and(|value| !value.is_empty()),
                "{} has no {key}",
                path.display()
            );
        }
        assert!(
            file.get("instructions").is_some(),
            "{} does not say whether the server gave instructions",
            path.display()
        );
        assert!(
            matches!(file["registry"].as_str(), Some("npm" | "pypi")),
            "{}: registry {}",
            path.display(),
            file["registry"]
        );
        let server = file["server"].as_str().unwrap();
        assert_eq!(
            path.file_stem().and_then(|stem| stem.to_str()),
            Some(server),
            "a corpus file is named after its server"
        );
        let tools = file["tools"].as_array().unwrap();
        assert!(!tools.is_empty(), "{server} lists no tools");
        let mut names = HashSet::new();
        for tool in tools {
            let name = tool_name(tool);
            assert!(!name.is_empty(), "{server} has a tool without a name");
            assert!(names.insert(name), "{server} lists {name} twice");
            assert!(
                tool.get("inputSchema").is_some_and(Value::is_object),
                "{server}/{name} has no input schema"
            );
        }
    }
    assert!(files >= 15, "the corpus has {files} servers, fewer than 15");
}

#[test]
fn every_expected_tool_is_in_the_corpus() {
    let servers = corpus::corpus().unwrap();
    let queries = corpus::queries().unwrap();
    corpus::check_expected(&servers, &queries).unwrap();
}

#[test]
fn a_query_is_a_paraphrase_exactly_when_it_shares_no_word_with_the_tools_it_wants() {
    let servers = corpus::corpus().unwrap();
    let tools: BTreeMap<String, BTreeSet<String>> = servers
        .iter()
        .flat_map(|server| {
            server.tools.iter().map(|tool| {
                (
                    format!("{}/{}", server.name, tool_name(tool)),
                    tool_words(tool),
                )
            })
        })
        .collect();
    let mut wrong = Vec::new();
    for query in corpus::queries().unwrap() {
        let asked = words(&query.text);
        let shared: BTreeSet<&String> = query
            .expected
            .iter()
            .filter_map(|key| tools.get(key))
            .flat_map(|tool| asked.intersection(tool))
            .collect();
        match (query.kind, shared.is_empty()) {
            (Kind::Paraphrase, false) => wrong.push(format!(
                "{} {:?} is marked paraphrase but shares {shared:?}",
                query.id, query.text
            )),
            (Kind::Plain, true) => wrong.push(format!(
                "{} {:?} is marked plain but shares no word with the tools it wants",
                query.id, query.text
            )),
            _ => {}
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // The titles the check reads exist where the servers put them.
    assert!(
        servers
            .iter()
            .flat_map(|server| &server.tools)
            .any(|tool| title(tool).is_some())
    );
}

#[test]
fn the_query_set_is_large_enough_a_third_paraphrases_and_split_forty_sixty() {
    let queries = corpus::queries().unwrap();
    let total = queries.len();
    assert!(total >= 120, "{total} queries, fewer than 120");
    let paraphrases = queries
        .iter()
        .filter(|query| query.kind == Kind::Paraphrase)
        .count();
    assert!(
        paraphrases * 3 >= total,
        "{paraphrases} paraphrases of {total}, under a third"
    );
    let dev = queries
        .iter()
        .filter(|query| query.split == Split::Dev)
        .count();
    assert!(
        (35..=45).contains(&(dev * 100 / total)),
        "{dev} DEV queries of {total}: DEV should be about 40%"
    );
    for split in Split::ALL {
        let paraphrases = queries
            .iter()
            .filter(|query| query.split == split && query.kind == Kind::Paraphrase)
            .count();
        assert!(
            paraphrases >= 20,
            "{} has {paraphrases} paraphrases",
            split.name()
        );
    }
    let mut ids = HashSet::new();
    let mut texts = HashSet::new();
    for query in &queries {
        assert!(ids.insert(&query.id), "{} is used twice", query.id);
        assert!(
            texts.insert(query.text.to_lowercase()),
            "{:?} is asked twice",
            query.text
        );
    }
}
