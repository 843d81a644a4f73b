//! Target `cache_entry`: the tool cache's entry decoder, `mcp_cache::decode_entry`.
//!
//! The cache lives on disk, shared by every agent process of the user; an entry may be
//! truncated by a crash, written by another version, or damaged. Inputs are arbitrary bytes and
//! real entries (`encode_listed_entry` of tools, and of the skills listed beside them, drawn
//! from the protocol's shapes) read back with the right or another fingerprint, inside or past
//! their time to live, whole or mutated. The property:
//!
//! - decoding gives a hit or a miss with its reason, never a panic: an undamaged entry gives
//!   its tools and skills (floats up to serde_json's parsing precision, [`crate::json_eq`])
//!   with its own fingerprint inside its time to live, `OtherFingerprint` with another,
//!   `Expired` past it;
//! - a hit from any bytes (a damaged entry may still decode) re-encodes to an entry that gives
//!   the same tools and skills, unless the bytes name a key twice in one object (see
//!   [`crate::json_eq`]);
//! - decoding holds at most `32 × input + 16 KiB` at once.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use mcp_cache::{Fingerprint, Listing, MissReason, decode_entry, encode_listed_entry};
use mcp_transport::{SkillEntry, Tool};
use proptest::prelude::*;

use crate::grammar::{self, Blob, Mutation};
use crate::json_eq::{has_repeated_keys, same_json};
use crate::runner::{Report, Settings, fuzz};

/// What a decode gives that this target checks: the tools and skills of a hit, or why it
/// missed.
type Lookup = Result<Listed, MissReason>;

/// A server's tools and the skills listed beside them.
type Listed = (Vec<Tool>, Vec<SkillEntry>);

/// Decodes `bytes` and keeps the tools and skills of a hit.
fn decode(bytes: &[u8], fingerprint: &Fingerprint, ttl: Duration, now: SystemTime) -> Lookup {
    decode_entry(bytes, fingerprint, ttl, now).map(|entry| (entry.tools, entry.listing.skills))
}

/// An entry of `tools` and `skills` written at `now`.
fn encode(fingerprint: &Fingerprint, (tools, skills): &Listed, now: SystemTime) -> Vec<u8> {
    let listing = Listing::default().with_skills(skills.clone());
    encode_listed_entry(fingerprint, tools, &listing, now)
}

/// The fingerprint entries are written with.
const WRITTEN_FOR: &str = "3f2a9c";

/// One input: the stored bytes, and what the lookup asks with.
#[derive(Debug, Clone)]
pub struct EntryInput {
    /// The entry's tools, skills and write time when the bytes are an undamaged entry.
    written: Option<(Listed, u64)>,
    bytes: Blob,
    fingerprint: &'static str,
    ttl_ms: u64,
    now_ms: u64,
}

/// Runs the target.
pub fn run(settings: &Settings) -> Report {
    fuzz("cache_entry", settings, input(), check)
}

fn at(ms: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_millis(ms)
}

fn input() -> impl Strategy<Value = EntryInput> {
    let tools = prop::collection::vec(grammar::tool(), 0..4).prop_map(|values| {
        values
            .into_iter()
            .filter_map(|value| serde_json::from_value::<Tool>(value).ok())
            .collect::<Vec<_>>()
    });
    let skills = prop_oneof![
        2 => Just(Vec::new()),
        1 => prop::collection::vec(grammar::skill_entry(), 1..3).prop_map(|values| {
            values
                .into_iter()
                .filter_map(|value| serde_json::from_value::<SkillEntry>(value).ok())
                .collect::<Vec<_>>()
        }),
    ];
    let written_ms = 0u64..(1 << 45);
    let age_ms = prop_oneof![
        0u64..10_000,
        Just(0),
        any::<u64>().prop_map(|age| age >> 20)
    ];
    let ttl_ms = prop_oneof![Just(1000u64), 0u64..100_000, Just(u64::MAX >> 30)];
    let fingerprint = prop_oneof![4 => Just(WRITTEN_FOR), 1 => Just("3f2a9d"), 1 => Just("")];
    let mutations = prop_oneof![
        2 => Just(Vec::new()),
        1 => prop::collection::vec(grammar::mutation(), 1..4),
    ];
    let listed = (tools, skills);
    let entry = (listed, written_ms, age_ms, ttl_ms, fingerprint, mutations).prop_map(
        |(listed, written_ms, age_ms, ttl_ms, fingerprint, mutations): (
            Listed,
            u64,
            u64,
            u64,
            &'static str,
            Vec<Mutation>,
        )| {
            let mut bytes = encode(&Fingerprint::from_hex(WRITTEN_FOR), &listed, at(written_ms));
            for mutation in &mutations {
                mutation.apply(&mut bytes);
            }
            EntryInput {
                written: mutations.is_empty().then_some((listed, written_ms)),
                bytes: Blob(bytes),
                fingerprint,
                ttl_ms,
                now_ms: written_ms.saturating_add(age_ms),
            }
        },
    );
    let garbage = (grammar::raw_bytes(256), any::<u64>()).prop_map(|(bytes, now_ms)| EntryInput {
        written: None,
        bytes,
        fingerprint: WRITTEN_FOR,
        ttl_ms: u64::MAX >> 30,
        now_ms: now_ms >> 20,
    });
    prop_oneof![4 => entry, 1 => garbage]
}

fn check(input: &EntryInput) -> Result<(), String> {
    let fingerprint = Fingerprint::from_hex(input.fingerprint);
    let ttl = Duration::from_millis(input.ttl_ms);
    let now = at(input.now_ms);
    let (lookup, peak) =
        crate::alloc_meter::peak_during(|| decode(&input.bytes.0, &fingerprint, ttl, now));
    let bound = 32 * input.bytes.0.len() + 16 * 1024;
    if peak > bound {
        return Err(format!(
            "decoding {} bytes held {peak} bytes at once, over the bound of {bound}",
            input.bytes.0.len()
        ));
    }
    if let Some((listed, written_ms)) = &input.written {
        let expected = if input.fingerprint != WRITTEN_FOR {
            Err(MissReason::OtherFingerprint)
        } else if input.now_ms.saturating_sub(*written_ms) > input.ttl_ms {
            Err(MissReason::Expired)
        } else {
            Ok(listed.clone())
        };
        if !same_lookup(&lookup, &expected) {
            return Err(format!(
                "an undamaged entry gave {lookup:?}, not {expected:?}"
            ));
        }
    }
    // An entry that names a key twice may read back otherwise (see `crate::json_eq`).
    if let Ok(listed) = &lookup
        && !has_repeated_keys(&input.bytes.0)
    {
        let again = encode(&fingerprint, listed, now);
        let reread = decode(&again, &fingerprint, ttl, now);
        if !same_lookup(&reread, &lookup) {
            return Err(format!(
                "the tools and skills of a hit, written again, read back as {reread:?}"
            ));
        }
    }
    Ok(())
}

/// Whether two lookups are the same, tools and skills compared as JSON up to serde_json's float parsing
/// precision ([`crate::json_eq`]).
fn same_lookup(a: &Lookup, b: &Lookup) -> bool {
    match (a, b) {
        (Ok(x), Ok(y)) => match (serde_json::to_value(x), serde_json::to_value(y)) {
            (Ok(x), Ok(y)) => same_json(&x, &y),
            _ => false,
        },
        _ => a == b,
    }
}
