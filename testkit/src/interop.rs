//! Real remote peers for the interop tests (`#[ignore = "needs the pinned interop peers …"]`):
//! the pinned `server-everything`, the Python SDK echo server, the stateless (2026-07-28,
//! dual-era) servers on the TypeScript SDK v2 and the Python SDK v2, and the TypeScript server of
//! the Tasks extension (`interop/`, installed by `cargo xtask interop`), started over HTTP on
//! 127.0.0.1 at a port the system picks.
//!
//! Each peer reports the port it got on stderr as `interop-listening <port>` (server-everything
//! through the `interop/node/loopback.cjs` preload, which also keeps it off every interface but
//! loopback); [`RemotePeer::start`] waits for that line and kills the peer when the returned
//! [`RunningPeer`] is dropped. A missing peer is a panic that says to run `cargo xtask interop`.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// How long a peer may take to start listening (Python imports are slow on a loaded machine).
const START_TIMEOUT: Duration = Duration::from_secs(60);

/// The workspace root (the folder holding `interop/`).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| panic!("testkit sits in the workspace root"))
}

/// A path under the workspace root that `cargo xtask interop` installs.
///
/// # Panics
///
/// If it is missing, with a message that says to run `cargo xtask interop`.
pub fn interop_path(relative: &str) -> PathBuf {
    let path = workspace_root().join(relative);
    assert!(
        path.exists(),
        "{} is missing: run `cargo xtask interop` to install the interop peers",
        path.display()
    );
    path
}

/// A real server that speaks MCP over HTTP.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum RemotePeer {
    /// `server-everything streamableHttp`, endpoint `/mcp`.
    EverythingStreamableHttp,
    /// `server-everything sse` (legacy HTTP+SSE only), stream `/sse`.
    EverythingSse,
    /// `echo_server.py streamable-http` on the Python SDK of this major: answers as SSE streams.
    PythonStreamableHttp(u8),
    /// `echo_server.py streamable-http PATH`: answers as SSE streams, its endpoint at `PATH`
    /// (`/admin/mcp`, say) instead of `/mcp`.
    PythonStreamableHttpAt(u8, &'static str),
    /// `echo_server.py streamable-http-json`: answers as JSON bodies.
    PythonStreamableHttpJson(u8),
    /// `echo_server.py sse` (legacy HTTP+SSE only), stream `/sse`.
    PythonSse(u8),
    /// `interop/node/stateless_server.mjs http`: the TypeScript SDK v2's `createMcpHandler`,
    /// 2026-07-28 with the stateless 2025 fallback, endpoint `/mcp` (and `GET /count`).
    TypeScriptStateless,
    /// `interop/python/stateless_server.py http` on the Python SDK v2: 2026-07-28 and stateless
    /// 2025 serving, endpoint `/mcp` (and `GET /count`).
    PythonStateless,
    /// `interop/node/tasks_server.mjs http`: the TypeScript SDK v2 with `ext-tasks`, whose tools
    /// (`slow_sum`, `confirm`, `endless`, `fail`) answer with tasks of the Tasks extension
    /// (2026-07-28), and `quick` at once; endpoint `/mcp`. Its tasks outlive the requests and
    /// clients that made them, for as long as the process runs. [`RemotePeer::start_with_log`]
    /// has it log each `tasks/get`, `tasks/update` and `tasks/cancel` it receives.
    TypeScriptTasks,
}

impl RemotePeer {
    /// A short name for messages, e.g. `python-v2 streamable-http-json`.
    pub fn name(self) -> String {
        match self {
            Self::EverythingStreamableHttp => "everything streamableHttp".to_owned(),
            Self::EverythingSse => "everything sse".to_owned(),
            Self::PythonStreamableHttp(major) => format!("python-v{major} streamable-http"),
            Self::PythonStreamableHttpAt(major, path) => {
                format!("python-v{major} streamable-http at {path}")
            }
            Self::PythonStreamableHttpJson(major) => {
                format!("python-v{major} streamable-http-json")
            }
            Self::PythonSse(major) => format!("python-v{major} sse"),
            Self::TypeScriptStateless => "typescript-v2 stateless".to_owned(),
            Self::PythonStateless => "python-v2 stateless".to_owned(),
            Self::TypeScriptTasks => "typescript-v2 tasks".to_owned(),
        }
    }

