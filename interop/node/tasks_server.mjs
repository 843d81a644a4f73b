// A stateless, dual-era MCP server whose tools run as tasks of the Tasks extension
// (`io.modelcontextprotocol/tasks`, SEP-2663) of protocol revision 2026-07-28, on the TypeScript
// SDK v2 (`@modelcontextprotocol/server`) and `@modelcontextprotocol/ext-tasks`, for the interop
// tests of our tasks client.
//
//   node interop/node/tasks_server.mjs http [PORT] [--log FILE]   # Streamable HTTP, endpoint /mcp
//   node interop/node/tasks_server.mjs stdio [--log FILE]         # newline-delimited JSON-RPC
//
// HTTP listens on 127.0.0.1 only, at PORT (default 0: the system picks one), and reports the port
// on stderr as `interop-listening <port>`, like every interop peer. Serving is the SDK's
// (`createMcpHandler` with the stateless legacy fallback, `serveStdio`), as in
// stateless_server.mjs. `--log FILE` appends one line `<method> <taskId>` for every tasks/get,
// tasks/update and tasks/cancel that reaches a handler (the SDK answers a request whose
// `Mcp-Name` header is missing or names another task itself, with -32020, before that).
//
// Neither package has a task store for a 2026-07-28 server: ext-tasks is the requester side
// (and a 2025-11-25 receiver for a client), the SDK only knows the 2025 task shapes. The store
// here is ours, one map per process, so a task outlives the HTTP request (and the client
// process) that created it; ext-tasks supplies the wire schemas every task we send is checked
// against, and the test for the client's declaration.
//
// Tools (2026-07-28, for a request that declares the extension in its `_meta` client
// capabilities; without it — and always in the 2025 era, where the extension does not exist —
// every task tool answers -32021 with `requiredCapabilities`):
//   slow_sum {a, b, steps?}  working for `steps` (default 3) status messages "step i of n",
//                            150 ms apart, then completed: text "<a+b>", structuredContent {sum}
//   confirm {action}         working, then input_required with one elicitation (`confirm`:
//                            {"confirmed": boolean}, "Confirm <action>?"); after tasks/update
//                            working, then completed: "confirmed <action>" / "declined <action>"
//   endless {}               working, status message "tick <n>" every 200 ms, until tasks/cancel
//   fail {}                  working, then failed with the JSON-RPC error -32603 "the job failed"
//   quick {text}             answered at once, no task: the text unchanged (both eras)
import { appendFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import process from "node:process";

import {
  createMcpHandler,
  fromJsonSchema,
  McpServer,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
} from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import {
  CreateTaskResultV2Schema,
  DetailedTaskV2Schema,
  ElicitResultV2Schema,
  InputResponsesV2Schema,
  TASKS_EXTENSION_ID_V2,
  hasTaskClientCapabilityV2,
} from "@modelcontextprotocol/ext-tasks/core/v2";

import { serveOnLoopback } from "./loopback_http.mjs";

const SERVER_INFO = { name: "interop-tasks-ts", version: "2.4.0" };
/** How long a task is kept after it was created; announced as `ttlMs`. */
const TASK_TTL_MS = 10 * 60 * 1000;
const POLL_INTERVAL_MS = 100;
const STEP_MS = 150;
const TICK_MS = 200;
const CONFIRM_KEY = "confirm";
const REQUIRED_TASKS = { extensions: { [TASKS_EXTENSION_ID_V2]: {} } };

const { mode, port, logFile } = parseArgs(process.argv.slice(2));

function parseArgs(args) {
  const positional = [];
  let log;
  for (let i = 0; i < args.length; i += 1) {
    if (args[i] === "--log") {
      log = args[i + 1];
      i += 1;
      if (log === undefined) fail("--log needs a file");
    } else {
      positional.push(args[i]);
    }
  }
  const chosen = positional[0] ?? "http";
  const portNumber = Number(positional[1] ?? "0");
  if (chosen === "http" && (!Number.isInteger(portNumber) || portNumber < 0 || portNumber > 65535)) {
    fail(`not a port: ${positional[1]}`);
  }
  return { mode: chosen, port: portNumber, logFile: log };
}

function fail(message) {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

function logTaskRequest(method, taskId) {
  if (logFile !== undefined) {
    // Synchronous, so the line is on disk before the response leaves.
    appendFileSync(logFile, `${method} ${taskId}\n`);
  }
}

function text(value) {
  return { content: [{ type: "text", text: value }] };
}

// ---------------------------------------------------------------------------------------------
// The task store: every task of this process, whichever request or connection made it.

/** taskId -> task record. */
const tasks = new Map();

/** Timers must not keep a stdio server alive once its stdin has closed. */
function later(ms, fn) {
  const timer = setTimeout(fn, ms);
  timer.unref();
  return timer;
}

function every(ms, fn) {
  const timer = setInterval(fn, ms);
  timer.unref();
  return timer;
}

class TaskRecord {
  constructor(statusMessage) {
    // A bearer handle for the task's state: unguessable (SEP-2663, security implications).
    this.taskId = randomUUID();
    this.status = "working";
    this.statusMessage = statusMessage;
    this.createdAt = new Date().toISOString();
    this.lastUpdatedAt = this.createdAt;
    this.inputRequests = undefined;
    this.result = undefined;
    this.error = undefined;
    /** Called with the accepted `inputResponses` while the task waits for them. */
    this.onInput = undefined;
    this.timers = [];
    tasks.set(this.taskId, this);
    this.timers.push(later(TASK_TTL_MS, () => this.forget()));
  }

  get terminal() {
    return this.status === "completed" || this.status === "failed" || this.status === "cancelled";
  }

  /** Moves the task on; a terminal task never moves again. */
  update(status, statusMessage, fields = {}) {
    if (this.terminal) return;
    this.status = status;
    this.statusMessage = statusMessage;
    this.inputRequests = fields.inputRequests;
    this.result = fields.result;
    this.error = fields.error;
    this.lastUpdatedAt = new Date().toISOString();
    if (this.terminal) this.stopWork();
  }

  schedule(ms, fn) {
    this.timers.push(later(ms, () => !this.terminal && fn()));
  }

  repeat(ms, fn) {
    this.timers.push(every(ms, () => !this.terminal && fn()));
  }

  stopWork() {
    this.onInput = undefined;
    // The TTL timer stays: a finished task is kept for polling until it expires.
    for (const timer of this.timers.splice(1)) clearTimeout(timer);
  }

  forget() {
    for (const timer of this.timers) clearTimeout(timer);
    tasks.delete(this.taskId);
  }

  /** The `Task` fields every answer about the task carries. */
  base() {
    return {
      taskId: this.taskId,
      status: this.status,
      ...(this.statusMessage !== undefined && { statusMessage: this.statusMessage }),
      createdAt: this.createdAt,
      lastUpdatedAt: this.lastUpdatedAt,
      ttlMs: TASK_TTL_MS,
      pollIntervalMs: POLL_INTERVAL_MS,
    };
  }

  /** The `DetailedTask` of tasks/get: the base plus what its status inlines. */
  detailed() {
    const task = this.base();
    if (this.status === "input_required") task.inputRequests = this.inputRequests;
    if (this.status === "completed") task.result = this.result;
    if (this.status === "failed") task.error = this.error;
    return checked(DetailedTaskV2Schema, task, "tasks/get");
  }

  /** The `CreateTaskResult` a task tool answers with. */
  created() {
    return checked(CreateTaskResultV2Schema, { resultType: "task", ...this.base() }, "tools/call");
  }
}

/** What we send is held to ext-tasks' wire schemas: a mistake here is ours, not the client's. */
function checked(schema, value, method) {
  const outcome = schema.safeParse(value);
  if (!outcome.success) {
    throw new ProtocolError(ProtocolErrorCode.InternalError, `server bug: a ${method} answer that is not a valid task: ${outcome.error.message}`);
  }
  return value;
}

function completedResult(body) {
  return { resultType: "complete", ...body };
}

function startSlowSum({ a, b, steps = 3 }) {
  const task = new TaskRecord(`step 1 of ${steps}`);
  for (let step = 2; step <= steps; step += 1) {
    task.schedule(STEP_MS * (step - 1), () => task.update("working", `step ${step} of ${steps}`));
  }
  task.schedule(STEP_MS * steps, () =>
    task.update("completed", `sum of ${a} and ${b}`, {
      result: completedResult({ ...text(String(a + b)), structuredContent: { sum: a + b } }),
    }),
  );
  return task;
}

function startConfirm({ action }) {
  const task = new TaskRecord("preparing");
  const request = {
    method: "elicitation/create",
    params: {
      mode: "form",
      message: `Confirm ${action}?`,
      requestedSchema: {
        type: "object",
        properties: { confirmed: { type: "boolean", description: `Go ahead with ${action}` } },
        required: ["confirmed"],
      },
    },
  };
  task.schedule(STEP_MS, () => {
    task.update("input_required", "waiting for confirmation", { inputRequests: { [CONFIRM_KEY]: request } });
    task.onInput = (responses) => {
      const answer = responses[CONFIRM_KEY];
      if (answer === undefined) return; // only keys this task has outstanding count
      task.onInput = undefined;
      const confirmed = answer.action === "accept" && answer.content?.confirmed === true;
      const verdict = `${confirmed ? "confirmed" : "declined"} ${action}`;
      task.update("working", `answer received (${answer.action})`);
      task.schedule(STEP_MS, () => task.update("completed", verdict, { result: completedResult(text(verdict)) }));
    };
  });
  return task;
}

function startEndless() {
  const task = new TaskRecord("tick 0");
  let ticks = 0;
  task.repeat(TICK_MS, () => {
    ticks += 1;
    task.update("working", `tick ${ticks}`);
  });
  return task;
}

function startFail() {
  const task = new TaskRecord("running");
  task.schedule(STEP_MS, () =>
    task.update("failed", "the job failed", {
      error: { code: ProtocolErrorCode.InternalError, message: "the job failed" },
    }),
  );
  return task;
}

const TASK_TOOLS = {
  slow_sum: startSlowSum,
  confirm: startConfirm,
  endless: startEndless,
  fail: startFail,
};

// ---------------------------------------------------------------------------------------------
// The protocol surface.

/** Whether this request declared the extension (2026-07-28 only: its per-request `_meta`). */
function declaresTasks(era, ctx) {
  return era === "modern" && hasTaskClientCapabilityV2({ _meta: ctx.mcpReq.envelope });
}

function missingTasks(era, what) {
  const why =
    era === "modern"
      ? `the request does not declare the ${TASKS_EXTENSION_ID_V2} extension in its client capabilities`
      : `the ${TASKS_EXTENSION_ID_V2} extension needs protocol revision 2026-07-28`;
  return new MissingRequiredClientCapabilityError(
    { requiredCapabilities: REQUIRED_TASKS },
    `Missing required client capability: ${what} needs tasks, and ${why}`,
  );
}

function knownTask(params, method) {
  const taskId = params?.taskId;
  if (typeof taskId !== "string") {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid params for ${method}: taskId must be a string`);
  }
  const task = tasks.get(taskId);
  if (task === undefined) {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Failed to retrieve task: Task not found (${taskId})`);
  }
  return task;
}

/** Lets any params through: the handlers check the capability before the params' shape. */
const ANY_PARAMS = fromJsonSchema({ type: "object" });

function registerTaskMethods(server, era) {
  const low = server.server;
  const handle = (method, answer) =>
    low.setRequestHandler(method, { params: ANY_PARAMS }, async (params, ctx) => {
      logTaskRequest(method, typeof params?.taskId === "string" ? params.taskId : "-");
      if (!declaresTasks(era, ctx)) throw missingTasks(era, method);
      return answer(knownTask(params, method), params, ctx);
    });
  handle("tasks/get", (task) => task.detailed());
  handle("tasks/update", (task, _params, ctx) => {
    // The SDK lifts `inputResponses` off every request's params (they are multi round-trip
    // material to it), keeping the plain-object entries in `ctx.mcpReq.inputResponses`.
    const given = ctx.mcpReq.inputResponses;
    if (given === undefined) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, "Invalid params for tasks/update: inputResponses is required");
    }
    const responses = InputResponsesV2Schema.safeParse(given);
    if (!responses.success) {
      const keys = [...new Set(responses.error.issues.map((issue) => String(issue.path[0])))].join(", ");
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid params for tasks/update: inputResponses ${keys} is not an elicitation, sampling or roots result`);
    }
    const answer = responses.data[CONFIRM_KEY];
    if (answer !== undefined && task.onInput !== undefined && !ElicitResultV2Schema.safeParse(answer).success) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid params for tasks/update: inputResponses ${CONFIRM_KEY} is not an elicitation result`);
    }
    // Keys the task has not outstanding (never asked, already answered, or a finished task)
    // are ignored, as SEP-2663 asks.
    task.onInput?.(responses.data);
    return {};
  });
  handle("tasks/cancel", (task) => {
    task.update("cancelled", "cancelled by tasks/cancel");
    return {};
  });
}

