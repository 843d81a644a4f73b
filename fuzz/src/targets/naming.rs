//! Target `naming`: the names tools get for the model, `mcp_bridge::naming` (`tool_name` for
//! one server and tool, `assign_names` for a whole set).
//!
//! Server names come from config files and tool names from servers, so both are anyone's
//! text; model APIs reject a request whose tool names break their pattern or repeat. For sets
//! of (server, tool) pairs made of capitals, separators, digits, non-ASCII letters that
//! lower-case to ASCII or to several characters, emoji, control characters, lengths past the
//! 64-character cut, pairs that collide after sanitizing, and pairs repeated many times (a
//! server may list a tool twice, or a hundred times):
//!
//! - every name fits `^[a-zA-Z0-9_-]{1,64}$` and starts with `mcp_`;
//! - the names of a set are pairwise distinct, whatever the set holds;
//! - a pair whose name collides with no other keeps `tool_name`'s plain name;
//! - the names do not depend on the order of the set (the copies of a repeated pair share
//!   their names among themselves);
//! - naming holds at most `64 × input + 256 × pairs + 16 KiB` at once, and never panics.

use std::collections::{BTreeMap, HashMap, HashSet};

use mcp_bridge::naming::{MAX_TOOL_NAME_LEN, assign_names, tool_name};
use proptest::prelude::*;
use proptest::sample::select;

use crate::runner::{Report, Settings, fuzz};

/// Characters names are made of and characters they must not contain.
const PIECES: &[&str] = &[
    "a", "b", "z", "A", "Z", "0", "7", "_", "__", "-", ".", " ", "/", ":", "\t", "\n", "é", "Ü",
    "ß", "工", "🚀", "\u{212A}", "\u{0130}", "\u{0}", "$", "\u{200B}", "mcp_", "github", "x",
];

/// Runs the target.
pub fn run(settings: &Settings) -> Report {
    fuzz("naming", settings, input(), |pairs| check(pairs))
}

fn part() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => prop::collection::vec(select(PIECES), 0..12).prop_map(|pieces| pieces.concat()),
        1 => (select(PIECES), 30usize..80).prop_map(|(piece, times)| piece.repeat(times)),
    ]
}

fn input() -> impl Strategy<Value = Vec<(String, String)>> {
    let distinct = prop::collection::vec((part(), part()), 0..24);
    // A few pairs, each repeated up to forty times.
    let repeated = prop::collection::vec(((part(), part()), 1usize..40), 1..4).prop_map(|groups| {
        groups
            .into_iter()
            .flat_map(|(pair, times)| std::iter::repeat_n(pair, times))
            .collect()
    });
    prop_oneof![3 => distinct, 1 => repeated]
}

fn fits_model_api(name: &str) -> bool {
    (1..=MAX_TOOL_NAME_LEN).contains(&name.len())
        && name
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-')
}

fn check(pairs: &[(String, String)]) -> Result<(), String> {
    let borrowed: Vec<(&str, &str)> = pairs
        .iter()
        .map(|(server, tool)| (server.as_str(), tool.as_str()))
        .collect();
    let input_len: usize = pairs
        .iter()
        .map(|(server, tool)| server.len() + tool.len())
        .sum();
    // Only the naming is measured, not the checks.
    let (names, peak) = crate::alloc_meter::peak_during(|| assign_names(&borrowed));
    let outcome = (|| {
        if names.len() != borrowed.len() {
            return Err(format!(
                "{} pairs got {} names",
                borrowed.len(),
                names.len()
            ));
        }
        let plain: Vec<String> = borrowed
            .iter()
            .map(|(server, tool)| tool_name(server, tool))
            .collect();
        let mut plain_count: HashMap<&str, usize> = HashMap::new();
        for name in &plain {
            *plain_count.entry(name.as_str()).or_default() += 1;
        }
        let mut seen = HashSet::new();
        for ((pair, name), plain_name) in borrowed.iter().zip(&names).zip(&plain) {
            for shown in [name, plain_name] {
                if !fits_model_api(shown) || !shown.starts_with("mcp_") {
                    return Err(format!("{pair:?} is named {shown:?}"));
                }
            }
            if !seen.insert(name.as_str()) {
                return Err(format!("the name {name:?} is given twice ({pair:?})"));
            }
            if plain_count[plain_name.as_str()] == 1 && name != plain_name {
                return Err(format!(
                    "{pair:?} collides with nothing but is named {name:?}, not {plain_name:?}"
                ));
            }
        }
        let reference = by_pair(&borrowed, &names);
        let mut reversed = borrowed.clone();
        reversed.reverse();
        let mut rotated = borrowed.clone();
        rotated.rotate_left(borrowed.len() / 3);
        for order in [reversed, rotated] {
            let again = by_pair(&order, &assign_names(&order));
            if again != reference {
                return Err(format!(
                    "another order of the same pairs gave other names: {reference:?} then {again:?}"
                ));
            }
        }
        Ok(())
    })();
    outcome?;
    let bound = 64 * input_len + 256 * pairs.len() + 16 * 1024;
    if peak > bound {
        return Err(format!(
            "naming {} pairs held {peak} bytes at once, over the bound of {bound}",
            pairs.len()
        ));
    }
    Ok(())
}

/// The names each distinct pair got, sorted (copies of one pair may share them out in any
/// order).
fn by_pair<'a>(
    pairs: &[(&'a str, &'a str)],
    names: &[String],
) -> BTreeMap<(&'a str, &'a str), Vec<String>> {
    let mut map: BTreeMap<(&str, &str), Vec<String>> = BTreeMap::new();
    for (pair, name) in pairs.iter().zip(names) {
        map.entry(*pair).or_default().push(name.clone());
    }
    for names in map.values_mut() {
        names.sort();
    }
    map
}
