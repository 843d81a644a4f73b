//! The launcher's family (Linux): its children, the server first and then whatever it adopts as
//! a child subreaper, reaped as they end; and the end of every process below it, found in
//! `/proc`, however it detached (a double-forked, `setsid()`ed daemon is adopted, so it is
//! below the launcher too).
//!
//! Written by hand: no crate we use walks a process tree (`procfs` reads the same files with a
//! parser for every field, and `/proc/PID/task/TID/children` needs a kernel built with
//! `CONFIG_PROC_CHILDREN`, which many are not), and this is a scan of one field per process.
//!
//! A process is signalled only while it is known to be below the launcher: a child of the
//! launcher cannot be another process until the launcher reaps it, and a deeper one is
//! signalled only if its start time (field 22 of `/proc/PID/stat`) is still the one the scan
//! saw, so that a pid reused since by someone else's process is left alone. A descendant
//! stays one until it dies: an orphan below the launcher goes to the nearest subreaper above
//! it, which is the launcher or one of its own descendants.

use std::collections::HashMap;
use std::time::Duration;

use nix::errno::Errno;
use nix::sys::signal::{Signal, kill};
use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::{Pid, getpid};

/// How many times in a row the launcher looks for children that `waitpid` says it has but
/// `/proc` does not show (one being adopted right now; or, under `hidepid`, one that changed
/// its user) before it gives up on them rather than hang.
const UNSEEN_CHILD_LOOKS: u32 = 200;
/// The pause between two such looks.
const UNSEEN_CHILD_PAUSE: Duration = Duration::from_millis(5);

/// The launcher's children: the server, and whatever it adopts.
pub(super) struct Family {
    server: Pid,
    /// How the server ended, once it is reaped (its pid may name another process from then).
    status: Option<WaitStatus>,
}

impl Family {
    pub(super) fn new(server: Pid) -> Self {
        Self {
            server,
            status: None,
        }
    }

    /// How the server ended, once it has.
    pub(super) fn server_status(&self) -> Option<WaitStatus> {
        self.status
    }

    /// Sends `signal` to the server, if it has not been reaped.
    pub(super) fn signal_server(&self, signal: Signal) {
        if self.status.is_none() {
            let _ = kill(self.server, signal);
        }
    }

    /// Reaps every child that has ended, without waiting.
    pub(super) fn reap(&mut self) {
        loop {
            match waitpid(None, Some(WaitPidFlag::WNOHANG | WaitPidFlag::__WALL)) {
                Ok(WaitStatus::StillAlive) | Err(Errno::ECHILD) => return,
                Ok(status) => self.note(status),
                Err(Errno::EINTR) => {}
                Err(_) => return,
            }
        }
    }

    /// Waits until the server has ended, reaping whatever else ends meanwhile.
    pub(super) fn wait_for_server(&mut self) {
        while self.status.is_none() {
            match waitpid(None, Some(WaitPidFlag::__WALL)) {
                Ok(status) => self.note(status),
                Err(Errno::EINTR) => {}
                Err(_) => return,
            }
        }
    }

    fn note(&mut self, status: WaitStatus) {
        if status.pid() == Some(self.server)
            && matches!(status, WaitStatus::Exited(..) | WaitStatus::Signaled(..))
        {
            self.status = Some(status);
        }
    }

    /// Kills every process below the launcher with SIGKILL and reaps its children, looking
    /// again after each end (a killed process's orphans come to the launcher), until it has no
    /// child left. The server goes first, and `/proc` is read only while a child is left: a
    /// server that leaves nothing behind costs no scan. Without `/proc`, only the server is
    /// killed.
    pub(super) fn kill_all(&mut self) {
        self.kill_server();
        let me = getpid();
        let mut unseen_looks = 0;
        loop {
            match waitpid(None, Some(WaitPidFlag::WNOHANG | WaitPidFlag::__WALL)) {
                Ok(WaitStatus::StillAlive) => {}
                Ok(status) => {
                    self.note(status);
                    continue;
                }
                Err(Errno::EINTR) => continue,
                // ECHILD: nothing is left below the launcher.
                Err(_) => return,
            }
            let Some(table) = ProcessTable::read() else {
                return;
            };
            if table.kill_below(me) {
                // A child of ours was seen, and killed (or is a zombie): its end comes.
                unseen_looks = 0;
                match waitpid(None, Some(WaitPidFlag::__WALL)) {
                    Ok(status) => self.note(status),
                    Err(Errno::EINTR) => {}
                    Err(_) => return,
                }
            } else {
                // A child `/proc` did not show yet (being adopted right now) is looked for
                // again, a bounded number of times.
                unseen_looks += 1;
                if unseen_looks >= UNSEEN_CHILD_LOOKS {
                    return;
                }
                std::thread::sleep(UNSEEN_CHILD_PAUSE);
            }
        }
    }

