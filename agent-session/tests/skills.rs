//! Skills through the session, against the fixture server serving real files with real
//! digests: the listing an agent puts in its model's prompt reads no file (and a server without
//! the extension is never asked for one), a skill is loaded — every file checked — only when
//! asked, by the agent or by the model through `mcp_load_skill`, each tampering a server can do
//! is refused with the skill, the file and what differed, and a listing the cache kept is
//! offered before its server connects.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;
mod skill_folder;

use std::sync::Arc;

use agent_session::{AgentSession, SessionError};
use common::{World, guard, guard_for, memory_cache};
use mcp_bridge::CancellationToken;
use mcp_bridge::skills::LOAD_SKILL_TOOL;
use mcp_manager::{ConnectionStatus, ManagerError};
use mcp_transport::SkillProblem;
use serde_json::json;
use skill_folder::{DESCRIPTION, FORMS_MD, LOGO, SKILL, SKILL_MD, SkillFolder};
use testkit::FixtureServer;

/// A world with `docs` (the skills of `folder`) and `plain`, which dies if it is ever asked for
/// skills.
fn world_with(folder: impl FnOnce(&World) -> SkillFolder) -> (World, SkillFolder) {
    let world = World::new();
    let skills = folder(&world);
    world.write_mcp_json(&[
        ("docs", skills.serve(FixtureServer::new())),
        ("plain", FixtureServer::new().crash_at("skills/list")),
    ]);
    (world, skills)
}

fn skill_folder(world: &World) -> SkillFolder {
    SkillFolder::in_folder(world.home())
}

/// The skill refusal behind a session error: (skill, file, what differed).
fn refusal(error: &SessionError) -> (&str, &str, &SkillProblem) {
    let SessionError::Server(failed) = error else {
        panic!("not a server error: {error:?}");
    };
    match &**failed {
        ManagerError::Client(mcp_transport::Error::Skill {
            skill,
            file,
            problem,
            ..
        }) => (skill, file, problem),
        other => panic!("not a skill refusal: {other:?}"),
    }
}

