//! The startup shapes: one fresh process that starts reference servers, initializes them, lists
//! their tools and exits. The runner times each process from outside (spawn to reaped), so
//! the time includes loading this binary, building a runtime, and shutting everything down.
//!
//! ```text
//! startup --shape SHAPE --server PATH [--servers N]
//! ```
//!
//! | shape | what the process does |
//! |---|---|
//! | `oneshot-raw` | the floor: one server with std process and pipes, pre-serialized lines, answers read to the newline and checked for a marker, no runtime |
//! | `oneshot-ours-current-thread` | `McpClient::connect_stdio` + `list_tools` + `close` on a current-thread runtime |
//! | `oneshot-ours-multi-thread` | the same on a multi-thread runtime (what `#[tokio::main]` builds) |
//! | `oneshot-ours-pinned-current-thread` | `oneshot-ours-current-thread` with `ClientOptions::protocol_version(V2025_11_25)`: `initialize` without the `server/discover` probe first (what the client did before it spoke 2026-07-28) |
//! | `oneshot-ours-2026-current-thread` | `oneshot-ours-current-thread` against the server's dual-era mode (`--stateless`): the probe is answered and is the whole connect (no `initialize`) |
//! | `oneshot-rmcp-current-thread` | rmcp: `().serve(TokioChildProcess)` + `list_tools` + `cancel`, current-thread runtime |
//! | `fanout-raw` | the floor: N servers spawned with std, every `initialize` written, then the answers read, then every `tools/list` |
//! | `fanout-raw-threads` | the same split over one thread per CPU, each doing its share: std's spawn blocks until the child has exec'd, so one thread spawns one server at a time, while a multi-thread runtime spawns from each worker |
//! | `fanout-ours-multi-thread` | N `McpClient`s connected and listed concurrently (one task each) on a multi-thread runtime, as a `#[tokio::main]` program would, then closed concurrently |
//! | `fanout-ours-current-thread` | the same on a current-thread runtime |
//! | `fanout-ours-pinned-multi-thread` | `fanout-ours-multi-thread` pinned to 2025-11-25 (no probe) |
//! | `fanout-ours-2026-multi-thread` | `fanout-ours-multi-thread` against the dual-era servers: 2026-07-28 |
//! | `fanout-rmcp-multi-thread` | rmcp, N services concurrently on a multi-thread runtime |
//!
//! Every other shape of ours uses default options, so against the server's default
//! (handshake-era only) mode the client first probes with `server/discover`, is refused
//! (-32601) and then sends `initialize`: one round trip more than the pinned shapes.
//!
//! `--servers` is the fan-out's server count (default 50; one-shot shapes start one). Every
//! shape checks that each server lists the `echo` tool and waits for (or, for the libraries,
//! lets its client stop) every server before it exits. It prints one JSON line,
//! `{"shape", "servers", "peak_rss_kib"}`: the peak resident set of this process alone
//! (`VmHWM` of `/proc/self/status` read at the end; the servers are children and are not in
//! it).

use std::error::Error;
use std::io;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use mcp_bench_peers::server_child::ServerChild;
use mcp_transport::{ClientOptions, McpClient, ProtocolVersion, StdioServerParams};
use rmcp::ServiceExt as _;
use rmcp::transport::TokioChildProcess;

type BoxError = Box<dyn Error + Send + Sync>;

/// Every shape, as `--shape` names it.
const SHAPES: [&str; 13] = [
    "oneshot-raw",
    "oneshot-ours-current-thread",
    "oneshot-ours-multi-thread",
    "oneshot-ours-pinned-current-thread",
    "oneshot-ours-2026-current-thread",
    "oneshot-rmcp-current-thread",
    "fanout-raw",
    "fanout-raw-threads",
    "fanout-ours-multi-thread",
    "fanout-ours-current-thread",
    "fanout-ours-pinned-multi-thread",
    "fanout-ours-2026-multi-thread",
    "fanout-rmcp-multi-thread",
];

const INITIALIZE: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"floor\",\"version\":\"0\"}}}\n";
const INITIALIZED_AND_LIST: &[u8] = b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\n";

struct Args {
    shape: String,
    server: PathBuf,
    servers: usize,
}

