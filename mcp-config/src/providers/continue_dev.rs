//! Continue (continue.dev): the `mcpServers` list of the user's `config.yaml`, and the server
//! files of the `.continue/mcpServers/` folders, the user's and the workspace's.
//!
//! Written from Continue's source and documentation, continuedev/continue at commit d0a3c0b6
//! (2026-06-18):
//!
//! - the user's folder is `~/.continue`, or `$CONTINUE_GLOBAL_DIR` when that is set (Continue
//!   resolves a relative value against the folder it starts in; here only an absolute one is
//!   used) (`core/util/paths.ts`). Its `config.yaml` holds
//!   `mcpServers`, a **list** whose items each carry a `name` (`docs/reference.mdx`,
//!   `### mcpServers`);
//! - `<user folder>/mcpServers/` and each workspace folder's `.continue/mcpServers/` are walked
//!   recursively (`core/config/loadLocalAssistants.ts`, `getDotContinueSubDirs` and
//!   `getDefinitionFilesInDir`; `core/context/mcp/json/loadJsonMcpConfigs.ts`). There is no walk
//!   up to parent folders; the workspace folder is the working folder here. In those folders:
//!   - each `*.yaml` / `*.yml` file is a block: `name`, `version`, `schema: v1` and an
//!     `mcpServers` list as in `config.yaml` (`docs/customize/deep-dives/mcp.mdx`);
//!   - each `*.json` file is JSON with comments (Continue parses it with `comment-json`) of one
//!     of three shapes, tried in Continue's order (`loadJsonMcpConfigs.ts`,
//!     `packages/config-yaml/src/schemas/mcp/json.ts`): a copy of `~/.claude.json` (a
//!     `projects` object of `{mcpServers}`, and maybe a top-level `mcpServers`; the servers of
//!     *every* project are taken), a Claude Desktop file (`{"mcpServers": {…}}`), or a single
//!     server, named after the file (its name without the first `.json`, as Continue names
//!     it). A file of none of these shapes is that file's error
//!     ([`ShapeProblem::NoServerShape`]);
//! - a YAML entry (`packages/config-yaml/src/schemas/mcp/index.ts`) is stdio (`command`, `args`,
//!   `env`, `cwd`, `type: stdio`), tried first, or remote (`url`, `type` `sse` or
//!   `streamable-http`, `apiKey`, `requestOptions`). A `url` without a `type` is tried as
//!   Streamable HTTP, then as SSE (`core/context/mcp/MCPConnection.ts`, `connectClient`): our
//!   `http`, which falls back the same way. `apiKey` is sent as `Authorization: Bearer
//!   <apiKey>`, over any `Authorization` header of `requestOptions.headers`
//!   (`MCPConnection.ts`, `constructHttpTransport` / `constructSseTransport`; the CLI's
//!   `extensions/cli/src/services/mcpTransports.ts` does the same). `connectionTimeout` is in
//!   **milliseconds** (the reference only says "timeout for initial connection"; the source
//!   hands it to `setTimeout`, next to a default of `20_000 // 20 seconds`) and bounds the
//!   connection and each tool call (`core/tools/callTool.ts`);
//! - a JSON entry (`schemas/mcp/json.ts`, `schemas/mcp/convertJson.ts`) is remote (`url`,
//!   `type` `sse` or `http`, `headers`), tried first, or stdio (`command`, `args`, `env`,
//!   `envFile`, `type: stdio`). Continue ignores `envFile` (with a warning), and so does this
//!   provider. Continue turns a `${VAR}` of an `env` value into `${{ secrets.VAR }}`, which it
//!   looks up in its `.env` files and then the environment: here it stays `${VAR}`, the
//!   environment variable;
//! - Continue's schema has no switch-off (`enabled`, `disabled`) and no tool filter; none is
//!   read. Both schemas drop keys they do not know, and so does this provider: a `disabled`,
//!   `timeout` or `cwd` copied from another tool's JSON file is not read, as Continue does not
//!   read it.
//!
//! | Continue | here |
//! |---|---|
//! | `name` (YAML), the map key or the file name (JSON) | the server's name |
//! | `type` `stdio` / `sse` / `streamable-http` (YAML), `stdio` / `sse` / `http` (JSON) | `type` `stdio` / `sse` / `http` |
//! | `command`, `args`, `env`, `cwd` (YAML; a `file://` URL as its path) | the same fields |
//! | `url`; `requestOptions.headers` (YAML), `headers` (JSON) | `url`, `headers` |
//! | `apiKey` | `headers.Authorization` = `Bearer <apiKey>` |
//! | `connectionTimeout` (ms) | `timeout` and `toolTimeout` (ms) |
//! | `faviconUrl`, `serverName`, the rest of `requestOptions` (`timeout`, `verifySsl`, `proxy`, …) | `extra`, as written, unused |
//! | `uses:` (a block of the Continue Hub or another file) | invalid ([`EntryProblem::BlockReference`]) |
//!
//! `requestOptions.timeout` is not a timeout here: Continue's MCP code never reads it (it is
//! the timeout of requests to a language model, `docs/reference.mdx`), so it stays in `extra`.
//!
//! ## Secrets
//!
//! `${{ secrets.NAME }}` and `${{ inputs.NAME }}` (Continue treats a local block's inputs as
//! secrets) are filled by Continue from its hub's secrets or from `~/.continue/.env`,
//! `<workspace>/.continue/.env` and `<workspace>/.env`, then the environment
//! (`core/config/yaml/LocalPlatformClient.ts`). This runtime reads no `.env` file — a cloned
//! repository's `.env` must not inject values into anyone's servers — and no hub: a value using
//! one makes that server invalid, naming the field and the secret, never a value
//! ([`PlaceholderProblem::ContinueSecret`]): set the variable in the environment and write
//! `${NAME}` instead. A plain `${VAR}` is kept as written; discovery expands it.
//!
//! ## Limits of a servers folder
//!
//! A servers folder can come with any cloned repository, so its walk is bounded: folders
//! [`MAX_DEPTH`] deep at most below it, [`MAX_ENTRIES`] files and folders looked at,
//! [`MAX_FILES`] server files and [`MAX_FOLDER_BYTES`] bytes read. Past a limit, the rest is not
//! read and the folder's error says which limit ([`ConfigError::Folder`]); bytes are counted
//! as read, not as a file's size says. A symlink to a folder is never walked (Continue's
//! `walkDir` does not enter one either), so no walk can loop or leave the folder that way; a
//! symlink to a file is read like the file. The workspace's `.continue` and
//! `.continue/mcpServers` must be real folders: a repository could point either at the user's
//! home, whose files would then be listed as the project's
//! ([`FolderProblem::SymlinkInProject`]). A relative `$CONTINUE_GLOBAL_DIR` is not used (it
//! would make project files the user's own). Only regular files are
//! read ([`read_config_file`] refuses devices, FIFOs and oversize
//! files). Files are read depth first, in name order (Continue reads them concurrently, in no
//! set order).
//!
//! ## Not read
//!
//! - Continue's ignore rules in those folders (its built-in list — `node_modules/`,
//!   `secrets/`, `auth.json`, `*-lock.json`, … — and `.gitignore` / `.continueignore` files):
//!   a file they hide is read here;
//! - the top-level `requestOptions` of `config.yaml`, which Continue merges into every remote
//!   server's (its headers would reach every server, the workspace's included);
//! - the legacy `config.json`, the assistants / agents in `.continue/agents/` (and
//!   `assistants/`, `configs/`), and blocks of other kinds' folders (`.continue/models/` …)
//!   that happen to hold `mcpServers`;
//! - a block's `name`, `version` and `schema`, which are not checked (Continue refuses a block
//!   without `name` and `version`).
//!
//! When two files define one name, Continue's choice depends on the order its concurrent reads
//! finish; here the workspace's files come first, then `config.yaml`, then the user's folder.
//!
//! Project files, seen from a subfolder: Continue's rule is `.continue/mcpServers/` of each
//! workspace folder, walked down (recursively), never up
//! (`core/context/mcp/json/loadJsonMcpConfigs.ts`, `core/config/loadLocalAssistants.ts`
//! `getDotContinueSubDirs`, continuedev/continue d0a3c0b6). Read here: the working folder; a folder
//! above is a note.
//!
//! Format, in brief: YAML `mcpServers` **list** of entries with a `name`; JSON with comments in
//! three shapes (a `~/.claude.json` copy, a Claude Desktop file, one server named after the file);
//! `streamable-http`; `apiKey` → bearer header; `connectionTimeout` in ms; `${{ secrets.X }}`
//! invalid; folder walks bounded.

