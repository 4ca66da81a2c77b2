import { describe, expect, it } from 'vitest';
import { createCaller, init, type OperationMeta } from './facade.js';
import { UNEXPECTED_RESPONSE_CODE } from './result.js';
import { applyAuth, chooseAlternative, type AuthTarget, type SecuritySchemes } from './security.js';

const SCHEMES = {
  bearerAuth: { type: 'http', scheme: 'bearer' },
  basicAuth: { type: 'http', scheme: 'basic' },
  headerKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
  queryKey: { type: 'apiKey', in: 'query', name: 'api_key' },
  cookieKey: { type: 'apiKey', in: 'cookie', name: 'session' },
  oauth: { type: 'oauth2' },
  oidc: { type: 'openIdConnect' },
} as const satisfies SecuritySchemes;

const empty = (): AuthTarget => ({ headers: {}, query: {}, cookies: [] });

describe('applyAuth: one credential per scheme, placed where the spec says (D121)', () => {
  it.each([
    ['http bearer', 'bearerAuth', 'tok', { headers: { Authorization: 'Bearer tok' }, query: {}, cookies: [] }],
    [
      'http basic',
      'basicAuth',
      { username: 'ada', password: 'pä:ss' },
      { headers: { Authorization: `Basic ${Buffer.from('ada:pä:ss').toString('base64')}` }, query: {}, cookies: [] },
    ],
    ['apiKey in header', 'headerKey', 'k1', { headers: { 'X-Api-Key': 'k1' }, query: {}, cookies: [] }],
    ['apiKey in query', 'queryKey', 'k2', { headers: {}, query: { api_key: 'k2' }, cookies: [] }],
    ['apiKey in cookie', 'cookieKey', 'k3', { headers: {}, query: {}, cookies: ['session=k3'] }],
    ['oauth2 access token', 'oauth', 'at', { headers: { Authorization: 'Bearer at' }, query: {}, cookies: [] }],
    ['openIdConnect access token', 'oidc', 'id', { headers: { Authorization: 'Bearer id' }, query: {}, cookies: [] }],
  ] as const)('%s', (_name, scheme, credential, expected) => {
    const target = empty();
    expect(applyAuth(SCHEMES, { [scheme]: credential }, [[scheme]], target)).toBeUndefined();
    expect(target).toEqual(expected);
  });

  it('calls credential functions per request and awaits async ones', async () => {
    let n = 0;
    const target = empty();
    const pending = applyAuth(SCHEMES, { bearerAuth: async () => `t${++n}`, headerKey: () => 'k' }, [['bearerAuth', 'headerKey']], target);
    expect(pending).toBeInstanceOf(Promise);
    await pending;
    expect(target.headers).toEqual({ Authorization: 'Bearer t1', 'X-Api-Key': 'k' });
  });

  it.each([
    ['first alternative fully configured', [['bearerAuth'], ['headerKey']], { headerKey: 'k', bearerAuth: 't' }, ['bearerAuth']],
    [
      'skips an alternative missing a scheme (AND)',
      [['bearerAuth', 'queryKey'], ['headerKey']],
      { bearerAuth: 't', headerKey: 'k' },
      ['headerKey'],
    ],
    ['nothing configured: nothing sent', [['bearerAuth']], {}, undefined],
    ['public operation: nothing sent', [], { bearerAuth: 't' }, undefined],
    ['optional security ({}) with a credential: sent', [[], ['bearerAuth']], { bearerAuth: 't' }, ['bearerAuth']],
  ] as const)('chooseAlternative: %s', (_name, requirement, auth, expected) => {
    expect(chooseAlternative(requirement, auth)).toEqual(expected);
  });

  it('refuses a wrong credential type with the scheme name', () => {
    expect(() => applyAuth(SCHEMES, { basicAuth: 'user:pass' }, [['basicAuth']], empty())).toThrow(
      /auth\.basicAuth must be \{ username, password \}/,
    );
  });
});

/** A caller over a fake fetch that records every request and answers from `answer`. */
function harness(schemes: SecuritySchemes, auth: Record<string, unknown>, answer: () => Response = () => Response.json({ id: 1 })) {
  const seen: Request[] = [];
  const transport = {
    baseUrl: 'https://api.test/v1',
    maxRetries: 0,
    fetch: async (input: RequestInfo | URL) => {
      seen.push(input as Request);
      return answer();
    },
  };
  let key = 0;
  const send = createCaller(schemes, { transport, auth, idempotencyKey: () => `key-${++key}` });
  const get = (meta: OperationMeta, headers?: Record<string, string>) =>
    send<{ id: number }, { code: string; message: string }>(meta, 'GET', '/books', init(undefined, undefined, { headers }));
  const post = (meta: OperationMeta, headers?: Record<string, string>) =>
    send<{ id: number }, { code: string; message: string }>(meta, 'POST', '/books', init(undefined, undefined, { headers }, { a: 1 }));
  return { seen, get, post };
}

