"""A stateless, dual-era MCP server on the Python `mcp` SDK 2.x, for the interop tests of the
2026-07-28 revision (`mcp-transport/tests/interop_stateless.rs`).

    interop/.venv-mcp-v2/bin/python interop/python/stateless_server.py http [PORT]
    interop/.venv-mcp-v2/bin/python interop/python/stateless_server.py stdio

`http` serves Streamable HTTP at `/mcp` on 127.0.0.1 only, at PORT (default 0: the system
picks one), and reports the port it got on stderr as `interop-listening <port>`, like every
interop peer. The SDK sends a request whose `MCP-Protocol-Version` header names a revision
after the handshake era to its single-exchange 2026-07-28 entry (a `_meta` envelope on every
request, no session); the rest (`initialize` and what follows) is served statelessly
(`stateless_http=True`: no session id, no GET stream), as SSE streams so that a 2025-era
request can carry the server's elicitation. `GET /count` answers how many requests reached the
MCP endpoint:

    {"http": <HTTP requests to /mcp>, "methods": {"<JSON-RPC method>": <messages>, ...}}

(every POST body's JSON-RPC requests and notifications, counted by method, before the SDK
reads them). `stdio` runs the SDK's stdio server, which picks the era from the opening message;
it counts the messages its middleware sees.

Tools (the same for both eras):

* `echo(message)`: the message, unchanged;
* `greet()`: asks "What is your name?" (a form elicitation with a `name` string) through the
  SDK's resolvers: `input_required` on 2026-07-28, a real `elicitation/create` in the 2025 era;
  answers `Hello, <name>!`, or `No name given (<action>).` when declined or cancelled;
* `add_tool(name)`: adds a tool `name` (answering `I am <name>`) and publishes
  `tools_list_changed` to the open `subscriptions/listen` streams (in the 2025 era over stdio:
  sends `notifications/tools/list_changed`); answers `added <name>`;
* `request_count()`: the counts above as JSON text.

`tools/list` results carry `ttlMs: 60000` on 2026-07-28 (the SDK's cache hints).
"""

from __future__ import annotations

import asyncio
import json
import socket
import sys
from importlib.metadata import version
from typing import Annotated, Any

from mcp.server.caching import CacheHint
from mcp.server.elicitation import AcceptedElicitation, ElicitationResult
from mcp.server.mcpserver import Context, Elicit, MCPServer, Resolve
from mcp_types.version import is_version_at_least
from pydantic import BaseModel

SDK_VERSION = version("mcp")
TOOLS_TTL_MS = 60000

MODE = sys.argv[1] if len(sys.argv) > 1 else "http"
COUNTS: dict[str, Any] = {"http": 0, "methods": {}}


def count_message(message: Any) -> None:
    if isinstance(message, dict) and isinstance(message.get("method"), str):
        methods = COUNTS["methods"]
        methods[message["method"]] = methods.get(message["method"], 0) + 1


def count_body(body: bytes) -> None:
    try:
        parsed = json.loads(body)
    except ValueError:
        return
    for message in parsed if isinstance(parsed, list) else [parsed]:
        count_message(message)


async def count_middleware(ctx: Any, call_next: Any) -> Any:
    """Counts on stdio, where no HTTP layer sees the messages first."""
    count_message({"method": ctx.method})
    return await call_next(ctx)


server = MCPServer(
    "interop-stateless-python",
    instructions=f"Interop stateless server (Python mcp SDK {SDK_VERSION}).",
    version=SDK_VERSION,
    cache_hints={"tools/list": CacheHint(ttl_ms=TOOLS_TTL_MS, scope="private")},
    middleware=[count_middleware] if MODE == "stdio" else None,
)


@server.tool()
def echo(message: str) -> str:
    """Return the message unchanged."""
    return message


class Name(BaseModel):
    name: str


def ask_name() -> Elicit[Name]:
    return Elicit("What is your name?", Name)


@server.tool()
async def greet(answer: Annotated[ElicitationResult[Name], Resolve(ask_name)]) -> str:
    """Ask the user's name, then greet them."""
    if isinstance(answer, AcceptedElicitation):
        return f"Hello, {answer.data.name}!"
    return f"No name given ({answer.action})."


@server.tool()
async def add_tool(name: str, ctx: Context) -> str:
    """Add a tool with this name and announce the change."""
    if all(tool.name != name for tool in await server.list_tools()):

        def added() -> str:
            return f"I am {name}"

        server.add_tool(added, name=name, description="Added at run time by add_tool.")
        # 2026-07-28: to the open `subscriptions/listen` streams.
        await ctx.notify_tools_changed()
        # The handshake era: a plain notification on the connection (stdio; stateless HTTP has
        # no channel for it, and the SDK drops it there).
        if not is_version_at_least(ctx.protocol_version or "", "2026-07-28"):
            await ctx.session.send_tool_list_changed()
    return f"added {name}"


@server.tool()
def request_count() -> str:
    """How many requests this server has seen."""
    return json.dumps(COUNTS)


class CountingApp:
    """ASGI wrapper: answers `GET /count` and counts what reaches the MCP endpoint."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope["path"] == "/count" and scope["method"] == "GET":
            body = json.dumps(COUNTS).encode()
            await send(
                {
                    "type": "http.response.start",
                    "status": 200,
                    "headers": [(b"content-type", b"application/json")],
                }
            )
            await send({"type": "http.response.body", "body": body})
            return
        if scope["path"].rstrip("/") != "/mcp":
            await self.app(scope, receive, send)
            return
        COUNTS["http"] += 1
        if scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []

        async def counting_receive() -> Any:
            message = await receive()
            if message["type"] == "http.request":
                chunks.append(message.get("body", b""))
                if not message.get("more_body", False):
                    count_body(b"".join(chunks))
            return message

        await self.app(scope, counting_receive, send)


def serve_http(port: int) -> None:
    import uvicorn

    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(128)
    print(f"interop-listening {listener.getsockname()[1]}", file=sys.stderr, flush=True)
    app = CountingApp(server.streamable_http_app(stateless_http=True))
    config = uvicorn.Config(app, log_level="warning")
    asyncio.run(uvicorn.Server(config).serve(sockets=[listener]))


if __name__ == "__main__":
    if MODE == "http":
        serve_http(int(sys.argv[2]) if len(sys.argv) > 2 else 0)
    elif MODE == "stdio":
        server.run("stdio")
    else:
        sys.exit(f"unknown mode {MODE!r}: use http [PORT] or stdio")
