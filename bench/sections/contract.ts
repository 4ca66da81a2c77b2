/**
 * BENCH_ONLY=contract: `paygate contract --spec` on Paygate's spec against a local gateway (the real `paygate serve`,
 * production mode, PGlite), with a partner and a merchant credential (D270 stateful contract checker). Figures: operations checked per second and
 * requests per second of a full run; beside it, in the same run, the same requests replayed one after another with a
 * bare fetch against the same gateway (no planning, sampling, learning or validation): the checker's own cost is the
 * ratio. Schemathesis, the tool issue 32 compares against, cannot be installed here (no Python package index on this
 * machine), so no figure of it is claimed: the ratio to the raw HTTP work is what can be measured. About 1 min.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { apiDocument } from '@paygate/contract';
import { checkApi } from '../../packages/contract-tests/src/spec-check/index.js';
import { BENCH_PARTNER, benchPost, gatewayCommand, gatewayEnv } from '../lib/gateway.js';
import { createMerchantBody } from '../lib/fixtures.js';
import { freePort, httpOk, spawnNode, waitUntil } from '../lib/proc.js';
import type { Budget } from '../lib/report.js';
import type { SectionContext, SectionResult } from './settlements.js';

export async function runContractSection(ctx: SectionContext): Promise<SectionResult> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'paygate-bench-contract-'));
  const port = await freePort();
  const gateway = spawnNode({
    args: gatewayCommand(ctx.root),
    cwd: ctx.root,
    port,
    env: { ...gatewayEnv({ partner: BENCH_PARTNER, dataDir, logLevel: 'warn' }), HOST: '127.0.0.1' },
  });
  try {
    await waitUntil(gateway, httpOk(`${gateway.url}/sdk/checkout.js`), performance.now(), 60_000, 50);
    const merchant = await benchPost(gateway.url, '/partners/merchants/', createMerchantBody());
    await benchPost(gateway.url, `/sandbox/merchants/${String(merchant['id'])}/kyc`, { status: 'APPROVED' });
    const creds = await benchPost(gateway.url, `/partners/merchants/${String(merchant['id'])}/credentials`, {});
    const recorded: [string, RequestInit][] = [];
    const recording: typeof fetch = (input, init) => {
      const { signal: _signal, ...rest } = init ?? {};
      recorded.push([String(input), rest]);
      return fetch(input, init);
    };
    ctx.log('contract: paygate contract --spec openapi/openapi.yaml, partner and merchant credentials, every check');
    let waited = 0;
    const started = performance.now();
    const report = await checkApi({
      // waits for what the gateway does on its own time (webhook deliveries by its worker), counted apart
      sleep: async (ms) => {
        waited += ms;
        await new Promise((resolve) => setTimeout(resolve, ms));
      },
      document: apiDocument as unknown as Record<string, unknown>,
      baseUrl: gateway.url,
      credentials: [
        { name: 'partner', auth: { ClientId: BENCH_PARTNER.id, ClientSecret: BENCH_PARTNER.secret } },
        { name: 'merchant', auth: { ClientId: String(creds['client_id']), ClientSecret: String(creds['client_secret']) } },
      ],
      tenants: ['merchant'],
      fetch: recording,
    });
    const seconds = (performance.now() - started) / 1000;
    const operations = report.coverage.length;
    ctx.log(
      `  ${operations} operations (${report.coverage.filter((c) => c.outcome === 'passed').length} with a 2xx), ${report.cases.length} requests, ${report.failures.length} failures in ${seconds.toFixed(1)} s (${(waited / 1000).toFixed(1)} s of it waiting for the gateway's worker): ${(operations / seconds).toFixed(2)} operations/s, ${(report.cases.length / seconds).toFixed(0)} requests/s`,
    );
    const unreached = report.coverage
      .filter((c) => c.outcome !== 'passed')
      .map(
        (c) =>
          `${c.operationId} (${c.outcome}: ${report.cases
            .filter((k) => k.operationId === c.operationId && k.check === 'positive')
            .map((k) => `${k.status} ${k.request}`)
            .join('; ')})`,
      );
    if (unreached.length > 0) ctx.log(`  without a 2xx: ${unreached.join(', ')}`);
    // the same requests, bare: what the HTTP work alone costs on this gateway
    const replayStarted = performance.now();
    for (const [url, init] of recorded) await (await fetch(url, init)).arrayBuffer();
    const replaySeconds = (performance.now() - replayStarted) / 1000;
    const ratio = seconds / replaySeconds;
    ctx.log(
      `  the same ${recorded.length} requests replayed with a bare fetch: ${replaySeconds.toFixed(1)} s; the checker takes ${ratio.toFixed(2)}x that`,
    );
    const budgets: Budget[] = [
      {
        name: 'paygate contract --spec: the whole run against the raw HTTP work of the same requests (lower is better)',
        target: '<= 2x',
        value: `${ratio.toFixed(2)}x (${(operations / seconds).toFixed(2)} operations/s, ${(report.cases.length / seconds).toFixed(0)} requests/s)`,
        met: ratio <= 2,
      },
      {
        name: 'paygate contract --spec against Schemathesis on the same work',
        target: 'faster',
        value: 'not measured: Schemathesis cannot be installed here (no Python package index); see the row above for the checker own cost',
        met: null,
      },
    ];
    return {
      rows: [
        {
          section: 'contract',
          name: 'paygate contract --spec (Paygate spec, local gateway)',
          operations,
          requests: report.cases.length,
          seconds,
          operationsPerSecond: operations / seconds,
          requestsPerSecond: report.cases.length / seconds,
          failures: report.failures.length,
        },
        {
          section: 'contract',
          name: 'bare fetch replay of the same requests',
          requests: recorded.length,
          seconds: replaySeconds,
          baseline: 'for the row above',
          ratio,
        },
      ],
      budgets,
    };
  } finally {
    await gateway.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
