//! Word meaning for the ranking: a vector per word, learned offline from a sentence-embedding
//! model and embedded in the crate (`data/word_vectors.bin`), so a query finds a tool whose
//! words mean what its own words mean even when they share none ("grab an image of what is
//! on screen" → `browser_take_screenshot`, among the first five of 471 tools). Nothing outside
//! is asked at run time.
//!
//! The table ([`WordVectors`]) holds a vector for each of about 18,000 stems (the words of
//! Debian's package descriptions and WordNet's tagged lemmas). They were fitted offline so that
//! the mean of a sentence's word vectors is what the model all-MiniLM-L6-v2 makes of the whole
//! sentence, over 120,000 sentences (package descriptions, WordNet's definitions and examples),
//! starting from the model's embedding of each word alone; then reduced by PCA to [`DIM`]
//! dimensions and quantised to `i8` with a scale per word (`data/README.md` says how, and
//! where from). The table is read on first use, borrowing the embedded bytes: only the stems'
//! map and the scales are built.
//!
//! A tool's vector is the sum of its words' vectors, each weighted by the fields it stands in
//! ([`FIELD_WEIGHTS`]: a word of the name says more than one of a parameter's description),
//! made unit length when its server is set ([`tool_vector`]), so an update costs that
//! server's tools only. A query's vector is the sum of its words' vectors. The cosine of the
//! two, [`Semantic::weight`] times, is added to the tool's BM25F score as if that were divided
//! by the best of the search ([`ToolVectors::fuse`]): a tool the words find keeps its lead
//! when its meaning agrees, and one only the meaning finds can rise among them. On a large
//! index the cosine is computed for the tools most likely to rank, picked by a first pass over
//! the vectors' principal components.
//!
//! Written here rather than taken from a crate: the few crates that read embedding tables
//! (`model2vec-rs`, `finalfusion`) bring a tokenizer or a file format and a dependency tree for
//! what is a map of stems and a dot product.

use std::collections::HashMap;
use std::sync::LazyLock;

use foldhash::fast::FixedState;

use crate::text::{stem, words};

/// The dimension of the word vectors (the table says it too; a table of another dimension
/// does not load).
pub(crate) const DIM: usize = 128;

/// How much each field's words count in a tool's vector, in the order of the index's fields:
/// name, title, description, parameter names, parameter descriptions (the server's name and
/// instructions are left out: they are the same for all its tools).
const FIELD_WEIGHTS: [f32; 5] = [3.0, 2.0, 1.0, 0.5, 0.3];

/// The table's first bytes.
const MAGIC: &[u8; 8] = b"MCPTSWV1";

/// The embedded table.
static EMBEDDED: &[u8] = include_bytes!("../data/word_vectors.bin");

static TABLE: LazyLock<WordVectors> =
    LazyLock::new(|| WordVectors::parse(EMBEDDED).unwrap_or_default());

/// How much the meaning of a query's words counts beside its words.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct Semantic {
    /// The cosine of the query's and a tool's vectors counts this much beside the tool's
    /// BM25F score divided by the search's best (0: word vectors are not used, nor made;
    /// the default, 3, is the best of a sweep on the quality bench's development queries).
    pub weight: f32,
}

impl Semantic {
    /// Word vectors off: the ranking is BM25F over the words alone.
    pub const OFF: Self = Self { weight: 0.0 };

    /// With this weight.
    pub fn new(weight: f32) -> Self {
        Self { weight }
    }

    pub(crate) fn is_on(self) -> bool {
        self.weight > 0.0
    }
}

impl Default for Semantic {
    /// The weight measured best on the development queries of the quality bench.
    fn default() -> Self {
        Self::new(3.0)
    }
}

/// The embedded word vectors: a stem's row, and each row's scale and int8 components.
#[derive(Debug, Default)]
pub(crate) struct WordVectors {
    rows: HashMap<&'static str, u32, FixedState>,
    scales: Vec<f32>,
    components: &'static [u8],
}

