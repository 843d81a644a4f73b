//! [`ServerProcess`]: a server process in a process group of its own, and the one place where
//! its group is signalled.
//!
//! The process is spawned through [`process_wrap`] (`ProcessGroup::leader()`, `KillOnDrop`), so
//! servers started through `npx`, `uvx` or `sh -c` can be stopped whole, grandchildren included,
//! without a line of `unsafe` here. One owned task, the supervisor, holds the child: it waits for
//! the leader to exit and sends the signals asked of it to the whole group (or to the leader
//! alone). When the leader exits, the supervisor kills whatever the leader left in its group
//! before it reports the exit; when the [`ServerProcess`] is dropped, the supervisor is stopped
//! and the group is killed with it. [`ServerProcess::stop`] is the polite shutdown: SIGTERM, a
//! grace period, SIGKILL.
//!
//! A leader that is a launcher staying as the server's parent, with a kill signal of its own
//! (see [`Launcher`](crate::Launcher)), is not killed first: a SIGKILL to the group would end it
//! before it ends what the server left outside the group. `stop` sends it the kill signal alone
//! before SIGKILL, and a drop sends it only that signal (no `kill_on_drop` either), unless it has
//! exited already.

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
    signals: mpsc::UnboundedSender<Request>,
    supervisor: JoinHandle<()>,
    /// The leader's own kill signal, when it is a launcher that ends what it started.
    kill_signal: Option<Signal>,
}

/// A signal the supervisor is asked to send.
#[derive(Clone, Copy, Debug)]
enum Request {
    /// To the whole process group.
    Group(Signal),
    /// To the leader alone.
    Leader(Signal),
}

/// A freshly spawned process and its pipes.
pub(crate) struct Spawned {
    pub(crate) process: ServerProcess,
    pub(crate) stdin: ChildStdin,
    pub(crate) stdout: ChildStdout,
    pub(crate) stderr: ChildStderr,
}

/// The child, whose whole group is killed when this is dropped (the supervisor ended, or was
/// stopped with its owner); or, for a launcher with a kill signal that still runs, that
/// launcher alone is sent its kill signal.
struct GroupKilledOnDrop {
    child: Box<dyn ChildWrapper>,
    kill_signal: Option<Signal>,
}

impl GroupKilledOnDrop {
    /// Sends `signal` to the leader alone, if it has not exited (until it is reaped, its pid
    /// cannot name another process); false if it has.
    fn signal_leader(&mut self, signal: Signal) -> bool {
        let leader = self.child.inner_mut();
        if !matches!(leader.try_wait(), Ok(None)) {
            return false;
        }
        let Some(pid) = leader.id().and_then(|pid| i32::try_from(pid).ok()) else {
            return false;
        };
        if let Err(error) = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), signal) {
            tracing::debug!(%error, %signal, "could not signal the server's launcher");
        }
        true
    }
}

impl Drop for GroupKilledOnDrop {
    fn drop(&mut self) {
        if let Some(signal) = self.kill_signal
            && self.signal_leader(signal)
        {
            return;
        }
        // SIGKILL to the group; an empty group (everyone gone already) is no error worth a word.
        let _ = self.child.start_kill();
    }
}

impl ServerProcess {
    /// Spawns `command` (with piped stdin, stdout and stderr) as the leader of a new process
    /// group; `kill_signal` is the leader's own, when it is a launcher that ends what it started.
    /// Must be called inside a tokio runtime, which runs the supervisor.
    pub(crate) fn spawn(
        command: tokio::process::Command,
        kill_signal: Option<Signal>,
    ) -> std::io::Result<Spawned> {
        let mut command = CommandWrap::from(command);
        command.wrap(ProcessGroup::leader());
        if kill_signal.is_none() {
            command.wrap(KillOnDrop);
        }
        let mut child = command.spawn()?;
        let pipes = (
            child.id(),
            child.stdin().take(),
            child.stdout().take(),
            child.stderr().take(),
        );
        let child = GroupKilledOnDrop { child, kill_signal };
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
                kill_signal,
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
    /// up to `grace` again. Whatever the leader left in its group is killed when it exits. A
    /// leader with a kill signal is sent it alone before SIGKILL, and given `grace` once more to
    /// end what it started. False if the leader survived even SIGKILL.
    pub(crate) async fn stop(&self, grace: Duration) -> bool {
        let steps = [
            Some(Request::Group(Signal::SIGTERM)),
            self.kill_signal.map(Request::Leader),
            Some(Request::Group(Signal::SIGKILL)),
        ];
        for request in steps.into_iter().flatten() {
            if self.exit_status().is_some() {
                return true;
            }
            tracing::debug!(pid = self.pid, ?request, "signalling the server");
            // The supervisor is gone only once the leader has exited.
            let _ = self.signals.send(request);
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

/// Owns the child: waits for the leader, signals the group (or the leader) on request, kills
/// what is left of the group when the leader exits, then publishes the exit status.
async fn supervise(
    mut child: GroupKilledOnDrop,
    mut requests: mpsc::UnboundedReceiver<Request>,
    exit: watch::Sender<Option<String>>,
) {
    let status = loop {
        tokio::select! {
            // The leader alone: waiting for the whole group could wait forever on a grandchild
            // that outlives it (and on processes reparented to us when we are a subreaper).
            status = child.child.inner_mut().wait() => break status,
            request = requests.recv() => match request {
                Some(Request::Group(signal)) => {
                    if let Err(error) = child.child.signal(signal as i32) {
                        tracing::debug!(%error, %signal, "could not signal the server's group");
                    }
                }
                Some(Request::Leader(signal)) => {
                    child.signal_leader(signal);
                }
                // The owner is gone: returning drops the child, which kills the group (or has
                // its launcher do it).
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
