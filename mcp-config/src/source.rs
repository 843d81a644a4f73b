//! The [`ConfigSource`] trait (one per tool whose files we read) and the helpers providers share
//! for reading files: a missing file is not an error, a directory or an unreadable file is, and a
//! broken file is an error naming it, never a panic.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::context::DiscoveryContext;
use crate::error::{ConfigError, ShapeProblem};
use crate::problems::{EntryProblem, ServerProblem, Shared};
use crate::raw_entry::RawServerConfig;
use crate::server_config::ServerConfig;

/// Whether a definition came from a project's files, from the user's, or from the files an
/// administrator manages for the machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Level {
    /// A file inside the project (the current directory).
    Project,
    /// A file in the user's home or config directory.
    User,
    /// An enterprise-managed file ([`DiscoveryContext::managed_dir`], such as Claude Code's
    /// `managed-mcp.json`): its servers take precedence over every other definition of the same
    /// name, and nothing here writes to it.
    Managed,
}

impl Level {
    /// `project`, `user` or `managed`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Project => "project",
            Self::User => "user",
            Self::Managed => "managed",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a server definition came from.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SourceMeta {
    /// The provider's id, e.g. `claude-code`.
    pub provider: String,
    /// The provider's display name, e.g. `Claude Code`.
    pub provider_name: String,
    /// The file the definition is in.
    pub path: PathBuf,
    /// Project, user or managed level.
    pub level: Level,
    /// The other tools that read this same file (Copilot CLI, Qwen Code and VS Code read the
    /// `.mcp.json` Claude Code reads), after the one named above, by priority. Discovery reads a
    /// path once and lists its servers once, under the highest-priority provider that reads it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub also_used_by: Vec<ToolRef>,
    /// True when the file is inside the project folder and is not one of the user's own files
    /// (whatever the folder: `$HOME`, `/`, a symlink to either): the definitions that run only
    /// once the user approved them. Set by discovery ([`load_all_configs`](crate::load_all_configs));
    /// not part of the serialized form.
    #[serde(skip)]
    pub in_project_folder: bool,
    /// For a file inside the project folder: the folder it belongs to, the working folder or a
    /// parent up to the repository root, the nearest of
    /// [`DiscoveryContext::project_folders`] that holds it (`/repo` for `/repo/.mcp.json` found
    /// from `/repo/src`). Approvals of
    /// its servers are recorded and looked up under this folder, so approving once holds from
    /// every subfolder. Set by discovery; not part of the serialized form.
    #[serde(skip)]
    pub project_folder: Option<PathBuf>,
    /// For a definition in a file inside the project folder: the trust policy let it run (the
    /// user approved it, or the embedder's policy did; see [`crate::trust`]). Set by discovery;
    /// not part of the serialized form.
    #[serde(skip)]
    pub approved: bool,
}

impl SourceMeta {
    /// Metadata for a definition in `path`.
    pub fn new(
        provider: impl Into<String>,
        provider_name: impl Into<String>,
        path: impl Into<PathBuf>,
        level: Level,
    ) -> Self {
        Self {
            provider: provider.into(),
            provider_name: provider_name.into(),
            path: path.into(),
            level,
            also_used_by: Vec::new(),
            in_project_folder: false,
            project_folder: None,
            approved: false,
        }
    }

    /// True when a definition from here may use settings that reach beyond the definition
    /// itself — read a file of the user's or send a credential to a URL it names (the OAuth
    /// settings of [`AuthConfig::local_credential_fields`](crate::AuthConfig::local_credential_fields)):
    /// it is in one of the user's own files, or in a project file whose server the user
    /// approved, the same approval its `!command` values need.
    pub fn may_use_local_credentials(&self) -> bool {
        !self.in_project_folder || self.approved
    }
}

/// A provider named by its id and display name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ToolRef {
    /// The provider's id, e.g. `copilot-cli`.
    pub id: String,
    /// Its display name, e.g. `Copilot CLI`.
    pub name: String,
}

impl ToolRef {
    /// The provider with this id and name.
    pub fn new(id: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
        }
    }
}

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

/// The largest config file read: 16 MiB, far above any real one.
pub const MAX_CONFIG_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// Reads a config file as UTF-8. `Ok(None)` when it does not exist.
///
/// Only a regular file (a symlink to one counts) is opened: a FIFO would block the reader
/// forever and a device such as `/dev/zero` would never end, and both can come with a cloned
/// repository. A file over [`MAX_CONFIG_FILE_BYTES`] is an error before anything is read, and
/// the read itself stops at the limit.
///
/// Inside a discovery pass ([`in_read_pass`]) a path is read from disk once: the providers
/// that share a file (the `.mcp.json` of Claude Code, Copilot CLI, Qwen Code and VS Code) get
/// the first read's text.
pub fn read_config_file(path: &Path) -> Result<Option<String>, ConfigError> {
    if let Some(remembered) = ReadPass::remembered(path) {
        return Ok(remembered);
    }
    let read = read_from_disk(path);
    ReadPass::record(path, &read);
    read
}

