//! Builds the two word tables tool search ships, offline: `data/synonyms.tsv` from WordNet 3.0
//! and `data/associations.tsv` from Debian's package descriptions. `data/regenerate.sh` fetches
//! the inputs (by package name, checked against their SHA-256) and runs this; nothing here or
//! in the crate downloads anything at run time.
//!
//! ```text
//! cargo run --release -p mcp-tool-search --example word_tables -- \
//!     --wordnet DIR --descriptions FILE --out DIR [--note TEXT]...
//! ```
//!
//! - **Synonyms**: for each single-word lemma of WordNet, the other single-word lemmas of its
//!   [`SENSES`] commonest senses in each part of speech (WordNet's index lists a lemma's senses
//!   commonest first), weighted by the rank of the sense they share ([`SENSE_WEIGHTS`]).
//! - **Associations**: words that occur near each other in package descriptions more often
//!   than chance, by normalised pointwise mutual information (Bouma, "Normalized (pointwise)
//!   mutual information in collocation extraction", 2009): two words co-occur in a description
//!   when they stand within [`WINDOW`] words of each other, counted once per description (so a
//!   description repeating itself does not count twice), and a sentence is read once in the
//!   whole corpus (families of packages — a library's `-dev` and `-doc` — repeat theirs). A
//!   pair must co-occur in [`MIN_PAIR`] descriptions, an associate occur in
//!   [`MIN_ASSOCIATE_DOCUMENTS`]; a word keeps its [`ASSOCIATES`] strongest associates at
//!   NPMI ≥ [`MIN_NPMI`]. Keys are ordinary English words (WordNet
//!   lemmas: the words an agent paraphrases with); associates may be any frequent word
//!   (`screenshot`, `json`, `git`: the words tools use).
//!
//! Both tables are keyed by stems made by [`mcp_tool_search::text::stem`] from words split by
//! [`mcp_tool_search::text::words`], as the index makes them; both keep only words that occur
//! in at least [`MIN_DOCUMENTS`] descriptions, so neither carries words no tool text uses.
//! Weights are hundredths. Each file starts with `#` lines naming its inputs and ends its
//! header with the count of its entries and an FNV-1a 64 checksum of its body, which the
//! crate's tests check.

// An offline tool run by hand: a failure stops it with the reason.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::print_stdout)]

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use mcp_tool_search::text::{stem, words};

/// Senses of a lemma (per part of speech) whose synonyms are kept.
const SENSES: usize = 3;
/// The weight of a synonym by the rank of the sense it shares (hundredths).
const SENSE_WEIGHTS: [u32; SENSES] = [100, 70, 50];
/// Synonyms kept per word.
const SYNONYMS: usize = 8;
/// Words this near are taken to be about the same thing.
const WINDOW: usize = 8;
/// Descriptions a word must occur in to be kept at all.
const MIN_DOCUMENTS: u32 = 8;
/// Descriptions a pair must co-occur in to be an association: fewer is chance, or one
/// project's name beside its own jargon.
const MIN_PAIR: u32 = 10;
/// Descriptions an associate must occur in: rarer words are mostly project names.
const MIN_ASSOCIATE_DOCUMENTS: u32 = 40;
/// The weakest association kept.
const MIN_NPMI: f64 = 0.2;
/// Associates kept per word.
const ASSOCIATES: usize = 6;
/// Contexts kept in a word's vector for [`neighbours`].
const CONTEXTS: usize = 100;
/// Neighbours kept per word.
const NEIGHBOURS: usize = 8;
/// The least similarity of a neighbour kept.
const MIN_COSINE: f64 = 0.05;

struct Args {
    wordnet: PathBuf,
    descriptions: PathBuf,
    out: PathBuf,
    notes: Vec<String>,
}

