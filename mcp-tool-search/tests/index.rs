//! The index as an agent uses it: servers' tools in, searches out, kept live as lists change.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use async_trait::async_trait;
use mcp_tool_search::{
    Combine, Parameter, RankError, Ranker, ToolDocument, ToolIndex, search_with,
};
use serde_json::json;

fn tool(server: &str, name: &str, description: &str) -> ToolDocument {
    ToolDocument::new(server, name, description)
}

/// Three servers of the kinds people run.
fn index() -> ToolIndex {
    let mut index = ToolIndex::new();
    index.set_server(
        "github",
        Some("GitHub: repositories, issues, pull requests."),
        vec![
            tool(
                "github",
                "create_issue",
                "Create a new issue in a GitHub repository",
            ),
            tool(
                "github",
                "list_issues",
                "List issues in a GitHub repository",
            ),
            tool("github", "create_pull_request", "Open a new pull request"),
            tool(
                "github",
                "search_repositories",
                "Search for GitHub repositories",
            )
            .parameters(vec![Parameter::new(
                "query",
                Some("Search query, in GitHub's search syntax".to_owned()),
            )]),
        ],
    );
    index.set_server(
        "playwright",
        None,
        vec![
            tool("playwright", "browser_navigate", "Navigate to a URL"),
            tool(
                "playwright",
                "browser_take_screenshot",
                "Take a screenshot of the current page",
            )
            .title("Take a screenshot"),
            tool("playwright", "browserClick", "Perform click on a web page"),
        ],
    );
    index.set_server(
        "files",
        None,
        vec![
            tool("files", "read_file", "Read the complete contents of a file")
                .parameters_from_schema(&json!({"properties": {"path": {"type": "string"}}})),
            tool(
                "files",
                "write_file",
                "Create a new file or overwrite an existing one",
            ),
        ],
    );
    index
}

fn names(hits: &[mcp_tool_search::Hit]) -> Vec<String> {
    hits.iter()
        .map(|hit| format!("{}/{}", hit.server, hit.tool))
        .collect()
}

#[test]
fn words_of_a_query_find_tools_by_name_title_description_and_parameters() {
    let index = index();
    let best = |query: &str| names(&index.search(query, 1, None).unwrap());
    assert_eq!(best("screenshot"), ["playwright/browser_take_screenshot"]);
    assert_eq!(best("click a button"), ["playwright/browserClick"]);
    assert_eq!(
        best("navigate browser to a url"),
        ["playwright/browser_navigate"]
    );
    assert_eq!(best("list the issues"), ["github/list_issues"]);
    assert_eq!(best("file path contents"), ["files/read_file"]);
    // A word in the name weighs more than the same word in a description.
    let hits = names(&index.search("issue", 2, None).unwrap());
    assert!(hits.contains(&"github/create_issue".to_owned()), "{hits:?}");
    assert!(index.search("zebra", 5, None).unwrap().is_empty());
}

#[test]
fn a_search_is_the_same_every_time_and_may_keep_to_one_server() {
    let index = index();
    let first = index.search("create new", 10, None).unwrap();
    for _ in 0..5 {
        assert_eq!(index.search("create new", 10, None).unwrap(), first);
    }
    let files_only = names(&index.search("create new", 10, Some("files")).unwrap());
    assert_eq!(files_only, ["files/write_file"]);
    assert!(index.search("create", 0, None).unwrap().is_empty());
}

#[test]
fn a_list_change_replaces_one_servers_tools_and_leaves_the_others() {
    let mut index = index();
    assert_eq!(index.len(), 9);
    index.set_server(
        "files",
        None,
        vec![tool("files", "move_file", "Move or rename a file")],
    );
    assert_eq!(index.len(), 8);
    assert!(
        index
            .search("read contents", 5, Some("files"))
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        names(&index.search("rename", 5, None).unwrap()),
        ["files/move_file"]
    );
    index.remove_server("github");
    assert_eq!(index.len(), 4);
    assert!(index.search("issue", 5, None).unwrap().is_empty());
    assert!(index.document("github", "create_issue").is_none());
    assert!(index.document("files", "move_file").is_some());
}

