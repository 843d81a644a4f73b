//! Builds the two word tables tool search ships, offline: `data/synonyms.tsv` from WordNet 3.0
//! and `data/associations.tsv` from Debian's package descriptions. `data/regenerate.sh` fetches
//! the inputs (by package name, checked against their SHA-256) and runs this; nothing here or
//! in the crate downloads anything at run time.
//!
//! ```text
//! cargo run --release -p mcp-tool-search --example word_tables -- \
//!     --wordnet DIR --descriptions FILE... --out DIR [--note TEXT]...
//! ```
//!
//! - **Synonyms**: for each single-word lemma of WordNet, the other single-word lemmas of every
//!   synset it may mean, weighted by how likely both are to mean it (the geometric mean of the
//!   two sense probabilities, from the times each sense was tagged in WordNet's semantic
//!   concordance, `cntlist.rev`), and at a lower weight the lemmas of synsets derivationally
//!   related to it or naming its attribute (`high` → `height`); its [`SYNONYMS`] strongest.
//!   Tried and left out, for doing worse on the development queries: the first three senses
//!   by rank at fixed weights (a rare sense's synonyms weighed as much as a common one's), and
//!   the lemmas whose WordNet definitions use a word (`combine` → `merge`, but mostly noise).
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

#[path = "support/debian.rs"]
mod debian;
#[path = "support/flags.rs"]
mod flags;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use mcp_tool_search::text::{stem, words};

/// The share of a derivationally related word's weight, against a synonym's.
const RELATED_SHARE: f64 = 0.7;
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

struct Args {
    wordnet: PathBuf,
    descriptions: Vec<PathBuf>,
    out: PathBuf,
    notes: Vec<String>,
}

fn main() {
    let args = parse_args();
    let mut texts = Vec::new();
    for path in &args.descriptions {
        let file = std::fs::read_to_string(path).expect("read the descriptions");
        texts.extend(debian_descriptions(&file));
    }
    let corpus = Corpus::of(&texts);
    let wordnet = WordNet::read(&args.wordnet);
    let synonyms = synonyms(&wordnet, &corpus);
    let english = wordnet.lemma_stems();
    let pair_counts = pair_counts(&corpus);
    let associations = associations(&corpus, &pair_counts, &english);
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
        &args.out.join("associations.tsv"),
        "associations: words near each other in Debian's package descriptions (NPMI)",
        &notes,
        &associations,
    );
}

