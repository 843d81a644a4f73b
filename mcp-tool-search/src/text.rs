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
/// index reads every word of every tool at each start, and looks most of them up only.
pub(crate) fn for_each_word(text: &str, mut visit: impl FnMut(&str)) {
    for_each_token(text, |word| {
        if !is_stop_word(word) {
            visit(word);
        }
    });
}

/// Each word of `text` as [`for_each_word`] gives them, stop words included: the index asks
/// [`is_stop_word`] once per distinct word (its vocabulary remembers the answer), not once per
/// word of every tool. Runs of ASCII letters and digits (most of any tool's text, even where a
/// dash or a quote is not ASCII) are found byte by byte, without decoding characters, and a
/// run of lower-case letters (most words of prose) is passed as it stands in `text`, without a
/// copy; a run with a letter that is not ASCII goes through [`unicode_run`].
pub(crate) fn for_each_token(text: &str, mut visit: impl FnMut(&str)) {
    let bytes = text.as_bytes();
    let mut lower = String::new();
    let mut cuts = Vec::new();
    let mut at = 0;
    while let Some(byte) = bytes.get(at) {
        let (class, length) = match CLASSES[usize::from(*byte)] {
            NOT_ASCII => other_class(text, at),
            class => (class, 1),
        };
        if class == 0 {
            at += length;
            continue;
        }
        let start = at;
        let first = class;
        // What the run holds after its first character.
        let mut rest = 0;
        at += length;
        while let Some(byte) = bytes.get(at) {
            let class = CLASSES[usize::from(*byte)];
            if class & (LOWER | UPPER | DIGIT) != 0 {
                rest |= class;
                at += 1;
                continue;
            }
            if class == 0 {
                break;
            }
            let (class, length) = other_class(text, at);
            if class == 0 {
                break;
            }
            rest |= class;
            at += length;
        }
        let run = &text[start..at];
        let seen = first | rest;
        // Only a capital or a digit can make a case turn, and only a capital needs lowering.
        if seen & !LOWER == 0 {
            visit(run);
            continue;
        }
        if seen & OTHER != 0 {
            unicode_run(run, &mut cuts, &mut lower, &mut visit);
            continue;
        }
        cuts.clear();
        // A capital first (`Search`) turns nothing: a turn needs a capital after the first
        // letter, or a digit.
        if rest & UPPER != 0 || seen & DIGIT != 0 {
            ascii_case_turns(run.as_bytes(), &mut cuts);
        }
        let lowered = if seen & UPPER == 0 {
            run
        } else {
            lower.clear();
            lower.push_str(run);
            lower.make_ascii_lowercase();
            lower.as_str()
        };
        if !cuts.is_empty() {
            visit(lowered);
        }
        let mut from = 0;
        for cut in cuts.iter().copied().chain([run.len()]) {
            visit(&lowered[from..cut]);
            from = cut;
        }
    }
}

/// A word of a tool's text as the index looks it up ([`Reader`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Word<'a> {
    /// A word of at most 15 bytes, packed as [`short_key`] packs it.
    Short(u128),
    /// A word of any length, lower-cased.
    Text(&'a str),
}

/// `word`'s bytes and length in one number, when it has at most 15 bytes: its bytes in order
/// from the lowest, its length in the highest byte (so `a` and `a\0` differ).
pub(crate) fn short_key(word: &str) -> Option<u128> {
    let bytes = word.as_bytes();
    let length = u8::try_from(bytes.len())
        .ok()
        .filter(|length| *length < 16)?;
    let mut key = [0u8; 16];
    key[..bytes.len()].copy_from_slice(bytes);
    key[15] = length;
    Some(u128::from_le_bytes(key))
}

/// The word a [`short_key`] packs (none for a key that packs no text).
pub(crate) fn short_key_text(key: &[u8; 16]) -> Option<&str> {
    std::str::from_utf8(key.get(..usize::from(key[15]))?).ok()
}