use std::fs::FileType;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::builtin::BuiltinSource;
use super::fields::{json_millis, normalize_transport_name, string, string_list, string_map};
use super::files::Parser;
use super::variables::rewrite_fields;
use crate::context::DiscoveryContext;
use crate::error::{ConfigError, FolderProblem, ShapeProblem};
use crate::origin::Level;
use crate::placeholder::Rejected;
use crate::problems::{EntryProblem, PlaceholderProblem};
use crate::read_pass::{MAX_CONFIG_FILE_BYTES, read_config_file};
use crate::server_config::ServerConfig;
use crate::source::{FileServers, SourceFile, parse_jsonc, parse_yaml};

/// The tool, in messages.
const TOOL: &str = "Continue";

/// The key of the servers, in YAML (a list) and JSON (a map) alike.
const KEY: &str = "mcpServers";

/// How many folders deep below a servers folder files are looked for.
pub(super) const MAX_DEPTH: usize = 8;

/// How many files and folders of a servers folder are looked at, of any kind.
pub(super) const MAX_ENTRIES: usize = 4096;

/// How many server files (`*.yaml`, `*.yml`, `*.json`) of a servers folder are read.
pub(super) const MAX_FILES: usize = 256;

/// How many bytes of a servers folder's files are read: no file is read once this many were
/// (as many as one config file may hold, [`MAX_CONFIG_FILE_BYTES`]; the last file read may
/// pass it by at most that much).
pub(super) const MAX_FOLDER_BYTES: u64 = MAX_CONFIG_FILE_BYTES;

