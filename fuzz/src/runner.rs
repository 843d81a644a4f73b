//! The fuzz loop: generate an input, run the target's property on it, until the time budget is
//! spent; on the first failure, shrink the input to a minimal one and report it.
//!
//! Generation and shrinking are proptest's ([`TestRunner::run_one`]); what this module adds is
//! what a fuzzer needs and a property test does not: a budget in time rather than in cases, a
//! seed that differs from run to run (printed, so that a failure can be replayed with
//! `--seed`), panics caught wherever they happen — in the property or in a task it spawned on
//! its current-thread runtime, which tokio would otherwise swallow — and no regression files
//! written into the source tree.

use std::cell::{Cell, RefCell};
use std::fmt;
use std::panic::{AssertUnwindSafe, PanicHookInfo};
use std::sync::Once;
use std::time::{Duration, Instant};

use proptest::strategy::Strategy;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestError, TestRng, TestRunner};

/// How long and from which seed a target runs.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The run's seed; each target derives its own stream from it and its name.
    pub seed: u64,
    /// How long to generate new inputs (shrinking a failure may take longer).
    pub time: Duration,
    /// Stop after this many cases even if time is left (tests use it to be deterministic).
    pub max_cases: Option<u64>,
}

/// What one target's run found.
#[derive(Debug)]
pub struct Report {
    /// Inputs that were run and passed.
    pub cases: u64,
    /// The first failure, shrunk, if there was one.
    pub failure: Option<Failure>,
}

/// A failing input, shrunk to a minimal one.
#[derive(Debug)]
pub struct Failure {
    /// What went wrong with the minimal input.
    pub reason: String,
    /// The minimal input (its `Debug` form: bytes escaped, structure shown).
    pub input: String,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}\nminimal failing input:\n{}", self.reason, self.input)
    }
}

/// How long shrinking a failure may take: long enough to get a small input, short enough that
/// a CI run with a failure still ends soon.
const MAX_SHRINK_TIME: Duration = Duration::from_secs(60);

/// Runs `property` on inputs from `strategy` within `settings`.
///
/// The property returns `Err(why)` for a broken property; a panic anywhere on this thread
/// (including in a task of a current-thread runtime the property drives) is a failure too.
pub fn fuzz<S: Strategy>(
    target: &str,
    settings: &Settings,
    strategy: S,
    property: impl Fn(&S::Value) -> Result<(), String>,
) -> Report {
    install_panic_hook();
    if !crate::alloc_meter::is_counting() {
        return Report {
            cases: 0,
            failure: Some(Failure {
                reason: "the counting allocator is not installed, so allocation bounds would \
                         check nothing"
                    .to_owned(),
                input: String::new(),
            }),
        };
    }
    let config = Config {
        failure_persistence: None,
        max_shrink_time: u32::try_from(MAX_SHRINK_TIME.as_millis()).unwrap_or(u32::MAX),
        max_shrink_iters: 1_000_000,
        ..Config::default()
    };
    // XorShift rather than proptest's default ChaCha: this crate runs unoptimized (overflow
    // checks and debug assertions find bugs), where ChaCha's SIMD rounds took most of the time.
    let rng = TestRng::from_seed(RngAlgorithm::XorShift, &seed_bytes(settings.seed, target));
    let mut runner = TestRunner::new_with_rng(config, rng);
    let started = Instant::now();
    let mut cases = 0u64;
    while started.elapsed() < settings.time && settings.max_cases.is_none_or(|max| cases < max) {
        let tree = match strategy.new_tree(&mut runner) {
            Ok(tree) => tree,
            Err(why) => {
                return Report {
                    cases,
                    failure: Some(Failure {
                        reason: format!("the generator gave up: {why}"),
                        input: String::new(),
                    }),
                };
            }
        };
        let outcome = runner.run_one(tree, |value| {
            guarded(|| property(&value)).map_err(TestCaseError::fail)
        });
        match outcome {
            Ok(_) => cases += 1,
            Err(TestError::Fail(why, minimal)) => {
                return Report {
                    cases,
                    failure: Some(Failure {
                        reason: why.to_string(),
                        input: format!("{minimal:#?}"),
                    }),
                };
            }
            Err(TestError::Abort(why)) => {
                return Report {
                    cases,
                    failure: Some(Failure {
                        reason: format!("aborted: {why}"),
                        input: String::new(),
                    }),
                };
            }
        }
    }
    Report {
        cases,
        failure: None,
    }
}

/// 16 seed bytes for XorShift from the run's seed and the target's name (splitmix64 steps), so
/// that targets draw different streams from one `--seed`.
fn seed_bytes(seed: u64, target: &str) -> [u8; 16] {
    let mut state = target
        .bytes()
        .fold(seed ^ 0xcbf2_9ce4_8422_2325, |hash, byte| {
            (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
        });
    let mut bytes = [0u8; 16];
    for chunk in bytes.chunks_mut(8) {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        chunk.copy_from_slice(&z.to_le_bytes());
    }
    bytes
}

thread_local! {
    /// Whether a panic on this thread belongs to a case being run (and is recorded, silently).
    static CAPTURING: Cell<bool> = const { Cell::new(false) };
    /// The first panic of the case being run: message and location.
    static PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Runs one case: its result, or the panic it caused (its own, or one of a task it ran).
fn guarded(case: impl FnOnce() -> Result<(), String>) -> Result<(), String> {
    PANIC.with(|panic| panic.borrow_mut().take());
    CAPTURING.with(|capturing| capturing.set(true));
    let outcome = std::panic::catch_unwind(AssertUnwindSafe(case));
    CAPTURING.with(|capturing| capturing.set(false));
    let panicked = PANIC.with(|panic| panic.borrow_mut().take());
    match (outcome, panicked) {
        (Ok(Ok(())), None) => Ok(()),
        (Ok(Ok(())), Some(panic)) => Err(format!("a task panicked: {panic}")),
        (Ok(Err(why)), None) => Err(why),
        (Ok(Err(why)), Some(panic)) => Err(format!("{why} (and a task panicked: {panic})")),
        (Err(_), panic) => Err(format!(
            "panicked: {}",
            panic.unwrap_or_else(|| "<no message>".to_owned())
        )),
    }
}

/// A panic hook that records panics of cases being run (without printing them: shrinking may
/// panic thousands of times) and leaves every other panic to the hook that was there before.
fn install_panic_hook() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if CAPTURING.with(Cell::get) {
                PANIC.with(|panic| {
                    panic
                        .borrow_mut()
                        .get_or_insert_with(|| describe_panic(info));
                });
            } else {
                previous(info);
            }
        }));
    });
}

fn describe_panic(info: &PanicHookInfo<'_>) -> String {
    let payload = info.payload();
    let message = payload
        .downcast_ref::<&str>()
        .map(|text| (*text).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "<a non-string payload>".to_owned());
    match info.location() {
        Some(location) => format!("{message} at {location}"),
        None => message,
    }
}
