/**
 * BENCH_ONLY=settlements: settlement runs at 10k and 100k captured payments of one merchant each (seeded through
 * SQL), on PostgreSQL, through the real `paygate serve` (POST /sandbox/settlements/run). Goals (issue 22): wall time
 * growth at most 12x for 10x the payments, peak RSS growth of the gateway during the 100k run under 100 MB, and while
 * the 100k run goes on, /healthz and GET payment p99 under 100 ms and a refund created within 1 s; then a run with
 * nothing due under 50 ms. The 100k run takes some seconds (the seeding about as long); the whole section ~1 min.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { gatewayCommand, gatewayEnv } from '../lib/gateway.js';
import { createMerchantBody } from '../lib/fixtures.js';
import { RssSampler, rssMiB } from '../lib/load.js';
import { freePort, httpOk, spawnNode, waitUntil } from '../lib/proc.js';
import type { Budget } from '../lib/report.js';
import { createThrowawayDatabase } from '../../packages/reference/src/testing/test-db.js';
import { seedCapturedPayments } from '../../packages/reference/src/testing/seed-payments.js';

export interface SectionContext {
  root: string;
  adminUrl: string;
  log: (line: string) => void;
}

export interface SectionResult {
  rows: { section: string; name: string; [k: string]: unknown }[];
  budgets: Budget[];
}

const PARTNER = { id: 'pk_test_bench_settle', secret: 'ps_test_bench_settle_secret_0123456789' };
const SIZES = [10_000, 100_000] as const;

const p99 = (xs: number[]) => {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(s.length * 0.99) - 1)]!;
};

export async function runSettlementsSection(ctx: SectionContext): Promise<SectionResult> {
  const db = await createThrowawayDatabase(ctx.adminUrl, 'paygate_bench_settle');
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'paygate-bench-settle-'));
  const port = await freePort();
  const child = spawnNode({
    args: gatewayCommand(ctx.root),
    cwd: ctx.root,
    port,
    env: { ...gatewayEnv({ partner: PARTNER, dataDir, databaseUrl: db.url, logLevel: 'warn' }), PAYGATE_REQUEST_TIMEOUT_MS: '600000' },
  });
  const base = child.url;
  const headers = (merchantId?: string) => ({
    'X-Client-ID': PARTNER.id,
    'X-Client-Secret': PARTNER.secret,
    'Content-Type': 'application/json',
    ...(merchantId ? { 'X-Merchant-ID': merchantId } : {}),
  });
  const call = async (method: string, p: string, body?: unknown, merchantId?: string) => {
    const t0 = performance.now();
    const res = await fetch(`${base}${p}`, {
      method,
      headers: headers(merchantId),
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const json = (await res.json()) as { data?: Record<string, unknown> };
    if (!res.ok) throw new Error(`${method} ${p} -> ${res.status} ${JSON.stringify(json)}`);
    return { ms: performance.now() - t0, data: json.data ?? {} };
  };
  const client = new pg.Client({ connectionString: db.url });
  try {
    await waitUntil(child, httpOk(`${base}/healthz`), performance.now(), 60_000, 50);
    await client.connect();
    const rows: SectionResult['rows'] = [];
    const runs: {
      size: number;
      wallMs: number;
      rssGrowthMiB: number;
      healthP99: number;
      paymentP99: number;
      idlePaymentP99: number;
      refundMs: number;
      noopMs: number[];
    }[] = [];
    let serial = 1;
    for (const size of SIZES) {
      const merchantId = String((await call('POST', '/partners/merchants/', createMerchantBody())).data['id']);
      await call('POST', `/sandbox/merchants/${merchantId}/kyc`, { status: 'APPROVED' });
      const t0 = performance.now();
      await seedCapturedPayments(db.url, merchantId, size, serial);
      const probePayment = `PR9${String(serial + Math.floor(size / 2)).padStart(12, '0')}`;
      const refundPayment = `PR9${String(serial + size - 1).padStart(12, '0')}`;
      serial += size;
      await client.query('CHECKPOINT');
      ctx.log(`  seeded ${size} captured payments through SQL in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

      // probes: /healthz and GET payment back to back, first 2 s with no run (the machine's own p99 now), then while
      // the run goes on, with a refund 300 ms in
      let running = true;
      const probe = async (p: string, into: number[]) => {
        while (running) into.push((await call('GET', p, undefined, merchantId)).ms);
      };
      const idle: number[] = [];
      const idleProbe = probe(`/pg/payments/${probePayment}/`, idle);
      await new Promise((r) => setTimeout(r, 2000));
      running = false;
      await idleProbe;
      running = true;
      const rssBefore = rssMiB(child.pid) ?? 0;
      const rss = new RssSampler(child.pid, 50);
      const health: number[] = [];
      const payment: number[] = [];
      const probes = [probe('/healthz', health), probe(`/pg/payments/${probePayment}/`, payment)];
      const refund = (async () => {
        await new Promise((r) => setTimeout(r, 300));
        return (await call('POST', '/pg/refunds', { payment_id: refundPayment, refund_amount: '1.00' }, merchantId)).ms;
      })();
      const run = await call('POST', '/sandbox/settlements/run', { merchant_id: merchantId }, merchantId);
      running = false;
      await Promise.all(probes);
      const refundMs = await refund;
      const peak = rss.stop().peak ?? rssBefore;
      const { rows: check } = await client.query<{ n: string; gross: string; expected: string; settlements: string }>(
        `SELECT (SELECT count(*) FROM settlement_transactions t JOIN settlements s ON s.id = t.settlement_id
                 WHERE s.merchant_id = $1 AND t.settlement_type = 'capture') AS n,
                (SELECT coalesce(sum(gross_minor), 0) FROM settlements WHERE merchant_id = $1) AS gross,
                (SELECT sum(amount_minor) FROM payments WHERE merchant_id = $1) AS expected,
                (SELECT count(*) FROM settlements WHERE merchant_id = $1 AND status = 'completed') AS settlements`,
        [merchantId],
      );
      const c = check[0]!;
      if (Number(c.n) !== size || c.gross !== c.expected) throw new Error(`settlement of ${size} payments is wrong: ${JSON.stringify(c)}`);
      const noopMs: number[] = [];
      for (let i = 0; i < 5; i++) {
        const noop = await call('POST', '/sandbox/settlements/run', { merchant_id: merchantId }, merchantId);
        if ((noop.data['settlements'] as unknown[]).length !== 0) throw new Error('a second run settled something');
        noopMs.push(noop.ms);
      }
      const r = {
        size,
        wallMs: run.ms,
        rssGrowthMiB: peak - rssBefore,
        healthP99: p99(health),
        paymentP99: p99(payment),
        idlePaymentP99: p99(idle),
        refundMs,
        noopMs,
      };
      runs.push(r);
      ctx.log(
        `  ${size} payments: run ${(r.wallMs / 1000).toFixed(2)} s (${c.settlements} settlement, ${c.n} lines, totals exact), RSS +${r.rssGrowthMiB.toFixed(0)} MiB ` +
          `(peak ${peak.toFixed(0)}), during the run /healthz p99 ${r.healthP99.toFixed(1)} ms (${health.length}), GET payment p99 ${r.paymentP99.toFixed(1)} ms ` +
          `(${payment.length}; ${r.idlePaymentP99.toFixed(1)} ms with no run just before), refund ${refundMs.toFixed(0)} ms; no-op runs ${noopMs.map((x) => x.toFixed(1)).join(', ')} ms`,
      );
      rows.push({ section: 'settlements', name: `settlement run, ${size} captured payments`, p99: r.paymentP99, rssPeakMiB: peak, ...r });
    }
    const [small, big] = runs as [(typeof runs)[number], (typeof runs)[number]];
    const growth = big.wallMs / small.wallMs;
    const noop = big.noopMs[0]!;
    const budgets: Budget[] = [
      {
        name: 'Settlement run wall time, 100k / 10k payments',
        target: '<= 12x',
        value: `${growth.toFixed(2)}x (${(small.wallMs / 1000).toFixed(2)} s -> ${(big.wallMs / 1000).toFixed(2)} s)`,
        met: growth <= 12,
      },
      {
        name: 'Settlement run peak RSS growth, 100k payments',
        target: '< 100 MB',
        value: `${big.rssGrowthMiB.toFixed(0)} MiB (10k: ${small.rssGrowthMiB.toFixed(0)} MiB)`,
        met: big.rssGrowthMiB * 1.048576 < 100,
      },
      {
        name: '/healthz p99 during the 100k settlement run',
        target: '< 100 ms',
        value: `${big.healthP99.toFixed(1)} ms`,
        met: big.healthP99 < 100,
      },
      {
        name: 'GET payment p99 during the 100k settlement run',
        target: '< 100 ms',
        value: `${big.paymentP99.toFixed(1)} ms (no run, just before: ${big.idlePaymentP99.toFixed(1)} ms; load average ${os.loadavg()[0]!.toFixed(1)})`,
        met: big.paymentP99 < 100,
      },
      {
        name: 'Refund created during the 100k settlement run',
        target: '< 1 s',
        value: `${big.refundMs.toFixed(0)} ms`,
        met: big.refundMs < 1000,
      },
      {
        name: 'Settlement run with nothing due, 100k payments (first after the run)',
        target: '< 50 ms',
        value: `${noop.toFixed(1)} ms (next four: ${big.noopMs
          .slice(1)
          .map((x) => x.toFixed(1))
          .join(', ')})`,
        met: noop < 50,
      },
    ];
    return { rows, budgets };
  } finally {
    await client.end().catch(() => undefined);
    await child.stop();
    await db.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