fn parse_args() -> Result<Args, String> {
    let mut shape = None;
    let mut server = None;
    let mut servers = 50;
    let mut argv = std::env::args().skip(1);
    while let Some(flag) = argv.next() {
        let mut value = || argv.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--shape" => shape = Some(value()?),
            "--server" => server = Some(PathBuf::from(value()?)),
            "--servers" => {
                let text = value()?;
                servers = text
                    .parse()
                    .ok()
                    .filter(|&count| count > 0)
                    .ok_or_else(|| format!("--servers wants a positive number, got `{text}`"))?;
            }
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    let shape = shape.ok_or("--shape is required")?;
    if !SHAPES.contains(&shape.as_str()) {
        return Err(format!(
            "--shape wants one of {}, got `{shape}`",
            SHAPES.join(", ")
        ));
    }
    let server = server.ok_or("--server is required")?;
    let servers = if shape.starts_with("oneshot") {
        1
    } else {
        servers
    };
    Ok(Args {
        shape,
        server,
        servers,
    })
}

/// The floor for `count` servers: spawn all, write every `initialize`, read every answer and
/// write `initialized` + `tools/list`, read every list, close every stdin, reap every server.
fn raw(program: &Path, count: usize) -> io::Result<()> {
    let mut servers = (0..count)
        .map(|_| ServerChild::spawn(program, &[], 8 * 1024))
        .collect::<io::Result<Vec<_>>>()?;
    for server in &mut servers {
        server.write(INITIALIZE)?;
    }
    for server in &mut servers {
        server.read_line()?;
        server.expect(b"\"result\"", "initialize")?;
        server.write(INITIALIZED_AND_LIST)?;
    }
    for server in &mut servers {
        server.read_line()?;
        server.expect(b"\"name\":\"echo\"", "tools/list")?;
        server.close_stdin();
    }
    for server in servers {
        server.finish()?;
    }
    Ok(())
}

/// [`raw`] over one thread per CPU, the servers split evenly between them.
fn raw_threads(program: &Path, count: usize) -> io::Result<()> {
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(count);
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|thread| {
                let share = count / threads + usize::from(thread < count % threads);
                scope.spawn(move || raw(program, share))
            })
            .collect();
        workers.into_iter().try_for_each(|worker| {
            worker
                .join()
                .unwrap_or_else(|_| Err(io::Error::other("a spawning thread panicked")))
        })
    })
}

/// How a shape of ours connects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Connect {
    /// Default options against the default server: the probe is refused, then `initialize`.
    Default,
    /// Pinned to 2025-11-25: `initialize` at once.
    Pinned,
    /// Default options against the dual-era server (`--stateless`): `server/discover` only.
    Stateless,
}

impl Connect {
    fn options(self) -> ClientOptions {
        match self {
            Self::Default | Self::Stateless => ClientOptions::default(),
            Self::Pinned => ClientOptions::default().protocol_version(ProtocolVersion::V2025_11_25),
        }
    }

    fn server_args(self) -> &'static [&'static str] {
        match self {
            Self::Default | Self::Pinned => &[],
            Self::Stateless => &["--stateless"],
        }
    }

    /// The version the client must end up speaking.
    fn version(self) -> ProtocolVersion {
        match self {
            Self::Default | Self::Pinned => ProtocolVersion::V2025_11_25,
            Self::Stateless => ProtocolVersion::V2026_07_28,
        }
    }
}

async fn ours_one(program: String, connect: Connect) -> Result<McpClient, BoxError> {
    let params = StdioServerParams::new(program, connect.server_args().iter().copied());
    let client = McpClient::connect_stdio("reference", params, connect.options()).await?;
    if client.protocol_version() != connect.version() {
        return Err(format!(
            "the client speaks {}, not {}",
            client.protocol_version(),
            connect.version()
        )
        .into());
    }
    let tools = client.list_tools().await?;
    if !tools.iter().any(|tool| tool.name == "echo") {
        return Err("the reference server lists no echo tool".into());
    }
    Ok(client)
}

