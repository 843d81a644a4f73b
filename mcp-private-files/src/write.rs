//! Writing private files and folders: [`write_atomically`], [`write_rebuildable`], [`write_new`], [`create_new_file`],
//! [`create_private_dirs`], [`ensure_private_dir`], and [`final_target`] for a path that may be
//! a symlink.

use std::fs::{self, DirBuilder, File, OpenOptions};
use std::io::{self, Write as _};
#[cfg(unix)]
use std::os::unix::fs::{DirBuilderExt as _, OpenOptionsExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// The mode of every private file written.
pub const FILE_MODE: u32 = 0o600;
/// The mode of every folder created for a private file.
pub const DIR_MODE: u32 = 0o700;
/// How many symlinks [`final_target`] follows before it gives up (a loop).
const MAX_SYMLINKS: usize = 40;

/// Replaces `target` with `bytes`, whole or not at all: a new file beside it (mode `0600`, or
/// the target's own mode when that is narrower), written and synced, renamed over `target`, and
/// the folder synced so the rename survives a crash. Missing folders are created `0700`. On
/// failure what was written aside is removed and `target` is as it was.
///
/// `target` itself is replaced: give [`final_target`] of a path that may be a symlink to
/// replace the file it points at and keep the link.
pub fn write_atomically(target: &Path, bytes: &[u8]) -> io::Result<()> {
    replace(target, bytes, Durability::Synced)
}

/// [`write_atomically`] without the syncs, for a file another store can rebuild (the tool
/// cache's read view of its database): still written aside and renamed, whole or not at all,
/// `0600` in `0700` folders, but left to the kernel to write out. After a crash such a file
/// may be empty or old, never half of one version; its reader treats that as a miss. Syncing
/// two dozen of them costs a cold start tens of milliseconds.
pub fn write_rebuildable(target: &Path, bytes: &[u8]) -> io::Result<()> {
    replace(target, bytes, Durability::Rebuildable)
}

/// Whether a replaced file is synced to disk.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Durability {
    /// The file and the rename are on disk when the write returns.
    Synced,
    /// The kernel writes them out when it does.
    Rebuildable,
}

fn replace(target: &Path, bytes: &[u8], durability: Durability) -> io::Result<()> {
    let synced = durability == Durability::Synced;
    let dir = folder_of(target);
    let file_name = target
        .file_name()
        .ok_or_else(|| io::Error::other(format!("{} has no file name", target.display())))?;
    create_private_dirs(&dir)?;
    let mode = kept_mode(target);
    let (aside, mut file) = create_aside(&dir, &file_name.to_string_lossy())?;
    let written = set_mode(&file, mode)
        .and_then(|()| file.write_all(bytes))
        .and_then(|()| if synced { file.sync_all() } else { Ok(()) });
    drop(file);
    if let Err(error) = written.and_then(|()| fs::rename(&aside, target)) {
        let _ = fs::remove_file(&aside);
        return Err(error);
    }
    if synced {
        // The data is safe already; a folder that cannot be synced (some file systems
        // refuse) only makes the rename less durable.
        let _ = File::open(&dir).and_then(|folder| folder.sync_all());
    }
    Ok(())
}

/// Writes a new file at `path` holding `bytes`, whole or not at all, and never over anything
/// already there: written aside (`0600`) and synced, then linked in under `path` (which fails
/// when the name is taken, by a file or a planted symlink: [`io::ErrorKind::AlreadyExists`]),
/// the folder synced. Missing folders are created `0700`. For files named afresh, such as a
/// tool result cut by the output budget: whoever opens the name sees all of it or nothing.
pub fn write_new(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = folder_of(path);
    let file_name = path
        .file_name()
        .ok_or_else(|| io::Error::other(format!("{} has no file name", path.display())))?;
    create_private_dirs(&dir)?;
    let (aside, mut file) = create_aside(&dir, &file_name.to_string_lossy())?;
    let written = file.write_all(bytes).and_then(|()| file.sync_all());
    drop(file);
    let linked = written.and_then(|()| fs::hard_link(&aside, path));
    let _ = fs::remove_file(&aside);
    linked?;
    let _ = File::open(&dir).and_then(|folder| folder.sync_all());
    Ok(())
}

