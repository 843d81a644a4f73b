//! [`check_arguments`]: are these arguments what the tool's input schema asks for? Checked
//! before a call, so that a wrong argument is refused with the field named instead of a
//! server's error (or worse, a call that does something else).
//!
//! Written here rather than taken from a JSON Schema crate: the full validators bring regex
//! engines, format checkers and remote `$ref` fetching, and a tool's input schema in practice
//! uses a small part of the language. This checks that part — `type` (one or a list),
//! `required`, `properties`, `additionalProperties: false`, `items`, `enum` and `const` — and
//! lets everything else through: a keyword it does not know never refuses a call; the server
//! remains the judge of the rest.

use serde_json::{Map, Value};

/// How deep schemas are followed; deeper parts are let through.
const MAX_DEPTH: usize = 32;

/// A value the schema does not accept: where it is and why.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ArgumentMismatch {
    /// Where, as a path from the arguments: `query`, `filter.labels[2]`; empty for the whole.
    pub field: String,
    /// What the schema wants, and what was given.
    pub problem: String,
}

impl std::fmt::Display for ArgumentMismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.field.is_empty() {
            write!(f, "the arguments {}", self.problem)
        } else {
            write!(f, "argument `{}` {}", self.field, self.problem)
        }
    }
}

impl std::error::Error for ArgumentMismatch {}

/// Checks `arguments` against a tool's input `schema`; the first mismatch found.
pub fn check_arguments(schema: &Value, arguments: &Value) -> Result<(), ArgumentMismatch> {
    check(schema, arguments, &mut String::new(), 0)
}

fn check(
    schema: &Value,
    value: &Value,
    path: &mut String,
    depth: usize,
) -> Result<(), ArgumentMismatch> {
    let Some(schema) = schema.as_object() else {
        return Ok(());
    };
    if depth > MAX_DEPTH {
        return Ok(());
    }
    let mismatch = |path: &str, problem: String| ArgumentMismatch {
        field: path.to_owned(),
        problem,
    };
    if let Some(types) = schema.get("type")
        && !type_matches(types, value)
    {
        return Err(mismatch(
            path,
            format!(
                "must be {}, not {}",
                describe_types(types),
                describe_value(value)
            ),
        ));
    }
    if let Some(allowed) = schema.get("enum").and_then(Value::as_array)
        && !allowed.contains(value)
    {
        let shown: Vec<String> = allowed.iter().take(10).map(Value::to_string).collect();
        return Err(mismatch(
            path,
            format!("must be one of {}", shown.join(", ")),
        ));
    }
    if let Some(constant) = schema.get("const")
        && constant != value
    {
        return Err(mismatch(path, format!("must be {constant}")));
    }
    if let Some(object) = value.as_object() {
        check_object(schema, object, path, depth)?;
    }
    if let (Some(items), Some(array)) = (schema.get("items"), value.as_array()) {
        for (index, item) in array.iter().enumerate() {
            let len = path.len();
            path.push_str(&format!("[{index}]"));
            check(items, item, path, depth + 1)?;
            path.truncate(len);
        }
    }
    Ok(())
}

fn check_object(
    schema: &Map<String, Value>,
    object: &Map<String, Value>,
    path: &mut String,
    depth: usize,
) -> Result<(), ArgumentMismatch> {
    let properties = schema.get("properties").and_then(Value::as_object);
    for required in schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        if !object.contains_key(required) {
            return Err(ArgumentMismatch {
                field: joined(path, required),
                problem: "is required but missing".to_owned(),
            });
        }
    }
    let closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
    for (key, item) in object {
        match properties.and_then(|properties| properties.get(key)) {
            Some(property) => {
                let len = path.len();
                *path = joined(path, key);
                check(property, item, path, depth + 1)?;
                path.truncate(len);
            }
            None if closed => {
                let known: Vec<&str> = properties
                    .map(|properties| properties.keys().map(String::as_str).collect())
                    .unwrap_or_default();
                return Err(ArgumentMismatch {
                    field: joined(path, key),
                    problem: if known.is_empty() {
                        "is not an argument of this tool (it takes none)".to_owned()
                    } else {
                        format!(
                            "is not an argument of this tool (it takes {})",
                            known.join(", ")
                        )
                    },
                });
            }
            None => {}
        }
    }
    Ok(())
}

