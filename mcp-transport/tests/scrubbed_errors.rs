//! Servers that send our own secrets back: an HTTP server that reflects the whole request in
//! its 500 body (as plain text, or inside a JSON-RPC error), and a stdio server that prints its
//! environment on stderr before it dies. Neither the error (its `Display` and `Debug`) nor a
//! log line may show a header value, a URL query value, the userinfo or an environment value;
//! the failure itself (the status, the exit) still shows.
//!
//! The tests run on a current-thread runtime so that the logs of the transports' own tasks
//! reach the subscriber the test installs (it is the thread's default).

#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::time::Duration;

use common::{Captured, guard};
use mcp_transport::http::{
    Authorizer, HttpServerParams, Refusal, RemoteTransport, RequestCredentials, RequestTarget,
};
use mcp_transport::{ClientOptions, Error, McpClient, StdioServerParams, TransportError};
use reqwest::header::HeaderValue;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

/// What the reflecting server puts the request in.
#[derive(Clone, Copy)]
enum Reflect {
    /// A `text/plain` 500 body.
    PlainBody,
    /// The message of a JSON-RPC error answering the request, in a 500 `application/json` body.
    JsonRpcError,
}

/// A server on 127.0.0.1 answering every request with 500 and the request itself; stopped
/// when dropped.
struct Reflector {
    port: u16,
    task: JoinHandle<()>,
}

impl Reflector {
    async fn start(reflect: Reflect) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(answer(stream, reflect));
            }
        });
        Self { port, task }
    }
}

impl Drop for Reflector {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Reads one request (head and `Content-Length` body) and answers it with 500 and the request.
async fn answer(mut stream: TcpStream, reflect: Reflect) {
    let mut request = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(end) = request.windows(4).position(|window| window == b"\r\n\r\n") {
            break end + 4;
        }
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(read) => request.extend_from_slice(&chunk[..read]),
        }
    };
    let head = String::from_utf8_lossy(&request[..head_end]).to_ascii_lowercase();
    let length: usize = head
        .lines()
        .find_map(|line| line.strip_prefix("content-length:"))
        .map_or(0, |length| length.trim().parse().unwrap());
    while request.len() < head_end + length {
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(read) => request.extend_from_slice(&chunk[..read]),
        }
    }
    let text = String::from_utf8_lossy(&request).into_owned();
    let (content_type, body) = match reflect {
        Reflect::PlainBody => ("text/plain", format!("could not handle:\n{text}")),
        Reflect::JsonRpcError => {
            let message: serde_json::Value =
                serde_json::from_slice(&request[head_end..]).unwrap_or_default();
            let answer = serde_json::json!({
                "jsonrpc": "2.0",
                "id": message["id"],
                "error": {"code": -32603, "message": format!("could not handle: {text}")},
            });
            ("application/json", answer.to_string())
        }
    };
    let response = format!(
        "HTTP/1.1 500 Internal Server Error\r\ncontent-type: {content_type}\r\n\
         content-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.write_all(response.as_bytes()).await;
}

const SECRETS: [&str; 4] = [
    "header-secret-1",
    "api-key-secret-2",
    "url-secret-3",
    "userinfo-secret-4",
];

/// Parameters with a secret in an `Authorization` header, another header and the query.
fn secret_params(port: u16, transport: RemoteTransport) -> HttpServerParams {
    HttpServerParams::new(&format!("http://127.0.0.1:{port}/mcp?token=url-secret-3"))
        .unwrap()
        .header("Authorization", "Bearer header-secret-1")
        .unwrap()
        .header("X-Api-Key", "api-key-secret-2")
        .unwrap()
        .transport(transport)
}

/// Parameters with a secret in the userinfo, which reqwest sends as a Basic `Authorization`
/// (in place of a configured one: so it gets parameters of its own).
fn userinfo_params(port: u16, transport: RemoteTransport) -> HttpServerParams {
    HttpServerParams::new(&format!(
        "http://someone:userinfo-secret-4@127.0.0.1:{port}/mcp"
    ))
    .unwrap()
    .transport(transport)
}

