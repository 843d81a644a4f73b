//! The crate's error type. Messages name the file (or server) and say what to fix.

use std::path::PathBuf;

use crate::origin::Level;

/// A problem with one configuration file, or with writing one.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The file exists but could not be read (permissions, I/O error).
    #[error("could not read {}: {source}", .path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// Something other than a regular file (a directory, a FIFO, a device, a socket) sits
    /// where a config file is expected; it is not opened.
    #[error("{} is a {kind}, not a config file", .path.display())]
    NotAFile {
        /// The path.
        path: PathBuf,
        /// What it is: `directory`, `FIFO`, `device`, `socket`.
        kind: &'static str,
    },
    /// The file is larger than a config file may be; it is not read.
    #[error(
        "{} is {size} bytes, more than the {limit} bytes a config file may have; it was not read",
        .path.display()
    )]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size (at least this many bytes).
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// The file is not valid JSON / JSONC / TOML; the message gives line and column.
    #[error("{} is not valid {format}: {message}", .path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// `JSON`, `JSON with comments` or `TOML`.
        format: &'static str,
        /// The parser's message, with line and column.
        message: String,
    },
    /// The file parsed but a part of it has the wrong shape (e.g. `mcpServers` is a list).
    #[error(
        "{}: {problem}{}",
        .path.display(),
        if *.left_unchanged { "; the file was left unchanged" } else { "" }
    )]
    Shape {
        /// The file.
        path: PathBuf,
        /// What is wrong, naming the key.
        problem: ShapeProblem,
        /// True when the file was being changed, and nothing was written.
        left_unchanged: bool,
    },
    /// A config file that is a script of another tool's (Crush's `crushrc`): it is never run,
    /// so the servers it defines are not read.
    #[error(
        "{} is a {tool} script, which is never run here: the servers it defines are not read \
         (define them in {tool}'s JSON file to use them here)",
        .path.display()
    )]
    Script {
        /// The file.
        path: PathBuf,
        /// The tool, e.g. `Crush`.
        tool: &'static str,
    },
    /// An enterprise-managed settings file whose MCP policy (`allowedMcpServers`,
    /// `deniedMcpServers`) has the wrong shape: until it is fixed no server runs.
    #[error(
        "{}: {problem}; no MCP server runs until the managed settings are fixed (ask your \
         administrator)",
        .path.display()
    )]
    Policy {
        /// The file.
        path: PathBuf,
        /// What is wrong, naming the list and entry.
        problem: String,
    },
    /// A folder of server files (Continue's `.continue/mcpServers/`) was not read whole: it is
    /// not a folder, or it is larger than such a folder is read (a cloned repository can plant
    /// a huge tree there). The files read before the limit are listed as usual.
    #[error("{}: {problem}", .path.display())]
    Folder {
        /// The folder.
        path: PathBuf,
        /// What kept it from being read whole.
        problem: FolderProblem,
    },
    /// `HOME` is not set (or empty), so the user's home, and with it every user-level config
    /// file, is unknown.
    #[error("HOME is not set, so user-level MCP config files cannot be found; set HOME")]
    NoHome,
    /// Writing a config file failed; the file was left as it was.
    #[error("could not write {}: {source}", .path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// A config change that cannot be made (a bad name, a server already there, one that is
    /// not); nothing was written.
    #[error(transparent)]
    Change(#[from] ChangeProblem),
}

