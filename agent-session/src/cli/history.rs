//! The shell's history file: read when the line editor opens, and written after every command,
//! as every private file of the runtime is ([`mcp_private_files`]: under its lock, the whole
//! file replaced — written aside, synced, renamed — `0600` in a `0700` folder). A line may hold
//! a secret (`/mcp add … --env TOKEN=…`), and two shells may add lines at the same time: each
//! adds its line to what the file holds then, so neither loses the other's.
//!
//! The format is rustyline's (`#V2`, then one entry a line, `\` and line feeds escaped as `\\`
//! and `\n`), so a history written by an earlier version, through rustyline, reads the same.

use std::io;
use std::path::Path;
use std::time::Duration;

use mcp_private_files::{FileLock, write_atomically};

/// The first line of the format.
const HEADER: &str = "#V2";
/// The most of a history file read: far above a thousand lines, so a damaged or planted file
/// cannot make the shell allocate without bound.
const MAX_FILE_BYTES: u64 = 8 * 1024 * 1024;
/// How long a shell waits for another one writing the history before it leaves its line out.
const LOCK_WAIT: Duration = Duration::from_secs(2);

/// The entries of the history file at `path`, oldest first; none when it does not exist.
pub(crate) fn load(path: &Path) -> io::Result<Vec<String>> {
    let file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => return Err(error),
    };
    let mut text = String::new();
    io::Read::read_to_string(&mut io::Read::take(file, MAX_FILE_BYTES), &mut text)?;
    Ok(parse(&text))
}

/// Adds `line` to the history file at `path` (unless it repeats the last entry), keeping the
/// last `keep` entries.
pub(crate) fn append(path: &Path, line: &str, keep: usize) -> io::Result<()> {
    let _lock = FileLock::acquire(path, LOCK_WAIT).map_err(io::Error::other)?;
    let mut entries = load(path)?;
    if entries.last().map(String::as_str) == Some(line) {
        return Ok(());
    }
    entries.push(line.to_owned());
    let first = entries.len().saturating_sub(keep);
    write_atomically(path, format(&entries[first..]).as_bytes())
}

/// The entries of a history file's text: `#V2` escaped lines, or plain lines (the first format).
fn parse(text: &str) -> Vec<String> {
    let mut lines = text.lines();
    let escaped = text.lines().next() == Some(HEADER);
    if escaped {
        lines.next();
    }
    lines
        .filter(|line| !line.is_empty())
        .map(|line| {
            if escaped {
                unescape(line)
            } else {
                line.to_owned()
            }
        })
        .collect()
}

/// `#V2`, then each entry on a line of its own with `\` and line feeds escaped.
fn format(entries: &[String]) -> String {
    let mut text = format!("{HEADER}\n");
    for entry in entries {
        for c in entry.chars() {
            match c {
                '\\' => text.push_str("\\\\"),
                '\n' => text.push_str("\\n"),
                other => text.push(other),
            }
        }
        text.push('\n');
    }
    text
}

fn unescape(line: &str) -> String {
    let mut entry = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match (c, c == '\\') {
            (_, true) => match chars.next() {
                Some('n') => entry.push('\n'),
                Some(other) => entry.push(other),
                None => entry.push('\\'),
            },
            (other, false) => entry.push(other),
        }
    }
    entry
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt as _;

    use super::*;

    #[test]
    fn entries_with_backslashes_and_line_feeds_come_back_as_written() {
        let entries = vec![
            "list".to_owned(),
            "call x {\"a\": \"b\\\\c\"}".to_owned(),
            "two\nlines".to_owned(),
        ];
        assert_eq!(parse(&format(&entries)), entries);
        // rustyline's first format: plain lines.
        assert_eq!(parse("list\ntools\n"), ["list", "tools"]);
    }

    #[test]
    fn lines_are_added_to_what_the_file_holds_privately_and_the_oldest_go() {
        let dir =
            std::env::temp_dir().join(format!("agent-session-history-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let path = dir.join("state/shell_history");
        for line in ["one", "two", "two", "three"] {
            append(&path, line, 2).unwrap();
        }
        assert_eq!(load(&path).unwrap(), ["two", "three"]);
        let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&path), 0o600);
        assert_eq!(mode(&dir.join("state")), 0o700);
        let names: Vec<_> = std::fs::read_dir(dir.join("state")).unwrap().collect();
        assert_eq!(names.len(), 1, "only the history: {names:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
