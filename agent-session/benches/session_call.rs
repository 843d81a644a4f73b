//! Session-call benchmark: what a tool call costs above the transport. The same `echo` call
//! to one fixture server, made two ways in one process, on the same connection:
//!
//! - `bare`: `McpClient::call_tool("echo", Some(arguments))`, the client the session's manager
//!   holds for the server.
//! - `session`: what an agent does for a tool call of the model — the session's registry looks
//!   the tool up by its model-facing name (`mcp_fx_echo`), the arguments (a JSON value, as the
//!   model's call is parsed) are checked against the tool's input schema
//!   (`AgentTool::check_arguments`), and the tool is
//!   executed (`McpTool`: arguments, progress and cancellation options, the client call, the
//!   result converted to a `ToolOutput` within the output budget).
//!
//! ```text
//! cargo bench -p agent-session --bench session_call -- [--pin-core N] [--quick]
//!     [--rounds N] [--calls N] [--warmup N] [--diagnose]
//! ```
//!
//! Calls are sequential, awaited inside a task spawned on a multi-thread runtime. The ways
//! alternate in rounds (which one goes first rotates too), so drift of the machine hits
//! both alike. For each way: p50 and p99 latency over every call, and client CPU per call from
//! `getrusage(RUSAGE_SELF)` (the fixture server is a child: not counted), summed over its
//! rounds. The report gives the session's figures as ratios of the bare ones, against the
//! target (≤ 1.3×), and ends with one JSON line of every figure. Missing the target is
//! reported, not failed.
//!
//! `--diagnose` adds a third way, the bare call with the options `McpTool` gives every call
//! (progress asked for, a cancellation token, the progress-restarted timeout): the part of the
//! difference that lies in the transport.
//!
//! `--pin-core N` restricts the process to CPU N before any thread starts (the server
//! inherits it): software cost alone, the figures to compare. `--quick` runs a tenth of the
//! calls. Run by `cargo test --benches` (no `--bench` flag) it only checks, with a handful of
//! calls, that every way works and that the bare and the session's give the same text; with
//! `--list` (as `cargo nextest` asks) it prints nothing.

use std::error::Error;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use agent_session::{AgentSession, SessionOptions, create_agent_session};
use mcp_bridge::ToolOutput;
use mcp_cache::NoopToolCache;
use mcp_config::{DiscoveryContext, TrustPolicy};
use mcp_transport::{
    JsonObject, McpClient, ProgressCallback, ProgressNotificationParams, RequestOptions,
};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

type BoxError = Box<dyn Error + Send + Sync>;

/// The server's name in the bench's `.mcp.json`.
const SERVER: &str = "fx";
/// The echo tool's name as the model sees it.
const TOOL: &str = "mcp_fx_echo";
/// Target: a call through the session costs at most this many times a bare call.
const TARGET_RATIO: f64 = 1.3;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scale {
    Full,
    Quick,
    /// Not run by `cargo bench`: prove it works, measure nothing meaningful.
    Smoke,
}

#[derive(Debug)]
struct Args {
    list: bool,
    pin_core: Option<usize>,
    scale: Scale,
    rounds: Option<usize>,
    calls: Option<usize>,
    warmup: Option<usize>,
    diagnose: bool,
}

impl Args {
    fn parse(args: impl IntoIterator<Item = String>) -> Result<Self, String> {
        let (mut list, mut bench, mut quick) = (false, false, false);
        let mut parsed = Self {
            list: false,
            pin_core: None,
            scale: Scale::Smoke,
            rounds: None,
            calls: None,
            warmup: None,
            diagnose: false,
        };
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            let (flag, inline) = match arg.split_once('=') {
                Some((flag, value)) if flag.starts_with("--") => {
                    (flag.to_owned(), Some(value.to_owned()))
                }
                _ => (arg.clone(), None),
            };
            let mut number = |name: &str| -> Result<usize, String> {
                let text = inline
                    .clone()
                    .or_else(|| args.next())
                    .ok_or_else(|| format!("{name} needs a value"))?;
                text.parse()
                    .map_err(|_| format!("{name} wants a number, got `{text}`"))
            };
            match flag.as_str() {
                "--list" => list = true,
                "--bench" => bench = true,
                "--quick" => quick = true,
                "--diagnose" => parsed.diagnose = true,
                "--pin-core" => parsed.pin_core = Some(number("--pin-core")?),
                "--rounds" => parsed.rounds = Some(number("--rounds")?),
                "--calls" => parsed.calls = Some(number("--calls")?),
                "--warmup" => parsed.warmup = Some(number("--warmup")?),
                // Whatever else the test runners pass (`--format terse`, `--exact NAME`,
                // `--nocapture`, filters): nothing here depends on it.
                _ => {}
            }
        }
        parsed.list = list;
        parsed.scale = match (bench, quick) {
            (_, true) => Scale::Quick,
            (true, false) => Scale::Full,
            (false, false) => Scale::Smoke,
        };
        Ok(parsed)
    }

    /// Rounds, calls per way per round, warm-up calls per way.
    fn sizes(&self) -> (usize, usize, usize) {
        let (rounds, calls, warmup) = match self.scale {
            Scale::Full => (20, 2_000, 2_000),
            Scale::Quick => (10, 400, 500),
            Scale::Smoke => (2, 10, 10),
        };
        (
            self.rounds.unwrap_or(rounds).max(1),
            self.calls.unwrap_or(calls).max(1),
            self.warmup.unwrap_or(warmup),
        )
    }
}

