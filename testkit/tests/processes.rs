//! Processes around the fixture: its pids, its grandchild, SIGTERM.

mod common;

use common::{Fixture, PATIENCE};
use serde_json::{Value, json};
use testkit::{FixtureServer, process_group_members, process_is_alive, wait_until};

#[test]
fn grandchild_pid_is_reported_alive_and_in_the_server_group() {
    let mut fixture = Fixture::spawn(&FixtureServer::new().grandchild());
    let pids: Value = serde_json::from_str(&fixture.call_text(1, "pids", json!({}))).unwrap();
    let grandchild = i32::try_from(pids["grandchild"].as_i64().unwrap()).unwrap();
    let _cleanup = KillOnDrop(grandchild);
    let pgid = i32::try_from(pids["pgid"].as_i64().unwrap()).unwrap();
    assert_eq!(pids["pid"], fixture.pid());
    assert!(process_is_alive(grandchild));
    assert!(process_group_members(pgid).contains(&grandchild));
    let announced = format!("fixture: grandchild pid {grandchild}");
    assert!(wait_until(PATIENCE, || fixture
        .stderr_text()
        .contains(&announced)));

    // The grandchild outlives the server: exactly the leak a client must prevent.
    fixture.close_stdin();
    let (status, _) = fixture.wait();
    assert!(status.success());
    assert!(process_is_alive(grandchild));
    testkit::kill_process(grandchild);
    assert!(wait_until(PATIENCE, || !process_is_alive(grandchild)));
}

/// Kills the grandchild even when an assertion fails first.
struct KillOnDrop(i32);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        if process_is_alive(self.0) {
            testkit::kill_process(self.0);
        }
    }
}

#[test]
fn ignore_sigterm_survives_sigterm() {
    let mut fixture = Fixture::spawn(&FixtureServer::new().ignore_sigterm());
    // The handshake proves the disposition is set: it happens before stdin is read.
    fixture.handshake();
    let status = std::process::Command::new("kill")
        .args(["-TERM", &fixture.pid().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(fixture.request(1, "ping", json!({}))["id"], 1);
}