const SECURED: OperationMeta = { security: [['bearerAuth']], errors: { '404': true, '4XX': true } };

describe('createCaller: each call sends only what its operation requires', () => {
  it('bearer on a secured operation, nothing on a public one, no product headers', async () => {
    const { seen, get } = harness(SCHEMES, { bearerAuth: () => 'tok' });
    await get(SECURED);
    await get({ security: [], errors: {} });
    expect(seen[0]!.headers.get('authorization')).toBe('Bearer tok');
    expect(seen[1]!.headers.get('authorization')).toBeNull();
    for (const r of seen) {
      const names = [...r.headers.keys()];
      expect(names.filter((n) => /^x-(client|paygate|merchant)/.test(n) || n === 'idempotency-key')).toEqual([]);
    }
  });

  it('apiKey in query and cookie go on the URL and the Cookie header', async () => {
    const { seen, get } = harness(SCHEMES, { queryKey: 'q1', cookieKey: 'c1' });
    await get({ security: [['queryKey', 'cookieKey']], errors: {} });
    expect(new URL(seen[0]!.url).searchParams.get('api_key')).toBe('q1');
    expect(seen[0]!.headers.get('cookie')).toBe('session=c1');
  });

  it('a per-call header wins over the configured credential', async () => {
    const { seen, get } = harness(SCHEMES, { bearerAuth: 'configured' });
    await get(SECURED, { Authorization: 'Bearer per-call', 'X-Request-ID': 'r1' });
    expect(seen[0]!.headers.get('authorization')).toBe('Bearer per-call');
    expect(seen[0]!.headers.get('x-request-id')).toBe('r1');
  });

  it('Idempotency-Key only where the operation declares it, checked against the spec pattern (D123)', async () => {
    const { seen, post } = harness(SCHEMES, {});
    await post({ security: [], errors: {} });
    await post({ security: [], errors: {}, idempotencyKey: { name: 'Idempotency-Key', pattern: '^[\\x21-\\x7E]+$', maxLength: 255 } });
    expect(seen[0]!.headers.get('idempotency-key')).toBeNull();
    expect(seen[1]!.headers.get('idempotency-key')).toBe('key-1');
    const spaced = createCaller(SCHEMES, { transport: { baseUrl: 'https://api.test' }, idempotencyKey: () => 'has space' });
    expect(() =>
      spaced(
        { security: [], errors: {}, idempotencyKey: { name: 'Idempotency-Key', pattern: '^[\\x21-\\x7E]+$' } },
        'POST',
        '/books',
        init(undefined, undefined, undefined),
      ),
    ).toThrow(/rules refuse/);
  });

  it('refuses auth for a scheme the spec does not declare', () => {
    expect(() => createCaller(SCHEMES, { transport: { baseUrl: 'https://api.test' }, auth: { bearer: 't' } })).toThrow(
      /declares no security scheme "bearer" \(it declares bearerAuth, basicAuth/,
    );
  });
});

describe('createCaller: errors typed per declared status (D122)', () => {
  it.each([
    [
      'declared exact status: the body as the declared schema',
      404,
      { code: 'not_found', message: 'no book' },
      'application/json',
      { code: 'not_found', message: 'no book' },
    ],
    ['declared range 4XX', 409, { code: 'conflict', message: 'taken' }, 'application/json', { code: 'conflict', message: 'taken' }],
    ['undeclared status', 502, { code: 'bad_gateway', message: 'x' }, 'application/json', UNEXPECTED_RESPONSE_CODE],
    ['declared JSON but an HTML body (a proxy page)', 404, '<html>gone</html>', 'text/html', UNEXPECTED_RESPONSE_CODE],
  ] as const)('%s', async (_name, status, body, type, expected) => {
    const { get } = harness(
      SCHEMES,
      { bearerAuth: 't' },
      () => new Response(typeof body === 'string' ? body : JSON.stringify(body), { status, headers: { 'content-type': type } }),
    );
    const result = await get(SECURED);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    if (typeof expected === 'string') {
      expect(result.error).toMatchObject({ error: { code: expected } });
    } else {
      expect(result.error).toEqual(expected);
    }
    expect(result.body).toEqual(body); // the raw body is kept either way
  });
});
