//! Reading config files: a missing file is not an error, a directory, a device or a file too
//! large is, and inside one discovery pass ([`in_read_pass`]) each path is read from disk once,
//! with the project walk and the relative path variables the pass met remembered beside it.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::error::ConfigError;

/// The largest config file read: 16 MiB, far above any real one.
pub const MAX_CONFIG_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// Reads a config file as UTF-8. `Ok(None)` when it does not exist.
///
/// Only a regular file (a symlink to one counts) is opened: a FIFO would block the reader
/// forever and a device such as `/dev/zero` would never end, and both can come with a cloned
/// repository. A file over [`MAX_CONFIG_FILE_BYTES`] is an error before anything is read, and
/// the read itself stops at the limit.
///
/// Inside a discovery pass ([`in_read_pass`]) a path is read from disk once: the providers
/// that share a file (the `.mcp.json` of Claude Code, Copilot CLI, Qwen Code and VS Code) get
/// the first read's text.
pub fn read_config_file(path: &Path) -> Result<Option<String>, ConfigError> {
    if let Some(remembered) = ReadPass::remembered(path) {
        return Ok(remembered);
    }
    let read = read_from_disk(path);
    ReadPass::record(path, &read);
    read
}

/// The files one pass of discovery asked for, and what it read.
///
/// Discovery runs on one thread from start to end (it is synchronous), and the providers read
/// through [`read_config_file`] without a handle to share, including the agent's own providers:
/// so the pass lives in a thread-local for the length of [`in_read_pass`], and nowhere else. A
/// later pass reads the files again (they may have changed).
#[derive(Default)]
struct ReadPass {
    /// The text of each file read (`None`: it does not exist). A file that could not be read
    /// is not remembered: each reader gets the error afresh.
    texts: HashMap<PathBuf, Option<String>>,
    /// Every path asked for, in the order first asked.
    looked_at: Vec<LookedAt>,
    /// The same paths, to find one at once (a pass asks for a hundred or more).
    asked: HashSet<PathBuf>,
    /// The bytes of text remembered, at most [`MAX_REMEMBERED_BYTES`]: a planted repository
    /// could put a large file at every name the providers look for.
    remembered_bytes: usize,
    /// The project walk of each working folder and home asked for ([`once_per_pass`]).
    walks: Vec<(WalkKey, Walk)>,
    /// The variables naming a file or folder that were set to a relative path, and so not
    /// used ([`DiscoveryContext::path_var`](crate::DiscoveryContext::path_var)): name → value.
    relative_variables: BTreeMap<String, String>,
}

/// A working folder and a home.
type WalkKey = (PathBuf, PathBuf);
/// The project folders, nearest first, and the repository root.
type Walk = (Vec<PathBuf>, Option<PathBuf>);

/// The project walk of `cwd` under `home`: `walk()` once per read pass (the same answer for
/// every provider of one discovery), or every time outside one.
pub(crate) fn once_per_pass(cwd: &Path, home: &Path, walk: impl FnOnce() -> Walk) -> Walk {
    let remembered = READ_PASS.with_borrow(|pass| {
        let pass = pass.as_ref()?;
        let (_, walk) = pass
            .walks
            .iter()
            .find(|((c, h), _)| c == cwd && h == home)?;
        Some(walk.clone())
    });
    if let Some(walk) = remembered {
        return walk;
    }
    let walk = walk();
    READ_PASS.with_borrow_mut(|pass| {
        if let Some(pass) = pass {
            pass.walks
                .push(((cwd.to_owned(), home.to_owned()), walk.clone()));
        }
    });
    walk
}

/// How many bytes of file text one pass remembers; a file read past it is read again by the
/// next provider that asks (the `.mcp.json` several tools share is read first, and small).
const MAX_REMEMBERED_BYTES: usize = 32 * 1024 * 1024;

thread_local! {
    static READ_PASS: RefCell<Option<ReadPass>> = const { RefCell::new(None) };
}

/// A file a provider looked for, and whether it was there (a file that could not be read
/// counts as there: it is, and its error is reported).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct LookedAt {
    /// The file.
    pub path: PathBuf,
    /// Whether it exists.
    pub exists: bool,
}

/// Notes, when a pass is on, that the variable `name` named a relative path (`value`) and was
/// not used.
pub(crate) fn note_relative_variable(name: &str, value: &str) {
    READ_PASS.with_borrow_mut(|pass| {
        if let Some(pass) = pass {
            pass.relative_variables
                .insert(name.to_owned(), value.to_owned());
        }
    });
}

/// The variables [`note_relative_variable`] noted so far in this pass (none outside one).
pub(crate) fn relative_variables() -> BTreeMap<String, String> {
    READ_PASS.with_borrow(|pass| {
        pass.as_ref()
            .map(|pass| pass.relative_variables.clone())
            .unwrap_or_default()
    })
}

impl ReadPass {
    /// The remembered text of `path` when a pass is on and read it before.
    fn remembered(path: &Path) -> Option<Option<String>> {
        READ_PASS.with_borrow(|pass| pass.as_ref()?.texts.get(path).cloned())
    }

    /// Remembers the outcome of reading `path`, when a pass is on.
    fn record(path: &Path, read: &Result<Option<String>, ConfigError>) {
        READ_PASS.with_borrow_mut(|pass| {
            let Some(pass) = pass else {
                return;
            };
            if pass.asked.insert(path.to_owned()) {
                pass.looked_at.push(LookedAt {
                    path: path.to_owned(),
                    exists: !matches!(read, Ok(None)),
                });
            }
            if let Ok(text) = read {
                let size = text.as_ref().map_or(0, String::len);
                if pass.remembered_bytes + size <= MAX_REMEMBERED_BYTES {
                    pass.remembered_bytes += size;
                    pass.texts.insert(path.to_owned(), text.clone());
                }
            }
        });
    }
}

