#![doc = include_str!("../README.md")]

mod document;
mod error;
mod expand;
mod field;
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
pub use error::SearchError;
pub use expand::QueryExpansion;
pub use field::FieldWeights;
pub use index::{Hit, ServerTools, ToolIndex};
pub use ranker::{Combine, RankError, Ranker, search_with};
pub use semantic::Semantic;
pub use tokens::{BYTES_PER_TOKEN, definition_tokens, estimate_tokens};
