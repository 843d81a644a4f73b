//! The startup line on a terminal (`connecting 3 MCP servers (a, b, c)… ready in 254 ms (…)`),
//! and log output that never breaks it: while the line is open, log lines are held and written
//! after it.

use std::io::Write;
use std::sync::{Mutex, PoisonError};

use agent_session::terminal_text::escape_line;

/// Log output held while the progress line is open; `None` when logs go straight to stderr.
static HELD: Mutex<Option<Vec<u8>>> = Mutex::new(None);

/// Where the log subscriber writes: stderr, or the held buffer while a progress line is open.
pub(crate) struct LogOutput;

impl Write for LogOutput {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let mut held = HELD.lock().unwrap_or_else(PoisonError::into_inner);
        match held.as_mut() {
            Some(buffer) => {
                buffer.extend_from_slice(bytes);
                Ok(bytes.len())
            }
            None => std::io::stderr().write(bytes),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        std::io::stderr().flush()
    }
}

/// An open progress line on stderr; logs are held until [`ProgressLine::finish`] (or drop).
pub(crate) struct ProgressLine {
    open: bool,
}

impl ProgressLine {
    /// Starts the line with `text` (no newline; it names servers, so it is escaped as one line)
    /// and holds logs from now on.
    pub(crate) fn start(text: &str) -> Self {
        *HELD.lock().unwrap_or_else(PoisonError::into_inner) = Some(Vec::new());
        let mut stderr = std::io::stderr().lock();
        let _ = write!(stderr, "{}", escape_line(text));
        let _ = stderr.flush();
        Self { open: true }
    }

    /// Ends the line with `text` and a newline, then writes the logs held meanwhile.
    pub(crate) fn finish(mut self, text: &str) {
        self.close(text);
    }

    fn close(&mut self, text: &str) {
        if !self.open {
            return;
        }
        self.open = false;
        let held = HELD.lock().unwrap_or_else(PoisonError::into_inner).take();
        let mut stderr = std::io::stderr().lock();
        let _ = writeln!(stderr, "{}", escape_line(text));
        if let Some(held) = held {
            let _ = stderr.write_all(&held);
        }
        let _ = stderr.flush();
    }
}

impl Drop for ProgressLine {
    fn drop(&mut self) {
        // Interrupted before it finished: end the line, keep the logs.
        self.close("");
    }
}