fn main() -> ExitCode {
    let args = match Args::parse(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(message) => {
            eprintln!("session_call: {message}");
            return ExitCode::from(2);
        }
    };
    if args.list {
        // `cargo nextest` lists tests this way: this target has none.
        return ExitCode::SUCCESS;
    }
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("session_call: error: {error}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &Args) -> Result<(), BoxError> {
    if let Some(core) = args.pin_core {
        // Before the runtime exists, so that every thread (and the server) inherits the mask.
        let mut set = nix::sched::CpuSet::new();
        set.set(core)?;
        nix::sched::sched_setaffinity(nix::unistd::Pid::from_raw(0), &set)?;
    }
    let world = World::new()?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let (rounds, calls, warmup) = args.sizes();
    let smoke = args.scale == Scale::Smoke;
    let mut ways = vec![Way::Bare, Way::Session];
    if args.diagnose || smoke {
        ways.push(Way::BareWithToolOptions);
    }
    let report = runtime.block_on(async {
        let task = tokio::spawn(async move {
            let session = world.start().await?;
            let bench = Bench::new(&session).await?;
            let outcome = bench.measure(&ways, rounds, calls, warmup, smoke).await;
            session.shutdown().await;
            drop(world);
            outcome
        });
        task.await?
    })?;
    print!("{}", report.render(args));
    Ok(())
}

/// A project folder with a `.mcp.json` running the fixture server, and a home folder; removed
/// on drop.
struct World {
    root: PathBuf,
}

impl World {
    fn new() -> Result<Self, BoxError> {
        let root = std::env::temp_dir().join(format!("session-call-bench-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("project"))?;
        std::fs::create_dir_all(root.join("home"))?;
        let (program, server_args) = testkit::FixtureServer::new().command();
        let config = json!({"mcpServers": {SERVER: {
            "command": program.to_string_lossy(),
            "args": server_args,
        }}});
        std::fs::write(
            root.join("project").join(".mcp.json"),
            serde_json::to_vec(&config)?,
        )?;
        Ok(Self { root })
    }

    fn project(&self) -> PathBuf {
        self.root.join("project")
    }

    /// A session of this world: no tool cache, the project's server trusted.
    async fn start(&self) -> Result<Arc<AgentSession>, BoxError> {
        let project = self.project();
        let context = DiscoveryContext::new("session-call-bench", &project, self.root.join("home"));
        let options = SessionOptions::new("session-call-bench", &project)
            .context(context)
            .cache(Arc::new(NoopToolCache::new()))
            .trust(TrustPolicy::TrustAll);
        let started = create_agent_session(options).await;
        if let Some(problem) = started.problems.first() {
            return Err(format!("the session reported a problem: {problem:?}").into());
        }
        Ok(started.session)
    }
}

impl Drop for World {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// The ways of making the call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Way {
    Bare,
    Session,
    /// `--diagnose`: the bare call with the options `McpTool` gives every call (progress asked
    /// for, a cancellation token, the progress-restarted timeout): what of the session's cost
    /// is the transport's.
    BareWithToolOptions,
}

impl Way {
    fn name(self) -> &'static str {
        match self {
            Self::Bare => "bare call_tool",
            Self::Session => "through the session",
            Self::BareWithToolOptions => "bare, McpTool's options",
        }
    }

    fn key(self) -> &'static str {
        match self {
            Self::Bare => "bare",
            Self::Session => "session",
            Self::BareWithToolOptions => "bare_tool_options",
        }
    }
}

struct Bench<'a> {
    session: &'a AgentSession,
    client: Arc<McpClient>,
    /// The arguments as the bare call takes them.
    object: JsonObject,
    /// The same arguments as the model's call gives them to the agent.
    value: Value,
    /// The progress callback of [`Way::BareWithToolOptions`], made once as `McpTool`'s is.
    progress: ProgressCallback,
}