/**
 * The SDK validates every `tools/call` result as a `CallToolResult`, and gives one without
 * `content` an empty `content: []` — a `CreateTaskResult` too (it knows only the 2025 task
 * shape). This wraps the SDK's own `tools/call` handler (the `_wrapHandler` hook it keeps for
 * subclasses; `McpServer` makes its `Server` itself) to answer -32021 as a JSON-RPC error before
 * a tool runs (`McpServer` would turn a tool's throw into an `isError` result), and to send a
 * task without that `content`.
 */
function installTaskCalls(server, era) {
  const low = server.server;
  const sdkWrap = low._wrapHandler.bind(low);
  low._wrapHandler = (method, handler) => {
    const wrapped = sdkWrap(method, handler);
    if (method !== "tools/call") return wrapped;
    return async (request, ctx) => {
      const name = request?.params?.name;
      if (Object.hasOwn(TASK_TOOLS, name) && !declaresTasks(era, ctx)) throw missingTasks(era, `the tool ${name}`);
      const result = await wrapped(request, ctx);
      if (result?.resultType === "task") {
        const { content: _sdkDefault, ...task } = result;
        return task;
      }
      return result;
    };
  };
}

const objectSchema = (properties, required = []) => fromJsonSchema({ type: "object", properties, required });

/** One server instance: one per HTTP request, or one per stdio connection; the tasks are shared. */
function makeServer(era) {
  const server = new McpServer(SERVER_INFO, {
    instructions: "Interop tasks server (TypeScript SDK 2.4.0, ext-tasks 0.2.2): its tools answer with tasks.",
    // The extension exists only on 2026-07-28: the 2025 era does not announce it.
    ...(era === "modern" && { capabilities: { extensions: REQUIRED_TASKS.extensions } }),
  });
  installTaskCalls(server, era);
  const taskTool = (name, description, inputSchema) =>
    server.registerTool(name, { description, inputSchema }, async (args) => TASK_TOOLS[name](args ?? {}).created());
  taskTool(
    "slow_sum",
    "Add a and b in a task that reports `steps` steps (default 3), 150 ms apart.",
    objectSchema(
      { a: { type: "number" }, b: { type: "number" }, steps: { type: "integer", minimum: 1, maximum: 100 } },
      ["a", "b"],
    ),
  );
  taskTool("confirm", "Ask, within a task, to confirm the action.", objectSchema({ action: { type: "string" } }, ["action"]));
  taskTool("endless", "A task that works until it is cancelled.", objectSchema({}));
  taskTool("fail", "A task that fails with a JSON-RPC error.", objectSchema({}));
  server.registerTool(
    "quick",
    { description: "Answer the text at once, without a task.", inputSchema: objectSchema({ text: { type: "string" } }, ["text"]) },
    async ({ text: value }) => text(value),
  );
  if (era === "modern") registerTaskMethods(server, era);
  return server;
}

function serveHttp() {
  const handler = createMcpHandler(({ era }) => makeServer(era), {
    legacy: "stateless",
    onerror: (error) => process.stderr.write(`mcp handler: ${error?.stack ?? error}\n`),
  });
  serveOnLoopback({ port, handler });
}

if (mode === "http") {
  serveHttp();
} else if (mode === "stdio") {
  serveStdio(({ era }) => makeServer(era), {
    onerror: (error) => process.stderr.write(`stdio: ${error?.stack ?? error}\n`),
  });
} else {
  fail(`unknown mode ${JSON.stringify(mode)}: use http [PORT] or stdio, and --log FILE`);
}
