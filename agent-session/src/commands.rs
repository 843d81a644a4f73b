//! The `/mcp` command controller: `help`, `list`, `reload`, `add`, `remove`, `enable`,
//! `disable`, `test`, `reconnect`.
//!
//! [`run_mcp_command`] takes what follows `/mcp` on a line, splits it into words like a shell
//! does (double and single quotes, backslash escapes), runs the command against a session and
//! answers with a [`CommandOutput`]: text for people and a JSON value for programs. Every
//! usage error is one line saying what is wrong and the right form.
//!
//! `add`, `remove`, `enable` and `disable` write only this agent's own config files (through
//! [`mcp_config::writer`]) and then reload the session, so a change applies at once.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp_config::writer::{
    ChangeAction, ConfigChange, add_server, native_config_path, remove_server, set_server_enabled,
    validate_server_name,
};
use mcp_config::{
    ConfigError, DiscoveryContext, DiscoveryOptions, Level, ServerConfig, SourceMeta,
    TransportKind, validate_server_config,
};
use mcp_manager::{ConnectionStatus, LoadError};
use serde_json::{Value, json};

use crate::session::{AgentSession, DiscoverySnapshot};

/// What a command printed, for people (`text`) and for programs (`json`).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct CommandOutput {
    /// False for a usage error or a failed command.
    pub ok: bool,
    /// Human-readable text (may span lines).
    pub text: String,
    /// The same as a JSON value.
    pub json: Value,
}

impl CommandOutput {
    /// A successful output.
    pub fn ok(text: impl Into<String>, json: Value) -> Self {
        Self {
            ok: true,
            text: text.into(),
            json,
        }
    }

    /// A failed output: one line saying what is wrong and what to do.
    pub fn error(text: impl Into<String>) -> Self {
        let text = text.into();
        Self {
            ok: false,
            json: json!({"error": text}),
            text,
        }
    }
}

/// The help text of `/mcp`.
pub const HELP: &str = "\
/mcp help                                   this text
/mcp list                                   servers with status, transport, source, tool count, last error
/mcp reload                                 re-read the config files and reconnect every server
/mcp add NAME [--scope project|user] -- COMMAND [ARGS...]
                                            add a stdio server (everything after -- is its command line)
