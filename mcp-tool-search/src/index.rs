//! [`ToolIndex`]: an inverted index of tool documents, server by server, ranked with BM25F.
//!
//! Each document has six fields — the tool's name, its title, its description, its parameters'
//! names, their descriptions, and its server (name and instructions) — each with a weight and a
//! length normalisation of its own ([`FieldWeights`]): a word in a tool's name says more than
//! the same word in a parameter's description. A query's words score a document by BM25F
//! (Robertson and Zaragoza, "The Probabilistic Relevance Framework", 2009): the weighted,
//! length-normalised term frequencies of all fields are summed before the saturation, so a
//! word repeated across fields counts once, more strongly, rather than once per field.
//!
//! A query's words are matched by their stems, and grown with synonyms and associated words at
//! lower weights (see [`crate::expand`] and [`QueryExpansion`]): each word of the query (with
//! its inflections) is one group, scored by BM25F as one term; each related word is a group
//! whose score counts at its weight. Then the meaning: with word vectors on ([`Semantic`], the
//! default), each tool's vector is made as it is added, and a search adds the cosine of the
//! query's and the tools' vectors to their scores (see [`crate::semantic`]).
//!
//! Kept live at the cost of one server's tools: [`ToolIndex::set_server`] replaces a server's
//! documents (a list change, a reconnect, a reload) and [`ToolIndex::remove_server`] drops
//! them; [`ToolIndex::set_servers`] replaces many at once, their text read on a thread per
//! core ([`crate::reading`]). A replaced document is marked dead where it stands, its statistics taken out at once,
//! and the postings are compacted when the dead outnumber the living, so an update costs what
//! the server's own documents cost, never a rebuild of the whole index.
//!
//! Laid out for 10,000 tools (`benches/speed.rs`): a posting is eight bytes — the document and
//! its term frequencies in the five fields of the tool's own text, six bits each (a frequency
//! over 63 moves the five to a side table). The server's field is the same text in every
//! document of a server, so it is counted once per server and posted once per server, as the
//! range of that server's documents: a term of a server's instructions costs one posting, not
//! one per tool. A search adds the server's part to each document's sum of its own fields, in
//! the order the fields have, so the scores are those of six fields posted per document.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};
use std::ops::Range;
use std::sync::{Mutex, OnceLock};

use crate::document::ToolDocument;
use crate::error::SearchError;
use crate::expand::{self, QueryExpansion, Vocabulary};
use crate::field::{FIELDS, FieldWeights, OWN_FIELDS, SERVER};
use crate::pattern;
use crate::postings::{IN_OVERFLOW, Posting, pack, unpack};
use crate::reading::{self, Postings, Read, Scratch};
use crate::semantic::{self, Semantic, ToolVector, ToolVectors, tool_vector};

/// BM25's term-frequency saturation.
const K1: f32 = 1.2;

/// One tool found, with its score (higher is better; comparable within one search only).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Hit {
    /// The server's name.
    pub server: String,
    /// The tool's name on the server.
    pub tool: String,
    /// How well it matched.
    pub score: f32,
}

/// One server's tools, for [`ToolIndex::set_servers`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ServerTools {
    /// The server's name.
    pub server: String,
    /// Its instructions, indexed with each of its tools.
    pub instructions: Option<String>,
    /// Its tools.
    pub tools: Vec<ToolDocument>,
}

impl ServerTools {
    /// `server`'s `tools`, with its `instructions`.
    pub fn new(
        server: impl Into<String>,
        instructions: Option<String>,
        tools: Vec<ToolDocument>,
    ) -> Self {
        Self {
            server: server.into(),
            instructions,
            tools,
        }
    }
}

/// A document, where it stands in the index.
#[derive(Debug, Clone)]
struct Entry {
    document: ToolDocument,
    /// Words per field.
    lengths: [u32; FIELDS],
    live: bool,
}

/// A term in a server's name or instructions: it is in the server's field of each of the
/// server's documents, the entries `first..end`, this often.
#[derive(Debug, Clone, Copy)]
struct ServerPosting {
    first: u32,
    end: u32,
    frequency: u16,
}

