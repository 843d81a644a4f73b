//! The system figures the drivers read: this process's CPU time (`getrusage(RUSAGE_SELF)`,
//! which does not count child processes) and a child's on-CPU time from
//! `/proc/<pid>/schedstat`, so the server is measured separately from the client.

use std::io;
use std::mem::MaybeUninit;
use std::time::Duration;

/// User plus system CPU time used so far by every thread of this process.
#[allow(unsafe_code)]
pub fn process_cpu_time() -> io::Result<Duration> {
    let mut usage = MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: `usage` is writable memory the size of a `rusage`, which getrusage(2) fills on
    // success; RUSAGE_SELF is a valid `who`.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()) };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: getrusage returned 0, so the struct is filled (all-zero is valid anyway).
    let usage = unsafe { usage.assume_init() };
    Ok(timeval(usage.ru_utime) + timeval(usage.ru_stime))
}

fn timeval(tv: libc::timeval) -> Duration {
    let secs = u64::try_from(tv.tv_sec).unwrap_or(0);
    let micros = u64::try_from(tv.tv_usec).unwrap_or(0);
    Duration::from_secs(secs) + Duration::from_micros(micros)
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