/// Reads tool text for the index: [`for_each_token`]'s words, each short one packed
/// ([`Word::Short`]), with buffers kept from one text to the next.
///
/// Why not byte by byte: the end of a word is where a loop over bytes mispredicts its branch, once
/// at the end of each word and once at the end of the gap after it, and those two mispredictions
/// cost more than everything else the index does with a word. Text that is all ASCII (nearly all
/// tool text) is read eight bytes at a time instead: each byte's class is computed for the eight at
/// once with integer arithmetic (SWAR), and gathered into one bit per byte, 64 bytes to a number; a
/// run of letters and digits starts and ends where that mask turns on and off, and whether it may
/// turn case (a capital after its first letter, or a digit) is one test of a mask made for that. A
/// word of up to 15 bytes that cannot turn case is lower-cased and packed from two loads, never
/// copied; the others go the way [`for_each_token`] goes. A character that is not ASCII (an em
/// dash, a curly quote, a letter with an accent) is decoded where it stands, to mark its bytes as a
/// letter's or not. No crate does this (a Unicode word splitter is slower, and `std`'s SIMD needs
/// `unsafe`).
#[derive(Debug, Clone, Default)]
pub(crate) struct Reader {
    /// Per 64 bytes of the text being read, a bit per byte of each of the [`MASKS`] kinds.
    masks: Vec<[u64; MASKS]>,
    /// Where the text's runs start and end, in turn.
    bounds: Vec<u32>,
    lower: String,
    cuts: Vec<usize>,
}

