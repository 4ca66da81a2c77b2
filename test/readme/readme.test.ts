/**
 * The README's walkthroughs, pasted as a user would (decisions D128, D295): every ```sh readme-test=<session> block of
 * README.md runs as written, in README order, in the bash of its session (one shell per session, kept until the end:
 * a walkthrough that says "in the first shell" goes back to it), against a gateway this test starts the way the
 * README's readme-gateway block does (`paygate serve` with its partner credentials, here on a free port and a
 * temporary PGlite dir). After a block marked readme-browser=<step>, the test does in a browser what the README asks
 * of the person (browser-steps.ts): paying on the checkout page the block printed, landing on the example merchant
 * backend at $MERCHANT_PORT. The README's defaults are a user's (localhost:8080, ports 4000/4001, /tmp); the test
 * overrides them only through the variables the blocks read (PG, MERCHANT_PORT, RECEIVER_PORT, TMPDIR), and those are
 * not 4000/4001, so an example that ignores them fails here as it would for a user.
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
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isBrowserAvailable, launchChromium } from '../e2e/browser.js';
import { seedPgliteDataDir } from '../../packages/reference/src/testing/pglite-template.js';
import { buildOnce } from '../support/build.js';
import { BROWSER_STEPS, formPost, type BrowserStepResult } from './browser-steps.js';
import { parseReadme, printsPattern, type ReadmeBlock } from './readme-blocks.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const runbook = parseReadme(README);
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
/** What every session's shell gets: the gateway, a temporary directory and the two example ports (never 4000/4001). */
let sessionEnv: Record<string, string>;
const shells = new Map<string, BashSession>();
let browser: Browser | undefined;

beforeAll(async () => {
  await buildOnce();
  workDir = mkdtempSync(path.join(tmpdir(), 'paygate-readme-'));
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  // an initialised data dir, as a user's has from the second start on: the README's subject is not initdb (startup.test.ts's is)
  await seedPgliteDataDir(path.join(workDir, 'data'));
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
  let [merchantPort, receiverPort] = [await freePort(), await freePort()];
  while (merchantPort === receiverPort || [merchantPort, receiverPort].some((p) => p === 4000 || p === 4001)) {
    [merchantPort, receiverPort] = [await freePort(), await freePort()];
  }
  sessionEnv = {
    PG: baseUrl,
    TMPDIR: mkdtempSync(path.join(workDir, 'tmp-')),
    MERCHANT_PORT: String(merchantPort),
    RECEIVER_PORT: String(receiverPort),
  };
}, 300_000);

