//! `search` and `context` through the binary: the tools a query finds (text, JSON, the shell,
//! a pattern that cannot be used), and what the definitions cost the context (plain numbers in
//! a pipe, JSON, bars on a terminal).

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod cli_support;

use std::collections::BTreeSet;

use cli_support::{OnTerminal, Sandbox, hold_pipe, run_on_terminal};
use serde_json::{Value, json};

impl Sandbox {
    /// A project with `github` (two described tools) and `files` (one, always loaded), each
    /// with the fixture's own tools beside them.
    fn new(test: &str) -> Self {
        let sandbox = Self::labelled("search", test).without_cache();
        let github = sandbox.fixture("github", |fixture| {
            fixture
                .tool("create_issue", "Create a new issue in a GitHub repository")
                .tool(
                    "list_pull_requests",
                    "List the pull requests of a repository",
                )
        });
        let mut files = sandbox.fixture("files", |fixture| {
            fixture.tool("read_file", "Read the complete contents of a file")
        });
        files["alwaysLoad"] = json!(true);
        sandbox.write_mcp_json(&json!({"github": github, "files": files}));
        sandbox
    }
}

fn names(found: &Value) -> Vec<&str> {
    found["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect()
}

#[test]
fn search_shows_the_tools_found_best_first_in_text_and_json() {
    let sandbox = Sandbox::new("text");
    let outcome = sandbox.run(&["search", "open", "an", "issue"]);
    outcome.assert_code(0);
    let mut lines = outcome.stdout.lines();
    let header: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
    assert_eq!(header, ["NAME", "SERVER", "SCORE", "DESCRIPTION"]);
    let first: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
    assert_eq!(first[..2], ["mcp_github_create_issue", "github"]);
    assert!(first[2].parse::<f64>().unwrap() > 0.0, "{first:?}");
    assert_eq!(
        first[3..].join(" "),
        "Create a new issue in a GitHub repository"
    );

    let outcome = sandbox.run(&["--json", "search", "read", "a", "file", "--limit", "1"]);
    outcome.assert_code(0);
    let found = outcome.json();
    assert_eq!(found["query"], "read a file");
    assert_eq!(names(&found), ["mcp_files_read_file"]);
    let tool = found["tools"][0].as_object().unwrap();
    let keys: BTreeSet<&str> = tool.keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        BTreeSet::from(["name", "server", "tool", "score", "description"])
    );
    assert_eq!(tool["server"], "files");
    assert_eq!(tool["tool"], "read_file");
    assert_eq!(tool["description"], "Read the complete contents of a file");

    // Best first, every one of the server asked for.
    let outcome = sandbox.run(&[
        "--json", "search", "/_/", "--server", "github", "--limit", "50",
    ]);
    outcome.assert_code(0);
    let found = outcome.json();
    let scores: Vec<f64> = found["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["score"].as_f64().unwrap())
        .collect();
    assert!(
        scores.windows(2).all(|pair| pair[0] >= pair[1]),
        "{scores:?}"
    );
    assert!(names(&found).contains(&"mcp_github_list_pull_requests"));
    assert!(
        names(&found)
            .iter()
            .all(|name| name.starts_with("mcp_github_"))
    );

    let outcome = sandbox.run(&["search", "zebra"]);
    outcome.assert_code(0);
    assert_eq!(outcome.stdout.trim(), "no tool matches \"zebra\"");
}

#[test]
fn search_starts_as_tools_does_cached_tools_first() {
    let sandbox = Sandbox::labelled("search", "cached");
    // `notes` serves its tools the first time; started again it never answers, so only the
    // cache can give its tools.
    let hang = sandbox.root.join("hang");
    let (program, args) = testkit::FixtureServer::new()
        .name(format!("{}notes", sandbox.marker))
        .tool("append_note", "Append a line to the notes of the day")
        .command();
    let mut line = format!(
        "if [ -e '{}' ]; then exec sleep 600; fi; exec '{}'",
        hang.display(),
        program.display()
    );
    for arg in args {
        line.push_str(&format!(" '{arg}'"));
    }
    sandbox.write_mcp_json(&json!({"notes": {"command": "sh", "args": ["-c", line]}}));
    let cache = sandbox.cache_dir();
    let query = [
        "--json",
        "search",
        "append a note",
        "--cache-dir",
        cache.as_str(),
    ];
    let first = sandbox.run(&query);
    assert_eq!(
        names(&first.assert_code(0).json())[0],
        "mcp_notes_append_note"
    );
    std::fs::write(&hang, "").unwrap();
    let second = sandbox.run(&query);
    assert_eq!(
        names(&second.assert_code(0).json())[0],
        "mcp_notes_append_note",
        "found in the cache while the server does not answer"
    );
}

#[test]
fn a_pattern_that_cannot_be_used_or_an_unknown_server_is_a_usage_error() {
    let sandbox = Sandbox::new("usage");
    let outcome = sandbox.run(&["search", "/(unclosed/"]);
    outcome.assert_code(2);
    assert!(outcome.stdout.is_empty(), "{}", outcome.stdout);
    let stderr = outcome.stderr.trim();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("/(unclosed/ cannot be used"), "{stderr}");
    assert!(stderr.contains("unclosed group"), "{stderr}");

    let outcome = sandbox.run(&["--json", "search", "/(unclosed/"]);
    outcome.assert_code(2);
    let error = outcome.json();
    assert_eq!(error["error"]["kind"], "usage");
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("cannot be used"),
        "{error}"
    );

    let outcome = sandbox.run(&["search", "issue", "--server", "githb"]);
    outcome.assert_code(2);
    assert!(
        outcome.stderr.contains("(did you mean \"github\"?)"),
        "{}",
        outcome.stderr
    );
    let outcome = sandbox.run(&["search"]);
    outcome.assert_code(2);
    assert!(outcome.stderr.contains("QUERY"), "{}", outcome.stderr);
}

