//! The shell's line editor on a terminal: rustyline on a thread of its own, with history.
//!
//! Lines are read only when asked for, one request at a time: the shell asks for its next
//! command, and a server's question (an elicitation) asks for its answers while a command runs.
//! Nothing reads the terminal ahead, so neither ever gets a line typed for the other, and a
//! blocking read never holds up the async runtime.
//!
//! Rustyline (without default features) was chosen over reedline for its
//! far smaller dependency tree: libc, nix, a few unicode crates, no terminal framework. It reads
//! and draws on `/dev/tty`, so the prompt and the echo never mix with what a command prints on
//! stdout (`shell --json | jq` stays clean).
//!
//! The history is kept in `$XDG_STATE_HOME/<app>/shell_history`, else
//! `~/.local/state/<app>/shell_history` (the state directory as `mcp_config::source::UserDir` finds
//! it, the runtime's one XDG lookup): the XDG base-directory spec puts "actions history"
//! in the state directory. It is not configuration the user writes (the config directory) nor
//! something that may be deleted at any time (the cache directory). A line is added to the
//! file after every command, so a killed shell loses nothing, through the runtime's one way of
//! writing private files (`history.rs`): mode 0600 in a 0700 directory, since a line may hold a
//! secret (`/mcp add … --env TOKEN=…`). A line starting with a space is not kept, as in bash's
//! `ignorespace`.

use std::ffi::OsString;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError, mpsc as std_mpsc};
use std::thread::JoinHandle;

use mcp_config::source::UserDir;
use nix::sys::termios::{SetArg, Termios, tcgetattr, tcsetattr};
use rustyline::Editor;
use rustyline::config::{Behavior, Config};
use rustyline::error::ReadlineError;
use rustyline::history::MemHistory;
use tokio::sync::oneshot;

/// How many lines the history keeps.
const HISTORY_LINES: usize = 1_000;

/// What one read gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Input {
    /// A line, without its line ending.
    Line(String),
    /// Ctrl-C: the line was dropped.
    Interrupted,
    /// Ctrl-D on an empty line, or the terminal is gone.
    End,
}

/// One read, asked of the editor's thread.
struct Request {
    prompt: String,
    /// Whether the line goes into the history (commands do, answers to a server do not).
    remember: bool,
    reply: oneshot::Sender<Input>,
}

/// Sends reads to the editor's thread.
#[derive(Clone)]
pub(crate) struct Reader {
    requests: std_mpsc::Sender<Request>,
}

impl Reader {
    /// Shows `prompt` and reads one line (kept in the history when `remember`).
    pub(crate) async fn read(&self, prompt: &str, remember: bool) -> Input {
        let (reply, answer) = oneshot::channel();
        let request = Request {
            prompt: prompt.to_owned(),
            remember,
            reply,
        };
        if self.requests.send(request).is_err() {
            return Input::End;
        }
        answer.await.unwrap_or(Input::End)
    }
}

/// The editor in use, for the questions servers ask while a command runs.
static ACTIVE: Mutex<Option<Reader>> = Mutex::new(None);

/// The line editor the shell opened, if one is open.
pub(crate) fn active() -> Option<Reader> {
    ACTIVE
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clone()
}

/// The terminal's line editor: its thread, and what is needed to leave the terminal as it was.
pub(crate) struct LineEditor {
    reader: Reader,
    thread: Option<JoinHandle<()>>,
    /// True while the thread has the terminal in raw mode.
    reading: Arc<AtomicBool>,
    /// The terminal's settings before the editor opened.
    saved: Option<Termios>,
}

impl LineEditor {
    /// Opens the editor on the terminal, with the history of `app`; it serves [`active`] until
    /// [`close`](Self::close) or drop.
    pub(crate) fn open(app: &str) -> Result<Self, String> {
        let saved = tcgetattr(std::io::stdin()).ok();
        let history = history_file(app, |var| std::env::var_os(var));
        let (requests, received) = std_mpsc::channel::<Request>();
        let (opened, outcome) = std_mpsc::channel();
        let reading = Arc::new(AtomicBool::new(false));
        let thread_reading = Arc::clone(&reading);
        let thread = std::thread::Builder::new()
            .name("line-editor".to_owned())
            .spawn(move || {
                let mut editor = match new_editor(history.as_deref()) {
                    Ok(editor) => {
                        let _ = opened.send(Ok(()));
                        editor
                    }
                    Err(error) => {
                        let _ = opened.send(Err(error));
                        return;
                    }
                };
                for request in received {
                    thread_reading.store(true, Ordering::SeqCst);
                    let read = editor.readline(&request.prompt);
                    thread_reading.store(false, Ordering::SeqCst);
                    let input = match read {
                        Ok(line) => {
                            if request.remember {
                                remember(&mut editor, history.as_deref(), &line);
                            }
                            Input::Line(line)
                        }
                        Err(ReadlineError::Interrupted) => Input::Interrupted,
                        Err(ReadlineError::Eof) => Input::End,
                        Err(error) => {
                            tracing::warn!(%error, "cannot read the terminal");
                            Input::End
                        }
                    };
                    let _ = request.reply.send(input);
                }
            })
            .map_err(|error| format!("cannot start the line editor: {error}"))?;
        match outcome.recv() {
            Ok(Ok(())) => {}
            Ok(Err(message)) => return Err(message),
            Err(_) => return Err("the line editor stopped as it started".to_owned()),
        }
        let reader = Reader { requests };
        *ACTIVE.lock().unwrap_or_else(PoisonError::into_inner) = Some(reader.clone());
        Ok(Self {
            reader,
            thread: Some(thread),
            reading,
            saved,
        })
    }