impl<'a> Bench<'a> {
    async fn new(session: &'a AgentSession) -> Result<Self, BoxError> {
        let client = tokio::time::timeout(
            Duration::from_secs(30),
            session.manager().wait_for_connection(SERVER),
        )
        .await
        .map_err(|_| "the fixture server did not connect within 30 s")??;
        // The registry now gets the live tool (not the deferred one of a server still starting).
        session.refresh_mcp_tools(session.manager().tools());
        if session.tool(TOOL).is_none() {
            return Err(format!("the session has no tool {TOOL}").into());
        }
        let mut object = JsonObject::new();
        object.insert("message".to_owned(), "ping".into());
        let value = Value::Object(object.clone());
        Ok(Self {
            session,
            client,
            object,
            value,
            progress: Arc::new(|_: ProgressNotificationParams| {}),
        })
    }

    /// One call the bare way; the text it answered.
    async fn bare(&self) -> Result<String, BoxError> {
        let result = self
            .client
            .call_tool("echo", Some(self.object.clone()))
            .await?;
        if result.is_error {
            return Err(format!("the bare echo call failed: {:?}", result.content).into());
        }
        Ok(match result.content.first() {
            Some(mcp_transport::ContentBlock::Text(text)) => text.text.clone(),
            other => format!("{other:?}"),
        })
    }

    /// One call the way an agent makes it; what the agent gets.
    async fn through_session(&self) -> Result<ToolOutput, BoxError> {
        let tool = self
            .session
            .tool(TOOL)
            .ok_or_else(|| format!("the session lost {TOOL}"))?;
        let arguments = self.value.clone();
        tool.check_arguments(&arguments)?;
        let output = tool
            .execute(arguments, CancellationToken::new())
            .await
            .map_err(|cancelled| cancelled.to_string())?;
        if output.is_error {
            return Err(format!("the echo call through the session failed: {output:?}").into());
        }
        Ok(output)
    }

    /// One call the bare way with the options `McpTool` gives every call.
    async fn bare_with_tool_options(&self) -> Result<(), BoxError> {
        let mut options = RequestOptions::default()
            .cancel_with(CancellationToken::new())
            .reset_timeout_on_progress(mcp_bridge::MAX_CALL_DURATION);
        options.on_progress = Some(Arc::clone(&self.progress));
        let result = self
            .client
            .call_tool_with("echo", Some(&self.object), &options)
            .await?;
        if result.is_error {
            return Err(format!("the echo call failed: {:?}", result.content).into());
        }
        Ok(())
    }

    async fn call(&self, way: Way) -> Result<(), BoxError> {
        match way {
            Way::Bare => self.bare().await.map(drop),
            Way::Session => self.through_session().await.map(drop),
            Way::BareWithToolOptions => self.bare_with_tool_options().await,
        }
    }

    /// `calls` sequential calls one way: each call's latency, and the CPU they took.
    async fn phase(&self, way: Way, calls: usize) -> Result<(Vec<Duration>, Duration), BoxError> {
        let mut samples = Vec::with_capacity(calls);
        let cpu = cpu_time()?;
        for _ in 0..calls {
            let start = Instant::now();
            self.call(way).await?;
            samples.push(start.elapsed());
        }
        Ok((samples, cpu_time()?.saturating_sub(cpu)))
    }

    async fn measure(
        &self,
        ways: &[Way],
        rounds: usize,
        calls: usize,
        warmup: usize,
        smoke: bool,
    ) -> Result<Report, BoxError> {
        // Both ways answer, and the agent gets the text the server sent.
        let bare = self.bare().await?;
        let agent = self.through_session().await?.to_text();
        if bare != agent {
            return Err(format!("the ways disagree: bare {bare:?}, session {agent:?}").into());
        }
        for &way in ways {
            self.phase(way, warmup).await?;
        }
        let mut figures: Vec<Figures> = ways.iter().map(|_| Figures::default()).collect();
        for round in 0..rounds {
            // Each round starts with the next way: none is always first (or last).
            for step in 0..ways.len() {
                let index = (round + step) % ways.len();
                let (samples, cpu) = self.phase(ways[index], calls).await?;
                figures[index].samples.extend(samples);
                figures[index].cpu += cpu;
            }
        }
        Ok(Report {
            rounds,
            calls,
            smoke,
            ways: ways
                .iter()
                .copied()
                .zip(figures.into_iter().map(Figures::summary))
                .collect(),
        })
    }
}

