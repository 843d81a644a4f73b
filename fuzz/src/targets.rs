//! The fuzz targets, one module per parser; each module's doc says what its property is.

pub mod cache_entry;
pub mod config;
pub mod content;
pub mod expansion;
pub mod jsonrpc;
pub mod line_reader;
pub mod naming;
pub mod sse;
pub mod terminal_text;
