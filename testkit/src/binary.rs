//! Finding, and when needed building, the `mcp-fixture-server` executable.
//!
//! Test executables live in `<target>/<profile>/deps/`, and cargo puts the binaries of the
//! workspace in `<target>/<profile>/`, so the fixture is normally right there. It is missing
//! when the running tests belong to another package (cargo only builds a package's own
//! binaries for its integration tests), and stale when its sources changed since it was
//! built; then it is built with `cargo build`, once per process.
//!
//! Building from inside a running `cargo test` does not wait on the target directory's lock:
//! cargo releases the lock when compilation ends, before it runs the test executables (see the
//! `build_from_inside_cargo_test` integration test).

use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::SystemTime;

use serde_json::Value;

/// The fixture's binary name.
const BIN: &str = "mcp-fixture-server";

/// testkit's own directory, which holds the sources the binary is built from.
const MANIFEST_DIR: &str = env!("CARGO_MANIFEST_DIR");

/// The path of the built `mcp-fixture-server` executable, built first if it is missing or
/// older than its sources (`testkit/src/bin`).
///
/// The lookup and any build happen once per process; later calls return the same path.
///
/// # Panics
///
/// If the executable is neither found nor buildable; the message holds cargo's output.
pub fn fixture_server_path() -> PathBuf {
    static PATH: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    match PATH.get_or_init(locate_or_build) {
        Ok(path) => path.clone(),
        Err(message) => panic!("testkit: no {BIN} executable: {message}"),
    }
}

fn locate_or_build() -> Result<PathBuf, String> {
    let profile = Profile::of_current_exe();
    // The binary is built from `src/bin` alone (it does not use the library).
    let newest_source = newest_mtime(&Path::new(MANIFEST_DIR).join("src/bin"));
    for dir in profile.candidate_dirs() {
        let path = dir.join(BIN);
        if is_up_to_date(&path, newest_source) {
            return Ok(path);
        }
    }
    build_fixture_server_with(&profile.name)
}

/// Runs `cargo build -p testkit --bin mcp-fixture-server` now, in the profile of the running
/// executable (`--release` when it lives in a `release` directory), and returns the path cargo
/// reports for the executable.
///
/// [`fixture_server_path`] calls this only when it has to; it is public so that a test can
/// prove that building from inside `cargo test` works.
///
/// # Errors
///
/// A message with the command and cargo's stderr if cargo cannot be run or the build fails.
pub fn build_fixture_server() -> Result<PathBuf, String> {
    build_fixture_server_with(&Profile::of_current_exe().name)
}

fn build_fixture_server_with(profile: &str) -> Result<PathBuf, String> {
    // `cargo test` gives its tests the path of the cargo that runs them; the compile-time value
    // covers executables started some other way.
    let cargo = std::env::var_os("CARGO")
        .or_else(|| option_env!("CARGO").map(OsString::from))
        .unwrap_or_else(|| OsString::from("cargo"));
    let mut command = Command::new(&cargo);
    command
        .args(["build", "--package", "testkit", "--bin", BIN])
        .arg("--manifest-path")
        .arg(Path::new(MANIFEST_DIR).join("Cargo.toml"))
        .arg("--message-format=json-render-diagnostics")
        .current_dir(MANIFEST_DIR)
        .stdin(Stdio::null());
    match profile {
        "debug" => {}
        "release" => {
            command.arg("--release");
        }
        other => {
            command.args(["--profile", other]);
        }
    }
    let shown = format!("{command:?}");
    let output = command
        .output()
        .map_err(|err| format!("cannot run {shown}: {err}"))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        return Err(format!("{shown} failed ({}):\n{stderr}", output.status));
    }
    // Cargo names the executable it produced in its `compiler-artifact` message; that path is
    // right whatever target directory, build directory or target triple is configured.
    let reported = output
        .stdout
        .split(|&byte| byte == b'\n')
        .filter_map(|line| serde_json::from_slice::<Value>(line).ok())
        .filter(|message| message["reason"] == "compiler-artifact")
        .filter(|message| message["target"]["name"] == BIN)
        .find_map(|message| message["executable"].as_str().map(PathBuf::from));
    let mut message = format!("{shown} succeeded but did not report the {BIN} executable");
    match reported {
        Some(path) if path.is_file() => Ok(path),
        Some(path) => {
            let _ = write!(message, " ({} does not exist)", path.display());
            Err(message)
        }
        None => Err(message),
    }
}

/// The cargo profile directory of the running executable and where binaries of that profile
/// may be.
struct Profile {
    /// Directory name of the profile: `debug`, `release` or a custom profile's name.
    name: String,
    /// `<target>/<profile>` as seen from the running executable, if it is in one.
    exe_profile_dir: Option<PathBuf>,
}

impl Profile {
    fn of_current_exe() -> Self {
        let exe_profile_dir = std::env::current_exe().ok().and_then(|exe| {
            let parent = exe.parent()?;
            // Tests and examples sit one level below the profile directory, binaries in it.
            let dir = match parent.file_name()?.to_str()? {
                "deps" | "examples" => parent.parent()?,
                _ => parent,
            };
            // Every cargo profile directory has a `.fingerprint`; a doctest's temp dir does not.
            dir.join(".fingerprint").is_dir().then(|| dir.to_path_buf())
        });
        let name = exe_profile_dir
            .as_deref()
            .and_then(Path::file_name)
            .and_then(|name| name.to_str())
            .unwrap_or("debug")
            .to_owned();
        Self {
            name,
            exe_profile_dir,
        }
    }

    fn candidate_dirs(&self) -> Vec<PathBuf> {
        let mut dirs: Vec<PathBuf> = self.exe_profile_dir.iter().cloned().collect();
        if let Some(target) = std::env::var_os("CARGO_TARGET_DIR") {
            // A relative CARGO_TARGET_DIR is relative to where cargo ran, the workspace root
            // in the usual case; testkit sits directly below it.
            let target = PathBuf::from(target);
            let target = if target.is_relative() {
                Path::new(MANIFEST_DIR).join("..").join(target)
            } else {
                target
            };
            dirs.push(target.join(&self.name));
        }
        dirs.push(Path::new(MANIFEST_DIR).join("../target").join(&self.name));
        dirs
    }
}

fn is_up_to_date(binary: &Path, newest_source: Option<SystemTime>) -> bool {
    let Ok(built) = binary.metadata().and_then(|meta| meta.modified()) else {
        return false;
    };
    newest_source.is_none_or(|source| built >= source)
}

/// The newest modification time of the files under `dir`, recursively.
fn newest_mtime(dir: &Path) -> Option<SystemTime> {
    let mut newest = None;
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let Ok(meta) = entry.metadata() else {
                continue;
            };
            if meta.is_dir() {
                pending.push(entry.path());
            } else if let Ok(modified) = meta.modified() {
                newest = newest.max(Some(modified));
            }
        }
    }
    newest
}
