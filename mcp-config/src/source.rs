//! The [`ConfigSource`] trait (one per tool whose files we read), what a provider gives back for
//! each file ([`SourceFile`], [`FileServers`]), and the helpers providers share to turn a file's
//! text into servers: a broken file is an error naming it, never a panic. Reading the text is
//! [`read_config_file`]'s job, and [`UserDir`] finds the user's config, cache and state folders.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::context::DiscoveryContext;
use crate::error::{ConfigError, ShapeProblem};
use crate::origin::Level;
use crate::problems::{EntryProblem, ServerProblem, Shared};
use crate::raw_entry::RawServerConfig;
use crate::server_config::ServerConfig;

pub use crate::read_pass::{LookedAt, MAX_CONFIG_FILE_BYTES, in_read_pass, read_config_file};
pub use crate::user_dirs::UserDir;

/// Reads one tool's MCP configuration files.
///
/// Providers are trait objects so an agent can add its own. Their order in the list given to
/// [`load_all_configs`](crate::load_all_configs) is their priority, highest first.
pub trait ConfigSource: Send + Sync {
    /// A stable id, e.g. `claude-code`; used to disable a provider and in source metadata.
    fn id(&self) -> &str;

    /// A display name, e.g. `Claude Code`.
    fn name(&self) -> &str;

    /// Reads the provider's files that exist, project files before user files (inside one
    /// provider, the project definition of a server beats the user's). Files that do not
    /// exist are left out; every other problem is that file's error.
    ///
    /// Project files are looked for where the tool documents it: in the working folder only,
    /// or in each of [`DiscoveryContext::project_folders`] (nearest first when the nearer file
    /// wins), never anywhere else above the working folder.
    fn load(&self, ctx: &DiscoveryContext) -> Vec<SourceFile>;

    /// This tool's project files that exist in a folder above the working folder (up to the
    /// repository root) but that the tool would not read from here, because it reads them only
    /// in the folder it starts in. Discovery reports each as a note; nothing reads them.
    /// Default: none (a tool that looks in parent folders, or one without project files).
    fn unread_project_files(&self, ctx: &DiscoveryContext) -> Vec<UnreadProjectFile> {
        let _ = ctx;
        Vec::new()
    }
}

/// A project file of a tool that reads it only in the folder it starts in, found in a folder
/// above the working folder: discovery did not read it, as that tool would not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct UnreadProjectFile {
    /// The provider's id, e.g. `vscode`.
    pub provider: String,
    /// The provider's display name, e.g. `VS Code`.
    pub provider_name: String,
    /// The file.
    pub path: PathBuf,
    /// The folder it is read from: run there (or make it the working folder) to use it.
    pub folder: PathBuf,
    /// The working folder it is not read from.
    pub working_folder: PathBuf,
    /// The tool's rule in a few words, e.g. `VS Code reads it only in the workspace folder`.
    pub rule: String,
}

impl UnreadProjectFile {
    /// A file of `provider` (id and display name) at `path` in `folder`, not read from
    /// `working_folder` because of `rule`.
    pub fn new(
        provider: (&str, &str),
        path: impl Into<PathBuf>,
        folder: impl Into<PathBuf>,
        working_folder: impl Into<PathBuf>,
        rule: impl Into<String>,
    ) -> Self {
        Self {
            provider: provider.0.to_owned(),
            provider_name: provider.1.to_owned(),
            path: path.into(),
            folder: folder.into(),
            working_folder: working_folder.into(),
            rule: rule.into(),
        }
    }
}

impl fmt::Display for UnreadProjectFile {
    /// `/repo/.vscode/mcp.json is not read from /repo/src (VS Code reads it only in the
    /// workspace folder)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} is not read from {} ({})",
            self.path.display(),
            self.working_folder.display(),
            self.rule
        )
    }
}

impl fmt::Debug for dyn ConfigSource {
    /// A provider shows as its id.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("ConfigSource").field(&self.id()).finish()
    }
}

/// One file a provider read.
#[derive(Debug)]
#[non_exhaustive]
pub struct SourceFile {
    /// The file.
    pub path: PathBuf,
    /// Project or user level.
    pub level: Level,
    /// What it holds, or why it could not be read.
    pub contents: Result<FileServers, ConfigError>,
}

impl SourceFile {
    /// A file that was read.
    pub fn new(
        path: impl Into<PathBuf>,
        level: Level,
        contents: Result<FileServers, ConfigError>,
    ) -> Self {
        Self {
            path: path.into(),
            level,
            contents,
        }
    }
}

