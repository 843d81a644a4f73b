//! Tool search in a session with many real-shaped servers: twelve fixture servers serving the
//! kinds of tools people run (GitHub, GitLab, Slack, Notion, Sentry, MongoDB, Playwright, a
//! filesystem, a memory graph, HubSpot, Firecrawl, Linear), 302 described tools with
//! parameter schemas beside each fixture's own 17 — about 64,000 estimated tokens of
//! definitions, past 10% of a 200,000-token window.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::sync::Arc;

use agent_session::{
    AgentSession, FoundTool, SEARCH_TOOL_NAME, SessionOptions, ToolSearchMode, ToolSearchOptions,
    create_agent_session, run_mcp_command,
};
use async_trait::async_trait;
use common::{World, fixture_entry, guard, tool_names};
use mcp_bridge::{AgentTool, ToolOutput};
use mcp_tool_search::{Combine, RankError, Ranker, Semantic, ToolDocument};
use serde_json::{Value, json};
use testkit::FixtureServer;
use tokio_util::sync::CancellationToken;

/// Each server of the world: its name, the service its descriptions name, and the objects its
/// tools act on (`name part=words`, separated by `,`).
const SERVERS: [(&str, &str, &str); 12] = [
    (
        "github",
        "GitHub",
        "issue=issue,pull_request=pull request,branch=branch,release=release,gist=gist",
    ),
    (
        "gitlab",
        "GitLab",
        "merge_request=merge request,pipeline=CI pipeline,project=project,wiki_page=wiki page,runner=CI runner",
    ),
    (
        "slack",
        "Slack",
        "message=message,channel=channel,reminder=reminder,user_group=user group,bookmark=channel bookmark",
    ),
    (
        "notion",
        "Notion",
        "page=page,database=database,block=block,comment=comment,view=database view",
    ),
    (
        "sentry",
        "Sentry",
        "issue_event=issue event,alert_rule=alert rule,release_health=release health report,dashboard=dashboard,team=team",
    ),
    (
        "mongodb",
        "MongoDB",
        "document=document,collection=collection,index=index,database_user=database user,aggregation=saved aggregation",
    ),
    (
        "playwright",
        "the browser",
        "tab=browser tab,cookie=cookie,route=network route,dialog_handler=dialog handler,storage_state=storage state",
    ),
    (
        "filesystem",
        "the file system",
        "file=file,directory=directory,symlink=symbolic link,archive=archive,permission=file permission",
    ),
    (
        "memory",
        "the knowledge graph",
        "entity=entity,relation=relation,observation=observation,tag=tag,snapshot=graph snapshot",
    ),
    (
        "hubspot",
        "HubSpot",
        "contact=contact,company=company,deal=deal,ticket=support ticket,note=engagement note",
    ),
    (
        "firecrawl",
        "Firecrawl",
        "crawl_job=crawl job,scrape=scrape result,site_map=site map,extraction=structured extraction,batch=batch scrape",
    ),
    (
        "linear",
        "Linear",
        "ticket=ticket,project_update=project update,cycle=cycle,initiative=initiative,roadmap=roadmap",
    ),
];

/// The verbs of every server's tools: the name part, how a description starts, and the
/// parameters a call takes (`name:type:description`, separated by `|`).
const VERBS: [(&str, &str, &str); 5] = [
    (
        "create",
        "Create a new",
        "title:string:A short title, shown in lists and notifications.|body:string:The full text, in Markdown; mentions and links are rendered.|labels:array:Labels to attach, by name; unknown names are created.|assignees:array:Who is responsible for it, by login or email address.",
    ),
    (
        "get",
        "Get the details of a",
        "id:string:Its identifier, as returned when it was created or listed.|include:array:Related records to include in the answer, by kind.",
    ),
    (
        "list",
        "List the",
        "filter:string:Only the records matching this expression, e.g. state:open.|sort:string:The field to sort by: created, updated or name.|direction:string:asc or desc (default desc).|per_page:integer:How many records a page holds (1 to 100, default 30).|page:integer:Which page of the results, from 1.",
    ),
    (
        "update",
        "Update an existing",
        "id:string:Its identifier, as returned when it was created or listed.|fields:object:The fields to change and their new values; others are kept.|notify:boolean:Whether followers are told of the change (default true).",
    ),
    (
        "delete",
        "Delete a",
        "id:string:Its identifier, as returned when it was created or listed.|confirm:boolean:Must be true: the deletion cannot be undone.",
    ),
];

