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

/// Checks `arguments` against a tool's input `schema`; the first mismatch found. A caller that
/// checks many calls against one schema prepares it once with [`ArgumentCheck::new`].
pub fn check_arguments(schema: &Value, arguments: &Value) -> Result<(), ArgumentMismatch> {
    ArgumentCheck::new(schema).check(arguments)
}

/// A tool's input schema prepared for checking calls: the keywords looked up, the type names
/// read and the parts deeper than the limit dropped once, so that a check walks the arguments
/// only, and allocates nothing unless they do not fit.
#[derive(Debug, Clone, PartialEq)]
pub struct ArgumentCheck {
    root: Node,
}

impl ArgumentCheck {
    /// The check of `schema` (a schema that is not an object accepts anything).
    pub fn new(schema: &Value) -> Self {
        Self {
            root: Node::new(schema, 0),
        }
    }

    /// Whether `arguments` are what the schema asks for; the first mismatch found.
    pub fn check(&self, arguments: &Value) -> Result<(), ArgumentMismatch> {
        self.root.check(arguments).map_err(Mismatch::into_argument)
    }
}

/// One schema (object) of the tree, its keywords read.
#[derive(Debug, Clone, PartialEq)]
enum Node {
    /// Not an object, or deeper than [`MAX_DEPTH`]: anything goes.
    Any,
    Schema(Box<Checks>),
}

#[derive(Debug, Clone, PartialEq)]
struct Checks {
    /// The `type` keyword: the kinds it allows, and the keyword as written (for messages);
    /// none when absent or when it allows anything (an unknown name, an empty list).
    types: Option<(Kinds, Value)>,
    allowed: Option<Vec<Value>>,
    constant: Option<Value>,
    /// `properties`, in the schema's order; `None` when absent (or not an object).
    properties: Option<Vec<(String, Node)>>,
    required: Vec<String>,
    /// `additionalProperties: false`.
    closed: bool,
    items: Option<Node>,
}

/// A set of JSON Schema types, one bit each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Kinds(u8);

impl Kinds {
    const STRING: u8 = 1;
    const NUMBER: u8 = 1 << 1;
    const INTEGER: u8 = 1 << 2;
    const BOOLEAN: u8 = 1 << 3;
    const OBJECT: u8 = 1 << 4;
    const ARRAY: u8 = 1 << 5;
    const NULL: u8 = 1 << 6;

    /// The bit of a type name; `None` for a name this check does not know (it accepts
    /// anything).
    fn of(name: &str) -> Option<u8> {
        Some(match name {
            "string" => Self::STRING,
            "number" => Self::NUMBER,
            "integer" => Self::INTEGER,
            "boolean" => Self::BOOLEAN,
            "object" => Self::OBJECT,
            "array" => Self::ARRAY,
            "null" => Self::NULL,
            _ => return None,
        })
    }

    /// The kinds a `type` keyword allows; `None` when it allows anything: an unknown name (in
    /// a list too), an empty list, or a keyword that is neither a name nor a list. A list of
    /// no names at all allows nothing.
    fn from_keyword(types: &Value) -> Option<Self> {
        match types {
            Value::String(name) => Self::of(name).map(Self),
            Value::Array(names) if !names.is_empty() => {
                let mut bits = 0;
                for name in names.iter().filter_map(Value::as_str) {
                    bits |= Self::of(name)?;
                }
                Some(Self(bits))
            }
            _ => None,
        }
    }

    fn matches(self, value: &Value) -> bool {
        let has = |bit: u8| self.0 & bit != 0;
        match value {
            Value::String(_) => has(Self::STRING),
            Value::Number(number) => {
                has(Self::NUMBER)
                    || (has(Self::INTEGER)
                        && (number.is_i64()
                            || number.is_u64()
                            || number.as_f64().is_some_and(|number| number.fract() == 0.0)))
            }
            Value::Bool(_) => has(Self::BOOLEAN),
            Value::Object(_) => has(Self::OBJECT),
            Value::Array(_) => has(Self::ARRAY),
            Value::Null => has(Self::NULL),
        }
    }
}

impl Node {
    fn new(schema: &Value, depth: usize) -> Self {
        let Some(schema) = schema.as_object().filter(|_| depth <= MAX_DEPTH) else {
            return Self::Any;
        };
        let types = schema
            .get("type")
            .and_then(|types| Kinds::from_keyword(types).map(|kinds| (kinds, types.clone())));
        let properties = schema
            .get("properties")
            .and_then(Value::as_object)
            .map(|properties| {
                properties
                    .iter()
                    .map(|(key, property)| (key.clone(), Self::new(property, depth + 1)))
                    .collect()
            });
        let required = schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect();
        Self::Schema(Box::new(Checks {
            types,
            allowed: schema.get("enum").and_then(Value::as_array).cloned(),
            constant: schema.get("const").cloned(),
            properties,
            required,
            closed: schema.get("additionalProperties") == Some(&Value::Bool(false)),
            items: schema.get("items").map(|items| Self::new(items, depth + 1)),
        }))
    }