/mcp add NAME --url URL [--transport http|sse] [--scope project|user] [--token TOKEN]
                                            add a remote server (default http; --token sends
                                            \"Authorization: Bearer TOKEN\")
/mcp remove NAME [--scope project|user]     delete a server from this agent's own config
/mcp enable NAME                            turn a server back on
/mcp disable NAME                           turn a server off (also one from another tool's file)
/mcp test NAME                              ping a server: latency and tool count
/mcp reconnect NAME                         disconnect and connect one server again

add, remove, enable and disable write this agent's own config files (mode 0600) and then
reload the session automatically, so the change applies at once. --scope project (the default)
is <project>/.<agent>/mcp.json, --scope user is <config dir>/<agent>/mcp.json. Servers from
other tools' files are never edited: disable lists them in the user file's \"disabledServers\".
Quote words with spaces: --token \"a b\".";

const HELP_USAGE: &str = "usage: /mcp help";
const LIST_USAGE: &str = "usage: /mcp list";
const RELOAD_USAGE: &str = "usage: /mcp reload";
const ADD_USAGE: &str = "usage: /mcp add NAME [--scope project|user] -- COMMAND [ARGS...]  or  \
     /mcp add NAME --url URL [--transport http|sse] [--scope project|user] [--token TOKEN]";
const REMOVE_USAGE: &str = "usage: /mcp remove NAME [--scope project|user]";
const ENABLE_USAGE: &str = "usage: /mcp enable NAME";
const DISABLE_USAGE: &str = "usage: /mcp disable NAME";
const TEST_USAGE: &str = "usage: /mcp test NAME";
const RECONNECT_USAGE: &str = "usage: /mcp reconnect NAME";

/// How long `test` waits for a ping and a tool listing.
const TEST_REQUEST_TIMEOUT: Duration = Duration::from_secs(15);

/// Runs one `/mcp` command; `args` is what follows `/mcp` on the line.
pub async fn run_mcp_command(session: &Arc<AgentSession>, args: &str) -> CommandOutput {
    let words = match split_words(args) {
        Ok(words) => words,
        Err(error) => return CommandOutput::error(format!("{error}; run /mcp help for the forms")),
    };
    let Some((command, rest)) = words.split_first() else {
        return help();
    };
    match command.as_str() {
        "help" => match no_arguments(rest, HELP_USAGE) {
            Ok(()) => help(),
            Err(error) => CommandOutput::error(error),
        },
        "list" => match no_arguments(rest, LIST_USAGE) {
            Ok(()) => list(session),
            Err(error) => CommandOutput::error(error),
        },
        "reload" => match no_arguments(rest, RELOAD_USAGE) {
            Ok(()) => reload(session).await,
            Err(error) => CommandOutput::error(error),
        },
        "add" => add(session, rest).await,
        "remove" => remove(session, rest).await,
        "enable" => set_enabled(session, rest, true).await,
        "disable" => set_enabled(session, rest, false).await,
        "test" => test(session, rest).await,
        "reconnect" => reconnect(session, rest).await,
        other => CommandOutput::error(format!(
            "unknown /mcp command \"{other}\"; the commands are help, list, reload, add, remove, \
             enable, disable, test and reconnect (/mcp help)"
        )),
    }
}

fn help() -> CommandOutput {
    CommandOutput::ok(HELP, json!({"help": HELP}))
}

// ---------------------------------------------------------------------------------------------
// Splitting and parsing
// ---------------------------------------------------------------------------------------------

/// Splits a line into words the way a POSIX shell does for plain words: whitespace separates,
/// `'…'` is literal, `"…"` is literal except `\"`, `\\`, `\$` and `` \` ``, and a backslash
/// outside quotes takes the next character as is.
fn split_words(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    // Whether a word is being built (an empty quoted word `""` is still a word).
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err("unterminated single quote".to_owned()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => word.push(c),
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => return Err("unterminated double quote".to_owned()),
                        },
                        Some(c) => word.push(c),
                        None => return Err("unterminated double quote".to_owned()),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some(c) => word.push(c),
                    None => return Err("a backslash ends the line".to_owned()),
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

fn no_arguments(rest: &[String], usage: &str) -> Result<(), String> {
    match rest.first() {
        None => Ok(()),
        Some(extra) => Err(format!("unexpected argument \"{extra}\"; {usage}")),
    }
}

/// A command line's words sorted out: positional words, `--flag value` pairs, and what
/// follows `--` (when the command takes one).
#[derive(Debug, Default)]
struct Parsed {
    positionals: Vec<String>,
    flags: BTreeMap<&'static str, String>,
    command: Option<Vec<String>>,
}

impl Parsed {
    fn flag(&self, name: &str) -> Option<&str> {
        self.flags.get(name).map(String::as_str)
    }

    /// The one NAME the command takes.
    fn name(&self, usage: &str) -> Result<&str, String> {
        match self.positionals.as_slice() {
            [] => Err(format!("missing NAME; {usage}")),
            [name] => Ok(name),
            [_, extra, ..] => Err(format!("unexpected argument \"{extra}\"; {usage}")),
        }
    }
}

/// Parses `words`: flags in `flags` take a value (`--flag value` or `--flag=value`); `--`
/// ends the flags when `takes_command`, and everything after it is the command.
fn parse_words(
    words: &[String],
    flags: &[&'static str],
    takes_command: bool,
    usage: &str,
) -> Result<Parsed, String> {
    let mut parsed = Parsed::default();
    let mut iter = words.iter();
    while let Some(word) = iter.next() {
        if word == "--" {
            if !takes_command {
                return Err(format!("unexpected \"--\"; {usage}"));
            }
            parsed.command = Some(iter.by_ref().cloned().collect());
            break;
        }
        if word.len() > 1 && word.starts_with('-') {
            let (given, inline) = match word.split_once('=') {
                Some((flag, value)) => (flag, Some(value.to_owned())),
                None => (word.as_str(), None),
            };
            let Some(&flag) = flags.iter().find(|flag| **flag == given) else {
                return Err(format!("unknown flag \"{given}\"; {usage}"));
            };
            let value = match inline {
                Some(value) => value,
                None => match iter.next() {
                    Some(value) if value != "--" && !value.starts_with("--") => value.clone(),
                    _ => return Err(format!("{flag} needs a value; {usage}")),
                },
            };
            if parsed.flags.insert(flag, value).is_some() {
                return Err(format!("{flag} is given twice; {usage}"));
            }
            continue;
        }
        parsed.positionals.push(word.clone());
    }
    Ok(parsed)
}

fn parse_scope(parsed: &Parsed, usage: &str) -> Result<Option<Level>, String> {
    match parsed.flag("--scope") {
        None => Ok(None),
        Some("project") => Ok(Some(Level::Project)),
        Some("user") => Ok(Some(Level::User)),
        Some(other) => Err(format!(
            "--scope must be project or user, not \"{other}\"; {usage}"
        )),
    }
}

// ---------------------------------------------------------------------------------------------
// What the session knows about its servers
// ---------------------------------------------------------------------------------------------

/// One server as `/mcp list` shows it.
#[derive(Debug, Clone)]
struct ServerRow {
    name: String,
    status: &'static str,
    transport: Option<TransportKind>,
    source: Option<SourceMeta>,
    tools: usize,
    error: Option<String>,
}

impl ServerRow {
    fn to_json(&self) -> Value {
        json!({
            "name": self.name,
            "status": self.status,
            "transport": self.transport.map(TransportKind::as_str),
            "source": self.source.as_ref().map(source_json),
            "tools": self.tools,
            "error": self.error,
        })
    }
}

fn source_json(meta: &SourceMeta) -> Value {
    json!({
        "provider": meta.provider,
        "provider_name": meta.provider_name,
        "path": meta.path.display().to_string(),
        "level": meta.level.as_str(),
    })
}

fn describe_source(meta: &SourceMeta) -> String {
    format!(
        "{} ({}) {}",
        meta.provider_name,
        meta.level,
        meta.path.display()
    )
}

/// The server a `mcp:<server>` error path is about.
fn error_server(path: &str) -> Option<&str> {
    path.strip_prefix("mcp:")
        .map(|rest| rest.split_once(" via ").map_or(rest, |(server, _)| server))
}

/// Everything the session knows about its servers right now.
struct Servers {
    snapshot: DiscoverySnapshot,
    rows: Vec<ServerRow>,
}

impl Servers {
    fn collect(session: &AgentSession) -> Self {
        let snapshot = session.discovery();
        let manager = session.manager();
        let mut tool_counts: BTreeMap<String, usize> = BTreeMap::new();
        for tool in manager.tools() {
            *tool_counts.entry(tool.server).or_default() += 1;
        }
        let mut server_errors: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for error in &snapshot.errors {
            if let Some(server) = error_server(&error.path) {
                server_errors
                    .entry(server)
                    .or_default()
                    .push(error.error.as_str());
            }
        }
        let mut names: BTreeSet<String> = snapshot.configs.keys().cloned().collect();
        names.extend(snapshot.disabled.keys().cloned());
        names.extend(manager.server_names());
        names.extend(server_errors.keys().map(|name| (*name).to_owned()));

        // Servers discovery could not use (disabled, invalid) have no configuration in the
        // snapshot: their files are read once more for the transport and source.
        let unconfigured: BTreeSet<String> = names
            .iter()
            .filter(|name| !snapshot.configs.contains_key(*name))
            .cloned()
            .collect();
        let found = if unconfigured.is_empty() {
            BTreeMap::new()
        } else {
            session.context().map_or_else(
                |_| BTreeMap::new(),
                |ctx| {
                    find_in_files(
                        &ctx,
                        session.options().enable_project_config(),
                        &unconfigured,
                    )
                },
            )
        };

        let rows = names
            .into_iter()
            .map(|name| {
                let status = manager.get_connection_status(&name);
                let configured = snapshot.configs.get(&name);
                let disabled = configured.is_none()
                    && snapshot.disabled.contains_key(&name)
                    && status == ConnectionStatus::Disconnected;
                let in_files = found.get(&name);
                let status_text = if disabled {
                    "disabled"
                } else if configured.is_none()
                    && status == ConnectionStatus::Disconnected
                    && server_errors.contains_key(name.as_str())
                {
                    // An entry discovery rejected: it never gets to connect.
                    "invalid"
                } else {
                    status.as_str()
                };
                let error = match &status {
                    ConnectionStatus::Failed(error) => Some(error.clone()),
                    ConnectionStatus::Connected | ConnectionStatus::Connecting => None,
                    _ if disabled => None,
                    _ => server_errors
                        .get(name.as_str())
                        .map(|errors| errors.join("; ")),
                };
                ServerRow {
                    transport: configured
                        .map(ServerConfig::transport_kind)
                        .or_else(|| in_files.and_then(|(_, transport)| *transport)),
                    source: snapshot
                        .sources
                        .get(&name)
                        .or_else(|| snapshot.disabled.get(&name))
                        .cloned()
                        .or_else(|| manager.server_source(&name))
                        .or_else(|| in_files.map(|(meta, _)| meta.clone())),
                    tools: tool_counts.get(&name).copied().unwrap_or(0),
                    status: status_text,
                    error,
                    name,
                }
            })
            .collect();
        Self { snapshot, rows }
    }

    fn row(&self, name: &str) -> Option<&ServerRow> {
        self.rows.iter().find(|row| row.name == name)
    }

    /// The last load's problems, and failures the manager saw since.
    fn errors(&self) -> Vec<LoadError> {
        let mut errors = self.snapshot.errors.clone();
        for row in &self.rows {
            if let Some(error) = &row.error {
                let path = format!("mcp:{}", row.name);
                if !errors.iter().any(|e| e.path == path && &e.error == error) {
                    errors.push(LoadError::new(path, error.clone()));
                }
            }
        }
        errors
    }

    /// Where a server is defined, for the config writer.
    fn source(&self, name: &str) -> Option<SourceMeta> {
        self.row(name).and_then(|row| row.source.clone())
    }
}

/// The first definition (by provider priority) of each of `names` in the config files, with
/// its transport when the entry could be read. Never fails: a problem means "not found".
fn find_in_files(
    ctx: &DiscoveryContext,
    project_config: bool,
    names: &BTreeSet<String>,
) -> BTreeMap<String, (SourceMeta, Option<TransportKind>)> {
    let options = DiscoveryOptions::default();
    // A provider is code of any origin: a panic in one must not take the command down.
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut found = BTreeMap::new();
        for source in &options.sources {
            for file in source.load(ctx) {
                if file.level == Level::Project && !project_config {
                    continue;
                }
                let Ok(contents) = &file.contents else {
                    continue;
                };
                let meta = || SourceMeta::new(source.id(), source.name(), &file.path, file.level);
                let entries = contents
                    .servers
                    .iter()
                    .map(|(name, config)| (name, Some(config.transport_kind())))
                    .chain(contents.invalid.iter().map(|(name, _)| (name, None)));
                for (name, transport) in entries {
                    if names.contains(name) && !found.contains_key(name) {
                        found.insert(name.clone(), (meta(), transport));
                    }
                }
            }
        }
        found
    }))
    .unwrap_or_default()
}

/// `path: error`, or just the error when it names the path already.
fn problem_line(error: &LoadError) -> String {
    if error.error.contains(&error.path) {
        error.error.clone()
    } else {
        format!("{}: {}", error.path, error.error)
    }
}

fn errors_json(errors: &[LoadError]) -> Value {
    Value::Array(
        errors
            .iter()
            .map(|error| json!({"path": error.path, "error": error.error}))
            .collect(),
    )
}

fn unknown_server(name: &str, usage: &str) -> String {
    format!("unknown server \"{name}\" (/mcp list shows the servers); {usage}")
}

// ---------------------------------------------------------------------------------------------
// list
// ---------------------------------------------------------------------------------------------

fn list(session: &AgentSession) -> CommandOutput {
    let servers = Servers::collect(session);
    let errors = servers.errors();
    let mut text = String::new();
    if servers.rows.is_empty() {
        text.push_str("no MCP servers are configured (/mcp add adds one)\n");
    } else {
        let header = ["NAME", "STATUS", "TRANSPORT", "TOOLS", "SOURCE"];
        let cells: Vec<[String; 5]> = servers
            .rows
            .iter()
            .map(|row| {
                [
                    row.name.clone(),
                    row.status.to_owned(),
                    row.transport.map_or("-", TransportKind::as_str).to_owned(),
                    row.tools.to_string(),
                    row.source
                        .as_ref()
                        .map_or_else(|| "-".to_owned(), describe_source),
                ]
            })
            .collect();
        let mut widths = header.map(str::len);
        for row in &cells {
            for (width, cell) in widths.iter_mut().zip(row) {
                *width = (*width).max(cell.chars().count());
            }
        }
        let line = |text: &mut String, cells: [&str; 5]| {
            let mut out = String::new();
            for (index, (cell, width)) in cells.iter().zip(widths).enumerate() {
                if index == cells.len() - 1 {
                    out.push_str(cell);
                } else if index == 3 {
                    let _ = write!(out, "{cell:>width$}  ");
                } else {
                    let _ = write!(out, "{cell:<width$}  ");
                }
            }
            text.push_str(out.trim_end());
            text.push('\n');
        };
        line(&mut text, header);
        for (row, cells) in servers.rows.iter().zip(&cells) {
            line(&mut text, cells.each_ref().map(String::as_str));
            if let Some(error) = &row.error {
                let _ = writeln!(text, "  error: {error}");
            }
        }
    }
    let file_errors: Vec<&LoadError> = errors
        .iter()
        .filter(|error| error_server(&error.path).is_none())
        .collect();
    if !file_errors.is_empty() {
        text.push_str("problems:\n");
        for error in file_errors {
            let _ = writeln!(text, "  {}", problem_line(error));
        }
    }
    let json = json!({
        "servers": servers.rows.iter().map(ServerRow::to_json).collect::<Vec<_>>(),
        "errors": errors_json(&errors),
    });
    CommandOutput::ok(text.trim_end(), json)
}

// ---------------------------------------------------------------------------------------------
// reload
// ---------------------------------------------------------------------------------------------

/// What a reload gave.
struct Reloaded {
    errors: Vec<LoadError>,
    servers: Servers,
}

impl Reloaded {
    async fn run(session: &AgentSession) -> Self {
        let errors = session.reload().await;
        Self {
            errors,
            servers: Servers::collect(session),
        }
    }

    fn count(&self, status: &str) -> usize {
        self.servers
            .rows
            .iter()
            .filter(|row| row.status == status)
            .count()
    }

    fn tools(&self) -> usize {
        self.servers.rows.iter().map(|row| row.tools).sum()
    }

    /// `reloaded: 2 of 3 servers connected, 7 tools` and the problems, one per line.
    fn text(&self) -> String {
        let mut text = self.summary();
        for error in &self.errors {
            let _ = write!(text, "\n  {}", problem_line(error));
        }
        text
    }

    /// The summary line alone, with the number of problems (`/mcp list` shows them).
    fn short_text(&self) -> String {
        let mut text = self.summary();
        match self.errors.len() {
            0 => {}
            1 => text.push_str("; 1 problem (/mcp list shows it)"),
            count => {
                let _ = write!(text, "; {count} problems (/mcp list shows them)");
            }
        }
        text
    }

    /// `reloaded: 2 of 3 servers connected, 7 tools`.
    fn summary(&self) -> String {
        let configured = self.servers.snapshot.configs.len();
        let connecting = self.count("connecting");
        let mut text = format!(
            "reloaded: {} of {configured} server{} connected",
            self.count("connected"),
            if configured == 1 { "" } else { "s" },
        );
        if connecting > 0 {
            let _ = write!(text, " ({connecting} still connecting)");
        }
        let _ = write!(text, ", {} tools", self.tools());
        text
    }

    fn json(&self) -> Value {
        json!({
            "servers": self.servers.snapshot.configs.len(),
            "connected": self.count("connected"),
            "connecting": self.count("connecting"),
            "tools": self.tools(),
            "errors": errors_json(&self.errors),
        })
    }

    /// One server's state after the reload: `(status, tools, error)`.
    fn server(&self, name: &str) -> (&'static str, usize, Option<String>) {
        self.servers.row(name).map_or(("absent", 0, None), |row| {
            (row.status, row.tools, row.error.clone())
        })
    }
}

async fn reload(session: &AgentSession) -> CommandOutput {
    let reloaded = Reloaded::run(session).await;
    let mut json = reloaded.json();
    json["reloaded"] = Value::Bool(true);
    CommandOutput::ok(reloaded.text(), json)
}

/// `"name" is connected with 3 tools` (or why not).
fn server_line(name: &str, status: &str, tools: usize, error: Option<&str>) -> String {
    match (status, error) {
        ("failed", Some(error)) => format!("\"{name}\" failed: {error}"),
        (_, Some(error)) => format!("\"{name}\" is {status}: {error}"),
        ("connected" | "connecting", None) => {
            format!("\"{name}\" is {status} with {tools} tool{}", plural(tools))
        }
        _ => format!("\"{name}\" is {status}"),
    }
}

fn plural(count: usize) -> &'static str {
    if count == 1 { "" } else { "s" }
}

