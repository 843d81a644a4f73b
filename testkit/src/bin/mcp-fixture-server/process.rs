//! The few process-level calls that need libc: the process group, SIGTERM disposition and a
//! new session; and the processes a server leaves behind (a grandchild, a daemon).

use std::io;
use std::path::Path;
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

/// How long the server waits for its daemon's pid file before it gives up.
const DAEMON_START_LIMIT: Duration = Duration::from_secs(30);

/// This process's process group id.
#[allow(unsafe_code)]
pub(crate) fn process_group() -> i32 {
    // SAFETY: getpgrp takes no arguments, cannot fail and touches no memory of ours.
    unsafe { libc::getpgrp() }
}

/// Sets SIGTERM to be ignored, so that only SIGKILL stops this process.
#[allow(unsafe_code)]
pub(crate) fn ignore_sigterm() -> io::Result<()> {
    // SAFETY: SIG_IGN installs no handler, so no code of ours runs in signal context; the call
    // only changes the disposition of one signal.
    let previous = unsafe { libc::signal(libc::SIGTERM, libc::SIG_IGN) };
    if previous == libc::SIG_ERR {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// This executable again with `args`, holding none of our pipes.
fn this_again(args: &[&std::ffi::OsStr]) -> io::Result<Command> {
    let mut command = Command::new(std::env::current_exe()?);
    command
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    Ok(command)
}

/// Starts this executable again with `--sleep-forever`, holding none of our pipes, and
/// returns its pid. It is not waited for: it must outlive us, as a leaked grandchild would.
pub(crate) fn spawn_grandchild() -> io::Result<u32> {
    let child = this_again(&["--sleep-forever".as_ref()])?.spawn()?;
    Ok(child.id())
}

/// `--daemon FILE`: leaves a daemon the way daemons detach themselves (fork, `setsid()`, fork
/// again, the middle process exits), through this executable's `--daemon-session` and
/// `--daemon-sleep` steps, and returns once the daemon has written its pid to `file`.
pub(crate) fn leave_daemon(file: &Path) -> io::Result<()> {
    let status = this_again(&["--daemon-session".as_ref(), file.as_os_str()])?.status()?;
    if !status.success() {
        return Err(io::Error::other(format!(
            "the daemon's middle process ended with {status}"
        )));
    }
    let deadline = Instant::now() + DAEMON_START_LIMIT;
    while !file.exists() {
        if Instant::now() >= deadline {
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the daemon wrote no pid file",
            ));
        }
        thread::sleep(Duration::from_millis(5));
    }
    Ok(())
}

/// The middle process of `--daemon`: a session of its own (no group and no terminal of the
/// server's), the daemon started in it, and gone at once, so that the daemon is an orphan.
#[allow(unsafe_code)]
pub(crate) fn start_daemon_session(file: &Path) -> ! {
    // SAFETY: setsid takes no arguments and touches no memory of ours; it fails only for a
    // group leader, which a freshly spawned child is not.
    if unsafe { libc::setsid() } == -1 {
        eprintln!("fixture: setsid: {}", io::Error::last_os_error());
        std::process::exit(1);
    }
    let started = this_again(&["--daemon-sleep".as_ref(), file.as_os_str()])
        .and_then(|mut command| command.spawn());
    std::process::exit(i32::from(started.is_err()));
}

/// The daemon of `--daemon`: writes `PID START` to `file` (written aside, then renamed, so that
/// a reader never sees half of it) and sleeps forever.
pub(crate) fn be_daemon(file: &Path) -> ! {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Field 22, counted after the command name in parentheses (which may hold spaces).
    let start = stat
        .rfind(')')
        .and_then(|end| stat[end + 1..].split_whitespace().nth(19))
        .unwrap_or("0");
    let aside = file.with_extension("writing");
    let written = std::fs::write(&aside, format!("{} {start}\n", std::process::id()))
        .and_then(|()| std::fs::rename(&aside, file));
    if written.is_err() {
        std::process::exit(1);
    }
    sleep_forever();
}

/// Never returns.
pub(crate) fn sleep_forever() -> ! {
    loop {
        thread::sleep(Duration::from_secs(3600));
    }
}