impl Reader {
    /// Each word of `text`, in order, stop words included.
    pub(crate) fn words(&mut self, text: &str, mut visit: impl FnMut(Word<'_>)) {
        let Ok(length) = u32::try_from(text.len()) else {
            for_each_token(text, |word| visit(Word::Text(word)));
            return;
        };
        let bytes = Bytes::new(text.as_bytes());
        self.masks.clear();
        self.bounds.clear();
        let mut not_ascii = false;
        for block in (0..length).step_by(64) {
            let mut masks = [0u64; MASKS];
            for chunk in 0..(length - block).div_ceil(8).min(8) {
                let eight = bytes.load(block + 8 * chunk);
                // A byte that is not ASCII is classed below, with the character it is in.
                let ascii = !(eight & HIGH_BITS);
                let classes = Classes::of(eight);
                masks[LETTERS_AND_DIGITS] |=
                    gather((classes.letter | classes.digit) & ascii) << (8 * chunk);
                masks[UPPERS] |= gather(classes.upper & ascii) << (8 * chunk);
                masks[DIGITS] |= gather(classes.digit & ascii) << (8 * chunk);
                masks[NOT_ASCII_BYTES] |= gather(!ascii) << (8 * chunk);
            }
            not_ascii |= masks[NOT_ASCII_BYTES] != 0;
            self.masks.push(masks);
        }
        if not_ascii {
            self.class_characters(text);
        }
        let mut inside = false;
        for (block, masks) in self.masks.iter_mut().enumerate() {
            let letters_and_digits = masks[LETTERS_AND_DIGITS];
            let before = (letters_and_digits << 1) | u64::from(inside);
            // A capital after a run's first letter, or a digit, may turn case; a letter that
            // is not ASCII goes the way of any text.
            masks[TURNING] = (masks[UPPERS] & before) | masks[DIGITS] | masks[NOT_ASCII_BYTES];
            // A bit at each byte where a run starts or ends.
            let mut turns = letters_and_digits ^ before;
            inside = letters_and_digits >> 63 == 1;
            while turns != 0 {
                self.bounds.push(64 * block as u32 + turns.trailing_zeros());
                turns &= turns - 1;
            }
        }
        if inside {
            self.bounds.push(length);
        }
        for run in 0..self.bounds.len() / 2 {
            let (start, end) = (self.bounds[2 * run], self.bounds[2 * run + 1]);
            let length = end - start;
            if length < 16 {
                let keep = (1 << length) - 1;
                if self.bits(TURNING, start) & keep == 0 {
                    let (block, bit) = ((start / 64) as usize, start % 64);
                    let upper = self.masks[block][UPPERS] >> bit & 1;
                    let low = bytes.load(start) & BYTE_MASKS[length.min(8) as usize];
                    let high =
                        bytes.load(start + 8) & BYTE_MASKS[length.saturating_sub(8) as usize];
                    // A capital's bit 0x20 is clear: setting it lower-cases the letter.
                    let low = low | (upper & 1) << 5;
                    let high = high | u64::from(length) << 56;
                    visit(Word::Short(u128::from(high) << 64 | u128::from(low)));
                    continue;
                }
            }
            let run = &text[start as usize..end as usize];
            if run.is_ascii() {
                self.run(run, &mut visit);
            } else {
                unicode_run(run, &mut self.cuts, &mut self.lower, &mut |word| {
                    visit(Word::Text(word));
                });
            }
        }
    }

    /// Marks the bytes of each character of `text` that is not ASCII and is a letter or a
    /// digit (the blocks' masks are made, with no such byte marked).
    fn class_characters(&mut self, text: &str) {
        for block in 0..self.masks.len() {
            let mut starts = self.masks[block][NOT_ASCII_BYTES];
            while starts != 0 {
                let at = 64 * block + starts.trailing_zeros() as usize;
                starts &= starts - 1;
                // A continuation byte is marked with the character it continues.
                let Some(character) = text.get(at..).and_then(|rest| rest.chars().next()) else {
                    continue;
                };
                if character.is_alphanumeric() {
                    for byte in at..at + character.len_utf8() {
                        if let Some(masks) = self.masks.get_mut(byte / 64) {
                            masks[LETTERS_AND_DIGITS] |= 1 << (byte % 64);
                        }
                    }
                }
            }
        }
    }

    /// The bits of mask `mask` from byte `start` on (at least 16 of them).
    fn bits(&self, mask: usize, start: u32) -> u64 {
        let (block, bit) = ((start / 64) as usize, start % 64);
        let word = |block: usize| self.masks.get(block).map_or(0, |masks| masks[mask]);
        // The next block's bits follow (none to add when `bit` is 0).
        let next = (word(block + 1) << 1).checked_shl(63 - bit).unwrap_or(0);
        word(block) >> bit | next
    }

    /// The words of `run`, a run of ASCII letters and digits that may turn case.
    fn run(&mut self, run: &str, visit: &mut impl FnMut(Word<'_>)) {
        self.cuts.clear();
        ascii_case_turns(run.as_bytes(), &mut self.cuts);
        let lowered = if run.bytes().any(|byte| byte.is_ascii_uppercase()) {
            self.lower.clear();
            self.lower.push_str(run);
            self.lower.make_ascii_lowercase();
            self.lower.as_str()
        } else {
            run
        };
        if !self.cuts.is_empty() {
            visit(Word::Text(lowered));
        }
        let mut from = 0;
        for cut in self.cuts.iter().copied().chain([run.len()]) {
            visit(Word::Text(&lowered[from..cut]));
            from = cut;
        }
    }
}

/// The kinds of bytes [`Reader`] marks: letters and digits (any), capitals (ASCII), digits
/// (ASCII), bytes that are not ASCII.
const LETTERS_AND_DIGITS: usize = 0;
const UPPERS: usize = 1;
const DIGITS: usize = 2;
const NOT_ASCII_BYTES: usize = 3;
/// Capitals after a run's first byte, digits, bytes that are not ASCII: what may make a run
/// turn case (made from the others once they are all known).
const TURNING: usize = 4;
const MASKS: usize = 5;

/// A text's bytes, read eight at a time with zeros past the end (a zero byte is not a letter
/// or a digit), without copying the text: its last eight bytes (all of it, zero-padded, when
/// shorter) are read once and shifted for a load that runs past the end.
struct Bytes<'a> {
    bytes: &'a [u8],
    /// Where the last eight bytes start (0 when the text is shorter).
    tail_start: u32,
    tail: u64,
}

impl<'a> Bytes<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        let tail_start = bytes.len().saturating_sub(8);
        let rest = bytes.get(tail_start..).unwrap_or_default();
        let tail = match <[u8; 8]>::try_from(rest) {
            Ok(eight) => u64::from_le_bytes(eight),
            Err(_) => rest
                .iter()
                .rev()
                .fold(0, |tail, byte| tail << 8 | u64::from(*byte)),
        };
        Self {
            bytes,
            tail_start: u32::try_from(tail_start).unwrap_or(u32::MAX),
            tail,
        }
    }

    /// The eight bytes from `at`, little-endian.
    fn load(&self, at: u32) -> u64 {
        let at = at as usize;
        match self.bytes.get(at..at + 8) {
            Some(eight) => <[u8; 8]>::try_from(eight).map_or(0, u64::from_le_bytes),
            None => self
                .tail
                .checked_shr(8 * (at as u32).saturating_sub(self.tail_start))
                .unwrap_or(0),
        }
    }
}

