//! The Tasks extension against real servers: `interop/node/tasks_server.mjs` (the TypeScript
//! SDK 2.4 with `@modelcontextprotocol/ext-tasks`, the 2026-07-28 form, stateless and
//! dual-era) over Streamable HTTP and stdio, and server-everything's `simulate-research-query`
//! (the 2025-11-25 form) over stdio.
//!
//! A task that completes, one that asks for input (answered by the client's elicitation
//! handler), one cancelled by the caller (the server logs the `tasks/cancel` it received), one
//! that fails, and one resumed by id from a second client.
//!
//! Ignored under a plain `cargo test`; `cargo xtask ci` installs the peers and runs them.

#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{Answering, guard, object, text, unique_marker};
use mcp_transport::http::HttpServerParams;
use mcp_transport::{
    CancellationToken, ClientOptions, McpClient, ProtocolVersion, RequestOptions, RpcError,
    StdioServerParams, TaskStatus, ToolCallStart,
};
use serde_json::{Value, json};
use testkit::{RemotePeer, RunningPeer, interop_path, task_log};

fn options() -> ClientOptions {
    ClientOptions::default()
        .connect_timeout(Duration::from_secs(20))
        .elicitation(Answering::accepting(json!({"confirmed": true})))
}

/// A log file of its own for one server.
fn log_file(label: &str) -> PathBuf {
    std::env::temp_dir().join(format!("{}.log", unique_marker(label)))
}

/// The tasks server over HTTP, logging to `log`, and a client of it.
async fn over_http(log: &Path, options: ClientOptions) -> (RunningPeer, McpClient) {
    let running = RemotePeer::TypeScriptTasks.start_with_log(log);
    let params = HttpServerParams::new(running.url()).expect("a valid URL");
    let client = guard(McpClient::connect_http("tasks", params, options))
        .await
        .expect("connects over HTTP");
    (running, client)
}

/// The tasks server over stdio, logging to `log`.
async fn over_stdio(log: &Path, options: ClientOptions) -> McpClient {
    interop_path("interop/node/node_modules/@modelcontextprotocol/ext-tasks/package.json");
    let script = interop_path("interop/node/tasks_server.mjs");
    let params = StdioServerParams::new(
        "node",
        [
            script.display().to_string(),
            "stdio".to_owned(),
            "--log".to_owned(),
            log.display().to_string(),
        ],
    );
    guard(McpClient::connect_stdio("tasks", params, options))
        .await
        .expect("connects over stdio")
}

