/**
 * What unnamed statements cost (D350: behind a transaction pooler the gateway prepares nothing under a name) against
 * the named ones of D86 (kept directly on PostgreSQL): the GET order read (ORDER_READ_SQL.merchant, the hottest statement) sent N times on
 * one connection, named (parsed once, then Bind/Execute) and unnamed (Parse/Bind/Execute every time), in alternating
 * rounds so the drift of a shared machine hits both alike. Reports, per read, the PostgreSQL backend's CPU (utime +
 * stime of its process from /proc, so PostgreSQL must run on this machine) and the client's wall time.
 *
 * Usage: PAYGATE_TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx --conditions=source bench/tools/named-statements-ab.ts [reads per round, default 5000] [rounds, default 6]
 */
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { ManualClock } from '../../packages/reference/src/core/clock.js';
import { openDb } from '../../packages/reference/src/db/open.js';
import { ORDER_READ_SQL } from '../../packages/reference/src/orders/service.js';
import { approvedMerchant, paidOrder, testDeps } from '../../packages/reference/src/testing/fixtures.js';
import { createMigratedDatabase } from '../../packages/reference/src/testing/test-db.js';

const adminUrl = process.env['PAYGATE_TEST_DATABASE_URL'];
if (!adminUrl) throw new Error('set PAYGATE_TEST_DATABASE_URL');
const reads = Number(process.argv[2] ?? 5000);
const rounds = Number(process.argv[3] ?? 6);
const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** CPU seconds (user + system) of a process so far. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND; // utime, stime (fields 14 and 15)
}

const database = await createMigratedDatabase(adminUrl, 'paygate_bench_named');
try {
  const db = await openDb({ databaseUrl: database.directUrl });
  const deps = testDeps(db, new ManualClock('2026-11-21T10:00:00Z'));
  const { merchantId } = await approvedMerchant(deps, { partnerId: 'bench-named' });
  await paidOrder(deps, merchantId); // an order with a payment: the read joins it, as most GET order reads do
  const orderId = (await db.query<{ order_id: string }>('SELECT order_id FROM payments LIMIT 1')).rows[0]!.order_id;
  await db.close();
  const sql = ORDER_READ_SQL.merchant;
  const client = new pg.Client({ connectionString: database.directUrl });
  await client.connect();
  const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
  const check = await client.query(sql, [orderId, merchantId]);
  if (check.rows.length !== 1) throw new Error('the order read found no order');
  const totals = { named: { cpu: 0, wall: 0 }, unnamed: { cpu: 0, wall: 0 } };
  for (let round = 0; round < rounds; round++) {
    for (const kind of round % 2 === 0 ? (['named', 'unnamed'] as const) : (['unnamed', 'named'] as const)) {
      const cpu0 = cpuSeconds(pid);
      const t0 = performance.now();
      for (let i = 0; i < reads; i++) {
        await client.query(
          kind === 'named'
            ? { name: 'order_read', text: sql, values: [orderId, merchantId] }
            : { text: sql, values: [orderId, merchantId] },
        );
      }
      totals[kind].wall += (performance.now() - t0) / 1000;
      totals[kind].cpu += cpuSeconds(pid) - cpu0;
    }
  }
  await client.end();
  const n = reads * rounds;
  const us = (s: number) => ((s / n) * 1e6).toFixed(1);
  console.log(`GET order read, ${n} reads each, one connection, ${rounds} alternating rounds`);
  console.log(`named   (D86):  PostgreSQL CPU ${us(totals.named.cpu)} us/read, client wall ${us(totals.named.wall)} us/read`);
  console.log(`unnamed (D350): PostgreSQL CPU ${us(totals.unnamed.cpu)} us/read, client wall ${us(totals.unnamed.wall)} us/read`);
  console.log(
    `unnamed / named: CPU ${(totals.unnamed.cpu / totals.named.cpu).toFixed(2)}x, wall ${(totals.unnamed.wall / totals.named.wall).toFixed(2)}x`,
  );
} finally {
  await database.drop();
}
