//! The cache hints of the stateless revision (2026-07-28) as a server sends them over HTTP:
//! a `ttlMs` that cannot be read (negative, fractional, too large for any clock, a string) is
//! no hint wherever it comes — on `server/discover` as on `tools/list` — and never fails the
//! connection or the list; a readable one is taken for a day at most, however long the server
//! asks for. Against testkit's HTTP fixture in its stateless mode, on 127.0.0.1.

#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::time::Duration;

use common::guard;
use mcp_transport::http::HttpServerParams;
use mcp_transport::{ClientOptions, McpClient, ProtocolVersion};
use serde_json::{Value, json};
use testkit::{HttpFixture, HttpFixtureOptions};

/// One day: the longest a list is ever taken as fresh.
const DAY: Duration = Duration::from_secs(24 * 60 * 60);

async fn connect(fixture: &HttpFixture) -> McpClient {
    let params = HttpServerParams::new(&fixture.url()).expect("a valid URL");
    let options = ClientOptions::default().connect_timeout(Duration::from_secs(10));
    guard(McpClient::connect_http("hinted", params, options))
        .await
        .unwrap_or_else(|error| panic!("{error}"))
}

/// The hints a careless or hostile server may put where a whole number of milliseconds goes.
fn unreadable() -> [Value; 5] {
    [json!(-1), json!(1e300), json!("NaN"), json!(1.5), json!({})]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreadable_ttl_on_server_discover_is_ignored_and_the_server_connects() {
    for ttl in unreadable() {
        let fixture = HttpFixture::start(
            HttpFixtureOptions::default()
                .stateless(Some(60_000))
                .discover_ttl(ttl.clone()),
        );
        let client = connect(&fixture).await;
        assert_eq!(
            client.protocol_version(),
            ProtocolVersion::V2026_07_28,
            "ttlMs {ttl}"
        );
        let listed = guard(client.list_tools_with_ttl()).await.unwrap();
        assert_eq!(listed.tools.len(), 4, "ttlMs {ttl}");
        guard(client.close()).await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreadable_ttl_on_a_tool_list_is_no_ttl() {
    for ttl in unreadable() {
        let fixture = HttpFixture::start(
            HttpFixtureOptions::default()
                .stateless(None)
                .list_ttl(ttl.clone()),
        );
        let client = connect(&fixture).await;
        let listed = guard(client.list_tools_with_ttl()).await.unwrap();
        assert_eq!(listed.tools.len(), 4, "ttlMs {ttl}");
        assert_eq!(listed.ttl, None, "ttlMs {ttl}");
        guard(client.close()).await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_lists_ttl_is_taken_for_a_day_at_most() {
    // 10^12 ms is 31 years; as an integer and in exponent form.
    for ttl in [json!(1_000_000_000_000_u64), json!(1e12), json!(u64::MAX)] {
        let fixture = HttpFixture::start(
            HttpFixtureOptions::default()
                .stateless(None)
                .list_ttl(ttl.clone()),
        );
        let client = connect(&fixture).await;
        let listed = guard(client.list_tools_with_ttl()).await.unwrap();
        let fresh_for = listed.ttl.expect("a readable ttl is kept");
        assert!(
            fresh_for <= DAY && fresh_for > DAY - Duration::from_secs(60),
            "ttlMs {ttl}: fresh for {fresh_for:?}"
        );
        guard(client.close()).await.unwrap();
    }
}