/// Continue (continue.dev), highest first: every server file under the working folder's
/// `.continue/mcpServers/` (project level; Continue reads each workspace folder's, never a
/// parent's: one found above is a note), then `config.yaml` in Continue's folder (`~/.continue`,
/// or `$CONTINUE_GLOBAL_DIR`, relative to the working folder), then every server file under
/// that folder's `mcpServers/` (user level).
///
/// The folders are walked down, depth first in name order, within bounds a cloned repository
/// cannot stretch (folders nested 8 deep, 4096 entries looked at, 256 server files, reading
/// stops once 16 MiB were read; symlinked folders never entered, and the workspace's
/// `.continue` and `.continue/mcpServers` never followed when they are links): past a bound,
/// the folder's
/// [`ConfigError::Folder`] says which. `*.yaml` / `*.yml` files (and `config.yaml`) hold an
/// `mcpServers` **list** whose entries carry a `name`; `*.json` files (comments allowed) are a
/// copy of `~/.claude.json` (every project's servers taken), a Claude Desktop file, or a single
/// server named after the file, tried in that order; any other JSON file is that file's error.
///
/// YAML entries: `type` `stdio` / `sse` / `streamable-http` (→ `http`), a `url` without `type`
/// being `http` (Continue tries Streamable HTTP, then SSE); `command`, `args`, `env`, `cwd`;
/// `url`, `requestOptions.headers` → `headers`, `apiKey` → `Authorization: Bearer <apiKey>`;
/// `connectionTimeout` in milliseconds → `timeout` and `toolTimeout`. JSON entries: `type`
/// `stdio` / `sse` / `http`, `command`, `args`, `env`, `url`, `headers`. A `uses:` entry (a hub
/// block) and a value using `${{ secrets.X }}` or `${{ inputs.X }}` make that server invalid,
/// saying so ([`PlaceholderProblem::ContinueSecret`]): no `.env` file is ever read. `${VAR}` is
/// kept as written. Continue has no switch-off and no tool filter.
pub const CONTINUE: BuiltinSource = BuiltinSource::new("continue", "Continue", load)
    .here_only(
        &[".continue/mcpServers"],
        "Continue reads it only in the workspace folder",
    )
    .documented(
        "every `*.yaml`, `*.yml`, `*.json` under `<cwd>/.continue/mcpServers/`; `~/.continue/config.yaml`; the same under `~/.continue/mcpServers/` (`$CONTINUE_GLOBAL_DIR`)",
        "continuedev/continue `packages/config-yaml/src/schemas/mcp/`, `core/context/mcp/json/loadJsonMcpConfigs.ts` (d0a3c0b6)",
    );

