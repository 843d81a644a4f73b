//! The shell on a terminal, driven through a pseudo-terminal the way a user types: line editing,
//! the history (within a shell and across shells), Ctrl-C at the prompt and during a slow tool
//! call, Ctrl-D, and the exit status.
//!
//! The binary runs in a session of its own with the pty as its controlling terminal, so Ctrl-C
//! typed on the pty is turned into SIGINT by the terminal's line discipline exactly as in a real
//! terminal. Every run gets a temporary project and home (`HOME` set, `XDG_*` unset), and every
//! read of the terminal is bounded, so a failure never hangs.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod cli_support;

use std::fs::File;
use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt as _;
use std::os::unix::process::CommandExt as _;
use std::path::PathBuf;
use std::process::{Child, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use cli_support::Sandbox;
use nix::pty::{Winsize, openpty};
use nix::sys::termios::{LocalFlags, tcgetattr};
use serde_json::json;

/// The longest any expected output may take before the test calls the shell hung.
const LIMIT: Duration = Duration::from_secs(60);

/// Keys as a terminal sends them.
const ENTER: &str = "\r";
const UP: &str = "\x1b[A";
const LEFT: &str = "\x1b[D";
const CTRL_C: &str = "\x03";
const CTRL_D: &str = "\x04";

impl Sandbox {
    /// A project and home labelled `pty` whose `.mcp.json` has one approved fixture server,
    /// `fx`.
    fn new(test: &str) -> Self {
        let sandbox = Self::labelled("pty", test);
        sandbox.write_mcp_json(&json!({"fx": sandbox.fixture("fx", |server| server)}));
        sandbox
    }

    fn history_file(&self) -> PathBuf {
        self.home.join(".local/state/agent-session/shell_history")
    }
}

/// `agent-session shell --no-cache` on a pseudo-terminal.
struct Terminal {
    child: Child,
    keyboard: File,
    screen: mpsc::Receiver<Vec<u8>>,
    /// Everything the shell wrote so far.
    seen: String,
    /// Where the next expectation starts looking in `seen`.
    from: usize,
}

impl Terminal {
    fn start(sandbox: &Sandbox) -> Self {
        let size = Winsize {
            ws_row: 40,
            ws_col: 250,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        let pty = openpty(Some(&size), None).unwrap();
        // The sandbox's command on the pty, with a terminal's variables and no state folder of
        // the user's.
        let mut command = sandbox.command(&["shell", "--no-cache"]);
        command
            .env("TERM", "xterm")
            .env("NO_COLOR", "1")
            .env_remove("XDG_STATE_HOME")
            .stdin(Stdio::from(pty.slave.try_clone().unwrap()))
            .stdout(Stdio::from(pty.slave.try_clone().unwrap()))
            .stderr(Stdio::from(pty.slave));
        // A session of its own with the pty as its controlling terminal: what a terminal
        // emulator does for the shell it runs, and what makes Ctrl-C a SIGINT.
        #[allow(unsafe_code)]
        // SAFETY: only async-signal-safe calls (setsid, ioctl) between fork and exec.
        unsafe {
            command.pre_exec(|| {
                if libc::setsid() == -1 || libc::ioctl(0, libc::TIOCSCTTY, 0) == -1 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = command.spawn().unwrap();
        drop(command);
        let keyboard = File::from(pty.master);
        let mut display = keyboard.try_clone().unwrap();
        let (sender, screen) = mpsc::channel();
        std::thread::spawn(move || {
            let mut buffer = [0; 4096];
            // Ends with EIO once the shell and everything it started have closed the pty.
            while let Ok(read @ 1..) = display.read(&mut buffer) {
                if sender.send(buffer[..read].to_vec()).is_err() {
                    break;
                }
            }
        });
        Self {
            child,
            keyboard,
            screen,
            seen: String::new(),
            from: 0,
        }
    }

    fn press(&mut self, keys: &str) {
        self.keyboard.write_all(keys.as_bytes()).unwrap();
        self.keyboard.flush().unwrap();
    }

    /// Waits (within `limit`) for `text` after what earlier expectations matched; what came
    /// before it. `None` when it did not come in time.
    fn wait_for(&mut self, text: &str, limit: Duration) -> Option<String> {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(at) = self.seen[self.from..].find(text) {
                let before = self.seen[self.from..self.from + at].to_owned();
                self.from += at + text.len();
                return Some(before);
            }
            let left = deadline.checked_duration_since(Instant::now())?;
            match self.screen.recv_timeout(left) {
                Ok(bytes) => self.seen.push_str(&String::from_utf8_lossy(&bytes)),
                Err(_) => return None,
            }
        }
    }

    /// Waits for `text` (see [`wait_for`](Self::wait_for)); fails the test if it never comes.
    fn expect(&mut self, text: &str) -> String {
        match self.wait_for(text, LIMIT) {
            Some(before) => before,
            None => panic!(
                "{text:?} did not come; the terminal showed after the last match:\n{:?}",
                &self.seen[self.from..]
            ),
        }
    }

    /// Types a command at the prompt and waits for the next prompt; what came in between.
    fn command(&mut self, line: &str) -> String {
        self.press(line);
        self.press(ENTER);
        self.next_prompt()
    }

    /// Waits for the end of the line being edited and the prompt after it; what came in
    /// between. (While a line is edited, the editor redraws it, prompt included.)
    fn next_prompt(&mut self) -> String {
        self.expect("\n");
        let mut between = String::from("\n");
        between.push_str(&self.expect("mcp> "));
        between
    }

    /// Whether the terminal is in its usual (cooked) mode: lines and echo.
    fn is_cooked(&self) -> bool {
        let flags = tcgetattr(&self.keyboard).unwrap().local_flags;
        flags.contains(LocalFlags::ICANON) && flags.contains(LocalFlags::ECHO)
    }

    /// Waits (within [`LIMIT`]) for the shell to exit.
    fn exit_status(&mut self) -> ExitStatus {
        let deadline = Instant::now() + LIMIT;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "the shell did not exit; it showed:\n{:?}",
                self.seen
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

#[test]
fn the_shell_edits_lines_recalls_history_and_keeps_it_for_the_next_shell() {
    let sandbox = Sandbox::new("history");
    let mut terminal = Terminal::start(&sandbox);
    terminal.expect("mcp> ");

    let first = terminal.command(r#"call mcp_fx_echo {"message": "first"}"#);
    assert!(first.contains("\nfirst\r\n"), "{first:?}");

    // Up brings the line back; two steps left and the insertion land inside the JSON string.
    let edited = terminal.command(&format!("{UP}{LEFT}{LEFT}-again"));
    assert!(edited.contains("\nfirst-again\r\n"), "{edited:?}");

    // Ctrl-C at the prompt drops what was typed: it never runs.
    terminal.press("frobnicate");
    terminal.expect("frobnicate");
    terminal.press(CTRL_C);
    terminal.next_prompt();
    let help = terminal.command("help");
    assert!(help.contains("Commands:"), "{help:?}");
    assert!(
        !terminal.seen.contains("unknown command"),
        "{:?}",
        terminal.seen
    );

    // Ctrl-D on an empty line leaves; nothing failed, so the status is 0.
    terminal.press(CTRL_D);
    assert_eq!(
        terminal.exit_status().code(),
        Some(0),
        "{:?}",
        terminal.seen
    );

    // The history is kept, private, without the dropped line.
    let file = sandbox.history_file();
    let history = std::fs::read_to_string(&file).unwrap();
    assert!(
        history.contains(r#"call mcp_fx_echo {"message": "first-again"}"#),
        "{history}"
    );
    assert!(!history.contains("frobnicate"), "{history}");
    let mode = std::fs::metadata(&file).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "{mode:o}");

    // The next shell recalls it: two steps up is the edited call, before `help`.
    let mut next = Terminal::start(&sandbox);
    next.expect("mcp> ");
    let recalled = next.command(&format!("{UP}{UP}"));
    assert!(recalled.contains("\nfirst-again\r\n"), "{recalled:?}");
    next.press(CTRL_D);
    assert_eq!(next.exit_status().code(), Some(0), "{:?}", next.seen);
}

#[test]
fn ctrl_c_cancels_a_slow_call_and_the_shell_carries_on() {
    let sandbox = Sandbox::new("cancel");
    let mut terminal = Terminal::start(&sandbox);
    terminal.expect("mcp> ");

    terminal.press(r#"call mcp_fx_sleep {"ms": 600000}"#);
    terminal.press(ENTER);
    terminal.expect("600000}");
    // The shell listens for Ctrl-C from the moment the command starts; one pressed in the
    // instant before that is lost, so it is pressed again until the cancellation shows.
    let mut presses = 0;
    loop {
        std::thread::sleep(Duration::from_millis(300));
        terminal.press(CTRL_C);
        presses += 1;
        if terminal
            .wait_for("cancelled (Ctrl-C)", Duration::from_secs(3))
            .is_some()
        {
            break;
        }
        assert!(presses < 10, "Ctrl-C did not cancel: {:?}", terminal.seen);
    }
    terminal.expect("mcp> ");

    // Still alive, with the same server, which was told of the cancellation.
    let events = terminal.command("call mcp_fx_events");
    assert!(events.contains("notifications/cancelled"), "{events:?}");
    let echo = terminal.command(r#"call mcp_fx_echo {"message": "still here"}"#);
    assert!(echo.contains("\nstill here\r\n"), "{echo:?}");

    // The cancelled call failed, so the shell's status is 1.
    terminal.press(CTRL_D);
    assert_eq!(
        terminal.exit_status().code(),
        Some(1),
        "{:?}",
        terminal.seen
    );
}

#[test]
fn a_failed_command_makes_the_shell_exit_1_after_exit() {
    let sandbox = Sandbox::new("status");
    let mut terminal = Terminal::start(&sandbox);
    terminal.expect("mcp> ");
    let failed = terminal.command("call mcp_fx_nope");
    assert!(failed.contains("error: unknown tool"), "{failed:?}");
    let ok = terminal.command(r#"call mcp_fx_echo {"message": "fine"}"#);
    assert!(ok.contains("\nfine\r\n"), "{ok:?}");
    terminal.press("exit");
    terminal.press(ENTER);
    assert_eq!(
        terminal.exit_status().code(),
        Some(1),
        "{:?}",
        terminal.seen
    );
}

#[test]
fn sigterm_at_the_prompt_ends_the_shell_and_gives_the_terminal_back() {
    let sandbox = Sandbox::new("sigterm");
    let mut terminal = Terminal::start(&sandbox);
    terminal.expect("mcp> ");
    // The editor has the terminal in raw mode while it waits at the prompt.
    assert!(!terminal.is_cooked(), "{:?}", terminal.seen);

    testkit::signal_process(i32::try_from(terminal.child.id()).unwrap(), libc::SIGTERM);
    assert_eq!(
        terminal.exit_status().code(),
        Some(130),
        "{:?}",
        terminal.seen
    );
    terminal.expect("terminated (SIGTERM)");
    assert!(terminal.is_cooked(), "the terminal was left in raw mode");
}

#[test]
fn a_servers_question_during_a_command_is_answered_in_the_line_editor() {
    let sandbox = Sandbox::new("ask");
    let mut terminal = Terminal::start(&sandbox);
    terminal.expect("mcp> ");

    terminal.press(
        r#"call mcp_fx_ask {"message": "Who are you?", "schema": {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer", "default": 30}}, "required": ["name"]}}"#,
    );
    terminal.press(ENTER);
    terminal.expect("asks: Who are you?");
    terminal.expect("Answer? [y]es");
    terminal.press("y");
    terminal.press(ENTER);
    terminal.expect("name (string, required)");
    terminal.press("Ada");
    terminal.press(ENTER);
    terminal.expect("age (integer) [30]: ");
    terminal.press(ENTER);
    let result = terminal.next_prompt();
    assert!(
        result.contains(r#"{"action":"accept","content":{"name":"Ada","age":30}}"#),
        "{result:?}"
    );

    terminal.press(CTRL_D);
    assert_eq!(
        terminal.exit_status().code(),
        Some(0),
        "{:?}",
        terminal.seen
    );
    // The answers are not commands: only the call is in the history.
    let history = std::fs::read_to_string(sandbox.history_file()).unwrap();
    let lines: Vec<&str> = history
        .lines()
        .filter(|line| !line.starts_with('#'))
        .collect();
    assert_eq!(lines.len(), 1, "{history}");
    assert!(lines[0].starts_with("call mcp_fx_ask"), "{history}");
}
