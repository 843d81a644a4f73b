//! Tool search quality: does an agent's phrasing of a task find the tool that does it, among
//! the tools of 27 real servers — the built-in ranker beside plain BM25 over the same tools.
//!
//! ```text
//! cargo bench -p mcp-tool-search --bench quality -- [--misses]
//! ```
//!
//! The corpus is the servers' captured `tools/list` answers (`benches/corpus`, 471 tools), the
//! queries are `benches/queries/{dev,test}.json` (173, a third of them paraphrases sharing no
//! word with the tools they want; see their README). Every server's tools go into a
//! [`ToolIndex`] — each tool a [`ToolDocument`] with its title and its input schema's
//! parameters, each server with its instructions — and into a plain BM25 written here: one
//! bag of words per tool (name, title, description, parameter names and descriptions), split
//! on anything not a letter or digit and lower-cased, no camelCase split, no stop words, no
//! stemming, no synonyms, k1 = 1.2, b = 0.75 — the baseline a tool search gets for free. Each
//! ranker returns its 10 best tools for each query; the report gives recall@1, recall@5 (an
//! expected tool first, or in the first five) and MRR@10, for TEST and DEV, plain and
//! paraphrase queries, as a table and as one JSON line.
//!
//! It also reports what the corpus costs an agent's context ([`definition_tokens`], a token
//! per four bytes of each definition's JSON): every definition sent at start, beside deferral
//! — one search tool (`mcp_tool_search`, whose description names each server with its tool
//! count) and the always-loaded tools (in the corpus, Firecrawl's `firecrawl_scrape` and
//! `firecrawl_search`, whose `_meta` says `anthropic/alwaysLoad`) — and what a search that
//! loads its five best adds.
//!
//! Then an ablation: the built-in ranker with each piece added in turn ([`QueryExpansion`],
//! [`Semantic`]) — the words as written (BM25F over six fields alone), + their inflections
//! (stemming), + WordNet synonyms, then beside each other + associations (off by default:
//! shown at the weight the tables were tuned at, to say what they would add) and + word
//! vectors (the built-in ranker) — each on TEST and DEV, plain and paraphrase.
//!
//! `--tune` sweeps the word vectors' weight over a grid on the DEV queries alone (the
//! default weight, 3, is the best of it); TEST is not shown.
//!
//! `--misses` lists the DEV queries the built-in ranker does not find in its first five, with what
//! it found instead; TEST queries are never listed, so nobody tunes on them. Without `--bench` (as
//! `cargo test --benches` runs it) it is a smoke run: it checks that every expected tool is in the
//! corpus (a typo fails the run) and that the baseline works (asked for a tool's own description,
//! plain BM25 must find it in its first five for 95% of the tools; it does for 468 of 471), ranks
//! every query with both rankers and prints one line; with `--list` (as `cargo nextest` asks) it
//! prints nothing. Other flags are ignored. Nothing is timed here (see `benches/speed.rs`): the
//! figures do not depend on the machine.

#[path = "support/corpus.rs"]
mod corpus;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::process::ExitCode;

use corpus::{Kind, Query, Result, Server, Split};
use mcp_tool_search::{QueryExpansion, Semantic, ToolDocument, ToolIndex, definition_tokens};
use serde_json::{Value, json};

/// How many tools each ranker returns for a query (MRR is counted within them).
const DEPTH: usize = 10;
/// How many tools a search of the session loads by default.
const LOADED: usize = 5;
/// The context window the token figures are set against.
const WINDOW: usize = 200_000;

fn main() -> ExitCode {
    let (mut list, mut bench, mut misses, mut tune) = (false, false, false, false);
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--list" => list = true,
            "--bench" => bench = true,
            "--misses" => misses = true,
            "--tune" => tune = true,
            _ => {}
        }
    }
    if list {
        return ExitCode::SUCCESS;
    }
    if tune {
        return match tune_semantic() {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("quality: error: {error}");
                ExitCode::FAILURE
            }
        };
    }
    match run(bench, misses) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("quality: error: {error}");
            ExitCode::FAILURE
        }
    }
}

