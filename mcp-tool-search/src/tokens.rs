//! How many tokens a tool's definition costs a model, estimated: [`estimate_tokens`].
//!
//! A model API receives each tool as JSON — its name, description and input schema — and
//! tokenizes it with the model's own tokenizer, which this crate does not have (each provider
//! has its own, and they are not published alike). The estimate is the common rule of thumb of
//! one token for every four bytes of that JSON: near what Anthropic's and OpenAI's tokenizers
//! give for English prose, and somewhat under it for schema-heavy JSON, whose punctuation
//! tokenizes densely. It is for comparing — all definitions against a search tool and a few
//! loaded ones, one server against another, against a share of the context window — not for
//! billing.

use serde_json::{Value, json};

/// Bytes of JSON per estimated token.
pub const BYTES_PER_TOKEN: usize = 4;

/// The estimated tokens of `json_bytes` bytes of definition JSON (rounded up).
pub fn estimate_tokens(json_bytes: usize) -> usize {
    json_bytes.div_ceil(BYTES_PER_TOKEN)
}

/// The estimated tokens of one tool's definition as a model API receives it:
/// `{"name", "description", "input_schema"}`.
pub fn definition_tokens(name: &str, description: &str, input_schema: &Value) -> usize {
    let definition = json!({
        "name": name,
        "description": description,
        "input_schema": input_schema,
    });
    estimate_tokens(definition.to_string().len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn four_bytes_of_json_are_a_token_rounded_up() {
        assert_eq!(estimate_tokens(0), 0);
        assert_eq!(estimate_tokens(1), 1);
        assert_eq!(estimate_tokens(4), 1);
        assert_eq!(estimate_tokens(4001), 1001);
        let tokens = definition_tokens("read_file", "Read a file", &json!({"type": "object"}));
        // {"description":"Read a file","input_schema":{"type":"object"},"name":"read_file"}
        assert_eq!(tokens, 81_usize.div_ceil(4));
    }
}
