//! Message size limits from the configuration: a server's `maxMessageBytes`, and the manager's
//! default for the rest. An answer over the limit fails only its own call.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use common::*;
use mcp_manager::{ConnectionStatus, ManagerOptions};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_servers_max_message_bytes_fails_only_the_call_over_it() {
    let mut limited = plain("limited");
    limited
        .config
        .extra
        .insert("maxMessageBytes".into(), json!(1 << 20));
    let roomy = plain("roomy");
    // The manager's default is small; the per-server setting wins for "limited".
    let manager = manager_with(
        ManagerOptions::default().max_message_bytes(64 << 10),
        memory_cache(),
    );
    let outcome = connect(
        &manager,
        &configs(&[("limited", &limited), ("roomy", &roomy)]),
    )
    .await;
    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);

    let limited_huge = find_tool(&outcome.tools, "limited", "huge");
    let fits = call(limited_huge.tool.as_ref(), json!({"bytes": 512 << 10})).await;
    assert!(!fits.is_error, "512 KiB fits in 1 MiB");
    let over = call(limited_huge.tool.as_ref(), json!({"bytes": 2 << 20})).await;
    assert!(over.is_error, "{over:?}");
    assert!(
        over.to_text().contains("limit of 1048576 bytes"),
        "{}",
        over.to_text()
    );
    let roomy_huge = find_tool(&outcome.tools, "roomy", "huge");
    let default_limit = call(roomy_huge.tool.as_ref(), json!({"bytes": 512 << 10})).await;
    assert!(
        default_limit.to_text().contains("limit of 65536 bytes"),
        "{}",
        default_limit.to_text()
    );

    // Both connections live on.
    for server in ["limited", "roomy"] {
        assert_eq!(
            manager.get_connection_status(server),
            ConnectionStatus::Connected
        );
        let echoed = echo(
            find_tool(&outcome.tools, server, "echo").tool.as_ref(),
            "alive",
        )
        .await;
        assert_eq!(echoed.to_text(), "alive");
    }
    within("disconnect_all", manager.disconnect_all()).await;
    assert_no_process(&limited.marker).await;
}