fn main() {
    let args = parse_args();
    let descriptions = std::fs::read_to_string(&args.descriptions).expect("read the descriptions");
    let corpus = Corpus::of(&debian_descriptions(&descriptions));
    let wordnet = WordNet::read(&args.wordnet);
    let synonyms = synonyms(&wordnet, &corpus);
    let english = wordnet.lemma_stems();
    let pair_counts = pair_counts(&corpus);
    let associations = associations(&corpus, &pair_counts, &english);
    let neighbours = neighbours(&corpus, &pair_counts, &english);
    let mut notes = args.notes.clone();
    notes.push(format!(
        "{} distinct package descriptions, {} words kept (in at least {MIN_DOCUMENTS} of them)",
        corpus.documents.len(),
        corpus.kept_words(),
    ));
    write_table(
        &args.out.join("synonyms.tsv"),
        "synonyms: WordNet 3.0 lemmas sharing one of a word's commonest senses",
        &notes,
        &synonyms,
    );
    write_table(
        &args.out.join("neighbours.tsv"),
        "neighbours: words used alike in Debian's package descriptions (cosine of PPMI vectors)",
        &notes,
        &neighbours,
    );
    write_table(
        &args.out.join("associations.tsv"),
        "associations: words near each other in Debian's package descriptions (NPMI)",
        &notes,
        &associations,
    );
}

fn parse_args() -> Args {
    let mut wordnet = None;
    let mut descriptions = None;
    let mut out = None;
    let mut notes = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args
            .next()
            .unwrap_or_else(|| panic!("{flag} needs a value"));
        match flag.as_str() {
            "--wordnet" => wordnet = Some(PathBuf::from(value)),
            "--descriptions" => descriptions = Some(PathBuf::from(value)),
            "--out" => out = Some(PathBuf::from(value)),
            "--note" => notes.push(value),
            _ => panic!("unknown flag {flag}: see the //! documentation of this file"),
        }
    }
    Args {
        wordnet: wordnet.expect("--wordnet DIR (WordNet 3.0's dict folder)"),
        descriptions: descriptions.expect("--descriptions FILE (a Translation-en file)"),
        out: out.expect("--out DIR"),
        notes,
    }
}

/// The long descriptions of a Debian `Translation-en` (or `Packages`) file: each
/// `Description-en:` (or `Description:`) field with its continuation lines, the lone `.`
/// paragraph marks left out, each distinct text once.
fn debian_descriptions(file: &str) -> Vec<String> {
    let mut seen = HashSet::new();
    let mut texts = Vec::new();
    let mut current: Option<String> = None;
    let mut finish = |current: &mut Option<String>| {
        if let Some(text) = current.take() {
            // Each sentence once in the whole corpus: families of packages repeat theirs.
            let kept: Vec<&str> = text
                .split_inclusive(". ")
                .filter(|sentence| seen.insert(sentence.trim().trim_end_matches('.').to_owned()))
                .collect();
            if !kept.is_empty() {
                texts.push(kept.concat());
            }
        }
    };
    for line in file.lines() {
        if let Some(text) = current.as_mut()
            && let Some(continued) = line.strip_prefix(' ')
        {
            if continued.trim() != "." {
                text.push(' ');
                text.push_str(continued);
            }
            continue;
        }
        finish(&mut current);
        let field = line
            .strip_prefix("Description-en:")
            .or_else(|| line.strip_prefix("Description:"));
        if let Some(short) = field {
            current = Some(short.trim().to_owned());
        }
    }
    finish(&mut current);
    texts
}

/// The descriptions as sequences of word ids (stems), with each word's document count.
struct Corpus {
    stems: Vec<String>,
    ids: HashMap<String, u32>,
    documents: Vec<Vec<u32>>,
    document_counts: Vec<u32>,
}

impl Corpus {
    fn of(texts: &[String]) -> Self {
        let mut corpus = Corpus {
            stems: Vec::new(),
            ids: HashMap::new(),
            documents: Vec::new(),
            document_counts: Vec::new(),
        };
        let mut stem_of: HashMap<String, u32> = HashMap::new();
        for text in texts {
            let mut document = Vec::new();
            for word in words(text) {
                if !is_plain_word(&word) {
                    continue;
                }
                let id = match stem_of.get(&word) {
                    Some(id) => *id,
                    None => {
                        let id = corpus.id(&stem(&word));
                        stem_of.insert(word, id);
                        id
                    }
                };
                document.push(id);
            }
            let distinct: HashSet<u32> = document.iter().copied().collect();
            for id in distinct {
                corpus.document_counts[id as usize] += 1;
            }
            corpus.documents.push(document);
        }
        corpus
    }