/// The servers of one file.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct FileServers {
    /// The server definitions in file order, in the runtime's shape (values not yet expanded).
    pub servers: Vec<(String, ServerConfig)>,
    /// Entries that could not be turned into a definition, each with its server's name.
    pub invalid: Vec<ServerProblem>,
    /// Names listed in the file's `disabledServers`: every definition of these names, from
    /// any provider, is skipped. Only the native user file fills it; other tools' switch-offs
    /// become `enabled: false` on their own entries.
    pub disabled_servers: Vec<String>,
}

impl FileServers {
    /// Adds an entry: the definition, or why it could not be converted (which then becomes
    /// that server's problem).
    pub fn push(&mut self, name: &str, converted: Result<ServerConfig, EntryProblem>) {
        match converted {
            Ok(config) => self.servers.push((name.to_owned(), config)),
            Err(problem) => self.invalid.push(ServerProblem::new(name, problem.into())),
        }
    }
}

/// Parses strict JSON; an empty (or all-whitespace) file counts as `{}`.
pub fn parse_json(path: &Path, text: &str) -> Result<Value, ConfigError> {
    if text.trim().is_empty() {
        return Ok(Value::Object(serde_json::Map::new()));
    }
    serde_json::from_str(text).map_err(|error| ConfigError::Parse {
        path: path.to_owned(),
        format: "JSON",
        message: error.to_string(),
    })
}

/// Parses TOML into a table. The error names the line and column and what the parser
/// expected, never the text of the line: a broken line in a config file is often the one
/// holding a token (`env = { GITHUB_TOKEN = "ghp_…", X = }`).
pub(crate) fn parse_toml(path: &Path, text: &str) -> Result<toml::Table, ConfigError> {
    toml::from_str(text).map_err(|error| {
        let what = error.message().trim_end();
        let message = match error.span() {
            Some(span) => {
                let (line, column) = line_and_column(text, span.start);
                format!("{what} at line {line} column {column}")
            }
            None => what.to_owned(),
        };
        ConfigError::Parse {
            path: path.to_owned(),
            format: "TOML",
            message,
        }
    })
}

/// The 1-based line and column (in characters) of byte `offset` of `text`.
fn line_and_column(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset).unwrap_or(text);
    let line_start = before.rfind('\n').map_or(0, |index| index + 1);
    let line = before.matches('\n').count() + 1;
    (line, before[line_start..].chars().count() + 1)
}

/// Parses YAML into the JSON shape the providers read; an empty (or all-whitespace) file counts
/// as `{}`. The parser's input budgets are on (an alias bomb is refused, not expanded), and its
/// errors name the line and column without quoting the line, which may hold a token.
pub(crate) fn parse_yaml(path: &Path, text: &str) -> Result<Value, ConfigError> {
    if text.trim().is_empty() {
        return Ok(Value::Object(serde_json::Map::new()));
    }
    let mut options = serde_saphyr::Options::default();
    options.with_snippet = false;
    let value: Value =
        serde_saphyr::from_str_with_options(text, options).map_err(|error| ConfigError::Parse {
            path: path.to_owned(),
            format: "YAML",
            message: error.to_string(),
        })?;
    // A document of only comments, or `~`, holds nothing.
    Ok(if value.is_null() {
        Value::Object(serde_json::Map::new())
    } else {
        value
    })
}

/// Parses JSON with comments (`//`, `/* */`) and trailing commas, as VS Code and OpenCode
/// write it. Line and column numbers in errors refer to the original text.
pub fn parse_jsonc(path: &Path, text: &str) -> Result<Value, ConfigError> {
    let plain = strip_jsonc(text);
    if plain.trim().is_empty() {
        return Ok(Value::Object(serde_json::Map::new()));
    }
    serde_json::from_str(&plain).map_err(|error| ConfigError::Parse {
        path: path.to_owned(),
        format: "JSON with comments",
        message: error.to_string(),
    })
}

