//! The word tables the ranking expands a query with, built offline and embedded in the crate
//! (`data/*.tsv`, made by `examples/word_tables.rs`; `data/README.md` names their inputs and
//! licences): nothing is read or downloaded at run time.
//!
//! - [`synonyms`]: WordNet 3.0's synonyms of a word (the lemmas of the senses it may mean,
//!   weighted by how likely both are to mean them, and derivationally related words), so
//!   `tag` leads to `label` and `answer` to `reply`.
//! - [`associations`]: the words that keep a word company in Debian's package descriptions
//!   (normalised pointwise mutual information), so `commit` leads to `git` and `click` to
//!   `mouse`. The ranking uses them only when asked ([`crate::QueryExpansion`]).
//!
//! Both are keyed by stems ([`crate::text::stem`]) and give stems with a weight from 0 to 1.
//! A table is parsed once, on first use, borrowing the embedded text (no copy of its words).

use std::collections::HashMap;
use std::sync::LazyLock;

/// One table: a stem → its related stems, strongest first, each with its weight (0 to 1].
#[derive(Debug, Default)]
pub(crate) struct WordTable {
    entries: HashMap<&'static str, Vec<(&'static str, f32)>>,
}

static SYNONYMS: LazyLock<WordTable> =
    LazyLock::new(|| WordTable::parse(include_str!("../data/synonyms.tsv")));

static ASSOCIATIONS: LazyLock<WordTable> =
    LazyLock::new(|| WordTable::parse(include_str!("../data/associations.tsv")));

/// The WordNet synonyms of the stem `stem`, strongest first, each with its weight (0 to 1].
pub fn synonyms(stem: &str) -> &'static [(&'static str, f32)] {
    SYNONYMS.get(stem)
}

/// The words associated with the stem `stem`, strongest first, each with its weight (0 to 1].
pub fn associations(stem: &str) -> &'static [(&'static str, f32)] {
    ASSOCIATIONS.get(stem)
}

impl WordTable {
    /// Reads `key<TAB>target:weight target:weight…` lines (weights in hundredths) after `#`
    /// header lines. A line that does not read so is left out (the tests check that the
    /// embedded tables have none).
    pub(crate) fn parse(text: &'static str) -> Self {
        let mut entries = HashMap::new();
        for line in text.lines().filter(|line| !line.starts_with('#')) {
            if let Some((key, targets)) = parse_line(line) {
                entries.insert(key, targets);
            }
        }
        Self { entries }
    }

    pub(crate) fn get(&self, stem: &str) -> &[(&'static str, f32)] {
        self.entries.get(stem).map_or(&[], Vec::as_slice)
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }
}

fn parse_line(line: &'static str) -> Option<(&'static str, Vec<(&'static str, f32)>)> {
    let (key, targets) = line.split_once('\t')?;
    let targets = targets
        .split(' ')
        .map(|target| {
            let (word, weight) = target.split_once(':')?;
            let weight: u8 = weight.parse().ok()?;
            (!word.is_empty() && (1..=100).contains(&weight))
                .then_some((word, f32::from(weight) / 100.0))
        })
        .collect::<Option<Vec<_>>>()?;
    (!key.is_empty() && !targets.is_empty()).then_some((key, targets))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A table's `# entries:` and `# fnv1a64:` header lines, as the script wrote them.
    fn header(text: &str, name: &str) -> String {
        text.lines()
            .find_map(|line| line.strip_prefix(&format!("# {name}: ")))
            .unwrap_or_else(|| panic!("the table has no `# {name}:` line"))
            .to_owned()
    }

    fn fnv1a(bytes: &[u8]) -> u64 {
        bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
            (hash ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3)
        })
    }

    /// The embedded table is what the script wrote: its body hashes to the checksum in its
    /// header, and every line of it loads.
    fn check_table(text: &'static str, table: &WordTable) {
        let start = text
            .lines()
            .take_while(|line| line.starts_with('#'))
            .map(|line| line.len() + 1)
            .sum::<usize>();
        let body = &text[start..];
        assert_eq!(
            format!("{:016x}", fnv1a(body.as_bytes())),
            header(text, "fnv1a64"),
            "the table was changed after the script made it: run data/regenerate.sh"
        );
        let entries: usize = header(text, "entries").parse().unwrap_or(0);
        assert!(entries > 1000, "{entries}");
        assert_eq!(body.lines().count(), entries);
        assert_eq!(table.len(), entries, "a line did not load");
    }

    #[test]
    fn the_embedded_tables_load_whole_and_are_what_the_script_made() {
        check_table(include_str!("../data/synonyms.tsv"), &SYNONYMS);
        check_table(include_str!("../data/associations.tsv"), &ASSOCIATIONS);
    }

    #[test]
    fn wordnet_gives_a_words_synonyms_by_stem() {
        let erase: Vec<&str> = synonyms("delet").iter().map(|(word, _)| *word).collect();
        assert!(erase.contains(&"eras"), "{erase:?}");
        assert!(synonyms("zzzz").is_empty());
        for (_, weight) in synonyms("delet") {
            assert!(*weight > 0.0 && *weight <= 1.0);
        }
    }

    #[test]
    fn associations_link_words_that_keep_company() {
        let commit: Vec<&str> = associations("commit")
            .iter()
            .map(|(word, _)| *word)
            .collect();
        assert!(commit.contains(&"git"), "{commit:?}");
        let weights: Vec<f32> = associations("commit").iter().map(|(_, w)| *w).collect();
        assert!(
            weights.windows(2).all(|pair| pair[0] >= pair[1]),
            "{weights:?}"
        );
    }

    #[test]
    fn malformed_lines_are_left_out() {
        let table = WordTable::parse(
            "# header\ncaptur\tscreenshot:80 imag:40\nbad line\nzero\tx:0\nover\tx:101\n\
             empty\t\nnoweight\tx\n",
        );
        assert_eq!(table.len(), 1);
        assert_eq!(table.get("captur"), [("screenshot", 0.8), ("imag", 0.4)]);
        assert!(table.get("bad").is_empty());
    }
}
