//! The session's own directory for tool results cut by the output budget: created private
//! (0700) under the system's temporary directory, removed with everything in it when the
//! session ends.
//!
//! Written by hand rather than with `tempfile`: one directory, created once and removed once,
//! is a few lines, and the crate would bring its own dependencies for it.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

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
        let safe_app: String = app
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let path = std::env::temp_dir().join(format!(
            "{safe_app}-outputs-{}-{}-{nanos}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let mut builder = std::fs::DirBuilder::new();
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder.create(&path)?;
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
