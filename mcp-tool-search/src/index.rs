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
//! whose score counts at its weight.
//!
//! Kept live at the cost of one server's tools: [`ToolIndex::set_server`] replaces a server's
//! documents (a list change, a reconnect, a reload) and [`ToolIndex::remove_server`] drops
//! them. A replaced document is marked dead where it stands, its statistics taken out at once,
//! and the postings are compacted when the dead outnumber the living, so an update costs what
//! the server's own documents cost, never a rebuild of the whole index.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use crate::document::ToolDocument;
use crate::expand::{self, QueryExpansion, Vocabulary};
use crate::pattern;
use crate::text::for_each_word;

/// How many fields a document has.
const FIELDS: usize = 6;

/// BM25's term-frequency saturation.
const K1: f32 = 1.2;

/// The fields of a document, in the order of [`FieldWeights`].
#[derive(Debug, Clone, Copy)]
enum Field {
    Name = 0,
    Title = 1,
    Description = 2,
    ParameterName = 3,
    ParameterText = 4,
    Server = 5,
}

/// The weight and the length normalisation (`b`, 0 to 1) of each field.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct FieldWeights {
    /// `(weight, b)` of: the tool's name, its title, its description, its parameters' names,
    /// their descriptions, and its server's name and instructions.
    pub fields: [(f32, f32); FIELDS],
}

impl Default for FieldWeights {
    /// Names over titles over descriptions; parameters and the server below them.
    fn default() -> Self {
        Self {
            fields: [
                (3.0, 0.3),
                (2.0, 0.3),
                (1.0, 0.75),
                (1.0, 0.5),
                (0.5, 0.75),
                (0.5, 0.75),
            ],
        }
    }
}

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

/// Why a search could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SearchError {
    /// A `/…/` query's pattern is not one the search runs.
    #[error("the pattern /{pattern}/ cannot be used: {reason}")]
    Pattern {
        /// The pattern as given (cut after 200 characters).
        pattern: String,
        /// Why.
        reason: String,
    },
}

/// A document, where it stands in the index.
#[derive(Debug, Clone)]
struct Entry {
    document: ToolDocument,
    /// Words per field.
    lengths: [u32; FIELDS],
    live: bool,
}

/// A term in one document: how often in each field.
#[derive(Debug, Clone, Copy)]
struct Posting {
    entry: u32,
    frequencies: [u16; FIELDS],
}

/// The index: six weighted fields per tool ranked by BM25F ([`FieldWeights`]), kept live one
/// server at a time ([`set_server`](Self::set_server), [`remove_server`](Self::remove_server)).
#[derive(Debug, Clone, Default)]
pub struct ToolIndex {
    weights: FieldWeights,
    expansion: QueryExpansion,
    entries: Vec<Entry>,
    /// Each server's entries.
    servers: BTreeMap<String, Vec<u32>>,
    vocabulary: Vocabulary,
    /// Each term's documents (a term has none until a document holds it).
    postings: Vec<Vec<Posting>>,
    /// Per entry, each field's weight over its length normalisation (BM25F's), all zero for
    /// a dead entry: see [`Self::factors`]. Emptied by an update.
    factors: OnceLock<Vec<[f32; FIELDS]>>,
    /// Scratch for [`Counter`], kept between documents: all zero outside `add`.
    slots: Vec<u32>,
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

    /// Replaces the documents of `server` with `tools` (its list changed, it reconnected, it
    /// was reloaded), its `instructions` indexed with each of them.
    pub fn set_server(
        &mut self,
        server: &str,
        instructions: Option<&str>,
        tools: Vec<ToolDocument>,
    ) {
        self.drop_server(server);
        let mut server_terms = Vec::new();
        for text in std::iter::once(server).chain(instructions) {
            for_each_word(text, |word| server_terms.push(self.vocabulary.insert(word)));
        }
        let mut ids = Vec::with_capacity(tools.len());
        for document in tools {
            ids.push(self.add(document, &server_terms));
        }
        self.servers.insert(server.to_owned(), ids);
        self.factors.take();
    }

