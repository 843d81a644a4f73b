#![doc = include_str!("../README.md")]

mod document;
mod expand;
mod index;
pub mod lexicon;
pub mod pattern;
mod postings;
mod ranker;
mod reading;
mod semantic;
pub mod text;
mod tokens;

pub use document::{Parameter, ToolDocument};
pub use expand::QueryExpansion;
pub use index::{FieldWeights, Hit, SearchError, ServerTools, ToolIndex};
pub use ranker::{Combine, RankError, Ranker, search_with};
pub use semantic::Semantic;
pub use tokens::{BYTES_PER_TOKEN, definition_tokens, estimate_tokens};
