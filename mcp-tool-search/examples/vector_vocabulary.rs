//! Chooses the words `data/word_vectors.bin` gives a vector to, offline: every stem that occurs
//! in at least [`MIN_DOCUMENTS`] of Debian's package descriptions (the words of software), and
//! every single-word WordNet lemma whose senses were tagged at least [`MIN_TAGGED`] times in
//! WordNet's semantic concordance (`cntlist.rev`: the Brown corpus's ordinary English words, the
//! ones an agent paraphrases with), each with the written forms it takes.
//! `data/vectors/regenerate.sh` runs this, then `data/vectors/word_vectors.py` embeds the
//! forms and the sentences with the sentence-embedding model and fits the vectors.
//!
//! ```text
//! cargo run --release -p mcp-tool-search --example vector_vocabulary -- \
//!     --descriptions FILE --wordnet DIR --out FILE --sentences FILE
//! ```
//!
//! The vocabulary is chosen by frequency in a large technical text, never by looking at the
//! benchmark's queries or tools: an ordinary English word an agent writes and a technical one a
//! tool uses both occur in package descriptions. Words are split and stemmed by
//! [`mcp_tool_search::text`], as the index splits and stems them, so a stem here is the key
//! the index looks up. The output is one line per stem, `stem<TAB>documents<TAB>form:count
//! form:count…` (its [`FORMS`] commonest written forms; a stem the descriptions lack takes its
//! most tagged lemma), stems by descending document count, then by descending tag count.
//!
//! It also writes the sentences the word vectors are fitted on (`--sentences`): each distinct
//! short description of a Debian package ("command-line tool to take screenshots"), and for
//! each WordNet synset one of whose senses was tagged in the concordance, its lemmas with its
//! definition ("delete, erase: remove from memory or existing storage") and each of its usage
//! examples. A line is `text<TAB>stem stem…`, the stems split and made as the index makes
//! them, so the generator fits the vectors of the very keys the index looks up.

// An offline tool run by hand: a failure stops it with the reason.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::print_stdout)]

#[path = "support/debian.rs"]
mod debian;
#[path = "support/flags.rs"]
mod flags;

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::path::PathBuf;

use mcp_tool_search::text::{stem, words};

/// Descriptions a stem must occur in to get a vector: rarer words are mostly project names.
const MIN_DOCUMENTS: u32 = 5;
/// Times a WordNet lemma's senses must have been tagged in the concordance.
const MIN_TAGGED: u32 = 2;
/// Written forms kept per stem.
const FORMS: usize = 3;

fn main() {
    let args = parse_args();
    let file = std::fs::read_to_string(&args.descriptions).expect("read the descriptions");
    let texts = debian_descriptions(&file);
    let cntlist = args.wordnet.join("cntlist.rev");
    let mut documents: HashMap<String, u32> = HashMap::new();
    let mut forms: HashMap<String, HashMap<String, u32>> = HashMap::new();
    let mut stem_of: HashMap<String, String> = HashMap::new();
    for text in &texts {
        let mut seen = HashSet::new();
        for word in words(text) {
            if !is_word(&word) {
                continue;
            }
            let stem = stem_of
                .entry(word.clone())
                .or_insert_with(|| stem(&word).into_owned())
                .clone();
            *forms
                .entry(stem.clone())
                .or_default()
                .entry(word)
                .or_default() += 1;
            if seen.insert(stem.clone()) {
                *documents.entry(stem).or_default() += 1;
            }
        }
    }
    let tagged = tagged_lemmas(&std::fs::read_to_string(&cntlist).expect("read cntlist.rev"));
    let mut stem_tags: HashMap<String, u32> = HashMap::new();
    // Most tagged first, so a stem no description writes takes its commonest lemma as its
    // form, the same one at every run.
    let mut tagged: Vec<(String, u32)> = tagged.into_iter().collect();
    tagged.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    for (lemma, tags) in &tagged {
        if *tags < MIN_TAGGED || !is_word(lemma) {
            continue;
        }
        let stem = stem(lemma).into_owned();
        *stem_tags.entry(stem.clone()).or_default() += tags;
        let written = forms.entry(stem.clone()).or_default();
        if written.is_empty() {
            written.insert(lemma.clone(), 1);
        }
        documents.entry(stem).or_default();
    }
    let mut kept: Vec<(&String, u32, u32)> = documents
        .iter()
        .map(|(stem, count)| (stem, *count, stem_tags.get(stem).copied().unwrap_or(0)))
        .filter(|(_, count, tags)| *count >= MIN_DOCUMENTS || *tags >= MIN_TAGGED)
        .collect();
    kept.sort_by(|a, b| {
        b.1.cmp(&a.1)
            .then_with(|| b.2.cmp(&a.2))
            .then_with(|| a.0.cmp(b.0))
    });
    let mut body = String::new();
    for (stem, count, _) in &kept {
        let mut written: Vec<(&String, &u32)> = forms[*stem].iter().collect();
        written.sort_by(|a, b| b.1.cmp(a.1).then_with(|| a.0.cmp(b.0)));
        let written: Vec<String> = written
            .into_iter()
            .take(FORMS)
            .map(|(form, count)| format!("{form}:{count}"))
            .collect();
        writeln!(body, "{stem}\t{count}\t{}", written.join(" ")).unwrap();
    }
    std::fs::write(&args.out, body).expect("write the vocabulary");
    println!(
        "{} descriptions; {} stems in at least {MIN_DOCUMENTS} of them or tagged at least \
         {MIN_TAGGED} times: {}",
        texts.len(),
        kept.len(),
        args.out.display()
    );
    let mut sentences: Vec<String> = Vec::new();
    let mut seen = HashSet::new();
    for line in file.lines() {
        if let Some(short) = line.strip_prefix("Description-en:") {
            let short = short.trim();
            if seen.insert(short.to_lowercase()) {
                sentences.push(short.to_owned());
            }
        }
    }
    let descriptions = sentences.len();
    let tagged_keys = tagged_senses(&std::fs::read_to_string(&cntlist).expect("read cntlist.rev"));
    for (part, code) in [("noun", '1'), ("verb", '2'), ("adj", '3'), ("adv", '4')] {
        let data = std::fs::read_to_string(args.wordnet.join(format!("data.{part}")))
            .expect("read a WordNet data file");
        for line in data.lines() {
            sentences.extend(synset_sentences(line, code, &tagged_keys));
        }
    }
    let mut body = String::new();
    let mut written = 0;
    for sentence in &sentences {
        let stems: Vec<String> = words(sentence)
            .iter()
            .filter(|word| is_word(word))
            .map(|word| stem(word).into_owned())
            .collect();
        if !stems.is_empty() {
            let text = sentence.replace(['\t', '\n'], " ");
            writeln!(body, "{text}\t{}", stems.join(" ")).unwrap();
            written += 1;
        }
    }
    std::fs::write(&args.sentences, body).expect("write the sentences");
    println!(
        "{written} sentences with a word, of {} ({descriptions} package descriptions, {} from \
         WordNet): {}",
        sentences.len(),
        sentences.len() - descriptions,
        args.sentences.display()
    );
}

