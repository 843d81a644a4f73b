//! `cargo xtask ci`: every check, in order, stopping at the first failure.
//!
//! 1. `cargo fmt --all --check`
//! 2. `cargo clippy --workspace --all-targets -- -D warnings`
//! 3. `mcp-transport` without its default features (`stdio`, `http`, `oauth`), clippy-clean:
//!    the protocol, the peer, the client, the framing and the `unix_socket` example build alone;
//!    and with `http` but not `oauth`, clippy-clean too
//! 4. `mcp-cache` without its default feature `sled`, clippy-clean: the memory and no-op stores
//!    alone; `mcp-manager` and `agent-session` without their default features, clippy-clean;
//!    then feature boundaries: `cargo tree` of `mcp-transport` without default features,
//!    of `mcp-cache` (with and without `sled`) and of `mcp-bridge` shows no process spawning
//!    (`process-wrap`, tokio's `process`), no HTTP client (`reqwest`) and no crypto (`aws-lc-rs`,
//!    which OAuth brings); `mcp-cache` and `mcp-manager` without `sled` show no sled, and
//!    `agent-session` without its default features none of the CLI's crates (clap, rustyline,
//!    tracing-subscriber) or system calls (nix's `resource` and `term`), no HTTP client or TLS,
//!    and no sled
//! 5. the interop install (`cargo xtask interop`), so the real-peer tests have their peers
//! 6. `cargo build -p testkit --bins`: tests start the fixture server from `debug/` of cargo's
//!    target directory;
//!    then the README's first commands, run exactly as written in a fresh home (see `readme`)
//! 7. every test, the real-peer ones (`#[ignore = "needs …"]`) included: with cargo-nextest when
//!    it is installed (`--run-ignored all`), then the doctests, which nextest does not run; otherwise
//!    `cargo test -- --include-ignored`
//! 8. a short fuzz run (`cargo xtask fuzz --time 20`: every target for a few seconds, from a
//!    new seed each time)
//! 9. the benchmarks' smoke runs (`cargo test --bench '*'`: each bench checks that every client
//!    and store works, on a small scale; nextest does not run them)
//! 10. the side-by-side harness under `bench/` (a workspace of its own): format check, clippy
//!     with `-D warnings` and its tests, so it keeps building against the library crates
//! 11. the official conformance suite's client scenarios (`cargo xtask conformance`)
//! 12. `cargo doc --workspace --no-deps` with `RUSTDOCFLAGS="-D warnings"`
//!
//! Each step prints a banner with its duration; a failure names the step and exits non-zero.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::command::{self, human};
use crate::error::Error;
use crate::{fuzz, interop, readme};

/// What a step does: run cargo with these arguments (and environment), check the feature
/// boundaries, install the peers, run the conformance suite, or fuzz for a few seconds.
enum Action {
    Cargo {
        args: &'static [&'static str],
        env: &'static [(&'static str, &'static str)],
    },
    FeatureBoundaries,
    Interop,
    Conformance,
    Fuzz,
    Readme,
}

/// What a crate that compiles no process or HTTP code must not show: process spawning, an HTTP
/// client, the crypto OAuth brings.
const NO_PROCESS_NO_HTTP: &[&str] = &[
    "process-wrap",
    "reqwest",
    "aws-lc-rs",
    "tokio feature \"process\"",
];

/// What only remote servers need: an HTTP client, TLS, the crypto OAuth brings.
const HTTP_ONLY: &[&str] = &["reqwest", "hyper v", "rustls", "aws-lc-rs"];

/// The tokio runtime features `!command` resolution does not need (it spawns and reads a
/// process, with a timeout): the caller brings its own runtime.
const RUNTIME_EXTRAS: &[&str] = &[
    "tokio feature \"rt-multi-thread\"",
    "tokio feature \"net\"",
    "tokio feature \"fs\"",
    "tokio feature \"signal\"",
];

/// What only the `agent-session` binaries need.
const CLI_ONLY: &[&str] = &[
    "clap v",
    "clap_complete v",
    "rustyline v",
    "tracing-subscriber v",
];

/// The system calls only the `agent-session` binaries make through nix (setrlimit, termios).
/// nix itself stays in every tree that resolves `!command` values: mcp-config runs them in a
/// process group of their own through process-wrap, which uses nix's `fs`, `poll`, `process`
/// and `signal`.
const CLI_SYSCALLS: &[&str] = &["nix feature \"resource\"", "nix feature \"term\""];

/// The on-disk tool cache.
const SLED: &[&str] = &["sled v"];

