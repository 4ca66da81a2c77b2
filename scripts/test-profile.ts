/**
 * `npm run test:profile [-- <vitest args>]`: runs vitest with its JSON reporter and prints every test file's wall time
 * (from its first test's start to its end, as vitest reports it), its test count and the slowest tests, slowest first,
 * plus the run's wall time and the CPU time of vitest and everything it started. Use it on a quiet machine to see where
 * `npm test` spends its time (D138 test fixtures made once per run); pass file filters to profile a part, e.g. `npm run test:profile -- test/faults`.
 * `npm run test:profile -- --from <report.json>` prints an earlier report (the JSON is kept in node_modules/.cache).
 * `--write-durations` (on a whole-suite run, or with `--from`) records each file's wall time in
 * test/support/file-durations.json, the order a fresh clone starts files in (test/support/sequencer.ts). Each file's
 * CPU, its children's included, is printed too (test/support/cpu-per-file.ts).
 *
 * Wall times of files overlap (vitest runs files in parallel workers), so they do not add up to the run's wall time.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
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

const writeDurations = process.argv.includes('--write-durations');
const args = process.argv.slice(2).filter((a) => a !== '--write-durations');
const fromIndex = args.indexOf('--from');
let reportFile: string;
let runWallMs: number | undefined;
let cpuSeconds: number | undefined;
/** One JSON line per test file: its worker's CPU and its children's (test/support/cpu-per-file.ts). */
let cpuLogFile: string | undefined;
if (fromIndex >= 0) {
  reportFile = args[fromIndex + 1] ?? '';
  if (!reportFile) throw new Error('--from needs a report file');
  if (existsSync(reportFile.replace(/\.json$/, '.cpu.jsonl'))) cpuLogFile = reportFile.replace(/\.json$/, '.cpu.jsonl');
} else {
  const dir = path.resolve('node_modules/.cache/paygate-test-profile');
  mkdirSync(dir, { recursive: true });
  reportFile = path.join(dir, `report-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  cpuLogFile = reportFile.replace(/\.json$/, '.cpu.jsonl');
  const started = performance.now();
  // the default reporter too, so failures are readable; the JSON report goes to a file; each file's CPU to another
  const res = spawnSync('npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${reportFile}`, ...args], {
    stdio: 'inherit',
    env: { ...process.env, PAYGATE_TEST_CPU_LOG: cpuLogFile },
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
if (cpuLogFile !== undefined && existsSync(cpuLogFile)) {
  const perFile = readFileSync(cpuLogFile, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { file: string; self: number; children: number })
    .map((c) => ({ ...c, file: c.file.startsWith(root) ? c.file.slice(root.length) : c.file, total: c.self + c.children }))
    .sort((a, b) => b.total - a.total);
  const fileCpu = perFile.reduce((sum, c) => sum + c.total, 0);
  console.log(`\nPer-file CPU (user + system of the file's worker and the processes it started), the 40 largest of ${perFile.length}:`);
  console.log(`${'total'.padStart(9)} ${'worker'.padStart(9)} ${'children'.padStart(9)}  file`);
  for (const c of perFile.slice(0, 40))
    console.log(`${c.total.toFixed(1).padStart(7)} s ${c.self.toFixed(1).padStart(7)} s ${c.children.toFixed(1).padStart(7)} s  ${c.file}`);
  console.log(
    `Sum over files: ${fileCpu.toFixed(1)} CPU-s${cpuSeconds !== undefined ? `; vitest's own process (transforms, reporting) and global setup: ${(cpuSeconds - fileCpu).toFixed(1)} CPU-s` : ''}`,
  );
}
if (writeDurations) {
  // the order a fresh clone runs files in (test/support/sequencer.ts): files of a second or more, to the tenth
  const durations = Object.fromEntries(
    files
      .filter((f) => f.ms >= 1000)
      .sort((a, b) => b.ms - a.ms || a.file.localeCompare(b.file))
      .map((f) => [f.file, Math.round(f.ms / 100) / 10]),
  );
  writeFileSync('test/support/file-durations.json', `${JSON.stringify(durations, null, 2)}\n`);
  console.log(`\nwrote test/support/file-durations.json (${Object.keys(durations).length} files of a second or more)`);
}
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
