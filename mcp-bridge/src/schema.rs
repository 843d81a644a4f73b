//! [`tool_parameters`]: the JSON Schema a model is given for an MCP tool's arguments; the rules
//! are documented on [`McpToolDefinition::parameters`](crate::McpToolDefinition::parameters),
//! where a user of the crate reads them.
//!
//! Why `nullable` at all: it is not a JSON Schema keyword but OpenAPI 3.0's (3.1 dropped it for
//! JSON Schema's own form), and servers generated from an OpenAPI 3.0 description, or through a
//! schema generator's OpenAPI mode, still write it. Tool parameters are JSON Schema (draft
//! 2020-12, as MCP and the model APIs that take JSON Schema have it), where an unknown keyword
//! either makes a strict validator refuse the whole tool (OpenAI's strict mode, for one) or is
//! ignored — and then neither the model nor our own argument check ([`crate::check_arguments`])
//! knows that `null` is allowed, and a null the server accepts is refused before the call.
//! Its translation keeps the meaning OpenAPI 3.0.3 gives it, no more: "null" joins the types
//! of the `type` beside it, and the other keywords keep theirs.

use serde_json::{Map, Value};

/// Keywords whose value is one schema (or, for `items` before draft 2020-12, a list of them).
const SCHEMA_KEYWORDS: [&str; 12] = [
    "items",
    "additionalItems",
    "additionalProperties",
    "unevaluatedItems",
    "unevaluatedProperties",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
    "contentSchema",
];

/// Keywords whose value is a list of schemas.
const SCHEMA_LIST_KEYWORDS: [&str; 4] = ["allOf", "anyOf", "oneOf", "prefixItems"];

/// Keywords whose value is an object of schemas by name (for `dependencies`, the values that
/// are objects; its lists are property names).
const SCHEMA_MAP_KEYWORDS: [&str; 6] = [
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
    "dependencies",
];

/// The parameters a model is given for a tool whose input schema is `schema` (see the module
/// documentation).
pub(crate) fn tool_parameters(mut schema: Map<String, Value>) -> Value {
    schema.shift_remove("$schema");
    translate_schema(&mut schema);
    Value::Object(schema)
}

/// Translates `nullable` in `schema` and in every schema under it. The recursion follows the
/// tree's depth, which reading a schema bounds (see `mcp_transport::JsonSchema`).
fn translate_schema(schema: &mut Map<String, Value>) {
    translate_nullable(schema);
    for (keyword, value) in schema.iter_mut() {
        let keyword = keyword.as_str();
        if SCHEMA_KEYWORDS.contains(&keyword) {
            match value {
                Value::Object(subschema) => translate_schema(subschema),
                // `items` as a list (draft 2019-09 and before).
                Value::Array(subschemas) if keyword == "items" => translate_all(subschemas),
                _ => {}
            }
        } else if SCHEMA_LIST_KEYWORDS.contains(&keyword) {
            if let Value::Array(subschemas) = value {
                translate_all(subschemas);
            }
        } else if SCHEMA_MAP_KEYWORDS.contains(&keyword)
            && let Value::Object(by_name) = value
        {
            for subschema in by_name.values_mut() {
                if let Value::Object(subschema) = subschema {
                    translate_schema(subschema);
                }
            }
        }
    }
}

fn translate_all(subschemas: &mut [Value]) {
    for subschema in subschemas {
        if let Value::Object(subschema) = subschema {
            translate_schema(subschema);
        }
    }
}

