import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadOrCreateSandboxPartner, sandboxPartnerLines, serve } from './cli.js';
import { seedPgliteDataDir } from './testing/pglite-template.js';

/** The sandbox partner secret is printed once, by the start that generated it (D39 sandbox generates its partner credential). */
describe('sandbox partner credential at start-up', () => {
  let dir: string;
  const level = process.env['LOG_LEVEL'];
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'paygate-cli-'));
    process.env['LOG_LEVEL'] = 'silent';
  });
  afterAll(async () => {
    if (level === undefined) delete process.env['LOG_LEVEL'];
    else process.env['LOG_LEVEL'] = level;
    await rm(dir, { recursive: true, force: true });
  });

  it('generates it once (0600) and reads it afterwards', async () => {
    const dataDir = path.join(dir, 'unit');
    const created = await loadOrCreateSandboxPartner(dataDir);
    expect(created.created).toBe(true);
    expect((await stat(created.file!)).mode & 0o777).toBe(0o600);
    const again = await loadOrCreateSandboxPartner(dataDir);
    expect(again).toEqual({ ...created, created: false });
    expect(sandboxPartnerLines(created).join('\n')).toContain(created.clientSecret);
    const later = sandboxPartnerLines(again).join('\n');
    expect(later).toContain(again.clientId);
    expect(later).not.toContain(again.clientSecret);
    expect(later).toContain(again.file!);
    // an in-memory database has nowhere to keep it: a new one, printed, each start
    const memory = await loadOrCreateSandboxPartner('memory://');
    expect(memory.created).toBe(true);
    expect(sandboxPartnerLines(memory).join('\n')).toContain(memory.clientSecret);
  });

  it('`paygate serve` on 0.0.0.0 prints the secret on the first start only', async () => {
    const dataDir = path.join(dir, 'serve');
    await seedPgliteDataDir(dataDir); // the subject is the secret's printing, not initdb (startup.test.ts's is)
    const env = { PAYGATE_DATA_DIR: dataDir, HOST: '0.0.0.0', PORT: '0', PAYGATE_WORKER_INTERVAL_MS: '60000' };
    const start = async (): Promise<string> => {
      const lines: string[] = [];
      const started = await serve(env, (l) => lines.push(l));
      await started.stop();
      return lines.join('\n');
    };
    const first = await start();
    const saved = JSON.parse(await readFile(path.join(dataDir, 'sandbox-partner.json'), 'utf8')) as {
      client_id: string;
      client_secret: string;
    };
    expect(first).toContain('listening on 0.0.0.0:0');
    expect(first).toContain(`X-Client-Secret: ${saved.client_secret}`);
    const second = await start();
    expect(second).toContain(saved.client_id);
    expect(second).not.toContain(saved.client_secret);
    expect(second).toMatch(/shown when it was generated; read it from .*sandbox-partner\.json/);
  }, 120_000);
});

/** `paygate serve` with small limits: slow and surplus clients cannot hold the server. */
describe('paygate serve: timeouts and the connection cap', () => {
  let stop: () => Promise<void>;
  let port: number;
  const lines: string[] = [];
  beforeAll(async () => {
    const started = await serve(
      {
        PORT: '0',
        PAYGATE_DATA_DIR: 'memory://',
        PAYGATE_HEADERS_TIMEOUT_MS: '600',
        PAYGATE_REQUEST_TIMEOUT_MS: '1200',
        PAYGATE_MAX_CONNECTIONS: '3',
        LOG_LEVEL: 'silent',
      },
      (line) => lines.push(line),
    );
    stop = started.stop;
    port = (started.server.address() as AddressInfo).port;
  }, 120_000);
  afterAll(async () => stop?.());

  function open(): Promise<Socket> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => resolve(socket));
      socket.on('error', reject);
    });
  }
  /** Resolves with the ms until the server closed the socket (read to the end: a paused socket never sees it). */
  function closed(socket: Socket): Promise<number> {
    const started = Date.now();
    socket.resume();
    return new Promise((resolve) => socket.once('close', () => resolve(Date.now() - started)));
  }

  it('closes a client that never finishes its headers (slowloris) after headersTimeout', async () => {
    const socket = await open();
    socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n'); // ... and nothing more
    const ms = await closed(socket);
    expect(ms).toBeGreaterThanOrEqual(500);
    expect(ms).toBeLessThan(5_000);
  });

  it('refuses connections over PAYGATE_MAX_CONNECTIONS and serves again once they close', async () => {
    const held = await Promise.all([open(), open(), open()]);
    const surplus = await open();
    // Node closes a connection over maxConnections as soon as it is accepted
    await closed(surplus);
    for (const s of held) s.destroy();
    await new Promise((r) => setTimeout(r, 100));
    const res = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(res.status).toBe(200);
  });

  it('documents the limits in --help', async () => {
    const { USAGE } = await import('./cli.js');
    for (const name of [
      'PAYGATE_WORKERS',
      '--workers N|auto',
      'PAYGATE_SHUTDOWN_TIMEOUT_MS',
      '/healthz',
      '/readyz',
      'PAYGATE_RATE_LIMIT',
      'PAYGATE_RATE_WINDOW_SECONDS',
      'REDIS_URL',
      'PAYGATE_REDIS_TIMEOUT_MS',
      'PAYGATE_REDIS_KEY_PREFIX',
      'PAYGATE_TRUST_PROXY',
      'PAYGATE_DB_POOL_SIZE',
      'DATABASE_DIRECT_URL',
      'PAYGATE_DB_LOCK_TIMEOUT_MS',
      'PAYGATE_TENANT_SHARE',
      'PAYGATE_TENANT_QUEUE',
      'PAYGATE_HEADERS_TIMEOUT_MS',
      'PAYGATE_MAX_CONNECTIONS',
      'PAYGATE_MAX_CONNECTIONS_PER_ADDRESS',
      'PAYGATE_CREDENTIAL_CACHE_TTL_MS',
      'PAYGATE_PGLITE_SHARED_BUFFERS',
      'PAYGATE_PGLITE_WORK_MEM',
      'PAYGATE_PGLITE_WASM_CODE',
    ]) {
      expect(USAGE).toContain(name);
    }
  });
});