/// Why a table does not load (the tests check that the embedded one does).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct BadTable(&'static str);

impl WordVectors {
    /// Reads the layout `data/vectors/word_vectors.py` writes: the magic, rows (u32), dim
    /// (u32), a checksum (u64, checked by the tests, not here: it costs a pass over the
    /// bytes), then each stem (u8 length, bytes), each scale (f32), each row's components.
    pub(crate) fn parse(bytes: &'static [u8]) -> Result<Self, BadTable> {
        let mut reader = Reader { bytes, at: 0 };
        if reader.take(8)? != MAGIC {
            return Err(BadTable("not a word vector table"));
        }
        let rows = reader.u32()? as usize;
        if reader.u32()? as usize != DIM {
            return Err(BadTable("vectors of another dimension"));
        }
        reader.take(8)?;
        let mut map = HashMap::with_capacity_and_hasher(rows, FixedState::default());
        for row in 0..rows {
            let length = usize::from(reader.take(1)?[0]);
            let stem = std::str::from_utf8(reader.take(length)?)
                .map_err(|_| BadTable("a stem is not UTF-8"))?;
            map.insert(stem, u32::try_from(row).unwrap_or(u32::MAX));
        }
        let scales = reader
            .take(rows * 4)?
            .chunks_exact(4)
            .map(|chunk| f32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]))
            .collect();
        let components = reader.take(rows * DIM)?;
        if reader.at != bytes.len() {
            return Err(BadTable("bytes after the last row"));
        }
        Ok(Self {
            rows: map,
            scales,
            components,
        })
    }

    /// The row of `stem`, if it has a vector.
    pub(crate) fn row(&self, stem: &str) -> Option<u32> {
        self.rows.get(stem).copied()
    }

    /// Adds `weight` times row `row`'s vector to `sum`.
    fn add_to(&self, sum: &mut [f32; DIM], row: u32, weight: f32) {
        let row = row as usize;
        let scale = weight * self.scales[row];
        let components = &self.components[row * DIM..(row + 1) * DIM];
        for (total, component) in sum.iter_mut().zip(components) {
            *total += scale * f32::from(i8::from_le_bytes([*component]));
        }
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.rows.len()
    }
}

struct Reader {
    bytes: &'static [u8],
    at: usize,
}

impl Reader {
    fn take(&mut self, count: usize) -> Result<&'static [u8], BadTable> {
        let bytes = self
            .bytes
            .get(self.at..self.at + count)
            .ok_or(BadTable("the table ends early"))?;
        self.at += count;
        Ok(bytes)
    }

    fn u32(&mut self) -> Result<u32, BadTable> {
        let bytes = self.take(4)?;
        Ok(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
    }
}

/// The row of the embedded table for `word`'s stem (`None`: the word has no vector), for the
/// index's vocabulary to keep beside each term.
pub(crate) fn row_of_stem(stem: &str) -> Option<u32> {
    TABLE.row(stem)
}

/// A query's or a tool's vector, made unit length, and its first [`COARSE`] components apart
/// (the first pass of [`ToolVectors::fuse`] reads those alone, one after another).
///
/// In `f32`: a product of two vectors is then a loop the compiler turns into vector
/// instructions on any x86-64 (of the integer forms tried, `i8` and `i16`, neither was).
#[derive(Debug, Clone)]
pub(crate) struct Meaning {
    head: [f32; COARSE],
    full: [f32; DIM],
}

impl Meaning {
    /// `sum` made unit length; `None` when it is zero (no word had a vector).
    fn unit(mut sum: [f32; DIM]) -> Option<Self> {
        let norm = dot(&sum, &sum).sqrt();
        if norm <= 0.0 || !norm.is_finite() {
            return None;
        }
        let inverse = norm.recip();
        for component in &mut sum {
            *component *= inverse;
        }
        Some(Self {
            head: std::array::from_fn(|component| sum[component]),
            full: sum,
        })
    }
}

