//! `agent-session resources`, `read`, `prompts` and `prompt` end to end, against a project with
//! a fixture server that offers resources and prompts (`catalog`) and one that offers neither
//! (`plain`): tables and `--json` output, servers without the capability skipped (not
//! failures), and the exit status and message of each mistake a user can make.
//!
//! Every run gets a temporary project and home (`HOME` set, `XDG_CONFIG_HOME` unset), so the
//! user's own config files are never read or written; the project's `.mcp.json` is approved
//! the way a Claude Code user would have approved it. One test, ignored under a plain `cargo
//! test` because it needs the interop peers, runs the commands against the pinned TypeScript
//! `server-everything` (`cargo xtask ci` installs it and runs that test).

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod cli_support;

use cli_support::Sandbox;
use serde_json::{Value, json};

impl Sandbox {
    /// A project and home labelled `res` with `catalog` and `plain` configured, every command
    /// run with `--no-cache`.
    fn new(test: &str) -> Self {
        let sandbox = Self::labelled("res", test).without_cache();
        sandbox.write_mcp_json(&json!({
            "catalog": sandbox.fixture("catalog", |server| server.resources().prompts()),
            "plain": sandbox.fixture("plain", |server| server),
        }));
        sandbox
    }
}

fn strings(value: &Value, key: &str) -> Vec<String> {
    value
        .as_array()
        .unwrap_or_else(|| panic!("not an array: {value}"))
        .iter()
        .map(|item| item[key].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[test]
fn resources_lists_resources_and_templates_and_skips_a_server_without_them() {
    let sandbox = Sandbox::new("resources");
    let listed = sandbox.run(&["--json", "resources"]);
    let report = listed.assert_code(0).json();
    assert_eq!(
        strings(&report["resources"], "uri"),
        [
            "fixture://docs/readme",
            "fixture://docs/notes",
            "fixture://images/pixel"
        ]
    );
    assert_eq!(strings(&report["resources"], "server"), ["catalog"; 3]);
    assert_eq!(report["resources"][0]["mimeType"], "text/markdown");
    assert_eq!(report["resources"][2]["x-extra"], json!({"kept": true}));
    assert_eq!(
        strings(&report["templates"], "uriTemplate"),
        ["fixture://greetings/{name}"]
    );
    assert_eq!(report["skipped"], json!(["plain"]));
    assert_eq!(report["errors"], json!([]));

    let text = sandbox.run(&["resources"]);
    text.assert_code(0);
    for expected in [
        "URI TEMPLATE",
        "fixture://docs/readme",
        "Read me",
        "fixture://greetings/{name}",
        "Not offering resources: plain",
    ] {
        assert!(
            text.stdout.contains(expected),
            "{expected}:\n{}",
            text.stdout
        );
    }
}

#[test]
fn resources_of_a_server_without_them_is_an_empty_listing_not_a_failure() {
    let sandbox = Sandbox::new("resources-plain");
    let report = sandbox
        .run(&["resources", "--server", "plain", "--json"])
        .assert_code(0)
        .json();
    assert_eq!(report["resources"], json!([]));
    assert_eq!(report["skipped"], json!(["plain"]));
    let text = sandbox.run(&["resources", "--server", "plain"]);
    text.assert_code(0);
    assert!(text.stdout.contains("No MCP resources"), "{}", text.stdout);
    // Nothing failed: no sending the user to look for errors.
    assert!(!text.stdout.contains("errors"), "{}", text.stdout);
    let prompts = sandbox.run(&["prompts", "--server", "plain"]);
    prompts.assert_code(0);
    assert!(prompts.stdout.contains("No MCP prompts."), "{prompts:?}");
    assert!(!prompts.stdout.contains("errors"), "{prompts:?}");
}

#[test]
fn read_prints_text_as_it_is_and_binary_as_a_description_or_base64_in_json() {
    let sandbox = Sandbox::new("read");
    let notes = sandbox.run(&["read", "catalog", "fixture://docs/notes"]);
    notes.assert_code(0);
    assert_eq!(notes.stdout, "first line\nsecond line\n");

    let greeting = sandbox.run(&["--json", "read", "catalog", "fixture://greetings/Ada"]);
    let report = greeting.assert_code(0).json();
    assert_eq!(report["server"], "catalog");
    assert_eq!(report["uri"], "fixture://greetings/Ada");
    assert_eq!(report["contents"][0]["text"], "Hello, Ada!");

    let pixel = sandbox.run(&["read", "catalog", "fixture://images/pixel"]);
    pixel.assert_code(0);
    assert!(
        pixel.stdout.starts_with("[binary: ") && pixel.stdout.contains("bytes of image/png"),
        "{}",
        pixel.stdout
    );
    let pixel = sandbox.run(&["read", "catalog", "fixture://images/pixel", "--json"]);
    let report = pixel.assert_code(0).json();
    assert!(
        report["contents"][0]["blob"]
            .as_str()
            .is_some_and(|blob| blob.starts_with("iVBOR")),
        "{report}"
    );
}

#[test]
fn read_of_an_unknown_resource_exits_1_with_the_servers_reason_in_json() {
    let sandbox = Sandbox::new("read-unknown");
    let failed = sandbox.run(&["--json", "read", "catalog", "fixture://nope"]);
    let report = failed.assert_code(1).json();
    assert_eq!(report["error"]["kind"], "server");
    let message = report["error"]["message"].as_str().unwrap();
    assert!(message.contains("Resource not found"), "{message}");
    assert!(
        message.contains("agent-session resources --server catalog"),
        "{message}"
    );
}

#[test]
fn read_from_a_server_without_resources_says_it_offers_none() {
    let sandbox = Sandbox::new("read-plain");
    let failed = sandbox.run(&["read", "plain", "fixture://docs/notes"]);
    failed.assert_code(1);
    assert!(
        failed.stderr.contains("does not offer resources"),
        "{}",
        failed.stderr
    );
    // Not sent to list what it does not have.
    assert!(
        !failed.stderr.contains("resources --server"),
        "{}",
        failed.stderr
    );
    let prompt = sandbox.run(&["prompt", "plain", "greet"]);
    prompt.assert_code(1);
    assert!(
        prompt.stderr.contains("does not offer prompts"),
        "{prompt:?}"
    );
    assert!(!prompt.stderr.contains("prompts --server"), "{prompt:?}");
}

#[test]
fn prompts_lists_arguments_and_skips_a_server_without_prompts() {
    let sandbox = Sandbox::new("prompts");
    let report = sandbox.run(&["prompts", "--json"]).assert_code(0).json();
    assert_eq!(
        strings(&report["prompts"], "name"),
        ["greet", "summarize_readme"]
    );
    assert_eq!(report["prompts"][0]["server"], "catalog");
    assert_eq!(
        report["prompts"][0]["arguments"][0],
        json!({"name": "name", "description": "Who to greet", "required": true})
    );
    assert_eq!(report["skipped"], json!(["plain"]));
    assert_eq!(report["errors"], json!([]));

    let text = sandbox.run(&["prompts"]);
    text.assert_code(0);
    for expected in [
        "ARGUMENTS",
        "name*, style",
        "summarize_readme",
        "Not offering prompts: plain",
    ] {
        assert!(
            text.stdout.contains(expected),
            "{expected}:\n{}",
            text.stdout
        );
    }
}

#[test]
fn prompt_sends_its_arguments_and_prints_the_messages() {
    let sandbox = Sandbox::new("prompt");
    let text = sandbox.run(&[
        "prompt",
        "catalog",
        "greet",
        "--arg",
        "name=Ada",
        "--arg",
        "style=formal",
    ]);
    text.assert_code(0);
    assert!(
        text.stdout.contains("greet (catalog): A greeting for Ada"),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout
            .contains("user: Please greet Ada formally.\nassistant: Sure."),
        "{}",
        text.stdout
    );

    let report = sandbox
        .run(&["--json", "prompt", "catalog", "summarize_readme"])
        .assert_code(0)
        .json();
    assert_eq!(report["server"], "catalog");
    assert_eq!(report["prompt"], "summarize_readme");
    assert_eq!(report["messages"][0]["role"], "user");
    assert_eq!(
        report["messages"][1]["content"]["resource"]["uri"],
        "fixture://docs/readme"
    );
}

#[test]
fn a_prompt_without_its_required_argument_names_the_flag_to_add() {
    let sandbox = Sandbox::new("prompt-missing");
    let refused = sandbox.run(&["prompt", "catalog", "greet"]);
    refused.assert_code(2);
    assert!(
        refused.stderr.contains("--arg name=VALUE"),
        "{}",
        refused.stderr
    );
    let unknown = sandbox.run(&["--json", "prompt", "catalog", "gret"]);
    let report = unknown.assert_code(2).json();
    let message = report["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("it has: greet, summarize_readme"),
        "{message}"
    );
}

#[test]
fn an_unknown_server_is_a_usage_error_that_points_at_list() {
    let sandbox = Sandbox::new("unknown-server");
    for args in [
        &["resources", "--server", "ghost"][..],
        &["prompts", "--server", "ghost"],
        &["read", "ghost", "fixture://docs/notes"],
        &["prompt", "ghost", "greet"],
    ] {
        let refused = sandbox.run(args);
        refused.assert_code(2);
        assert!(
            refused.stderr.contains("unknown server \"ghost\"")
                && refused.stderr.contains("agent-session list"),
            "{args:?}: {}",
            refused.stderr
        );
    }
}

#[test]
#[ignore = "needs the interop peers (cargo xtask interop)"]
fn the_commands_work_against_server_everything() {
    let sandbox = Sandbox::new("everything");
    let script = testkit::interop_path(
        "interop/node/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
    );
    sandbox.write_mcp_json(&json!({
        "everything": {"command": "node", "args": [script.display().to_string(), "stdio"]},
        "plain": sandbox.fixture("plain", |server| server),
    }));

    let resources = sandbox.run(&["--json", "resources"]).assert_code(0).json();
    assert!(
        strings(&resources["resources"], "uri")
            .iter()
            .any(|uri| uri.starts_with("demo://resource/static/document/")),
        "{resources}"
    );
    assert!(
        strings(&resources["templates"], "uriTemplate")
            .contains(&"demo://resource/dynamic/text/{resourceId}".to_owned()),
        "{resources}"
    );
    assert_eq!(resources["skipped"], json!(["plain"]));

    let read = sandbox.run(&["read", "everything", "demo://resource/dynamic/text/1"]);
    read.assert_code(0);
    assert!(read.stdout.starts_with("Resource 1:"), "{}", read.stdout);

    let prompts = sandbox
        .run(&["prompts", "--server", "everything", "--json"])
        .assert_code(0)
        .json();
    assert!(
        strings(&prompts["prompts"], "name").contains(&"args-prompt".to_owned()),
        "{prompts}"
    );
    let prompt = sandbox.run(&["prompt", "everything", "args-prompt", "--arg", "city=Paris"]);
    prompt.assert_code(0);
    assert!(
        prompt.stdout.contains("user: What's weather in Paris?"),
        "{}",
        prompt.stdout
    );
    let refused = sandbox.run(&["prompt", "everything", "args-prompt"]);
    refused.assert_code(2);
    assert!(
        refused.stderr.contains("--arg city=VALUE"),
        "{}",
        refused.stderr
    );
}

#[test]
#[ignore = "needs the interop peers (cargo xtask interop)"]
fn every_command_counts_server_everythings_tools_alike() {
    let sandbox = Sandbox::new("everything-count");
    let script = testkit::interop_path(
        "interop/node/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
    );
    sandbox.write_mcp_json(&json!({
        "everything": {"command": "node", "args": [script.display().to_string(), "stdio"]},
    }));
    let listed = sandbox.run(&["--json", "list"]).assert_code(0).json();
    let in_list = listed["servers"][0]["tools"].as_u64().unwrap();
    let got = sandbox
        .run(&["--json", "get", "everything"])
        .assert_code(0)
        .json();
    let in_get = got["tools"].as_u64().unwrap();
    let tools = sandbox
        .run(&["--json", "tools", "--server", "everything"])
        .assert_code(0)
        .json();
    let in_tools = tools["tools"].as_array().unwrap().len() as u64;
    let tested = sandbox
        .run(&["--json", "test", "everything"])
        .assert_code(0)
        .json();
    let in_test = tested["tools"].as_u64().unwrap();
    assert!(in_list > 5, "{listed}");
    assert_eq!(
        (in_get, in_tools, in_test),
        (in_list, in_list, in_list),
        "get, tools and test count as list does"
    );
}

#[test]
#[ignore = "needs the interop peers (cargo xtask interop)"]
fn the_readmes_context_is_what_context_prints() {
    let sandbox = Sandbox::labelled("resources", "readme-context");
    let node = |package: &str| {
        testkit::interop_path(&format!(
            "interop/node/node_modules/@modelcontextprotocol/{package}/dist/index.js"
        ))
        .display()
        .to_string()
    };
    let user = json!({"mcpServers": {
        "everything": {"command": "node", "args": [node("server-everything"), "stdio"]},
        "filesystem": {"command": "node", "args": [node("server-filesystem"), sandbox.project.display().to_string()]},
    }});
    let config = sandbox.home.join(".config/agent-session");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(config.join("mcp.json"), user.to_string()).unwrap();
    let readme = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md"),
    )
    .unwrap();
    let shown = readme
        .split("$ agent-session context\n")
        .nth(1)
        .expect("the README shows context")
        .split("```")
        .next()
        .unwrap();
    // Twice: with a cold cache and a warm one, the same figures.
    for run in 0..2 {
        let printed = sandbox.run(&["context"]).assert_code(0).stdout.clone();
        assert_eq!(printed, shown, "run {run}");
    }
}
