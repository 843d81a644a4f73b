// A stateless, dual-era MCP server on the TypeScript SDK v2 (`@modelcontextprotocol/server`),
// for the interop tests of the 2026-07-28 revision (`mcp-transport/tests/interop_stateless.rs`).
//
//   node interop/node/stateless_server.mjs http [PORT]   # Streamable HTTP, endpoint /mcp
//   node interop/node/stateless_server.mjs stdio         # newline-delimited JSON-RPC on stdio
//
// HTTP listens on 127.0.0.1 only, at PORT (default 0: the system picks one), and reports the
// port it got on stderr as `interop-listening <port>`, like every interop peer. It is served by
// the SDK's `createMcpHandler`: 2026-07-28 requests (a `_meta` envelope, no session) go to a
// fresh server instance each, and 2025-era requests (`initialize` and what follows) to the
// SDK's stateless legacy fallback (`legacy: 'stateless'`, no session id, GET and DELETE 405),
// both from the same factory. `GET /count` answers how many requests reached the MCP endpoint:
//
//   {"http": <HTTP requests to /mcp>, "methods": {"<JSON-RPC method>": <messages>, ...}}
//
// (every POST body's JSON-RPC requests and notifications, counted by method, before the SDK
// sees them). Stdio is served by `serveStdio`, which picks the era from the opening message.
//
// Tools (the same for both eras and both transports):
//   echo {message}      -> the message, unchanged
//   greet               -> asks "What is your name?" (a form elicitation with a `name` string):
//                          `input_required` on 2026-07-28, a real `elicitation/create` in the
//                          2025 era (the SDK's legacy shim); answers `Hello, <name>!`, or
//                          `No name given (<action>).` when declined or cancelled
//   add_tool {name}     -> adds a tool `name` (answering `I am <name>`) to every later list and
//                          publishes `tools_list_changed` to the open `subscriptions/listen`
//                          streams; answers `added <name>`
//   request_count       -> the counts above as JSON text (on stdio, counted from the messages
//                          read on stdin)
// `tools/list` results carry `ttlMs: 60000` on 2026-07-28 (the SDK's cache hints).
import process from "node:process";

import { createMcpHandler, McpServer, acceptedContent, fromJsonSchema, inputRequired } from "@modelcontextprotocol/server";
import { serveStdio, StdioServerTransport } from "@modelcontextprotocol/server/stdio";

import { serveOnLoopback } from "./loopback_http.mjs";

const SERVER_INFO = { name: "interop-stateless-ts", version: "2.4.0" };
const TOOLS_TTL_MS = 60000;

const mode = process.argv[2] ?? "http";
const counts = { http: 0, methods: {} };
/** Tools added by `add_tool`, registered on every instance made after. */
const addedTools = new Set();
/** Publishes a tool list change: set once the serving entry exists. */
let publishToolsChanged = () => {};

function countMessage(message) {
  if (message && typeof message === "object" && typeof message.method === "string") {
    counts.methods[message.method] = (counts.methods[message.method] ?? 0) + 1;
  }
}

function countBody(text) {
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    return;
  }
  for (const message of Array.isArray(body) ? body : [body]) {
    countMessage(message);
  }
}

function text(value) {
  return { content: [{ type: "text", text: value }] };
}

const nameSchema = {
  type: "object",
  properties: { name: { type: "string", description: "Your name" } },
  required: ["name"],
};

function registerAddedTool(server, name) {
  server.registerTool(name, { description: `Added at run time by add_tool.` }, async () => text(`I am ${name}`));
}

/** One server instance, with every tool: one per HTTP request, or one per stdio connection. */
function makeServer() {
  const server = new McpServer(SERVER_INFO, {
    instructions: "Interop stateless server (TypeScript SDK 2.4.0).",
    cacheHints: { "tools/list": { ttlMs: TOOLS_TTL_MS, cacheScope: "private" } },
  });
  server.registerTool(
    "echo",
    {
      description: "Return the message unchanged.",
      inputSchema: fromJsonSchema({
        type: "object",
        properties: { message: { type: "string" } },
        required: ["message"],
      }),
    },
    async ({ message }) => text(message),
  );
  server.registerTool("greet", { description: "Ask the user's name, then greet them." }, async (ctx) => {
    const responses = ctx.mcpReq.inputResponses;
    const answer = responses?.name;
    if (answer === undefined) {
      return inputRequired({
        inputRequests: {
          name: inputRequired.elicit({ message: "What is your name?", requestedSchema: nameSchema }),
        },
      });
    }
    const accepted = acceptedContent(responses, "name");
    if (accepted && typeof accepted.name === "string") {
      return text(`Hello, ${accepted.name}!`);
    }
    return text(`No name given (${answer?.action ?? "no answer"}).`);
  });
  server.registerTool(
    "add_tool",
    {
      description: "Add a tool with this name and announce the change.",
      inputSchema: fromJsonSchema({
        type: "object",
        properties: { name: { type: "string" } },
        required: ["name"],
      }),
    },
    async ({ name }) => {
      if (!addedTools.has(name)) {
        addedTools.add(name);
        if (mode === "stdio") {
          // The connection's one instance: registering announces the change itself (on a
          // `subscriptions/listen` stream in 2026-07-28, as a plain notification in 2025).
          registerAddedTool(server, name);
        } else {
          publishToolsChanged();
        }
      }
      return text(`added ${name}`);
    },
  );
  server.registerTool("request_count", { description: "How many requests this server has seen." }, async () =>
    text(JSON.stringify(counts)),
  );
  for (const name of addedTools) {
    registerAddedTool(server, name);
  }
  return server;
}

function serveHttp(port) {
  const handler = createMcpHandler(() => makeServer(), {
    legacy: "stateless",
    onerror: (error) => process.stderr.write(`mcp handler: ${error?.stack ?? error}\n`),
  });
  publishToolsChanged = () => handler.notify.toolsChanged();
  // The fetch face, counting what reaches it before the SDK reads the request.
  const counted = {
    fetch: async (request, options) => {
      counts.http += 1;
      if (request.method === "POST") {
        countBody(await request.clone().text());
      }
      return handler.fetch(request, options);
    },
  };
  serveOnLoopback({
    port,
    handler: counted,
    closing: handler,
    routes: {
      "/count": (_req, res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(counts));
      },
    },
  });
}

/** The stdio transport, counting each message read from stdin. */
class CountingStdioTransport extends StdioServerTransport {
  constructor() {
    super();
    // `onmessage` is a plain field the serving entry sets: wrap whatever it is set to.
    let deliver;
    Object.defineProperty(this, "onmessage", {
      get: () => deliver,
      set: (handler) => {
        deliver =
          handler &&
          ((message, extra) => {
            countMessage(message);
            handler(message, extra);
          });
      },
    });
  }
}

if (mode === "http") {
  const port = Number(process.argv[3] ?? "0");
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(`not a port: ${process.argv[3]}\n`);
    process.exit(2);
  }
  serveHttp(port);
} else if (mode === "stdio") {
  serveStdio(() => makeServer(), {
    transport: new CountingStdioTransport(),
    onerror: (error) => process.stderr.write(`stdio: ${error?.stack ?? error}\n`),
  });
} else {
  process.stderr.write(`unknown mode ${JSON.stringify(mode)}: use http [PORT] or stdio\n`);
  process.exit(2);
}
