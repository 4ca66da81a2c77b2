/**
 * `npm run test:pooler`: the PostgreSQL integration and fault tests that matter behind a pooler, run once more with
 * every database they create reached through a real PgBouncer in transaction mode (D353 tests through a real PgBouncer). The vitest global setup
 * starts PgBouncer (PAYGATE_TEST_THROUGH_PGBOUNCER=1) and `createThrowawayDatabase` hands out its URL; the gateways
 * these tests spawn get that URL as DATABASE_URL and no DATABASE_DIRECT_URL, so they run on polling (D352 notifications through a pooler: direct or polling). Only the
 * PostgreSQL target runs (`testTargets()`, `gatewayTargets()`): the PGlite half ran in `npm test`.
 * `test/faults/pooler.test.ts` (part of `npm test`) covers the direct-URL side. .ci/run calls this after `npm test`.
 * Needs PAYGATE_TEST_DATABASE_URL and pgbouncer (apt-get install -y pgbouncer). Arguments go to vitest.
 */
import { spawn } from 'node:child_process';

/**
 * Why each is here: what broke behind PgBouncer before (issue 33) or what a pooler could break. Not here:
 * test/faults/webhook-retries.test.ts asserts retry gaps in wall-clock time, which a loaded run through the pooler
 * (deliveries woken by the 100 ms poll instead of NOTIFY) made miss once in two runs here; its deliveries are the same
 * code as multi-process.test.ts's.
 */
const FILES = [
  // the adapter itself, and a check that this run's databases really are behind PgBouncer
  'packages/reference/src/db/postgres-pooler.test.ts',
  // two processes, one webhook queue: named statements collided across processes; NOTIFY wake-ups were lost
  'test/faults/multi-process.test.ts',
  // a credential change honoured by the other process within 2 s: here by polling, not NOTIFY
  'test/faults/credential-cache.test.ts',
  // exactly-once Idempotency-Key under faults: transaction-scoped advisory locks through the pooler
  'test/faults/idempotency.test.ts',
  // row-lock races between processes (captures, refunds, settlements)
  'test/faults/races.test.ts',
  // kill -9 mid-write: nothing acknowledged lost when the pooler holds the server connections
  'test/faults/crash.test.ts',
  // paygate serve --workers N (several pools in one deployment), drain on SIGTERM
  'test/faults/cluster.test.ts',
  'test/faults/shutdown.test.ts',
  // a settlement run killed mid-way, resumed by another process
  'test/faults/settlement-crash.test.ts',
  // backends terminated under load (pg_terminate_backend): through the pooler, its server connections die instead
  'test/faults/db-connection-loss.test.ts',
  // checkout completion for every method on PostgreSQL
  'packages/reference/src/checkout/methods.test.ts',
  // credential rotation on PostgreSQL
  'packages/reference/src/credentials/rotation.test.ts',
  // the contract suite's flows (checkout, refunds, settlements, webhooks end to end), every declared status, and the
  // authentication rules, on a gateway whose database is behind the pooler (its coverage table is checked by npm test)
  'test/contract/flows.test.ts',
  'test/contract/statuses.test.ts',
  'test/contract/auth.test.ts',
];

if (!process.env['PAYGATE_TEST_DATABASE_URL']) {
  console.error('npm run test:pooler needs PAYGATE_TEST_DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/postgres)');
  process.exit(2);
}
console.info(`[test:pooler] ${FILES.length} test files through PgBouncer (transaction mode)`);
const child = spawn('npx', ['vitest', 'run', ...FILES, ...process.argv.slice(2)], {
  stdio: 'inherit',
  // a subset of the contract suite: its operation x status coverage is complete only over all of its files
  env: { ...process.env, PAYGATE_TEST_THROUGH_PGBOUNCER: '1', PAYGATE_CONTRACT_PARTIAL: '1' },
});
child.on('close', (code, signal) => {
  if (signal) console.error(`[test:pooler] vitest was ended by ${signal} before it finished: run npm run test:pooler again`);
  process.exitCode = code ?? (signal ? 1 : 0);
});
