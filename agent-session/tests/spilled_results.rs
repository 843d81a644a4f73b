//! A result cut by the output budget, through the real binary: after a one-shot `call` has
//! exited, the file its marker names is still there and holds the whole text; the folder the
//! CLI keeps them in is the user's own (0700, files 0600), and files older than a day are
//! removed when the next command starts.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod cli_support;

use std::os::unix::fs::PermissionsExt as _;
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use cli_support::Sandbox;
use serde_json::json;

impl Sandbox {
    /// A project with one fixture server, `fx`.
    fn new(test: &str) -> Self {
        let sandbox = Self::labelled("spill", test).without_cache();
        sandbox.write_mcp_json(&json!({"fx": sandbox.fixture("fx", |server| server)}));
        sandbox
    }

    /// Where the CLI keeps cut results for this sandbox's user (`~/.cache/agent-session`).
    fn results_dir(&self) -> PathBuf {
        self.home.join(".cache/agent-session/results")
    }
}

/// Every path the cut marker of `stdout` names: the text after "the whole result is in " up to
/// the marker's closing bracket.
fn paths_in_marker(stdout: &str) -> Vec<PathBuf> {
    let marker = stdout
        .lines()
        .rfind(|line| line.starts_with("[output cut:"))
        .unwrap_or_else(|| panic!("no cut marker in {stdout:?}"));
    marker
        .split("the whole result is in ")
        .skip(1)
        .map(|rest| PathBuf::from(rest.trim_end_matches(']')))
        .collect()
}

#[test]
fn the_file_a_one_shot_call_names_in_its_marker_outlives_the_command_and_holds_the_whole_text() {
    let sandbox = Sandbox::new("outlives");
    let call = ["call", "fx/huge", "--arg", "bytes=300000"];
    let cut = sandbox.run(&[&call[..], &["--output-budget", "1KiB"]].concat());
    cut.assert_code(0);
    let full = sandbox.run(&[&call[..], &["--full"]].concat());
    full.assert_code(0);
    let whole = full.stdout.trim_end();
    assert_eq!(whole.len(), 300_000, "--full prints the whole text");

    // The command has exited: what the marker says is where the user looks.
    let paths = paths_in_marker(&cut.stdout);
    assert!(
        !paths.is_empty(),
        "the marker names the file (or says --full): {}",
        cut.stdout
    );
    for path in paths {
        let kept = std::fs::read_to_string(&path)
            .unwrap_or_else(|error| panic!("{} named by the marker: {error}", path.display()));
        assert_eq!(kept, whole, "{} holds the whole result", path.display());
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "{}", path.display());
        let folder = path.parent().unwrap();
        let mode = std::fs::metadata(folder).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700, "{}", folder.display());
    }
}

#[test]
fn two_cut_calls_keep_two_files_each_with_its_own_result() {
    let sandbox = Sandbox::new("two-calls");
    let mut named = Vec::new();
    for bytes in ["bytes=5000", "bytes=7000"] {
        let cut = sandbox.run(&["call", "fx/huge", "--arg", bytes, "--output-budget", "1KiB"]);
        cut.assert_code(0);
        named.extend(paths_in_marker(&cut.stdout));
    }
    assert_eq!(named.len(), 2, "{named:?}");
    assert_ne!(named[0], named[1]);
    assert_eq!(std::fs::read_to_string(&named[0]).unwrap().len(), 5000);
    assert_eq!(std::fs::read_to_string(&named[1]).unwrap().len(), 7000);
}

#[test]
fn results_older_than_a_day_are_removed_when_the_next_command_starts() {
    let sandbox = Sandbox::new("clean-up");
    let dir = sandbox.results_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let day_and_more = SystemTime::now() - Duration::from_secs(25 * 60 * 60);
    let old = dir.join("fx-huge-old.txt");
    std::fs::write(&old, "yesterday's result").unwrap();
    std::fs::File::options()
        .write(true)
        .open(&old)
        .unwrap()
        .set_modified(day_and_more)
        .unwrap();
    let recent = dir.join("fx-huge-recent.txt");
    std::fs::write(&recent, "this morning's result").unwrap();
    std::fs::File::options()
        .write(true)
        .open(&recent)
        .unwrap()
        .set_modified(SystemTime::now() - Duration::from_secs(60 * 60))
        .unwrap();

    let cut = sandbox.run(&[
        "call",
        "fx/huge",
        "--arg",
        "bytes=3000",
        "--output-budget",
        "1KiB",
    ]);
    cut.assert_code(0);

    assert!(!old.exists(), "a result kept over a day is removed");
    assert_eq!(
        std::fs::read_to_string(&recent).unwrap(),
        "this morning's result",
        "a recent result stays"
    );
    for path in paths_in_marker(&cut.stdout) {
        assert_eq!(path.parent(), Some(dir.as_path()), "{}", path.display());
        assert!(path.exists(), "{}", path.display());
    }
}
