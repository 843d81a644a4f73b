//! The remote transports against testkit's scriptable HTTP fixture: the faults real peers do not
//! produce on demand (an expiring session, a stream dropped mid-answer, a missing GET stream,
//! 401 with a challenge, a cross-origin endpoint, oversized events), and the headers every
//! request must carry.

#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

use common::{Captured, guard, object, recording_progress, text};
use mcp_transport::http::{HttpServerParams, RemoteTransport};
use mcp_transport::{ClientOptions, Error, McpClient, ProtocolViolation, TransportError};
use serde_json::json;
use testkit::{HttpFixture, HttpFixtureOptions, RecordedRequest};

fn params(url: &str) -> HttpServerParams {
    HttpServerParams::new(url).expect("a valid URL")
}

async fn try_connect(params: HttpServerParams) -> Result<McpClient, Error> {
    let options = ClientOptions::default().connect_timeout(Duration::from_secs(10));
    guard(McpClient::connect_http("fixture", params, options)).await
}

async fn connect(fixture: &HttpFixture) -> McpClient {
    try_connect(params(&fixture.url()))
        .await
        .unwrap_or_else(|error| panic!("{error}"))
}

async fn echo(client: &McpClient, message: &str) -> String {
    let result = guard(client.call_tool("echo", Some(object(json!({"message": message})))))
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    text(&result).to_owned()
}

