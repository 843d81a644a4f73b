//! The tool search corpus and its queries, as the benchmarks and the query tests read them:
//! each server's captured `tools/list` answer (`benches/corpus/*.json`, written by
//! `benches/capture/capture.py`) and the DEV and TEST queries (`benches/queries/*.json`).
//!
//! Shared by `benches/quality.rs`, `benches/speed.rs` and `tests/queries.rs` through
//! `#[path]`, so all three read the files the same way; not every one of them uses every item.

#![allow(
    dead_code,
    reason = "each including target uses a part of this module; the rest is dead there"
)]

use std::collections::BTreeSet;
use std::error::Error;
use std::path::PathBuf;

use mcp_tool_search::ToolDocument;
use serde_json::{Value, json};

pub(crate) type Result<T> = std::result::Result<T, Box<dyn Error>>;

/// One server of the corpus: its name, its instructions and its tools as it listed them.
#[derive(Debug, Clone)]
pub(crate) struct Server {
    pub(crate) name: String,
    pub(crate) instructions: Option<String>,
    pub(crate) tools: Vec<Value>,
}

impl Server {
    /// Its tools as the index sees them: name, title, description and the input schema's
    /// parameters.
    pub(crate) fn documents(&self) -> Vec<ToolDocument> {
        self.tools
            .iter()
            .map(|tool| document(&self.name, tool))
            .collect()
    }
}

/// A tool's document: what `ToolIndex` and the plain BM25 of the quality benchmark index.
pub(crate) fn document(server: &str, tool: &Value) -> ToolDocument {
    let mut document = ToolDocument::new(server, tool_name(tool), description(tool))
        .parameters_from_schema(input_schema(tool));
    if let Some(title) = title(tool) {
        document = document.title(title);
    }
    document
}

pub(crate) fn tool_name(tool: &Value) -> &str {
    tool.get("name").and_then(Value::as_str).unwrap_or_default()
}

/// The tool's title: `title`, or `annotations.title` (where servers of the 2025-03-26
/// revision put it).
pub(crate) fn title(tool: &Value) -> Option<&str> {
    tool.get("title")
        .and_then(Value::as_str)
        .or_else(|| tool.pointer("/annotations/title").and_then(Value::as_str))
}

pub(crate) fn description(tool: &Value) -> &str {
    tool.get("description")
        .and_then(Value::as_str)
        .unwrap_or_default()
}

/// The input schema, or an empty object schema when a tool has none.
pub(crate) fn input_schema(tool: &Value) -> &Value {
    static EMPTY: std::sync::LazyLock<Value> =
        std::sync::LazyLock::new(|| json!({"type": "object"}));
    tool.get("inputSchema").unwrap_or(&EMPTY)
}

fn benches() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benches")
}

/// Every server of the corpus, by name.
pub(crate) fn corpus() -> Result<Vec<Server>> {
    let folder = benches().join("corpus");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&folder)
        .map_err(|error| format!("{}: {error}", folder.display()))?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| {
            path.extension()
                .is_some_and(|extension| extension == "json")
        })
        .collect();
    paths.sort();
    let mut servers = Vec::with_capacity(paths.len());
    for path in paths {
        let text = std::fs::read_to_string(&path)
            .map_err(|error| format!("{}: {error}", path.display()))?;
        let file: Value =
            serde_json::from_str(&text).map_err(|error| format!("{}: {error}", path.display()))?;
        let name = file
            .get("server")
            .and_then(Value::as_str)
            .ok_or_else(|| format!("{}: no \"server\"", path.display()))?;
        let tools = file
            .get("tools")
            .and_then(Value::as_array)
            .ok_or_else(|| format!("{}: no \"tools\" array", path.display()))?;
        servers.push(Server {
            name: name.to_owned(),
            instructions: file
                .get("instructions")
                .and_then(Value::as_str)
                .map(str::to_owned),
            tools: tools.clone(),
        });
    }
    if servers.is_empty() {
        return Err(format!("no corpus files in {}", folder.display()).into());
    }
    Ok(servers)
}

/// Every `server/tool` of the corpus.
pub(crate) fn tool_keys(servers: &[Server]) -> BTreeSet<String> {
    servers
        .iter()
        .flat_map(|server| {
            server
                .tools
                .iter()
                .map(|tool| format!("{}/{}", server.name, tool_name(tool)))
        })
        .collect()
}

/// Which half of the queries: DEV is for tuning a ranker, TEST for reporting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Split {
    Dev,
    Test,
}

impl Split {
    pub(crate) const ALL: [Self; 2] = [Self::Dev, Self::Test];

    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Dev => "dev",
            Self::Test => "test",
        }
    }
}

/// Whether a query shares a word with a tool it wants (see `tests/queries.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Kind {
    Plain,
    Paraphrase,
}

impl Kind {
    pub(crate) const ALL: [Self; 2] = [Self::Plain, Self::Paraphrase];

    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Plain => "plain",
            Self::Paraphrase => "paraphrase",
        }
    }
}

/// A query as an agent would phrase it, and the tools that fit it (`server/tool`).
#[derive(Debug, Clone)]
pub(crate) struct Query {
    pub(crate) id: String,
    pub(crate) split: Split,
    pub(crate) kind: Kind,
    pub(crate) text: String,
    pub(crate) expected: Vec<String>,
}

/// The DEV queries, then the TEST ones.
pub(crate) fn queries() -> Result<Vec<Query>> {
    let mut queries = Vec::new();
    for split in Split::ALL {
        let path = benches()
            .join("queries")
            .join(format!("{}.json", split.name()));
        let text = std::fs::read_to_string(&path)
            .map_err(|error| format!("{}: {error}", path.display()))?;
        let file: Value =
            serde_json::from_str(&text).map_err(|error| format!("{}: {error}", path.display()))?;
        let items = file
            .get("queries")
            .and_then(Value::as_array)
            .ok_or_else(|| format!("{}: no \"queries\" array", path.display()))?;
        for item in items {
            queries
                .push(query(item, split).map_err(|error| format!("{}: {error}", path.display()))?);
        }
    }
    Ok(queries)
}

fn query(item: &Value, split: Split) -> Result<Query> {
    let text = |key: &str| {
        item.get(key)
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| format!("a query without a string \"{key}\": {item}"))
    };
    let kind = match text("kind")?.as_str() {
        "plain" => Kind::Plain,
        "paraphrase" => Kind::Paraphrase,
        other => {
            return Err(format!("kind {other:?} is neither plain nor paraphrase: {item}").into());
        }
    };
    let expected: Vec<String> = item
        .get("expected")
        .and_then(Value::as_array)
        .map(|expected| {
            expected
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    if expected.is_empty() {
        return Err(format!("a query expects no tool: {item}").into());
    }
    Ok(Query {
        id: text("id")?,
        split,
        kind,
        text: text("query")?,
        expected,
    })
}

/// Checks that every query's expected tools are in the corpus: a typo would make a query
/// unanswerable and every ranker look worse.
pub(crate) fn check_expected(servers: &[Server], queries: &[Query]) -> Result<()> {
    let keys = tool_keys(servers);
    let missing: Vec<String> = queries
        .iter()
        .flat_map(|query| {
            query
                .expected
                .iter()
                .filter(|key| !keys.contains(*key))
                .map(move |key| format!("{} expects {key}", query.id))
        })
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "queries expect tools the corpus does not have (a typo, or a server's list changed): {}",
            missing.join("; ")
        )
        .into())
    }
}
