import { HttpError, mapError } from '@paygate/server';
import { describe, expect, it } from 'vitest';
import { createTenantShare, defaultTenantShare } from './tenant-share.js';

/** A request that runs until the test lets it finish. */
function held() {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  return { finish, run: () => done.then(() => 'done') };
}

describe('tenant share (bounded waits per tenant, D363)', () => {
  it.each([
    [1, 1],
    [2, 1],
    [4, 3],
    [8, 6],
    [32, 24],
  ])('pool of %d -> a tenant may use %d', (pool, share) => {
    expect(defaultTenantShare(pool)).toBe(share);
  });

  it('runs a tenant share at once, queues a few more, refuses the rest with 503 + Retry-After; other tenants never wait', async () => {
    const share = createTenantShare({ share: 2, queue: 1, waitMs: 60_000 });
    const a = [held(), held(), held()];
    const running = a.map((h) => share.run('merchant:A', h.run));
    expect(share.load('merchant:A')).toEqual({ running: 2, waiting: 1 });
    // the queue is full: refused at once
    const refused = await share.run('merchant:A', async () => 'never').catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(HttpError);
    const sent = mapError(refused as HttpError);
    expect(sent.status).toBe(503);
    expect(sent.headers).toEqual({ 'Retry-After': '1' });
    // another tenant runs while A is at its share
    expect(await share.run('merchant:B', async () => 'b')).toBe('b');
    // a slot freed goes to A's waiting request
    a[0]!.finish();
    await running[0];
    expect(share.load('merchant:A')).toEqual({ running: 2, waiting: 0 });
    a[1]!.finish();
    a[2]!.finish();
    expect(await Promise.all(running)).toEqual(['done', 'done', 'done']);
    expect(share.load('merchant:A')).toEqual({ running: 0, waiting: 0 });
  });

  it('a waiting request is refused after the bounded wait, and a failing request frees its slot', async () => {
    const share = createTenantShare({ share: 1, queue: 4, waitMs: 20 });
    const first = held();
    const running = share.run('merchant:A', first.run);
    const waited = await share.run('merchant:A', async () => 'never').catch((err: unknown) => err);
    expect(mapError(waited as HttpError).status).toBe(503);
    expect(share.load('merchant:A')).toEqual({ running: 1, waiting: 0 });
    first.finish();
    await running;
    await expect(share.run('merchant:A', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(share.load('merchant:A')).toEqual({ running: 0, waiting: 0 });
    expect(await share.run('merchant:A', async () => 'again')).toBe('again');
  });
});
