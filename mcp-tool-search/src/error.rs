//! [`SearchError`]: why a search could not be made.

/// Why a search could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SearchError {
    /// A `/…/` query's pattern is not one the search runs.
    #[error("the pattern /{pattern}/ cannot be used: {reason}")]
    Pattern {
        /// The pattern as given (cut after 200 characters).
        pattern: String,
        /// Why.
        reason: String,
    },
}