#[test]
fn many_updates_leave_an_index_that_answers_as_a_fresh_one() {
    let mut churned = ToolIndex::new();
    let mut fresh = ToolIndex::new();
    let tools = |round: usize| {
        (0..40)
            .map(|n| {
                tool(
                    "busy",
                    &format!("tool_{n}_{round}"),
                    &format!("Does thing {} of round {round}", n % 7),
                )
            })
            .collect::<Vec<_>>()
    };
    fresh.set_server(
        "steady",
        None,
        vec![tool("steady", "read_file", "Read a file")],
    );
    churned.set_server(
        "steady",
        None,
        vec![tool("steady", "read_file", "Read a file")],
    );
    // Enough rounds to compact the index several times.
    for round in 0..30 {
        churned.set_server("busy", None, tools(round));
    }
    fresh.set_server("busy", None, tools(29));
    for query in ["thing 3", "round 29", "read file", "tool 12"] {
        assert_eq!(
            churned.search(query, 10, None).unwrap(),
            fresh.search(query, 10, None).unwrap(),
            "{query}"
        );
    }
    assert_eq!(churned.len(), fresh.len());
}

#[test]
fn a_pattern_query_matches_names_before_descriptions() {
    let index = index();
    let hits = names(&index.search("/^create_/", 10, None).unwrap());
    assert_eq!(hits, ["github/create_issue", "github/create_pull_request"]);
    let hits = names(&index.search("/screenshot|click/", 10, None).unwrap());
    assert_eq!(
        hits,
        [
            "playwright/browserClick",
            "playwright/browser_take_screenshot"
        ]
    );
    // Case does not matter; a description match ranks below a name match.
    let hits = names(&index.search("/FILE/", 10, None).unwrap());
    assert_eq!(hits[..2], ["files/read_file", "files/write_file"]);
    let error = index.search("/(unclosed/", 5, None).unwrap_err();
    assert!(error.to_string().contains("/(unclosed/"), "{error}");
}

/// A ranker that ranks by a fixed list, as an embedding ranker would by its model.
struct Fixed(Vec<&'static str>);

#[async_trait]
impl Ranker for Fixed {
    async fn rank(
        &self,
        _query: &str,
        documents: &[&ToolDocument],
        limit: usize,
    ) -> Result<Vec<(usize, f32)>, RankError> {
        if self.0.is_empty() {
            return Err(RankError::new("the provider is down"));
        }
        Ok(self
            .0
            .iter()
            .filter_map(|name| documents.iter().position(|document| document.tool == *name))
            .take(limit)
            .enumerate()
            .map(|(rank, position)| (position, 1.0 / (rank as f32 + 1.0)))
            .collect())
    }
}

#[tokio::test]
async fn an_agents_ranker_is_used_instead_beside_or_not_at_all_when_it_fails() {
    let index = index();
    // It ranks a tool the words do not find at all.
    let semantic = Fixed(vec!["browser_take_screenshot", "create_issue"]);
    let instead = search_with(
        &index,
        &semantic,
        Combine::Instead,
        "capture the page",
        2,
        None,
    )
    .await
    .unwrap();
    assert_eq!(
        names(&instead),
        ["playwright/browser_take_screenshot", "github/create_issue"]
    );
    // Beside: a tool both rankings find comes first.
    let beside = search_with(&index, &semantic, Combine::Beside, "new issue", 3, None)
        .await
        .unwrap();
    assert_eq!(names(&beside)[0], "github/create_issue");
    // A failing ranker: the built-in ranking answers.
    let down = Fixed(Vec::new());
    let fallback = search_with(&index, &down, Combine::Instead, "screenshot", 1, None)
        .await
        .unwrap();
    assert_eq!(names(&fallback), ["playwright/browser_take_screenshot"]);
    // A pattern is always the built-in pattern search.
    let pattern = search_with(&index, &semantic, Combine::Instead, "/^read_/", 5, None)
        .await
        .unwrap();
    assert_eq!(names(&pattern), ["files/read_file"]);
}

#[test]
fn a_pattern_matches_the_name_a_model_knows_a_tool_by() {
    let mut index = ToolIndex::new();
    index.set_server(
        "everything",
        None,
        vec![
            tool("everything", "get-env", "Print the environment")
                .exposed_name("mcp_everything_get_env"),
        ],
    );
    for pattern in ["/^mcp_everything_get_env$/", "/get_env/", "/^get-env$/"] {
        assert_eq!(
            names(&index.search(pattern, 5, None).unwrap()),
            ["everything/get-env"],
            "{pattern}"
        );
    }
}