/// Runs `work` as one pass of reading: every path read through [`read_config_file`] is read
/// from disk once, however many providers ask for it, and the paths asked for are returned with
/// whether each exists. A pass inside a pass is a pass of its own; the outer one resumes after.
pub fn in_read_pass<T>(work: impl FnOnce() -> T) -> (T, Vec<LookedAt>) {
    /// Puts the outer pass back, even when `work` panics.
    struct Restore(Option<ReadPass>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let outer = self.0.take();
            READ_PASS.with_borrow_mut(|pass| *pass = outer);
        }
    }
    let outer = READ_PASS.with_borrow_mut(|pass| pass.replace(ReadPass::default()));
    let restore = Restore(outer);
    let result = work();
    let looked_at = READ_PASS
        .with_borrow_mut(|pass| pass.take())
        .map(|pass| pass.looked_at)
        .unwrap_or_default();
    drop(restore);
    (result, looked_at)
}

/// [`read_config_file`] without the pass.
fn read_from_disk(path: &Path) -> Result<Option<String>, ConfigError> {
    let read_error = |source| ConfigError::Read {
        path: path.to_owned(),
        source,
    };
    let metadata = match std::fs::metadata(path) {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(read_error(source)),
        Ok(metadata) => metadata,
    };
    if !metadata.is_file() {
        return Err(ConfigError::NotAFile {
            path: path.to_owned(),
            kind: kind_of(&metadata.file_type()),
        });
    }
    let too_large = |size| ConfigError::TooLarge {
        path: path.to_owned(),
        size,
        limit: MAX_CONFIG_FILE_BYTES,
    };
    if metadata.len() > MAX_CONFIG_FILE_BYTES {
        return Err(too_large(metadata.len()));
    }
    let file = match std::fs::File::open(path) {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(read_error(source)),
        Ok(file) => file,
    };
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(
        &mut std::io::Read::take(file, MAX_CONFIG_FILE_BYTES + 1),
        &mut bytes,
    )
    .map_err(read_error)?;
    if bytes.len() as u64 > MAX_CONFIG_FILE_BYTES {
        // It grew after it was measured.
        return Err(too_large(bytes.len() as u64));
    }
    String::from_utf8(bytes).map(Some).map_err(|_| {
        read_error(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "the file is not UTF-8 text",
        ))
    })
}

/// What a non-regular file is, for messages.
fn kind_of(file_type: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt as _;
        if file_type.is_fifo() {
            return "FIFO";
        }
        if file_type.is_char_device() || file_type.is_block_device() {
            return "device";
        }
        if file_type.is_socket() {
            return "socket";
        }
    }
    if file_type.is_dir() {
        "directory"
    } else {
        "special file"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_device_is_never_read_and_an_oversize_file_is_refused_before_reading() {
        let error = read_config_file(Path::new("/dev/zero")).unwrap_err();
        assert!(
            matches!(error, ConfigError::NotAFile { kind: "device", .. }),
            "{error}"
        );
        assert!(
            error.to_string().contains("is a device, not a config file"),
            "{error}"
        );

        let big = std::env::temp_dir().join(format!("mcp-config-big-{}.json", std::process::id()));
        let file = std::fs::File::create(&big).unwrap();
        file.set_len(MAX_CONFIG_FILE_BYTES + 1).unwrap();
        let error = read_config_file(&big).unwrap_err();
        assert!(matches!(error, ConfigError::TooLarge { .. }), "{error}");
        std::fs::remove_file(&big).unwrap();
    }

    #[test]
    fn a_directory_is_an_error_and_a_missing_file_is_not() {
        let dir = std::env::temp_dir();
        assert!(matches!(
            read_config_file(&dir),
            Err(ConfigError::NotAFile { .. })
        ));
        assert!(
            read_config_file(&dir.join("surely-missing-mcp.json"))
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn inside_a_pass_a_file_is_read_once_and_every_path_asked_for_is_listed() {
        let dir = std::env::temp_dir().join(format!("mcp-config-read-pass-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("shared.json");
        let missing = dir.join("missing.json");
        std::fs::write(&file, "first").unwrap();
        let (texts, looked_at) = in_read_pass(|| {
            let first = read_config_file(&file).unwrap();
            std::fs::write(&file, "second").unwrap();
            let again = read_config_file(&file).unwrap();
            assert!(read_config_file(&missing).unwrap().is_none());
            // A pass inside is a pass of its own, and the outer one resumes after it.
            let (inner, inner_looked_at) = in_read_pass(|| read_config_file(&file).unwrap());
            assert_eq!(inner.as_deref(), Some("second"));
            assert_eq!(inner_looked_at.len(), 1);
            (first, again)
        });
        assert_eq!(texts.0.as_deref(), Some("first"));
        assert_eq!(texts.1.as_deref(), Some("first"), "read from disk once");
        let looked_at: Vec<(&Path, bool)> = looked_at
            .iter()
            .map(|file| (file.path.as_path(), file.exists))
            .collect();
        assert_eq!(
            looked_at,
            [(file.as_path(), true), (missing.as_path(), false)]
        );
        // Outside a pass every read is fresh.
        assert_eq!(read_config_file(&file).unwrap().as_deref(), Some("second"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
