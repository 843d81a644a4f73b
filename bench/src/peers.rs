//! The peer SDK drivers that are not Rust: where they live, what runs them and how many calls
//! they make.
//!
//! | row | driver | started as | installed by `cargo xtask bench --peers` into |
//! |---|---|---|---|
//! | `ts-sdk` | `bench/peers/node/client.mjs` | `$BENCH_NODE` (default `node`) `client.mjs` | `bench/peers/node/node_modules` (`npm ci`, pins: `package.json` + `package-lock.json`) |
//! | `python-sdk-v2` | `bench/peers/python/client.py` | `interop/.venv-mcp-v2/bin/python client.py` | the interop virtualenv (`interop/python/requirements-v2.txt`) |
//! | `python-sdk-v1` | `bench/peers/python/client.py` | `interop/.venv-mcp-v1/bin/python client.py` | the interop virtualenv (`interop/python/requirements-v1.txt`) |
//!
//! A peer counts as installed when its marker file exists (paths relative to the repository
//! root, the parent of `bench/`). The drivers take the same `--server`, `--warmup`,
//! `--sequential` and `--pipelined` arguments as the `client` binary; the Python rows make
//! fewer calls ([`Peer::cap`]) because each of their calls costs ~10× a Rust call's.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::Sizes;

/// Overrides the `node` the TypeScript driver runs under.
pub const NODE_ENV: &str = "BENCH_NODE";

/// What starts a peer's driver.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interpreter {
    /// `node`, or the program named by [`NODE_ENV`].
    Node,
    /// A virtualenv's `bin/python`, relative to the repository root.
    Venv(&'static str),
}

/// One peer SDK driver row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Peer {
    /// The row's name in the report (and the `client` field its driver prints).
    pub name: &'static str,
    /// What runs the driver.
    pub interpreter: Interpreter,
    /// The driver script, relative to the repository root.
    pub script: &'static str,
    /// A file that exists once the peer is installed, relative to the repository root.
    pub marker: &'static str,
    /// The most calls of each phase this peer makes (the run's counts are cut down to these).
    pub cap: Option<Sizes>,
}

/// The caps of the Python rows: ~200 µs a sequential call and ~6,000 calls/s pipelined.
const PYTHON_CAP: Sizes = Sizes {
    warmup: 1_000,
    sequential: 5_000,
    pipelined: 20_000,
};

/// Every peer row, in the order the runner runs them after the `client` binary's.
pub const PEERS: [Peer; 3] = [
    Peer {
        name: "ts-sdk",
        interpreter: Interpreter::Node,
        script: "bench/peers/node/client.mjs",
        marker: "bench/peers/node/node_modules/@modelcontextprotocol/sdk/package.json",
        cap: None,
    },
    Peer {
        name: "python-sdk-v2",
        interpreter: Interpreter::Venv("interop/.venv-mcp-v2"),
        script: "bench/peers/python/client.py",
        marker: "interop/.venv-mcp-v2/bin/python",
        cap: Some(PYTHON_CAP),
    },
    Peer {
        name: "python-sdk-v1",
        interpreter: Interpreter::Venv("interop/.venv-mcp-v1"),
        script: "bench/peers/python/client.py",
        marker: "interop/.venv-mcp-v1/bin/python",
        cap: Some(PYTHON_CAP),
    },
];

/// The repository root: the parent of this crate's directory.
pub fn repo_root() -> PathBuf {
    let bench = Path::new(env!("CARGO_MANIFEST_DIR"));
    bench.parent().unwrap_or(bench).to_owned()
}

impl Peer {
    /// Whether the peer's marker file exists under `root`.
    pub fn installed(&self, root: &Path) -> bool {
        root.join(self.marker).is_file()
    }

    /// The program and the arguments before the driver's own (`--server` …).
    pub fn command(&self, root: &Path) -> (OsString, Vec<OsString>) {
        let program = match self.interpreter {
            Interpreter::Node => std::env::var_os(NODE_ENV).unwrap_or_else(|| "node".into()),
            Interpreter::Venv(venv) => root.join(venv).join("bin").join("python").into(),
        };
        (program, vec![root.join(self.script).into()])
    }

    /// The call counts this peer makes in a run of `sizes`.
    pub fn sizes(&self, sizes: Sizes) -> Sizes {
        match self.cap {
            None => sizes,
            Some(cap) => Sizes {
                warmup: sizes.warmup.min(cap.warmup),
                sequential: sizes.sequential.min(cap.sequential),
                pipelined: sizes.pipelined.min(cap.pipelined),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cap_cuts_each_phase_down_and_never_up() {
        let python = PEERS[1];
        assert_eq!(
            python.sizes(Sizes::FULL),
            Sizes {
                warmup: 1_000,
                sequential: 5_000,
                pipelined: 20_000
            }
        );
        assert_eq!(python.sizes(Sizes::QUICK), Sizes::QUICK);
        assert_eq!(PEERS[0].sizes(Sizes::FULL), Sizes::FULL);
    }
}
