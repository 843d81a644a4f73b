//! The resource and prompt commands: `resources [--server X]` (resources and resource
//! templates), `read SERVER URI`, `prompts [--server X]` and `prompt SERVER NAME [--arg k=v]…`,
//! as tables or, with `--json`, as JSON. A server that does not offer resources (or prompts) is
//! skipped and named as skipped, never a failure; a server whose list fails makes the command
//! exit 1 after printing what the others gave.

use std::collections::BTreeMap;

use agent_session::commands::Interface;
use agent_session::render::{Column, table};
use mcp_manager::{ConnectionStatus, ManagerError, McpManager, ServerError, ServerListing};
use mcp_transport::{ContentBlock, GetPromptResult, Prompt, ReadResourceResult, ResourceContents};
use serde_json::{Value, json};

use super::failure::Kind;
use super::outcome::Outcome;
use super::output::first_line;

/// Parses one `--arg KEY=VALUE` of `prompt`: prompt arguments are strings, taken as given.
pub(crate) fn parse_prompt_arg(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((key, value)) if !key.is_empty() => Ok((key.to_owned(), value.to_owned())),
        _ => Err(format!(
            "takes KEY=VALUE such as --arg city=Paris, not {text:?}"
        )),
    }
}

/// `resources [--server X]`: every resource and resource template.
pub(crate) async fn resources_command(
    manager: &McpManager,
    server: Option<&str>,
    interface: Interface,
) -> Outcome {
    let (resources, templates) = match server {
        Some(server) => {
            let resources = manager.list_resources(server).await;
            let templates = manager.list_resource_templates(server).await;
            (one(server, resources), one(server, templates))
        }
        None => {
            settle(manager).await;
            (
                Listings::of_all(manager, manager.all_resources().await),
                Listings::of_all(manager, manager.all_resource_templates().await),
            )
        }
    };
    // The same servers are skipped by both lists; errors of either count.
    let mut errors = resources.errors.clone();
    errors.extend(templates.errors.iter().cloned());
    let json = json!({
        "resources": tagged(&resources.items, serde_json::to_value),
        "templates": tagged(&templates.items, serde_json::to_value),
        "skipped": resources.skipped,
        "errors": errors_json(&errors),
    });
    Outcome::partial(
        resources_text(&resources, &templates, interface),
        json,
        problems(&errors),
    )
}

/// `prompts [--server X]`: every prompt, with its arguments.
pub(crate) async fn prompts_command(
    manager: &McpManager,
    server: Option<&str>,
    interface: Interface,
) -> Outcome {
    let prompts = match server {
        Some(server) => one(server, manager.list_prompts(server).await),
        None => {
            settle(manager).await;
            Listings::of_all(manager, manager.all_prompts().await)
        }
    };
    let json = json!({
        "prompts": tagged(&prompts.items, serde_json::to_value),
        "skipped": prompts.skipped,
        "errors": errors_json(&prompts.errors),
    });
    Outcome::partial(
        prompts_text(&prompts, interface),
        json,
        problems(&prompts.errors),
    )
}

/// `read SERVER URI`: a resource's contents; text as it is, binary described (its base64 with
/// `--json`).
pub(crate) async fn read_command(
    manager: &McpManager,
    server: &str,
    uri: &str,
    interface: Interface,
) -> Outcome {
    match manager.read_resource(server, uri).await {
        Ok(read) => Outcome::ok(
            read_text(&read),
            json!({"server": server, "uri": uri, "contents": read.contents}),
        ),
        // A server without resources has none to list: the error says so, alone.
        Err(error) if matches!(*error, ManagerError::NotOffered { .. }) => {
            Outcome::failed(Kind::Server, error.to_string())
        }
        Err(error) => {
            let resources = interface.command_on("resources --server", server);
            Outcome::failed(
                Kind::Server,
                format!("{error}; run {resources} to see its resources"),
            )
        }
    }
}

