//! `cargo build` run from inside a running `cargo test` finishes: cargo does not hold the
//! target directory's lock while the tests run.

use std::sync::mpsc;
use std::thread;
use std::time::Duration;

#[test]
fn building_the_fixture_from_inside_cargo_test_does_not_wait_for_the_target_lock() {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || tx.send(testkit::build_fixture_server()));
    // A deadlock guard, not a timing assertion: a build blocked on the lock never finishes.
    let built = rx
        .recv_timeout(Duration::from_secs(600))
        .expect("cargo build is still waiting, presumably for the target directory lock")
        .unwrap();
    assert!(built.is_file());
    assert_eq!(
        built.canonicalize().unwrap(),
        testkit::fixture_server_path().canonicalize().unwrap()
    );
}
