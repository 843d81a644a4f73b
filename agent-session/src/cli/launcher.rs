//! The CLI's server launcher: every stdio server is started as
//! `agent-session-launch __launch-server PARENT_PID [--nofile SOFT] -- COMMAND ARGS…` (or, when
//! that small binary is not next to the CLI, as the CLI itself, `agent-session
//! __launch-server …`, through `/proc/self/exe`), which asks Linux to signal it when its parent
//! dies (`PR_SET_PDEATHSIG`), checks that the parent is still the agent, becomes a child
//! subreaper (`PR_SET_CHILD_SUBREAPER`), gives back the open-files soft limit the CLI had before
//! raising its own, starts the server as its child (same pipes, environment, folder and process
//! group) and stays, a small supervisor, until the server exits; then it kills whatever the
//! server left behind and exits as the server did (its status, or dying of its signal).
//!
//! Why: the CLI stops its servers on Ctrl-C, SIGTERM, SIGHUP and SIGQUIT, but a SIGKILL (the
//! OOM killer, `kill -9`, a crashed IDE's cleanup) gives it no chance, and a server deaf to the
//! closing of its stdin would run on forever, with whatever it started. The parent-death signal
//! reaches one process only, so the launcher does not become the server: it is the leader of
//! the group the client made (`process-wrap`'s `ProcessGroup::leader()`), and when the agent is
//! gone it kills everything below it, itself last. The signal must be asked for in the child;
//! the library crates have no `unsafe` to do that, and process-wrap does not offer it, so this
//! program does it. It runs before the CLI parses anything: no runtime, no logging. The separate
//! binary exists for speed: loading the whole CLI (tens of MiB) cost about 1.5 ms per server
//! start, the small one a fraction of that. This file is compiled into both binaries.
//!
//! Nothing the server starts outlives it, however it detaches. A process group holds only what
//! stays in it: a daemon that forks, calls `setsid()` and forks again is in a session and group
//! of its own, and its parent is gone. As a child subreaper the launcher adopts such orphans
//! (Linux re-parents them to it rather than to init), reaps them as they end, and kills every
//! process below it (the `family` module: its children, and theirs, found in `/proc`) when:
//! - the server exits, by itself or because it was asked to: its leftovers go before the
//!   launcher exits with its status;
//! - the agent sends the launcher alone its kill signal, SIGUSR1 (`KILL_ALL`, given to the
//!   transport as `Launcher::kill_signal`): the transport's step of a stop after SIGTERM, and
//!   what a dropped connection (the CLI ending on a signal) sends. The client's SIGKILL to the
//!   group would kill the launcher first and leave the adopted orphans to init, so the transport
//!   sends it only if the launcher has not exited a grace period after its kill signal;
//! - the agent is gone, however it ended (the parent-death signal).
//!
//! The agent's SIGTERM goes to the whole group: the server gets it itself, and the launcher,
//! which has it blocked, lets it pass. A signal sent to the launcher alone by anyone else
//! (SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1) is passed on to the server. The launcher blocks
//! the signals it reads before it starts the server (with `posix_spawn`, which gives the server
//! the signal mask the launcher started with), so that one that comes at once waits to be read
//! instead of ending the launcher before it supervises anything. A process that became another
//! user (`sudo`) may not be signalled, and stays.
//!
//! The parent-death signal comes when the thread that spawned the server ends, which need not be
//! the agent's end: the launcher acts on it only once its parent is no longer the agent.

use std::ffi::{OsStr, OsString};
use std::process::ExitCode;
use std::sync::OnceLock;

use mcp_transport::Launcher;

#[cfg(any(target_os = "linux", target_os = "android"))]
#[path = "launcher/family.rs"]
mod family;

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

/// The signal the client sends the launcher alone to have it kill the server and everything
/// below it, and exit (`Launcher::kill_signal`). Not SIGTERM, which the client sends the whole
/// group, nor SIGKILL, which would end the launcher first.
const KILL_ALL: nix::sys::signal::Signal = nix::sys::signal::Signal::SIGUSR1;

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
    Some(Launcher::new(program, args).kill_signal(KILL_ALL as i32))
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

