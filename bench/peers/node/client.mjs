// The TypeScript SDK client driver of the side-by-side benchmark: `@modelcontextprotocol/sdk`'s
// `Client` over its `StdioClientTransport`, making the same calls as the Rust drivers in
// bench/src/bin/client/ and printing the same one JSON line (see `Figures::to_json_line` in
// bench/src/measure.rs).
//
//   node bench/peers/node/client.mjs --server PATH [--warmup W] [--sequential N] [--pipelined M]
//
// Phases: spawn the reference server and initialize (Client.connect), tools/list, one checked
// echo, then W sequential and W pipelined echo calls (not measured), N sequential calls each
// timed with process.hrtime.bigint() (p50, p99), and M calls with 32 in flight (32 async
// workers, each making one call at a time) for calls per second.
//
// Client CPU is process.cpuUsage() (user + system of this process, every thread; the server
// is a child and is not counted) over the sequential phase divided by N. Server CPU over the
// same phase is the first field of /proc/<pid>/schedstat, with the pid from the transport's
// `pid` getter; it is null if the transport does not expose one.
//
// Installed by `cargo xtask bench --peers` (`npm ci` in bench/peers/node; the SDK version is
// pinned by package.json and package-lock.json).

import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const IN_FLIGHT = 32;

function parseArgs(argv) {
  const args = { server: null, warmup: 500, sequential: 2000, pipelined: 10000 };
  for (let i = 0; i < argv.length; i += 1) {
    const flag = argv[i];
    const value = argv[i + 1];
    if (value === undefined) {
      throw new Error(`${flag} needs a value`);
    }
    i += 1;
    if (flag === '--server') {
      args.server = value;
    } else if (flag === '--warmup' || flag === '--sequential' || flag === '--pipelined') {
      const count = Number.parseInt(value, 10);
      if (!Number.isInteger(count) || count < 0 || String(count) !== value) {
        throw new Error(`${flag} wants a number of calls, got \`${value}\``);
      }
      args[flag.slice(2)] = count;
    } else {
      throw new Error(`unknown argument \`${flag}\``);
    }
  }
  if (args.server === null) {
    throw new Error('--server is required');
  }
  return args;
}

/** Nanoseconds of CPU the process `pid` has run (its single thread), or null without a pid. */
function schedstatNanos(pid) {
  if (pid === null || pid === undefined) {
    return null;
  }
  const text = readFileSync(`/proc/${pid}/schedstat`, 'utf8');
  const nanos = Number(text.split(/\s+/)[0]);
  if (!Number.isFinite(nanos)) {
    throw new Error(`unreadable /proc/${pid}/schedstat: ${text}`);
  }
  return nanos;
}

/** Nearest-rank percentile of sorted samples, as bench/src/measure.rs computes it. */
function percentile(sorted, fraction) {
  if (sorted.length === 0) {
    return 0;
  }
  const rank = Math.ceil(fraction * sorted.length);
  return sorted[Math.min(Math.max(rank, 1), sorted.length) - 1];
}

const round2 = (value) => Math.round(value * 100) / 100;

async function echo(client) {
  const result = await client.callTool({ name: 'echo', arguments: { message: 'ping' } });
  if (result.isError) {
    throw new Error(`the echo tool failed: ${JSON.stringify(result.content)}`);
  }
  return result;
}

/** IN_FLIGHT workers, each making one call at a time until `calls` are made in all. */
async function pipelined(client, calls) {
  let remaining = calls;
  const started = process.hrtime.bigint();
  const worker = async () => {
    while (remaining > 0) {
      remaining -= 1;
      await echo(client);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return Number(process.hrtime.bigint() - started) / 1e9;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const transport = new StdioClientTransport({ command: args.server, args: [], stderr: 'inherit' });
  const client = new Client({ name: 'bench-ts-sdk', version: '0' });
  await client.connect(transport);

  const { tools } = await client.listTools();
  if (!tools.some((tool) => tool.name === 'echo')) {
    throw new Error('the reference server lists no echo tool');
  }
  const first = await echo(client);
  if (first.content?.[0]?.text !== 'ping') {
    throw new Error(`unexpected echo answer: ${JSON.stringify(first)}`);
  }

  for (let i = 0; i < args.warmup; i += 1) {
    await echo(client);
  }
  const pid = transport.pid ?? null;
  const samples = new Float64Array(args.sequential);
  const serverBefore = schedstatNanos(pid);
  const cpuBefore = process.cpuUsage();
  for (let i = 0; i < args.sequential; i += 1) {
    const started = process.hrtime.bigint();
    await echo(client);
    samples[i] = Number(process.hrtime.bigint() - started) / 1e3;
  }
  const cpu = process.cpuUsage(cpuBefore);
  const serverAfter = schedstatNanos(pid);

  await pipelined(client, args.warmup);
  const seconds = await pipelined(client, args.pipelined);
  await client.close();

  samples.sort();
  const calls = Math.max(args.sequential, 1);
  const manifest = new URL('./node_modules/@modelcontextprotocol/sdk/package.json', import.meta.url);
  const sdk = JSON.parse(readFileSync(manifest, 'utf8')).version;
  const line = {
    client: 'ts-sdk',
    shape: `node ${process.versions.node}, sdk ${sdk}`,
    seq_p50_us: round2(percentile(samples, 0.5)),
    seq_p99_us: round2(percentile(samples, 0.99)),
    cpu_us_per_call: round2((cpu.user + cpu.system) / calls),
    server_cpu_us_per_call:
      serverBefore === null ? null : round2((serverAfter - serverBefore) / 1e3 / calls),
    inflight32_calls_per_s: Math.round(args.pipelined / Math.max(seconds, 1e-9)),
  };
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

main().catch((error) => {
  process.stderr.write(`client ts-sdk: error: ${error?.stack ?? error}\n`);
  process.exit(1);
});
