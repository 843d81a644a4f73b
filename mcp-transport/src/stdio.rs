//! The stdio transport: a child process speaking newline-delimited JSON on stdin and stdout.
//!
//! - The child gets the configured args, the inherited environment plus the configured
//!   variables, and the configured working directory. It runs in its own process group, so
//!   servers started through `npx`, `uvx` or `sh -c` can be stopped whole, grandchildren included.
//! - Messages are one UTF-8 JSON text per line. A line longer than
//!   [`StdioServerParams::max_message_bytes`] ends the connection with a clear error instead of
//!   growing memory without bound; blank lines are skipped (other non-JSON lines are skipped by
//!   the [`Peer`](crate::Peer)).
//! - stderr is always drained, so a chatty server never blocks on a full pipe: each line goes
//!   to `tracing` (target `mcp_server_stderr`) and into a small ring buffer whose tail is
//!   attached to the error when the server dies.
//! - [`Transport::close`] closes stdin, waits a grace period, then sends SIGTERM to the group,
//!   waits again, then SIGKILL. Dropping the transport sends SIGKILL to the group at once.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use async_trait::async_trait;
use bytes::{Bytes, BytesMut};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::{ChildStderr, ChildStdin, ChildStdout};
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::transport::{Transport, TransportError};

/// How a stdio server is started and treated.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct StdioServerParams {
    /// The program to run (looked up in `PATH` when it has no slash).
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Variables added to (or overriding) the inherited environment.
    pub env: Vec<(String, String)>,
    /// The working directory; the client's own when `None`.
    pub cwd: Option<PathBuf>,
    /// The longest message (one line) accepted from the server. Default 32 MiB.
    pub max_message_bytes: usize,
    /// How long [`Transport::close`] waits after closing stdin, and again after SIGTERM, before
    /// escalating. Default 1 s.
    pub shutdown_grace: Duration,
    /// How many of the server's last stderr lines an error carries. Default 10.
    pub stderr_tail_lines: usize,
}

impl StdioServerParams {
    /// Parameters for `command args…` with the defaults.
    pub fn new<I, S>(command: impl Into<String>, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self {
            command: command.into(),
            args: args.into_iter().map(Into::into).collect(),
            env: Vec::new(),
            cwd: None,
            max_message_bytes: 32 * 1024 * 1024,
            shutdown_grace: Duration::from_secs(1),
            stderr_tail_lines: 10,
        }
    }

    /// Adds an environment variable.
    #[must_use]
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    /// Sets the working directory.
    #[must_use]
    pub fn cwd(mut self, cwd: impl Into<PathBuf>) -> Self {
        self.cwd = Some(cwd.into());
        self
    }

    /// Sets the longest accepted message.
    #[must_use]
    pub fn max_message_bytes(mut self, limit: usize) -> Self {
        self.max_message_bytes = limit;
        self
    }

    /// Sets the shutdown grace period.
    #[must_use]
    pub fn shutdown_grace(mut self, grace: Duration) -> Self {
        self.shutdown_grace = grace;
        self
    }