/// The parent-death signal the launcher asks for. SIGCHLD, like the server's exit: both are
/// news of a relative, and the launcher looks at both its parent and its child whenever one
/// comes. Being ignored by default matters: until the launcher blocks it (after the server is
/// spawned, which inherits the signal mask), one that comes is lost without harm, and the
/// checks made once it is blocked see what it would have said.
#[cfg(any(target_os = "linux", target_os = "android"))]
const PARENT_GONE: nix::sys::signal::Signal = nix::sys::signal::Signal::SIGCHLD;

/// The signals the launcher reads instead of dying of them: the parent-death signal and the
/// end of a child (SIGCHLD both), the client's kill signal, and those it passes on to the
/// server.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn watched_signals() -> nix::sys::signal::SigSet {
    use nix::sys::signal::{SigSet, Signal};
    let mut set = SigSet::empty();
    for signal in [
        PARENT_GONE,
        KILL_ALL,
        Signal::SIGTERM,
        Signal::SIGINT,
        Signal::SIGHUP,
        Signal::SIGQUIT,
    ] {
        set.add(signal);
    }
    set
}

#[cfg(any(target_os = "linux", target_os = "android"))]
fn die_with_parent(parent: i32) -> Result<(), String> {
    nix::sys::prctl::set_pdeathsig(PARENT_GONE)
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
    start(parent, program, args)
}

/// Starts the server as a child in this process group and supervises it, and what it leaves
/// behind, until it exits.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn start(parent: i32, program: &OsString, args: &[OsString]) -> ExitCode {
    use nix::sys::signal::SigSet;
    use nix::sys::signalfd::{SfdFlags, SignalFd};
    // Whatever the server leaves behind, however it detached, is re-parented to the launcher
    // rather than to init. Failing (a kernel before 3.4) leaves it the server's group alone.
    let _ = nix::sys::prctl::set_child_subreaper(true);
    let mask = SigSet::thread_get_mask().unwrap_or_else(|_| SigSet::empty());
    let watched = watched_signals();
    let signals = watched
        .thread_block()
        .and_then(|()| SignalFd::with_flags(&watched, SfdFlags::SFD_CLOEXEC))
        .ok();
    match spawn_server(program, args, &mask) {
        Ok(server) => supervise(parent, server, signals),
        Err(errno) => not_started(program, &errno.into()),
    }
}

/// Starts `program args…` as a child in this process group, with this process's environment,
/// folder and standard streams, `mask` as its signal mask, and SIGPIPE at its default (Rust
/// ignores it in its own processes; std's `Command` puts it back as well). `posix_spawn`,
/// not `Command`: the child must not inherit the signals the launcher blocked, and setting its
/// mask is something only `posix_spawn` does without `unsafe`.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn spawn_server(
    program: &OsStr,
    args: &[OsString],
    mask: &nix::sys::signal::SigSet,
) -> nix::Result<nix::unistd::Pid> {
    use nix::errno::Errno;
    use nix::spawn::{PosixSpawnAttr, PosixSpawnFileActions, PosixSpawnFlags, posix_spawnp};
    use nix::sys::signal::{SigSet, Signal};
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt as _;
    // Arguments and variables from the system hold no NUL byte.
    let c_string = |text: &OsStr| CString::new(text.as_bytes()).map_err(|_| Errno::EINVAL);
    let program = c_string(program)?;
    let mut argv = vec![program.clone()];
    for arg in args {
        argv.push(c_string(arg)?);
    }
    let mut environment = Vec::new();
    for (name, value) in std::env::vars_os() {
        let mut pair = name;
        pair.push("=");
        pair.push(value);
        environment.push(c_string(&pair)?);
    }
    let mut attributes = PosixSpawnAttr::init()?;
    attributes.set_sigmask(mask)?;
    let mut default = SigSet::empty();
    default.add(Signal::SIGPIPE);
    attributes.set_sigdefault(&default)?;
    attributes.set_flags(
        PosixSpawnFlags::POSIX_SPAWN_SETSIGMASK | PosixSpawnFlags::POSIX_SPAWN_SETSIGDEF,
    )?;
    posix_spawnp(
        &program,
        &PosixSpawnFileActions::init()?,
        &attributes,
        &argv,
        &environment,
    )
}

/// Replaces this process with the server: without a parent-death signal there is nothing to
/// supervise.
#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn start(_parent: i32, program: &OsString, args: &[OsString]) -> ExitCode {
    use std::os::unix::process::CommandExt as _;
    // Only returns on failure.
    let error = std::process::Command::new(program).args(args).exec();
    not_started(program, &error)
}

