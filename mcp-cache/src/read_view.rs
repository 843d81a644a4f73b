//! The read view of a [`SledToolCache`](crate::SledToolCache): every entry of the sled
//! database also kept as a file of its own, `<dir>/entries/<sha256 of the server name>`, so that
//! a lookup reads one small file instead of opening the database.
//!
//! Why: sled lets one process open a database at a time, and a cold open costs 5–15 ms in
//! release (100 ms and more in a debug build on a busy machine) — with the lock held. Twelve
//! agents started together took their turns one after the other and most of them missed their
//! startup gate. Files can be read by every process at once, without a lock.
//!
//! The view is written only by a process that holds the database: each write or removal in
//! sled is followed by the same change to the view, before the lock is given up, so writers are
//! ordered by the lock and a file is replaced whole ([`mcp_private_files::write_rebuildable`]:
//! written aside, renamed) — a reader sees the old entry or the new one, never a torn one. The view is trusted only once it is
//! complete: the first process to open the database without a `complete` marker copies every
//! entry into the view, then writes the marker. A view file that cannot be written removes the
//! marker, so readers go back to the database until the next open rebuilds the view. sled
//! stays the store of record; the view can be deleted at any time.

use std::io;
use std::path::{Path, PathBuf};

use crate::fingerprint::sha256_hex;

/// The marker that the view holds every entry of the database.
const COMPLETE: &str = "complete";
/// The largest view file read: far above any real tool list, so a damaged or planted file
/// cannot make a lookup allocate without bound.
const MAX_ENTRY_BYTES: u64 = 64 * 1024 * 1024;

/// The `entries` folder of one store.
#[derive(Debug, Clone)]
pub(crate) struct ReadView {
    dir: PathBuf,
}

/// What the view knows of one server.
pub(crate) enum ViewRead {
    /// The view is not complete (or unreadable): ask the database.
    Unknown,
    /// The view is complete and has no entry for the server.
    Absent,
    /// The entry's bytes, as the database holds them.
    Entry(Vec<u8>),
}

impl ReadView {
    pub(crate) fn of_store(store: &Path) -> Self {
        Self {
            dir: store.join("entries"),
        }
    }

    /// The entry of `server`, read without touching the database.
    pub(crate) fn read(&self, server: &str) -> ViewRead {
        if !self.dir.join(COMPLETE).is_file() {
            return ViewRead::Unknown;
        }
        let path = self.file_of(server);
        let file = match std::fs::File::open(&path) {
            Ok(file) => file,
            Err(error) if error.kind() == io::ErrorKind::NotFound => return ViewRead::Absent,
            Err(_) => return ViewRead::Unknown,
        };
        let length = match file.metadata() {
            Ok(metadata) if metadata.is_file() && metadata.len() <= MAX_ENTRY_BYTES => {
                metadata.len()
            }
            _ => return ViewRead::Unknown,
        };
        // Sized from the start (one byte more to see the end at once): growing a buffer of a
        // few hundred KiB by doubling copies it eight times and churns the allocator.
        let mut bytes = Vec::with_capacity(usize::try_from(length).unwrap_or(0).saturating_add(1));
        match io::Read::read_to_end(&mut io::Read::take(file, MAX_ENTRY_BYTES), &mut bytes) {
            Ok(_) => ViewRead::Entry(bytes),
            Err(_) => ViewRead::Unknown,
        }
    }

    /// Whether the view holds every entry; checked by a process that just opened the database.
    pub(crate) fn is_complete(&self) -> bool {
        self.dir.join(COMPLETE).is_file()
    }

    /// Copies every entry of the open database into the view, then marks it complete. Files of
    /// servers the database no longer has are removed first.
    pub(crate) fn rebuild(&self, db: &sled::Db) -> io::Result<()> {
        mcp_private_files::ensure_private_dir(&self.dir)?;
        for entry in std::fs::read_dir(&self.dir)? {
            let entry = entry?;
            if entry.file_name() != COMPLETE {
                remove_if_present(&entry.path())?;
            }
        }
        for item in db.iter() {
            let (key, value) = item.map_err(io::Error::other)?;
            let server = String::from_utf8_lossy(&key);
            self.write_file(&self.file_of(&server), &value)?;
        }
        self.write_file(&self.dir.join(COMPLETE), b"")
    }

    /// Writes `server`'s entry (the database already has it).
    pub(crate) fn publish(&self, server: &str, bytes: &[u8]) -> io::Result<()> {
        self.write_file(&self.file_of(server), bytes)
    }

    /// Removes `server`'s entry (the database already dropped it).
    pub(crate) fn withdraw(&self, server: &str) -> io::Result<()> {
        remove_if_present(&self.file_of(server))
    }

    /// Marks the view incomplete, after a change it could not follow: readers go back to the
    /// database until the next open rebuilds the view.
    pub(crate) fn invalidate(&self) -> io::Result<()> {
        remove_if_present(&self.dir.join(COMPLETE))
    }

    /// The file of `server`: a hash, since a server name may hold any character.
    fn file_of(&self, server: &str) -> PathBuf {
        self.dir.join(sha256_hex(server.as_bytes()))
    }

    /// Replaces `path` whole, as every private file of the runtime is (written aside, renamed;
    /// `0600` in a `0700` folder: a tool list may name what the user works on), without the
    /// syncs: sled is the store of record, and a file a crash left empty or old is a miss.
    fn write_file(&self, path: &Path, bytes: &[u8]) -> io::Result<()> {
        mcp_private_files::write_rebuildable(path, bytes)
    }
}

fn remove_if_present(path: &Path) -> io::Result<()> {
    match std::fs::remove_file(path) {
        Err(error) if error.kind() != io::ErrorKind::NotFound => Err(error),
        _ => Ok(()),
    }
}
