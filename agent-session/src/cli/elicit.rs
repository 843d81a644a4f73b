//! A server's questions (form elicitations), asked on the terminal.
//!
//! When a server sends `elicitation/create` during a command, the question and each field of
//! its form are written to stderr and the answers read from stdin, one line per field: an empty
//! line keeps the field's default (or leaves an optional field out), and the end of input
//! cancels. The user first chooses to answer, decline or cancel. In the shell on a terminal the
//! answers are typed in its line editor (Ctrl-C there cancels).
//!
//! Nobody can answer when stdin is not a terminal (a pipe, CI): then the question is declined
//! at once, with one line on stderr saying so, and the server decides what that means. URL
//! elicitations (open a page) are declined the same way: this CLI opens no browser. The line
//! shows the page, escaped, and whether it would be opened at all (`https:`, or `http:` on
//! this machine), so that the user can open a page they trust themselves.

use std::io::{IsTerminal, Write};

use agent_session::terminal_text;
use async_trait::async_trait;
use mcp_transport::handlers::{ElicitRequest, ElicitResult, ElicitationHandler};
use mcp_transport::open_url::openable;
use mcp_transport::{ErrorObject, JsonObject};
use serde_json::Value;

use super::stdin::answer;

/// Asks on the terminal, declines without one.
pub(crate) struct TerminalElicitation;

#[async_trait]
impl ElicitationHandler for TerminalElicitation {
    async fn elicit(
        &self,
        server: &str,
        request: ElicitRequest,
    ) -> Result<ElicitResult, ErrorObject> {
        if !request.is_form() {
            note(&page_declined(server, &request));
            return Ok(ElicitResult::decline());
        }
        if !std::io::stdin().is_terminal() {
            note(&format!(
                "MCP server \"{server}\" asked: {}; declined, since stdin is not a terminal",
                request.message
            ));
            return Ok(ElicitResult::decline());
        }
        Ok(ask(server, &request).await)
    }
}

/// What is said of a page the server asked to have opened: its message, the page, and whether
/// it would be opened at all (the one check every URL to open passes, [`openable`]); the line
/// is escaped by [`say`], as the server wrote all of it.
fn page_declined(server: &str, request: &ElicitRequest) -> String {
    let page = match request.url.as_deref() {
        Some(url) => match openable(url) {
            Ok(_) => format!(
                "{url} (an https: page, or http: on this machine: open it yourself if you trust \
                 the server)"
            ),
            Err(refused) => refused.to_string(),
        },
        None => "no page named".to_owned(),
    };
    format!(
        "MCP server \"{server}\" asked to open a page ({}): {page}; declined, since this \
         command line opens no pages",
        request.message
    )
}

/// A line on stderr; what the server asks is its text, so it is escaped for the terminal.
/// A line on stderr that is the CLI's own note, prefixed as its warnings are.
fn note(line: &str) {
    say(&format!("agent-session: {line}"));
}

fn say(line: &str) {
    let mut stderr = std::io::stderr().lock();
    let _ = writeln!(stderr, "{}", terminal_text::escape(line));
}

async fn ask(server: &str, request: &ElicitRequest) -> ElicitResult {
    say(&format!(
        "MCP server \"{server}\" asks: {}",
        request.message
    ));
    loop {
        let Some(choice) = answer("Answer? [y]es, [n]o (decline), [c]ancel (y): ").await else {
            return ElicitResult::cancel();
        };
        match choice.trim().to_ascii_lowercase().as_str() {
            "" | "y" | "yes" => break,
            "n" | "no" => return ElicitResult::decline(),
            "c" | "cancel" => return ElicitResult::cancel(),
            _ => say("Please type y, n or c."),
        }
    }
    let mut content = JsonObject::new();
    for (name, schema) in request.fields() {
        let is_required = request.is_required(name);
        loop {
            let Some(line) = answer(&field_prompt(name, schema, is_required)).await else {
                return ElicitResult::cancel();
            };
            match read_value(schema, line.trim()) {
                Ok(Some(value)) => {
                    content.insert(name.to_owned(), value);
                    break;
                }
                Ok(None) if !is_required => break,
                Ok(None) => say(&format!("{name} is required.")),
                Err(problem) => say(&problem),
            }
        }
    }
    ElicitResult::accept(content)
}

/// `  name (integer, required) — description [30]: `
fn field_prompt(name: &str, schema: &Value, required: bool) -> String {
    let mut text = format!("  {name} ({}", kind(schema));
    if let Some(choices) = choices(schema) {
        text.push_str(&format!(": {}", choices.join(" | ")));
    }
    if required {
        text.push_str(", required");
    }
    text.push(')');
    if let Some(description) = schema.get("description").and_then(Value::as_str) {
        text.push_str(&format!(" {description}"));
    }
    if let Some(default) = schema.get("default") {
        text.push_str(&format!(" [{}]", shown(default)));
    }
    text.push_str(": ");
    text
}

fn kind(schema: &Value) -> &str {
    schema
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("string")
}

fn choices(schema: &Value) -> Option<Vec<String>> {
    let values = schema.get("enum").and_then(Value::as_array)?;
    Some(values.iter().map(shown).collect())
}

fn shown(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// The value typed for a field: `Ok(None)` for an empty line without a default.
fn read_value(schema: &Value, typed: &str) -> Result<Option<Value>, String> {
    if typed.is_empty() {
        return Ok(schema.get("default").cloned());
    }
    if let Some(choices) = choices(schema) {
        return if choices.iter().any(|choice| choice == typed) {
            Ok(Some(Value::String(typed.to_owned())))
        } else {
            Err(format!("Choose one of: {}.", choices.join(", ")))
        };
    }
    match kind(schema) {
        "boolean" => match typed.to_ascii_lowercase().as_str() {
            "y" | "yes" | "true" => Ok(Some(Value::Bool(true))),
            "n" | "no" | "false" => Ok(Some(Value::Bool(false))),
            _ => Err("Type yes or no.".to_owned()),
        },
        "integer" => typed
            .parse::<i64>()
            .map(|number| Some(Value::from(number)))
            .map_err(|_| "Type a whole number.".to_owned()),
        "number" => typed
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map(|number| Some(Value::Number(number)))
            .ok_or_else(|| "Type a number.".to_owned()),
        _ => Ok(Some(Value::String(typed.to_owned()))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn typed_values_follow_the_field_type_and_empty_keeps_the_default() {
        let age = json!({"type": "integer", "default": 30});
        assert_eq!(read_value(&age, ""), Ok(Some(json!(30))));
        assert_eq!(read_value(&age, "41"), Ok(Some(json!(41))));
        assert!(read_value(&age, "forty").is_err());
        let verified = json!({"type": "boolean"});
        assert_eq!(read_value(&verified, "yes"), Ok(Some(json!(true))));
        assert_eq!(read_value(&verified, ""), Ok(None));
        let status = json!({"type": "string", "enum": ["active", "pending"]});
        assert_eq!(read_value(&status, "pending"), Ok(Some(json!("pending"))));
        assert!(read_value(&status, "gone").is_err());
        let score = json!({"type": "number"});
        assert_eq!(read_value(&score, "9.5"), Ok(Some(json!(9.5))));
    }

    #[test]
    fn the_prompt_names_the_type_choices_requirement_and_default() {
        let schema = json!({"type": "string", "enum": ["a", "b"], "default": "a",
                            "description": "pick one"});
        assert_eq!(
            field_prompt("letter", &schema, true),
            "  letter (string: a | b, required) pick one [a]: "
        );
    }
}