/// Every way the 2026 form is exercised, against one client of the tasks server.
async fn every_kind_of_task(client: &McpClient, log: &Path, how: &str) {
    assert_eq!(
        client.protocol_version(),
        ProtocolVersion::V2026_07_28,
        "{how}"
    );
    assert!(client.capabilities().offers_tasks(), "{how}");

    // Completes: its steps are progress, its result the call's.
    let steps = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&steps);
    let progress = RequestOptions::default().on_progress(move |report| {
        seen.lock()
            .unwrap()
            .push(report.message.unwrap_or_default());
    });
    let result = guard(client.call_tool_with(
        "slow_sum",
        Some(&object(json!({"a": 2, "b": 5, "steps": 3}))),
        &progress,
    ))
    .await
    .unwrap_or_else(|error| panic!("{how}: {error}"));
    assert_eq!(text(&result), "7", "{how}");
    assert_eq!(result.structured_content, Some(json!({"sum": 7})), "{how}");
    let steps = steps.lock().unwrap().clone();
    assert!(
        steps.iter().any(|step| step.contains("step 1 of 3")),
        "{how}: {steps:?}"
    );
    assert_eq!(
        steps.last().map(String::as_str),
        Some("task completed: sum of 2 and 5"),
        "{how}: {steps:?}"
    );

    // Asks for input: the elicitation handler answers, tasks/update carries it.
    let confirmed = guard(client.call_tool("confirm", Some(object(json!({"action": "deploy"})))))
        .await
        .unwrap_or_else(|error| panic!("{how}: {error}"));
    assert_eq!(text(&confirmed), "confirmed deploy", "{how}");
    assert!(
        task_log(log)
            .iter()
            .any(|line| line.starts_with("tasks/update ")),
        "{how}: {:?}",
        task_log(log)
    );

    // Fails: the task's JSON-RPC error is the call's.
    let failed = guard(client.call_tool("fail", None))
        .await
        .expect_err("the task fails");
    assert!(
        failed.to_string().contains("the job failed"),
        "{how}: {failed}"
    );

    // Cancelled by the caller: the server receives tasks/cancel for it.
    let cancel = CancellationToken::new();
    let started = Arc::new(Mutex::new(None));
    let noted = Arc::clone(&started);
    let options = RequestOptions::default()
        .cancel_with(cancel.clone())
        .on_task(move |task| *noted.lock().unwrap() = Some(task.task_id.clone()));
    let trigger = cancel.clone();
    // Cancelled once the task has been seen to move (its second status).
    let ticking = options.clone().on_progress(move |report| {
        if report.progress >= 2.0 {
            trigger.cancel();
        }
    });
    let endless = guard(client.call_tool_with("endless", None, &ticking))
        .await
        .expect_err("cancelled");
    assert!(endless.is_cancelled(), "{how}: {endless}");
    let task_id = started
        .lock()
        .unwrap()
        .clone()
        .expect("the call became a task");
    assert!(
        task_log(log).contains(&format!("tasks/cancel {task_id}")),
        "{how}: {:?}",
        task_log(log)
    );
    let after = guard(client.get_task(&task_id)).await.expect("tasks/get");
    assert_eq!(after.status, TaskStatus::Cancelled, "{how}");

    // A plain tool is answered at once.
    let quick = guard(client.call_tool("quick", Some(object(json!({"text": "hi"})))))
        .await
        .unwrap_or_else(|error| panic!("{how}: {error}"));
    assert_eq!(text(&quick), "hi", "{how}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the pinned interop peers (cargo xtask interop)"]
