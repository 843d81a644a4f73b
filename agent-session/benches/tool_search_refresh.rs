//! Tool-search refresh benchmark: what keeping a session's tool search live costs, at 300
//! tools (12 servers of 25 real-shaped tools) and 10,000 tools (20 servers of 500), each
//! fixture server adding its own 17.
//!
//! - `tools()`: the manager's `tools()` alone, what every refresh of the registry pays anyway.
//! - `reload` (`off`, then `on`): `/mcp reload` when no file changed: discovery, and a refresh
//!   that compares every server's tools without their schemas, indexes nothing again and
//!   rebuilds the registry (deferring, every deferred tool wrapped to load on its call).
//! - `refresh`: `refresh_mcp_tools(manager.tools())`, a refresh that does not know which server
//!   changed (missed events, an agent's own) while no tool did: every schema read and hashed
//!   too.
//! - `from nothing`: the same after a refresh with no tools, so every server is indexed and
//!   measured again, as at the start (the empty refresh's own time taken out).
//! - `search`: `search_tools` of a few words (the built-in ranking), and `search + load`: the
//!   search tool's call, which also loads what it found.
//!
//! ```text
//! cargo bench -p agent-session --bench tool_search_refresh -- [--quick]
//! ```
//!
//! Medians over rounds (p99 too for searches). Run by `cargo test --benches` (no `--bench`
//! flag) it only checks, at a small size, that every step works; with `--list` it prints
//! nothing. Figures are reported, never asserted.

use std::error::Error;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use agent_session::{
    AgentSession, SEARCH_TOOL_NAME, SessionOptions, ToolSearchMode, ToolSearchOptions,
    create_agent_session,
};
use mcp_cache::NoopToolCache;
use mcp_config::{DiscoveryContext, TrustPolicy};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

type BoxError = Box<dyn Error + Send + Sync>;

/// Words the generated tools are made of: objects and verbs.
const OBJECTS: [&str; 25] = [
    "issue",
    "pull request",
    "branch",
    "release",
    "gist",
    "merge request",
    "pipeline",
    "message",
    "channel",
    "reminder",
    "page",
    "database",
    "comment",
    "alert rule",
    "dashboard",
    "document",
    "collection",
    "cookie",
    "file",
    "directory",
    "entity",
    "contact",
    "deal",
    "ticket",
    "crawl job",
];
const VERBS: [&str; 5] = ["create", "get", "list", "update", "delete"];

/// The `i`-th generated tool: a name, two sentences and a schema of four described
/// parameters, as real servers' tools are (about 700 bytes).
fn tool(server: &str, i: usize) -> Value {
    let object = OBJECTS[i % OBJECTS.len()];
    let verb = VERBS[(i / OBJECTS.len()) % VERBS.len()];
    let name = format!("{verb}_{}_{i}", object.replace(' ', "_"));
    json!({
        "name": name,
        "description": format!(
            "{verb} a {object} in {server}. Use it when a task needs to {verb} {object}s; the \
             answer is the {object} as JSON with its id, its web URL and when it last changed."
        ),
        "inputSchema": {"type": "object", "properties": {
            "id": {"type": "string", "description": "Its identifier, as returned when listed."},
            "title": {"type": "string", "description": "A short title, shown in lists."},
            "body": {"type": "string", "description": "The full text, in Markdown."},
            "per_page": {"type": "integer", "description": "Records a page holds (1 to 100)."},
        }, "required": ["id"]},
    })
}

/// A project whose `.mcp.json` runs `servers` fixture servers of `tools` generated tools each;
/// removed on drop.
struct World {
    root: PathBuf,
}

