/**
 * The README's walkthroughs, pasted as a user would (decision D128): every ```sh readme-test=<session> block of
 * README.md runs as written, in order, in one bash per session, against a gateway this test starts the way the
 * README's readme-gateway block does (`paygate serve` with its partner credentials, here on a free port and a
 * temporary PGlite dir). The README's defaults are a user's (localhost:8080, ports 4000/4001, /tmp); the test
 * overrides them only through the variables the blocks read (PG, MERCHANT_PORT, RECEIVER_PORT, TMPDIR).
 *
 * Each block must exit 0, run no failing command (an ERR trap reports any), and print every `# =>` text it carries.
 * The convention is described in readme-blocks.ts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOnce } from '../support/build.js';
import { parseReadme, printsPattern, type ReadmeBlock } from './readme-blocks.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const runbook = parseReadme(readFileSync(path.join(ROOT, 'README.md'), 'utf8'));
/** Generous for a loaded 2-core machine: a block starts `npx paygate` (a second or two) at most twice. */
const BLOCK_TIMEOUT_MS = 90_000;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => resolve(typeof addr === 'object' && addr !== null ? addr.port : 0));
    });
  });
}

/** The environment of a child: this process's, without anything that would configure the gateway or node oddly. */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(PAYGATE_|DATABASE_URL$|REDIS_URL$|NODE_OPTIONS$|NODE_ENV$|PORT$|HOST$|PG$|MERCHANT_|RECEIVER_PORT$)/.test(key)) continue;
    env[key] = value;
  }
  return { ...env, ...extra };
}

let workDir: string;
let gateway: ChildProcess | undefined;
let gatewayOutput = '';
let baseUrl: string;