    /// Drops every document of `server`.
    pub fn remove_server(&mut self, server: &str) {
        if self.drop_server(server) {
            self.factors.take();
        }
    }

    /// Drops every document of `server`; whether it had any.
    fn drop_server(&mut self, server: &str) -> bool {
        let Some(ids) = self.servers.remove(server) else {
            return false;
        };
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
            .map(|(server, ids)| (server.as_str(), ids.len()))
    }

    /// The document of `tool` on `server`, if indexed.
    pub fn document(&self, server: &str, tool: &str) -> Option<&ToolDocument> {
        self.servers
            .get(server)?
            .iter()
            .map(|id| &self.entries[*id as usize].document)
            .find(|document| document.tool == tool)
    }

    /// Every document indexed (of `server` only, when given), in server order.
    pub fn documents(&self, server: Option<&str>) -> Vec<&ToolDocument> {
        self.servers
            .iter()
            .filter(|(name, _)| server.is_none_or(|server| server == name.as_str()))
            .flat_map(|(_, ids)| ids.iter().map(|id| &self.entries[*id as usize].document))
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
        if groups.is_empty() || self.live == 0 || limit == 0 {
            return Vec::new();
        }
        let documents = self.live as f32;
        let factors = self.factors();
        // Dense per-document accumulators: a search touches a share of the index, and
        // indexing by entry beats hashing it.
        let mut scores = vec![0.0_f32; self.entries.len()];
        let mut touched: Vec<u32> = Vec::new();
        let mut frequencies = vec![0.0_f32; self.entries.len()];
        let mut in_group: Vec<u32> = Vec::new();
        for group in groups {
            for (term, share) in &group.terms {
                let postings = self
                    .postings
                    .get(*term as usize)
                    .map_or(&[][..], Vec::as_slice);
                for posting in postings {
                    // A dead entry's factors are zero.
                    let weighted = share * Self::weighted_frequency(factors, posting);
                    if weighted <= 0.0 {
                        continue;
                    }
                    let frequency = &mut frequencies[posting.entry as usize];
                    if *frequency == 0.0 {
                        in_group.push(posting.entry);
                    }
                    *frequency += weighted;
                }
            }
            // The group's rarity: the tools holding any of its terms.
            let holding = in_group.len() as f32;
            let idf = (1.0 + (documents - holding + 0.5) / (holding + 0.5)).ln();
            for id in in_group.drain(..) {
                let frequency = std::mem::take(&mut frequencies[id as usize]);
                let score = &mut scores[id as usize];
                if *score == 0.0 {
                    touched.push(id);
                }
                *score += group.weight * idf * frequency * (K1 + 1.0) / (frequency + K1);
            }
        }
        let mut found: Vec<(&ToolDocument, f32)> = touched
            .into_iter()
            .map(|id| (&self.entries[id as usize].document, scores[id as usize]))
            .filter(|(document, _)| server.is_none_or(|server| server == document.server))
            .collect();
        let order = |a: &(&ToolDocument, f32), b: &(&ToolDocument, f32)| {
            b.1.total_cmp(&a.1)
                .then_with(|| a.0.server.cmp(&b.0.server))
                .then_with(|| a.0.tool.cmp(&b.0.tool))
        };
        if found.len() > limit {
            found.select_nth_unstable_by(limit - 1, order);
            found.truncate(limit);
        }
        found.sort_by(order);
        found
            .into_iter()
            .map(|(document, score)| hit(document, score))
            .collect()
    }

    /// A term's frequency in a document, each field's weighted and length-normalised (0 in a
    /// dead document).
    fn weighted_frequency(factors: &[[f32; FIELDS]], posting: &Posting) -> f32 {
        let factors = &factors[posting.entry as usize];
        posting
            .frequencies
            .iter()
            .zip(factors)
            .map(|(frequency, factor)| f32::from(*frequency) * factor)
            .sum()
    }

