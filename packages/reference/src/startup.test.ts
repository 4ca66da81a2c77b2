/**
 * Start-up loads what the first request needs and nothing more (D171, issue 23): the real `paygate serve` (built code,
 * a new PGlite data dir) runs with a preload that records every module the process loads: ES modules through a
 * loader hook, CommonJS ones from `require.cache` when asked (SIGUSR2). Each module listed here is absent once the
 * gateway listens and present after the first request that needs it, so laziness is shown, and so is the feature
 * still working. The same start shows a new data dir migrated and the stages logged at debug level (D170 start-up stages marked).
 * `paygate serve` runs the gateway's bundle (D189, packages/reference/dist/serve/): a module bundled into it is never
 * a file of its own, so "loaded" also counts every input of the bundle's chunks the process loaded (esbuild's metafile,
 * kept as bundle.json beside them); a lazily imported module is in a chunk of its own, loaded when it is needed.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOnce } from '../../../test/support/build.js';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const BUNDLE_DIR = path.join(REPO_ROOT, 'packages/reference/dist/serve');

/**
 * The modules a process loaded: the files it loaded, and the inputs (paths relative to the repository) of each chunk
 * of the serve bundle among them.
 */
async function withBundledInputs(files: string[]): Promise<string[]> {
  const chunks = JSON.parse(await readFile(path.join(BUNDLE_DIR, 'bundle.json'), 'utf8')) as Record<string, { inputs: string[] }>;
  const prefix = pathToFileURL(`${BUNDLE_DIR}/`).href;
  const inputs = files.filter((url) => url.startsWith(prefix)).flatMap((url) => chunks[url.slice(prefix.length)]?.inputs ?? []);
  return [...files, ...inputs];
}
const PARTNER = { id: 'pk_test_startup_laziness', secret: 'ps_test_startup_laziness_secret_0123456789' };

/** The loader hook (ES modules) and the preload that registers it and dumps require.cache on SIGUSR2. */
const HOOKS = `
import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  appendFileSync(process.env.PAYGATE_TEST_MODULE_LOG, url + '\\n');
  return next(url, context);
}`;
const PRELOAD = (hooksUrl: string) => `
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { pathToFileURL } from 'node:url';
register(${JSON.stringify(hooksUrl)});
const cache = createRequire(import.meta.url).cache;
process.on('SIGUSR2', () => {
  const files = Object.keys(cache).map((f) => pathToFileURL(f).href);
  appendFileSync(process.env.PAYGATE_TEST_MODULE_LOG, files.join('\\n') + '\\n=== snapshot\\n');
});`;