afterAll(async () => {
  for (const shell of shells.values()) await shell.close();
  await browser?.close();
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

/** The shell of a session, started when its first block runs. */
function shellOf(session: string): BashSession {
  let shell = shells.get(session);
  if (shell === undefined) {
    shell = new BashSession(cleanEnv(sessionEnv));
    shells.set(session, shell);
  }
  return shell;
}

/** The checkout page a block printed (`open <url>` or `checkout page: <url>`), the last one. */
function checkoutUrlIn(output: string): string | undefined {
  return [...output.matchAll(/(https?:\/\/\S+\/checkout\/[A-Za-z0-9_-]+)/g)].at(-1)?.[1];
}

/** Does in a browser what the README asks after `block` (Chromium, or the form posted without one). */
async function takeBrowserStep(block: ReadmeBlock, output: string): Promise<BrowserStepResult> {
  const step = BROWSER_STEPS[block.browser ?? ''];
  if (step === undefined) throw new Error(`README.md:${block.line}: readme-browser=${block.browser} is not a step of browser-steps.ts`);
  const prose = README.replace(/\s+/g, ' ').toLowerCase();
  for (const words of step.readmeSays)
    expect(prose, `the README asks the person for ${block.browser}: ${words}`).toContain(words.toLowerCase());
  // the README's URLs say localhost; the gateway the test started is the same host by address
  const url = checkoutUrlIn(output)?.replace(/^https?:\/\/[^/]+/, baseUrl);
  if (url === undefined) throw new Error(`README.md:${block.line} printed no checkout page to open:\n${output}`);
  if (isBrowserAvailable('README BROWSER STEPS (paid by posting the form as a browser without JavaScript instead)')) {
    browser ??= await launchChromium();
    return step.inChromium(browser, url);
  }
  return formPost(step, url);
}

describe('README.md: every shell block is run or says why not (D295)', () => {
  it('marks the runnable blocks: both walkthroughs and the own-API examples, each with blocks that say what they print', () => {
    expect([...runbook.sessions.keys()]).toEqual(['walkthrough', 'listen', 'own-api', 'pagination', 'customise']);
    expect(runbook.gatewayEnv).toHaveProperty('PAYGATE_PARTNER_CLIENT_ID');
    for (const block of runbook.blocks) {
      expect(block.prints.length, `README.md:${block.line} says what it prints`).toBeGreaterThan(0);
      // what a shell would execute must not be a placeholder such as <endpoint id>
      expect(block.code.replace(/#.*$/gm, ''), `README.md:${block.line}`).not.toMatch(/<[a-z][a-z ]*>/i);
    }
    // parseReadme refuses a shell block with neither marker; the ones not run say why
    for (const { line, reason } of runbook.notRun) expect(reason.length, `README.md:${line}`).toBeGreaterThan(10);
  });

  it('runs the card payment (a browser step, then the payment read) and checks the return URL follows MERCHANT_PORT', () => {
    const card = runbook.blocks.filter((b) => b.session === 'walkthrough' && b.browser === 'pay-by-card');
    expect(card.length, 'the card payment and the listen walkthrough pay in the browser').toBeGreaterThanOrEqual(2);
    expect(runbook.blocks.some((b) => /\/pg\/payments\/\$PAY\/ \| j data\.mop_detail/.test(b.code))).toBe(true);
    expect(runbook.blocks.flatMap((b) => b.prints)).toContain('http://127.0.0.1:$MERCHANT_PORT/return');
    expect(README, 'no example returns to a fixed port').not.toMatch(/-d @examples\/order\.json/);
  });
});

describe('README.md walkthroughs, pasted block by block in README order', () => {
  it.each(runbook.blocks.map((block, index) => ({ block, index, name: `README.md:${block.line} (${block.session})` })))(
    '$name: exits 0, runs no failing command and prints what the README says',
    async ({ block, index }) => {
      const result = await shellOf(block.session).run(block, index);
      const where = `README.md:${block.line} (${block.session})`;
      expect(result.errors, `${where} ran a failing command:\n${result.output}\n--- gateway:\n${gatewayOutput}`).toEqual([]);
      expect(result.status, `${where} exit status:\n${result.output}`).toBe(0);
      // every `# =>` line is printed by the block itself (loops in the README wait for what arrives later)
      for (const text of block.prints) {
        expect(result.output, `${where} should print "${text}"`).toMatch(printsPattern(text, sessionEnv));
      }
      if (block.browser === undefined) return;
      // the person's part: pay on the printed page; the browser lands on the example merchant backend of this
      // session, at $MERCHANT_PORT (not on a fixed port where nothing listens), which verifies the callback
      const merchantShell = shellOf(block.session);
      const before = merchantShell.output.length;
      const landed = await takeBrowserStep(block, result.output);
      expect(landed.url, `${where}: where the browser landed (${landed.driver})`).toBe(
        `http://127.0.0.1:${sessionEnv['MERCHANT_PORT']}/return`,
      );
      expect(landed.text, `${where}: the page the browser landed on (${landed.driver})`).toContain('Thanks!');
      await expect
        .poll(() => merchantShell.output.slice(before), {
          timeout: 30_000,
          message: `${where}: the merchant backend verified the callback`,
        })
        .toContain('return-URL callback: hash VERIFIED');
    },
    BLOCK_TIMEOUT_MS + 90_000,
  );
});
