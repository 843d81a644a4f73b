//! Nothing of a stdio server outlives its connection: not the server, not its grandchildren.
//! A launcher that stays as the server's parent is asked to end them itself, by its kill
//! signal, before its group is killed.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{
    connect, connect_with_params, group_is_gone, guard, params, pids, process_is_gone,
    unique_marker,
};
use mcp_transport::Launcher;
use testkit::FixtureServer;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn close_leaves_no_process_of_the_group_alive() {
    let client = connect(&FixtureServer::new().grandchild()).await;
    let pids = pids(&client).await;
    let grandchild = pids.grandchild.expect("the fixture reports its grandchild");
    assert_eq!(
        pids.pid, pids.pgid,
        "the server leads its own process group"
    );
    assert!(testkit::process_is_alive(grandchild));
    guard(client.close()).await.expect("close");
    assert!(group_is_gone(pids.pgid).await, "the group outlived close");
    assert!(
        process_is_gone(grandchild).await,
        "the grandchild outlived close"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn drop_leaves_no_process_of_the_group_alive() {
    let client = connect(&FixtureServer::new().grandchild()).await;
    let pids = pids(&client).await;
    let grandchild = pids.grandchild.expect("grandchild");
    drop(client);
    assert!(group_is_gone(pids.pgid).await, "the group outlived drop");
    assert!(
        process_is_gone(grandchild).await,
        "the grandchild outlived drop"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn close_escalates_to_sigkill_for_a_server_deaf_to_stdin_and_sigterm() {
    let fixture = FixtureServer::new()
        .ignore_stdin_close()
        .ignore_sigterm()
        .grandchild();
    let server = params(&fixture).shutdown_grace(Duration::from_millis(200));
    let client = connect_with_params(server).await;
    let pids = pids(&client).await;
    guard(client.close()).await.expect("close");
    assert!(
        group_is_gone(pids.pgid).await,
        "the stubborn server outlived close"
    );
}

/// A launcher that stays as the server's parent, deaf to the group's SIGTERM (and so is its
/// server, which inherits that), and that, sent SIGUSR1 (its kill signal), writes `kill-signal`
/// to `mark` and kills its group, itself included.
fn staying_launcher(mark: &Path) -> Launcher {
    // `sh -c SCRIPT sh MARK -- COMMAND ARGS…`; a background command's stdin is /dev/null
    // unless redirected, hence the copy of stdin on descriptor 3.
    let script = r#"mark=$1; shift 2; trap '' TERM
trap 'echo kill-signal >> "$mark"; kill -KILL 0' USR1
exec 3<&0; "$@" <&3 3<&- & wait $!"#;
    let mark = mark.display().to_string();
    Launcher::new("/bin/sh", ["-c", script, "sh", mark.as_str()])
        .kill_signal(nix::sys::signal::Signal::SIGUSR1 as i32)
}

/// A file name for a launcher's mark, removed when dropped.
struct Mark(PathBuf);

impl Mark {
    fn new() -> Self {
        Self(std::env::temp_dir().join(unique_marker("launcher-kill-signal")))
    }

    /// Waits (off the async workers, bounded only against a hang) for the launcher's mark: a
    /// whole line, since the shell creates the file before `echo` writes into it.
    async fn written(&self) -> String {
        let path = self.0.clone();
        tokio::task::spawn_blocking(move || {
            let read = || std::fs::read_to_string(&path).unwrap_or_default();
            testkit::wait_until(Duration::from_secs(10), || read().ends_with('\n'));
            read()
        })
        .await
        .expect("the waiting thread")
    }
}

impl Drop for Mark {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn close_sends_a_staying_launcher_its_kill_signal_before_sigkill() {
    let mark = Mark::new();
    let fixture = FixtureServer::new().ignore_stdin_close();
    let server = params(&fixture)
        .shutdown_grace(Duration::from_millis(200))
        .launcher(Some(staying_launcher(&mark.0)));
    let client = connect_with_params(server).await;
    let pids = pids(&client).await;
    assert_ne!(pids.pid, pids.pgid, "the launcher leads the group");
    guard(client.close()).await.expect("close");
    assert_eq!(mark.written().await, "kill-signal\n");
    assert!(group_is_gone(pids.pgid).await, "the group outlived close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn drop_sends_a_staying_launcher_its_kill_signal_alone() {
    let mark = Mark::new();
    // Deaf to the closing of its stdin, which the drop closes too: a server that exits on it
    // may take its launcher along before the signal is sent, and then there is no one to send
    // it to (the group is killed instead).
    let fixture = FixtureServer::new().ignore_stdin_close();
    let server = params(&fixture).launcher(Some(staying_launcher(&mark.0)));
    let client = connect_with_params(server).await;
    let pids = pids(&client).await;
    drop(client);
    assert_eq!(mark.written().await, "kill-signal\n");
    assert!(group_is_gone(pids.pgid).await, "the group outlived drop");
}
