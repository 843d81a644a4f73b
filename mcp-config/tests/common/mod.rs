//! Helpers the discovery test files share.

use mcp_config::{DiscoveryOptions, DiscoveryResult, SkipReason, TrustPolicy};

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
