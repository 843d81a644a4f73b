//! Target `config`: every config provider of `mcp-config` on the files it reads — JSON
//! (native, Claude Code, Claude Desktop, Roo Code, Cline, Crush, Copilot CLI, VS Code's `.mcp.json`),
//! JSON with comments (Claude Code's settings, Gemini CLI, OpenCode, Cursor, Windsurf, VS Code,
//! Kiro, Junie, Warp, LM Studio, Amp, Zed, Qwen Code) TOML (Codex) and YAML (Goose, Continue;
//! Continue's servers folder holds JSON with comments too) — through the public API an agent
//! uses: the provider's `load` on a `DiscoveryContext` whose home, config folder and project
//! are temporary folders, then `load_all_configs` with that provider alone (expansion and
//! validation included).
//!
//! A config file may come with any cloned repository, so its bytes are anyone's. Inputs are
//! arbitrary bytes (non-UTF-8 included), and files drawn from each format's grammar — server
//! tables under every key the providers read, entries with fields of the right and wrong types,
//! values holding random `${…}` nesting and the tools' own placeholders, comments and trailing
//! commas for JSONC, quoted keys, inline tables, floats and dates for TOML — then mutated;
//! sometimes a directory stands where the file should be. The property:
//!
//! - loading never panics;
//! - a file that cannot be used is an error naming its path (`ConfigError::path` and the
//!   message);
//! - an entry that cannot be used, a server that cannot be expanded or validated, is skipped
//!   with messages that each begin `Server "<name>": `;
//! - loading holds at most `64 × file + 256 KiB` at once.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use mcp_config::providers::{
    AMP, BuiltinSource, CLAUDE_CODE, CLAUDE_DESKTOP, CLINE, CODEX, CONTINUE, COPILOT_CLI, CRUSH,
    CURSOR, GEMINI, GOOSE, JUNIE, KIRO, LM_STUDIO, NATIVE, OPENCODE, QWEN_CODE, ROO_CODE, VSCODE,
    WARP, WINDSURF, ZED,
};
use mcp_config::{
    ConfigError, DiscoveryContext, DiscoveryOptions, SkipReason, TrustPolicy, load_all_configs,
    source::ConfigSource,
};
use proptest::prelude::*;
use proptest::sample::{Index, select};
use serde_json::{Map, Value, json};

use crate::grammar::{self, Blob};
use crate::runner::{Failure, Report, Settings, fuzz};
use crate::targets::expansion;
use crate::targets::quoted_in_messages;

/// The agent whose native files are read.
const APP: &str = "fuzz-agent";

/// The three formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Json,
    Jsonc,
    Toml,
}

/// Which root a file is under.
#[derive(Debug, Clone, Copy)]
enum Root {
    Project,
    Home,
    ConfigDir,
}

/// A file a provider reads.
#[derive(Clone, Copy)]
pub struct Spot {
    provider: BuiltinSource,
    format: Format,
    root: Root,
    path: &'static str,
    /// Whether the provider lists the file among those it read even when it is fine (Claude
    /// Code's settings files, which only switch servers off, are listed only when broken).
    listed: bool,
    /// Whether the file is found by walking its folder (Continue's `.continue/mcpServers/`): a
    /// directory standing there is walked into, not listed.
    walked: bool,
}

impl std::fmt::Debug for Spot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {:?} file {:?}/{}",
            self.provider.id(),
            self.format,
            self.root,
            self.path
        )
    }
}

const fn spot(provider: BuiltinSource, format: Format, root: Root, path: &'static str) -> Spot {
    Spot {
        provider,
        format,
        root,
        path,
        listed: true,
        walked: false,
    }
}

/// A file found by walking its folder: one standing there as a directory is walked into.
const fn walked(provider: BuiltinSource, format: Format, root: Root, path: &'static str) -> Spot {
    Spot {
        walked: true,
        ..spot(provider, format, root, path)
    }
}

/// A file that only switches servers off, listed only when it cannot be used.
const fn switches(provider: BuiltinSource, format: Format, root: Root, path: &'static str) -> Spot {
    Spot {
        listed: false,
        ..spot(provider, format, root, path)
    }
}

