//! Word vectors in the ranking ([`Semantic`]): a query that shares no word with the tool it
//! wants finds it by meaning, a tool its words find keeps its lead, a query no tool means
//! finds nothing, and the vectors follow the index as servers change, large or small.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use mcp_tool_search::{Hit, Semantic, ToolDocument, ToolIndex};

fn tool(server: &str, name: &str, description: &str) -> ToolDocument {
    ToolDocument::new(server, name, description)
}

fn browser() -> Vec<ToolDocument> {
    vec![
        tool("browser", "navigate", "Navigate to a URL"),
        tool(
            "browser",
            "take_screenshot",
            "Take a screenshot of the current page",
        ),
        tool(
            "browser",
            "click",
            "Perform a click on an element of the page",
        ),
    ]
}

fn others() -> Vec<ToolDocument> {
    vec![
        tool("db", "run_query", "Run a SQL query against the database"),
        tool("db", "list_tables", "List the tables of a database"),
        tool("mail", "send_email", "Send an email message to a recipient"),
        tool("weather", "forecast", "Get the weather forecast for a city"),
    ]
}

fn index(semantic: Semantic) -> ToolIndex {
    let mut index = ToolIndex::new();
    index.set_semantic(semantic);
    index.set_server("browser", None, browser());
    index.set_server("others", None, others());
    index
}

fn names(hits: &[Hit]) -> Vec<String> {
    hits.iter()
        .map(|hit| format!("{}/{}", hit.server, hit.tool))
        .collect()
}

fn search(index: &ToolIndex, query: &str) -> Vec<String> {
    names(&index.search(query, 5, None).unwrap())
}

/// Shares no word with `take_screenshot` (its name, nor its description).
const PARAPHRASE: &str = "grab a picture of what the display shows";

#[test]
fn a_query_that_shares_no_word_with_a_tool_finds_it_by_meaning() {
    assert!(
        !search(&index(Semantic::OFF), PARAPHRASE).contains(&"browser/take_screenshot".to_owned()),
        "words alone should not find it"
    );
    assert_eq!(
        search(&index(Semantic::default()), PARAPHRASE)[0],
        "browser/take_screenshot"
    );
}

#[test]
fn a_tool_its_words_find_keeps_its_lead() {
    let index = index(Semantic::default());
    assert_eq!(search(&index, "list the tables")[0], "db/list_tables");
    assert_eq!(search(&index, "send an email")[0], "mail/send_email");
}

#[test]
fn a_query_no_tool_means_finds_nothing() {
    let index = index(Semantic::default());
    assert!(search(&index, "giraffes graze the savanna").is_empty());
}

#[test]
fn meaning_turned_on_after_tools_are_added_ranks_as_if_on_from_the_start() {
    let from_start = index(Semantic::default());
    let mut later = index(Semantic::OFF);
    later.set_semantic(Semantic::default());
    for query in [PARAPHRASE, "email someone", "what tables are there"] {
        assert_eq!(
            from_start.search(query, 5, None).unwrap(),
            later.search(query, 5, None).unwrap(),
            "{query}"
        );
    }
}

#[test]
fn a_server_replaced_takes_its_old_meanings_with_it() {
    let mut index = index(Semantic::default());
    index.set_server(
        "browser",
        None,
        vec![tool(
            "browser",
            "print_page",
            "Save the page as a PDF document",
        )],
    );
    let hits = search(&index, PARAPHRASE);
    assert!(
        !hits.contains(&"browser/take_screenshot".to_owned()),
        "{hits:?}"
    );
    index.set_server("browser", None, browser());
    assert_eq!(search(&index, PARAPHRASE)[0], "browser/take_screenshot");
}

#[test]
fn a_large_index_still_finds_a_tool_by_meaning_and_answers_as_a_fresh_one_after_churn() {
    // A thousand tools about other things, around the one the query means.
    let subjects = [
        "invoice",
        "payroll",
        "calendar",
        "recipe",
        "playlist",
        "ticket",
        "warehouse",
        "shipment",
        "contract",
        "budget",
    ];
    let verbs = ["Create", "Update", "Archive", "Count", "Export"];
    let filler = |server: usize| -> Vec<ToolDocument> {
        (0..20)
            .map(|n| {
                let subject = subjects[(server + n) % subjects.len()];
                let verb = verbs[n % verbs.len()];
                tool(
                    &format!("filler{server}"),
                    &format!("{}_{subject}_{n}", verb.to_lowercase()),
                    &format!("{verb} a {subject} record in the ledger number {server}"),
                )
            })
            .collect()
    };
    let mut churned = ToolIndex::new();
    for server in 0..50 {
        churned.set_server(&format!("filler{server}"), None, filler(server));
    }
    churned.set_server("browser", None, browser());
    // Change every filler server twice over, so the index compacts its dead entries.
    for round in 0..2 {
        for server in 0..50 {
            let mut tools = filler(server + round);
            tools.truncate(15 + round * 5);
            churned.set_server(&format!("filler{server}"), None, tools);
        }
    }
    let mut fresh = ToolIndex::new();
    fresh.set_server("browser", None, browser());
    for server in 0..50 {
        let mut tools = filler(server + 1);
        tools.truncate(20);
        fresh.set_server(&format!("filler{server}"), None, tools);
    }
    assert_eq!(churned.len(), 1_003);
    assert_eq!(fresh.len(), 1_003);
    assert_eq!(search(&churned, PARAPHRASE)[0], "browser/take_screenshot");
    for query in [
        PARAPHRASE,
        "archive an invoice",
        "tell me the total of the budgets",
    ] {
        assert_eq!(
            names(&churned.search(query, 10, None).unwrap()),
            names(&fresh.search(query, 10, None).unwrap()),
            "{query}"
        );
    }
}
