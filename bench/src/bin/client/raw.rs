//! The floor: the least a client can do. Blocking std pipes; every request line serialized
//! before the clock starts; one `write_all` per request; a response counts as read once its
//! newline is found (`BufRead::read_until`), nothing is parsed. Only the first echo answer,
//! before timing, is checked for its text.

use std::io;
use std::path::Path;
use std::time::{Duration, Instant};

use mcp_bench_peers::server_child::ServerChild;
use mcp_bench_peers::sys::{process_cpu_time, schedstat_cpu_time};
use mcp_bench_peers::{Figures, IN_FLIGHT, Sizes};

const INITIALIZE: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"floor\",\"version\":\"0\"}}}\n";
const INITIALIZED: &[u8] = b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n";

/// `count` echo request lines with ids from `first`.
fn request_lines(first: u64, count: usize) -> Vec<Vec<u8>> {
    (first..)
        .take(count)
        .map(|id| {
            format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{{\"name\":\"echo\",\"arguments\":{{\"message\":\"ping\"}}}}}}\n"
            )
            .into_bytes()
        })
        .collect()
}

fn pipelined(server: &mut ServerChild, lines: &[Vec<u8>]) -> io::Result<Duration> {
    let started = Instant::now();
    let mut next = lines.iter();
    for line in next.by_ref().take(IN_FLIGHT) {
        server.write(line)?;
    }
    for _ in 0..lines.len() {
        server.read_line()?;
        if let Some(line) = next.next() {
            server.write(line)?;
        }
    }
    Ok(started.elapsed())
}

pub(crate) fn run(program: &Path, sizes: Sizes) -> io::Result<Figures> {
    let warmup_seq = request_lines(1, sizes.warmup);
    let measured_seq = request_lines(1_000_000, sizes.sequential);
    let warmup_pipe = request_lines(2_000_000, sizes.warmup);
    let measured_pipe = request_lines(3_000_000, sizes.pipelined);

    let mut server = ServerChild::spawn(program, &[], 64 * 1024)?;
    server.write(INITIALIZE)?;
    server.read_line()?;
    server.expect(b"\"result\"", "initialize")?;
    server.write(INITIALIZED)?;
    server.write(b"{\"jsonrpc\":\"2.0\",\"id\":\"list\",\"method\":\"tools/list\"}\n")?;
    server.read_line()?;
    server.expect(b"\"name\":\"echo\"", "tools/list")?;
    for line in request_lines(0, 1).iter().chain(&warmup_seq) {
        server.write(line)?;
        server.read_line()?;
    }
    server.expect(b"\"text\":\"ping\"", "echo")?;

    let server_pid = server.pid();
    let mut samples = Vec::with_capacity(measured_seq.len());
    let server_before = schedstat_cpu_time(server_pid)?;
    let cpu_before = process_cpu_time()?;
    for line in &measured_seq {
        let started = Instant::now();
        server.write(line)?;
        server.read_line()?;
        samples.push(started.elapsed());
    }
    let client_cpu = process_cpu_time()?.saturating_sub(cpu_before);
    let server_cpu = schedstat_cpu_time(server_pid)?.saturating_sub(server_before);

    pipelined(&mut server, &warmup_pipe)?;
    let elapsed = pipelined(&mut server, &measured_pipe)?;
    server.finish()?;
    Ok(Figures::new(
        "raw",
        "blocking",
        &mut samples,
        client_cpu,
        server_cpu,
        (measured_pipe.len(), elapsed),
    ))
}
