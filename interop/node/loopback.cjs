// Preloaded with `node --require interop/node/loopback.cjs …` by the interop tests.
//
// Node peers (server-everything, the conformance suite's mock servers) call `listen(port)`
// with no host, which binds every interface. Tests must listen on 127.0.0.1 only, so this
// rewrites every TCP `listen` of the process to that host, and reports the port the server
// really got on stderr as `interop-listening <port>` (tests pass PORT=0 and read it back).
"use strict";

const net = require("net");

const LOOPBACK = "127.0.0.1";
const originalListen = net.Server.prototype.listen;

net.Server.prototype.listen = function listenOnLoopback(...args) {
  const first = args[0];
  if (typeof first === "number" || (typeof first === "string" && /^\d+$/.test(first))) {
    // listen(port[, host][, backlog][, callback])
    const rest = args.slice(1);
    if (typeof rest[0] === "string") {
      rest[0] = LOOPBACK;
    } else {
      rest.unshift(LOOPBACK);
    }
    args = [Number(first), ...rest];
  } else if (first && typeof first === "object" && !Array.isArray(first) && first.path === undefined) {
    args[0] = { ...first, host: LOOPBACK };
  } else if (first === undefined || typeof first === "function") {
    args = [0, LOOPBACK, ...args.filter((arg) => arg !== undefined)];
  }
  this.once("listening", () => {
    const address = this.address();
    if (address && typeof address === "object") {
      process.stderr.write(`interop-listening ${address.port}\n`);
    }
  });
  return originalListen.apply(this, args);
};
