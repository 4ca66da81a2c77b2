/**
 * Per test file CPU (`npm run test:profile` sets PAYGATE_TEST_CPU_LOG): after a file's tests, the CPU its worker
 * process used and the CPU of every child it started and waited for (tsc, npm, gateways, Chromium), appended to the
 * log as one JSON line. Why /proc: `process.resourceUsage()` counts this process alone, while most of a test file's
 * CPU is in the processes it starts; the kernel adds a reaped child's CPU (and its own reaped children's) to the
 * parent's `cutime`/`cstime`. A worker may run several files one after the other (the unit project shares its
 * processes, D482 shared worker processes for unit tests), so a file's CPU is the difference between the totals before the file is imported and
 * after its last test. Linux only; elsewhere nothing is written.
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
  // taken when this setup file runs, before the test file is imported; the first file of a process also counts the
  // process's start, which it caused
  const seen = globalThis as { paygateCpuBaseline?: boolean };
  const before = seen.paygateCpuBaseline ? cpuSeconds() : { self: 0, children: 0 };
  seen.paygateCpuBaseline = true;
  afterAll(() => {
    const file = expect.getState().testPath;
    const cpu = cpuSeconds();
    if (!file || !cpu || !before) return;
    const used = { self: cpu.self - before.self, children: cpu.children - before.children };
    appendFileSync(log, `${JSON.stringify({ file, pid: process.pid, ...used })}\n`);
  });
}