async fn connect_error(params: HttpServerParams) -> Error {
    let options = ClientOptions::default().connect_timeout(Duration::from_secs(10));
    guard(McpClient::connect_http("reflector", params, options))
        .await
        .expect_err("the server answers 500")
}

/// The reflected request is scrubbed in the error and the logs, and the failure still shows
/// through `expected`.
fn assert_scrubbed(errors: &[Error], logs: &str, expected: &str) {
    let shown = errors
        .iter()
        .map(|error| format!("{error}\n{error:?}"))
        .collect::<Vec<_>>()
        .join("\n");
    for error in errors {
        let shown = format!("{error}");
        assert!(shown.contains(expected), "{shown}");
        assert!(
            shown.contains("<redacted>"),
            "the reflected request is in the error: {shown}"
        );
    }
    // The Basic credential reqwest makes of the userinfo: base64("someone:userinfo-secret-4").
    let basic = "c29tZW9uZTp1c2VyaW5mby1zZWNyZXQtNA==";
    for secret in SECRETS.iter().chain([&basic]) {
        assert!(!shown.contains(secret), "{secret} in the error:\n{shown}");
        assert!(!logs.contains(secret), "{secret} in the logs:\n{logs}");
    }
}

#[tokio::test]
async fn a_streamable_http_server_reflecting_the_request_in_its_500_body_gets_no_secret_shown() {
    let captured = Captured::default();
    let _logs = captured.install();
    let server = Reflector::start(Reflect::PlainBody).await;
    let errors = [
        connect_error(secret_params(server.port, RemoteTransport::Auto)).await,
        connect_error(userinfo_params(server.port, RemoteTransport::Auto)).await,
    ];
    assert_scrubbed(&errors, &captured.text(), "HTTP 500");
}

#[tokio::test]
async fn a_legacy_sse_server_reflecting_the_request_in_its_500_body_gets_no_secret_shown() {
    let captured = Captured::default();
    let _logs = captured.install();
    let server = Reflector::start(Reflect::PlainBody).await;
    let errors = [
        connect_error(secret_params(server.port, RemoteTransport::Sse)).await,
        connect_error(userinfo_params(server.port, RemoteTransport::Sse)).await,
    ];
    assert_scrubbed(&errors, &captured.text(), "HTTP 500");
}

#[tokio::test]
async fn a_json_rpc_error_reflecting_the_request_in_a_500_gets_no_secret_shown() {
    let captured = Captured::default();
    let _logs = captured.install();
    let server = Reflector::start(Reflect::JsonRpcError).await;
    let errors = [
        connect_error(secret_params(server.port, RemoteTransport::StreamableHttp)).await,
        connect_error(userinfo_params(
            server.port,
            RemoteTransport::StreamableHttp,
        ))
        .await,
    ];
    assert_scrubbed(&errors, &captured.text(), "could not handle");
}

#[tokio::test]
async fn a_stdio_server_printing_its_environment_before_it_dies_gets_no_value_shown() {
    let captured = Captured::default();
    let _logs = captured.install();
    let params = StdioServerParams::new(
        "sh",
        [
            "-c",
            "echo \"starting with token=$API_TOKEN and $COMMAND_SECRET\" >&2; exit 1",
        ],
    )
    .env("API_TOKEN", "env-secret-5")
    // What a resolved `!command` value reaches the transport as: a plain value.
    .env("COMMAND_SECRET", "command-output-secret-6");
    let options = ClientOptions::default().connect_timeout(Duration::from_secs(10));
    let error = guard(McpClient::connect_stdio("env-printer", params, options))
        .await
        .expect_err("the server exits");
    let shown = format!("{error}\n{error:?}");
    let logs = captured.text();
    assert!(shown.contains("exited with status 1"), "{shown}");
    assert!(
        shown.contains("starting with token=<redacted> and <redacted>"),
        "{shown}"
    );
    for secret in ["env-secret-5", "command-output-secret-6"] {
        assert!(!shown.contains(secret), "{secret} in the error:\n{shown}");
        assert!(!logs.contains(secret), "{secret} in the logs:\n{logs}");
    }
    assert!(
        logs.contains("starting with token=<redacted>"),
        "the stderr line was logged: {logs}"
    );
}

