//! Target `expansion`: `${VAR}` / `${VAR:-default}` expansion of `mcp-config`
//! (`expand_value`, and `expand_server_config` over every expandable field of a server).
//!
//! Config values come from files anyone can write (a cloned repository's `.mcp.json`), so the
//! expander sees any text. Inputs are arbitrary strings rich in `$`, `{`, `}` and `:-`, and
//! templates drawn from the syntax — literals, references to set, empty and unset variables,
//! defaults nested at random depths (past the limit of [`mcp_config::MAX_NESTING`] too), and
//! placeholders that are not ours (`${input:x}`, `${env:X}`) — whose meaning is known from their
//! structure. The property:
//!
//! - a template expands to what its structure means, evaluated independently here: a set
//!   variable's value (never expanded again), a default when unset or empty (expanded only then),
//!   a foreign placeholder kept, the first unset variable without a default or a default nested
//!   too deep as the error;
//! - any string expands or fails without a panic, and a string without `${` comes back as it
//!   was;
//! - `expand_server_config` fails exactly when one of the server's fields fails, with one
//!   message per failing field naming the server and the field (`used in args[1]`), and
//!   otherwise gives each field its expansion;
//! - expansion holds at most `8 × (input + 1) × (longest value + 16) + 8 KiB` at once.

use std::collections::BTreeMap;

use mcp_config::{
    ConfigProblem, ExpandError, MAX_NESTING, RemoteConfig, ServerConfig, StdioConfig,
    TransportConfig, expand_server_config, expand_value,
};
use proptest::prelude::*;
use proptest::sample::select;

use crate::grammar;
use crate::runner::{Report, Settings, fuzz};
use crate::targets::quoted_in_messages;

/// Names templates refer to: set, set to the empty string, and unset ones.
const NAMES: &[&str] = &["A", "B_2", "_x", "HOME", "EMPTY", "UNSET", "NOPE9"];

/// What lies between `${` and `}` in placeholders that are not variable references; each
/// is kept as written.
const FOREIGN: &[&str] = &[
    "input:token",
    "env:HOME",
    "9x",
    "",
    "a b",
    "-",
    "workspaceFolder/x",
];

/// A piece of a template.
#[derive(Debug, Clone)]
pub enum Piece {
    /// Text without `$` or `}`.
    Literal(String),
    /// `${name}` or `${name:-default}`.
    Reference {
        /// A variable name.
        name: &'static str,
        /// The default, itself a template.
        default: Option<Vec<Piece>>,
    },
    /// `${…}` around something that is not a variable name.
    Foreign(&'static str),
}

/// Renders a template as config text.
pub fn render(pieces: &[Piece]) -> String {
    let mut out = String::new();
    for piece in pieces {
        match piece {
            Piece::Literal(text) => out.push_str(text),
            Piece::Reference {
                name,
                default: None,
            } => {
                out.push_str("${");
                out.push_str(name);
                out.push('}');
            }
            Piece::Reference {
                name,
                default: Some(default),
            } => {
                out.push_str("${");
                out.push_str(name);
                out.push_str(":-");
                out.push_str(&render(default));
                out.push('}');
            }
            Piece::Foreign(inner) => {
                out.push_str("${");
                out.push_str(inner);
                out.push('}');
            }
        }
    }
    out
}

/// What a template means: its expansion, or the error `expand_value` must give.
fn meaning(
    pieces: &[Piece],
    env: &BTreeMap<String, String>,
    depth: usize,
) -> Result<String, ExpandError> {
    if depth > MAX_NESTING {
        return Err(ExpandError::TooDeep);
    }
    let mut out = String::new();
    for piece in pieces {
        match piece {
            Piece::Literal(text) => out.push_str(text),
            Piece::Foreign(inner) => out.push_str(&format!("${{{inner}}}")),
            Piece::Reference { name, default } => match (env.get(*name), default) {
                (Some(value), Some(default)) if value.is_empty() => {
                    out.push_str(&meaning(default, env, depth + 1)?);
                }
                (Some(value), _) => out.push_str(value),
                (None, Some(default)) => out.push_str(&meaning(default, env, depth + 1)?),
                (None, None) => {
                    return Err(ExpandError::Unset {
                        variable: (*name).to_owned(),
                    });
                }
            },
        }
    }
    Ok(out)
}

/// Literal text: anything but `$` and `}` (which would start or end a placeholder).
fn literal() -> impl Strategy<Value = Piece> {
    grammar::text(6).prop_map(|text| Piece::Literal(text.replace(['$', '}'], "")))
}

/// A chain of defaults up to twelve deep, `${U:-${V:-…x…}}`, of mostly unset or empty
/// variables, so that the nesting limit is reached as often as not.
fn chain() -> impl Strategy<Value = Piece> {
    let name = prop_oneof![
        4 => select(&["UNSET", "NOPE9", "EMPTY"][..]),
        1 => select(NAMES),
    ];
    (prop::collection::vec(name, 1..13), literal()).prop_map(|(names, bottom)| {
        names
            .into_iter()
            .rev()
            .fold(bottom, |inner, name| Piece::Reference {
                name,
                default: Some(vec![inner]),
            })
    })
}

/// A template: pieces, with references whose defaults nest, a few levels at random or in a
/// long chain.
pub fn template() -> impl Strategy<Value = Vec<Piece>> {
    let leaf = prop_oneof![
        3 => literal(),
        3 => select(NAMES).prop_map(|name| Piece::Reference { name, default: None }),
        1 => select(FOREIGN).prop_map(Piece::Foreign),
        1 => chain(),
    ];
    let piece = leaf.prop_recursive(10, 40, 3, |inner| {
        (select(NAMES), prop::collection::vec(inner, 0..3)).prop_map(|(name, default)| {
            Piece::Reference {
                name,
                default: Some(default),
            }
        })
    });
    prop::collection::vec(piece, 0..4)
}

/// A value of the environment: plain text, empty, or text that looks like a reference (it must
/// be inserted as it is).
fn env_value() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => grammar::text(6),
        1 => Just(String::new()),
        1 => Just("${UNSET}".to_owned()),
    ]
}