async fn every_kind_of_task_over_http() {
    let log = log_file("tasks-http");
    let (_running, client) = over_http(&log, options()).await;
    every_kind_of_task(&client, &log, "http").await;
    // Each tasks/get, tasks/update and tasks/cancel named its task in Mcp-Name: the server's
    // SDK refuses one that does not before its handler (and the log) sees it.
    assert!(
        task_log(&log)
            .iter()
            .any(|line| line.starts_with("tasks/get "))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the pinned interop peers (cargo xtask interop)"]
async fn every_kind_of_task_over_stdio() {
    let log = log_file("tasks-stdio");
    let client = over_stdio(&log, options()).await;
    every_kind_of_task(&client, &log, "stdio").await;
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the pinned interop peers (cargo xtask interop)"]
async fn a_task_started_by_one_client_is_finished_by_another() {
    let log = log_file("tasks-resume");
    let (running, first) = over_http(&log, options()).await;
    let started = guard(first.start_tool_call(
        "slow_sum",
        Some(&object(json!({"a": 20, "b": 22, "steps": 4}))),
        &RequestOptions::default(),
    ))
    .await
    .expect("started");
    let ToolCallStart::Task(task) = started else {
        panic!("the server answered at once: {started:?}");
    };
    // The first client goes away; closing it cancels nothing (it was following nothing).
    first.close().await.unwrap();
    assert!(
        !task_log(&log)
            .iter()
            .any(|line| line.starts_with("tasks/cancel"))
    );

    let params = HttpServerParams::new(running.url()).expect("a valid URL");
    let second = guard(McpClient::connect_http("tasks", params, options()))
        .await
        .expect("connects");
    let result = guard(second.follow_task(&task.task_id, &RequestOptions::default()))
        .await
        .expect("resumed");
    assert_eq!(result.structured_content, Some(json!({"sum": 42})));
    let ended = guard(second.task_result(&task.task_id))
        .await
        .expect("the result again");
    assert_eq!(
        ended.map(|result| text(&result).to_owned()),
        Some("42".to_owned())
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the pinned interop peers (cargo xtask interop)"]
async fn a_client_pinned_to_the_handshake_era_is_refused_tasks_it_did_not_declare() {
    // The 2025 handshake carries no per-request extensions: the server's task tools say what
    // they need, and the error says it to the caller.
    let log = log_file("tasks-2025");
    let client = over_stdio(
        &log,
        options().protocol_version(ProtocolVersion::V2025_11_25),
    )
    .await;
    let error = guard(client.call_tool("slow_sum", Some(object(json!({"a": 1, "b": 1})))))
        .await
        .expect_err("needs the extension");
    assert!(
        matches!(error.rpc_error(), Some(RpcError::Server(refusal)) if refusal.code == -32021),
        "{error}"
    );
    let quick = guard(client.call_tool("quick", Some(object(json!({"text": "hi"})))))
        .await
        .expect("quick");
    assert_eq!(text(&quick), "hi");
    client.close().await.unwrap();
}

/// server-everything over stdio, answering elicitations with `answer`.
async fn server_everything(answer: Value) -> (McpClient, Arc<Answering>) {
    let script = interop_path(
        "interop/node/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
    );
    let handler = Answering::accepting(answer);
    let options = ClientOptions::default()
        .connect_timeout(Duration::from_secs(20))
        .elicitation(handler.clone());
    let params = StdioServerParams::new("node", [script.display().to_string(), "stdio".to_owned()]);
    let client = guard(McpClient::connect_stdio("everything", params, options))
        .await
        .expect("connects");
    (client, handler)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the pinned interop peers (cargo xtask interop)"]
async fn server_everything_runs_its_research_as_a_2025_task() {
    let (client, handler) = server_everything(json!({"interpretation": "snake"})).await;
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_11_25);
    assert!(client.capabilities().offers_tasks());
    // Its task tool is registered after the handshake: listed until it is there.
    let mut listed = Vec::new();
    for _ in 0..50 {
        listed = guard(client.list_tools()).await.expect("tools/list");
        if listed
            .iter()
            .any(|tool| tool.name == "simulate-research-query")
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let tool = listed
        .iter()
        .find(|tool| tool.name == "simulate-research-query")
        .expect("the task tool");
    assert_eq!(tool.task_support(), mcp_transport::TaskSupport::Required);

    let stages = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&stages);
    let progress = RequestOptions::default().on_progress(move |report| {
        seen.lock()
            .unwrap()
            .push(report.message.unwrap_or_default());
    });
    let report = guard(client.call_tool_with(
        "simulate-research-query",
        Some(&object(json!({"topic": "MCP"}))),
        &progress,
    ))
    .await
    .expect("the research");
    assert!(!report.is_error, "{report:?}");
    assert!(
        text(&report).contains("Research Report: MCP"),
        "{}",
        text(&report)
    );
    // Its stages (a second each) reach the caller as progress, in their order; a poll a
    // second apart may fall either side of one, so which stages are seen is not fixed.
    let stages = stages.lock().unwrap().clone();
    let order = [
        "Gathering sources",
        "Analyzing content",
        "Synthesizing findings",
        "Generating report",
    ];
    let seen: Vec<usize> = stages
        .iter()
        .filter(|stage| stage.starts_with("task working: "))
        .map(|stage| {
            order
                .iter()
                .position(|name| stage.contains(name))
                .unwrap_or_else(|| panic!("not a stage of the research: {stage:?}"))
        })
        .collect();
    assert!(!seen.is_empty(), "{stages:?}");
    assert!(seen.windows(2).all(|pair| pair[0] < pair[1]), "{stages:?}");
    assert!(
        stages
            .last()
            .is_some_and(|stage| stage.starts_with("task completed")),
        "{stages:?}"
    );

    // Ambiguous: the task waits for input, which comes as an elicitation while tasks/result
    // waits, answered by the same handler as any elicitation.
    let clarified = guard(client.call_tool(
        "simulate-research-query",
        Some(object(json!({"topic": "python", "ambiguous": true}))),
    ))
    .await
    .expect("the clarified research");
    assert!(
        text(&clarified).contains("python (snake)"),
        "{}",
        text(&clarified)
    );
    assert_eq!(handler.asked().len(), 1);
    client.close().await.unwrap();
}
