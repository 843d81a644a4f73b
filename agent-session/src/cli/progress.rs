//! The startup line on a terminal (`connecting 3 MCP servers (a, b, c)… ready in 254 ms (…)`),
//! its tail while servers are waited for past the startup gate (`… waiting for slow`), a call's
//! progress as its server reports it ([`CallProgress`]), and log output that never breaks them:
//! while a line is open, log lines are held and written after it.

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
    /// What [`ProgressLine::start`] wrote, escaped.
    head: String,
    /// The tail [`ProgressLine::tail`] wrote after it, escaped; empty when none.
    tail: String,
}

impl ProgressLine {
    /// Starts the line with `text` (no newline; it names servers, so it is escaped as one line)
    /// and holds logs from now on.
    pub(crate) fn start(text: &str) -> Self {
        *HELD.lock().unwrap_or_else(PoisonError::into_inner) = Some(Vec::new());
        let head = escape_line(text).into_owned();
        let mut stderr = std::io::stderr().lock();
        let _ = write!(stderr, "{head}");
        let _ = stderr.flush();
        Self {
            open: true,
            head,
            tail: String::new(),
        }
    }

    /// Shows `text` after the line's start in place of the previous tail (the line is written
    /// again, wrapped rows included); nothing when it is the tail already.
    pub(crate) fn tail(&mut self, text: &str) {
        let tail = escape_line(text).into_owned();
        if !self.open || tail == self.tail {
            return;
        }
        let mut stderr = std::io::stderr().lock();
        let _ = write!(stderr, "{}{}{tail}", self.rewind(), self.head);
        let _ = stderr.flush();
        self.tail = tail;
    }

    /// What moves the cursor back to the start of the line as shown (up the rows it wrapped
    /// onto) and clears from there.
    fn rewind(&self) -> String {
        let width = rustix::termios::tcgetwinsize(std::io::stderr())
            .ok()
            .map(|size| usize::from(size.ws_col))
            .filter(|columns| *columns > 0)
            .unwrap_or(80);
        let shown = self.head.chars().count() + self.tail.chars().count();
        // The cursor is on the row of the last character written (a full row leaves it at its
        // end until the next character wraps).
        let rows_up = shown.saturating_sub(1) / width;
        let up = if rows_up == 0 {
            String::new()
        } else {
            format!("\u{1b}[{rows_up}A")
        };
        format!("{up}\r\u{1b}[J")
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
        // A line showing no tail (never given one, or no longer) is simply ended.
        if self.tail.is_empty() {
            let _ = writeln!(stderr, "{}", escape_line(text));
        } else {
            // The tail was only for the wait: the line ends as if it had never been shown.
            let _ = writeln!(
                stderr,
                "{}{}{}",
                self.rewind(),
                self.head,
                escape_line(text)
            );
        }
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

/// A call's progress on a terminal: a line opened at the server's first report
/// (`calling mcp_x_y… 3 of 10: indexing`), rewritten at each, and ended when the call is; no
/// line at all for a call that reports nothing.
pub(crate) struct CallProgress {
    tool: String,
    line: std::sync::Arc<Mutex<Option<ProgressLine>>>,
}

impl CallProgress {
    /// For a call of `tool`.
    pub(crate) fn new(tool: &str) -> Self {
        Self {
            tool: tool.to_owned(),
            line: std::sync::Arc::default(),
        }
    }

    /// Where the call's reports go.
    pub(crate) fn sink(&self) -> mcp_bridge::ProgressSink {
        let (tool, line) = (self.tool.clone(), std::sync::Arc::clone(&self.line));
        std::sync::Arc::new(move |report: mcp_bridge::ToolProgress| {
            let mut line = line.lock().unwrap_or_else(PoisonError::into_inner);
            line.get_or_insert_with(|| ProgressLine::start(&format!("calling {tool}… ")))
                .tail(&report_text(&report));
        })
    }
}

impl Drop for CallProgress {
    fn drop(&mut self) {
        if let Some(line) = self
            .line
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
        {
            line.finish("done");
        }
    }
}

/// `3 of 10: indexing`, `3`, or `indexing` when the server gives no number worth showing.
fn report_text(report: &mcp_bridge::ToolProgress) -> String {
    // A task's reports are its changes of status (`task working: step 2 of 3`): their count
    // says nothing.
    if let Some(task) = &report.task_id {
        return report
            .message
            .clone()
            .unwrap_or_else(|| format!("task {task}"));
    }
    let number = |value: f64| {
        if value.fract() == 0.0 && value.abs() < 1e15 {
            format!("{value:.0}")
        } else {
            format!("{value:.2}")
        }
    };
    let done = match report.total {
        Some(total) => format!("{} of {}", number(report.progress), number(total)),
        None => number(report.progress),
    };
    match &report.message {
        Some(message) if !message.trim().is_empty() => format!("{done}: {message}"),
        _ => done,
    }
}