beforeAll(async () => {
  await buildOnce();
  workDir = mkdtempSync(path.join(tmpdir(), 'paygate-readme-'));
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  gateway = spawn(process.execPath, ['generators/bin/paygate.js', 'serve'], {
    cwd: ROOT,
    env: cleanEnv({
      ...runbook.gatewayEnv,
      PORT: String(port),
      HOST: '127.0.0.1',
      PAYGATE_DATA_DIR: path.join(workDir, 'data'),
      LOG_LEVEL: 'warn',
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  gateway.stdout!.on('data', (c: Buffer) => (gatewayOutput += c.toString()));
  gateway.stderr!.on('data', (c: Buffer) => (gatewayOutput += c.toString()));
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (gateway.exitCode !== null) throw new Error(`the gateway exited:\n${gatewayOutput}`);
    try {
      if ((await fetch(`${baseUrl}/healthz`, { signal: AbortSignal.timeout(2000) })).ok) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) throw new Error(`the gateway did not answer /healthz in 120 s:\n${gatewayOutput}`);
    await sleep(100);
  }
}, 300_000);

afterAll(async () => {
  if (gateway && gateway.exitCode === null) {
    const exited = new Promise((resolve) => gateway!.once('exit', resolve));
    gateway.kill('SIGTERM');
    const timer = setTimeout(() => gateway!.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

/** One bash, fed block after block as a user pastes them; output of the shell and its background jobs together. */
class BashSession {
  private readonly proc: ChildProcess;
  private readonly nonce = randomBytes(6).toString('hex');
  output = '';

  constructor(env: NodeJS.ProcessEnv) {
    // its own process group, so the end of the test stops whatever a block left running in the background
    this.proc = spawn('bash', ['--norc', '--noprofile'], { cwd: ROOT, env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    this.proc.stdout!.on('data', (c: Buffer) => (this.output += c.toString()));
    this.proc.stderr!.on('data', (c: Buffer) => (this.output += c.toString()));
    // a failing command anywhere in a block (not a loop's condition) is reported on stdout, in order
    this.proc.stdin!.write(`trap 'echo "__README_ERR_${this.nonce}__ status $? at: $BASH_COMMAND"' ERR\n`);
  }

  /** Run `block` as pasted (sourced from a file, stdin closed); resolves with its exit status and its output. */
  async run(block: ReadmeBlock, index: number): Promise<{ status: number; output: string; errors: string[] }> {
    const file = path.join(workDir, `${block.session}-${index}.sh`);
    writeFileSync(file, block.code);
    const start = this.output.length;
    const done = new RegExp(`__README_DONE_${this.nonce}_${index}__ (\\d+)`);
    this.proc.stdin!.write(`source ${file} </dev/null; echo "__README_DONE_${this.nonce}_${index}__ $?"\n`);
    const deadline = Date.now() + BLOCK_TIMEOUT_MS;
    for (;;) {
      const output = this.output.slice(start);
      const m = output.match(done);
      if (m) {
        const errors = output.split('\n').filter((l) => l.includes(`__README_ERR_${this.nonce}__`));
        return { status: Number(m[1]), output: output.slice(0, m.index), errors };
      }
      if (this.proc.exitCode !== null) throw new Error(`bash exited (${this.proc.exitCode}) during README.md:${block.line}:\n${output}`);
      if (Date.now() > deadline) throw new Error(`README.md:${block.line} did not finish in ${BLOCK_TIMEOUT_MS / 1000} s:\n${output}`);
      await sleep(50);
    }
  }

  /** Stop the shell and everything it started (its process group). */
  async close(): Promise<void> {
    if (this.proc.exitCode !== null) return;
    const exited = new Promise((resolve) => this.proc.once('exit', resolve));
    try {
      process.kill(-this.proc.pid!, 'SIGTERM');
    } catch {
      /* gone */
    }
    const timer = setTimeout(() => {
      try {
        process.kill(-this.proc.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
    }, 5000);
    await exited;
    clearTimeout(timer);
  }
}

describe('README.md walkthroughs, pasted block by block', () => {
  it('marks the runnable blocks: both walkthroughs and the own-API examples, each with blocks that say what they print', () => {
    expect([...runbook.sessions.keys()]).toEqual(['walkthrough', 'listen', 'own-api', 'pagination']);
    expect(runbook.gatewayEnv).toHaveProperty('PAYGATE_PARTNER_CLIENT_ID');
    for (const blocks of runbook.sessions.values()) {
      for (const block of blocks) expect(block.prints.length, `README.md:${block.line} says what it prints`).toBeGreaterThan(0);
      // what a shell would execute must not be a placeholder such as <endpoint id>
      for (const block of blocks) expect(block.code.replace(/#.*$/gm, ''), `README.md:${block.line}`).not.toMatch(/<[a-z][a-z ]*>/i);
    }
  });

  it.each([...runbook.sessions.entries()])(
    'session %s: every block exits 0, runs no failing command and prints what the README says',
    async (session, blocks) => {
      const ports = { MERCHANT_PORT: String(await freePort()), RECEIVER_PORT: String(await freePort()) };
      const sessionTmp = mkdtempSync(path.join(workDir, `${session}-tmp-`));
      const bash = new BashSession(cleanEnv({ PG: baseUrl, TMPDIR: sessionTmp, ...ports }));
      try {
        for (const [index, block] of blocks.entries()) {
          const result = await bash.run(block, index);
          const where = `README.md:${block.line} (${session} block ${index + 1})`;
          expect(result.errors, `${where} ran a failing command:\n${result.output}\n--- gateway:\n${gatewayOutput}`).toEqual([]);
          expect(result.status, `${where} exit status:\n${result.output}`).toBe(0);
          // every `# =>` line is printed by the block itself (loops in the README wait for what arrives later)
          for (const text of block.prints) {
            expect(result.output, `${where} should print "${text}"`).toMatch(printsPattern(text));
          }
        }
      } finally {
        await bash.close();
      }
    },
    sessionTimeout(),
  );
});

/** Every block of the longest session at its bound, plus the shell's start. */
function sessionTimeout(): number {
  return Math.max(...[...runbook.sessions.values()].map((b) => b.length)) * BLOCK_TIMEOUT_MS + 30_000;
}
