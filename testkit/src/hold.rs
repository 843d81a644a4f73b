//! [`Hold`]: a named pipe a fixture server waits on ([`FixtureServer::hold`]) until the test
//! lets it go, so a server is slow for exactly as long as a test needs and no clock is raced.
//!
//! [`FixtureServer::hold`]: crate::FixtureServer::hold

use std::path::{Path, PathBuf};
use std::process::Command;

/// A named pipe a held fixture server waits on.
#[derive(Debug)]
pub struct Hold {
    fifo: PathBuf,
}

impl Hold {
    /// Makes the pipe `<name>.hold` in `folder` (which must exist).
    ///
    /// # Panics
    ///
    /// If `mkfifo` cannot make it.
    pub fn in_folder(folder: &Path, name: &str) -> Self {
        let fifo = folder.join(format!("{name}.hold"));
        let made = Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap_or_else(|error| panic!("mkfifo {}: {error}", fifo.display()));
        assert!(made.success(), "mkfifo {}", fifo.display());
        Self { fifo }
    }

    /// The pipe, for [`FixtureServer::hold`](crate::FixtureServer::hold).
    pub fn fifo(&self) -> &Path {
        &self.fifo
    }

    /// Releases the answer held: opens the pipe for writing, which waits (on a thread of its
    /// own, never joined: a server that never comes leaves it waiting, not the test) until a
    /// server holding on it has opened it to read. Every server waiting on it then goes on;
    /// one that comes to it later waits for another release.
    pub fn release(&self) {
        let fifo = self.fifo.clone();
        std::thread::spawn(move || {
            drop(std::fs::OpenOptions::new().write(true).open(&fifo));
        });
    }
}