/// What is wrong with the shape of a config file that parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ShapeProblem {
    /// The top level is not an object.
    #[error("the file must hold a JSON object")]
    NotAnObject,
    /// A servers key holds something other than an object of entries.
    #[error("\"{key}\" must be an object mapping server names to their settings")]
    NotAServerMap {
        /// The key, e.g. `mcpServers`.
        key: String,
    },
    /// A key that groups the servers under another key holds something else.
    #[error("\"{key}\" must be an object holding \"{inner}\"")]
    NotAGroup {
        /// The key, e.g. `mcp`.
        key: String,
        /// The key it should hold, e.g. `servers`.
        inner: String,
    },
    /// A TOML servers table holds something other than one table per server.
    #[error("\"{key}\" must be a table of server tables ([{key}.<name>])")]
    NotATableOfServers {
        /// The key, e.g. `mcp_servers`.
        key: String,
    },
    /// One server's entry is not an object.
    #[error("the entry of server \"{name}\" in \"{key}\" must be an object")]
    EntryNotAnObject {
        /// The servers key.
        key: String,
        /// The server.
        name: String,
    },
    /// A list of server names holds something else.
    #[error("\"{key}\" must be a list of server names")]
    NotANameList {
        /// The key, e.g. `disabledServers`.
        key: String,
    },
    /// A map of folders holds something other than an object per folder.
    #[error("\"{key}\" must map folders to objects")]
    NotAFolderMap {
        /// The key.
        key: String,
    },
    /// A servers key that a tool writes as a list (Continue's `mcpServers`) holds something
    /// else.
    #[error("\"{key}\" must be a list of servers, each with a \"name\"")]
    NotAServerList {
        /// The key, e.g. `mcpServers`.
        key: String,
    },
    /// A JSON file in a folder of server files has none of the shapes the tool reads there.
    #[error(
        "the file has none of the shapes {tool} reads from a JSON file there: a copy of \
         ~/.claude.json (\"projects\"), a Claude Desktop file (\"mcpServers\") or a single \
         server (\"command\" or \"url\"); rewrite it as one of them"
    )]
    NoServerShape {
        /// The tool, e.g. `Continue`.
        tool: &'static str,
    },
}

/// What kept a folder of server files from being read whole ([`ConfigError::Folder`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FolderProblem {
    /// Something other than a folder stands where the folder is expected.
    #[error("it is not a folder; the server files go in a folder of that name")]
    NotAFolder,
    /// Folders are nested deeper than the limit below it.
    #[error(
        "it holds folders nested more than {limit} deep; the files below that depth were not \
         read (move them up)"
    )]
    TooDeep {
        /// How many folders deep files are looked for.
        limit: usize,
    },
    /// It holds more server files than the limit.
    #[error(
        "it holds more than {limit} server files; only the first {limit}, in name order, were \
         read (move the servers into fewer files)"
    )]
    TooManyFiles {
        /// How many files are read.
        limit: usize,
    },
    /// It holds more entries (files and folders of any kind) than the limit.
    #[error(
        "it holds more than {limit} files and folders; the rest were not looked at (remove \
         what is not a server file)"
    )]
    TooManyEntries {
        /// How many entries are looked at.
        limit: usize,
    },
    /// Its server files hold more bytes in all than the limit.
    #[error(
        "its server files hold more than {limit} bytes in all; the files past that were not \
         read (remove what is not a server file)"
    )]
    TooManyBytes {
        /// How many bytes are read.
        limit: u64,
    },
    /// A project's servers folder (or the folder holding it) is a symlink: a cloned repository
    /// could point it at the user's own files, so it is not followed.
    #[error(
        "it is a symlink (or sits in one) inside the project; a project's server files are read          only where they are (make it a real folder)"
    )]
    SymlinkInProject,
}