/// `prompt SERVER NAME [--arg k=v]…`: the prompt's messages. Missing required arguments and
/// unknown names are told before the prompt is asked for, when the server lists its prompts.
pub(crate) async fn prompt_command(
    manager: &McpManager,
    server: &str,
    name: &str,
    arguments: Vec<(String, String)>,
    interface: Interface,
) -> Outcome {
    let arguments: BTreeMap<String, String> = arguments.into_iter().collect();
    if let Ok(Some(prompts)) = manager.list_prompts(server).await
        && let Err(message) = check_prompt(server, name, &prompts, &arguments)
    {
        return Outcome::usage(Kind::Usage, message);
    }
    match manager.get_prompt(server, name, arguments).await {
        Ok(prompt) => Outcome::ok(
            prompt_text(server, name, &prompt),
            json!({
                "server": server,
                "prompt": name,
                "description": prompt.description,
                "messages": prompt.messages,
            }),
        ),
        Err(error) if matches!(*error, ManagerError::NotOffered { .. }) => {
            Outcome::failed(Kind::Server, error.to_string())
        }
        Err(error) => {
            let prompts = interface.command_on("prompts --server", server);
            Outcome::failed(
                Kind::Server,
                format!("{error}; run {prompts} to see its prompts and their arguments"),
            )
        }
    }
}

/// A prompt's name and required arguments, checked against the server's list.
fn check_prompt(
    server: &str,
    name: &str,
    prompts: &[Prompt],
    arguments: &BTreeMap<String, String>,
) -> Result<(), String> {
    let Some(prompt) = prompts.iter().find(|prompt| prompt.name == name) else {
        let names: Vec<&str> = prompts.iter().map(|prompt| prompt.name.as_str()).collect();
        let known = if names.is_empty() {
            "it lists none".to_owned()
        } else {
            format!("it has: {}", names.join(", "))
        };
        return Err(format!(
            "MCP server \"{server}\" has no prompt named \"{name}\" ({known})"
        ));
    };
    let missing: Vec<&str> = prompt
        .required_arguments()
        .filter(|required| !arguments.contains_key(*required))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    let flags: Vec<String> = missing
        .iter()
        .map(|argument| format!("--arg {argument}=VALUE"))
        .collect();
    Err(format!(
        "prompt \"{name}\" of \"{server}\" needs {}: add {}",
        missing.join(", "),
        flags.join(" ")
    ))
}

/// Waits for every server still connecting (each within its own timeout), so that a listing of
/// all servers holds what they came to, not where they were at the startup gate.
pub(crate) async fn settle(manager: &McpManager) {
    for server in manager.server_names() {
        if manager.get_connection_status(&server) == ConnectionStatus::Connecting {
            let _ = manager.wait_for_connection(&server).await;
        }
    }
}

/// What a listing command shows: items with their server, servers skipped for not offering
/// the capability, and servers whose list failed.
pub(crate) struct Listings<T> {
    pub(crate) items: Vec<(String, T)>,
    pub(crate) skipped: Vec<String>,
    pub(crate) errors: Vec<(String, ServerError)>,
}

impl<T> Listings<T> {
    /// The listings of every connected server; the connected servers left out are the ones
    /// without the capability.
    pub(crate) fn of_all(manager: &McpManager, listings: Vec<ServerListing<T>>) -> Self {
        let mut this = Self {
            items: Vec::new(),
            skipped: Vec::new(),
            errors: Vec::new(),
        };
        for server in manager.server_names() {
            let listed = listings.iter().any(|listing| listing.server == server);
            if !listed && manager.get_connection_status(&server) == ConnectionStatus::Connected {
                this.skipped.push(server);
            }
        }
        for listing in listings {
            match listing.result {
                Ok(items) => this
                    .items
                    .extend(items.into_iter().map(|item| (listing.server.clone(), item))),
                Err(error) => this.errors.push((listing.server, error)),
            }
        }
        this
    }
}

/// The listing of one server: its items, skipped when it does not offer them, or its error.
pub(crate) fn one<T>(server: &str, listed: Result<Option<Vec<T>>, ServerError>) -> Listings<T> {
    let mut this = Listings {
        items: Vec::new(),
        skipped: Vec::new(),
        errors: Vec::new(),
    };
    match listed {
        Ok(Some(items)) => this
            .items
            .extend(items.into_iter().map(|item| (server.to_owned(), item))),
        Ok(None) => this.skipped.push(server.to_owned()),
        Err(error) => this.errors.push((server.to_owned(), error)),
    }
    this
}

