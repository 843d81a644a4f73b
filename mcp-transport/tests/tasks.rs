//! The Tasks extension against a scripted server on an in-memory transport: a call answered
//! with a task is followed to its end (polls, pushed states, input, time, cancelling), in the
//! 2026-07-28 form and the 2025-11-25 one, and a task started by one client is resumed by id.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::channel::{ScriptedServer, connected_with, pair};
use common::{Answering, guard, object};
use mcp_transport::{
    CancellationToken, ClientOptions, McpClient, RequestOptions, RpcError, TaskStatus,
    ToolCallStart,
};
use serde_json::{Value, json};

const TASKS: &str = "io.modelcontextprotocol/tasks";

/// A stateless client connected to a scripted server with `capabilities`.
async fn stateless_client(
    options: ClientOptions,
    capabilities: Value,
) -> (Arc<McpClient>, ScriptedServer) {
    let (transport, mut server) = pair();
    let options = options.connect_timeout(Duration::from_secs(10));
    let answer = async {
        let probe = server.next().await;
        server.reply(&json!({"jsonrpc": "2.0", "id": probe["id"], "result": {
            "resultType": "complete", "supportedVersions": ["2026-07-28"],
            "capabilities": capabilities,
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "scripted", "version": "1"}}
        }}));
    };
    let (client, ()) =
        guard(async { tokio::join!(McpClient::connect("scripted", transport, options), answer) })
            .await;
    (Arc::new(client.expect("connected")), server)
}

fn polled_only() -> Value {
    json!({"tools": {}})
}

fn pushing() -> Value {
    json!({"tools": {}, "extensions": {TASKS: {}}})
}

fn task(id: &str, status: &str, extra: &Value) -> Value {
    let mut task = json!({
        "taskId": id, "status": status,
        "createdAt": "2026-12-06T10:00:00Z", "lastUpdatedAt": "2026-12-06T10:00:00Z",
        "ttlMs": 60000
    });
    for (key, value) in extra.as_object().unwrap() {
        task[key] = value.clone();
    }
    task
}

