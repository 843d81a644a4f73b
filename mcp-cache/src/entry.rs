//! What a cache entry holds and how it is encoded: a format version, the fingerprint of what
//! the list belongs to (the caller's key; see [`Fingerprint`]), the write time, how the tools were listed ([`Listing`]:
//! the protocol version the server spoke, its instructions, for a stateless server its
//! list's `ttlMs` and when the list was fetched, and the skills it offered), the tools and, for
//! a server that offers skills, their listing.
//!
//! The header is checked before the tools and skills are decoded, so a miss (other
//! fingerprint, expired) costs little even for a server with hundreds of tools.
//!
//! The listing came after the first entries were written, without a new format: its fields
//! (`protocol`, `instructions`, `list_ttl_ms`, `fetched_at_ms`, `skills`) are optional, so an
//! entry written before reads as one that knows nothing of the server's era, instructions or
//! skills (a hit, not a miss: its tools are as good as ever), and a build that predates them
//! skips them. `skills` is written only for a server that offers some: an entry of a server
//! without skills is byte for byte what it was before skills were kept.
//!
//! A list's ttl counts for a day at most ([`MAX_TTL`]) however it came — from the server, from
//! a caller, or read back from an entry an older build wrote with no such cap — and only from
//! a fetch time that is not ahead of the clock: an entry cannot keep a list fresh for longer.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use mcp_transport::protocol::MAX_TTL;
use mcp_transport::{ProtocolVersion, SkillEntry, Tool};
use serde::de::{DeserializeSeed, Deserializer, Error as _, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Serialize};

use crate::fingerprint::Fingerprint;

/// The entry format this build writes and reads. Entries of any other format are misses.
pub(crate) const FORMAT_VERSION: u32 = 1;

/// How a server's tools were listed, kept beside them: the protocol version it spoke, what it
/// said of itself for the model, for a stateless server (2026-07-28) that gave one, how
/// long its list may be considered fresh, and the skills it offered beside its tools.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Listing {
    /// The protocol version the server spoke. `None` in an entry written without it (through
    /// [`ToolCache::set`](crate::ToolCache::set), or by an older build).
    pub protocol_version: Option<ProtocolVersion>,
    /// The server's `instructions` for the model, as it gave them with the list: a start from
    /// the cache has them before the server answers (a tool search indexes them). `None` when
    /// it gave none, or in an entry written without them.
    pub instructions: Option<String>,
    /// How long after [`fetched_at`](Self::fetched_at) the list may be considered fresh (the
    /// list's `ttlMs`, counted for a day at most); `None` when the server gave no such hint
    /// (stale at once).
    pub ttl: Option<Duration>,
    /// When the list was fetched: where [`ttl`](Self::ttl) starts. Kept only with a ttl.
    pub fetched_at: Option<SystemTime>,
    /// The skills the server offered (the Skills extension, SEP-2640), as `skills/list` gave
    /// them: a start from the cache can tell the model their names and descriptions before the
    /// server answers. Empty for a server without skills, and in an entry written without them.
    pub skills: Vec<SkillEntry>,
}

impl Listing {
    /// Tools listed by a server speaking `version`.
    pub fn new(version: ProtocolVersion) -> Self {
        Self {
            protocol_version: Some(version),
            ..Self::default()
        }
    }

    /// This listing with a list fetched at `fetched_at` and fresh for `ttl` after that (a day
    /// at most: a longer `ttl` is taken as [`MAX_TTL`]).
    #[must_use]
    pub fn with_ttl(mut self, ttl: Duration, fetched_at: SystemTime) -> Self {
        self.ttl = Some(ttl.min(MAX_TTL));
        self.fetched_at = Some(fetched_at);
        self
    }

    /// This listing with the server's `instructions` (none when `None`).
    #[must_use]
    pub fn with_instructions(mut self, instructions: Option<&str>) -> Self {
        self.instructions = instructions.map(str::to_owned);
        self
    }

    /// This listing with the skills the server offered.
    #[must_use]
    pub fn with_skills(mut self, skills: Vec<SkillEntry>) -> Self {
        self.skills = skills;
        self
    }

