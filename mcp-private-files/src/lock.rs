//! [`FileLock`]: one writer at a time for a file, across processes, leaving no lock file behind.
//!
//! The lock is an `flock` on `.<name>.lock` beside the file: the file itself is replaced by each
//! write (a new inode), so a lock on it would not exclude the next writer. The lock file is
//! removed when the lock is released, while it is still held. A writer that was waiting on it
//! then holds a lock on a file no longer at that path, which excludes nobody: so after every
//! lock taken the path is checked to still be the file locked (same device and inode), and when
//! it is not the lock is taken again, on the file now there.

use std::fs::{self, File, OpenOptions, TryLockError};
use std::io;
#[cfg(unix)]
use std::os::unix::fs::{MetadataExt as _, OpenOptionsExt as _};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::write::{FILE_MODE, create_private_dirs, folder_of};

/// How often [`FileLock::acquire`] tries again while it waits.
const POLL: Duration = Duration::from_millis(5);

/// An exclusive lock for changing one file; released, and its lock file removed, on drop.
#[derive(Debug)]
pub struct FileLock {
    file: File,
    path: PathBuf,
}

/// Why a lock could not be taken.
#[derive(Debug)]
#[non_exhaustive]
pub enum LockError {
    /// Another writer held it for the whole wait.
    Busy {
        /// The lock file.
        lock: PathBuf,
        /// How long this writer waited.
        waited: Duration,
    },
    /// The lock file could not be made or locked.
    Io {
        /// The lock file.
        lock: PathBuf,
        /// The cause.
        source: io::Error,
    },
}

impl FileLock {
    /// Takes the lock for changing `target` (created `0700` folders included), waiting at most
    /// `wait` for another writer to finish. Blocks the thread while it waits: call it where
    /// blocking is fine (a blocking task in async code), or poll [`try_acquire`](Self::try_acquire).
    pub fn acquire(target: &Path, wait: Duration) -> Result<Self, LockError> {
        let started = Instant::now();
        loop {
            if let Some(lock) = Self::try_acquire(target)? {
                return Ok(lock);
            }
            if started.elapsed() >= wait {
                return Err(LockError::Busy {
                    lock: lock_path(target),
                    waited: wait,
                });
            }
            std::thread::sleep(POLL);
        }
    }

    /// Takes the lock for changing `target` if no one holds it, without waiting: `None` when
    /// someone does. For a caller that waits its own way (an async task sleeping between
    /// tries).
    pub fn try_acquire(target: &Path) -> Result<Option<Self>, LockError> {
        let path = lock_path(target);
        let io_error = |source| LockError::Io {
            lock: path.clone(),
            source,
        };
        create_private_dirs(&folder_of(&path)).map_err(io_error)?;
        loop {
            let file = open(&path).map_err(io_error)?;
            match file.try_lock() {
                Ok(()) => {
                    if still_at(&file, &path).map_err(io_error)? {
                        return Ok(Some(Self { file, path }));
                    }
                    // Its holder removed it as we took it: lock the one there now.
                }
                Err(TryLockError::WouldBlock) => return Ok(None),
                Err(TryLockError::Error(source)) => return Err(io_error(source)),
            }
        }
    }

    /// The lock file `target`'s lock takes (`.<name>.lock` beside it), for a message naming it.
    pub fn lock_file_of(target: &Path) -> PathBuf {
        lock_path(target)
    }

    /// The lock file, while the lock is held.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for FileLock {
    fn drop(&mut self) {
        // Removed while held: whoever opens the path next makes a new file, and whoever waits
        // on this one finds it gone and tries again.
        let _ = fs::remove_file(&self.path);
        let _ = self.file.unlock();
    }
}

/// `.<name>.lock` beside `target`.
fn lock_path(target: &Path) -> PathBuf {
    let name = target
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    folder_of(target).join(format!(".{name}.lock"))
}

fn open(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true).write(true).create(true).truncate(false);
    #[cfg(unix)]
    options.mode(FILE_MODE);
    options.open(path)
}

/// Whether `path` is still the file `file` is.
fn still_at(file: &File, path: &Path) -> io::Result<bool> {
    let held = file.metadata()?;
    match fs::symlink_metadata(path) {
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(error) => Err(error),
        #[cfg(unix)]
        Ok(there) => Ok(there.dev() == held.dev() && there.ino() == held.ino()),
        #[cfg(not(unix))]
        Ok(_) => Ok(true),
    }
}

impl std::fmt::Display for LockError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Busy { lock, waited } => write!(
                f,
                "another process has been changing this file for {waited:?} (it holds the lock \
                 {}); nothing was written: try again when it is done",
                lock.display()
            ),
            Self::Io { lock, source } => write!(f, "locking {}: {source}", lock.display()),
        }
    }
}

impl std::error::Error for LockError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Busy { .. } => None,
            Self::Io { source, .. } => Some(source),
        }
    }
}
