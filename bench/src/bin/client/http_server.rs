//! The reference server in its HTTP mode, as the HTTP drivers start and stop it: spawned with
//! `--http` (and `--sse` for event-stream answers), its one stdout line `listening ADDRESS`
//! read for the address, and stopped by closing its stdin.
//!
//! Its CPU is summed over all its threads (`/proc/<pid>/task/*/schedstat`): the HTTP server
//! answers on a thread per connection, and every connection of a run stays open until the run
//! ends, so no thread's time is lost to an early exit.

use std::io::{self, BufRead, BufReader};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::Duration;

/// How the server answers requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Answers {
    /// `application/json` bodies.
    Json,
    /// `text/event-stream` bodies holding one event.
    Sse,
}

impl Answers {
    pub(crate) fn parse(text: &str) -> Option<Self> {
        match text {
            "json" => Some(Self::Json),
            "sse" => Some(Self::Sse),
            _ => None,
        }
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Json => "json",
            Self::Sse => "sse",
        }
    }
}

/// A running reference server in HTTP mode; killed if dropped before [`finish`](Self::finish).
pub(crate) struct HttpServer {
    child: Child,
    stdin: Option<ChildStdin>,
    /// `127.0.0.1:PORT`.
    pub(crate) address: String,
}

impl HttpServer {
    pub(crate) fn spawn(program: &Path, answers: Answers) -> io::Result<Self> {
        let mut command = Command::new(program);
        command.arg("--http");
        if answers == Answers::Sse {
            command.arg("--sse");
        }
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(io::Error::other("the server has no stdin/stdout pipe"));
        };
        let mut server = Self {
            child,
            stdin: Some(stdin),
            address: String::new(),
        };
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line)?;
        server.address = line
            .trim_end()
            .strip_prefix("listening ")
            .ok_or_else(|| {
                io::Error::other(format!(
                    "the server said `{}`, not its address",
                    line.trim_end()
                ))
            })?
            .to_owned();
        Ok(server)
    }

    /// The MCP endpoint.
    pub(crate) fn url(&self) -> String {
        format!("http://{}/mcp", self.address)
    }

    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Closes the server's stdin (it exits then) and reaps it.
    pub(crate) fn finish(mut self) -> io::Result<()> {
        self.stdin = None;
        let status = self.child.wait()?;
        if status.success() {
            Ok(())
        } else {
            Err(io::Error::other(format!("the server ended with {status}")))
        }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        if self.stdin.is_some() {
            // Dropped on an error path: do not leave the server behind.
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// On-CPU time of every thread of process `pid` so far (`/proc/<pid>/task/*/schedstat`); for
/// the single-threaded stdio server this is its main thread's.
pub(crate) fn server_cpu_time(pid: u32) -> io::Result<Duration> {
    let mut total = Duration::ZERO;
    for task in std::fs::read_dir(format!("/proc/{pid}/task"))? {
        let path = task?.path().join("schedstat");
        // A thread may end between read_dir and here: it is no longer counted.
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let nanos = text
            .split_whitespace()
            .next()
            .and_then(|field| field.parse::<u64>().ok())
            .ok_or_else(|| io::Error::other(format!("unreadable {}: {text}", path.display())))?;
        total += Duration::from_nanos(nanos);
    }
    Ok(total)
}
