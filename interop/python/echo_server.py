"""A small MCP stdio server for the interop tests, written against the Python `mcp` SDK.

It runs unchanged under both pinned majors of the SDK:

* mcp 1.x names the high-level server `FastMCP` (`mcp.server.fastmcp`);
* mcp 2.x renamed it `MCPServer` (`mcp.server.mcpserver`) and turned the old
  module into one that raises on import.

Tools: `echo(message: str) -> str` and `add(a: int, b: int) -> int`, plus
instructions text. Start it with the interpreter of one of the virtualenvs:

    interop/.venv-mcp-v2/bin/python interop/python/echo_server.py
    interop/.venv-mcp-v1/bin/python interop/python/echo_server.py

Only JSON-RPC goes to stdout; the SDK logs to stderr.
"""

from importlib.metadata import version

SDK_VERSION = version("mcp")

# Pick by the installed major rather than by trial import, so that a broken v2
# install fails with its own error instead of v2's "FastMCP was renamed" one.
if int(SDK_VERSION.split(".")[0]) >= 2:
    from mcp.server.mcpserver import MCPServer

    def _make_server(name: str, instructions: str):
        # v2 reports serverInfo.version as "" unless told; v1 reports the SDK version.
        return MCPServer(name, instructions=instructions, version=SDK_VERSION)
else:
    from mcp.server.fastmcp import FastMCP

    def _make_server(name: str, instructions: str):
        return FastMCP(name, instructions=instructions)

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


if __name__ == "__main__":
    server.run("stdio")
