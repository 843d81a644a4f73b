//! Shared helpers for the mcp-transport integration tests: start the fixture server, call its
//! introspection tools, and find processes.

#![allow(dead_code, unreachable_pub, clippy::expect_used, clippy::unwrap_used)]

pub mod channel;

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_transport::handlers::{ElicitRequest, ElicitResult, ElicitationHandler};
use mcp_transport::{
    CallToolResult, ClientOptions, ErrorObject, JsonObject, McpClient, RequestOptions,
    StdioServerParams,
};
use serde_json::{Value, json};
use testkit::FixtureServer;
use tokio::io::AsyncReadExt as _;
use tokio::net::TcpStream;

/// A bound on anything a test waits for, so a bug shows up as a failure, never as a hang.
pub const HANG_GUARD: Duration = Duration::from_secs(20);

/// Stdio parameters that start the fixture server with its script.
pub fn params(fixture: &FixtureServer) -> StdioServerParams {
    let (program, args) = fixture.command();
    StdioServerParams::new(program.to_string_lossy(), args)
}

/// Connects to the fixture with default options.
pub async fn connect(fixture: &FixtureServer) -> McpClient {
    connect_with(fixture, ClientOptions::default()).await
}

/// Connects to the fixture with the given options.
pub async fn connect_with(fixture: &FixtureServer, options: ClientOptions) -> McpClient {
    guard(McpClient::connect_stdio(
        "fixture",
        params(fixture),
        options,
    ))
    .await
    .expect("the fixture server should connect")
}

/// Connects with ready-made stdio parameters.
pub async fn connect_with_params(server: StdioServerParams) -> McpClient {
    guard(McpClient::connect_stdio(
        "fixture",
        server,
        ClientOptions::default(),
    ))
    .await
    .expect("the fixture server should connect")
}

/// Awaits `future`, failing the test if it takes longer than [`HANG_GUARD`].
pub async fn guard<F: Future>(future: F) -> F::Output {
    tokio::time::timeout(HANG_GUARD, future)
        .await
        .expect("the operation hung")
}

/// A JSON object from a `json!` literal.
pub fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(object) => object,
        other => panic!("not an object: {other}"),
    }
}

/// The text of the first content block.
pub fn text(result: &CallToolResult) -> &str {
    result
        .content
        .first()
        .and_then(|block| block.as_text())
        .expect("a text block")
}

/// Options asking for progress, and the `progress` values reported, in the order they came.
pub fn recording_progress() -> (RequestOptions, Arc<Mutex<Vec<f64>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let options = RequestOptions::default().on_progress(move |progress| {
        sink.lock().expect("progress log").push(progress.progress);
    });
    (options, seen)
}

/// Calls a fixture tool that answers with JSON in its text and parses it.
pub async fn call_json(client: &McpClient, tool: &str) -> Value {
    let result = guard(client.call_tool(tool, None)).await.expect(tool);
    serde_json::from_str(text(&result)).expect("the tool answers JSON text")
}

/// Everything the fixture received from the client that was a notification or a response.
pub async fn events(client: &McpClient) -> Vec<Value> {
    match call_json(client, "events").await {
        Value::Array(events) => events,
        other => panic!("events is not an array: {other}"),
    }
}

