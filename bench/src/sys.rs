//! The system figures the drivers read: this process's CPU time (`getrusage(RUSAGE_SELF)`,
//! which does not count child processes) and a child's on-CPU time from
//! `/proc/<pid>/schedstat` (its main thread, or all its threads), so the server is measured
//! separately from the client.

use std::io;
use std::time::Duration;

use nix::sys::resource::{UsageWho, getrusage};
use nix::sys::time::{TimeVal, TimeValLike as _};

/// User plus system CPU time used so far by every thread of this process (nix's safe
/// `getrusage`; `RUSAGE_SELF` does not count the server, a child).
pub fn process_cpu_time() -> io::Result<Duration> {
    let usage = getrusage(UsageWho::RUSAGE_SELF).map_err(io::Error::from)?;
    Ok(micros(usage.user_time()) + micros(usage.system_time()))
}

fn micros(time: TimeVal) -> Duration {
    Duration::from_micros(u64::try_from(time.num_microseconds()).unwrap_or(0))
}

/// The one child process of this process (the server the client spawned).
///
/// Scans `/proc` for a process whose parent is us; an error if there is not exactly one.
pub fn only_child() -> io::Result<u32> {
    let me = std::process::id();
    let mut children = Vec::new();
    for entry in std::fs::read_dir("/proc")? {
        let entry = entry?;
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        // The process may have gone between read_dir and here: skip it.
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // `pid (comm) state ppid …`; comm may hold spaces or parentheses, so split after the
        // last `)`.
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|field| field.parse::<u32>().ok());
        if ppid == Some(me) {
            children.push(pid);
        }
    }
    match children.as_slice() {
        [pid] => Ok(*pid),
        other => Err(io::Error::other(format!(
            "expected exactly one child process (the server), found {}",
            other.len()
        ))),
    }
}

/// On-CPU time of process `pid`'s main thread (the reference server has only that one).
pub fn schedstat_cpu_time(pid: u32) -> io::Result<Duration> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/schedstat"))?;
    let nanos = text
        .split_whitespace()
        .next()
        .and_then(|field| field.parse::<u64>().ok())
        .ok_or_else(|| io::Error::other(format!("unreadable /proc/{pid}/schedstat: {text}")))?;
    Ok(Duration::from_nanos(nanos))
}

/// On-CPU time of every thread of process `pid` so far (`/proc/<pid>/task/*/schedstat`); for
/// the single-threaded stdio server this is its main thread's.
pub fn server_cpu_time(pid: u32) -> io::Result<Duration> {
    let mut total = Duration::ZERO;
    for task in std::fs::read_dir(format!("/proc/{pid}/task"))? {
        let path = task?.path().join("schedstat");
        // A thread may end between read_dir and here: it is no longer counted.
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let nanos = text
            .split_whitespace()
            .next()
            .and_then(|field| field.parse::<u64>().ok())
            .ok_or_else(|| io::Error::other(format!("unreadable {}: {text}", path.display())))?;
        total += Duration::from_nanos(nanos);
    }
    Ok(total)
}
