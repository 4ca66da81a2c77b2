// @ts-check
/**
 * Instructions per call of the generated client against plain `fetch`, counted by valgrind's callgrind: repeatable on
 * a loaded machine where CPU time per call moves by tens of percent between runs. Needs `npm run build` (it imports
 * @paygate/client's dist) and valgrind.
 *
 * Usage: npx tsx --conditions=source bench/tools/client-callgrind.mjs [calls, default 2000] [mode: concurrent|sequential, default concurrent]
 *   CLIENT_CALLGRIND_MODULE=/path/to/dist/index.js   count that build of the client instead of @paygate/client
 *
 * The server (bare Express) runs outside valgrind; each side runs in its own `valgrind --tool=callgrind` process with
 * instrumentation off during start-up and a warm-up, switched on (callgrind_control -i on) for the measured calls
 * only. Prints instructions per call of each side and the overhead (1 - fetch / client), and leaves the
 * callgrind.out files (callgrind_annotate them; JIT code shows as addresses, the runtime's C++ by name).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const PARTNER = { id: 'pk_test_bench_partner', secret: 'ps_test_bench_partner_secret_0123456789' };
const ID = 'OD1000000000000001';
const IN_FLIGHT = 50;

if (process.env['CLIENT_CALLGRIND_SIDE']) await side(process.env['CLIENT_CALLGRIND_SIDE']);
else await driver();

/** Runs under valgrind: warm up, wait for "go", run the measured calls, say "done". */
async function side(which) {
  const url = /** @type {string} */ (process.env['CLIENT_CALLGRIND_URL']);
  const calls = Number(process.env['CLIENT_CALLGRIND_CALLS']);
  const mode = process.env['CLIENT_CALLGRIND_MODE'];
  // CLIENT_CALLGRIND_MODULE: another build of the client to count (e.g. the previous commit's, built elsewhere)
  const { createPaygateClient } = await import(process.env['CLIENT_CALLGRIND_MODULE'] ?? '@paygate/client');
  const client = createPaygateClient({ baseUrl: url, clientId: PARTNER.id, clientSecret: PARTNER.secret, maxRetries: 0 });
  const headers = { 'X-Client-ID': PARTNER.id, 'X-Client-Secret': PARTNER.secret };
  const viaFetch = async () => {
    const res = await fetch(`${url}/pg/orders/${ID}`, { headers });
    const body = /** @type {{ success?: boolean }} */ (await res.json());
    if (!res.ok || body.success !== true) throw new Error('fetch failed');
  };
  const viaClient = async () => {
    const r = await client.orders.get(ID);
    if (!r.ok) throw new Error('client failed');
  };
  const fn = which === 'fetch' ? viaFetch : viaClient;
  /** @param {number} n */
  const run = async (n) => {
    if (mode === 'sequential') {
      for (let i = 0; i < n; i++) await fn();
      return;
    }
    let next = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next++ < n) await fn();
      }),
    );
  };
  await run(calls * 2); // warm-up, so the JIT has settled (optimising compiles are counted otherwise)
  const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
  console.log('READY');
  await lines.next();
  await run(calls);
  console.log('DONE');
  await lines.next();
  process.exit(0);
}

async function driver() {
  const calls = Number(process.argv[2] ?? 2000);
  const mode = process.argv[3] ?? 'concurrent';
  // the driver runs under tsx (the bench's TypeScript helpers); the measured sides run on plain node
  const { freePort } = await import('../lib/proc.js');
  const { orderEnvelope } = await import('../lib/fixtures.js');
  const port = await freePort();
  // bench/servers/bare-express.mjs with a long keep-alive: under valgrind a pooled connection may sit idle longer
  // than Node's default 5 s, and a request sent as the server closes it fails with "other side closed"
  const serverCode = `import express from 'express';
const order = JSON.parse(process.env.BENCH_BODY);
const app = express();
app.disable('x-powered-by');
app.get('/pg/orders/:order_id', (_req, res) => { res.json(order); });
const server = app.listen(Number(process.env.PORT), '127.0.0.1', () => console.log('LISTENING'));
server.keepAliveTimeout = 600000;
process.on('SIGTERM', () => process.exit(0));`;
  const server = spawn(process.execPath, ['--input-type=module', '-e', serverCode], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: 'production', PORT: String(port), BENCH_BODY: JSON.stringify(orderEnvelope()) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise((resolve) => server.stdout?.on('data', (d) => String(d).includes('LISTENING') && resolve(undefined)));
  const dir = mkdtempSync(path.join(os.tmpdir(), 'client-callgrind-'));
  const results = {};
  try {
    // both sides at once (each is single-threaded under valgrind anyway); --single-threaded keeps V8's compiler and
    // GC on the main thread, in step with the calls, so two runs of the same code count nearly the same
    await Promise.all(
      ['fetch', 'client'].map(async (which) => {
        const out = path.join(dir, `callgrind.out.${which}`);
        const child = spawn(
          'valgrind',
          [
            '--tool=callgrind',
            '--instr-atstart=no',
            `--callgrind-out-file=${out}`,
            process.execPath,
            '--single-threaded',
            fileURLToPath(import.meta.url),
          ],
          {
            cwd: ROOT,
            env: {
              ...process.env,
              CLIENT_CALLGRIND_SIDE: which,
              CLIENT_CALLGRIND_URL: `http://127.0.0.1:${port}`,
              CLIENT_CALLGRIND_CALLS: String(calls),
              CLIENT_CALLGRIND_MODE: mode,
            },
            stdio: ['pipe', 'pipe', 'pipe'],
          },
        );
        let err = '';
        child.stderr.on('data', (d) => (err += String(d)));
        const lines = createInterface({ input: /** @type {import('node:stream').Readable} */ (child.stdout) })[Symbol.asyncIterator]();
        const expect = async (/** @type {string} */ word) => {
          for (;;) {
            const { value, done } = await lines.next();
            if (done) throw new Error(`${which}: exited before ${word}\n${err.slice(-2000)}`);
            if (value.trim() === word) return;
          }
        };
        await expect('READY');
        execFileSync('callgrind_control', ['-i', 'on', String(child.pid)], { stdio: 'ignore' });
        child.stdin.write('go\n');
        await expect('DONE');
        execFileSync('callgrind_control', ['-i', 'off', String(child.pid)], { stdio: 'ignore' });
        child.stdin.write('end\n');
        await new Promise((resolve) => child.once('exit', resolve));
        const summary = readFileSync(out, 'utf8').match(/^totals: (\d+)/m);
        results[which] = Number(summary?.[1]) / calls;
        console.log(`${which}: ${(results[which] / 1000).toFixed(1)} k instructions/call (${out})`);
      }),
    );
    console.log(
      `${mode} ${calls} calls: overhead ${((1 - results.fetch / results.client) * 100).toFixed(1)}% (client ${(results.client / 1000).toFixed(1)}k vs fetch ${(results.fetch / 1000).toFixed(1)}k instructions per call)`,
    );
  } finally {
    server.kill('SIGTERM');
  }
}