// ---------------------------------------------------------------------------------------------
// add
// ---------------------------------------------------------------------------------------------

/// Turns the words of `add` into a name, a level and a configuration.
fn parse_add(rest: &[String]) -> Result<(String, Level, ServerConfig), String> {
    let parsed = parse_words(
        rest,
        &["--scope", "--url", "--transport", "--token"],
        true,
        ADD_USAGE,
    )?;
    let name = parsed.name(ADD_USAGE)?.to_owned();
    validate_server_name(&name).map_err(|error| format!("{error}; {ADD_USAGE}"))?;
    let level = parse_scope(&parsed, ADD_USAGE)?.unwrap_or(Level::Project);
    let config = match (&parsed.command, parsed.flag("--url")) {
        (Some(_), Some(_)) => {
            return Err(format!(
                "give either --url URL or -- COMMAND, not both; {ADD_USAGE}"
            ));
        }
        (None, None) => {
            return Err(format!(
                "missing \"-- COMMAND\" or \"--url URL\" for \"{name}\"; {ADD_USAGE}"
            ));
        }
        (Some(command), None) => {
            for flag in ["--transport", "--token"] {
                if parsed.flag(flag).is_some() {
                    return Err(format!(
                        "{flag} only applies to a remote server (--url); {ADD_USAGE}"
                    ));
                }
            }
            let Some((program, args)) = command.split_first() else {
                return Err(format!("missing COMMAND after \"--\"; {ADD_USAGE}"));
            };
            if program.trim().is_empty() {
                return Err(format!("the COMMAND after \"--\" is empty; {ADD_USAGE}"));
            }
            ServerConfig::stdio(program.clone(), args.iter().cloned())
        }
        (None, Some(url)) => {
            let kind = match parsed.flag("--transport") {
                None | Some("http") => TransportKind::Http,
                Some("sse") => TransportKind::Sse,
                Some(other) => {
                    return Err(format!(
                        "--transport must be http or sse, not \"{other}\"; {ADD_USAGE}"
                    ));
                }
            };
            let mut config = ServerConfig::remote(kind, url);
            if let Some(token) = parsed.flag("--token") {
                if token.is_empty() {
                    return Err(format!("--token is empty; {ADD_USAGE}"));
                }
                config
                    .headers
                    .insert("Authorization".to_owned(), format!("Bearer {token}"));
            }
            config
        }
    };
    // `${VAR}` references are expanded at discovery; a config with them is checked then.
    let unexpanded = config.url.iter().any(|url| url.contains("${"))
        || config.command.iter().any(|command| command.contains("${"));
    if !unexpanded {
        let problems = validate_server_config(&name, &config);
        if !problems.is_empty() {
            return Err(format!("{}; {ADD_USAGE}", problems.join("; ")));
        }
    }
    Ok((name, level, config))
}

