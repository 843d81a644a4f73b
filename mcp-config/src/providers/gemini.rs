//! Gemini CLI: `mcpServers` in `.gemini/settings.json`.

use serde_json::Value;

use super::{
    dedup_paths, dollar_vars, json_millis, name_list, read_parsed, rewrite_fields,
    standard_with_disabled,
};
use crate::context::DiscoveryContext;
use crate::problems::EntryProblem;
use crate::server_config::ServerConfig;
use crate::source::Level;
use crate::source::{SourceFile, parse_jsonc, servers_under_key};

/// Reads the files: see [`super::GEMINI`].
pub(super) fn load(ctx: &DiscoveryContext) -> Vec<SourceFile> {
    let mut paths = vec![
        (
            ctx.cwd.join(".gemini").join("settings.json"),
            Level::Project,
        ),
        (ctx.home.join(".gemini").join("settings.json"), Level::User),
    ];
    dedup_paths(&mut paths);
    let mut allowed: Option<Vec<String>> = None;
    let mut excluded: Vec<String> = Vec::new();
    let mut files: Vec<SourceFile> = Vec::new();
    for (path, level) in paths {
        let Some(root) = read_parsed(&path, parse_jsonc) else {
            continue;
        };
        let contents = root.and_then(|root| {
            let file = servers_under_key(&path, &root, "mcpServers", |_, entry| convert(entry))?;
            let mcp = root.get("mcp");
            if let Some(names) = mcp.and_then(|mcp| mcp.get("allowed")) {
                allowed.get_or_insert_with(Vec::new).extend(name_list(
                    &path,
                    Some(names),
                    "mcp.allowed",
                )?);
            }
            if let Some(names) = mcp.and_then(|mcp| mcp.get("excluded")) {
                excluded.extend(name_list(&path, Some(names), "mcp.excluded")?);
            }
            Ok(file)
        });
        files.push(SourceFile::new(path, level, contents));
    }
    for file in &mut files {
        let Ok(contents) = file.contents.as_mut() else {
            continue;
        };
        for (name, config) in &mut contents.servers {
            let not_allowed = allowed.as_ref().is_some_and(|list| !list.contains(name));
            if not_allowed || excluded.contains(name) {
                config.enabled = Some(false);
            }
        }
    }
    files
}

/// Converts one `mcpServers` entry.
fn convert(entry: &Value) -> Result<ServerConfig, EntryProblem> {
    let Some(object) = entry.as_object() else {
        return Err(EntryProblem::NotAnObject);
    };
    let mut object = object.clone();
    let timeout = object
        .remove("timeout")
        .map(|value| json_millis(&value, "timeout"))
        .transpose()?;
    // Gemini's request timeout bounds tool calls too; its tool lists are the native ones.
    if let Some(millis) = timeout {
        object.insert("toolTimeout".to_owned(), Value::from(millis));
    }
    for (gemini, native) in [
        ("includeTools", "enabledTools"),
        ("excludeTools", "disabledTools"),
    ] {
        if let Some(names) = object.remove(gemini) {
            object.insert(native.to_owned(), names);
        }
    }
    if let Some(http_url) = object.remove("httpUrl") {
        object.insert("url".to_owned(), http_url);
        object.insert("type".to_owned(), Value::from("http"));
    } else if object.contains_key("url") && !object.contains_key("type") {
        object.insert("type".to_owned(), Value::from("http"));
    }
    if object.contains_key("tcp") && !object.contains_key("command") && !object.contains_key("url")
    {
        return Err(EntryProblem::WebSocket);
    }
    let mut config = standard_with_disabled(&Value::Object(object))?;
    config.timeout = timeout;
    rewrite_fields(&mut config, &mut |text| Ok(dollar_vars(text)))?;
    Ok(config)
}
