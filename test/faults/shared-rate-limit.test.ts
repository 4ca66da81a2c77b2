/**
 * Two gateway PROCESSES (`paygate serve` spawned twice, one DATABASE_URL, one REDIS_URL) share one rate limit: the
 * 2xx answers across both stay within the limit of one credential, and the rest are 429 with Retry-After. Registered
 * only when PAYGATE_TEST_DATABASE_URL is set (Redis runs beside PostgreSQL on every dev and CI machine).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminDatabaseUrl, createTestDatabase, ensureBuilt, killAllGateways, partnerCredentials, reportNotRun, spawnGateway, type GatewayProcess, type TestDatabase } from './helpers/processes.js';

const adminUrl = adminDatabaseUrl();
const REDIS_URL = process.env['PAYGATE_TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const LIMIT = 20;

if (!adminUrl) {
  reportNotRun('test/faults/shared-rate-limit.test.ts (two processes sharing one limit through Redis)');
} else {
  describe('two gateway processes on one Redis share one rate limit', () => {
    let db: TestDatabase | undefined;
    let a: GatewayProcess;
    let b: GatewayProcess;
    const partner = partnerCredentials();

    beforeAll(async () => {
      await ensureBuilt();
      db = await createTestDatabase(adminUrl);
      // a window longer than the test, so no reset happens in between
      const env = { REDIS_URL, PAYGATE_RATE_LIMIT: String(LIMIT), PAYGATE_RATE_WINDOW_SECONDS: '600' };
      const common = { databaseUrl: db.url, partner, env };
      [a, b] = await Promise.all([spawnGateway({ ...common, name: 'limited-A' }), spawnGateway({ ...common, name: 'limited-B' })]);
    }, 120_000);

    afterAll(async () => {
      await killAllGateways();
      await db?.drop();
    });

    it(`the sum of 2xx across both processes is the limit (${LIMIT}), the rest 429 with Retry-After`, async () => {
      const headers = { 'x-client-id': partner.clientId, 'x-client-secret': partner.clientSecret };
      const answers = await Promise.all(
        Array.from({ length: 3 * LIMIT }, async (_, i) => {
          const res = await fetch(`${(i % 2 === 0 ? a : b).baseUrl}/partners/merchants/`, { headers });
          return { status: res.status, retryAfter: res.headers.get('retry-after'), limit: res.headers.get('ratelimit-limit') };
        }),
      );
      const ok = answers.filter((x) => x.status === 200);
      const refused = answers.filter((x) => x.status === 429);
      expect(ok.length + refused.length).toBe(answers.length);
      expect(ok).toHaveLength(LIMIT);
      expect(refused.every((x) => Number(x.retryAfter) > 0 && x.limit === String(LIMIT))).toBe(true);
      // both processes answered some of the allowed requests: the limit is shared, not per process
      expect(a.output.join('\n')).toMatch(/"route":"\/partners\/merchants\/"[^\n]*"status":200|"status":200[^\n]*"route":"\/partners\/merchants\/"/);
      expect(b.output.join('\n')).toMatch(/"route":"\/partners\/merchants\/"[^\n]*"status":200|"status":200[^\n]*"route":"\/partners\/merchants\/"/);
    });
  });
}
