//! The few process-level calls that need libc: the process group and SIGTERM disposition.

use std::io;
use std::process::{Command, Stdio};
use std::thread;
use std::time::Duration;

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

/// Starts this executable again with `--sleep-forever`, holding none of our pipes, and
/// returns its pid. It is not waited for: it must outlive us, as a leaked grandchild would.
pub(crate) fn spawn_grandchild() -> io::Result<u32> {
    let child = Command::new(std::env::current_exe()?)
        .arg("--sleep-forever")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()?;
    Ok(child.id())
}

/// Never returns.
pub(crate) fn sleep_forever() -> ! {
    loop {
        thread::sleep(Duration::from_secs(3600));
    }
}
