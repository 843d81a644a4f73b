//! The fixture's resources and prompts (`--resources`, `--prompts`, `--catalog-change-after`),
//! on the wire, as `usage.txt` documents them.

mod common;

use common::Fixture;
use serde_json::{Value, json};
use testkit::FixtureServer;

fn field(list: &Value, key: &str, field: &str) -> Vec<String> {
    list["result"][key]
        .as_array()
        .unwrap_or_else(|| panic!("no {key} in {list}"))
        .iter()
        .map(|item| item[field].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[test]
fn the_flags_declare_the_capabilities_and_answer_the_lists() {
    let mut fixture = Fixture::spawn(&FixtureServer::new().resources().prompts());
    let initialized = fixture.handshake();
    assert_eq!(
        initialized["capabilities"]["resources"],
        json!({"listChanged": true})
    );
    assert_eq!(
        initialized["capabilities"]["prompts"],
        json!({"listChanged": true})
    );
    assert_eq!(initialized["capabilities"]["tools"]["listChanged"], true);
    let resources = fixture.request(1, "resources/list", json!({}));
    assert_eq!(
        field(&resources, "resources", "uri"),
        [
            "fixture://docs/readme",
            "fixture://docs/notes",
            "fixture://images/pixel"
        ]
    );
    let templates = fixture.request(2, "resources/templates/list", json!({}));
    assert_eq!(
        field(&templates, "resourceTemplates", "uriTemplate"),
        ["fixture://greetings/{name}"]
    );
    let prompts = fixture.request(3, "prompts/list", json!({}));
    assert_eq!(
        field(&prompts, "prompts", "name"),
        ["greet", "summarize_readme"]
    );
}

#[test]
fn reads_and_prompts_answer_as_documented_and_mistakes_are_json_rpc_errors() {
    let mut fixture = Fixture::spawn(&FixtureServer::new().resources().prompts());
    fixture.handshake();
    let greeting = fixture.request(
        1,
        "resources/read",
        json!({"uri": "fixture://greetings/Ada"}),
    );
    assert_eq!(greeting["result"]["contents"][0]["text"], "Hello, Ada!");
    let unknown = fixture.request(2, "resources/read", json!({"uri": "fixture://nope"}));
    assert_eq!(unknown["error"]["code"], -32002);
    let greet = fixture.request(
        3,
        "prompts/get",
        json!({"name": "greet", "arguments": {"name": "Bo"}}),
    );
    assert_eq!(
        greet["result"]["messages"][0]["content"]["text"],
        "Say hello to Bo."
    );
    let missing = fixture.request(4, "prompts/get", json!({"name": "greet"}));
    assert_eq!(missing["error"]["code"], -32602);
    assert_eq!(
        missing["error"]["message"],
        "Missing required argument: name"
    );
}

#[test]
fn a_list_whose_flag_is_not_given_stays_an_unknown_method() {
    let mut fixture = Fixture::spawn(&FixtureServer::new().resources());
    let initialized = fixture.handshake();
    assert!(initialized["capabilities"].get("prompts").is_none());
    let prompts = fixture.request(1, "prompts/list", json!({}));
    assert_eq!(prompts["error"]["code"], -32601);
}

#[test]
fn catalog_change_after_adds_a_resource_and_a_prompt_and_notifies() {
    let mut fixture = Fixture::spawn(
        &FixtureServer::new()
            .resources()
            .prompts()
            .catalog_change_after(10),
    );
    fixture.handshake();
    assert_eq!(
        fixture.recv()["method"],
        "notifications/resources/list_changed"
    );
    assert_eq!(
        fixture.recv()["method"],
        "notifications/prompts/list_changed"
    );
    let resources = fixture.request(1, "resources/list", json!({}));
    assert!(field(&resources, "resources", "uri").contains(&"fixture://docs/late".to_owned()));
    let prompts = fixture.request(2, "prompts/list", json!({}));
    assert!(field(&prompts, "prompts", "name").contains(&"late_prompt".to_owned()));
}