/// Reads the files: see [`CONTINUE`].
fn load(ctx: &DiscoveryContext) -> Vec<SourceFile> {
    let global = global_dir(ctx);
    let workspace_folder = ctx.cwd().join(".continue").join(KEY);
    let user_folder = global.join(KEY);
    let mut files = Vec::new();
    if workspace_folder == user_folder {
        // Working in the home folder: the one folder is the user's own.
        files.extend(servers_folder(&user_folder, Level::User));
    } else if let Some(link) = symlink_on_the_way(ctx.cwd(), &[".continue", KEY]) {
        // A cloned repository's `.continue` pointing at `~` would list the user's files as
        // the project's.
        files.push(SourceFile::new(
            &workspace_folder,
            Level::Project,
            Err(ConfigError::Folder {
                path: link,
                problem: FolderProblem::SymlinkInProject,
            }),
        ));
    } else {
        files.extend(servers_folder(&workspace_folder, Level::Project));
    }
    let config = global.join("config.yaml");
    files.extend(super::files::load_file(
        &config,
        Level::User,
        parse_yaml,
        yaml_servers,
    ));
    if workspace_folder != user_folder {
        files.extend(servers_folder(&user_folder, Level::User));
    }
    files
}

/// Continue's folder: `$CONTINUE_GLOBAL_DIR` when it is an absolute path, else
/// `~/.continue`. Continue resolves a relative value against the folder it starts in; here that
/// would make files of the project folder the user's own (no approval asked), so a relative
/// value is not used ([`DiscoveryContext::path_var`]).
fn global_dir(ctx: &DiscoveryContext) -> PathBuf {
    ctx.path_var("CONTINUE_GLOBAL_DIR")
        .unwrap_or_else(|| ctx.home.join(".continue"))
}

/// The first of `base/a`, `base/a/b`, … that is a symlink, if one is.
fn symlink_on_the_way(base: &Path, parts: &[&str]) -> Option<PathBuf> {
    let mut path = base.to_path_buf();
    for part in parts {
        path.push(part);
        let metadata = std::fs::symlink_metadata(&path).ok()?;
        if metadata.file_type().is_symlink() {
            return Some(path);
        }
    }
    None
}

// ---------------------------------------------------------------------------------------------
// The servers folders.
// ---------------------------------------------------------------------------------------------

/// The server files of `folder` (none when it does not exist), each read, then an error for
/// each limit the walk reached.
fn servers_folder(folder: &Path, level: Level) -> Vec<SourceFile> {
    let folder_error = |problem| {
        SourceFile::new(
            folder,
            level,
            Err(ConfigError::Folder {
                path: folder.to_owned(),
                problem,
            }),
        )
    };
    // The folder itself may be a symlink: it is followed, once.
    match std::fs::metadata(folder) {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Vec::new(),
        Err(source) => {
            let error = ConfigError::Read {
                path: folder.to_owned(),
                source,
            };
            return vec![SourceFile::new(folder, level, Err(error))];
        }
        Ok(metadata) if !metadata.is_dir() => return vec![folder_error(FolderProblem::NotAFolder)],
        Ok(_) => {}
    }
    let mut walk = Walk::new(level);
    walk.visit(folder, 0);

    let mut files = walk.unreadable;
    // The bytes read so far, counted as read: a file's size is not a bound (a symlink to
    // `/proc/kallsyms` says 0). Each file is at most the size of one config file
    // (`read_config_file` refuses more), so the folder costs at most that much over the budget.
    let mut bytes = 0u64;
    for path in walk.files {
        if bytes >= MAX_FOLDER_BYTES {
            walk.limits.reached(FolderProblem::TooManyBytes {
                limit: MAX_FOLDER_BYTES,
            });
            break;
        }
        let (parse, convert): (Parser, Converter) = if is_json(&path) {
            (parse_jsonc, json_servers)
        } else {
            (parse_yaml, yaml_servers)
        };
        let contents = match read_config_file(&path) {
            Ok(None) => continue,
            Ok(Some(text)) => {
                bytes = bytes.saturating_add(text.len() as u64);
                parse(&path, &text).and_then(|root| convert(&path, &root))
            }
            Err(error) => Err(error),
        };
        files.push(SourceFile::new(&path, level, contents));
    }
    files.extend(walk.limits.0.into_iter().map(folder_error));
    files
}