/// A feature boundary: a crate, the `cargo tree` arguments that choose its features, and the
/// lists of what its tree (normal edges, with features) must not show.
struct Boundary {
    package: &'static str,
    args: &'static [&'static str],
    absent: &'static [&'static [&'static str]],
}

const BOUNDARIES: &[Boundary] = &[
    Boundary {
        package: "mcp-transport",
        args: &["--no-default-features"],
        absent: &[NO_PROCESS_NO_HTTP],
    },
    Boundary {
        package: "mcp-cache",
        args: &[],
        absent: &[NO_PROCESS_NO_HTTP],
    },
    Boundary {
        package: "mcp-cache",
        args: &["--no-default-features"],
        absent: &[NO_PROCESS_NO_HTTP, SLED],
    },
    Boundary {
        package: "mcp-bridge",
        args: &[],
        absent: &[NO_PROCESS_NO_HTTP],
    },
    Boundary {
        package: "mcp-config",
        args: &[],
        absent: &[HTTP_ONLY, RUNTIME_EXTRAS],
    },
    Boundary {
        package: "mcp-manager",
        args: &["--no-default-features"],
        absent: &[HTTP_ONLY, SLED],
    },
    Boundary {
        package: "mcp-manager",
        args: &["--no-default-features", "--features", "stdio"],
        absent: &[HTTP_ONLY, SLED],
    },
    Boundary {
        package: "agent-session",
        args: &["--no-default-features"],
        absent: &[CLI_ONLY, CLI_SYSCALLS, HTTP_ONLY, SLED],
    },
];

struct Step {
    name: &'static str,
    action: Action,
}