/// Every provider, with the files of it that hold servers or switch them off.
const SPOTS: &[Spot] = &[
    spot(NATIVE, Format::Json, Root::Project, ".fuzz-agent/mcp.json"),
    spot(NATIVE, Format::Json, Root::ConfigDir, "fuzz-agent/mcp.json"),
    spot(CLAUDE_CODE, Format::Json, Root::Project, ".mcp.json"),
    spot(CLAUDE_CODE, Format::Json, Root::Home, ".claude.json"),
    switches(
        CLAUDE_CODE,
        Format::Jsonc,
        Root::Project,
        ".claude/settings.json",
    ),
    spot(CODEX, Format::Toml, Root::Project, ".codex/config.toml"),
    spot(CODEX, Format::Toml, Root::Home, ".codex/config.toml"),
    spot(
        GEMINI,
        Format::Jsonc,
        Root::Project,
        ".gemini/settings.json",
    ),
    spot(GEMINI, Format::Jsonc, Root::Home, ".gemini/settings.json"),
    spot(OPENCODE, Format::Jsonc, Root::Project, "opencode.jsonc"),
    spot(
        OPENCODE,
        Format::Jsonc,
        Root::ConfigDir,
        "opencode/opencode.json",
    ),
    spot(CURSOR, Format::Jsonc, Root::Project, ".cursor/mcp.json"),
    spot(
        WINDSURF,
        Format::Jsonc,
        Root::Home,
        ".codeium/windsurf/mcp_config.json",
    ),
    spot(VSCODE, Format::Jsonc, Root::Project, ".vscode/mcp.json"),
    spot(
        VSCODE,
        Format::Jsonc,
        Root::ConfigDir,
        "Code/User/settings.json",
    ),
    spot(
        CLAUDE_DESKTOP,
        Format::Json,
        Root::ConfigDir,
        "Claude/claude_desktop_config.json",
    ),
    spot(
        KIRO,
        Format::Jsonc,
        Root::Project,
        ".kiro/settings/mcp.json",
    ),
    spot(JUNIE, Format::Jsonc, Root::Home, ".junie/mcp/mcp.json"),
    spot(WARP, Format::Jsonc, Root::Project, ".warp/.mcp.json"),
    spot(LM_STUDIO, Format::Jsonc, Root::Home, ".lmstudio/mcp.json"),
    spot(ROO_CODE, Format::Json, Root::Project, ".roo/mcp.json"),
    spot(
        CLINE,
        Format::Json,
        Root::Home,
        ".cline/data/settings/cline_mcp_settings.json",
    ),
    spot(AMP, Format::Jsonc, Root::Project, ".amp/settings.json"),
    spot(ZED, Format::Jsonc, Root::ConfigDir, "zed/settings.json"),
    spot(CRUSH, Format::Json, Root::Project, "crush.json"),
    // JSON is YAML's flow style: the grammar's files and their mutations reach the YAML parser.
    spot(GOOSE, Format::Json, Root::ConfigDir, "goose/config.yaml"),
    spot(CONTINUE, Format::Json, Root::Home, ".continue/config.yaml"),
    walked(
        CONTINUE,
        Format::Json,
        Root::Project,
        ".continue/mcpServers/team/block.yaml",
    ),
    walked(
        CONTINUE,
        Format::Jsonc,
        Root::Project,
        ".continue/mcpServers/mcp.json",
    ),
    spot(COPILOT_CLI, Format::Json, Root::Project, ".github/mcp.json"),
    spot(
        COPILOT_CLI,
        Format::Json,
        Root::Home,
        ".copilot/mcp-config.json",
    ),
    spot(VSCODE, Format::Json, Root::Project, ".mcp.json"),
    spot(
        QWEN_CODE,
        Format::Jsonc,
        Root::Project,
        ".qwen/settings.local.json",
    ),
    spot(QWEN_CODE, Format::Jsonc, Root::Home, ".qwen/settings.json"),
];

/// One input: where the file is, what it holds, and whether a directory stands there instead.
#[derive(Debug, Clone)]
pub struct ConfigInput {
    spot: Spot,
    contents: Blob,
    directory: bool,
}

/// The folders of one run, removed when it ends.
struct Folders {
    base: PathBuf,
    ctx: DiscoveryContext,
}