/// The query's vector: the sum of its words' vectors (each stem once).
pub(crate) fn query_vector(query: &str) -> Option<Meaning> {
    let table = &*TABLE;
    let mut sum = [0.0_f32; DIM];
    let mut seen: Vec<u32> = Vec::new();
    for word in words(query) {
        let Some(row) = table.row(&stem(&word)) else {
            continue;
        };
        if !seen.contains(&row) {
            seen.push(row);
            table.add_to(&mut sum, row, 1.0);
        }
    }
    Meaning::unit(sum)
}

/// The tools' vectors, by the index's entry (zero for a tool without one, or a dead one):
/// each quantised to `i8` with a scale (a quarter of the memory of `f32`, and a quarter of the
/// cache lines [`Self::fuse`] reads for a tool), and apart their first [`COARSE`] components
/// in `f32`, component by component: the first pass of [`Self::fuse`] adds one component of
/// every tool at a time, a loop over two arrays the compiler runs four tools to an
/// instruction.
#[derive(Debug, Clone, Default)]
pub(crate) struct ToolVectors {
    heads: [Vec<f32>; COARSE],
    vectors: Vec<[i8; DIM]>,
    scales: Vec<f32>,
}

/// A tool's vector as [`ToolVectors`] keeps it: unit length, its first [`COARSE`] components
/// apart, all of them quantised to `i8` with a scale.
#[derive(Debug, Clone)]
pub(crate) struct ToolVector {
    head: [f32; COARSE],
    quantised: [i8; DIM],
    scale: f32,
}

/// The vector of a tool with `terms` (each term's row in the table, if any, and how often it
/// stands in each field); `None` when no term has a row.
pub(crate) fn tool_vector(
    terms: impl Iterator<Item = (Option<u32>, [u16; 5])>,
) -> Option<ToolVector> {
    let table = &*TABLE;
    let mut sum = [0.0_f32; DIM];
    for (row, frequencies) in terms {
        let Some(row) = row else {
            continue;
        };
        let weight: f32 = frequencies
            .iter()
            .zip(FIELD_WEIGHTS)
            .map(|(frequency, weight)| f32::from(*frequency) * weight)
            .sum();
        table.add_to(&mut sum, row, weight.sqrt());
    }
    let meaning = Meaning::unit(sum)?;
    let largest = meaning.full.iter().fold(0.0_f32, |max, x| max.max(x.abs()));
    let step = largest / 127.0;
    let per_step = 127.0 / largest;
    let mut quantised = [0_i8; DIM];
    for (quantised, component) in quantised.iter_mut().zip(meaning.full) {
        // In -127..=127: |component| ≤ largest; rounded half away from zero (`f32::round`
        // is a call into libm where SSE4.1 is not assumed).
        *quantised = (component * per_step + 0.5_f32.copysign(component)) as i8;
    }
    Some(ToolVector {
        head: meaning.head,
        quantised,
        scale: step,
    })
}

impl ToolVectors {
    /// Sets entry `entry`'s vector (`None`: it has none).
    pub(crate) fn set(&mut self, entry: u32, vector: Option<ToolVector>) {
        let entry = entry as usize;
        if self.vectors.len() <= entry {
            for head in &mut self.heads {
                head.resize(entry + 1, 0.0);
            }
            self.vectors.resize(entry + 1, [0; DIM]);
            self.scales.resize(entry + 1, 0.0);
        }
        let (head, quantised, scale) = match vector {
            Some(vector) => (vector.head, vector.quantised, vector.scale),
            None => ([0.0; COARSE], [0; DIM], 0.0),
        };
        for (heads, component) in self.heads.iter_mut().zip(head) {
            heads[entry] = component;
        }
        self.vectors[entry] = quantised;
        self.scales[entry] = scale;
    }

    /// Room for `more` entries beyond those it has.
    pub(crate) fn reserve(&mut self, more: usize) {
        for head in &mut self.heads {
            head.reserve(more);
        }
        self.vectors.reserve(more);
        self.scales.reserve(more);
    }

