//! Reading tools' documents into the terms the index posts: [`read`] counts each document's
//! terms per field (and, with word vectors on, makes its vector), against the index's
//! vocabulary as it stands, without changing it, so that many documents can be read on as
//! many threads and the words none of them knew added afterwards, once ([`Read::new_words`]).
//!
//! A session's start hands the index every server's tools at once (from the cache, before a
//! server answers), and reading their text is nearly all the cost of building the index: the
//! documents are cut into a share per thread ([`THREADS_FROM`] documents at least), each read
//! with words of its own for the words the vocabulary lacks, and the shares are taken in order,
//! so the index is the same however many threads read it.

use std::num::NonZeroUsize;
use std::sync::OnceLock;

use crate::document::ToolDocument;
use crate::expand::{NewWord, STOP, Vocabulary, WordMap, word_text};
use crate::field::{Field, OWN_FIELDS};
use crate::postings::{Posting, pack};
use crate::semantic::{ToolVector, tool_vector};
use crate::text::{Reader, is_stop_word};

/// The bit of a term being counted that says it is a new word: the rest is its place in
/// [`Read::new_words`].
const NEW: u32 = 1 << 31;

/// The fewest documents a thread of its own reads: below it, starting a thread costs more
/// than it saves.
const THREADS_FROM: usize = 1_024;

/// A share of documents read, in order: their postings, to be joined to the index's.
#[derive(Debug, Default)]
pub(crate) struct Read {
    /// How many terms the vocabulary had when the share was read: [`slot`]'s `known`.
    pub(crate) known: usize,
    /// Each document's own fields' lengths.
    pub(crate) lengths: Vec<[u32; OWN_FIELDS]>,
    /// The postings of these documents (their entries are the ones the documents will have
    /// in the index).
    pub(crate) postings: Postings,
    /// The frequencies of these postings that do not pack ([`pack`]).
    pub(crate) overflow: Vec<[u16; OWN_FIELDS]>,
    /// The words the vocabulary did not have, each once.
    pub(crate) new_words: Vec<NewWord>,
    /// Each document's vector (with word vectors on).
    pub(crate) vectors: Vec<Option<ToolVector>>,
}

/// The postings of a share, each term as [`slot`] numbers it (a vocabulary term at its id, a
/// new word after the vocabulary's terms).
#[derive(Debug)]
pub(crate) enum Postings {
    /// In the order read: the share is all there is to read (a server's update), and its
    /// postings are added to the index's lists one by one, without a list of their own.
    InOrder(Vec<(usize, Posting)>),
    /// Each term's in a list of its own: one of several shares read at once, whose lists are
    /// joined to the index's whole (moved where the index has none).
    ByTerm(Vec<(usize, Vec<Posting>)>),
}

impl Default for Postings {
    fn default() -> Self {
        Self::InOrder(Vec::new())
    }
}

/// What a reading needs besides its documents, kept from one reading to the next (the index
/// keeps one for the reading on its own thread): sized by the vocabulary, so a server's update
/// need not allocate and clear it again.
#[derive(Debug, Clone, Default)]
pub(crate) struct Scratch {
    reader: Reader,
    /// Per term as [`slot`] numbers it, 1 + its place in `counts` while a document is counted
    /// (0: not yet in it, and all 0 between readings).
    counted: Vec<u32>,
    /// Per term as [`slot`] numbers it, 1 + its place in [`Read::postings`] (0: none yet,
    /// and all 0 between readings).
    posted: Vec<u32>,
    /// The document being counted: its terms (a vocabulary term, or [`NEW`] and a place in
    /// the new words), with how often each stands in each own field.
    counts: Vec<(u32, [u16; OWN_FIELDS])>,
    /// The new words read so far: their place in [`Read::new_words`], or [`STOP`] (empty
    /// between readings).
    new: WordMap,
}