const fn cargo_step(name: &'static str, args: &'static [&'static str]) -> Step {
    Step {
        name,
        action: Action::Cargo { args, env: &[] },
    }
}

/// Runs the CI steps from the workspace root.
pub(crate) fn run(root: &Path) -> Result<(), Error> {
    let started = Instant::now();
    let cargo = crate::cargo();
    println!(
        "xtask ci: workspace {}, cargo {}",
        root.display(),
        cargo.to_string_lossy()
    );
    let steps = plan(root);
    let total = steps.len();
    let mut timings: Vec<(&'static str, Duration)> = Vec::with_capacity(total);
    for (index, step) in steps.iter().enumerate() {
        let number = index + 1;
        println!("\n==> ci [{number}/{total}] {}", step.name);
        let step_started = Instant::now();
        let outcome = match &step.action {
            Action::Cargo { args, env } => command::run(
                Command::new(&cargo)
                    .current_dir(root)
                    .args(*args)
                    .envs(env.iter().copied()),
            ),
            Action::FeatureBoundaries => check_feature_boundaries(root),
            Action::Interop => interop::install(root),
            Action::Conformance => crate::conformance::run(root),
            Action::Fuzz => fuzz::run(root, &["--time".to_owned(), fuzz::CI_SECONDS.to_owned()]),
            Action::Readme => readme::run(root),
        };
        let elapsed = step_started.elapsed();
        if let Err(error) = outcome {
            println!(
                "<== ci [{number}/{total}] {}: FAILED after {}",
                step.name,
                human(elapsed)
            );
            return Err(Error::Step {
                step: step.name,
                source: Box::new(error),
            });
        }
        println!(
            "<== ci [{number}/{total}] {}: ok in {}",
            step.name,
            human(elapsed)
        );
        timings.push((step.name, elapsed));
    }
    println!(
        "\nxtask ci: all {total} steps passed in {}",
        human(started.elapsed())
    );
    for (name, elapsed) in timings {
        println!("  {:>8}  {name}", human(elapsed));
    }
    Ok(())
}

fn plan(root: &Path) -> Vec<Step> {
    let mut steps = vec![
        cargo_step("fmt", &["fmt", "--all", "--check"]),
        cargo_step(
            "clippy",
            &[
                "clippy",
                "--workspace",
                "--all-targets",
                "--",
                "-D",
                "warnings",
            ],
        ),
        cargo_step(
            "mcp-transport without default features",
            &[
                "clippy",
                "-p",
                "mcp-transport",
                "--no-default-features",
                "--lib",
                "--examples",
                "--",
                "-D",
                "warnings",
            ],
        ),
        cargo_step(
            "mcp-transport with http and without oauth",
            &[
                "clippy",
                "-p",
                "mcp-transport",
                "--no-default-features",
                "--features",
                "http",
                "--lib",
                "--",
                "-D",
                "warnings",
            ],
        ),
        cargo_step(
            "mcp-cache without default features (no sled)",
            &[
                "clippy",
                "-p",
                "mcp-cache",
                "--no-default-features",
                "--lib",
                "--",
                "-D",
                "warnings",
            ],
        ),
        cargo_step(
            "mcp-manager with stdio alone (no HTTP, no OAuth)",
            &[
                "clippy",
                "-p",
                "mcp-manager",
                "--no-default-features",
                "--features",
                "stdio",
                "--lib",
                "--",
                "-D",
                "warnings",
            ],
        ),
        cargo_step(
            "mcp-manager without default features (no transport, no sled)",
            &[
                "clippy",
                "-p",
                "mcp-manager",
                "--no-default-features",
                "--lib",
                "--",
                "-D",
                "warnings",
            ],
        ),
        cargo_step(
            "agent-session without default features (the session library alone)",
            &[
                "clippy",
                "-p",
                "agent-session",
                "--no-default-features",
                "--lib",
                "--",
                "-D",
                "warnings",
            ],
        ),
        Step {
            name: "feature boundaries",
            action: Action::FeatureBoundaries,
        },
        // The manifests of the library crates package as published (path dependencies with
        // versions, the README each crate's docs include); the full build of each package is
        // `cargo package --workspace` by hand.
        cargo_step(
            "library crates package",
            &[
                "package",
                "--workspace",
                "--exclude",
                "xtask",
                "--exclude",
                "testkit",
                "--exclude",
                "mcp-fuzz",
                "--no-verify",
                "--allow-dirty",
            ],
        ),
        Step {
            name: "interop install",
            action: Action::Interop,
        },
        cargo_step("fixture build", &["build", "-p", "testkit", "--bins"]),
        Step {
            name: "the README's first commands, as written",
            action: Action::Readme,
        },
    ];
    if nextest_available(root) {
        steps.push(cargo_step(
            "tests (nextest, ignored included)",
            &[
                "nextest",
                "run",
                "--workspace",
                "--all-targets",
                "--run-ignored",
                "all",
                "--no-fail-fast",
            ],
        ));
        steps.push(cargo_step("doctests", &["test", "--workspace", "--doc"]));
    } else {
        println!("xtask ci: cargo-nextest not found, running the tests with `cargo test`");
        steps.push(cargo_step(
            "tests (cargo test, ignored included)",
            &["test", "--workspace", "--", "--include-ignored"],
        ));
    }
    steps.push(Step {
        name: "fuzz, a short run",
        action: Action::Fuzz,
    });
    steps.push(cargo_step(
        "bench smoke runs",
        &["test", "--workspace", "--bench", "*"],
    ));
    steps.push(cargo_step(
        "bench harness format",
        &["fmt", "--manifest-path", "bench/Cargo.toml", "--check"],
    ));
    steps.push(cargo_step(
        "bench harness clippy",
        &[
            "clippy",
            "--manifest-path",
            "bench/Cargo.toml",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ],
    ));
    steps.push(cargo_step(
        "bench harness tests",
        &["test", "--manifest-path", "bench/Cargo.toml"],
    ));
    steps.push(Step {
        name: "conformance suite",
        action: Action::Conformance,
    });
    steps.push(Step {
        name: "rustdoc",
        action: Action::Cargo {
            args: &["doc", "--workspace", "--no-deps"],
            env: &[("RUSTDOCFLAGS", "-D warnings")],
        },
    });
    steps
}

/// Fails when a crate's dependency tree (normal edges, with features) shows anything its
/// [`Boundary`] forbids.
fn check_feature_boundaries(root: &Path) -> Result<(), Error> {
    for boundary in BOUNDARIES {
        let mut tree = Command::new(crate::cargo());
        tree.current_dir(root)
            .args([
                "tree",
                "-p",
                boundary.package,
                "-e",
                "normal,features",
                "--prefix",
                "none",
            ])
            .args(boundary.args);
        let listing = command::output(&mut tree)?;
        let absent: Vec<&str> = boundary.absent.iter().copied().flatten().copied().collect();
        let found: Vec<&str> = absent
            .iter()
            .copied()
            .filter(|forbidden| listing.contains(forbidden))
            .collect();
        let shown = [&[boundary.package][..], boundary.args].concat().join(" ");
        if !found.is_empty() {
            return Err(Error::Check(format!(
                "{shown} pulls in {}: it must compile none of {} (see \
                 `cargo tree -p {shown} -e normal,features -i <crate>`)",
                found.join(", "),
                absent.join(", ")
            )));
        }
        println!("{shown}: none of {}", absent.join(", "));
    }
    Ok(())
}

fn nextest_available(root: &Path) -> bool {
    let mut probe = Command::new(crate::cargo());
    probe.current_dir(root).args(["nextest", "--version"]);
    command::probe(&mut probe).is_some()
}
