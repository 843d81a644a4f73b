//! Shared pieces of the side-by-side client benchmark: call counts, the figures one client
//! driver reports (and the JSON line it prints), and the few system calls the drivers need.
//!
//! What is measured and how: every client driver (`src/bin/client/`) spawns the reference
//! server (`src/bin/reference-server.rs`), initializes, makes warm-up calls that are not
//! measured, then `sequential` echo calls one after the other (each timed; p50 and p99) and
//! `pipelined` echo calls with [`IN_FLIGHT`] outstanding (calls per second). Client CPU per call
//! comes from `getrusage(RUSAGE_SELF)` around the sequential phase: the server is a child
//! process and is not counted. The server's own CPU over the same phase is read separately,
//! in nanoseconds of on-CPU time: from `/proc/<server pid>/schedstat` for the stdio server (one
//! thread), summed over `/proc/<server pid>/task/*/schedstat` for the Streamable HTTP server
//! (a thread per kept-alive connection).
//!
//! The Streamable HTTP drivers ([`HTTP_CLIENTS`]) run the same phases against the same server
//! binary in its HTTP mode, with JSON or SSE answers ([`ANSWERS`], `client --answers KIND`);
//! rmcp's HTTP rows make fewer calls ([`http_sizes`]).
//!
//! The peer SDKs that are not Rust (TypeScript, Python) have drivers of their own under
//! `bench/peers/` that make the same calls and print the same line; [`peers`] says where they
//! are, how they are started and how many calls they make.

pub mod measure;
pub mod peers;
pub mod server_child;
pub mod sys;

pub use measure::{Figures, IN_FLIGHT, Sizes};

/// Every client driver of the `client` binary, as `client --client NAME` names it; the runner
/// runs them in this order, then the installed [`peers::PEERS`] (rotated each round). `raw` is
/// the floor the report divides by. `ours-*` is our client pinned to the handshake era
/// (2025-11-25) against the server's default mode, as every other client meets it;
/// `ours-2026-*` is our client with default options against the server in its dual-era mode
/// (`--stateless`), where it speaks 2026-07-28 (its figures name it `ours-2026`).
pub const CLIENTS: [&str; 10] = [
    "raw",
    "ours-task",
    "ours-block-on",
    "ours-current-thread",
    "ours-2026-task",
    "ours-2026-block-on",
    "ours-2026-current-thread",
    "rmcp-task",
    "rmcp-block-on",
    "rmcp-current-thread",
];

/// Every Streamable HTTP driver of the `client` binary, as `client --client NAME --answers
/// KIND` names it (`client` keeps its own copy to check its arguments against); the runner runs
/// each with every answer kind of [`ANSWERS`], in the same rounds as [`CLIENTS`]. `raw-http` is
/// the floor of the HTTP tables. Each prints its `client` with the answer kind appended:
/// `raw-http-json`, `ours-http-sse`, `rmcp-http-pooled-json`, …. `ours-http-2026-*` speaks
/// 2026-07-28 to the server in its dual-era mode, as `ours-2026-*` does over stdio (figures:
/// `ours-http-2026-json`, `ours-http-2026-sse`).
pub const HTTP_CLIENTS: [&str; 14] = [
    "raw-http",
    "reqwest-http-task",
    "reqwest-http-block-on",
    "reqwest-http-current-thread",
    "ours-http-task",
    "ours-http-block-on",
    "ours-http-current-thread",
    "ours-http-2026-task",
    "ours-http-2026-block-on",
    "ours-http-2026-current-thread",
    "rmcp-http-task",
    "rmcp-http-block-on",
    "rmcp-http-current-thread",
    "rmcp-http-pooled-task",
];

/// The answer kinds of the HTTP server (`reference-server --http [--sse]`): an
/// `application/json` body, or a `text/event-stream` body holding one event.
pub const ANSWERS: [&str; 2] = ["json", "sse"];

/// The most calls of each phase an rmcp HTTP row (`rmcp-http-*`, pooled or not) makes: with a
/// connection per POST it does ~5,000 calls/s pipelined and ~250 µs a sequential call, so a
/// full run's 100,000 pipelined calls would take ~23 s per run.
pub const RMCP_HTTP_CAP: Sizes = Sizes {
    warmup: 1_000,
    sequential: 5_000,
    pipelined: 20_000,
};

/// The call counts HTTP driver `client` makes in a run of `sizes`: [`RMCP_HTTP_CAP`] at most
/// for the rmcp rows, `sizes` for the others.
pub fn http_sizes(client: &str, sizes: Sizes) -> Sizes {
    if client.starts_with("rmcp-http") {
        sizes.capped(RMCP_HTTP_CAP)
    } else {
        sizes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_rmcp_http_rows_are_capped() {
        for client in ["rmcp-http-task", "rmcp-http-pooled-task"] {
            assert_eq!(http_sizes(client, Sizes::FULL), RMCP_HTTP_CAP);
            assert_eq!(http_sizes(client, Sizes::QUICK), Sizes::QUICK);
        }
        for client in ["raw-http", "ours-http-task", "reqwest-http-block-on"] {
            assert_eq!(http_sizes(client, Sizes::FULL), Sizes::FULL);
        }
    }

    #[test]
    fn http_and_stdio_names_are_apart() {
        for client in HTTP_CLIENTS {
            assert!(client.contains("-http"), "{client}");
            assert!(!CLIENTS.contains(&client), "{client}");
        }
    }
}
