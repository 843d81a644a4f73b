//! The one error type of xtask; its text is what the user reads before the non-zero exit.

use std::fmt;
use std::io;
use std::process::ExitStatus;

/// Why an xtask command failed.
#[derive(Debug)]
pub(crate) enum Error {
    /// The command line was not understood; the usage text follows and the exit code is 2.
    Usage(String),
    /// Something xtask needs before it can start (a path, a tool) is not there.
    Setup(String),
    /// A check of the workspace's structure found what it forbids.
    Check(String),
    /// A program could not be started at all (not installed, not on `PATH`).
    Spawn { command: String, source: io::Error },
    /// A program ran and exited unsuccessfully; its own output is already on the terminal.
    Failed { command: String, status: ExitStatus },
    /// Reading or writing a file or folder failed.
    Io { action: String, source: io::Error },
    /// A CI step failed; names the step so the log says where to look.
    Step {
        step: &'static str,
        source: Box<Error>,
    },
}

impl Error {
    pub(crate) fn io(action: impl Into<String>, source: io::Error) -> Self {
        Self::Io {
            action: action.into(),
            source,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Usage(message) | Self::Setup(message) | Self::Check(message) => {
                f.write_str(message)
            }
            Self::Spawn { command, source } => {
                write!(f, "could not start `{command}`: {source}")?;
                if source.kind() == io::ErrorKind::NotFound {
                    f.write_str(" (is it installed and on PATH?)")?;
                }
                Ok(())
            }
            Self::Failed { command, status } => write!(f, "`{command}` failed ({status})"),
            Self::Io { action, source } => write!(f, "{action}: {source}"),
            Self::Step { step, source } => write!(f, "ci step `{step}` failed: {source}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Spawn { source, .. } | Self::Io { source, .. } => Some(source),
            Self::Step { source, .. } => Some(source.as_ref()),
            Self::Usage(_) | Self::Setup(_) | Self::Check(_) | Self::Failed { .. } => None,
        }
    }
}