/** Modules the first request of a common operation does not need, each with the request that does (or none). */
const LAZY: { module: string; pattern: RegExp }[] = [
  { module: 'multer (multipart parsing)', pattern: /node_modules\/multer\// },
  { module: 'busboy (under multer)', pattern: /node_modules\/busboy\// },
  { module: "rate-limiter-flexible's index (every store it has)", pattern: /node_modules\/rate-limiter-flexible\/index\.js$/ },
  { module: 'its Redis store (REDIS_URL unset)', pattern: /rate-limiter-flexible\/lib\/RateLimiterRedis\.js$/ },
  { module: 'ioredis (REDIS_URL unset)', pattern: /node_modules\/ioredis\// },
  { module: "@paygate/client's index (openapi-fetch, the generated client)", pattern: /packages\/client\/(dist|src)\/index\.(js|ts)$/ },
  { module: 'openapi-fetch', pattern: /node_modules\/openapi-fetch\// },
  {
    module: "@paygate/webhooks' generated event validators",
    pattern: /packages\/webhooks\/(dist|src)\/generated\/validators\.gen\.(js|ts)$/,
  },
  { module: 'fast-json-stringify (compiled responses)', pattern: /node_modules\/fast-json-stringify\// },
  { module: 'qrcode (UPI QR codes)', pattern: /node_modules\/qrcode\// },
  // D187: the webhook transport's SSRF guard, loaded by the first delivery (none happens here)
  { module: 'request-filtering-agent (webhook deliveries)', pattern: /node_modules\/request-filtering-agent\// },
];

interface Gateway {
  base: string;
  output: () => string;
  /** Every module URL loaded so far. */
  loaded: () => Promise<string[]>;
  stop: () => Promise<void>;
}

/**
 * A port below Linux's ephemeral range (32768-60999), which outgoing connections take theirs from: another file's
 * listener may still hold it, so a start that finds it in use is tried again on another (bounded).
 */
async function startGateway(dir: string): Promise<Gateway> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await startGatewayOn(dir, 20_000 + Math.floor(Math.random() * 12_000));
    } catch (error) {
      if (attempt >= 5 || !(error instanceof PortInUse)) throw error;
    }
  }
}

class PortInUse extends Error {}

async function startGatewayOn(dir: string, port: number): Promise<Gateway> {
  const log = path.join(dir, 'modules.log');
  const hooks = path.join(dir, 'hooks.mjs');
  const preload = path.join(dir, 'preload.mjs');
  await writeFile(log, '');
  await writeFile(hooks, HOOKS);
  await writeFile(preload, PRELOAD(pathToFileURL(hooks).href));
  const proc = spawn(process.execPath, ['--import', pathToFileURL(preload).href, 'generators/bin/paygate.js', 'serve'], {
    cwd: REPO_ROOT,
    env: {
      PATH: process.env['PATH'],
      HOME: process.env['HOME'],
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: String(port),
      // a data directory of its own per attempt: every start is a first start
      PAYGATE_DATA_DIR: path.join(dir, `data-${port}`),
      PAYGATE_PARTNER_CLIENT_ID: PARTNER.id,
      PAYGATE_PARTNER_CLIENT_SECRET: PARTNER.secret,
      LOG_LEVEL: 'debug',
      PAYGATE_TEST_MODULE_LOG: log,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout.on('data', (c: Buffer) => (out += c.toString()));
  proc.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const base = `http://127.0.0.1:${port}`;
  for (const deadline = Date.now() + 150_000; ; ) {
    if (proc.exitCode !== null) {
      if (/already in use/.test(out)) throw new PortInUse(`port ${port} in use:\n${out}`);
      throw new Error(`paygate serve exited:\n${out}`);
    }
    if (
      await fetch(`${base}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (Date.now() > deadline) throw new Error(`paygate serve did not answer:\n${out}`);
    await sleep(100);
  }
  let snapshots = 0;
  return {
    base,
    output: () => out,
    async loaded() {
      proc.kill('SIGUSR2');
      const want = ++snapshots;
      for (;;) {
        const text = await readFile(log, 'utf8');
        if (text.split('\n=== snapshot\n').length > want) return text.split('\n').filter((l) => l !== '' && !l.startsWith('==='));
        await sleep(20);
      }
    },
    async stop() {
      proc.kill('SIGTERM');
      await exited;
    },
  };
}

describe('paygate serve loads lazily (built code, new PGlite data dir)', () => {
  let dir: string;
  let gateway: Gateway;
  const partner = { 'X-Client-ID': PARTNER.id, 'X-Client-Secret': PARTNER.secret };
  beforeAll(async () => {
    await buildOnce();
    dir = await mkdtemp(path.join(tmpdir(), 'paygate-startup-'));
    gateway = await startGateway(dir);
  }, 300_000);
  afterAll(async () => {
    await gateway?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it.each(LAZY)('$module is not loaded by the start (nor by GET /healthz)', async ({ pattern }) => {
    const files = await gateway.loaded();
    // the log works, and the gateway runs its bundle (D189 esbuild bundle of paygate serve): its entry and the gateway's own modules inside it
    expect(files).toContain(pathToFileURL(path.join(BUNDLE_DIR, 'cli.js')).href);
    const loaded = await withBundledInputs(files);
    expect(loaded.filter((m) => /packages\/reference\/dist\/(app|runtime|worker)\.js$/.test(m))).toHaveLength(3);
    expect(loaded.filter((url) => pattern.test(url))).toEqual([]);
  });

  it('a new data dir is created and migrated, and the start logs its stages at debug level (D170)', async () => {
    const res = await fetch(`${gateway.base}/partners/merchants/`, { headers: partner });
    expect(res.status).toBe(200);
    // logged by an asynchronous destination once listening: it may reach the pipe after the first answers
    const stagesLine = () =>
      gateway
        .output()
        .split('\n')
        .find((l) => l.includes('"startupStages"'));
    for (const deadline = Date.now() + 30_000; stagesLine() === undefined && Date.now() < deadline; ) await sleep(50);
    const line = stagesLine();
    const stages = (JSON.parse(line ?? '{}') as { startupStages?: { stage: string; ms: number; cpuMs: number }[] }).startupStages ?? [];
    expect(stages.map((s) => s.stage)).toEqual(
      expect.arrayContaining(['runtime modules loaded', 'database opened', 'migrations checked', 'master key checked', 'listening']),
    );
    expect(stages.every((s, i) => i === 0 || s.ms >= (stages[i - 1]?.ms ?? 0))).toBe(true);
  });

  it('the first JSON answer has loaded fast-json-stringify; the first multipart request loads multer and busboy', async () => {
    expect((await gateway.loaded()).some((url) => /node_modules\/fast-json-stringify\//.test(url))).toBe(true);
    const form = new FormData();
    form.append('file', new Blob([Buffer.from('%PDF-1.4\n')], { type: 'application/pdf' }), 'doc.pdf');
    form.append('document_type', 'PAN');
    const res = await fetch(`${gateway.base}/partners/merchants/1000000000/documents/`, { method: 'PATCH', headers: partner, body: form });
    await res.arrayBuffer();
    expect(res.status).toBeLessThan(500);
    const after = await gateway.loaded();
    expect(after.some((url) => /node_modules\/multer\//.test(url))).toBe(true);
    expect(after.some((url) => /node_modules\/busboy\//.test(url))).toBe(true);
  });
});