    /// Until when the list is fresh: its fetch time and its ttl, counted for a day at most;
    /// `None` for a list without a ttl.
    pub fn fresh_until(&self) -> Option<SystemTime> {
        self.fetched_at?.checked_add(self.ttl?.min(MAX_TTL))
    }

    /// Whether the list is still fresh at `now` (`fetched_at <= now < fetched_at + ttl`). A
    /// fetch time ahead of `now` (another clock's) leaves the list stale.
    pub fn is_fresh_at(&self, now: SystemTime) -> bool {
        self.fetched_at.is_some_and(|fetched_at| fetched_at <= now)
            && self.fresh_until().is_some_and(|until| now < until)
    }
}

/// A hit: the tools, and how they were listed.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct CacheEntry {
    /// The tools, as the server listed them.
    pub tools: Vec<Tool>,
    /// How they were listed.
    pub listing: Listing,
}

/// Why a lookup missed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MissReason {
    /// Nothing stored for this server.
    Absent,
    /// The entry is older than the time to live.
    Expired,
    /// The entry was written in another format.
    OtherFormat,
    /// The entry was written for another configuration of the server.
    OtherFingerprint,
    /// The stored bytes do not decode (truncated, garbage).
    Undecodable,
    /// The store could not be used (cannot open, locked, corrupt, unreadable).
    Unavailable,
}

#[derive(Serialize)]
struct EntryOut<'a> {
    format: u32,
    fingerprint: &'a str,
    written_at_ms: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    protocol: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    instructions: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    list_ttl_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fetched_at_ms: Option<u64>,
    tools: &'a [Tool],
    /// After the tools: a lookup reads the header, then the tools, then (for a server with
    /// skills) these; none written for a server without skills.
    #[serde(skip_serializing_if = "<[SkillEntry]>::is_empty")]
    skills: &'a [SkillEntry],
}

/// Only the format, to tell another format from garbage.
#[derive(Deserialize)]
struct FormatOnly {
    format: u32,
}

