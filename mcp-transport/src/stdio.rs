//! The stdio transport: a child process speaking newline-delimited JSON on stdin and stdout.
//!
//! - The child gets the configured args, the inherited environment plus the configured
//!   variables, and the configured working directory. It runs in its own process group, so
//!   servers started through `npx`, `uvx` or `sh -c` can be stopped whole, grandchildren included.
//! - Messages are one UTF-8 JSON text per line. A line longer than
//!   [`StdioServerParams::max_message_bytes`] is discarded as it arrives (memory never grows
//!   past the limit) and reported as [`TransportError::MessageSkipped`]: the
//!   [`Peer`](crate::Peer) fails the request it answered (its id is looked for at the line's
//!   start and end) with [`RpcError::AnswerTooLarge`](crate::RpcError::AnswerTooLarge), and the
//!   connection lives on. Blank lines are skipped; other lines that are not JSON-RPC are skipped
//!   (and logged) by the peer.
//! - stderr is always drained, so a chatty server never blocks on a full pipe: each line goes
//!   to `tracing` (target `mcp_server_stderr`) and into a small ring buffer whose tail is
//!   attached to the error when the server dies. Both see each line cut short and scrubbed of
//!   the configured environment values and [`StdioServerParams::secrets`]: a server that prints
//!   its environment when it fails must not put our tokens in a log or an error.
//! - [`Transport::close`] closes stdin, waits a grace period, then sends SIGTERM to the group,
//!   waits again, then SIGKILL. Dropping the transport kills the group at once. A server
//!   started through a [`Launcher`] that stays as its parent ([`Launcher::kill_signal()`]) is
//!   ended by that launcher instead: before SIGKILL, `close` sends the launcher alone its kill
//!   signal and waits again, and dropping the transport sends it that signal and nothing else,
//!   so that the launcher, not killed first, can end what the server left outside its group.
//!
//! The framing is [`crate::framing`]'s, the same any socket gets; the process group is
//! the `process` module's. This module adds what only a child process has: an exit status to
//! report, a stderr to drain, and output that may stop coming without an end of file (a
//! grandchild holding the pipe).

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::process::Stdio;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use async_trait::async_trait;
use bytes::{Bytes, BytesMut};
use tokio::io::AsyncReadExt;
use tokio::net::unix::pipe;
use tokio::process::{ChildStderr, ChildStdout};
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::fast_path::FastPath;
use crate::framing::{DEFAULT_MAX_MESSAGE_BYTES, LineReader, LineWriter, send_through};
use crate::process::ServerProcess;
use crate::secrets::Secrets;
use crate::transport::{Transport, TransportError};

/// How a stdio server is started and treated.
///
/// `Debug` and errors show the program, the number of arguments and the variable names, never
/// argument or variable values: those are where tokens tend to be put.
#[derive(Clone)]
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
    /// The longest message (one line) accepted from the server; a longer one is dropped and
    /// fails only the request it answered. Default 32 MiB.
    pub max_message_bytes: usize,
    /// How long [`Transport::close`] waits after closing stdin, and again after SIGTERM (and
    /// after a launcher's kill signal), before escalating. Default 1 s.
    pub shutdown_grace: Duration,
    /// How many of the server's last stderr lines an error carries. Default 10.
    pub stderr_tail_lines: usize,
    /// A program the server is started through; `None` (the default) starts it directly.
    pub launcher: Option<Launcher>,
    /// What logs and errors never show of the server's stderr. Every value of
    /// [`env`](Self::env) is added when the server starts; add anything else it may print
    /// back (a token passed in an argument, say).
    pub secrets: Secrets,
}

/// A program that starts a server for the client: run as `program args… -- COMMAND ARGS…` with
/// the server's environment and working directory, it prepares what a library cannot do without
/// `unsafe` between fork and exec — on Linux, a parent-death signal, so that the server dies
/// with its client even when the client is killed with SIGKILL and has no chance to clean up.
/// Then it either replaces itself with the server (`exec`, same process id, same pipes), or,
/// with a [`kill_signal`](Self::kill_signal()), stays as the server's parent.
///
/// A launcher that stays leads the server's process group and may be alone in knowing what the
/// server left outside it (on Linux, a child subreaper adopts what detached itself into a
/// session of its own). So the client does not kill its group while it runs: after SIGTERM to
/// the group, [`Transport::close`] sends it `kill_signal` alone, and it must then kill the
/// server and every process below it, and exit; SIGKILL to the group follows only if it has not
/// exited after another grace period. Dropping the transport sends it `kill_signal` and nothing
/// else (a drop cannot wait), unless it has exited already: then the group is killed as usual.
///
/// The `agent-session` CLI is its own launcher. Whether `COMMAND` exists is checked before the
/// launcher runs, so a missing program is the same immediate spawn error as without one.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Launcher {
    /// The launcher program (a path, e.g. `/proc/self/exe`).
    pub program: PathBuf,
    /// Its arguments before `--` and the server's command line.
    pub args: Vec<String>,
    /// The signal (a number, e.g. `libc::SIGUSR1`) that, sent to the launcher alone, makes it
    /// kill the server and everything below it and exit; `None` (the default) for a launcher
    /// that replaces itself with the server.
    pub kill_signal: Option<i32>,
}

