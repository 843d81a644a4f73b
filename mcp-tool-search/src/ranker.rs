//! The [`Ranker`] boundary: an agent that has a model provider's embeddings plugs a semantic
//! ranking in, beside the built-in one or instead of it ([`Combine`]); [`search_with`] runs a
//! search through both.
//!
//! Beside, the two rankings are fused by reciprocal rank (each tool scores `1 / (60 + rank)`
//! in each list it is in; Cormack, Clarke and Büttcher, SIGIR 2009): no score scale has to be
//! shared, and a tool that both find rises. Instead, the agent's ranking alone is used; when it
//! fails (a provider down), the built-in one answers, so a search never fails for it. A `/…/`
//! query is always the built-in pattern search: a pattern is not a meaning.

use async_trait::async_trait;

use crate::document::ToolDocument;
use crate::error::SearchError;
use crate::index::{Hit, ToolIndex};
use crate::pattern;

/// How many of each ranking's best are fused.
const FUSED_DEPTH: usize = 50;
/// Reciprocal-rank fusion's constant.
const FUSION_K: f32 = 60.0;

/// A ranking of tools for a query: an agent's own, typically by embeddings.
#[async_trait]
pub trait Ranker: Send + Sync {
    /// The best `limit` of `documents` for `query`, best first, each as its index in
    /// `documents` with a score (higher is better).
    async fn rank(
        &self,
        query: &str,
        documents: &[&ToolDocument],
        limit: usize,
    ) -> Result<Vec<(usize, f32)>, RankError>;
}

impl std::fmt::Debug for dyn Ranker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("dyn Ranker")
    }
}

/// A ranker could not rank: the built-in ranking answers instead.
#[derive(Debug, thiserror::Error)]
#[error("the ranker failed: {source}")]
#[non_exhaustive]
pub struct RankError {
    /// Why.
    #[source]
    pub source: Box<dyn std::error::Error + Send + Sync>,
}

impl RankError {
    /// A ranker's failure, for `source`.
    pub fn new(source: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        Self {
            source: source.into(),
        }
    }
}

/// How an agent's ranking is used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Combine {
    /// Fused with the built-in ranking (the default).
    #[default]
    Beside,
    /// Alone; the built-in ranking answers only when it fails.
    Instead,
}

/// The best `limit` tools for `query` (of `server` only, when given), ranked by the index and
/// `ranker` as `combine` says.
pub async fn search_with(
    index: &ToolIndex,
    ranker: &dyn Ranker,
    combine: Combine,
    query: &str,
    limit: usize,
    server: Option<&str>,
) -> Result<Vec<Hit>, SearchError> {
    if pattern::of_query(query).is_some() {
        return index.search(query, limit, server);
    }
    let documents = index.documents(server);
    let Ok(theirs) = ranker.rank(query, &documents, FUSED_DEPTH.max(limit)).await else {
        return index.search(query, limit, server);
    };
    let theirs: Vec<Hit> = theirs
        .into_iter()
        .filter_map(|(position, score)| {
            let document = documents.get(position)?;
            Some(Hit {
                server: document.server.clone(),
                tool: document.tool.clone(),
                score,
            })
        })
        .collect();
    let mut hits = match combine {
        Combine::Instead => theirs,
        Combine::Beside => {
            let ours = index.search(query, FUSED_DEPTH.max(limit), server)?;
            fuse(&[ours, theirs])
        }
    };
    hits.truncate(limit);
    Ok(hits)
}

/// Reciprocal-rank fusion of `rankings`, best first (ties by server and tool).
fn fuse(rankings: &[Vec<Hit>]) -> Vec<Hit> {
    let mut fused: Vec<Hit> = Vec::new();
    for ranking in rankings {
        for (rank, hit) in ranking.iter().enumerate() {
            let score = 1.0 / (FUSION_K + rank as f32 + 1.0);
            match fused
                .iter_mut()
                .find(|seen| seen.server == hit.server && seen.tool == hit.tool)
            {
                Some(seen) => seen.score += score,
                None => fused.push(Hit {
                    server: hit.server.clone(),
                    tool: hit.tool.clone(),
                    score,
                }),
            }
        }
    }
    fused.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a.server.cmp(&b.server))
            .then_with(|| a.tool.cmp(&b.tool))
    });
    fused
}
