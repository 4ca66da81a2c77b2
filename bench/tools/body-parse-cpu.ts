/**
 * D182's before/after on its own: server CPU per request of a POST carrying the benchmark's hosted-order body, read by
 * body-parser's three parsers (what `bodyParsers` ran before D182) or by `bodyParsers` now (plain JSON read by
 * readPlainJson). Both apps are served by ONE child process on two ports (same JIT, same machine moment); autocannon
 * in this process loads one port at a time, alternating which goes first, and the child's CPU (process.cpuUsage)
 * per request is read around each run. The rest of the request (HTTP, Express, the answer) is the same on both, so
 * the difference is the body reading. `npm run build` first.
 *
 * Usage: npx tsx bench/tools/body-parse-cpu.ts [seconds per run, default 3] [rounds, default 8]
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import express, { type Request, type Response } from 'express';
import { createHostedOrderBody } from '../lib/fixtures.js';

const LIMIT = '1mb';
const JSON_TYPES = ['application/json', 'application/*+json'];

async function serve(): Promise<void> {
  const { bodyParsers } = await import('@paygate/server/runtime/lifecycle/parse-body.js');
  const { limitInBytes, readingAtMost, rejectDeclaredOversize } = await import('@paygate/server/runtime/body-limits.js');
  const limitBytes = limitInBytes(LIMIT);
  const before = [
    rejectDeclaredOversize(limitBytes),
    readingAtMost(express.json({ limit: LIMIT, type: JSON_TYPES }), limitBytes),
    readingAtMost(express.urlencoded({ limit: LIMIT, extended: false }), limitBytes),
    readingAtMost(express.text({ limit: LIMIT, type: 'text/*' }), limitBytes),
  ];
  const app = (parsers: express.RequestHandler[]) => {
    const a = express();
    a.post('/orders', ...parsers, (req: Request, res: Response) => {
      res.json({ ok: typeof (req.body as { reference_id?: unknown }).reference_id === 'string' });
    });
    a.get('/cpu', (_req, res) => {
      const c = process.cpuUsage();
      res.json({ cpu: (c.user + c.system) / 1e6 });
    });
    return a;
  };
  const listen = (a: express.Express) =>
    new Promise<number>((resolve) => {
      const s = a.listen(0, '127.0.0.1', () => resolve((s.address() as { port: number }).port));
    });
  const ports = { before: await listen(app(before)), after: await listen(app(bodyParsers(LIMIT))) };
  process.send!(ports);
}

async function main(): Promise<void> {
  const seconds = Number(process.argv[2] ?? 3);
  const rounds = Number(process.argv[3] ?? 8);
  const child = fork(fileURLToPath(import.meta.url), ['--serve'], { execArgv: ['--import', 'tsx'] });
  const ports = await new Promise<{ before: number; after: number }>((resolve) => child.once('message', (m) => resolve(m as never)));
  const body = JSON.stringify({ ...createHostedOrderBody(), reference_id: 'body-parse-cpu' });
  const cpu = async (port: number) => ((await (await fetch(`http://127.0.0.1:${port}/cpu`)).json()) as { cpu: number }).cpu;
  const run = async (port: number, duration: number) => {
    const c0 = await cpu(port);
    const r = await autocannon({
      url: `http://127.0.0.1:${port}/orders`,
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body,
      connections: 20,
      duration,
    });
    const c1 = await cpu(port);
    if (r.non2xx + r.errors > 0) throw new Error(`failures on port ${port}`);
    return ((c1 - c0) / r.requests.total) * 1e6;
  };
  try {
    await run(ports.before, 2);
    await run(ports.after, 2);
    const diffs: number[] = [];
    for (let round = 1; round <= rounds; round++) {
      const order = round % 2 === 1 ? (['before', 'after'] as const) : (['after', 'before'] as const);
      const us: Record<string, number> = {};
      for (const which of order) us[which] = await run(ports[which], seconds);
      diffs.push(us['before']! - us['after']!);
      console.log(
        `round ${round}: body-parser ${us['before']!.toFixed(0)} µs CPU/request, bodyParsers (D182) ${us['after']!.toFixed(0)} µs: ${(us['before']! - us['after']!).toFixed(0)} µs saved`,
      );
    }
    const sorted = [...diffs].sort((a, b) => a - b);
    console.log(
      `median saving ${sorted[Math.floor(sorted.length / 2)]!.toFixed(0)} µs CPU per request (rounds ${diffs.map((d) => d.toFixed(0)).join(', ')})`,
    );
  } finally {
    child.kill();
  }
}

if (process.argv.includes('--serve')) await serve();
else await main();
