import type { Request } from 'express';
import { describe, expect, it } from 'vitest';
import { coverage, createSchemeGuard, presentsCredentials, readCredential } from './security.js';
import type { OperationRoute, SecuritySchemeInfo } from './types.js';

const request = (headers: Record<string, string>, query: Record<string, string> = {}): Request =>
  ({ headers, query }) as unknown as Request;
const scheme = (type: string, extra: Partial<SecuritySchemeInfo> = {}): SecuritySchemeInfo => ({
  type,
  in: null,
  name: null,
  scheme: null,
  ...extra,
});

describe('readCredential: what each scheme carries (D120)', () => {
  it.each([
    ['apiKey header', scheme('apiKey', { in: 'header', name: 'X-Api-Key' }), request({ 'x-api-key': 'k1' }), 'k1'],
    ['apiKey query', scheme('apiKey', { in: 'query', name: 'api_key' }), request({}, { api_key: 'k2' }), 'k2'],
    ['apiKey cookie', scheme('apiKey', { in: 'cookie', name: 'sid' }), request({ cookie: 'a=1; sid=s%203' }), 's 3'],
    ['http bearer', scheme('http', { scheme: 'bearer' }), request({ authorization: 'Bearer tok' }), 'tok'],
    ['http bearer, case-insensitive scheme', scheme('http', { scheme: 'Bearer' }), request({ authorization: 'bearer tok' }), 'tok'],
    ['http bearer, basic sent', scheme('http', { scheme: 'bearer' }), request({ authorization: 'Basic dTpw' }), undefined],
    [
      'http basic',
      scheme('http', { scheme: 'basic' }),
      request({ authorization: `Basic ${Buffer.from('ada:s3:cr3t').toString('base64')}` }),
      { username: 'ada', password: 's3:cr3t' },
    ],
    ['oauth2 bearer', scheme('oauth2'), request({ authorization: 'Bearer at' }), 'at'],
    ['openIdConnect bearer', scheme('openIdConnect'), request({ authorization: 'Bearer idt' }), 'idt'],
    ['absent', scheme('apiKey', { in: 'header', name: 'X-Api-Key' }), request({}), undefined],
  ])('%s', (_name, info, req, expected) => {
    expect(readCredential(req, info)).toEqual(expected);
  });
});

const op = (operationId: string, security: OperationRoute['security']): OperationRoute =>
  ({
    operationId,
    method: 'get',
    path: '/x',
    expressPath: '/x',
    tags: [],
    headerParameters: [],
    requestMediaTypes: [],
    requestBodyRequired: false,
    fileFields: [],
    security,
    responses: {},
  }) as OperationRoute;
const req = (schemes: string[]) => schemes.map((s) => ({ scheme: s, scopes: [] }));

describe('coverage: operations whose security no authenticator covers', () => {
  it.each([
    ['public', [], ['bearer'], []],
    ['covered', [req(['bearer'])], ['bearer'], []],
    ['one alternative covered (OR)', [req(['apiKey']), req(['bearer'])], ['bearer'], []],
    ['AND needs every scheme', [req(['id', 'secret'])], ['id'], [{ operationId: 'op', schemes: ['id', 'secret'] }]],
    ['optional auth ({}) is covered', [req([])], [], []],
    ['nothing', [req(['bearer'])], [], [{ operationId: 'op', schemes: ['bearer'] }]],
  ])('%s', (_name, security, have, expected) => {
    expect(coverage([op('op', security)], (s) => have.includes(s))).toEqual(expected);
  });
});

describe('createSchemeGuard: alternatives in order, schemes of one requirement all passing', () => {
  const schemes = { key: scheme('apiKey', { in: 'header', name: 'X-Key' }), bearer: scheme('http', { scheme: 'bearer' }) };
  const guard = createSchemeGuard<string>(
    {
      key: ({ credential }) => (credential === 'good' ? 'by-key' : undefined),
      bearer: ({ credential }) => (credential === 'tok' ? 'by-bearer' : undefined),
    },
    schemes,
    () => new Error('refused'),
  );
  const operation = op('op', [req(['key']), req(['bearer'])]);

  it.each([
    ['first alternative', { 'x-key': 'good' }, 'by-key'],
    ['second alternative', { authorization: 'Bearer tok' }, 'by-bearer'],
  ])('%s', async (_name, headers, principal) => {
    await expect(guard(request(headers), operation)).resolves.toBe(principal);
  });

  it('refuses when no alternative passes', async () => {
    await expect(guard(request({ 'x-key': 'bad' }), operation)).rejects.toThrow('refused');
  });
});

describe('createSchemeGuard: an AND of schemes, sync and async authenticators (D166)', () => {
  const schemes = { id: scheme('apiKey', { in: 'header', name: 'X-Id' }), secret: scheme('apiKey', { in: 'header', name: 'X-Secret' }) };
  const seen: { scheme: string; principal: string | undefined; scopes: readonly string[] }[] = [];
  const guard = createSchemeGuard<string>(
    {
      // the first verifies the pair (a promise), the second passes its principal on synchronously
      id: async ({ credentials, principal, scopes }) => {
        seen.push({ scheme: 'id', principal, scopes });
        return credentials.id === 'me' && credentials.secret === 's3' ? 'me' : undefined;
      },
      secret: ({ principal, scopes }) => {
        seen.push({ scheme: 'secret', principal, scopes });
        if (principal === undefined) throw new Error('secret alone');
        return principal;
      },
    },
    schemes,
    () => new Error('refused'),
  );
  const operation = op('op', [
    [
      { scheme: 'id', scopes: ['a'] },
      { scheme: 'secret', scopes: ['b'] },
    ],
  ]);

  it('passes the first principal and each scheme its own scopes, twice in a row the same way', async () => {
    for (let i = 0; i < 2; i++) {
      seen.length = 0;
      await expect(guard(request({ 'x-id': 'me', 'x-secret': 's3' }), operation)).resolves.toBe('me');
      expect(seen).toEqual([
        { scheme: 'id', principal: undefined, scopes: ['a'] },
        { scheme: 'secret', principal: 'me', scopes: ['b'] },
      ]);
    }
  });

  it('refuses a wrong pair without calling the second scheme', async () => {
    seen.length = 0;
    await expect(guard(request({ 'x-id': 'me', 'x-secret': 'nope' }), operation)).rejects.toThrow('refused');
    expect(seen.map((s) => s.scheme)).toEqual(['id']);
  });
});

describe('presentsCredentials: whether a refusal says invalid rather than missing (D219)', () => {
  const schemes = {
    key: scheme('apiKey', { in: 'header', name: 'X-Key' }),
    bearer: scheme('http', { scheme: 'bearer' }),
    sid: scheme('apiKey', { in: 'cookie', name: 'sid' }),
  };
  const operation = op('op', [req(['key']), req(['bearer'])]);
  it.each([
    ['nothing sent', {}, false],
    ["a key of the operation's scheme", { 'x-key': 'k' }, true],
    ['a bearer token of the other alternative', { authorization: 'Bearer t' }, true],
    ['an Authorization of a scheme the operation does not declare (Basic)', { authorization: 'Basic dTpw' }, false],
    ['an empty bearer token', { authorization: 'Bearer ' }, false],
    ['a cookie of a scheme the operation does not use', { cookie: 'sid=s' }, false],
  ])('%s: %s', (_name, headers, expected) => {
    expect(presentsCredentials(request(headers), operation, schemes)).toBe(expected);
  });
});