impl Launcher {
    /// `program args…`, to which `-- COMMAND ARGS…` is added for each server.
    pub fn new<I, S>(program: impl Into<PathBuf>, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self {
            program: program.into(),
            args: args.into_iter().map(Into::into).collect(),
            kill_signal: None,
        }
    }

    /// The launcher stays as the server's parent and ends everything below it when sent
    /// `signal` alone (see [`Launcher`]).
    #[must_use]
    pub fn kill_signal(mut self, signal: i32) -> Self {
        self.kill_signal = Some(signal);
        self
    }
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
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            shutdown_grace: Duration::from_secs(1),
            stderr_tail_lines: 10,
            launcher: None,
            secrets: Secrets::new(),
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

    /// Starts the server through `launcher`.
    #[must_use]
    pub fn launcher(mut self, launcher: Option<Launcher>) -> Self {
        self.launcher = launcher;
        self
    }

    /// The process to spawn: the server itself, or the launcher with the server's command line
    /// after `--` once the server's program is known to exist.
    fn command(&self) -> std::io::Result<tokio::process::Command> {
        let Some(launcher) = &self.launcher else {
            let mut command = tokio::process::Command::new(&self.command);
            command.args(&self.args);
            return Ok(command);
        };
        self.check_program_exists()?;
        let mut command = tokio::process::Command::new(&launcher.program);
        command
            .args(&launcher.args)
            .arg("--")
            .arg(&self.command)
            .args(&self.args);
        Ok(command)
    }

    /// What spawning the program directly would say when it is missing: a path (relative to
    /// the working directory) that is no file, or a bare name found in no `PATH` folder (the
    /// server's own `PATH` when its environment sets one).
    fn check_program_exists(&self) -> std::io::Result<()> {
        let not_found = || std::io::Error::from(std::io::ErrorKind::NotFound);
        let program = Path::new(&self.command);
        if self.command.is_empty() {
            return Err(not_found());
        }
        if self.command.contains('/') {
            let path = match &self.cwd {
                Some(cwd) if program.is_relative() => cwd.join(program),
                _ => program.to_path_buf(),
            };
            return if path.is_file() {
                Ok(())
            } else {
                Err(not_found())
            };
        }
        let path = self
            .env
            .iter()
            .rev()
            .find(|(key, _)| key == "PATH")
            .map(|(_, value)| std::ffi::OsString::from(value))
            .or_else(|| std::env::var_os("PATH"))
            .unwrap_or_default();
        if std::env::split_paths(&path).any(|dir| dir.join(program).is_file()) {
            Ok(())
        } else {
            Err(not_found())
        }
    }

    /// The command line, for messages.
    /// The program as errors show it: cut to [`SHOWN_COMMAND_CHARS`], with the number of
    /// arguments (their values may be secrets, and may be huge).
    fn shown_command(&self) -> String {
        let program = match self.command.char_indices().nth(SHOWN_COMMAND_CHARS) {
            Some((cut, _)) => format!("{}…", &self.command[..cut]),
            None => self.command.clone(),
        };
        match self.args.len() {
            0 => format!("`{program}`"),
            1 => format!("`{program}` (with 1 argument)"),
            count => format!("`{program}` (with {count} arguments)"),
        }
    }
}

impl std::fmt::Debug for StdioServerParams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StdioServerParams")
            .field("command", &self.command)
            .field("args", &format_args!("[{} hidden]", self.args.len()))
            .field(
                "env",
                &self.env.iter().map(|(key, _)| key).collect::<Vec<_>>(),
            )
            .field("cwd", &self.cwd)
            .field("max_message_bytes", &self.max_message_bytes)
            .field("shutdown_grace", &self.shutdown_grace)
            .field("stderr_tail_lines", &self.stderr_tail_lines)
            .field("launcher", &self.launcher)
            .finish_non_exhaustive()
    }
}