/// Replaces comments and trailing commas with spaces (newlines kept), so positions stay put.
fn strip_jsonc(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = bytes.to_vec();
    let mut index = 0;
    let mut in_string = false;
    // The position of a comma that may turn out to be trailing.
    let mut pending_comma: Option<usize> = None;
    while index < bytes.len() {
        let byte = bytes[index];
        if in_string {
            match byte {
                b'\\' => index += 1,
                b'"' => in_string = false,
                _ => {}
            }
            index += 1;
            continue;
        }
        match byte {
            b'"' => {
                in_string = true;
                pending_comma = None;
            }
            b'/' if bytes.get(index + 1) == Some(&b'/') => {
                while index < bytes.len() && bytes[index] != b'\n' {
                    out[index] = b' ';
                    index += 1;
                }
                continue;
            }
            b'/' if bytes.get(index + 1) == Some(&b'*') => {
                let start = index;
                index += 2;
                while index < bytes.len()
                    && !(bytes[index] == b'*' && bytes.get(index + 1) == Some(&b'/'))
                {
                    index += 1;
                }
                let end = (index + 2).min(bytes.len());
                for slot in &mut out[start..end] {
                    if *slot != b'\n' {
                        *slot = b' ';
                    }
                }
                index = end;
                continue;
            }
            b',' => pending_comma = Some(index),
            b'}' | b']' => {
                if let Some(comma) = pending_comma.take() {
                    out[comma] = b' ';
                }
            }
            byte if byte.is_ascii_whitespace() => {}
            _ => pending_comma = None,
        }
        index += 1;
    }
    // Only ASCII bytes outside strings were replaced by ASCII spaces: still valid UTF-8.
    String::from_utf8(out)
        .unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned())
}

/// Reads the usual `{"<key>": {"name": {...}}}` layout: each entry of the object at `key` goes
/// through `convert`; an entry `convert` refuses becomes that server's problem. A missing key is
/// an empty file; a key that is not an object is the file's error.
pub fn servers_under_key(
    path: &Path,
    root: &Value,
    key: &str,
    mut convert: impl FnMut(&str, &Value) -> Result<ServerConfig, EntryProblem>,
) -> Result<FileServers, ConfigError> {
    let mut file = FileServers::default();
    let Some(root) = root.as_object() else {
        return Err(ConfigError::shape(path, ShapeProblem::NotAnObject));
    };
    match root.get(key) {
        None | Some(Value::Null) => {}
        Some(Value::Object(entries)) => {
            for (name, entry) in entries {
                file.push(name, convert(name, entry));
            }
        }
        Some(_) => {
            return Err(ConfigError::shape(
                path,
                ShapeProblem::NotAServerMap {
                    key: key.to_owned(),
                },
            ));
        }
    }
    Ok(file)
}

/// Converts an entry already in the runtime's own shape (`command`, `args`, `env`, `url`,
/// `headers`, `type`, …), which most tools share. A refused entry's problem says what to fix
/// (a field of the wrong type, no command and no URL, both, an unknown `type`).
pub fn standard_entry(entry: &Value) -> Result<ServerConfig, EntryProblem> {
    if !entry.is_object() {
        return Err(EntryProblem::NotAnObject);
    }
    RawServerConfig::deserialize(entry)
        .map_err(|error| EntryProblem::Settings(Shared::new(std::sync::Arc::new(error))))?
        .into_config()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jsonc_comments_and_trailing_commas_are_accepted() {
        let text =
            "{\n  // a comment\n  \"a\": \"// not a comment\", /* block\n */ \"b\": [1, 2,],\n}\n";
        let value = parse_jsonc(Path::new("x.json"), text).unwrap();
        assert_eq!(
            value,
            serde_json::json!({"a": "// not a comment", "b": [1, 2]})
        );
    }

    #[test]
    fn toml_errors_name_the_place_but_never_quote_the_line() {
        let text =
            "[mcp_servers.gh]\ncommand = \"gh\"\nenv = { GITHUB_TOKEN = \"ghp_secret123\", X = }\n";
        let error = parse_toml(Path::new("config.toml"), text).unwrap_err();
        let message = error.to_string();
        assert!(!message.contains("ghp_secret123"), "{message}");
        assert!(!message.contains("GITHUB_TOKEN"), "{message}");
        assert!(
            message.contains("config.toml is not valid TOML"),
            "{message}"
        );
        assert!(message.contains("at line 3 column"), "{message}");
        // A string that never ends, with the secret after it on the line.
        let text = "a = 1\nb = \"ghp_unterminated\n";
        let message = parse_toml(Path::new("c.toml"), text)
            .unwrap_err()
            .to_string();
        assert!(!message.contains("ghp_unterminated"), "{message}");
        assert!(message.contains("line 2"), "{message}");
        assert_eq!(line_and_column("ab\ncdé\nf", 7), (2, 4));
    }

    #[test]
    fn jsonc_errors_keep_the_original_line() {
        let text = "{\n // c\n \"a\": 1\n \"b\": 2\n}";
        let error = parse_jsonc(Path::new("x.json"), text).unwrap_err();
        assert!(error.to_string().contains("line 4"), "{error}");
    }
}
