import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChecker } from './conformance.js';

/** Answers 429 (Retry-After: 2) `limited` times, then an envelope 404 (an unknown route, as the gateway answers it). */
let limited = 0;
let server: Server;
let baseUrl: string;
beforeAll(async () => {
  server = createServer((_req, res) => {
    if (limited > 0) {
      limited -= 1;
      res
        .writeHead(429, { 'content-type': 'application/json', 'retry-after': '2' })
        .end('{"success":false,"error":{"code":"ERR_RATE_429","message":"slow down"}}');
      return;
    }
    res
      .writeHead(404, { 'content-type': 'application/json' })
      .end('{"success":false,"error":{"code":"ERR_REQUEST_404","message":"Not found"}}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('the suite against a deployment: 429 waited out per Retry-After, bounded (D125)', () => {
  it('waits and sends again until the deployment answers', async () => {
    const waits: number[] = [];
    limited = 2;
    const api = createChecker({ baseUrl, rateLimit: { maxWaitMs: 30_000, sleep: async (ms) => void waits.push(ms) } });
    const res = await api.request('GET', '/nope');
    expect(res.status).toBe(404);
    expect(waits).toEqual([2000, 2000]);
  });

  it('gives up with what to change once the bound is reached', async () => {
    limited = 100;
    const api = createChecker({ baseUrl, rateLimit: { maxWaitMs: 5_000, sleep: async () => undefined } });
    await expect(api.request('GET', '/nope')).rejects.toThrow(
      /still answers 429 after waiting 6 s .*raise its rate limit .*PAYGATE_RATE_LIMIT/,
    );
  });
});
