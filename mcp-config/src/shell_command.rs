//! The `!command` runner: `sh -c <command>` in a process group of its own, bounded in time and
//! in output, with a failure that says why and never shows the output.
//!
//! The group comes from [`process_wrap`] (`ProcessGroup::leader()`, `KillOnDrop`): when the
//! command times out, or the resolution waiting for it is cancelled, the whole group is killed,
//! so `sleep`s and pipelines the command started do not linger. A command that finishes on its
//! own is left alone, and so is anything it deliberately left running.

use std::process::{ExitStatus, Stdio};
use std::sync::Arc;
use std::time::Duration;

use process_wrap::tokio::{ChildWrapper, CommandWrap, KillOnDrop, ProcessGroup};
use tokio::io::{AsyncRead, AsyncReadExt};

use crate::problems::Shared;
use crate::redact::scrub;

/// A `!command` printing more than this on stdout fails (a secret is never that long).
const STDOUT_LIMIT: usize = 1024 * 1024;

/// How much of the end of a failed command's stderr is kept.
const STDERR_KEEP: usize = 8 * 1024;

/// How many stderr lines an error message shows, and how long each may be.
const STDERR_LINES: usize = 5;
const STDERR_LINE_CHARS: usize = 200;

/// Why a `!command` gave no value. The message never contains the command's output.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CommandFailure {
    /// Nothing follows the `!`.
    #[error("is empty (nothing follows the \"!\")")]
    EmptyCommand,
    /// `sh` could not be started.
    #[error("could not start: {0}")]
    Spawn(Shared<std::io::Error>),
    /// The command exited with a non-zero status or was killed by a signal.
    #[error("failed ({status}){}", stderr_suffix(.stderr))]
    Exit {
        /// The status, shown as the OS reports it, e.g. `exit status: 1` or `signal: 9
        /// (SIGKILL)`.
        status: ExitStatus,
        /// The last lines of its stderr (at most a few, each shortened), possibly empty.
        stderr: String,
    },
    /// The command succeeded but printed nothing but whitespace.
    #[error("printed nothing (exit status 0 but empty output){}", stderr_suffix(.stderr))]
    EmptyOutput {
        /// The last lines of its stderr, possibly empty.
        stderr: String,
    },
    /// The command ran longer than the timeout; its process group was killed.
    #[error("timed out after {}", format_duration(*.0))]
    TimedOut(Duration),
    /// Waiting for the command to end failed.
    #[error("could not wait for it: {0}")]
    Wait(Shared<std::io::Error>),
    /// Its output could not be read.
    #[error("could not read its output: {0}")]
    Read(Shared<std::io::Error>),
    /// It printed more than a secret could be.
    #[error("printed more than {} KiB", .limit / 1024)]
    TooLong {
        /// The limit, in bytes.
        limit: usize,
    },
    /// It printed something that is not UTF-8.
    #[error("printed output that is not UTF-8")]
    NotUtf8,
    /// A `headersHelper` printed something other than a JSON object of header names to
    /// string values.
    #[error("did not print a JSON object of header names to string values")]
    NotHeaders,
}

impl CommandFailure {
    /// The failure with `secrets` (the server's other values) hidden in its stderr tail.
    pub(crate) fn scrubbed<'a>(self, secrets: impl IntoIterator<Item = &'a str>) -> Self {
        match self {
            Self::Exit { status, stderr } => Self::Exit {
                status,
                stderr: scrub(&stderr, secrets),
            },
            Self::EmptyOutput { stderr } => Self::EmptyOutput {
                stderr: scrub(&stderr, secrets),
            },
            other => other,
        }
    }
}

fn stderr_suffix(stderr: &str) -> String {
    if stderr.is_empty() {
        String::new()
    } else {
        format!("; stderr: {stderr}")
    }
}

pub(crate) fn format_duration(duration: Duration) -> String {
    if duration.subsec_nanos() == 0 {
        format!("{}s", duration.as_secs())
    } else {
        format!("{}ms", duration.as_millis())
    }
}

/// The running command, whose whole group is killed if this is dropped before the command
/// finished: on timeout, and when the resolution is cancelled mid-run.
struct Running {
    child: Box<dyn ChildWrapper>,
    finished: bool,
}

impl Drop for Running {
    fn drop(&mut self) {
        if !self.finished {
            // SIGKILL to the group: the command and anything it started.
            let _ = self.child.start_kill();
        }
    }
}

