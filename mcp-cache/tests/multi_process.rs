//! Two real OS processes share one cache directory at the same time.
//!
//! The `cache_worker` example is built with cargo and started twice on a fresh directory, as
//! `worker-a` and `worker-b`, each writing its own server's tools and reading both servers' for
//! a few seconds. Both must exit cleanly, both must have hit their own entry and the other's,
//! and each must have seen the other's entry change (they shared the store while both ran, not
//! one after the other); no hit may be damaged, and afterwards a store opened in this process
//! must read both entries intact, none of the writes the other worker saw lost. Nothing here
//! asserts timing.

use std::error::Error;
use std::io::{Read, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use mcp_cache::{CacheOptions, Fingerprint, SledToolCache, ToolCache};
use serde_json::{Value, json};

type TestResult<T> = Result<T, Box<dyn Error>>;

/// How long each worker runs.
const WORKER_SECONDS: u64 = 3;
/// How long past that a worker may take before it is killed: generous, for a loaded machine.
const OVERRUN: Duration = Duration::from_secs(60);

/// A fresh directory under the system's temporary directory, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(label: &str) -> TestResult<Self> {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|since| since.as_nanos())
            .unwrap_or_default();
        let path =
            std::env::temp_dir().join(format!("mcp-cache-{label}-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&path)?;
        Ok(Self(path))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Builds the `cache_worker` example in the profile of this test and returns the executable
/// path cargo reports.
fn build_worker() -> TestResult<PathBuf> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
    let mut command = Command::new(cargo);
    command
        .args(["build", "-p", "mcp-cache", "--example", "cache_worker"])
        .args(["--message-format", "json"])
        .arg("--manifest-path")
        .arg(&manifest)
        .stdin(Stdio::null());
    // Tests sit in `<target>/<profile>/deps`: build the worker in the same profile.
    let profile = std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.parent()?.file_name()?.to_str()?.to_owned()));
    match profile.as_deref() {
        Some("release") => {
            command.arg("--release");
        }
        Some("debug") | None => {}
        Some(other) => {
            command.args(["--profile", other]);
        }
    }
    let output = command.output()?;
    if !output.status.success() {
        return Err(format!(
            "{command:?} failed ({}):\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        )
        .into());
    }
    output
        .stdout
        .split(|&byte| byte == b'\n')
        .filter_map(|line| serde_json::from_slice::<Value>(line).ok())
        .filter(|message| message["reason"] == "compiler-artifact")
        .filter(|message| message["target"]["name"] == "cache_worker")
        .find_map(|message| message["executable"].as_str().map(PathBuf::from))
        .ok_or_else(|| format!("{command:?} reported no cache_worker executable").into())
}

/// A started worker with its output being collected.
struct Worker {
    id: &'static str,
    child: Child,
    stdout: JoinHandle<String>,
    stderr: JoinHandle<String>,
}

/// What a worker did.
struct Finished {
    id: &'static str,
    status: ExitStatus,
    summary: Value,
    stdout: String,
    stderr: String,
}

impl Worker {
    fn start(program: &Path, dir: &Path, id: &'static str, peer: &str) -> TestResult<Self> {
        let mut child = Command::new(program)
            .arg("--dir")
            .arg(dir)
            .args(["--id", id, "--peer", peer])
            .args(["--seconds", &WORKER_SECONDS.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()?;
        // Drained on threads so that a chatty worker never blocks on a full pipe.
        let stdout = drain(child.stdout.take().ok_or("no stdout pipe")?);
        let stderr = drain(child.stderr.take().ok_or("no stderr pipe")?);
        Ok(Self {
            id,
            child,
            stdout,
            stderr,
        })
    }

    /// Waits for the worker to exit, killing it at `deadline`.
    fn finish(mut self, deadline: Instant) -> TestResult<Finished> {
        let status = loop {
            if let Some(status) = self.child.try_wait()? {
                break status;
            }
            if Instant::now() >= deadline {
                let _ = self.child.kill();
                let status = self.child.wait()?;
                let stderr = joined(self.stderr);
                return Err(format!(
                    "{} was still running {OVERRUN:?} after it should have ended and was \
                     killed ({status}); stderr:\n{stderr}",
                    self.id
                )
                .into());
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let stdout = joined(self.stdout);
        let stderr = joined(self.stderr);
        let summary = stdout
            .lines()
            .rev()
            .find_map(|line| serde_json::from_str::<Value>(line).ok())
            .unwrap_or(Value::Null);
        Ok(Finished {
            id: self.id,
            status,
            summary,
            stdout,
            stderr,
        })
    }
}

/// What a drain thread read; what it could not read is simply missing.
fn joined(thread: JoinHandle<String>) -> String {
    thread
        .join()
        .unwrap_or_else(|_| "<the output reader panicked>".to_owned())
}

fn drain(mut pipe: impl Read + Send + 'static) -> JoinHandle<String> {
    std::thread::spawn(move || {
        let mut text = String::new();
        let _ = pipe.read_to_string(&mut text);
        text
    })
}

fn fingerprint_of(id: &str) -> Fingerprint {
    // The configuration the worker fingerprints its server by.
    Fingerprint::of(&json!({"command": "mcp-server", "args": ["--name", id]}))
}

/// Asks the worker program whether `tools` are exactly what worker `id` writes; returns the
/// generation it reports.
fn verify_with_worker(program: &Path, id: &str, tools: &[mcp_transport::Tool]) -> TestResult<u64> {
    let mut child = Command::new(program)
        .args(["verify", "--id", id])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let mut stdin = child.stdin.take().ok_or("no stdin pipe")?;
    stdin.write_all(&serde_json::to_vec(tools)?)?;
    drop(stdin);
    let output = child.wait_with_output()?;
    if !output.status.success() {
        return Err(format!(
            "the tools read for {id} do not verify: {}",
            String::from_utf8_lossy(&output.stderr)
        )
        .into());
    }
    let answer: Value = serde_json::from_slice(&output.stdout)?;
    answer["generation"]
        .as_u64()
        .ok_or_else(|| format!("no generation in {answer}").into())
}

/// A figure of worker `id`'s summary.
fn figure(finished: &[Finished], id: &str, key: &str) -> Option<u64> {
    finished
        .iter()
        .find(|worker| worker.id == id)
        .and_then(|worker| worker.summary[key].as_u64())
}

#[test]
fn two_processes_share_one_cache_dir_and_both_get_intact_hits() {
    let program = build_worker().unwrap();
    let temp = TempDir::new("multi-process").unwrap();
    let dir = temp.0.join("tool-cache");

    let workers = [
        Worker::start(&program, &dir, "worker-a", "worker-b").unwrap(),
        Worker::start(&program, &dir, "worker-b", "worker-a").unwrap(),
    ];
    let deadline = Instant::now() + Duration::from_secs(WORKER_SECONDS) + OVERRUN;
    // Every worker is waited for (or killed) before any failure is reported.
    let finished = workers
        .map(|worker| worker.finish(deadline))
        .map(Result::unwrap);

    let summaries: String = finished
        .iter()
        .map(|worker| format!("\n{}: {}", worker.id, worker.summary))
        .collect();
    for worker in &finished {
        let Finished {
            id,
            status,
            summary,
            stdout,
            stderr,
        } = worker;
        let context = format!(
            "{id} ({status})\nstdout:\n{stdout}\nstderr:\n{stderr}\nboth summaries:{summaries}"
        );
        assert!(status.success(), "{context}");
        assert_eq!(summary["id"], json!(id), "{context}");
        assert_eq!(summary["corrupt"], json!(0), "{context}");
        assert_eq!(summary["panics"], json!(0), "{context}");
        assert!(
            summary["own_hits"].as_u64().is_some_and(|hits| hits > 0),
            "{id} never read its own entry: {context}"
        );
        assert!(
            summary["peer_hits"].as_u64().is_some_and(|hits| hits > 0),
            "{id} never read the other worker's entry: {context}"
        );
        // Sharing while both run, not one after the other: the peer's entry changed under
        // this worker's eyes.
        assert!(
            summary["peer_generations_seen"]
                .as_u64()
                .is_some_and(|seen| seen >= 2),
            "{id} never saw the other worker's entry change while both ran: {context}"
        );
        eprintln!("{summary}");
    }

    // Both processes are gone: a store opened here must read what they left, intact.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let cache = SledToolCache::open_at(&dir, CacheOptions::default());
    for id in ["worker-a", "worker-b"] {
        let tools = match runtime.block_on(cache.lookup_entry(id, &fingerprint_of(id))) {
            Ok(entry) => entry.tools,
            Err(reason) => panic!("{id}'s entry misses after both exited: {reason:?}"),
        };
        let generation = verify_with_worker(&program, id, &tools).unwrap();
        // Nothing was lost: at least what the other worker last saw of it, at most what it
        // wrote.
        let peer = if id == "worker-a" {
            "worker-b"
        } else {
            "worker-a"
        };
        let seen_by_peer = figure(&finished, peer, "last_peer_generation").unwrap();
        let written = figure(&finished, id, "iterations").unwrap();
        assert!(
            (seen_by_peer.max(1)..=written).contains(&generation),
            "{id}'s entry is at generation {generation}; the other worker saw {seen_by_peer}, \
             {id} wrote up to {written}"
        );
    }
    runtime.block_on(cache.close());
    drop(cache);
    drop(runtime);
    drop(temp);
}
