//! The fuzz harness itself: a bug is found, shrunk to its minimal input and reported, whether
//! it is a broken property, a panic or a panic in a task; allocations are counted; and every
//! target holds on a fixed seed (a short run, so that `cargo test` keeps the targets compiling
//! and passing between runs of `cargo xtask fuzz`).

use std::time::Duration;

use mcp_fuzz::grammar::raw_bytes;
use mcp_fuzz::{Settings, TARGETS, alloc_meter, fuzz};

fn settings(max_cases: u64) -> Settings {
    Settings {
        seed: 1,
        time: Duration::from_secs(120),
        max_cases: Some(max_cases),
    }
}

#[test]
fn a_broken_property_is_reported_with_its_minimal_input() {
    let report = fuzz("planted", &settings(100_000), raw_bytes(64), |blob| {
        if blob.0.windows(2).any(|pair| pair == b"\n\n") {
            Err("two newlines in a row".to_owned())
        } else {
            Ok(())
        }
    });
    let failure = report.failure.expect("the planted bug is found");
    assert_eq!(failure.reason, "two newlines in a row");
    assert_eq!(failure.input, r#"b"\n\n" (2 bytes)"#);
}

#[test]
fn a_panic_is_a_failure_with_its_message_and_minimal_input() {
    let report = fuzz("planted", &settings(100_000), raw_bytes(64), |blob| {
        assert!(!blob.0.contains(&0xff), "a byte the parser cannot take");
        Ok(())
    });
    let failure = report.failure.expect("the panic is found");
    assert!(
        failure
            .reason
            .starts_with("panicked: a byte the parser cannot take at fuzz/tests/runner.rs:"),
        "{}",
        failure.reason
    );
    assert_eq!(failure.input, r#"b"\xff" (1 bytes)"#);
}

#[test]
fn a_panic_in_a_task_the_property_runs_is_a_failure() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let report = fuzz("planted", &settings(100_000), raw_bytes(64), |blob| {
        let len = blob.0.len();
        runtime.block_on(async move {
            // tokio catches a task's panic and hands it to whoever awaits the task: here
            // nobody does, as in a peer's reader task.
            drop(tokio::spawn(
                async move { assert!(len < 40, "a task gave up") },
            ));
            tokio::task::yield_now().await;
        });
        Ok(())
    });
    let failure = report.failure.expect("the task's panic is found");
    assert!(
        failure
            .reason
            .starts_with("a task panicked: a task gave up"),
        "{}",
        failure.reason
    );
    assert!(failure.input.ends_with("(40 bytes)"), "{}", failure.input);
}

#[test]
fn the_allocator_counts_what_this_thread_holds_at_its_peak() {
    assert!(alloc_meter::is_counting());
    let ((), peak) = alloc_meter::peak_during(|| {
        let big = vec![1u8; 1 << 20];
        drop(std::hint::black_box(big));
        let small = vec![1u8; 1 << 10];
        drop(std::hint::black_box(small));
    });
    assert!((1 << 20..(1 << 20) + 4096).contains(&peak), "{peak}");
}

#[test]
fn every_target_holds_on_a_fixed_seed() {
    let mut failures = Vec::new();
    for target in TARGETS {
        let report = (target.run)(&settings(60));
        match report.failure {
            Some(failure) => failures.push(format!("{}: {failure}", target.name)),
            None => assert_eq!(report.cases, 60, "{} ran every case", target.name),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
