// The HTTP face the interop servers share: a listener on 127.0.0.1:`port` (0 picks one) that
// serves MCP at `/mcp` (Host checked to be the loopback), answers `routes[path]` for the
// extra GET routes a server has, 404 elsewhere; it prints `interop-listening <port>` on stderr
// once it listens (what testkit waits for), and closes the MCP handler and exits on SIGTERM
// or SIGINT.
import http from "node:http";
import process from "node:process";

import { localhostHostValidation, toNodeHandler } from "@modelcontextprotocol/node";

/**
 * Serves `handler` (the SDK's `createMcpHandler`, or an object with its `fetch` face in front
 * of it, `closing` then being the handler to close) over HTTP on the loopback.
 */
export function serveOnLoopback({ port, handler, closing = handler, routes = {} }) {
  const serveMcp = toNodeHandler(handler, {
    onerror: (error) => process.stderr.write(`node adapter: ${error?.stack ?? error}\n`),
  });
  const validHost = localhostHostValidation();
  const listener = http.createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://127.0.0.1").pathname;
    const route = routes[path];
    if (route && req.method === "GET") {
      route(req, res);
      return;
    }
    if (path !== "/mcp") {
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("not found\n");
      return;
    }
    if (!validHost(req, res)) return;
    void serveMcp(req, res);
  });
  listener.listen(port, "127.0.0.1", () => {
    process.stderr.write(`interop-listening ${listener.address().port}\n`);
  });
  const stop = () => {
    listener.close();
    void closing.close().finally(() => process.exit(0));
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}
