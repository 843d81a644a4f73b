//! A query's words, grown into the weighted groups of index terms the ranking scores
//! ([`QueryExpansion`]).
//!
//! Each word of a query is two groups of the index's terms: the word as written, at weight 1,
//! and all the words that share its stem (`issue`, `issues`), scored as one word — their
//! frequencies summed before BM25's saturation, the group's rarity taken from the tools that
//! hold any of them — at [`QueryExpansion::inflections`]. A tool that has the word as written
//! gets both, one that has another inflection only the second: a tool's name still matches
//! best as written, and the word keeps its own rarity (a query's `tables` is rarer than
//! `table`, and says more), which did better on the development queries than one group of
//! inflections alone.
//!
//! Then the word's synonyms (WordNet) and associations (package descriptions) from
//! [`crate::lexicon`] add groups of their own, each at a weight below the query's words: the
//! table's weight times [`QueryExpansion::synonyms`] or [`QueryExpansion::associations`]. A
//! related word several query words lead to adds up, to no more than a word of the query; a
//! related word that is itself in the query adds nothing more.

use std::collections::HashMap;

use foldhash::fast::FixedState;

use crate::lexicon;
use crate::semantic;
use crate::text::{Word, is_stop_word, short_key, short_key_text, stem, words};

/// How much the words related to a query's words count, beside the words themselves (1).
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct QueryExpansion {
    /// The inflections of a query's word (its stem), beside the word as written (0: only the
    /// word as written matches).
    pub inflections: f32,
    /// A WordNet synonym, times the table's weight for it (0: none).
    pub synonyms: f32,
    /// An associated word, times the table's weight for it (0: none).
    pub associations: f32,
}

impl QueryExpansion {
    /// Only the query's words as written: plain BM25F.
    pub const NONE: Self = Self {
        inflections: 0.0,
        synonyms: 0.0,
        associations: 0.0,
    };

    /// With these weights.
    pub fn new(inflections: f32, synonyms: f32, associations: f32) -> Self {
        Self {
            inflections,
            synonyms,
            associations,
        }
    }
}

impl Default for QueryExpansion {
    /// The weights measured best on the development queries of the quality bench
    /// (`benches/quality.rs`): inflections at half weight, synonyms at 0.8, associations off
    /// (at any weight they did not change the development queries' results, and they cost
    /// search time).
    fn default() -> Self {
        Self::new(0.5, 0.8, 0.0)
    }
}

/// The index's words: an id per word, and the ids of the words that share each stem.
///
/// It also remembers the stop words it was shown ([`crate::text::is_stop_word`]), without an
/// id: the index looks up every word of every tool, stop words included, and one lookup then
/// says both whether a word counts and which term it is.
#[derive(Debug, Clone, Default)]
pub(crate) struct Vocabulary {
    /// Each word seen: its id, or [`STOP`].
    words: WordMap,
    /// How many words have an id.
    terms: u32,
    stems: HashMap<String, Vec<u32>, FixedState>,
    /// Each term's row in the word vectors ([`crate::semantic`]), `u32::MAX` for none.
    rows: Vec<u32>,
}

/// The mark of a stop word in [`Vocabulary`] and [`WordMap`]s: it has no id.
pub(crate) const STOP: u32 = u32::MAX;

/// Words, each with a number.
///
/// A word of up to 15 bytes (nearly all of them) is keyed by its bytes and its length packed in one
/// number ([`short_key`], made as the text is read), so a lookup compares numbers, not strings.
/// Hashed with foldhash (a fixed seed): the keys are short, looked up once for every word of every
/// tool when the index is built, and a keyed hash's resistance to chosen keys buys nothing here (a
/// server's tool text can make the map slower, not wrong).
#[derive(Debug, Clone, Default)]
pub(crate) struct WordMap {
    /// Each word of up to 15 bytes.
    short: HashMap<u128, u32, FixedState>,
    /// Each longer word.
    long: HashMap<Box<str>, u32, FixedState>,
}

impl WordMap {
    /// The number of `word`.
    #[inline]
    pub(crate) fn get(&self, word: Word<'_>) -> Option<u32> {
        match word {
            Word::Short(key) => self.short.get(&key),
            Word::Text(text) => match short_key(text) {
                Some(key) => self.short.get(&key),
                None => self.long.get(text),
            },
        }
        .copied()
    }

    /// Numbers `word` `number`.
    pub(crate) fn insert(&mut self, word: &str, number: u32) {
        match short_key(word) {
            Some(key) => self.short.insert(key, number),
            None => self.long.insert(word.into(), number),
        };
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.short.is_empty() && self.long.is_empty()
    }
}