    /// What its `echo` tool answers to `hi`.
    pub fn echo_of_hi(self) -> &'static str {
        match self {
            Self::EverythingStreamableHttp | Self::EverythingSse => "Echo: hi",
            _ => "hi",
        }
    }

    /// True for servers that only speak the legacy HTTP+SSE transport.
    pub fn is_legacy_sse(self) -> bool {
        matches!(self, Self::EverythingSse | Self::PythonSse(_))
    }

    fn path(self) -> &'static str {
        match self {
            Self::PythonStreamableHttpAt(_, path) => path,
            _ if self.is_legacy_sse() => "/sse",
            _ => "/mcp",
        }
    }

    fn command(self, log: Option<&Path>) -> Command {
        match self {
            Self::EverythingStreamableHttp | Self::EverythingSse => {
                let script = interop_path(
                    "interop/node/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
                );
                let mut command = Command::new("node");
                command
                    .arg("--require")
                    .arg(interop_path("interop/node/loopback.cjs"))
                    .arg(script)
                    .arg(if self == Self::EverythingSse {
                        "sse"
                    } else {
                        "streamableHttp"
                    })
                    .env("PORT", "0");
                command
            }
            Self::PythonStreamableHttpAt(major, path) => {
                let mut command = Command::new(interop_path(&format!(
                    "interop/.venv-mcp-v{major}/bin/python"
                )));
                command
                    .arg(interop_path("interop/python/echo_server.py"))
                    .args(["streamable-http", path]);
                command
            }
            Self::PythonStreamableHttp(major)
            | Self::PythonStreamableHttpJson(major)
            | Self::PythonSse(major) => {
                let mut command = Command::new(interop_path(&format!(
                    "interop/.venv-mcp-v{major}/bin/python"
                )));
                command
                    .arg(interop_path("interop/python/echo_server.py"))
                    .arg(match self {
                        Self::PythonStreamableHttp(_) => "streamable-http",
                        Self::PythonStreamableHttpJson(_) => "streamable-http-json",
                        _ => "sse",
                    });
                command
            }
            Self::TypeScriptStateless => {
                // The script is in the repository; the SDK it imports is what gets installed.
                interop_path("interop/node/node_modules/@modelcontextprotocol/server/package.json");
                let mut command = Command::new("node");
                command
                    .arg(interop_path("interop/node/stateless_server.mjs"))
                    .args(["http", "0"]);
                command
            }
            Self::PythonStateless => {
                let mut command = Command::new(interop_path("interop/.venv-mcp-v2/bin/python"));
                command
                    .arg(interop_path("interop/python/stateless_server.py"))
                    .args(["http", "0"]);
                command
            }
            Self::TypeScriptTasks => {
                interop_path(
                    "interop/node/node_modules/@modelcontextprotocol/ext-tasks/package.json",
                );
                let mut command = Command::new("node");
                command
                    .arg(interop_path("interop/node/tasks_server.mjs"))
                    .args(["http", "0"]);
                if let Some(log) = log {
                    command.arg("--log").arg(log);
                }
                command
            }
        }
    }

    /// Starts the peer and waits until it listens.
    ///
    /// # Panics
    ///
    /// If the peer is not installed, cannot start, or does not listen within a minute.
    pub fn start(self) -> RunningPeer {
        self.spawn(None)
    }

    /// Starts [`RemotePeer::TypeScriptTasks`], which appends a line `<method> <taskId>` to `log`
    /// for each `tasks/get`, `tasks/update` and `tasks/cancel` that reaches its handlers (one the
    /// SDK refuses first, for a missing or wrong `Mcp-Name` header, is not logged), and waits
    /// until it listens.
    ///
    /// # Panics
    ///
    /// For any other peer (none of them logs), and as [`RemotePeer::start`] does.
    pub fn start_with_log(self, log: &Path) -> RunningPeer {
        assert!(
            self == Self::TypeScriptTasks,
            "{} takes no log file: only the tasks server does",
            self.name()
        );
        self.spawn(Some(log))
    }

    fn spawn(self, log: Option<&Path>) -> RunningPeer {
        let mut child = self
            .command(log)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|error| panic!("cannot start {}: {error}", self.name()));
        let stderr = child.stderr.take();
        let (port_sender, port_receiver) = mpsc::channel();
        // Reads stderr to its end (a full pipe would block the peer), reporting the port.
        std::thread::spawn(move || {
            let Some(stderr) = stderr else { return };
            let mut earlier = Vec::new();
            let mut port_sender = Some(port_sender);
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(port) = line.strip_prefix("interop-listening ") {
                    if let Some(sender) = port_sender.take() {
                        let _ = sender.send(port.trim().parse::<u16>().map_err(|_| line.clone()));
                    }
                } else if port_sender.is_some() {
                    earlier.push(line);
                }
            }
            if let Some(sender) = port_sender {
                let _ = sender.send(Err(earlier.join("\n")));
            }
        });
        let port = match port_receiver.recv_timeout(START_TIMEOUT) {
            Ok(Ok(port)) => port,
            Ok(Err(output)) => {
                let _ = child.kill();
                let _ = child.wait();
                panic!(
                    "{} did not start listening; its stderr:\n{output}",
                    self.name()
                );
            }
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("{} did not listen within {START_TIMEOUT:?}", self.name());
            }
        };
        RunningPeer {
            peer: self,
            child,
            url: format!("http://127.0.0.1:{port}{}", self.path()),
        }
    }
}

/// The `<method> <taskId>` lines [`RemotePeer::TypeScriptTasks`] logged to `log` so far (none
/// before its first), in the order its handlers saw them.
pub fn task_log(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// A started peer; dropping it kills the process.
#[derive(Debug)]
pub struct RunningPeer {
    peer: RemotePeer,
    child: Child,
    url: String,
}

impl RunningPeer {
    /// The MCP endpoint (`/mcp`) or the SSE stream (`/sse`).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Which peer it is.
    pub fn peer(&self) -> RemotePeer {
        self.peer
    }
}

impl Drop for RunningPeer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