/// Each byte's low bit, and each byte's high bit.
const LOW_BITS: u64 = 0x0101_0101_0101_0101;
const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

/// The low `n` bytes of a number, for `n` from 0 to 8.
const BYTE_MASKS: [u64; 9] = {
    let mut masks = [0u64; 9];
    let mut n = 1;
    while n < 9 {
        masks[n] = (masks[n - 1] << 8) | 0xff;
        n += 1;
    }
    masks
};

/// What eight bytes are: the high bit of each byte set where it is a letter, a capital, a
/// digit (meaningless for a byte that is not ASCII, which the caller leaves out).
struct Classes {
    letter: u64,
    upper: u64,
    digit: u64,
}

impl Classes {
    fn of(chunk: u64) -> Self {
        // With its high bit set, a byte minus `floor` (at most 0x80) borrows nothing from the
        // next, and leaves the high bit set only where an ASCII byte was at least `floor`.
        let at_least =
            |bytes: u64, floor: u8| ((bytes | HIGH_BITS) - LOW_BITS * u64::from(floor)) & HIGH_BITS;
        let digit = at_least(chunk, b'0') & !at_least(chunk, b'9' + 1);
        // Setting 0x20 makes a capital its lower-case letter (and no other byte a letter).
        let folded = chunk | (LOW_BITS * 0x20);
        let letter = at_least(folded, b'a') & !at_least(folded, b'z' + 1);
        // A capital has 0x20 clear; shifted by two, that bit is each byte's high bit.
        let upper = letter & !(chunk << 2);
        Self {
            letter,
            upper,
            digit,
        }
    }
}

/// The high bits of the eight bytes of `marks`, as the low eight bits of a number, the first
/// byte's lowest: multiplying by this constant adds each byte's bit into the top byte at its
/// place, with no two landing on the same bit (so nothing carries).
fn gather(marks: u64) -> u64 {
    (marks >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56
}

/// What a byte or character is to the splitter: a separator (0), or one of these bits.
const LOWER: u8 = 1;
const UPPER: u8 = 2;
const DIGIT: u8 = 4;
/// A letter or digit that is not ASCII.
const OTHER: u8 = 8;
/// A byte that is not ASCII: the character it starts must be decoded ([`other_class`]).
const NOT_ASCII: u8 = 16;

/// [`LOWER`], [`UPPER`], [`DIGIT`] or [`NOT_ASCII`] for each byte, 0 for the rest: one load
/// per byte tells whether a run goes on and what it holds.
const CLASSES: [u8; 256] = {
    let mut classes = [0u8; 256];
    let mut byte = 0;
    while byte < 256 {
        classes[byte] = match byte as u8 {
            b'a'..=b'z' => LOWER,
            b'A'..=b'Z' => UPPER,
            b'0'..=b'9' => DIGIT,
            0x80.. => NOT_ASCII,
            _ => 0,
        };
        byte += 1;
    }
    classes
};

/// What the character that starts at byte `at` of `text` (not ASCII) is to the splitter
/// ([`OTHER`] or 0), and its length.
fn other_class(text: &str, at: usize) -> (u8, usize) {
    match text.get(at..).and_then(|rest| rest.chars().next()) {
        Some(c) if c.is_alphanumeric() => (OTHER, c.len_utf8()),
        Some(c) => (0, c.len_utf8()),
        None => (0, 1),
    }
}

/// The words of one run of letters and digits, some not ASCII: the whole run when it turns
/// case, then its pieces, each lower-cased by Unicode's rules.
fn unicode_run(run: &str, cuts: &mut Vec<usize>, lower: &mut String, visit: &mut impl FnMut(&str)) {
    let mut emit = |piece: &str| {
        lower.clear();
        lower.extend(piece.chars().flat_map(char::to_lowercase));
        visit(lower);
    };
    cuts.clear();
    case_turns(run, cuts);
    if !cuts.is_empty() {
        emit(run);
    }
    let mut start = 0;
    for cut in cuts.iter().copied().chain([run.len()]) {
        emit(&run[start..cut]);
        start = cut;
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

/// Whether `word` (lower-case) is one of [`STOP_WORDS`].
pub(crate) fn is_stop_word(word: &str) -> bool {
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
mod tests;