    fn id(&mut self, stem: &str) -> u32 {
        if let Some(id) = self.ids.get(stem) {
            return *id;
        }
        let id = self.stems.len() as u32;
        self.stems.push(stem.to_owned());
        self.ids.insert(stem.to_owned(), id);
        self.document_counts.push(0);
        id
    }

    fn kept(&self, stem: &str) -> bool {
        self.ids
            .get(stem)
            .is_some_and(|id| self.document_counts[*id as usize] >= MIN_DOCUMENTS)
    }

    fn kept_words(&self) -> usize {
        self.document_counts
            .iter()
            .filter(|count| **count >= MIN_DOCUMENTS)
            .count()
    }

    fn count(&self, stem: &str) -> u32 {
        self.ids
            .get(stem)
            .map_or(0, |id| self.document_counts[*id as usize])
    }
}

/// A word of letters only, two or more (numbers, versions and one-letter words carry no
/// meaning to associate).
fn is_plain_word(word: &str) -> bool {
    word.chars().count() >= 2 && word.chars().all(char::is_alphabetic)
}

/// WordNet's single-word lemmas, each with its senses (synset offsets) commonest first per
/// part of speech, and the single-word lemmas of each synset.
struct WordNet {
    /// Lemma → its senses' synsets, per part of speech, commonest first.
    senses: BTreeMap<String, Vec<Vec<(char, u64)>>>,
    /// Synset → its single-word lemmas.
    synsets: HashMap<(char, u64), Vec<String>>,
}

const PARTS_OF_SPEECH: [(&str, char); 4] =
    [("noun", 'n'), ("verb", 'v'), ("adj", 'a'), ("adv", 'r')];

impl WordNet {
    fn read(folder: &Path) -> Self {
        let mut wordnet = WordNet {
            senses: BTreeMap::new(),
            synsets: HashMap::new(),
        };
        for (name, pos) in PARTS_OF_SPEECH {
            let data = std::fs::read_to_string(folder.join(format!("data.{name}")))
                .expect("read a WordNet data file");
            wordnet.read_data(&data, pos);
            let index = std::fs::read_to_string(folder.join(format!("index.{name}")))
                .expect("read a WordNet index file");
            wordnet.read_index(&index, pos);
        }
        wordnet
    }

    /// `offset lex_filenum ss_type w_cnt (word lex_id){w_cnt} …` (wndb(5WN)).
    fn read_data(&mut self, data: &str, pos: char) {
        for line in data.lines().filter(|line| !line.starts_with(' ')) {
            let fields: Vec<&str> = line.split(' ').collect();
            let offset: u64 = fields[0].parse().expect("a synset offset");
            let count = usize::from_str_radix(fields[3], 16).expect("a word count");
            let lemmas = (0..count)
                .filter_map(|n| single_word(fields[4 + 2 * n]))
                .collect();
            self.synsets.insert((pos, offset), lemmas);
        }
    }

    /// `lemma pos synset_cnt p_cnt ptr_symbol{p_cnt} sense_cnt tagsense_cnt offset{synset_cnt}`.
    fn read_index(&mut self, index: &str, pos: char) {
        for line in index.lines().filter(|line| !line.starts_with(' ')) {
            let fields: Vec<&str> = line.split(' ').filter(|f| !f.is_empty()).collect();
            let Some(lemma) = single_word(fields[0]) else {
                continue;
            };
            let synsets: usize = fields[2].parse().expect("a synset count");
            let pointers: usize = fields[3].parse().expect("a pointer count");
            let first = 4 + pointers + 2;
            let offsets = fields[first..first + synsets]
                .iter()
                .map(|offset| (pos, offset.parse().expect("a synset offset")))
                .collect();
            self.senses.entry(lemma).or_default().push(offsets);
        }
    }