/// Why a change to a config file (adding, removing, switching a server) cannot be made.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ChangeProblem {
    /// The server name is empty.
    #[error("the server name is empty; {}", NAME_RULE)]
    EmptyName,
    /// The server name has a character names may not have.
    #[error(
        "invalid server name \"{name}\": {bad:?} is not allowed; {}",
        NAME_RULE
    )]
    BadName {
        /// The name.
        name: String,
        /// The first character not allowed.
        bad: char,
    },
    /// A change asked of the managed level, whose files belong to the administrator.
    #[error(
        "managed config files belong to the machine's administrator and are never edited here; \
         use the project or user level"
    )]
    ManagedLevel,
    /// The file already has a server of that name.
    #[error(
        "a server named \"{name}\" is already in {}; remove it first or choose another name",
        .path.display()
    )]
    AlreadyThere {
        /// The server.
        name: String,
        /// The file.
        path: PathBuf,
    },
    /// The file has no server of that name.
    #[error(
        "there is no server named \"{name}\" in the {level} config {}{}",
        .path.display(),
        if *.file_exists { "" } else { " (the file does not exist)" }
    )]
    NotThere {
        /// The server.
        name: String,
        /// The level of the file.
        level: Level,
        /// The file.
        path: PathBuf,
        /// Whether the file exists.
        file_exists: bool,
    },
    /// An approval was asked for under a folder that could not be made absolute (the
    /// process's working directory is gone): approvals are recorded under absolute folders only.
    #[error(
        "cannot record an approval for {}: it is a relative path and the current directory \
         cannot be read; give the project folder as an absolute path",
        .folder.display()
    )]
    RelativeFolder {
        /// The folder as given.
        folder: PathBuf,
    },
    /// A project server whose consent description cannot state what approving it allows
    /// ([`Consent::is_approvable`](crate::Consent::is_approvable)): it is never approved.
    #[error(
        "\"{name}\" cannot be approved: {}",
        .refused.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ")
    )]
    NotApprovable {
        /// The server.
        name: String,
        /// What the description cannot state.
        refused: Vec<crate::consent::Unstatable>,
    },
    /// The server's settings could not be written as JSON.
    #[error("server \"{name}\" could not be turned into JSON: {source}")]
    NotJson {
        /// The server.
        name: String,
        /// The serializer's error.
        #[source]
        source: serde_json::Error,
    },
}

/// What a new server's name may hold.
const NAME_RULE: &str = "use only ASCII letters, digits, \"-\", \"_\" and \".\"";

impl ConfigError {
    /// The shape error of a file that was read (not being changed).
    pub(crate) fn shape(path: &std::path::Path, problem: ShapeProblem) -> Self {
        Self::Shape {
            path: path.to_owned(),
            problem,
            left_unchanged: false,
        }
    }

