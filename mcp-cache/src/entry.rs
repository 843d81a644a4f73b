//! What a cache entry holds and how it is encoded: a format version, the fingerprint of the
//! server's unresolved configuration, the write time and the tools.
//!
//! The header is checked before the tools are decoded, so a miss (other fingerprint, expired)
//! costs little even for a server with hundreds of tools.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use mcp_transport::Tool;
use serde::{Deserialize, Serialize};
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

#[derive(Deserialize)]
struct EntryIn<'a> {
    format: u32,
    #[serde(borrow)]
    fingerprint: &'a str,
    written_at_ms: u64,
    #[serde(borrow)]
    tools: &'a RawValue,
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
    let entry: EntryIn<'_> = match serde_json::from_slice(bytes) {
        Ok(entry) => entry,
        Err(_) => {
            return Lookup::Miss(match serde_json::from_slice::<FormatOnly>(bytes) {
                Ok(header) if header.format != FORMAT_VERSION => MissReason::OtherFormat,
                _ => MissReason::Undecodable,
            });
        }
    };
    if entry.format != FORMAT_VERSION {
        return Lookup::Miss(MissReason::OtherFormat);
    }
    if entry.fingerprint != fingerprint.as_str() {
        return Lookup::Miss(MissReason::OtherFingerprint);
    }
    let age_ms = millis_since_epoch(now).saturating_sub(entry.written_at_ms);
    if u128::from(age_ms) > ttl.as_millis() {
        return Lookup::Miss(MissReason::Expired);
    }
    match serde_json::from_str::<Vec<Tool>>(entry.tools.get()) {
        Ok(tools) => Lookup::Hit(tools),
        Err(_) => Lookup::Miss(MissReason::Undecodable),
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