impl Scratch {
    /// The terms of a server's field (its name and instructions), counted: the same in each
    /// of its documents, so counted once; with the field's length.
    pub(crate) fn server_terms(
        &mut self,
        vocabulary: &mut Vocabulary,
        server: &str,
        instructions: Option<&str>,
    ) -> (u32, Vec<(u32, [u16; 1])>) {
        let mut counts: Vec<(u32, [u16; 1])> = Vec::new();
        let mut length = [0; 1];
        let Self {
            reader, counted, ..
        } = self;
        for text in std::iter::once(server).chain(instructions) {
            reader.words(text, |word| {
                if let Some(term) = vocabulary.term(word) {
                    count(counted, &mut counts, &mut length, term, term as usize, 0);
                }
            });
        }
        for (term, _) in &counts {
            counted[*term as usize] = 0;
        }
        (length[0], counts)
    }
}

/// How many shares to read `documents` documents in: one per core, each of
/// [`THREADS_FROM`] documents at least.
pub(crate) fn shares(documents: usize) -> usize {
    if documents < 2 * THREADS_FROM {
        1
    } else {
        cores().min(documents / THREADS_FROM)
    }
}

/// Reads `documents`, to be the index's entries from `first` on, against `vocabulary`, with
/// their vectors when `vectors`; in `shares` shares, the first on this thread with `scratch`
/// and each other on a thread of its own.
pub(crate) fn read(
    vocabulary: &Vocabulary,
    documents: &[ToolDocument],
    first: u32,
    vectors: bool,
    scratch: &mut Scratch,
    shares: usize,
) -> Vec<Read> {
    let threads = shares.max(1);
    let share = documents.len().div_ceil(threads).max(1);
    let mut shares = documents.chunks(share);
    let mine = shares.next().unwrap_or_default();
    let alone = threads == 1;
    std::thread::scope(|scope| {
        let others: Vec<_> = shares
            .enumerate()
            .map(|(number, documents)| {
                let first =
                    first.saturating_add(u32::try_from((number + 1) * share).unwrap_or(u32::MAX));
                scope.spawn(move || {
                    Share::new(vocabulary, first, vectors, &mut Scratch::default())
                        .read(documents, alone)
                })
            })
            .collect();
        let mut read = vec![Share::new(vocabulary, first, vectors, scratch).read(mine, alone)];
        // A reader cannot panic but by a bug, and every share is needed: the documents'
        // lengths and entry numbers follow from all of them, so the panic goes on.
        read.extend(others.into_iter().map(|other| {
            other
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        }));
        read
    })
}

/// How many threads can run at once here (asked once: on Linux the answer reads the cgroup's
/// files).
fn cores() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, NonZeroUsize::get))
}

/// One share's reading: what it read so far, and its scratch.
struct Share<'a> {
    vocabulary: &'a Vocabulary,
    /// The entry of the next document.
    entry: u32,
    vectors: bool,
    read: Read,
    scratch: &'a mut Scratch,
    lengths: [u32; OWN_FIELDS],
}

impl<'a> Share<'a> {
    fn new(
        vocabulary: &'a Vocabulary,
        first: u32,
        vectors: bool,
        scratch: &'a mut Scratch,
    ) -> Self {
        let terms = vocabulary.len();
        for slots in [&mut scratch.counted, &mut scratch.posted] {
            if slots.len() < terms {
                slots.resize(terms, 0);
            }
        }
        Self {
            vocabulary,
            entry: first,
            vectors,
            read: Read {
                known: terms,
                ..Read::default()
            },
            scratch,
            lengths: [0; OWN_FIELDS],
        }
    }

    /// Reads `documents`; `alone`: the only share.
    fn read(mut self, documents: &[ToolDocument], alone: bool) -> Read {
        if !alone {
            self.read.postings = Postings::ByTerm(Vec::new());
        }
        self.read.lengths.reserve(documents.len());
        if self.vectors {
            self.read.vectors.reserve(documents.len());
        }
        for document in documents {
            self.document(document);
        }
        // The scratch is left as it was found: zeros, and no new words.
        let known = self.vocabulary.len();
        if let Postings::ByTerm(lists) = &self.read.postings {
            for (slot, _) in lists {
                self.scratch.posted[*slot] = 0;
            }
        }
        self.scratch.counted.truncate(known);
        self.scratch.posted.truncate(known);
        self.scratch.new = WordMap::default();
        self.read
    }