    /// The stems of every single-word lemma: the ordinary English words.
    fn lemma_stems(&self) -> HashSet<String> {
        self.senses
            .keys()
            .map(|lemma| stem(lemma).into_owned())
            .collect()
    }
}

/// A lemma as a lower-case single word (`able(a)` → `able`), or none for a phrase
/// (`file_cabinet`) or a word the index would split or leave out.
fn single_word(lemma: &str) -> Option<String> {
    let lemma = lemma.split('(').next().unwrap_or(lemma);
    let split = words(lemma);
    match split.as_slice() {
        [word] if is_plain_word(word) => Some(word.clone()),
        _ => None,
    }
}

type Table = BTreeMap<String, Vec<(String, u32)>>;

fn synonyms(wordnet: &WordNet, corpus: &Corpus) -> Table {
    let mut pairs: BTreeMap<String, HashMap<String, u32>> = BTreeMap::new();
    for (lemma, parts) in &wordnet.senses {
        let key = stem(lemma).into_owned();
        if !corpus.kept(&key) {
            continue;
        }
        for offsets in parts {
            for (rank, synset) in offsets.iter().take(SENSES).enumerate() {
                for other in wordnet.synsets.get(synset).into_iter().flatten() {
                    let target = stem(other).into_owned();
                    if target == key || !corpus.kept(&target) {
                        continue;
                    }
                    let weight = pairs
                        .entry(key.clone())
                        .or_default()
                        .entry(target)
                        .or_default();
                    *weight = (*weight).max(SENSE_WEIGHTS[rank]);
                }
            }
        }
    }
    pairs
        .into_iter()
        .map(|(key, targets)| {
            let mut targets: Vec<(String, u32)> = targets.into_iter().collect();
            // Strongest first; among equals, the word more texts use.
            targets.sort_by(|a, b| {
                b.1.cmp(&a.1)
                    .then_with(|| corpus.count(&b.0).cmp(&corpus.count(&a.0)))
                    .then_with(|| a.0.cmp(&b.0))
            });
            targets.truncate(SYNONYMS);
            (key, targets)
        })
        .collect()
}

/// How many descriptions each pair of kept words co-occurs in (within [`WINDOW`]), each pair
/// as (smaller id, larger id).
fn pair_counts(corpus: &Corpus) -> HashMap<(u32, u32), u32> {
    let kept: Vec<bool> = corpus
        .document_counts
        .iter()
        .map(|count| *count >= MIN_DOCUMENTS)
        .collect();
    let mut pair_counts: HashMap<(u32, u32), u32> = HashMap::new();
    let mut pairs = Vec::new();
    for document in &corpus.documents {
        pairs.clear();
        let document: Vec<u32> = document
            .iter()
            .copied()
            .filter(|id| kept[*id as usize])
            .collect();
        for (at, first) in document.iter().enumerate() {
            for second in document.iter().skip(at + 1).take(WINDOW) {
                if first != second {
                    pairs.push((*first.min(second), *first.max(second)));
                }
            }
        }
        pairs.sort_unstable();
        pairs.dedup();
        for pair in &pairs {
            *pair_counts.entry(*pair).or_default() += 1;
        }
    }
    pair_counts
}

