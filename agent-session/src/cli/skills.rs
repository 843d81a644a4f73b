//! The skill commands (the Skills extension): `skills [--server X]`, every skill the servers
//! offer — name, description, how many files and how many bytes — as a table or, with
//! `--json`, as JSON; and `skill SERVER NAME [--file PATH]`, a skill's `SKILL.md` (or one of
//! its files) once every file of it was checked against the server's listing.
//!
//! As `resources` and `prompts` do, `skills` asks each server for its listing now (a server
//! without the extension is skipped and named, never asked); a server whose listing fails
//! makes it exit 1 after the others are shown. `skill` prints nothing of a skill that fails a
//! check: it exits 1 with the error, which names the skill, the file and what differed. A skill
//! name the server does not list is a usage error (exit 2) naming the ones it lists. Skill text
//! is printed, like everything else, through `terminal_text`.

use agent_session::commands::Interface;
use agent_session::render::{Column, table};
use agent_session::{AgentSession, SessionError};
use base64::Engine as _;
use mcp_manager::{ManagerError, McpManager};
use mcp_transport::{LoadedSkill, SkillContent, SkillEntry, SkillFiles};
use serde_json::{Value, json};

use super::failure::Kind;
use super::outcome::Outcome;
use super::output::first_line;
use super::resources::{Listings, errors_json, nothing_listed, one, problems, settle};

/// `skills [--server X]`: every skill of the servers that offer them.
pub(crate) async fn skills_command(
    manager: &McpManager,
    server: Option<&str>,
    interface: Interface,
) -> Outcome {
    let skills = match server {
        Some(server) => one(server, manager.list_skills(server).await),
        None => {
            settle(manager).await;
            Listings::of_all(manager, manager.all_skills().await)
        }
    };
    let json = json!({
        "skills": skills
            .items
            .iter()
            .map(|(server, entry)| skill_json(server, entry))
            .collect::<Vec<_>>(),
        "skipped": skills.skipped,
        "errors": errors_json(&skills.errors),
    });
    Outcome::partial(
        skills_text(&skills, interface),
        json,
        problems(&skills.errors),
    )
}

/// `skill SERVER NAME [--file PATH]`: the skill's `SKILL.md`, or its file PATH, checked.
pub(crate) async fn skill_command(
    session: &AgentSession,
    server: &str,
    name: &str,
    file: Option<&str>,
    interface: Interface,
) -> Outcome {
    match file {
        None => match session.load_skill(server, name).await {
            Ok(loaded) => Outcome::ok(
                loaded.instructions.trim_end_matches('\n'),
                loaded_json(server, &loaded),
            ),
            Err(error) => not_loaded(&error, server, interface),
        },
        Some(file) => match session.read_skill_file(server, name, file).await {
            Ok(content) => Outcome::ok(file_text(&content), file_json(server, name, &content)),
            Err(error) => not_loaded(&error, server, interface),
        },
    }
}

/// Why a skill (or its file) is not shown: a name the server does not list is the user's to
/// fix (exit 2); a refused file, a server without skills or one that failed is the server's
/// (exit 1).
fn not_loaded(error: &SessionError, server: &str, interface: Interface) -> Outcome {
    let SessionError::Server(failed) = error else {
        return Outcome::failed(Kind::Server, error.to_string());
    };
    match &**failed {
        ManagerError::UnknownSkill { .. } | ManagerError::AmbiguousSkill { .. } => {
            let skills = interface.command_on("skills --server", server);
            Outcome::usage(Kind::Usage, format!("{failed}; {skills} lists them"))
        }
        ManagerError::NotOffered { .. }
        | ManagerError::Client(mcp_transport::Error::Skill { .. }) => {
            Outcome::failed(Kind::Server, failed.to_string())
        }
        _ => {
            let skills = interface.command_on("skills --server", server);
            Outcome::failed(
                Kind::Server,
                format!("{failed}; run {skills} to see its skills"),
            )
        }
    }
}

/// A listed skill as JSON: `server`, `name`, `description`, `files` and `size` (null when
/// the server lists its files dynamically), then every other field the server sent — one of
/// its own with one of those five names does not replace what the CLI states.
fn skill_json(server: &str, entry: &SkillEntry) -> Value {
    let listed = matches!(entry.resources, SkillFiles::Listed(_));
    let mut object = serde_json::Map::new();
    object.insert("server".to_owned(), json!(server));
    object.insert("name".to_owned(), json!(entry.name()));
    object.insert("description".to_owned(), json!(entry.description()));
    object.insert(
        "files".to_owned(),
        json!(listed.then(|| entry.files().len())),
    );
    object.insert("size".to_owned(), json!(listed.then(|| entry.size())));
    if let Ok(Value::Object(fields)) = serde_json::to_value(entry) {
        for (field, value) in fields {
            object.entry(field).or_insert(value);
        }
    }
    Value::Object(object)
}

