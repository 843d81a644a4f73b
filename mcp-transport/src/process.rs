//! [`ServerProcess`]: a server process in a process group of its own, and the one place where
//! its group is signalled.
//!
//! The process is spawned through [`process_wrap`] (`ProcessGroup::leader()`, `KillOnDrop`), so
//! servers started through `npx`, `uvx` or `sh -c` can be stopped whole, grandchildren included,
//! without a line of `unsafe` here. One owned task, the supervisor, holds the child: it waits for
//! the leader to exit and sends the signals asked of it to the whole group. When the leader
//! exits, the supervisor kills whatever the leader left in its group before it reports the exit;
//! when the [`ServerProcess`] is dropped, the supervisor is stopped and the group is killed with
//! it. [`ServerProcess::stop`] is the polite shutdown: SIGTERM, a grace period, SIGKILL.

use std::process::ExitStatus;
use std::time::Duration;

use nix::sys::signal::Signal;
use process_wrap::tokio::{ChildWrapper, CommandWrap, KillOnDrop, ProcessGroup};
use tokio::process::{ChildStderr, ChildStdin, ChildStdout};
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;

/// A running server process, the leader of its own process group.
#[derive(Debug)]
pub(crate) struct ServerProcess {
    pid: u32,
    exit: watch::Receiver<Option<String>>,
    signals: mpsc::UnboundedSender<Signal>,
    supervisor: JoinHandle<()>,
}

/// A freshly spawned process and its pipes.
pub(crate) struct Spawned {
    pub(crate) process: ServerProcess,
    pub(crate) stdin: ChildStdin,
    pub(crate) stdout: ChildStdout,
    pub(crate) stderr: ChildStderr,
}

/// The child, whose whole group is killed when this is dropped (the supervisor ended, or was
/// stopped with its owner).
struct GroupKilledOnDrop(Box<dyn ChildWrapper>);

impl Drop for GroupKilledOnDrop {
    fn drop(&mut self) {
        // SIGKILL to the group; an empty group (everyone gone already) is no error worth a word.
        let _ = self.0.start_kill();
    }
}

impl ServerProcess {
    /// Spawns `command` (with piped stdin, stdout and stderr) as the leader of a new process
    /// group. Must be called inside a tokio runtime, which runs the supervisor.
    pub(crate) fn spawn(command: tokio::process::Command) -> std::io::Result<Spawned> {
        let mut command = CommandWrap::from(command);
        command.wrap(ProcessGroup::leader()).wrap(KillOnDrop);
        let mut child = command.spawn()?;
        let pipes = (
            child.id(),
            child.stdin().take(),
            child.stdout().take(),
            child.stderr().take(),
        );
        let child = GroupKilledOnDrop(child);
        let (Some(pid), Some(stdin), Some(stdout), Some(stderr)) = pipes else {
            return Err(std::io::Error::other(
                "the child process has no pid or pipes",
            ));
        };
        let (exit_tx, exit) = watch::channel(None);
        let (signals, requests) = mpsc::unbounded_channel();
        let supervisor = tokio::spawn(supervise(child, requests, exit_tx));
        Ok(Spawned {
            process: Self {
                pid,
                exit,
                signals,
                supervisor,
            },
            stdin,
            stdout,
            stderr,
        })
    }

    /// The leader's process id, which is also the group's id.
    pub(crate) fn pid(&self) -> u32 {
        self.pid
    }

    /// How the leader exited (`status 1`, `signal 9`), once it has.
    pub(crate) fn exit_status(&self) -> Option<String> {
        self.exit.borrow().clone()
    }

    /// A receiver that sees the exit status once there is one.
    pub(crate) fn exit_watch(&self) -> watch::Receiver<Option<String>> {
        self.exit.clone()
    }

    /// Waits up to `limit` for the leader to exit; true if it did.
    pub(crate) async fn wait_for_exit(&self, limit: Duration) -> bool {
        let mut exit = self.exit.clone();
        tokio::time::timeout(limit, exit.wait_for(Option::is_some))
            .await
            .is_ok()
    }

    /// Stops the process group: SIGTERM, up to `grace` for the leader to exit, then SIGKILL and
    /// up to `grace` again. Whatever the leader left in its group is killed when it exits. False
    /// if the leader survived even SIGKILL.
    pub(crate) async fn stop(&self, grace: Duration) -> bool {
        for signal in [Signal::SIGTERM, Signal::SIGKILL] {
            if self.exit_status().is_some() {
                return true;
            }
            tracing::debug!(pid = self.pid, %signal, "signalling the server's process group");
            // The supervisor is gone only once the leader has exited.
            let _ = self.signals.send(signal);
            if self.wait_for_exit(grace).await {
                return true;
            }
        }
        false
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        // Dropping the supervisor's future drops the child, which kills the whole group.
        self.supervisor.abort();
    }
}

/// Owns the child: waits for the leader, signals the group on request, kills what is left of
/// the group when the leader exits, then publishes the exit status.
async fn supervise(
    mut child: GroupKilledOnDrop,
    mut requests: mpsc::UnboundedReceiver<Signal>,
    exit: watch::Sender<Option<String>>,
) {
    let status = loop {
        tokio::select! {
            // The leader alone: waiting for the whole group could wait forever on a grandchild
            // that outlives it (and on processes reparented to us when we are a subreaper).
            status = child.0.inner_mut().wait() => break status,
            request = requests.recv() => match request {
                Some(signal) => {
                    if let Err(error) = child.0.signal(signal as i32) {
                        tracing::debug!(%error, %signal, "could not signal the server's group");
                    }
                }
                // The owner is gone: returning drops the child, which kills the group.
                None => return,
            },
        }
    };
    // Anything the leader left in its group goes before anyone hears of the exit, so that an
    // exited (or stopped) server never leaves a process behind.
    drop(child);
    let status = match status {
        Ok(status) => describe_status(status),
        Err(error) => format!("unknown status ({error})"),
    };
    exit.send_replace(Some(status));
}

fn describe_status(status: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("status {code}"),
        (None, Some(signal)) => format!("signal {signal}"),
        (None, None) => status.to_string(),
    }
}
