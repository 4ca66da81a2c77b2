import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve } from './cli.js';

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
  }, 60_000);
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
    for (const name of ['PAYGATE_RATE_LIMIT', 'PAYGATE_RATE_WINDOW_SECONDS', 'REDIS_URL', 'PAYGATE_TRUST_PROXY', 'PAYGATE_DB_POOL_SIZE', 'PAYGATE_HEADERS_TIMEOUT_MS', 'PAYGATE_MAX_CONNECTIONS']) {
      expect(USAGE).toContain(name);
    }
  });
});
