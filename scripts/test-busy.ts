/**
 * `npm run test:busy [-- --hogs N --runs N]`: `npm test` on a busy machine, as a maintainer's laptop running a build
 * beside it would be (issue 35: no test may depend on the machine being idle). Starts N CPU hogs (default 2, one per
 * core here: each a `yes > /dev/null`), runs `npm test` R times in a row (default 2), prints each run's wall time and
 * outcome, and stops the hogs however the runs end. Exit status non-zero when any run failed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync } from 'node:fs';
import { loadavg } from 'node:os';

function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const value = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isInteger(value) || value < 0) throw new Error(`--${name} takes a whole number (got ${process.argv[i + 1]})`);
  return value;
}

const hogCount = option('hogs', 2);
const runs = option('runs', 2);
const devNull = openSync('/dev/null', 'w');
const hogs: ChildProcess[] = Array.from({ length: hogCount }, () => spawn('yes', [], { stdio: ['ignore', devNull, 'ignore'] }));
const stopHogs = () => {
  for (const hog of hogs) hog.kill('SIGKILL');
};
process.on('exit', stopHogs);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130));

function npmTest(): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn('npm', ['test'], { stdio: 'inherit' });
    child.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

console.log(`[test:busy] ${hogCount} CPU hog(s) running (yes > /dev/null); npm test ${runs} time(s) in a row`);
const outcomes: string[] = [];
let failed = false;
for (let run = 1; run <= runs; run++) {
  const started = performance.now();
  const code = await npmTest();
  const seconds = (performance.now() - started) / 1000;
  const load = loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
  outcomes.push(`run ${run}: ${code === 0 ? 'passed' : `FAILED (exit ${code})`} in ${seconds.toFixed(0)} s (load average ${load})`);
  console.log(`\n[test:busy] ${outcomes.at(-1)}`);
  if (code !== 0) failed = true;
}
stopHogs();
console.log(`\n[test:busy] ${hogCount} hog(s): ${outcomes.join('; ')}`);
process.exitCode = failed ? 1 : 0;
