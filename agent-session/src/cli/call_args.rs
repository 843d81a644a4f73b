//! The arguments of `call TOOL [ARGS] [--arg KEY=VALUE]…`: a JSON object given inline, read
//! from stdin (`-`) or from a file (`@args.json`), with `--arg` pairs added on top. `--arg` is
//! for people at a shell, so its VALUE is read by the tool's input schema, once the tool is
//! known: a string property takes `--arg message=42` as `"42"`; a number, integer or boolean
//! property parses it (`--arg limit=5`); an array or object property takes JSON
//! (`--arg 'tags=["a","b"]'`); a key the schema does not type is JSON when it parses, else a
//! string. A value that fits nothing the property takes is refused with the forms it accepts.

use std::io::Read as _;

use serde_json::{Map, Value};

/// The largest argument file or stdin read: far beyond any real call.
const MAX_ARGUMENTS_BYTES: u64 = 64 * 1024 * 1024;

/// Parses a tool's arguments: a JSON object.
pub(crate) fn parse_tool_args(text: &str) -> Result<Value, String> {
    match serde_json::from_str::<Value>(text) {
        Ok(value @ Value::Object(_)) => Ok(value),
        Ok(_) => Err(format!(
            "the tool arguments must be a JSON object such as '{{\"message\": \"hi\"}}', not {text}"
        )),
        Err(error) => Err(format!(
            "the tool arguments are not valid JSON ({error}); pass an object such as \
             '{{\"message\": \"hi\"}}'"
        )),
    }
}

/// One `--arg KEY=VALUE`, its VALUE as written.
pub(crate) fn parse_pair(text: &str) -> Result<(String, String), String> {
    let Some((key, value)) = text.split_once('=').filter(|(key, _)| !key.is_empty()) else {
        return Err(format!(
            "--arg takes KEY=VALUE, such as --arg query=mcp or --arg limit=5; got {text:?}"
        ));
    };
    Ok((key.to_owned(), value.to_owned()))
}

/// A call's arguments before the tool is known: the object `ARGS` gave, and the `--arg` pairs
/// to read by the tool's schema ([`Self::for_schema`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct CallArguments {
    object: Map<String, Value>,
    pairs: Vec<(String, String)>,
}

impl CallArguments {
    /// The arguments for a tool whose input schema is `schema`: the object, each pair read by
    /// its property's type (a pair wins over a key of the same name).
    pub(crate) fn for_schema(&self, schema: &Value) -> Result<Value, String> {
        let mut arguments = self.object.clone();
        for key in self.object.keys() {
            unknown_but_near(schema, key, "")?;
        }
        for (key, raw) in &self.pairs {
            unknown_but_near(schema, key, &format!("--arg {key}: "))?;
            let types = property_types(schema, key);
            arguments.insert(key.clone(), typed(key, raw, &types)?);
        }
        Ok(Value::Object(arguments))
    }
}

/// An argument the schema does not name, close to one it does (`pathh` for `path`), given
/// inline or with `--arg` (its message starts with `said`): a typo, refused with the name
/// meant, before anything is called. A key near none is left to the schema (which may take
/// other keys).
fn unknown_but_near(schema: &Value, key: &str, said: &str) -> Result<(), String> {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Ok(());
    };
    if properties.contains_key(key) {
        return Ok(());
    }
    // Closer than the did-you-mean of names: a key of its own (`id` beside `on`) must pass.
    let allowed = if key.chars().count() >= 8 { 2 } else { 1 };
    let mut near: Vec<&str> = properties
        .keys()
        .map(String::as_str)
        .filter(|name| strsim::levenshtein(key, name) <= allowed)
        .collect();
    if near.is_empty() {
        return Ok(());
    }
    near.sort_unstable();
    near.truncate(3);
    Err(format!(
        "{said}the tool takes no argument `{key}`{}",
        agent_session::suggest::did_you_mean(&near)
    ))
}