fn posts_of<'a>(requests: &'a [RecordedRequest], method: &str) -> Vec<&'a RecordedRequest> {
    requests
        .iter()
        .filter(|request| {
            request.http_method == "POST" && request.rpc_method.as_deref() == Some(method)
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_request_after_initialize_carries_the_session_and_protocol_version_and_close_deletes_it()
 {
    let fixture = HttpFixture::start(HttpFixtureOptions::default());
    let client = connect(&fixture).await;
    assert_eq!(echo(&client, "hi").await, "hi");
    guard(client.close()).await.expect("close");

    let requests = fixture.requests();
    let initialize = posts_of(&requests, "initialize");
    assert_eq!(initialize.len(), 1);
    assert_eq!(initialize[0].session_id, None);
    assert_eq!(initialize[0].protocol_version, None);
    // The era probe went first, outside any session; the server did not know it.
    assert_eq!(requests[0].rpc_method.as_deref(), Some("server/discover"));
    assert_eq!(requests[0].session_id, None);
    assert_eq!(requests[0].protocol_version.as_deref(), Some("2026-07-28"));
    let later: Vec<_> = requests
        .iter()
        .filter(|request| {
            !matches!(
                request.rpc_method.as_deref(),
                Some("initialize" | "server/discover")
            )
        })
        .collect();
    assert!(
        later.len() >= 3,
        "initialized, tools/call and DELETE at least: {requests:?}"
    );
    for request in &later {
        assert_eq!(
            request.session_id.as_deref(),
            Some("session-1"),
            "{request:?}"
        );
        assert_eq!(
            request.protocol_version.as_deref(),
            Some("2025-11-25"),
            "{request:?}"
        );
    }
    assert_eq!(
        requests
            .iter()
            .filter(|request| request.http_method == "DELETE")
            .count(),
        1,
        "{requests:?}"
    );
    // notifications/initialized reached the server before the first request of the session.
    let position = |method: &str| {
        requests
            .iter()
            .position(|request| request.rpc_method.as_deref() == Some(method))
            .expect(method)
    };
    assert!(position("notifications/initialized") < position("tools/call"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_answers_work_like_streamed_ones() {
    let fixture = HttpFixture::start(HttpFixtureOptions::default().json_answers());
    let client = connect(&fixture).await;
    let tools = guard(client.list_tools()).await.expect("tools/list");
    assert_eq!(tools.len(), 4);
    assert_eq!(echo(&client, "json").await, "json");
    guard(client.close()).await.expect("close");
}

/// Calls spaced wider than the delay before each answer stream's end: the connection of one
/// is free again for the next, and none is opened, if the client read each stream to its end
/// rather than dropping it (and its connection) at the answer.
async fn answer_streams_ending_after_their_answer_keep_their_connection() {
    const END_DELAY: Duration = Duration::from_millis(30);
    let fixture = HttpFixture::start(HttpFixtureOptions::default().stream_end_delay(END_DELAY));
    let client = connect(&fixture).await;
    assert_eq!(echo(&client, "first").await, "first");
    tokio::time::sleep(END_DELAY * 8).await;
    let before = fixture.connections();
    for call in 0..5 {
        let message = format!("call {call}");
        assert_eq!(echo(&client, &message).await, message);
        tokio::time::sleep(END_DELAY * 8).await;
    }
    let opened = fixture.connections() - before;
    assert_eq!(opened, 0, "connections opened for 5 spaced calls");
    guard(client.close()).await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_stream_ending_after_its_answer_keeps_its_connection_for_the_next_call() {
    answer_streams_ending_after_their_answer_keep_their_connection().await;
}

#[tokio::test(flavor = "current_thread")]
async fn an_answer_stream_ending_after_its_answer_keeps_its_connection_on_a_current_thread_runtime()
{
    answer_streams_ending_after_their_answer_keep_their_connection().await;
}

async fn expired_session_is_replaced(options: HttpFixtureOptions) {
    // notifications/initialized and tools/list fit in the first session; the call does not.
    let fixture = HttpFixture::start(options.expire_first_session_after(2));
    let client = connect(&fixture).await;
    guard(client.list_tools()).await.expect("tools/list");
    assert_eq!(echo(&client, "after expiry").await, "after expiry");
    assert_eq!(fixture.sessions(), 2, "{:?}", fixture.requests());
    // The session works on: no further initialize.
    assert_eq!(echo(&client, "again").await, "again");
    assert_eq!(fixture.sessions(), 2);
    let requests = fixture.requests();
    let calls = posts_of(&requests, "tools/call");
    assert_eq!(
        calls.len(),
        3,
        "one refused, its retry, the next call: {requests:?}"
    );
    assert_eq!(calls[0].session_id.as_deref(), Some("session-1"));
    assert_eq!(calls[1].session_id.as_deref(), Some("session-2"));
    guard(client.close()).await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_that_expires_with_404_is_initialized_again_and_the_call_succeeds() {
    expired_session_is_replaced(HttpFixtureOptions::default()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_refused_with_400_naming_it_is_initialized_again_and_the_call_succeeds() {
    expired_session_is_replaced(HttpFixtureOptions::default().expire_with_bad_request()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_expiring_while_many_calls_are_in_flight_is_replaced_once() {
    let fixture = HttpFixture::start(HttpFixtureOptions::default().expire_first_session_after(1));
    let client = Arc::new(connect(&fixture).await);
    let calls: Vec<_> = (0..8)
        .map(|index| {
            let client = Arc::clone(&client);
            tokio::spawn(async move { echo(&client, &format!("call {index}")).await })
        })
        .collect();
    for (index, call) in calls.into_iter().enumerate() {
        assert_eq!(guard(call).await.expect("task"), format!("call {index}"));
    }
    assert_eq!(fixture.sessions(), 2, "{:?}", fixture.requests());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_given_up_while_its_expired_session_is_replaced_leaves_the_new_session_working() {
    // Every initialize is answered slowly: the replacement of the session outlasts the call
    // that found it expired, whose caller stops waiting (its future is dropped) half way.
    let fixture = HttpFixture::start(
        HttpFixtureOptions::default()
            .expire_first_session_after(2)
            .delay("initialize", Duration::from_millis(400)),
    );
    let client = connect(&fixture).await;
    guard(client.list_tools()).await.expect("tools/list");
    let given_up = tokio::time::timeout(
        Duration::from_millis(150),
        client.call_tool("echo", Some(object(json!({"message": "given up"})))),
    )
    .await;
    assert!(
        given_up.is_err(),
        "the call ended before its caller gave up: {given_up:?}"
    );

    assert_eq!(echo(&client, "next").await, "next");
    assert_eq!(fixture.sessions(), 2, "{:?}", fixture.requests());
    let requests = fixture.requests();
    let next = *posts_of(&requests, "tools/call").last().expect("calls");
    assert_eq!(
        next.session_id.as_deref(),
        Some("session-2"),
        "{requests:?}"
    );
    guard(client.close()).await.expect("close");
}

/// Calls the fixture's `progress` tool for three steps: its answer, and the progress reported.
async fn three_steps_of_progress(client: &McpClient, expectation: &str) -> (String, Vec<f64>) {
    let (options, seen) = recording_progress();
    let options = options.timeout(Duration::from_secs(10));
    let result =
        guard(client.call_tool_with("progress", Some(&object(json!({"steps": 3}))), &options))
            .await
            .expect(expectation);
    let progress = seen.lock().unwrap().clone();
    (text(&result).to_owned(), progress)
}

/// On a current-thread runtime the reader task cannot run between the events of one chunk:
/// progress sent just before the answer must still reach the caller before its answer.
#[tokio::test(flavor = "current_thread")]
async fn progress_sent_just_before_the_answer_reaches_the_caller_before_it() {
    let fixture = HttpFixture::start(HttpFixtureOptions::default());
    let client = connect(&fixture).await;
    for _ in 0..20 {
        let (answer, progress) = three_steps_of_progress(&client, "progress").await;
        assert_eq!(answer, "done");
        assert_eq!(progress, vec![1.0, 2.0, 3.0]);
    }
    guard(client.close()).await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_answer_stream_resumes_with_last_event_id_after_the_retry_delay() {
    let fixture = HttpFixture::start(
        HttpFixtureOptions::default()
            .drop_answer_after_events(2)
            .retry_ms(20),
    );
    let client = connect(&fixture).await;
    let (answer, progress) =
        three_steps_of_progress(&client, "the call completes after the stream is resumed").await;
    assert_eq!(answer, "done");
    assert_eq!(progress, vec![1.0, 2.0, 3.0]);
    let requests = fixture.requests();
    let resumed: Vec<_> = requests
        .iter()
        .filter(|request| request.http_method == "GET" && request.last_event_id.is_some())
        .collect();
    assert_eq!(resumed.len(), 1, "{requests:?}");
    // The priming event and the first progress were read: resume after the latter.
    assert!(
        resumed[0]
            .last_event_id
            .as_deref()
            .is_some_and(|id| id.ends_with("-1")),
        "{resumed:?}"
    );
    guard(client.close()).await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_dropped_before_any_message_resumes_from_the_priming_event() {
    let fixture = HttpFixture::start(HttpFixtureOptions::default().drop_answer_after_events(1));
    let client = connect(&fixture).await;
    assert_eq!(echo(&client, "resumed").await, "resumed");
    let requests = fixture.requests();
    assert!(
        requests.iter().any(|request| request
            .last_event_id
            .as_deref()
            .is_some_and(|id| id.ends_with("-0"))),
        "{requests:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_get_stream_the_client_asks_once_and_never_loops() {
    let fixture = HttpFixture::start(HttpFixtureOptions::default());
    let client = connect(&fixture).await;
    let get_count = || {
        fixture
            .requests()
            .iter()
            .filter(|request| request.http_method == "GET")
            .count()
    };
    assert!(
        guard(async {
            while get_count() == 0 {
                tokio::task::yield_now().await;
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            true
        })
        .await
    );
    for round in 0..5 {
        assert_eq!(echo(&client, &format!("{round}")).await, format!("{round}"));
    }
    assert_eq!(get_count(), 1, "{:?}", fixture.requests());
    let get = fixture
        .requests()
        .into_iter()
        .find(|request| request.http_method == "GET")
        .unwrap();
    assert_eq!(get.status, 405);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_notifications_arrive_on_the_get_stream() {
    let fixture = HttpFixture::start(HttpFixtureOptions::default().get_stream());
    let client = connect(&fixture).await;
    let mut notifications = client.subscribe();
    // The GET stream opens after notifications/initialized; wait until the fixture holds it.
    guard(async {
        while !fixture
            .requests()
            .iter()
            .any(|request| request.http_method == "GET")
        {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await;
    // The fixture registers the stream just after recording the GET: announce until it lands.
    let notification = guard(async {
        loop {
            assert_eq!(echo(&client, "x").await, "x");
            let result = client
                .call_tool("announce", Some(object(json!({}))))
                .await
                .expect("announce");
            assert_eq!(text(&result), "announced");
            if let Ok(Ok(notification)) =
                tokio::time::timeout(Duration::from_millis(200), notifications.recv()).await
            {
                return notification;
            }
        }
    })
    .await;
    assert_eq!(notification.method, "notifications/tools/list_changed");
    guard(client.close()).await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_401_is_an_error_with_the_servers_challenge_and_no_credential_in_it() {
    let fixture = HttpFixture::start(HttpFixtureOptions::default().bearer_token("right-token"));
    let url = format!("{}?apiKey=query-secret", fixture.url());
    let wrong = params(&url)
        .header("Authorization", "Bearer wrong-secret-123")
        .unwrap()
        .transport(RemoteTransport::StreamableHttp);
    let error = try_connect(wrong).await.expect_err("refused");
    let Some(TransportError::Unauthorized {
        status,
        www_authenticate,
        ..
    }) = error.transport_error()
    else {
        panic!("not an authorization error: {error:?}");
    };
    assert_eq!(*status, 401);
    assert!(
        www_authenticate
            .as_deref()
            .is_some_and(|challenge| challenge.contains("resource_metadata=")),
        "{www_authenticate:?}"
    );
    let shown = format!("{error} {error:?}");
    assert!(!shown.contains("wrong-secret-123"), "{shown}");
    assert!(!shown.contains("query-secret"), "{shown}");
    assert!(shown.contains("401"), "{shown}");

    let right = params(&fixture.url())
        .header("Authorization", "Bearer right-token")
        .unwrap();
    let client = try_connect(right).await.expect("the right token connects");
    assert_eq!(echo(&client, "in").await, "in");
    assert!(
        fixture
            .requests()
            .iter()
            .filter(|request| request.status != 401)
            .all(|request| request.authorization.as_deref() == Some("Bearer right-token"))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_event_over_the_size_limit_fails_its_call_and_the_connection_lives_on() {
    let fixture = HttpFixture::start(HttpFixtureOptions::default());
    let mut limited = params(&fixture.url());
    limited.max_message_bytes = 4096;
    let client = try_connect(limited).await.expect("connects");
    let error = guard(client.call_tool("huge", Some(object(json!({"bytes": 100_000})))))
        .await
        .expect_err("too large");
    assert!(error.to_string().contains("4096"), "{error}");
    assert_eq!(echo(&client, "still here").await, "still here");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_legacy_transport_posts_to_the_named_endpoint_and_reads_answers_from_the_stream() {
    let fixture = HttpFixture::start(HttpFixtureOptions::default().legacy_sse());
    for transport in [RemoteTransport::Sse, RemoteTransport::Auto] {
        let client = try_connect(params(&fixture.url()).transport(transport))
            .await
            .unwrap_or_else(|error| panic!("{transport:?}: {error}"));
        assert_eq!(echo(&client, "legacy").await, "legacy");
        guard(client.close()).await.expect("close");
    }
    let requests = fixture.requests();
    assert!(
        requests
            .iter()
            .filter(|request| request.http_method == "POST" && request.rpc_method.is_some())
            .all(|request| request.target.starts_with("/messages?session=1")
                || request.target == "/sse"),
        "{requests:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_legacy_endpoint_on_another_origin_is_refused_before_anything_is_posted() {
    let fixture = HttpFixture::start(
        HttpFixtureOptions::default()
            .legacy_sse()
            .legacy_endpoint("http://127.0.0.2:9/messages?session=1"),
    );
    let error = try_connect(
        params(&fixture.url())
            .transport(RemoteTransport::Sse)
            .header("Authorization", "Bearer not-for-them")
            .unwrap(),
    )
    .await
    .expect_err("refused");
    assert!(
        matches!(
            error.transport_error(),
            Some(TransportError::CrossOriginEndpoint { endpoint }) if endpoint == "http://127.0.0.2:9"
        ),
        "{error:?}"
    );
    assert!(
        fixture
            .requests()
            .iter()
            .all(|request| request.http_method == "GET"),
        "{:?}",
        fixture.requests()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_legacy_server_that_never_names_its_endpoint_fails_within_the_endpoint_timeout() {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

    // A legacy server written here: it answers the GET with an event stream that stays open
    // and carries events, but never the `endpoint` one (testkit's legacy fixture always names
    // it). It serves one connection, then reports what it was asked and that the client hung
    // up; a stream the client kept open would hold it, and the test, until the guard fails.
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .unwrap();
    let url = format!("http://{}/sse", listener.local_addr().unwrap());
    let server = tokio::spawn(async move {
        let (mut stream, _) = listener.accept().await.unwrap();
        let request = common::read_request(&mut stream).await;
        stream
            .write_all(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\
                  Cache-Control: no-cache\r\n\r\n: opened\n\n\
                  event: ping\ndata: not the endpoint\n\n",
            )
            .await
            .unwrap();
        // Nothing more is sent; reading ends when the client closes the connection.
        let mut rest = Vec::new();
        let _ = stream.read_to_end(&mut rest).await;
        request
    });

    let endpoint_timeout = Duration::from_millis(300);
    let mut legacy = params(&url).transport(RemoteTransport::Sse);
    legacy.endpoint_timeout = endpoint_timeout;
    let began = std::time::Instant::now();
    // The connection's own timeout (10 s, see `try_connect`) is far longer: only the endpoint
    // timeout can end this attempt with `NoEndpoint`.
    let error = try_connect(legacy).await.expect_err("no endpoint named");
    let waited = began.elapsed();

    assert!(
        matches!(
            error.transport_error(),
            Some(TransportError::Protocol {
                violation: ProtocolViolation::NoEndpoint { waited },
                ..
            }) if *waited == endpoint_timeout
        ),
        "{error:?}"
    );
    assert!(
        error
            .to_string()
            .contains("the server named no message endpoint within 300ms"),
        "{error}"
    );
    // A lower bound only: the attempt gave up no sooner than it was told to.
    assert!(waited >= endpoint_timeout, "gave up after {waited:?}");
    // The one request was the stream's GET (nothing was posted), and the stream was closed.
    let request = guard(server).await.unwrap();
    assert_eq!(request, Some(("GET".to_owned(), "/sse".to_owned())));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_streamable_http_server_refuses_the_legacy_stream_with_405_and_the_error_says_drop_sse() {
    // A Streamable HTTP server answers the legacy GET with 405: said with the fix.
    let fixture = HttpFixture::start(HttpFixtureOptions::default());
    let error = try_connect(params(&fixture.url()).transport(RemoteTransport::Sse))
        .await
        .expect_err("no legacy stream");
    assert!(
        matches!(
            error.transport_error(),
            Some(TransportError::NotLegacySse { status: 405, .. })
        ),
        "{error:?}"
    );
    assert!(error.to_string().contains("drop `-t sse`"), "{error}");
}

#[tokio::test(flavor = "current_thread")]
async fn headers_tokens_and_url_keys_appear_in_no_log_line_or_error() {
    let captured = Captured::default();
    let _logs = captured.install();

    let mut errors = Vec::new();
    // Expiry, resumption and a refused call, with the secrets in a header and in the query.
    let fixture = HttpFixture::start(
        HttpFixtureOptions::default()
            .expire_first_session_after(2)
            .drop_answer_after_events(1)
            .retry_ms(5),
    );
    let url = format!("{}?apiKey=query-secret", fixture.url());
    let secret_params = || {
        params(&url)
            .header("Authorization", "Bearer header-secret")
            .unwrap()
            .header("X-Api-Key", "other-secret")
            .unwrap()
    };
    let client = try_connect(secret_params()).await.expect("connects");
    guard(client.list_tools()).await.expect("tools/list");
    assert_eq!(echo(&client, "hello").await, "hello");
    if let Err(error) = client.call_tool("missing", None).await {
        errors.push(format!("{error} {error:?}"));
    }
    guard(client.close()).await.expect("close");
    // A refused token, and a server that is not there.
    let guarded = HttpFixture::start(HttpFixtureOptions::default().bearer_token("other"));
    let mut refused = secret_params();
    refused.url = format!("{}?apiKey=query-secret", guarded.url())
        .parse()
        .unwrap();
    errors.push(format!(
        "{:?}",
        try_connect(refused).await.expect_err("401")
    ));
    let mut nowhere = secret_params();
    nowhere.url = "http://127.0.0.1:9/mcp?apiKey=query-secret"
        .parse()
        .unwrap();
    let error = try_connect(nowhere).await.expect_err("nobody listens");
    errors.push(format!("{error} {error:?} {:?}", secret_params()));

    let logs = captured.text();
    assert!(
        logs.contains("session expired"),
        "the logs were captured: {logs}"
    );
    for secret in ["header-secret", "other-secret", "query-secret"] {
        assert!(!logs.contains(secret), "{secret} in the logs:\n{logs}");
        for error in &errors {
            assert!(!error.contains(secret), "{secret} in an error: {error}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redirect_to_another_origin_is_not_followed_and_the_headers_stay_home() {
    use std::io::{BufRead, BufReader};
    use std::net::TcpListener;

    // The third party: `localhost` is another origin than `127.0.0.1`, on the same loopback.
    let third_party = TcpListener::bind("127.0.0.1:0").unwrap();
    third_party.set_nonblocking(true).unwrap();
    let target = format!(
        "http://localhost:{}/mcp",
        third_party.local_addr().unwrap().port()
    );
    // The server answers its two requests (the era probe, then initialize) with a redirect
    // there.
    let server = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", server.local_addr().unwrap());
    let redirecting = std::thread::spawn(move || {
        for _ in 0..2 {
            let (stream, _) = server.accept().unwrap();
            let mut reader = BufReader::new(&stream);
            let mut line = String::new();
            while reader.read_line(&mut line).unwrap() > 2 {
                line.clear();
            }
            let mut writer = &stream;
            write!(
                writer,
                "HTTP/1.1 307 Temporary Redirect\r\nLocation: {target}\r\nContent-Length: 0\r\n\
                 Connection: close\r\n\r\n"
            )
            .unwrap();
        }
    });
    let params = params(&url)
        .header("X-Api-Key", "stays-home")
        .unwrap()
        .transport(RemoteTransport::StreamableHttp);
    let error = try_connect(params).await.expect_err("not followed");
    redirecting.join().unwrap();
    assert!(
        matches!(
            error.transport_error(),
            Some(TransportError::HttpStatus { status: 307, .. })
        ),
        "{error:?}"
    );
    assert!(
        matches!(third_party.accept(), Err(error) if error.kind() == std::io::ErrorKind::WouldBlock),
        "the other origin was contacted"
    );
}
