//! The CLI is its own server launcher: every stdio server is started as
//! `agent-session __launch-server PARENT_PID -- COMMAND ARGS…`, which asks Linux to kill it
//! when its parent dies (`PR_SET_PDEATHSIG`, SIGKILL), checks that the parent is still the agent,
//! and replaces itself with the server (same process id, same pipes, environment and folder).
//!
//! Why: the CLI stops its servers on Ctrl-C, SIGTERM, SIGHUP and SIGQUIT, but a SIGKILL (the
//! OOM killer, `kill -9`, a crashed IDE's cleanup) gives it no chance, and a server deaf to the
//! closing of its stdin would run on forever. The signal must be asked for in the child between
//! fork and exec; the library crates have no `unsafe` to do that, and process-wrap does not
//! offer it, so this program does it before it execs. It runs before the CLI parses anything:
//! no runtime, no logging, a few hundred microseconds.
//!
//! The signal comes when the thread that spawned the server ends; the CLI spawns servers from
//! its runtime's worker threads, which live as long as the CLI.

use std::ffi::{OsStr, OsString};
use std::os::unix::process::CommandExt as _;
use std::process::ExitCode;

use mcp_transport::Launcher;

/// The hidden first argument that makes this binary a launcher.
const LAUNCH: &str = "__launch-server";
/// Exit status when the server cannot be started (as a shell reports a command not run).
const EXIT_NOT_STARTED: u8 = 127;

/// The launcher the CLI's servers are started through, on systems with a parent-death signal.
pub(crate) fn for_this_process() -> Option<Launcher> {
    if !cfg!(any(target_os = "linux", target_os = "android")) {
        return None;
    }
    // The running binary, even if it was replaced or deleted since it started.
    Some(Launcher::new(
        "/proc/self/exe",
        [LAUNCH.to_owned(), std::process::id().to_string()],
    ))
}

/// Runs the launcher if this process was started as one; `None` for every other command line.
pub(crate) fn run_if_asked(args: &[OsString]) -> Option<ExitCode> {
    if args.get(1).map(OsString::as_os_str) != Some(OsStr::new(LAUNCH)) {
        return None;
    }
    let parent = args
        .get(2)
        .and_then(|pid| pid.to_str()?.parse::<i32>().ok());
    let (Some(parent), Some(separator)) = (parent, args.get(3)) else {
        return Some(usage());
    };
    let Some(program) = args.get(4).filter(|_| separator == "--") else {
        return Some(usage());
    };
    Some(launch(parent, program, &args[5..]))
}

fn usage() -> ExitCode {
    eprintln!(
        "usage: agent-session {LAUNCH} PARENT_PID -- COMMAND [ARGS…] (used by the CLI itself)"
    );
    ExitCode::from(crate::cli::EXIT_USAGE)
}

#[cfg(any(target_os = "linux", target_os = "android"))]
fn die_with_parent(parent: i32) -> Result<(), String> {
    use nix::sys::signal::Signal;
    nix::sys::prctl::set_pdeathsig(Signal::SIGKILL)
        .map_err(|error| format!("cannot ask for a parent-death signal: {error}"))?;
    // The parent may have died before the signal was asked for: then no signal will come.
    if nix::unistd::getppid().as_raw() != parent {
        return Err("the agent that started this server is gone".to_owned());
    }
    Ok(())
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn die_with_parent(_parent: i32) -> Result<(), String> {
    Ok(())
}

fn launch(parent: i32, program: &OsString, args: &[OsString]) -> ExitCode {
    if let Err(reason) = die_with_parent(parent) {
        eprintln!(
            "agent-session: not starting {}: {reason}",
            program.to_string_lossy()
        );
        return ExitCode::from(EXIT_NOT_STARTED);
    }
    // Only returns on failure. The arguments are not shown: they may hold secrets.
    let error = std::process::Command::new(program).args(args).exec();
    eprintln!(
        "agent-session: cannot start {}: {error}",
        program.to_string_lossy()
    );
    ExitCode::from(EXIT_NOT_STARTED)
}
