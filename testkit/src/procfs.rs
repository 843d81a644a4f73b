//! Process checks for tests, read from `/proc` (Linux): is a pid alive, who is in a group.

use std::time::{Duration, Instant};

/// State and process group of a pid, from `/proc/<pid>/stat`.
fn stat(pid: &str) -> Option<(char, i32)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name in field 2 is in parentheses and may itself hold spaces or ')'.
    let rest = &text[text.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let _ppid = fields.next()?;
    let pgrp = fields.next()?.parse().ok()?;
    Some((state, pgrp))
}

fn is_dead(state: char) -> bool {
    // Z: zombie (exited, not yet reaped); X: dead.
    matches!(state, 'Z' | 'X')
}

/// True if process `pid` exists and has not exited (a zombie counts as exited).
pub fn process_is_alive(pid: i32) -> bool {
    pid > 0 && stat(&pid.to_string()).is_some_and(|(state, _)| !is_dead(state))
}

/// The start time of `pid` (field 22 of `/proc/<pid>/stat`, in clock ticks since boot), zombies
/// included: with the pid, it names one process, even after the pid is reused.
pub fn process_start_time(pid: i32) -> Option<u64> {
    if pid <= 0 {
        return None;
    }
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &text[text.rfind(')')? + 1..];
    // Field 22 is the 20th after the command name.
    rest.split_whitespace().nth(19)?.parse().ok()
}

/// True once the process `pid` that started at `start` ([`process_start_time`]) is gone for
/// good: exited and reaped, not merely a zombie (a pid now held by another process counts as
/// gone).
pub fn process_is_gone(pid: i32, start: u64) -> bool {
    process_start_time(pid) != Some(start)
}

/// The live (non-zombie) processes whose process group is `pgid`, in ascending pid order.
pub fn process_group_members(pgid: i32) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut members: Vec<i32> = entries
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name();
            let name = name.to_str()?;
            let pid: i32 = name.parse().ok()?;
            let (state, group) = stat(name)?;
            (group == pgid && !is_dead(state)).then_some(pid)
        })
        .collect();
    members.sort_unstable();
    members
}

/// The live (non-zombie) processes, other than this one, with an argument for which `matches`
/// is true, in ascending pid order. Tests find the servers they started by a marker argument
/// (e.g. the fixture's `--name`).
pub fn processes_with_arg_where(mut matches: impl FnMut(&str) -> bool) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let own = std::process::id().to_string();
    let mut pids: Vec<i32> = entries
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name();
            let name = name.to_str().filter(|name| *name != own)?;
            let pid: i32 = name.parse().ok()?;
            let cmdline = std::fs::read(entry.path().join("cmdline")).ok()?;
            let found = cmdline
                .split(|byte| *byte == 0)
                .any(|arg| matches(&String::from_utf8_lossy(arg)));
            (found && process_is_alive(pid)).then_some(pid)
        })
        .collect();
    pids.sort_unstable();
    pids
}

/// The live processes, other than this one, with `marker` as one of their arguments.
pub fn processes_with_arg(marker: &str) -> Vec<i32> {
    processes_with_arg_where(|arg| arg == marker)
}

/// Calls `cond` every 10 ms until it returns true or `timeout` has passed; returns its last
/// answer. `cond` is always called at least once.
pub fn wait_until(timeout: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + timeout;
    loop {
        if cond() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Sends SIGKILL to `pid`, to clean up after a test; errors (no such process) are ignored.
///
/// Only for a pid the test knows to be alive: once a process is reaped its pid may be reused.
pub fn kill_process(pid: i32) {
    signal_process(pid, libc::SIGKILL);
}

/// Sends SIGSTOP to `pid`: the process stays, frozen, answering nothing (a hung server), until
/// [`resume_process`] or a SIGKILL.
pub fn stop_process(pid: i32) {
    signal_process(pid, libc::SIGSTOP);
}

/// Sends SIGCONT to `pid`, which [`stop_process`] froze.
pub fn resume_process(pid: i32) {
    signal_process(pid, libc::SIGCONT);
}

/// Sends `signal` (a `libc::SIG*` number) to `pid`; errors (no such process) are ignored.
#[allow(unsafe_code)]
pub fn signal_process(pid: i32, signal: libc::c_int) {
    if pid <= 0 {
        // kill(0 or negative) would signal whole process groups.
        return;
    }
    // SAFETY: kill has no memory effects on this process; a positive pid names one process.
    unsafe {
        libc::kill(pid, signal);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_alive_and_in_its_own_group() {
        let pid = i32::try_from(std::process::id()).unwrap();
        assert!(process_is_alive(pid));
        let (_, pgid) = stat("self").unwrap();
        assert!(process_group_members(pgid).contains(&pid));
        let start = process_start_time(pid).unwrap();
        assert!(!process_is_gone(pid, start));
        assert!(process_is_gone(pid, start + 1));
        assert!(!process_is_alive(0));
        assert!(!process_is_alive(-1));
    }

    #[test]
    fn wait_until_reports_the_last_answer() {
        let mut calls = 0;
        assert!(wait_until(Duration::from_secs(1), || {
            calls += 1;
            calls == 3
        }));
        assert!(!wait_until(Duration::ZERO, || false));
    }
}