impl Folders {
    fn new() -> std::io::Result<Self> {
        static RUNS: AtomicU64 = AtomicU64::new(0);
        let base = std::env::temp_dir().join(format!(
            "mcp-fuzz-config-{}-{}",
            std::process::id(),
            RUNS.fetch_add(1, Ordering::Relaxed)
        ));
        let home = base.join("home");
        let project = base.join("project");
        std::fs::create_dir_all(&home)?;
        std::fs::create_dir_all(&project)?;
        let env: BTreeMap<String, String> = [
            ("A", "a-value"),
            ("B_2", "${UNSET}"),
            ("HOME", "/home/fuzz"),
            ("EMPTY", ""),
            ("TOKEN", "t0k3n"),
        ]
        .into_iter()
        .map(|(name, value)| (name.to_owned(), value.to_owned()))
        .collect();
        let ctx = DiscoveryContext::new(APP, &project, &home).with_env(env);
        Ok(Self { base, ctx })
    }

    fn path_of(&self, spot: &Spot) -> PathBuf {
        let root = match spot.root {
            Root::Project => self.ctx.cwd(),
            Root::Home => &self.ctx.home,
            Root::ConfigDir => &self.ctx.config_dir,
        };
        root.join(spot.path)
    }
}

impl Drop for Folders {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.base);
    }
}

/// Runs the target.
pub fn run(settings: &Settings) -> Report {
    let folders = match Folders::new() {
        Ok(folders) => folders,
        Err(error) => {
            return Report {
                cases: 0,
                failure: Some(Failure {
                    reason: format!("could not make the temporary folders: {error}"),
                    input: String::new(),
                }),
            };
        }
    };
    fuzz("config", settings, input(), |input| check(&folders, input))
}

fn input() -> impl Strategy<Value = ConfigInput> {
    // One strategy per format, built once (a `prop_flat_map` from the spot would build the
    // grammar again for every case).
    let of_format = |format: Format| {
        let spots: Vec<Spot> = SPOTS
            .iter()
            .copied()
            .filter(|spot| spot.format == format)
            .collect();
        // Damaged files mostly stop at the parser, whole ones reach conversion, expansion and
        // validation: both kinds, in about equal numbers.
        let contents = prop_oneof![
            1 => grammar::raw_bytes(256),
            3 => grammar::mutated(file(format)),
            3 => file(format).prop_map(Blob),
        ];
        (select(spots), contents)
    };
    (
        prop_oneof![
            2 => of_format(Format::Json),
            3 => of_format(Format::Jsonc),
            2 => of_format(Format::Toml),
        ],
        prop::bool::weighted(0.02),
    )
        .prop_map(|((spot, contents), directory)| ConfigInput {
            spot,
            contents,
            directory,
        })
}

/// A value the providers expand or translate: a `${…}` template, a tool's own placeholder, a
/// plain string, sometimes a value of another JSON type.
fn config_text() -> BoxedStrategy<Value> {
    prop_oneof![
        3 => grammar::text(8).prop_map(|text| Value::String(text.replace('$', ""))),
        3 => expansion::template().prop_map(|pieces| Value::String(expansion::render(&pieces))),
        1 => select(
            &[
                "{env:TOKEN}", "${env:A}", "${input:token}", "${command:x}", "{file:~/k}",
                "${workspaceFolder}/x", "${userHome}", "$A/bin", "${/}", "!echo hi",
            ][..],
        )
        .prop_map(|text| Value::String(text.to_owned())),
        1 => grammar::mostly_text(8),
    ]
    .boxed()
}

fn texts() -> BoxedStrategy<Value> {
    prop::collection::vec(config_text(), 0..4)
        .prop_map(Value::Array)
        .boxed()
}

fn text_map() -> BoxedStrategy<Value> {
    prop::collection::vec((grammar::text(4), config_text()), 0..3)
        .prop_map(|entries| Value::Object(entries.into_iter().collect()))
        .boxed()
}

