//! The ranking's pieces on an index as an agent uses it: a query in another inflection, a
//! synonym and an associated word each find a tool, below the word itself, and each can be
//! switched off ([`QueryExpansion`]). Word vectors are off here, so each test sees the words
//! alone; `tests/meaning.rs` pins what the vectors add.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use mcp_tool_search::{Hit, QueryExpansion, Semantic, ToolDocument, ToolIndex, lexicon};

fn tool(server: &str, name: &str, description: &str) -> ToolDocument {
    ToolDocument::new(server, name, description)
}

fn index(expansion: QueryExpansion) -> ToolIndex {
    let mut index = ToolIndex::new();
    index.set_expansion(expansion);
    index.set_semantic(Semantic::OFF);
    index.set_server(
        "storage",
        None,
        vec![
            tool("storage", "read_file", "Read the contents of a file"),
            tool("storage", "write_file", "Create a file or overwrite one"),
            tool("storage", "erase_disk", "Erase a disk"),
        ],
    );
    index.set_server(
        "tracker",
        None,
        vec![
            tool("tracker", "issue_tracker", "Track one issue"),
            tool("tracker", "issues_board", "A board of issues"),
        ],
    );
    index.set_server(
        "vcs",
        None,
        vec![tool("vcs", "log", "Show the git history of a repository")],
    );
    index
}

fn search(index: &ToolIndex, query: &str) -> Vec<Hit> {
    index.search(query, 5, None).unwrap()
}

fn names(hits: &[Hit]) -> Vec<&str> {
    hits.iter().map(|hit| hit.tool.as_str()).collect()
}

fn score(hits: &[Hit], tool: &str) -> f32 {
    hits.iter()
        .find(|hit| hit.tool == tool)
        .unwrap_or_else(|| panic!("{tool} is not among {:?}", names(hits)))
        .score
}

#[test]
fn a_query_in_another_inflection_finds_the_tool() {
    let stemmed = index(QueryExpansion::default());
    assert_eq!(names(&search(&stemmed, "reading files"))[0], "read_file");
    // Only the words as written: neither `reading` nor `files` is in any tool.
    let exact = index(QueryExpansion::NONE);
    assert!(search(&exact, "reading files").is_empty());
}

#[test]
fn the_word_as_written_outranks_its_other_inflections() {
    let index = index(QueryExpansion::default());
    assert_eq!(
        names(&search(&index, "issues"))[..2],
        ["issues_board", "issue_tracker"]
    );
    assert_eq!(
        names(&search(&index, "issue"))[..2],
        ["issue_tracker", "issues_board"]
    );
}

#[test]
fn a_synonym_finds_the_tool_with_a_lower_score_than_the_word_itself() {
    let index = index(QueryExpansion::default());
    let erase = search(&index, "erase");
    let delete = search(&index, "delete");
    assert_eq!(names(&delete)[0], "erase_disk");
    assert!(
        score(&delete, "erase_disk") < score(&erase, "erase_disk"),
        "{delete:?} {erase:?}"
    );
    let mut without = QueryExpansion::default();
    without.synonyms = 0.0;
    without.associations = 0.0;
    assert!(search(&self::index(without), "delete").is_empty());
}

#[test]
fn an_associated_word_finds_the_tool_when_associations_are_asked_for() {
    assert!(
        lexicon::associations("commit")
            .iter()
            .any(|(word, _)| *word == "git")
    );
    let mut with = QueryExpansion::default();
    with.associations = 0.5;
    let index = index(with);
    let commit = search(&index, "commit");
    assert_eq!(names(&commit), ["log"]);
    assert!(score(&commit, "log") < score(&search(&index, "git"), "log"));
    // Off by default: they did not help on the development queries.
    assert_eq!(QueryExpansion::default().associations, 0.0);
    assert!(search(&self::index(QueryExpansion::default()), "commit").is_empty());
}

#[test]
fn a_tool_named_by_the_query_stays_above_tools_found_through_related_words() {
    let mut index = index(QueryExpansion::default());
    index.set_server(
        "more",
        None,
        vec![tool("more", "delete_file", "Delete a file")],
    );
    let hits = search(&index, "delete a file");
    assert_eq!(names(&hits)[0], "delete_file");
    // `erase` is a synonym of `delete`: found, lower.
    assert!(names(&hits).contains(&"erase_disk"), "{hits:?}");
}