#[derive(Default)]
struct Figures {
    samples: Vec<Duration>,
    cpu: Duration,
}

impl Figures {
    fn summary(mut self) -> Summary {
        self.samples.sort_unstable();
        let at = |share: f64| {
            let last = self.samples.len().saturating_sub(1);
            // The index of a share of the sorted samples: a small count, exact in f64.
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let index = ((last as f64) * share).round() as usize;
            self.samples.get(index).copied().unwrap_or_default()
        };
        let count = u32::try_from(self.samples.len().max(1)).unwrap_or(u32::MAX);
        Summary {
            p50: at(0.5),
            p99: at(0.99),
            cpu_per_call: self.cpu / count,
        }
    }
}

struct Summary {
    p50: Duration,
    p99: Duration,
    cpu_per_call: Duration,
}

struct Report {
    rounds: usize,
    calls: usize,
    smoke: bool,
    /// Bare first, the session second, then the `--diagnose` ways.
    ways: Vec<(Way, Summary)>,
}

fn micros(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e6
}

fn ratio(ours: Duration, base: Duration) -> f64 {
    if base.is_zero() {
        f64::NAN
    } else {
        ours.as_secs_f64() / base.as_secs_f64()
    }
}

impl Report {
    fn render(&self, args: &Args) -> String {
        let placement = args.pin_core.map_or_else(
            || "unpinned".to_owned(),
            |core| format!("pinned to CPU {core}"),
        );
        let mut out = format!(
            "session_call: tools/call echo, {} rounds × {} sequential calls per way, {placement}{}\n\n",
            self.rounds,
            self.calls,
            if self.smoke {
                " (smoke run: figures mean nothing)"
            } else {
                ""
            },
        );
        out.push_str(
            "| way | p50 µs | p99 µs | CPU µs/call | p50 / bare | CPU / bare |\n\
             |---|---:|---:|---:|---:|---:|\n",
        );
        let bare = &self.ways[0].1;
        let mut line = serde_json::Map::new();
        for (way, summary) in &self.ways {
            let p50 = ratio(summary.p50, bare.p50);
            let cpu = ratio(summary.cpu_per_call, bare.cpu_per_call);
            out.push_str(&format!(
                "| {} | {:.1} | {:.1} | {:.1} | {p50:.2}× | {cpu:.2}× |\n",
                way.name(),
                micros(summary.p50),
                micros(summary.p99),
                micros(summary.cpu_per_call)
            ));
            line.insert(
                way.key().to_owned(),
                json!({"p50_us": micros(summary.p50), "p99_us": micros(summary.p99),
                    "cpu_us_per_call": micros(summary.cpu_per_call),
                    "p50_ratio": p50, "cpu_ratio": cpu}),
            );
        }
        let session = &self.ways[1].1;
        let p50 = ratio(session.p50, bare.p50);
        let cpu = ratio(session.cpu_per_call, bare.cpu_per_call);
        let verdict = |value: f64| {
            if value <= TARGET_RATIO {
                "met"
            } else {
                "missed"
            }
        };
        out.push_str(&format!(
            "\nsession / bare: p50 {p50:.2}× ({}), CPU per call {cpu:.2}× ({}); target ≤ {TARGET_RATIO}×\n",
            verdict(p50),
            verdict(cpu)
        ));
        line.insert("bench".to_owned(), json!("session_call"));
        line.insert("rounds".to_owned(), json!(self.rounds));
        line.insert("calls_per_round".to_owned(), json!(self.calls));
        line.insert("pin_core".to_owned(), json!(args.pin_core));
        out.push_str(&format!("{}\n", Value::Object(line)));
        out
    }
}

/// User plus system CPU time of every thread of this process so far (not of the server, a
/// child).
fn cpu_time() -> Result<Duration, BoxError> {
    use nix::sys::resource::{UsageWho, getrusage};
    let usage = getrusage(UsageWho::RUSAGE_SELF)?;
    let micros = |time: nix::sys::time::TimeVal| {
        Duration::from_secs(u64::try_from(time.tv_sec()).unwrap_or(0))
            + Duration::from_micros(u64::try_from(time.tv_usec()).unwrap_or(0))
    };
    Ok(micros(usage.user_time()) + micros(usage.system_time()))
}
