//! `agent-session-launch`: the small binary the `agent-session` CLI starts its stdio servers
//! through. It asks for a parent-death signal, becomes a child subreaper, gives the server the
//! CLI's original open-files limit, starts the server and stays as its parent, killing every
//! process below it (the server's group, and what detached itself and was adopted) when the
//! server exits, when the CLI asks (SIGUSR1) and when the CLI dies; see `cli/launcher.rs`, which
//! it shares with the CLI.

use std::process::ExitCode;

#[path = "cli/launcher.rs"]
mod launcher;

fn main() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    launcher::run_if_asked(&args).unwrap_or_else(|| {
        eprintln!(
            "agent-session-launch starts the servers of the agent-session CLI; it is not run by hand"
        );
        ExitCode::from(2)
    })
}