/// The longest program name an error shows.
const SHOWN_COMMAND_CHARS: usize = 200;

/// Writes up to this size to a pipe are atomic (POSIX `PIPE_BUF` on Linux).
const PIPE_ATOMIC_WRITE: usize = 4096;
/// Lines kept in the stderr ring buffer.
const STDERR_RING_LINES: usize = 64;
/// Longest stderr line kept (longer ones are cut).
const STDERR_LINE_LIMIT: usize = 2048;
/// After the child exited, how long to keep reading output still in the pipe. A process that
/// escaped the group can hold the pipe open forever, so the wait must be bounded.
const DRAIN_AFTER_EXIT: Duration = Duration::from_millis(100);
/// After stdout closed, how long to wait for the exit status and the last stderr lines.
const EXIT_REPORT_WAIT: Duration = Duration::from_secs(1);
const STDERR_REPORT_WAIT: Duration = Duration::from_millis(250);

/// A running stdio MCP server.
///
/// [`McpClient::connect_stdio`](crate::McpClient::connect_stdio) drives it with its shortcuts
/// (a request written, and its answer read, by the task that waits for it). Handed to
/// [`McpClient::connect`](crate::McpClient::connect) or [`Peer::start`](crate::Peer::start) as
/// a `Box<dyn Transport>`, it works through the [`Transport`] trait alone, like any plugin: the
/// same messages, one hand-over between tasks more per request.
pub struct StdioTransport {
    process: ServerProcess,
    stdin: tokio::sync::Mutex<Option<LineWriter<pipe::Sender>>>,
    /// Locked for one poll at a time, never across a wait: any task may read the next message
    /// (see `FastPath::poll_receive`), and the one that polled last is woken.
    stdout: Mutex<StdoutState>,
    stderr_done: watch::Receiver<bool>,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
    params: StdioServerParams,
    stderr_task: JoinHandle<()>,
    shut_down: std::sync::atomic::AtomicBool,
}

struct StdoutState {
    lines: LineReader<ChildStdout>,
    /// Ends when the process has exited; polled by whoever reads, so it wakes that reader.
    exit: Pin<Box<dyn Future<Output = ()> + Send>>,
    /// Set once the process has exited: from then on each read may wait only
    /// [`DRAIN_AFTER_EXIT`] (something, a grandchild, may keep the pipe open).
    drain: Option<Pin<Box<tokio::time::Sleep>>>,
    /// The output ended (or stopped coming after the exit): only the exit error is left.
    ended: bool,
}

/// What one poll of the server's stdout came to.
enum Stdout {
    Message(Bytes),
    /// A line over the limit was skipped ([`TransportError::MessageSkipped`]) or the read
    /// failed.
    Failed(TransportError),
    /// The output is over; the exit status and stderr tail say why.
    Ended,
}

impl StdoutState {
    fn new(lines: LineReader<ChildStdout>, mut exit: watch::Receiver<Option<String>>) -> Self {
        Self {
            lines,
            // A dropped sender means the exit watcher is gone: as good as an exit.
            exit: Box::pin(async move {
                let _ = exit.wait_for(Option::is_some).await;
            }),
            drain: None,
            ended: false,
        }
    }

    fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<Stdout> {
        loop {
            match self.lines.next_buffered() {
                Ok(Some(message)) => return Poll::Ready(Stdout::Message(message)),
                Err(skipped) => return Poll::Ready(Stdout::Failed(skipped)),
                Ok(None) => {}
            }
            if self.ended {
                return Poll::Ready(Stdout::Ended);
            }
            if self.drain.is_none() && self.exit.as_mut().poll(cx).is_ready() {
                self.drain = Some(Box::pin(tokio::time::sleep(DRAIN_AFTER_EXIT)));
            }
            match self.lines.poll_fill(cx) {
                Poll::Ready(Ok(0)) => self.ended = true,
                Poll::Ready(Ok(_)) => {
                    if let Some(drain) = &mut self.drain {
                        drain
                            .as_mut()
                            .reset(tokio::time::Instant::now() + DRAIN_AFTER_EXIT);
                    }
                }
                Poll::Ready(Err(source)) => {
                    return Poll::Ready(Stdout::Failed(TransportError::Io {
                        action: "reading the server's stdout",
                        source,
                    }));
                }
                Poll::Pending => {
                    let drained = self
                        .drain
                        .as_mut()
                        .is_some_and(|drain| drain.as_mut().poll(cx).is_ready());
                    if !drained {
                        return Poll::Pending;
                    }
                    self.ended = true;
                }
            }
        }
    }
}

