"""The Python SDK client driver of the side-by-side benchmark.

The `mcp` package's `stdio_client` + `ClientSession` (asyncio through anyio), making the same
calls as the Rust drivers in bench/src/bin/client/ and printing the same one JSON line (see
`Figures::to_json_line` in bench/src/measure.rs):

    PYTHON bench/peers/python/client.py --server PATH [--warmup W] [--sequential N] [--pipelined M]

PYTHON is the interpreter of one of the interop virtualenvs, interop/.venv-mcp-v2 (mcp 2.x)
or interop/.venv-mcp-v1 (mcp 1.x); `cargo xtask bench --peers` installs them from
interop/python/requirements-v*.txt as `cargo xtask interop` does. The same script runs under
both majors (the calls it makes kept their names; only the result's error flag is spelled
`is_error` in 2.x and `isError` in 1.x).

Phases: spawn the reference server and initialize, tools/list, one checked echo, then W
sequential and W pipelined echo calls (not measured), N sequential calls each timed with
time.perf_counter_ns() (p50, p99), and M calls with 32 in flight (32 tasks, each making one
call at a time) for calls per second.

Client CPU is resource.getrusage(RUSAGE_SELF) (user + system of this process; the server is a
child and is not counted) over the sequential phase divided by N. Server CPU over the same
phase is the first field of /proc/<pid>/schedstat; the SDK does not expose the process, so
its pid is found as this process's only child in /proc.
"""

import math
import os
import platform
import resource
import sys
import time
from importlib.metadata import version

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

IN_FLIGHT = 32


def parse_args(argv):
    args = {"server": None, "warmup": 500, "sequential": 2000, "pipelined": 10000}
    it = iter(argv)
    for flag in it:
        value = next(it, None)
        if value is None:
            raise SystemExit(f"client python-sdk: {flag} needs a value")
        if flag == "--server":
            args["server"] = value
        elif flag in ("--warmup", "--sequential", "--pipelined"):
            if not value.isdigit():
                raise SystemExit(f"client python-sdk: {flag} wants a number of calls, got `{value}`")
            args[flag[2:]] = int(value)
        else:
            raise SystemExit(f"client python-sdk: unknown argument `{flag}`")
    if args["server"] is None:
        raise SystemExit("client python-sdk: --server is required")
    return args


def only_child():
    """The pid of this process's one child (the server), from the ppid field of /proc/*/stat."""
    me = os.getpid()
    children = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as stat:
                text = stat.read()
        except OSError:
            continue  # gone since listdir
        # `pid (comm) state ppid ...`; comm may hold spaces, so split after the last `)`.
        fields = text.rsplit(")", 1)[1].split()
        if int(fields[1]) == me:
            children.append(int(name))
    if len(children) != 1:
        raise RuntimeError(f"expected exactly one child process (the server), found {len(children)}")
    return children[0]


def schedstat_nanos(pid):
    with open(f"/proc/{pid}/schedstat") as schedstat:
        return int(schedstat.read().split()[0])


def cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def percentile(sorted_samples, fraction):
    """Nearest rank, as bench/src/measure.rs computes it."""
    if not sorted_samples:
        return 0.0
    rank = math.ceil(fraction * len(sorted_samples))
    return sorted_samples[min(max(rank, 1), len(sorted_samples)) - 1]


def is_error(result):
    flag = getattr(result, "is_error", None)
    if flag is None:
        flag = getattr(result, "isError", None)
    return bool(flag)


async def echo(session):
    result = await session.call_tool("echo", {"message": "ping"})
    if is_error(result):
        raise RuntimeError(f"the echo tool failed: {result.content!r}")
    return result


async def pipelined(session, calls):
    """IN_FLIGHT tasks, each making one call at a time until `calls` are made in all."""
    remaining = calls

    async def worker():
        nonlocal remaining
        while remaining > 0:
            remaining -= 1
            await echo(session)

    started = time.perf_counter()
    async with anyio.create_task_group() as group:
        for _ in range(IN_FLIGHT):
            group.start_soon(worker)
    return time.perf_counter() - started


async def run(args):
    params = StdioServerParameters(command=args["server"], args=[])
    async with stdio_client(params) as streams:
        read, write = streams[0], streams[1]
        async with ClientSession(read, write) as session:
            await session.initialize()
            listed = await session.list_tools()
            if not any(tool.name == "echo" for tool in listed.tools):
                raise RuntimeError("the reference server lists no echo tool")
            first = await echo(session)
            if getattr(first.content[0], "text", None) != "ping":
                raise RuntimeError(f"unexpected echo answer: {first!r}")

            for _ in range(args["warmup"]):
                await echo(session)
            pid = only_child()
            samples = []
            server_before = schedstat_nanos(pid)
            cpu_before = cpu_seconds()
            for _ in range(args["sequential"]):
                started = time.perf_counter_ns()
                await echo(session)
                samples.append((time.perf_counter_ns() - started) / 1e3)
            cpu = cpu_seconds() - cpu_before
            server = schedstat_nanos(pid) - server_before

            await pipelined(session, args["warmup"])
            seconds = await pipelined(session, args["pipelined"])

    samples.sort()
    calls = max(args["sequential"], 1)
    major = version("mcp").split(".")[0]
    return {
        "client": f"python-sdk-v{major}",
        "shape": f"python {platform.python_version()}, mcp {version('mcp')}",
        "seq_p50_us": round(percentile(samples, 0.5), 2),
        "seq_p99_us": round(percentile(samples, 0.99), 2),
        "cpu_us_per_call": round(cpu * 1e6 / calls, 2),
        "server_cpu_us_per_call": round(server / 1e3 / calls, 2),
        "inflight32_calls_per_s": round(args["pipelined"] / max(seconds, 1e-9)),
    }


def main():
    import json

    args = parse_args(sys.argv[1:])
    line = anyio.run(run, args)
    sys.stdout.write(json.dumps(line, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
