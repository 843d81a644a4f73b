//! Nothing of a stdio server outlives its connection: not the server, not its grandchildren.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::time::Duration;

use common::{connect, connect_with_params, group_is_gone, guard, params, pids, process_is_gone};
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
