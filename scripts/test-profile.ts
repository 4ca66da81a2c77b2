/**
 * `npm run test:profile [-- <vitest args>]`: runs vitest with its JSON reporter and prints every test file's wall time
 * (from its first test's start to its end, as vitest reports it), its test count and the slowest tests, slowest first,
 * plus the run's wall time and the CPU time of vitest and everything it started. Use it on a quiet machine to see where
 * `npm test` spends its time (D138 test fixtures made once per run); pass file filters to profile a part, e.g. `npm run test:profile -- test/faults`.
 * `npm run test:profile -- --from <report.json>` prints an earlier report (the JSON is kept in node_modules/.cache).
 *
 * Wall times of files overlap (vitest runs files in parallel workers), so they do not add up to the run's wall time.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

interface AssertionResult {
  fullName: string;
  status: string;
  duration?: number | null;
}
interface FileResult {
  name: string;
  status: string;
  startTime: number;
  endTime: number;
  assertionResults: AssertionResult[];
}
interface JsonReport {
  numTotalTests: number;
  numFailedTests: number;
  startTime: number;
  testResults: FileResult[];
}

const args = process.argv.slice(2);
const fromIndex = args.indexOf('--from');
let reportFile: string;
let runWallMs: number | undefined;
let cpuSeconds: number | undefined;
if (fromIndex >= 0) {
  reportFile = args[fromIndex + 1] ?? '';
  if (!reportFile) throw new Error('--from needs a report file');
} else {
  const dir = path.resolve('node_modules/.cache/paygate-test-profile');
  mkdirSync(dir, { recursive: true });
  reportFile = path.join(dir, `report-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  const started = performance.now();
  // the default reporter too, so failures are readable; the JSON report goes to a file
  const res = spawnSync('npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${reportFile}`, ...args], {
    stdio: 'inherit',
  });
  runWallMs = performance.now() - started;
  // children's CPU (vitest, its workers and what they started and reaped) is counted once vitest has exited
  cpuSeconds = childCpuSeconds();
  if (res.status !== 0) console.error(`\nvitest exited with status ${String(res.status)} (the profile below is still printed)`);
}

const report = JSON.parse(readFileSync(reportFile, 'utf8')) as JsonReport;
const root = process.cwd() + path.sep;
const files = report.testResults
  .map((f) => ({
    file: f.name.startsWith(root) ? f.name.slice(root.length) : f.name,
    ms: Math.max(0, f.endTime - f.startTime),
    tests: f.assertionResults.length,
    status: f.status,
  }))
  .sort((a, b) => b.ms - a.ms);
const tests = report.testResults
  .flatMap((f) =>
    f.assertionResults.map((t) => ({
      file: f.name.startsWith(root) ? f.name.slice(root.length) : f.name,
      name: t.fullName,
      ms: t.duration ?? 0,
    })),
  )
  .sort((a, b) => b.ms - a.ms);

const fmt = (ms: number): string => `${(ms / 1000).toFixed(1).padStart(7)} s`;
const sum = files.reduce((s, f) => s + f.ms, 0);
console.log(`\nPer-file wall time (${files.length} files, ${report.numTotalTests} tests, ${report.numFailedTests} failed), slowest first:`);
for (const f of files)
  console.log(`${fmt(f.ms)}  ${String(f.tests).padStart(4)} tests  ${f.status === 'passed' ? '' : `[${f.status}] `}${f.file}`);
console.log(`\nSum of per-file wall times: ${fmt(sum)} (files overlap across workers)`);
console.log('\nSlowest 25 tests:');
for (const t of tests.slice(0, 25)) console.log(`${fmt(t.ms)}  ${t.file} > ${t.name}`);
if (runWallMs !== undefined) console.log(`\nvitest run wall time: ${fmt(runWallMs)}`);
if (cpuSeconds !== undefined) console.log(`CPU time of vitest and its children (user + system): ${cpuSeconds.toFixed(1)} s`);
console.log(`JSON report: ${reportFile}`);

/** User + system CPU of this process's reaped children (the vitest run), from /proc (Linux) or resourceUsage. */
function childCpuSeconds(): number | undefined {
  try {
    // fields 16 and 17 of /proc/self/stat: cutime and cstime in clock ticks (100 per second on Linux)
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return undefined;
  }
}