    /// The file the error is about, if any.
    pub fn path(&self) -> Option<&std::path::Path> {
        match self {
            Self::Read { path, .. }
            | Self::NotAFile { path, .. }
            | Self::TooLarge { path, .. }
            | Self::Parse { path, .. }
            | Self::Shape { path, .. }
            | Self::Script { path, .. }
            | Self::Policy { path, .. }
            | Self::Folder { path, .. }
            | Self::Write { path, .. } => Some(path),
            // A change names its file in its message, when it has one.
            Self::NoHome | Self::Change(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_shape_problem_names_its_key_and_says_whether_the_file_was_left_unchanged() {
        let key = || "mcpServers".to_owned();
        let cases = [
            (
                ShapeProblem::NotAnObject,
                "the file must hold a JSON object",
            ),
            (
                ShapeProblem::NotAServerMap { key: key() },
                "\"mcpServers\" must be an object mapping server names to their settings",
            ),
            (
                ShapeProblem::NotAGroup {
                    key: "mcp".to_owned(),
                    inner: "servers".to_owned(),
                },
                "\"mcp\" must be an object holding \"servers\"",
            ),
            (
                ShapeProblem::NotATableOfServers {
                    key: "mcp_servers".to_owned(),
                },
                "\"mcp_servers\" must be a table of server tables ([mcp_servers.<name>])",
            ),
            (
                ShapeProblem::EntryNotAnObject {
                    key: key(),
                    name: "gh".to_owned(),
                },
                "the entry of server \"gh\" in \"mcpServers\" must be an object",
            ),
            (
                ShapeProblem::NotANameList {
                    key: "disabledServers".to_owned(),
                },
                "\"disabledServers\" must be a list of server names",
            ),
            (
                ShapeProblem::NotAFolderMap {
                    key: "trustedProjects".to_owned(),
                },
                "\"trustedProjects\" must map folders to objects",
            ),
            (
                ShapeProblem::NotAServerList { key: key() },
                "\"mcpServers\" must be a list of servers, each with a \"name\"",
            ),
            (
                ShapeProblem::NoServerShape { tool: "Continue" },
                "the file has none of the shapes Continue reads from a JSON file there: a copy of \
                 ~/.claude.json (\"projects\"), a Claude Desktop file (\"mcpServers\") or a \
                 single server (\"command\" or \"url\"); rewrite it as one of them",
            ),
        ];
        for (problem, text) in cases {
            let read = ConfigError::shape(std::path::Path::new("/c/mcp.json"), problem.clone());
            assert_eq!(read.to_string(), format!("/c/mcp.json: {text}"));
            let changed = ConfigError::Shape {
                path: "/c/mcp.json".into(),
                problem,
                left_unchanged: true,
            };
            assert_eq!(
                changed.to_string(),
                format!("/c/mcp.json: {text}; the file was left unchanged")
            );
            assert_eq!(changed.path(), Some(std::path::Path::new("/c/mcp.json")));
        }
    }

    #[test]
    fn each_change_problem_says_what_to_do() {
        let rule = "use only ASCII letters, digits, \"-\", \"_\" and \".\"";
        let cases = [
            (ChangeProblem::EmptyName, format!("the server name is empty; {rule}")),
            (
                ChangeProblem::BadName {
                    name: "a b".to_owned(),
                    bad: ' ',
                },
                format!("invalid server name \"a b\": ' ' is not allowed; {rule}"),
            ),
            (
                ChangeProblem::AlreadyThere {
                    name: "gh".to_owned(),
                    path: "/c/mcp.json".into(),
                },
                "a server named \"gh\" is already in /c/mcp.json; remove it first \
                 or choose another name"
                    .to_owned(),
            ),
            (
                ChangeProblem::NotThere {
                    name: "gh".to_owned(),
                    level: Level::User,
                    path: "/c/mcp.json".into(),
                    file_exists: false,
                },
                "there is no server named \"gh\" in the user config /c/mcp.json (the file does not \
                 exist)"
                    .to_owned(),
            ),
        ];
        for (problem, text) in cases {
            assert_eq!(ConfigError::from(problem).to_string(), text);
        }
    }

    #[test]
    fn each_folder_problem_names_the_folder_and_says_what_to_do() {
        let cases = [
            (
                FolderProblem::NotAFolder,
                "it is not a folder; the server files go in a folder of that name",
            ),
            (
                FolderProblem::TooDeep { limit: 8 },
                "it holds folders nested more than 8 deep; the files below that depth were not \
                 read (move them up)",
            ),
            (
                FolderProblem::TooManyFiles { limit: 256 },
                "it holds more than 256 server files; only the first 256, in name order, were \
                 read (move the servers into fewer files)",
            ),
            (
                FolderProblem::TooManyEntries { limit: 4096 },
                "it holds more than 4096 files and folders; the rest were not looked at (remove \
                 what is not a server file)",
            ),
            (
                FolderProblem::TooManyBytes { limit: 10 },
                "its server files hold more than 10 bytes in all; the files past that were not \
                 read (remove what is not a server file)",
            ),
        ];
        for (problem, text) in cases {
            let error = ConfigError::Folder {
                path: "/w/.continue/mcpServers".into(),
                problem,
            };
            assert_eq!(
                error.to_string(),
                format!("/w/.continue/mcpServers: {text}")
            );
            assert_eq!(
                error.path(),
                Some(std::path::Path::new("/w/.continue/mcpServers"))
            );
        }
    }

    #[test]
    fn an_unknown_home_reads_as_before_and_names_no_file() {
        let error = ConfigError::NoHome;
        assert_eq!(
            error.to_string(),
            "HOME is not set, so user-level MCP config files cannot be found; set HOME"
        );
        assert_eq!(error.path(), None);
    }
}