impl StdioTransport {
    /// Starts the server process. `server` names it in logs.
    ///
    /// Must be called inside a tokio runtime, which runs the tasks that drain stderr and wait
    /// for the process to exit.
    pub fn spawn(server: &str, params: StdioServerParams) -> Result<Self, TransportError> {
        let spawn_error = |source| TransportError::Spawn {
            command: params.shown_command(),
            source,
        };
        if let Some(cwd) = params.cwd.as_ref().filter(|cwd| !cwd.is_dir()) {
            return Err(spawn_error(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                format!("the working directory {} does not exist", cwd.display()),
            )));
        }
        let mut command = params.command().map_err(spawn_error)?;
        command
            .envs(params.env.iter().map(|(key, value)| (key, value)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(cwd) = &params.cwd {
            command.current_dir(cwd);
        }
        let kill_signal = params.launcher.as_ref().and_then(|launcher| {
            let signal = launcher.kill_signal?;
            let known = nix::sys::signal::Signal::try_from(signal).ok();
            if known.is_none() {
                tracing::warn!(
                    server,
                    signal,
                    "the launcher's kill signal is no signal; the group is killed instead"
                );
            }
            known
        });
        let spawned = ServerProcess::spawn(command, kill_signal).map_err(spawn_error)?;
        // A pipe of tokio's own: it can be written without waiting (see `try_send_now`).
        let stdin = spawned
            .stdin
            .into_owned_fd()
            .and_then(pipe::Sender::from_owned_fd)
            .map_err(spawn_error)?;
        let process = spawned.process;
        // The environment is a public field: its values are taken as they are at the start.
        params
            .secrets
            .extend(params.env.iter().map(|(_, value)| value.as_str()));
        tracing::debug!(server, pid = process.pid(), command = %params.shown_command(), "spawned stdio server");

        let stderr_tail = Arc::new(Mutex::new(VecDeque::with_capacity(STDERR_RING_LINES)));
        let (stderr_done_tx, stderr_done_rx) = watch::channel(false);
        let stderr_task = tokio::spawn(drain_stderr(
            Arc::from(server),
            spawned.stderr,
            params.secrets.clone(),
            Arc::clone(&stderr_tail),
            stderr_done_tx,
        ));

        Ok(Self {
            stdin: tokio::sync::Mutex::new(Some(LineWriter::with_atomic_writes(
                stdin,
                PIPE_ATOMIC_WRITE,
            ))),
            stdout: Mutex::new(StdoutState::new(
                LineReader::new(spawned.stdout, params.max_message_bytes),
                process.exit_watch(),
            )),
            process,
            stderr_done: stderr_done_rx,
            stderr_tail,
            params,
            stderr_task,
            shut_down: std::sync::atomic::AtomicBool::new(false),
        })
    }

    /// The server's process id, which is also its process group id.
    pub fn pid(&self) -> u32 {
        self.process.pid()
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

    fn poll_stdout(&self, cx: &mut Context<'_>) -> Poll<Stdout> {
        self.stdout
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .poll_next(cx)
    }

    /// The error for a server whose stdout ended: its exit status and stderr tail.
    async fn exit_error(&self) -> TransportError {
        self.process.wait_for_exit(EXIT_REPORT_WAIT).await;
        let mut stderr_done = self.stderr_done.clone();
        let _ = tokio::time::timeout(STDERR_REPORT_WAIT, stderr_done.wait_for(|done| *done)).await;
        match self.process.exit_status() {
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
}

#[async_trait]
impl Transport for StdioTransport {
    async fn send(&self, messages: &[String]) -> Result<(), TransportError> {
        send_through(&self.stdin, messages, "writing to the server's stdin").await
    }

    async fn receive(&self) -> Result<Bytes, TransportError> {
        match std::future::poll_fn(|cx| self.poll_stdout(cx)).await {
            Stdout::Message(message) => Ok(message),
            Stdout::Failed(error) => Err(error),
            Stdout::Ended => Err(self.exit_error().await),
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
            *stdin = None;
        }
        if !self.process.wait_for_exit(grace).await {
            tracing::debug!(pid = self.pid(), "server ignored stdin close");
        }
        if !self.process.stop(grace).await {
            return Err(TransportError::Io {
                action: "stopping the server",
                source: std::io::Error::other("the process did not exit after SIGKILL"),
            });
        }
        Ok(())
    }
}

/// A message is written from the caller's task when stdin takes it at once, and a request alone
/// in flight reads its own answer from stdout.
impl FastPath for StdioTransport {
    fn try_send_now(&self, message: &str) -> Result<bool, TransportError> {
        let Ok(mut stdin) = self.stdin.try_lock() else {
            return Ok(false);
        };
        let Some(stdin) = stdin.as_mut() else {
            return Ok(false);
        };
        stdin
            .try_write_message(message)
            .map_err(|source| TransportError::Io {
                action: "writing to the server's stdin",
                source,
            })
    }

    fn poll_receive(&self, cx: &mut Context<'_>) -> Poll<Option<Result<Bytes, TransportError>>> {
        self.poll_stdout(cx).map(|next| match next {
            Stdout::Message(message) => Some(Ok(message)),
            Stdout::Failed(error) => Some(Err(error)),
            // The exit error waits for the status and the stderr tail: `receive` gives it.
            Stdout::Ended => None,
        })
    }
}

impl Drop for StdioTransport {
    fn drop(&mut self) {
        // `self.process` kills the group as it drops.
        self.stderr_task.abort();
    }
}

impl std::fmt::Debug for StdioTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StdioTransport")
            .field("pid", &self.pid())
            .field("command", &self.params.command)
            .finish_non_exhaustive()
    }
}

/// One line of stderr, or a piece of a line too long to wait for its end.
struct StderrLine {
    text: Bytes,
    /// It continues a piece cut before it.
    cut_before: bool,
    /// It was cut before the line's end.
    cut_after: bool,
}

async fn drain_stderr(
    server: Arc<str>,
    mut stderr: ChildStderr,
    secrets: Secrets,
    tail: Arc<Mutex<VecDeque<String>>>,
    done: watch::Sender<bool>,
) {
    // Most servers say little on stderr: a small buffer first, a larger one once they talk.
    let mut buffer = BytesMut::with_capacity(1024);
    let mut lines = Vec::new();
    let mut continued = false;
    loop {
        let read = stderr.read_buf(&mut buffer).await;
        let finished = !matches!(read, Ok(n) if n > 0);
        while let Some(end) = memchr::memchr(b'\n', &buffer) {
            let line = buffer.split_to(end + 1);
            lines.push(StderrLine {
                text: line.freeze(),
                cut_before: std::mem::take(&mut continued),
                cut_after: false,
            });
        }
        if (finished || buffer.len() > STDERR_LINE_LIMIT) && !buffer.is_empty() {
            lines.push(StderrLine {
                text: buffer.split().freeze(),
                cut_before: continued,
                cut_after: !finished,
            });
            continued = !finished;
        }
        record_stderr(&server, &secrets, &tail, &mut lines);
        if finished {
            done.send_replace(true);
            return;
        }
        if buffer.capacity() < 1024 {
            buffer.reserve(8 * 1024);
        }
    }
}

fn record_stderr(
    server: &str,
    secrets: &Secrets,
    tail: &Mutex<VecDeque<String>>,
    lines: &mut Vec<StderrLine>,
) {
    if lines.is_empty() {
        return;
    }
    // Only the last lines of a burst can survive in the ring: skip copying the others.
    let keep_from = lines.len().saturating_sub(STDERR_RING_LINES);
    let mut kept = Vec::new();
    for (index, line) in lines.drain(..).enumerate() {
        let text = String::from_utf8_lossy(&line.text);
        // Scrubbed whole, before any cut: a cut could leave part of a secret unrecognised.
        let text = secrets.scrub_piece(text.trim_end(), line.cut_before, line.cut_after);
        let text = text.as_ref();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_split_between_two_pieces_of_a_long_stderr_line_is_redacted_in_both() {
        let secrets = Secrets::new();
        secrets.add("0123456789abcdefghij");
        let tail = Mutex::new(VecDeque::new());
        let mut lines = vec![
            StderrLine {
                text: Bytes::from_static(b"token=0123456789"),
                cut_before: false,
                cut_after: true,
            },
            StderrLine {
                text: Bytes::from_static(b"abcdefghij and the rest\n"),
                cut_before: true,
                cut_after: false,
            },
            StderrLine {
                text: Bytes::from_static(b"whole 0123456789abcdefghij\n"),
                cut_before: false,
                cut_after: false,
            },
        ];
        record_stderr("server", &secrets, &tail, &mut lines);
        let tail: Vec<String> = tail.into_inner().unwrap().into();
        assert_eq!(
            tail,
            [
                "token=<redacted>",
                "<redacted> and the rest",
                "whole <redacted>"
            ]
        );
    }
}
