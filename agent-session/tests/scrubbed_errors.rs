//! A server that reflects the request in its error body, through the binary: our own
//! `Authorization` header, a `!command` header value and a URL query value come back in the
//! 500's body, and none of them may reach `list`, `list --json` or the debug log on stderr;
//! the failure itself (HTTP 500) still shows.
//!
//! Every run gets a temporary project and home (`HOME` set, XDG variables removed), so the
//! user's own files are never read or written.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod cli_support;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;

use cli_support::{Sandbox, run_to_end};
use serde_json::json;

impl Sandbox {
    /// An empty project and home labelled `scrubbed`, every command run with `--no-cache`.
    fn new(test: &str) -> Self {
        Self::labelled("scrubbed", test).without_cache()
    }
}

/// A server on 127.0.0.1 that answers every request with 500 and the request itself (request
/// line, headers, body) as a plain-text body; stopped and joined when dropped.
struct Reflector {
    port: u16,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Reflector {
    fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = Arc::clone(&stop);
        let thread = std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stopped.load(Ordering::SeqCst) {
                    return;
                }
                if let Ok(stream) = stream {
                    std::thread::spawn(move || reflect(stream));
                }
            }
        });
        Self {
            port,
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for Reflector {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the accept loop so that it sees the flag.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Answers one request with 500 and the request.
fn reflect(stream: TcpStream) {
    let mut reader = BufReader::new(stream);
    let mut request = String::new();
    let mut length = 0;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = value.trim().parse().unwrap_or(0);
        }
        request.push_str(&line);
        if line == "\r\n" {
            break;
        }
    }
    let mut body = vec![0; length];
    if reader.read_exact(&mut body).is_err() {
        return;
    }
    request.push_str(&String::from_utf8_lossy(&body));
    let answer = format!("the server could not handle this request: {request}");
    let response = format!(
        "HTTP/1.1 500 Internal Server Error\r\ncontent-type: text/plain\r\n\
         content-length: {}\r\nconnection: close\r\n\r\n{answer}",
        answer.len()
    );
    let _ = reader.get_mut().write_all(response.as_bytes());
}

#[test]
fn a_server_reflecting_the_request_in_its_500_body_shows_none_of_our_secrets() {
    let sandbox = Sandbox::new("reflected");
    let server = Reflector::start();
    sandbox.write_mcp_json(&json!({
        "reflector": {
            "type": "http",
            "url": format!("http://127.0.0.1:{}/mcp?token=url-secret-3", server.port),
            "headers": {
                "Authorization": "Bearer header-secret-1",
                "X-Api-Key": "!echo command-secret-2",
            },
        },
    }));
    let secrets = ["header-secret-1", "command-secret-2", "url-secret-3"];
    let runs: [(&[&str], &str); 3] = [
        (&["list"], "warn"),
        (&["list", "--json"], "warn"),
        (&["list"], "debug"),
    ];
    for (args, log) in runs {
        let mut command = sandbox.command(args);
        command.env("RUST_LOG", log);
        let outcome = run_to_end(command, None);
        let stderr = &outcome.stderr;
        let shown = format!("{}\n{stderr}", outcome.stdout);
        let run = format!("{args:?} with RUST_LOG={log}");
        // The server was reached and its refusal is reported: the reflection was there to leak.
        assert!(shown.contains("500"), "{run}: no HTTP 500 in\n{shown}");
        assert!(
            shown.contains("could not handle this request"),
            "{run}: the server's body is not shown at all:\n{shown}"
        );
        for secret in secrets {
            assert!(
                !outcome.stdout.contains(secret),
                "{run}: {secret} on stdout:\n{}",
                outcome.stdout
            );
            assert!(
                !stderr.contains(secret),
                "{run}: {secret} on stderr:\n{stderr}"
            );
        }
        if args.contains(&"--json") {
            let list = outcome.json();
            assert_eq!(list["servers"][0]["name"], "reflector", "{list:#}");
        }
        if log == "debug" {
            assert!(
                stderr.contains("DEBUG"),
                "{run}: the debug log was not on stderr:\n{stderr}"
            );
        }
    }
}
