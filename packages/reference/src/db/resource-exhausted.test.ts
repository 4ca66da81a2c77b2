import { describe, expect, it } from 'vitest';
import { isResourceExhaustedError } from './resource-exhausted.js';
import { isUnavailableError } from './unavailable.js';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

/** Emscripten's FS error as PGlite's build defines it (`ErrnoError: class { name = 'ErrnoError'; constructor(errno) }`). */
class ErrnoError {
  name = 'ErrnoError';
  constructor(readonly errno: number) {}
}

describe('isResourceExhaustedError (honest storage failures, D361)', () => {
  it.each([
    ['53000 insufficient_resources', withCode('53000', 'insufficient resources')],
    [
      '53100 disk_full (PostgreSQL extending a relation)',
      withCode('53100', 'could not extend file "base/16384/16400": No space left on device'),
    ],
    ['53200 out_of_memory', withCode('53200', 'out of memory')],
    ['53300 too_many_connections', withCode('53300', 'sorry, too many clients already')],
    ['53400 configuration_limit_exceeded', withCode('53400', 'out of shared memory')],
    [
      'Node ENOSPC (a write of the data dir)',
      Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', errno: -28, syscall: 'write' }),
    ],
    ['Node EDQUOT', Object.assign(new Error('EDQUOT: disk quota exceeded, write'), { code: 'EDQUOT', errno: -122 })],
    ['Emscripten ErrnoError ENOSPC (PGlite file system)', new ErrnoError(51)],
    ['Emscripten ErrnoError EDQUOT', new ErrnoError(19)],
    [
      'a WAL write PANIC with another SQLSTATE',
      withCode('XX000', 'could not write to file "pg_wal/xlogtemp.123": No space left on device'),
    ],
    ['wrapped in a cause', new Error('insert failed', { cause: withCode('53100') })],
    ['inside an AggregateError', new AggregateError([new Error('a'), withCode('53100')], 'several')],
  ])('%s -> exhausted', (_name, err) => {
    expect(isResourceExhaustedError(err)).toBe(true);
  });

  it.each([
    ['unique violation 23505', withCode('23505', 'duplicate key value violates unique constraint')],
    ['a lost connection (unavailable, not exhausted)', withCode('ECONNRESET')],
    ['Emscripten ErrnoError ENOENT', new ErrnoError(44)],
    ['an errno 51 that is not Emscripten', Object.assign(new Error('x'), { errno: 51 })],
    ['a plain bug', new TypeError('x is undefined')],
    ['a 53 code that is not a SQLSTATE', withCode('53ab')],
    ['null', null],
    ['a string', 'ENOSPC'],
  ])('%s -> not exhausted', (_name, err) => {
    expect(isResourceExhaustedError(err)).toBe(false);
  });

  it('a disk-full connection is not "unavailable": it is not released as broken', () => {
    expect(isUnavailableError(withCode('53100'))).toBe(false);
    expect(isUnavailableError(new ErrnoError(51))).toBe(false);
  });
});
