//! Call counts, percentile arithmetic and the JSON line a client driver prints.
//!
//! Percentiles are nearest-rank over the sorted per-call latencies of the sequential phase.
//! CPU per call is the CPU time of the phase divided by its call count.

use std::time::Duration;

/// Requests kept outstanding in the pipelined phase.
pub const IN_FLIGHT: usize = 32;

/// How many calls each phase makes; the same for every client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sizes {
    /// Unmeasured calls before each measured phase (sequential, then pipelined).
    pub warmup: usize,
    /// Measured sequential calls.
    pub sequential: usize,
    /// Measured pipelined calls.
    pub pipelined: usize,
}

impl Sizes {
    /// The counts of a full run.
    pub const FULL: Self = Self {
        warmup: 2_000,
        sequential: 20_000,
        pipelined: 100_000,
    };
    /// The counts of `--quick`.
    pub const QUICK: Self = Self {
        warmup: 500,
        sequential: 2_000,
        pipelined: 10_000,
    };

    /// These counts cut down, phase by phase, to at most `cap`'s (never raised).
    pub fn capped(self, cap: Self) -> Self {
        Self {
            warmup: self.warmup.min(cap.warmup),
            sequential: self.sequential.min(cap.sequential),
            pipelined: self.pipelined.min(cap.pipelined),
        }
    }

    /// The arguments that pass these counts to a client driver.
    pub fn to_args(self) -> Vec<String> {
        vec![
            "--warmup".to_owned(),
            self.warmup.to_string(),
            "--sequential".to_owned(),
            self.sequential.to_string(),
            "--pipelined".to_owned(),
            self.pipelined.to_string(),
        ]
    }
}

/// What one client driver measured in one run.
#[derive(Debug, Clone, PartialEq)]
pub struct Figures {
    /// The client: `raw`, `ours`, `rmcp`, a peer's name, or an HTTP client with its answer
    /// kind (`raw-http-json`, `ours-http-sse`, `rmcp-http-pooled-json`, …).
    pub client: String,
    /// How the client is driven: `blocking`, `spawned-task`, `block_on`, `current-thread`.
    pub shape: String,
    /// Median sequential round trip, µs.
    pub seq_p50_us: f64,
    /// 99th percentile sequential round trip, µs.
    pub seq_p99_us: f64,
    /// Client process CPU (user + system) per sequential call, µs.
    pub cpu_us_per_call: f64,
    /// Server CPU per sequential call, µs (measured from outside the server); `None` (JSON
    /// `null`) when a driver cannot find the server's pid.
    pub server_cpu_us_per_call: Option<f64>,
    /// Calls per second with [`IN_FLIGHT`] requests outstanding.
    pub inflight32_calls_per_s: f64,
}

impl Figures {
    /// Builds the figures from the sequential samples (sorted here), the client and server
    /// CPU time of the sequential phase, and the pipelined phase's count and wall time.
    pub fn new(
        client: &str,
        shape: &str,
        samples: &mut [Duration],
        client_cpu: Duration,
        server_cpu: Duration,
        pipelined: (usize, Duration),
    ) -> Self {
        samples.sort_unstable();
        let calls = samples.len().max(1) as f64;
        let (count, elapsed) = pipelined;
        Self {
            client: client.to_owned(),
            shape: shape.to_owned(),
            seq_p50_us: micros(percentile(samples, 0.50)),
            seq_p99_us: micros(percentile(samples, 0.99)),
            cpu_us_per_call: micros(client_cpu) / calls,
            server_cpu_us_per_call: Some(micros(server_cpu) / calls),
            inflight32_calls_per_s: count as f64 / elapsed.as_secs_f64().max(1e-9),
        }
    }

    /// The one JSON line a driver prints.
    pub fn to_json_line(&self) -> String {
        serde_json::json!({
            "client": self.client,
            "shape": self.shape,
            "seq_p50_us": round2(self.seq_p50_us),
            "seq_p99_us": round2(self.seq_p99_us),
            "cpu_us_per_call": round2(self.cpu_us_per_call),
            "server_cpu_us_per_call": self.server_cpu_us_per_call.map(round2),
            "inflight32_calls_per_s": self.inflight32_calls_per_s.round(),
        })
        .to_string()
    }

    /// Reads a line printed by [`Figures::to_json_line`] (or by a peer driver under
    /// `bench/peers/`, which prints the same shape); `None` if it is not one.
    pub fn from_json_line(line: &str) -> Option<Self> {
        let value: serde_json::Value = serde_json::from_str(line).ok()?;
        let text = |key: &str| value.get(key)?.as_str().map(str::to_owned);
        let number = |key: &str| value.get(key)?.as_f64();
        Some(Self {
            client: text("client")?,
            shape: text("shape")?,
            seq_p50_us: number("seq_p50_us")?,
            seq_p99_us: number("seq_p99_us")?,
            cpu_us_per_call: number("cpu_us_per_call")?,
            server_cpu_us_per_call: match value.get("server_cpu_us_per_call")? {
                serde_json::Value::Null => None,
                figure => Some(figure.as_f64()?),
            },
            inflight32_calls_per_s: number("inflight32_calls_per_s")?,
        })
    }
}

/// Nearest-rank percentile of sorted samples (zero when there are none).
fn percentile(sorted: &[Duration], fraction: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = (fraction * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn micros(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e6
}

fn round2(value: f64) -> f64 {
    (value * 100.0).round() / 100.0
}

/// The median of some figures (the mean of the middle two for an even count).
pub fn median(values: &mut [f64]) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    values.sort_unstable_by(f64::total_cmp);
    let middle = values.len() / 2;
    if values.len().is_multiple_of(2) {
        (values[middle - 1] + values[middle]) / 2.0
    } else {
        values[middle]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_nearest_rank() {
        let mut samples: Vec<_> = (1..=100).map(Duration::from_micros).collect();
        let figures = Figures::new(
            "raw",
            "blocking",
            &mut samples,
            Duration::from_micros(200),
            Duration::from_micros(100),
            (10, Duration::from_millis(1)),
        );
        assert_eq!(figures.seq_p50_us.round(), 50.0);
        assert_eq!(figures.seq_p99_us.round(), 99.0);
        assert_eq!(figures.cpu_us_per_call, 2.0);
        assert_eq!(figures.inflight32_calls_per_s.round(), 10_000.0);
        let line = figures.to_json_line();
        assert_eq!(Figures::from_json_line(&line), Some(figures));
    }

    #[test]
    fn a_peer_line_without_server_cpu_reads_as_none() {
        let line = r#"{"client":"ts-sdk","shape":"node","seq_p50_us":70.5,"seq_p99_us":900,"cpu_us_per_call":120,"server_cpu_us_per_call":null,"inflight32_calls_per_s":30000}"#;
        let figures = Figures::from_json_line(line);
        assert_eq!(
            figures.map(|f| (f.seq_p99_us, f.server_cpu_us_per_call)),
            Some((900.0, None))
        );
        assert_eq!(Figures::from_json_line(r#"{"client":"x"}"#), None);
    }

    #[test]
    fn median_of_even_and_odd_counts() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), 2.5);
    }
}