fn answer(id: &Value, mut result: Value) -> Value {
    if result.get("resultType").is_none() {
        result["resultType"] = json!("complete");
    }
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

fn created(id: &Value, task_id: &str, extra: &Value) -> Value {
    let mut result = task(task_id, "working", extra);
    result["resultType"] = json!("task");
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

fn sum_result() -> Value {
    json!({"resultType": "complete", "content": [{"type": "text", "text": "5"}], "structuredContent": {"sum": 5}})
}

/// Answers the call the client sends next with task `task_id`, to be polled every `poll_ms`.
async fn answer_call_with_task(server: &mut ScriptedServer, task_id: &str, poll_ms: u64) {
    let request = next_request(server, "tools/call").await;
    server.reply(&created(
        &request["id"],
        task_id,
        &json!({ "pollIntervalMs": poll_ms }),
    ));
}

/// The next request of `method` (notifications such as a cancelled poll are skipped).
async fn next_request(server: &mut ScriptedServer, method: &str) -> Value {
    loop {
        let message = server.next().await;
        if message.get("id").is_some() || message["method"] == method {
            assert_eq!(message["method"], method, "{message}");
            return message;
        }
    }
}

fn spawn_call(
    client: &Arc<McpClient>,
    options: RequestOptions,
) -> tokio::task::JoinHandle<Result<mcp_transport::CallToolResult, mcp_transport::Error>> {
    let client = Arc::clone(client);
    tokio::spawn(async move {
        client
            .call_tool_with("sum", Some(&object(json!({"a": 2, "b": 3}))), &options)
            .await
    })
}

/// Each progress event: its progress, its token and its message.
type Recorded = Arc<Mutex<Vec<(f64, String, String)>>>;

fn recorded_progress() -> (RequestOptions, Recorded) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let options = RequestOptions::default().on_progress(move |progress| {
        let token = serde_json::to_value(&progress.progress_token).unwrap();
        sink.lock().unwrap().push((
            progress.progress,
            token.as_str().unwrap_or_default().to_owned(),
            progress.message.unwrap_or_default(),
        ));
    });
    (options, seen)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_answered_with_a_task_is_polled_to_its_result_and_its_changes_are_progress() {
    let (client, mut server) = stateless_client(ClientOptions::default(), polled_only()).await;
    let (options, progress) = recorded_progress();
    let became = Arc::new(Mutex::new(Vec::new()));
    let options = {
        let became = Arc::clone(&became);
        options.on_task(move |task| became.lock().unwrap().push(task.task_id.clone()))
    };
    let call = spawn_call(&client, options);

    let request = next_request(&mut server, "tools/call").await;
    let declared = &request["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"];
    assert!(declared["extensions"][TASKS].is_object(), "{declared}");
    server.reply(&created(
        &request["id"],
        "t-1",
        &json!({"pollIntervalMs": 100}),
    ));

    let poll = next_request(&mut server, "tasks/get").await;
    assert_eq!(poll["params"]["taskId"], "t-1");
    server.reply(&answer(
        &poll["id"],
        task(
            "t-1",
            "working",
            &json!({"statusMessage": "step 1 of 2", "pollIntervalMs": 100}),
        ),
    ));
    let poll = next_request(&mut server, "tasks/get").await;
    server.reply(&answer(
        &poll["id"],
        task("t-1", "completed", &json!({"result": sum_result()})),
    ));

    let result = guard(call).await.unwrap().expect("the task's result");
    assert_eq!(result.structured_content, Some(json!({"sum": 5})));
    let progress = progress.lock().unwrap().clone();
    let messages: Vec<&str> = progress.iter().map(|(_, _, m)| m.as_str()).collect();
    assert_eq!(
        messages,
        [
            "task working",
            "task working: step 1 of 2",
            "task completed"
        ]
    );
    assert!(progress.iter().all(|(_, token, _)| token == "t-1"));
    assert_eq!(*became.lock().unwrap(), ["t-1"]);
    assert!(progress.windows(2).all(|pair| pair[0].0 < pair[1].0));
}

/// A call from a client whose elicitation handler confirms everything, answered with task
/// `task_id` (polled every 100 ms).
async fn confirming_call_made_task(
    task_id: &str,
) -> (
    Arc<Answering>,
    ScriptedServer,
    tokio::task::JoinHandle<Result<mcp_transport::CallToolResult, mcp_transport::Error>>,
) {
    let confirming = Answering::accepting(json!({"confirmed": true}));
    let options = ClientOptions::default().elicitation(confirming.clone());
    let (client, mut server) = stateless_client(options, polled_only()).await;
    let call = spawn_call(&client, RequestOptions::default());
    answer_call_with_task(&mut server, task_id, 100).await;
    (confirming, server, call)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn input_requests_are_answered_once_by_the_handlers_and_sent_with_tasks_update() {
    let (confirming, mut server, call) = confirming_call_made_task("t-2").await;
    let asking = json!({
        "statusMessage": "waiting for you",
        "pollIntervalMs": 100,
        "inputRequests": {"confirm": {"method": "elicitation/create", "params": {
            "mode": "form", "message": "Delete it?",
            "requestedSchema": {"type": "object", "properties": {"confirmed": {"type": "boolean"}}}
        }}}
    });
    let poll = next_request(&mut server, "tasks/get").await;
    server.reply(&answer(&poll["id"], task("t-2", "input_required", &asking)));

    let update = next_request(&mut server, "tasks/update").await;
    assert_eq!(update["params"]["taskId"], "t-2");
    assert_eq!(
        update["params"]["inputResponses"]["confirm"],
        json!({"action": "accept", "content": {"confirmed": true}})
    );
    server.reply(&answer(&update["id"], json!({})));
    // The server has not taken the answer in yet: the same request again is not asked twice.
    let poll = next_request(&mut server, "tasks/get").await;
    server.reply(&answer(&poll["id"], task("t-2", "input_required", &asking)));
    let poll = next_request(&mut server, "tasks/get").await;
    server.reply(&answer(
        &poll["id"],
        task("t-2", "completed", &json!({"result": sum_result()})),
    ));

    guard(call).await.unwrap().expect("the task's result");
    assert_eq!(confirming.asked(), ["Delete it?"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_asking_question_after_question_is_cut_off_and_cancelled() {
    let (confirming, mut server, call) = confirming_call_made_task("t-9").await;
    let serve = async {
        let mut question = 0;
        loop {
            let message = server.next().await;
            match message["method"].as_str() {
                Some("tasks/get") => {
                    question += 1;
                    let asking = json!({
                        "pollIntervalMs": 100,
                        "inputRequests": {format!("q{question}"): {"method": "elicitation/create",
                            "params": {"mode": "form", "message": format!("Question {question}?"),
                            "requestedSchema": {"type": "object", "properties": {}}}}}
                    });
                    server.reply(&answer(
                        &message["id"],
                        task("t-9", "input_required", &asking),
                    ));
                }
                Some("tasks/update") => server.reply(&answer(&message["id"], json!({}))),
                Some("tasks/cancel") => {
                    assert_eq!(message["params"]["taskId"], "t-9");
                    server.reply(&answer(&message["id"], json!({})));
                    return question;
                }
                _ => {}
            }
        }
    };
    let asked = guard(serve).await;
    let error = guard(call).await.unwrap().expect_err("cut off");
    assert!(error.to_string().contains("more than 16 inputs"), "{error}");
    assert_eq!(asked, 17, "the 17th question is the one refused");
    assert_eq!(confirming.asked().len(), 16);
}

/// A call with `options` that the scripted stateless server answers with task `task_id`, polled
/// every 20 s; returned once the client follows the task (told through `on_task`).
async fn followed_call(
    options: RequestOptions,
    task_id: &str,
) -> (
    Arc<McpClient>,
    ScriptedServer,
    tokio::task::JoinHandle<Result<mcp_transport::CallToolResult, mcp_transport::Error>>,
) {
    let (client, mut server) = stateless_client(ClientOptions::default(), polled_only()).await;
    let told = Arc::new(tokio::sync::Notify::new());
    let options = {
        let told = Arc::clone(&told);
        options.on_task(move |_| told.notify_one())
    };
    let call = spawn_call(&client, options);
    answer_call_with_task(&mut server, task_id, 20000).await;
    guard(told.notified()).await;
    (client, server, call)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_the_call_sends_tasks_cancel() {
    let cancel = CancellationToken::new();
    // Asked once the client has the task, while it waits for its first poll (cancelled
    // before, the call ends with the request and the client never learns of the task).
    let (_client, mut server, call) =
        followed_call(RequestOptions::default().cancel_with(cancel.clone()), "t-3").await;
    let cancelled = async {
        cancel.cancel();
        let message = next_request(&mut server, "tasks/cancel").await;
        assert_eq!(message["params"]["taskId"], "t-3");
        server.reply(&answer(&message["id"], json!({})));
    };
    guard(cancelled).await;
    let error = guard(call).await.unwrap().expect_err("cancelled");
    assert!(error.is_cancelled(), "{error}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_the_call_sends_tasks_cancel() {
    // Dropped once the client has the task: the first poll is 20 s away.
    let (_client, mut server, call) = followed_call(RequestOptions::default(), "t-4").await;
    let poll_or_cancel = async {
        call.abort();
        next_request(&mut server, "tasks/cancel").await
    };
    let message = guard(poll_or_cancel).await;
    assert_eq!(message["params"]["taskId"], "t-4");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closing_the_client_cancels_the_tasks_it_follows() {
    let (client, mut server, call) = followed_call(RequestOptions::default(), "t-5").await;
    let close = {
        let client = Arc::clone(&client);
        tokio::spawn(async move { client.close().await })
    };
    let message = guard(next_request(&mut server, "tasks/cancel")).await;
    assert_eq!(message["params"]["taskId"], "t-5");
    server.reply(&answer(&message["id"], json!({})));
    guard(close).await.unwrap().expect("closed");
    assert!(guard(call).await.unwrap().is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_that_keeps_changing_outlives_the_timeout_and_one_that_stalls_is_cancelled() {
    let (client, mut server) = stateless_client(ClientOptions::default(), polled_only()).await;
    let limit = Duration::from_millis(600);
    let call = spawn_call(&client, RequestOptions::with_timeout(limit));
    let request = next_request(&mut server, "tools/call").await;
    server.reply(&created(
        &request["id"],
        "t-6",
        &json!({"pollIntervalMs": 100}),
    ));
    let started = tokio::time::Instant::now();
    let mut step = 0;
    // Changing, for longer than the timeout.
    while started.elapsed() < limit * 2 {
        step += 1;
        let poll = next_request(&mut server, "tasks/get").await;
        server.reply(&answer(
            &poll["id"],
            task(
                "t-6",
                "working",
                &json!({"statusMessage": format!("step {step}"), "pollIntervalMs": 100}),
            ),
        ));
    }
    let poll = next_request(&mut server, "tasks/get").await;
    server.reply(&answer(
        &poll["id"],
        task("t-6", "completed", &json!({"result": sum_result()})),
    ));
    guard(call)
        .await
        .unwrap()
        .expect("a moving task is not cut short");

    let call = spawn_call(&client, RequestOptions::with_timeout(limit));
    answer_call_with_task(&mut server, "t-7", 100).await;
    let cancel = loop {
        let message = server.next().await;
        match message["method"].as_str() {
            Some("tasks/get") => server.reply(&answer(
                &message["id"],
                task("t-7", "working", &json!({"pollIntervalMs": 100})),
            )),
            Some("tasks/cancel") => break message,
            _ => {}
        }
    };
    assert_eq!(cancel["params"]["taskId"], "t-7");
    server.reply(&answer(&cancel["id"], json!({})));
    let error = guard(call)
        .await
        .unwrap()
        .expect_err("a stalled task is given up");
    assert!(error.is_timeout(), "{error}");
    assert!(
        matches!(error.rpc_error(), Some(RpcError::TaskSilent { task_id, after }) if task_id == "t-7" && *after == limit),
        "{error}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pushed_states_replace_polls_once_the_server_acknowledges_the_task() {
    let (client, mut server) = stateless_client(ClientOptions::default(), pushing()).await;
    let call = spawn_call(&client, RequestOptions::default());
    answer_call_with_task(&mut server, "t-8", 100).await;

    let listen = next_request(&mut server, "subscriptions/listen").await;
    assert_eq!(listen["params"]["notifications"]["taskIds"], json!(["t-8"]));
    let meta = json!({"io.modelcontextprotocol/subscriptionId": listen["id"]});
    server.reply(
        &json!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
        "params": {"notifications": {"taskIds": ["t-8"]}, "_meta": meta}}),
    );
    let mut done = task("t-8", "completed", &json!({"result": sum_result()}));
    done["_meta"] = meta.clone();
    server.reply(&json!({"jsonrpc": "2.0", "method": "notifications/tasks", "params": done}));

    let result = guard(call).await.unwrap().expect("the pushed result");
    assert_eq!(result.structured_content, Some(json!({"sum": 5})));
    // Only the listen stream's end may follow: no poll was needed.
    while let Ok(Some(line)) =
        tokio::time::timeout(Duration::from_millis(300), server.received.recv()).await
    {
        let message: Value = serde_json::from_str(&line).unwrap();
        assert_ne!(message["method"], "tasks/get", "{message}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_does_not_acknowledge_the_task_is_polled() {
    let (client, mut server) = stateless_client(ClientOptions::default(), pushing()).await;
    let call = spawn_call(&client, RequestOptions::default());
    answer_call_with_task(&mut server, "t-9", 100).await;
    let listen = next_request(&mut server, "subscriptions/listen").await;
    server.reply(&json!({"jsonrpc": "2.0", "id": listen["id"],
        "error": {"code": -32601, "message": "Method not found"}}));
    let poll = next_request(&mut server, "tasks/get").await;
    server.reply(&answer(
        &poll["id"],
        task("t-9", "completed", &json!({"result": sum_result()})),
    ));
    guard(call).await.unwrap().expect("the polled result");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn how_a_task_ends_is_how_the_call_ends() {
    let (client, mut server) = stateless_client(ClientOptions::default(), polled_only()).await;
    let ending = |status: &str, extra: Value| task("t", status, &extra);
    let cases = [
        (
            ending(
                "failed",
                json!({"error": {"code": -32603, "message": "the job failed"}}),
            ),
            "the job failed",
        ),
        (
            ending(
                "cancelled",
                json!({"statusMessage": "stopped by the operator"}),
            ),
            "the task t was cancelled: stopped by the operator",
        ),
        (
            ending(
                "completed",
                json!({"result": {"resultType": "input_required", "content": []}}),
            ),
            "a result of type \"input_required\"",
        ),
        (ending("completed", json!({})), "completed without a result"),
    ];
    for (ended, expected) in cases {
        let call = spawn_call(&client, RequestOptions::default());
        let request = next_request(&mut server, "tools/call").await;
        server.reply(&created(
            &request["id"],
            "t",
            &json!({"pollIntervalMs": 100}),
        ));
        let poll = next_request(&mut server, "tasks/get").await;
        server.reply(&answer(&poll["id"], ended));
        let error = guard(call).await.unwrap().expect_err(expected);
        assert!(error.to_string().contains(expected), "{error}");
        assert!(!error.is_cancelled(), "{error}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_started_by_one_client_is_followed_by_id_from_another() {
    let (first, mut server) = stateless_client(ClientOptions::default(), polled_only()).await;
    let start = {
        let first = Arc::clone(&first);
        tokio::spawn(async move {
            first
                .start_tool_call("sum", None, &RequestOptions::default())
                .await
        })
    };
    answer_call_with_task(&mut server, "t-10", 100).await;
    let Ok(ToolCallStart::Task(started)) = guard(start).await.unwrap() else {
        panic!("not a task");
    };
    assert_eq!(
        (started.task_id.as_str(), started.status),
        ("t-10", TaskStatus::Working)
    );
    // Starting follows nothing: no poll, and closing cancels nothing.
    first.close().await.unwrap();
    while let Some(line) = guard(server.received.recv()).await {
        let message: Value = serde_json::from_str(&line).unwrap();
        assert!(
            !matches!(
                message["method"].as_str(),
                Some("tasks/get" | "tasks/cancel")
            ),
            "{message}"
        );
    }

    let (second, mut server) = stateless_client(ClientOptions::default(), polled_only()).await;
    let follow = {
        let second = Arc::clone(&second);
        tokio::spawn(async move { second.follow_task("t-10", &RequestOptions::default()).await })
    };
    let poll = next_request(&mut server, "tasks/get").await;
    server.reply(&answer(
        &poll["id"],
        task("t-10", "working", &json!({"pollIntervalMs": 100})),
    ));
    let poll = next_request(&mut server, "tasks/get").await;
    server.reply(&answer(
        &poll["id"],
        task("t-10", "completed", &json!({"result": sum_result()})),
    ));
    let result = guard(follow).await.unwrap().expect("resumed");
    assert_eq!(result.structured_content, Some(json!({"sum": 5})));
}

/// A client of the 2025-11-25 handshake connected to a scripted server offering tool tasks.
async fn handshake_client() -> (Arc<McpClient>, ScriptedServer) {
    let (client, server, initialize) = connected_with(json!({
        "tools": {},
        "tasks": {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}
    }))
    .await;
    assert!(
        initialize["params"]["capabilities"]["tasks"].is_object(),
        "{initialize}"
    );
    (Arc::new(client), server)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2025_tool_that_requires_a_task_is_called_as_one_and_its_result_fetched() {
    let (client, mut server) = handshake_client().await;
    let list = {
        let client = Arc::clone(&client);
        tokio::spawn(async move { client.list_tools().await })
    };
    let request = next_request(&mut server, "tools/list").await;
    server.reply(&json!({"jsonrpc": "2.0", "id": request["id"], "result": {"tools": [
        {"name": "sum", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "required"}},
        {"name": "echo", "inputSchema": {"type": "object"}}
    ]}}));
    guard(list).await.unwrap().unwrap();

    let (options, progress) = recorded_progress();
    let call = spawn_call(&client, options);
    let request = next_request(&mut server, "tools/call").await;
    assert!(request["params"]["task"].is_object(), "{request}");
    server.reply(
        &json!({"jsonrpc": "2.0", "id": request["id"], "result": {"task": {
        "taskId": "old-1", "status": "working", "ttl": null, "pollInterval": 100,
        "createdAt": "2026-12-06T10:00:00Z", "lastUpdatedAt": "2026-12-06T10:00:00Z"}}}),
    );
    let poll = next_request(&mut server, "tasks/get").await;
    server.reply(&json!({"jsonrpc": "2.0", "id": poll["id"], "result": {
        "taskId": "old-1", "status": "completed", "ttl": null,
        "createdAt": "2026-12-06T10:00:00Z", "lastUpdatedAt": "2026-12-06T10:00:01Z"}}));
    let fetch = next_request(&mut server, "tasks/result").await;
    assert_eq!(fetch["params"]["taskId"], "old-1");
    server.reply(&json!({"jsonrpc": "2.0", "id": fetch["id"], "result": {
        "content": [{"type": "text", "text": "5"}]}}));
    let result = guard(call).await.unwrap().expect("the task's result");
    assert_eq!(common::text(&result), "5");
    assert_eq!(progress.lock().unwrap().len(), 2);

    // A tool that does not require a task is called plainly.
    let plain = {
        let client = Arc::clone(&client);
        tokio::spawn(async move { client.call_tool("echo", None).await })
    };
    let request = next_request(&mut server, "tools/call").await;
    assert!(request["params"].get("task").is_none(), "{request}");
    server.reply(&json!({"jsonrpc": "2.0", "id": request["id"], "result": {"content": []}}));
    guard(plain).await.unwrap().unwrap();

    // tasks/update belongs to the 2026 form.
    let error = client
        .update_task("old-1", &object(json!({})))
        .await
        .expect_err("not in this form");
    assert!(error.to_string().contains("tasks/result"), "{error}");
}

/// A 2025-11-25 client that knows `sum` requires a task.
async fn handshake_client_with_task_tool() -> (Arc<McpClient>, ScriptedServer) {
    let (client, mut server) = handshake_client().await;
    let list = {
        let client = Arc::clone(&client);
        tokio::spawn(async move { client.list_tools().await })
    };
    let request = next_request(&mut server, "tools/list").await;
    server.reply(&json!({"jsonrpc": "2.0", "id": request["id"], "result": {"tools": [
        {"name": "sum", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "required"}}
    ]}}));
    guard(list).await.unwrap().unwrap();
    (client, server)
}

/// The 2025-11-25 answer to a call made a task: task `old-2`, working.
fn created_2025(id: &Value) -> Value {
    let mut task = task_2025(id, "working", "started");
    task["result"] = json!({"task": task["result"].take()});
    task
}

/// Task `old-2` as a 2025-11-25 `tasks/get` answers.
fn task_2025(id: &Value, status: &str, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": {
        "taskId": "old-2", "status": status, "statusMessage": message, "ttl": null,
        "pollInterval": 100, "createdAt": "2026-12-06T10:00:00Z",
        "lastUpdatedAt": "2026-12-06T10:00:00Z"}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2025_task_that_keeps_changing_after_its_input_outlives_the_timeout() {
    let (client, mut server) = handshake_client_with_task_tool().await;
    let call = spawn_call(
        &client,
        RequestOptions::default().timeout(Duration::from_millis(800)),
    );
    let request = next_request(&mut server, "tools/call").await;
    server.reply(&created_2025(&request["id"]));
    let poll = next_request(&mut server, "tasks/get").await;
    server.reply(&task_2025(&poll["id"], "input_required", "asking"));

    // tasks/result waits; the polls go on beside it, and the task changes for three times the
    // call's timeout before it ends.
    let mut fetch = None;
    let started = std::time::Instant::now();
    let mut step = 0;
    guard(async {
        loop {
            let message = server.next().await;
            match message["method"].as_str() {
                Some("tasks/result") => fetch = Some(message),
                Some("tasks/get") if started.elapsed() < Duration::from_millis(2400) => {
                    step += 1;
                    server.reply(&task_2025(
                        &message["id"],
                        "working",
                        &format!("step {step}"),
                    ));
                }
                Some("tasks/get") => {
                    server.reply(&task_2025(&message["id"], "completed", "done"));
                    break;
                }
                other => panic!("unexpected {other:?}: {message}"),
            }
        }
    })
    .await;
    let fetch = fetch.expect("tasks/result was sent once the task asked for input");
    assert_eq!(fetch["params"]["taskId"], "old-2");
    server.reply(&json!({"jsonrpc": "2.0", "id": fetch["id"], "result": {
        "content": [{"type": "text", "text": "5"}]}}));
    let result = guard(call).await.unwrap().expect("the task's result");
    assert_eq!(common::text(&result), "5");
}

/// Answers every poll of task `old-2` with `input_required` (calling `on_result` when its
/// `tasks/result` comes) until its `tasks/cancel` comes, and answers that.
async fn asking_until_cancelled(server: &mut ScriptedServer, mut on_result: impl FnMut()) {
    let cancelled = guard(async {
        loop {
            let message = server.next().await;
            match message["method"].as_str() {
                Some("tasks/result") => on_result(),
                Some("tasks/get") => {
                    server.reply(&task_2025(&message["id"], "input_required", "asking"));
                }
                Some("tasks/cancel") => return message,
                _ => {}
            }
        }
    })
    .await;
    assert_eq!(cancelled["params"]["taskId"], "old-2");
    server.reply(&task_2025(&cancelled["id"], "cancelled", "stopped"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2025_task_that_stalls_after_its_input_is_cancelled() {
    let (client, mut server) = handshake_client_with_task_tool().await;
    let call = spawn_call(
        &client,
        RequestOptions::default().timeout(Duration::from_millis(600)),
    );
    let request = next_request(&mut server, "tools/call").await;
    server.reply(&created_2025(&request["id"]));
    asking_until_cancelled(&mut server, || {}).await;
    let error = guard(call).await.unwrap().expect_err("stalled");
    assert!(error.to_string().contains("old-2"), "{error}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_a_2025_call_while_tasks_result_waits_sends_tasks_cancel() {
    let (client, mut server) = handshake_client_with_task_tool().await;
    let cancel = CancellationToken::new();
    let call = spawn_call(
        &client,
        RequestOptions::default().cancel_with(cancel.clone()),
    );
    let request = next_request(&mut server, "tools/call").await;
    server.reply(&created_2025(&request["id"]));
    let poll = next_request(&mut server, "tasks/get").await;
    server.reply(&task_2025(&poll["id"], "input_required", "asking"));
    asking_until_cancelled(&mut server, || cancel.cancel()).await;
    let error = guard(call).await.unwrap().expect_err("cancelled");
    assert!(error.is_cancelled(), "{error}");
}