/// The 25 generated tools of one server, as its `tools/list` would give them.
fn generated_tools(service: &str, objects: &str) -> Vec<Value> {
    let mut tools = Vec::new();
    for (object, words) in objects.split(',').filter_map(|pair| pair.split_once('=')) {
        for (verb, opening, parameters) in VERBS {
            let name = if verb == "list" {
                format!("list_{object}s")
            } else {
                format!("{verb}_{object}")
            };
            let parameters: Vec<Vec<&str>> = parameters
                .split('|')
                .map(|parameter| parameter.splitn(3, ':').collect())
                .collect();
            let properties: serde_json::Map<String, Value> = parameters
                .iter()
                .map(|parameter| {
                    let (kind, description) = (parameter[1], parameter[2]);
                    let mut schema = json!({"type": kind, "description": description});
                    if kind == "array" {
                        schema["items"] = json!({"type": "string"});
                    }
                    (parameter[0].to_owned(), schema)
                })
                .collect();
            let plural = if verb == "list" { "s" } else { "" };
            tools.push(json!({
                "name": name,
                "description": format!(
                    "{opening} {words}{plural} in {service}. Use it when a task needs to \
                     {verb} {words}s; the answer is the {words} as JSON with its id, its web \
                     URL, who made it and when it last changed. Fails with a clear message \
                     when the token lacks the permission."
                ),
                "inputSchema": {
                    "type": "object",
                    "properties": properties,
                    "required": [parameters[0][0]],
                    "additionalProperties": false,
                },
                "annotations": {"readOnlyHint": verb == "get" || verb == "list"},
            }));
        }
    }
    tools
}

/// The tools a test looks for by what they do.
fn special_tools(server: &str) -> Vec<Value> {
    match server {
        "playwright" => vec![json!({
            "name": "browser_take_screenshot",
            "title": "Take a screenshot",
            "description": "Take a screenshot of the current page. You can't perform actions \
                based on the screenshot; use browser_snapshot for actions.",
            "inputSchema": {"type": "object", "properties": {
                "filename": {"type": "string", "description": "File name to save the image to."},
                "fullPage": {"type": "boolean", "description": "The full scrollable page."},
            }},
        })],
        "memory" => vec![json!({
            "name": "read_graph",
            "description": "Read the entire knowledge graph.",
            "inputSchema": {"type": "object", "properties": {}},
            "_meta": {"anthropic/alwaysLoad": true},
        })],
        _ => Vec::new(),
    }
}

/// The world: every server of [`SERVERS`], its tools in a `--tools-json` file;
/// `filesystem`'s entry says `"alwaysLoad": true`.
fn many_servers() -> World {
    let world = World::new();
    write_servers(&world, None);
    world
}

/// Writes the servers' tool files and `.mcp.json`. The first tool of the server `milestone`
/// names gets a `milestone` parameter (its schema alone changes: same tools, same
/// descriptions), and the server's definition changes too (a variable of its environment), so
/// a reload restarts it. `notion` reads its file again on `change_tools`.
fn write_servers(world: &World, milestone: Option<&str>) {
    let mut entries = Vec::new();
    for (server, service, objects) in SERVERS {
        let mut tools = generated_tools(service, objects);
        tools.extend(special_tools(server));
        if milestone == Some(server) {
            tools[0]["inputSchema"]["properties"]["milestone"] =
                json!({"type": "integer", "description": "The milestone's number."});
        }
        let file = world.project().join(format!("{server}.tools.json"));
        std::fs::write(&file, Value::Array(tools).to_string()).unwrap();
        let mut fixture = FixtureServer::new().name(server).tools_json(&file);
        if server == "notion" {
            fixture = fixture.tools_json_live();
        }
        let mut entry = fixture_entry(&fixture);
        if server == "filesystem" {
            entry["alwaysLoad"] = json!(true);
        }
        if milestone == Some(server) {
            entry["env"] = json!({"REVISION": "2"});
        }
        entries.push((server, entry));
    }
    world.write_mcp_json_entries(&entries);
}

async fn start(options: SessionOptions) -> Arc<AgentSession> {
    guard(create_agent_session(options)).await.session
}

/// A session over `world` whose tool search behaves as `search` says.
async fn start_searching(world: &World, search: ToolSearchOptions) -> Arc<AgentSession> {
    start(world.options().tool_search(search)).await
}

