//! The reference server in its HTTP mode, as the HTTP drivers start and stop it: spawned with
//! `--http` (and `--sse` for event-stream answers, `--stateless` for the dual-era mode our
//! 2026-07-28 rows talk to), its one stdout line `listening ADDRESS` read for the address, and
//! stopped by closing its stdin.
//!
//! Its CPU is summed over all its threads (`/proc/<pid>/task/*/schedstat`): the HTTP server
//! answers on a thread per connection, and every connection of a run stays open until the run
//! ends, so no thread's time is lost to an early exit.

use std::io;
use std::path::Path;

use mcp_bench_peers::Figures;
use mcp_bench_peers::server_child::ServerChild;

use crate::BoxError;
use crate::async_driver::{Shape, run_in_shape};

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
    server: ServerChild,
    /// `127.0.0.1:PORT`.
    pub(crate) address: String,
}

impl HttpServer {
    /// Starts the server for `answers`, with `extra` arguments after the transport's.
    pub(crate) fn spawn(program: &Path, answers: Answers, extra: &[&str]) -> io::Result<Self> {
        let mut args = vec!["--http"];
        if answers == Answers::Sse {
            args.push("--sse");
        }
        args.extend_from_slice(extra);
        let mut server = ServerChild::spawn(program, &args, 1024)?;
        let line = String::from_utf8_lossy(server.read_line()?)
            .trim_end()
            .to_owned();
        let address = line
            .strip_prefix("listening ")
            .ok_or_else(|| io::Error::other(format!("the server said `{line}`, not its address")))?
            .to_owned();
        Ok(Self { server, address })
    }

    /// The MCP endpoint.
    pub(crate) fn url(&self) -> String {
        format!("http://{}/mcp", self.address)
    }

    pub(crate) fn pid(&self) -> u32 {
        self.server.pid()
    }

    /// Closes the server's stdin (it exits then) and reaps it.
    pub(crate) fn finish(self) -> io::Result<()> {
        self.server.finish()
    }
}

/// Starts the server in HTTP mode for `answers` (with `extra` arguments), runs `body(url,
/// server_pid)` in `shape`, then stops the server: the frame every async HTTP driver runs its
/// measurement in.
pub(crate) fn run_against<B, F>(
    program: &Path,
    answers: Answers,
    extra: &[&str],
    shape: Shape,
    body: B,
) -> Result<Figures, BoxError>
where
    B: FnOnce(String, u32) -> F,
    F: Future<Output = Result<Figures, BoxError>> + Send + 'static,
{
    let server = HttpServer::spawn(program, answers, extra)?;
    let figures = run_in_shape(shape, body(server.url(), server.pid()))?;
    server.finish()?;
    Ok(figures)
}