/// Creates the file at `path`, `0600`, failing when anything is there already (a file, a
/// symlink that would be written through): for files named afresh, such as a cut tool result.
pub fn create_new_file(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    options.mode(FILE_MODE);
    options.open(path)
}

/// Creates `dir` and its missing ancestors with mode `0700`; folders that exist are left as
/// they are.
pub fn create_private_dirs(dir: &Path) -> io::Result<()> {
    let mut missing = Vec::new();
    let mut current = Some(dir);
    while let Some(path) = current {
        if path.as_os_str().is_empty() || fs::symlink_metadata(path).is_ok() {
            break;
        }
        missing.push(path);
        current = path.parent();
    }
    for path in missing.into_iter().rev() {
        let mut builder = DirBuilder::new();
        #[cfg(unix)]
        builder.mode(DIR_MODE);
        match builder.create(path) {
            // The process's umask may have narrowed the mode further; never widen it back.
            Ok(()) => {}
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {}
            Err(error) => return Err(error),
        }
    }
    Ok(())
}

/// Makes `dir` a private folder: created `0700` (with its missing ancestors) when missing,
/// narrowed to `0700` when it is wider. A path that is not a folder (a file, a symlink), or a
/// folder whose mode cannot be changed (someone else's), is an error.
pub fn ensure_private_dir(dir: &Path) -> io::Result<()> {
    create_private_dirs(dir)?;
    let metadata = fs::symlink_metadata(dir)?;
    if !metadata.is_dir() {
        return Err(io::Error::other(format!(
            "{} is not a folder",
            dir.display()
        )));
    }
    #[cfg(unix)]
    if metadata.permissions().mode() & 0o077 != 0 {
        fs::set_permissions(dir, fs::Permissions::from_mode(DIR_MODE))?;
    }
    Ok(())
}

/// The file `path` leads to, following symlinks (the file need not exist): what to lock and
/// replace so that a link keeps pointing where it did.
pub fn final_target(path: &Path) -> io::Result<PathBuf> {
    let mut current = path.to_owned();
    for _ in 0..MAX_SYMLINKS {
        match fs::symlink_metadata(&current) {
            Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(current),
            Err(error) => return Err(error),
            Ok(metadata) if metadata.file_type().is_symlink() => {
                let link = fs::read_link(&current)?;
                current = match current.parent() {
                    Some(parent) if link.is_relative() => parent.join(link),
                    _ => link,
                };
            }
            Ok(_) => return Ok(current),
        }
    }
    Err(io::Error::other(format!(
        "{}: more than {MAX_SYMLINKS} symbolic links (a loop?)",
        path.display()
    )))
}

/// The folder holding `path` (`.` for a bare name).
pub(crate) fn folder_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_owned(),
        _ => PathBuf::from("."),
    }
}

/// The mode of the file that replaces `target`: its own, when that is narrower than
/// [`FILE_MODE`] and still readable by its owner; [`FILE_MODE`] otherwise.
fn kept_mode(target: &Path) -> u32 {
    #[cfg(unix)]
    if let Ok(metadata) = fs::metadata(target) {
        let kept = metadata.permissions().mode() & FILE_MODE;
        if kept & 0o400 != 0 {
            return kept;
        }
    }
    let _ = target;
    FILE_MODE
}

fn set_mode(file: &File, mode: u32) -> io::Result<()> {
    #[cfg(unix)]
    return file.set_permissions(fs::Permissions::from_mode(mode));
    #[cfg(not(unix))]
    {
        let _ = (file, mode);
        Ok(())
    }
}

/// A new file beside the target, `0600` from the start, named so no two writers (threads or
/// processes) pick the same: `.<name>.<pid>.<n>.<nanos>.tmp`.
fn create_aside(dir: &Path, file_name: &str) -> io::Result<(PathBuf, File)> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|elapsed| elapsed.subsec_nanos())
        .unwrap_or_default();
    let mut last_error = None;
    for _ in 0..64 {
        let count = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = dir.join(format!(
            ".{file_name}.{}.{count}.{nanos}.tmp",
            std::process::id()
        ));
        match create_new_file(&path) {
            Ok(file) => return Ok((path, file)),
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => last_error = Some(error),
            Err(error) => return Err(error),
        }
    }
    Err(last_error.unwrap_or_else(|| io::Error::other("no free name for a file written aside")))
}