fn parse_args() -> Args {
    let mut wordnet = None;
    let mut descriptions = Vec::new();
    let mut out = None;
    let mut notes = Vec::new();
    for (flag, value) in flags::flags() {
        match flag.as_str() {
            "--wordnet" => wordnet = Some(PathBuf::from(value)),
            "--descriptions" => descriptions.push(PathBuf::from(value)),
            "--out" => out = Some(PathBuf::from(value)),
            "--note" => notes.push(value),
            _ => panic!("unknown flag {flag}: see the //! documentation of this file"),
        }
    }
    Args {
        wordnet: wordnet.expect("--wordnet DIR (WordNet 3.0's dict folder)"),
        descriptions,
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
    debian::each_description(file, |text| {
        // Each sentence once in the whole corpus: families of packages repeat theirs.
        let kept: Vec<&str> = text
            .split_inclusive(". ")
            .filter(|sentence| seen.insert(sentence.trim().trim_end_matches('.').to_owned()))
            .collect();
        if !kept.is_empty() {
            texts.push(kept.concat());
        }
    });
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

/// WordNet's single-word lemmas, each with its senses and how often each is meant, and its
/// synsets with their lemmas and related synsets.
struct WordNet {
    /// Lemma → its senses in every part of speech, each with the probability that the lemma
    /// means it ([`WordNet::sense_probabilities`]).
    senses: BTreeMap<String, Vec<(Synset, f64)>>,
    synsets: HashMap<Synset, SynsetData>,
}

/// A synset: its part of speech (`n`, `v`, `a`, `r`) and its offset in that data file.
type Synset = (char, u64);

#[derive(Default)]
struct SynsetData {
    /// Its single-word lemmas.
    lemmas: Vec<String>,
    /// Synsets it is derivationally related to (`+`) or whose attribute it is (`=`): `delete`
    /// and `deletion`, `high` and `height`.
    related: Vec<Synset>,
}

const PARTS_OF_SPEECH: [(&str, char); 4] =
    [("noun", 'n'), ("verb", 'v'), ("adj", 'a'), ("adv", 'r')];

impl WordNet {
    fn read(folder: &Path) -> Self {
        let mut wordnet = WordNet {
            senses: BTreeMap::new(),
            synsets: HashMap::new(),
        };
        let counts = std::fs::read_to_string(folder.join("cntlist.rev"))
            .expect("read WordNet's sense counts (cntlist.rev)");
        let counts = sense_counts(&counts);
        for (name, pos) in PARTS_OF_SPEECH {
            let data = std::fs::read_to_string(folder.join(format!("data.{name}")))
                .expect("read a WordNet data file");
            wordnet.read_data(&data, pos);
            let index = std::fs::read_to_string(folder.join(format!("index.{name}")))
                .expect("read a WordNet index file");
            wordnet.read_index(&index, pos, &counts);
        }
        for senses in wordnet.senses.values_mut() {
            let total: f64 = senses.iter().map(|(_, weight)| weight).sum();
            for (_, weight) in senses.iter_mut() {
                *weight /= total;
            }
        }
        wordnet
    }

    /// `offset lex_filenum ss_type w_cnt (word lex_id){w_cnt} p_cnt (ptr offset pos
    /// source_target){p_cnt} [frames] | gloss` (wndb(5WN)); the gloss is not used.
    fn read_data(&mut self, data: &str, pos: char) {
        for line in data.lines().filter(|line| !line.starts_with(' ')) {
            let head = line.split_once(" | ").map_or(line, |(head, _)| head);
            let fields: Vec<&str> = head.split(' ').collect();
            let offset: u64 = fields[0].parse().expect("a synset offset");
            let count = usize::from_str_radix(fields[3], 16).expect("a word count");
            let lemmas = (0..count)
                .filter_map(|n| single_word(fields[4 + 2 * n]))
                .collect();
            let at = 4 + 2 * count;
            let pointers: usize = fields[at].parse().expect("a pointer count");
            let related = (0..pointers)
                .filter_map(|n| {
                    let pointer = &fields[at + 1 + 4 * n..at + 5 + 4 * n];
                    matches!(pointer[0], "+" | "=").then(|| {
                        let pos = match pointer[2] {
                            "s" => 'a',
                            other => other.chars().next().unwrap_or('n'),
                        };
                        (pos, pointer[1].parse().expect("a pointer's offset"))
                    })
                })
                .collect();
            self.synsets
                .insert((pos, offset), SynsetData { lemmas, related });
        }
    }

    /// `lemma pos synset_cnt p_cnt ptr_symbol{p_cnt} sense_cnt tagsense_cnt offset{synset_cnt}`:
    /// a lemma's senses in this part of speech, commonest first.
    fn read_index(&mut self, index: &str, pos: char, counts: &HashMap<(String, char, usize), u32>) {
        for line in index.lines().filter(|line| !line.starts_with(' ')) {
            let fields: Vec<&str> = line.split(' ').filter(|f| !f.is_empty()).collect();
            let Some(lemma) = single_word(fields[0]) else {
                continue;
            };
            let synsets: usize = fields[2].parse().expect("a synset count");
            let pointers: usize = fields[3].parse().expect("a pointer count");
            let first = 4 + pointers + 2;
            let senses = self.senses.entry(lemma.clone()).or_default();
            for (rank, offset) in fields[first..first + synsets].iter().enumerate() {
                let tagged = counts
                    .get(&(fields[0].to_owned(), pos, rank + 1))
                    .copied()
                    .unwrap_or(0);
                senses.push((
                    (pos, offset.parse().expect("a synset offset")),
                    sense_weight(tagged, rank),
                ));
            }
        }
    }

    /// The stems of every single-word lemma: the ordinary English words.
    fn lemma_stems(&self) -> HashSet<String> {
        self.senses
            .keys()
            .map(|lemma| stem(lemma).into_owned())
            .collect()
    }

    /// The probability that `lemma` means `synset`.
    fn probability(&self, lemma: &str, synset: Synset) -> f64 {
        self.senses
            .get(lemma)
            .into_iter()
            .flatten()
            .find(|(sense, _)| *sense == synset)
            .map_or(0.0, |(_, probability)| *probability)
    }
}

/// How often a sense is meant, before normalising: the times it was tagged in WordNet's
/// semantic concordance, plus a pseudo-count that falls with its rank (WordNet lists a
/// lemma's senses commonest first), so untagged senses keep their order and a lemma never
/// tagged is read by rank alone.
fn sense_weight(tagged: u32, rank: usize) -> f64 {
    f64::from(tagged) + 1.0 / (rank as f64 + 1.0)
}

/// `sense_key sense_number tag_cnt` lines (`add%2:30:00:: 1 116`): (lemma, part of speech,
/// sense number) → times tagged.
fn sense_counts(file: &str) -> HashMap<(String, char, usize), u32> {
    let mut counts = HashMap::new();
    for line in file.lines() {
        let fields: Vec<&str> = line.split(' ').collect();
        let [key, number, count] = fields[..] else {
            continue;
        };
        let Some((lemma, rest)) = key.split_once('%') else {
            continue;
        };
        let pos = match rest.chars().next() {
            Some('1') => 'n',
            Some('2') => 'v',
            Some('3' | '5') => 'a',
            Some('4') => 'r',
            _ => continue,
        };
        let (Ok(number), Ok(count)) = (number.parse::<usize>(), count.parse::<u32>()) else {
            continue;
        };
        *counts.entry((lemma.to_owned(), pos, number)).or_default() += count;
    }
    counts
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

/// A word's synonyms: each other lemma of a synset it may mean, weighted by the geometric
/// mean of the probabilities that the word means that synset and that the other lemma does
/// (so a rare sense of either weighs little: `file` is seldom `register`); and, at
/// [`RELATED_SHARE`] of that, the lemmas of synsets derivationally related to it or naming its
/// attribute (`high` → `height`).
fn synonyms(wordnet: &WordNet, corpus: &Corpus) -> Table {
    let mut pairs: BTreeMap<String, HashMap<String, f64>> = BTreeMap::new();
    let mut link = |key: &str, target: &str, weight: f64| {
        if key == target || !corpus.kept(target) {
            return;
        }
        let slot = pairs
            .entry(key.to_owned())
            .or_default()
            .entry(target.to_owned())
            .or_default();
        *slot = slot.max(weight);
    };
    for (lemma, senses) in &wordnet.senses {
        let key = stem(lemma).into_owned();
        if !corpus.kept(&key) {
            continue;
        }
        for (synset, probability) in senses {
            let Some(data) = wordnet.synsets.get(synset) else {
                continue;
            };
            for other in &data.lemmas {
                let weight = (probability * wordnet.probability(other, *synset)).sqrt();
                link(&key, &stem(other), weight);
            }
            for related in &data.related {
                for other in wordnet
                    .synsets
                    .get(related)
                    .map(|data| &data.lemmas)
                    .into_iter()
                    .flatten()
                {
                    let weight = (probability * wordnet.probability(other, *related)).sqrt();
                    link(&key, &stem(other), RELATED_SHARE * weight);
                }
            }
        }
    }
    strongest(pairs, corpus, SYNONYMS)
}

/// Each key's `keep` strongest targets at a weight of at least 0.05, strongest first (among
/// equals, the word more descriptions use), weights in hundredths.
fn strongest(pairs: BTreeMap<String, HashMap<String, f64>>, corpus: &Corpus, keep: usize) -> Table {
    pairs
        .into_iter()
        .map(|(key, targets)| {
            let mut targets: Vec<(String, f64)> = targets
                .into_iter()
                .filter(|(_, weight)| *weight >= 0.05)
                .collect();
            targets.sort_by(|a, b| {
                b.1.total_cmp(&a.1)
                    .then_with(|| corpus.count(&b.0).cmp(&corpus.count(&a.0)))
                    .then_with(|| a.0.cmp(&b.0))
            });
            targets.truncate(keep);
            let targets = targets
                .into_iter()
                .map(|(target, weight)| (target, ((weight * 100.0).round() as u32).clamp(1, 100)))
                .collect();
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