/// The files one pass of discovery asked for, and what it read.
///
/// Discovery runs on one thread from start to end (it is synchronous), and the providers read
/// through [`read_config_file`] without a handle to share, including the agent's own providers:
/// so the pass lives in a thread-local for the length of [`in_read_pass`], and nowhere else. A
/// later pass reads the files again (they may have changed).
#[derive(Default)]
struct ReadPass {
    /// The text of each file read (`None`: it does not exist). A file that could not be read
    /// is not remembered: each reader gets the error afresh.
    texts: HashMap<PathBuf, Option<String>>,
    /// Every path asked for, in the order first asked.
    looked_at: Vec<LookedAt>,
    /// The same paths, to find one at once (a pass asks for a hundred or more).
    asked: HashSet<PathBuf>,
    /// The bytes of text remembered, at most [`MAX_REMEMBERED_BYTES`]: a planted repository
    /// could put a large file at every name the providers look for.
    remembered_bytes: usize,
    /// The project walk of each working folder and home asked for ([`once_per_pass`]).
    walks: Vec<(WalkKey, Walk)>,
    /// The variables naming a file or folder that were set to a relative path, and so not
    /// used ([`DiscoveryContext::path_var`](crate::DiscoveryContext::path_var)): name → value.
    relative_variables: BTreeMap<String, String>,
}

/// A working folder and a home.
type WalkKey = (PathBuf, PathBuf);
/// The project folders, nearest first, and the repository root.
type Walk = (Vec<PathBuf>, Option<PathBuf>);

/// The project walk of `cwd` under `home`: `walk()` once per read pass (the same answer for
/// every provider of one discovery), or every time outside one.
pub(crate) fn once_per_pass(cwd: &Path, home: &Path, walk: impl FnOnce() -> Walk) -> Walk {
    let remembered = READ_PASS.with_borrow(|pass| {
        let pass = pass.as_ref()?;
        let (_, walk) = pass
            .walks
            .iter()
            .find(|((c, h), _)| c == cwd && h == home)?;
        Some(walk.clone())
    });
    if let Some(walk) = remembered {
        return walk;
    }
    let walk = walk();
    READ_PASS.with_borrow_mut(|pass| {
        if let Some(pass) = pass {
            pass.walks
                .push(((cwd.to_owned(), home.to_owned()), walk.clone()));
        }
    });
    walk
}

/// How many bytes of file text one pass remembers; a file read past it is read again by the
/// next provider that asks (the `.mcp.json` several tools share is read first, and small).
const MAX_REMEMBERED_BYTES: usize = 32 * 1024 * 1024;

thread_local! {
    static READ_PASS: RefCell<Option<ReadPass>> = const { RefCell::new(None) };
}

/// A file a provider looked for, and whether it was there (a file that could not be read
/// counts as there: it is, and its error is reported).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct LookedAt {
    /// The file.
    pub path: PathBuf,
    /// Whether it exists.
    pub exists: bool,
}

/// Notes, when a pass is on, that the variable `name` named a relative path (`value`) and was
/// not used.
pub(crate) fn note_relative_variable(name: &str, value: &str) {
    READ_PASS.with_borrow_mut(|pass| {
        if let Some(pass) = pass {
            pass.relative_variables
                .insert(name.to_owned(), value.to_owned());
        }
    });
}

/// The variables [`note_relative_variable`] noted so far in this pass (none outside one).
pub(crate) fn relative_variables() -> BTreeMap<String, String> {
    READ_PASS.with_borrow(|pass| {
        pass.as_ref()
            .map(|pass| pass.relative_variables.clone())
            .unwrap_or_default()
    })
}

impl ReadPass {
    /// The remembered text of `path` when a pass is on and read it before.
    fn remembered(path: &Path) -> Option<Option<String>> {
        READ_PASS.with_borrow(|pass| pass.as_ref()?.texts.get(path).cloned())
    }

    /// Remembers the outcome of reading `path`, when a pass is on.
    fn record(path: &Path, read: &Result<Option<String>, ConfigError>) {
        READ_PASS.with_borrow_mut(|pass| {
            let Some(pass) = pass else {
                return;
            };
            if pass.asked.insert(path.to_owned()) {
                pass.looked_at.push(LookedAt {
                    path: path.to_owned(),
                    exists: !matches!(read, Ok(None)),
                });
            }
            if let Ok(text) = read {
                let size = text.as_ref().map_or(0, String::len);
                if pass.remembered_bytes + size <= MAX_REMEMBERED_BYTES {
                    pass.remembered_bytes += size;
                    pass.texts.insert(path.to_owned(), text.clone());
                }
            }
        });
    }
}