/// Runs `sh -c command` once, in its own process group (in `folder`, when given), and checks
/// its outcome: exit status 0 and something other than whitespace on stdout, within `timeout`.
pub(crate) async fn run_command(
    command: &str,
    timeout: Duration,
    folder: Option<&std::path::Path>,
) -> Result<String, CommandFailure> {
    if command.trim().is_empty() {
        return Err(CommandFailure::EmptyCommand);
    }
    let mut shell = tokio::process::Command::new("sh");
    if let Some(folder) = folder {
        shell.current_dir(folder);
    }
    shell
        .arg("-c")
        .arg(command)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut shell = CommandWrap::from(shell);
    shell.wrap(ProcessGroup::leader()).wrap(KillOnDrop);
    let child = shell
        .spawn()
        .map_err(|error| CommandFailure::Spawn(Shared::new(Arc::new(error))))?;
    let mut running = Running {
        child,
        finished: false,
    };
    let stdout = running.child.stdout().take();
    let stderr = running.child.stderr().take();

    let finished = {
        // The leader alone is waited for: the group could hold a background process forever.
        let leader = running.child.inner_mut();
        let run =
            async { tokio::join!(read_stdout(stdout), read_stderr_tail(stderr), leader.wait()) };
        tokio::time::timeout(timeout, run).await
    };
    let Ok((stdout, stderr, status)) = finished else {
        let _ = running.child.start_kill();
        // Reaps `sh`, killed with its group.
        let _ = running.child.inner_mut().wait().await;
        running.finished = true;
        return Err(CommandFailure::TimedOut(timeout));
    };
    running.finished = true;

    let status = status.map_err(|error| CommandFailure::Wait(Shared::new(Arc::new(error))))?;
    // The tail never repeats the command line or what the command printed: either may be the
    // secret (`sh: 1: <command>: not found`).
    let printed = match &stdout {
        Ok(Some(bytes)) => String::from_utf8_lossy(bytes).into_owned(),
        _ => String::new(),
    };
    let stderr = scrub(&stderr_tail(&stderr), [command, printed.as_str()]);
    if !status.success() {
        return Err(CommandFailure::Exit { status, stderr });
    }
    let stdout = stdout
        .map_err(|error| CommandFailure::Read(Shared::new(Arc::new(error))))?
        .ok_or(CommandFailure::TooLong {
            limit: STDOUT_LIMIT,
        })?;
    let stdout = String::from_utf8(stdout).map_err(|_| CommandFailure::NotUtf8)?;
    let value = stdout.trim();
    if value.is_empty() {
        return Err(CommandFailure::EmptyOutput { stderr });
    }
    Ok(value.to_owned())
}

/// All of stdout, or `None` when it is longer than [`STDOUT_LIMIT`] (read to the end anyway, so
/// the command is not blocked writing).
async fn read_stdout(reader: Option<impl AsyncRead + Unpin>) -> std::io::Result<Option<Vec<u8>>> {
    let mut out = Vec::new();
    let Some(mut reader) = reader else {
        return Ok(Some(out));
    };
    let mut too_long = false;
    let mut buffer = [0_u8; 8192];
    loop {
        let read = reader.read(&mut buffer).await?;
        if read == 0 {
            break;
        }
        if too_long || out.len() + read > STDOUT_LIMIT {
            too_long = true;
            out.clear();
        } else {
            out.extend_from_slice(&buffer[..read]);
        }
    }
    Ok((!too_long).then_some(out))
}

/// The last [`STDERR_KEEP`] bytes of stderr (read errors end the reading quietly: stderr is only
/// a hint).
async fn read_stderr_tail(reader: Option<impl AsyncRead + Unpin>) -> Vec<u8> {
    let mut tail = Vec::new();
    let Some(mut reader) = reader else {
        return tail;
    };
    let mut buffer = [0_u8; 8192];
    while let Ok(read @ 1..) = reader.read(&mut buffer).await {
        tail.extend_from_slice(&buffer[..read]);
        if tail.len() > 2 * STDERR_KEEP {
            tail.drain(..tail.len() - STDERR_KEEP);
        }
    }
    tail
}

/// The last few non-blank lines of stderr, each shortened, joined with ` | `.
fn stderr_tail(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim_end)
        .filter(|line| !line.trim().is_empty())
        .collect();
    lines[lines.len().saturating_sub(STDERR_LINES)..]
        .iter()
        .map(|line| {
            if line.chars().count() > STDERR_LINE_CHARS {
                let short: String = line.chars().take(STDERR_LINE_CHARS).collect();
                format!("{short}…")
            } else {
                (*line).to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join(" | ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stderr_tail_keeps_the_last_lines_shortened() {
        let text = format!("1\n2\n\n3\n4\n5\n6\n{}\n", "x".repeat(300));
        let tail = stderr_tail(text.as_bytes());
        assert!(tail.starts_with("3 | 4 | 5 | 6 | xxx"), "{tail}");
        assert!(tail.ends_with("x…"), "{tail}");
        assert_eq!(stderr_tail(b"  \n"), "");
    }

    #[test]
    fn durations_are_shown_in_seconds_or_milliseconds() {
        assert_eq!(format_duration(Duration::from_secs(10)), "10s");
        assert_eq!(format_duration(Duration::from_millis(300)), "300ms");
    }

    #[test]
    fn failure_messages() {
        use std::os::unix::process::ExitStatusExt as _;

        let exit = CommandFailure::Exit {
            status: ExitStatus::from_raw(2 << 8),
            stderr: "no such item".into(),
        };
        assert_eq!(
            exit.to_string(),
            "failed (exit status: 2); stderr: no such item"
        );
        assert_eq!(
            CommandFailure::TimedOut(Duration::from_secs(10)).to_string(),
            "timed out after 10s"
        );
        let gone = || Shared::new(Arc::new(std::io::Error::other("gone")));
        for (failure, message) in [
            (CommandFailure::Spawn(gone()), "could not start: gone"),
            (CommandFailure::Wait(gone()), "could not wait for it: gone"),
            (
                CommandFailure::Read(gone()),
                "could not read its output: gone",
            ),
            (
                CommandFailure::TooLong {
                    limit: STDOUT_LIMIT,
                },
                "printed more than 1024 KiB",
            ),
            (CommandFailure::NotUtf8, "printed output that is not UTF-8"),
        ] {
            assert_eq!(failure.to_string(), message);
        }
    }
}