#[test]
fn the_shell_searches_with_or_without_mcp_before_it() {
    let sandbox = Sandbox::new("shell");
    let outcome = sandbox.run_with_input(
        &["shell"],
        "search open an issue\n/mcp search /^read_/ --limit 3\nsearch /(x/\n",
    );
    // The bad pattern fails its line, and so the shell.
    outcome.assert_code(1);
    assert!(
        outcome.stdout.contains("mcp_github_create_issue"),
        "{}",
        outcome.stdout
    );
    assert!(
        outcome.stdout.contains("mcp_files_read_file"),
        "{}",
        outcome.stdout
    );
    assert!(
        outcome
            .stderr
            .contains("error: the pattern /(x/ cannot be used"),
        "{}",
        outcome.stderr
    );
    let outcome = sandbox.run_with_input(&["--json", "shell"], "search /^read_/\n");
    outcome.assert_code(0);
    let line: Value = serde_json::from_str(outcome.stdout.trim()).unwrap();
    assert_eq!(line["command"], "search /^read_/");
    assert_eq!(names(&line["output"]), ["mcp_files_read_file"]);
}

#[test]
fn context_gives_each_servers_tokens_the_total_and_the_search_mode_in_a_pipe_and_json() {
    let sandbox = Sandbox::new("context");
    let outcome = sandbox.run(&["--json", "context"]);
    outcome.assert_code(0);
    let context = outcome.json();
    assert_eq!(context["mode"], "auto");
    assert_eq!(context["deferring"], false);
    assert_eq!(context["context_window"], 200_000);
    assert_eq!(context["threshold"], 20_000);
    let servers = context["servers"].as_array().unwrap();
    let server = |name: &str| {
        servers
            .iter()
            .find(|server| server["server"] == name)
            .unwrap()
    };
    assert_eq!(server("github")["always_loaded_tools"], 0);
    assert_eq!(
        server("files")["always_loaded_tools"],
        server("files")["tools"]
    );
    let tokens = |value: &Value| value.as_u64().unwrap();
    let total: u64 = servers.iter().map(|server| tokens(&server["tokens"])).sum();
    assert_eq!(tokens(&context["total_tokens"]), total);
    assert!(tokens(&server("github")["tokens"]) > 0);
    let search = &context["search"];
    assert_eq!(
        tokens(&search["tokens"]),
        tokens(&search["search_tool_tokens"]) + tokens(&search["always_loaded_tokens"])
    );
    assert_eq!(
        search["always_loaded_tokens"],
        server("files")["always_loaded_tokens"]
    );

    // In a pipe: the same numbers, plain.
    let outcome = sandbox.run(&["context"]);
    outcome.assert_code(0);
    let text = &outcome.stdout;
    let header: Vec<&str> = text.lines().next().unwrap().split_whitespace().collect();
    assert_eq!(
        header,
        ["SERVER", "TOOLS", "TOKENS", "WINDOW", "ALWAYS", "LOADED"]
    );
    let row = |name: &str| -> Vec<String> {
        text.lines()
            .find(|line| line.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("no {name} row in {text}"))
            .split_whitespace()
            .map(str::to_owned)
            .collect()
    };
    let plain = |number: u64| agent_session::commands::thousands(number as usize);
    assert_eq!(row("files")[2], plain(tokens(&server("files")["tokens"])));
    assert_eq!(row("files")[4], "all");
    assert_eq!(row("total")[2], plain(total));
    assert!(
        text.contains(&format!(
            "with tool search: {} tokens",
            plain(tokens(&search["tokens"]))
        )),
        "{text}"
    );
    assert!(
        text.contains("tool search auto: sending every definition"),
        "{text}"
    );
    assert!(!text.contains('█'), "no bars in a pipe: {text}");

    // The mode and the window come from the command line.
    let outcome = sandbox.run(&[
        "--json",
        "--tool-search",
        "on",
        "--context-window",
        "8k",
        "context",
    ]);
    let context = outcome.json();
    assert_eq!(context["mode"], "on");
    assert_eq!(context["deferring"], true);
    assert_eq!(context["context_window"], 8_000);
    assert_eq!(context["threshold"], 800);
    assert_eq!(tokens(&context["total_tokens"]), total);
}

