//! The reference server as a child process, the way the floors and the HTTP drivers run it:
//! stdin and stdout piped, stderr passed through; closing stdin stops it. [`ServerChild`] reads
//! its stdout a line at a time with plain blocking std I/O (nothing parsed: a floor only looks
//! for a marker in a line), and kills and reaps the server if it is dropped before
//! [`finish`](ServerChild::finish), so an error path never leaves a server behind.

use std::io::{self, BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

/// A running reference server driven through blocking pipes.
pub struct ServerChild {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    line: Vec<u8>,
}

impl ServerChild {
    /// Starts `program` with `args`, reading its stdout through a buffer of `read_buffer` bytes.
    pub fn spawn(program: &Path, args: &[&str], read_buffer: usize) -> io::Result<Self> {
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(io::Error::other("the server has no stdin/stdout pipe"));
        };
        Ok(Self {
            child,
            stdin: Some(stdin),
            stdout: BufReader::with_capacity(read_buffer, stdout),
            line: Vec::with_capacity(512),
        })
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Writes `bytes` to the server's stdin (whole lines, newline included).
    pub fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.stdin
            .as_mut()
            .ok_or_else(|| io::Error::other("stdin already closed"))?
            .write_all(bytes)
    }

    /// Reads the next line of the server's stdout (newline included); an error at its end.
    pub fn read_line(&mut self) -> io::Result<&[u8]> {
        self.line.clear();
        if self.stdout.read_until(b'\n', &mut self.line)? == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the server closed its stdout",
            ));
        }
        Ok(&self.line)
    }

    /// Checks that the last line read holds `needle`; the error quotes the line and says
    /// which answer (`what`) it was.
    pub fn expect(&self, needle: &[u8], what: &str) -> io::Result<()> {
        expect_marker(&self.line, needle, what)
    }

    /// Closes stdin (the server exits at the end of its input) without waiting.
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// Closes stdin and reaps the server; an error unless it exited with success.
    pub fn finish(mut self) -> io::Result<()> {
        self.stdin = None;
        let status = self.child.wait()?;
        if status.success() {
            Ok(())
        } else {
            Err(io::Error::other(format!("the server ended with {status}")))
        }
    }
}

impl Drop for ServerChild {
    fn drop(&mut self) {
        if self.stdin.is_some() {
            // Dropped on an error path: do not leave the server behind.
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Checks that an answer holds `needle` (a floor never parses what it reads); the error quotes
/// the answer and says which one (`what`) it was.
pub fn expect_marker(answer: &[u8], needle: &[u8], what: &str) -> io::Result<()> {
    if answer.windows(needle.len()).any(|window| window == needle) {
        Ok(())
    } else {
        Err(io::Error::other(format!(
            "unexpected {what} answer: {}",
            String::from_utf8_lossy(answer)
        )))
    }
}