    fn document(&mut self, document: &ToolDocument) {
        self.text(Field::Name, &document.tool);
        if let Some(title) = &document.title {
            self.text(Field::Title, title);
        }
        self.text(Field::Description, &document.description);
        for parameter in &document.parameters {
            self.text(Field::ParameterName, &parameter.name);
            if let Some(description) = &parameter.description {
                self.text(Field::ParameterText, description);
            }
        }
        let known = self.vocabulary.len();
        let Scratch {
            counted,
            posted,
            counts,
            ..
        } = &mut *self.scratch;
        if self.vectors {
            let (vocabulary, new_words) = (self.vocabulary, &self.read.new_words);
            let terms = counts.iter().map(|(term, frequencies)| {
                let row = if term & NEW == 0 {
                    vocabulary.row(*term)
                } else {
                    new_words[(term & !NEW) as usize].row
                };
                (row, *frequencies)
            });
            self.read.vectors.push(tool_vector(terms));
        }
        let Read {
            postings, overflow, ..
        } = &mut self.read;
        for (term, frequencies) in counts.drain(..) {
            let slot = slot(term, known);
            counted[slot] = 0;
            let posting = Posting {
                entry: self.entry,
                frequencies: pack(frequencies, overflow),
            };
            match postings {
                Postings::InOrder(postings) => postings.push((slot, posting)),
                Postings::ByTerm(lists) => {
                    if posted.len() <= slot {
                        posted.resize(slot + 1, 0);
                    }
                    if posted[slot] == 0 {
                        lists.push((slot, Vec::new()));
                        posted[slot] = u32::try_from(lists.len()).unwrap_or(u32::MAX);
                    }
                    lists[posted[slot] as usize - 1].1.push(posting);
                }
            }
        }
        self.entry = self.entry.saturating_add(1);
        self.read.lengths.push(std::mem::take(&mut self.lengths));
    }

    /// Counts the words of `text`, in own field `field`.
    fn text(&mut self, field: Field, text: &str) {
        let Self {
            vocabulary,
            read,
            scratch,
            lengths,
            ..
        } = self;
        let Scratch {
            reader,
            counted,
            counts,
            new,
            ..
        } = &mut **scratch;
        let known = vocabulary.len();
        reader.words(text, |word| {
            let term = match vocabulary.known(word) {
                Some(STOP) => return,
                Some(term) => term,
                None => match new.get(word) {
                    Some(STOP) => return,
                    Some(place) => NEW | place,
                    None => {
                        let mut key = [0; 16];
                        let Some(text) = word_text(&word, &mut key) else {
                            return;
                        };
                        if is_stop_word(text) {
                            new.insert(text, STOP);
                            return;
                        }
                        let place = u32::try_from(read.new_words.len()).unwrap_or(STOP - 1);
                        read.new_words.push(NewWord::new(text));
                        new.insert(text, place);
                        NEW | place
                    }
                },
            };
            count(
                counted,
                counts,
                lengths,
                term,
                slot(term, known),
                field as usize,
            );
        });
    }
}

/// Where `term` counts in a share's scratch and [`Read::postings`]: a vocabulary term at its
/// id, a new word after the `known` terms of the vocabulary.
fn slot(term: u32, known: usize) -> usize {
    if term & NEW == 0 {
        term as usize
    } else {
        known + (term & !NEW) as usize
    }
}

/// Counts `term` (at `slot` in `slots`) once more in `field` of the terms being counted:
/// `slots` holds, per term, 1 + its place in `counts` while they are counted (0: not yet), so a
/// word is counted without hashing its term again.
fn count<const N: usize>(
    slots: &mut Vec<u32>,
    counts: &mut Vec<(u32, [u16; N])>,
    lengths: &mut [u32; N],
    term: u32,
    slot: usize,
    field: usize,
) {
    if slots.len() <= slot {
        slots.resize(slot + 1, 0);
    }
    if slots[slot] == 0 {
        counts.push((term, [0; N]));
        slots[slot] = u32::try_from(counts.len()).unwrap_or(u32::MAX);
    }
    let frequency = &mut counts[slots[slot] as usize - 1].1[field];
    *frequency = frequency.saturating_add(1);
    lengths[field] += 1;
}

