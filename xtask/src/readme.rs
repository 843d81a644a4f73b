//! The README's first commands, run as a newcomer types them: the `cargo …` lines of the first
//! code block of `README.md` (the `cargo xtask` line excepted: it is what runs this), each
//! through `sh -c` exactly as written, from the workspace root, in a home folder of its own.
//!
//! Why: CI ran the CLI through `CARGO_BIN_EXE_…`, never through the README's line, so a second
//! binary without `default-run` broke `cargo run -p agent-session -- demo` for every newcomer
//! while CI stayed green. Now a README edit or a manifest change that breaks the first commands
//! fails CI.
//!
//! The home is new and empty, so no config file of the machine's user joins in; `CARGO_HOME`
//! and `RUSTUP_HOME` keep pointing where cargo and the toolchain are (a fresh home would have
//! neither, and no network to fetch them).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::command;
use crate::error::Error;
use crate::metadata;

/// Variables that would point the commands at the machine user's files instead of the fresh
/// home.
const USER_VARIABLES: &[&str] = &[
    "XDG_CONFIG_HOME",
    "XDG_CACHE_HOME",
    "XDG_STATE_HOME",
    "XDG_DATA_HOME",
    "CLAUDE_CONFIG_DIR",
    "CODEX_HOME",
    "OPENCODE_CONFIG",
];

/// The `cargo …` lines of the first fenced code block of `readme`, as written, without the
/// `cargo xtask` ones. An error when there is no code block or no such line: the newcomer's
/// first command is gone.
pub(crate) fn first_commands(readme: &str) -> Result<Vec<String>, Error> {
    let mut lines = readme.lines();
    if !lines.any(|line| line.trim_start().starts_with("```")) {
        return Err(Error::Check(
            "README.md has no code block: its first one holds the commands a newcomer runs"
                .to_owned(),
        ));
    }
    let commands: Vec<String> = lines
        .take_while(|line| !line.trim_start().starts_with("```"))
        .map(str::trim)
        .filter(|line| line.starts_with("cargo ") && !line.starts_with("cargo xtask"))
        .map(str::to_owned)
        .collect();
    if commands.is_empty() {
        return Err(Error::Check(
            "the first code block of README.md has no `cargo …` command besides `cargo xtask`: \
             a newcomer's first command must be there"
                .to_owned(),
        ));
    }
    Ok(commands)
}

/// Runs the first commands of `root`'s README (see the module documentation).
pub(crate) fn run(root: &Path) -> Result<(), Error> {
    let path = root.join("README.md");
    let readme = std::fs::read_to_string(&path)
        .map_err(|source| Error::io(format!("reading {}", path.display()), source))?;
    run_commands(root, &first_commands(&readme)?)
}

/// Runs each of `commands` through `sh -c` from `root`, in a fresh home, stopping at the first
/// that fails.
pub(crate) fn run_commands(root: &Path, commands: &[String]) -> Result<(), Error> {
    let home = fresh_home(root)?;
    let outcome = commands.iter().try_for_each(|line| {
        println!("$ {line}    (HOME={})", home.display());
        let mut shell = Command::new("sh");
        shell
            .current_dir(root)
            .args(["-c", line])
            .env("HOME", &home)
            .stdin(Stdio::null());
        for (name, value) in toolchain_homes() {
            shell.env(name, value);
        }
        for name in USER_VARIABLES {
            shell.env_remove(name);
        }
        command::run(&mut shell).map_err(|error| {
            Error::Check(format!(
                "the README's command `{line}` fails on a fresh clone as written ({error}); fix \
                 the README or what broke it"
            ))
        })
    });
    let _ = std::fs::remove_dir_all(&home);
    outcome
}

/// An empty home folder in cargo's target directory (wherever `CARGO_TARGET_DIR` puts it), new
/// for this run.
fn fresh_home(root: &Path) -> Result<PathBuf, Error> {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let home = metadata::target_directory(root)?.join(format!(
        "readme-home-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&home);
    std::fs::create_dir_all(&home)
        .map_err(|source| Error::io(format!("creating {}", home.display()), source))?;
    Ok(home)
}

/// `CARGO_HOME` and `RUSTUP_HOME` as they are for this process: set, or their defaults under
/// the real home.
fn toolchain_homes() -> Vec<(&'static str, PathBuf)> {
    let real_home = std::env::var_os("HOME").map(PathBuf::from);
    [("CARGO_HOME", ".cargo"), ("RUSTUP_HOME", ".rustup")]
        .into_iter()
        .filter_map(|(name, default)| {
            let value = std::env::var_os(name)
                .map(PathBuf::from)
                .or_else(|| real_home.as_ref().map(|home| home.join(default)))?;
            Some((name, value))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_code_blocks_cargo_lines_are_taken_as_written_without_xtask() {
        let readme = "# Title\n\ntext `cargo run` inline\n\n```sh\n# 1. comment\ncargo run -p agent-session -- demo\n\n  cargo run -q -p agent-session -- list --json\ncargo xtask ci\necho not cargo\n```\n\n```sh\ncargo run -p later\n```\n";
        assert_eq!(
            first_commands(readme).unwrap(),
            [
                "cargo run -p agent-session -- demo",
                "cargo run -q -p agent-session -- list --json"
            ]
        );
    }

    #[test]
    fn a_readme_without_a_first_command_is_an_error() {
        assert!(first_commands("# no code\n").is_err());
        assert!(first_commands("```sh\ncargo xtask ci\n```\n").is_err());
    }

    #[test]
    fn this_readme_starts_with_the_demo() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
        assert_eq!(
            first_commands(&readme).unwrap(),
            ["cargo run -p agent-session -- demo"]
        );
    }

    #[test]
    fn commands_that_work_pass_in_a_home_of_their_own() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let commands = [
            "cargo --version".to_owned(),
            "test \"$HOME\" != ~root".to_owned(),
        ];
        run_commands(&root, &commands).unwrap();
    }

    #[test]
    fn a_command_that_fails_as_written_fails_the_step() {
        // A deliberately broken copy of the first command: the package is misspelt.
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let broken = ["cargo run -q -p agent-sesion -- demo".to_owned()];
        let Err(error) = run_commands(&root, &broken) else {
            panic!("a command that cannot run passed");
        };
        let message = error.to_string();
        assert!(message.contains("agent-sesion"), "{message}");
        assert!(message.contains("fails on a fresh clone"), "{message}");
    }
}
