//! Server notifications reach subscribers.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use common::{connect, guard, text};
use testkit::FixtureServer;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_list_changed_reaches_subscribers_and_the_new_tool_is_listed() {
    let client = connect(&FixtureServer::new()).await;
    let mut notifications = client.subscribe();
    let before = guard(client.list_tools()).await.expect("list");
    assert!(before.iter().all(|tool| tool.name != "late_tool"));
    // The fixture sends the notification before it answers.
    let changed = guard(client.call_tool("change_tools", None))
        .await
        .expect("change");
    assert_eq!(text(&changed), "changed");
    let notification = guard(notifications.recv()).await.expect("a notification");
    assert_eq!(notification.method, "notifications/tools/list_changed");
    let after = guard(client.list_tools()).await.expect("list again");
    assert!(after.iter().any(|tool| tool.name == "late_tool"));
    guard(client.close()).await.expect("close");
}
