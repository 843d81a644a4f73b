//! `cargo xtask ci`: every check, in order, stopping at the first failure.
//!
//! 1. `cargo fmt --all --check`
//! 2. `cargo clippy --workspace --all-targets -- -D warnings`
//! 3. the interop install (`cargo xtask interop`), so the real-peer tests have their peers
//! 4. `cargo build -p testkit --bins`: tests start the fixture server from `target/debug`
//! 5. every test, the `#[ignore]`d real-peer ones included: with cargo-nextest when it is
//!    installed (`--run-ignored all`), then the doctests, which nextest does not run; otherwise
//!    `cargo test -- --include-ignored`
//! 6. `cargo doc --workspace --no-deps` with `RUSTDOCFLAGS="-D warnings"`
//!
//! Each step prints a banner with its duration; a failure names the step and exits non-zero.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::command::{self, human};
use crate::error::Error;
use crate::interop;

/// What a step does: run cargo with these arguments (and environment), or install the peers.
enum Action {
    Cargo {
        args: &'static [&'static str],
        env: &'static [(&'static str, &'static str)],
    },
    Interop,
}

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
            Action::Interop => interop::install(root),
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
        Step {
            name: "interop install",
            action: Action::Interop,
        },
        cargo_step("fixture build", &["build", "-p", "testkit", "--bins"]),
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
        name: "rustdoc",
        action: Action::Cargo {
            args: &["doc", "--workspace", "--no-deps"],
            env: &[("RUSTDOCFLAGS", "-D warnings")],
        },
    });
    steps
}

fn nextest_available(root: &Path) -> bool {
    let mut probe = Command::new(crate::cargo());
    probe.current_dir(root).args(["nextest", "--version"]);
    command::probe(&mut probe).is_some()
}