    /// Kills the server, if it has not ended, and waits for it.
    fn kill_server(&mut self) {
        if self.status.is_some() {
            return;
        }
        let _ = kill(self.server, Signal::SIGKILL);
        while self.status.is_none() {
            match waitpid(self.server, Some(WaitPidFlag::__WALL)) {
                Ok(status) => self.note(status),
                Err(Errno::EINTR) => {}
                Err(_) => return,
            }
        }
    }
}

/// One process, as `/proc/PID/stat` shows it.
struct Process {
    pid: Pid,
    parent: Pid,
    start: u64,
    zombie: bool,
}

/// Every process `/proc` shows, at one moment.
struct ProcessTable(Vec<Process>);

impl ProcessTable {
    /// Every process whose `stat` could be read; `None` without `/proc`.
    fn read() -> Option<Self> {
        let entries = std::fs::read_dir("/proc").ok()?;
        let processes = entries
            .flatten()
            .filter_map(|entry| {
                let pid = entry.file_name().to_str()?.parse().ok()?;
                let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
                let (parent, start, zombie) = parse_stat(&stat)?;
                Some(Process {
                    pid: Pid::from_raw(pid),
                    parent: Pid::from_raw(parent),
                    start,
                    zombie,
                })
            })
            .collect();
        Some(Self(processes))
    }

    /// Sends SIGKILL to every living process below `root`, parents before their children;
    /// true if `root` has a child (living or a zombie).
    fn kill_below(&self, root: Pid) -> bool {
        let mut children: HashMap<Pid, Vec<&Process>> = HashMap::new();
        for process in &self.0 {
            children.entry(process.parent).or_default().push(process);
        }
        let Some(first) = children.get(&root) else {
            return false;
        };
        let mut level: Vec<&Process> = first.clone();
        let mut depth = 1;
        while !level.is_empty() {
            let mut next = Vec::new();
            for process in level {
                // A child cannot be another process before it is reaped; a grandchild may
                // have been, so it must still be the one the scan saw.
                let same = depth == 1 || start_time(process.pid) == Some(process.start);
                if !process.zombie && same {
                    let _ = kill(process.pid, Signal::SIGKILL);
                }
                if let Some(below) = children.get(&process.pid) {
                    next.extend(below.iter().copied());
                }
            }
            level = next;
            depth += 1;
        }
        true
    }
}

/// The start time of `pid` now (field 22 of its `stat`).
fn start_time(pid: Pid) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    parse_stat(&stat).map(|(_, start, _)| start)
}

/// The parent (field 4), start time (field 22) and whether it is a zombie (field 3) of a
/// `/proc/PID/stat` line.
fn parse_stat(stat: &str) -> Option<(i32, u64, bool)> {
    // The command name (field 2) is in parentheses and may itself hold spaces or ')'.
    let mut fields = stat.get(stat.rfind(')')? + 1..)?.split_whitespace();
    let state = fields.next()?;
    let parent = fields.next()?.parse().ok()?;
    // Fields 5 to 21 come between the parent and the start time.
    let start = fields.nth(17)?.parse().ok()?;
    Some((parent, start, matches!(state, "Z" | "X")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stat_line_gives_its_parent_start_time_and_state() {
        let line = "4242 (a (b) c) S 17 4242 4242 0 -1 4194304 99 0 0 0 0 0 0 0 20 0 1 0 \
                    123456 4067328 683 18446744073709551615";
        assert_eq!(parse_stat(line), Some((17, 123_456, false)));
        let zombie = line.replace(") S ", ") Z ");
        assert_eq!(parse_stat(&zombie), Some((17, 123_456, true)));
        assert_eq!(parse_stat("4242 (cut short) S 17 4242"), None);
        assert_eq!(parse_stat("no parentheses"), None);
    }

    #[test]
    fn this_process_is_in_the_table_below_its_parent() {
        let table = ProcessTable::read().unwrap();
        let me = getpid();
        let own = table.0.iter().find(|process| process.pid == me).unwrap();
        assert_eq!(own.parent, nix::unistd::getppid());
        assert_eq!(start_time(me), Some(own.start));
        assert!(!own.zombie);
    }
}
