//! A working folder given as a relative path (an agent embedding the crates with `"."`) is the
//! folder it names: discovery walks up from it to the repository root, and an approval given
//! there is recorded under that folder's absolute, canonical path, so it counts in that folder
//! only, whether the folder is later named relatively, absolutely or through a symlink.
//!
//! The test changes the process's working directory, so it is the only test in this file: each
//! file under `tests/` is a process of its own.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::path::{Path, PathBuf};

use common::{needing_approval, temp_root};
use mcp_config::writer::trust_project_servers;
use mcp_config::{Consent, DiscoveryContext, DiscoveryOptions, DiscoveryResult, load_all_configs};
use serde_json::Value;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Discovery from `cwd` (as given: relative paths are taken from the process's folder).
fn load(cwd: &Path, home: &Path) -> (DiscoveryContext, DiscoveryResult) {
    let ctx = DiscoveryContext::new("testapp", cwd, home);
    let found = load_all_configs(&ctx, &DiscoveryOptions::default());
    (ctx, found)
}

#[test]
fn a_relative_working_folder_is_the_folder_it_names_for_the_walk_and_for_approvals() {
    let root = temp_root(
        "relative",
        &["home", "repo/.git", "repo/src/deep", "clone/.git"],
    );
    let home = root.join("home");
    let definition = r#"{"mcpServers": {"tool": {"command": "run-tool"}}}"#;
    write(&root.join("repo/.mcp.json"), definition);
    write(&root.join("clone/.mcp.json"), definition);
    std::os::unix::fs::symlink(root.join("repo"), root.join("repo-link")).unwrap();
    let original = std::env::current_dir().unwrap();

    // From a subfolder, "." walks up to the repository root and finds its file.
    std::env::set_current_dir(root.join("repo/src/deep")).unwrap();
    let (ctx, found) = load(Path::new("."), &home);
    assert_eq!(needing_approval(&found), ["tool"], "{:?}", found.names());
    let canonical_repo = std::fs::canonicalize(root.join("repo")).unwrap();
    assert_eq!(
        ctx.cwd(),
        std::fs::canonicalize(root.join("repo/src/deep")).unwrap()
    );
    assert_eq!(ctx.repository_root(), Some(canonical_repo.clone()));

    // Approved from the repository root named ".", the approval is the root's, by its path.
    std::env::set_current_dir(root.join("repo")).unwrap();
    let (ctx, found) = load(Path::new("."), &home);
    let skipped = found.skip_of("tool").unwrap();
    let folder: PathBuf = skipped.source.project_folder.clone().unwrap();
    assert_eq!(folder, canonical_repo);
    let definition = skipped.definition.as_ref().unwrap();
    let consent = Consent::of(definition, &skipped.source);
    trust_project_servers(&ctx, Path::new("."), &[("tool", definition, &consent)]).unwrap();
    let user_file: Value =
        serde_json::from_str(&std::fs::read_to_string(ctx.native_user_file()).unwrap()).unwrap();
    let folders: Vec<&String> = user_file["trustedProjects"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(folders, [&canonical_repo.display().to_string()]);

    // The same folder, named any way, is approved ...
    for named in [
        PathBuf::from("."),
        root.join("repo"),
        root.join("repo-link"),
        root.join("repo/src/../src/deep"),
    ] {
        let (_, found) = load(&named, &home);
        assert!(
            found.servers.contains_key("tool"),
            "from {}",
            named.display()
        );
    }
    // ... and another folder with the same file, named ".", is not.
    std::env::set_current_dir(root.join("clone")).unwrap();
    let (_, found) = load(Path::new("."), &home);
    assert_eq!(needing_approval(&found), ["tool"]);

    std::env::set_current_dir(original).unwrap();
    std::fs::remove_dir_all(&root).unwrap();
}