#[cfg(test)]
mod tests {
    use crate::{Parameter, ServerTools, ToolDocument, ToolIndex};

    /// Forty servers of thirty tools whose words come from a small vocabulary in a scrambled
    /// order, with long words, camelCase, accents and two words repeated past what a posting
    /// packs.
    fn servers() -> Vec<ServerTools> {
        const WORDS: [&str; 12] = [
            "list",
            "issues",
            "repository",
            "createPullRequest",
            "café",
            "internationalization",
            "screenshot",
            "page",
            "delete",
            "files",
            "query",
            "database",
        ];
        let mut state = 7_u64;
        let mut word = || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            WORDS[(state >> 33) as usize % WORDS.len()]
        };
        (0..40)
            .map(|server| {
                let name = format!("server-{server}");
                let tools = (0..30)
                    .map(|tool| {
                        let mut description: Vec<&str> = (0..12).map(|_| word()).collect();
                        // One in the first of three shares and one in the last, so the
                        // last share's overflow lands after the first's.
                        if server == 2 && tool == 0 {
                            description.extend(["yak"; 90]);
                        }
                        if server == 33 && tool == 3 {
                            description.extend(["zebra"; 70]);
                        }
                        ToolDocument::new(
                            name.as_str(),
                            format!("{}_{tool}", word()),
                            description.join(" "),
                        )
                        .parameters(vec![Parameter {
                            name: word().to_owned(),
                            description: Some(format!("{} {}", word(), word())),
                        }])
                    })
                    .collect();
                ServerTools::new(name, Some(format!("{} tools", word())), tools)
            })
            .collect()
    }

    #[test]
    fn documents_read_in_shares_rank_as_documents_added_one_server_at_a_time() {
        let mut one_by_one = ToolIndex::new();
        for server in servers() {
            one_by_one.set_server(&server.server, server.instructions.as_deref(), server.tools);
        }
        const QUERIES: [&str; 6] = [
            "list issues",
            "zebra",
            "yak",
            "café database",
            "create pull request",
            "internationalization tools",
        ];
        let mut alone = Vec::new();
        for shares in [1, 3] {
            let mut in_shares = ToolIndex::new();
            // A server already there, with words the shares find known, replaced by them.
            in_shares.set_server(
                "server-5",
                None,
                vec![ToolDocument::new(
                    "server-5",
                    "list_old",
                    "old issues of a database",
                )],
            );
            in_shares.set_servers_in(servers(), shares);
            assert_eq!(in_shares.len(), one_by_one.len());
            let found: Vec<_> = QUERIES
                .iter()
                .map(|query| in_shares.search(query, 10, None).unwrap())
                .collect();
            // The same scores, but for the order of a few additions (the server's words
            // get their ids after the tools' when servers are read at once).
            for (query, found) in QUERIES.iter().zip(&found) {
                let expected = one_by_one.search(query, 10, None).unwrap();
                assert!(!expected.is_empty(), "{query}");
                assert_eq!(found.len(), expected.len(), "{query}");
                for (found, expected) in found.iter().zip(&expected) {
                    assert!(
                        (found.score - expected.score).abs() <= 1e-4 * expected.score,
                        "{query}: {found:?} {expected:?}"
                    );
                }
            }
            // However many threads read them, the same index.
            if shares == 1 {
                alone = found;
            } else {
                assert_eq!(found, alone);
            }
            let best = in_shares.search("zebra", 1, None).unwrap();
            assert_eq!(
                (best[0].server.as_str(), best[0].tool.ends_with("_3")),
                ("server-33", true)
            );
        }
    }
}