async fn load_with_tool(session: &AgentSession, args: serde_json::Value) -> (bool, String) {
    let tool = session.skill_tool();
    assert_eq!(tool.name(), LOAD_SKILL_TOOL);
    let output = guard(tool.execute(args, CancellationToken::new()))
        .await
        .expect("not cancelled");
    (output.is_error, output.to_text())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_session_offers_every_servers_skills_for_the_prompt_without_reading_a_file() {
    let (world, skills) = world_with(skill_folder);
    skills.add("review", "Review a change");
    // What the server says of a skill is one line of the index, whatever it wrote.
    skills.state_frontmatter(
        "review",
        r#"{"name": "review", "description": "Review a change\n\u001b[2J  line by line"}"#,
    );
    let session = world.start().await.session;
    guard(session.manager().wait_for_connection("docs"))
        .await
        .unwrap();

    let offered = session.skills();
    assert_eq!(offered.len(), 1, "{offered:?}");
    assert_eq!(offered[0].server, "docs");
    assert!(!offered[0].cached);
    assert_eq!(
        session.skill_index(),
        format!("- docs/{SKILL}: {DESCRIPTION}\n- docs/review: Review a change [2J line by line")
    );
    assert!(
        skills.reads().is_empty(),
        "listing read {:?}",
        skills.reads()
    );
    // `plain` would have died if it had been asked for skills.
    assert_eq!(
        session.manager().get_connection_status("plain"),
        ConnectionStatus::Connected
    );
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_skill_is_loaded_and_checked_only_when_asked_and_a_file_read_by_its_path() {
    let (world, skills) = world_with(skill_folder);
    let session = world.start().await.session;

    let loaded = guard(session.load_skill("docs", SKILL)).await.unwrap();
    assert_eq!(loaded.instructions, SKILL_MD);
    assert_eq!(loaded.files.len(), 2);
    assert_eq!(loaded.files[0].bytes, LOGO);
    assert_eq!(loaded.files[1].text(), Some(FORMS_MD));
    let uri = |path| SkillFolder::uri(SKILL, path);
    assert_eq!(
        skills.reads(),
        [
            uri("SKILL.md"),
            uri("assets/logo.bin"),
            uri("references/FORMS.md")
        ],
        "each listed file once, SKILL.md first"
    );

    let forms = guard(session.read_skill_file("docs", SKILL, "references/FORMS.md"))
        .await
        .unwrap();
    assert_eq!(forms.text(), Some(FORMS_MD));

    // The model's way: the body, then the other files by their paths; one file by its path.
    let (failed, text) = load_with_tool(&session, json!({"server": "docs", "skill": SKILL})).await;
    assert!(!failed, "{text}");
    assert!(text.starts_with(SKILL_MD), "{text}");
    let files = format!(
        "assets/logo.bin ({} bytes), references/FORMS.md ({} bytes)]",
        LOGO.len(),
        FORMS_MD.len()
    );
    assert!(text.ends_with(&files), "{text}");
    let (failed, text) = load_with_tool(
        &session,
        json!({"server": "docs", "skill": SKILL, "file": "references/FORMS.md"}),
    )
    .await;
    assert!(!failed);
    assert_eq!(text, FORMS_MD);
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_tampering_is_refused_naming_the_skill_the_file_and_what_differed() {
    let (world, skills) = world_with(|world| {
        let skills = skill_folder(world);
        skills.add_tampered();
        skills
    });
    let session = world.start().await.session;

    let digest = guard(session.load_skill("docs", "digest"))
        .await
        .unwrap_err();
    let (skill, file, problem) = refusal(&digest);
    assert_eq!(
        (skill, file),
        ("digest", SkillFolder::uri("digest", "SKILL.md").as_str())
    );
    assert!(
        matches!(problem, SkillProblem::Digest { .. }),
        "{problem:?}"
    );

    let size = guard(session.load_skill("docs", "size")).await.unwrap_err();
    let (skill, file, problem) = refusal(&size);
    assert_eq!(
        (skill, file),
        (
            "size",
            SkillFolder::uri("size", "references/FORMS.md").as_str()
        )
    );
    assert!(matches!(problem, SkillProblem::Size { .. }), "{problem:?}");

    let frontmatter = guard(session.load_skill("docs", "frontmatter"))
        .await
        .unwrap_err();
    let (_, file, problem) = refusal(&frontmatter);
    assert_eq!(file, SkillFolder::uri("frontmatter", "SKILL.md"));
    let SkillProblem::Frontmatter { differences } = problem else {
        panic!("{problem:?}");
    };
    assert_eq!(differences[0].field, "description");

    // Another skill's file is one the listing does not name: never read.
    let unlisted = guard(session.read_skill_file("docs", SKILL, "../digest/SKILL.md"))
        .await
        .unwrap_err();
    assert_eq!(refusal(&unlisted).2, &SkillProblem::NotListed);
    assert!(
        !skills
            .reads()
            .contains(&SkillFolder::uri(SKILL, "../digest/SKILL.md")),
        "{:?}",
        skills.reads()
    );

    // Through the model's tool: an error naming the skill and the file, nothing of the file.
    for (skill, file, differed) in [
        ("digest", "SKILL.md", "its digest is"),
        ("size", "references/FORMS.md", "bytes, the listing says"),
        ("frontmatter", "SKILL.md", "its frontmatter differs"),
    ] {
        let (failed, text) =
            load_with_tool(&session, json!({"server": "docs", "skill": skill})).await;
        assert!(failed, "{text}");
        let named = format!(
            "skill \"{skill}\" refused: {}",
            SkillFolder::uri(skill, file)
        );
        assert!(text.contains(&named), "{text}");
        assert!(text.contains(differed), "{text}");
        assert!(!text.contains("EVIL"), "{text}");
    }
    let (failed, text) = load_with_tool(
        &session,
        json!({"server": "docs", "skill": SKILL, "file": "skill://digest/SKILL.md"}),
    )
    .await;
    assert!(failed);
    assert!(text.contains("does not name this file"), "{text}");
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cached_skill_listing_is_offered_before_its_server_connects() {
    let world = World::new();
    let skills = skill_folder(&world);
    let hold = testkit::Hold::in_folder(world.home(), "docs-init");
    // One definition for both sessions (one cache key): it answers `initialize` only when let.
    world.write_mcp_json(&[(
        "docs",
        skills.serve(FixtureServer::new().hold("initialize", hold.fifo())),
    )]);
    let cache = memory_cache();

    hold.release();
    let first = guard_for(
        common::GUARD,
        "the first session",
        agent_session::create_agent_session(world.options_with_cache(cache.clone())),
    )
    .await
    .session;
    guard(first.manager().wait_for_connection("docs"))
        .await
        .unwrap();
    assert!(!first.skills().is_empty());
    first.shutdown().await;

    let second = guard_for(
        common::GUARD,
        "the second session",
        agent_session::create_agent_session(world.options_with_cache(cache)),
    )
    .await
    .session;
    assert_eq!(
        second.manager().get_connection_status("docs"),
        ConnectionStatus::Connecting
    );
    let offered = second.skills();
    assert_eq!(offered.len(), 1);
    assert!(
        offered[0].cached,
        "the cache's listing, before the server answered"
    );
    assert_eq!(
        second.skill_index(),
        format!("- docs/{SKILL}: {DESCRIPTION}")
    );
    assert!(skills.reads().is_empty());

    // Loading waits for the server.
    let loading = {
        let second = Arc::clone(&second);
        tokio::spawn(async move { second.load_skill("docs", SKILL).await })
    };
    hold.release();
    let loaded = guard(loading).await.unwrap().unwrap();
    assert_eq!(loaded.instructions, SKILL_MD);
    assert!(!second.skills()[0].cached, "listed by the live connection");
    second.shutdown().await;
}
