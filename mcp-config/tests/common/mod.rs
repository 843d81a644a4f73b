//! Helpers the discovery test files share.

// Each test file uses the helpers it needs.
#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use mcp_config::{DiscoveryOptions, DiscoveryResult, SkipReason, TrustPolicy};

/// A fresh folder in the temporary directory (`mcp-config-<label>-<pid>-<n>`) holding the
/// `folders` given; the caller removes it.
pub(crate) fn temp_root(label: &str, folders: &[&str]) -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let root = std::env::temp_dir().join(format!(
        "mcp-config-{label}-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    for folder in folders {
        std::fs::create_dir_all(root.join(folder)).unwrap();
    }
    root
}

/// Discovery options trusting every project server, for tests about what discovery does with
/// the servers it runs (project trust has tests of its own).
pub(crate) fn trusting() -> DiscoveryOptions {
    DiscoveryOptions::default().trust(TrustPolicy::TrustAll)
}

/// The names of the servers waiting for approval, sorted.
pub(crate) fn needing_approval(found: &DiscoveryResult) -> Vec<String> {
    let mut names: Vec<String> = found
        .skipped
        .iter()
        .filter(|skipped| skipped.reason == SkipReason::NeedsApproval)
        .map(|skipped| skipped.name.clone())
        .collect();
    names.sort();
    names
}