/// The JSON types the schema's property `key` takes (`type`, a string or a list); none when
/// the schema does not say.
fn property_types(schema: &Value, key: &str) -> Vec<String> {
    match schema.pointer(&format!(
        "/properties/{}",
        key.replace('~', "~0").replace('/', "~1")
    )) {
        Some(property) => match property.get("type") {
            Some(Value::String(kind)) => vec![kind.clone()],
            Some(Value::Array(kinds)) => kinds
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
            _ => Vec::new(),
        },
        None => Vec::new(),
    }
}

/// `raw`, the VALUE of `--arg key=VALUE`, as a property of `types` takes it.
fn typed(key: &str, raw: &str, types: &[String]) -> Result<Value, String> {
    let parsed = serde_json::from_str::<Value>(raw).ok();
    let takes = |kind: &str| types.iter().any(|taken| taken == kind);
    if types.is_empty() {
        return Ok(parsed.unwrap_or_else(|| Value::String(raw.to_owned())));
    }
    // JSON the property takes as it stands: `5` for a number, `"42"` for a string, `null` …
    if let Some(value) = &parsed
        && types.iter().any(|kind| is_of(value, kind))
    {
        return Ok(value.clone());
    }
    if takes("string") {
        return Ok(Value::String(raw.to_owned()));
    }
    let forms: Vec<String> = types.iter().filter_map(|kind| form(key, kind)).collect();
    Err(format!(
        "--arg {key}={raw}: \"{key}\" takes {}, so write it as {}",
        types.join(" or "),
        forms.join(" or ")
    ))
}

