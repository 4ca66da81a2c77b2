/**
 * Drain that always drains (D360 drain reaches workers still starting): `paygate serve --workers 2` on PostgreSQL, one worker killed with kill -9 and the
 * supervisor sent SIGTERM right after, while the replacement worker is starting. The replacement must not serve
 * traffic after the drain began (it is stopped before it listens, or drains as soon as it does), every worker stops
 * within the bound (no SIGKILL) and the supervisor exits 0.
 * Registered only when PAYGATE_TEST_DATABASE_URL is set.
 */
import { get } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep, waitFor } from './helpers/api.js';
import {
  adminDatabaseUrl,
  createTestDatabase,
  ensureBuilt,
  killAllGateways,
  partnerCredentials,
  reportNotRun,
  spawnGateway,
  type GatewayProcess,
  type TestDatabase,
} from './helpers/processes.js';

interface LogLine {
  pid?: number;
  worker_pid?: number;
  worker_pids?: number[];
  msg?: string;
  slot?: number;
  route?: string;
}

function logLines(g: GatewayProcess): LogLine[] {
  const lines: LogLine[] = [];
  for (const line of g.output) {
    if (!line.startsWith('{')) continue;
    try {
      lines.push(JSON.parse(line) as LogLine);
    } catch {
      /* a line cut by the buffer */
    }
  }
  return lines;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** GET on a connection of its own, so the supervisor hands each request to the next worker; resolves the status or 0. */
function probe(url: string): Promise<number> {
  return new Promise((resolve) => {
    const req = get(url, { agent: false, headers: { Connection: 'close' }, timeout: 5_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', () => resolve(0));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve(0));
  });
}

const adminUrl = adminDatabaseUrl();
if (!adminUrl) {
  reportNotRun('test/faults/drain-during-restart.test.ts (SIGTERM while a worker restarts)');
} else {
  describe('paygate serve --workers 2: SIGTERM while a worker is restarting', () => {
    let db: TestDatabase | undefined;
    const pids = new Set<number>();

    beforeAll(async () => {
      await ensureBuilt();
      db = await createTestDatabase(adminUrl, 'paygate_drain');
    }, 300_000);

    afterAll(async () => {
      await killAllGateways();
      for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGKILL');
      await db?.drop();
    });

    it('stops the starting worker (or drains it at once), answers nothing new from it, and exits 0', async () => {
      if (!db) throw new Error('setup failed');
      const gw = await spawnGateway({
        name: 'gateway-drain-restart',
        databaseUrl: db.url,
        partner: partnerCredentials(),
        args: ['--workers', '2'],
        readyTimeoutMs: 60_000,
      });
      const first = await waitFor(
        'both workers serving',
        () => logLines(gw).find((l) => l.msg === 'supervisor: every worker is serving')?.worker_pids,
        { timeoutMs: 60_000, describeLast: () => gw.output.slice(-10).join('\n') },
      );
      for (const pid of first) pids.add(pid);
      const [victim, survivor] = first as [number, number];

      // requests on fresh connections all along, each with the time it was sent
      const answered: { sentAt: number; status: number }[] = [];
      let loading = true;
      const load = Promise.all(
        Array.from({ length: 3 }, async () => {
          while (loading) {
            const sentAt = Date.now();
            const status = await probe(`${gw.baseUrl}/healthz`);
            if (status !== 0) answered.push({ sentAt, status });
            else await sleep(20); // refused (nothing listens any more) or reset
          }
        }),
      );
      await waitFor('requests answered before the kill', () => (answered.length >= 10 ? true : undefined), {
        timeoutMs: 20_000,
        intervalMs: 10,
      });

      process.kill(victim, 'SIGKILL');
      const died = await waitFor(
        'the supervisor to notice the death',
        () => logLines(gw).find((l) => l.msg === 'supervisor: worker died; restarting it' && l.worker_pid === victim),
        { timeoutMs: 10_000, intervalMs: 5 },
      );
      // past the first restart's backoff (200 ms): the replacement is forked and starting (a start takes seconds)
      await sleep(350);
      expect(logLines(gw).some((l) => l.msg === 'supervisor: worker is serving' && l.slot === died.slot)).toBe(false);
      const sigtermAt = Date.now();
      gw.proc.kill('SIGTERM');
      const code = await gw.exited;
      loading = false;
      await load;

      const output = gw.output.join('\n');
      expect(code, output.slice(-3000)).toBe(0);
      expect(output).not.toContain('did not stop in time');
      expect(output).toContain('supervisor: draining the workers');
      const stopped = logLines(gw)
        .filter((l) => l.msg === 'supervisor: worker stopped')
        .map((l) => l.worker_pid as number);
      expect(stopped).toHaveLength(2);
      expect(stopped).toContain(survivor);
      const replacement = stopped.find((pid) => pid !== survivor) as number;
      pids.add(replacement);
      expect(first).not.toContain(replacement);
      // the replacement served nothing: it was stopped before listening, or drained the moment it listened
      expect(logLines(gw).filter((l) => l.msg === 'request' && l.pid === replacement)).toEqual([]);
      for (const pid of pids) expect(alive(pid), `worker ${pid} has exited`).toBe(false);
      const late = answered.filter((a) => a.sentAt > sigtermAt);
      console.info(
        `drain-during-restart: ${answered.length} requests answered, ${late.length} of them sent after SIGTERM (before the survivor closed its listener); exit ${code}`,
      );
    }, 180_000);
  });
}
