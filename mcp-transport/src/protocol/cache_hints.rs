//! `ttlMs`, the freshness hint on the cacheable results of the stateless revision (2026-07-28:
//! `server/discover`, `tools/list` and the other lists, `resources/read`): the one reader of it,
//! used wherever a result carrying it is read, and the longest it is taken for.
//!
//! A hint is a whole number of milliseconds, written as an integer or in exponent form
//! (`60000`, `6e4`). One that cannot be read — negative, fractional, beyond any clock
//! (`1e300`), a string (`"NaN"`), anything else — is no hint: the result it is on reads as if
//! it carried none (stale at once, as the specification says of a missing hint), and is never
//! refused for it. A readable hint counts for [`MAX_TTL`] at most, however long the server
//! asks for: a list is then fetched again at least once a day, and a server cannot make a
//! list it gave once outlive every later change of it.

use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

/// The longest a `ttlMs` is taken for: one day.
pub const MAX_TTL: Duration = Duration::from_secs(24 * 60 * 60);

/// [`MAX_TTL`] in milliseconds.
const MAX_TTL_MS: u64 = 24 * 60 * 60 * 1000;

/// 2^64 as a float: the first whole number a `u64` cannot hold.
const TWO_POW_64: f64 = 18_446_744_073_709_551_616.0;

/// The hint `value` gives, in milliseconds, at most [`MAX_TTL`]; `None` for a value that is not
/// a whole number from 0 to 2^64 − 1.
pub(crate) fn ttl_ms_of(value: &Value) -> Option<u64> {
    let Value::Number(number) = value else {
        return None;
    };
    let ms = match number.as_u64() {
        Some(ms) => ms,
        None => {
            // Negative integers come here too, and are refused with every other non-whole one.
            let float = number.as_f64()?;
            if !(float.is_finite() && float >= 0.0 && float.fract() == 0.0 && float < TWO_POW_64) {
                return None;
            }
            #[expect(
                clippy::cast_possible_truncation,
                clippy::cast_sign_loss,
                reason = "a whole number in 0..2^64, checked just above"
            )]
            let whole = float as u64;
            whole
        }
    };
    Some(ms.min(MAX_TTL_MS))
}

/// `deserialize_with` for an optional `ttlMs` field: never fails the result it is on.
pub(crate) fn lenient_ttl<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<u64>, D::Error> {
    let value = Value::deserialize(deserializer)?;
    Ok(ttl_ms_of(&value))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_whole_number_is_read_and_capped_at_a_day() {
        for (value, ms) in [
            (json!(0), 0),
            (json!(60_000), 60_000),
            (json!(6e4), 60_000),
            (json!(MAX_TTL_MS), MAX_TTL_MS),
            (json!(1_000_000_000_000_u64), MAX_TTL_MS),
            (json!(1e12), MAX_TTL_MS),
            (json!(u64::MAX), MAX_TTL_MS),
        ] {
            assert_eq!(ttl_ms_of(&value), Some(ms), "{value}");
        }
        assert_eq!(Duration::from_millis(MAX_TTL_MS), MAX_TTL);
    }

    #[test]
    fn anything_else_is_no_hint() {
        for value in [
            json!(-1),
            json!(-0.5),
            json!(1.5),
            json!(1e300),
            json!(TWO_POW_64),
            json!("NaN"),
            json!("60000"),
            json!(null),
            json!(true),
            json!([60_000]),
            json!({"ms": 60_000}),
        ] {
            assert_eq!(ttl_ms_of(&value), None, "{value}");
        }
    }
}