/// A server entry: a local one, a remote one, OpenCode's shape, or any mix of the fields the
/// tools use (mostly of a wrong combination).
fn entry() -> BoxedStrategy<Value> {
    let url = prop_oneof![
        3 => (
            select(&["https://", "http://", "ftp://", "", "https://mcp.exa.ai/"][..]),
            grammar::text(4),
            select(&["example.com/mcp", "localhost:8080/sse", "${A}/x", "?exaApiKey=k"][..]),
        )
            .prop_map(|(scheme, middle, rest)| json!(format!("{scheme}{middle}{rest}"))),
        1 => config_text(),
    ]
    .boxed();
    let local = grammar::shaped(vec![
        ("command", config_text()),
        ("args", texts()),
        ("env", text_map()),
        ("cwd", config_text()),
        ("type", Just(json!("stdio")).boxed()),
        ("enabled", any::<bool>().prop_map(Value::Bool).boxed()),
        ("timeout", (1u64..100_000).prop_map(Value::from).boxed()),
    ]);
    let remote = grammar::shaped(vec![
        ("url", url.clone()),
        ("headers", text_map()),
        (
            "type",
            select(&["http", "sse", "streamable-http"][..])
                .prop_map(|kind| json!(kind))
                .boxed(),
        ),
        ("disabled", any::<bool>().prop_map(Value::Bool).boxed()),
    ]);
    let opencode = grammar::shaped(vec![
        (
            "type",
            select(&["local", "remote"][..])
                .prop_map(|kind| json!(kind))
                .boxed(),
        ),
        ("command", texts()),
        ("environment", text_map()),
        ("url", url),
        ("enabled", any::<bool>().prop_map(Value::Bool).boxed()),
    ]);
    prop_oneof![3 => local, 2 => remote, 1 => opencode, 2 => any_entry()].boxed()
}

/// An entry with any of the fields any of the tools use, of the right type or not.
fn any_entry() -> BoxedStrategy<Value> {
    let kind = select(
        &[
            "stdio",
            "http",
            "sse",
            "local",
            "remote",
            "streamable-http",
            "",
        ][..],
    )
    .prop_map(|kind| json!(kind))
    .boxed();
    let flag = prop_oneof![3 => any::<bool>().prop_map(Value::Bool), 1 => grammar::json()].boxed();
    let number = prop_oneof![3 => grammar::number(), 1 => grammar::json()].boxed();
    grammar::shaped(vec![
        ("type", prop_oneof![4 => kind, 1 => grammar::json()].boxed()),
        (
            "command",
            prop_oneof![3 => config_text(), 1 => texts()].boxed(),
        ),
        (
            "args",
            prop_oneof![4 => texts(), 1 => grammar::json()].boxed(),
        ),
        (
            "env",
            prop_oneof![4 => text_map(), 1 => grammar::json()].boxed(),
        ),
        ("environment", text_map()),
        ("cwd", config_text()),
        ("url", config_text()),
        ("httpUrl", config_text()),
        ("serverUrl", config_text()),
        (
            "headers",
            prop_oneof![4 => text_map(), 1 => grammar::json()].boxed(),
        ),
        ("enabled", flag.clone()),
        ("disabled", flag),
        ("timeout", number.clone()),
        ("startup_timeout_sec", number.clone()),
        ("startup_timeout_ms", number.clone()),
        ("tool_timeout_sec", number),
        ("bearer_token_env_var", config_text()),
        ("env_http_headers", text_map()),
        ("http_headers", text_map()),
        ("enabled_tools", texts()),
        ("includeTools", texts()),
        (
            "tools",
            prop_oneof![3 => texts(), 1 => grammar::json()].boxed(),
        ),
        ("oauthClientId", config_text()),
        ("oauthGrantType", grammar::json().boxed()),
        ("discoveryTimeoutMs", grammar::number().boxed()),
        ("auth", grammar::json().boxed()),
        ("oauth", grammar::json().boxed()),
    ])
}

/// Server names: plain, odd, and ones that clash after sanitizing.
fn server_name() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => select(&["github", "GitHub", "a", "exa", "my-db.v2", "x"][..]).prop_map(str::to_owned),
        1 => grammar::text(5),
    ]
}

/// The servers of a file, by name.
fn servers() -> BoxedStrategy<Value> {
    prop::collection::vec((server_name(), entry()), 0..4)
        .prop_map(|entries| Value::Object(entries.into_iter().collect::<Map<String, Value>>()))
        .boxed()
}

/// The servers of a file as a list, each entry holding its `name` (Continue's YAML), now and
/// then a `uses:` entry or one without a name.
fn server_list() -> BoxedStrategy<Value> {
    let item = prop_oneof![
        6 => (server_name(), entry()).prop_map(|(name, mut entry)| {
            if let Value::Object(fields) = &mut entry {
                fields.insert("name".to_owned(), Value::String(name));
            }
            entry
        }),
        1 => server_name().prop_map(|name| json!({"uses": format!("acme/{name}")})),
        1 => entry(),
    ];
    prop::collection::vec(item, 0..4)
        .prop_map(Value::Array)
        .boxed()
}

