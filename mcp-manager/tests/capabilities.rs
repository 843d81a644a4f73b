//! What a server declares decides what is asked of it: a server without the `tools`
//! capability (prompts or resources only) is connected with no tools, not failed.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use common::*;
use mcp_manager::ConnectionStatus;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_without_the_tools_capability_is_connected_with_no_tools() {
    let prompts_only = fixture("prompts-only", |server| server.no_tools());
    let plain = plain("with-tools");
    let manager = manager(memory_cache());
    let outcome = connect(
        &manager,
        &configs(&[("prompts-only", &prompts_only), ("with-tools", &plain)]),
    )
    .await;
    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
    assert_eq!(
        manager.get_connection_status("prompts-only"),
        ConnectionStatus::Connected
    );
    assert!(tools_of(&outcome.tools, "prompts-only").is_empty());
    assert_eq!(
        tools_of(&outcome.tools, "with-tools").len(),
        testkit::BUILT_IN_TOOLS
    );
    within("disconnect_all", manager.disconnect_all()).await;
    assert_no_process(&prompts_only.marker).await;
}
