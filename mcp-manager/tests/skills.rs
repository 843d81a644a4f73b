//! Skills through the manager: the listings of one server and of every connected server (a
//! server without the extension skipped, not failed, and never asked), a skill loaded by its
//! name or its URI with every file checked (a URI the listing leaves out through `skills/get`), and the errors for a name no skill has, a name two
//! skills share and a file changed after the listing; the listing the manager holds, cached
//! like a tool list and offered before the server connects.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::path::Path;

use common::*;
use mcp_cache::ToolCache;
use mcp_manager::{ConnectionStatus, ManagerError};
use mcp_transport::{SkillEntry, SkillProblem};

fn write_skill(root: &Path, folder: &str, name: &str, description: &str) {
    let skill = root.join(folder);
    std::fs::create_dir_all(skill.join("references")).unwrap();
    std::fs::write(
        skill.join("SKILL.md"),
        format!("---\nname: {name}\ndescription: {description}\n---\n\nHow to {description}.\n"),
    )
    .unwrap();
    std::fs::write(skill.join("references/NOTES.md"), "notes\n").unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn skills_are_listed_per_server_and_loaded_by_name_or_uri_with_every_file_checked() {
    let dir = TempDir::new("manager-skills");
    write_skill(dir.path(), "pdf", "pdf", "fill PDF forms");
    write_skill(dir.path(), "review", "review", "review a change");
    // Two folders whose skills give one name: a name alone cannot choose.
    write_skill(dir.path(), "dup-a", "dup", "one thing");
    write_skill(dir.path(), "dup-b", "dup", "another thing");
    // Served by URI but left out of the listing.
    write_skill(dir.path(), "hidden", "hidden", "stay out of lists");
    std::fs::write(dir.path().join("hidden/unlisted"), "").unwrap();
    let skilled = fixture("skilled", |server| server.skills(dir.path()));
    let plain = plain("plain");
    let manager = manager(memory_cache());
    let outcome = connect(
        &manager,
        &configs(&[("skilled", &skilled), ("plain", &plain)]),
    )
    .await;
    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);

    let all = within("all_skills", manager.all_skills()).await;
    let servers: Vec<&str> = all.iter().map(|listing| listing.server.as_str()).collect();
    assert_eq!(servers, ["skilled"], "a server without skills is skipped");
    let names: Vec<&str> = all[0]
        .result
        .as_ref()
        .unwrap()
        .iter()
        .map(|entry| entry.name())
        .collect();
    assert_eq!(names, ["dup", "dup", "pdf", "review"]);
    let none = within("list_skills", manager.list_skills("plain")).await;
    assert!(none.expect("not an error").is_none());

    let by_name = within("load_skill", manager.load_skill("skilled", "pdf"))
        .await
        .unwrap();
    assert!(by_name.instructions.contains("How to fill PDF forms."));
    assert_eq!(by_name.files.len(), 1);
    let by_uri = within(
        "load_skill",
        manager.load_skill("skilled", "skill://dup-b/SKILL.md"),
    )
    .await
    .unwrap();
    assert_eq!(by_uri.entry.description(), "another thing");
    let unlisted = within(
        "load_skill",
        manager.load_skill("skilled", "skill://hidden/SKILL.md"),
    )
    .await
    .expect("a skill left out of the listing is loaded by its URI");
    assert!(unlisted.instructions.contains("How to stay out of lists."));
    assert_eq!(unlisted.files.len(), 1);
    let no_such_uri = within(
        "load_skill",
        manager.load_skill("skilled", "skill://nowhere/SKILL.md"),
    )
    .await
    .unwrap_err();
    assert!(
        no_such_uri.to_string().contains("skill://nowhere/SKILL.md"),
        "{no_such_uri}"
    );

    let unknown = within("load_skill", manager.load_skill("skilled", "pfd"))
        .await
        .unwrap_err();
    assert!(
        matches!(&*unknown, ManagerError::UnknownSkill { known, .. } if known.len() == 4),
        "{unknown:?}"
    );
    assert!(
        unknown.to_string().contains("offers no skill \"pfd\""),
        "{unknown}"
    );
    let ambiguous = within("load_skill", manager.load_skill("skilled", "dup"))
        .await
        .unwrap_err();
    assert!(
        ambiguous
            .to_string()
            .contains("skill://dup-a/SKILL.md, skill://dup-b/SKILL.md"),
        "{ambiguous}"
    );
    let not_offered = within("load_skill", manager.load_skill("plain", "pdf"))
        .await
        .unwrap_err();
    assert!(
        matches!(
            &*not_offered,
            ManagerError::NotOffered {
                capability: "skills",
                ..
            }
        ),
        "{not_offered:?}"
    );

    within("disconnect_all", manager.disconnect_all()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_skill_its_server_misstates_is_refused_and_an_unlisted_file_never_read() {
    let dir = TempDir::new("manager-skills-misstated");
    write_skill(dir.path(), "pdf", "pdf", "fill PDF forms");
    // The server's listing states another description than its SKILL.md holds.
    std::fs::write(
        dir.path().join("pdf/frontmatter.json"),
        r#"{"name": "pdf", "description": "fill PDF forms quickly"}"#,
    )
    .unwrap();
    let skilled = fixture("misstated", |server| server.skills(dir.path()));
    let manager = manager(memory_cache());
    let outcome = connect(&manager, &configs(&[("misstated", &skilled)])).await;
    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);

    let refused = within("load_skill", manager.load_skill("misstated", "pdf"))
        .await
        .unwrap_err();
    assert!(
        matches!(
            &*refused,
            ManagerError::Client(mcp_transport::Error::Skill {
                problem: SkillProblem::Frontmatter { .. },
                ..
            })
        ),
        "{refused:?}"
    );
    assert!(
        refused
            .to_string()
            .contains("skill \"pdf\" refused: skill://pdf/SKILL.md"),
        "{refused}"
    );

    // A listed file alone is read, checked; one the listing does not name is not read.
    let file = within(
        "read_skill_file",
        manager.read_skill_file("misstated", "pdf", "skill://pdf/references/NOTES.md"),
    )
    .await
    .unwrap();
    assert_eq!(file.text(), Some("notes\n"));
    let unlisted = within(
        "read_skill_file",
        manager.read_skill_file("misstated", "pdf", "skill://pdf/frontmatter.json"),
    )
    .await
    .unwrap_err();
    assert_not_listed(&unlisted, "frontmatter.json");

    within("disconnect_all", manager.disconnect_all()).await;
}

/// Fails unless `error` refused a file (`what`) because the skill's listing does not name it.
fn assert_not_listed(error: &mcp_manager::ServerError, what: &str) {
    assert!(
        matches!(
            &**error,
            ManagerError::Client(mcp_transport::Error::Skill {
                problem: SkillProblem::NotListed,
                ..
            })
        ),
        "{what}: {error:?}"
    );
}

fn names(skills: &[SkillEntry]) -> Vec<&str> {
    skills.iter().map(SkillEntry::name).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_skill_listing_is_cached_and_offered_before_its_server_connects_then_refreshed() {
    let dir = TempDir::new("manager-skills-cached");
    write_skill(dir.path(), "pdf", "pdf", "fill PDF forms");
    let reads = dir.path().join("reads.log");
    let hold = testkit::Hold::in_folder(dir.path(), "init");
    // One definition for both starts, so both have one cache key: it answers `initialize` only
    // once the test lets it.
    let skilled = fixture("cached-skills", |server| {
        server
            .skills(dir.path())
            .log_reads(&reads)
            .hold("initialize", hold.fifo())
    });
    let servers = configs(&[("skilled", &skilled)]);
    let cache = memory_cache();

    let first = manager(cache.clone());
    hold.release();
    let outcome = connect(&first, &servers).await;
    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
    let listed = first.skills();
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(names(&listed[0].skills), ["pdf"]);
    assert!(!listed[0].cached, "listed by the live connection");
    within("disconnect_all", first.disconnect_all()).await;
    let entry = cache
        .lookup_entry("skilled", &key_of(&skilled.config).await)
        .await
        .expect("the tools and skills were cached");
    assert_eq!(names(&entry.listing.skills), ["pdf"]);

    // The server gains a skill; the next start offers what the cache has while it connects.
    write_skill(dir.path(), "review", "review", "review a change");
    let second = manager(cache.clone());
    let outcome = connect(&second, &servers).await;
    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
    assert_eq!(
        second.get_connection_status("skilled"),
        ConnectionStatus::Connecting
    );
    let offered = second.skills();
    assert_eq!(names(&offered[0].skills), ["pdf"]);
    assert!(offered[0].cached, "the cache's, before the server answered");
    assert!(
        !reads.exists(),
        "neither listing nor offering read a file of a skill"
    );

    hold.release();
    within("the connection", second.wait_for_connection("skilled"))
        .await
        .unwrap();
    let refreshed = second.skills();
    assert_eq!(names(&refreshed[0].skills), ["pdf", "review"]);
    assert!(!refreshed[0].cached);
    let entry = cache
        .lookup_entry("skilled", &key_of(&skilled.config).await)
        .await
        .unwrap();
    assert_eq!(names(&entry.listing.skills), ["pdf", "review"]);
    assert!(!reads.exists());
    within("disconnect_all", second.disconnect_all()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_without_the_extension_is_never_asked_for_its_skills() {
    // Asked `skills/list`, it would die: still alive at the end, it never was asked.
    let plain = fixture("no-skills", |server| server.crash_at("skills/list"));
    let cache = memory_cache();
    let manager = manager(cache.clone());
    let outcome = connect(&manager, &configs(&[("plain", &plain)])).await;
    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);

    assert!(manager.skills().is_empty());
    assert!(within("all_skills", manager.all_skills()).await.is_empty());
    let entry = cache
        .lookup_entry("plain", &key_of(&plain.config).await)
        .await
        .unwrap();
    assert!(entry.listing.skills.is_empty());
    let output = echo(
        find_tool(&manager.tools(), "plain", "echo").tool.as_ref(),
        "still here",
    )
    .await;
    assert_eq!(output.to_text(), "still here");
    assert_eq!(
        manager.get_connection_status("plain"),
        ConnectionStatus::Connected
    );
    within("disconnect_all", manager.disconnect_all()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_is_read_by_its_path_in_the_skill_and_a_path_out_of_the_listing_is_refused() {
    let dir = TempDir::new("manager-skill-paths");
    write_skill(dir.path(), "pdf", "pdf", "fill PDF forms");
    write_skill(dir.path(), "other", "other", "something else");
    let skilled = fixture("paths", |server| server.skills(dir.path()));
    let manager = manager(memory_cache());
    connect(&manager, &configs(&[("skilled", &skilled)])).await;

    let notes = within(
        "read_skill_file",
        manager.read_skill_file("skilled", "pdf", "references/NOTES.md"),
    )
    .await
    .unwrap();
    assert_eq!(notes.uri, "skill://pdf/references/NOTES.md");
    assert_eq!(notes.text(), Some("notes\n"));
    for outside in ["../other/SKILL.md", "skill://other/SKILL.md"] {
        let refused = within(
            "read_skill_file",
            manager.read_skill_file("skilled", "pdf", outside),
        )
        .await
        .unwrap_err();
        assert_not_listed(&refused, outside);
    }
    within("disconnect_all", manager.disconnect_all()).await;
}