fn associations(
    corpus: &Corpus,
    pair_counts: &HashMap<(u32, u32), u32>,
    english: &HashSet<String>,
) -> Table {
    let documents = corpus.documents.len() as f64;
    let mut scored: HashMap<u32, Vec<(u32, f64)>> = HashMap::new();
    for (&(a, b), &together) in pair_counts {
        if together < MIN_PAIR {
            continue;
        }
        let p_ab = f64::from(together) / documents;
        let p_a = f64::from(corpus.document_counts[a as usize]) / documents;
        let p_b = f64::from(corpus.document_counts[b as usize]) / documents;
        let npmi = (p_ab / (p_a * p_b)).ln() / -p_ab.ln();
        if npmi < MIN_NPMI {
            continue;
        }
        if corpus.document_counts[b as usize] >= MIN_ASSOCIATE_DOCUMENTS {
            scored.entry(a).or_default().push((b, npmi));
        }
        if corpus.document_counts[a as usize] >= MIN_ASSOCIATE_DOCUMENTS {
            scored.entry(b).or_default().push((a, npmi));
        }
    }
    let mut table = Table::new();
    for (key, mut targets) in scored {
        let key_stem = &corpus.stems[key as usize];
        if !english.contains(key_stem) {
            continue;
        }
        targets.sort_by(|a, b| {
            b.1.total_cmp(&a.1)
                .then_with(|| corpus.stems[a.0 as usize].cmp(&corpus.stems[b.0 as usize]))
        });
        targets.truncate(ASSOCIATES);
        let targets = targets
            .into_iter()
            .map(|(target, npmi)| {
                let weight = (npmi * 100.0).round() as u32;
                (corpus.stems[target as usize].clone(), weight.min(100))
            })
            .collect();
        table.insert(key_stem.clone(), targets);
    }
    table
}

/// Words used alike: the cosine of their context vectors (positive PMI with the contexts'
/// probabilities smoothed to the power 0.75, Levy, Goldberg and Dagan, "Improving
/// Distributional Similarity with Lessons Learned from Word Embeddings", 2015), each vector cut
/// to its [`CONTEXTS`] strongest contexts. `delete` and `remove` rarely stand side by side but
/// are said of the same things.
fn neighbours(
    corpus: &Corpus,
    pair_counts: &HashMap<(u32, u32), u32>,
    english: &HashSet<String>,
) -> Table {
    let words = corpus.stems.len();
    let mut marginals = vec![0.0_f64; words];
    for (&(a, b), &together) in pair_counts {
        marginals[a as usize] += f64::from(together);
        marginals[b as usize] += f64::from(together);
    }
    let total: f64 = marginals.iter().sum();
    let smoothed_total: f64 = marginals.iter().map(|count| count.powf(0.75)).sum();
    let mut vectors: Vec<Vec<(u32, f64)>> = vec![Vec::new(); words];
    for (&(a, b), &together) in pair_counts {
        if together < 2 {
            continue;
        }
        let joint = f64::from(together) / total;
        for (word, context) in [(a, b), (b, a)] {
            let p_word = marginals[word as usize] / total;
            let p_context = marginals[context as usize].powf(0.75) / smoothed_total;
            let pmi = (joint / (p_word * p_context)).ln();
            if pmi > 0.0 {
                vectors[word as usize].push((context, pmi));
            }
        }
    }
    let mut holders: HashMap<u32, Vec<(u32, f64)>> = HashMap::new();
    for (word, vector) in vectors.iter_mut().enumerate() {
        vector.sort_by(|a, b| b.1.total_cmp(&a.1));
        vector.truncate(CONTEXTS);
        let norm = vector.iter().map(|(_, v)| v * v).sum::<f64>().sqrt();
        for (context, value) in vector.iter_mut() {
            *value /= norm;
            holders
                .entry(*context)
                .or_default()
                .push((word as u32, *value));
        }
    }
    let mut table = Table::new();
    let mut similarity = vec![0.0_f64; words];
    for (key, vector) in vectors.iter().enumerate() {
        let key_stem = &corpus.stems[key];
        if vector.is_empty() || !english.contains(key_stem) {
            continue;
        }
        let mut touched = Vec::new();
        for (context, value) in vector {
            for (other, other_value) in holders.get(context).into_iter().flatten() {
                if similarity[*other as usize] == 0.0 {
                    touched.push(*other);
                }
                similarity[*other as usize] += value * other_value;
            }
        }
        let mut targets: Vec<(u32, f64)> = touched
            .into_iter()
            .map(|other| (other, std::mem::take(&mut similarity[other as usize])))
            .filter(|(other, cosine)| {
                *other as usize != key
                    && *cosine >= MIN_COSINE
                    && corpus.document_counts[*other as usize] >= MIN_ASSOCIATE_DOCUMENTS
            })
            .collect();
        targets.sort_by(|a, b| {
            b.1.total_cmp(&a.1)
                .then_with(|| corpus.stems[a.0 as usize].cmp(&corpus.stems[b.0 as usize]))
        });
        targets.truncate(NEIGHBOURS);
        let targets = targets
            .into_iter()
            .map(|(target, cosine)| {
                let weight = (cosine * 100.0).round() as u32;
                (corpus.stems[target as usize].clone(), weight.min(100))
            })
            .collect();
        table.insert(key_stem.clone(), targets);
    }
    table
}