impl World {
    fn new(servers: usize, tools: usize) -> Result<Self, BoxError> {
        let root = std::env::temp_dir().join(format!(
            "tool-search-bench-{}-{servers}x{tools}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("project"))?;
        std::fs::create_dir_all(root.join("home"))?;
        let mut entries = serde_json::Map::new();
        for s in 0..servers {
            let server = format!("server{s}");
            let list: Vec<Value> = (0..tools).map(|i| tool(&server, i)).collect();
            let file = root.join(format!("{server}.json"));
            std::fs::write(&file, serde_json::to_vec(&list)?)?;
            let (program, args) = testkit::FixtureServer::new()
                .name(&server)
                .tools_json(&file)
                .command();
            entries.insert(
                server,
                json!({"command": program.to_string_lossy(), "args": args}),
            );
        }
        std::fs::write(
            root.join("project").join(".mcp.json"),
            serde_json::to_vec(&json!({"mcpServers": entries}))?,
        )?;
        Ok(Self { root })
    }

    async fn start(&self, mode: ToolSearchMode) -> Result<Arc<AgentSession>, BoxError> {
        let project = self.root.join("project");
        let context = DiscoveryContext::new("tool-search-bench", &project, self.root.join("home"));
        let options = SessionOptions::new("tool-search-bench", &project)
            .context(context)
            .cache(Arc::new(NoopToolCache::new()))
            .trust(TrustPolicy::TrustAll)
            .tool_search(ToolSearchOptions::new(mode));
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

/// The median and the 99th percentile of `samples`.
fn percentiles(mut samples: Vec<Duration>) -> (Duration, Duration) {
    samples.sort();
    let at = |share: f64| {
        let index = ((samples.len() - 1) as f64 * share).round() as usize;
        samples[index]
    };
    (at(0.5), at(0.99))
}

fn time<T>(rounds: usize, mut step: impl FnMut() -> T) -> Vec<Duration> {
    (0..rounds)
        .map(|_| {
            let began = Instant::now();
            std::hint::black_box(step());
            began.elapsed()
        })
        .collect()
}

fn ms(duration: Duration) -> String {
    format!("{:.2} ms", duration.as_secs_f64() * 1e3)
}

fn us(duration: Duration) -> String {
    format!("{:.1} µs", duration.as_secs_f64() * 1e6)
}

const QUERIES: [&str; 4] = [
    "create a pull request",
    "list the messages of a channel",
    "delete a file",
    "update the deal",
];

async fn measure(servers: usize, tools: usize, rounds: usize) -> Result<Value, BoxError> {
    let world = World::new(servers, tools)?;
    let mut figures = serde_json::Map::new();
    for mode in [ToolSearchMode::Off, ToolSearchMode::On] {
        let session = world.start(mode).await?;
        let offered = session.manager().tools().len();
        let manager = Arc::clone(session.manager());
        let (tools_p50, _) = percentiles(time(rounds, || manager.tools()));
        let mut reloads = Vec::new();
        for _ in 0..rounds {
            let began = Instant::now();
            let problems = session.reload().await;
            reloads.push(began.elapsed());
            if let Some(problem) = problems.first() {
                return Err(format!("the reload reported a problem: {problem:?}").into());
            }
        }
        let (reload_p50, _) = percentiles(reloads);
        let (refresh_p50, _) = percentiles(time(rounds, || {
            session.refresh_mcp_tools(session.manager().tools());
        }));
        // From nothing: every server indexed and measured again (as at the start).
        let (empty_p50, _) = percentiles(time(rounds, || {
            session.refresh_mcp_tools(Vec::new());
        }));
        let (rebuild_p50, _) = percentiles(time(rounds, || {
            session.refresh_mcp_tools(Vec::new());
            session.refresh_mcp_tools(session.manager().tools());
        }));
        let rebuild_p50 = rebuild_p50.saturating_sub(empty_p50);
        let context = session.tool_context();
        println!(
            "{servers} servers, {offered} tools, {mode}: tools() {}; reload {}; refresh {}; from \
             nothing {}; definitions {} tokens, deferred {} tokens",
            ms(tools_p50),
            ms(reload_p50),
            ms(refresh_p50),
            ms(rebuild_p50),
            context.total_tokens,
            context.deferred_tokens(),
        );
        figures.insert(
            format!("{mode}"),
            json!({
                "tools": offered,
                "tools_ms": tools_p50.as_secs_f64() * 1e3,
                "reload_ms": reload_p50.as_secs_f64() * 1e3,
                "refresh_ms": refresh_p50.as_secs_f64() * 1e3,
                "refresh_from_nothing_ms": rebuild_p50.as_secs_f64() * 1e3,
                "total_tokens": context.total_tokens,
                "deferred_tokens": context.deferred_tokens(),
            }),
        );
        if mode == ToolSearchMode::On {
            let mut searches = Vec::new();
            for round in 0..rounds * 20 {
                let query = QUERIES[round % QUERIES.len()];
                let began = Instant::now();
                let found = session.search_tools(query, 5, None).await?;
                searches.push(began.elapsed());
                std::hint::black_box(found);
            }
            let (search_p50, search_p99) = percentiles(searches);
            let search = session
                .tool(SEARCH_TOOL_NAME)
                .ok_or("the session lists no search tool")?;
            let mut loads = Vec::new();
            for round in 0..rounds {
                let query = QUERIES[round % QUERIES.len()];
                let began = Instant::now();
                let output = search
                    .execute(json!({"query": query}), CancellationToken::new())
                    .await
                    .map_err(|_| "cancelled")?;
                loads.push(began.elapsed());
                if output.is_error {
                    return Err(output.to_text().into());
                }
            }
            let (load_p50, _) = percentiles(loads);
            println!(
                "  search p50 {} p99 {}; search + load p50 {}",
                us(search_p50),
                us(search_p99),
                ms(load_p50)
            );
            figures.insert(
                "search".to_owned(),
                json!({
                    "p50_us": search_p50.as_secs_f64() * 1e6,
                    "p99_us": search_p99.as_secs_f64() * 1e6,
                    "search_and_load_ms": load_p50.as_secs_f64() * 1e3,
                }),
            );
        }
        session.shutdown().await;
    }
    Ok(Value::Object(figures))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|arg| arg == "--list") {
        return ExitCode::SUCCESS;
    }
    let bench = args.iter().any(|arg| arg == "--bench");
    let quick = args.iter().any(|arg| arg == "--quick");
    let sizes: &[(usize, usize)] = if bench {
        &[(12, 25), (20, 500)]
    } else {
        &[(2, 10)]
    };
    let rounds = match (bench, quick) {
        (false, _) => 2,
        (true, true) => 5,
        (true, false) => 21,
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("tool_search_refresh: {error}");
            return ExitCode::FAILURE;
        }
    };
    let mut report = serde_json::Map::new();
    for &(servers, tools) in sizes {
        match runtime.block_on(measure(servers, tools, rounds)) {
            Ok(figures) => {
                report.insert(format!("{servers}x{tools}"), figures);
            }
            Err(error) => {
                eprintln!("tool_search_refresh: {error}");
                return ExitCode::FAILURE;
            }
        }
    }
    println!("{}", Value::Object(report));
    ExitCode::SUCCESS
}
