//! Shared pieces of the side-by-side client benchmark: call counts, the figures one client
//! driver reports (and the JSON line it prints), and the few system calls the drivers need.
//!
//! What is measured and how: every client driver (`src/bin/client/`) spawns the reference
//! server (`src/bin/reference-server.rs`), initializes, makes warm-up calls that are not
//! measured, then `sequential` echo calls one after the other (each timed; p50 and p99) and
//! `pipelined` echo calls with [`IN_FLIGHT`] outstanding (calls per second). Client CPU per call
//! comes from `getrusage(RUSAGE_SELF)` around the sequential phase: the server is a child
//! process and is not counted. The server's own CPU over the same phase is read separately
//! from `/proc/<server pid>/schedstat` (nanosecond on-CPU time of its single thread).
//!
//! The peer SDKs that are not Rust (TypeScript, Python) have drivers of their own under
//! `bench/peers/` that make the same calls and print the same line; [`peers`] says where they
//! are, how they are started and how many calls they make.

pub mod measure;
pub mod peers;
pub mod sys;

pub use measure::{Figures, IN_FLIGHT, Sizes};

/// Every client driver of the `client` binary, as `client --client NAME` names it; the runner
/// runs them in this order, then the installed [`peers::PEERS`] (rotated each round). `raw` is
/// the floor the report divides by.
pub const CLIENTS: [&str; 7] = [
    "raw",
    "ours-task",
    "ours-block-on",
    "ours-current-thread",
    "rmcp-task",
    "rmcp-block-on",
    "rmcp-current-thread",
];
