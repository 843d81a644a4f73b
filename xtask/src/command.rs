//! Running external programs: echo the command line, run it with no stdin, turn a bad exit into
//! an [`Error`] that quotes the command.

use std::ffi::OsStr;
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::time::Duration;

use crate::error::Error;

/// Prints `$ <command>` and runs it to completion with inherited stdout and stderr.
///
/// Stdin is closed so that nothing ever waits for a prompt answer (CI has no stdin).
pub(crate) fn run(command: &mut Command) -> Result<(), Error> {
    run_with(command, Command::status).map(drop)
}

/// Prints `$ <command>`, runs it with its stderr shown, and returns its stdout; a bad exit is
/// an error.
pub(crate) fn output(command: &mut Command) -> Result<String, Error> {
    command.stderr(Stdio::inherit());
    let output = run_with(command, |command| {
        command
            .output()
            .map(|output| (output.status, output.stdout))
    })?;
    Ok(String::from_utf8_lossy(&output.1).into_owned())
}

/// Prints `$ <command>`, runs it, and returns its exit status, its stdout and its stderr
/// whatever the status: for tools whose output says more than their status. Only a failure to
/// start is an error.
pub(crate) fn outputs_and_status(
    command: &mut Command,
) -> Result<(ExitStatus, String, String), Error> {
    let shown = display(command);
    println!("$ {shown}");
    let output = command
        .stdin(Stdio::null())
        .output()
        .map_err(|source| Error::Spawn {
            command: shown,
            source,
        })?;
    Ok((
        output.status,
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    ))
}

/// Prints `$ <command>` and runs it with no stdin through `execute`; a failure to start or a
/// bad exit status is an error quoting the command.
fn run_with<T: Outcome>(
    command: &mut Command,
    execute: impl FnOnce(&mut Command) -> std::io::Result<T>,
) -> Result<T, Error> {
    let shown = display(command);
    println!("$ {shown}");
    let outcome = execute(command.stdin(Stdio::null())).map_err(|source| Error::Spawn {
        command: shown.clone(),
        source,
    })?;
    let status = outcome.status();
    if status.success() {
        Ok(outcome)
    } else {
        Err(Error::Failed {
            command: shown,
            status,
        })
    }
}

/// What a finished command gives, with its exit status.
trait Outcome {
    fn status(&self) -> ExitStatus;
}

impl Outcome for ExitStatus {
    fn status(&self) -> ExitStatus {
        *self
    }
}

impl Outcome for (ExitStatus, Vec<u8>) {
    fn status(&self) -> ExitStatus {
        self.0
    }
}

/// Runs a command silently and returns its trimmed stdout, or `None` if it could not start or
/// failed. For probing tools (`--version`), where absence is an answer rather than an error.
pub(crate) fn probe(command: &mut Command) -> Option<String> {
    let output = command
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    if !output.status.success() {
        return None;
    }
    Some(String::from_utf8_lossy(&output.stdout).trim().to_owned())
}

/// The command as a shell-like line: the directory when it is not the workspace root,
/// environment overrides, the program, the arguments.
///
/// The cargo from `CARGO` is shown as `cargo` (it is a long toolchain path, printed once by the
/// commands that care) and paths inside the workspace relative to its root.
pub(crate) fn display(command: &Command) -> String {
    let mut words = Vec::new();
    if let Some(dir) = command.get_current_dir() {
        let dir = relative_to_root(dir);
        if !dir.is_empty() {
            words.extend(["cd".to_owned(), quote(&dir), "&&".to_owned()]);
        }
    }
    for (key, value) in command.get_envs() {
        if let Some(value) = value {
            words.push(format!("{}={}", key.to_string_lossy(), quote_os(value)));
        }
    }
    words.push(quote(&shown_program(command.get_program())));
    words.extend(command.get_args().map(quote_os));
    words.join(" ")
}

fn shown_program(program: &OsStr) -> String {
    if program == crate::cargo() {
        "cargo".to_owned()
    } else {
        relative_to_root(Path::new(program))
    }
}

/// A path inside the workspace relative to its root (the root itself is `""`); others unchanged.
pub(crate) fn relative_to_root(path: &Path) -> String {
    let relative = crate::workspace_root()
        .ok()
        .and_then(|root| path.strip_prefix(root).ok().map(Path::to_path_buf));
    relative
        .as_deref()
        .unwrap_or(path)
        .to_string_lossy()
        .into_owned()
}

fn quote_os(word: &OsStr) -> String {
    quote(word.to_string_lossy().as_ref())
}

fn quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:@+,%".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// A duration as people read it in a log: `0.8s`, `42.1s`, `3m07s`.
pub(crate) fn human(duration: Duration) -> String {
    let secs = duration.as_secs_f64();
    if secs < 60.0 {
        format!("{secs:.1}s")
    } else {
        let whole = duration.as_secs();
        format!("{}m{:02}s", whole / 60, whole % 60)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_quotes_only_what_a_shell_would_need_quoted() {
        let mut command = Command::new("cargo");
        command
            .env("RUSTDOCFLAGS", "-D warnings")
            .args(["doc", "--workspace", "--", "it's"]);
        assert_eq!(
            display(&command),
            r"RUSTDOCFLAGS='-D warnings' cargo doc --workspace -- 'it'\''s'"
        );
    }

    #[test]
    fn display_shows_programs_inside_the_workspace_relative_to_its_root() {
        let root = crate::workspace_root().unwrap();
        let command = Command::new(root.join("interop/.venv-mcp-v2/bin/python"));
        assert_eq!(display(&command), "interop/.venv-mcp-v2/bin/python");
    }

    #[test]
    fn display_names_a_working_directory_other_than_the_root() {
        let root = crate::workspace_root().unwrap();
        let mut command = Command::new("npm");
        command.current_dir(root.join("interop/node")).arg("ci");
        assert_eq!(display(&command), "cd interop/node && npm ci");
        command.current_dir(&root);
        assert_eq!(display(&command), "npm ci");
    }

    #[test]
    fn human_durations_switch_to_minutes_past_one_minute() {
        assert_eq!(human(Duration::from_millis(840)), "0.8s");
        assert_eq!(human(Duration::from_secs(187)), "3m07s");
    }
}
