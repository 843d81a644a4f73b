//! Where the client reads a credential file a server's `auth` names (`privateKeyFile`,
//! `assertionFile`, `idTokenFile`), and the rule that a project server's file stays inside its
//! own project folder: the consent states both, and the connection checks them again.

use std::path::{Path, PathBuf};

use crate::origin::SourceMeta;
use crate::server_config::normalized;

/// A credential file named in a server's `auth` (expanded or as written), as the client will
/// read it: a relative name taken from the folder of the file that defines the server, `.` and
/// `..` taken out, symlinks followed when it exists.
pub(crate) fn credential_file(path: &Path, source: &SourceMeta) -> PathBuf {
    let base = source.path.parent().unwrap_or(Path::new("/"));
    let file = normalized(&base.join(path));
    std::fs::canonicalize(&file).unwrap_or(file)
}

/// The project folder `file` is outside of, when the server is a project server's and it is:
/// a cloned repository may name credential files inside itself only.
pub(crate) fn outside_project(file: &Path, source: &SourceMeta) -> Option<PathBuf> {
    if !source.in_project_folder {
        return None;
    }
    let folder = source.project_folder.as_ref()?;
    let canonical = std::fs::canonicalize(folder).unwrap_or_else(|_| folder.clone());
    (!file.starts_with(&canonical) && !file.starts_with(folder)).then_some(canonical)
}
