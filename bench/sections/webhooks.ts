/**
 * BENCH_ONLY=webhooks: webhook delivery on PostgreSQL through the real `paygate serve` (its background worker), to a
 * receiver in this process that answers 204 at once. Events are written straight into the outbox (`events`, the
 * table every service writes in its own transaction) at a set rate, each stamped with the time it was written, so the
 * latency is the whole path: NOTIFY, fan-out, claim, POST, record. Ten merchants with one endpoint each; every event
 * has exactly one delivery. Goals (issue 22): at least 1,000 deliveries/s per process; p99 event-to-delivery latency
 * under 1 s at 500 events/s; with an eleventh endpoint answering after 10 s and receiving a tenth of the events, the
 * other endpoints' p99 still under 1 s; two processes at least 1.6x one. About 1.5 min in all.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { gatewayCommand, gatewayEnv } from '../lib/gateway.js';
import { cpuSeconds } from '../lib/load.js';
import { createMerchantBody } from '../lib/fixtures.js';
import { freePort, httpOk, spawnNode, waitUntil, type Child } from '../lib/proc.js';
import type { Budget } from '../lib/report.js';
import { createThrowawayDatabase } from '../../packages/reference/src/testing/test-db.js';
import type { SectionContext, SectionResult } from './settlements.js';

const PARTNER = { id: 'pk_test_bench_hooks', secret: 'ps_test_bench_hooks_secret_0123456789' };
const FAST_ENDPOINTS = 10;
const SLOW_ANSWER_MS = 10_000;

const pct = (xs: number[], q: number) => {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(s.length * q) - 1))]!;
};

interface Arrival {
  path: string;
  writtenAt: number;
  at: number;
  id: string;
}

/** The receiver: 204 at once, except on /slow (after 10 s) and /failing (503 at once). Records every arrival with the event's write time. */
async function startReceiver(): Promise<{ base: string; arrivals: Arrival[]; close(): Promise<void> }> {
  const arrivals: Arrival[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { bench_t: number };
      arrivals.push({ path: req.url ?? '/', writtenAt: body.bench_t, at: Date.now(), id: String(req.headers['webhook-id']) });
      if (req.url === '/slow') setTimeout(() => res.writeHead(204).end(), SLOW_ANSWER_MS);
      else if (req.url === '/failing') res.writeHead(503).end();
      else res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrivals,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export async function runWebhooksSection(ctx: SectionContext): Promise<SectionResult> {
  const db = await createThrowawayDatabase(ctx.adminUrl, 'paygate_bench_hooks');
  const receiver = await startReceiver();
  const dirs: string[] = [];
  const children: Child[] = [];
  const client = new pg.Client({ connectionString: db.url });
  const start = async (name: string): Promise<Child> => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), `paygate-bench-${name}-`));
    dirs.push(dataDir);
    const port = await freePort();
    const child = spawnNode({
      args: gatewayCommand(ctx.root),
      cwd: ctx.root,
      port,
      // processes sharing one database share its master key (the endpoint secrets are sealed with it)
      env: { ...gatewayEnv({ partner: PARTNER, dataDir, databaseUrl: db.url, logLevel: 'warn' }), PAYGATE_MASTER_KEY: MASTER_KEY },
    });
    children.push(child);
    await waitUntil(child, httpOk(`${child.url}/healthz`), performance.now(), 60_000, 50);
    return child;
  };
  const stopAll = async () => {
    await Promise.all(children.splice(0).map((c) => c.stop()));
  };
  try {
    const first = await start('hooks-setup');
    await client.connect();
    const call = async (method: string, p: string, body: unknown, merchantId?: string) => {
      const res = await fetch(`${first.url}${p}`, {
        method,
        headers: {
          'X-Client-ID': PARTNER.id,
          'X-Client-Secret': PARTNER.secret,
          'Content-Type': 'application/json',
          ...(merchantId ? { 'X-Merchant-ID': merchantId } : {}),
        },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as { data?: Record<string, unknown> };
      if (!res.ok) throw new Error(`${method} ${p} -> ${res.status} ${JSON.stringify(json)}`);
      return json.data ?? {};
    };
    // ten merchants with one fast endpoint each, an eleventh with the slow one
    const merchants: string[] = [];
    for (let i = 0; i <= FAST_ENDPOINTS; i++) {
      const id = String((await call('POST', '/partners/merchants/', createMerchantBody()))['id']);
      await call('POST', `/sandbox/merchants/${id}/kyc`, { status: 'APPROVED' });
      await call(
        'POST',
        '/webhooks/endpoints',
        { url: `${receiver.base}/${i === FAST_ENDPOINTS ? 'slow' : `fast${i}`}`, events: ['PAYMENT_FAILED'] },
        id,
      );
      merchants.push(id);
    }
    const { rows } = await client.query<{ partner_id: string }>('SELECT partner_id FROM merchants WHERE id = $1', [merchants[0]]);
    const partnerId = rows[0]!.partner_id;
    await stopAll();

    /** Write `count` events into the outbox in one statement, spread over `merchantIds` by turn, stamped now. */
    let serial = 0;
    const write = async (merchantIds: readonly string[], count: number) => {
      const t = Date.now();
      const ids = Array.from({ length: count }, (_, k) => merchantIds[(serial + k) % merchantIds.length]!);
      serial += count;
      await client.query(
        `INSERT INTO events (sequence_number, type, partner_id, merchant_id, payload, created_at)
         SELECT gen_random_uuid(), 'PAYMENT_FAILED', $1, m, json_build_object('event_type', 'PAYMENT_FAILED', 'bench_t', $2::bigint), now()
         FROM unnest($3::text[]) AS m`,
        [partnerId, t, ids],
      );
    };
    const waitForArrivals = async (n: number, timeoutMs: number, filter: (a: Arrival) => boolean = () => true) => {
      const deadline = performance.now() + timeoutMs;
      while (receiver.arrivals.filter(filter).length < n) {
        if (performance.now() > deadline)
          throw new Error(`only ${receiver.arrivals.filter(filter).length} of ${n} deliveries after ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    const fast = merchants.slice(0, FAST_ENDPOINTS);

    /** A burst of `count` events written at once: deliveries per second from the first write to the last arrival. */
    const burst = async (count: number) => {
      receiver.arrivals.length = 0;
      const cpu = () => children.reduce((sum, c) => sum + (cpuSeconds(c.pid) ?? 0), 0);
      const cpu0 = cpu();
      const t0 = Date.now();
      for (let k = 0; k < count; k += 1000) await write(fast, Math.min(1000, count - k));
      await waitForArrivals(count, 120_000);
      const last = Math.max(...receiver.arrivals.map((a) => a.at));
      const distinct = new Set(receiver.arrivals.map((a) => a.id)).size;
      // deliveries per CPU-second of the gateway process(es): what one free core would deliver, whatever the load
      const perCpuSecond = count / Math.max(0.01, cpu() - cpu0);
      return {
        perSecond: (count / (last - t0)) * 1000,
        perCpuSecond,
        seconds: (last - t0) / 1000,
        duplicates: receiver.arrivals.length - distinct,
      };
    };
    /** `rate` events per second for `seconds`, in 20 ms ticks; `slowShare` of them to the slow endpoint. */
    const steady = async (rate: number, seconds: number, slowShare: number) => {
      receiver.arrivals.length = 0;
      const perTick = rate / 50;
      let owed = 0;
      let slowOwed = 0;
      const startedAt = performance.now();
      let written = 0;
      let slowWritten = 0;
      for (let tick = 1; tick <= seconds * 50; tick++) {
        owed += perTick * (1 - slowShare);
        slowOwed += perTick * slowShare;
        const n = Math.floor(owed);
        const s = Math.floor(slowOwed);
        owed -= n;
        slowOwed -= s;
        if (n > 0) await write(fast, n);
        if (s > 0) await write([merchants[FAST_ENDPOINTS]!], s);
        written += n;
        slowWritten += s;
        const wait = startedAt + tick * 20 - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      }
      await waitForArrivals(written, 30_000, (a) => a.path !== '/slow');
      const latencies = receiver.arrivals.filter((a) => a.path !== '/slow').map((a) => a.at - a.writtenAt);
      return {
        written,
        slowWritten,
        slowArrived: receiver.arrivals.filter((a) => a.path === '/slow').length,
        p50: pct(latencies, 0.5),
        p99: pct(latencies, 0.99),
      };
    };

    const out: SectionResult['rows'] = [];
    await start('hooks-1');
    const one = await burst(5000);
    ctx.log(
      `  1 process, burst of 5000 events: ${one.perSecond.toFixed(0)} deliveries/s (${one.seconds.toFixed(2)} s, ${one.duplicates} repeated), ` +
        `${one.perCpuSecond.toFixed(0)} per gateway CPU-second; load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores`,
    );
    const paced = await steady(500, 10, 0);
    ctx.log(`  1 process, 500 events/s for 10 s: latency p50 ${paced.p50} ms, p99 ${paced.p99} ms (${paced.written} events)`);
    const slow = await steady(500, 10, 0.1);
    ctx.log(
      `  1 process, 500 events/s for 10 s, a tenth to an endpoint answering after 10 s: other endpoints p50 ${slow.p50} ms, p99 ${slow.p99} ms ` +
        `(${slow.written} events; the slow endpoint got ${slow.slowArrived} of ${slow.slowWritten} so far)`,
    );
    await stopAll();
    // the slow endpoint's backlog would be retried by the next processes: take it out of the measurement
    await client.query(`UPDATE webhook_deliveries SET status = 'failed' WHERE status IN ('pending', 'delivering')`);
    await start('hooks-2a');
    const oneAgain = await burst(10_000);
    await start('hooks-2b');
    const two = await burst(10_000);
    const scale = two.perSecond / oneAgain.perSecond;
    ctx.log(
      `  burst of 10000: 1 process ${oneAgain.perSecond.toFixed(0)}/s, 2 processes ${two.perSecond.toFixed(0)}/s (${scale.toFixed(2)}x; ${two.duplicates} repeated); ` +
        `per gateway CPU-second ${oneAgain.perCpuSecond.toFixed(0)} and ${two.perCpuSecond.toFixed(0)}`,
    );
    await stopAll();
    out.push(
      { section: 'webhooks', name: 'deliveries/s, 1 process (burst of 5000)', rps: one.perSecond, rpsPerCpu: one.perCpuSecond },
      { section: 'webhooks', name: 'event-to-delivery latency at 500 events/s', p50: paced.p50, p99: paced.p99 },
      { section: 'webhooks', name: 'same, a tenth of events to an endpoint answering after 10 s (others)', p50: slow.p50, p99: slow.p99 },
      { section: 'webhooks', name: 'deliveries/s, 2 processes (burst of 10000)', rps: two.perSecond, baseline: '1 process', ratio: scale },
    );
    const budgets: Budget[] = [
      {
        name: 'Webhook deliveries per second, one process',
        target: '>= 1000/s',
        value: `${one.perSecond.toFixed(0)}/s (${one.perCpuSecond.toFixed(0)} per gateway CPU-second; load average ${os.loadavg()[0]!.toFixed(1)})`,
        met: one.perSecond >= 1000,
      },
      { name: 'Webhook event-to-delivery p99 at 500 events/s', target: '< 1 s', value: `${paced.p99} ms`, met: paced.p99 < 1000 },
      {
        name: 'Webhook p99 of other endpoints, one endpoint answering after 10 s',
        target: '< 1 s',
        value: `${slow.p99} ms`,
        met: slow.p99 < 1000,
      },
      {
        name: 'Webhook throughput, two processes / one',
        target: '>= 1.6x',
        value: `${scale.toFixed(2)}x (${oneAgain.perSecond.toFixed(0)} -> ${two.perSecond.toFixed(0)}/s)`,
        met: scale >= 1.6,
      },
    ];
    return { rows: out, budgets };
  } finally {
    await stopAll();
    await client.end().catch(() => undefined);
    await receiver.close();
    await db.drop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}

/** One master key for every process of the run (random, 32 bytes as base64, as PAYGATE_MASTER_KEY wants). */
const MASTER_KEY = randomBytes(32).toString('base64');

const ISOLATION_BACKLOG = 50_000;
const ISOLATION_RATE = 100;
const ISOLATION_SECONDS = 20;

/** CPU seconds of the PostgreSQL backends of `database` (their /proc stat), by pid, leaving out `exceptPid`. */
async function backendCpu(client: pg.Client, database: string, exceptPid: number): Promise<Map<number, number>> {
  const { rows } = await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> $2', [
    database,
    exceptPid,
  ]);
  const out = new Map<number, number>();
  for (const { pid } of rows) {
    const s = cpuSeconds(pid);
    if (s !== null) out.set(pid, s);
  }
  return out;
}

/**
 * BENCH_ONLY=webhook-isolation (part of every full run): fair webhook delivery (issue 33). One merchant's endpoint
 * answers 503 and has 50,000 due deliveries (written by SQL, due for an hour); another merchant's healthy endpoint gets
 * 100 events/s for 20 s through the real `paygate serve`. Reported: the healthy merchant's event-to-delivery p50/p99
 * (goal p99 < 1 s), the failing endpoint's attempts meanwhile, and deliveries (attempts of both) per CPU-second of the
 * gateway process and of its PostgreSQL backends (/proc/<pid>/stat of pg_stat_activity's pids; the bench's own
 * connection left out).
 */
export async function runWebhookIsolationSection(ctx: SectionContext): Promise<SectionResult> {
  const db = await createThrowawayDatabase(ctx.adminUrl, 'paygate_bench_isolation');
  const receiver = await startReceiver();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'paygate-bench-isolation-'));
  const client = new pg.Client({ connectionString: db.url });
  let child: Child | undefined;
  try {
    const port = await freePort();
    child = spawnNode({
      args: gatewayCommand(ctx.root),
      cwd: ctx.root,
      port,
      env: { ...gatewayEnv({ partner: PARTNER, dataDir, databaseUrl: db.url, logLevel: 'warn' }), PAYGATE_MASTER_KEY: MASTER_KEY },
    });
    await waitUntil(child, httpOk(`${child.url}/healthz`), performance.now(), 60_000, 50);
    await client.connect();
    const base = child.url;
    const call = async (method: string, p: string, body: unknown, merchantId?: string) => {
      const res = await fetch(`${base}${p}`, {
        method,
        headers: {
          'X-Client-ID': PARTNER.id,
          'X-Client-Secret': PARTNER.secret,
          'Content-Type': 'application/json',
          ...(merchantId ? { 'X-Merchant-ID': merchantId } : {}),
        },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as { data?: Record<string, unknown> };
      if (!res.ok) throw new Error(`${method} ${p} -> ${res.status} ${JSON.stringify(json)}`);
      return json.data ?? {};
    };
    const merchant = async (hookPath: string) => {
      const id = String((await call('POST', '/partners/merchants/', createMerchantBody()))['id']);
      await call('POST', `/sandbox/merchants/${id}/kyc`, { status: 'APPROVED' });
      const ep = await call('POST', '/webhooks/endpoints', { url: `${receiver.base}${hookPath}`, events: ['PAYMENT_FAILED'] }, id);
      return { id, endpointId: String(ep['id']) };
    };
    const failing = await merchant('/failing');
    const healthy = await merchant('/fast');
    const { rows } = await client.query<{ partner_id: string; pid: number }>(
      'SELECT partner_id, pg_backend_pid() AS pid FROM merchants WHERE id = $1',
      [healthy.id],
    );
    const partnerId = rows[0]!.partner_id;
    const ownPid = rows[0]!.pid;
    ctx.log(`  seeding ${ISOLATION_BACKLOG} due deliveries of a failing endpoint...`);
    await client.query(
      `WITH ev AS (
         INSERT INTO events (sequence_number, type, partner_id, merchant_id, payload, created_at, fanned_out_at)
         SELECT gen_random_uuid(), 'PAYMENT_FAILED', $1, $2, json_build_object('event_type', 'PAYMENT_FAILED', 'bench_t', 0),
                now() - interval '1 hour' + i * interval '1 millisecond', now()
         FROM generate_series(1, $4::int) AS i
         RETURNING sequence_number, created_at)
       INSERT INTO webhook_deliveries (event_id, endpoint_id, status, attempt, next_attempt_at, created_at, updated_at)
       SELECT sequence_number, $3, 'pending', 0, created_at, created_at, created_at FROM ev`,
      [partnerId, failing.id, failing.endpointId, ISOLATION_BACKLOG],
    );
    await client.query('ANALYZE webhook_deliveries');
    receiver.arrivals.length = 0;
    const gatewayCpu0 = cpuSeconds(child.pid) ?? 0;
    const pgCpu0 = await backendCpu(client, db.name, ownPid);
    const t0 = performance.now();
    let written = 0;
    for (let tick = 1; tick <= ISOLATION_SECONDS * 50; tick++) {
      const n = Math.floor((tick * ISOLATION_RATE) / 50) - Math.floor(((tick - 1) * ISOLATION_RATE) / 50);
      if (n > 0) {
        await client.query(
          `INSERT INTO events (sequence_number, type, partner_id, merchant_id, payload, created_at)
           SELECT gen_random_uuid(), 'PAYMENT_FAILED', $1, $2, json_build_object('event_type', 'PAYMENT_FAILED', 'bench_t', $3::bigint), now()
           FROM generate_series(1, $4::int)`,
          [partnerId, healthy.id, Date.now(), n],
        );
        written += n;
      }
      const wait = t0 + tick * 20 - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
    const deadline = performance.now() + 30_000;
    while (receiver.arrivals.filter((a) => a.path === '/fast').length < written && performance.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    const elapsed = (performance.now() - t0) / 1000;
    const gatewayCpu = (cpuSeconds(child.pid) ?? gatewayCpu0) - gatewayCpu0;
    const pgCpu1 = await backendCpu(client, db.name, ownPid);
    let pgCpu = 0;
    for (const [pid, s] of pgCpu1) pgCpu += s - (pgCpu0.get(pid) ?? 0);
    const fastArrivals = receiver.arrivals.filter((a) => a.path === '/fast');
    const failingAttempts = receiver.arrivals.filter((a) => a.path === '/failing').length;
    const latencies = fastArrivals.map((a) => a.at - a.writtenAt);
    const p50 = pct(latencies, 0.5);
    const p99 = fastArrivals.length < written ? Number.POSITIVE_INFINITY : pct(latencies, 0.99);
    const attempts = fastArrivals.length + failingAttempts;
    const perGatewayCpu = attempts / Math.max(0.01, gatewayCpu);
    const perPgCpu = attempts / Math.max(0.01, pgCpu);
    ctx.log(
      `  ${ISOLATION_BACKLOG} due deliveries of a failing endpoint; another merchant at ${ISOLATION_RATE} events/s for ${ISOLATION_SECONDS} s: ` +
        `p50 ${p50} ms, p99 ${p99} ms (${fastArrivals.length} of ${written} delivered); the failing endpoint got ${failingAttempts} attempts in ${elapsed.toFixed(1)} s; ` +
        `${perGatewayCpu.toFixed(0)} deliveries per gateway CPU-second (${gatewayCpu.toFixed(2)} s), ${perPgCpu.toFixed(0)} per PostgreSQL CPU-second (${pgCpu.toFixed(2)} s)`,
    );
    return {
      rows: [
        {
          section: 'webhooks',
          name: `another merchant at ${ISOLATION_RATE} events/s beside ${ISOLATION_BACKLOG} due deliveries of a failing endpoint`,
          p50,
          p99,
        },
        {
          section: 'webhooks',
          name: 'same run: deliveries per CPU-second, gateway / PostgreSQL backends',
          rps: perGatewayCpu,
          rpsPerCpu: perPgCpu,
        },
      ],
      budgets: [
        {
          name: `Webhook p99 of another merchant beside ${ISOLATION_BACKLOG} due deliveries of a failing endpoint`,
          target: '< 1 s',
          value: `${p99} ms (failing endpoint: ${failingAttempts} attempts in ${elapsed.toFixed(0)} s)`,
          met: p99 < 1000,
        },
        {
          name: 'Webhook deliveries per CPU-second beside a failing backlog (gateway, PostgreSQL)',
          target: 'reported',
          value: `${perGatewayCpu.toFixed(0)} per gateway CPU-s, ${perPgCpu.toFixed(0)} per PostgreSQL CPU-s`,
          met: true,
        },
      ],
    };
  } finally {
    await child?.stop();
    await client.end().catch(() => undefined);
    await receiver.close();
    await db.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
