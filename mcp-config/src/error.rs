//! The crate's error type. Messages name the file (or server) and say what to fix.

use std::path::PathBuf;

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
    #[error("{}: {message}", .path.display())]
    Shape {
        /// The file.
        path: PathBuf,
        /// What is wrong, naming the key.
        message: String,
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
    /// A config change that cannot be made (unknown server, server already there, …).
    #[error("{0}")]
    Invalid(String),
}

impl ConfigError {
    /// The file the error is about, if any.
    pub fn path(&self) -> Option<&std::path::Path> {
        match self {
            Self::Read { path, .. }
            | Self::NotAFile { path, .. }
            | Self::TooLarge { path, .. }
            | Self::Parse { path, .. }
            | Self::Shape { path, .. }
            | Self::Write { path, .. } => Some(path),
            Self::NoHome | Self::Invalid(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
