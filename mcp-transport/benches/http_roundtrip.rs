//! HTTP round-trip benchmark: `tools/call echo` over Streamable HTTP against testkit's HTTP
//! fixture, our client beside a raw floor, in one run.
//!
//! ```text
//! cargo bench -p mcp-transport --bench http_roundtrip -- [--quick]
//! ```
//!
//! The fixture answers with JSON bodies on a kept-alive connection, in this process (loopback,
//! a port the system picked). Each client is warmed up, then makes sequential calls:
//!
//! - `raw`: the floor. A blocking std `TcpStream`, the POST written as pre-built bytes with the
//!   session's headers, the answer's head read up to its `Content-Length` and the body never
//!   parsed.
//! - `ours`: [`McpClient`] over the Streamable HTTP transport (reqwest), on a multi-thread
//!   runtime.
//! - `ours_sse`: the same against the fixture answering with SSE streams, each of which closes
//!   its connection as it ends; no floor, for reference.
//!
//! The report gives p50 and p99 per client and the ratio of ours to the floor, measured side by
//! side in this one run. Run by `cargo test --benches` it only checks that every client works,
//! with a handful of calls; with `--list` (as `cargo nextest` asks) it prints nothing.

use std::error::Error;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use mcp_transport::http::{HttpServerParams, RemoteTransport};
use mcp_transport::{ClientOptions, JsonObject, McpClient};
use serde_json::json;
use testkit::{HttpFixture, HttpFixtureOptions};

type BoxError = Box<dyn Error + Send + Sync>;

struct Sizes {
    warmup: usize,
    calls: usize,
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|arg| arg == "--list") {
        return ExitCode::SUCCESS;
    }
    let bench = args.iter().any(|arg| arg == "--bench");
    let quick = args.iter().any(|arg| arg == "--quick");
    let (sizes, scale) = match (bench || quick, quick) {
        (true, false) => (
            Sizes {
                warmup: 500,
                calls: 5_000,
            },
            "full",
        ),
        (true, true) => (
            Sizes {
                warmup: 100,
                calls: 1_000,
            },
            "quick",
        ),
        (false, _) => (
            Sizes {
                warmup: 5,
                calls: 20,
            },
            "smoke",
        ),
    };
    match run(&sizes, scale) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("http_roundtrip: error: {error}");
            ExitCode::FAILURE
        }
    }
}

fn run(sizes: &Sizes, scale: &str) -> Result<(), BoxError> {
    let json = HttpFixture::start(HttpFixtureOptions::default().json_answers());
    let streamed = HttpFixture::start(HttpFixtureOptions::default());
    let raw = percentiles(raw_calls(&json.url(), sizes)?);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let ours = percentiles(runtime.block_on(our_calls(&json.url(), sizes))?);
    let ours_sse = percentiles(runtime.block_on(our_calls(&streamed.url(), sizes))?);
    println!(
        "http_roundtrip ({scale}: {} sequential calls after {} warm-up calls each)",
        sizes.calls, sizes.warmup
    );
    println!("{:<10} {:>10} {:>10}", "client", "p50 µs", "p99 µs");
    for (name, (p50, p99)) in [("raw", raw), ("ours", ours), ("ours_sse", ours_sse)] {
        println!("{name:<10} {:>10.1} {:>10.1}", micros(p50), micros(p99));
    }
    let ratio = micros(ours.0) / micros(raw.0);
    println!("ours / raw, p50: {ratio:.2}×");
    println!(
        "{}",
        json!({
            "bench": "http_roundtrip",
            "scale": scale,
            "calls": sizes.calls,
            "p50_us": {"raw": micros(raw.0), "ours": micros(ours.0), "ours_sse": micros(ours_sse.0)},
            "p99_us": {"raw": micros(raw.1), "ours": micros(ours.1), "ours_sse": micros(ours_sse.1)},
            "p50_ratio": (ratio * 1000.0).round() / 1000.0,
        })
    );
    Ok(())
}

fn micros(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e6
}

/// (p50, p99) of the timings.
fn percentiles(mut timings: Vec<Duration>) -> (Duration, Duration) {
    timings.sort_unstable();
    let at = |fraction: f64| {
        let index = ((timings.len() as f64 - 1.0) * fraction).round() as usize;
        timings.get(index).copied().unwrap_or_default()
    };
    (at(0.5), at(0.99))
}

async fn our_calls(url: &str, sizes: &Sizes) -> Result<Vec<Duration>, BoxError> {
    let params = HttpServerParams::new(url)?.transport(RemoteTransport::StreamableHttp);
    let client = McpClient::connect_http("bench", params, ClientOptions::default()).await?;
    let mut arguments = JsonObject::new();
    arguments.insert("message".to_owned(), json!("hello"));
    let mut timings = Vec::with_capacity(sizes.calls);
    for index in 0..sizes.warmup + sizes.calls {
        let started = Instant::now();
        let result = client.call_tool("echo", Some(arguments.clone())).await?;
        if index >= sizes.warmup {
            timings.push(started.elapsed());
        }
        if result.is_error {
            return Err("echo answered with an error".into());
        }
    }
    client.close().await?;
    Ok(timings)
}

/// The floor: the same calls as pre-built bytes on one blocking, kept-alive connection.
fn raw_calls(url: &str, sizes: &Sizes) -> Result<Vec<Duration>, BoxError> {
    let url = reqwest::Url::parse(url)?;
    let address = format!(
        "{}:{}",
        url.host_str().ok_or("no host")?,
        url.port().ok_or("no port")?
    );
    let stream = TcpStream::connect(address)?;
    stream.set_nodelay(true)?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut writer = stream;
    let post = |headers: &str, body: &str| {
        format!(
            "POST {} HTTP/1.1\r\nHost: {}\r\nAccept: application/json, text/event-stream\r\n\
             Content-Type: application/json\r\n{headers}Content-Length: {}\r\n\r\n{body}",
            url.path(),
            url.host_str().unwrap_or_default(),
            body.len()
        )
        .into_bytes()
    };
    let initialize = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#;
    writer.write_all(&post("", initialize))?;
    let session = read_answer(&mut reader)?.ok_or("no session id")?;
    let headers = format!("Mcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-11-25\r\n");
    writer.write_all(&post(
        &headers,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    ))?;
    read_answer(&mut reader)?;
    let call = post(
        &headers,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello"}}}"#,
    );
    let mut timings = Vec::with_capacity(sizes.calls);
    for index in 0..sizes.warmup + sizes.calls {
        let started = Instant::now();
        writer.write_all(&call)?;
        read_answer(&mut reader)?;
        if index >= sizes.warmup {
            timings.push(started.elapsed());
        }
    }
    Ok(timings)
}

/// Reads one answer (head and `Content-Length` body); its session id header, if any.
fn read_answer(reader: &mut BufReader<TcpStream>) -> Result<Option<String>, BoxError> {
    let mut line = String::new();
    let mut length = 0;
    let mut session = None;
    loop {
        line.clear();
        if reader.read_line(&mut line)? == 0 {
            return Err("the server closed the connection".into());
        }
        let header = line.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            match name.trim().to_ascii_lowercase().as_str() {
                "content-length" => length = value.trim().parse()?,
                "mcp-session-id" => session = Some(value.trim().to_owned()),
                _ => {}
            }
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    Ok(session)
}