/// Runs `work` as one pass of reading: every path read through [`read_config_file`] is read
/// from disk once, however many providers ask for it, and the paths asked for are returned with
/// whether each exists. A pass inside a pass is a pass of its own; the outer one resumes after.
pub fn in_read_pass<T>(work: impl FnOnce() -> T) -> (T, Vec<LookedAt>) {
    /// Puts the outer pass back, even when `work` panics.
    struct Restore(Option<ReadPass>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let outer = self.0.take();
            READ_PASS.with_borrow_mut(|pass| *pass = outer);
        }
    }
    let outer = READ_PASS.with_borrow_mut(|pass| pass.replace(ReadPass::default()));
    let restore = Restore(outer);
    let result = work();
    let looked_at = READ_PASS
        .with_borrow_mut(|pass| pass.take())
        .map(|pass| pass.looked_at)
        .unwrap_or_default();
    drop(restore);
    (result, looked_at)
}

/// [`read_config_file`] without the pass.
fn read_from_disk(path: &Path) -> Result<Option<String>, ConfigError> {
    let read_error = |source| ConfigError::Read {
        path: path.to_owned(),
        source,
    };
    let metadata = match std::fs::metadata(path) {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(read_error(source)),
        Ok(metadata) => metadata,
    };
    if !metadata.is_file() {
        return Err(ConfigError::NotAFile {
            path: path.to_owned(),
            kind: kind_of(&metadata.file_type()),
        });
    }
    let too_large = |size| ConfigError::TooLarge {
        path: path.to_owned(),
        size,
        limit: MAX_CONFIG_FILE_BYTES,
    };
    if metadata.len() > MAX_CONFIG_FILE_BYTES {
        return Err(too_large(metadata.len()));
    }
    let file = match std::fs::File::open(path) {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(read_error(source)),
        Ok(file) => file,
    };
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(
        &mut std::io::Read::take(file, MAX_CONFIG_FILE_BYTES + 1),
        &mut bytes,
    )
    .map_err(read_error)?;
    if bytes.len() as u64 > MAX_CONFIG_FILE_BYTES {
        // It grew after it was measured.
        return Err(too_large(bytes.len() as u64));
    }
    String::from_utf8(bytes).map(Some).map_err(|_| {
        read_error(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "the file is not UTF-8 text",
        ))
    })
}

/// What a non-regular file is, for messages.
fn kind_of(file_type: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt as _;
        if file_type.is_fifo() {
            return "FIFO";
        }
        if file_type.is_char_device() || file_type.is_block_device() {
            return "device";
        }
        if file_type.is_socket() {
            return "socket";
        }
    }
    if file_type.is_dir() {
        "directory"
    } else {
        "special file"
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

    #[test]
    fn a_device_is_never_read_and_an_oversize_file_is_refused_before_reading() {
        let error = read_config_file(Path::new("/dev/zero")).unwrap_err();
        assert!(
            matches!(error, ConfigError::NotAFile { kind: "device", .. }),
            "{error}"
        );
        assert!(
            error.to_string().contains("is a device, not a config file"),
            "{error}"
        );

        let big = std::env::temp_dir().join(format!("mcp-config-big-{}.json", std::process::id()));
        let file = std::fs::File::create(&big).unwrap();
        file.set_len(MAX_CONFIG_FILE_BYTES + 1).unwrap();
        let error = read_config_file(&big).unwrap_err();
        assert!(matches!(error, ConfigError::TooLarge { .. }), "{error}");
        std::fs::remove_file(&big).unwrap();
    }

    #[test]
    fn a_directory_is_an_error_and_a_missing_file_is_not() {
        let dir = std::env::temp_dir();
        assert!(matches!(
            read_config_file(&dir),
            Err(ConfigError::NotAFile { .. })
        ));
        assert!(
            read_config_file(&dir.join("surely-missing-mcp.json"))
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn inside_a_pass_a_file_is_read_once_and_every_path_asked_for_is_listed() {
        let dir = std::env::temp_dir().join(format!("mcp-config-read-pass-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("shared.json");
        let missing = dir.join("missing.json");
        std::fs::write(&file, "first").unwrap();
        let (texts, looked_at) = in_read_pass(|| {
            let first = read_config_file(&file).unwrap();
            std::fs::write(&file, "second").unwrap();
            let again = read_config_file(&file).unwrap();
            assert!(read_config_file(&missing).unwrap().is_none());
            // A pass inside is a pass of its own, and the outer one resumes after it.
            let (inner, inner_looked_at) = in_read_pass(|| read_config_file(&file).unwrap());
            assert_eq!(inner.as_deref(), Some("second"));
            assert_eq!(inner_looked_at.len(), 1);
            (first, again)
        });
        assert_eq!(texts.0.as_deref(), Some("first"));
        assert_eq!(texts.1.as_deref(), Some("first"), "read from disk once");
        let looked_at: Vec<(&Path, bool)> = looked_at
            .iter()
            .map(|file| (file.path.as_path(), file.exists))
            .collect();
        assert_eq!(
            looked_at,
            [(file.as_path(), true), (missing.as_path(), false)]
        );
        // Outside a pass every read is fresh.
        assert_eq!(read_config_file(&file).unwrap().as_deref(), Some("second"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