/// One server as indexed: its documents (always neighbours) and the terms of its name and
/// instructions.
#[derive(Debug, Clone)]
struct Server {
    ids: Range<u32>,
    terms: Vec<u32>,
}

/// The index: six weighted fields per tool ranked by BM25F ([`FieldWeights`]), kept live one
/// server at a time ([`set_server`](Self::set_server), [`remove_server`](Self::remove_server)).
#[derive(Debug, Clone, Default)]
pub struct ToolIndex {
    weights: FieldWeights,
    expansion: QueryExpansion,
    semantic: Semantic,
    /// Each entry's word vector (made while `semantic` is on; see [`crate::semantic`]).
    vectors: ToolVectors,
    entries: Vec<Entry>,
    /// Each server's entries and terms.
    servers: BTreeMap<String, Server>,
    vocabulary: Vocabulary,
    /// Each term's documents (a term has none until a document holds it).
    postings: Vec<Vec<Posting>>,
    /// The frequencies of the postings that do not pack, where they point.
    overflow: Vec<[u16; OWN_FIELDS]>,
    /// Each term's servers, by the range of their documents.
    server_postings: Vec<Vec<ServerPosting>>,
    /// Per entry, each field's weight over its length normalisation (BM25F's), all zero for
    /// a dead entry: see [`Self::factors`]. Emptied by an update.
    factors: OnceLock<Vec<[f32; FIELDS]>>,
    /// What reading the documents needs, kept between servers.
    scratch: Scratch,
    /// A search's per-entry accumulators, kept for the next search.
    buffers: SearchBuffers,
    live: usize,
    /// The sum of each field's length over live documents.
    total_lengths: [u64; FIELDS],
}

impl ToolIndex {
    /// An empty index with the default field weights.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty index with these field weights.
    pub fn with_weights(weights: FieldWeights) -> Self {
        Self {
            weights,
            ..Self::default()
        }
    }

    /// Sets how much a query's inflections, synonyms and associated words count
    /// ([`QueryExpansion::NONE`] for plain BM25F over the words as written).
    pub fn set_expansion(&mut self, expansion: QueryExpansion) {
        self.expansion = expansion;
    }

    /// How much a query's inflections, synonyms and associated words count.
    pub fn expansion(&self) -> QueryExpansion {
        self.expansion
    }

    /// Sets how much the meaning of a query's words counts ([`Semantic::OFF`]: not at all,
    /// and no tool vectors are made). Turned on, the tools already indexed get their vectors.
    pub fn set_semantic(&mut self, semantic: Semantic) {
        let was_on = self.semantic.is_on();
        self.semantic = semantic;
        if semantic.is_on() && !was_on {
            self.vectors = ToolVectors::default();
            for (id, terms) in self.terms_by_entry().into_iter().enumerate() {
                if self.entries[id].live {
                    let id = u32::try_from(id).unwrap_or(u32::MAX);
                    self.vectors.set(id, tool_vector(terms.into_iter()));
                }
            }
        }
    }

    /// How much the meaning of a query's words counts.
    pub fn semantic(&self) -> Semantic {
        self.semantic
    }

    /// Each entry's terms, as their rows in the word vectors with their frequencies in the
    /// tool's own fields, read back from the postings in one pass (for word vectors turned on
    /// after tools were added).
    fn terms_by_entry(&self) -> Vec<Vec<(Option<u32>, [u16; OWN_FIELDS])>> {
        let mut terms = vec![Vec::new(); self.entries.len()];
        for (term, postings) in self.postings.iter().enumerate() {
            let row = self.vocabulary.row(u32::try_from(term).unwrap_or(u32::MAX));
            for posting in postings {
                let frequencies = unpack(posting.frequencies, &self.overflow);
                terms[posting.entry as usize].push((row, frequencies));
            }
        }
        terms
    }

