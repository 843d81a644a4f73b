//! The CLI's server launcher: every stdio server is started as
//! `agent-session-launch __launch-server PARENT_PID [--nofile SOFT] -- COMMAND ARGS…` (or, when
//! that small binary is not next to the CLI, as the CLI itself, `agent-session
//! __launch-server …`, through `/proc/self/exe`), which asks Linux
//! to kill it when its parent dies (`PR_SET_PDEATHSIG`, SIGKILL), checks that the parent is
//! still the agent, gives back the open-files soft limit the CLI had before raising its own,
//! and replaces itself with the server (same process id, same pipes, environment and folder).
//!
//! Why: the CLI stops its servers on Ctrl-C, SIGTERM, SIGHUP and SIGQUIT, but a SIGKILL (the
//! OOM killer, `kill -9`, a crashed IDE's cleanup) gives it no chance, and a server deaf to the
//! closing of its stdin would run on forever. The signal must be asked for in the child between
//! fork and exec; the library crates have no `unsafe` to do that, and process-wrap does not
//! offer it, so this program does it before it execs. It runs before the CLI parses anything:
//! no runtime, no logging. The separate binary exists for speed: loading the whole CLI (tens
//! of MiB) cost about 1.5 ms per server start, the small one a fraction of that. This file is
//! compiled into both binaries.
//!
//! The signal comes when the thread that spawned the server ends; the CLI spawns servers from
//! its runtime's worker threads, which live as long as the CLI.

use std::ffi::{OsStr, OsString};
use std::os::unix::process::CommandExt as _;
use std::process::ExitCode;
use std::sync::OnceLock;

use mcp_transport::Launcher;

/// The hidden first argument that makes this binary a launcher.
const LAUNCH: &str = "__launch-server";
/// Exit status when the server cannot be started (as a shell reports a command not run).
const EXIT_NOT_STARTED: u8 = 127;
/// Exit status of a malformed launch line (a usage error, as everywhere in the CLI).
const EXIT_USAGE: u8 = 2;
/// The option that carries the open-files soft limit servers get.
const NOFILE: &str = "--nofile";

/// The open-files soft limit the CLI started with, when it raised its own.
static SERVERS_OPEN_FILES_LIMIT: OnceLock<u64> = OnceLock::new();

/// Servers started from now on get `soft` as their open-files soft limit (the CLI's own was
/// raised, and a server need not inherit that).
#[allow(
    dead_code,
    reason = "the launcher binary compiles this file too and starts nothing"
)]
pub(crate) fn give_servers_open_files_limit(soft: u64) {
    let _ = SERVERS_OPEN_FILES_LIMIT.set(soft);
}

/// The small launcher binary's name, looked for next to the CLI.
const LAUNCHER_BINARY: &str = "agent-session-launch";

/// The launcher the CLI's servers are started through, on systems with a parent-death signal.
#[allow(
    dead_code,
    reason = "the launcher binary compiles this file too and starts nothing"
)]
pub(crate) fn for_this_process() -> Option<Launcher> {
    if !cfg!(any(target_os = "linux", target_os = "android")) {
        return None;
    }
    let mut args = vec![LAUNCH.to_owned(), std::process::id().to_string()];
    if let Some(soft) = SERVERS_OPEN_FILES_LIMIT.get() {
        args.extend([NOFILE.to_owned(), soft.to_string()]);
    }
    let small = std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.join(LAUNCHER_BINARY)))
        .filter(|path| path.is_file());
    // Else the running binary, even if it was replaced or deleted since it started.
    let program = small.unwrap_or_else(|| "/proc/self/exe".into());
    Some(Launcher::new(program, args))
}

/// Runs the launcher if this process was started as one; `None` for every other command line.
pub(crate) fn run_if_asked(args: &[OsString]) -> Option<ExitCode> {
    if args.get(1).map(OsString::as_os_str) != Some(OsStr::new(LAUNCH)) {
        return None;
    }
    let number = |index: usize| {
        args.get(index)
            .and_then(|arg| arg.to_str()?.parse::<u64>().ok())
    };
    let Some(parent) = number(2).and_then(|pid| i32::try_from(pid).ok()) else {
        return Some(usage());
    };
    let (open_files, separator) = if args.get(3).is_some_and(|arg| arg == NOFILE) {
        let Some(soft) = number(4) else {
            return Some(usage());
        };
        (Some(soft), 5)
    } else {
        (None, 3)
    };
    let is_separator = args.get(separator).is_some_and(|arg| arg == "--");
    let Some(program) = args.get(separator + 1).filter(|_| is_separator) else {
        return Some(usage());
    };
    Some(launch(parent, open_files, program, &args[separator + 2..]))
}

fn usage() -> ExitCode {
    eprintln!(
        "usage: agent-session {LAUNCH} PARENT_PID [{NOFILE} SOFT] -- COMMAND [ARGS…] \
         (used by the CLI itself)"
    );
    ExitCode::from(EXIT_USAGE)
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

fn launch(parent: i32, open_files: Option<u64>, program: &OsString, args: &[OsString]) -> ExitCode {
    if let Err(reason) = die_with_parent(parent) {
        eprintln!(
            "agent-session: not starting {}: {reason}",
            program.to_string_lossy()
        );
        return ExitCode::from(EXIT_NOT_STARTED);
    }
    if let Some(soft) = open_files {
        use nix::sys::resource::{Resource, getrlimit, setrlimit};
        // Lowering the soft limit needs no privilege; failing leaves the server the CLI's.
        if let Ok((_, hard)) = getrlimit(Resource::RLIMIT_NOFILE) {
            let _ = setrlimit(Resource::RLIMIT_NOFILE, soft.min(hard), hard);
        }
    }
    // Only returns on failure. The arguments are not shown: they may hold secrets.
    let error = std::process::Command::new(program).args(args).exec();
    eprintln!(
        "agent-session: cannot start {}: {error}",
        program.to_string_lossy()
    );
    ExitCode::from(EXIT_NOT_STARTED)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<OsString> {
        list.iter().map(OsString::from).collect()
    }

    #[test]
    fn only_the_hidden_first_argument_makes_a_launcher() {
        assert!(run_if_asked(&args(&["agent-session", "list"])).is_none());
        assert!(run_if_asked(&args(&["agent-session", "list", LAUNCH])).is_none());
        assert!(run_if_asked(&args(&["agent-session"])).is_none());
    }

    #[test]
    fn a_malformed_launch_line_is_refused_before_anything_runs() {
        for line in [
            &["x", LAUNCH][..],
            &["x", LAUNCH, "not-a-pid", "--", "true"],
            &["x", LAUNCH, "1", "true"],
            &["x", LAUNCH, "1", "--"],
            &["x", LAUNCH, "1", NOFILE, "--", "true"],
            &["x", LAUNCH, "1", NOFILE, "many", "--", "true"],
        ] {
            assert_eq!(
                run_if_asked(&args(line)),
                Some(ExitCode::from(EXIT_USAGE)),
                "{line:?}"
            );
        }
    }
}