async fn add(session: &AgentSession, rest: &[String]) -> CommandOutput {
    let (name, level, config) = match parse_add(rest) {
        Ok(parsed) => parsed,
        Err(error) => return CommandOutput::error(error),
    };
    let ctx = match session.context() {
        Ok(ctx) => ctx,
        Err(error) => return CommandOutput::error(error),
    };
    let path = match add_server(&ctx, level, &name, &config) {
        Ok(path) => path,
        Err(error) => return CommandOutput::error(one_line(&error.to_string())),
    };
    let reloaded = Reloaded::run(session).await;
    let (status, tools, error) = reloaded.server(&name);
    let mut text = format!("added \"{name}\" to {} ({level} config)\n", path.display());
    if level == Level::Project && !session.options().enable_project_config() {
        text.push_str(
            "note: project config is off in this session, so this server is not loaded; \
             add it with --scope user instead\n",
        );
    }
    text.push_str(&server_line(&name, status, tools, error.as_deref()));
    text.push('\n');
    text.push_str(&reloaded.short_text());
    let json = json!({
        "added": name,
        "scope": level.as_str(),
        "path": path.display().to_string(),
        "transport": config.transport_kind().as_str(),
        "status": status,
        "tools": tools,
        "error": error,
        "reload": reloaded.json(),
    });
    CommandOutput::ok(text, json)
}

