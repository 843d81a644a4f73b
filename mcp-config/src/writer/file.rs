//! The file mechanics of a change to a native config file: the file read (through symlinks)
//! under its write lock, held until the change is written back or dropped, and written back
//! atomically as pretty JSON through [`mcp_private_files`] (a private file beside it, synced,
//! renamed over it). What a change does to the document is [`super`]'s.

use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use mcp_private_files::{FileLock, LockError, final_target, write_atomically};
use serde_json::{Map, Value};

use crate::error::{ConfigError, ShapeProblem};
use crate::read_pass::read_config_file;
use crate::source::parse_json;

/// How long a writer waits for other processes' changes to the same file before it gives up:
/// long enough for a crowd of writers each syncing to a busy disk, short enough that a writer
/// stuck behind a hung process says so.
const LOCK_WAIT: Duration = Duration::from_secs(30);

/// One native file, read and parsed, being changed: read under the file's write lock, which is
/// held until the document is dropped, so no other writer reads it before this one has saved.
pub(super) struct Document {
    /// The lock, released when the document is dropped.
    _lock: FileLock,
    /// The file the change is written to (symlinks resolved).
    pub(super) target: PathBuf,
    /// Whether the file existed when it was read.
    pub(super) existed: bool,
    /// Its top-level object.
    pub(super) root: Map<String, Value>,
}

impl Document {
    /// Reads `path` (through symlinks); a missing file is `{}`, a broken one an error.
    pub(super) fn load(path: &Path) -> Result<Self, ConfigError> {
        Self::load_waiting(path, LOCK_WAIT)
    }

    /// [`load`](Self::load), waiting at most `wait` for the file's lock.
    pub(super) fn load_waiting(path: &Path, wait: Duration) -> Result<Self, ConfigError> {
        let target = final_target(path).map_err(|source| ConfigError::Read {
            path: path.to_owned(),
            source,
        })?;
        let lock = lock(&target, wait)?;
        let text = read_config_file(&target)?;
        let existed = text.is_some();
        let root = match text {
            None => Map::new(),
            Some(text) => match parse_json(&target, &text)? {
                Value::Object(root) => root,
                _ => {
                    return Err(unchanged_shape_error(&target, ShapeProblem::NotAnObject));
                }
            },
        };
        Ok(Self {
            _lock: lock,
            target,
            existed,
            root,
        })
    }

    pub(super) fn shape_error(&self, problem: ShapeProblem) -> ConfigError {
        unchanged_shape_error(&self.target, problem)
    }

    /// Writes the document back: pretty JSON with a trailing newline, atomically.
    pub(super) fn write(&self) -> Result<(), ConfigError> {
        let mut text =
            serde_json::to_string_pretty(&self.root).map_err(|error| ConfigError::Write {
                path: self.target.clone(),
                source: io::Error::other(error),
            })?;
        text.push('\n');
        write_atomically(&self.target, text.as_bytes()).map_err(|source| ConfigError::Write {
            path: self.target.clone(),
            source,
        })?;
        tracing::debug!(path = %self.target.display(), "wrote MCP config file");
        Ok(())
    }
}

/// Takes the lock of `target` ([`FileLock`]: `.<name>.lock` beside it, removed when released),
/// waiting at most `wait` for another writer to finish.
pub(super) fn lock(target: &Path, wait: Duration) -> Result<FileLock, ConfigError> {
    FileLock::acquire(target, wait).map_err(|error| {
        let source = match error {
            LockError::Busy { .. } => io::Error::new(io::ErrorKind::WouldBlock, error.to_string()),
            other => io::Error::other(other.to_string()),
        };
        ConfigError::Write {
            path: target.to_owned(),
            source,
        }
    })
}

/// The shape error of a file being changed: nothing was written.
pub(super) fn unchanged_shape_error(path: &Path, problem: ShapeProblem) -> ConfigError {
    ConfigError::Shape {
        path: path.to_owned(),
        problem,
        left_unchanged: true,
    }
}
