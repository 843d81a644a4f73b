//! The HTTP floor: the least a Streamable HTTP client can do. Blocking std `TcpStream`s kept
//! alive (`TCP_NODELAY`, as every HTTP client sets); every POST (head with the session's
//! `Mcp-Session-Id` and `MCP-Protocol-Version`, and body) built before the clock starts and
//! written with one `write_all`; an answer counts as read once its head is read and its body
//! is consumed to its `Content-Length` (JSON answers) or to its last chunk (the SSE answer's
//! one event, chunked). Bodies are never parsed; only the answers to initialize, tools/list
//! and the first echo, before timing, are checked for their text.
//!
//! Sequential calls go over one connection. The pipelined phase keeps 32 calls in flight the
//! way HTTP/1.1 clients do, with 32 kept-alive connections, one blocking thread each (the
//! threads make one call at a time until M calls are done in all); no HTTP pipelining.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::sync::Barrier;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use mcp_bench_peers::server_child::expect_marker;
use mcp_bench_peers::sys::{process_cpu_time, server_cpu_time};
use mcp_bench_peers::{Figures, IN_FLIGHT, Sizes};

use crate::http_server::{Answers, HttpServer};

const PROTOCOL: &str = "2025-11-25";
const INITIALIZE: &str = "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"floor\",\"version\":\"0\"}}}";
const INITIALIZED: &str = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";
const LIST: &str = "{\"jsonrpc\":\"2.0\",\"id\":\"list\",\"method\":\"tools/list\"}";

/// One kept-alive connection.
struct Connection {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
    line: Vec<u8>,
    /// The last answer's body, when it was asked for.
    body: Vec<u8>,
}

/// The head of an answer, as far as the floor looks at it.
struct Answer {
    status: u16,
    session: Option<String>,
}

impl Connection {
    fn open(address: &str) -> io::Result<Self> {
        let stream = TcpStream::connect(address)?;
        stream.set_nodelay(true)?;
        Ok(Self {
            reader: BufReader::with_capacity(64 * 1024, stream.try_clone()?),
            writer: stream,
            line: Vec::with_capacity(256),
            body: Vec::with_capacity(1024),
        })
    }

    /// Writes one request and reads its answer; the body is kept in `self.body` if `keep`.
    fn call(&mut self, request: &[u8], keep: bool) -> io::Result<Answer> {
        self.writer.write_all(request)?;
        self.read(keep)
    }

    fn read(&mut self, keep: bool) -> io::Result<Answer> {
        let mut answer = Answer {
            status: 0,
            session: None,
        };
        let mut length = 0;
        let mut chunked = false;
        loop {
            let line = self.next_line()?;
            if answer.status == 0 {
                // `HTTP/1.1 200 OK`
                answer.status = line
                    .get(9..12)
                    .and_then(|code| std::str::from_utf8(code).ok())
                    .and_then(|code| code.parse().ok())
                    .ok_or_else(|| io::Error::other("not an HTTP status line"))?;
                continue;
            }
            if line.is_empty() {
                break;
            }
            let Some(colon) = line.iter().position(|b| *b == b':') else {
                continue;
            };
            let (name, value) = (&line[..colon], line[colon + 1..].trim_ascii());
            if name.eq_ignore_ascii_case(b"content-length") {
                length = parse_number(value, 10)?;
            } else if name.eq_ignore_ascii_case(b"transfer-encoding") {
                chunked = true;
            } else if name.eq_ignore_ascii_case(b"mcp-session-id") {
                answer.session = Some(String::from_utf8_lossy(value).into_owned());
            }
        }
        self.body.clear();
        if !chunked {
            self.consume(length, keep)?;
            return Ok(answer);
        }
        loop {
            let size = parse_number(self.next_line()?, 16)?;
            if size == 0 {
                // No trailers from this server: the blank line that ends the body.
                self.next_line()?;
                return Ok(answer);
            }
            self.consume(size, keep)?;
            self.next_line()?;
        }
    }

    /// The next line without its CRLF (valid until the next read).
    fn next_line(&mut self) -> io::Result<&[u8]> {
        self.line.clear();
        if self.reader.read_until(b'\n', &mut self.line)? == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the server closed the connection",
            ));
        }
        Ok(self.line.trim_ascii_end())
    }

    /// Reads `length` body bytes, kept in `self.body` or dropped.
    fn consume(&mut self, mut length: usize, keep: bool) -> io::Result<()> {
        if keep {
            let start = self.body.len();
            self.body.resize(start + length, 0);
            return self.reader.read_exact(&mut self.body[start..]);
        }
        while length > 0 {
            let available = self.reader.fill_buf()?;
            if available.is_empty() {
                return Err(io::ErrorKind::UnexpectedEof.into());
            }
            let taken = available.len().min(length);
            self.reader.consume(taken);
            length -= taken;
        }
        Ok(())
    }

    fn expect(&self, needle: &[u8], what: &str) -> io::Result<()> {
        expect_marker(&self.body, needle, what)
    }
}

fn parse_number(text: &[u8], radix: u32) -> io::Result<usize> {
    std::str::from_utf8(text)
        .ok()
        .and_then(|text| usize::from_str_radix(text, radix).ok())
        .ok_or_else(|| io::Error::other(format!("not a number: {}", String::from_utf8_lossy(text))))
}

