//! The README's "Files it keeps" table is every file the CLI writes: commands that write (add at
//! both scopes, trust, a call whose result is cut, a cached start) are run in a fresh home and
//! project, and every file that appears is under a path of the table.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod cli_support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use cli_support::Sandbox;
use serde_json::json;

/// Every file under `root`.
fn files(root: &Path) -> BTreeSet<PathBuf> {
    let mut found = BTreeSet::new();
    let mut folders = vec![root.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else {
                found.insert(path);
            }
        }
    }
    found
}

/// The first column of the README's "Files it keeps" table, as paths in `sandbox`.
fn readme_paths(sandbox: &Sandbox) -> Vec<PathBuf> {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md"))
            .unwrap();
    let section = readme
        .split("### Files it keeps")
        .nth(1)
        .expect("a Files it keeps section")
        .split("\n###")
        .next()
        .unwrap();
    section
        .lines()
        .filter(|line| line.starts_with("| `"))
        .map(|line| {
            let path = line.split('`').nth(1).unwrap();
            let path = path
                .replace("<app>", "agent-session")
                .replace("<project>", &sandbox.project.display().to_string())
                .replace('~', &sandbox.home.display().to_string());
            PathBuf::from(path.trim_end_matches('/'))
        })
        .collect()
}

#[test]
fn every_file_the_cli_writes_is_in_the_readmes_table() {
    let sandbox = Sandbox::labelled("files", "readme-table");
    sandbox.write_mcp_json(&json!({"fx": sandbox.fixture("fx", |fixture| fixture)}));
    let before: BTreeSet<PathBuf> = files(&sandbox.home)
        .into_iter()
        .chain(files(&sandbox.project))
        .collect();
    sandbox.run(&["add", "here", "--", "true"]).assert_code(0);
    sandbox
        .run(&["add", "there", "--scope", "user", "--", "true"])
        .assert_code(0);
    sandbox.run(&["untrust", "here"]).assert_code(0);
    sandbox.run(&["trust", "here"]).assert_code(0);
    sandbox.run(&["disable", "fx"]).assert_code(0);
    sandbox.run(&["enable", "fx"]).assert_code(0);
    sandbox.run(&["list"]);
    let long = "x".repeat(4_000);
    sandbox
        .run(&[
            "call",
            "fx/echo",
            "--arg",
            &format!("message={long}"),
            "--output-budget",
            "1KiB",
        ])
        .assert_code(0);
    let written: Vec<PathBuf> = files(&sandbox.home)
        .into_iter()
        .chain(files(&sandbox.project))
        .filter(|path| !before.contains(path))
        .collect();
    let table = readme_paths(&sandbox);
    assert!(table.len() >= 6, "{table:?}");
    for path in &written {
        assert!(
            table.iter().any(|listed| path.starts_with(listed)
                || path.parent() == listed.parent()
                    && listed
                        .file_name()
                        .is_some_and(|name| path.file_name().is_some_and(|file| file
                            .to_string_lossy()
                            .starts_with(&*name.to_string_lossy())))),
            "{} is written but not in the README's table {table:?}",
            path.display()
        );
    }
    // The cache, the results and both config files were written.
    for kept in [
        "tool-cache",
        "results",
        ".agent-session/mcp.json",
        ".config/agent-session/mcp.json",
    ] {
        assert!(
            written
                .iter()
                .any(|path| path.display().to_string().contains(kept)),
            "{kept} not written: {written:?}"
        );
    }
}