/// One input: the environment, the templates of a server's fields, and a raw string.
#[derive(Debug, Clone)]
pub struct ExpansionInput {
    env: BTreeMap<String, String>,
    server: String,
    remote: bool,
    fields: Vec<Vec<Piece>>,
    raw: String,
}

/// Runs the target.
pub fn run(settings: &Settings) -> Report {
    fuzz("expansion", settings, input(), check)
}

fn input() -> impl Strategy<Value = ExpansionInput> {
    let set_names = select(&["A", "B_2", "_x", "HOME"][..]);
    let env = (
        prop::collection::btree_map(set_names.prop_map(str::to_owned), env_value(), 0..4),
        any::<bool>(),
    )
        .prop_map(|(mut env, with_empty)| {
            if with_empty {
                env.insert("EMPTY".to_owned(), String::new());
            }
            env
        });
    (
        env,
        grammar::text(4),
        any::<bool>(),
        prop::collection::vec(template(), 1..5),
        grammar::text(24),
    )
        .prop_map(|(env, server, remote, fields, raw)| ExpansionInput {
            env,
            server,
            remote,
            fields,
            raw,
        })
}

/// A server whose expandable fields hold the rendered templates, and their names as messages
/// write them.
fn server_of(input: &ExpansionInput) -> (ServerConfig, Vec<String>) {
    let rendered: Vec<String> = input.fields.iter().map(|field| render(field)).collect();
    let (first, rest) = rendered
        .split_first()
        .map_or(("", &[][..]), |(first, rest)| (first, rest));
    if input.remote {
        let mut remote = RemoteConfig::new(first);
        let mut names = vec!["url".to_owned()];
        for (index, value) in rest.iter().enumerate() {
            remote.headers.insert(format!("X-H{index}"), value.clone());
            names.push(format!("headers.X-H{index}"));
        }
        (ServerConfig::new(TransportConfig::Http(remote)), names)
    } else {
        let (args, env) = rest.split_at(rest.len() / 2);
        let mut stdio = StdioConfig::new(first, args.iter().cloned());
        let mut names = vec!["command".to_owned()];
        names.extend((0..args.len()).map(|index| format!("args[{index}]")));
        for (index, value) in env.iter().enumerate() {
            stdio.env.insert(format!("K{index}"), value.clone());
            names.push(format!("env.K{index}"));
        }
        (ServerConfig::new(TransportConfig::Stdio(stdio)), names)
    }
}

