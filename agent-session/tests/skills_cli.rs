//! `agent-session skills` and `skill` end to end, against a project with a fixture server that
//! serves skills (`docs`, real files with real digests, its reads logged) and one that would
//! die if asked for skills (`plain`): the listing with each skill's files and size (no file
//! read), a skill's `SKILL.md` and its files printed once checked, and each tampering a server
//! can do refused — exit 1, the skill, the file and what differed named, nothing of the file
//! printed; both in the shell too, and text a server wrote shown escaped.
//!
//! Every run gets a temporary project and home (see `cli_support`).

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod cli_support;
mod skill_folder;

use base64::Engine as _;
use cli_support::Sandbox;
use serde_json::{Value, json};
use skill_folder::{DESCRIPTION, FORMS_MD, LOGO, SKILL, SKILL_MD, SkillFolder};

impl Sandbox {
    /// A project and home labelled `skills` with `docs` (the skills `folder` makes) and
    /// `plain`, every command run with `--no-cache`.
    fn new(test: &str, folder: impl FnOnce(&SkillFolder)) -> (Self, SkillFolder) {
        let sandbox = Self::labelled("skills", test).without_cache();
        let skills = SkillFolder::in_folder(&sandbox.root);
        folder(&skills);
        sandbox.write_mcp_json(&json!({
            "docs": sandbox.fixture("docs", |server| skills.serve(server)),
            "plain": sandbox.fixture("plain", |server| server.crash_at("skills/list")),
        }));
        (sandbox, skills)
    }
}

fn as_is(_: &SkillFolder) {}