    fn average_lengths(&self) -> [f32; FIELDS] {
        let documents = self.live.max(1) as f32;
        self.total_lengths.map(|total| total as f32 / documents)
    }

    /// Adds `document` (its server's terms given); its id.
    fn add(&mut self, document: ToolDocument, server_terms: &[u32]) -> u32 {
        let id = u32::try_from(self.entries.len()).unwrap_or(u32::MAX);
        let mut counter = Counter {
            vocabulary: &mut self.vocabulary,
            slots: &mut self.slots,
            counts: Vec::new(),
            lengths: [0; FIELDS],
        };
        counter.text(Field::Name, &document.tool);
        if let Some(title) = &document.title {
            counter.text(Field::Title, title);
        }
        counter.text(Field::Description, &document.description);
        for parameter in &document.parameters {
            counter.text(Field::ParameterName, &parameter.name);
            if let Some(description) = &parameter.description {
                counter.text(Field::ParameterText, description);
            }
        }
        for term in server_terms {
            counter.count(*term, Field::Server);
        }
        let Counter {
            counts, lengths, ..
        } = counter;
        for (term, frequencies) in counts {
            let term = term as usize;
            self.slots[term] = 0;
            if self.postings.len() <= term {
                self.postings.resize_with(term + 1, Vec::new);
            }
            self.postings[term].push(Posting {
                entry: id,
                frequencies,
            });
        }
        for (total, length) in self.total_lengths.iter_mut().zip(lengths) {
            *total += u64::from(length);
        }
        self.live += 1;
        self.entries.push(Entry {
            document,
            lengths,
            live: true,
        });
        id
    }

    /// Marks an entry dead and takes its statistics out.
    fn kill(&mut self, id: u32) {
        let entry = &mut self.entries[id as usize];
        if !entry.live {
            return;
        }
        entry.live = false;
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
        for postings in &mut self.postings {
            postings.retain_mut(|posting| {
                let new = renumbered[posting.entry as usize];
                posting.entry = new;
                new != u32::MAX
            });
        }
        for ids in self.servers.values_mut() {
            for id in ids.iter_mut() {
                *id = renumbered[*id as usize];
            }
        }
    }
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

/// The terms of one document as it is added, counted per field.
struct Counter<'a> {
    vocabulary: &'a mut Vocabulary,
    /// Per term, 1 + its place in `counts` while the document is counted (0: not in it), so
    /// a word is counted without hashing its term again.
    slots: &'a mut Vec<u32>,
    counts: Vec<(u32, [u16; FIELDS])>,
    lengths: [u32; FIELDS],
}

impl Counter<'_> {
    fn text(&mut self, field: Field, text: &str) {
        let Self {
            vocabulary,
            slots,
            counts,
            lengths,
        } = self;
        for_each_word(text, |word| {
            let term = vocabulary.insert(word);
            count(slots, counts, lengths, term, field);
        });
    }

    fn count(&mut self, term: u32, field: Field) {
        count(self.slots, &mut self.counts, &mut self.lengths, term, field);
    }
}

fn count(
    slots: &mut Vec<u32>,
    counts: &mut Vec<(u32, [u16; FIELDS])>,
    lengths: &mut [u32; FIELDS],
    term: u32,
    field: Field,
) {
    let at = term as usize;
    if slots.len() <= at {
        slots.resize(at + 1, 0);
    }
    if slots[at] == 0 {
        counts.push((term, [0; FIELDS]));
        slots[at] = u32::try_from(counts.len()).unwrap_or(u32::MAX);
    }
    let slot = &mut counts[slots[at] as usize - 1].1[field as usize];
    *slot = slot.saturating_add(1);
    lengths[field as usize] += 1;
}
