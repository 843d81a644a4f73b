//! Where tool results cut by the output budget are kept whole.
//!
//! - [`SpillDir`], for an agent's long-running session: the session's own directory, created
//!   private (0700) under the system's temporary directory and removed with everything in it
//!   when the session ends.
//! - [`user_results_dir`], for the CLI (and any program that exits after a call): a command ends right after it prints, so a file it named
//!   in a cut marker must outlive it. Results go to the user's cache folder
//!   (`$XDG_CACHE_HOME/<app>/results`, else `~/.cache/<app>/results`), private (0700, files
//!   0600), and files older than [`RESULT_MAX_AGE`] are removed each time a command starts.
//!
//! The folders are made as every private folder of the runtime is ([`mcp_private_files`]), and
//! the files in them are written by the output budget the same way (`mcp_bridge`). Written by
//! hand rather than with `tempfile`: one directory, created once and removed once, is a few
//! lines.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

/// How long the CLI keeps a cut result's whole text: long enough to read it after the command,
/// short enough that the folder does not grow without bound.
pub(crate) const RESULT_MAX_AGE: Duration = Duration::from_secs(24 * 60 * 60);

/// A private directory removed on drop.
#[derive(Debug)]
pub(crate) struct SpillDir {
    path: PathBuf,
}

impl SpillDir {
    /// Creates `<temp>/<app>-outputs-<pid>-<n>-<nanos>`, readable by the user only.
    pub(crate) fn create(app: &str) -> std::io::Result<Self> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|elapsed| elapsed.subsec_nanos())
            .unwrap_or_default();
        let path = std::env::temp_dir().join(format!(
            "{}-outputs-{}-{}-{nanos}",
            safe_name(app),
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        mcp_private_files::ensure_private_dir(&path)?;
        Ok(Self { path })
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for SpillDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// `app` as one safe path component.
fn safe_name(app: &str) -> String {
    app.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// A folder for results cut by the output budget that outlives the process: for a program
/// that exits right after a tool call (the CLI's `call`), so that the file a cut marker names is
/// still there when its user looks. Set it as the budget's `spill_dir`.
///
/// The folder is `$XDG_CACHE_HOME/<app>/results`, else `~/.cache/<app>/results`; it is made
/// ready on each call: created private (0700) when missing, narrowed to 0700 when it exists
/// (which fails when someone else owns it), and cleared of files older than a day. It is
/// returned even when it could not be made ready: writing a result there then fails, and the
/// marker says the result was not kept instead of naming a file.
///
/// ```no_run
/// let results = agent_session::user_results_dir("my-agent");
/// let budget = mcp_bridge::OutputBudget::new(100 * 1024, Some(results));
/// # let _ = budget;
/// ```
pub fn user_results_dir(app: &str) -> PathBuf {
    let dir =
        mcp_config::app_cache_dir(&safe_name(app), |var| std::env::var_os(var)).join("results");
    match prepare_results_dir(&dir, RESULT_MAX_AGE, SystemTime::now()) {
        Ok(removed) if removed > 0 => {
            tracing::debug!(dir = %dir.display(), removed, "old cut results removed");
        }
        Ok(_) => {}
        Err(error) => {
            tracing::debug!(dir = %dir.display(), %error, "no folder for cut results");
        }
    }
    dir
}

/// Creates `dir` private and removes the plain files in it last changed more than `max_age`
/// before `now`; returns how many went. Anything else in it (a folder, a link) is left alone.
fn prepare_results_dir(dir: &Path, max_age: Duration, now: SystemTime) -> std::io::Result<usize> {
    // A folder that already existed is narrowed, and one that is not a folder of ours refused
    // (only the owner may change its mode).
    mcp_private_files::ensure_private_dir(dir)?;
    let mut removed = 0;
    for entry in std::fs::read_dir(dir)? {
        let Ok(entry) = entry else { continue };
        let Ok(metadata) = entry.metadata() else {
            continue;
        };
        let old = metadata
            .modified()
            .ok()
            .and_then(|modified| now.duration_since(modified).ok())
            .is_some_and(|age| age > max_age);
        if metadata.is_file() && old && std::fs::remove_file(entry.path()).is_ok() {
            removed += 1;
        }
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn an_existing_results_folder_is_narrowed_to_its_owner() {
        use std::os::unix::fs::PermissionsExt as _;
        let root = SpillDir::create("spill-unit").unwrap();
        let dir = root.path().join("results");
        std::fs::create_dir(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        prepare_results_dir(&dir, RESULT_MAX_AGE, SystemTime::now()).unwrap();
        let mode = std::fs::metadata(&dir).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
    }
}