    /// Forgets entry `entry`'s vector (the tool left the index).
    pub(crate) fn remove(&mut self, entry: u32) {
        if let Some(scale) = self.scales.get_mut(entry as usize) {
            *scale = 0.0;
            for head in &mut self.heads {
                head[entry as usize] = 0.0;
            }
        }
    }

    /// Keeps the entries whose new number `renumbered` gives (`u32::MAX`: dropped), in order.
    pub(crate) fn compact(&mut self, renumbered: &[u32]) {
        let mut kept = 0;
        for (old, new) in renumbered.iter().enumerate() {
            if *new != u32::MAX && old < self.vectors.len() {
                for head in &mut self.heads {
                    head[kept] = head[old];
                }
                self.vectors[kept] = self.vectors[old];
                self.scales[kept] = self.scales[old];
                kept += 1;
            }
        }
        for head in &mut self.heads {
            head.truncate(kept);
        }
        self.vectors.truncate(kept);
        self.scales.truncate(kept);
    }

    /// Adds to the scores of the tools most likely to rank their cosine with `query` (when
    /// above zero) times `weight` times `best`, the best score: as if every score were divided
    /// by the best before `weight` times the cosine is added, in the words' own units (without
    /// a score by words, `weight` times the cosine). `scores` by entry, `touched[..count]` the
    /// entries with a score, to which a tool found by its meaning alone is added (`touched` has
    /// room for every entry); the new count.
    ///
    /// The tools that get their cosine are the [`BY_WORDS`] best by their words' score and the
    /// [`BY_MEANING`] best by the product of the vectors' first [`COARSE`] components (the
    /// table's principal ones, which carry most of a vector): a full cosine for every tool of a
    /// large index would cost more than the rest of the search. With fewer tools than these,
    /// every tool gets its cosine.
    pub(crate) fn fuse(
        &self,
        query: &Meaning,
        weight: f32,
        best: f32,
        scores: &mut [f32],
        touched: &mut [u32],
        mut count: usize,
    ) -> usize {
        let factor = weight * if best > 0.0 { best } else { 1.0 };
        let mut candidates = self.likely(query, &touched[..count], scores);
        candidates.sort_unstable();
        candidates.dedup();
        for id in candidates {
            let entry = id as usize;
            let (Some(vector), Some(scale)) = (self.vectors.get(entry), self.scales.get(entry))
            else {
                continue;
            };
            let cosine = dot_quantised(&query.full, vector) * scale;
            let score = &mut scores[entry];
            // A tool none of the query's words found needs a near meaning to be found at all.
            let floor = if *score == 0.0 { MEANING_ALONE } else { 0.0 };
            if cosine <= floor {
                continue;
            }
            if *score == 0.0 {
                touched[count] = id;
                count += 1;
            }
            *score += cosine * factor;
        }
        count
    }

    /// The entries whose full cosine [`Self::fuse`] computes (maybe twice over).
    fn likely(&self, query: &Meaning, by_words: &[u32], scores: &[f32]) -> Vec<u32> {
        let entries = self.scales.len();
        if entries <= BY_WORDS + BY_MEANING {
            return (0..entries)
                .map(|id| u32::try_from(id).unwrap_or(u32::MAX))
                .collect();
        }
        let mut candidates = best_of(
            by_words.len(),
            |at| (scores[by_words[at] as usize], by_words[at]),
            BY_WORDS,
        );
        let mut rough = vec![0.0_f32; entries];
        for (component, head) in query.head.iter().zip(&self.heads) {
            for (rough, tool) in rough.iter_mut().zip(head) {
                *rough += component * tool;
            }
        }
        candidates.extend(best_of(
            entries,
            |id| (rough[id], u32::try_from(id).unwrap_or(u32::MAX)),
            BY_MEANING,
        ));
        candidates
    }
}