    /// Reads a command line (kept in the history).
    pub(crate) async fn read_command(&self, prompt: &str) -> Input {
        self.reader.read(prompt, true).await
    }

    /// Stops the editor's thread once it has nothing left to read.
    pub(crate) fn close(mut self) {
        ACTIVE.lock().unwrap_or_else(PoisonError::into_inner).take();
        let Self { reader, thread, .. } = &mut self;
        // The thread's loop ends when the last sender is gone.
        let (closed, _) = std_mpsc::channel();
        drop(std::mem::replace(&mut reader.requests, closed));
        if let Some(thread) = thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for LineEditor {
    /// Dropped while reading, the CLI is ending on a signal: the thread stays blocked on the
    /// terminal, so the terminal gets its settings back here (and bracketed paste off), or
    /// the user's shell would be left in raw mode.
    fn drop(&mut self) {
        ACTIVE.lock().unwrap_or_else(PoisonError::into_inner).take();
        if !self.reading.load(Ordering::SeqCst) {
            return;
        }
        if let Some(saved) = &self.saved {
            let _ = tcsetattr(std::io::stdin(), SetArg::TCSANOW, saved);
        }
        if let Ok(mut tty) = std::fs::OpenOptions::new().write(true).open("/dev/tty") {
            let _ = tty.write_all(b"\x1b[?2004l\r\n");
        }
    }
}

/// An editor on `/dev/tty` with the history file loaded (a missing file is an empty history).
fn new_editor(history: Option<&Path>) -> Result<Editor<(), MemHistory>, String> {
    let config = Config::builder()
        .behavior(Behavior::PreferTerm)
        .max_history_size(HISTORY_LINES)
        .and_then(|config| config.history_ignore_dups(true))
        .map_err(|error| format!("cannot configure the line editor: {error}"))?
        .history_ignore_space(true)
        .build();
    let mut editor = Editor::<(), MemHistory>::with_config(config)
        .map_err(|error| format!("cannot open the terminal for line editing: {error}"))?;
    if let Some(path) = history {
        match super::history::load(path) {
            Ok(entries) => {
                for entry in entries {
                    let _ = editor.add_history_entry(entry);
                }
            }
            Err(error) => {
                tracing::warn!(%error, path = %path.display(), "cannot read the shell history");
            }
        }
    }
    Ok(editor)
}

/// Adds a line to the history and appends it to the file.
fn remember(editor: &mut Editor<(), MemHistory>, file: Option<&Path>, line: &str) {
    if line.trim().is_empty() {
        return;
    }
    match editor.add_history_entry(line) {
        Ok(true) => {}
        Ok(false) => return,
        Err(error) => {
            tracing::debug!(%error, "cannot add to the shell history");
            return;
        }
    }
    let Some(path) = file else {
        return;
    };
    if let Err(error) = super::history::append(path, line, HISTORY_LINES) {
        tracing::warn!(%error, path = %path.display(), "cannot write the shell history");
    }
}

/// `$XDG_STATE_HOME/<app>/shell_history`, else `~/.local/state/<app>/shell_history` (`env`
/// gives the variables); none without a home: the history then lasts as long as the shell.
fn history_file(app: &str, env: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    let state = UserDir::State.find(env)?;
    Some(state.join(app).join("shell_history"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&str, &str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
        |name| {
            vars.iter()
                .find(|(var, _)| *var == name)
                .map(|(_, value)| OsString::from(value))
        }
    }

    #[test]
    fn the_history_lives_in_the_state_directory_of_the_app() {
        assert_eq!(
            history_file("my-agent", env(&[("HOME", "/home/u")])),
            Some(PathBuf::from("/home/u/.local/state/my-agent/shell_history"))
        );
        assert_eq!(
            history_file(
                "my-agent",
                env(&[("HOME", "/home/u"), ("XDG_STATE_HOME", "/state")])
            ),
            Some(PathBuf::from("/state/my-agent/shell_history"))
        );
        // A relative XDG path is ignored, as the spec says; no home, no file.
        assert_eq!(
            history_file("a", env(&[("HOME", "/h"), ("XDG_STATE_HOME", "rel")])),
            Some(PathBuf::from("/h/.local/state/a/shell_history"))
        );
        assert_eq!(history_file("a", env(&[])), None);
    }
}
