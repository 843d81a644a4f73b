//! What a cache entry holds and how it is encoded: a format version, the fingerprint of the
//! server's unresolved configuration, the write time and the tools.
//!
//! The header is checked before the tools are decoded, so a miss (other fingerprint, expired)
//! costs little even for a server with hundreds of tools. An entry is read in one pass: the
//! header comes first (as [`encode_entry`] writes it), so by the time the tools come it is known
//! whether to build them or to skip them. Only an entry whose tools come before its header
//! (not written by this crate) keeps them as text until the header is known.

use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use mcp_transport::Tool;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::value::RawValue;

use crate::fingerprint::Fingerprint;

/// The entry format this build writes and reads. Entries of any other format are misses.
pub const FORMAT_VERSION: u32 = 1;

/// The result of a lookup: the tools, or why there are none.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Lookup {
    /// A fresh entry for this configuration.
    Hit(Vec<Tool>),
    /// No usable entry.
    Miss(MissReason),
}

impl Lookup {
    /// The tools of a hit.
    pub fn into_tools(self) -> Option<Vec<Tool>> {
        match self {
            Self::Hit(tools) => Some(tools),
            Self::Miss(_) => None,
        }
    }

    /// Why there was no hit, if there was none.
    pub fn miss_reason(&self) -> Option<MissReason> {
        match self {
            Self::Hit(_) => None,
            Self::Miss(reason) => Some(*reason),
        }
    }
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
    tools: &'a [Tool],
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

/// Encodes an entry written at `now`.
pub fn encode_entry(fingerprint: &Fingerprint, tools: &[Tool], now: SystemTime) -> Vec<u8> {
    let entry = EntryOut {
        format: FORMAT_VERSION,
        fingerprint: fingerprint.as_str(),
        written_at_ms: millis_since_epoch(now),
        tools,
    };
    // Tools hold only JSON-representable data, so this cannot fail; an empty entry would
    // decode as a miss anyway.
    serde_json::to_vec(&entry).unwrap_or_default()
}

/// Decodes an entry and checks it against the configuration, the time to live and `now`.
pub fn decode_entry(
    bytes: &[u8],
    fingerprint: &Fingerprint,
    ttl: Duration,
    now: SystemTime,
) -> Lookup {
    let expected = Expected {
        fingerprint: fingerprint.as_str(),
        ttl,
        now_ms: millis_since_epoch(now),
    };
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    let decoded = expected
        .deserialize(&mut deserializer)
        .and_then(|lookup| deserializer.end().map(|()| lookup));
    match decoded {
        Ok(lookup) => lookup,
        Err(_) => Lookup::Miss(match serde_json::from_slice::<FormatOnly>(bytes) {
            Ok(header) if header.format != FORMAT_VERSION => MissReason::OtherFormat,
            _ => MissReason::Undecodable,
        }),
    }
}

/// What an entry must match to be a hit; decodes an entry into a [`Lookup`]. A structural
/// problem (not an object, a field missing or twice, tools that are not tools) is an error.
struct Expected<'a> {
    fingerprint: &'a str,
    ttl: Duration,
    now_ms: u64,
}

impl Expected<'_> {
    /// Why an entry with this header misses, if it does.
    fn miss(&self, format: u32, fingerprint: &str, written_at_ms: u64) -> Option<MissReason> {
        if format != FORMAT_VERSION {
            return Some(MissReason::OtherFormat);
        }
        if fingerprint != self.fingerprint {
            return Some(MissReason::OtherFingerprint);
        }
        let age_ms = self.now_ms.saturating_sub(written_at_ms);
        (u128::from(age_ms) > self.ttl.as_millis()).then_some(MissReason::Expired)
    }
}

/// The fields of an entry.
enum EntryField {
    Format,
    Fingerprint,
    WrittenAt,
    Tools,
    Other,
}

impl<'de> Deserialize<'de> for EntryField {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct FieldVisitor;

        impl Visitor<'_> for FieldVisitor {
            type Value = EntryField;

            fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
                formatter.write_str("an entry field")
            }

            fn visit_str<E: de::Error>(self, key: &str) -> Result<EntryField, E> {
                Ok(match key {
                    "format" => EntryField::Format,
                    "fingerprint" => EntryField::Fingerprint,
                    "written_at_ms" => EntryField::WrittenAt,
                    "tools" => EntryField::Tools,
                    _ => EntryField::Other,
                })
            }
        }

        deserializer.deserialize_identifier(FieldVisitor)
    }
}

