//! Resources and prompts (`--resources`, `--prompts`): a few static resources, one resource
//! template, two prompts (one with arguments), their pages (`--page-size`, `--repeat-cursor`
//! apply as to tools), and the later additions of `--catalog-change-after`.

use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::{Map, Value, json};

use crate::wire::{INVALID_PARAMS, METHOD_NOT_FOUND};

/// JSON-RPC error code the specification gives for an unknown resource.
const RESOURCE_NOT_FOUND: i64 = -32002;

/// The text of `fixture://docs/readme`.
const README: &str = "# Fixture\n\nA scriptable MCP server for tests.\n";
/// The text of `fixture://docs/notes`.
const NOTES: &str = "first line\nsecond line\n";
/// `fixture://images/pixel`: a 1×1 transparent PNG, base64.
const PIXEL_PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";
/// Where a greeting of the template lives: `fixture://greetings/{name}`.
const GREETINGS: &str = "fixture://greetings/";
/// The resource added by `--catalog-change-after`.
const LATE_RESOURCE: &str = "fixture://docs/late";
/// The prompt added by `--catalog-change-after`.
const LATE_PROMPT: &str = "late_prompt";

/// What the resource and prompt lists hold; they grow once, on `--catalog-change-after`.
#[derive(Default)]
pub(crate) struct Catalog {
    changed: AtomicBool,
}

impl Catalog {
    /// Adds the late resource and prompt; the caller sends the notifications.
    pub(crate) fn change(&self) {
        self.changed.store(true, Ordering::Release);
    }

    fn changed(&self) -> bool {
        self.changed.load(Ordering::Acquire)
    }

    fn resources(&self) -> Vec<Value> {
        let mut resources = vec![
            json!({
                "uri": "fixture://docs/readme",
                "name": "readme",
                "title": "Read me",
                "description": "What this server is.",
                "mimeType": "text/markdown",
                "size": README.len(),
            }),
            json!({
                "uri": "fixture://docs/notes",
                "name": "notes",
                "description": "Two lines of notes.",
                "mimeType": "text/plain",
                "annotations": {"audience": ["user"], "priority": 0.5},
            }),
            json!({
                "uri": "fixture://images/pixel",
                "name": "pixel",
                "description": "A 1x1 transparent PNG.",
                "mimeType": "image/png",
                "x-extra": {"kept": true},
            }),
        ];
        if self.changed() {
            resources.push(json!({
                "uri": LATE_RESOURCE,
                "name": "late",
                "description": "Added by --catalog-change-after.",
                "mimeType": "text/plain",
            }));
        }
        resources
    }

    fn templates() -> Vec<Value> {
        vec![json!({
            "uriTemplate": format!("{GREETINGS}{{name}}"),
            "name": "greeting",
            "title": "Greeting",
            "description": "A greeting for anyone: fixture://greetings/Ada.",
            "mimeType": "text/plain",
        })]
    }

    fn prompts(&self) -> Vec<Value> {
        let mut prompts = vec![
            json!({
                "name": "greet",
                "title": "Greet someone",
                "description": "Asks for a greeting of `name`, formal when `style` is formal.",
                "arguments": [
                    {"name": "name", "description": "Who to greet", "required": true},
                    {"name": "style", "description": "casual (default) or formal"},
                ],
                "icons": [{"src": "data:,greet"}],
            }),
            json!({
                "name": "summarize_readme",
                "description": "Asks for a summary of the readme resource, embedded.",
            }),
        ];
        if self.changed() {
            prompts.push(json!({
                "name": LATE_PROMPT,
                "description": "Added by --catalog-change-after.",
            }));
        }
        prompts
    }

    /// Answers a `resources/*` or `prompts/*` request: its result, or an error code and
    /// message.
    pub(crate) fn answer(
        &self,
        method: &str,
        params: &Value,
        paging: Paging,
    ) -> Result<Value, (i64, String)> {
        match method {
            "resources/list" => page(self.resources(), "resources", params, paging),
            "resources/templates/list" => {
                page(Self::templates(), "resourceTemplates", params, paging)
            }
            "resources/read" => self.read(params),
            "prompts/list" => page(self.prompts(), "prompts", params, paging),
            "prompts/get" => self.get_prompt(params),
            _ => Err((METHOD_NOT_FOUND, format!("Method not found: {method}"))),
        }
    }