async fn call(session: &AgentSession, name: &str, args: Value) -> ToolOutput {
    let tool = session
        .tool(name)
        .unwrap_or_else(|| panic!("{name} is not callable"));
    guard(tool.execute(args, CancellationToken::new()))
        .await
        .expect("not cancelled")
}

/// The search tool's answer: the names of the definitions it returned, and the definitions.
fn found(output: &ToolOutput) -> (Vec<String>, Vec<Value>) {
    assert!(!output.is_error, "{output:?}");
    let text = output.to_text();
    let json = text.split_once('\n').map_or("", |(_, json)| json);
    let tools: Value = serde_json::from_str(json).unwrap_or_else(|_| panic!("{text}"));
    let tools = tools["tools"].as_array().unwrap().clone();
    let names = tools
        .iter()
        .map(|tool| tool["name"].as_str().unwrap().to_owned())
        .collect();
    (names, tools)
}

/// Whether a found tool takes a `milestone` parameter.
fn has_milestone(found: &[FoundTool]) -> bool {
    found
        .iter()
        .any(|tool| tool.input_schema["properties"]["milestone"].is_object())
}

fn listed(session: &AgentSession, name: &str) -> bool {
    tool_names(session).iter().any(|listed| listed == name)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auto_mode_defers_hundreds_of_definitions_behind_the_search_tool() {
    let world = many_servers();
    let session = start(world.options()).await;
    let offered = session.manager().tools();
    assert_eq!(offered.len(), 12 * (25 + 17) + 2, "every tool is offered");
    let context = session.tool_context();
    assert_eq!(context.mode, ToolSearchMode::Auto);
    assert!(context.deferring, "{context:?}");
    assert!(context.total_tokens > 20_000, "{context:?}");
    assert!(
        context.deferred_tokens() * 4 < context.total_tokens,
        "{context:?}"
    );

    let names = tool_names(&session);
    assert!(names.contains(&SEARCH_TOOL_NAME.to_owned()), "{names:?}");
    // The always-loaded: every tool of the server whose entry says so, and the tool whose
    // _meta says so.
    let filesystem: Vec<&str> = names
        .iter()
        .filter(|name| name.starts_with("mcp_filesystem_"))
        .map(String::as_str)
        .collect();
    assert_eq!(filesystem.len(), 25 + 17, "{filesystem:?}");
    assert!(
        names.contains(&"mcp_memory_read_graph".to_owned()),
        "{names:?}"
    );
    // Nothing else: not the 300 other definitions.
    assert_eq!(names.len(), 1 + 42 + 1, "{names:?}");
    assert!(!names.contains(&"mcp_github_create_issue".to_owned()));
    // Every tool is still callable by its name.
    for managed in &offered {
        assert!(
            session.tool(managed.tool.name()).is_some(),
            "{}",
            managed.tool.name()
        );
    }
    // The search tool names each server with a line and a tool count.
    let search = session.tool(SEARCH_TOOL_NAME).unwrap();
    let description = search.description();
    for (server, _, _) in SERVERS {
        let count = if server == "playwright" || server == "memory" {
            43
        } else {
            42
        };
        assert!(
            description.contains(&format!("\n- {server}: {count} tools")),
            "{server}: {description}"
        );
    }
    assert_eq!(search.parameters()["required"], json!(["query"]));
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_search_tool_finds_and_loads_and_the_loaded_tool_is_called_through_its_server() {
    let world = many_servers();
    let session = start(world.options()).await;
    let name = "mcp_playwright_browser_take_screenshot";
    assert!(!listed(&session, name));
    let mut refreshes = session.refreshes();
    refreshes.mark_unchanged();

    let output = call(
        &session,
        SEARCH_TOOL_NAME,
        json!({"query": "take a screenshot of the web page", "limit": 3}),
    )
    .await;
    let (names, definitions) = found(&output);
    assert!(names.len() <= 3, "{names:?}");
    let at = names.iter().position(|found| found == name).expect("found");
    // Its full definition: the description and the input schema the model calls it with.
    assert!(
        definitions[at]["description"]
            .as_str()
            .unwrap()
            .starts_with("Take a screenshot of the current page."),
        "{definitions:?}"
    );
    assert_eq!(
        definitions[at]["input_schema"]["properties"]["fullPage"]["type"],
        "boolean"
    );
    // Loaded: listed from now on, and the agent was told to read the tools again.
    assert!(refreshes.has_changed().unwrap(), "a refresh is announced");
    assert!(listed(&session, name));
    for found in &names {
        assert!(listed(&session, found), "{found}");
    }
    assert!(session.loaded_tools().contains(&(
        "playwright".to_owned(),
        "browser_take_screenshot".to_owned()
    )));
    // Called by the agent under that name, it reaches the playwright server.
    let answer = call(&session, name, json!({"fullPage": true})).await;
    assert!(!answer.is_error, "{answer:?}");
    assert_eq!(
        answer.to_text(),
        "browser_take_screenshot on playwright with {\"fullPage\":true}"
    );
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deferred_tool_called_by_name_before_any_search_works_and_is_loaded() {
    let world = many_servers();
    let session = start(world.options()).await;
    let name = "mcp_hubspot_create_deal";
    assert!(!listed(&session, name));
    assert!(session.loaded_tools().is_empty());
    let answer = call(&session, name, json!({"title": "Renewal"})).await;
    assert_eq!(
        answer.to_text(),
        "create_deal on hubspot with {\"title\":\"Renewal\"}"
    );
    assert!(listed(&session, name), "a called tool is loaded");
    assert_eq!(
        session.loaded_tools(),
        [("hubspot".to_owned(), "create_deal".to_owned())]
    );
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_list_change_reaches_the_index_and_the_new_tool_is_found_right_after() {
    let world = many_servers();
    let session = start(world.options()).await;
    let pattern = "/^late_tool$/";
    assert!(
        session
            .search_tools(pattern, 5, None)
            .await
            .unwrap()
            .is_empty()
    );
    // The fixture's change_tools adds late_tool and sends notifications/tools/list_changed.
    let changed = call(&session, "mcp_github_change_tools", json!({})).await;
    assert_eq!(changed.to_text(), "changed");
    let mut refreshes = session.refreshes();
    guard(async {
        while session.tool("mcp_github_late_tool").is_none() {
            refreshes.changed().await.expect("the session is alive");
        }
    })
    .await;
    // Right after the refresh that registered it, a search finds it.
    let hits = session.search_tools(pattern, 5, None).await.unwrap();
    let hits: Vec<(&str, &str)> = hits
        .iter()
        .map(|hit| (hit.server.as_str(), hit.name.as_str()))
        .collect();
    assert_eq!(hits, [("github", "mcp_github_late_tool")]);
    let words = session
        .search_tools("added after initialization", 5, Some("github"))
        .await
        .unwrap();
    assert!(words.iter().any(|hit| hit.tool == "late_tool"), "{words:?}");
    // The search tool finds and loads it too.
    let output = call(&session, SEARCH_TOOL_NAME, json!({"query": pattern})).await;
    assert_eq!(found(&output).0, ["mcp_github_late_tool"]);
    assert!(listed(&session, "mcp_github_late_tool"));
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reload_a_disable_and_an_enable_reach_the_index() {
    let world = many_servers();
    let session = start(world.options()).await;
    let tokens = |session: &AgentSession| {
        session
            .tool_context()
            .servers
            .iter()
            .find(|server| server.server == "github")
            .map(|server| server.tokens)
            .unwrap()
    };
    let before = tokens(&session);
    // No tool has a milestone yet (a tool may still come up by meaning).
    assert!(!has_milestone(
        &session.search_tools("milestone", 5, None).await.unwrap()
    ));
    write_servers(&world, Some("github"));
    let problems = guard(session.reload()).await;
    assert!(problems.is_empty(), "{problems:?}");
    // The follower's refresh of the restarted server may come just after the reload's own.
    let mut refreshes = session.refreshes();
    let found = guard(async {
        loop {
            let hits = session.search_tools("milestone", 5, None).await.unwrap();
            if has_milestone(&hits) {
                return hits;
            }
            refreshes.changed().await.expect("the session is alive");
        }
    })
    .await;
    // A parameter added to a schema alone is found, and counted.
    assert_eq!(found[0].name, "mcp_github_create_issue");
    assert!(found[0].input_schema["properties"]["milestone"].is_object());
    assert!(tokens(&session) > before);
    // The other servers kept their tools.
    let hits = session
        .search_tools("/^create_deal$/", 5, None)
        .await
        .unwrap();
    assert_eq!(hits.len(), 1, "{hits:?}");
    // A disable and an enable (each writes the config and reloads) reach it too.
    let deal = || async {
        session
            .search_tools("/^create_deal$/", 5, None)
            .await
            .unwrap()
            .len()
    };
    let reply = run_mcp_command(&session, "disable hubspot").await;
    assert!(reply.ok, "{reply:?}");
    assert_eq!(deal().await, 0);
    assert!(
        !session
            .tool_context()
            .servers
            .iter()
            .any(|s| s.server == "hubspot")
    );
    let reply = run_mcp_command(&session, "enable hubspot").await;
    assert!(reply.ok, "{reply:?}");
    let mut refreshes = session.refreshes();
    guard(async {
        while deal().await == 0 {
            refreshes.changed().await.expect("the session is alive");
        }
    })
    .await;
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_list_change_of_a_schema_alone_reaches_the_index() {
    let world = many_servers();
    let session = start(world.options()).await;
    assert!(!has_milestone(
        &session.search_tools("milestone", 5, None).await.unwrap()
    ));
    write_servers(&world, Some("notion"));
    // notion reads its file again and sends notifications/tools/list_changed.
    call(&session, "mcp_notion_change_tools", json!({})).await;
    let new_schema = |session: &AgentSession| {
        session
            .tool("mcp_notion_create_page")
            .is_some_and(|tool| tool.parameters()["properties"]["milestone"].is_object())
    };
    let mut refreshes = session.refreshes();
    guard(async {
        while !new_schema(&session) {
            refreshes.changed().await.expect("the session is alive");
        }
    })
    .await;
    // The refresh that registered the new schema indexed it too.
    let found = session.search_tools("milestone", 5, None).await.unwrap();
    assert_eq!(found[0].name, "mcp_notion_create_page", "{found:?}");
    assert!(has_milestone(&found[..1]));
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn always_loaded_servers_and_tools_are_never_deferred_nor_counted_in_the_budget() {
    let world = many_servers();
    let session = start_searching(
        &world,
        ToolSearchOptions::new(ToolSearchMode::On).loaded_budget(1),
    )
    .await;
    let always = ["mcp_filesystem_create_file", "mcp_memory_read_graph"];
    for name in always {
        assert!(listed(&session, name), "{name}");
    }
    // Found by a search, they stay out of the loaded set.
    let output = call(
        &session,
        SEARCH_TOOL_NAME,
        json!({"query": "/^read_graph$/"}),
    )
    .await;
    assert_eq!(found(&output).0, ["mcp_memory_read_graph"]);
    assert!(session.loaded_tools().is_empty());
    // Others come and go within the budget of one; the always-loaded stay.
    call(
        &session,
        SEARCH_TOOL_NAME,
        json!({"query": "/^create_gist$/"}),
    )
    .await;
    call(
        &session,
        SEARCH_TOOL_NAME,
        json!({"query": "/^create_reminder$/"}),
    )
    .await;
    assert!(!listed(&session, "mcp_github_create_gist"));
    assert!(listed(&session, "mcp_slack_create_reminder"));
    for name in always {
        assert!(listed(&session, name), "{name}");
    }
    let context = session.tool_context();
    let filesystem = context
        .servers
        .iter()
        .find(|server| server.server == "filesystem")
        .unwrap();
    assert_eq!(filesystem.always_loaded_tools, 42);
    assert_eq!(filesystem.always_loaded_tokens, filesystem.tokens);
    let memory = context
        .servers
        .iter()
        .find(|server| server.server == "memory")
        .unwrap();
    assert_eq!(memory.always_loaded_tools, 1);
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn off_lists_every_definition_as_before() {
    let world = many_servers();
    let session = start_searching(&world, ToolSearchOptions::new(ToolSearchMode::Off)).await;
    let mut expected: Vec<String> = session
        .manager()
        .tools()
        .iter()
        .map(|tool| tool.tool.name().to_owned())
        .collect();
    expected.sort();
    assert_eq!(tool_names(&session), expected);
    assert!(session.tool(SEARCH_TOOL_NAME).is_none());
    let context = session.tool_context();
    assert!(!context.deferring);
    assert_eq!(context.sent_tokens(), context.total_tokens);
    // A call leaves the listing as it is.
    let answer = call(&session, "mcp_github_create_issue", json!({"title": "x"})).await;
    assert_eq!(
        answer.to_text(),
        "create_issue on github with {\"title\":\"x\"}"
    );
    assert_eq!(tool_names(&session), expected);
    assert!(session.loaded_tools().is_empty());
    // The index is kept all the same, for a search an agent or the CLI asks for.
    let hits = session
        .search_tools("/^create_deal$/", 5, None)
        .await
        .unwrap();
    assert_eq!(hits[0].name, "mcp_hubspot_create_deal");
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auto_lists_everything_when_the_definitions_fit_the_share_of_the_window() {
    let world = many_servers();
    let session = start_searching(
        &world,
        ToolSearchOptions::new(ToolSearchMode::Auto).context_window(10_000_000),
    )
    .await;
    let context = session.tool_context();
    assert!(!context.deferring, "{context:?}");
    assert!(context.total_tokens <= context.threshold);
    assert!(session.tool(SEARCH_TOOL_NAME).is_none());
    assert!(listed(&session, "mcp_github_create_issue"));
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_loaded_set_keeps_its_budget_and_the_least_recently_used_leaves_first() {
    let world = many_servers();
    let session = start_searching(
        &world,
        ToolSearchOptions::new(ToolSearchMode::On).loaded_budget(2),
    )
    .await;
    let (a, b, c) = (
        "mcp_github_create_pull_request",
        "mcp_slack_create_reminder",
        "mcp_hubspot_create_deal",
    );
    call(
        &session,
        SEARCH_TOOL_NAME,
        json!({"query": "/^create_pull_request$/"}),
    )
    .await;
    call(
        &session,
        SEARCH_TOOL_NAME,
        json!({"query": "/^create_reminder$/"}),
    )
    .await;
    assert!(listed(&session, a) && listed(&session, b));
    // A is used again: B is now the least recently used.
    call(&session, a, json!({"title": "x"})).await;
    call(
        &session,
        SEARCH_TOOL_NAME,
        json!({"query": "/^create_deal$/"}),
    )
    .await;
    assert!(listed(&session, a), "used last but one");
    assert!(listed(&session, c), "loaded last");
    assert!(!listed(&session, b), "the least recently used left");
    assert_eq!(
        session.loaded_tools(),
        [
            ("github".to_owned(), "create_pull_request".to_owned()),
            ("hubspot".to_owned(), "create_deal".to_owned()),
        ]
    );
    // Unlisted again, it is still callable, and calling it loads it back.
    let answer = call(&session, b, json!({"title": "x"})).await;
    assert!(!answer.is_error, "{answer:?}");
    assert!(listed(&session, b) && !listed(&session, a));
    // One search never loads more than the budget.
    let output = call(
        &session,
        SEARCH_TOOL_NAME,
        json!({"query": "/^create_/", "limit": 10}),
    )
    .await;
    assert_eq!(found(&output).0.len(), 2);
    assert_eq!(session.loaded_tools().len(), 2);
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_pattern_is_an_error_the_model_reads() {
    let world = many_servers();
    let session = start(world.options()).await;
    let output = call(&session, SEARCH_TOOL_NAME, json!({"query": "/(unclosed/"})).await;
    assert!(output.is_error);
    assert!(output.to_text().contains("/(unclosed/"), "{output:?}");
    assert!(session.search_tools("/(unclosed/", 5, None).await.is_err());
    let output = call(&session, SEARCH_TOOL_NAME, json!({"limit": 3})).await;
    assert!(output.is_error);
    assert!(output.to_text().contains("`query`"), "{output:?}");
    assert!(session.loaded_tools().is_empty());
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_search_and_mcp_context_answer_an_agents_user() {
    let world = many_servers();
    let session = start(world.options()).await;
    let reply = run_mcp_command(&session, "search take a screenshot --limit 2").await;
    assert!(reply.ok, "{reply:?}");
    assert_eq!(reply.json["query"], "take a screenshot");
    let tools = reply.json["tools"].as_array().unwrap();
    assert!(tools.len() <= 2);
    assert!(
        tools
            .iter()
            .any(|tool| tool["name"] == "mcp_playwright_browser_take_screenshot"),
        "{reply:?}"
    );
    assert!(reply.text.starts_with("NAME"), "{}", reply.text);
    // Nothing is loaded by a user's search.
    assert!(session.loaded_tools().is_empty());
    let reply = run_mcp_command(&session, "search /^create_/ --server hubspot --limit 9").await;
    let tools = reply.json["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 5, "{reply:?}");
    assert!(tools.iter().all(|tool| tool["server"] == "hubspot"));
    for (line, said) in [
        ("search /(x/", "cannot be used"),
        ("search x --server hubspto", "did you mean \"hubspot\""),
        ("search", "missing QUERY"),
        ("search x --limit 0", "--limit"),
        ("context extra", "unexpected argument"),
    ] {
        let reply = run_mcp_command(&session, line).await;
        assert!(reply.usage, "{line}: {reply:?}");
        assert!(!reply.text.contains('\n'), "{line}: {}", reply.text);
        assert!(reply.text.contains(said), "{line}: {}", reply.text);
    }
    let reply = run_mcp_command(&session, "context").await;
    assert!(reply.ok, "{reply:?}");
    assert_eq!(reply.json, session.tool_context().to_json());
    assert_eq!(reply.json["deferring"], true);
    assert!(
        reply.text.contains("tool search auto: deferring"),
        "{}",
        reply.text
    );
    session.shutdown().await;
}

/// An agent's ranker that knows only that "close a sale" is HubSpot's deals.
struct Sales;

#[async_trait]
impl Ranker for Sales {
    async fn rank(
        &self,
        query: &str,
        documents: &[&ToolDocument],
        _limit: usize,
    ) -> Result<Vec<(usize, f32)>, RankError> {
        if query != "close a sale" {
            return Ok(Vec::new());
        }
        Ok(documents
            .iter()
            .position(|document| document.server == "hubspot" && document.tool == "update_deal")
            .map(|position| vec![(position, 1.0)])
            .unwrap_or_default())
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agents_ranker_ranks_the_sessions_searches() {
    let world = many_servers();
    let session = start_searching(
        &world,
        ToolSearchOptions::new(ToolSearchMode::On).ranker(Arc::new(Sales), Combine::Instead),
    )
    .await;
    let output = call(&session, SEARCH_TOOL_NAME, json!({"query": "close a sale"})).await;
    assert_eq!(found(&output).0, ["mcp_hubspot_update_deal"]);
    assert!(listed(&session, "mcp_hubspot_update_deal"));
    session.shutdown().await;
}

/// The built-in ranking finds a tool by the meaning of a query that shares no word with it;
/// an agent can turn that off and rank by the words alone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_built_in_ranking_finds_by_meaning_unless_told_to_keep_to_words() {
    let world = many_servers();
    let paraphrase = "grab a picture of what the display shows";
    let screenshot = "mcp_playwright_browser_take_screenshot";
    let names =
        |hits: Vec<FoundTool>| -> Vec<String> { hits.into_iter().map(|hit| hit.name).collect() };
    let session = start(world.options()).await;
    let hits = names(session.search_tools(paraphrase, 3, None).await.unwrap());
    assert!(hits.iter().any(|name| name == screenshot), "{hits:?}");
    session.shutdown().await;
    let session =
        start_searching(&world, ToolSearchOptions::default().semantic(Semantic::OFF)).await;
    let hits = names(session.search_tools(paraphrase, 3, None).await.unwrap());
    assert!(!hits.iter().any(|name| name == screenshot), "{hits:?}");
    session.shutdown().await;
}

/// An agent tool need not be an MCP tool to be found: only MCP tools are indexed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_mcp_tools_are_searched_and_the_agents_own_stay_listed() {
    let world = many_servers();
    let own = common_tool();
    let options = world.options().own_tool(own);
    let session = start(options).await;
    assert!(listed(&session, "notes"));
    let hits = session.search_tools("/^notes$/", 5, None).await.unwrap();
    assert!(hits.is_empty(), "{hits:?}");
    session.shutdown().await;
}

fn common_tool() -> Arc<dyn AgentTool> {
    struct Notes;
    #[async_trait]
    impl AgentTool for Notes {
        fn name(&self) -> &str {
            "notes"
        }
        fn label(&self) -> &str {
            "notes"
        }
        fn description(&self) -> &str {
            "The agent's notes."
        }
        fn parameters(&self) -> &Value {
            static SCHEMA: std::sync::OnceLock<Value> = std::sync::OnceLock::new();
            SCHEMA.get_or_init(|| json!({"type": "object"}))
        }
        async fn execute(
            &self,
            _args: Value,
            _cancel: CancellationToken,
        ) -> Result<ToolOutput, mcp_bridge::ToolCancelled> {
            Ok(ToolOutput::text("notes"))
        }
    }
    Arc::new(Notes)
}
