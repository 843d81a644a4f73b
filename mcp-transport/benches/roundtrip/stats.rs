//! What one client measured, and the arithmetic behind the report.

use std::time::Duration;

/// How many calls each phase makes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Sizes {
    /// Calls made before measuring anything (sequential, then as many pipelined).
    pub(crate) warmup: usize,
    /// Measured sequential round trips.
    pub(crate) sequential: usize,
    /// Measured pipelined calls.
    pub(crate) pipelined: usize,
    /// Requests kept outstanding in the pipelined phase.
    pub(crate) in_flight: usize,
}

impl Sizes {
    /// Sequential calls before measuring; none when that phase is skipped.
    pub(crate) fn sequential_warmup(&self) -> usize {
        if self.sequential == 0 { 0 } else { self.warmup }
    }

    /// Pipelined calls before measuring; none when that phase is skipped.
    pub(crate) fn pipelined_warmup(&self) -> usize {
        if self.pipelined == 0 { 0 } else { self.warmup }
    }
}

/// One request at a time.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Sequential {
    pub(crate) calls: usize,
    pub(crate) p50: Duration,
    pub(crate) p99: Duration,
    pub(crate) mean: Duration,
    /// User + system CPU of this process per call.
    pub(crate) cpu_per_call: Duration,
}

impl Sequential {
    /// Summarizes per-call latencies (sorted in place) and the CPU time the loop used.
    pub(crate) fn from_samples(samples: &mut [Duration], cpu: Duration) -> Self {
        samples.sort_unstable();
        let calls = samples.len();
        let total: Duration = samples.iter().sum();
        Self {
            calls,
            p50: percentile(samples, 50.0),
            p99: percentile(samples, 99.0),
            mean: divide(total, calls),
            cpu_per_call: divide(cpu, calls),
        }
    }
}

/// `in_flight` requests outstanding all the time.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Pipelined {
    pub(crate) calls: usize,
    pub(crate) elapsed: Duration,
    pub(crate) cpu_per_call: Duration,
}

impl Pipelined {
    pub(crate) fn new(calls: usize, elapsed: Duration, cpu: Duration) -> Self {
        Self {
            calls,
            elapsed,
            cpu_per_call: divide(cpu, calls),
        }
    }

    /// Completed calls per second of wall time.
    pub(crate) fn calls_per_sec(&self) -> f64 {
        let secs = self.elapsed.as_secs_f64();
        if secs > 0.0 {
            self.calls as f64 / secs
        } else {
            0.0
        }
    }
}

/// Everything measured for one client.
#[derive(Debug, Clone)]
pub(crate) struct ClientFigures {
    /// A short key for the JSON line (`raw`, `ours_mt`, `ours_ct`).
    pub(crate) key: &'static str,
    /// The row label of the table.
    pub(crate) label: String,
    pub(crate) sequential: Sequential,
    pub(crate) pipelined: Pipelined,
}

/// Nearest-rank percentile of sorted samples.
fn percentile(sorted: &[Duration], pct: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = (pct / 100.0 * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn divide(total: Duration, count: usize) -> Duration {
    if count == 0 {
        return Duration::ZERO;
    }
    let nanos = total.as_nanos() / count as u128;
    Duration::from_nanos(u64::try_from(nanos).unwrap_or(u64::MAX))
}

/// Microseconds with two decimals, for the table.
pub(crate) fn micros(duration: Duration) -> f64 {
    duration.as_nanos() as f64 / 1000.0
}