/// A table's body: `key<TAB>target:weight target:weight…`, one key a line, keys sorted.
fn body(table: &Table) -> String {
    let mut body = String::new();
    for (key, targets) in table {
        if targets.is_empty() {
            continue;
        }
        body.push_str(key);
        body.push('\t');
        let targets: Vec<String> = targets
            .iter()
            .map(|(target, weight)| format!("{target}:{weight}"))
            .collect();
        body.push_str(&targets.join(" "));
        body.push('\n');
    }
    body
}

/// FNV-1a, 64 bits: the checksum the crate's tests recompute.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

fn write_table(path: &Path, what: &str, notes: &[String], table: &Table) {
    let body = body(table);
    let mut header = format!(
        "# mcp-tool-search word table, {what}.\n\
         # Made by mcp-tool-search/examples/word_tables.rs (see data/README.md); do not edit.\n"
    );
    for note in notes {
        writeln!(header, "# {note}").unwrap();
    }
    writeln!(header, "# entries: {}", body.lines().count()).unwrap();
    writeln!(header, "# fnv1a64: {:016x}", fnv1a(body.as_bytes())).unwrap();
    std::fs::write(path, header + &body).expect("write a table");
    println!("{}: {} entries", path.display(), body.lines().count());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptions_are_read_once_each_without_paragraph_marks() {
        let file = "Package: a\nDescription-md5: 1\nDescription-en: Screenshot tool\n \
                    Capture the screen.\n .\n Save it as an image.\n\n\
                    Package: a-doc\nDescription-en: Screenshot tool\n Capture the screen.\n \
                    .\n Save it as an image.\n\nPackage: b\nDescription: Other\n";
        assert_eq!(
            debian_descriptions(file),
            [
                "Screenshot tool Capture the screen. Save it as an image.",
                "Other"
            ]
        );
    }

    #[test]
    fn a_wordnet_lemma_is_a_single_plain_word() {
        assert_eq!(single_word("able(a)").as_deref(), Some("able"));
        assert_eq!(single_word("Erase").as_deref(), Some("erase"));
        assert_eq!(single_word("file_cabinet"), None);
        assert_eq!(single_word("mp3"), None);
    }

    #[test]
    fn words_that_keep_company_are_associated_and_strangers_are_not() {
        let mut texts: Vec<String> = (0..50)
            .map(|n| format!("screenshot capture tool number{n} desktop"))
            .collect();
        texts.extend((0..50).map(|n| format!("archive compress files zip{n} desktop")));
        let corpus = Corpus::of(&texts);
        let english: HashSet<String> = ["captur", "archiv", "desktop"]
            .into_iter()
            .map(str::to_owned)
            .collect();
        let table = associations(&corpus, &pair_counts(&corpus), &english);
        let capture = &table["captur"];
        assert_eq!(capture[0].0, "screenshot");
        assert!(capture[0].1 > 50, "{capture:?}");
        assert!(!capture.iter().any(|(target, _)| target == "archiv"));
        // Only English words are keys; any frequent word may be an associate.
        assert!(!table.contains_key("screenshot"));
        // A word in every text tells nothing about any one.
        assert!(
            table
                .get("desktop")
                .is_none_or(|targets| targets.is_empty())
        );
    }

    #[test]
    fn a_table_is_written_with_its_count_and_checksum() {
        let table: Table = [
            ("captur".to_owned(), vec![("screenshot".to_owned(), 80)]),
            ("eras".to_owned(), vec![]),
        ]
        .into_iter()
        .collect();
        assert_eq!(body(&table), "captur\tscreenshot:80\n");
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}