/// Turns a parsed file into its servers.
type Converter = fn(&Path, &Value) -> Result<FileServers, ConfigError>;

/// The walk of one servers folder: the server files found, depth first and in name order, and
/// what stopped it.
struct Walk {
    /// The folder's level, which its files have.
    level: Level,
    files: Vec<PathBuf>,
    /// Files and folders looked at so far.
    entries: usize,
    /// Folders that could not be listed, as files with that error.
    unreadable: Vec<SourceFile>,
    limits: Limits,
}

/// The limits a walk reached, each once, in the order reached.
#[derive(Default)]
struct Limits(Vec<FolderProblem>);

impl Limits {
    fn reached(&mut self, problem: FolderProblem) {
        if !self.0.contains(&problem) {
            self.0.push(problem);
        }
    }
}

impl Walk {
    fn new(level: Level) -> Self {
        Self {
            level,
            files: Vec::new(),
            entries: 0,
            unreadable: Vec::new(),
            limits: Limits::default(),
        }
    }

    /// Looks at `dir`, `depth` folders below the servers folder.
    fn visit(&mut self, dir: &Path, depth: usize) {
        let listing = match std::fs::read_dir(dir) {
            Ok(listing) => listing,
            Err(source) => {
                let error = ConfigError::Read {
                    path: dir.to_owned(),
                    source,
                };
                self.unreadable
                    .push(SourceFile::new(dir, self.level, Err(error)));
                return;
            }
        };
        let mut entries: Vec<(PathBuf, FileType)> = Vec::new();
        for entry in listing {
            if self.entries >= MAX_ENTRIES {
                self.limits
                    .reached(FolderProblem::TooManyEntries { limit: MAX_ENTRIES });
                break;
            }
            self.entries += 1;
            // An entry that vanished or cannot be typed is left out, as a missing file is.
            let Ok(entry) = entry else { continue };
            let Ok(file_type) = entry.file_type() else {
                continue;
            };
            entries.push((entry.path(), file_type));
        }
        entries.sort_by(|(a, _), (b, _)| a.cmp(b));
        for (path, file_type) in entries {
            // `DirEntry::file_type` does not follow symlinks: a symlinked folder is seen as a
            // symlink, never entered.
            if file_type.is_dir() {
                if depth + 1 > MAX_DEPTH {
                    self.limits
                        .reached(FolderProblem::TooDeep { limit: MAX_DEPTH });
                } else {
                    self.visit(&path, depth + 1);
                }
            } else if is_server_file(&path) {
                if file_type.is_symlink() && path.is_dir() {
                    continue;
                }
                if self.files.len() >= MAX_FILES {
                    self.limits
                        .reached(FolderProblem::TooManyFiles { limit: MAX_FILES });
                } else {
                    self.files.push(path);
                }
            }
        }
    }
}

/// A file Continue reads in a servers folder: `*.yaml`, `*.yml` or `*.json` (the case as
/// written, as Continue compares).
fn is_server_file(path: &Path) -> bool {
    is_json(path) || has_suffix(path, ".yaml") || has_suffix(path, ".yml")
}

fn is_json(path: &Path) -> bool {
    has_suffix(path, ".json")
}

fn has_suffix(path: &Path, suffix: &str) -> bool {
    path.file_name()
        .is_some_and(|name| name.to_string_lossy().ends_with(suffix))
}

// ---------------------------------------------------------------------------------------------
// The files.
// ---------------------------------------------------------------------------------------------