fn names() -> BoxedStrategy<Value> {
    prop_oneof![
        3 => prop::collection::vec(server_name().prop_map(Value::String), 0..3)
            .prop_map(Value::Array),
        1 => grammar::json(),
    ]
    .boxed()
}

/// A JSON document with servers under every key the JSON providers read.
fn document() -> BoxedStrategy<Value> {
    let project = grammar::shaped(vec![
        ("mcpServers", servers()),
        ("disabledMcpServers", names()),
        ("disabledMcpjsonServers", names()),
    ]);
    // Claude Code keys a project by its path: the temporary project folder is not known here,
    // so a few spellings of a path stand in (they exercise the matching, not the match).
    let projects = prop::collection::vec(
        (select(&["/", "/project", "C:\\project\\", ""][..]), project),
        0..2,
    )
    .prop_map(|entries| {
        Value::Object(
            entries
                .into_iter()
                .map(|(key, value)| (key.to_owned(), value))
                .collect(),
        )
    })
    .boxed();
    let nested = grammar::shaped(vec![
        ("servers", servers()),
        ("allowed", names()),
        ("excluded", names()),
        ("inputs", grammar::json().boxed()),
    ]);
    prop_oneof![
        4 => grammar::shaped(vec![
            ("mcpServers", prop_oneof![4 => servers(), 1 => server_list()].boxed()),
            ("servers", servers()),
            ("mcp", prop_oneof![servers(), nested].boxed()),
            ("disabledServers", names()),
            ("disabledMcpjsonServers", names()),
            ("projects", projects),
            ("inputs", grammar::json().boxed()),
        ]),
        1 => grammar::json(),
    ]
    .boxed()
}

fn file(format: Format) -> BoxedStrategy<Vec<u8>> {
    match format {
        Format::Json => document()
            .prop_map(|value| value.to_string().into_bytes())
            .boxed(),
        Format::Jsonc => (
            document(),
            prop::collection::vec((any::<Index>(), any::<bool>()), 0..4),
        )
            .prop_map(|(value, decorations)| jsonc(&value, &decorations).into_bytes())
            .boxed(),
        Format::Toml => (
            prop::collection::btree_map(server_name(), entry(), 0..4),
            prop::collection::btree_map(
                grammar::text(3).prop_filter("a key of its own", |key| key != "mcp_servers"),
                grammar::json(),
                0..2,
            ),
        )
            .prop_map(|(servers, others)| toml(&servers, &others).into_bytes())
            .boxed(),
    }
}

/// Pretty JSON with comments after some line breaks and commas before some closing brackets.
fn jsonc(value: &Value, decorations: &[(Index, bool)]) -> String {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    for (at, comment) in decorations {
        let breaks: Vec<usize> = text.match_indices('\n').map(|(index, _)| index).collect();
        if breaks.is_empty() {
            break;
        }
        let line_break = breaks[at.index(breaks.len())];
        if *comment {
            text.insert_str(line_break + 1, "  // a comment, with \"quotes\" and ${A}\n");
        } else {
            let closes = text[line_break + 1..].trim_start().starts_with(['}', ']']);
            let opens = text[..line_break].trim_end().ends_with(['{', '[', ',']);
            if closes && !opens {
                text.insert_str(line_break, ", /* trailing */");
            }
        }
    }
    text
}

/// A Codex `config.toml`: a table per server, and other keys.
fn toml(servers: &BTreeMap<String, Value>, others: &BTreeMap<String, Value>) -> String {
    let mut text = String::new();
    for (key, value) in others {
        text.push_str(&format!("{} = {}\n", toml_key(key), toml_value(value)));
    }
    for (name, entry) in servers {
        text.push_str(&format!("\n[mcp_servers.{}]\n", toml_key(name)));
        if let Value::Object(fields) = entry {
            for (key, value) in fields {
                text.push_str(&format!("{} = {}\n", toml_key(key), toml_value(value)));
            }
        }
    }
    text
}

fn toml_key(key: &str) -> String {
    let bare = !key.is_empty()
        && key
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-');
    if bare { key.to_owned() } else { quoted(key) }
}