    fn read(&self, params: &Value) -> Result<Value, (i64, String)> {
        let Some(uri) = params.get("uri").and_then(Value::as_str) else {
            return Err((
                INVALID_PARAMS,
                "resources/read needs a string `uri`".to_owned(),
            ));
        };
        let contents = match uri {
            "fixture://docs/readme" => {
                json!({"uri": uri, "mimeType": "text/markdown", "text": README})
            }
            "fixture://docs/notes" => json!({"uri": uri, "mimeType": "text/plain", "text": NOTES}),
            "fixture://images/pixel" => {
                json!({"uri": uri, "mimeType": "image/png", "blob": PIXEL_PNG})
            }
            LATE_RESOURCE if self.changed() => {
                json!({"uri": uri, "mimeType": "text/plain", "text": "late"})
            }
            _ => match uri.strip_prefix(GREETINGS).filter(|name| !name.is_empty()) {
                Some(name) => {
                    json!({"uri": uri, "mimeType": "text/plain", "text": format!("Hello, {name}!")})
                }
                None => {
                    return Err((RESOURCE_NOT_FOUND, format!("Resource not found: {uri}")));
                }
            },
        };
        Ok(json!({"contents": [contents]}))
    }

    fn get_prompt(&self, params: &Value) -> Result<Value, (i64, String)> {
        let Some(name) = params.get("name").and_then(Value::as_str) else {
            return Err((
                INVALID_PARAMS,
                "prompts/get needs a string `name`".to_owned(),
            ));
        };
        let argument = |key: &str| {
            params
                .get("arguments")
                .and_then(|arguments| arguments.get(key))
                .and_then(Value::as_str)
        };
        let user = |content: Value| json!({"role": "user", "content": content});
        match name {
            "greet" => {
                let Some(who) = argument("name") else {
                    return Err((INVALID_PARAMS, "Missing required argument: name".to_owned()));
                };
                let text = if argument("style") == Some("formal") {
                    format!("Please greet {who} formally.")
                } else {
                    format!("Say hello to {who}.")
                };
                Ok(json!({
                    "description": format!("A greeting for {who}"),
                    "messages": [
                        user(json!({"type": "text", "text": text})),
                        {"role": "assistant", "content": {"type": "text", "text": "Sure."}},
                    ],
                }))
            }
            "summarize_readme" => Ok(json!({
                "messages": [
                    user(json!({"type": "text", "text": "Summarize this document:"})),
                    user(json!({"type": "resource", "resource": {
                        "uri": "fixture://docs/readme",
                        "mimeType": "text/markdown",
                        "text": README,
                    }})),
                ],
            })),
            LATE_PROMPT if self.changed() => Ok(json!({
                "messages": [user(json!({"type": "text", "text": "late"}))],
            })),
            _ => Err((INVALID_PARAMS, format!("Unknown prompt: {name}"))),
        }
    }
}

/// How lists are paged: `--page-size` and `--repeat-cursor`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Paging {
    pub(crate) page_size: Option<usize>,
    pub(crate) repeat_cursor: bool,
}

/// One page of `items` under `key` (tools, resources, templates, prompts); cursors are
/// `page-<n>`, counted from 1.
pub(crate) fn page(
    items: Vec<Value>,
    key: &str,
    params: &Value,
    paging: Paging,
) -> Result<Value, (i64, String)> {
    let invalid =
        |cursor: &dyn std::fmt::Display| (INVALID_PARAMS, format!("Invalid cursor: {cursor}"));
    let page: usize = match params.get("cursor") {
        None | Some(Value::Null) => 1,
        Some(Value::String(cursor)) => cursor
            .strip_prefix("page-")
            .and_then(|n| n.parse().ok())
            .filter(|&n| n >= 1)
            .ok_or_else(|| invalid(cursor))?,
        Some(other) => return Err(invalid(other)),
    };
    let total = items.len();
    let (start, end) = match paging.page_size {
        Some(size) => {
            let start = (page - 1).saturating_mul(size).min(total);
            (start, start.saturating_add(size).min(total))
        }
        None if page == 1 => (0, total),
        None => (total, total),
    };
    let mut result = Map::new();
    result.insert(
        key.to_owned(),
        Value::Array(items.into_iter().skip(start).take(end - start).collect()),
    );
    if paging.repeat_cursor {
        result.insert("nextCursor".to_owned(), json!("page-2"));
    } else if end < total {
        result.insert("nextCursor".to_owned(), json!(format!("page-{}", page + 1)));
    }
    Ok(Value::Object(result))
}