/// Waits until the fixture has started a `sleep` call: from then on the request is in the
/// server's hands, and cancelling it must reach the server.
pub async fn sleep_started(client: &McpClient) {
    guard(async {
        loop {
            let events = events(client).await;
            if events
                .iter()
                .any(|event| event["started"] == json!("sleep"))
            {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
}

/// The fixture's own pid, process group and grandchild pid.
pub struct Pids {
    pub pid: i32,
    pub pgid: i32,
    pub grandchild: Option<i32>,
}

pub async fn pids(client: &McpClient) -> Pids {
    let value = call_json(client, "pids").await;
    let number = |key: &str| value[key].as_i64().and_then(|n| i32::try_from(n).ok());
    Pids {
        pid: number("pid").expect("pid"),
        pgid: number("pgid").expect("pgid"),
        grandchild: number("grandchild"),
    }
}

/// Live processes whose command line contains `marker` as one argument.
pub fn processes_with_arg(marker: &str) -> Vec<i32> {
    testkit::processes_with_arg(marker)
}

/// A marker unique to this test process and call site, to find the servers a test started.
pub fn unique_marker(label: &str) -> String {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    format!(
        "{label}-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}

/// Waits (off the async workers) until no process of the group is alive.
pub async fn group_is_gone(pgid: i32) -> bool {
    tokio::task::spawn_blocking(move || {
        testkit::wait_until(Duration::from_secs(10), || {
            testkit::process_group_members(pgid).is_empty()
        })
    })
    .await
    .expect("the waiting thread")
}

/// Waits (off the async workers) until `pid` is gone.
pub async fn process_is_gone(pid: i32) -> bool {
    tokio::task::spawn_blocking(move || {
        testkit::wait_until(Duration::from_secs(10), || !testkit::process_is_alive(pid))
    })
    .await
    .expect("the waiting thread")
}

/// Awaits every task and returns their outputs in order.
pub async fn join_all<T>(tasks: Vec<tokio::task::JoinHandle<T>>) -> Vec<T> {
    let mut outputs = Vec::with_capacity(tasks.len());
    for task in tasks {
        outputs.push(task.await.expect("task"));
    }
    outputs
}

/// Calls the Python echo server's `add` `calls` times at once; each call must get its own sum
/// back (the v2 SDK answers out of order).
pub async fn sums_in_flight(client: std::sync::Arc<McpClient>, calls: i64) {
    let tasks: Vec<_> = (0..calls)
        .map(|index| {
            let client = std::sync::Arc::clone(&client);
            tokio::spawn(async move {
                let sum = client
                    .call_tool("add", Some(object(json!({"a": index, "b": 1000}))))
                    .await
                    .expect("add");
                (index, sum.structured_content)
            })
        })
        .collect();
    for task in tasks {
        let (index, structured) = guard(task).await.expect("task");
        assert_eq!(structured, Some(json!({"result": index + 1000})));
    }
    guard(client.close()).await.expect("close");
}

/// `cargo run` of the `probe` example with `args`, the way a user runs it (stdin closed).
pub fn run_probe_example(args: &[&str]) -> std::process::Output {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    std::process::Command::new(cargo)
        .current_dir(testkit::workspace_root())
        .args([
            "run",
            "--quiet",
            "-p",
            "mcp-transport",
            "--example",
            "probe",
            "--",
        ])
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("cargo runs")
}

/// Runs server-everything's `trigger-long-running-operation` in 4 steps with a progress
/// callback; the 4 notifications must arrive, in order. Closes the client.
pub async fn four_progress_steps_in_order(client: McpClient) {
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = std::sync::Arc::clone(&seen);
    let options = mcp_transport::RequestOptions::default()
        .timeout(Duration::from_secs(10))
        .on_progress(move |progress| sink.lock().expect("log").push(progress.progress));
    guard(client.call_tool_with(
        "trigger-long-running-operation",
        Some(&object(json!({"duration": 1, "steps": 4}))),
        &options,
    ))
    .await
    .expect("long-running operation");
    let seen = seen.lock().expect("log").clone();
    assert_eq!(seen.len(), 4, "{seen:?}");
    assert!(seen.windows(2).all(|pair| pair[0] < pair[1]), "{seen:?}");
    guard(client.close()).await.expect("close");
}

/// A `tracing` writer that keeps everything written, to search the logs for secrets.
#[derive(Clone, Default)]
pub struct Captured(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl Captured {
    /// Everything logged so far.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }

    /// Logs everything (TRACE and up) into this writer while the guard lives.
    pub fn install(&self) -> tracing::subscriber::DefaultGuard {
        let writer = self.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::TRACE)
            .with_writer(move || writer.clone())
            .with_ansi(false)
            .finish();
        tracing::subscriber::set_default(subscriber)
    }
}

impl std::io::Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The method and path of a request, its body read and ignored.
pub async fn read_request(stream: &mut TcpStream) -> Option<(String, String)> {
    let mut bytes = Vec::new();
    let mut buffer = [0; 4096];
    let head_end = loop {
        if let Some(end) = bytes.windows(4).position(|window| window == b"\r\n\r\n") {
            break end + 4;
        }
        let read = stream.read(&mut buffer).await.ok()?;
        if read == 0 {
            return None;
        }
        bytes.extend_from_slice(&buffer[..read]);
    };
    let head = String::from_utf8_lossy(&bytes[..head_end]).into_owned();
    let length = head
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse::<usize>().ok())?
        })
        .unwrap_or(0);
    while bytes.len() < head_end + length {
        let read = stream.read(&mut buffer).await.ok()?;
        if read == 0 {
            return None;
        }
        bytes.extend_from_slice(&buffer[..read]);
    }
    let mut request_line = head.lines().next()?.split_whitespace();
    Some((
        request_line.next()?.to_owned(),
        request_line.next()?.to_owned(),
    ))
}

/// An elicitation handler that accepts every question with one answer (or declines every
/// one), and records the messages it was asked.
pub struct Answering {
    /// The content of every acceptance; `None` declines.
    answer: Option<Value>,
    asked: Mutex<Vec<String>>,
}

impl Answering {
    /// Accepts every question with `answer`.
    pub fn accepting(answer: Value) -> Arc<Self> {
        Arc::new(Self {
            answer: Some(answer),
            asked: Mutex::new(Vec::new()),
        })
    }

    /// Declines every question.
    pub fn declining() -> Arc<Self> {
        Arc::new(Self {
            answer: None,
            asked: Mutex::new(Vec::new()),
        })
    }

    /// The messages asked so far, in order.
    pub fn asked(&self) -> Vec<String> {
        self.asked.lock().unwrap().clone()
    }
}

#[async_trait::async_trait]
impl ElicitationHandler for Answering {
    async fn elicit(
        &self,
        _server: &str,
        request: ElicitRequest,
    ) -> Result<ElicitResult, ErrorObject> {
        self.asked.lock().unwrap().push(request.message);
        Ok(match &self.answer {
            Some(answer) => ElicitResult::accept(object(answer.clone())),
            None => ElicitResult::decline(),
        })
    }
}