    fn check(&self, value: &Value) -> Result<(), Mismatch> {
        let Self::Schema(checks) = self else {
            return Ok(());
        };
        if let Some((kinds, types)) = &checks.types
            && !kinds.matches(value)
        {
            return Err(Mismatch::new(format!(
                "must be {}, not {}",
                describe_types(types),
                describe_value(value)
            )));
        }
        if let Some(allowed) = &checks.allowed
            && !allowed.contains(value)
        {
            let shown: Vec<String> = allowed.iter().take(10).map(Value::to_string).collect();
            return Err(Mismatch::new(format!(
                "must be one of {}",
                shown.join(", ")
            )));
        }
        if let Some(constant) = &checks.constant
            && constant != value
        {
            return Err(Mismatch::new(format!("must be {constant}")));
        }
        if let Some(object) = value.as_object() {
            checks.check_object(object)?;
        }
        if let (Some(items), Some(array)) = (&checks.items, value.as_array()) {
            for (index, item) in array.iter().enumerate() {
                items
                    .check(item)
                    .map_err(|mismatch| mismatch.within(Segment::Index(index)))?;
            }
        }
        Ok(())
    }
}

impl Checks {
    fn check_object(&self, object: &Map<String, Value>) -> Result<(), Mismatch> {
        if let Some(missing) = self
            .required
            .iter()
            .find(|required| !object.contains_key(required.as_str()))
        {
            return Err(Mismatch::new("is required but missing".to_owned())
                .within(Segment::Key(missing.clone())));
        }
        for (key, item) in object {
            let property = self.properties.as_ref().and_then(|properties| {
                properties
                    .iter()
                    .find(|(name, _)| name == key)
                    .map(|(_, property)| property)
            });
            match property {
                Some(property) => property
                    .check(item)
                    .map_err(|mismatch| mismatch.within(Segment::Key(key.clone())))?,
                None if self.closed => {
                    let known: Vec<&str> = self
                        .properties
                        .iter()
                        .flatten()
                        .map(|(name, _)| name.as_str())
                        .collect();
                    let problem = if known.is_empty() {
                        "is not an argument of this tool (it takes none)".to_owned()
                    } else {
                        format!(
                            "is not an argument of this tool (it takes {})",
                            known.join(", ")
                        )
                    };
                    return Err(Mismatch::new(problem).within(Segment::Key(key.clone())));
                }
                None => {}
            }
        }
        Ok(())
    }
}

/// A mismatch on its way up: the path is gathered from the place it was found outwards, so
/// that a check that passes builds no path at all.
struct Mismatch {
    /// Innermost first.
    segments: Vec<Segment>,
    problem: String,
}

enum Segment {
    Key(String),
    Index(usize),
}

impl Mismatch {
    fn new(problem: String) -> Self {
        Self {
            segments: Vec::new(),
            problem,
        }
    }

    fn within(mut self, segment: Segment) -> Self {
        self.segments.push(segment);
        self
    }

    /// `filter.labels[2]`: keys joined with dots, indexes in brackets; empty for the whole.
    fn into_argument(self) -> ArgumentMismatch {
        let mut field = String::new();
        for segment in self.segments.iter().rev() {
            match segment {
                Segment::Key(key) => {
                    if !field.is_empty() {
                        field.push('.');
                    }
                    field.push_str(key);
                }
                Segment::Index(index) => field.push_str(&format!("[{index}]")),
            }
        }
        ArgumentMismatch {
            field,
            problem: self.problem,
        }
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

    #[test]
    fn type_keywords_this_check_cannot_read_accept_anything_and_a_list_of_no_names_nothing() {
        let accepts = |types: Value, value: Value| {
            check_arguments(
                &json!({"properties": {"x": {"type": types}}}),
                &json!({"x": value}),
            )
            .is_ok()
        };
        assert!(accepts(json!("uuid"), json!(1)), "an unknown name");
        assert!(
            accepts(json!(["string", "uuid"]), json!(1)),
            "an unknown name in a list"
        );
        assert!(accepts(json!([]), json!(1)), "an empty list");
        assert!(accepts(json!(7), json!(1)), "neither a name nor a list");
        assert!(!accepts(json!([7]), json!(1)), "a list of no names");
        assert!(accepts(json!(["integer", "null"]), json!(3.0)));
        assert!(accepts(json!("integer"), json!(u64::MAX)));
        assert!(!accepts(json!("integer"), json!(3.5)));
        assert!(accepts(json!("number"), json!(3)));
    }

    #[test]
    fn a_prepared_check_checks_every_call_alike_and_lets_parts_past_the_depth_limit_through() {
        let check = ArgumentCheck::new(&schema());
        for arguments in [
            json!({"query": "q"}),
            json!({"limit": 1}),
            json!({"query": "q", "filter": {"labels": [1]}}),
        ] {
            assert_eq!(
                check.check(&arguments),
                check_arguments(&schema(), &arguments)
            );
        }
        // A schema nested past the limit: the innermost `type` is not reached.
        let mut deep = json!({"type": "string"});
        let mut value = json!(1);
        for _ in 0..=MAX_DEPTH {
            deep = json!({"type": "array", "items": deep});
            value = json!([value]);
        }
        assert_eq!(check_arguments(&deep, &value), Ok(()));
        let mut shallow = json!({"type": "string"});
        let mut value = json!(1);
        for _ in 0..MAX_DEPTH {
            shallow = json!({"type": "array", "items": shallow});
            value = json!([value]);
        }
        let mismatch = check_arguments(&shallow, &value).unwrap_err();
        assert_eq!(mismatch.field, "[0]".repeat(MAX_DEPTH));
    }
}