// ---------------------------------------------------------------------------------------------
// remove
// ---------------------------------------------------------------------------------------------

async fn remove(session: &AgentSession, rest: &[String]) -> CommandOutput {
    let parsed = match parse_words(rest, &["--scope"], false, REMOVE_USAGE) {
        Ok(parsed) => parsed,
        Err(error) => return CommandOutput::error(error),
    };
    let (name, scope) = match parsed
        .name(REMOVE_USAGE)
        .and_then(|name| Ok((name.to_owned(), parse_scope(&parsed, REMOVE_USAGE)?)))
    {
        Ok(found) => found,
        Err(error) => return CommandOutput::error(error),
    };
    let ctx = match session.context() {
        Ok(ctx) => ctx,
        Err(error) => return CommandOutput::error(error),
    };
    let servers = Servers::collect(session);
    let source = servers.source(&name);
    let native_level = source
        .as_ref()
        .filter(|meta| is_native(&ctx, meta))
        .map(|meta| meta.level);
    let levels = match (scope, native_level) {
        (Some(level), _) => vec![level],
        (None, Some(Level::User)) => vec![Level::User, Level::Project],
        (None, _) => vec![Level::Project, Level::User],
    };
    let mut removed = None;
    let mut failure = None;
    for level in &levels {
        match remove_server(&ctx, *level, &name) {
            Ok(path) => {
                removed = Some((*level, path));
                break;
            }
            // Not in this file: try the next one.
            Err(ConfigError::Invalid(_)) => {}
            // A file that cannot be read or parsed: try the next one, report it if nothing
            // else explains better.
            Err(error) => {
                failure.get_or_insert(error);
            }
        }
    }
    let foreign = source.as_ref().is_some_and(|meta| !is_native(&ctx, meta));
    if let (None, Some(error), false) = (&removed, failure, foreign) {
        return CommandOutput::error(one_line(&error.to_string()));
    }
    let Some((level, path)) = removed else {
        let files: Vec<String> = levels
            .iter()
            .map(|level| native_config_path(&ctx, *level).display().to_string())
            .collect();
        let files = files.join(" or ");
        return CommandOutput::error(match source {
            Some(meta) if !is_native(&ctx, &meta) => format!(
                "\"{name}\" is not in this agent's config ({files}); it is defined in {}'s {} \
                 config {}, which /mcp does not edit; /mcp disable {name} turns it off instead",
                meta.provider_name,
                meta.level,
                meta.path.display()
            ),
            Some(meta) => format!(
                "\"{name}\" is not in {files}; it is defined in {}; {REMOVE_USAGE}",
                meta.path.display()
            ),
            None => unknown_server(&name, REMOVE_USAGE),
        });
    };
    let reloaded = Reloaded::run(session).await;
    let mut text = format!(
        "removed \"{name}\" from {} ({level} config)\n",
        path.display()
    );
    let still = reloaded.servers.row(&name).cloned();
    if let Some(row) = &still {
        let _ = writeln!(
            text,
            "note: \"{name}\" is still defined in {}, which is used now",
            row.source
                .as_ref()
                .map_or_else(|| "another file".to_owned(), describe_source)
        );
    }
    text.push_str(&reloaded.short_text());
    let json = json!({
        "removed": name,
        "scope": level.as_str(),
        "path": path.display().to_string(),
        "still_defined": still.map(|row| row.to_json()),
        "reload": reloaded.json(),
    });
    CommandOutput::ok(text, json)
}