fn millis_since_epoch(time: SystemTime) -> u64 {
    time.duration_since(UNIX_EPOCH)
        .map(|since| u64::try_from(since.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

/// Encodes an entry written at `now`, with no [`Listing`] (feature `internals`: for the fuzz
/// targets, the bench and the tests; not a stable API).
#[cfg(any(test, feature = "internals"))]
pub fn encode_entry(fingerprint: &Fingerprint, tools: &[Tool], now: SystemTime) -> Vec<u8> {
    encode(fingerprint, tools, &Listing::default(), now)
}

/// Encodes an entry written at `now` with its [`Listing`] (feature `internals`: for the fuzz
/// targets; not a stable API).
#[cfg(any(test, feature = "internals"))]
pub fn encode_listed_entry(
    fingerprint: &Fingerprint,
    tools: &[Tool],
    listing: &Listing,
    now: SystemTime,
) -> Vec<u8> {
    encode(fingerprint, tools, listing, now)
}

/// Encodes an entry written at `now`.
pub(crate) fn encode(
    fingerprint: &Fingerprint,
    tools: &[Tool],
    listing: &Listing,
    now: SystemTime,
) -> Vec<u8> {
    let freshness = listing.ttl.zip(listing.fetched_at);
    let entry = EntryOut {
        format: FORMAT_VERSION,
        fingerprint: fingerprint.as_str(),
        written_at_ms: millis_since_epoch(now),
        protocol: listing.protocol_version.map(ProtocolVersion::as_str),
        instructions: listing.instructions.as_deref(),
        list_ttl_ms: freshness.map(|(ttl, _)| u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX)),
        fetched_at_ms: freshness.map(|(_, fetched_at)| millis_since_epoch(fetched_at)),
        tools,
        skills: &listing.skills,
    };
    // Tools and skills hold only JSON-representable data, so this cannot fail; an empty entry would
    // decode as a miss anyway.
    serde_json::to_vec(&entry).unwrap_or_default()
}

/// The write time of an encoded entry (milliseconds since the epoch), if it has one: how the
/// sled store tells a fresh entry without decoding its tools.
#[cfg(feature = "sled")]
pub(crate) fn written_at_ms(bytes: &[u8]) -> Option<u64> {
    /// Only the write time; the tools and the rest are skipped unbuilt.
    #[derive(Deserialize)]
    struct WrittenAt {
        written_at_ms: u64,
    }
    serde_json::from_slice::<WrittenAt>(bytes)
        .ok()
        .map(|entry| entry.written_at_ms)
}

/// Decodes an entry and checks it against the configuration, the time to live and `now`
/// (feature `internals`: for the fuzz targets, the bench and the tests; not a stable API).
#[cfg(any(test, feature = "internals"))]
pub fn decode_entry(
    bytes: &[u8],
    fingerprint: &Fingerprint,
    ttl: Duration,
    now: SystemTime,
) -> Result<CacheEntry, MissReason> {
    decode(bytes, fingerprint, ttl, now)
}

/// Decodes an entry and checks it against the configuration, the time to live and `now`.
pub(crate) fn decode(
    bytes: &[u8],
    fingerprint: &Fingerprint,
    ttl: Duration,
    now: SystemTime,
) -> Result<CacheEntry, MissReason> {
    let wanted = Wanted {
        fingerprint: fingerprint.as_str(),
        ttl_ms: ttl.as_millis(),
        now_ms: millis_since_epoch(now),
    };
    let mut reader = serde_json::Deserializer::from_slice(bytes);
    match wanted
        .deserialize(&mut reader)
        .and_then(|lookup| reader.end().map(|()| lookup))
    {
        Ok(lookup) => lookup,
        Err(_) => Err(match serde_json::from_slice::<FormatOnly>(bytes) {
            Ok(header) if header.format != FORMAT_VERSION => MissReason::OtherFormat,
            _ => MissReason::Undecodable,
        }),
    }
}

/// What a lookup wants of an entry; decodes one in a single pass. The header comes first in
/// what [`encode`] writes, so a header that does not match skips the tools unbuilt (a
/// miss costs one scan); in an entry written in another order the tools are decoded, then the
/// header judged.
struct Wanted<'a> {
    fingerprint: &'a str,
    ttl_ms: u128,
    now_ms: u64,
}

impl Wanted<'_> {
    /// Why an entry with this header (as far as it is known) is a miss, if it is one.
    fn miss(
        &self,
        format: Option<u32>,
        fingerprint_matches: Option<bool>,
        written_at_ms: Option<u64>,
    ) -> Option<MissReason> {
        if format.is_some_and(|format| format != FORMAT_VERSION) {
            Some(MissReason::OtherFormat)
        } else if fingerprint_matches == Some(false) {
            Some(MissReason::OtherFingerprint)
        } else if written_at_ms
            .is_some_and(|written| u128::from(self.now_ms.saturating_sub(written)) > self.ttl_ms)
        {
            Some(MissReason::Expired)
        } else {
            None
        }
    }
}

#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "snake_case")]
enum EntryField {
    Format,
    Fingerprint,
    WrittenAtMs,
    Protocol,
    Instructions,
    ListTtlMs,
    FetchedAtMs,
    Tools,
    Skills,
    #[serde(other)]
    Other,
}

/// What a lookup makes of an entry.
type Decoded = Result<CacheEntry, MissReason>;

/// The next value of `map`, or `None` with it skipped unbuilt when the header (as far as it
/// is known) already says `miss`.
fn unless_missed<'de, T: Deserialize<'de>, A: MapAccess<'de>>(
    map: &mut A,
    miss: Option<MissReason>,
) -> Result<Option<T>, A::Error> {
    if miss.is_some() {
        map.next_value::<IgnoredAny>()?;
        Ok(None)
    } else {
        map.next_value().map(Some)
    }
}