/// Whether `value` is of the JSON schema type `kind`.
fn is_of(value: &Value, kind: &str) -> bool {
    match kind {
        "string" => value.is_string(),
        "integer" => value.is_i64() || value.is_u64(),
        "number" => value.is_number(),
        "boolean" => value.is_boolean(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        "null" => value.is_null(),
        _ => false,
    }
}

/// An example of `--arg` for a property of type `kind`.
fn form(key: &str, kind: &str) -> Option<String> {
    let example = match kind {
        "integer" => "5",
        "number" => "2.5",
        "boolean" => "true",
        "array" => "'[\"a\",\"b\"]'",
        "object" => "'{\"k\":\"v\"}'",
        "null" => "null",
        _ => return None,
    };
    Some(format!("--arg {key}={example}"))
}

/// The call's arguments from `ARGS` (inline JSON, `-` or `@FILE`; `{}` without) and the
/// `--arg` pairs, read once the tool is known.
pub(crate) fn resolve(
    raw: Option<&str>,
    pairs: &[(String, String)],
) -> Result<CallArguments, String> {
    let object = match raw {
        None => Map::new(),
        Some("-") => object(&read_limited(std::io::stdin(), "stdin")?)?,
        Some(reference) if reference.starts_with('@') => {
            let path = &reference[1..];
            let file = std::fs::File::open(path)
                .map_err(|error| format!("cannot read the arguments file {path}: {error}"))?;
            let text = read_limited(file, path)?;
            object(&text).map_err(|error| format!("{path}: {error}"))?
        }
        Some(inline) => object(inline)?,
    };
    Ok(CallArguments {
        object,
        pairs: pairs.to_vec(),
    })
}

fn object(text: &str) -> Result<Map<String, Value>, String> {
    match parse_tool_args(text.trim())? {
        Value::Object(map) => Ok(map),
        _ => unreachable!("parse_tool_args gives objects only"),
    }
}

fn read_limited(source: impl std::io::Read, name: &str) -> Result<String, String> {
    let mut text = String::new();
    source
        .take(MAX_ARGUMENTS_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(|error| format!("cannot read the arguments from {name}: {error}"))?;
    if text.len() as u64 > MAX_ARGUMENTS_BYTES {
        return Err(format!(
            "the arguments in {name} are larger than {} MiB",
            MAX_ARGUMENTS_BYTES >> 20
        ));
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_pair_is_read_by_the_type_of_its_property() {
        let schema = json!({"type": "object", "properties": {
            "message": {"type": "string"},
            "limit": {"type": "integer"},
            "ratio": {"type": "number"},
            "on": {"type": "boolean"},
            "tags": {"type": "array"},
            "maybe": {"type": ["string", "null"]},
        }});
        let call = |pairs: &[&str]| {
            let pairs: Vec<(String, String)> =
                pairs.iter().map(|pair| parse_pair(pair).unwrap()).collect();
            resolve(None, &pairs).unwrap().for_schema(&schema)
        };
        assert_eq!(
            call(&["message=42", "limit=5", "ratio=0.5", "on=true"]).unwrap(),
            json!({"message": "42", "limit": 5, "ratio": 0.5, "on": true})
        );
        assert_eq!(call(&["message=\"42\""]).unwrap(), json!({"message": "42"}));
        assert_eq!(call(&["message=true"]).unwrap(), json!({"message": "true"}));
        assert_eq!(call(&["tags=[\"a\"]"]).unwrap(), json!({"tags": ["a"]}));
        assert_eq!(call(&["maybe=null"]).unwrap(), json!({"maybe": null}));
        assert_eq!(call(&["maybe=7"]).unwrap(), json!({"maybe": "7"}));
        // Untyped keys: JSON when it parses, else a string.
        assert_eq!(
            call(&["other=5", "free=mcp server", "empty="]).unwrap(),
            json!({"other": 5, "free": "mcp server", "empty": ""})
        );
        // A typo of a property is said with the name meant; a key of its own is not.
        assert_eq!(
            call(&["limt=5"]).unwrap_err(),
            "--arg limt: the tool takes no argument `limt` (did you mean \"limit\"?)"
        );
        assert_eq!(call(&["id=7"]).unwrap(), json!({"id": 7}));
        // The same for a key given inline.
        let inline = resolve(Some(r#"{"limt": 5}"#), &[])
            .unwrap()
            .for_schema(&schema)
            .unwrap_err();
        assert_eq!(
            inline,
            "the tool takes no argument `limt` (did you mean \"limit\"?)"
        );
        let refused = call(&["limit=five"]).unwrap_err();
        assert_eq!(
            refused,
            "--arg limit=five: \"limit\" takes integer, so write it as --arg limit=5"
        );
        assert!(
            call(&["tags=a,b"])
                .unwrap_err()
                .contains("--arg tags='[\"a\",\"b\"]'")
        );
        assert!(parse_pair("novalue").unwrap_err().contains("KEY=VALUE"));
        assert!(parse_pair("=5").unwrap_err().contains("KEY=VALUE"));
    }

    #[test]
    fn inline_json_a_file_and_pairs_give_the_same_arguments() {
        let schema = json!({"type": "object", "properties": {
            "query": {"type": "string"}, "limit": {"type": "integer"},
        }});
        let resolved = |raw: Option<&str>, pairs: &[(String, String)]| {
            resolve(raw, pairs).and_then(|arguments| arguments.for_schema(&schema))
        };
        let dir = std::env::temp_dir().join(format!("call-args-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("args.json");
        std::fs::write(&file, r#" {"query": "mcp", "limit": 5} "#).unwrap();
        let expected = json!({"query": "mcp", "limit": 5});
        assert_eq!(
            resolved(Some(r#"{"query":"mcp","limit":5}"#), &[]).unwrap(),
            expected
        );
        assert_eq!(
            resolved(Some(&format!("@{}", file.display())), &[]).unwrap(),
            expected
        );
        let pairs = [
            parse_pair("query=mcp").unwrap(),
            parse_pair("limit=5").unwrap(),
        ];
        assert_eq!(resolved(None, &pairs).unwrap(), expected);
        // A pair wins over the same key of the object.
        let over = [parse_pair("limit=7").unwrap()];
        assert_eq!(
            resolved(Some(r#"{"query":"mcp","limit":5}"#), &over).unwrap(),
            json!({"query": "mcp", "limit": 7})
        );
        assert!(
            resolve(Some("@/no/such/args.json"), &[])
                .unwrap_err()
                .contains("/no/such/args.json")
        );
        std::fs::write(&file, "[1]").unwrap();
        assert!(
            resolve(Some(&format!("@{}", file.display())), &[])
                .unwrap_err()
                .contains("JSON object")
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
