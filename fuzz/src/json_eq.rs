//! Equality of JSON values up to the precision of serde_json's float parsing, and a test for
//! repeated keys.
//!
//! serde_json parses floats with a fast algorithm that may land one or two units in the last
//! place away from the correctly rounded value (exact parsing is its `float_roundtrip`
//! feature, which this workspace does not enable), so a float written and read again may come
//! back a hair off: `5.774443820969312e-81` reads as `5.7744438209693115e-81`. Round-trip
//! properties compare with this instead of `==`, so that they find lost or changed data rather
//! than that.
//!
//! An object that names a key twice means what each parser decides (RFC 8259 leaves it
//! open): which value wins, and where its key stands, may change in a round trip. Round-trip
//! properties hold for JSON without repeated keys; [`has_repeated_keys`] tells them apart.

use std::collections::HashSet;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

/// How many representable floats apart two numbers may be and still count as the same.
const MAX_ULPS: u64 = 4;

/// Whether `a` and `b` are the same JSON, floats compared within four units in the last place.
pub fn same_json(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            match (x.is_f64() || y.is_f64(), x.as_f64(), y.as_f64()) {
                (true, Some(x), Some(y)) => close(x, y),
                _ => x == y,
            }
        }
        (Value::Array(xs), Value::Array(ys)) => {
            xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| same_json(x, y))
        }
        (Value::Object(xs), Value::Object(ys)) => {
            xs.len() == ys.len()
                && xs
                    .iter()
                    .zip(ys)
                    .all(|((kx, x), (ky, y))| kx == ky && same_json(x, y))
        }
        _ => a == b,
    }
}

/// Whether `bytes` are JSON in which some object names a key twice (false for bytes that are
/// not JSON).
pub fn has_repeated_keys(bytes: &[u8]) -> bool {
    serde_json::from_slice::<Repeats>(bytes).is_ok_and(|repeats| repeats.0)
}

/// Whether a JSON value repeats a key somewhere inside.
struct Repeats(bool);

impl<'de> Deserialize<'de> for Repeats {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(RepeatsVisitor)
    }
}

struct RepeatsVisitor;

impl<'de> Visitor<'de> for RepeatsVisitor {
    type Value = Repeats;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Repeats, E> {
        Ok(Repeats(false))
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Repeats, E> {
        Ok(Repeats(false))
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Repeats, E> {
        Ok(Repeats(false))
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Repeats, E> {
        Ok(Repeats(false))
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Repeats, E> {
        Ok(Repeats(false))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Repeats, E> {
        Ok(Repeats(false))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<Repeats, A::Error> {
        let mut repeats = false;
        while let Some(item) = items.next_element::<Repeats>()? {
            repeats |= item.0;
        }
        Ok(Repeats(repeats))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut entries: A) -> Result<Repeats, A::Error> {
        let mut keys = HashSet::new();
        let mut repeats = false;
        while let Some(key) = entries.next_key::<String>()? {
            repeats |= !keys.insert(key);
            repeats |= entries.next_value::<Repeats>()?.0;
        }
        Ok(Repeats(repeats))
    }
}

fn close(x: f64, y: f64) -> bool {
    if x == y {
        return true;
    }
    if x.is_sign_negative() != y.is_sign_negative() {
        return false;
    }
    x.to_bits().abs_diff(y.to_bits()) <= MAX_ULPS
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn floats_a_few_units_apart_are_the_same_and_anything_else_is_not() {
        let near = f64::from_bits(0.1f64.to_bits() + 1);
        assert!(same_json(&json!({"a": [0.1]}), &json!({"a": [near]})));
        assert!(!same_json(&json!({"a": [0.1]}), &json!({"a": [0.11]})));
        assert!(
            !same_json(&json!({"a": 1, "b": 2}), &json!({"b": 2, "a": 1})),
            "order counts"
        );
        assert!(!same_json(&json!(1), &json!(2)));
        assert!(!same_json(&json!([1]), &json!([1, 1])));
    }

    #[test]
    fn a_key_named_twice_in_any_object_is_found() {
        assert!(has_repeated_keys(br#"{"a": 1, "a": 2}"#));
        assert!(has_repeated_keys(
            br#"[1, {"b": {"c": null, "c": [true]}}]"#
        ));
        assert!(!has_repeated_keys(
            br#"{"a": {"a": 1}, "b": [{"a": 2}, {"a": 3}]}"#
        ));
        assert!(!has_repeated_keys(br#"{"a": "#), "not JSON");
    }
}