impl<'de> DeserializeSeed<'de> for Wanted<'_> {
    type Value = Decoded;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Decoded, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Wanted<'_> {
    type Value = Decoded;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a tool cache entry")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Decoded, A::Error> {
        fn once<T, E: serde::de::Error>(
            slot: &mut Option<T>,
            value: T,
            name: &'static str,
        ) -> Result<(), E> {
            match slot.replace(value) {
                Some(_) => Err(E::duplicate_field(name)),
                None => Ok(()),
            }
        }
        let mut format = None;
        let mut fingerprint_matches = None;
        let mut written_at_ms = None;
        // `Some(None)`: a version this build does not know (a newer build wrote it).
        let mut protocol: Option<Option<ProtocolVersion>> = None;
        let mut instructions: Option<Option<String>> = None;
        let mut list_ttl_ms: Option<u64> = None;
        let mut fetched_at_ms: Option<u64> = None;
        // `Some(None)`: the tools were there and skipped.
        let mut tools: Option<Option<Vec<Tool>>> = None;
        // Skipped, like the tools, when the header says miss; absent for a server without.
        let mut skills: Option<Option<Vec<SkillEntry>>> = None;
        while let Some(field) = map.next_key::<EntryField>()? {
            match field {
                EntryField::Format => once(&mut format, map.next_value()?, "format")?,
                EntryField::Fingerprint => {
                    let fingerprint: std::borrow::Cow<'_, str> = map.next_value()?;
                    once(
                        &mut fingerprint_matches,
                        fingerprint == self.fingerprint,
                        "fingerprint",
                    )?;
                }
                EntryField::WrittenAtMs => {
                    once(&mut written_at_ms, map.next_value()?, "written_at_ms")?;
                }
                EntryField::Protocol => {
                    let version: std::borrow::Cow<'_, str> = map.next_value()?;
                    once(&mut protocol, ProtocolVersion::parse(&version), "protocol")?;
                }
                EntryField::Instructions => {
                    once(&mut instructions, map.next_value()?, "instructions")?;
                }
                EntryField::ListTtlMs => {
                    once(&mut list_ttl_ms, map.next_value()?, "list_ttl_ms")?;
                }
                EntryField::FetchedAtMs => {
                    once(&mut fetched_at_ms, map.next_value()?, "fetched_at_ms")?;
                }
                EntryField::Tools => {
                    let miss = self.miss(format, fingerprint_matches, written_at_ms);
                    once(&mut tools, unless_missed(&mut map, miss)?, "tools")?;
                }
                EntryField::Skills => {
                    let miss = self.miss(format, fingerprint_matches, written_at_ms);
                    once(&mut skills, unless_missed(&mut map, miss)?, "skills")?;
                }
                EntryField::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let format = format.ok_or_else(|| A::Error::missing_field("format"))?;
        let fingerprint_matches =
            fingerprint_matches.ok_or_else(|| A::Error::missing_field("fingerprint"))?;
        let written_at_ms =
            written_at_ms.ok_or_else(|| A::Error::missing_field("written_at_ms"))?;
        let tools = tools.ok_or_else(|| A::Error::missing_field("tools"))?;
        // The ttl counts only with the time it counts from.
        let freshness = list_ttl_ms
            .zip(fetched_at_ms)
            .and_then(|(ttl, fetched_at)| {
                let fetched_at = UNIX_EPOCH.checked_add(Duration::from_millis(fetched_at))?;
                Some((Duration::from_millis(ttl).min(MAX_TTL), fetched_at))
            });
        let listing = Listing {
            protocol_version: protocol.flatten(),
            instructions: instructions.flatten(),
            ttl: freshness.map(|(ttl, _)| ttl),
            fetched_at: freshness.map(|(_, fetched_at)| fetched_at),
            skills: skills.flatten().unwrap_or_default(),
        };
        Ok(
            match (
                self.miss(Some(format), Some(fingerprint_matches), Some(written_at_ms)),
                tools,
            ) {
                (Some(reason), _) => Err(reason),
                (None, Some(tools)) => Ok(CacheEntry { tools, listing }),
                // Skipped only when the header said miss, judged again just now.
                (None, None) => Err(MissReason::Undecodable),
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tools() -> Vec<Tool> {
        serde_json::from_value(json!([
            {"name": "echo", "inputSchema": {"type": "object", "zeta": 1, "alpha": 2}, "x-extra": true}
        ]))
        .unwrap()
    }

    #[test]
    fn an_entry_round_trips_with_schemas_and_unknown_fields_intact() {
        let fp = Fingerprint::from_hex("abc");
        let now = SystemTime::now();
        let bytes = encode_entry(&fp, &tools(), now);
        assert_eq!(
            decode_entry(&bytes, &fp, Duration::from_secs(60), now).map(|e| e.tools),
            Ok(tools())
        );
    }

    /// An entry written by hand, with `tools` as given and the fields in this order.
    fn entry_with(fields: &[(&str, serde_json::Value)]) -> Vec<u8> {
        let object: serde_json::Map<String, serde_json::Value> = fields
            .iter()
            .map(|(key, value)| ((*key).to_owned(), value.clone()))
            .collect();
        serde_json::to_vec(&object).unwrap()
    }

    #[test]
    fn an_entry_whose_tools_come_before_its_header_decodes_the_same() {
        let fp = Fingerprint::from_hex("abc");
        let now = SystemTime::now();
        let ttl = Duration::from_secs(60);
        let written = json!(millis_since_epoch(now));
        let tools_first = entry_with(&[
            ("tools", serde_json::to_value(tools()).unwrap()),
            ("x-note", json!("ignored")),
            ("written_at_ms", written.clone()),
            ("fingerprint", json!("abc")),
            ("format", json!(FORMAT_VERSION)),
        ]);
        assert_eq!(
            decode_entry(&tools_first, &fp, ttl, now).map(|e| e.tools),
            Ok(tools())
        );
        assert_eq!(
            decode_entry(&tools_first, &Fingerprint::from_hex("other"), ttl, now).err(),
            Some(MissReason::OtherFingerprint)
        );
        // A header that does not match skips the tools, whatever they hold.
        let skipped = entry_with(&[
            ("format", json!(FORMAT_VERSION)),
            ("fingerprint", json!("other")),
            ("written_at_ms", written),
            ("tools", json!({"not": "tools"})),
        ]);
        assert_eq!(
            decode_entry(&skipped, &fp, ttl, now).err(),
            Some(MissReason::OtherFingerprint)
        );
    }

    #[test]
    fn a_matching_header_with_broken_tools_or_fields_is_undecodable() {
        let fp = Fingerprint::from_hex("abc");
        let now = SystemTime::now();
        let ttl = Duration::from_secs(60);
        let written = json!(millis_since_epoch(now));
        let header = [
            ("format", json!(FORMAT_VERSION)),
            ("fingerprint", json!("abc")),
            ("written_at_ms", written),
        ];
        let not_tools =
            entry_with(&[&header[..], &[("tools", json!([{"title": "no name"}]))]].concat());
        let no_tools = entry_with(&header);
        let twice = [
            br#"{"format":1,"format":1,"fingerprint":"abc","written_at_ms":0,"tools":[]}"#
                .as_slice(),
            br#"{"format":1,"fingerprint":"abc","written_at_ms":0,"tools":[],"tools":[]}"#,
        ];
        // Schemas serde_json cannot build: an unpaired surrogate escape, an f64 out of range.
        let unbuildable = [r#"{"\ud800type":"object"}"#, r#"{"maximum":1e400}"#].map(|schema| {
            assert!(serde_json::from_str::<serde_json::Value>(schema).is_err(), "{schema}");
            let tools = format!(r#"[{{"name":"t","inputSchema":{schema}}}]"#);
            format!(
                r#"{{"format":{FORMAT_VERSION},"fingerprint":"abc","written_at_ms":{},"tools":{tools}}}"#,
                header[2].1
            )
            .into_bytes()
        });
        for bytes in [
            not_tools.as_slice(),
            &no_tools,
            twice[0],
            twice[1],
            &unbuildable[0],
            &unbuildable[1],
        ] {
            assert_eq!(
                decode_entry(bytes, &fp, Duration::MAX, now).err(),
                Some(MissReason::Undecodable),
                "{}",
                String::from_utf8_lossy(bytes)
            );
        }
        let trailing = [encode_entry(&fp, &tools(), now), b" {}".to_vec()].concat();
        assert_eq!(
            decode_entry(&trailing, &fp, ttl, now).err(),
            Some(MissReason::Undecodable)
        );
    }

    #[test]
    fn a_listing_round_trips_and_an_entry_without_one_knows_nothing() {
        let fp = Fingerprint::from_hex("abc");
        let now = SystemTime::now();
        let ttl = Duration::from_secs(60);
        let fetched_at = UNIX_EPOCH + Duration::from_millis(1_700_000_000_123);
        for listing in [
            Listing::default(),
            Listing::new(ProtocolVersion::V2025_11_25),
            Listing::new(ProtocolVersion::V2026_07_28)
                .with_ttl(Duration::from_secs(300), fetched_at),
        ] {
            let bytes = encode(&fp, &tools(), &listing, now);
            assert_eq!(
                decode(&bytes, &fp, ttl, now),
                Ok(CacheEntry {
                    tools: tools(),
                    listing
                })
            );
        }
        let written = encode_entry(&fp, &tools(), now);
        assert_eq!(
            decode(&written, &fp, ttl, now).map(|e| e.listing),
            Ok(Listing::default())
        );
    }

    #[test]
    fn a_listing_field_this_build_cannot_use_is_left_out_not_a_miss() {
        let fp = Fingerprint::from_hex("abc");
        let now = SystemTime::now();
        let ttl = Duration::from_secs(60);
        let written = json!(millis_since_epoch(now));
        let header = [
            ("format", json!(FORMAT_VERSION)),
            ("fingerprint", json!("abc")),
            ("written_at_ms", written),
        ];
        let with = |fields: &[(&str, serde_json::Value)]| {
            let tools = [("tools", serde_json::to_value(tools()).unwrap())];
            let bytes = entry_with(&[&header[..], fields, &tools].concat());
            decode(&bytes, &fp, ttl, now).map(|entry| entry.listing)
        };
        // A version a newer build speaks; a ttl without the time it counts from.
        assert_eq!(
            with(&[("protocol", json!("2099-01-01")), ("list_ttl_ms", json!(5))]),
            Ok(Listing::default())
        );
        assert_eq!(
            with(&[("protocol", json!("2025-06-18"))]),
            Ok(Listing::new(ProtocolVersion::V2025_06_18))
        );
        assert_eq!(
            with(&[("protocol", json!(7))]),
            Err(MissReason::Undecodable)
        );
        assert!(
            Listing::new(ProtocolVersion::V2026_07_28)
                .with_ttl(Duration::from_secs(1), now)
                .is_fresh_at(now)
        );
        assert!(
            !Listing::new(ProtocolVersion::V2026_07_28)
                .with_ttl(Duration::from_secs(1), now)
                .is_fresh_at(now + Duration::from_secs(1))
        );
        assert!(!Listing::new(ProtocolVersion::V2026_07_28).is_fresh_at(now));
        assert!(
            Listing::default()
                .with_ttl(Duration::MAX, now)
                .is_fresh_at(now),
            "a ttl past the end of time is a day"
        );
    }

    #[test]
    fn a_lists_ttl_counts_for_a_day_at_most_and_only_from_a_fetch_in_the_past() {
        let fp = Fingerprint::from_hex("abc");
        let now = SystemTime::now();
        let day = Duration::from_secs(24 * 60 * 60);
        // 10^12 ms (31 years), as a server may ask and an older build kept it.
        let huge = Duration::from_millis(1_000_000_000_000);
        let asked = Listing::new(ProtocolVersion::V2026_07_28).with_ttl(huge, now);
        assert_eq!(asked.ttl, Some(day));
        assert!(asked.is_fresh_at(now + day - Duration::from_secs(1)));
        assert!(!asked.is_fresh_at(now + day));
        let written = json!(millis_since_epoch(now));
        let by_hand = |fetched_at: SystemTime| {
            entry_with(&[
                ("format", json!(FORMAT_VERSION)),
                ("fingerprint", json!("abc")),
                ("written_at_ms", written.clone()),
                ("protocol", json!("2026-07-28")),
                ("list_ttl_ms", json!(1_000_000_000_000_u64)),
                ("fetched_at_ms", json!(millis_since_epoch(fetched_at))),
                ("tools", serde_json::to_value(tools()).unwrap()),
            ])
        };
        let read = decode(&by_hand(now), &fp, Duration::MAX, now)
            .unwrap()
            .listing;
        assert_eq!(read.ttl, Some(day));
        assert!(!read.is_fresh_at(now + day));
        // A fetch time ahead of the clock (another machine's, or a hand's) keeps nothing fresh.
        let ahead = decode(&by_hand(now + day), &fp, Duration::MAX, now)
            .unwrap()
            .listing;
        assert!(!ahead.is_fresh_at(now));
    }

    fn skills() -> Vec<SkillEntry> {
        serde_json::from_value(json!([{
            "uri": "skill://pdf/SKILL.md",
            "frontmatter": {"name": "pdf", "description": "Fill PDF forms"},
            "resources": [{"uri": "skill://pdf/SKILL.md", "digest": format!("sha256:{}", "ab".repeat(32)), "size": 42}],
            "_meta": {"kept": true}
        }]))
        .unwrap()
    }

    #[test]
    fn a_servers_skills_are_kept_after_its_tools_and_a_server_without_skills_writes_none() {
        let fp = Fingerprint::from_hex("abc");
        let now = SystemTime::now();
        let ttl = Duration::from_secs(60);
        let listing = Listing::new(ProtocolVersion::V2025_11_25).with_skills(skills());
        let bytes = encode(&fp, &tools(), &listing, now);
        let entry = decode(&bytes, &fp, ttl, now).unwrap();
        assert_eq!(entry.listing, listing);
        assert_eq!(
            entry.listing.skills[0].extra["_meta"],
            json!({"kept": true})
        );
        let text = String::from_utf8(bytes).unwrap();
        assert!(
            text.find("\"tools\"") < text.find("\"skills\""),
            "the skills come last: {text}"
        );

        // Without skills, the entry is what it was before skills were kept.
        let plain = encode(&fp, &tools(), &Listing::default(), now);
        assert_eq!(plain, encode_entry(&fp, &tools(), now));
        assert!(!String::from_utf8_lossy(&plain).contains("skills"));
        assert_eq!(
            decode(&plain, &fp, ttl, now).map(|entry| entry.listing.skills),
            Ok(Vec::new())
        );
    }

    #[test]
    fn skills_are_skipped_unbuilt_on_a_miss_and_undecodable_skills_are_a_miss_on_a_hit() {
        let fp = Fingerprint::from_hex("abc");
        let now = SystemTime::now();
        let ttl = Duration::from_secs(60);
        let with_skills = |fingerprint: &str, skills: serde_json::Value| {
            entry_with(&[
                ("format", json!(FORMAT_VERSION)),
                ("fingerprint", json!(fingerprint)),
                ("written_at_ms", json!(millis_since_epoch(now))),
                ("tools", serde_json::to_value(tools()).unwrap()),
                ("skills", skills),
            ])
        };
        let broken = json!([{"uri": "skill://x/SKILL.md", "resources": "all"}]);
        assert_eq!(
            decode(&with_skills("other", broken.clone()), &fp, ttl, now).err(),
            Some(MissReason::OtherFingerprint)
        );
        assert_eq!(
            decode(&with_skills("abc", broken), &fp, ttl, now).err(),
            Some(MissReason::Undecodable)
        );
        assert_eq!(
            decode(
                &with_skills("abc", serde_json::to_value(skills()).unwrap()),
                &fp,
                ttl,
                now
            )
            .map(|entry| entry.listing.skills),
            Ok(skills())
        );
    }

    #[test]
    fn each_miss_reason() {
        let fp = Fingerprint::from_hex("abc");
        let now = SystemTime::now();
        let bytes = encode_entry(&fp, &tools(), now);
        let ttl = Duration::from_secs(30 * 86_400);
        let later = now + ttl + Duration::from_secs(1);
        assert_eq!(
            decode_entry(&bytes, &fp, ttl, later).err(),
            Some(MissReason::Expired)
        );
        assert_eq!(
            decode_entry(&bytes, &Fingerprint::from_hex("other"), ttl, now).err(),
            Some(MissReason::OtherFingerprint)
        );
        let old_format = br#"{"format":0,"fingerprint":"abc","written_at_ms":0,"tools":"v0"}"#;
        assert_eq!(
            decode_entry(old_format, &fp, ttl, now).err(),
            Some(MissReason::OtherFormat)
        );
        assert_eq!(
            decode_entry(&bytes[..bytes.len() / 2], &fp, ttl, now).err(),
            Some(MissReason::Undecodable)
        );
        assert_eq!(
            decode_entry(b"\xff\x00garbage", &fp, ttl, now).err(),
            Some(MissReason::Undecodable)
        );
    }
}
