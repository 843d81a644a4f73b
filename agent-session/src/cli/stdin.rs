//! The lines of stdin, read by one thread for the whole process.
//!
//! The shell reads its commands from stdin, and a server's question (an elicitation) is answered
//! on stdin while a command runs. Both take lines from here, so neither steals the other's
//! input, and a blocking read never holds up the async runtime.
//!
//! While the interactive shell has its line editor open, the terminal belongs to the editor:
//! [`answer`] reads a server's question through it, and this reader is never started.

use std::io::{BufRead, Write as _};
use std::sync::OnceLock;

use agent_session::terminal_text;
use tokio::sync::{Mutex, mpsc};

use super::editor::{self, Input};

/// Shows `prompt` on the terminal (as one line: a server's question makes it) and reads the
/// answer: through the shell's line editor when it is open, else from stdin's lines; `None` at
/// the end of input (or Ctrl-C in the editor).
pub(crate) async fn answer(prompt: &str) -> Option<String> {
    let prompt = terminal_text::escape_line(prompt);
    if let Some(editor) = editor::active() {
        return match editor.read(&prompt, false).await {
            Input::Line(line) => Some(line),
            Input::Interrupted | Input::End => None,
        };
    }
    {
        let mut stderr = std::io::stderr().lock();
        let _ = write!(stderr, "{prompt}");
        let _ = stderr.flush();
    }
    stdin_lines().next().await
}

/// Lines as they arrive; `None` once stdin ends.
pub(crate) struct StdinLines {
    receiver: Mutex<mpsc::Receiver<String>>,
}

impl StdinLines {
    /// The next line without its line ending, or `None` at the end of input.
    pub(crate) async fn next(&self) -> Option<String> {
        let line = self.receiver.lock().await.recv().await?;
        Some(line.trim_end_matches(['\n', '\r']).to_owned())
    }
}

/// The process's stdin lines (the reading thread starts on first use).
pub(crate) fn stdin_lines() -> &'static StdinLines {
    static LINES: OnceLock<StdinLines> = OnceLock::new();
    LINES.get_or_init(|| {
        let (sender, receiver) = mpsc::channel(16);
        let spawned = std::thread::Builder::new()
            .name("stdin-lines".to_owned())
            .spawn(move || {
                let mut stdin = std::io::stdin().lock();
                let mut buffer = Vec::new();
                loop {
                    buffer.clear();
                    match stdin.read_until(b'\n', &mut buffer) {
                        Ok(0) | Err(_) => break,
                        Ok(_) => {
                            let line = String::from_utf8_lossy(&buffer).into_owned();
                            if sender.blocking_send(line).is_err() {
                                break;
                            }
                        }
                    }
                }
            });
        if let Err(error) = spawned {
            tracing::error!(%error, "cannot read stdin");
        }
        StdinLines {
            receiver: Mutex::new(receiver),
        }
    })
}