fn run(bench: bool, misses: bool) -> Result<()> {
    let servers = corpus::corpus()?;
    let queries = corpus::queries()?;
    corpus::check_expected(&servers, &queries)?;
    let tools: usize = servers.iter().map(|server| server.tools.len()).sum();

    let mut index = ToolIndex::new();
    for server in &servers {
        index.set_server(
            &server.name,
            server.instructions.as_deref(),
            server.documents(),
        );
    }
    let bm25 = PlainBm25::new(servers.iter().flat_map(Server::documents));
    check_baseline(&servers, &bm25)?;

    let mut built_in = Vec::with_capacity(queries.len());
    let mut plain = Vec::with_capacity(queries.len());
    for query in &queries {
        let hits = index.search(&query.text, DEPTH, None)?;
        built_in.push(
            hits.iter()
                .map(|hit| format!("{}/{}", hit.server, hit.tool))
                .collect::<Vec<_>>(),
        );
        plain.push(bm25.rank(&query.text, DEPTH));
    }
    let rankers = [("built-in", &built_in), ("plain BM25", &plain)];
    let mut results = Vec::new();
    for (name, rankings) in rankers {
        for split in [Split::Test, Split::Dev] {
            for kind in [Some(Kind::Plain), Some(Kind::Paraphrase), None] {
                let scores = Scores::of(&queries, rankings, |query| {
                    query.split == split && kind.is_none_or(|kind| query.kind == kind)
                });
                results.push((name, split, kind, scores));
            }
        }
    }
    let context = Context::of(&servers, &queries, &built_in, &index);
    let ablation = ablation(&servers, &queries)?;

    if !bench {
        let test_paraphrase = |ranker: &str| {
            results
                .iter()
                .find(|(name, split, kind, _)| {
                    *name == ranker && *split == Split::Test && *kind == Some(Kind::Paraphrase)
                })
                .map_or(0.0, |(_, _, _, scores)| scores.recall(LOADED))
        };
        println!(
            "quality (smoke): {} servers, {tools} tools, {} queries, every expected tool found \
             in the corpus; TEST paraphrase recall@5: built-in {:.3}, plain BM25 {:.3}",
            servers.len(),
            queries.len(),
            test_paraphrase("built-in"),
            test_paraphrase("plain BM25"),
        );
        return Ok(());
    }

    let dev = queries
        .iter()
        .filter(|query| query.split == Split::Dev)
        .count();
    println!(
        "tool search quality: {} servers, {tools} tools; {} queries (TEST {}, DEV {dev}); \
         each ranker's {DEPTH} best per query",
        servers.len(),
        queries.len(),
        queries.len() - dev,
    );
    println!(
        "{:<11} {:<5} {:<11} {:>7} {:>9} {:>9} {:>7}",
        "ranker", "split", "kind", "queries", "recall@1", "recall@5", "MRR@10"
    );
    for (name, split, kind, scores) in &results {
        println!(
            "{name:<11} {:<5} {:<11} {:>7} {:>9.3} {:>9.3} {:>7.3}",
            split.name().to_uppercase(),
            kind.map_or("all", Kind::name),
            scores.queries,
            scores.recall(1),
            scores.recall(LOADED),
            scores.mrr(),
        );
    }
    print_ablation(&ablation);
    context.print();
    if misses {
        print_misses(&queries, &built_in);
    }
    let rows: Vec<Value> = results
        .iter()
        .map(|(name, split, kind, scores)| {
            json!({
                "ranker": name,
                "split": split.name(),
                "kind": kind.map_or("all", Kind::name),
                "queries": scores.queries,
                "recall_at_1": round(scores.recall(1)),
                "recall_at_5": round(scores.recall(LOADED)),
                "mrr_at_10": round(scores.mrr()),
            })
        })
        .collect();
    println!(
        "{}",
        json!({
            "bench": "mcp_tool_search_quality",
            "servers": servers.len(),
            "tools": tools,
            "queries": queries.len(),
            "results": rows,
            "ablation": ablation_json(&ablation),
            "context": context.json(),
        })
    );
    Ok(())
}