fn not_started(program: &OsString, error: &std::io::Error) -> ExitCode {
    // The arguments are not shown: they may hold secrets.
    eprintln!(
        "agent-session: cannot start {}: {error}",
        program.to_string_lossy()
    );
    ExitCode::from(EXIT_NOT_STARTED)
}

/// Waits for the server, passing on the signals meant for it, and kills everything below the
/// launcher when the server has exited, when the client sends the kill signal and when the
/// agent is gone; returns (or dies) as the server exited.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn supervise(
    parent: i32,
    server: nix::unistd::Pid,
    signals: Option<nix::sys::signalfd::SignalFd>,
) -> ExitCode {
    use nix::errno::Errno;
    use nix::sys::signal::{Signal, killpg};
    use nix::unistd::{getpgrp, getpid, getppid};

    let mut family = family::Family::new(server);
    let Some(signals) = signals else {
        // The launcher can still report the server's exit, and end what it left; the client's
        // kill signal goes unread (or ends the launcher), and its SIGKILL to the group follows.
        family.wait_for_server();
        family.kill_all();
        return exit_like(family.server_status());
    };
    let agent = u32::try_from(parent).unwrap_or(0);
    give_the_pipes_to_the_server();
    loop {
        // First before any signal is read: what came before the block was lost.
        if getppid().as_raw() != parent {
            // The agent is gone, however it ended: take everything below along, then the
            // group, itself included (the group is ours when the client made it).
            family.kill_all();
            let own = getpid();
            if getpgrp() == own {
                let _ = killpg(own, Signal::SIGKILL);
            }
            return exit_like(family.server_status());
        }
        family.reap();
        if family.server_status().is_some() {
            // What the server left, in its group or detached, goes before anyone hears of
            // its exit.
            family.kill_all();
            return exit_like(family.server_status());
        }
        let info = match signals.read_signal() {
            Ok(Some(info)) => info,
            Ok(None) | Err(Errno::EINTR) => continue,
            Err(_) => {
                family.wait_for_server();
                family.kill_all();
                return exit_like(family.server_status());
            }
        };
        let signal = i32::try_from(info.ssi_signo)
            .ok()
            .and_then(|number| Signal::try_from(number).ok());
        match signal {
            // Looked into at the top of the loop.
            None | Some(PARENT_GONE) => {}
            Some(KILL_ALL) if info.ssi_pid == agent => {
                family.kill_all();
                return exit_like(family.server_status());
            }
            // The agent signals the whole group: the server has this one already.
            Some(_) if info.ssi_pid == agent => {}
            Some(signal) => family.signal_server(signal),
        }
    }
}

/// Points the launcher's standard streams at `/dev/null`, so that the agent's pipes are held by
/// the server alone: the agent sees the end of the server's output when the server closes it.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn give_the_pipes_to_the_server() {
    use nix::unistd::{dup2_stderr, dup2_stdin, dup2_stdout};
    if let Ok(null) = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/null")
    {
        let _ = dup2_stdin(&null);
        let _ = dup2_stdout(&null);
        let _ = dup2_stderr(&null);
    }
}

/// Ends as the server ended: with its exit status, or dying of the signal that killed it (then
/// the agent reports `signal N` as before); `128 + N`, as a shell says it, if that signal is
/// ignored here; a failure if how it ended is unknown.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn exit_like(status: Option<nix::sys::wait::WaitStatus>) -> ExitCode {
    use nix::sys::resource::{Resource, setrlimit};
    use nix::sys::signal::{SigSet, raise};
    use nix::sys::wait::WaitStatus;
    let signal = match status {
        Some(WaitStatus::Exited(_, code)) => {
            return ExitCode::from(u8::try_from(code).unwrap_or(1));
        }
        Some(WaitStatus::Signaled(_, signal, _)) => signal,
        _ => return ExitCode::FAILURE,
    };
    // A core file of the launcher would help no one.
    let _ = setrlimit(Resource::RLIMIT_CORE, 0, 0);
    let mut only = SigSet::empty();
    only.add(signal);
    let _ = only.thread_unblock();
    // Twice: the Rust runtime's own SIGSEGV and SIGBUS handler takes the first one and puts
    // the default action back.
    let _ = raise(signal);
    let _ = raise(signal);
    ExitCode::from(u8::try_from(128 + signal as i32).unwrap_or(1))
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