/// `count` of our clients connected and listed concurrently, one task each, then closed
/// concurrently (each close stops its server).
async fn ours(program: &Path, count: usize, connect: Connect) -> Result<(), BoxError> {
    let program = program.to_string_lossy().into_owned();
    if count == 1 {
        let client = ours_one(program, connect).await?;
        client.close().await?;
        return Ok(());
    }
    let mut connecting = tokio::task::JoinSet::new();
    for _ in 0..count {
        connecting.spawn(ours_one(program.clone(), connect));
    }
    let mut clients = Vec::with_capacity(count);
    while let Some(client) = connecting.join_next().await {
        clients.push(client??);
    }
    let mut closing = tokio::task::JoinSet::new();
    for client in clients {
        closing.spawn(async move { client.close().await });
    }
    while let Some(closed) = closing.join_next().await {
        closed??;
    }
    Ok(())
}

type RmcpService = rmcp::service::RunningService<rmcp::service::RoleClient, ()>;

async fn rmcp_one(program: PathBuf) -> Result<RmcpService, BoxError> {
    let transport = TokioChildProcess::new(tokio::process::Command::new(&program))?;
    let service = ().serve(transport).await?;
    let tools = service.peer().list_tools(None).await?;
    if !tools.tools.iter().any(|tool| tool.name == "echo") {
        return Err("the reference server lists no echo tool".into());
    }
    Ok(service)
}

/// rmcp, `count` services concurrently, then cancelled concurrently.
async fn rmcp(program: &Path, count: usize) -> Result<(), BoxError> {
    let mut connecting = tokio::task::JoinSet::new();
    for _ in 0..count {
        connecting.spawn(rmcp_one(program.to_owned()));
    }
    let mut services = Vec::with_capacity(count);
    while let Some(service) = connecting.join_next().await {
        services.push(service??);
    }
    let mut closing = tokio::task::JoinSet::new();
    for service in services {
        closing.spawn(service.cancel());
    }
    while let Some(closed) = closing.join_next().await {
        closed??;
    }
    Ok(())
}

fn runtime(multi_thread: bool) -> io::Result<tokio::runtime::Runtime> {
    let mut builder = if multi_thread {
        tokio::runtime::Builder::new_multi_thread()
    } else {
        tokio::runtime::Builder::new_current_thread()
    };
    builder.enable_all().build()
}

fn run(args: &Args) -> Result<(), BoxError> {
    let (program, count) = (args.server.as_path(), args.servers);
    let unknown = || format!("unknown shape `{}`", args.shape);
    // SHAPE is `oneshot-LIBRARY-RUNTIME` or `fanout-LIBRARY-RUNTIME`.
    let rest = args.shape.split_once('-').ok_or_else(unknown)?.1;
    match rest {
        "raw" => return Ok(raw(program, count)?),
        "raw-threads" => return Ok(raw_threads(program, count)?),
        _ => {}
    }
    let (library, multi_thread) = rest
        .strip_suffix("-multi-thread")
        .map(|library| (library, true))
        .or_else(|| {
            rest.strip_suffix("-current-thread")
                .map(|library| (library, false))
        })
        .ok_or_else(unknown)?;
    let runtime = runtime(multi_thread)?;
    match library {
        "ours" => runtime.block_on(ours(program, count, Connect::Default)),
        "ours-pinned" => runtime.block_on(ours(program, count, Connect::Pinned)),
        "ours-2026" => runtime.block_on(ours(program, count, Connect::Stateless)),
        "rmcp" => runtime.block_on(rmcp(program, count)),
        _ => Err(unknown().into()),
    }
}

/// `VmHWM` of `/proc/self/status`: this process's peak resident set, KiB.
fn peak_rss_kib() -> io::Result<u64> {
    let status = std::fs::read_to_string("/proc/self/status")?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .ok_or_else(|| io::Error::other("no VmHWM line in /proc/self/status"))
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(args) => args,
        Err(message) => {
            eprintln!("startup: {message}");
            return ExitCode::from(2);
        }
    };
    let outcome = run(&args).and_then(|()| Ok(peak_rss_kib()?));
    match outcome {
        Ok(peak) => {
            println!(
                "{}",
                serde_json::json!({
                    "shape": args.shape,
                    "servers": args.servers,
                    "peak_rss_kib": peak,
                })
            );
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("startup {}: error: {error}", args.shape);
            ExitCode::FAILURE
        }
    }
}