    /// The command line, for messages.
    pub fn command_line(&self) -> String {
        std::iter::once(self.command.as_str())
            .chain(self.args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Writes up to this size to a pipe are atomic (POSIX `PIPE_BUF` on Linux).
const PIPE_ATOMIC_WRITE: usize = 4096;
/// Bytes read from the child's stdout per read call.
const READ_CHUNK: usize = 64 * 1024;
/// Lines kept in the stderr ring buffer.
const STDERR_RING_LINES: usize = 64;
/// Longest stderr line kept (longer ones are cut).
const STDERR_LINE_LIMIT: usize = 2048;
/// After the child exited, how long to keep reading output still in the pipe. A grandchild can
/// hold the pipe open forever, so the wait must be bounded.
const DRAIN_AFTER_EXIT: Duration = Duration::from_millis(100);
/// After stdout closed, how long to wait for the exit status and the last stderr lines.
const EXIT_REPORT_WAIT: Duration = Duration::from_secs(1);
const STDERR_REPORT_WAIT: Duration = Duration::from_millis(250);

/// A running stdio MCP server.
pub struct StdioTransport {
    pgid: i32,
    stdin: tokio::sync::Mutex<StdinState>,
    stdout: tokio::sync::Mutex<StdoutState>,
    exit: watch::Receiver<Option<String>>,
    stderr_done: watch::Receiver<bool>,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
    params: StdioServerParams,
    reaper: JoinHandle<()>,
    stderr_task: JoinHandle<()>,
    shut_down: std::sync::atomic::AtomicBool,
}

struct StdinState {
    stdin: Option<ChildStdin>,
    buffer: Vec<u8>,
}

struct StdoutState {
    stdout: ChildStdout,
    buffer: BytesMut,
    /// Bytes at the start of `buffer` already searched for a newline.
    scanned: usize,
    exit: watch::Receiver<Option<String>>,
    exited: bool,
}

impl StdioTransport {
    /// Starts the server process. `server` names it in logs.
    ///
    /// Must be called inside a tokio runtime, which runs the tasks that drain stderr and wait
    /// for the process to exit.
    pub fn spawn(server: &str, params: StdioServerParams) -> Result<Self, TransportError> {
        let spawn_error = |source| TransportError::Spawn {
            command: params.command_line(),
            source,
        };
        if let Some(cwd) = params.cwd.as_ref().filter(|cwd| !cwd.is_dir()) {
            return Err(spawn_error(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                format!("the working directory {} does not exist", cwd.display()),
            )));
        }
        let mut command = tokio::process::Command::new(&params.command);
        command
            .args(&params.args)
            .envs(params.env.iter().map(|(key, value)| (key, value)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true);
        if let Some(cwd) = &params.cwd {
            command.current_dir(cwd);
        }
        let mut child = command.spawn().map_err(spawn_error)?;
        let pid = child.id().and_then(|pid| i32::try_from(pid).ok());
        let (Some(pgid), Some(stdin), Some(stdout), Some(stderr)) = (
            pid,
            child.stdin.take(),
            child.stdout.take(),
            child.stderr.take(),
        ) else {
            return Err(spawn_error(std::io::Error::other(
                "the child process has no pid or pipes",
            )));
        };
        tracing::debug!(server, pid = pgid, command = %params.command_line(), "spawned stdio server");

        let (exit_tx, exit_rx) = watch::channel(None);
        let reaper = tokio::spawn(async move {
            let status = match child.wait().await {
                Ok(status) => describe_status(status),
                Err(error) => format!("unknown status ({error})"),
            };
            exit_tx.send_replace(Some(status));
        });

        let stderr_tail = Arc::new(Mutex::new(VecDeque::with_capacity(STDERR_RING_LINES)));
        let (stderr_done_tx, stderr_done_rx) = watch::channel(false);
        let stderr_task = tokio::spawn(drain_stderr(
            Arc::from(server),
            stderr,
            Arc::clone(&stderr_tail),
            stderr_done_tx,
        ));

        Ok(Self {
            pgid,
            stdin: tokio::sync::Mutex::new(StdinState {
                stdin: Some(stdin),
                buffer: Vec::new(),
            }),
            stdout: tokio::sync::Mutex::new(StdoutState {
                stdout,
                buffer: BytesMut::with_capacity(READ_CHUNK),
                scanned: 0,
                exit: exit_rx.clone(),
                exited: false,
            }),
            exit: exit_rx,
            stderr_done: stderr_done_rx,
            stderr_tail,
            params,
            reaper,
            stderr_task,
            shut_down: std::sync::atomic::AtomicBool::new(false),
        })
    }

    /// The server's process id, which is also its process group id.
    pub fn pid(&self) -> i32 {
        self.pgid
    }

    /// The last lines the server wrote on stderr, oldest first.
    pub fn stderr_tail(&self) -> Vec<String> {
        let tail = self
            .stderr_tail
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let skip = tail.len().saturating_sub(self.params.stderr_tail_lines);
        tail.iter().skip(skip).cloned().collect()
    }

    /// The error for a server whose stdout ended: its exit status and stderr tail.
    async fn exit_error(&self) -> TransportError {
        let mut exit = self.exit.clone();
        let status = tokio::time::timeout(EXIT_REPORT_WAIT, exit.wait_for(Option::is_some))
            .await
            .ok()
            .and_then(Result::ok)
            .and_then(|status| status.clone());
        let mut stderr_done = self.stderr_done.clone();
        let _ = tokio::time::timeout(STDERR_REPORT_WAIT, stderr_done.wait_for(|done| *done)).await;
        match status {
            Some(status) => TransportError::ServerExited {
                status,
                stderr_tail: self.stderr_tail(),
            },
            None => TransportError::Io {
                action: "reading the server's stdout",
                source: std::io::Error::new(
                    std::io::ErrorKind::UnexpectedEof,
                    "the server closed its stdout but kept running",
                ),
            },
        }
    }

    fn has_exited(&self) -> bool {
        self.exit.borrow().is_some()
    }

    async fn wait_for_exit(&self, limit: Duration) -> bool {
        let mut exit = self.exit.clone();
        tokio::time::timeout(limit, exit.wait_for(Option::is_some))
            .await
            .is_ok()
    }
}

#[async_trait]
impl Transport for StdioTransport {
    async fn send(&self, messages: &[String]) -> Result<(), TransportError> {
        let mut guard = self.stdin.lock().await;
        let StdinState { stdin, buffer } = &mut *guard;
        let Some(stdin) = stdin else {
            return Err(TransportError::ClosedByClient);
        };
        buffer.clear();
        for message in messages {
            buffer.extend_from_slice(message.as_bytes());
            buffer.push(b'\n');
        }
        let written = stdin.write_all(buffer).await;
        if buffer.capacity() > READ_CHUNK * 4 {
            // Do not keep a huge buffer alive after one big message.
            *buffer = Vec::new();
        }
        written.map_err(|source| TransportError::Io {
            action: "writing to the server's stdin",
            source,
        })
    }

    fn try_send_now(&self, message: &str) -> Result<bool, TransportError> {
        // A write of at most PIPE_BUF bytes to a pipe is atomic: it goes whole or not at all.
        if message.len() >= PIPE_ATOMIC_WRITE {
            return Ok(false);
        }
        let Ok(mut guard) = self.stdin.try_lock() else {
            return Ok(false);
        };
        let StdinState { stdin, buffer } = &mut *guard;
        let Some(stdin) = stdin else {
            return Ok(false);
        };
        buffer.clear();
        buffer.extend_from_slice(message.as_bytes());
        buffer.push(b'\n');
        match write_without_waiting(stdin, buffer) {
            Ok(written) if written == buffer.len() => Ok(true),
            Ok(written) => Err(TransportError::Io {
                action: "writing to the server's stdin",
                source: std::io::Error::other(format!(
                    "the pipe took {written} of {} bytes of an atomic write",
                    buffer.len()
                )),
            }),
            Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => Ok(false),
            Err(source) => Err(TransportError::Io {
                action: "writing to the server's stdin",
                source,
            }),
        }
    }

    async fn receive(&self) -> Result<Bytes, TransportError> {
        let limit = self.params.max_message_bytes;
        let mut guard = self.stdout.lock().await;
        let state = &mut *guard;
        loop {
            if let Some(offset) = memchr::memchr(b'\n', &state.buffer[state.scanned..]) {
                let end = state.scanned + offset;
                let mut line = state.buffer.split_to(end + 1);
                state.scanned = 0;
                line.truncate(if end > 0 && line[end - 1] == b'\r' {
                    end - 1
                } else {
                    end
                });
                if line.len() > limit {
                    return Err(TransportError::MessageTooLarge { limit });
                }
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                return Ok(line.freeze());
            }
            state.scanned = state.buffer.len();
            if state.buffer.len() > limit {
                return Err(TransportError::MessageTooLarge { limit });
            }
            if state.buffer.capacity() - state.buffer.len() < READ_CHUNK / 4 {
                state.buffer.reserve(READ_CHUNK);
            }

            if !state.exited && state.exit.borrow_and_update().is_some() {
                state.exited = true;
            }
            let read = if state.exited {
                match tokio::time::timeout(
                    DRAIN_AFTER_EXIT,
                    state.stdout.read_buf(&mut state.buffer),
                )
                .await
                {
                    Ok(read) => read,
                    // Exited, but something (a grandchild) keeps the pipe open: stop here.
                    Err(_) => Ok(0),
                }
            } else {
                tokio::select! {
                    read = state.stdout.read_buf(&mut state.buffer) => read,
                    _ = state.exit.changed() => {
                        state.exited = true;
                        continue;
                    }
                }
            };
            match read {
                Ok(0) => return Err(self.exit_error().await),
                Ok(_) => {}
                Err(source) => {
                    return Err(TransportError::Io {
                        action: "reading the server's stdout",
                        source,
                    });
                }
            }
        }
    }

    async fn close(&self) -> Result<(), TransportError> {
        let grace = self.params.shutdown_grace;
        if self
            .shut_down
            .swap(true, std::sync::atomic::Ordering::SeqCst)
        {
            return Ok(());
        }
        // Closing stdin is the polite way to ask a stdio server to exit.
        if let Ok(mut stdin) = tokio::time::timeout(grace, self.stdin.lock()).await {
            stdin.stdin = None;
        }
        if !self.wait_for_exit(grace).await {
            tracing::debug!(
                pid = self.pgid,
                "server ignored stdin close; sending SIGTERM"
            );
            signal_group(self.pgid, libc::SIGTERM);
            if !self.wait_for_exit(grace).await {
                tracing::debug!(pid = self.pgid, "server ignored SIGTERM; sending SIGKILL");
                signal_group(self.pgid, libc::SIGKILL);
                self.wait_for_exit(grace).await;
            }
        }
        // The leader is gone; anything it left in its group (a grandchild) goes too.
        signal_group(self.pgid, libc::SIGKILL);
        if !self.has_exited() {
            return Err(TransportError::Io {
                action: "stopping the server",
                source: std::io::Error::other("the process did not exit after SIGKILL"),
            });
        }
        Ok(())
    }
}

impl Drop for StdioTransport {
    fn drop(&mut self) {
        if !self.shut_down.load(std::sync::atomic::Ordering::SeqCst) {
            signal_group(self.pgid, libc::SIGKILL);
        }
        // The reaper owns the child (with kill_on_drop); aborting it lets tokio reap it.
        self.reaper.abort();
        self.stderr_task.abort();
    }
}

impl std::fmt::Debug for StdioTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StdioTransport")
            .field("pid", &self.pgid)
            .field("command", &self.params.command)
            .finish_non_exhaustive()
    }
}

fn describe_status(status: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("status {code}"),
        (None, Some(signal)) => format!("signal {signal}"),
        (None, None) => status.to_string(),
    }
}

