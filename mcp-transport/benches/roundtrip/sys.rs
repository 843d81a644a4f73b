//! The few system calls the benchmark needs: process CPU time and CPU affinity.

use std::io;
use std::mem::MaybeUninit;
use std::time::Duration;

/// User plus system CPU time consumed so far by every thread of this process.
///
/// Children (the fixture server) are not included: `RUSAGE_SELF` counts this process only.
#[allow(unsafe_code)]
pub(crate) fn process_cpu_time() -> io::Result<Duration> {
    let mut usage = MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: `usage` points to writable memory the size of a `rusage`, which getrusage(2)
    // fills on success; RUSAGE_SELF is a valid `who`.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()) };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: getrusage returned 0, so the struct is initialized (and an all-zero `rusage`,
    // its starting state, is valid anyway: it holds only integers).
    let usage = unsafe { usage.assume_init() };
    Ok(timeval(usage.ru_utime) + timeval(usage.ru_stime))
}

fn timeval(tv: libc::timeval) -> Duration {
    let secs = u64::try_from(tv.tv_sec).unwrap_or(0);
    let micros = u32::try_from(tv.tv_usec).unwrap_or(0);
    Duration::from_secs(secs) + Duration::from_micros(u64::from(micros))
}

/// Restricts the calling thread, and every thread and child process created after this, to
/// CPU `core`. Call it before any other thread exists so the whole process is covered.
#[allow(unsafe_code)]
pub(crate) fn pin_to_core(core: usize) -> io::Result<()> {
    let setsize = usize::try_from(libc::CPU_SETSIZE).unwrap_or(0);
    if core >= setsize {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("core {core} is beyond CPU_SETSIZE ({setsize})"),
        ));
    }
    let mut set = MaybeUninit::<libc::cpu_set_t>::zeroed();
    // SAFETY: an all-zero `cpu_set_t` is the empty set (it is a plain bit array); CPU_SET
    // writes one bit inside it (`core` was checked against CPU_SETSIZE above);
    // sched_setaffinity(2) reads `size_of::<cpu_set_t>()` bytes from a valid pointer, and pid 0
    // means the calling thread.
    let rc = unsafe {
        let set = set.assume_init_mut();
        libc::CPU_ZERO(set);
        libc::CPU_SET(core, set);
        libc::sched_setaffinity(0, size_of::<libc::cpu_set_t>(), set)
    };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// The CPUs the calling thread may run on.
#[allow(unsafe_code)]
pub(crate) fn current_affinity() -> io::Result<Vec<usize>> {
    let mut set = MaybeUninit::<libc::cpu_set_t>::zeroed();
    // SAFETY: sched_getaffinity(2) writes at most `size_of::<cpu_set_t>()` bytes into the
    // valid, writable `set`; pid 0 means the calling thread.
    let rc = unsafe { libc::sched_getaffinity(0, size_of::<libc::cpu_set_t>(), set.as_mut_ptr()) };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the set started all-zero (a valid empty set) and the kernel filled it.
    let set = unsafe { set.assume_init() };
    let setsize = usize::try_from(libc::CPU_SETSIZE).unwrap_or(0);
    // SAFETY: CPU_ISSET reads one bit of a valid set, at an index below CPU_SETSIZE.
    Ok((0..setsize)
        .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) })
        .collect())
}