/// The text of `word` (`None` for a short key that packs no text).
pub(crate) fn word_text<'a>(word: &Word<'a>, key: &'a mut [u8; 16]) -> Option<&'a str> {
    match word {
        Word::Short(packed) => {
            *key = packed.to_le_bytes();
            short_key_text(key)
        }
        Word::Text(text) => Some(text),
    }
}

impl Vocabulary {
    /// The id of `word`, added if new (a stop word too: the index filters them before).
    #[cfg(test)]
    pub(crate) fn insert(&mut self, word: &str) -> u32 {
        match self.get(word) {
            Some(id) => id,
            None => self.add(word, false),
        }
    }

    /// The id of `word`, added if new, or none if it is a stop word.
    #[inline]
    pub(crate) fn term(&mut self, word: Word<'_>) -> Option<u32> {
        match self.words.get(word) {
            Some(id) => (id != STOP).then_some(id),
            None => self.add_new(word),
        }
    }

    /// What the vocabulary knows of `word`: its id, [`STOP`], or nothing (it is new).
    #[inline]
    pub(crate) fn known(&self, word: Word<'_>) -> Option<u32> {
        if self.words.is_empty() {
            return None;
        }
        self.words.get(word)
    }

    /// [`Self::term`] of a word not seen before.
    #[inline(never)]
    fn add_new(&mut self, word: Word<'_>) -> Option<u32> {
        let mut key = [0; 16];
        let text = word_text(&word, &mut key)?;
        let stop = is_stop_word(text);
        let id = self.add(text, stop);
        (!stop).then_some(id)
    }

    /// Adds `word`, as a term with the next id or as a stop word; its id.
    fn add(&mut self, word: &str, stop: bool) -> u32 {
        if stop {
            self.words.insert(word, STOP);
            return STOP;
        }
        self.add_term(NewWord::new(word))
    }

    /// The id of `word` (not a stop word), whose stem and row in the word vectors were found
    /// while its tool was read: added with them if new.
    pub(crate) fn add_read(&mut self, word: NewWord) -> u32 {
        match self.get(&word.word) {
            Some(id) => id,
            None => self.add_term(word),
        }
    }

    fn add_term(&mut self, word: NewWord) -> u32 {
        let id = self.terms;
        self.terms = self.terms.saturating_add(1);
        self.rows.push(word.row.unwrap_or(u32::MAX));
        self.stems.entry(word.stem).or_default().push(id);
        self.words.insert(&word.word, id);
        id
    }

    /// The row of `term`'s stem in the word vectors, if it has one.
    pub(crate) fn row(&self, term: u32) -> Option<u32> {
        self.rows
            .get(term as usize)
            .copied()
            .filter(|row| *row != u32::MAX)
    }

    /// How many terms it has (their ids are below it).
    pub(crate) fn len(&self) -> usize {
        self.terms as usize
    }

    fn get(&self, word: &str) -> Option<u32> {
        self.words.get(Word::Text(word)).filter(|id| *id != STOP)
    }

    fn inflections(&self, stem: &str) -> &[u32] {
        self.stems.get(stem).map_or(&[], Vec::as_slice)
    }
}

/// A word a tool's text had that the index's vocabulary did not, as the reading of that text
/// found it: the word, its stem, and its stem's row in the word vectors.
#[derive(Debug, Clone)]
pub(crate) struct NewWord {
    pub(crate) word: String,
    pub(crate) stem: String,
    pub(crate) row: Option<u32>,
}

impl NewWord {
    /// `word` (lower-case, not a stop word) with its stem and row.
    pub(crate) fn new(word: &str) -> Self {
        let stem = stem(word);
        Self {
            row: semantic::row_of_stem(&stem),
            stem: stem.into_owned(),
            word: word.to_owned(),
        }
    }
}

/// A word table's lookup: a stem's related stems with their weights.
type Table = fn(&str) -> &'static [(&'static str, f32)];

/// A group of terms scored as one word: each term's frequency counts at its weight.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Group {
    /// The group's weight in the score: 1 for a query's word, less for a related one.
    pub(crate) weight: f32,
    pub(crate) terms: Vec<(u32, f32)>,
}