/// Whether a definition is in one of this agent's own files.
fn is_native(ctx: &DiscoveryContext, meta: &SourceMeta) -> bool {
    meta.path == ctx.native_project_file() || meta.path == ctx.native_user_file()
}

// ---------------------------------------------------------------------------------------------
// enable / disable
// ---------------------------------------------------------------------------------------------

fn action_name(action: ChangeAction) -> &'static str {
    match action {
        ChangeAction::Added => "added",
        ChangeAction::Removed => "removed",
        ChangeAction::SetEnabledFalse => "set_enabled_false",
        ChangeAction::RemovedEnabledFlag => "removed_enabled_flag",
        ChangeAction::AddedToDisabledServers => "added_to_disabled_servers",
        ChangeAction::RemovedFromDisabledServers => "removed_from_disabled_servers",
        _ => "changed",
    }
}

fn change_json(change: &ConfigChange) -> Value {
    json!({
        "path": change.path.display().to_string(),
        "server": change.server,
        "action": action_name(change.action),
        "text": change.to_string(),
    })
}

async fn set_enabled(session: &AgentSession, rest: &[String], enabled: bool) -> CommandOutput {
    let (verb, usage) = if enabled {
        ("enable", ENABLE_USAGE)
    } else {
        ("disable", DISABLE_USAGE)
    };
    let name =
        match parse_words(rest, &[], false, usage).and_then(|p| Ok(p.name(usage)?.to_owned())) {
            Ok(name) => name,
            Err(error) => return CommandOutput::error(error),
        };
    let servers = Servers::collect(session);
    let Some(row) = servers.row(&name) else {
        return CommandOutput::error(unknown_server(&name, usage));
    };
    let source = row.source.clone();
    let ctx = match session.context() {
        Ok(ctx) => ctx,
        Err(error) => return CommandOutput::error(error),
    };
    let changes = match set_server_enabled(&ctx, &name, enabled, source.as_ref()) {
        Ok(changes) => changes,
        Err(error) => return CommandOutput::error(one_line(&error.to_string())),
    };
    let reloaded = Reloaded::run(session).await;
    let now_disabled = reloaded.servers.snapshot.disabled.contains_key(&name);
    let now_configured = reloaded.servers.snapshot.configs.contains_key(&name);
    if enabled && now_disabled && changes.is_empty() {
        let place = reloaded
            .servers
            .snapshot
            .disabled
            .get(&name)
            .map_or_else(|| "another tool's file".to_owned(), describe_source);
        return CommandOutput::error(format!(
            "\"{name}\" is switched off in {place}, which /mcp does not edit; turn it on there"
        ));
    }
    let mut text = String::new();
    if changes.is_empty() {
        let _ = writeln!(text, "\"{name}\" was already {verb}d; nothing was written");
    }
    for change in &changes {
        let _ = writeln!(text, "{change}");
    }
    if !enabled && now_configured {
        let place = reloaded
            .servers
            .row(&name)
            .and_then(|row| row.source.as_ref())
            .map_or_else(|| "another file".to_owned(), describe_source);
        let _ = writeln!(
            text,
            "note: \"{name}\" is still on: its definition in {place} is used now; run \
             /mcp disable {name} again to switch that one off too"
        );
    }
    if enabled && now_disabled {
        let _ = writeln!(
            text,
            "note: \"{name}\" is still switched off elsewhere (see /mcp list)"
        );
    }
    let (status, tools, error) = reloaded.server(&name);
    text.push_str(&server_line(&name, status, tools, error.as_deref()));
    text.push('\n');
    text.push_str(&reloaded.short_text());
    let mut json = json!({
        "server": name,
        "changes": changes.iter().map(change_json).collect::<Vec<_>>(),
        "status": status,
        "tools": reloaded.tools(),
        "reload": reloaded.json(),
    });
    // `{"enabled": name}` or `{"disabled": name}`.
    json[format!("{verb}d")] = Value::String(name);
    CommandOutput::ok(text, json)
}

