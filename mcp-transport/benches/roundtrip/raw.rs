//! The floor: the least a client can do. Blocking std pipes, request lines serialized before
//! the clock starts, one `write` per request, and a response is "read" once its newline is
//! found; nothing is parsed.

use std::io::{self, BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Instant;

use crate::stats::{ClientFigures, Pipelined, Sequential, Sizes};
use crate::sys::process_cpu_time;

const INITIALIZE: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"floor\",\"version\":\"0\"}}}\n";
const INITIALIZED: &[u8] = b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n";

/// A fixture server driven over plain blocking pipes.
struct RawServer {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    line: Vec<u8>,
}

impl RawServer {
    fn spawn(program: &Path, args: &[String]) -> io::Result<Self> {
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(io::Error::other(
                "the fixture server has no stdin/stdout pipe",
            ));
        };
        Ok(Self {
            child,
            stdin: Some(stdin),
            stdout: BufReader::with_capacity(64 * 1024, stdout),
            line: Vec::with_capacity(256),
        })
    }

    fn stdin(&mut self) -> io::Result<&mut ChildStdin> {
        self.stdin
            .as_mut()
            .ok_or_else(|| io::Error::other("stdin already closed"))
    }

    fn write(&mut self, line: &[u8]) -> io::Result<()> {
        self.stdin()?.write_all(line)
    }

    /// Reads one response line into `self.line`.
    fn read(&mut self) -> io::Result<()> {
        self.line.clear();
        if self.stdout.read_until(b'\n', &mut self.line)? == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the fixture server closed its stdout",
            ));
        }
        Ok(())
    }

    fn handshake(&mut self) -> io::Result<()> {
        self.write(INITIALIZE)?;
        self.read()?;
        if !contains(&self.line, b"\"result\"") {
            return Err(io::Error::other(format!(
                "unexpected initialize answer: {}",
                String::from_utf8_lossy(&self.line)
            )));
        }
        self.write(INITIALIZED)
    }

    /// Closes stdin (the server exits at end of input) and reaps the process.
    fn finish(mut self) -> io::Result<()> {
        self.stdin = None;
        let status = self.child.wait()?;
        if status.success() {
            Ok(())
        } else {
            Err(io::Error::other(format!(
                "the fixture server ended with {status}"
            )))
        }
    }
}

impl Drop for RawServer {
    fn drop(&mut self) {
        if self.stdin.is_some() {
            // Dropped on an error path: do not leave the server behind.
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle)
}

/// `count` echo requests with ids `first..first + count`, each a ready-to-write line.
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

fn sequential(server: &mut RawServer, lines: &[Vec<u8>]) -> io::Result<Sequential> {
    let mut samples = Vec::with_capacity(lines.len());
    let cpu_before = process_cpu_time()?;
    for line in lines {
        let started = Instant::now();
        server.write(line)?;
        server.read()?;
        samples.push(started.elapsed());
    }
    let cpu = process_cpu_time()?.saturating_sub(cpu_before);
    Ok(Sequential::from_samples(&mut samples, cpu))
}

fn pipelined(server: &mut RawServer, lines: &[Vec<u8>], in_flight: usize) -> io::Result<Pipelined> {
    let cpu_before = process_cpu_time()?;
    let started = Instant::now();
    let mut next = lines.iter();
    for line in next.by_ref().take(in_flight) {
        server.write(line)?;
    }
    for _ in 0..lines.len() {
        server.read()?;
        if let Some(line) = next.next() {
            server.write(line)?;
        }
    }
    let elapsed = started.elapsed();
    let cpu = process_cpu_time()?.saturating_sub(cpu_before);
    Ok(Pipelined::new(lines.len(), elapsed, cpu))
}

/// Runs the floor against a freshly spawned fixture server.
pub(crate) fn run(program: &Path, args: &[String], sizes: &Sizes) -> io::Result<ClientFigures> {
    let warmup_seq = request_lines(1, sizes.sequential_warmup().max(1));
    let measured_seq = request_lines(1_000_000, sizes.sequential);
    let warmup_pipe = request_lines(2_000_000, sizes.pipelined_warmup());
    let measured_pipe = request_lines(3_000_000, sizes.pipelined);

    let mut server = RawServer::spawn(program, args)?;
    server.handshake()?;

    // The first answer proves the echo round trip works before anything is timed.
    if let Some(first) = warmup_seq.first() {
        server.write(first)?;
        server.read()?;
        if !contains(&server.line, b"\"text\":\"ping\"") {
            return Err(io::Error::other(format!(
                "unexpected echo answer: {}",
                String::from_utf8_lossy(&server.line)
            )));
        }
    }
    sequential(&mut server, warmup_seq.get(1..).unwrap_or_default())?;
    let sequential = sequential(&mut server, &measured_seq)?;
    pipelined(&mut server, &warmup_pipe, sizes.in_flight)?;
    let pipelined = pipelined(&mut server, &measured_pipe, sizes.in_flight)?;
    server.finish()?;

    Ok(ClientFigures {
        key: "raw",
        label: "raw floor (blocking std pipes)".to_owned(),
        sequential,
        pipelined,
    })
}