/// The servers of a YAML file (`config.yaml` or a block): its `mcpServers` list, none when the
/// key is missing.
fn yaml_servers(path: &Path, root: &Value) -> Result<FileServers, ConfigError> {
    let Some(root) = root.as_object() else {
        return Err(ConfigError::shape(path, ShapeProblem::NotAnObject));
    };
    let mut file = FileServers::default();
    let list = match root.get(KEY) {
        None | Some(Value::Null) => return Ok(file),
        Some(Value::Array(list)) => list,
        Some(_) => {
            return Err(ConfigError::shape(
                path,
                ShapeProblem::NotAServerList {
                    key: KEY.to_owned(),
                },
            ));
        }
    };
    for (index, item) in list.iter().enumerate() {
        let place = || format!("{KEY}[{index}]");
        let Some(entry) = item.as_object() else {
            file.push(&place(), Err(EntryProblem::NotAnObject));
            continue;
        };
        if let Some(reference) = entry.get("uses").filter(|value| !value.is_null()) {
            let Value::String(reference) = reference else {
                let problem = EntryProblem::NotString {
                    key: "uses".to_owned(),
                };
                file.push(&place(), Err(problem));
                continue;
            };
            let reference = reference.clone();
            // The block's own name is not known here; an `override` may give one.
            let name = entry
                .get("override")
                .and_then(|fields| fields.get("name"))
                .and_then(Value::as_str)
                .map_or_else(|| reference.clone(), str::to_owned);
            let problem = EntryProblem::BlockReference {
                tool: TOOL,
                reference,
            };
            file.push(&name, Err(problem));
            continue;
        }
        match entry.get("name") {
            Some(Value::String(name)) => file.push(name, convert(entry, Format::Yaml)),
            None | Some(Value::Null) => file.push(&place(), Err(EntryProblem::Unnamed)),
            Some(_) => {
                let problem = EntryProblem::NotString {
                    key: "name".to_owned(),
                };
                file.push(&place(), Err(problem));
            }
        }
    }
    Ok(file)
}

/// The servers of a JSON file in a servers folder, by the first of Continue's three shapes it
/// has: a copy of `~/.claude.json`, a Claude Desktop file, a single server.
fn json_servers(path: &Path, root: &Value) -> Result<FileServers, ConfigError> {
    let no_shape = || ConfigError::shape(path, ShapeProblem::NoServerShape { tool: TOOL });
    let Some(root) = root.as_object() else {
        return Err(no_shape());
    };
    let mut file = FileServers::default();
    if let Some(Value::Object(projects)) = root.get("projects") {
        server_map(path, root.get(KEY), &mut file)?;
        for project in projects.values() {
            let Some(project) = project.as_object() else {
                return Err(ConfigError::shape(
                    path,
                    ShapeProblem::NotAFolderMap {
                        key: "projects".to_owned(),
                    },
                ));
            };
            server_map(path, project.get(KEY), &mut file)?;
        }
    } else if let Some(servers @ Value::Object(_)) = root.get(KEY) {
        server_map(path, Some(servers), &mut file)?;
    } else if root.contains_key("command") || root.contains_key("url") {
        let file_name = path
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        // Continue removes the first `.json` of the name, wherever it is.
        file.push(
            &file_name.replacen(".json", "", 1),
            convert(root, Format::Json),
        );
    } else {
        return Err(no_shape());
    }
    Ok(file)
}

/// Adds the entries of a JSON `mcpServers` map (`value`, when the key is there) to `file`.
fn server_map(
    path: &Path,
    value: Option<&Value>,
    file: &mut FileServers,
) -> Result<(), ConfigError> {
    match value {
        None | Some(Value::Null) => Ok(()),
        Some(Value::Object(entries)) => {
            for (name, entry) in entries {
                let converted = match entry.as_object() {
                    Some(entry) => convert(entry, Format::Json),
                    None => Err(EntryProblem::NotAnObject),
                };
                file.push(name, converted);
            }
            Ok(())
        }
        Some(_) => Err(ConfigError::shape(
            path,
            ShapeProblem::NotAServerMap {
                key: KEY.to_owned(),
            },
        )),
    }
}

// ---------------------------------------------------------------------------------------------
// The entries.
// ---------------------------------------------------------------------------------------------

/// Which schema an entry is read with: Continue reads YAML and JSON entries differently.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Format {
    Yaml,
    Json,
}

/// Which fields an entry's transport takes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Form {
    Stdio,
    Remote,
    /// A `type` Continue does not know, kept for a transport plugin with the fields Continue's
    /// schema has (`command`, `args`, `env`, `cwd`, `url`, headers); Continue drops any other
    /// key, and so does this reading.
    Other,
}

