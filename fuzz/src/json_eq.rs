//! Equality of JSON values up to the precision of serde_json's float parsing.
//!
//! serde_json parses floats with a fast algorithm that may land one or two units in the last
//! place away from the correctly rounded value (exact parsing is its `float_roundtrip`
//! feature, which this workspace does not enable), so a float written and read again may come
//! back a hair off: `5.774443820969312e-81` reads as `5.7744438209693115e-81`. Round-trip
//! properties compare with this instead of `==`, so that they find lost or changed data rather
//! than that.

use serde_json::Value;

/// How many representable floats apart two numbers may be and still count as the same.
const MAX_ULPS: u64 = 4;

/// Whether `a` and `b` are the same JSON, floats compared within [`MAX_ULPS`].
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
}