/// The rankings of the ablation: each piece of the query expansion added in turn.
type Ablation = Vec<(&'static str, Vec<(Split, Kind, Scores)>)>;

fn ablation(servers: &[Server], queries: &[Query]) -> Result<Ablation> {
    let built_in = QueryExpansion::default();
    let off = Semantic::OFF;
    let steps: Vec<(&'static str, QueryExpansion, Semantic)> = vec![
        ("words as written (BM25F)", QueryExpansion::NONE, off),
        (
            "+ inflections",
            QueryExpansion::new(built_in.inflections, 0.0, 0.0),
            off,
        ),
        (
            "+ synonyms",
            QueryExpansion::new(built_in.inflections, built_in.synonyms, 0.0),
            off,
        ),
        (
            "+ associations 0.3 (not built in)",
            QueryExpansion::new(built_in.inflections, built_in.synonyms, 0.3),
            off,
        ),
        (
            "+ word vectors (the built-in)",
            QueryExpansion::new(built_in.inflections, built_in.synonyms, 0.0),
            Semantic::default(),
        ),
    ];
    rank_steps(servers, queries, steps)
}

/// Each step's rankings of the queries, scored on TEST and DEV, plain and paraphrase.
fn rank_steps(
    servers: &[Server],
    queries: &[Query],
    steps: Vec<(&'static str, QueryExpansion, Semantic)>,
) -> Result<Ablation> {
    let mut ablation = Vec::new();
    for (name, expansion, semantic) in steps {
        let mut index = ToolIndex::new();
        index.set_expansion(expansion);
        index.set_semantic(semantic);
        for server in servers {
            index.set_server(
                &server.name,
                server.instructions.as_deref(),
                server.documents(),
            );
        }
        let mut rankings = Vec::with_capacity(queries.len());
        for query in queries {
            let hits = index.search(&query.text, DEPTH, None)?;
            rankings.push(
                hits.iter()
                    .map(|hit| format!("{}/{}", hit.server, hit.tool))
                    .collect::<Vec<_>>(),
            );
        }
        let mut rows = Vec::new();
        for split in [Split::Test, Split::Dev] {
            for kind in [Kind::Plain, Kind::Paraphrase] {
                let scores = Scores::of(queries, &rankings, |query| {
                    query.split == split && query.kind == kind
                });
                rows.push((split, kind, scores));
            }
        }
        ablation.push((name, rows));
    }
    Ok(ablation)
}

/// `--tune`: the word vectors' weight swept over a grid, DEV rows only (nothing is tuned on
/// TEST, so it is not shown).
fn tune_semantic() -> Result<()> {
    let servers = corpus::corpus()?;
    let queries = corpus::queries()?;
    let built_in = QueryExpansion::default();
    let expansion = QueryExpansion::new(built_in.inflections, built_in.synonyms, 0.0);
    let mut steps = vec![("vectors off", expansion, Semantic::OFF)];
    for weight in [0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 100.0] {
        let name: &'static str = Box::leak(format!("vectors {weight}").into_boxed_str());
        steps.push((name, expansion, Semantic::new(weight)));
    }
    let ablation = rank_steps(&servers, &queries, steps)?;
    println!(
        "{:<33} {:<11} {:>9} {:>9} {:>7}",
        "DEV only", "kind", "recall@1", "recall@5", "MRR@10"
    );
    for (name, rows) in &ablation {
        for (split, kind, scores) in rows {
            if *split == Split::Dev {
                println!(
                    "{name:<33} {:<11} {:>9.3} {:>9.3} {:>7.3}",
                    kind.name(),
                    scores.recall(1),
                    scores.recall(LOADED),
                    scores.mrr()
                );
            }
        }
    }
    Ok(())
}

fn print_ablation(ablation: &Ablation) {
    println!(
        "\nablation: the built-in ranker, each piece added in turn to the words (the \
         associations tried in place of the word vectors, off by default)"
    );
    println!(
        "{:<33} {:<5} {:<11} {:>7} {:>9} {:>9} {:>7}",
        "ranking", "split", "kind", "queries", "recall@1", "recall@5", "MRR@10"
    );
    for (name, rows) in ablation {
        for (split, kind, scores) in rows {
            println!(
                "{name:<33} {:<5} {:<11} {:>7} {:>9.3} {:>9.3} {:>7.3}",
                split.name().to_uppercase(),
                kind.name(),
                scores.queries,
                scores.recall(1),
                scores.recall(LOADED),
                scores.mrr(),
            );
        }
    }
}

fn ablation_json(ablation: &Ablation) -> Value {
    ablation
        .iter()
        .flat_map(|(name, rows)| {
            rows.iter().map(move |(split, kind, scores)| {
                json!({
                    "ranking": name,
                    "split": split.name(),
                    "kind": kind.name(),
                    "queries": scores.queries,
                    "recall_at_1": round(scores.recall(1)),
                    "recall_at_5": round(scores.recall(LOADED)),
                    "mrr_at_10": round(scores.mrr()),
                })
            })
        })
        .collect()
}

/// The baseline must be a working BM25, or beating it means nothing: asked for a tool's own
/// description, it must put that tool in its first five for nearly every tool (a few tools
/// share their description with another: `Navigate to a URL`).
fn check_baseline(servers: &[Server], bm25: &PlainBm25) -> Result<()> {
    let mut asked = 0;
    let mut found = 0;
    for server in servers {
        for tool in &server.tools {
            let description = corpus::description(tool);
            if description.trim().is_empty() {
                continue;
            }
            asked += 1;
            let key = format!("{}/{}", server.name, corpus::tool_name(tool));
            if bm25.rank(description, LOADED).contains(&key) {
                found += 1;
            }
        }
    }
    if found * 100 < asked * 95 {
        return Err(format!(
            "plain BM25 finds only {found} of {asked} tools by their own description in its \
             first {LOADED}: the baseline is broken"
        )
        .into());
    }
    Ok(())
}

fn round(value: f64) -> f64 {
    (value * 1000.0).round() / 1000.0
}

/// The DEV queries the built-in ranker misses in its first five.
fn print_misses(queries: &[Query], built_in: &[Vec<String>]) {
    println!("\nDEV queries the built-in ranker does not find in its first {LOADED}:");
    for (query, ranking) in queries.iter().zip(built_in) {
        if query.split != Split::Dev || rank_of(query, ranking).is_some_and(|rank| rank <= LOADED) {
            continue;
        }
        let found: Vec<&str> = ranking.iter().take(3).map(String::as_str).collect();
        println!(
            "  {} [{}] {:?}\n      wants {}; rank {}; found {}",
            query.id,
            query.kind.name(),
            query.text,
            query.expected.join(" | "),
            rank_of(query, ranking).map_or("> 10".to_owned(), |rank| rank.to_string()),
            if found.is_empty() {
                "nothing".to_owned()
            } else {
                found.join(", ")
            },
        );
    }
}

/// The rank (from 1) of the first expected tool in `ranking`.
fn rank_of(query: &Query, ranking: &[String]) -> Option<usize> {
    ranking
        .iter()
        .position(|key| query.expected.contains(key))
        .map(|position| position + 1)
}

/// Recall at each depth and reciprocal ranks over a group of queries.
#[derive(Debug, Default)]
struct Scores {
    queries: usize,
    /// How many queries had an expected tool at each rank (1 to DEPTH).
    first_at: [usize; DEPTH + 1],
    reciprocal_ranks: f64,
}

impl Scores {
    fn of(queries: &[Query], rankings: &[Vec<String>], keep: impl Fn(&Query) -> bool) -> Self {
        let mut scores = Self::default();
        for (query, ranking) in queries.iter().zip(rankings) {
            if !keep(query) {
                continue;
            }
            scores.queries += 1;
            if let Some(rank) = rank_of(query, ranking) {
                scores.first_at[rank] += 1;
                scores.reciprocal_ranks += 1.0 / rank as f64;
            }
        }
        scores
    }

    /// The share of queries with an expected tool in the first `depth`.
    fn recall(&self, depth: usize) -> f64 {
        let found: usize = self.first_at[1..=depth].iter().sum();
        found as f64 / self.queries.max(1) as f64
    }

    fn mrr(&self) -> f64 {
        self.reciprocal_ranks / self.queries.max(1) as f64
    }
}

/// Plain Okapi BM25 over one bag of words per tool: the baseline.
struct PlainBm25 {
    /// `server/tool` of each document.
    keys: Vec<String>,
    lengths: Vec<f64>,
    average_length: f64,
    /// Each term's documents, with the term's count in each.
    postings: HashMap<String, Vec<(usize, f64)>>,
}

impl PlainBm25 {
    const K1: f64 = 1.2;
    const B: f64 = 0.75;

    fn new(documents: impl Iterator<Item = ToolDocument>) -> Self {
        let mut keys = Vec::new();
        let mut lengths = Vec::new();
        let mut postings: HashMap<String, Vec<(usize, f64)>> = HashMap::new();
        for document in documents {
            let id = keys.len();
            keys.push(format!("{}/{}", document.server, document.tool));
            let mut bag = vec![document.tool.as_str()];
            bag.extend(document.title.as_deref());
            bag.push(&document.description);
            for parameter in &document.parameters {
                bag.push(&parameter.name);
                bag.extend(parameter.description.as_deref());
            }
            let mut counts: BTreeMap<String, f64> = BTreeMap::new();
            let mut length = 0.0;
            for text in bag {
                for term in terms(text) {
                    *counts.entry(term).or_default() += 1.0;
                    length += 1.0;
                }
            }
            lengths.push(length);
            for (term, count) in counts {
                postings.entry(term).or_default().push((id, count));
            }
        }
        let average_length = lengths.iter().sum::<f64>() / lengths.len().max(1) as f64;
        Self {
            keys,
            lengths,
            average_length,
            postings,
        }
    }

    /// The best `limit` tools for `query`, best first; ties by name, as the index breaks them.
    fn rank(&self, query: &str, limit: usize) -> Vec<String> {
        let documents = self.keys.len() as f64;
        let mut scores: HashMap<usize, f64> = HashMap::new();
        let distinct: HashSet<String> = terms(query).collect();
        for term in distinct {
            let Some(postings) = self.postings.get(&term) else {
                continue;
            };
            let frequency = postings.len() as f64;
            let idf = (1.0 + (documents - frequency + 0.5) / (frequency + 0.5)).ln();
            for &(id, count) in postings {
                let norm = 1.0 - Self::B + Self::B * self.lengths[id] / self.average_length;
                *scores.entry(id).or_default() +=
                    idf * count * (Self::K1 + 1.0) / (count + Self::K1 * norm);
            }
        }
        let mut ranked: Vec<(usize, f64)> = scores.into_iter().collect();
        ranked.sort_by(|a, b| {
            b.1.total_cmp(&a.1)
                .then_with(|| self.keys[a.0].cmp(&self.keys[b.0]))
        });
        ranked
            .into_iter()
            .take(limit)
            .map(|(id, _)| self.keys[id].clone())
            .collect()
    }
}

/// Lower-cased runs of letters and digits: plain BM25's only text processing.
fn terms(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|run| !run.is_empty())
        .map(str::to_lowercase)
}

/// What the corpus costs an agent's context, with every definition and with deferral.
struct Context {
    servers: usize,
    tools: usize,
    /// The definitions' JSON as a model API receives them, in bytes.
    definition_bytes: usize,
    every_definition: usize,
    search_tool: usize,
    always_loaded: usize,
    /// The tokens of the five best tools of each TEST query (the built-in ranker's).
    loaded: Vec<usize>,
}

impl Context {
    fn of(
        servers: &[Server],
        queries: &[Query],
        built_in: &[Vec<String>],
        index: &ToolIndex,
    ) -> Self {
        let mut tokens: HashMap<String, usize> = HashMap::new();
        let mut definition_bytes = 0;
        for server in servers {
            for tool in &server.tools {
                let (name, description, schema) = (
                    corpus::tool_name(tool),
                    corpus::description(tool),
                    corpus::input_schema(tool),
                );
                definition_bytes += json!({
                    "name": name, "description": description, "input_schema": schema,
                })
                .to_string()
                .len();
                tokens.insert(
                    format!("{}/{name}", server.name),
                    definition_tokens(name, description, schema),
                );
            }
        }
        let (description, schema) = search_tool(index);
        let loaded = queries
            .iter()
            .zip(built_in)
            .filter(|(query, _)| query.split == Split::Test)
            .map(|(_, ranking)| {
                ranking
                    .iter()
                    .take(LOADED)
                    .map(|key| tokens.get(key).copied().unwrap_or_default())
                    .sum()
            })
            .collect();
        Self {
            servers: servers.len(),
            tools: tokens.len(),
            definition_bytes,
            every_definition: tokens.values().sum(),
            search_tool: definition_tokens("mcp_tool_search", &description, &schema),
            always_loaded: always_loaded(servers),
            loaded,
        }
    }

    fn deferred(&self) -> usize {
        self.search_tool + self.always_loaded
    }

    fn loaded_mean(&self) -> usize {
        self.loaded.iter().sum::<usize>() / self.loaded.len().max(1)
    }

    fn print(&self) {
        let share = |tokens: usize| 100.0 * tokens as f64 / WINDOW as f64;
        println!(
            "\ncontext at start ({} servers, {} tools; a token per {} bytes of definition JSON):",
            self.servers,
            self.tools,
            mcp_tool_search::BYTES_PER_TOKEN
        );
        println!(
            "  every definition     {:>7} tokens ({:.0} KiB of JSON), {:.1}% of a {}k window",
            self.every_definition,
            self.definition_bytes as f64 / 1024.0,
            share(self.every_definition),
            WINDOW / 1000,
        );
        println!(
            "  deferred             {:>7} tokens: the search tool {} + always-loaded tools {} \
             ({:.2}% of the window)",
            self.deferred(),
            self.search_tool,
            self.always_loaded,
            share(self.deferred()),
        );
        println!(
            "  a search loading {LOADED}    {:>7} tokens on average over the TEST queries (max {})",
            self.loaded_mean(),
            self.loaded.iter().max().copied().unwrap_or_default(),
        );
    }

    fn json(&self) -> Value {
        json!({
            "definition_bytes": self.definition_bytes,
            "every_definition_tokens": self.every_definition,
            "deferred_tokens": self.deferred(),
            "search_tool_tokens": self.search_tool,
            "always_loaded_tokens": self.always_loaded,
            "search_loads": LOADED,
            "search_loaded_tokens_mean": self.loaded_mean(),
            "search_loaded_tokens_max": self.loaded.iter().max().copied().unwrap_or_default(),
        })
    }
}

/// The tokens of the tools that would never be deferred: those whose `_meta` says
/// `anthropic/alwaysLoad: true` (a server's `alwaysLoad` is in the agent's configuration,
/// which the corpus does not have).
fn always_loaded(servers: &[Server]) -> usize {
    servers
        .iter()
        .flat_map(|server| &server.tools)
        .filter(|tool| {
            tool.pointer("/_meta/anthropic~1alwaysLoad")
                .and_then(Value::as_bool)
                .unwrap_or(false)
        })
        .map(|tool| {
            definition_tokens(
                corpus::tool_name(tool),
                corpus::description(tool),
                corpus::input_schema(tool),
            )
        })
        .sum()
}

/// The search tool's description and input schema as a deferring session offers it: what it
/// does, then a line per connected server with its tool count, so the model knows what
/// exists; `query` and an optional `limit`.
fn search_tool(index: &ToolIndex) -> (String, Value) {
    let mut description = String::from(
        "Search the tools of the connected MCP servers by what you want to do, in a few words \
         (or /regex/ over names and descriptions). The tools found are returned with their \
         full definitions and can be called by name for the rest of the session. Servers:",
    );
    for (server, tools) in index.servers() {
        description.push_str(&format!("\n- {server}: {tools} tools"));
    }
    let schema = json!({
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "What the tool should do."},
            "limit": {
                "type": "integer",
                "minimum": 1,
                "description": "How many tools to return (default 5)."
            }
        },
        "required": ["query"]
    });
    (description, schema)
}