/// One entry (its `name` aside) as a [`ServerConfig`].
fn convert(entry: &Map<String, Value>, format: Format) -> Result<ServerConfig, EntryProblem> {
    let given = |key: &str| entry.get(key).filter(|value| !value.is_null());
    let kind = match given("type") {
        None => None,
        Some(Value::String(kind)) => Some(kind.as_str()),
        Some(_) => {
            return Err(EntryProblem::NotString {
                key: "type".to_owned(),
            });
        }
    };
    let form = match kind {
        Some("stdio") => Form::Stdio,
        Some("sse" | "streamable-http" | "http" | "streamableHttp") => Form::Remote,
        Some(_) => Form::Other,
        // Continue's YAML schema tries the stdio form first, its JSON schema the remote one.
        None if format == Format::Json && given("url").is_some() => Form::Remote,
        None if given("command").is_some() => Form::Stdio,
        None if given("url").is_some() => Form::Remote,
        // Neither: reported as the stdio server without a command it would be.
        None => Form::Stdio,
    };
    let map_noun = match format {
        Format::Yaml => "a map",
        Format::Json => "an object",
    };

    let mut object = Map::new();
    if let Some(kind) = kind {
        object.insert("type".to_owned(), Value::from(kind));
    }
    if form != Form::Remote {
        if let Some(command) = given("command") {
            object.insert(
                "command".to_owned(),
                Value::from(string("command", command)?),
            );
        }
        if let Some(args) = given("args") {
            let args = string_list("args", Some(args))?;
            object.insert("args".to_owned(), Value::from(args));
        }
        if let Some(env) = given("env") {
            let env = string_map("env", env, map_noun)?;
            object.insert(
                "env".to_owned(),
                serde_json::to_value(env).unwrap_or_default(),
            );
        }
        if format == Format::Yaml
            && let Some(cwd) = given("cwd")
        {
            object.insert(
                "cwd".to_owned(),
                Value::from(working_folder(string("cwd", cwd)?)),
            );
        }
    }
    if form != Form::Stdio {
        if let Some(url) = given("url") {
            object.insert("url".to_owned(), Value::from(string("url", url)?));
        }
        let headers = match format {
            Format::Json => given("headers")
                .map(|headers| string_map("headers", headers, map_noun))
                .transpose()?,
            Format::Yaml => request_options(entry, &mut object)?,
        };
        let mut headers = headers.unwrap_or_default();
        if format == Format::Yaml
            && let Some(api_key) = given("apiKey")
        {
            let api_key = string("apiKey", api_key)?;
            refuse_templates(&api_key).map_err(|rejected| EntryProblem::Placeholder {
                field: "apiKey".to_owned(),
                placeholder: rejected.placeholder,
                reason: rejected.reason,
            })?;
            // Continue sends the key over any Authorization header the entry sets.
            headers.retain(|name, _| !name.eq_ignore_ascii_case("authorization"));
            headers.insert("Authorization".to_owned(), format!("Bearer {api_key}"));
        }
        if !headers.is_empty() {
            object.insert(
                "headers".to_owned(),
                serde_json::to_value(headers).unwrap_or_default(),
            );
        }
    }
    if format == Format::Yaml {
        if let Some(timeout) = given("connectionTimeout") {
            let millis = json_millis(timeout, "connectionTimeout")?;
            object.insert("timeout".to_owned(), Value::from(millis));
            object.insert("toolTimeout".to_owned(), Value::from(millis));
        }
        for key in ["faviconUrl", "serverName"] {
            if let Some(value) = given(key) {
                object.insert(key.to_owned(), value.clone());
            }
        }
    }
    normalize_transport_name(&mut object, "type");

    let mut config = crate::source::standard_entry(&Value::Object(object))?;
    rewrite_fields(&mut config, &mut refuse_templates).map_err(|problem| match problem {
        // Named as the YAML entry names it.
        EntryProblem::Placeholder {
            field,
            placeholder,
            reason,
        } if format == Format::Yaml && field.starts_with("headers.") => EntryProblem::Placeholder {
            field: format!("requestOptions.{field}"),
            placeholder,
            reason,
        },
        other => other,
    })?;
    Ok(config)
}

