//! The Tasks extension through a session, against the TypeScript tasks server of `interop/`
//! over HTTP: an agent's tool call that becomes a task reports the task's id and its changes of
//! status to the agent's progress sink, and a session shut down while the call runs cancels
//! the task on the server (`tasks/cancel`, which the server logs).
//!
//! Ignored under a plain `cargo test` because it needs the interop peers; `cargo xtask ci`
//! installs them and runs it.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{World, guard};
use mcp_bridge::{CancellationToken, ToolProgress};
use serde_json::json;
use testkit::{RemotePeer, task_log};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the pinned interop peers (cargo xtask interop)"]
async fn a_task_reports_its_id_and_status_and_a_shutdown_cancels_it() {
    let world = World::new();
    let log = world.home().join("tasks.log");
    let running = RemotePeer::TypeScriptTasks.start_with_log(&log);
    world.write_mcp_json_entries(&[("tasks", json!({"type": "http", "url": running.url()}))]);
    let session = world.start().await.session;

    // Completes: the agent's sink hears of the task first, then of each change.
    let reports: Arc<Mutex<Vec<ToolProgress>>> = Arc::default();
    let sink = {
        let reports = Arc::clone(&reports);
        Arc::new(move |report: ToolProgress| reports.lock().unwrap().push(report))
    };
    let tool = session.tool("mcp_tasks_slow_sum").expect("the tool");
    let output = guard(tool.execute_with_progress(
        json!({"a": 2, "b": 5}),
        CancellationToken::new(),
        sink.clone(),
    ))
    .await
    .expect("not cancelled");
    assert!(!output.is_error, "{output:?}");
    assert_eq!(output.to_text(), "7");
    let reports = reports.lock().unwrap().clone();
    let task_id = reports[0].task_id.clone().expect("the task's id first");
    assert_eq!(reports[0].message, None);
    assert!(
        reports
            .iter()
            .all(|report| report.task_id.as_ref() == Some(&task_id))
    );
    let messages: Vec<String> = reports.iter().filter_map(|r| r.message.clone()).collect();
    assert!(
        messages
            .iter()
            .any(|message| message.contains("step 1 of 3")),
        "{messages:?}"
    );

    // Running when the session shuts down: the task is cancelled on the server.
    let tool = session.tool("mcp_tasks_endless").expect("the tool");
    let call = tokio::spawn(async move { tool.execute(json!({}), CancellationToken::new()).await });
    let deadline = Instant::now() + Duration::from_secs(20);
    let endless = loop {
        if let Some(line) = task_log(&log)
            .into_iter()
            .filter(|line| line.starts_with("tasks/get "))
            .find(|line| !line.ends_with(&task_id))
        {
            break line.trim_start_matches("tasks/get ").to_owned();
        }
        assert!(
            Instant::now() < deadline,
            "the endless task was never polled"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    guard(session.shutdown()).await;
    assert!(
        task_log(&log).contains(&format!("tasks/cancel {endless}")),
        "{:?}",
        task_log(&log)
    );
    let ended = guard(call).await.unwrap();
    assert!(
        ended.as_ref().is_ok_and(|output| output.is_error),
        "{ended:?}"
    );
}