    /// Replaces the documents of `server` with `tools` (its list changed, it reconnected, it
    /// was reloaded), its `instructions` indexed with each of them.
    pub fn set_server(
        &mut self,
        server: &str,
        instructions: Option<&str>,
        tools: Vec<ToolDocument>,
    ) {
        self.set_servers(vec![ServerTools::new(
            server,
            instructions.map(str::to_owned),
            tools,
        )]);
    }

    /// Replaces the documents of each of `servers` with its tools, as [`Self::set_server`]
    /// does one by one, but reading all their text at once, on several threads when there is
    /// much of it (a session's start, from its cache). A server named twice keeps its last
    /// tools.
    pub fn set_servers(&mut self, servers: Vec<ServerTools>) {
        let documents = servers.iter().map(|server| server.tools.len()).sum();
        self.set_servers_in(servers, reading::shares(documents));
    }

    /// [`Self::set_servers`], reading the documents in `shares` shares.
    pub(crate) fn set_servers_in(&mut self, mut servers: Vec<ServerTools>, shares: usize) {
        // The last of a name wins: the earlier ones are dropped, keeping the order.
        let mut seen = std::collections::HashSet::new();
        servers.reverse();
        servers.retain(|server| seen.insert(server.server.clone()));
        servers.reverse();
        for server in &servers {
            self.drop_server(&server.server);
        }
        let mut documents =
            Vec::with_capacity(servers.iter().map(|server| server.tools.len()).sum());
        let mut bounds = Vec::with_capacity(servers.len());
        for server in &mut servers {
            documents.append(&mut server.tools);
            bounds.push(documents.len());
        }
        let first = u32::try_from(self.entries.len()).unwrap_or(u32::MAX);
        let shares = reading::read(
            &self.vocabulary,
            &documents,
            first,
            self.semantic.is_on(),
            &mut self.scratch,
            shares,
        );
        if self.semantic.is_on() {
            self.vectors.reserve(documents.len());
        }
        self.entries.reserve(documents.len());
        let mut lengths = Vec::with_capacity(documents.len());
        let mut vectors = Vec::with_capacity(documents.len());
        for share in shares {
            self.join(share, &mut lengths, &mut vectors);
        }
        let mut documents = documents.into_iter().zip(lengths);
        let mut vectors = vectors.into_iter();
        let mut done = 0;
        for (server, end) in servers.into_iter().zip(bounds) {
            let (server_length, server_counts) = self.scratch.server_terms(
                &mut self.vocabulary,
                &server.server,
                server.instructions.as_deref(),
            );
            let first = u32::try_from(self.entries.len()).unwrap_or(u32::MAX);
            for (document, own) in documents.by_ref().take(end - done) {
                self.add(document, own, server_length, vectors.next());
            }
            done = end;
            let end = u32::try_from(self.entries.len()).unwrap_or(u32::MAX);
            if first < end {
                for (term, [frequency]) in &server_counts {
                    let term = *term as usize;
                    if self.server_postings.len() <= term {
                        self.server_postings.resize_with(term + 1, Vec::new);
                    }
                    self.server_postings[term].push(ServerPosting {
                        first,
                        end,
                        frequency: *frequency,
                    });
                }
            }
            let terms = server_counts.into_iter().map(|(term, _)| term).collect();
            self.servers.insert(
                server.server,
                Server {
                    ids: first..end,
                    terms,
                },
            );
        }
        self.factors.take();
    }

