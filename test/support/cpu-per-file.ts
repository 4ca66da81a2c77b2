/**
 * Per test file CPU (`npm run test:profile` sets PAYGATE_TEST_CPU_LOG): after a file's tests, the CPU its worker
 * process used and the CPU of every child it started and waited for (tsc, npm, gateways, Chromium), appended to the
 * log as one JSON line. Why /proc: `process.resourceUsage()` counts this process alone, while most of a test file's
 * CPU is in the processes it starts; the kernel adds a reaped child's CPU (and its own reaped children's) to the
 * parent's `cutime`/`cstime`. Vitest runs each file in a worker process of its own (`pool: 'forks'`, isolated), so the
 * worker's totals at the end are the file's. Linux only; elsewhere nothing is written.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { afterAll, expect } from 'vitest';

const log = process.env['PAYGATE_TEST_CPU_LOG'];

/** utime, stime, cutime, cstime of this process in seconds, from /proc/self/stat (USER_HZ ticks, 100 on Linux). */
function cpuSeconds(): { self: number; children: number } | undefined {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    // the command name (field 2) is in parentheses and may hold spaces: count fields after its closing one
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = (i: number) => Number(fields[i - 3]);
    return { self: (ticks(14) + ticks(15)) / 100, children: (ticks(16) + ticks(17)) / 100 };
  } catch {
    return undefined;
  }
}

if (log) {
  afterAll(() => {
    const file = expect.getState().testPath;
    const cpu = cpuSeconds();
    if (file && cpu) appendFileSync(log, `${JSON.stringify({ file, pid: process.pid, ...cpu })}\n`);
  });
}