/// A TOML basic string: `"` and `\` escaped, and every control character but tab (TOML
/// refuses DEL too, which JSON leaves alone).
fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\t' => out.push('\t'),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn toml_value(value: &Value) -> String {
    match value {
        // TOML has no null: a date stands in, which converts to a string.
        Value::Null => "1979-05-27T07:32:00Z".to_owned(),
        Value::Bool(flag) => flag.to_string(),
        Value::Number(number) => match number.as_f64() {
            Some(float) if number.is_f64() => {
                let shown = format!("{float:?}").to_lowercase();
                if shown.contains(['.', 'e', 'n', 'i']) {
                    shown
                } else {
                    format!("{shown}.0")
                }
            }
            // TOML integers are 64-bit signed: a larger one is written as a float.
            _ if number.is_u64() && number.as_i64().is_none() => format!("{number}.0"),
            _ => number.to_string(),
        },
        Value::String(text) => quoted(text),
        Value::Array(items) => format!(
            "[{}]",
            items.iter().map(toml_value).collect::<Vec<_>>().join(", ")
        ),
        Value::Object(fields) => format!(
            "{{ {} }}",
            fields
                .iter()
                .map(|(key, value)| format!("{} = {}", toml_key(key), toml_value(value)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn check(folders: &Folders, input: &ConfigInput) -> Result<(), String> {
    let path = folders.path_of(&input.spot);
    let written = place(&path, input);
    let outcome = written.and_then(|()| load(folders, input, &path));
    let removed = if input.directory {
        std::fs::remove_dir(&path)
    } else {
        std::fs::remove_file(&path)
    };
    outcome?;
    removed.map_err(|error| format!("could not remove {}: {error}", path.display()))
}

fn place(path: &Path, input: &ConfigInput) -> Result<(), String> {
    let parent = path.parent().unwrap_or(path);
    std::fs::create_dir_all(parent)
        .map_err(|error| format!("could not make {}: {error}", parent.display()))?;
    if input.directory {
        std::fs::create_dir(path)
    } else {
        std::fs::write(path, &input.contents.0)
    }
    .map_err(|error| format!("could not write {}: {error}", path.display()))
}

fn load(folders: &Folders, input: &ConfigInput, path: &Path) -> Result<(), String> {
    let provider = input.spot.provider;
    let mut options = DiscoveryOptions::default().trust(TrustPolicy::TrustAll);
    options.sources = vec![Arc::new(provider)];
    let (outcome, peak) = crate::alloc_meter::peak_during(|| {
        let files = provider.load(&folders.ctx);
        for file in &files {
            match &file.contents {
                Err(error) => names_the_file(error, &file.path)?,
                Ok(servers) => {
                    for problem in &servers.invalid {
                        names_the_server(&problem.to_string(), &problem.server)?;
                    }
                }
            }
        }
        let broken = files.iter().any(|file| file.contents.is_err());
        let walked_into = input.spot.walked && input.directory;
        if ((input.spot.listed && !walked_into) || broken)
            && !files.iter().any(|file| file.path == path)
        {
            return Err(format!("the provider did not read {}", path.display()));
        }
        let found = load_all_configs(&folders.ctx, &options);
        for problem in &found.file_errors {
            names_the_file(&problem.error, &problem.path)?;
        }
        for skipped in &found.skipped {
            if let SkipReason::Invalid(invalid) = &skipped.reason {
                if invalid.server != skipped.name {
                    return Err(format!(
                        "{:?} is skipped as invalid under the name {:?}",
                        skipped.name, invalid.server
                    ));
                }
                for problem in &invalid.problems {
                    names_the_server(&problem.to_string(), &skipped.name)?;
                }
            }
        }
        Ok(())
    });
    outcome?;
    let bound = 64 * input.contents.0.len() + 256 * 1024;
    if peak > bound {
        return Err(format!(
            "loading a file of {} bytes held {peak} bytes at once, over the bound of {bound}",
            input.contents.0.len()
        ));
    }
    Ok(())
}

fn names_the_file(error: &ConfigError, path: &Path) -> Result<(), String> {
    let shown = path.display().to_string();
    if error.path() == Some(path) && error.to_string().contains(&shown) {
        Ok(())
    } else {
        Err(format!("the error does not name {shown}: {error}"))
    }
}

/// The message names the server as messages quote names (see [`quoted_in_messages`]).
fn names_the_server(message: &str, name: &str) -> Result<(), String> {
    let quoted = quoted_in_messages(name);
    if message.starts_with(&format!("Server \"{quoted}\": ")) {
        Ok(())
    } else {
        Err(format!(
            "the message does not name the server {name:?}: {message}"
        ))
    }
}