    /// Joins a share read to the index: its new words to the vocabulary, its postings to the
    /// terms', its documents' lengths and vectors to `lengths` and `vectors` (the documents
    /// themselves are added after).
    fn join(
        &mut self,
        read: Read,
        lengths: &mut Vec<[u32; OWN_FIELDS]>,
        vectors: &mut Vec<Option<ToolVector>>,
    ) {
        let known = read.known;
        let ids: Vec<u32> = read
            .new_words
            .into_iter()
            .map(|word| self.vocabulary.add_read(word))
            .collect();
        if self.postings.len() < self.vocabulary.len() {
            self.postings.resize_with(self.vocabulary.len(), Vec::new);
        }
        let moved = u32::try_from(self.overflow.len()).unwrap_or(u32::MAX);
        let term = |slot: usize| {
            if slot < known {
                slot
            } else {
                ids[slot - known] as usize
            }
        };
        match read.postings {
            Postings::InOrder(postings) => {
                for (slot, posting) in postings {
                    self.postings[term(slot)].push(posting.moved_overflow(moved));
                }
            }
            Postings::ByTerm(lists) => {
                for (slot, mut postings) in lists {
                    if !read.overflow.is_empty() {
                        for posting in &mut postings {
                            *posting = posting.moved_overflow(moved);
                        }
                    }
                    let held = &mut self.postings[term(slot)];
                    if held.is_empty() {
                        *held = postings;
                    } else {
                        held.append(&mut postings);
                    }
                }
            }
        }
        self.overflow.extend(read.overflow);
        lengths.extend(read.lengths);
        vectors.extend(read.vectors);
    }

    /// Drops every document of `server`.
    pub fn remove_server(&mut self, server: &str) {
        if self.drop_server(server) {
            self.factors.take();
        }
    }

    /// Drops every document of `server`; whether it had any.
    fn drop_server(&mut self, server: &str) -> bool {
        let Some(Server { ids, terms }) = self.servers.remove(server) else {
            return false;
        };
        if !ids.is_empty() {
            for term in terms {
                if let Some(postings) = self.server_postings.get_mut(term as usize) {
                    postings.retain(|posting| posting.first != ids.start);
                }
            }
        }
        for id in ids {
            self.kill(id);
        }
        let dead = self.entries.len() - self.live;
        if dead > self.live && dead > 64 {
            self.compact();
        }
        true
    }

    /// Each entry's field factors, for the field lengths as they now are: an update changes
    /// the average lengths every document is normalised by. Made by the first search after an
    /// update (a few microseconds per thousand tools), so that a search multiplies instead of
    /// dividing and a startup adding many servers does not remake them for each.
    fn factors(&self) -> &[[f32; FIELDS]] {
        self.factors.get_or_init(|| self.make_factors())
    }

    fn make_factors(&self) -> Vec<[f32; FIELDS]> {
        let averages = self.average_lengths();
        let fields = self.weights.fields;
        self.entries
            .iter()
            .map(|entry| {
                let mut factors = [0.0; FIELDS];
                if entry.live {
                    for (field, factor) in factors.iter_mut().enumerate() {
                        let (weight, b) = fields[field];
                        let length = entry.lengths[field] as f32;
                        *factor = weight / (1.0 - b + b * length / averages[field].max(1.0));
                    }
                }
                factors
            })
            .collect()
    }