/// One schema's own `nullable`: removed when it is a boolean; when `true`, "null" joins the
/// types of its `type` first.
fn translate_nullable(schema: &mut Map<String, Value>) {
    let Some(&Value::Bool(nullable)) = schema.get("nullable") else {
        return;
    };
    schema.shift_remove("nullable");
    if !nullable {
        return;
    }
    let null = Value::from("null");
    let Some(types) = schema.get_mut("type") else {
        // No type: nothing to widen (OpenAPI 3.0.3 gives `nullable` no meaning then).
        return;
    };
    match types {
        Value::String(name) if name != "null" => {
            let name = Value::String(std::mem::take(name));
            *types = Value::Array(vec![name, null]);
        }
        Value::Array(names) if names.iter().all(Value::is_string) && !names.contains(&null) => {
            names.push(null);
        }
        // A type that is null already, or a `type` that is not names (left as written).
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn parameters(schema: Value) -> Value {
        match schema {
            Value::Object(schema) => tool_parameters(schema),
            other => panic!("not an object: {other}"),
        }
    }

    #[test]
    fn a_nullable_type_gains_null_and_the_keyword_goes() {
        let cases = [
            (
                json!({"type": "string", "nullable": true}),
                json!({"type": ["string", "null"]}),
            ),
            (
                json!({"type": ["integer", "string"], "nullable": true}),
                json!({"type": ["integer", "string", "null"]}),
            ),
            (
                json!({"type": ["null", "string"], "nullable": true}),
                json!({"type": ["null", "string"]}),
            ),
            (
                json!({"type": "null", "nullable": true}),
                json!({"type": "null"}),
            ),
            (
                json!({"type": "string", "nullable": false}),
                json!({"type": "string"}),
            ),
            (
                json!({"$ref": "#/$defs/A", "nullable": true}),
                json!({"$ref": "#/$defs/A"}),
            ),
            (json!({"nullable": true}), json!({})),
            // Not names: left as written, only the keyword goes.
            (json!({"type": [1], "nullable": true}), json!({"type": [1]})),
            // Not OpenAPI's keyword: kept.
            (
                json!({"type": "string", "nullable": "yes"}),
                json!({"type": "string", "nullable": "yes"}),
            ),
        ];
        for (schema, expected) in cases {
            assert_eq!(parameters(schema.clone()), expected, "{schema}");
        }
    }

    #[test]
    fn every_keyword_holding_schemas_is_followed_and_values_are_not() {
        let nullable = || json!({"type": "string", "nullable": true});
        let widened = || json!({"type": ["string", "null"]});
        let schema = json!({
            "items": [nullable(), nullable()],
            "additionalItems": nullable(),
            "unevaluatedItems": nullable(),
            "unevaluatedProperties": nullable(),
            "contains": nullable(),
            "propertyNames": nullable(),
            "not": nullable(),
            "if": nullable(),
            "then": nullable(),
            "else": nullable(),
            "contentSchema": nullable(),
            "allOf": [nullable()],
            "oneOf": [nullable()],
            "prefixItems": [nullable()],
            "patternProperties": {"^x": nullable()},
            "definitions": {"A": nullable()},
            "dependentSchemas": {"a": nullable()},
            "dependencies": {"a": nullable(), "b": ["c"]},
            "enum": [nullable()],
            "default": nullable(),
            "x-extra": nullable(),
            "not-a-schema-list": [nullable()],
        });
        let expected = json!({
            "items": [widened(), widened()],
            "additionalItems": widened(),
            "unevaluatedItems": widened(),
            "unevaluatedProperties": widened(),
            "contains": widened(),
            "propertyNames": widened(),
            "not": widened(),
            "if": widened(),
            "then": widened(),
            "else": widened(),
            "contentSchema": widened(),
            "allOf": [widened()],
            "oneOf": [widened()],
            "prefixItems": [widened()],
            "patternProperties": {"^x": widened()},
            "definitions": {"A": widened()},
            "dependentSchemas": {"a": widened()},
            "dependencies": {"a": widened(), "b": ["c"]},
            "enum": [nullable()],
            "default": nullable(),
            "x-extra": nullable(),
            "not-a-schema-list": [nullable()],
        });
        assert_eq!(parameters(schema), expected);
    }

    #[test]
    fn only_the_top_level_dollar_schema_goes() {
        assert_eq!(
            parameters(json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "properties": {"inner": {"$schema": "x", "type": "object"}}
            })),
            json!({"type": "object", "properties": {"inner": {"$schema": "x", "type": "object"}}})
        );
    }
}
