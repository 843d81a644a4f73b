//! Test support shared by the workspace: a scriptable fixture MCP server and helpers to run it
//! and to check on processes, and the real interop peers started over HTTP ([`RemotePeer`]).
//!
//! The `mcp-fixture-server` binary of this crate speaks MCP over stdio (newline-delimited
//! JSON-RPC 2.0) and misbehaves exactly as told: it crashes, hangs or stalls at a chosen
//! phase, writes garbage or huge lines, floods stderr, paginates badly, changes its tool list,
//! leaves a grandchild process, or sends requests of its own. Tests get its path from
//! [`fixture_server_path`], which builds it when the running tests belong to another package,
//! and compose its flags with [`FixtureServer`]. [`process_is_alive`],
//! [`process_group_members`] and [`wait_until`] let a test check that processes went away.
//!
//! ```no_run
//! use std::process::Stdio;
//! use std::time::Duration;
//!
//! let mut child = testkit::FixtureServer::new()
//!     .crash_at("initialize")
//!     .exit_code(7)
//!     .std_command()
//!     .stdin(Stdio::piped())
//!     .stdout(Stdio::piped())
//!     .stderr(Stdio::piped())
//!     .spawn()?;
//! let pid = i32::try_from(child.id())?;
//! // ... run the client under test against `child`, then:
//! child.kill()?;
//! child.wait()?;
//! assert!(testkit::wait_until(Duration::from_secs(5), || !testkit::process_is_alive(pid)));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # The fixture's flags and tools
//!
//! As printed by `mcp-fixture-server --help`:
//!
#![doc = concat!("```text\n", include_str!("bin/mcp-fixture-server/usage.txt"), "```")]

/// How many tools the fixture lists without `--tools` (echo, add, sleep, progress, crash, huge,
/// flood_stderr, error, all_content, events, pids, change_tools, environment, ask, roots,
/// stderr, log):
/// what a test expects of a plain fixture, known without asking the code under test.
pub const BUILT_IN_TOOLS: usize = 17;

mod binary;
mod fixture;
mod hold;
mod http_fixture;
mod interop;
mod procfs;

pub use binary::{build_fixture_server, fixture_server_path};
pub use fixture::FixtureServer;
pub use hold::Hold;
pub use http_fixture::{HttpFixture, HttpFixtureOptions, LoginFault, RecordedRequest, browser_get};
pub use interop::{RemotePeer, RunningPeer, interop_path, task_log, workspace_root};
pub use procfs::{
    kill_process, process_group_members, process_is_alive, process_is_gone, process_start_time,
    processes_with_arg, processes_with_arg_where, resume_process, signal_process, stop_process,
    wait_until,
};