/// The tools of an entry, as far as they were read.
enum ToolsIn<'de> {
    /// Not seen yet.
    Missing,
    /// Built: the header was read and matched.
    Built(Vec<Tool>),
    /// Skipped: the header was read and did not match.
    Skipped,
    /// Kept as text: they came before the header.
    Text(&'de RawValue),
}

/// Sets a field seen for the first time; a second one is an error.
fn once<T, E: de::Error>(slot: &mut Option<T>, value: T, name: &'static str) -> Result<(), E> {
    if slot.is_some() {
        return Err(E::duplicate_field(name));
    }
    *slot = Some(value);
    Ok(())
}

impl<'de> DeserializeSeed<'de> for Expected<'_> {
    type Value = Lookup;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Lookup, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Expected<'_> {
    type Value = Lookup;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a tool cache entry")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Lookup, A::Error> {
        let mut format = None;
        let mut fingerprint: Option<String> = None;
        let mut written_at_ms = None;
        let mut tools = ToolsIn::Missing;
        while let Some(field) = map.next_key::<EntryField>()? {
            match field {
                EntryField::Format => once(&mut format, map.next_value()?, "format")?,
                EntryField::Fingerprint => {
                    once(&mut fingerprint, map.next_value()?, "fingerprint")?;
                }
                EntryField::WrittenAt => {
                    once(&mut written_at_ms, map.next_value()?, "written_at_ms")?;
                }
                EntryField::Tools => {
                    if !matches!(tools, ToolsIn::Missing) {
                        return Err(de::Error::duplicate_field("tools"));
                    }
                    tools = match (format, &fingerprint, written_at_ms) {
                        (Some(format), Some(fingerprint), Some(written_at_ms)) => {
                            match self.miss(format, fingerprint, written_at_ms) {
                                None => ToolsIn::Built(map.next_value()?),
                                Some(_) => {
                                    map.next_value::<IgnoredAny>()?;
                                    ToolsIn::Skipped
                                }
                            }
                        }
                        _ => ToolsIn::Text(map.next_value()?),
                    };
                }
                EntryField::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let format = format.ok_or_else(|| de::Error::missing_field("format"))?;
        let fingerprint = fingerprint.ok_or_else(|| de::Error::missing_field("fingerprint"))?;
        let written_at_ms =
            written_at_ms.ok_or_else(|| de::Error::missing_field("written_at_ms"))?;
        if let Some(reason) = self.miss(format, &fingerprint, written_at_ms) {
            return Ok(Lookup::Miss(reason));
        }
        match tools {
            ToolsIn::Built(tools) => Ok(Lookup::Hit(tools)),
            ToolsIn::Text(text) => serde_json::from_str(text.get())
                .map(Lookup::Hit)
                .map_err(de::Error::custom),
            ToolsIn::Missing | ToolsIn::Skipped => Err(de::Error::missing_field("tools")),
        }
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
            decode_entry(&bytes, &fp, Duration::from_secs(60), now),
            Lookup::Hit(tools())
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
            decode_entry(&tools_first, &fp, ttl, now),
            Lookup::Hit(tools())
        );
        assert_eq!(
            decode_entry(&tools_first, &Fingerprint::from_hex("other"), ttl, now).miss_reason(),
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
            decode_entry(&skipped, &fp, ttl, now).miss_reason(),
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
        for bytes in [not_tools.as_slice(), &no_tools, twice[0], twice[1]] {
            assert_eq!(
                decode_entry(bytes, &fp, Duration::MAX, now).miss_reason(),
                Some(MissReason::Undecodable),
                "{}",
                String::from_utf8_lossy(bytes)
            );
        }
        let trailing = [encode_entry(&fp, &tools(), now), b" {}".to_vec()].concat();
        assert_eq!(
            decode_entry(&trailing, &fp, ttl, now).miss_reason(),
            Some(MissReason::Undecodable)
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
            decode_entry(&bytes, &fp, ttl, later).miss_reason(),
            Some(MissReason::Expired)
        );
        assert_eq!(
            decode_entry(&bytes, &Fingerprint::from_hex("other"), ttl, now).miss_reason(),
            Some(MissReason::OtherFingerprint)
        );
        let old_format = br#"{"format":0,"fingerprint":"abc","written_at_ms":0,"tools":"v0"}"#;
        assert_eq!(
            decode_entry(old_format, &fp, ttl, now).miss_reason(),
            Some(MissReason::OtherFormat)
        );
        assert_eq!(
            decode_entry(&bytes[..bytes.len() / 2], &fp, ttl, now).miss_reason(),
            Some(MissReason::Undecodable)
        );
        assert_eq!(
            decode_entry(b"\xff\x00garbage", &fp, ttl, now).miss_reason(),
            Some(MissReason::Undecodable)
        );
    }
}
