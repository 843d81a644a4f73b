//! # mcp-fuzz
//!
//! Fuzzing on the stable toolchain for every parser of the runtime that reads outside input:
//! time-budgeted runs of properties over generated inputs, with proptest doing the generating
//! and the shrinking. `cargo xtask fuzz [--time S]` runs it (and `cargo xtask ci` briefly).
//!
//! | target | what it reads | from where |
//! |---|---|---|
//! | `line_reader` | newline-delimited JSON-RPC framing with its size limit | a stdio server's output |
//! | `jsonrpc` | JSON-RPC messages through the client: handshake, `tools/list`, `tools/call` | any server |
//! | `content` | tool results and content blocks, tools, `initialize` results; their conversion for the model | any server |
//! | `sse` | `text/event-stream` bodies | remote servers |
//! | `config` | every provider's files: JSON, JSON with comments, TOML | config files anyone can write |
//! | `expansion` | `${VAR}` and `${VAR:-default}` in config values | config files |
//! | `naming` | server and tool names → the names the model sees | config files and servers |
//! | `cache_entry` | tool cache entries | the on-disk cache |
//! | `terminal_text` | text escaped for a terminal, tables, `--json` | servers and config files, through the CLI |
//!
//! Each target's property is the same in spirit: any bytes (and near-valid inputs from a
//! grammar of the format, mutated, so that the fuzzer gets past the first byte) give a value or
//! an error that names what was read, never a panic, and never more memory than a bound derived
//! from the input's size and the configured limit — counted by [`alloc_meter`], the global
//! allocator of every binary linking this crate. Each target's module says exactly what it
//! checks. A failure is shrunk to a minimal input and printed with the seed that replays it.
//!
//! ```no_run
//! use std::time::Duration;
//!
//! let settings = mcp_fuzz::Settings { seed: 7, time: Duration::from_secs(5), max_cases: None };
//! for target in mcp_fuzz::TARGETS {
//!     let report = (target.run)(&settings);
//!     println!("{}: {} cases", target.name, report.cases);
//! }
//! ```

#![allow(
    clippy::exhaustive_structs,
    clippy::exhaustive_enums,
    reason = "a dev-only harness, never published: only its own binary and tests use its types"
)]

pub mod alloc_meter;
pub mod grammar;
pub mod json_eq;
pub mod runner;
pub mod targets;

pub use runner::{Failure, Report, Settings, fuzz};

/// A fuzz target: a name for the command line and its run.
#[derive(Debug, Clone, Copy)]
pub struct Target {
    /// The name `--target` takes.
    pub name: &'static str,
    /// Runs the target within the settings.
    pub run: fn(&Settings) -> Report,
}

/// Every target, in the order a run goes through them.
pub const TARGETS: &[Target] = &[
    Target {
        name: "line_reader",
        run: targets::line_reader::run,
    },
    Target {
        name: "jsonrpc",
        run: targets::jsonrpc::run,
    },
    Target {
        name: "content",
        run: targets::content::run,
    },
    Target {
        name: "sse",
        run: targets::sse::run,
    },
    Target {
        name: "config",
        run: targets::config::run,
    },
    Target {
        name: "expansion",
        run: targets::expansion::run,
    },
    Target {
        name: "naming",
        run: targets::naming::run,
    },
    Target {
        name: "cache_entry",
        run: targets::cache_entry::run,
    },
    Target {
        name: "terminal_text",
        run: targets::terminal_text::run,
    },
];
