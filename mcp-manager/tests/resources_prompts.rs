//! Resources and prompts through the manager: listings of one server and of every connected
//! server (servers without the capability skipped, not failed), reading a resource, getting a
//! prompt, and the servers' list changes as events.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::collections::BTreeMap;

use common::*;
use mcp_manager::{ManagerError, ManagerEvent};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listings_of_every_server_skip_servers_without_resources_or_prompts() {
    let catalog = fixture("catalog", |server| server.resources().prompts());
    let resources_only = fixture("files", |server| server.resources());
    let plain = plain("plain");
    let manager = manager(memory_cache());
    let outcome = connect(
        &manager,
        &configs(&[
            ("catalog", &catalog),
            ("files", &resources_only),
            ("plain", &plain),
        ]),
    )
    .await;
    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);

    let resources = within("all_resources", manager.all_resources()).await;
    let servers: Vec<&str> = resources.iter().map(|l| l.server.as_str()).collect();
    assert_eq!(servers, ["catalog", "files"]);
    let listed = resources[0].result.as_ref().expect("catalog's resources");
    assert_eq!(listed.len(), 3);
    assert_eq!(listed[0].uri, "fixture://docs/readme");

    let templates = within("all_resource_templates", manager.all_resource_templates()).await;
    assert_eq!(templates.len(), 2);
    assert_eq!(
        templates[1].result.as_ref().expect("templates")[0].uri_template,
        "fixture://greetings/{name}"
    );

    let prompts = within("all_prompts", manager.all_prompts()).await;
    let servers: Vec<&str> = prompts.iter().map(|l| l.server.as_str()).collect();
    assert_eq!(servers, ["catalog"]);
    assert_eq!(prompts[0].result.as_ref().expect("prompts").len(), 2);

    // Asked alone, a server without the capability answers "none", not an error.
    let none = within("list_resources", manager.list_resources("plain")).await;
    assert!(none.expect("not an error").is_none());
    let none = within("list_prompts", manager.list_prompts("files")).await;
    assert!(none.expect("not an error").is_none());
    let some = within("list_prompts", manager.list_prompts("catalog")).await;
    assert_eq!(some.expect("prompts").expect("offered").len(), 2);

    within("disconnect_all", manager.disconnect_all()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resource_is_read_and_a_prompt_got_through_the_manager() {
    let catalog = fixture("catalog", |server| server.resources().prompts());
    let plain = plain("plain");
    let manager = manager(memory_cache());
    connect(
        &manager,
        &configs(&[("catalog", &catalog), ("plain", &plain)]),
    )
    .await;

    let read = within(
        "read_resource",
        manager.read_resource("catalog", "fixture://greetings/Bo"),
    )
    .await
    .expect("read");
    assert_eq!(read.contents[0].text.as_deref(), Some("Hello, Bo!"));

    let arguments = BTreeMap::from([("name".to_owned(), "Bo".to_owned())]);
    let prompt = within(
        "get_prompt",
        manager.get_prompt("catalog", "greet", arguments),
    )
    .await
    .expect("prompt");
    assert_eq!(
        prompt.messages[0].content.as_text(),
        Some("Say hello to Bo.")
    );

    let refused = within(
        "read_resource",
        manager.read_resource("plain", "fixture://x"),
    )
    .await
    .expect_err("plain offers no resources");
    assert!(
        matches!(&*refused, ManagerError::NotOffered { server, capability: "resources" } if server == "plain"),
        "{refused:?}"
    );
    assert!(
        refused.to_string().contains("does not offer resources"),
        "{refused}"
    );

    let unknown = within(
        "get_prompt",
        manager.get_prompt("ghost", "greet", BTreeMap::new()),
    )
    .await
    .expect_err("no such server");
    assert!(
        matches!(&*unknown, ManagerError::NotConnected { .. }),
        "{unknown:?}"
    );

    let failed = within(
        "read_resource",
        manager.read_resource("catalog", "fixture://missing"),
    )
    .await
    .expect_err("no such resource");
    assert!(
        failed.to_string().contains("Resource not found"),
        "{failed}"
    );

    within("disconnect_all", manager.disconnect_all()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resource_and_prompt_list_changes_become_events() {
    let changing = fixture("changing", |server| {
        server.resources().prompts().catalog_change_after(300)
    });
    let manager = manager(memory_cache());
    let mut events = manager.subscribe();
    connect(&manager, &configs(&[("changing", &changing)])).await;

    let _ = wait_for_event(
        &mut events,
        "the resource list change",
        |event| matches!(event, ManagerEvent::ResourcesChanged { server } if server == "changing"),
    )
    .await;
    let resources = within("list_resources", manager.list_resources("changing"))
        .await
        .expect("resources")
        .expect("offered");
    assert!(resources.iter().any(|r| r.uri == "fixture://docs/late"));
    let _ = wait_for_event(
        &mut events,
        "the prompt list change",
        |event| matches!(event, ManagerEvent::PromptsChanged { server } if server == "changing"),
    )
    .await;
    let prompts = within("list_prompts", manager.list_prompts("changing"))
        .await
        .expect("prompts")
        .expect("offered");
    assert!(prompts.iter().any(|p| p.name == "late_prompt"));

    within("disconnect_all", manager.disconnect_all()).await;
}
