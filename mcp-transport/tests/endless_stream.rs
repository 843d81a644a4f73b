//! A Streamable HTTP server whose answer is one `data:` line that never ends: the call fails
//! with the size limit, and the client lets go of the stream instead of reading it forever.
//!
//! The server is written here, small and single-minded (testkit's HTTP fixture sends only
//! finished events): it answers `initialize` with JSON, takes notifications with 202, has no
//! GET stream, and answers any other request with an event stream of `data: xxx…` that it
//! writes until the client closes the connection.

#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use common::guard;
use mcp_transport::http::HttpServerParams;
use mcp_transport::{ClientOptions, McpClient};
use serde_json::{Value, json};

/// The limit per message the client is given.
const LIMIT: usize = 1024 * 1024;
/// How much of the endless line the server writes at a time.
const WRITE: usize = 8 * 1024;

/// What the server saw of its endless stream.
#[derive(Default)]
struct Endless {
    /// Bytes of the endless line written so far.
    written: AtomicUsize,
    /// A write failed: the client closed the stream.
    closed_by_client: AtomicBool,
}

/// The server: a listener on 127.0.0.1 at a port the system picked, a thread per connection.
struct EndlessServer {
    address: SocketAddr,
    endless: Arc<Endless>,
    stop: Arc<AtomicBool>,
    accept: Option<JoinHandle<()>>,
    connections: Arc<Mutex<Vec<JoinHandle<()>>>>,
}

impl EndlessServer {
    fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let address = listener.local_addr().expect("address");
        let endless = Arc::new(Endless::default());
        let stop = Arc::new(AtomicBool::new(false));
        let connections = Arc::new(Mutex::new(Vec::new()));
        let accept = {
            let (endless, stop, connections) = (
                Arc::clone(&endless),
                Arc::clone(&stop),
                Arc::clone(&connections),
            );
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    if stop.load(Ordering::Acquire) {
                        return;
                    }
                    let Ok(stream) = stream else { continue };
                    let (endless, stop) = (Arc::clone(&endless), Arc::clone(&stop));
                    let handle = std::thread::spawn(move || serve(stream, &endless, &stop));
                    connections.lock().unwrap().push(handle);
                }
            })
        };
        Self {
            address,
            endless,
            stop,
            accept: Some(accept),
            connections,
        }
    }

    fn url(&self) -> String {
        format!("http://{}/mcp", self.address)
    }
}

impl Drop for EndlessServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        // Wakes the accept loop so that it sees the flag.
        let _ = TcpStream::connect(self.address);
        if let Some(accept) = self.accept.take() {
            let _ = accept.join();
        }
        for connection in std::mem::take(&mut *self.connections.lock().unwrap()) {
            let _ = connection.join();
        }
    }
}

/// Serves the requests of one connection until it closes, the server stops, or an endless
/// stream ends it.
fn serve(stream: TcpStream, endless: &Endless, stop: &AtomicBool) {
    // Reads wake up now and then to see whether the server stopped.
    let _ = stream.set_read_timeout(Some(Duration::from_millis(200)));
    let mut reader = BufReader::new(stream.try_clone().expect("clone"));
    let mut writer = stream;
    while !stop.load(Ordering::Acquire) {
        let Some((method, body)) = read_request(&mut reader, stop) else {
            return;
        };
        let message: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        let answer = match (method.as_str(), message.get("id"), message.get("method")) {
            ("POST", Some(id), Some(rpc)) if rpc == "initialize" => {
                let result = json!({
                    "jsonrpc": "2.0",
                    "id": id,
                    "result": {
                        "protocolVersion": message["params"]["protocolVersion"],
                        "capabilities": {"tools": {}},
                        "serverInfo": {"name": "endless", "version": "1"},
                    },
                })
                .to_string();
                format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{result}",
                    result.len()
                )
            }
            ("POST", Some(_), Some(_)) => {
                write_endless(&mut writer, endless);
                return;
            }
            ("POST", _, _) => "HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n".to_owned(),
            _ => "HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n".to_owned(),
        };
        if writer.write_all(answer.as_bytes()).is_err() {
            return;
        }
    }
}

/// One request's method and body; `None` once the connection closed or the server stopped.
fn read_request(reader: &mut BufReader<TcpStream>, stop: &AtomicBool) -> Option<(String, Vec<u8>)> {
    let mut head = Vec::new();
    loop {
        let mut line = String::new();
        match reader.read_line(&mut line) {
            Ok(0) => return None,
            Ok(_) if line == "\r\n" => break,
            Ok(_) => head.push(line),
            Err(error)
                if matches!(
                    error.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                // Between requests the client may stay quiet; within one it never pauses.
                if stop.load(Ordering::Acquire) || !line.is_empty() || !head.is_empty() {
                    return None;
                }
            }
            Err(_) => return None,
        }
    }
    let method = head.first()?.split(' ').next()?.to_owned();
    let length = head
        .iter()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse::<usize>().ok())?
        })
        .unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some((method, body))
}

/// An event stream holding one `data:` line that never ends, written until the client closes.
fn write_endless(writer: &mut TcpStream, endless: &Endless) {
    let head =
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\ndata: ";
    if writer.write_all(head.as_bytes()).is_ok() {
        let chunk = [b'x'; WRITE];
        while writer.write_all(&chunk).is_ok() {
            endless.written.fetch_add(WRITE, Ordering::AcqRel);
        }
    }
    endless.closed_by_client.store(true, Ordering::Release);
    let _ = writer.shutdown(Shutdown::Both);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_line_that_never_ends_fails_the_call_at_the_limit_and_the_stream_is_dropped() {
    let server = EndlessServer::start();
    let mut params = HttpServerParams::new(&server.url()).expect("a valid URL");
    params.max_message_bytes = LIMIT;
    let options = ClientOptions::default().connect_timeout(Duration::from_secs(10));
    let client = guard(McpClient::connect_http("endless", params, options))
        .await
        .expect("connects");

    let error = guard(client.call_tool("anything", None))
        .await
        .expect_err("an answer that never ends");
    assert!(error.to_string().contains(&LIMIT.to_string()), "{error}");

    // The client let go of the stream: the server's writes fail, after it wrote about the
    // limit (what the sockets' buffers hold comes on top), not an ever-growing amount.
    let endless = Arc::clone(&server.endless);
    let dropped = tokio::task::spawn_blocking(move || {
        testkit::wait_until(Duration::from_secs(10), || {
            endless.closed_by_client.load(Ordering::Acquire)
        })
    })
    .await
    .unwrap();
    let written = server.endless.written.load(Ordering::Acquire);
    assert!(dropped, "the stream is still read after {written} bytes");
    guard(client.close()).await.expect("close");
    drop(client);
    drop(server);
}