#[test]
fn context_on_a_terminal_draws_a_bar_per_server() {
    let sandbox = Sandbox::new("bars");
    let (code, bytes) = run_on_terminal(
        sandbox.command(&["context", "--context-window", "8000"]),
        OnTerminal::Stdout,
        120,
    );
    assert_eq!(code, Some(0));
    let screen = String::from_utf8(bytes).unwrap();
    assert!(
        screen.contains("MCP tool definitions in a 8,000-token context window"),
        "{screen}"
    );
    for label in ["files (", "github (", "all ", "with tool search"] {
        let line = screen
            .lines()
            .find(|line| line.starts_with(label))
            .unwrap_or_else(|| panic!("no {label} line in {screen}"));
        assert!(line.contains('░') || line.contains('█'), "{line}");
    }
    assert!(screen.contains("always loaded"), "{screen}");
    assert!(screen.contains("tool search auto: deferring"), "{screen}");
}

/// A search ranks by what each server says of itself too (its instructions): a start from the
/// cache, before a slow server answers, ranks as a start that waited for it, so the same query
/// gives the same tools and scores every run.
#[test]
fn a_search_from_the_cache_ranks_as_one_that_waited_for_the_servers() {
    let sandbox = Sandbox::labelled("search", "instructions");
    // The notebook answers `initialize` only when the test lets it: the cold start (no cache)
    // waits for it once let go; the warm one surely starts from the cache before it answers.
    let hold = hold_pipe(&sandbox, "notebook");
    let notebook = sandbox.fixture("notebook", |fixture| {
        fixture
            .instructions("Keeps the notebook: every note of the day, searchable by date.")
            .tool("fetch_entry", "Fetch one entry by its id")
            .hold("initialize", hold.fifo())
    });
    let plain = sandbox.fixture("plain", |fixture| {
        fixture.tool("fetch_page", "Fetch one page of a notebook by its number")
    });
    sandbox.write_mcp_json(&json!({"notebook": notebook, "plain": plain}));
    let cache = sandbox.cache_dir();
    let query = [
        "--json",
        "search",
        "notes of the day",
        "--cache-dir",
        cache.as_str(),
    ];
    hold.release();
    let cold = sandbox.run(&query);
    let warm = sandbox.run(&query);
    let found = |outcome: &cli_support::Outcome| -> Vec<(String, String)> {
        outcome.assert_code(0).json()["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|tool| (tool["name"].to_string(), tool["score"].to_string()))
            .collect()
    };
    // The notebook's instructions are what lift its tools to the top.
    assert!(
        found(&cold)
            .first()
            .is_some_and(|(name, _)| name.starts_with("\"mcp_notebook_")),
        "{cold:?}"
    );
    assert_eq!(found(&warm), found(&cold));
}