/// The senses of `cntlist.rev` tagged at least once, as `(lemma, synset type, lexicographer
/// file, lexical id)`: a sense key is `lemma%type:file:id:head:head_id` (adjective satellites,
/// type 5, are counted as adjectives, 3, as data.adj lists both).
fn tagged_senses(file: &str) -> HashSet<(String, char, u32, u32)> {
    let mut tagged = HashSet::new();
    for line in file.lines() {
        let mut fields = line.split(' ');
        let (Some(key), Some(_), Some(count)) = (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        if count.parse::<u32>().unwrap_or(0) == 0 {
            continue;
        }
        let Some((lemma, rest)) = key.split_once('%') else {
            continue;
        };
        let mut parts = rest.split(':');
        let (Some(kind), Some(lexfile), Some(id)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let kind = if kind == "5" {
            '3'
        } else {
            kind.chars().next().unwrap_or('0')
        };
        let (Ok(lexfile), Ok(id)) = (lexfile.parse(), id.parse()) else {
            continue;
        };
        tagged.insert((lemma.to_lowercase(), kind, lexfile, id));
    }
    tagged
}

/// The sentences of one line of a WordNet data file whose synset has a tagged sense: its
/// lemmas and definition, then each usage example. None for a header line or an untagged
/// synset (rare senses: a word's common meanings are what an agent means).
fn synset_sentences(
    line: &str,
    kind: char,
    tagged: &HashSet<(String, char, u32, u32)>,
) -> Vec<String> {
    let Some((head, gloss)) = line.split_once(" | ") else {
        return Vec::new();
    };
    let fields: Vec<&str> = head.split(' ').collect();
    let (Some(lexfile), Some(count)) = (fields.get(1), fields.get(3)) else {
        return Vec::new();
    };
    let (Ok(lexfile), Ok(count)) = (lexfile.parse::<u32>(), usize::from_str_radix(count, 16))
    else {
        return Vec::new();
    };
    let mut lemmas = Vec::new();
    let mut is_tagged = false;
    for index in 0..count {
        let (Some(lemma), Some(id)) = (fields.get(4 + 2 * index), fields.get(5 + 2 * index)) else {
            return Vec::new();
        };
        // An adjective's lemma may carry its syntactic marker: `galore(ip)`.
        let lemma = lemma.split('(').next().unwrap_or(lemma).to_lowercase();
        let id = u32::from_str_radix(id, 16).unwrap_or(u32::MAX);
        is_tagged |= tagged.contains(&(lemma.clone(), kind, lexfile, id));
        lemmas.push(lemma.replace('_', " "));
    }
    if !is_tagged {
        return Vec::new();
    }
    let mut parts = gloss.trim().split("; ");
    let definition = parts.next().unwrap_or_default();
    let mut sentences = vec![format!("{}: {definition}", lemmas.join(", "))];
    for example in parts {
        let example = example.trim().trim_matches('"').trim();
        if !example.is_empty() && !example.contains('"') {
            sentences.push(example.to_owned());
        }
    }
    sentences
}

/// Each single-word lemma of WordNet's `cntlist.rev` (`sense_key sense_number tag_count`
/// lines, the key starting `lemma%`) with the tags of all its senses added up.
fn tagged_lemmas(file: &str) -> HashMap<String, u32> {
    let mut tagged: HashMap<String, u32> = HashMap::new();
    for line in file.lines() {
        let mut fields = line.split(' ');
        let (Some(key), Some(_), Some(count)) = (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        let (Some((lemma, _)), Ok(count)) = (key.split_once('%'), count.parse::<u32>()) else {
            continue;
        };
        if lemma.contains('_') {
            continue;
        }
        *tagged.entry(lemma.to_lowercase()).or_default() += count;
    }
    tagged
}

struct Args {
    descriptions: PathBuf,
    wordnet: PathBuf,
    out: PathBuf,
    sentences: PathBuf,
}

fn parse_args() -> Args {
    let mut descriptions = None;
    let mut wordnet = None;
    let mut out = None;
    let mut sentences = None;
    for (flag, value) in flags::flags() {
        match flag.as_str() {
            "--descriptions" => descriptions = Some(PathBuf::from(value)),
            "--wordnet" => wordnet = Some(PathBuf::from(value)),
            "--out" => out = Some(PathBuf::from(value)),
            "--sentences" => sentences = Some(PathBuf::from(value)),
            _ => panic!("unknown flag {flag}: see the //! documentation of this file"),
        }
    }
    Args {
        descriptions: descriptions.expect("--descriptions FILE (Debian's Translation-en)"),
        wordnet: wordnet.expect("--wordnet DIR (WordNet 3.0's dict folder)"),
        out: out.expect("--out FILE"),
        sentences: sentences.expect("--sentences FILE"),
    }
}

/// A word that may mean something alone: two to twenty characters, starting with a letter
/// (`mp3`, `ipv6` and `x11` are words; `2d` and `0x1f` are not).
fn is_word(word: &str) -> bool {
    let length = word.chars().count();
    (2..=20).contains(&length)
        && word.chars().next().is_some_and(char::is_alphabetic)
        && word.chars().all(|c| c.is_ascii_alphanumeric())
}

/// The long descriptions of a Debian `Translation-en` file: each `Description-en:` field with
/// its continuation lines, the lone `.` paragraph marks left out, each distinct text once (a
/// family of packages — a library's `-dev` and `-doc` — repeats its description, and counting
/// it once per package would make its words look common).
fn debian_descriptions(file: &str) -> Vec<String> {
    let mut seen = HashSet::new();
    let mut texts = Vec::new();
    debian::each_description(file, |text| {
        if seen.insert(text.clone()) {
            texts.push(text);
        }
    });
    texts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptions_are_read_once_each_without_paragraph_marks() {
        let file = "Package: a\nDescription-en: Screenshot tool\n Capture the screen.\n .\n \
                    Save it.\n\nPackage: a-doc\nDescription-en: Screenshot tool\n Capture the \
                    screen.\n .\n Save it.\n\nPackage: b\nDescription-en: Other\n";
        assert_eq!(
            debian_descriptions(file),
            ["Screenshot tool Capture the screen. Save it.", "Other"]
        );
    }

    #[test]
    fn a_lemmas_tags_add_up_over_its_senses_and_phrases_are_left_out() {
        let file = "tally%1:21:00:: 1 3\ntally%2:32:00:: 1 2\nfresh_air%1:15:00:: 1 9\nbad\n";
        let tagged = tagged_lemmas(file);
        assert_eq!(tagged.get("tally"), Some(&5));
        assert_eq!(tagged.len(), 1);
    }

    #[test]
    fn a_tagged_synset_gives_its_definition_and_examples() {
        let tagged = tagged_senses("delete%2:30:00:: 1 4\nerase%2:30:01:: 2 0\n");
        assert!(tagged.contains(&("delete".to_owned(), '2', 30, 0)));
        assert_eq!(tagged.len(), 1);
        let line = "00200863 30 v 02 edit 2 delete 0 003 @ 00682946 v 0000 01 + 08 00 | \
                    cut or eliminate; \"she edited the juiciest scenes\"  ";
        assert_eq!(
            synset_sentences(line, '2', &tagged),
            [
                "edit, delete: cut or eliminate",
                "she edited the juiciest scenes"
            ]
        );
        assert!(synset_sentences(line, '1', &tagged).is_empty());
        assert!(synset_sentences("  1 This software", '2', &tagged).is_empty());
    }

    #[test]
    fn words_start_with_a_letter_and_are_short() {
        for word in ["mp3", "ipv6", "screenshot", "x11"] {
            assert!(is_word(word), "{word}");
        }
        for word in ["2d", "a", "0x1f", "größe", "abcdefghijklmnopqrstu"] {
            assert!(!is_word(word), "{word}");
        }
    }
}