/// The ids of the `count` of the `len` values `value` gives (each with its id) that are highest (in
/// no order; all of them when fewer; ties broken as they fall): the values under a bar are passed
/// over, the bar being the value a sample of every [`SAMPLE`]th value puts half as far again down
/// as the `count`th, and the best `count` of the rest are selected. One pass over the values and a
/// selection among a few hundred, rather than a selection among them all (which it falls back to
/// should the sample have set the bar too high).
fn best_of(len: usize, value: impl Fn(usize) -> (f32, u32), count: usize) -> Vec<u32> {
    let all = || (0..len).map(&value);
    if len <= count {
        return all().map(|(_, id)| id).collect();
    }
    if count == 0 {
        return Vec::new();
    }
    let mut sample: Vec<f32> = (0..len).step_by(SAMPLE).map(|at| value(at).0).collect();
    // Half as far again down the sample as `count` would be, so that the bar lets in more
    // than `count` values however the sample fell.
    let place = count / SAMPLE + count / SAMPLE / 2 + 2;
    let bar = if place < sample.len() {
        *sample
            .select_nth_unstable_by(place, |a, b| b.total_cmp(a))
            .1
    } else {
        f32::NEG_INFINITY
    };
    let mut kept: Vec<(f32, u32)> = all().filter(|(value, _)| *value >= bar).collect();
    if kept.len() < count {
        // The sample set the bar too high: select among all of them.
        kept = all().collect();
    }
    if kept.len() > count {
        kept.select_nth_unstable_by(count - 1, |a, b| b.0.total_cmp(&a.0));
        kept.truncate(count);
    }
    kept.into_iter().map(|(_, id)| id).collect()
}

/// One value in how many [`best_of`] samples.
const SAMPLE: usize = 8;

/// The cosine above which a tool none of a query's words found is found by its meaning (the
/// highest of 0, 0.2, 0.3, 0.4 and 0.5 that loses none of the development queries' hits: a
/// query of words no tool means finds nothing, rather than the least unrelated tools).
const MEANING_ALONE: f32 = 0.3;

/// How many of the tools a search's words rank best get their full cosine ([`ToolVectors::fuse`]).
const BY_WORDS: usize = 64;

/// How many of the tools nearest the query by their first components get their full cosine.
const BY_MEANING: usize = 128;

/// How many of a vector's first components the first pass compares.
const COARSE: usize = 16;

/// The dot product of a vector and a quantised one (before its scale).
fn dot_quantised(a: &[f32; DIM], b: &[i8; DIM]) -> f32 {
    let mut lanes = [0.0_f32; 8];
    for (a, b) in a.chunks_exact(8).zip(b.chunks_exact(8)) {
        for lane in 0..8 {
            lanes[lane] += a[lane] * f32::from(b[lane]);
        }
    }
    lanes.iter().sum()
}

