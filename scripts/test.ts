/**
 * `npm test`: the prechecks (spec lint, generated files up to date, compatibility gate, type check) and `vitest run`,
 * started together (D139 test workers and parallel prechecks). Why: the prechecks are over a minute of CPU (docs/benchmarks.md#test-prechecks) that ran one after the other on one core before vitest
 * started, while the second core idled; here they run as one lane beside the test workers, which wait on child
 * processes (tsc, gateways, Chromium, PostgreSQL) often enough to leave room. Each precheck's output is kept and
 * printed when it ends (in full when it failed), so it does not interleave with vitest's; the exit status is non-zero
 * when any of them or vitest failed. Arguments go to vitest (e.g. `npm test -- test/faults`).
 */
import { spawn, spawnSync } from 'node:child_process';

const PRECHECKS = ['lint:spec', 'generate:check', 'compat', 'typecheck'];
/** `nice` where there is one (Linux, macOS); elsewhere the prechecks run at the same priority as vitest. */
const NICE = process.platform !== 'win32' && spawnSync('nice', ['true']).status === 0;

interface Outcome {
  name: string;
  ok: boolean;
  seconds: number;
  output: string;
}

function run(command: string, args: string[], capture: boolean): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: capture ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    const chunks: Buffer[] = [];
    child.stdout?.on('data', (c: Buffer) => chunks.push(c));
    child.stderr?.on('data', (c: Buffer) => chunks.push(c));
    child.on('error', (err) => chunks.push(Buffer.from(String(err))));
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output: Buffer.concat(chunks).toString('utf8') }));
  });
}

async function prechecks(): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (const name of PRECHECKS) {
    const started = performance.now();
    // At a lower priority than the test workers (D139 test workers and parallel prechecks): the machine is CPU-bound
    // for the whole run, and the long test files start first, so a precheck competing with them at full priority
    // stretched the files the run waits for (the real-world and hostile files ran some 1.8x their own wall time in a
    // fresh clone's run); niced, the prechecks take what the workers leave and still end well before vitest.
    const { code, output } = await run(NICE ? 'nice' : 'npm', [...(NICE ? ['-n', '5', 'npm'] : []), 'run', '-s', name], true);
    const outcome = { name, ok: code === 0, seconds: (performance.now() - started) / 1000, output };
    outcomes.push(outcome);
    process.stdout.write(`\n[npm test] precheck ${name}: ${outcome.ok ? 'ok' : 'FAILED'} (${outcome.seconds.toFixed(1)} s)\n`);
    if (!outcome.ok) process.stdout.write(`${output}\n`);
  }
  return outcomes;
}

const started = performance.now();
const [checks, vitest] = await Promise.all([prechecks(), run('npx', ['vitest', 'run', ...process.argv.slice(2)], false)]);
const failed = checks.filter((c) => !c.ok);
for (const c of failed) process.stdout.write(`\n[npm test] ===== precheck ${c.name} FAILED; its output: =====\n${c.output}\n`);
process.stdout.write(
  `\n[npm test] prechecks: ${checks.map((c) => `${c.name} ${c.ok ? 'ok' : 'FAILED'}`).join(', ')}; vitest: ${vitest.code === 0 ? 'ok' : `FAILED (exit ${vitest.code})`}; ${((performance.now() - started) / 1000).toFixed(0)} s in all\n`,
);
process.exitCode = failed.length > 0 || vitest.code !== 0 ? 1 : 0;