fn expect_status(answer: &Answer, status: u16, what: &str) -> io::Result<()> {
    if answer.status == status {
        Ok(())
    } else {
        Err(io::Error::other(format!(
            "{what}: HTTP {} where {status} was expected",
            answer.status
        )))
    }
}

/// POST requests to the server's `/mcp`, built once.
struct Requests {
    address: String,
    /// The session headers, once there is a session.
    session: String,
}

impl Requests {
    fn post(&self, body: &str) -> Vec<u8> {
        format!(
            "POST /mcp HTTP/1.1\r\nHost: {}\r\nAccept: application/json, text/event-stream\r\n\
             Content-Type: application/json\r\n{}Content-Length: {}\r\n\r\n{body}",
            self.address,
            self.session,
            body.len()
        )
        .into_bytes()
    }

    /// `count` echo calls with ids from `first`.
    fn echoes(&self, first: u64, count: usize) -> Vec<Vec<u8>> {
        (first..)
            .take(count)
            .map(|id| {
                self.post(&format!(
                    "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{{\"name\":\"echo\",\"arguments\":{{\"message\":\"ping\"}}}}}}"
                ))
            })
            .collect()
    }
}

/// [`IN_FLIGHT`] threads, one per connection, each making one call at a time until every
/// request is answered.
fn pipelined(connections: &mut [Connection], requests: &[Vec<u8>]) -> io::Result<Duration> {
    let next = AtomicUsize::new(0);
    let ready = Barrier::new(connections.len() + 1);
    std::thread::scope(|scope| {
        let workers: Vec<_> = connections
            .iter_mut()
            .map(|connection| {
                let (next, ready) = (&next, &ready);
                scope.spawn(move || -> io::Result<()> {
                    ready.wait();
                    while let Some(request) = requests.get(next.fetch_add(1, Ordering::Relaxed)) {
                        connection.call(request, false)?;
                    }
                    Ok(())
                })
            })
            .collect();
        ready.wait();
        let started = Instant::now();
        for worker in workers {
            worker
                .join()
                .map_err(|_| io::Error::other("a pipelining thread panicked"))??;
        }
        Ok(started.elapsed())
    })
}

pub(crate) fn run(program: &Path, answers: Answers, sizes: Sizes) -> io::Result<Figures> {
    let server = HttpServer::spawn(program, answers, &[])?;
    let mut requests = Requests {
        address: server.address.clone(),
        session: String::new(),
    };
    let mut first = Connection::open(&server.address)?;
    let answer = first.call(&requests.post(INITIALIZE), true)?;
    expect_status(&answer, 200, "initialize")?;
    first.expect(b"\"result\"", "initialize")?;
    let session = answer
        .session
        .ok_or_else(|| io::Error::other("initialize answered with no Mcp-Session-Id"))?;
    requests.session = format!("Mcp-Session-Id: {session}\r\nMCP-Protocol-Version: {PROTOCOL}\r\n");
    let answer = first.call(&requests.post(INITIALIZED), false)?;
    expect_status(&answer, 202, "notifications/initialized")?;
    first.call(&requests.post(LIST), true)?;
    first.expect(b"\"name\":\"echo\"", "tools/list")?;
    first.call(&requests.echoes(0, 1)[0], true)?;
    first.expect(b"\"text\":\"ping\"", "echo")?;

    let warmup_seq = requests.echoes(1, sizes.warmup);
    let measured_seq = requests.echoes(1_000_000, sizes.sequential);
    let warmup_pipe = requests.echoes(2_000_000, sizes.warmup);
    let measured_pipe = requests.echoes(3_000_000, sizes.pipelined);
    for request in &warmup_seq {
        first.call(request, false)?;
    }

    let server_pid = server.pid();
    let mut samples = Vec::with_capacity(measured_seq.len());
    let server_before = server_cpu_time(server_pid)?;
    let cpu_before = process_cpu_time()?;
    for request in &measured_seq {
        let started = Instant::now();
        first.call(request, false)?;
        samples.push(started.elapsed());
    }
    let client_cpu = process_cpu_time()?.saturating_sub(cpu_before);
    let server_cpu = server_cpu_time(server_pid)?.saturating_sub(server_before);

    let mut connections = vec![first];
    for _ in 1..IN_FLIGHT {
        connections.push(Connection::open(&server.address)?);
    }
    pipelined(&mut connections, &warmup_pipe)?;
    let elapsed = pipelined(&mut connections, &measured_pipe)?;

    let answer = connections[0].call(
        format!(
            "DELETE /mcp HTTP/1.1\r\nHost: {}\r\n{}Content-Length: 0\r\n\r\n",
            requests.address, requests.session
        )
        .as_bytes(),
        false,
    )?;
    expect_status(&answer, 204, "DELETE")?;
    drop(connections);
    server.finish()?;
    Ok(Figures::new(
        &format!("raw-http-{}", answers.name()),
        "blocking",
        &mut samples,
        client_cpu,
        server_cpu,
        (measured_pipe.len(), elapsed),
    ))
}