fn joined(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

/// Whether `value` has one of the JSON Schema types named (a name or a list of names; an
/// unknown name accepts anything).
fn type_matches(types: &Value, value: &Value) -> bool {
    let one = |name: &str| match name {
        "string" => value.is_string(),
        "number" => value.is_number(),
        "integer" => {
            value.as_i64().is_some()
                || value.as_u64().is_some()
                || value.as_f64().is_some_and(|number| number.fract() == 0.0)
        }
        "boolean" => value.is_boolean(),
        "object" => value.is_object(),
        "array" => value.is_array(),
        "null" => value.is_null(),
        _ => true,
    };
    match types {
        Value::String(name) => one(name),
        Value::Array(names) => names.iter().filter_map(Value::as_str).any(one) || names.is_empty(),
        _ => true,
    }
}

fn describe_types(types: &Value) -> String {
    let article = |name: &str| match name {
        "object" | "array" | "integer" => format!("an {name}"),
        "null" => "null".to_owned(),
        other => format!("a {other}"),
    };
    match types {
        Value::String(name) => article(name),
        Value::Array(names) => names
            .iter()
            .filter_map(Value::as_str)
            .map(article)
            .collect::<Vec<_>>()
            .join(" or "),
        other => other.to_string(),
    }
}

fn describe_value(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(number) if number.is_f64() => "a number",
        Value::Number(_) => "an integer",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "query": {"type": "string"},
                "limit": {"type": "integer"},
                "order": {"enum": ["asc", "desc"]},
                "filter": {
                    "type": "object",
                    "properties": {"labels": {"type": "array", "items": {"type": "string"}}},
                    "additionalProperties": false
                },
                "note": {"type": ["string", "null"]}
            },
            "required": ["query"]
        })
    }

    #[test]
    fn arguments_that_fit_pass_and_unknown_keywords_never_refuse() {
        let ok = json!({"query": "mcp", "limit": 5, "order": "asc",
            "filter": {"labels": ["a", "b"]}, "note": null, "extra": true});
        assert_eq!(check_arguments(&schema(), &ok), Ok(()));
        assert_eq!(
            check_arguments(
                &json!({"type": "object", "x-odd": 1, "pattern": "^a"}),
                &json!({})
            ),
            Ok(())
        );
        assert_eq!(
            check_arguments(&json!({"type": "object"}), &json!({"limit": 5.0})),
            Ok(())
        );
    }

    #[test]
    fn a_mismatch_names_the_field_and_what_the_schema_wants() {
        let cases = [
            (json!({"limit": 5}), "query", "is required but missing"),
            (
                json!({"query": 1}),
                "query",
                "must be a string, not an integer",
            ),
            (
                json!({"query": "q", "limit": 1.5}),
                "limit",
                "must be an integer, not a number",
            ),
            (
                json!({"query": "q", "order": "up"}),
                "order",
                "must be one of \"asc\", \"desc\"",
            ),
            (
                json!({"query": "q", "filter": {"labels": ["a", 2]}}),
                "filter.labels[1]",
                "must be a string, not an integer",
            ),
            (
                json!({"query": "q", "filter": {"colour": "red"}}),
                "filter.colour",
                "is not an argument of this tool (it takes labels)",
            ),
            (
                json!({"query": "q", "note": 3}),
                "note",
                "must be a string or null, not an integer",
            ),
        ];
        for (arguments, field, problem) in cases {
            let mismatch = check_arguments(&schema(), &arguments).unwrap_err();
            assert_eq!(mismatch.field, field, "{arguments}");
            assert_eq!(mismatch.problem, problem, "{arguments}");
        }
        let whole = check_arguments(&schema(), &json!([1])).unwrap_err();
        assert_eq!(
            whole.to_string(),
            "the arguments must be an object, not an array"
        );
        let one = check_arguments(&schema(), &json!({"query": true})).unwrap_err();
        assert_eq!(
            one.to_string(),
            "argument `query` must be a string, not a boolean"
        );
    }
}