    /// How many tools the index holds.
    pub fn len(&self) -> usize {
        self.live
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// The servers indexed, with how many tools each.
    pub fn servers(&self) -> impl Iterator<Item = (&str, usize)> {
        self.servers
            .iter()
            .map(|(server, record)| (server.as_str(), record.ids.len()))
    }

    /// The document of `tool` on `server`, if indexed.
    pub fn document(&self, server: &str, tool: &str) -> Option<&ToolDocument> {
        self.servers
            .get(server)?
            .ids
            .clone()
            .map(|id| &self.entries[id as usize].document)
            .find(|document| document.tool == tool)
    }

    /// Every document indexed (of `server` only, when given), in server order.
    pub fn documents(&self, server: Option<&str>) -> Vec<&ToolDocument> {
        self.servers
            .iter()
            .filter(|(name, _)| server.is_none_or(|server| server == name.as_str()))
            .flat_map(|(_, record)| {
                record
                    .ids
                    .clone()
                    .map(|id| &self.entries[id as usize].document)
            })
            .collect()
    }

    /// The best `limit` tools for `query`, best first (among `server`'s tools only, when
    /// given). A query written `/…/` is a regular expression over the tools' names, titles and
    /// descriptions (case-insensitive; see [`crate::pattern`]); any other query is words,
    /// ranked by BM25F. Ties go to the server's and the tool's name, so a search always gives
    /// the same answer.
    pub fn search(
        &self,
        query: &str,
        limit: usize,
        server: Option<&str>,
    ) -> Result<Vec<Hit>, SearchError> {
        if let Some(expression) = pattern::of_query(query) {
            let regex = pattern::compile(expression)?;
            let mut hits: Vec<Hit> = self
                .documents(server)
                .into_iter()
                .filter_map(|document| {
                    let score = pattern::score(&regex, document)?;
                    Some(hit(document, score))
                })
                .collect();
            sort_hits(&mut hits);
            hits.truncate(limit);
            return Ok(hits);
        }
        Ok(self.ranked(query, limit, server))
    }

    /// BM25F over the query's words and the words related to them.
    fn ranked(&self, query: &str, limit: usize, server: Option<&str>) -> Vec<Hit> {
        let groups = expand::groups(query, &self.vocabulary, &self.expansion);
        // A query none of whose words a tool has may still mean what a tool does.
        let meaning = self
            .semantic
            .is_on()
            .then(|| semantic::query_vector(query))
            .flatten();
        if (groups.is_empty() && meaning.is_none()) || self.live == 0 || limit == 0 {
            return Vec::new();
        }
        let documents = self.live as f32;
        let factors = self.factors();
        // Dense per-document accumulators: a search touches a share of the index, and
        // indexing by entry beats hashing it. The documents a group reaches and those the
        // search scores are listed without a branch (written at the end, counted when new):
        // whether a document is new is a coin toss no predictor learns.
        let entries = self.entries.len();
        let mut buffers = self.buffers.take(entries);
        let Buffers {
            scores,
            touched,
            frequencies,
            in_group,
            from_server,
        } = &mut buffers;
        let mut touched_count = 0;
        // The best score so far (scores only grow, so the best of every sum made is the best).
        let mut best = 0.0_f32;
        let mut holding = 0;
        for group in groups {
            for (term, share) in &group.terms {
                let term = *term as usize;
                let postings = self.postings.get(term).map_or(&[][..], Vec::as_slice);
                let servers = self
                    .server_postings
                    .get(term)
                    .map_or(&[][..], Vec::as_slice);
                for posting in servers {
                    for id in posting.first..posting.end {
                        let factor = factors[id as usize][SERVER];
                        from_server[id as usize] = f32::from(posting.frequency) * factor;
                    }
                }
                let mut add = |id: u32, weighted: f32| {
                    // A dead entry's factors are zero.
                    if weighted <= 0.0 {
                        return;
                    }
                    let frequency = &mut frequencies[id as usize];
                    in_group[holding] = id;
                    holding += usize::from(*frequency == 0.0);
                    *frequency += weighted;
                };
                for posting in postings {
                    let mut frequency = self.own_frequency(factors, posting);
                    if !servers.is_empty() {
                        // The server's field comes last, as in the sum over all six.
                        frequency += std::mem::take(&mut from_server[posting.entry as usize]);
                    }
                    add(posting.entry, share * frequency);
                }
                // The documents holding the term in their server's field alone.
                for posting in servers {
                    for id in posting.first..posting.end {
                        add(id, share * std::mem::take(&mut from_server[id as usize]));
                    }
                }
            }
            // The group's rarity: the tools holding any of its terms.
            let idf = (1.0 + (documents - holding as f32 + 0.5) / (holding as f32 + 0.5)).ln();
            for id in &in_group[..holding] {
                let frequency = std::mem::take(&mut frequencies[*id as usize]);
                let score = &mut scores[*id as usize];
                touched[touched_count] = *id;
                touched_count += usize::from(*score == 0.0);
                *score += group.weight * idf * frequency * (K1 + 1.0) / (frequency + K1);
                best = best.max(*score);
            }
            holding = 0;
        }
        if let Some(meaning) = &meaning {
            let weight = self.semantic.weight;
            touched_count =
                self.vectors
                    .fuse(meaning, weight, best, scores, touched, touched_count);
        }
        // The limit-th best score, by score alone (comparing numbers, not names): only the
        // tools scoring at least that can be among the best, ties included, and only they are
        // gathered and ordered by name as well.
        let scored = touched[..touched_count]
            .iter()
            .filter(|id| {
                server.is_none_or(|server| server == self.entries[**id as usize].document.server)
            })
            .map(|id| (*id, scores[*id as usize]));
        let least = least_of_best(scored.clone().map(|(_, score)| score), limit);
        let mut found: Vec<(u32, f32)> = scored
            .filter(|(_, score)| score.total_cmp(&least).is_ge())
            .collect();
        for id in &touched[..touched_count] {
            scores[*id as usize] = 0.0;
        }
        self.buffers.put(buffers);
        let document = |id: u32| &self.entries[id as usize].document;
        found.sort_by(|a, b| {
            b.1.total_cmp(&a.1)
                .then_with(|| document(a.0).server.cmp(&document(b.0).server))
                .then_with(|| document(a.0).tool.cmp(&document(b.0).tool))
        });
        found.truncate(limit);
        found
            .into_iter()
            .map(|(id, score)| hit(document(id), score))
            .collect()
    }

    /// A term's frequency in a document's own fields (all but the server's), each field's
    /// weighted and length-normalised (0 in a dead document).
    fn own_frequency(&self, factors: &[[f32; FIELDS]], posting: &Posting) -> f32 {
        let frequencies = unpack(posting.frequencies, &self.overflow);
        let factors = &factors[posting.entry as usize];
        frequencies
            .iter()
            .zip(factors)
            .map(|(frequency, factor)| f32::from(*frequency) * factor)
            .sum()
    }

    fn average_lengths(&self) -> [f32; FIELDS] {
        let documents = self.live.max(1) as f32;
        self.total_lengths.map(|total| total as f32 / documents)
    }

    /// Adds `document`, whose postings are in, whose own fields are `own` words long and its
    /// server's field `server_length`, with its vector (when vectors are made).
    fn add(
        &mut self,
        document: ToolDocument,
        own: [u32; OWN_FIELDS],
        server_length: u32,
        vector: Option<Option<ToolVector>>,
    ) {
        let id = u32::try_from(self.entries.len()).unwrap_or(u32::MAX);
        if let Some(vector) = vector {
            self.vectors.set(id, vector);
        }
        let mut lengths = [0; FIELDS];
        lengths[..OWN_FIELDS].copy_from_slice(&own);
        lengths[SERVER] = server_length;
        for (total, length) in self.total_lengths.iter_mut().zip(lengths) {
            *total += u64::from(length);
        }
        self.live += 1;
        self.entries.push(Entry {
            document,
            lengths,
            live: true,
        });
    }

    /// Marks an entry dead and takes its statistics out.
    fn kill(&mut self, id: u32) {
        let entry = &mut self.entries[id as usize];
        if !entry.live {
            return;
        }
        entry.live = false;
        self.vectors.remove(id);
        for (total, length) in self.total_lengths.iter_mut().zip(entry.lengths) {
            *total -= u64::from(length);
        }
        self.live -= 1;
    }

    /// Drops dead entries and their postings, renumbering the living.
    fn compact(&mut self) {
        let mut renumbered = vec![u32::MAX; self.entries.len()];
        let mut kept = Vec::with_capacity(self.live);
        for (old, entry) in std::mem::take(&mut self.entries).into_iter().enumerate() {
            if entry.live {
                renumbered[old] = u32::try_from(kept.len()).unwrap_or(u32::MAX);
                kept.push(entry);
            }
        }
        self.entries = kept;
        self.vectors.compact(&renumbered);
        let overflow = std::mem::take(&mut self.overflow);
        for postings in &mut self.postings {
            postings.retain_mut(|posting| {
                let new = renumbered[posting.entry as usize];
                posting.entry = new;
                if posting.frequencies & IN_OVERFLOW != 0 {
                    let frequencies = unpack(posting.frequencies, &overflow);
                    posting.frequencies = pack(frequencies, &mut self.overflow);
                }
                new != u32::MAX
            });
        }
        // A live server's documents are all alive, and stay neighbours.
        let moved = |ids: Range<u32>| match renumbered.get(ids.start as usize) {
            Some(first) if !ids.is_empty() => *first..*first + ids.len() as u32,
            _ => 0..0,
        };
        for postings in &mut self.server_postings {
            for posting in postings {
                let ids = moved(posting.first..posting.end);
                (posting.first, posting.end) = (ids.start, ids.end);
            }
        }
        for record in self.servers.values_mut() {
            record.ids = moved(record.ids.clone());
        }
    }
}

/// The least of the `limit` best of `scores` (by [`f32::total_cmp`]; at least one score, and
/// `limit` at least 1): a heap of the best so far, which a score rarely enters once it is
/// full.
fn least_of_best(scores: impl Iterator<Item = f32>, limit: usize) -> f32 {
    // `total_cmp`'s order, as integers.
    let key = |score: f32| {
        let bits = score.to_bits() as i32;
        bits ^ (((bits >> 31) as u32) >> 1) as i32
    };
    let mut best: BinaryHeap<Reverse<(i32, u32)>> = BinaryHeap::with_capacity(limit + 1);
    for score in scores {
        let entry = Reverse((key(score), score.to_bits()));
        if best.len() < limit {
            best.push(entry);
        } else if best.peek().is_some_and(|least| entry < *least) {
            best.pop();
            best.push(entry);
        }
    }
    best.peek().map_or(f32::NEG_INFINITY, |Reverse((_, bits))| {
        f32::from_bits(*bits)
    })
}

fn hit(document: &ToolDocument, score: f32) -> Hit {
    Hit {
        server: document.server.clone(),
        tool: document.tool.clone(),
        score,
    }
}

/// Best first; ties by server, then tool.
fn sort_hits(hits: &mut [Hit]) {
    hits.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a.server.cmp(&b.server))
            .then_with(|| a.tool.cmp(&b.tool))
    });
}