#[test]
fn skills_lists_each_skill_with_its_files_and_size_and_skips_a_server_without_them() {
    let (sandbox, skills) = Sandbox::new("list", |skills| skills.add("review", "Review a change"));
    let report = sandbox.run(&["--json", "skills"]).assert_code(0).json();
    let listed = report["skills"].as_array().unwrap();
    let names: Vec<&str> = listed
        .iter()
        .map(|skill| skill["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, [SKILL, "review"]);
    let pdf = &listed[0];
    assert_eq!(pdf["server"], "docs");
    assert_eq!(pdf["description"], DESCRIPTION);
    assert_eq!(pdf["files"], 3);
    assert_eq!(
        pdf["size"],
        json!(SKILL_MD.len() + FORMS_MD.len() + LOGO.len())
    );
    assert_eq!(pdf["uri"], SkillFolder::uri(SKILL, "SKILL.md"));
    assert_eq!(pdf["resources"][0]["size"], json!(SKILL_MD.len()));
    assert_eq!(report["skipped"], json!(["plain"]));
    assert_eq!(report["errors"], json!([]));

    let text = sandbox.run(&["skills"]);
    text.assert_code(0);
    let lines: Vec<&str> = text.stdout.lines().collect();
    assert_eq!(
        lines[0].split_whitespace().collect::<Vec<_>>(),
        ["SERVER", "NAME", "FILES", "SIZE", "DESCRIPTION"]
    );
    assert!(
        lines[1].starts_with("docs    pdf-processing      3  179 B  Extract, fill"),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout.contains("Not offering skills: plain"),
        "{}",
        text.stdout
    );
    assert!(
        skills.reads().is_empty(),
        "listing read {:?}",
        skills.reads()
    );

    // One server: only it is started; one without skills is an empty listing, not a failure.
    let one = sandbox.run(&["skills", "--server", "docs", "--json"]);
    assert_eq!(
        one.assert_code(0).json()["skills"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    let none = sandbox.run(&["skills", "--server", "plain"]);
    none.assert_code(0);
    assert!(none.stdout.contains("No MCP skills."), "{none:?}");
    assert!(!none.stdout.contains("errors"), "{none:?}");
}

#[test]
fn skill_prints_the_checked_skill_md_and_a_file_by_its_path() {
    let (sandbox, skills) = Sandbox::new("show", as_is);
    let shown = sandbox.run(&["skill", "docs", SKILL]);
    assert_eq!(shown.assert_code(0).stdout, SKILL_MD);
    assert_eq!(
        skills.reads().len(),
        3,
        "every listed file read and checked: {:?}",
        skills.reads()
    );

    let report = sandbox
        .run(&["skill", "docs", SKILL, "--json"])
        .assert_code(0)
        .json();
    assert_eq!(report["server"], "docs");
    assert_eq!(report["skill"], SKILL);
    assert_eq!(report["instructions"], SKILL_MD);
    assert_eq!(report["files"].as_array().unwrap().len(), 3);

    let forms = sandbox.run(&["skill", "docs", SKILL, "--file", "references/FORMS.md"]);
    assert_eq!(forms.assert_code(0).stdout, FORMS_MD);
    let uri = SkillFolder::uri(SKILL, "references/FORMS.md");
    let by_uri = sandbox.run(&["skill", "docs", SKILL, "--file", &uri]);
    assert_eq!(by_uri.assert_code(0).stdout, FORMS_MD);

    let logo = sandbox.run(&["skill", "docs", SKILL, "--file", "assets/logo.bin"]);
    assert_eq!(
        logo.assert_code(0).stdout,
        "[binary: 7 bytes of application/octet-stream; --json gives the base64 data]\n"
    );
    let logo = sandbox
        .run(&[
            "skill",
            "docs",
            SKILL,
            "--file",
            "assets/logo.bin",
            "--json",
        ])
        .assert_code(0)
        .json();
    let blob = base64::engine::general_purpose::STANDARD
        .decode(logo["blob"].as_str().unwrap())
        .unwrap();
    assert_eq!(blob, LOGO);
}

/// What `skill …` said on stderr, after checking that it failed with exit 1 and printed nothing.
fn refused(sandbox: &Sandbox, args: &[&str]) -> String {
    let run = sandbox.run(args);
    run.assert_code(1);
    assert_eq!(run.stdout, "", "nothing of the skill is printed: {run:?}");
    assert!(!run.stderr.contains("EVIL"), "{run:?}");
    run.stderr
}

#[test]
fn skill_refuses_each_tampering_naming_the_skill_the_file_and_what_differed() {
    let (sandbox, skills) = Sandbox::new("tampered", SkillFolder::add_tampered);
    for (skill, file, differed) in [
        ("digest", "SKILL.md", "its digest is sha256:"),
        ("size", "references/FORMS.md", "bytes, the listing says"),
        (
            "frontmatter",
            "SKILL.md",
            "its frontmatter differs from the listing's: description: file \"Fill PDF forms\", \
             listing \"Harmless, trust me\"",
        ),
    ] {
        let stderr = refused(&sandbox, &["skill", "docs", skill]);
        let named = format!(
            "MCP server \"docs\": skill \"{skill}\" refused: {}: ",
            SkillFolder::uri(skill, file)
        );
        assert!(stderr.contains(&named), "{skill}: {stderr}");
        assert!(stderr.contains(differed), "{skill}: {stderr}");
    }
    // The file alone is refused too, and a file another skill holds is not this skill's.
    let stderr = refused(
        &sandbox,
        &["skill", "docs", "size", "--file", "references/FORMS.md"],
    );
    assert!(stderr.contains("bytes, the listing says"), "{stderr}");
    let stderr = refused(
        &sandbox,
        &["skill", "docs", SKILL, "--file", "../digest/SKILL.md"],
    );
    assert!(
        stderr.contains("the skill's listing does not name this file"),
        "{stderr}"
    );
    assert!(
        !skills.reads().iter().any(|read| read.contains("../digest")),
        "{:?}",
        skills.reads()
    );

    // With --json the failure is JSON on stdout as well.
    let run = sandbox.run(&["--json", "skill", "docs", "digest"]);
    let report = run.assert_code(1).json();
    assert_eq!(report["error"]["kind"], "server");
    assert!(
        report["error"]["message"]
            .as_str()
            .unwrap()
            .contains("skill \"digest\" refused"),
        "{report}"
    );
}

#[test]
fn a_skill_the_server_does_not_list_is_a_usage_error_naming_those_it_lists() {
    let (sandbox, _) = Sandbox::new("unknown", as_is);
    let run = sandbox.run(&["skill", "docs", "pdf"]);
    run.assert_code(2);
    assert!(
        run.stderr.contains(&format!(
            "MCP server \"docs\" offers no skill \"pdf\"; it offers {SKILL}; `agent-session skills --server docs` lists them"
        )),
        "{run:?}"
    );
    let plain = sandbox.run(&["skill", "plain", "pdf"]);
    plain.assert_code(1);
    assert!(plain.stderr.contains("skills"), "{plain:?}");
    let unknown = sandbox.run(&["skill", "nope", "pdf"]);
    unknown.assert_code(2);
    assert!(
        unknown.stderr.contains("unknown server \"nope\""),
        "{unknown:?}"
    );
}

#[test]
fn what_a_skill_says_reaches_the_terminal_escaped() {
    let (sandbox, _) = Sandbox::new("escapes", |skills| {
        let skill_md = skills.skill(SKILL).join("SKILL.md");
        let text = std::fs::read_to_string(&skill_md).unwrap();
        std::fs::write(
            &skill_md,
            text.replace(
                "# PDF processing",
                "\u{1b}]0;pwned\u{7}\u{1b}[2J# PDF processing",
            ),
        )
        .unwrap();
        skills.add("loud", "Loud");
        skills.state_frontmatter(
            "loud",
            r#"{"name": "loud", "description": "\u001b[8mhidden\r\u202eevil"}"#,
        );
    });
    for args in [
        &["skill", "docs", SKILL][..],
        &["skills"],
        &["skill", "docs", "loud"],
    ] {
        let run = sandbox.run(args);
        let shown = format!("{}{}", run.stdout, run.stderr);
        assert!(
            !shown.contains('\u{1b}') && !shown.contains('\u{7}') && !shown.contains('\u{202e}'),
            "{args:?}: {shown:?}"
        );
        // Shown as Rust writes it, or as JSON does in a value an error quotes.
        assert!(
            shown.contains("\\u{1b}") || shown.contains("\\u001b"),
            "{args:?}: {shown}"
        );
    }
    // A program reading --json gets the exact text.
    let report = sandbox
        .run(&["--json", "skill", "docs", SKILL])
        .assert_code(0)
        .json();
    assert!(
        report["instructions"]
            .as_str()
            .unwrap()
            .contains("\u{1b}]0;pwned\u{7}")
    );
}

#[test]
fn the_shell_lists_and_shows_skills_with_the_same_words() {
    let (sandbox, _) = Sandbox::new("shell", SkillFolder::add_tampered);
    let input = format!("skills --server docs\n/mcp skill docs {SKILL}\nskill docs digest\n");
    let run = sandbox.run_with_input(&["shell", "--json"], &input);
    let replies: Vec<Value> = run
        .assert_code(1)
        .stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let oks: Vec<bool> = replies
        .iter()
        .map(|reply| reply["ok"].as_bool().unwrap())
        .collect();
    assert_eq!(oks, [true, true, false], "{replies:?}");
    assert_eq!(replies[0]["output"]["skills"].as_array().unwrap().len(), 4);
    assert_eq!(replies[1]["output"]["instructions"], SKILL_MD);
    assert!(
        replies[2]["output"]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("skill \"digest\" refused"),
        "{replies:?}"
    );

    let plain = sandbox.run_with_input(&["shell"], &format!("skill docs {SKILL}\n"));
    assert!(
        plain.assert_code(0).stdout.contains("# PDF processing"),
        "{plain:?}"
    );
}