// ---------------------------------------------------------------------------------------------
// test / reconnect
// ---------------------------------------------------------------------------------------------

/// How long to wait for a connecting server: its connect timeout, plus a margin.
fn connect_wait(session: &AgentSession, name: &str) -> Duration {
    let timeout_ms = session
        .discovery()
        .configs
        .get(name)
        .map_or(mcp_config::DEFAULT_TIMEOUT_MS, ServerConfig::timeout_ms);
    Duration::from_millis(timeout_ms) + Duration::from_secs(1)
}

/// The usage error for a server that cannot be used now, or `None` when it is configured.
fn not_usable(servers: &Servers, name: &str, usage: &str) -> Option<String> {
    let Some(row) = servers.row(name) else {
        return Some(unknown_server(name, usage));
    };
    if row.status == "disabled" {
        return Some(format!(
            "\"{name}\" is disabled; /mcp enable {name} turns it on"
        ));
    }
    if !servers.snapshot.configs.contains_key(name) {
        return Some(match &row.error {
            Some(error) => format!("\"{name}\" cannot be used: {}", one_line(error)),
            None => format!(
                "\"{name}\" is not configured any more; /mcp reload re-reads the config files"
            ),
        });
    }
    None
}

async fn test(session: &AgentSession, rest: &[String]) -> CommandOutput {
    let name = match parse_words(rest, &[], false, TEST_USAGE)
        .and_then(|p| Ok(p.name(TEST_USAGE)?.to_owned()))
    {
        Ok(name) => name,
        Err(error) => return CommandOutput::error(error),
    };
    let servers = Servers::collect(session);
    if let Some(error) = not_usable(&servers, &name, TEST_USAGE) {
        return CommandOutput::error(error);
    }
    let manager = session.manager();
    match manager.get_connection_status(&name) {
        ConnectionStatus::Connected | ConnectionStatus::Connecting => {}
        ConnectionStatus::Failed(error) => {
            return CommandOutput::error(format!(
                "\"{name}\" failed: {}; /mcp reconnect {name} tries again",
                one_line(&error)
            ));
        }
        _ => {
            return CommandOutput::error(format!(
                "\"{name}\" is not connected; /mcp reconnect {name} connects it"
            ));
        }
    }
    let waited = tokio::time::timeout(
        connect_wait(session, &name),
        manager.wait_for_connection(&name),
    )
    .await;
    let client = match waited {
        Ok(Ok(client)) => client,
        Ok(Err(error)) => {
            return CommandOutput::error(format!("\"{name}\": {}", one_line(&error)));
        }
        Err(_) => {
            return CommandOutput::error(format!(
                "\"{name}\" is still connecting; try /mcp test {name} again later"
            ));
        }
    };
    let started = Instant::now();
    match tokio::time::timeout(TEST_REQUEST_TIMEOUT, client.ping()).await {
        Ok(Ok(())) => {}
        Ok(Err(error)) => {
            return CommandOutput::error(format!(
                "\"{name}\" did not answer ping: {}",
                one_line(&error.to_string())
            ));
        }
        Err(_) => {
            return CommandOutput::error(format!(
                "\"{name}\" did not answer ping within {} s",
                TEST_REQUEST_TIMEOUT.as_secs()
            ));
        }
    }
    let latency = started.elapsed();
    let tools = match tokio::time::timeout(TEST_REQUEST_TIMEOUT, client.list_tools()).await {
        Ok(Ok(tools)) => tools.len(),
        Ok(Err(error)) => {
            return CommandOutput::error(format!(
                "\"{name}\" answered ping but not tools/list: {}",
                one_line(&error.to_string())
            ));
        }
        Err(_) => {
            return CommandOutput::error(format!(
                "\"{name}\" answered ping but not tools/list within {} s",
                TEST_REQUEST_TIMEOUT.as_secs()
            ));
        }
    };
    let latency_ms = (latency.as_secs_f64() * 10_000.0).round() / 10.0;
    let text = format!(
        "\"{name}\" is connected: ping {latency_ms} ms, {tools} tool{}",
        plural(tools)
    );
    CommandOutput::ok(
        text,
        json!({
            "server": name,
            "status": "connected",
            "latency_ms": latency_ms,
            "tools": tools,
        }),
    )
}