/// A search's accumulators, kept from one search to the next: a search of a large index would
/// otherwise allocate and clear a few hundred kilobytes each time. One search holds them at a
/// time; a search that finds them held (by another thread) makes its own.
#[derive(Debug, Default)]
struct SearchBuffers(Mutex<Option<Buffers>>);

impl Clone for SearchBuffers {
    /// A copy of an index starts without buffers.
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl SearchBuffers {
    /// The buffers, with a slot for each of `entries` entries.
    fn take(&self, entries: usize) -> Buffers {
        let mut buffers = self
            .0
            .try_lock()
            .ok()
            .and_then(|mut kept| kept.take())
            .unwrap_or_default();
        buffers.scores.resize(entries, 0.0);
        buffers.touched.resize(entries + 1, 0);
        buffers.frequencies.resize(entries, 0.0);
        buffers.in_group.resize(entries + 1, 0);
        buffers.from_server.resize(entries, 0.0);
        buffers
    }

    /// Keeps `buffers` for the next search: their scores, frequencies and server frequencies
    /// must be all zero again.
    fn put(&self, buffers: Buffers) {
        if let Ok(mut kept) = self.0.try_lock() {
            *kept = Some(buffers);
        }
    }
}

/// A search's per-entry accumulators ([`ToolIndex::search`] says what each holds).
#[derive(Debug, Default)]
struct Buffers {
    /// Each entry's score (zero when not scored).
    scores: Vec<f32>,
    /// The scored entries, in the order first scored.
    touched: Vec<u32>,
    /// Each entry's weighted frequency of the group being scored.
    frequencies: Vec<f32>,
    /// The entries the group being scored reaches.
    in_group: Vec<u32>,
    /// A term's frequency in each entry's server field, until added to its own fields'.
    from_server: Vec<f32>,
}
