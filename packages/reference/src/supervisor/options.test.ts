import { describe, expect, it } from 'vitest';
import { clusterRefusal, parseServeArguments, pgliteRefusal, resolveWorkerCount, ServeUsageError, shutdownTimeoutMs } from './options.js';

const fourCores = () => 4;

describe('paygate serve --workers (D100)', () => {
  it.each<[string, string | undefined, NodeJS.ProcessEnv, number]>([
    ['default: one process', undefined, {}, 1],
    ['--workers N', '3', {}, 3],
    ['--workers auto: one per core', 'auto', {}, 4],
    ['PAYGATE_WORKERS', undefined, { PAYGATE_WORKERS: '2' }, 2],
    ['PAYGATE_WORKERS=auto', undefined, { PAYGATE_WORKERS: 'auto' }, 4],
    ['the flag wins over the environment', '1', { PAYGATE_WORKERS: '8' }, 1],
    ['an empty PAYGATE_WORKERS is unset', undefined, { PAYGATE_WORKERS: '' }, 1],
  ])('%s', (_name, flag, env, expected) => {
    expect(resolveWorkerCount(flag, env, fourCores)).toBe(expected);
  });

  it.each([['0'], ['-1'], ['2.5'], ['many'], ['257'], [' 2']])('refuses --workers=%j as a usage error', (value) => {
    expect(() => parseServeArguments([`--workers=${value}`])).toThrow(ServeUsageError);
    expect(() => parseServeArguments([`--workers=${value}`])).toThrow(/--workers must be a number of processes from 1 to 256, or auto/);
  });

  it.each([[['--port', '1']], [['extra']], [['--workers']]])('refuses the command line %j, pointing at environment variables', (argv) => {
    expect(() => parseServeArguments(argv)).toThrow(ServeUsageError);
    expect(() => parseServeArguments(argv)).toThrow(/environment variables/);
  });

  it('refuses a malformed PAYGATE_WORKERS as a start-up error naming the variable', () => {
    const attempt = () => resolveWorkerCount(undefined, { PAYGATE_WORKERS: 'lots' }, fourCores);
    expect(attempt).toThrow(/PAYGATE_WORKERS must be/);
    expect(attempt).not.toThrow(ServeUsageError);
  });

  it('refuses several workers on the embedded PGlite database, saying what to do', () => {
    const message = clusterRefusal(2, { PAYGATE_DATA_DIR: '/tmp/x' });
    expect(message).toBe(pgliteRefusal(2));
    expect(message).toMatch(/needs PostgreSQL/);
    expect(message).toMatch(/DATABASE_URL=postgres:/);
    expect(message).toMatch(/--workers 1/);
    expect(clusterRefusal(2, { DATABASE_URL: 'postgres://postgres@127.0.0.1/x', PAYGATE_DATA_DIR: '/tmp/x' })).toBeUndefined();
  });

  it('refuses an in-memory data dir unless the shared secrets are given', () => {
    const pg = { DATABASE_URL: 'postgres://postgres@127.0.0.1/x', PAYGATE_DATA_DIR: 'memory://' };
    expect(clusterRefusal(2, pg)).toMatch(/own master key and sandbox partner credential/);
    const key = Buffer.alloc(32, 7).toString('base64');
    expect(
      clusterRefusal(2, { ...pg, PAYGATE_MASTER_KEY: key, PAYGATE_PARTNER_CLIENT_ID: 'p', PAYGATE_PARTNER_CLIENT_SECRET: 'x'.repeat(20) }),
    ).toBeUndefined();
  });

  it.each<[NodeJS.ProcessEnv, number | RegExp]>([
    [{}, 10_000],
    [{ PAYGATE_SHUTDOWN_TIMEOUT_MS: '2500' }, 2_500],
    [{ PAYGATE_SHUTDOWN_TIMEOUT_MS: '0' }, /positive integer/],
    [{ PAYGATE_SHUTDOWN_TIMEOUT_MS: 'soon' }, /positive integer/],
  ])('PAYGATE_SHUTDOWN_TIMEOUT_MS %j', (env, expected) => {
    if (typeof expected === 'number') expect(shutdownTimeoutMs(env)).toBe(expected);
    else expect(() => shutdownTimeoutMs(env)).toThrow(expected);
  });
});
