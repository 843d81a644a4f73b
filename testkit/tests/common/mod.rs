//! A raw line-level driver of the fixture for testkit's own tests: no MCP client, just JSON
//! lines written to stdin and read from stdout.

#![allow(
    dead_code,
    reason = "each test file uses a different part of the driver"
)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::needless_pass_by_value,
    reason = "test code: failures panic with a message; `json!` arguments read best by value"
)]

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use serde_json::{Value, json};
use testkit::FixtureServer;

/// A deadlock guard for every read: far longer than anything the fixture is asked to do.
pub(crate) const PATIENCE: Duration = Duration::from_secs(20);

/// A running fixture with its stdout read line by line on a thread.
pub(crate) struct Fixture {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Vec<u8>>,
    stderr: Arc<Mutex<Vec<u8>>>,
    stderr_reader: Option<thread::JoinHandle<()>>,
}

impl Fixture {
    pub(crate) fn spawn(server: &FixtureServer) -> Self {
        let mut child = server
            .std_command()
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn the fixture");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, lines) = mpsc::channel();
        thread::spawn(move || {
            let mut stdout = BufReader::new(stdout);
            loop {
                let mut line = Vec::new();
                match stdout.read_until(b'\n', &mut line) {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {
                        if tx.send(line).is_err() {
                            return;
                        }
                    }
                }
            }
        });
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let mut pipe = child.stderr.take().expect("piped stderr");
        let sink = Arc::clone(&stderr);
        let stderr_reader = thread::spawn(move || {
            let mut chunk = [0u8; 8192];
            while let Ok(n @ 1..) = pipe.read(&mut chunk) {
                sink.lock().unwrap().extend_from_slice(&chunk[..n]);
            }
        });
        Self {
            stdin: child.stdin.take(),
            child,
            lines,
            stderr,
            stderr_reader: Some(stderr_reader),
        }
    }

    pub(crate) fn pid(&self) -> i32 {
        i32::try_from(self.child.id()).unwrap()
    }

    pub(crate) fn send_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin still open");
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    pub(crate) fn send(&mut self, message: &Value) {
        self.send_line(&message.to_string());
    }

    pub(crate) fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// The next raw line from stdout, '\n' included.
    pub(crate) fn recv_line(&mut self) -> Vec<u8> {
        self.lines
            .recv_timeout(PATIENCE)
            .expect("the fixture wrote no line in time")
    }

    /// The next stdout line that is JSON.
    pub(crate) fn recv(&mut self) -> Value {
        loop {
            if let Ok(message) = serde_json::from_slice(&self.recv_line()) {
                return message;
            }
        }
    }

    /// Sends a request and returns its response; other messages on the way are returned too.
    pub(crate) fn request_collecting(
        &mut self,
        id: i64,
        method: &str,
        params: Value,
    ) -> (Value, Vec<Value>) {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let mut others = Vec::new();
        loop {
            let message = self.recv();
            if message["id"] == id && message.get("method").is_none() {
                return (message, others);
            }
            others.push(message);
        }
    }

    pub(crate) fn request(&mut self, id: i64, method: &str, params: Value) -> Value {
        self.request_collecting(id, method, params).0
    }

    /// Calls a tool and returns the `result`, failing on a JSON-RPC error.
    pub(crate) fn call(&mut self, id: i64, tool: &str, arguments: Value) -> Value {
        let response = self.request(
            id,
            "tools/call",
            json!({"name": tool, "arguments": arguments}),
        );
        assert!(response.get("error").is_none(), "{tool} failed: {response}");
        response["result"].clone()
    }

    /// The text of the first content block of a tool result.
    pub(crate) fn call_text(&mut self, id: i64, tool: &str, arguments: Value) -> String {
        let result = self.call(id, tool, arguments);
        result["content"][0]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("no text content in {result}"))
            .to_owned()
    }

    /// The initialize request and the initialized notification; returns the initialize result.
    pub(crate) fn handshake(&mut self) -> Value {
        let response = self.request(
            0,
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "testkit-tests", "version": "0"},
            }),
        );
        self.notify("notifications/initialized", json!({}));
        response["result"].clone()
    }

    pub(crate) fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// Waits for the exit (a deadlock guard kills it after [`PATIENCE`]) and returns the
    /// status and all of stderr.
    pub(crate) fn wait(mut self) -> (ExitStatus, String) {
        let exited = testkit::wait_until(PATIENCE, || matches!(self.child.try_wait(), Ok(Some(_))));
        if !exited {
            let _ = self.child.kill();
        }
        let status = self.child.wait().unwrap();
        if let Some(reader) = self.stderr_reader.take() {
            reader.join().unwrap();
        }
        assert!(exited, "the fixture did not exit");
        (status, self.stderr_text())
    }

    /// Stderr read so far.
    pub(crate) fn stderr_text(&self) -> String {
        String::from_utf8_lossy(&self.stderr.lock().unwrap()).into_owned()
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The tool names in a `tools/list` response.
pub(crate) fn tool_names(response: &Value) -> Vec<String> {
    response["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("no tool list in {response}"))
        .iter()
        .map(|tool| tool["name"].as_str().unwrap().to_owned())
        .collect()
}
