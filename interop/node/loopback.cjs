// Preloaded with `node --require interop/node/loopback.cjs …` by the interop tests and
// `cargo xtask conformance`.
//
// Node peers (server-everything, the conformance suite's mock servers) call `listen(port)`
// with no host, which binds every interface. Tests must listen on 127.0.0.1 only, so this
// rewrites every TCP `listen` of the process to that host, and reports the port the server
// really got on stderr as `interop-listening <port>` (tests pass PORT=0 and read it back).
//
// A `listen(port)` without a host binds at once (callers read `address()` right after it),
// so that case binds 127.0.0.1 at once too, through the step `listen` itself ends in
// (`_listen2`); a `listen` that named a host resolves it later anyway and is only redirected.
"use strict";

const net = require("net");

const LOOPBACK = "127.0.0.1";
const originalListen = net.Server.prototype.listen;

function isPort(value) {
  return typeof value === "number" || (typeof value === "string" && /^\d+$/.test(value));
}

net.Server.prototype.listen = function listenOnLoopback(...args) {
  this.once("listening", () => {
    const address = this.address();
    if (address && typeof address === "object") {
      process.stderr.write(`interop-listening ${address.port}\n`);
    }
  });
  let first = args[0];
  if (first === undefined || typeof first === "function") {
    args = [0, ...args.filter((arg) => arg !== undefined)];
    first = 0;
  }
  if (first && typeof first === "object" && !Array.isArray(first)) {
    if (first.path !== undefined || first.fd !== undefined || first.handle !== undefined) {
      return originalListen.apply(this, args);
    }
    const callback = args.find((arg) => typeof arg === "function");
    args = [first.port ?? 0, first.backlog, callback].filter((arg) => arg !== undefined);
    first = args[0];
  }
  if (!isPort(first)) {
    return originalListen.apply(this, args); // a pipe path or a handle: not TCP
  }
  const rest = args.slice(1);
  if (typeof rest[0] === "string") {
    rest[0] = LOOPBACK;
    return originalListen.call(this, Number(first), ...rest);
  }
  const backlog = typeof rest[0] === "number" ? rest[0] : 511;
  const callback = rest.find((arg) => typeof arg === "function");
  if (callback) {
    this.once("listening", callback);
  }
  this._listen2(LOOPBACK, Number(first), 4, backlog, undefined, 0);
  return this;
};