/// Each item as its protocol JSON with `"server"` first: the server the CLI asked, never a
/// `"server"` field the item itself carries.
fn tagged<'a, T: 'a>(
    items: &'a [(String, T)],
    to_json: impl Fn(&'a T) -> Result<Value, serde_json::Error>,
) -> Vec<Value> {
    items
        .iter()
        .map(|(server, item)| {
            let mut object = serde_json::Map::new();
            object.insert("server".to_owned(), json!(server));
            if let Ok(Value::Object(fields)) = to_json(item) {
                for (field, value) in fields {
                    object.entry(field).or_insert(value);
                }
            }
            Value::Object(object)
        })
        .collect()
}

pub(crate) fn errors_json(errors: &[(String, ServerError)]) -> Vec<Value> {
    errors
        .iter()
        .map(|(server, error)| json!({"server": server, "message": error.to_string()}))
        .collect()
}

/// The servers whose list failed, one message each: the command fails after showing what
/// the others gave.
pub(crate) fn problems(errors: &[(String, ServerError)]) -> Vec<String> {
    errors.iter().map(|(_, error)| error.to_string()).collect()
}

/// What an empty listing says: only that, when servers were asked (those without the
/// capability are named after it, failures on stderr); with the list command when no server
/// answered at all, to see why.
pub(crate) fn nothing_listed<T>(
    what: &str,
    listings: &Listings<T>,
    interface: Interface,
) -> String {
    if listings.skipped.is_empty() && listings.errors.is_empty() {
        format!(
            "No MCP {what}. {} shows the servers and their errors.",
            interface.command("list")
        )
    } else {
        format!("No MCP {what}.")
    }
}

fn resources_text(
    resources: &Listings<mcp_transport::Resource>,
    templates: &Listings<mcp_transport::ResourceTemplate>,
    interface: Interface,
) -> String {
    let mut sections = Vec::new();
    if resources.items.is_empty() && templates.items.is_empty() {
        sections.push(nothing_listed("resources", resources, interface));
    }
    if !resources.items.is_empty() {
        sections.push(table(
            &[
                Column::left("SERVER"),
                Column::left("URI").shrinking_in_the_middle(),
                Column::left("NAME").shrinking(),
                Column::left("MIME"),
                Column::left("DESCRIPTION").shrinking(),
            ],
            &resources
                .items
                .iter()
                .map(|(server, resource)| {
                    vec![
                        server.clone(),
                        resource.uri.clone(),
                        resource
                            .title
                            .clone()
                            .unwrap_or_else(|| resource.name.clone()),
                        resource.mime_type.clone().unwrap_or_default(),
                        first_line(resource.description.as_deref().unwrap_or_default()),
                    ]
                })
                .collect::<Vec<_>>(),
        ));
    }
    if !templates.items.is_empty() {
        sections.push(table(
            &[
                Column::left("SERVER"),
                Column::left("URI TEMPLATE").shrinking_in_the_middle(),
                Column::left("NAME").shrinking(),
                Column::left("MIME"),
                Column::left("DESCRIPTION").shrinking(),
            ],
            &templates
                .items
                .iter()
                .map(|(server, template)| {
                    vec![
                        server.clone(),
                        template.uri_template.clone(),
                        template
                            .title
                            .clone()
                            .unwrap_or_else(|| template.name.clone()),
                        template.mime_type.clone().unwrap_or_default(),
                        first_line(template.description.as_deref().unwrap_or_default()),
                    ]
                })
                .collect::<Vec<_>>(),
        ));
    }
    if !resources.skipped.is_empty() {
        sections.push(format!(
            "Not offering resources: {}",
            resources.skipped.join(", ")
        ));
    }
    sections.join("\n\n")
}

fn prompts_text(prompts: &Listings<Prompt>, interface: Interface) -> String {
    let mut sections = Vec::new();
    if prompts.items.is_empty() {
        sections.push(nothing_listed("prompts", prompts, interface));
    } else {
        sections.push(table(
            &[
                Column::left("SERVER"),
                Column::left("NAME"),
                Column::left("ARGUMENTS").shrinking(),
                Column::left("DESCRIPTION").shrinking(),
            ],
            &prompts
                .items
                .iter()
                .map(|(server, prompt)| {
                    let arguments: Vec<String> = prompt
                        .arguments
                        .iter()
                        .map(|argument| {
                            let mark = if argument.required { "*" } else { "" };
                            format!("{}{mark}", argument.name)
                        })
                        .collect();
                    vec![
                        server.clone(),
                        prompt.name.clone(),
                        arguments.join(", "),
                        first_line(prompt.description.as_deref().unwrap_or_default()),
                    ]
                })
                .collect::<Vec<_>>(),
        ));
        if prompts
            .items
            .iter()
            .any(|(_, prompt)| prompt.required_arguments().next().is_some())
        {
            sections.push(format!(
                "* required: {}",
                interface.bare("prompt SERVER NAME --arg KEY=VALUE …")
            ));
        }
    }
    if !prompts.skipped.is_empty() {
        sections.push(format!(
            "Not offering prompts: {}",
            prompts.skipped.join(", ")
        ));
    }
    sections.join("\n\n")
}

/// A resource's contents: text as it is; one header per part when there are several.
fn read_text(read: &ReadResourceResult) -> String {
    let several = read.contents.len() > 1;
    let parts: Vec<String> = read
        .contents
        .iter()
        .map(|contents| {
            let body = contents_text(contents);
            if several {
                format!("── {} ──\n{body}", contents.uri)
            } else {
                body
            }
        })
        .collect();
    if parts.is_empty() {
        return "(the resource is empty)".to_owned();
    }
    parts.join("\n")
}

fn contents_text(contents: &ResourceContents) -> String {
    match (&contents.text, &contents.blob) {
        (Some(text), _) => text.trim_end_matches('\n').to_owned(),
        (None, Some(blob)) => format!(
            "[binary: {} bytes of {}; --json gives the base64 data]",
            base64_len(blob),
            contents.mime_type.as_deref().unwrap_or("unknown type")
        ),
        (None, None) => "(no contents)".to_owned(),
    }
}

/// The prompt's messages, one `role: content` block each.
fn prompt_text(server: &str, name: &str, prompt: &GetPromptResult) -> String {
    let mut lines = vec![match &prompt.description {
        Some(description) => format!("{name} ({server}): {description}"),
        None => format!("{name} ({server})"),
    }];
    for message in &prompt.messages {
        lines.push(format!(
            "{}: {}",
            message.role,
            block_text(&message.content)
        ));
    }
    lines.join("\n")
}

fn block_text(block: &ContentBlock) -> String {
    match block {
        ContentBlock::Text(text) => text.text.clone(),
        ContentBlock::Image(binary) | ContentBlock::Audio(binary) => format!(
            "[{}: {} bytes of {}]",
            block.kind(),
            base64_len(&binary.data),
            binary.mime_type
        ),
        ContentBlock::ResourceLink(link) => format!("[resource link: {}]", link.uri),
        ContentBlock::Resource(embedded) => format!(
            "[resource {}]\n{}",
            embedded.resource.uri,
            contents_text(&embedded.resource)
        ),
        other => format!("[{} content]", other.kind()),
    }
}

/// How many bytes base64 text decodes to.
fn base64_len(data: &str) -> usize {
    let digits = data
        .bytes()
        .filter(|byte| !byte.is_ascii_whitespace())
        .count();
    let padding = data
        .trim_end()
        .bytes()
        .rev()
        .take_while(|byte| *byte == b'=')
        .count();
    (digits * 3 / 4).saturating_sub(padding)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompt_arguments_are_key_value_strings() {
        assert_eq!(
            parse_prompt_arg("city=New York=NY"),
            Ok(("city".to_owned(), "New York=NY".to_owned()))
        );
        assert_eq!(
            parse_prompt_arg("empty="),
            Ok(("empty".to_owned(), String::new()))
        );
        assert!(parse_prompt_arg("=x").is_err());
        assert!(parse_prompt_arg("novalue").is_err());
    }

    #[test]
    fn an_items_own_server_field_does_not_replace_the_server_asked() {
        let items = vec![(
            "acme".to_owned(),
            json!({"server": "trusted", "uri": "file:///a"}),
        )];
        let shown = tagged(&items, |item| Ok(item.clone()));
        assert_eq!(shown, [json!({"server": "acme", "uri": "file:///a"})]);
    }

    #[test]
    fn base64_lengths_count_decoded_bytes() {
        assert_eq!(base64_len("AAE="), 2);
        assert_eq!(base64_len("AAEC"), 3);
        assert_eq!(base64_len("AA=="), 1);
        assert_eq!(base64_len(""), 0);
    }

    #[test]
    fn a_missing_required_argument_is_named_with_the_flag_to_add() {
        let prompt: Prompt = serde_json::from_value(json!({
            "name": "greet",
            "arguments": [{"name": "name", "required": true}, {"name": "style"}]
        }))
        .unwrap_or_else(|error| panic!("{error}"));
        let prompts = [prompt];
        let message =
            check_prompt("s", "greet", &prompts, &BTreeMap::new()).expect_err("name is missing");
        assert!(message.contains("--arg name=VALUE"), "{message}");
        let unknown =
            check_prompt("s", "nope", &prompts, &BTreeMap::new()).expect_err("unknown prompt");
        assert!(unknown.contains("it has: greet"), "{unknown}");
        let given = BTreeMap::from([("name".to_owned(), "Ada".to_owned())]);
        assert!(check_prompt("s", "greet", &prompts, &given).is_ok());
    }
}