fn loaded_json(server: &str, loaded: &LoadedSkill) -> Value {
    json!({
        "server": server,
        "skill": loaded.entry.name(),
        "uri": loaded.entry.uri,
        "instructions": loaded.instructions,
        "files": loaded.entry.files(),
    })
}

fn file_json(server: &str, skill: &str, content: &SkillContent) -> Value {
    let mut object = json!({
        "server": server,
        "skill": skill,
        "uri": content.uri,
        "mimeType": content.mime_type,
        "size": content.bytes.len(),
    });
    match content.text() {
        Some(text) => object["text"] = json!(text),
        None => {
            object["blob"] =
                json!(base64::engine::general_purpose::STANDARD.encode(&content.bytes));
        }
    }
    object
}

/// A file's text as it is; a binary file described (its base64 with `--json`).
fn file_text(content: &SkillContent) -> String {
    match content.text() {
        Some(text) => text.trim_end_matches('\n').to_owned(),
        None => format!(
            "[binary: {} bytes of {}; --json gives the base64 data]",
            content.bytes.len(),
            content.mime_type.as_deref().unwrap_or("unknown type")
        ),
    }
}

fn skills_text(skills: &Listings<SkillEntry>, interface: Interface) -> String {
    let mut sections = Vec::new();
    if skills.items.is_empty() {
        sections.push(nothing_listed("skills", skills, interface));
    } else {
        sections.push(table(
            &[
                Column::left("SERVER"),
                Column::left("NAME"),
                Column::right("FILES"),
                Column::right("SIZE"),
                Column::left("DESCRIPTION").shrinking(),
            ],
            &skills
                .items
                .iter()
                .map(|(server, entry)| {
                    let (files, size) = match entry.resources {
                        SkillFiles::Listed(_) => {
                            (entry.files().len().to_string(), size_text(entry.size()))
                        }
                        _ => ("dynamic".to_owned(), String::new()),
                    };
                    vec![
                        server.clone(),
                        entry.name().to_owned(),
                        files,
                        size,
                        first_line(entry.description()),
                    ]
                })
                .collect::<Vec<_>>(),
        ));
        sections.push(format!(
            "{} shows a skill's SKILL.md, every file of it checked.",
            interface.command("skill SERVER NAME")
        ));
    }
    if !skills.skipped.is_empty() {
        sections.push(format!(
            "Not offering skills: {}",
            skills.skipped.join(", ")
        ));
    }
    sections.join("\n\n")
}

/// `812 B`, `3.4 KiB`, `1.2 MiB`.
fn size_text(bytes: u64) -> String {
    const KIB: u64 = 1024;
    match bytes {
        0..KIB => format!("{bytes} B"),
        KIB..1_048_576 => format!("{:.1} KiB", bytes as f64 / KIB as f64),
        _ => format!("{:.1} MiB", bytes as f64 / 1_048_576.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_servers_own_fields_do_not_replace_what_the_cli_states_of_a_skill() {
        let entry: SkillEntry = serde_json::from_value(json!({
            "uri": "skill://pdf/SKILL.md",
            "frontmatter": {"name": "pdf", "description": "fill forms"},
            "resources": [{"uri": "skill://pdf/SKILL.md", "digest": "sha256:00", "size": 12}],
            "server": "trusted-server", "name": "other", "size": 1, "files": 99,
            "ttlMs": 5
        }))
        .unwrap();
        let shown = skill_json("acme", &entry);
        assert_eq!(shown["server"], "acme");
        assert_eq!(shown["name"], "pdf");
        assert_eq!(shown["description"], "fill forms");
        assert_eq!(shown["files"], 1);
        assert_eq!(shown["size"], 12);
        assert_eq!(shown["ttlMs"], 5, "the server's other fields are kept");
        let order: Vec<&str> = shown
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            order[..6],
            ["server", "name", "description", "files", "size", "uri"]
        );
    }

    #[test]
    fn sizes_are_bytes_then_kib_then_mib() {
        assert_eq!(size_text(0), "0 B");
        assert_eq!(size_text(1023), "1023 B");
        assert_eq!(size_text(1024), "1.0 KiB");
        assert_eq!(size_text(3_500), "3.4 KiB");
        assert_eq!(size_text(5 * 1_048_576 + 1), "5.0 MiB");
    }
}