/// The expandable values of a server, in the order [`server_of`] names them.
fn values_of(config: &ServerConfig) -> Vec<String> {
    match &config.transport {
        TransportConfig::Http(remote) | TransportConfig::Sse(remote) => {
            std::iter::once(&remote.url)
                .chain(remote.headers.values())
                .cloned()
                .collect()
        }
        TransportConfig::Stdio(stdio) => std::iter::once(&stdio.command)
            .chain(&stdio.args)
            .chain(stdio.env.values())
            .cloned()
            .collect(),
        // `server_of` builds stdio and remote servers only.
        TransportConfig::Custom(_) => Vec::new(),
    }
}

fn check(input: &ExpansionInput) -> Result<(), String> {
    let env = &input.env;
    let meanings: Vec<Result<String, ExpandError>> = input
        .fields
        .iter()
        .map(|field| meaning(field, env, 0))
        .collect();
    let (config, names) = server_of(input);
    let rendered: Vec<String> = values_of(&config);
    let input_len = rendered.iter().map(String::len).sum::<usize>() + input.raw.len();
    let longest_value = env.values().map(String::len).max().unwrap_or(0);
    let (outcome, peak) = crate::alloc_meter::peak_during(|| {
        for (field, want) in input.fields.iter().zip(&meanings) {
            let text = render(field);
            let got = expand_value(&text, env);
            if &got != want {
                return Err(format!("{text:?} expanded to {got:?}; it means {want:?}"));
            }
        }
        let raw = expand_value(&input.raw, env);
        if !input.raw.contains("${") && raw.as_deref() != Ok(input.raw.as_str()) {
            return Err(format!(
                "{:?} has no placeholder but expanded to {raw:?}",
                input.raw
            ));
        }
        check_server(input, &config, &names, &meanings)
    });
    outcome?;
    let bound = 8 * (input_len + 1) * (longest_value + 16) + 8 * 1024;
    if peak > bound {
        return Err(format!(
            "expansion held {peak} bytes at once, over the bound of {bound}"
        ));
    }
    Ok(())
}

fn check_server(
    input: &ExpansionInput,
    config: &ServerConfig,
    names: &[String],
    meanings: &[Result<String, ExpandError>],
) -> Result<(), String> {
    let server = &input.server;
    // The header and env keys `server_of` makes sort as their indexes do (there are fewer than
    // ten), so the maps keep the fields in the order of `names`.
    match expand_server_config(server, config, &input.env) {
        Ok(expanded) => {
            if let Some((name, Err(why))) = names
                .iter()
                .zip(meanings)
                .find(|(_, meaning)| meaning.is_err())
            {
                return Err(format!(
                    "the server expanded although {name} cannot ({why})"
                ));
            }
            let got = values_of(&expanded);
            let want: Vec<&str> = meanings
                .iter()
                .filter_map(|meaning| meaning.as_deref().ok())
                .collect();
            if got.iter().map(String::as_str).ne(want.iter().copied()) {
                return Err(format!(
                    "the server's fields expanded to {got:?}; they mean {want:?}"
                ));
            }
        }
        Err(problems) => {
            let failing: Vec<(&String, &ExpandError)> = names
                .iter()
                .zip(meanings)
                .filter_map(|(name, meaning)| meaning.as_ref().err().map(|why| (name, why)))
                .collect();
            if problems.len() != failing.len() {
                return Err(format!(
                    "{} fields cannot expand ({failing:?}) but there are {} messages: {problems:?}",
                    failing.len(),
                    problems.len()
                ));
            }
            for (problem, (name, why)) in problems.iter().zip(&failing) {
                let expected = ConfigProblem::Expansion {
                    field: (*name).clone(),
                    error: (*why).clone(),
                };
                if problem.server != *server || problem.problem != expected {
                    return Err(format!(
                        "the problem {problem:?} is not the server {server:?}'s {expected:?}"
                    ));
                }
                // Names and fields are quoted with their hidden characters escaped.
                let (quoted_server, name) = (quoted_in_messages(server), quoted_in_messages(name));
                let message = problem.to_string();
                let names_server = message.starts_with(&format!("Server \"{quoted_server}\": "));
                let names_field = message.contains(&format!("(used in {name})"))
                    || message.contains(&format!(": {name}: "));
                if !names_server || !names_field || !message.contains(&why.to_string()) {
                    return Err(format!(
                        "the message {message:?} does not name the server {server:?}, the \
                         field {name} and the cause {why:?}"
                    ));
                }
            }
        }
    }
    Ok(())
}