/// Gives every request the same token, as an OAuth authorizer gives the one it obtained.
struct FixedToken;

#[async_trait::async_trait]
impl Authorizer for FixedToken {
    async fn credentials(
        &self,
        _request: RequestTarget<'_>,
    ) -> Result<Option<RequestCredentials>, TransportError> {
        Ok(Some(RequestCredentials::new(HeaderValue::from_static(
            "Bearer oauth-token-secret-7",
        ))))
    }

    async fn refused(&self, _refusal: &Refusal) -> Result<bool, TransportError> {
        Ok(false)
    }
}

#[tokio::test]
async fn the_token_an_authorizer_gives_is_scrubbed_from_a_reflected_500_body() {
    let captured = Captured::default();
    let _logs = captured.install();
    let server = Reflector::start(Reflect::PlainBody).await;
    for transport in [RemoteTransport::StreamableHttp, RemoteTransport::Sse] {
        let params = HttpServerParams::new(&format!("http://127.0.0.1:{}/mcp", server.port))
            .unwrap()
            .transport(transport)
            .authorizer(std::sync::Arc::new(FixedToken));
        let error = connect_error(params).await;
        let shown = format!("{error}\n{error:?}");
        assert!(shown.contains("HTTP 500"), "{shown}");
        assert!(shown.contains("authorization: <redacted>"), "{shown}");
        assert!(!shown.contains("oauth-token-secret-7"), "{shown}");
    }
    assert!(!captured.text().contains("oauth-token-secret-7"));
}

/// A stdio server (Python) that answers `tools/list` with a JSON-RPC error quoting its
/// environment, after a log message quoting it too.
const QUOTING_SERVER: &str = r#"
import json, os, sys
token = os.environ["API_TOKEN"]
for line in sys.stdin:
    message = json.loads(line)
    method, id = message.get("method"), message.get("id")
    if method == "initialize":
        result = {"protocolVersion": message["params"]["protocolVersion"],
                  "capabilities": {"tools": {}, "logging": {}},
                  "serverInfo": {"name": "quoting", "version": "1"}}
        print(json.dumps({"jsonrpc": "2.0", "id": id, "result": result}), flush=True)
    elif method == "tools/list":
        log = {"level": "warning", "data": "the token " + token + " is not allowed"}
        print(json.dumps({"jsonrpc": "2.0", "method": "notifications/message", "params": log}), flush=True)
        error = {"code": -32001, "message": "refused token " + token,
                 "data": {"seen": {"API_TOKEN": token}, "list": [token]}}
        print(json.dumps({"jsonrpc": "2.0", "id": id, "error": error}), flush=True)
"#;

#[tokio::test]
async fn a_json_rpc_error_or_log_message_quoting_our_secret_shows_it_redacted() {
    let captured = Captured::default();
    let _logs = captured.install();
    let params = StdioServerParams::new("python3", ["-c", QUOTING_SERVER])
        .env("API_TOKEN", "env-secret-quoted-8");
    let options = ClientOptions::default().connect_timeout(Duration::from_secs(20));
    let client = guard(McpClient::connect_stdio("quoting", params, options))
        .await
        .expect("the server starts");
    let error = guard(client.list_tools())
        .await
        .expect_err("the server refuses");
    let shown = format!("{error}\n{error:?}");
    assert!(shown.contains("refused token <redacted>"), "{shown}");
    assert!(!shown.contains("env-secret-quoted-8"), "{shown}");
    let rpc = error
        .rpc_error()
        .map(|rpc| format!("{rpc:?}"))
        .unwrap_or_default();
    assert!(!rpc.contains("env-secret-quoted-8"), "{rpc}");
    let logs = captured.text();
    assert!(
        logs.contains("the token <redacted> is not allowed"),
        "{logs}"
    );
    assert!(!logs.contains("env-secret-quoted-8"), "{logs}");
    let _ = client.close().await;
}