async fn reconnect(session: &AgentSession, rest: &[String]) -> CommandOutput {
    let name = match parse_words(rest, &[], false, RECONNECT_USAGE)
        .and_then(|p| Ok(p.name(RECONNECT_USAGE)?.to_owned()))
    {
        Ok(name) => name,
        Err(error) => return CommandOutput::error(error),
    };
    let servers = Servers::collect(session);
    if let Some(error) = not_usable(&servers, &name, RECONNECT_USAGE) {
        return CommandOutput::error(error);
    }
    if let Err(error) = session.reconnect(&name).await {
        return CommandOutput::error(format!(
            "could not reconnect \"{name}\": {}",
            one_line(&error)
        ));
    }
    // A server with cached tools may still be connecting after the gate: wait for it, so the
    // answer says how it went.
    let manager = session.manager();
    if manager.get_connection_status(&name) == ConnectionStatus::Connecting {
        let waited = tokio::time::timeout(
            connect_wait(session, &name),
            manager.wait_for_connection(&name),
        )
        .await;
        if let Ok(Err(error)) = waited {
            return CommandOutput::error(format!(
                "could not reconnect \"{name}\": {}",
                one_line(&error)
            ));
        }
    }
    let servers = Servers::collect(session);
    let (status, tools, error) = servers.row(&name).map_or(("absent", 0, None), |row| {
        (row.status, row.tools, row.error.clone())
    });
    if let Some(error) = &error {
        return CommandOutput::error(format!(
            "could not reconnect \"{name}\": {}",
            one_line(error)
        ));
    }
    CommandOutput::ok(
        format!(
            "reconnected \"{name}\": {status}, {tools} tool{}",
            plural(tools)
        ),
        json!({"reconnected": name, "status": status, "tools": tools, "error": Value::Null}),
    )
}

/// Joins the lines of a message (e.g. a server's stderr tail) into one.
fn one_line(text: &str) -> String {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect();
    lines.join(" | ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        split_words(line).unwrap()
    }

    #[test]
    fn words_split_like_a_shell() {
        assert_eq!(words("  add  x -- a b "), ["add", "x", "--", "a", "b"]);
        assert_eq!(words("--token \"a b\""), ["--token", "a b"]);
        assert_eq!(words("--token 'a \"b\" c'"), ["--token", "a \"b\" c"]);
        assert_eq!(words(r#"x"y z"w"#), ["xy zw"]);
        assert_eq!(words(r#""a \"q\" \\ \n""#), [r#"a "q" \ \n"#]);
        assert_eq!(words(r"a\ b"), ["a b"]);
        assert_eq!(words("'' \"\""), ["", ""]);
        assert!(words("").is_empty());
        assert!(split_words("'open").is_err());
        assert!(split_words("\"open").is_err());
        assert!(split_words("end\\").is_err());
    }

    fn parse(line: &str) -> Result<(String, Level, ServerConfig), String> {
        parse_add(&words(line))
    }

    #[test]
    fn add_parses_both_forms() {
        let (name, level, config) = parse("x --scope user -- npx -y 'a server' --scope p").unwrap();
        assert_eq!((name.as_str(), level), ("x", Level::User));
        assert_eq!(config.command.as_deref(), Some("npx"));
        assert_eq!(config.args, ["-y", "a server", "--scope", "p"]);

        let (_, level, config) =
            parse("r --url=https://h/mcp --transport sse --token \"a b\"").unwrap();
        assert_eq!(level, Level::Project);
        assert_eq!(config.transport_kind(), TransportKind::Sse);
        assert_eq!(config.headers["Authorization"], "Bearer a b");
    }

    #[test]
    fn add_usage_errors_are_one_line() {
        for line in [
            "",
            "x",
            "x --",
            "x y -- c",
            "x --url",
            "x --url http://h -- c",
            "x --scope team -- c",
            "x --transport ws --url http://h",
            "x --token t -- c",
            "x --bogus -- c",
            "'a b' -- c",
            "x --scope user --scope user -- c",
            "x --url ftp://h",
        ] {
            let error = parse(line).unwrap_err();
            assert!(!error.contains('\n'), "{line}: {error}");
            assert!(error.contains(ADD_USAGE), "{line}: {error}");
        }
    }

    #[test]
    fn multi_line_messages_become_one_line() {
        assert_eq!(one_line("a\n\n  b \nc"), "a | b | c");
    }
}