/// A YAML entry's `requestOptions`: its `headers` returned, the rest kept in `object` as
/// written (Continue's MCP connections use only `headers` and `verifySsl`, which this runtime
/// does not honour).
fn request_options(
    entry: &Map<String, Value>,
    object: &mut Map<String, Value>,
) -> Result<Option<std::collections::BTreeMap<String, String>>, EntryProblem> {
    let Some(options) = entry.get("requestOptions").filter(|value| !value.is_null()) else {
        return Ok(None);
    };
    let Some(fields) = options.as_object() else {
        object.insert("requestOptions".to_owned(), options.clone());
        return Ok(None);
    };
    let mut rest = fields.clone();
    let headers = rest
        .remove("headers")
        .filter(|headers| !headers.is_null())
        .map(|headers| string_map("requestOptions.headers", &headers, "a map"))
        .transpose()?;
    if !rest.is_empty() {
        object.insert("requestOptions".to_owned(), Value::Object(rest));
    }
    Ok(headers)
}

/// A stdio `cwd`: a `file://` URL as its path, as Continue takes it; anything else as written
/// (a relative one is relative to the working folder, where Continue resolves it against the
/// workspace folder).
fn working_folder(cwd: String) -> String {
    if !cwd.starts_with("file://") {
        return cwd;
    }
    url::Url::parse(&cwd)
        .ok()
        .and_then(|url| url.to_file_path().ok())
        .and_then(|path| path.into_os_string().into_string().ok())
        .unwrap_or(cwd)
}

/// `text` unchanged, or the first `${{ … }}` Continue would fill in it, refused.
fn refuse_templates(text: &str) -> Result<String, Rejected<PlaceholderProblem>> {
    match template(text) {
        None => Ok(text.to_owned()),
        Some((placeholder, variable)) => {
            let name = variable
                .strip_prefix("secrets.")
                .or_else(|| variable.strip_prefix("inputs."))
                .unwrap_or(variable);
            Err(Rejected {
                placeholder: placeholder.to_owned(),
                reason: PlaceholderProblem::ContinueSecret {
                    name: name.to_owned(),
                },
            })
        }
    }
}

/// The first `${{ variable }}` of `text` as Continue's template pattern finds it (`${{`,
/// optional whitespace, a variable of neither whitespace nor `}`, optional whitespace, `}}`):
/// the placeholder as written, and the variable.
fn template(text: &str) -> Option<(&str, &str)> {
    let mut from = 0;
    while let Some(offset) = text[from..].find("${{") {
        let start = from + offset;
        let body = text[start + 3..].trim_start();
        let name_len = body
            .find(|c: char| c.is_whitespace() || c == '}')
            .unwrap_or(body.len());
        let variable = &body[..name_len];
        let rest = body[name_len..].trim_start();
        if !variable.is_empty() && rest.starts_with("}}") {
            let end = text.len() - rest.len() + 2;
            return Some((&text[start..end], variable));
        }
        // `$` is one byte: the search goes on after it.
        from = start + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_are_found_as_continue_finds_them() {
        assert_eq!(
            template("Bearer ${{ secrets.TOKEN }}!"),
            Some(("${{ secrets.TOKEN }}", "secrets.TOKEN"))
        );
        assert_eq!(
            template("${{secrets.A}}"),
            Some(("${{secrets.A}}", "secrets.A"))
        );
        assert_eq!(
            template("${{ a }x}} ${{ inputs.B\t}}"),
            Some(("${{ inputs.B\t}}", "inputs.B"))
        );
        assert_eq!(template("${VAR} ${{ }} ${{ x } }"), None);
        assert_eq!(
            template("ünï ${{ secrets.É }}"),
            Some(("${{ secrets.É }}", "secrets.É"))
        );
        assert_eq!(template("${{"), None);
    }

    #[test]
    fn a_secret_is_refused_by_its_name_and_an_input_is_a_secret() {
        let rejected = refuse_templates("x ${{ inputs.KEY }}").unwrap_err();
        assert_eq!(rejected.placeholder, "${{ inputs.KEY }}");
        assert_eq!(
            rejected.reason,
            PlaceholderProblem::ContinueSecret {
                name: "KEY".to_owned()
            }
        );
        assert_eq!(refuse_templates("${KEY}").unwrap(), "${KEY}");
    }

    #[cfg(unix)]
    #[test]
    fn a_file_url_cwd_is_its_path() {
        assert_eq!(
            working_folder("file:///srv/my%20app".to_owned()),
            "/srv/my app"
        );
        assert_eq!(working_folder("./tools".to_owned()), "./tools");
        // A host other than this machine has no path here: kept as written.
        assert_eq!(
            working_folder("file://fileserver/share".to_owned()),
            "file://fileserver/share"
        );
    }
}
