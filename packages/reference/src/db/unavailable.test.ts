import { describe, expect, it } from 'vitest';
import { isUnavailableError } from './unavailable.js';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('isUnavailableError (D91)', () => {
  it.each([
    ['connection refused', withCode('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432')],
    ['connection reset', withCode('ECONNRESET', 'read ECONNRESET')],
    ['broken pipe', withCode('EPIPE')],
    ['socket timeout', withCode('ETIMEDOUT')],
    ['host unreachable', withCode('EHOSTUNREACH')],
    ['DNS failure', withCode('ENOTFOUND', 'getaddrinfo ENOTFOUND db.internal')],
    ['SQLSTATE 08006 connection_failure', withCode('08006')],
    ['SQLSTATE 08003 connection_does_not_exist', withCode('08003')],
    ['57P01 admin_shutdown (pg_terminate_backend)', withCode('57P01', 'terminating connection due to administrator command')],
    ['57P02 crash_shutdown', withCode('57P02')],
    ['57P03 cannot_connect_now', withCode('57P03', 'the database system is starting up')],
    ['53300 too_many_connections', withCode('53300', 'sorry, too many clients already')],
    ['57014 statement timeout', withCode('57014', 'canceling statement due to statement timeout')],
    ['55P03 lock timeout', withCode('55P03', 'canceling statement due to lock timeout')],
    ['pg: Connection terminated unexpectedly', new Error('Connection terminated unexpectedly')],
    ['pg: Connection terminated due to connection timeout', new Error('Connection terminated due to connection timeout')],
    ['pg: client not queryable', new Error('Client has encountered a connection error and is not queryable')],
    ['pg: closed client', new Error('Client was closed and is not queryable')],
    ['pg-pool: checkout timeout', new Error('timeout exceeded when trying to connect')],
    ['pg: query_timeout', new Error('Query read timeout')],
    ['pg-pool: ended pool', new Error('Cannot use a pool after calling end on the pool')],
    ['happy-eyeballs AggregateError', new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')], 'connect failed')],
    ['a cause chain', new Error('startup failed', { cause: new Error('wrapped', { cause: withCode('ECONNRESET') }) })],
  ])('%s -> unavailable', (_name, err) => {
    expect(isUnavailableError(err)).toBe(true);
  });

  it.each([
    ['unique violation 23505', withCode('23505', 'duplicate key value violates unique constraint')],
    ['serialization failure 40001 (retried inside the transaction)', withCode('40001')],
    ['syntax error 42601', withCode('42601')],
    ['an undefined column 42703', withCode('42703')],
    ['a plain bug', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['an injected fault', new Error('injected database fault (contract test)')],
    ['a message merely mentioning a connection', new Error('Connection terminatedness is not a word')],
    ['a 5-letter code that is not a SQLSTATE', withCode('08abc')],
    ['a string', 'ECONNREFUSED'],
    ['null', null],
    ['undefined', undefined],
  ])('%s -> not unavailable', (_name, err) => {
    expect(isUnavailableError(err)).toBe(false);
  });

  it('survives a cyclic cause chain', () => {
    const a = new Error('a') as Error & { cause?: unknown };
    const b = new Error('b', { cause: a });
    a.cause = b;
    expect(isUnavailableError(a)).toBe(false);
  });
});