/// The groups `query` is scored by in an index of `vocabulary`.
pub(crate) fn groups(
    query: &str,
    vocabulary: &Vocabulary,
    expansion: &QueryExpansion,
) -> Vec<Group> {
    // Each stem of the query once, with the inflections written in it.
    let mut own: Vec<(String, Vec<String>)> = Vec::new();
    for word in words(query) {
        let stem = stem(&word).into_owned();
        match own.iter_mut().find(|(seen, _)| *seen == stem) {
            Some((_, written)) => written.push(word),
            None => own.push((stem, vec![word])),
        }
    }
    let mut groups = Vec::new();
    let mut related: Vec<(&'static str, f32)> = Vec::new();
    for (stem, written) in &own {
        let terms: Vec<(u32, f32)> = written
            .iter()
            .filter_map(|word| Some((vocabulary.get(word)?, 1.0)))
            .collect();
        if !terms.is_empty() {
            groups.push(Group { weight: 1.0, terms });
        }
        // Then every inflection, the written ones too, as one word at a lower weight: a tool
        // that has the word as written gets both, one that has another inflection this one.
        let inflections = vocabulary.inflections(stem);
        if expansion.inflections > 0.0 && !inflections.is_empty() {
            groups.push(Group {
                weight: expansion.inflections,
                terms: inflections.iter().map(|term| (*term, 1.0)).collect(),
            });
        }
        let tables: [(Table, f32); 2] = [
            (lexicon::synonyms, expansion.synonyms),
            (lexicon::associations, expansion.associations),
        ];
        for (table, share) in tables {
            // A table not asked for is never read (nor parsed).
            if share <= 0.0 {
                continue;
            }
            let table = table(stem);
            for (target, weight) in table {
                if own.iter().any(|(seen, _)| seen == target) {
                    continue;
                }
                match related.iter_mut().find(|(seen, _)| seen == target) {
                    Some((_, total)) => *total += share * weight,
                    None => related.push((target, share * weight)),
                }
            }
        }
    }
    for (target, weight) in related {
        let terms: Vec<(u32, f32)> = vocabulary
            .inflections(target)
            .iter()
            .map(|term| (*term, 1.0))
            .collect();
        if !terms.is_empty() {
            groups.push(Group {
                weight: weight.min(1.0),
                terms,
            });
        }
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vocabulary(words: &[&str]) -> Vocabulary {
        let mut vocabulary = Vocabulary::default();
        for word in words {
            vocabulary.insert(word);
        }
        vocabulary
    }

    #[test]
    fn a_word_is_itself_as_written_and_all_its_inflections_at_a_lower_weight() {
        let vocabulary = vocabulary(&["issue", "issues", "list", "listing", "page"]);
        let groups = groups(
            "list issues",
            &vocabulary,
            &QueryExpansion::new(0.5, 0.0, 0.0),
        );
        let group = |weight: f32, terms: &[u32]| Group {
            weight,
            terms: terms.iter().map(|term| (*term, 1.0)).collect(),
        };
        assert_eq!(
            groups,
            [
                group(1.0, &[2]),
                group(0.5, &[2, 3]),
                group(1.0, &[1]),
                group(0.5, &[0, 1]),
            ]
        );
        // Without inflections, only the words as written.
        let exact = super::groups("issue", &vocabulary, &QueryExpansion::NONE);
        assert_eq!(exact[0].terms, [(0, 1.0)]);
        assert!(super::groups("zebra", &vocabulary, &QueryExpansion::NONE).is_empty());
    }

    #[test]
    fn related_words_weigh_less_than_the_querys_and_never_repeat_them() {
        let vocabulary = vocabulary(&["erase", "delete", "git", "commit"]);
        let expansion = QueryExpansion::new(0.0, 0.4, 0.0);
        let groups = groups("delete", &vocabulary, &expansion);
        assert_eq!(groups[0].terms, [(1, 1.0)]);
        let erase = groups
            .iter()
            .find(|group| group.terms == [(0, 1.0)])
            .expect("erase is a synonym of delete");
        assert!(
            erase.weight > 0.0 && erase.weight <= 0.4,
            "{}",
            erase.weight
        );
        // A synonym written in the query is the query's own word, once.
        let both = super::groups("delete erase", &vocabulary, &expansion);
        assert_eq!(both.len(), 2, "{both:?}");
        assert!(both.iter().all(|group| group.weight == 1.0));
        // Associations count only when asked for.
        let with = super::groups("commit", &vocabulary, &QueryExpansion::new(0.0, 0.0, 0.5));
        assert!(
            with.iter().any(|group| group.terms == [(2, 1.0)]),
            "{with:?}"
        );
        let without = super::groups("commit", &vocabulary, &QueryExpansion::NONE);
        assert_eq!(without.len(), 1);
    }
}
