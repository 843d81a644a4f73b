//! [`DiscoveryOptions`]: what discovery reads (which providers, project files or not) and how
//! it filters (the trust policy, the Exa filter).

use std::collections::BTreeSet;
use std::sync::Arc;

use crate::providers::default_sources;
use crate::source::ConfigSource;
use crate::trust::TrustPolicy;

/// What discovery reads and how it filters.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct DiscoveryOptions {
    /// Whether project-level files count. Agents that ask the user to trust a project before
    /// running its servers turn this off until then. Default: on.
    pub enable_project_config: bool,
    /// Remove Exa servers and hand their API keys to the caller. Default: off.
    pub filter_exa: bool,
    /// The providers, highest priority first. Default: [`default_sources`].
    pub sources: Vec<Arc<dyn ConfigSource>>,
    /// Provider ids to skip.
    pub disabled_providers: BTreeSet<String>,
    /// Which servers of files inside the project folder may run; default: those the user
    /// approved ([`TrustPolicy::Approvals`]).
    pub trust: TrustPolicy,
}

impl Default for DiscoveryOptions {
    fn default() -> Self {
        Self {
            enable_project_config: true,
            filter_exa: false,
            sources: default_sources().into_iter().map(Arc::from).collect(),
            disabled_providers: BTreeSet::new(),
            trust: TrustPolicy::default(),
        }
    }
}

impl DiscoveryOptions {
    /// Turns project-level files on or off.
    #[must_use]
    pub fn project_config(mut self, enabled: bool) -> Self {
        self.enable_project_config = enabled;
        self
    }

    /// Decides which project servers may run with `policy`.
    #[must_use]
    pub fn trust(mut self, policy: TrustPolicy) -> Self {
        self.trust = policy;
        self
    }

    /// Turns the Exa filter on or off.
    #[must_use]
    pub fn filter_exa(mut self, enabled: bool) -> Self {
        self.filter_exa = enabled;
        self
    }

    /// Adds a provider with the highest priority.
    #[must_use]
    pub fn with_source_first(mut self, source: Arc<dyn ConfigSource>) -> Self {
        self.sources.insert(0, source);
        self
    }

    /// Adds a provider with the lowest priority.
    #[must_use]
    pub fn with_source_last(mut self, source: Arc<dyn ConfigSource>) -> Self {
        self.sources.push(source);
        self
    }

    /// Skips the provider with this id.
    #[must_use]
    pub fn disable_provider(mut self, id: impl Into<String>) -> Self {
        self.disabled_providers.insert(id.into());
        self
    }
}