/// The dot product of two vectors.
#[inline]
fn dot<const N: usize>(a: &[f32; N], b: &[f32; N]) -> f32 {
    // Eight lanes summed apart, as two vector registers hold them.
    let mut lanes = [0.0_f32; 8];
    for (a, b) in a.chunks_exact(8).zip(b.chunks_exact(8)) {
        for lane in 0..8 {
            lanes[lane] += a[lane] * b[lane];
        }
    }
    lanes.iter().sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_best_of_many_values_are_found_whatever_the_sample_sees() {
        let sorted_best = |values: &[(f32, u32)], count: usize| {
            let mut best = best_of(values.len(), |at| values[at], count);
            best.sort_unstable();
            best
        };
        // Values in a scrambled order: the best 100 are 900 to 999.
        let scrambled: Vec<(f32, u32)> = (0..1_000_u32)
            .map(|n| (((n * 7_919) % 1_000) as f32, n))
            .collect();
        let mut expected: Vec<u32> = (0..1_000_u32)
            .filter(|n| (n * 7_919) % 1_000 >= 900)
            .collect();
        expected.sort_unstable();
        assert_eq!(sorted_best(&scrambled, 100), expected);
        // The best where the sample never looks (no multiple of SAMPLE): the bar it sets is
        // too high, and the selection falls back to every value.
        let hidden: Vec<(f32, u32)> = (0..1_000_u32)
            .map(|n| {
                let high = !(n as usize).is_multiple_of(SAMPLE) && n < 120;
                (
                    if high {
                        1_000.0 + n as f32
                    } else {
                        n as f32 / 10.0
                    },
                    n,
                )
            })
            .collect();
        let expected: Vec<u32> = (0..120_u32).filter(|n| !n.is_multiple_of(8)).collect();
        assert_eq!(sorted_best(&hidden, expected.len()), expected);
        assert_eq!(sorted_best(&[(1.0, 7)], 10), vec![7]);
        assert_eq!(sorted_best(&scrambled, 0), Vec::<u32>::new());
    }

    #[test]
    fn a_quantised_tool_vector_keeps_its_cosine() {
        let mut vectors = ToolVectors::default();
        let terms = ["take", "screenshot", "page"].map(|word| {
            let row = TABLE.row(&stem(word));
            assert!(row.is_some(), "{word}");
            (row, [1, 0, 1, 0, 0])
        });
        vectors.set(0, tool_vector(terms.into_iter()));
        let query = query_vector("capture an image of the screen").expect("a query vector");
        let mut sum = [0.0_f32; DIM];
        for (row, _) in terms {
            TABLE.add_to(
                &mut sum,
                row.unwrap_or_default(),
                (FIELD_WEIGHTS[0] + FIELD_WEIGHTS[2]).sqrt(),
            );
        }
        let exact = dot(
            &query.full,
            &Meaning::unit(sum).expect("a tool vector").full,
        );
        let quantised = dot_quantised(&query.full, &vectors.vectors[0]) * vectors.scales[0];
        assert!((exact - quantised).abs() < 0.01, "{exact} {quantised}");
        assert!(exact > 0.2, "{exact}");
    }

    fn fnv1a(bytes: &[u8]) -> u64 {
        bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
            (hash ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3)
        })
    }

    #[test]
    fn the_embedded_table_loads_whole_and_is_what_the_generator_wrote() {
        let checksum = u64::from_le_bytes(EMBEDDED[16..24].try_into().unwrap_or_default());
        assert_eq!(
            fnv1a(&EMBEDDED[24..]),
            checksum,
            "the table was changed after the generator made it: run data/vectors/regenerate.sh"
        );
        let rows = u32::from_le_bytes(EMBEDDED[8..12].try_into().unwrap_or_default());
        assert!(rows > 10_000, "{rows}");
        let table = WordVectors::parse(EMBEDDED).unwrap_or_default();
        assert_eq!(table.len(), rows as usize, "a stem is missing or repeated");
        assert_eq!(TABLE.len(), rows as usize);
        // Ordinary English words and software's words alike, keyed by their stems.
        for word in ["screenshot", "delete", "repository", "grab", "yesterday"] {
            assert!(table.row(&stem(word)).is_some(), "{word}");
        }
    }

    #[test]
    fn a_damaged_table_does_not_load() {
        assert_eq!(
            WordVectors::parse(b"NOTATABLE").err(),
            Some(BadTable("not a word vector table"))
        );
        let cut: &'static [u8] = &EMBEDDED[..EMBEDDED.len() - 1];
        assert_eq!(
            WordVectors::parse(cut).err(),
            Some(BadTable("the table ends early"))
        );
    }

    fn cosine(a: &str, b: &str) -> f32 {
        let (a, b) = (query_vector(a), query_vector(b));
        let (Some(a), Some(b)) = (a, b) else {
            panic!("a word without a vector");
        };
        dot(&a.full, &b.full)
    }

    #[test]
    fn words_of_one_meaning_are_nearer_than_unrelated_words() {
        assert!(cosine("delete", "remove") > cosine("delete", "banana"));
        assert!(cosine("screenshot", "picture") > cosine("screenshot", "invoice"));
        let same = cosine("repository", "repository");
        assert!((same - 1.0).abs() < 1e-4, "{same}");
        assert!(query_vector("zzzqqq").is_none());
    }
}
