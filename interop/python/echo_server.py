"""A small MCP stdio server for the interop tests, written against the Python `mcp` SDK.

It runs unchanged under both pinned majors of the SDK:

* mcp 1.x names the high-level server `FastMCP` (`mcp.server.fastmcp`);
* mcp 2.x renamed it `MCPServer` (`mcp.server.mcpserver`) and turned the old
  module into one that raises on import.

Tools: `echo(message: str) -> str` and `add(a: int, b: int) -> int`, plus
instructions text. Start it with the interpreter of one of the virtualenvs:

    interop/.venv-mcp-v2/bin/python interop/python/echo_server.py [TRANSPORT]
    interop/.venv-mcp-v1/bin/python interop/python/echo_server.py [TRANSPORT]

TRANSPORT is `stdio` (the default: only JSON-RPC goes to stdout, the SDK logs to
stderr), `streamable-http` (answers as SSE streams), `streamable-http-json`
(answers as JSON bodies) or `sse` (the legacy HTTP+SSE transport). The HTTP
transports listen on 127.0.0.1 only, on a port the system picks, and report it
on stderr as `interop-listening <port>`; the endpoints are `/mcp` and `/sse`.
A second argument moves the Streamable HTTP endpoint (`streamable-http /admin/mcp`), for the
tests of URL rules that need a server under a path of their choosing.
"""

import asyncio
import socket
import sys
from importlib.metadata import version

SDK_VERSION = version("mcp")

# Pick by the installed major rather than by trial import, so that a broken v2
# install fails with its own error instead of v2's "FastMCP was renamed" one.
TRANSPORT = sys.argv[1] if len(sys.argv) > 1 else "stdio"
JSON_RESPONSE = TRANSPORT == "streamable-http-json"
MCP_PATH = sys.argv[2] if len(sys.argv) > 2 else "/mcp"

if int(SDK_VERSION.split(".")[0]) >= 2:
    from mcp.server.mcpserver import MCPServer

    def _make_server(name: str, instructions: str):
        # v2 reports serverInfo.version as "" unless told; v1 reports the SDK version.
        return MCPServer(name, instructions=instructions, version=SDK_VERSION)

    def _http_app(server):
        if TRANSPORT == "sse":
            return server.sse_app()
        return server.streamable_http_app(
            json_response=JSON_RESPONSE, streamable_http_path=MCP_PATH
        )
else:
    from mcp.server.fastmcp import FastMCP

    def _make_server(name: str, instructions: str):
        return FastMCP(
            name,
            instructions=instructions,
            json_response=JSON_RESPONSE,
            streamable_http_path=MCP_PATH,
        )

    def _http_app(server):
        if TRANSPORT == "sse":
            return server.sse_app()
        return server.streamable_http_app()

INSTRUCTIONS = (
    "Interop echo server (Python mcp SDK "
    + SDK_VERSION
    + "). Call `echo` to get the message back and `add` to sum two integers."
)

server = _make_server("interop-echo-python", INSTRUCTIONS)


@server.tool()
def echo(message: str) -> str:
    """Return the message unchanged."""
    return message


@server.tool()
def add(a: int, b: int) -> int:
    """Return the sum of two integers."""
    return a + b


def _serve_http() -> None:
    import uvicorn

    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(128)
    print(f"interop-listening {listener.getsockname()[1]}", file=sys.stderr, flush=True)
    config = uvicorn.Config(_http_app(server), log_level="warning")
    asyncio.run(uvicorn.Server(config).serve(sockets=[listener]))


if __name__ == "__main__":
    if TRANSPORT == "stdio":
        server.run("stdio")
    elif TRANSPORT in ("streamable-http", "streamable-http-json", "sse"):
        _serve_http()
    else:
        sys.exit(f"unknown transport {TRANSPORT!r}: use stdio, streamable-http, streamable-http-json or sse")
