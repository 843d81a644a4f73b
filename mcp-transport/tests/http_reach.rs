//! A `ReachCheck` against testkit's HTTP fixture on 127.0.0.1: a literal address is checked
//! before anything is sent, every address a name resolves to is checked before any is connected
//! to, and a connection the check lets through works as before.

#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::guard;
use mcp_transport::http::{HttpServerParams, ReachCheck, Refused, RefusedTarget};
use mcp_transport::{ClientOptions, Error, McpClient, TransportError};
use testkit::{HttpFixture, HttpFixtureOptions};

/// The reason the tests' check gives.
#[derive(Debug, thiserror::Error)]
#[error("not on this machine's list")]
struct NotListed;

/// A check refusing `refused` (every address when `None`), recording what it was asked.
fn recording_check(refused: Option<std::net::IpAddr>) -> (ReachCheck, Arc<Mutex<Vec<SocketAddr>>>) {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let check = ReachCheck::addresses({
        let asked = Arc::clone(&asked);
        move |address| {
            asked.lock().unwrap().push(address);
            if refused.is_none_or(|refused| refused == address.ip()) {
                Err(Refused::address(address, NotListed))
            } else {
                Ok(())
            }
        }
    });
    (check, asked)
}

async fn try_connect(url: &str, check: ReachCheck) -> Result<McpClient, Error> {
    let params = HttpServerParams::new(url).unwrap().reach(check);
    let options = ClientOptions::default().connect_timeout(Duration::from_secs(10));
    guard(McpClient::connect_http("fixture", params, options)).await
}

/// The refusal in `error`.
fn refusal(error: &Error) -> &Refused {
    match error.transport_error() {
        Some(TransportError::Refused { refused, .. }) => refused,
        other => panic!("not refused: {other:?} ({error})"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_literal_address_the_check_refuses_is_never_connected_to() {
    let fixture = HttpFixture::start(HttpFixtureOptions::default());
    let (check, asked) = recording_check(None);

    let error = try_connect(&fixture.url(), check).await.unwrap_err();

    let address: SocketAddr = format!("127.0.0.1:{}", fixture.port()).parse().unwrap();
    assert_eq!(*asked.lock().unwrap(), [address]);
    let refused = refusal(&error);
    assert_eq!(refused.target, RefusedTarget::Address(address));
    assert!(refused.reason.downcast_ref::<NotListed>().is_some());
    assert!(
        error
            .to_string()
            .contains("refused: not on this machine's list"),
        "{error}"
    );
    assert_eq!(fixture.connections(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_address_a_name_resolves_to_is_checked_before_one_is_connected_to() {
    let fixture = HttpFixture::start(HttpFixtureOptions::default());
    let url = format!("http://localhost:{}/mcp", fixture.port());
    let loopback = "127.0.0.1".parse().unwrap();
    let (check, asked) = recording_check(Some(loopback));

    let error = try_connect(&url, check).await.unwrap_err();

    let address = SocketAddr::new(loopback, fixture.port());
    assert!(asked.lock().unwrap().contains(&address), "{asked:?}");
    assert_eq!(refusal(&error).target, RefusedTarget::Address(address));
    assert_eq!(fixture.connections(), 0);
    assert!(fixture.requests().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_name_whose_addresses_pass_the_check_connects() {
    let fixture = HttpFixture::start(HttpFixtureOptions::default());
    let url = format!("http://localhost:{}/mcp", fixture.port());
    let (check, asked) = recording_check(Some("10.0.0.1".parse().unwrap()));

    let client = try_connect(&url, check).await.unwrap();

    assert!(!asked.lock().unwrap().is_empty());
    assert!(!guard(client.list_tools()).await.unwrap().is_empty());
    guard(client.close()).await.unwrap();
}