/// One `write(2)` on the (non-blocking) stdin pipe, from the caller's thread.
#[allow(unsafe_code)]
fn write_without_waiting(stdin: &ChildStdin, bytes: &[u8]) -> std::io::Result<usize> {
    use std::os::fd::AsRawFd;
    // SAFETY: the descriptor belongs to `stdin`, which the caller borrows (under the stdin
    // lock) for the whole call, so it stays open; the pointer and length describe `bytes`.
    let written = unsafe { libc::write(stdin.as_raw_fd(), bytes.as_ptr().cast(), bytes.len()) };
    usize::try_from(written).map_err(|_| std::io::Error::last_os_error())
}

/// Sends `signal` to every process in the group led by `pgid`.
#[allow(unsafe_code)]
fn signal_group(pgid: i32, signal: libc::c_int) {
    if pgid <= 0 {
        return;
    }
    // SAFETY: kill(2) takes plain integers and has no memory-safety preconditions; a negative
    // pid addresses the process group, which this transport created for the child.
    let _ = unsafe { libc::kill(-pgid, signal) };
}

async fn drain_stderr(
    server: Arc<str>,
    mut stderr: ChildStderr,
    tail: Arc<Mutex<VecDeque<String>>>,
    done: watch::Sender<bool>,
) {
    let mut buffer = BytesMut::with_capacity(8 * 1024);
    let mut lines = Vec::new();
    loop {
        let read = stderr.read_buf(&mut buffer).await;
        let finished = !matches!(read, Ok(n) if n > 0);
        while let Some(end) = memchr::memchr(b'\n', &buffer) {
            let line = buffer.split_to(end + 1);
            lines.push(line.freeze());
        }
        if (finished || buffer.len() > STDERR_LINE_LIMIT) && !buffer.is_empty() {
            lines.push(buffer.split().freeze());
        }
        record_stderr(&server, &tail, &mut lines);
        if finished {
            done.send_replace(true);
            return;
        }
        if buffer.capacity() < 1024 {
            buffer.reserve(8 * 1024);
        }
    }
}

fn record_stderr(server: &str, tail: &Mutex<VecDeque<String>>, lines: &mut Vec<Bytes>) {
    if lines.is_empty() {
        return;
    }
    // Only the last lines of a burst can survive in the ring: skip copying the others.
    let keep_from = lines.len().saturating_sub(STDERR_RING_LINES);
    let mut kept = Vec::new();
    for (index, line) in lines.drain(..).enumerate() {
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end();
        if text.is_empty() {
            continue;
        }
        tracing::info!(target: "mcp_server_stderr", server, "{text}");
        if index >= keep_from {
            kept.push(truncate_at_char_boundary(text, STDERR_LINE_LIMIT).to_owned());
        }
    }
    if kept.is_empty() {
        return;
    }
    let mut tail = tail.lock().unwrap_or_else(PoisonError::into_inner);
    for line in kept {
        if tail.len() == STDERR_RING_LINES {
            tail.pop_front();
        }
        tail.push_back(line);
    }
}

fn truncate_at_char_boundary(text: &str, limit: usize) -> &str {
    if text.len() <= limit {
        return text;
    }
    let mut end = limit;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}
