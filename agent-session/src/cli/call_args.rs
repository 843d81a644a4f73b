//! The arguments of `call TOOL [ARGS] [--arg KEY=VALUE]…`: a JSON object given inline, read
//! from stdin (`-`) or from a file (`@args.json`), with `--arg` pairs added on top (a value
//! that parses as JSON is used as JSON, `--arg limit=5` is the number 5; anything else is a
//! string, `--arg query=mcp server`). All four ways give the same call.

use std::io::Read as _;

use serde_json::{Map, Value};

use super::args::parse_tool_args;

/// The largest argument file or stdin read: far beyond any real call.
const MAX_ARGUMENTS_BYTES: u64 = 64 * 1024 * 1024;

/// One `--arg KEY=VALUE`.
pub(crate) fn parse_pair(text: &str) -> Result<(String, Value), String> {
    let Some((key, value)) = text.split_once('=').filter(|(key, _)| !key.is_empty()) else {
        return Err(format!(
            "--arg takes KEY=VALUE, such as --arg query=mcp or --arg limit=5; got {text:?}"
        ));
    };
    let value = serde_json::from_str(value).unwrap_or_else(|_| Value::String(value.to_owned()));
    Ok((key.to_owned(), value))
}

/// The call's arguments from `ARGS` (inline JSON, `-` or `@FILE`; `{}` without) and the
/// `--arg` pairs, which win over a key of the same name.
pub(crate) fn resolve(raw: Option<&str>, pairs: &[(String, Value)]) -> Result<Value, String> {
    let mut arguments = match raw {
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
    for (key, value) in pairs {
        arguments.insert(key.clone(), value.clone());
    }
    Ok(Value::Object(arguments))
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
    fn a_pair_is_json_when_it_parses_and_a_string_otherwise() {
        assert_eq!(
            parse_pair("limit=5").unwrap(),
            ("limit".to_owned(), json!(5))
        );
        assert_eq!(
            parse_pair("on=true").unwrap(),
            ("on".to_owned(), json!(true))
        );
        assert_eq!(
            parse_pair("query=mcp server").unwrap(),
            ("query".to_owned(), json!("mcp server"))
        );
        assert_eq!(
            parse_pair("tags=[\"a\"]").unwrap(),
            ("tags".to_owned(), json!(["a"]))
        );
        assert_eq!(
            parse_pair("empty=").unwrap(),
            ("empty".to_owned(), json!(""))
        );
        assert!(parse_pair("novalue").unwrap_err().contains("KEY=VALUE"));
        assert!(parse_pair("=5").unwrap_err().contains("KEY=VALUE"));
    }

    #[test]
    fn inline_json_a_file_and_pairs_give_the_same_arguments() {
        let dir = std::env::temp_dir().join(format!("call-args-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("args.json");
        std::fs::write(&file, r#" {"query": "mcp", "limit": 5} "#).unwrap();
        let expected = json!({"query": "mcp", "limit": 5});
        assert_eq!(
            resolve(Some(r#"{"query":"mcp","limit":5}"#), &[]).unwrap(),
            expected
        );
        assert_eq!(
            resolve(Some(&format!("@{}", file.display())), &[]).unwrap(),
            expected
        );
        let pairs = [
            parse_pair("query=mcp").unwrap(),
            parse_pair("limit=5").unwrap(),
        ];
        assert_eq!(resolve(None, &pairs).unwrap(), expected);
        // A pair wins over the same key of the object.
        let over = [parse_pair("limit=7").unwrap()];
        assert_eq!(
            resolve(Some(r#"{"query":"mcp","limit":5}"#), &over).unwrap(),
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
