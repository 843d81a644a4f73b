//! The users' tool filters and per-server limits: `enabledTools` / `disabledTools` hide exactly
//! the named tools (never offered, called or cached), `toolTimeout` bounds a call, and progress
//! extends it.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use common::*;
use mcp_cache::ToolCache;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn enabled_and_disabled_tools_hide_exactly_the_named_tools() {
    let mut filtered = plain("filtered");
    filtered
        .config
        .extra
        .insert("enabledTools".into(), json!(["echo", "add", "sleep"]));
    filtered
        .config
        .extra
        .insert("disabledTools".into(), json!(["sleep"]));
    let cache = memory_cache();
    let manager = manager(cache.clone());
    let outcome = connect(&manager, &configs(&[("filtered", &filtered)])).await;
    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
    let mut offered: Vec<String> = tools_of(&outcome.tools, "filtered")
        .into_iter()
        .map(|tool| tool.original_name)
        .collect();
    offered.sort();
    assert_eq!(offered, ["add", "echo"]);
    let cached = cache
        .get("filtered", &key_of(&filtered.config).await)
        .await
        .expect("cached");
    let mut cached: Vec<String> = cached.into_iter().map(|tool| tool.name).collect();
    cached.sort();
    assert_eq!(cached, ["add", "echo"], "hidden tools are not cached");
    within("disconnect_all", manager.disconnect_all()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_servers_tool_timeout_bounds_its_calls_and_progress_extends_it() {
    let mut limited = plain("tool-timeout");
    limited
        .config
        .extra
        .insert("toolTimeout".into(), json!(400));
    let manager = manager(memory_cache());
    let outcome = connect(&manager, &configs(&[("limited", &limited)])).await;

    let slow = call(
        find_tool(&outcome.tools, "limited", "sleep").tool.as_ref(),
        json!({"ms": 5000}),
    )
    .await;
    assert!(slow.is_error, "{slow:?}");
    assert!(
        slow.to_text().contains("no answer within 400ms"),
        "{}",
        slow.to_text()
    );

    // Eight steps 200 ms apart take longer than 400 ms, but each one restarts the clock.
    let reporting = call(
        find_tool(&outcome.tools, "limited", "progress")
            .tool
            .as_ref(),
        json!({"steps": 8, "interval_ms": 200}),
    )
    .await;
    assert!(!reporting.is_error, "{reporting:?}");
    assert_eq!(reporting.to_text(), "done");
    within("disconnect_all", manager.disconnect_all()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_servers_output_budget_cuts_its_results_and_others_keep_the_default() {
    let mut small = plain("small-budget");
    small
        .config
        .extra
        .insert("outputBudget".into(), json!(1000));
    let roomy = plain("default-budget");
    let manager = manager(memory_cache());
    let outcome = connect(&manager, &configs(&[("small", &small), ("roomy", &roomy)])).await;
    let huge = |server: &str| find_tool(&outcome.tools, server, "huge");

    let cut = call(huge("small").tool.as_ref(), json!({"bytes": 5000})).await;
    assert_eq!(cut.details["truncated"]["shown_bytes"], 1000);
    assert!(cut.to_text().contains("[output cut:"), "{}", cut.to_text());
    let whole = call(huge("roomy").tool.as_ref(), json!({"bytes": 5000})).await;
    assert_eq!(whole.to_text().len(), 5000, "within the default 100 KiB");
    within("disconnect_all", manager.disconnect_all()).await;
}
